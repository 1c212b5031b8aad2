/* cmd_check.c: benchdb check, the comparison as a CI gate with three outcomes. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/scan.h"
#include "../query/compare.h"
#include "../query/gate.h"
#include "../query/sides.h"

static const char usage[] =
    "usage: benchdb check --compare BASELINE [CANDIDATE...] [--limit SPEC]... [--limits FILE] "
    "[--threshold PCT] [--inconclusive pass|fail] [--by KEY] [--where KEY=VALUE]... [--since D] "
    "[--until D]\n"
    "\n"
    "Compare candidates with a baseline as 'benchdb report' does and judge each compared metric\n"
    "of each workload against its limit, one line on standard output for each that does not\n"
    "pass. A factor (candidate against baseline, above 1 better) is a regression when it is\n"
    "significantly worse than its limit allows; it passes when its whole 95 % interval lies\n"
    "within the limit (improvements included); otherwise it is inconclusive, and the line says\n"
    "how many runs per side would detect a change of the limit's size (alpha 0.05, power 0.8).\n"
    "A single run on a side is inconclusive. An absolute limit is checked on each candidate's\n"
    "mean and needs no baseline: with one value (--compare VALUE) only those are checked.\n"
    "\n"
    "  --compare A [B...]    values to compare; the first is the baseline; baseline:NAME is a\n"
    "                        saved baseline ('benchdb baseline save')\n"
    "  --limit SPEC          a limit on one metric (repeatable): relative, 'bw:-5%' (5 % lower\n"
    "                        than the baseline at most), 'p99:+20%'; absolute, 'p99<=5ms',\n"
    "                        'bw>=100MiB/s', 'iops>=3k'. Metrics: bw, iops, lat (mean total\n"
    "                        latency), p99, fsync, fsync_p99, or their stored names (bw_bytes_s,\n"
    "                        clat_p99_ns ...). Units: ns us ms s; B/s KiB/s MiB/s GiB/s kB/s\n"
    "                        MB/s GB/s; k, M for IOPS\n"
    "  --limits FILE         limits from FILE, one a line as --limit takes them, # comments\n"
    "  --threshold PCT       the relative limit of every metric no relative limit names: the\n"
    "                        baseline at most PCT % better in the metric's direction (default 5)\n"
    "  --inconclusive pass|fail  the exit status when nothing fails but some metric is\n"
    "                        inconclusive: 0 or 1 (default: 4)\n"
    "  --by KEY              storage-class (default), host, sec, mount:OPTION, tag:NAME\n"
    "  --where KEY=VALUE     filter (repeatable), as in 'benchdb report'\n"
    "  --since D, --until D  only runs started from / up to D (ISO 8601, as in 'benchdb report')\n"
    "\n"
    "Exit status: 0 every metric passed, 1 a regression (or nothing could be compared), 2 usage\n"
    "(or a mistake in the limits file), 3 database failure, 4 inconclusive (no regression, but\n"
    "too few runs or too much spread to rule one out).\n"
    "\n"
    "Examples:\n"
    "  benchdb check --compare baseline:nightly nightly-2026-12-01 --by tag:build\n"
    "  benchdb check --compare local-nvme nfs-csi --limit bw:-10% --limit 'p99:+20%'\n"
    "  benchdb check --compare nfs-csi --limit 'p99<=5ms' --limit 'iops>=3000'\n";

struct check_opts {
    struct compare_opts cmp;
    struct str_list values;
    struct kv_list where;
    struct time_range dates;
    double threshold_pct;
    struct gate_limits limits;
    const char *limits_file;
    const char *inconclusive; /* NULL (exit 4), "pass" or "fail" */
};

static int opt_threshold(const struct opt *opt, char *arg, const char *cmd)
{
    const char *p = arg;
    double *pct = opt->value;
    if (scan_number(&p, pct) && !*p && *pct >= 0)
        return 0;
    cli_error(cmd, "expected --threshold to be a percentage of 0 or more, got '%s'", arg);
    return -1;
}

static int opt_limit(const struct opt *opt, char *arg, const char *cmd)
{
    struct buf err = BUF_INIT;
    size_t at;
    int rc = gate_limits_add(opt->value, arg, &err, &at);
    if (rc)
        cli_error(cmd, "--limit '%s': %s", arg, err.data);
    buf_release(&err);
    return rc;
}

