/* changepoint.h: change points in a series of measurements taken over time, by E-divisive
 * means with a Student t-test for significance, as Hunter/Otava do (Matteson & James, JASA
 * 2014; Fleming et al., ICPE 2023, arXiv 2301.03034). Deterministic: no permutations.
 * Pure C (libm); nothing here touches the database. */
#ifndef BDB_CHANGEPOINT_H
#define BDB_CHANGEPOINT_H

#include <stddef.h>

struct changepoint_opts {
    double max_p;         /* a change point's t-test p must be below this */
    double min_magnitude; /* and its relative change above this (0.05: 5 %) */
    size_t window;        /* values the split step looks at at once (>= 2) */
};
/* Otava's defaults: p 0.001, window 50; benchdb asks for at least a 5 % change. */
#define CHANGEPOINT_DEFAULTS ((struct changepoint_opts){0.001, 0.05, 50})

struct change_point {
    size_t index;         /* the first value after the change */
    double before, after; /* the means of the segments before and after it */
    double p;             /* two-sided Student t-test of the two segments */
};

/* The change points of x[0..n-1], ascending by index, into *out (malloc'd, the caller's to
 * free; NULL when none); returns how many. Values must be finite. */
size_t changepoints_find(const double *x, size_t n, const struct changepoint_opts *o,
                         struct change_point **out);

/* What the steps are built from, exposed for the unit tests. */
/* The best split of x[start..stop): the tau (start < tau < stop) and kappa (tau < kappa <=
 * stop) maximizing Q = E-divisive's divergence of x[start..tau) and x[tau..kappa); ties go to
 * the smallest tau, then kappa. Needs stop - start >= 2. */
double changepoint_best_split(const double *x, size_t start, size_t stop, size_t *tau);
/* Student's pooled two-sample t-test, two-sided, with sample variances; 1 when there are no
 * degrees of freedom or no spread and equal means, 0 with no spread and different means. */
double changepoint_ttest(const double *x, size_t start, size_t split, size_t stop);
/* max(|after/before - 1|, |before/after - 1|), 0 when a mean is 0 (Otava's magnitude). */
double changepoint_magnitude(double before, double after);

#endif
