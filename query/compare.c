/* compare.c: benchdb report --compare. Results are matched on their workload (rw, block size,
 * iodepth, numjobs, direct and sync settings, direction). Results of one workload on one side
 * are repeats only when their context agrees too (host, OS, mount options, tool major version,
 * engine, size); where it does not, the rows are broken out by what differs. Each candidate is
 * compared with the baseline: a direction-aware factor, its 95 % interval, and a verdict from
 * a Welch-type test of the log ratio of the means (stats_ratio_p), Holm-corrected over every
 * test of the report (docs/methods.md, "Comparing two sides"). */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "capacity.h"
#include "figures.h"
#include "identity.h"
#include "insights.h"
#include "ranking.h"
#include "results.h"
#include "side_expr.h"
#include "stats.h"

/* fio reports a percentile as the middle of the latency bin it falls in, and a bin is 1/64 of
 * its power of two wide (FIO_IO_U_PLAT_BITS 6): repeats that all land in one bin show no spread
 * at all, which is not evidence that they agree better than one bin. */
#define FIO_BIN_RESOLUTION (1.0 / 64)

/* The metrics compared, and which way is better. Bandwidth and IOPS of one workload are one
 * measurement (IOPS = bandwidth / block size), so they are one test in one row: IOPS is shown
 * beside the bandwidth, and has a row of its own only where no bandwidth is known. */
static const struct metric_def {
    const char *label; /* in the table */
    enum result_metric m;
    enum unit unit;
    int higher_is_better;
    const char *better, *worse; /* phrases: "30.0x faster" / "1.42x slower" */
    double resolution;          /* relative step between the values a run can report; 0: none */
} metric_defs[] = {
    {"Bandwidth", RM_BW, UNIT_BYTES_S, 1, "faster", "slower", 0},
    {"IOPS", RM_IOPS, UNIT_IOPS, 1, "more IOPS", "fewer IOPS", 0},
    /* total: when O_DIRECT is ignored the I/O happens in io_submit (slat), and clat flatters */
    {"Mean latency", RM_LAT_TOTAL, UNIT_NS, 0, "lower latency", "higher latency", 0},
    {"p99 latency", RM_P99, UNIT_NS, 0, "lower p99 latency", "higher p99 latency",
     FIO_BIN_RESOLUTION},
    {"fsync latency", RM_SYNC_MEAN, UNIT_NS, 0, "lower fsync latency", "higher fsync latency", 0},
    {"fsync p99 latency", RM_SYNC_P99, UNIT_NS, 0, "lower fsync p99 latency",
     "higher fsync p99 latency", FIO_BIN_RESOLUTION},
};
/* What a gate's limit may call each compared metric: its short name first, then the stored
 * names it is read from (docs/HACKING.md, "Metric names"). */
static const struct metric_name {
    const char *name;
    enum result_metric m;
} metric_names[] = {
    {"bw", RM_BW},
    {"bw_bytes_s", RM_BW},
    {"iops", RM_IOPS},
    {"lat", RM_LAT_TOTAL},
    {"lat_mean_ns", RM_LAT_TOTAL},
    {"clat_mean_ns", RM_LAT_TOTAL},
    {"p99", RM_P99},
    {"clat_p99_ns", RM_P99},
    {"lat_p99_ns", RM_P99},
    {"fsync", RM_SYNC_MEAN},
    {"sync_lat_mean_ns", RM_SYNC_MEAN},
    {"fsync_p99", RM_SYNC_P99},
    {"sync_lat_p99_ns", RM_SYNC_P99},
};
enum { N_METRICS = ARRAY_SIZE(metric_defs), M_BW = 0, M_IOPS = 1 };

/* Significance level of the verdicts, family-wise over the report (Holm). */
const char *const query_compare_tables[] = {
    "comparison",     "unmatched",     "ranking",         "insights",
    "network",        "steady_state",  "scaling",         "recommendations",
    "capacity",       "capacity_cost", "capacity_points", "capacity_targets",
    "capacity_costs", "runs",          "results",         NULL};

static const double ALPHA = 0.05;
/* A factor whose whole 95 % interval lies within 1 ± this is "equivalent": a difference this
 * small is within run-to-run noise of storage benchmarks (criterion's noise threshold). */
static const double EQUIVALENCE_MARGIN = 0.05;

/* ---- grouping ---- */

struct result_set {
    const struct side_result **v;
    size_t n, a;
};

struct workload_group {
    char *key;  /* identity: the workload columns joined, then the broken-out context */
    char *name; /* human name */
    struct result_set *sides;
};

struct groups {
    struct workload_group *v;
    size_t n, a;
    size_t nsides;
    unsigned broken_out; /* context keys that split some workload (bit per enum context_key) */
    struct result_set unknown; /* results whose workload is unknown: never matched */
};

static struct workload_group *new_group(struct groups *g, char *key, char *name)
{
    ALLOC_GROW(g->v, g->n, g->a);
    struct workload_group *w = &g->v[g->n++];
    w->key = key;
    w->name = name;
    w->sides = xcalloc(g->nsides, sizeof(*w->sides));
    return w;
}

static void add_to(struct result_set *s, const struct side_result *r)
{
    ALLOC_GROW(s->v, s->n, s->a);
    s->v[s->n++] = r;
}

static struct workload_group *find_group(struct groups *g, const struct side_result *r)
{
    for (size_t i = g->n; i-- > 0;) /* the last group first: results come in runs of one */
        if (!strcmp(g->v[i].key, r->workload))
            return &g->v[i];
    struct buf key = BUF_INIT, name = BUF_INIT;
    result_workload_key(&key, r);
    result_workload_name(&name, r);
    return new_group(g, buf_detach(&key, NULL), buf_detach(&name, NULL));
}

/* A result that names neither its rw nor its direction (dd summaries printed without their
 * command line) could be a read, a buffered or an O_DIRECT write: it matches nothing. */
static int workload_unknown(const struct side_result *r)
{
    return !*r->rw && !*r->direction;
}

static void add_result(struct groups *g, const struct side_result *r)
{
    if (!result_usable(r))
        return;
    if (workload_unknown(r))
        add_to(&g->unknown, r);
    else
        add_to(&find_group(g, r)->sides[r->side], r);
}

