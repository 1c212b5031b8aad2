#include "stats.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../core/xalloc.h"

/* Above this many degrees of freedom the continued fraction loses precision (about df * 1e-16
 * relative, from 1 - (a+b)x/(a+1) with x close to 1), so the tail comes from the normal one
 * with the first term of its 1/df expansion instead (Abramowitz & Stegun 26.7.5):
 * P(T > t) = Q(t) + phi(t) (t^3 + t) / (4 df) + O(1/df^2), better than 1e-9 relative there
 * for |t| <= 10. */
#define DF_ASYMPTOTIC 1e8
#define CF_MAX_ITER   100000
#define CF_EPS        1e-16
#define CF_TINY       1e-300
#define PI            3.14159265358979323846

void stats_describe(const double *x, size_t n, struct sample_stats *out)
{
    out->n = n;
    out->mean = out->sd = out->min = out->max = out->ci_lo = out->ci_hi = NAN;
    if (n == 0)
        return;
    double sum = 0, lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double mean = sum / (double)n;
    out->mean = mean;
    out->min = lo;
    out->max = hi;
    if (n < 2)
        return;
    double ss = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        ss += d * d;
        comp += d;
    }
    /* corrected two-pass variance: comp is the rounding error left in the mean */
    double var = (ss - comp * comp / (double)n) / (double)(n - 1);
    out->sd = sqrt(var > 0 ? var : 0);
    double half = stats_t_quantile(0.975, (double)(n - 1)) * out->sd / sqrt((double)n);
    out->ci_lo = mean - half;
    out->ci_hi = mean + half;
}

static double clamp_tiny(double v)
{
    return fabs(v) < CF_TINY ? CF_TINY : v;
}

/* The continued fraction of I_x(a, b) (modified Lentz evaluation):
 * I_x(a,b) = x^a y^b / (a B(a,b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...))) with
 * d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)) and d(2m) = m(b-m) x / ((a+2m-1)(a+2m)).
 * Converges quickly for x < (a+1)/(a+b+2). */
static double incbeta_cf(double a, double b, double x)
{
    double num = 1, den = clamp_tiny(1 - (a + b) * x / (a + 1));
    den = 1 / den;
    double f = den;
    for (int m = 1; m <= CF_MAX_ITER; m++) {
        double k = 2.0 * m;
        double even = m * (b - m) * x / ((a + k - 1) * (a + k));
        den = 1 / clamp_tiny(1 + even * den);
        num = clamp_tiny(1 + even / num);
        f *= den * num;
        double odd = -(a + m) * (a + b + m) * x / ((a + k) * (a + k + 1));
        den = 1 / clamp_tiny(1 + odd * den);
        num = clamp_tiny(1 + odd / num);
        double step = den * num;
        f *= step;
        if (fabs(step - 1) < CF_EPS)
            break;
    }
    return f;
}

/* log(Gamma(a) Gamma(b) / Gamma(a + b)). For b = 1/2 and large a (t tails with many degrees
 * of freedom) lgamma(a) - lgamma(a + 1/2) cancels, so that difference comes from Stirling's
 * series instead: lgamma(a + 1/2) - lgamma(a) = a log1p(1/(2a)) + log(a)/2 - 1/2 + the
 * difference of the 1/(12x) - 1/(360x^3) + 1/(1260x^5) terms (error < 1e-15 for a > 50). */
static double log_beta(double a, double b)
{
    if (b == 0.5 && a > 50) {
        double ap = a + 0.5;
        double series = (1 / (12 * ap) - 1 / (360 * ap * ap * ap) + 1 / (1260 * pow(ap, 5))) -
                        (1 / (12 * a) - 1 / (360 * a * a * a) + 1 / (1260 * pow(a, 5)));
        double diff = a * log1p(0.5 / a) + 0.5 * log(a) - 0.5 + series;
        return lgamma(0.5) - diff;
    }
    return lgamma(a) + lgamma(b) - lgamma(a + b);
}

/* I_x(a, b) with y = 1 - x and both logarithms supplied by the caller, who can compute them
 * without cancellation when x is close to 1. */
static double incbeta_logs(double a, double b, double x, double y, double logx, double logy)
{
    if (x <= 0)
        return 0;
    if (y <= 0)
        return 1;
    double front = exp(a * logx + b * logy - log_beta(a, b));
    if (x < (a + 1) / (a + b + 2))
        return front * incbeta_cf(a, b, x) / a;
    return 1 - front * incbeta_cf(b, a, y) / b;
}

double stats_incbeta(double a, double b, double x)
{
    if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1) || isinf(a) || isinf(b))
        return NAN;
    return incbeta_logs(a, b, x, 1 - x, log(x), log1p(-x));
}

