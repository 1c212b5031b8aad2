/* gate.h: a comparison report read as a gate (benchdb check). Each compared metric is held to
 * a limit, relative to the baseline ('bw:-5%', else --threshold) or absolute ('p99<=5ms', no
 * baseline needed), and comes out passed, a regression, or inconclusive with the runs per side
 * that would decide it (docs/methods.md, "Gates: limits and three outcomes"). */
#ifndef BDB_GATE_H
#define BDB_GATE_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/diag.h"
#include "../report/report.h"
#include "compare.h"

enum limit_kind {
    LIMIT_RELATIVE, /* the candidate may be worse than the baseline by this much at most */
    LIMIT_AT_MOST,  /* the mean may be this much at most (latency) */
    LIMIT_AT_LEAST, /* the mean must be this much at least (bandwidth, IOPS) */
};

struct gate_limit {
    const char *text; /* as written: "bw:-5%" (text_len bytes: a line of a file is not ended) */
    int text_len;
    struct compare_metric metric;
    enum limit_kind kind;
    /* relative: the factor (candidate against baseline, above 1 better) below which the
     * candidate is worse than allowed: 0.95 for 'bw:-5%', 1/1.2 for 'p99:+20%';
     * absolute: the bound in the metric's base unit (ns, bytes/s, I/Os per second) */
    double value;
};

struct gate_limits {
    struct gate_limit *v;
    size_t n, a;
};

/* Reads one limit from the NUL-terminated text ('bw:-5%', 'p99:+20%', 'p99<=5ms',
 * 'bw>=100MiB/s', 'iops>=3k') and appends it to out: 0, or -1 with what is wrong in err and
 * the byte offset of the mistake in *at. The limit's text points at text. */
int gate_limits_add(struct gate_limits *out, const char *text, struct buf *err, size_t *at);

/* Appends the limits of a file to out: one a line, '#' to the end of a line a comment, blank
 * lines skipped. Each mistake is an error FILE:LINE:COL in d. Returns the number of errors. The
 * limits point into src->data, which must outlive them. */
unsigned gate_limits_read(const struct source *src, struct gate_limits *out, struct diag *d);
void gate_limits_release(struct gate_limits *l);

enum gate_outcome { GATE_PASS, GATE_INCONCLUSIVE, GATE_FAIL, GATE_N_OUTCOMES };

/* One judged metric: a factor against a relative limit, or a side's mean against an absolute
 * one. The strings and cells point into the report. */
struct gate_row {
    const char *workload, *metric;
    const char *versus;      /* the factor's column ("CAND vs BASE"), or the side's for a mean */
    const struct cell *cell; /* the factor, or the side's value */
    const struct cell *base, *cand; /* a factor's two sides (their run counts); NULL */
    const struct gate_limit *limit; /* NULL: the default relative limit (--threshold) */
    double bound;                   /* the factor's floor, or the absolute limit */
    double value;                   /* an absolute limit's mean (IOPS: the bandwidth row's alt) */
    enum gate_outcome outcome;
    size_t runs; /* inconclusive factor: runs per side to detect the limit; SIZE_MAX unknown */
};

struct gate {
    struct gate_row *v; /* in the table's order */
    size_t n, a;
    size_t count[GATE_N_OUTCOMES];
};

struct gate_config {
    const struct gate_limit *limits;
    size_t nlimits;
    double threshold_pct; /* the relative limit of a metric no relative limit names */
};

/* Judges the comparison table of r (query_compare's) into g. A factor is a regression when it
 * is significant (compare_significant) and below its floor; passes when its whole 95 %
 * interval lies at or above the floor; is inconclusive otherwise (a single run on a side
 * included). A candidate's mean (the only side's, when one value was compared) fails an
 * absolute limit when beyond it, else passes. */
void gate_evaluate(const struct report *r, const struct gate_config *c, struct gate *g);
void gate_release(struct gate *g);

#endif