static void groups_release(struct groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t s = 0; s < g->nsides; s++)
            free(g->v[i].sides[s].v);
        free(g->v[i].sides);
        free(g->v[i].key);
        free(g->v[i].name);
    }
    free(g->v);
    free(g->unknown.v);
}

/* The context keys whose value differs between results of one side of w. */
static unsigned varying_context(const struct workload_group *w, size_t nsides, const char *by)
{
    unsigned mask = 0;
    struct buf scratch[2] = {BUF_INIT, BUF_INIT};
    for (size_t s = 0; s < nsides; s++)
        for (size_t i = 1; i < w->sides[s].n; i++)
            mask |= context_differs(w->sides[s].v[0], w->sides[s].v[i], mask, by, scratch);
    buf_release(&scratch[0]);
    buf_release(&scratch[1]);
    return mask;
}

/* Splits w into one group per combination of the context keys in mask. */
static void break_out(struct groups *out, const struct workload_group *w, unsigned mask,
                      const char *by)
{
    for (size_t s = 0; s < out->nsides; s++) {
        for (size_t i = 0; i < w->sides[s].n; i++) {
            const struct side_result *r = w->sides[s].v[i];
            struct buf key = BUF_INIT, name = BUF_INIT;
            buf_adds(&key, w->key);
            buf_adds(&name, w->name);
            context_label(&name, &key, r, mask, by);
            struct workload_group *g = NULL;
            for (size_t j = 0; j < out->n && !g; j++)
                if (!strcmp(out->v[j].key, key.data))
                    g = &out->v[j];
            if (g) {
                buf_release(&key);
                buf_release(&name);
            } else {
                g = new_group(out, buf_detach(&key, NULL), buf_detach(&name, NULL));
            }
            add_to(&g->sides[s], r);
        }
    }
}

/* Replaces every group whose repeats disagree in their context by its broken-out groups. */
static void split_contexts(struct groups *g, const char *by)
{
    struct groups out = {NULL, 0, 0, g->nsides, g->broken_out, g->unknown};
    for (size_t i = 0; i < g->n; i++) {
        struct workload_group *w = &g->v[i];
        unsigned mask = varying_context(w, g->nsides, by);
        if (!mask) {
            ALLOC_GROW(out.v, out.n, out.a);
            out.v[out.n++] = *w;
            continue;
        }
        out.broken_out |= mask;
        break_out(&out, w, mask, by);
        for (size_t s = 0; s < g->nsides; s++)
            free(w->sides[s].v);
        free(w->sides);
        free(w->key);
        free(w->name);
    }
    free(g->v);
    *g = out;
}

static int cmp_groups(const void *a, const void *b)
{
    const struct workload_group *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->key, y->key);
}

/* ---- the factor ---- */

/* The factor's whole 95 % interval lies within 1 +- 5 %. */
static int within_margin(const struct cell *factor)
{
    return factor->lo >= 1 / (1 + EQUIVALENCE_MARGIN) && factor->hi <= 1 + EQUIVALENCE_MARGIN;
}

/* The test on the log ratio and the interval of the ratio must agree: a difference that one
 * of them cannot tell from none is not significant. Uncorrected they agree by construction;
 * corrected, the test is the stricter. */
static int significant(const struct cell *factor, double p)
{
    return p < ALPHA && !(factor->lo <= 1 && factor->hi >= 1);
}

int compare_significant(const struct cell *f)
{
    return f->verdict != VERDICT_SINGLE_RUN && significant(f, f->p_holm);
}

/* The short name of metric m: the first of its names. */
static const char *short_name(enum result_metric m)
{
    size_t i = 0;
    while (metric_names[i].m != m)
        i++;
    return metric_names[i].name;
}

int compare_metric_find(const char *name, struct compare_metric *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(metric_names); i++)
        for (size_t k = 0; k < N_METRICS && !strcmp(name, metric_names[i].name); k++) {
            const struct metric_def *d = &metric_defs[k];
            if (d->m == metric_names[i].m) {
                *out = (struct compare_metric){d->label, short_name(d->m), d->unit,
                                               d->higher_is_better,
                                               k == M_IOPS ? metric_defs[M_BW].label : NULL};
                return 0;
            }
        }
    return -1;
}

const char *compare_metric_name(size_t i)
{
    return i < ARRAY_SIZE(metric_names) ? metric_names[i].name : NULL;
}

/* Equivalent when the whole interval is within the margin, a difference too small to matter
 * whether or not it is real; else significant or not; and what is not is inconclusive: "no
 * significant difference" with two runs a side is no evidence of equality. */
static enum verdict compare_verdict(const struct cell *factor, double p)
{
    if (within_margin(factor))
        return VERDICT_EQUIVALENT;
    return significant(factor, p) ? VERDICT_SIGNIFICANT : VERDICT_INCONCLUSIVE;
}

/* The direction-aware factor of candidate against baseline (>1: candidate better), its 95 %
 * interval and verdict. */
static void compare_factor(const struct sample_stats *base, const struct sample_stats *cand,
                           int higher_is_better, struct cell *out)
{
    out->kind = CELL_NUMBER;
    double ratio = cand->mean / base->mean;
    double lo = NAN, hi = NAN, r;
    if (stats_ratio_ci(base, cand, &r, &lo, &hi) == 0)
        ratio = r;
    /* the factor reads as "how many times better": >1 better, <1 worse */
    out->value = higher_is_better ? ratio : 1 / ratio;
    out->lo = higher_is_better ? lo : 1 / hi;
    out->hi = higher_is_better ? hi : 1 / lo;
    out->p = NAN;
    if (base->n < 2 || cand->n < 2) {
        out->verdict = VERDICT_SINGLE_RUN;
        return;
    }
    out->p = stats_ratio_p(base, cand);
    out->verdict = compare_verdict(out, out->p);
}

/* "%.3g": three significant digits (1.42, 30.0, 178), never "1.0x slower". */
static void add_sig3(struct buf *out, double v)
{
    int prec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    buf_addf(out, "%.*f", prec, v);
}

