/* changepoint.c: E-divisive means with a t-test, in Hunter/Otava's two steps (otava/analysis.py:
 * split, merge). Split: windows of o->window values, each half a window after the last (or
 * from its last change point), are divided recursively at the point of greatest E-divisive
 * divergence while a t-test finds the two sides different at a relaxed p ("weak" change
 * points). Merge: the weakest point (largest p; when every p passes, the smallest change) is
 * dropped and its neighbours re-tested, until every point passes both p and magnitude.
 *
 * Where benchdb differs from Otava 0.6, on purpose: the t-test uses sample variances (Otava
 * hands numpy's population std to scipy's ttest_ind_from_stats, which expects sample ones, so
 * its short segments look a little more significant); after a drop, both neighbours of the
 * dropped point are re-tested (Otava re-tests the next two, leaving the previous one's right
 * side stale); the split maximizes Q over valid splits only (numpy's argmax over Otava's
 * matrix can pick an unused zero cell when every Q is negative). */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "stats.h"

double changepoint_best_split(const double *x, size_t start, size_t stop, size_t *tau)
{
    double best = -INFINITY, within_x = 0;
    *tau = start + 1;
    for (size_t t = start + 1; t < stop; t++) {
        for (size_t i = start; i + 1 < t; i++) /* X gains x[t-1] */
            within_x += fabs(x[i] - x[t - 1]);
        double n = (double)(t - start), cross = 0, within_y = 0;
        for (size_t k = t + 1; k <= stop; k++) { /* Y gains x[k-1] */
            for (size_t i = start; i < t; i++)
                cross += fabs(x[i] - x[k - 1]);
            for (size_t j = t; j + 1 < k; j++)
                within_y += fabs(x[j] - x[k - 1]);
            double m = (double)(k - t);
            /* Matteson & James' Q = mn/(m+n) * (2/(mn) cross - within_x/C(n,2) -
             * within_y/C(m,2)); a one-value side has no within term */
            double q = 2 / (m + n) * cross - (n > 1 ? 2 * m / ((m + n) * (n - 1)) * within_x : 0) -
                       (m > 1 ? 2 * n / ((m + n) * (m - 1)) * within_y : 0);
            if (q > best) {
                best = q;
                *tau = t;
            }
        }
    }
    return best;
}

/* The mean of x[a..b) and its sum of squared deviations (two passes). */
static double segment_mean(const double *x, size_t a, size_t b, double *ss)
{
    double sum = 0, dev = 0;
    for (size_t i = a; i < b; i++)
        sum += x[i];
    double mean = sum / (double)(b - a);
    for (size_t i = a; i < b; i++)
        dev += (x[i] - mean) * (x[i] - mean);
    if (ss)
        *ss = dev;
    return mean;
}

double changepoint_ttest(const double *x, size_t start, size_t split, size_t stop)
{
    double ss1, ss2;
    double m1 = segment_mean(x, start, split, &ss1), m2 = segment_mean(x, split, stop, &ss2);
    double n1 = (double)(split - start), n2 = (double)(stop - split), df = n1 + n2 - 2;
    if (df <= 0)
        return 1; /* two values: nothing says how far apart is far */
    double pooled = (ss1 + ss2) / df;
    if (pooled == 0)
        return m1 == m2 ? 1 : 0;
    double t = (m1 - m2) / sqrt(pooled * (1 / n1 + 1 / n2));
    return 2 * stats_t_sf(fabs(t), df);
}

double changepoint_magnitude(double before, double after)
{
    if (before == 0 || after == 0)
        return 0;
    return fmax(fabs(after / before - 1), fabs(before / after - 1));
}

/* A sorted set of indexes. */
struct index_set {
    size_t *v, n, alloc;
};

static void index_set_add(struct index_set *s, size_t index)
{
    size_t at = 0;
    while (at < s->n && s->v[at] < index)
        at++;
    if (at < s->n && s->v[at] == index)
        return;
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof(*s->v));
    s->v[at] = index;
    s->n++;
}

/* One window x[lo..hi): split the segment holding the best candidate while its two sides
 * differ at max_p; the first candidate that does not stops the window (Otava's detector). */
