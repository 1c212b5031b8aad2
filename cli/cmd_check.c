/* cmd_check.c: benchdb check, the comparison as a CI gate with three outcomes. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/timerange.h"
#include "../query/compare.h"
#include "../query/gate.h"
#include "../query/sides.h"

static const char usage[] =
    "usage: benchdb check --compare BASELINE [CANDIDATE...] [--limit SPEC]... [--limits FILE] "
    "[--threshold PCT] [--inconclusive pass|fail] [--waivers FILE] [--now DATE] [--junit FILE] "
    "[--openmetrics FILE] [--summary-md FILE] [--bencher FILE] [--github-benchmark-bigger FILE] "
    "[--github-benchmark-smaller FILE] [--by KEY] [--where KEY=VALUE]... [--since D] [--until D]\n"
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
    "  --waivers FILE        reviewed exceptions ([REF] workload = limit = expires = url =): a\n"
    "                        regression within its waiver passes, 'waived: REF until DATE'\n"
    "  --now DATE            the date waivers expire against ($SOURCE_DATE_EPOCH, else today)\n"
    "  --junit FILE          also write JUnit XML (failure: regression, skipped: inconclusive)\n"
    "  --openmetrics FILE    also write OpenMetrics text (GitLab's metrics report)\n"
    "  --summary-md FILE     also write a Markdown summary ($GITHUB_STEP_SUMMARY)\n"
    "  --bencher FILE        also write Bencher Metric Format JSON\n"
    "  --github-benchmark-bigger FILE, --github-benchmark-smaller FILE\n"
    "                        also write github-action-benchmark's JSON: bandwidth and IOPS,\n"
    "                        latencies\n"
    "  --by KEY              storage-class (default), host, sec, mount:OPTION, tag:NAME\n"
    "  --where KEY=VALUE     filter (repeatable), as in 'benchdb report'\n"
    "  --since D, --until D  only runs started from / up to D (ISO 8601, as in 'benchdb report')\n"
    "\n"
    "Exit status: 0 every metric passed, 1 a regression (or nothing could be compared), 2 usage\n"
    "(or a mistake in the limits or waivers file), 3 database failure (or a file that could not\n"
    "be written), 4 inconclusive (no regression, but too few runs or too much spread to rule\n"
    "one out).\n"
    "\n"
    "Examples:\n"
    "  benchdb check --compare baseline:nightly nightly-2026-12-01 --by tag:build\n"
    "  benchdb check --compare local-nvme nfs-csi --limit bw:-10% --limit 'p99:+20%'\n"
    "  benchdb check --compare nfs-csi --limit 'p99<=5ms' --limit 'iops>=3000'\n"
    "  benchdb check --compare base cand --waivers gate.waivers --junit junit.xml\n";

struct check_opts {
    struct compare_opts cmp;
    struct str_list values;
    struct kv_list where;
    struct time_range dates;
    double threshold_pct;
    struct gate_limits limits;
    const char *limits_file;
    const char *inconclusive; /* NULL (exit 4), "pass" or "fail" */
    const char *waivers_file;
    struct gate_waivers waivers;
    int64_t today; /* days since 1970-01-01: --now, else $SOURCE_DATE_EPOCH, else the clock */
    /* the files CI systems read, each NULL when not asked for */
    const char *junit, *openmetrics, *summary, *bencher, *bigger, *smaller;
};

static int64_t day_of(int64_t t)
{
    return t / 86400 - (t % 86400 < 0); /* floor: a time before 1970 is in the day before */
}

static int opt_now(const struct opt *opt, char *arg, const char *cmd)
{
    int64_t t;
    const char *why;
    if (!parse_iso_time(arg, TIME_LOWER, &t, &why)) {
        *(int64_t *)opt->value = day_of(t);
        return 0;
    }
    cli_error(cmd, "expected --now to be a date such as 2026-12-01, got '%s': %s", arg, why);
    return -1;
}

/* Today for the waivers, when --now did not say. */
static int64_t today(void)
{
    time_t t = time(NULL);
    struct tm tm;
    source_date_epoch(&t, &tm); /* main() refused an invalid one; unset leaves the clock's */
    return day_of((int64_t)t);
}

static int has_absolute(const struct gate_limits *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind != LIMIT_RELATIVE)
            return 1;
    return 0;
}

/* Reads --limits FILE into o->limits, its text into text (the limits point into it), and
 * --waivers FILE into o->waivers. */