/* Every factor cell of the report, so that the verdicts can be corrected together. */
struct test {
    struct cell *cell;
    const struct metric_def *def;
    const char *caution; /* "nfs-csi cached": suspect results behind the factor; NULL */
    size_t n[2];         /* runs of the baseline and the candidate */
    double cv2;          /* their squared coefficient of variation, pooled: what a test sees */
};

struct tests {
    struct test *v;
    size_t n, a;
};

/* How many runs a test needs, in an inconclusive verdict: the runs per side that would detect
 * a difference of DETECTABLE at the observed spread. */
static const double DETECTABLE = 0.10;

/* "2.60x faster", or "no difference (1.00x)" when it rounds to 1. */
static void add_direction(struct buf *b, const struct cell *c, const struct metric_def *m)
{
    int better = c->value >= 1;
    double f = better ? c->value : 1 / c->value;
    if (f < 1.005) { /* rounds to 1.00: no direction to name */
        buf_adds(b, "no difference (1.00x)");
        return;
    }
    add_sig3(b, f);
    buf_addf(b, "x %s", better ? m->better : m->worse);
}

/* " (95% CI 1.90-3.50)", read in the direction of the phrase. */
static void add_interval(struct buf *b, const struct cell *c)
{
    if (!isfinite(c->lo) || !isfinite(c->hi))
        return;
    int better = c->value >= 1;
    double lo = better ? c->lo : 1 / c->hi, hi = better ? c->hi : 1 / c->lo;
    buf_adds(b, " (95% CI ");
    add_sig3(b, lo);
    buf_addc(b, '-');
    add_sig3(b, hi);
    buf_addc(b, ')');
}

/* "inconclusive (4.20x, n=2 vs 2): about 9 runs per side would detect a 10 % difference", or
 * what runs that could have detected one say. */
static void add_inconclusive(struct buf *b, const struct cell *c, const struct test *t)
{
    buf_adds(b, "inconclusive (");
    add_sig3(b, c->value);
    buf_addf(b, "x, n=%zu vs %zu)", t->n[0], t->n[1]);
    size_t need = stats_runs_needed(t->cv2, DETECTABLE, ALPHA, 0.8);
    if (need == SIZE_MAX) {
        buf_addf(b, ": the runs vary too much to detect a %.0f %% difference", DETECTABLE * 100);
    } else if (need <= t->n[0] && need <= t->n[1] && isfinite(c->lo) && isfinite(c->hi)) {
        /* "about 3 runs would detect" said to n=3 vs 3 reads as a contradiction: these runs
         * could have shown that difference and did not, but cannot show equivalence either */
        buf_addf(b, ": enough runs to detect a %.0f %% difference, and none found; the 95%% CI ",
                 DETECTABLE * 100);
        add_sig3(b, c->lo);
        buf_addc(b, '-');
        add_sig3(b, c->hi);
        buf_addf(b, " is too wide to call it equivalent within \xc2\xb1%.0f %%",
                 EQUIVALENCE_MARGIN * 100);
    } else
        buf_addf(b, ": about %zu runs per side would detect a %.0f %% difference", need,
                 DETECTABLE * 100);
}

/* The factor's words: its verdict with what it rests on. */
static const char *factor_phrase(struct arena *a, const struct cell *c, const struct test *t)
{
    if (!isfinite(c->value) || c->value <= 0)
        return "n/a";
    struct buf b = BUF_INIT;
    switch (c->verdict) {
    case VERDICT_SIGNIFICANT:
        add_direction(&b, c, t->def);
        add_interval(&b, c);
        break;
    case VERDICT_EQUIVALENT:
        buf_addf(&b, "equivalent within ±%.0f %% (", EQUIVALENCE_MARGIN * 100);
        add_sig3(&b, c->value);
        buf_adds(&b, "x)");
        break;
    case VERDICT_INCONCLUSIVE:
        add_inconclusive(&b, c, t);
        break;
    default:
        add_direction(&b, c, t->def);
        buf_adds(&b, " (single run)");
    }
    const char *s = arena_strdup(a, b.data);
    buf_release(&b);
    return s;
}

/* "2.60x faster", "1.42x higher latency": a significant factor's verdict in the metric's own
 * words; "no difference (1.00x)" when it rounds to 1. */
static const char *direction_phrase(struct arena *a, const struct cell *c,
                                    const struct metric_def *m)
{
    struct buf b = BUF_INIT;
    add_direction(&b, c, m);
    const char *s = arena_strdup(a, b.data);
    buf_release(&b);
    return s;
}

/* ---- the report ---- */

/* Network throughput is shown in bit/s, as links are rated. */
static int is_network(const struct workload_group *w, size_t nsides)
{
    for (size_t s = 0; s < nsides; s++)
        if (w->sides[s].n)
            return result_is_network(w->sides[s].v[0]);
    return 0;
}

/* The values of metric m over the results of one side (repeats). */
static size_t side_values(const struct result_set *rs, enum result_metric m, double scale,
                          double *out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (!isnan(rs->v[i]->m[m]))
            out[n++] = rs->v[i]->m[m] * scale;
    return n;
}

static void describe(const struct result_set *rs, enum result_metric m, double scale,
                     struct sample_stats *st)
{
    double *v = xmalloc((rs->n ? rs->n : 1) * sizeof(*v));
    stats_describe(v, side_values(rs, m, scale, v), st);
    free(v);
}

/* "13-15 ms (typed range)": the one value of a side that its author typed as a range, shown as
 * typed (results.h: result_typed_range) and not as its midpoint; NULL otherwise. */
static const char *typed_range_text(struct report *r, const struct result_set *rs,
                                    enum result_metric m)
{
    const char *text = NULL;
    struct buf range = BUF_INIT;
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++) {
        if (isnan(rs->v[i]->m[m]))
            continue;
        buf_reset(&range);
        if (n++ || !result_typed_range(rs->v[i], m, &range))
            text = NULL;
        else
            text = arena_printf(&r->arena, "%s (typed range)", range.data);
    }
    buf_release(&range);
    return text;
}

