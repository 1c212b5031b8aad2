/* Unit tests for query/stats: every expected number comes from scipy (stats_expected.h, written
 * by tests/tools/gen_stats_expected.py), except the degenerate cases scipy answers with NaN. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../../query/stats.h"
#include "harness.h"
#include "stats_expected.h"

#define REL     1e-6
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_t_distribution(void)
{
    char msg[128];
    for (size_t i = 0; i < N_OF(t_cdf_cases); i++) {
        const struct t_case *c = &t_cdf_cases[i];
        snprintf(msg, sizeof(msg), "t.cdf(%g, df=%g)", c->x, c->df);
        NUM_REL(stats_t_cdf(c->x, c->df), c->expected, REL, msg);
    }
    for (size_t i = 0; i < N_OF(t_sf_cases); i++) {
        const struct t_case *c = &t_sf_cases[i];
        snprintf(msg, sizeof(msg), "t.sf(%g, df=%g)", c->x, c->df);
        NUM_REL(stats_t_sf(c->x, c->df), c->expected, REL, msg);
    }
    for (size_t i = 0; i < N_OF(t_ppf_cases); i++) {
        const struct t_case *c = &t_ppf_cases[i];
        snprintf(msg, sizeof(msg), "t.ppf(%g, df=%g)", c->x, c->df);
        /* the median is 0 exactly: scipy answers with a rounding residue of ~1e-16 */
        if (fabs(c->expected) < 1e-12)
            OK(fabs(stats_t_quantile(c->x, c->df)) < 1e-12, msg);
        else
            NUM_REL(stats_t_quantile(c->x, c->df), c->expected, REL, msg);
    }
    /* the quantile inverts the cdf well beyond the 1e-6 the scipy comparison needs */
    NUM_REL(stats_t_cdf(stats_t_quantile(0.975, 7.0), 7.0), 0.975, 1e-12, "cdf(ppf(0.975))");
    NUM_REL(stats_t_cdf(stats_t_quantile(1e-30, 3.0), 3.0), 1e-30, 1e-10, "cdf(ppf(1e-30))");

    OK(isnan(stats_t_cdf(1.0, 0.0)), "cdf with df 0 is NAN");
    OK(isnan(stats_t_cdf(1.0, -3.0)), "cdf with negative df is NAN");
    OK(isnan(stats_t_cdf(NAN, 3.0)), "cdf of NAN is NAN");
    OK(isnan(stats_t_quantile(1.5, 3.0)), "quantile of p > 1 is NAN");
    OK(isnan(stats_t_quantile(-0.1, 3.0)), "quantile of p < 0 is NAN");
    OK(isnan(stats_t_quantile(0.5, NAN)), "quantile with NAN df is NAN");
    OK(stats_t_quantile(0.0, 3.0) == -INFINITY, "quantile(0) is -inf");
    OK(stats_t_quantile(1.0, 3.0) == INFINITY, "quantile(1) is +inf");
    OK(stats_t_cdf(INFINITY, 3.0) == 1.0 && stats_t_cdf(-INFINITY, 3.0) == 0.0, "cdf(+-inf)");
    NUM_REL(stats_t_cdf(1.959963984540054, INFINITY), 0.975, 1e-12, "df = inf is the normal");
    NUM_REL(stats_incbeta(2.0, 3.0, 0.4), 0.5248, 1e-12, "I_0.4(2,3) = 0.5248 (closed form)");
    OK(isnan(stats_incbeta(0.0, 1.0, 0.5)) && isnan(stats_incbeta(1.0, 1.0, 1.5)),
       "incbeta rejects a <= 0 and x > 1");
}

static void check_describe(const char *name, const char *side, const double *x, size_t n,
                           const double want[6], struct sample_stats *s)
{
    static const char *const field[6] = {"mean", "sd", "min", "max", "ci_lo", "ci_hi"};
    char msg[160];
    stats_describe(x, n, s);
    INT_EQ(s->n, n, "n");
    const double got[6] = {s->mean, s->sd, s->min, s->max, s->ci_lo, s->ci_hi};
    for (int i = 0; i < 6; i++) {
        snprintf(msg, sizeof(msg), "%s %s %s", name, side, field[i]);
        /* sd is exactly 0 for constant samples: compare absolutely then */
        if (want[i] == 0)
            OK(got[i] == 0, msg);
        else
            NUM_REL(got[i], want[i], REL, msg);
    }
}

