/* Unit tests for query/series: the SNIA steady-state rule and the cliff rule on series whose
 * answers are worked out by hand in the comments (docs/series.md defines both rules). */
#include <math.h>
#include <stdio.h>

#include "../../query/series.h"
#include "harness.h"

#define N 100

/* t = 1 .. 100 ms, v from f */
static void fill(double *t, double *v, double (*f)(double))
{
    for (int i = 0; i < N; i++) {
        t[i] = i + 1;
        v[i] = f(t[i]);
    }
}

static double flat(double x)
{
    (void)x;
    return 100;
}

static double ramp(double x)
{
    return x;
}

static double step_down(double x)
{
    return x <= 80 ? 100 : 10;
}

static double dip(double x)
{
    return x >= 50 && x <= 55 ? 10 : 100;
}

static void test_snia(void)
{
    double t[N], v[N];
    struct snia_window w;
    fill(t, v, flat);
    INT_EQ(series_snia(t, v, N, &w), STEADY_YES, "a flat series is steady");
    NUM_REL(w.range + 1, 1, 1e-12, "flat: no range");
    NUM_REL(w.excursion + 1, 1, 1e-12, "flat: no slope");
    /* rounds of 10 ms: rounds 5..8 hold t = 10k .. 10k+9 (means 54.5, 64.5, 74.5, 84.5), round
     * 9 holds 90 .. 100 (mean 95); window mean 74.6; range 40.5 / 74.6; slope = (-2 x 54.5 -
     * 64.5 + 84.5 + 2 x 95) / 10 = 10.1, x 4 = 40.4 / 74.6 */
    fill(t, v, ramp);
    INT_EQ(series_snia(t, v, N, &w), STEADY_NO, "a ramp is not steady");
    NUM_REL(w.range, 40.5 / 74.6, 1e-12, "ramp: range of the window's round means");
    NUM_REL(w.excursion, 40.4 / 74.6, 1e-12, "ramp: least-squares slope x 4 over the mean");
    /* points at 10, 20 and 100 ms: rounds 5 to 8 are empty */
    double ts[] = {10, 20, 100}, vs[] = {1, 1, 1};
    INT_EQ(series_snia(ts, vs, 3, &w), STEADY_UNKNOWN, "an empty round: no verdict");
    INT_EQ(series_snia(ts, vs, 0, &w), STEADY_UNKNOWN, "no points: no verdict");
}

static void test_cliff(void)
{
    double t[N], v[N];
    struct cliff c;
    /* 100 until 80 ms, then 10 to the end (100 ms): below 50 % of the mean before (100) from
     * t = 81 for 100 - 81 = 19 ms, more than 10 % of 100 */
    fill(t, v, step_down);
    OK(series_cliff(t, v, N, &c), "a lasting drop is a cliff");
    NUM_REL(c.start_ms, 81, 1e-12, "it starts at the first low point");
    NUM_REL(c.span_ms, 19, 1e-12, "it lasts to the end of the run");
    NUM_REL(c.before, 100, 1e-12, "the level before");
    NUM_REL(c.level, 10, 1e-12, "the level during");
    /* 10 from 50 to 55 ms: 56 - 50 = 6 ms, less than 10 % of the run */
    fill(t, v, dip);
    OK(!series_cliff(t, v, N, &c), "a short dip is no cliff");
    fill(t, v, flat);
    OK(!series_cliff(t, v, N, &c), "a flat series has none");
}

int main(void)
{
    test_snia();
    test_cliff();
    return TEST_DONE();
}