/* The mean ± sd (n) of a side, with IOPS beside the bandwidth. */
static void value_cell(struct report *r, struct cell *c, const struct result_set *rs,
                       const struct metric_def *m, double scale)
{
    struct sample_stats st;
    describe(rs, m->m, scale, &st);
    if (!st.n)
        return;
    cell_set_number(c, st.mean);
    c->sd = st.sd;
    c->n = (int)st.n;
    c->min = st.min;
    c->max = st.max;
    c->lo = st.ci_lo;
    c->hi = st.ci_hi;
    if (scale == 1)
        c->text = typed_range_text(r, rs, m->m);
    if (m->m == RM_BW && scale == 1) {
        struct sample_stats iops;
        describe(rs, RM_IOPS, 1, &iops);
        c->alt = iops.mean;
    }
}

/* Why the results of one side of a factor are suspect ("cached, short"), into out. */
static unsigned suspect_bits(const struct result_set *rs)
{
    unsigned bits = 0;
    for (size_t i = 0; i < rs->n; i++)
        bits |= rs->v[i]->suspect;
    return bits;
}

/* "nfs-csi cached, short runs": who is suspect and why ("both" when the sides agree). */
static void suspect_words(struct buf *out, const char *who, unsigned bits)
{
    static const struct {
        unsigned bit;
        const char *word;
    } words[] = {{SUSPECT_CACHED, "cached"},
                 {SUSPECT_SHORT, "short runs"},
                 {SUSPECT_TRANSCRIBED, "typed without workload"},
                 {SUSPECT_IMPOSSIBLE, "breaks Little's law"},
                 {SUSPECT_UNSTEADY, "not steady"}};
    if (!bits)
        return;
    buf_addf(out, "%s%s ", out->len ? "; " : "", who);
    const char *sep = "";
    for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
        if (bits & words[i].bit) {
            buf_addf(out, "%s%s", sep, words[i].word);
            sep = ", ";
        }
    }
}

/* Where an fsync job's write() waits for stable storage itself (O_SYNC, a sync mount), its
 * fsync finds little left to flush: that side's fsync latency is not its durable write
 * (recommend.c adds the writes'). */
static void write_waits_words(struct buf *out, const char *who, const struct result_set *set,
                              const struct metric_def *m)
{
    if (m->m != RM_SYNC_MEAN && m->m != RM_SYNC_P99 && m->m != RM_SYNC_P50)
        return;
    for (size_t i = 0; i < set->n; i++) {
        if (result_write_waits(set->v[i]) && result_writes_per_flush(set->v[i])) {
            buf_addf(out,
                     "%s%s: its write() waits for storage too (O_SYNC or a sync mount), before "
                     "the fsync",
                     out->len ? "; " : "", who);
            return;
        }
    }
}

static void add_test(struct report *r, struct tests *t, struct cell *c, const struct metric_def *m,
                     const char *const names[2], const struct result_set *const sets[2],
                     const struct sample_stats *const st[2])
{
    ALLOC_GROW(t->v, t->n, t->a);
    struct buf caution = BUF_INIT;
    unsigned base = suspect_bits(sets[0]), cand = suspect_bits(sets[1]);
    if (base == cand) {
        suspect_words(&caution, "both", base);
    } else {
        suspect_words(&caution, names[0], base);
        suspect_words(&caution, names[1], cand);
    }
    for (int s = 0; s < 2; s++)
        write_waits_words(&caution, names[s], sets[s], m);
    for (int s = 0; s < 2; s++) { /* a factor from a midpoint says so */
        for (size_t i = 0; i < sets[s]->n; i++) {
            if (!result_typed_range(sets[s]->v[i], m->m, NULL))
                continue;
            buf_addf(&caution, "%s%s from a typed range (", caution.len ? "; " : "", names[s]);
            result_typed_range(sets[s]->v[i], m->m, &caution);
            buf_adds(&caution, ", its midpoint compared)");
            break;
        }
    }
    double cv[2];
    for (int i = 0; i < 2; i++)
        cv[i] = st[i]->sd / st[i]->mean;
    t->v[t->n++] = (struct test){c,
                                 m,
                                 caution.len ? arena_strdup(&r->arena, caution.data) : NULL,
                                 {st[0]->n, st[1]->n},
                                 (cv[0] * cv[0] + cv[1] * cv[1]) / 2};
    buf_release(&caution);
}

static int has_metric(const struct workload_group *w, size_t nsides, enum result_metric m)
{
    for (size_t s = 0; s < nsides; s++)
        for (size_t i = 0; i < w->sides[s].n; i++)
            if (!isnan(w->sides[s].v[i]->m[m]))
                return 1;
    return 0;
}

/* The side (0 or 1) whose p99 is unknown because its I/O is submitted, not completed
 * (results.h: p99_untimed), or -1. */
static int p99_untimed_side(const struct result_set *const sets[2])
{
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sets[s]->n; i++)
            if (sets[s]->v[i]->p99_untimed)
                return s;
    return -1;
}

/* Why a row has no factor, in its factor cell: a side that did not run the workload, has no
 * value of the metric, or has a 0 (no ratio). */
static void no_factor(struct report *r, struct cell *f, const char *const names[2],
                      const struct result_set *const sets[2],
                      const struct sample_stats *const st[2], const struct metric_def *m)
{
    int s = !st[0]->n ? 0 : !st[1]->n ? 1 : !(st[0]->mean > 0) ? 0 : 1;
    const char *why = !st[s]->n && !sets[s]->n ? "did not run this workload"
                      : !st[s]->n              ? arena_printf(&r->arena, "has no %s", m->label)
                                  : arena_printf(&r->arena, "has a %s of 0 (no ratio)", m->label);
    cell_set_text(f, arena_printf(&r->arena, "no verdict: %s %s", names[s], why));
}

/* A side's spread is taken as no less than the resolution of its values (metric_def): repeats
 * that a tool reported as one value may differ by up to a step, so a factor's interval and test
 * never rest on a spread of zero that only the rounding made. */
static void floor_spread(struct sample_stats *st, double resolution)
{
    if (st->n >= 2 && st->sd < st->mean * resolution)
        st->sd = st->mean * resolution;
}

/* The pooled sample standard deviation of ln of both sides' runs, weighted by degrees of
 * freedom (a side with one run adds none): the spread a t-test on the log scale sees, from which
 * a gate says how many runs would detect its limit. NAN with no degree of freedom. */