/* P(T > t) for t >= 0. */
static double t_upper_tail(double t, double df)
{
    if (isinf(t))
        return 0;
    if (df > DF_ASYMPTOTIC) {
        double phi = exp(-0.5 * t * t) / sqrt(2 * PI);
        return 0.5 * erfc(t / sqrt(2.0)) + (isinf(df) ? 0 : phi * (t * t * t + t) / (4 * df));
    }
    /* x = df / (df + t^2) and y = t^2 / (df + t^2), written so that neither overflows and
     * their logarithms keep full precision when x or y is close to 1 */
    double s = t / sqrt(df), x, y, logx, logy;
    if (s <= 1) {
        double s2 = s * s;
        x = 1 / (1 + s2);
        y = s2 * x;
        logx = -log1p(s2);
        logy = y > 0 ? log(s2) + logx : -INFINITY;
    } else {
        double r2 = 1 / (s * s);
        y = 1 / (1 + r2);
        x = r2 * y;
        logy = -log1p(r2);
        logx = x > 0 ? log(r2) + logy : -INFINITY;
    }
    return 0.5 * incbeta_logs(df / 2, 0.5, x, y, logx, logy);
}

static int bad_df(double df)
{
    return isnan(df) || !(df > 0);
}

double stats_t_sf(double t, double df)
{
    if (isnan(t) || bad_df(df))
        return NAN;
    return t >= 0 ? t_upper_tail(t, df) : 1 - t_upper_tail(-t, df);
}

double stats_t_cdf(double t, double df)
{
    if (isnan(t) || bad_df(df))
        return NAN;
    return t <= 0 ? t_upper_tail(-t, df) : 1 - t_upper_tail(t, df);
}

static double t_pdf(double t, double df)
{
    if (df > DF_ASYMPTOTIC)
        return exp(-0.5 * t * t) / sqrt(2 * PI);
    double lognorm = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * PI);
    return exp(lognorm - (df + 1) / 2 * log1p(t * t / df));
}

/* The t >= 0 with P(T > t) = q, 0 < q < 0.5: Newton steps kept inside a bisection bracket. */
static double upper_tail_inverse(double q, double df)
{
    double lo = 0, hi = 1;
    while (t_upper_tail(hi, df) > q) {
        lo = hi;
        if (hi > DBL_MAX / 4)
            return INFINITY;
        hi *= 2;
    }
    double t = (lo + hi) / 2;
    for (int i = 0; i < 400; i++) {
        double f = t_upper_tail(t, df) - q;
        if (f == 0)
            return t;
        if (f > 0)
            lo = t;
        else
            hi = t;
        double d = t_pdf(t, df);
        double next = d > 0 ? t + f / d : NAN;
        if (!(next > lo && next < hi))
            next = (lo + hi) / 2;
        if (fabs(next - t) <= 4 * DBL_EPSILON * next || hi - lo <= 4 * DBL_EPSILON * hi)
            return next;
        t = next;
    }
    return t;
}

double stats_t_quantile(double p, double df)
{
    if (isnan(p) || bad_df(df) || p < 0 || p > 1)
        return NAN;
    if (p == 0)
        return -INFINITY;
    if (p == 1)
        return INFINITY;
    if (p == 0.5)
        return 0;
    /* for p > 0.5, 1 - p is exact (Sterbenz), so both tails keep full precision */
    return p < 0.5 ? -upper_tail_inverse(p, df) : upper_tail_inverse(1 - p, df);
}

/* Welch-Satterthwaite df of ua + ub, scaled so that the squares cannot overflow. */
static double welch_df(double ua, double ub, size_t na, size_t nb)
{
    double s = ua + ub, fa = ua / s, fb = ub / s;
    return 1 / (fa * fa / (double)(na - 1) + fb * fb / (double)(nb - 1));
}

/* The ratio b/a of the means, the standard error of its logarithm (delta method) and the
 * Welch-Satterthwaite degrees of freedom of that error; -1 when there is none. */
static int log_ratio(const struct sample_stats *a, const struct sample_stats *b, double *ratio,
                     double *se, double *df)
{
    if (a->n < 2 || b->n < 2 || !(a->mean > 0) || !(b->mean > 0) || !isfinite(a->mean) ||
        !isfinite(b->mean) || !isfinite(a->sd) || !isfinite(b->sd))
        return -1;
    double cva = a->sd / a->mean, cvb = b->sd / b->mean;
    double ua = cva * cva / (double)a->n, ub = cvb * cvb / (double)b->n;
    *ratio = b->mean / a->mean;
    *se = sqrt(ua + ub);
    *df = *se > 0 ? welch_df(ua, ub, a->n, b->n) : NAN;
    return 0;
}

int stats_ratio_ci(const struct sample_stats *a, const struct sample_stats *b, double *ratio,
                   double *lo, double *hi)
{
    double r, se, df;
    if (log_ratio(a, b, &r, &se, &df))
        return -1;
    *ratio = r;
    if (se == 0) {
        *lo = *hi = r;
        return 0;
    }
    double half = stats_t_quantile(0.975, df) * se;
    *lo = r * exp(-half);
    *hi = r * exp(half);
    return 0;
}

double stats_ratio_p(const struct sample_stats *a, const struct sample_stats *b)
{
    double r, se, df;
    if (log_ratio(a, b, &r, &se, &df))
        return NAN;
    if (se == 0)
        return r == 1 ? 1 : 0;
    return fmin(1, 2 * stats_t_sf(fabs(log(r)) / se, df));
}

