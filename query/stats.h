/* stats.h: descriptive statistics and comparisons of repeated benchmark runs (pure C, libm).
 *
 * Nothing here allocates or touches the database. Inputs are expected to be finite; a NaN or
 * infinity in a sample propagates into the results. Functions that cannot give a value return
 * NAN (never 0: unknown is not zero). */
#ifndef BDB_STATS_H
#define BDB_STATS_H

#include <stddef.h>

struct sample_stats {
    size_t n;
    double mean;         /* NAN when n == 0 */
    double sd;           /* sample standard deviation (divisor n-1); NAN when n < 2 */
    double min, max;     /* NAN when n == 0 */
    double ci_lo, ci_hi; /* 95 % Student t interval of the mean; NAN when n < 2 */
};

/* Fills *out from x[0..n-1] (two-pass mean and variance). x may be NULL when n == 0. */
void stats_describe(const double *x, size_t n, struct sample_stats *out);

/* Student t distribution with df > 0 degrees of freedom (df may be INFINITY: the normal
 * distribution). NAN for df <= 0 or NaN arguments.
 * stats_t_cdf: P(T <= t), via the regularized incomplete beta function.
 * stats_t_sf: P(T > t), computed directly (no 1 - cdf cancellation in the upper tail).
 * stats_t_quantile: the t with P(T <= t) = p; -INFINITY for p == 0, INFINITY for p == 1, NAN
 * outside [0, 1]. Safeguarded Newton iteration on the tail probability. */
double stats_t_cdf(double t, double df);
double stats_t_sf(double t, double df);
double stats_t_quantile(double p, double df);

/* Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1 (NAN otherwise). */
double stats_incbeta(double a, double b, double x);

/* Ratio of means b/a with a 95 % confidence interval by the delta method on the log ratio:
 * se^2 = sd_a^2/(n_a mean_a^2) + sd_b^2/(n_b mean_b^2), Welch-Satterthwaite df for those two
 * terms, interval exp(log(ratio) +- t(0.975, df) * se). The interval is always positive and
 * asymmetric around the ratio (unlike Fieller's, it never becomes unbounded). When both
 * variances are 0 the interval collapses to the ratio. Returns -1 (outputs unchanged) when
 * either side has n < 2 or a mean that is not > 0 (throughputs, latencies: positive), else 0. */
int stats_ratio_ci(const struct sample_stats *a, const struct sample_stats *b, double *ratio,
                   double *lo, double *hi);

/* The two-sided p-value of "the ratio of means is 1" on the same log scale as
 * stats_ratio_ci: t = |log(ratio)| / se with its Welch-Satterthwaite df, so p < 0.05 exactly
 * when that 95 % interval excludes 1. Throughputs and latencies vary multiplicatively (a
 * 3000x latency gap with a 20 % spread is certain; on the raw scale its large variance hides
 * it). NAN when either side has n < 2 or a mean that is not > 0; with no spread on either
 * side, 0 for different means and 1 for equal ones. */
double stats_ratio_p(const struct sample_stats *a, const struct sample_stats *b);

/* Runs per side a two-sample t-test on the log scale needs to detect a relative change d
 * (0.10: 10 %) at level alpha with the given power, when the runs' coefficient of variation
 * (sd / mean, pooled over the sides: cv2 is its square) is what was observed:
 * the smallest n >= 2 with n >= 2 (t(1 - alpha/2, 2n - 2) + t(power, 2n - 2))^2 cv^2 / ln(1 + d)^2
 * (docs/methods.md, "Too few runs"). SIZE_MAX when cv2 is not finite, d is not > 0, or it would
 * take more than a million. */
size_t stats_runs_needed(double cv2, double d, double alpha, double power);

/* Runs per side a two-sided two-sample t-test at level alpha needs to reach the given power
 * when the means differ by effect standard deviations (on the log scale: ln(1 + change) / the
 * runs' sd of ln): the smallest n >= 2 with that power under the noncentral t distribution,
 * which is statsmodels' TTestIndPower.solve_power(effect, alpha=alpha, power=power, ratio=1,
 * alternative='two-sided') rounded up (docs/methods.md, "Gates: limits and three outcomes"). 2 for
 * an infinite effect (no spread); SIZE_MAX when effect is not > 0 or it would take more than about
 * a million. */
size_t stats_ttest_runs(double effect, double alpha, double power);

/* Holm's step-down adjustment of m p-values (in may equal out): sorted ascending, the i-th
 * smallest (from 0) becomes max over j <= i of min(1, (m - j) p_(j)); compare with alpha.
 * Controls the family-wise error rate at alpha for any dependence between the tests. */
void stats_holm(const double *in, size_t m, double *out);

#endif