static double log_spread(const struct result_set *const sets[2], const struct metric_def *m)
{
    double ss = 0;
    size_t df = 0;
    for (int s = 0; s < 2; s++) {
        double *v = xmalloc((sets[s]->n ? sets[s]->n : 1) * sizeof(*v));
        size_t n = side_values(sets[s], m->m, 1, v);
        for (size_t i = 0; i < n; i++)
            v[i] = log(v[i]);
        struct sample_stats st;
        stats_describe(v, n, &st);
        if (n >= 2) {
            st.sd = fmax(st.sd, m->resolution); /* sd of ln: relative, as the resolution is */
            ss += st.sd * st.sd * (double)(n - 1);
            df += n - 1;
        }
        free(v);
    }
    return df ? sqrt(ss / (double)df) : NAN;
}

static void factor_cell(struct report *r, struct cell *f, const char *const names[2],
                        const struct result_set *base, const struct result_set *cand,
                        const struct metric_def *m, struct tests *tests)
{
    f->unit = UNIT_RATIO;
    struct sample_stats a, b;
    describe(base, m->m, 1, &a);
    describe(cand, m->m, 1, &b);
    floor_spread(&a, m->resolution);
    floor_spread(&b, m->resolution);
    int untimed =
        m->m == RM_P99 ? p99_untimed_side((const struct result_set *const[2]){base, cand}) : -1;
    if ((!a.n || !b.n) && untimed >= 0) { /* a row with a reason, never a bare cell */
        cell_set_text(f, arena_printf(&r->arena,
                                      "no verdict: %s's I/O happens in submission (slat above "
                                      "clat) and fio gave no total-latency p99 "
                                      "(lat_percentiles=1); its completion p99 would flatter it",
                                      names[untimed]));
        return;
    }
    if (!a.n || !b.n || !(a.mean > 0 && b.mean > 0)) { /* a row with a reason, never blank */
        no_factor(r, f, names, (const struct result_set *const[2]){base, cand},
                  (const struct sample_stats *const[2]){&a, &b}, m);
        return;
    }
    compare_factor(&a, &b, m->higher_is_better, f);
    f->sd_log = log_spread((const struct result_set *const[2]){base, cand}, m);
    add_test(r, tests, f, m, names, (const struct result_set *const[2]){base, cand},
             (const struct sample_stats *const[2]){&a, &b});
}

static void add_comparison_rows(struct report *r, struct table *t, const struct workload_group *w,
                                const struct compare_opts *o, struct tests *tests)
{
    size_t nsides = o->nvalues;
    int network = is_network(w, nsides);
    for (int i = 0; i < N_METRICS; i++) {
        const struct metric_def *m = &metric_defs[i];
        if (!has_metric(w, nsides, m->m) || (i == M_IOPS && has_metric(w, nsides, RM_BW)))
            continue;
        struct cell *row = table_add_row(r, t);
        cell_set_text(&row[0], arena_strdup(&r->arena, w->name));
        cell_set_text(&row[1], m->label);
        for (size_t s = 0; s < nsides; s++) {
            struct cell *v = &row[s ? 1 + 2 * s : 2];
            /* bytes/s stored; a network's rate shown in bit/s (base unit of UNIT_BITS_S) */
            v->unit = network && m->m == RM_BW ? UNIT_BITS_S : m->unit;
            value_cell(r, v, &w->sides[s], m, v->unit == UNIT_BITS_S ? 8 : 1);
            if (s)
                factor_cell(r, &row[2 + 2 * s], (const char *const[2]){o->values[0], o->values[s]},
                            &w->sides[0], &w->sides[s], m, tests);
        }
    }
}

/* Compared when the baseline and at least one candidate ran it: an N-way comparison keeps
 * every pair that has data. One value alone (a gate's absolute limits) has a row for each of
 * its workloads, with no factor. */
static int comparable(const struct workload_group *w, size_t nsides)
{
    size_t with = 0;
    for (size_t s = 1; s < nsides; s++)
        with += w->sides[s].n > 0;
    return w->sides[0].n > 0 && (with > 0 || nsides == 1);
}

/* Holm's step-down correction over every test of the report, then each verdict and phrase. */
static void decide(struct report *r, struct tests *t)
{
    double *p = xmalloc((t->n ? t->n : 1) * sizeof(*p));
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].cell->verdict != VERDICT_SINGLE_RUN) /* no p (non-finite data): no claim */
            p[m++] = isnan(t->v[i].cell->p) ? 1 : t->v[i].cell->p;
    stats_holm(p, m, p);
    for (size_t i = 0, j = 0; i < t->n; i++) {
        struct cell *c = t->v[i].cell;
        if (c->verdict != VERDICT_SINGLE_RUN) {
            c->p_holm = p[j++];
            c->verdict = compare_verdict(c, c->p_holm);
        }
        c->text = factor_phrase(&r->arena, c, &t->v[i]);
        if (c->verdict == VERDICT_SIGNIFICANT)
            c->direction = direction_phrase(&r->arena, c, t->v[i].def);
        c->caution = t->v[i].caution;
        if (c->caution) /* the number stands, but not for what the storage can do */
            c->text = arena_printf(&r->arena, "%s; caution: %s", c->text, c->caution);
    }
    free(p);
}

static void comparison_prose(struct buf *prose, const struct groups *g)
{
    buf_adds(prose, "Each row is one workload the baseline and a candidate ran, matched on rw, "
                    "block size, iodepth, numjobs, direct and sync settings. Values are means of "
                    "the repeated runs (± standard deviation, n runs); the factor reads as "
                    "candidate against baseline. Bandwidth rows show IOPS beside it: one "
                    "measurement, one test.");
    if (!g->broken_out)
        return;
    buf_adds(prose, " Results of one side that differ in their ");
    const char *sep = "";
    for (int k = 0; k < N_CONTEXT; k++) {
        if (g->broken_out & (1u << k)) {
            buf_addf(prose, "%s%s", sep, context_names[k]);
            sep = ", ";
        }
    }
    buf_adds(prose, " are not repeats of one another: those rows are broken out by it "
                    "(in brackets) instead of being averaged.");
}

/* The header's one line per candidate of what the comparison found: factors better and worse
 * (significant), equivalent, inconclusive, single runs, and how many carry a caution. */