/* What n runs per side need to be, by the formula with the t quantiles at 2n - 2 degrees of
 * freedom: n suffices when this is at most n. Falls as n grows. */
static double runs_formula(size_t n, double cv2, double effect2, double alpha, double power)
{
    double df = 2 * (double)n - 2;
    double t = stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(power, df);
    return 2 * t * t * cv2 / effect2;
}

size_t stats_runs_needed(double cv2, double d, double alpha, double power)
{
    enum { MOST = 1000000 }; /* beyond this, "more runs than anyone will make" */
    if (!isfinite(cv2) || !(cv2 >= 0) || !(d > 0))
        return SIZE_MAX;
    double effect2 = log1p(d) * log1p(d);
    if (runs_formula(MOST, cv2, effect2, alpha, power) > MOST)
        return SIZE_MAX;
    size_t lo = 2, hi = MOST;
    while (lo < hi) { /* the smallest n in [lo, hi] that suffices */
        size_t mid = lo + (hi - lo) / 2;
        if (runs_formula(mid, cv2, effect2, alpha, power) > (double)mid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* P(T' <= t) of the noncentral t with df degrees of freedom and noncentrality nc, for t >= 0:
 * Lenth's series (Applied Statistics algorithm AS 243, 1989, after Guenther 1978),
 * Phi(-nc) + 1/2 sum_j (p_j I_x(j + 1/2, df/2) + q_j I_x(j + 1, df/2)), x = t^2 / (t^2 + df),
 * with the Poisson weights p_j = e^-l l^j / j! and q_j = nc e^-l l^j / (sqrt(2) Gamma(j + 3/2)),
 * l = nc^2 / 2. Both incomplete betas fall with j, so the sum stops when the Poisson mass not
 * yet summed, which bounds what is left, is below 1e-15 (the terms are formed in logarithms:
 * e^-l alone underflows from nc = 38 on). */
static double nct_cdf_nonneg(double t, double df, double nc)
{
    double x = t * t / (t * t + df), l = nc * nc / 2, sum = 0, mass = 0;
    double logl = log(fmax(l, DBL_MIN)); /* l = 0: only j = 0 has weight (0 * log 0 is NaN) */
    double sign = nc < 0 ? -1 : 1, lognc = log(fabs(nc) / sqrt(2.0));
    for (int j = 0; j < CF_MAX_ITER; j++) {
        double logpois = j * logl - l;
        double p = exp(logpois - lgamma(j + 1.0));
        double q = nc == 0 ? 0 : sign * exp(logpois + lognc - lgamma(j + 1.5));
        sum += p * stats_incbeta(j + 0.5, df / 2, x) + q * stats_incbeta(j + 1.0, df / 2, x);
        mass += p;
        if (j > l && 1 - mass < 1e-15)
            break;
    }
    return 0.5 * erfc(nc / sqrt(2.0)) + sum / 2;
}

/* The power of the two-sided two-sample t-test with n runs per side at level alpha when the
 * means differ by effect standard deviations: P(|T'| > c), c = t(1 - alpha/2, 2n - 2), for T'
 * the noncentral t with 2n - 2 degrees of freedom and noncentrality effect sqrt(n / 2), both
 * tails counted, as statsmodels' TTestIndPower.power computes it. The lower tail
 * P(T' < -c; nc) is 1 - P(T' <= c; -nc) (reflection). */
static double ttest_power(double effect, double n, double alpha)
{
    double df = 2 * n - 2, nc = effect * sqrt(n / 2);
    double crit = stats_t_quantile(1 - alpha / 2, df);
    return (1 - nct_cdf_nonneg(crit, df, nc)) + (1 - nct_cdf_nonneg(crit, df, -nc));
}

size_t stats_ttest_runs(double effect, double alpha, double power)
{
    enum { MOST = 1 << 20 }; /* beyond this, "more runs than anyone will make" */
    if (isnan(effect) || !(effect > 0))
        return SIZE_MAX;
    if (isinf(effect))
        return 2;
    /* the power grows with n: double to a bracket, then bisect to the smallest n that has it
     * (the noncentrality stays near the answer's, where the series is short) */
    size_t lo = 2, hi = 2;
    while (ttest_power(effect, (double)hi, alpha) < power) {
        if (hi >= MOST)
            return SIZE_MAX;
        lo = hi + 1;
        hi *= 2;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ttest_power(effect, (double)mid, alpha) < power)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct ranked_p {
    double p;
    size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked_p *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

void stats_holm(const double *in, size_t m, double *out)
{
    struct ranked_p *r = xmalloc((m ? m : 1) * sizeof(*r));
    for (size_t i = 0; i < m; i++)
        r[i] = (struct ranked_p){in[i], i};
    qsort(r, m, sizeof(*r), cmp_ranked);
    double running = 0;
    for (size_t k = 0; k < m; k++) {
        double adj = fmin(1, (double)(m - k) * r[k].p);
        running = fmax(running, adj); /* step-down: never below an earlier (smaller) one */
        out[r[k].i] = running;
    }
    free(r);
}