static void test_pairs(void)
{
    char msg[160];
    for (size_t i = 0; i < N_OF(pair_cases); i++) {
        const struct pair_case *c = &pair_cases[i];
        struct sample_stats a, b;
        const double wa[6] = {c->a_mean, c->a_sd, c->a_min, c->a_max, c->a_ci_lo, c->a_ci_hi};
        const double wb[6] = {c->b_mean, c->b_sd, c->b_min, c->b_max, c->b_ci_lo, c->b_ci_hi};
        check_describe(c->name, "a", c->a, c->na, wa, &a);
        check_describe(c->name, "b", c->b, c->nb, wb, &b);

        snprintf(msg, sizeof(msg), "%s log-ratio p", c->name);
        NUM_REL(stats_ratio_p(&a, &b), c->p, REL, msg);

        double r = NAN, lo = NAN, hi = NAN;
        snprintf(msg, sizeof(msg), "%s ratio status", c->name);
        INT_EQ(stats_ratio_ci(&a, &b, &r, &lo, &hi), 0, msg);
        snprintf(msg, sizeof(msg), "%s ratio", c->name);
        NUM_REL(r, c->ratio, REL, msg);
        snprintf(msg, sizeof(msg), "%s ratio lo", c->name);
        NUM_REL(lo, c->ratio_lo, REL, msg);
        snprintf(msg, sizeof(msg), "%s ratio hi", c->name);
        NUM_REL(hi, c->ratio_hi, REL, msg);
        OK(lo <= r && r <= hi, "ratio inside its interval");
    }
}

static void test_degenerate(void)
{
    struct sample_stats s, t;
    stats_describe(NULL, 0, &s);
    INT_EQ(s.n, 0, "empty n");
    OK(isnan(s.mean) && isnan(s.sd) && isnan(s.min) && isnan(s.ci_lo), "empty: all NAN");

    const double one[] = {42.5};
    stats_describe(one, 1, &s);
    NUM_REL(s.mean, 42.5, 0, "n=1 mean");
    NUM_REL(s.min, 42.5, 0, "n=1 min");
    NUM_REL(s.max, 42.5, 0, "n=1 max");
    OK(isnan(s.sd) && isnan(s.ci_lo) && isnan(s.ci_hi), "n=1: sd and ci are NAN");

    const double two[] = {1.0, 2.0};
    stats_describe(two, 2, &t);

    const double c1[] = {3.0, 3.0, 3.0}, c2[] = {4.0, 4.0};
    struct sample_stats k1, k2;
    stats_describe(c1, 3, &k1);
    stats_describe(c2, 2, &k2);
    OK(k1.sd == 0 && k1.ci_lo == 3.0 && k1.ci_hi == 3.0, "constant sample: sd 0, ci collapses");

    double r = 0, lo = 0, hi = 0;
    INT_EQ(stats_ratio_ci(&k1, &k2, &r, &lo, &hi), 0, "ratio of constants");
    OK(r == 4.0 / 3.0 && lo == r && hi == r, "ratio of constants: ci collapses");
    INT_EQ(stats_ratio_ci(&s, &t, &r, &lo, &hi), -1, "ratio refuses n=1");
    const double neg[] = {-1.0, -2.0, -3.0};
    stats_describe(neg, 3, &s);
    INT_EQ(stats_ratio_ci(&s, &t, &r, &lo, &hi), -1, "ratio refuses a mean <= 0");

    /* cancellation: tiny spread on a huge offset */
    const double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    stats_describe(big, 3, &s);
    NUM_REL(s.sd, 1.0, 1e-9, "sd on a large offset");
}

/* The test on the log ratio. Expected p from scipy, written out from the formula:
 *   se2 = var(a)/(n_a mean_a^2) + var(b)/(n_b mean_b^2); df by Welch-Satterthwaite;
 *   p = 2 * scipy.stats.t.sf(abs(log(mean_b / mean_a)) / sqrt(se2), df)
 * for a = 100, 110, 95 and b = 130, 128, 140: 0.010173235236383603 (df 3.4188). */