static void verdict_facts(struct report *r, const struct compare_opts *o, const struct table *t)
{
    for (size_t s = 1; s < o->nvalues; s++) {
        size_t better = 0, worse = 0, equivalent = 0, inconclusive = 0, single = 0, caution = 0;
        for (size_t i = 0; i < t->nrows; i++) {
            const struct cell *c = table_cell(t, i, 2 + 2 * s);
            better += c->verdict == VERDICT_SIGNIFICANT && c->value > 1;
            worse += c->verdict == VERDICT_SIGNIFICANT && c->value < 1;
            equivalent += c->verdict == VERDICT_EQUIVALENT;
            inconclusive += c->verdict == VERDICT_INCONCLUSIVE;
            single += c->verdict == VERDICT_SINGLE_RUN;
            caution += c->verdict != VERDICT_NONE && c->caution;
        }
        size_t decided = better + worse + equivalent + inconclusive + single;
        struct buf v = BUF_INIT;
        if (!decided) {
            report_fact(r, arena_printf(&r->arena, "%s vs %s", o->values[s], o->values[0]),
                        "no workload in common");
            continue;
        }
        buf_addf(&v, "%zu better, %zu worse, %zu equivalent, %zu inconclusive", better, worse,
                 equivalent, inconclusive);
        if (single)
            buf_addf(&v, ", %zu single-run", single);
        if (t->nrows > decided) /* a metric one side lacks, a workload it did not run */
            buf_addf(&v, ", %zu without a verdict", t->nrows - decided);
        buf_addf(&v, " (of %zu rows", t->nrows);
        if (caution)
            buf_addf(&v, "; %zu with a caution", caution);
        buf_adds(&v, ")");
        report_fact(r, arena_printf(&r->arena, "%s vs %s", o->values[s], o->values[0]), v.data);
        buf_release(&v);
    }
}

static void comparison_table(struct report *r, const struct compare_opts *o, const struct groups *g)
{
    size_t ncols = 1 + 2 * o->nvalues;
    struct column *cols = xcalloc(ncols, sizeof(*cols));
    cols[0] = (struct column){"Workload", UNIT_NONE, ROLE_KEY};
    cols[1] = (struct column){"Metric", UNIT_NONE, ROLE_METRIC};
    /* one value alone (a gate's absolute limits) is no baseline */
    const char *first =
        o->nvalues > 1 ? arena_printf(&r->arena, "%s (baseline)", o->values[0]) : o->values[0];
    cols[2] = (struct column){first, UNIT_NONE, ROLE_SIDE};
    for (size_t s = 1; s < o->nvalues; s++) {
        cols[1 + 2 * s] = (struct column){o->values[s], UNIT_NONE, ROLE_SIDE};
        cols[2 + 2 * s] =
            (struct column){arena_printf(&r->arena, "%s vs %s", o->values[s], o->values[0]),
                            UNIT_RATIO, ROLE_FACTOR};
    }
    struct buf prose = BUF_INIT;
    comparison_prose(&prose, g);
    struct section *s = report_section(r, "Comparison", prose.data);
    buf_release(&prose);
    struct table *t = report_table(r, s, "comparison", cols, ncols);
    free(cols);
    struct tests tests = {NULL, 0, 0};
    for (size_t i = 0; i < g->n; i++)
        if (comparable(&g->v[i], o->nvalues))
            add_comparison_rows(r, t, &g->v[i], o, &tests);
    decide(r, &tests);
    if (t->nrows)
        verdict_facts(r, o, t);
    if (!t->nrows)
        s->prose = "No workload was run on the baseline and a candidate: nothing to compare.";
    free(tests.v);
}

static void unmatched_row(struct report *r, struct table **t, const char *name, const char *side,
                          size_t runs, const char *why)
{
    static const struct column cols[] = {{"Workload", UNIT_NONE, ROLE_PLAIN},
                                         {"Ran on", UNIT_NONE, ROLE_PLAIN},
                                         {"Runs", UNIT_NONE, ROLE_PLAIN},
                                         {"Why", UNIT_NONE, ROLE_PLAIN}};
    if (!*t) {
        struct section *s = report_section(
            r, "Workloads not compared",
            "These workloads have no results on the baseline, or on no candidate, or their "
            "workload is unknown (a dd summary without its command line could be a read or a "
            "write, buffered or direct): they match nothing and are not compared. A workload "
            "that another side ran but for a setting one of them does not state (direct, "
            "iodepth ...) is not matched either: unknown is not the same, and the row says "
            "which setting is unknown on which side.");
        *t = report_table(r, s, "unmatched", cols, 4);
    }
    struct cell *row = table_add_row(r, *t);
    cell_set_text(&row[0], name);
    cell_set_text(&row[1], side);
    cell_set_number(&row[2], (double)runs);
    cell_set_text(&row[3], why);
}

/* Why group w's results on side s match nothing: a group the comparison would pair them with
 * (the baseline's for a candidate, a candidate's for the baseline) that is their workload but for
 * a setting one side leaves unknown (identity.c), else who did not run it. */
static const char *unmatched_why(struct report *r, const struct compare_opts *o,
                                 const struct groups *g, const struct workload_group *w, size_t s)
{
    struct buf why = BUF_INIT;
    const struct side_result *a = w->sides[s].v[0];
    for (size_t i = 0; i < g->n && !why.len; i++) {
        const struct workload_group *x = &g->v[i];
        for (size_t t = s ? 0 : 1; t < (s ? 1 : o->nvalues) && !why.len; t++)
            if (x != w && x->sides[t].n)
                workload_unknown_only(&why, a, o->values[s], x->sides[t].v[0], o->values[t]);
    }
    const char *text = why.len ? arena_strdup(&r->arena, why.data)
                       : s     ? "the baseline did not run it"
                               : "no candidate ran it";
    buf_release(&why);
    return text;
}