static int has_absolute(const struct gate_limits *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind != LIMIT_RELATIVE)
            return 1;
    return 0;
}

/* Reads --limits FILE into o->limits, its text into text (the limits point into it). */
static int read_limits(struct check_opts *o, struct buf *text, struct diag *d)
{
    if (!o->limits_file)
        return BDB_EXIT_OK;
    FILE *f = fopen(o->limits_file, "rb");
    if (!f) {
        diag_error(d, "cannot open limits '%s': %s", o->limits_file, strerror(errno));
        return BDB_EXIT_ENV;
    }
    int bad = buf_read_file(text, f);
    int err = errno;
    fclose(f);
    if (bad) {
        diag_error(d, "cannot read limits '%s': %s", o->limits_file, strerror(err));
        return BDB_EXIT_ENV;
    }
    struct source src = {o->limits_file, text->data ? text->data : "", text->len};
    return gate_limits_read(&src, &o->limits, d) ? BDB_EXIT_USAGE : BDB_EXIT_OK;
}

static int parse(struct app *app, int argc, char **argv, struct check_opts *o, struct buf *file)
{
    static const char *const outcomes[] = {"pass", "fail", NULL};
    const struct opt opts[] = {
        OPT_COMPARE(&o->values, &o->cmp.by, &o->where),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_CALLBACK(0, "limit", &o->limits, "SPEC", "a limit on one metric ('bw:-5%', 'p99<=5ms')",
                     opt_limit),
        OPT_STRING(0, "limits", &o->limits_file, "FILE", "limits from a file, one a line"),
        OPT_CALLBACK(0, "threshold", &o->threshold_pct, "PCT",
                     "the relative limit of metrics no limit names", opt_threshold),
        OPT_ENUM(0, "inconclusive", &o->inconclusive, outcomes,
                 "exit 0 (pass) or 1 (fail) when inconclusive, instead of 4"),
        OPT_END(),
    };
    o->cmp.by = "storage-class";
    o->threshold_pct = 5;
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->values.n < 1)
        return usage_error("check", "--compare needs a baseline and at least one candidate");
    status = read_limits(o, file, &app->diag);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->values.n < 2 && !has_absolute(&o->limits))
        return usage_error("check", "--compare needs a baseline and at least one candidate, or "
                                    "an absolute limit for one value ('p99<=5ms')");
    o->cmp.values = o->values.v;
    o->cmp.nvalues = o->values.n;
    o->cmp.where = o->where.v;
    o->cmp.nwhere = o->where.n;
    o->cmp.dates = &o->dates;
    return BDB_EXIT_OK;
}

/* The limits in force, first: each one given, then the default of the metrics they leave. */
static void print_limits(const struct check_opts *o)
{
    printf("check: limits:");
    for (size_t i = 0; i < o->limits.n; i++)
        printf("%s %.*s", i ? "," : "", o->limits.v[i].text_len, o->limits.v[i].text);
    if (o->values.n < 2) /* parse() refuses one value without an absolute limit */
        printf(" (one value: absolute limits only)\n");
    else
        printf("%s every other metric at most %g %% worse than the baseline (--threshold)\n",
               o->limits.n ? ";" : "", o->threshold_pct);
}

/* "bw:-5%", or "5 % worse (--threshold)" for the default. */
static void add_limit(struct buf *b, const struct gate_row *row, const struct check_opts *o)
{
    if (row->limit)
        buf_addf(b, "%.*s", row->limit->text_len, row->limit->text);
    else
        buf_addf(b, "%g %% worse (--threshold)", o->threshold_pct);
}

/* What an inconclusive factor needs: "about 7 runs per side would detect it". */
static void add_runs(struct buf *b, const struct gate_row *row)
{
    if (row->runs != SIZE_MAX)
        buf_addf(b, "about %zu runs per side would detect a change of that size", row->runs);
    else if (isnan(row->cell->sd_log))
        buf_adds(b, "a single run a side shows no spread: repeat the runs");
    else
        buf_adds(b, "no feasible number of runs would detect a change of that size");
}

