/* gate.h: a comparison report read as a gate (benchdb check): which factors say a candidate
 * is significantly worse than the baseline by more than a threshold. */
#ifndef BDB_GATE_H
#define BDB_GATE_H

#include <stddef.h>

#include "../report/report.h"

/* One factor of the comparison table that fails the gate; the strings point into the report. */
struct gate_regression {
    const char *workload, *metric;
    const char *versus; /* the factor column's name: "CAND vs BASE" */
    const struct cell *factor;
};

struct gate {
    struct gate_regression *v; /* the regressions, in the table's order */
    size_t n, a;
    size_t tested;     /* factors with a verdict (both sides repeated) */
    size_t single_run; /* factors with a single run on a side: no verdict is possible */
};

/* Reads the comparison table of r (query_compare's) into g: a factor fails when its verdict is
 * significant and the baseline is more than threshold_pct % better than the candidate in the
 * metric's own direction (the factor is below 1 / (1 + threshold_pct / 100)). Returns the
 * number of regressions. */
size_t gate_evaluate(const struct report *r, double threshold_pct, struct gate *g);
void gate_release(struct gate *g);

#endif