static void unmatched_section(struct report *r, const struct compare_opts *o,
                              const struct groups *g)
{
    struct table *t = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const struct workload_group *w = &g->v[i];
        if (comparable(w, o->nvalues))
            continue;
        for (size_t side = 0; side < o->nvalues; side++)
            if (w->sides[side].n)
                unmatched_row(r, &t, arena_strdup(&r->arena, w->name), o->values[side],
                              w->sides[side].n, unmatched_why(r, o, g, w, side));
    }
    for (size_t i = 0; i < g->unknown.n; i++) {
        const struct side_result *u = g->unknown.v[i];
        unmatched_row(r, &t,
                      arena_printf(&r->arena, "unknown %s workload (%s:%d)",
                                   *u->tool ? u->tool : "", u->source, u->line ? u->line : 1),
                      o->values[u->side], 1, "its workload is unknown");
    }
}

/* The distinct strings of a field of one side's results, sorted: a set of the interned
 * pointers (equal strings are one pointer), then its members in byte order. */
struct distinct {
    const char **slot, **v;
    size_t cap, n;
};

static void distinct_add(struct distinct *d, const char *s)
{
    if (!s)
        return;
    if (2 * (d->n + 1) > d->cap) {
        struct distinct bigger = {NULL, d->v, d->cap ? 2 * d->cap : 16, d->n};
        bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
        for (size_t i = 0; i < d->n; i++) {
            size_t j = (size_t)((uintptr_t)d->v[i] >> 4) & (bigger.cap - 1);
            while (bigger.slot[j])
                j = (j + 1) & (bigger.cap - 1);
            bigger.slot[j] = d->v[i];
        }
        free(d->slot);
        *d = bigger;
    }
    size_t j = (size_t)((uintptr_t)s >> 4) & (d->cap - 1);
    for (; d->slot[j]; j = (j + 1) & (d->cap - 1))
        if (d->slot[j] == s)
            return;
    d->slot[j] = s;
    d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
    d->v[d->n++] = s;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "; label: a,b" when d has members (freed either way). */
static void distinct_fact(struct buf *out, const char *label, struct distinct *d)
{
    if (d->n) {
        qsort(d->v, d->n, sizeof(*d->v), cmp_text);
        buf_addf(out, "; %s: ", label);
        for (size_t i = 0; i < d->n; i++)
            buf_addf(out, "%s%s", i ? "," : "", d->v[i]);
    }
    free(d->slot);
    free(d->v);
}

static void add_date(struct buf *out, int64_t t)
{
    time_t s = (time_t)t;
    struct tm tm;
    char day[32];
    if (gmtime_r(&s, &tm) && strftime(day, sizeof(day), "%Y-%m-%d", &tm))
        buf_adds(out, day);
}

/* The fact of side i: its result count, hosts, mounts, flavors, tool versions and dates, from
 * the results loaded for the comparison (two more scans of the warehouse were 15 % of a
 * report's work), so that it describes what --where let through. */
static void side_fact(struct report *r, const struct compare_opts *o,
                      const struct side_results *res, size_t i)
{
    struct distinct hosts = {0}, mounts = {0}, secs = {0}, tools = {0};
    size_t count = 0;
    int64_t first = 0, last = 0;
    for (size_t k = 0; k < res->n; k++) {
        const struct side_result *x = &res->v[k];
        if (x->side != i)
            continue;
        count += !x->part; /* a thread, client or log of a job is counted in its job */
        distinct_add(&hosts, x->host);
        distinct_add(&mounts, x->mount);
        distinct_add(&secs, x->sec);
        distinct_add(&tools, x->tool_version);
        if (x->started_at > 0 && (!first || x->started_at < first))
            first = x->started_at;
        if (x->started_at > last)
            last = x->started_at;
    }
    struct buf v = BUF_INIT;
    buf_addf(&v, "%zu result%s", count, count == 1 ? "" : "s");
    distinct_fact(&v, "hosts", &hosts);
    distinct_fact(&v, "mount", &mounts);
    distinct_fact(&v, "sec", &secs);
    distinct_fact(&v, "tool", &tools);
    if (first) {
        buf_adds(&v, "; dates: ");
        add_date(&v, first);
        buf_adds(&v, " to ");
        add_date(&v, last);
    }
    report_fact(r, arena_printf(&r->arena, "%s%s", o->values[i], i == 0 ? " (baseline)" : ""),
                v.data);
    buf_release(&v);
}

/* What was compared: for each side its hosts, mounts, flavors, tool versions and dates. */
static void context_facts(struct report *r, const struct compare_opts *o,
                          const struct side_results *res)
{
    report_fact(r, "Compared by", o->by);
    for (size_t i = 0; i < o->nvalues; i++)
        side_fact(r, o, res, i);
}

/* How the report was made; every threshold is read from its constant (here, insights.c,
 * suspect.c), so the text cannot drift from the code. */
static void method_note(struct buf *out)
{
    buf_adds(out,
             "One result is one job of one run: fio's per-thread entries (numjobs without "
             "group_reporting) and the hosts of a client/server run are summed into their job's "
             "result (bandwidth and IOPS added, latency means weighted by I/O count, percentiles "
             "from the merged histograms) and never counted as repeats. Repeats are separate runs "
             "of one workload on one side whose context agrees (host, OS, mount options other "
             "than the compared one, tool major version, engine, size); results that differ in it "
             "are broken out, not averaged. Results that do not say their workload (dd without "
             "its command line) match nothing. Repeats are averaged; the spread is the sample "
             "standard deviation. A factor above 1 means the candidate is better in that metric's "
             "own direction (higher bandwidth and IOPS, lower latency). Its 95 % interval comes "
             "from the delta method on the log ratio of the means. Bandwidth and IOPS of one "
             "workload are one test. Every test of the report is one family: the p-values of the "
             "t-test on the log ratio (the same delta-method standard error and "
             "Welch-Satterthwaite degrees of freedom as the interval) are corrected with Holm's "
             "step-down method, and a difference is ");
    buf_addf(out,
             "called significant only when the corrected p < %g and the interval excludes 1 "
             "(both must agree). A factor whose whole interval lies within \xc2\xb1%g %% is "
             "called equivalent. Any other is inconclusive, never \"no difference\": it says "
             "how many runs per side would detect a %g %% difference at the observed spread "
             "(two-sample t-test on the log scale, \xce\xb1 %g, power 0.8). ",
             ALPHA, EQUIVALENCE_MARGIN * 100, DETECTABLE * 100, ALPHA);
    buf_adds(
        out,
        "With a single run on either side no verdict is possible and the factor is "
        "marked *single run*. For fsync=1/fdatasync=1 jobs, fio's write latency is the "
        "write() call alone: the fsync latency is compared in rows of its own; with "
        "sync=1 (O_SYNC) the write latency includes the sync, as it does on a mount "
        "with the sync option; an fsync job's fsync rows there carry a caution (a "
        "recommendation's durable write is then the writes' latency plus the fsync's). Failed jobs (fio "
        "error != 0) are left out. ");
    buf_addf(out,
             "Insights use fixed thresholds: p99 above %gx the median is tail latency, runs under "
             "%g s are short, repeats whose bandwidth varies by more than %g %% (coefficient of "
             "variation) disagree. Buffered random I/O and buffered sequential writes without "
             "fsync are probably cached, as is random I/O completing in under %g \xc2\xb5s on "
             "anything but a memory filesystem (no device answers that fast; fsync jobs' writes "
             "excepted), flushes that waited under it in all (fsync, and writes that went to the "
             "device) on a filesystem known not to be one, "
             "and network-filesystem results above the link measured for their host "
             "(bit/s, or IOPS above its packet rate); IOPS x mean latency above %gx iodepth x "
             "numjobs (one per job for synchronous engines) breaks Little's law. Such suspect "
             "results are left out of the recommendations.",
             TAIL_RATIO, MIN_RUNTIME_MS / 1000, MAX_CV * 100, MIN_DEVICE_IO_NS / 1000,
             LITTLE_TOLERANCE);
}

static int any_storage_result(const struct side_results *res)
{
    for (size_t i = 0; i < res->n; i++)
        if (result_usable(&res->v[i]) && !result_is_network(&res->v[i]))
            return 1;
    return 0;
}

/* Recommendations from --rules FILE, else from the built-in templates/tiers.rules, whose
 * storage tiers say nothing of a comparison of network tests alone: a line says so, in place
 * of a table of classes none of them could meet. */
static int recommend(struct db *db, const struct compare_opts *o, const struct side_results *res,
                     struct report *r, struct diag *d)
{
    if (o->rules)
        return query_recommend(db, o, res, o->rules_name, o->rules, r, d);
    if (!any_storage_result(res)) {
        report_section(r, "Recommendations",
                       "Only network tests (iperf, iperf3) were compared: the storage tiers of "
                       "the built-in tiers.rules do not apply to them.");
        return 0;
    }
    size_t len;
    const char *text = report_builtin_file("tiers.rules", &len);
    return query_recommend(db, o, res, "built-in tiers.rules", text, r, d);
}

/* Whether a and b have the same fields that every context key's value is made of. */
static int same_context(const struct side_result *a, const struct side_result *b)
{
    for (int k = 0; k < N_CONTEXT; k++)
        if (!context_fields_equal(a, b, (enum context_key)k))
            return 0;
    return 1;
}

/* Each result's context (identity.h), before the grouping reads it; a result with the fields
 * of the one before it (a million are mostly repeats) shares its context unwritten. */
static void set_contexts(struct side_results *res, const char *by)
{
    struct buf key = BUF_INIT;
    for (size_t i = 0; i < res->n; i++) {
        if (i && same_context(&res->v[i], &res->v[i - 1])) {
            res->v[i].context = res->v[i - 1].context;
            continue;
        }
        buf_reset(&key);
        context_key(&key, &res->v[i], by);
        res->v[i].context = side_results_intern(res, key.data);
    }
    buf_release(&key);
}

/* Each grouped result's group and its name, for the sections after the comparison: one
 * workload identity in every section. */
static void set_groups(struct side_results *res, const struct groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        const char *key = side_results_intern(res, g->v[i].key);
        const char *name = side_results_intern(res, g->v[i].name);
        for (size_t s = 0; s < g->nsides; s++)
            for (size_t j = 0; j < g->v[i].sides[s].n; j++) {
                struct side_result *x = &res->v[g->v[i].sides[s].v[j] - res->v];
                x->group = key;
                x->group_name = name;
            }
    }
}