static void split_window(const double *x, size_t lo, size_t hi, double max_p,
                         struct index_set *found)
{
    for (;;) {
        size_t seg_lo = 0, seg_hi = 0, tau = 0, t;
        double best = -INFINITY;
        for (size_t i = 0, a = lo; i <= found->n; i++) {
            size_t b = i < found->n ? found->v[i] : hi;
            double q;
            if (b - a > 1 && (q = changepoint_best_split(x, a, b, &t)) > best) {
                best = q, tau = t, seg_lo = a, seg_hi = b;
            }
            a = b;
        }
        if (seg_hi == 0 || changepoint_ttest(x, seg_lo, tau, seg_hi) > max_p)
            return;
        index_set_add(found, tau);
    }
}

/* Hunter's first pass accepts weaker evidence: 10x the p (2x from 0.05, as is from 0.5). */
static double first_pass_p(double max_p)
{
    return max_p < 0.05 ? max_p * 10 : max_p < 0.5 ? max_p * 2 : max_p;
}

/* The split step over all of x: the union of each window's weak change points. */
static void split_series(const double *x, size_t n, const struct changepoint_opts *o,
                         struct index_set *weak)
{
    size_t step = o->window / 2, start = 0;
    while (start < n) {
        size_t end = start + o->window < n ? start + o->window : n;
        struct index_set found = {0};
        split_window(x, start, end, first_pass_p(o->max_p), &found);
        size_t last = found.n ? found.v[found.n - 1] : 0;
        for (size_t i = 0; i < found.n; i++)
            index_set_add(weak, found.v[i]);
        free(found.v);
        start = last > start + step ? last : start + step;
    }
}

/* A side of a change point needs this many runs to be tested: with one or two, the spread is
 * unknown, and two equal runs give p = 0, an artefact, not evidence (docs/methods.md: Perfherder
 * takes 12 before and 12 after; Hunter windows). */
enum { MIN_SEGMENT_RUNS = 3 };

/* cp[k]'s means and p between its neighbours (or the series' ends); p = 1 (no claim) when a
 * side has too few runs. */
static void measure(const double *x, size_t n, struct change_point *cp, size_t count, size_t k)
{
    size_t lo = k ? cp[k - 1].index : 0, hi = k + 1 < count ? cp[k + 1].index : n;
    cp[k].before = segment_mean(x, lo, cp[k].index, NULL);
    cp[k].after = segment_mean(x, cp[k].index, hi, NULL);
    int testable = cp[k].index - lo >= MIN_SEGMENT_RUNS && hi - cp[k].index >= MIN_SEGMENT_RUNS;
    cp[k].p = testable ? changepoint_ttest(x, lo, cp[k].index, hi) : 1;
}

/* The weakest of count points, or count when all pass. */
static size_t weakest(const struct change_point *cp, size_t count, const struct changepoint_opts *o)
{
    size_t w = 0;
    for (size_t k = 1; k < count; k++)
        if (cp[k].p > cp[w].p)
            w = k;
    if (cp[w].p >= o->max_p)
        return w;
    w = 0;
    for (size_t k = 1; k < count; k++)
        if (changepoint_magnitude(cp[k].before, cp[k].after) <
            changepoint_magnitude(cp[w].before, cp[w].after))
            w = k;
    return changepoint_magnitude(cp[w].before, cp[w].after) > o->min_magnitude ? count : w;
}

/* The merge step: drops the weakest point and re-measures its neighbours until all pass. */
static size_t merge(const double *x, size_t n, struct change_point *cp, size_t count,
                    const struct changepoint_opts *o)
{
    size_t w;
    while (count && (w = weakest(cp, count, o)) < count) {
        memmove(cp + w, cp + w + 1, (count - w - 1) * sizeof(*cp));
        count--;
        if (w > 0)
            measure(x, n, cp, count, w - 1);
        if (w < count)
            measure(x, n, cp, count, w);
    }
    return count;
}

size_t changepoints_find(const double *x, size_t n, const struct changepoint_opts *o,
                         struct change_point **out)
{
    struct index_set weak = {0};
    *out = NULL;
    if (o->window >= 2)
        split_series(x, n, o, &weak);
    if (!weak.n) {
        free(weak.v);
        return 0;
    }
    struct change_point *cp = xcalloc(weak.n, sizeof(*cp));
    for (size_t k = 0; k < weak.n; k++)
        cp[k].index = weak.v[k];
    for (size_t k = 0; k < weak.n; k++)
        measure(x, n, cp, weak.n, k);
    size_t count = merge(x, n, cp, weak.n, o);
    free(weak.v);
    if (count)
        *out = cp;
    else
        free(cp);
    return count;
}