static void test_ratio_p(void)
{
    const double a[] = {100, 110, 95}, b[] = {130, 128, 140};
    struct sample_stats sa, sb;
    stats_describe(a, 3, &sa);
    stats_describe(b, 3, &sb);
    NUM_REL(stats_ratio_p(&sa, &sb), 0.010173235236383603, REL, "log-ratio p against scipy");
    NUM_REL(stats_ratio_p(&sb, &sa), 0.010173235236383603, REL, "symmetric in its sides");
    /* p < 0.05 exactly when the 95 % interval excludes 1: scale b towards a and check both */
    for (double f = 0.70; f <= 1.001; f += 0.01) {
        double c[3] = {b[0] * f, b[1] * f, b[2] * f}, r, lo, hi;
        struct sample_stats sc;
        stats_describe(c, 3, &sc);
        stats_ratio_ci(&sa, &sc, &r, &lo, &hi);
        char msg[64];
        snprintf(msg, sizeof(msg), "p and interval agree at scale %.2f", f);
        OK((stats_ratio_p(&sa, &sc) < 0.05) == (lo > 1 || hi < 1), msg);
    }
    const double k[] = {3, 3, 3}, k2[] = {4, 4, 4};
    struct sample_stats s3, s4;
    stats_describe(k, 3, &s3);
    stats_describe(k2, 3, &s4);
    OK(stats_ratio_p(&s3, &s4) == 0 && stats_ratio_p(&s3, &s3) == 1, "no spread: 0 or 1");
    struct sample_stats one;
    stats_describe(a, 1, &one);
    OK(isnan(stats_ratio_p(&one, &sb)), "single run: NAN");
}

/* Holm by hand: p = .01 .04 .03 .005 (m = 4); sorted .005 .01 .03 .04 times 4 3 2 1 gives
 * .02 .03 .06 .04, made monotone: .02 .03 .06 .06; back in the input order. */
static void test_holm(void)
{
    double p[] = {0.01, 0.04, 0.03, 0.005};
    const double want[] = {0.03, 0.06, 0.06, 0.02};
    stats_holm(p, 4, p);
    for (size_t i = 0; i < 4; i++)
        NUM_REL(p[i], want[i], 1e-12, "holm adjusted p");
    double big[] = {0.5, 0.6};
    stats_holm(big, 2, big);
    OK(big[0] == 1 && big[1] == 1, "adjusted p capped at 1");
    stats_holm(NULL, 0, NULL);
}

/* Runs per side for 80 % power at alpha 0.05: statsmodels 0.13.5's TTestIndPower().solve_power(
 * effect_size=e, alpha=0.05, power=0.8, ratio=1, alternative='two-sided'), rounded up (its
 * answers: 6280.05, 175.38, 27.00 (26.996), 16.71, 8.06, 3.88, 2.81, 2.12). */
static void test_ttest_runs(void)
{
    static const struct {
        double effect;
        size_t runs;
    } cases[] = {{0.05, 6281}, {0.3, 176}, {0.777, 27}, {1, 17},
                 {1.5, 9},     {2.44, 4},  {3.3, 3},    {5, 3}};
    char msg[96];
    for (size_t i = 0; i < N_OF(cases); i++) {
        snprintf(msg, sizeof(msg), "runs for effect %g", cases[i].effect);
        INT_EQ(stats_ttest_runs(cases[i].effect, 0.05, 0.8), cases[i].runs, msg);
    }
    /* statsmodels finds no solution above about 6 (its nobs1 would fall below 2): two runs a
     * side are the fewest a t-test takes */
    INT_EQ(stats_ttest_runs(10, 0.05, 0.8), 2, "a large effect needs the fewest runs");
    INT_EQ(stats_ttest_runs(INFINITY, 0.05, 0.8), 2, "no spread: two runs");
    OK(stats_ttest_runs(0, 0.05, 0.8) == SIZE_MAX, "no effect cannot be detected");
    OK(stats_ttest_runs(NAN, 0.05, 0.8) == SIZE_MAX, "unknown spread");
    OK(stats_ttest_runs(1e-4, 0.05, 0.8) == SIZE_MAX, "beyond a million runs");
}

int main(void)
{
    test_t_distribution();
    test_pairs();
    test_degenerate();
    test_ratio_p();
    test_holm();
    test_ttest_runs();
    return TEST_DONE();
}