static int read_files(struct check_opts *o, struct buf *text, struct diag *d)
{
    int status = BDB_EXIT_OK;
    if (o->limits_file)
        status = read_limits_file(o->limits_file, &o->limits, text, d);
    struct buf waivers = BUF_INIT;
    if (!status && o->waivers_file &&
        !(status = read_option_file("waivers", o->waivers_file, &waivers, d)))
        status = gate_waivers_read(o->waivers_file, waivers.data, &o->waivers, d) ? BDB_EXIT_USAGE
                                                                                  : BDB_EXIT_OK;
    buf_release(&waivers); /* the waivers keep copies of their strings */
    return status;
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
        OPT_STRING(0, "waivers", &o->waivers_file, "FILE", "reviewed exceptions, until a date"),
        OPT_CALLBACK(0, "now", &o->today, "DATE", "the date waivers expire against", opt_now),
        OPT_STRING(0, "junit", &o->junit, "FILE", "also write JUnit XML"),
        OPT_STRING(0, "openmetrics", &o->openmetrics, "FILE", "also write OpenMetrics text"),
        OPT_STRING(0, "summary-md", &o->summary, "FILE", "also write a Markdown summary"),
        OPT_STRING(0, "bencher", &o->bencher, "FILE", "also write Bencher Metric Format JSON"),
        OPT_STRING(0, "github-benchmark-bigger", &o->bigger, "FILE",
                   "also write bandwidth and IOPS for github-action-benchmark"),
        OPT_STRING(0, "github-benchmark-smaller", &o->smaller, "FILE",
                   "also write latencies for github-action-benchmark"),
        OPT_END(),
    };
    o->cmp.by = "storage-class";
    o->threshold_pct = 5;
    o->today = INT64_MIN; /* not given */
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->values.n < 1)
        return usage_error("check", "--compare needs a baseline and at least one candidate");
    status = read_files(o, file, &app->diag);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->today == INT64_MIN)
        o->today = today();
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

/* Writes each file asked for: BDB_EXIT_OK, or BDB_EXIT_ENV after a message. */
static int write_files(struct app *app, const struct check_opts *o, const struct report *r,
                       const struct gate *g, const struct gate_config *c, const char *verdict)
{
    const char *const paths[] = {o->junit,   o->openmetrics, o->summary,
                                 o->bencher, o->bigger,      o->smaller};
    int status = BDB_EXIT_OK;
    struct buf out = BUF_INIT;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        if (!paths[i])
            continue;
        buf_reset(&out);
        switch (i) {
        case 0:
            gate_write_junit(&out, g, c);
            break;
        case 1:
            gate_write_openmetrics(&out, r);
            break;
        case 2:
            gate_write_summary(&out, g, c, verdict);
            break;
        case 3:
            gate_write_bencher(&out, r);
            break;
        default:
            gate_write_github_benchmark(&out, r, i == 4);
            break;
        }
        if (write_output(app, paths[i], out.data, out.len) != BDB_EXIT_OK)
            status = BDB_EXIT_ENV;
    }
    buf_release(&out);
    return status;
}

static int check(struct app *app, struct db *db, const struct check_opts *o)
{
    struct report r;
    report_init(&r, "check");
    int status = BDB_EXIT_INPUT;
    if (!query_check_sides(db, &o->cmp, &app->diag) &&
        !query_compare(db, &o->cmp, &r, &app->diag)) {
        struct gate g;
        struct gate_config c = {o->limits.v, o->limits.n, o->threshold_pct,
                                &o->waivers, o->today,    o->values.n < 2};
        gate_evaluate(&r, &c, &g);
        const char *word;
        status = gate_status(&g, o->inconclusive, &word);
        gate_print("check", &g, &c);
        fflush(stdout);
        char verdict[64];
        snprintf(verdict, sizeof(verdict), "%s (exit status %d)", word, status);
        if (write_files(app, o, &r, &g, &c, verdict) != BDB_EXIT_OK)
            status = BDB_EXIT_ENV;
        gate_release(&g);
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
    app->compared = &o.cmp;
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = check(app, db, &o);
    db_close(db);
    str_list_release(&o.values);
    kv_list_release(&o.where);
    gate_limits_release(&o.limits);
    gate_waivers_release(&o.waivers);
    buf_release(&file);
    return status < 0 ? BDB_EXIT_OK : status;
}
