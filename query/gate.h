/* gate.h: a comparison report read as a gate (benchdb check). Each compared metric is held to
 * a limit, relative to the baseline ('bw:-5%', else --threshold) or absolute ('p99<=5ms', no
 * baseline needed), and comes out passed, a regression, or inconclusive with the runs per side
 * that would decide it (docs/methods.md, "Gates: limits and three outcomes"). */
#ifndef BDB_GATE_H
#define BDB_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
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

/* A reviewed exception (--waivers FILE): a regression of one workload's metric, up to the
 * waiver's own limit, passes until the waiver expires. Strings live in the list's arena. */
struct gate_waiver {
    const char *ref;         /* the section's name: a ticket ("PERF-1234") */
    const char *workload;    /* the comparison's workload name, exactly */
    const char *url;         /* where it was reviewed; NULL */
    const char *expires;     /* YYYY-MM-DD as written: the last day it holds (UTC) */
    int64_t expires_day;     /* that day, in days since 1970-01-01 */
    struct gate_limit limit; /* how far the row may regress: 'bw:-30%', 'p99<=8ms' */
    unsigned line;           /* of its section, for messages */
};

struct gate_waivers {
    struct gate_waiver *v;
    size_t n, a;
    struct arena strings;
};

/* Reads a waivers file (core/ini.h's sections, docs/ci.md "Waivers"): each [REF] section has
 * workload =, limit = (as --limit takes it), expires = YYYY-MM-DD, and url = optionally.
 * 0, or -1 after "path:LINE: error: ..." in d. */
int gate_waivers_read(const char *path, const char *text, struct gate_waivers *out, struct diag *d);
void gate_waivers_release(struct gate_waivers *w);

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
    /* the waiver of a regression: it passes with waived set; expired, or exceeded (the row
     * regressed beyond the waiver's own limit), it fails still and says so */
    const struct gate_waiver *waiver;
    int waived, expired;
};

struct gate {
    struct gate_row *v; /* in the table's order */
    size_t n, a;
    size_t count[GATE_N_OUTCOMES];
    size_t waived; /* of the passes */
};

struct gate_config {
    const struct gate_limit *limits;
    size_t nlimits;
    double threshold_pct;               /* the relative limit of a metric no relative limit names */
    const struct gate_waivers *waivers; /* NULL: none */
    int64_t today;                      /* days since 1970-01-01 (UTC): waivers expire */
    int one_value;                      /* one value compared: absolute limits only */
};

/* Judges the comparison table of r (query_compare's) into g. A factor is a regression when it
 * is significant (compare_significant) and below its floor; passes when its whole 95 %
 * interval lies at or above the floor; is inconclusive otherwise (a single run on a side
 * included). A candidate's mean (the only side's, when one value was compared) fails an
 * absolute limit when beyond it, else passes. */
void gate_evaluate(const struct report *r, const struct gate_config *c, struct gate *g);
/* The comparison table of a comparison report (query_compare's), or NULL. */
const struct table *gate_comparison_table(const struct report *r);
void gate_release(struct gate *g);

/* ---- the words (gate_text.c): one phrasing for standard output and every file ---- */

/* "bw:-10%, p99<=5ms; every other metric at most 5 % worse than the baseline (--threshold)" */
void gate_limits_text(struct buf *out, const struct gate_config *c);
/* "1 regression, 1 inconclusive, 3 passed (of 5 checked)", ", 1 of them waived" before ')'. */
void gate_counts_text(struct buf *out, const struct gate *g);
/* A row after its outcome word: "W: M: VS: 1.25x slower (95% CI 1.2-1.3); limit bw:-5%", an
 * inconclusive one with its runs needed, a waiver's state at the end. */
void gate_row_text(struct buf *out, const struct gate_row *row, const struct gate_config *c);
/* The row's limit: "bw:-5%", or "5 % worse (--threshold)" for the default. */
void gate_limit_text(struct buf *out, const struct gate_row *row, const struct gate_config *c);
/* What a row needs or what waived it: "about 7 runs per side would detect a change of that
 * size", "waiver PERF-1 expired on 2026-11-30"; nothing for a plain pass or regression. */
void gate_note_text(struct buf *out, const struct gate_row *row);
/* "regression", "inconclusive", "passed", or "waived: REF until DATE". */
void gate_outcome_text(struct buf *out, const struct gate_row *row);
/* The factor and its interval, "0.800x (95% CI 0.75-0.85)"; an absolute row's mean in its unit;
 * with the evidence (runs a side, Holm-corrected p) when evidence is set. */
void gate_value_text(struct buf *out, const struct gate_row *row, int evidence);

/* ---- files CI systems read (gate_write.c, docs/ci.md) ---- */

/* JUnit XML (the Jenkins/GitLab schema): one testcase per judged row, classname the workload,
 * a regression's <failure>, an inconclusive row's <skipped>, a waiver in <system-out>. */
void gate_write_junit(struct buf *out, const struct gate *g, const struct gate_config *c);
/* OpenMetrics text (GitLab's metrics report): each side's mean of each compared metric in base
 * units (bytes per second, IOPS, seconds) and each factor, ending in "# EOF". */
void gate_write_openmetrics(struct buf *out, const struct report *r);
/* A Markdown job summary or PR comment: the verdict, the limits, a table of the judged rows. */
void gate_write_summary(struct buf *out, const struct gate *g, const struct gate_config *c,
                        const char *verdict);
/* Bencher Metric Format: each candidate's means with their 95 % interval, in base units. */
void gate_write_bencher(struct buf *out, const struct report *r);
/* github-action-benchmark's customBiggerIsBetter (bigger set: bandwidth, IOPS) or
 * customSmallerIsBetter (latencies) array of the candidates' means. */
void gate_write_github_benchmark(struct buf *out, const struct report *r, int bigger);

#endif
