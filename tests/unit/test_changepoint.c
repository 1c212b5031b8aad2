/* Unit tests for query/changepoint: every expected number comes from the python reference
 * tests/tools/changepoint_ref.py (changepoint_expected.h, written by
 * tests/tools/gen_changepoint_expected.py), which finds the same points by brute force and
 * scipy's t-test. */
#include <stdlib.h>

#include "../../core/array.h"
#include "../../query/changepoint.h"
#include "changepoint_expected.h"
#include "harness.h"

static void series_cases(void)
{
    for (size_t c = 0; c < ARRAY_SIZE(cp_cases); c++) {
        const struct cp_case *k = &cp_cases[c];
        struct changepoint_opts o = {k->max_p, k->min_magnitude, k->window};
        struct change_point *cp;
        size_t n = changepoints_find(k->x, k->n, &o, &cp);
        INT_EQ(n, k->ncps, k->name);
        for (size_t i = 0; i < n && i < k->ncps; i++) {
            INT_EQ(cp[i].index, k->cps[i].index, k->name);
            NUM_REL(cp[i].before, k->cps[i].before, 1e-12, k->name);
            NUM_REL(cp[i].after, k->cps[i].after, 1e-12, k->name);
            /* the t tail comes from query/stats' incomplete beta: 1e-6 relative, even at 1e-135 */
            NUM_REL(cp[i].p, k->cps[i].p, 1e-6, k->name);
        }
        free(cp);
    }
}

static void best_splits(void)
{
    for (size_t c = 0; c < ARRAY_SIZE(split_cases); c++) {
        const struct split_case *k = &split_cases[c];
        size_t tau;
        double q = changepoint_best_split(k->x, k->start, k->stop, &tau);
        INT_EQ(tau, k->tau, k->name);
        NUM_REL(q, k->q, 1e-12, k->name);
    }
}

static void ttests(void)
{
    for (size_t c = 0; c < ARRAY_SIZE(ttest_cases); c++) {
        const struct ttest_case *k = &ttest_cases[c];
        NUM_REL(changepoint_ttest(k->x, k->start, k->split, k->stop), k->p, 1e-9, k->name);
    }
}

static void magnitude(void)
{
    /* 100 -> 80: 20 % lower, 25 % higher the other way: the larger counts */
    NUM_REL(changepoint_magnitude(100, 80), 0.25, 1e-15, "100 to 80");
    NUM_REL(changepoint_magnitude(80, 100), 0.25, 1e-15, "80 to 100");
    NUM_REL(changepoint_magnitude(0, 5), 0, 0, "a zero mean has no relative change");
}

static void degenerate(void)
{
    struct change_point *cp = (struct change_point *)&cp;
    struct changepoint_opts o = CHANGEPOINT_DEFAULTS;
    INT_EQ(changepoints_find(NULL, 0, &o, &cp), 0, "no values");
    OK(cp == NULL, "no values: no array");
    double one[] = {5};
    INT_EQ(changepoints_find(one, 1, &o, &cp), 0, "one value");
    double two[] = {5, 500};
    INT_EQ(changepoints_find(two, 2, &o, &cp), 0, "two values: no degrees of freedom");
}

int main(void)
{
    series_cases();
    best_splits();
    ttests();
    magnitude();
    degenerate();
    return TEST_DONE();
}