int query_compare(struct db *db, const struct compare_opts *o, struct report *r, struct diag *d)
{
    struct side_results res;
    struct suspect_basis basis = {{NULL, 0, 0, ARENA_INIT}, NULL, NULL, ARENA_INIT};
    struct groups g = {NULL, 0, 0, o->nvalues, 0, {NULL, 0, 0}};
    struct id_set binned = {0};
    int rc = query_side_results(db, o, &res, d);
    if (rc == 0)
        rc = suspect_basis_load(db, o, &res, &basis, d);
    if (rc == 0) {
        query_flag_suspects(&basis, &res);
        set_contexts(&res, o->by);
    }
    for (size_t i = 0; rc == 0 && i < res.n; i++)
        add_result(&g, &res.v[i]);
    if (rc == 0) {
        split_contexts(&g, o->by);
        set_groups(&res, &g);
        if (g.n) /* qsort's array must not be NULL, even for no elements */
            qsort(g.v, g.n, sizeof(*g.v), cmp_groups);
        context_facts(r, o, &res);
    }
    if (rc == 0) {
        comparison_table(r, o, &g);
        query_ranking(o, r->sections[r->nsections - 1].table, r);
        unmatched_section(r, o, &g);
        /* the results with latency bins, read once for the charts and the capacity */
        rc = groups_load_binned(db_handle(db), &binned, d);
    }
    if (rc == 0)
        rc = query_figures(db, o, &res, &binned, r, d);
    if (rc == 0)
        rc = query_series_figures(db, o, &res, basis.series, r, d);
    if (rc == 0)
        query_insights(o, &res, &basis, r);
    if (rc == 0)
        rc = recommend(db, o, &res, r, d);
    if (rc == 0)
        rc = query_capacity(db, o, &res, &binned, r, d);
    if (rc == 0) {
        struct buf method = BUF_INIT;
        method_note(&method);
        report_section(r, "Method", method.data);
        buf_release(&method);
    }
    groups_release(&g);
    free(binned.v);
    suspect_basis_release(&basis);
    side_results_release(&res);
    return rc;
}