static void print_factor(const struct gate_row *row, const struct check_opts *o)
{
    const struct cell *f = row->cell;
    struct buf b = BUF_INIT;
    if (row->outcome == GATE_FAIL) {
        buf_addf(&b, "regression: %s: %s: %s: %s; limit ", row->workload, row->metric, row->versus,
                 f->text);
        add_limit(&b, row, o);
    } else {
        buf_addf(&b, "inconclusive: %s: %s: %s: %.3gx", row->workload, row->metric, row->versus,
                 f->value);
        if (isfinite(f->lo) && isfinite(f->hi))
            buf_addf(&b, " (95%% CI %.3g-%.3g)", f->lo, f->hi);
        buf_addf(&b, ", n=%d vs %d: its interval reaches beyond the limit ", row->base->n,
                 row->cand->n);
        add_limit(&b, row, o);
        buf_adds(&b, "; ");
        add_runs(&b, row);
    }
    printf("%s\n", b.data);
    buf_release(&b);
}

/* "regression: W: p99 latency: nfs-csi: 6.20 ms (mean of 3 runs) beyond p99<=5ms". */
static void print_absolute(const struct gate_row *row)
{
    struct buf b = BUF_INIT;
    /* the limit's metric: an IOPS limit is judged on the bandwidth row that carries it */
    buf_addf(&b, "regression: %s: %s: %s: ", row->workload, row->limit->metric.label, row->versus);
    unit_format(&b, row->value, row->limit->metric.unit);
    buf_addf(&b, " (%s of %d run%s) beyond %.*s", row->cell->n == 1 ? "value" : "mean",
             row->cell->n, row->cell->n == 1 ? "" : "s", row->limit->text_len, row->limit->text);
    printf("%s\n", b.data);
    buf_release(&b);
}

/* Every metric that did not pass, the counts, and the exit status they make. */
static int print_verdict(const struct gate *g, const struct check_opts *o)
{
    print_limits(o);
    for (size_t i = 0; i < g->n; i++) {
        const struct gate_row *row = &g->v[i];
        if (row->outcome == GATE_PASS)
            continue;
        if (row->limit && row->limit->kind != LIMIT_RELATIVE)
            print_absolute(row);
        else
            print_factor(row, o);
    }
    if (!g->n) {
        printf("check: %s: nothing compared, nothing vouched for\n",
               o->values.n < 2 ? "no result has a metric the limits name"
                               : "no workload was run on both the baseline and a candidate");
        return BDB_EXIT_INPUT;
    }
    size_t fail = g->count[GATE_FAIL], unsure = g->count[GATE_INCONCLUSIVE];
    printf("check: %zu regression%s, %zu inconclusive, %zu passed (of %zu checked)\n", fail,
           fail == 1 ? "" : "s", unsure, g->count[GATE_PASS], g->n);
    if (fail)
        return BDB_EXIT_INPUT;
    if (!unsure)
        return BDB_EXIT_OK;
    return !o->inconclusive                   ? BDB_EXIT_INCONCLUSIVE
           : !strcmp(o->inconclusive, "pass") ? BDB_EXIT_OK
                                              : BDB_EXIT_INPUT;
}

static int check(struct db *db, const struct check_opts *o, struct diag *d)
{
    struct report r;
    report_init(&r, "check");
    int status = BDB_EXIT_INPUT;
    if (!query_check_sides(db, &o->cmp, d) && !query_compare(db, &o->cmp, &r, d)) {
        struct gate g;
        struct gate_config c = {o->limits.v, o->limits.n, o->threshold_pct};
        gate_evaluate(&r, &c, &g);
        status = print_verdict(&g, o);
        gate_release(&g);
        fflush(stdout);
    }
    report_release(&r);
    return status;
}

int cmd_check(int argc, char **argv, struct app *app)
{
    struct check_opts o = {.dates = TIME_RANGE_ALL};
    struct buf file = BUF_INIT;
    int status = parse(app, argc, argv, &o, &file);
    struct db *db = NULL;
    app->dates = &o.dates;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = check(db, &o, &app->diag);
    db_close(db);
    str_list_release(&o.values);
    kv_list_release(&o.where);
    gate_limits_release(&o.limits);
    buf_release(&file);
    return status < 0 ? BDB_EXIT_OK : status;
}
