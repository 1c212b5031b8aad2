/* cmd_trend.c: benchdb trend. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/timerange.h"
#include "../fleet/fleet.h"
#include "../query/trend.h"

static const char usage[] =
    "usage: benchdb trend [--where KEY=VALUE]... [--metric M]... [--since D] [--until D]\n"
    "                     [--since-last-baseline] [--stale DURATION] [--now D]\n"
    "                     [--p-value P] [--min-magnitude PCT]\n"
    "                     [--format md|html|csv|json|annotations]\n"
    "                     [--table NAME] [-o FILE] [--publish]\n"
    "\n"
    "Follow each series (host x storage class x mount options x sec x workload x metric)\n"
    "over the runs' start times and find where its level changed: E-divisive means with a\n"
    "t-test (as Hunter/Otava do). Each change point gives its date, run, the means before\n"
    "and after, the relative change and p.\n"
    "\n"
    "Exit status: 0; 1 when a change point since --since (or --since-last-baseline) is a\n"
    "regression; else 5 when --stale finds a series without a recent run.\n"
    "\n"
    "  --where KEY=VALUE     filter (repeatable): storage-class, host, sec, rw, bs, direction,\n"
    "                        job, iodepth, numjobs, direct, tool, mount:OPTION, tag:NAME\n"
    "  --metric M            a stored metric (repeatable; default\n"
    "                        " TREND_DEFAULT_METRICS ")\n"
    "  --since D             the change points, series and values from D on, an ISO 8601 date\n"
    "                        or timestamp (UTC unless it has an offset): found on every run, the\n"
    "                        runs before D being the history a change after it is measured on\n"
    "  --until D             only runs started up to D (a bare date includes its day)\n"
    "  --since-last-baseline --since the newest saved baseline's creation (baseline save)\n"
    "  --stale DURATION      list each series whose newest run started longer ago than\n"
    "                        DURATION (25h, 7d, 90m, 1d12h) and exit 5\n"
    "  --now D               the time --stale measures from (default: SOURCE_DATE_EPOCH when\n"
    "                        set, else the clock)\n"
    "  --p-value P           a change point's t-test p must be below P (default 0.001)\n"
    "  --min-magnitude PCT   and its change above PCT percent (default 5)\n"
    "  --format F            md (default), html (each series drawn), csv, json (its shape:\n"
    "                        " BENCHDB_DOCDIR "/trend.schema.json), annotations (the change\n"
    "                        points as Grafana annotations: time in ms, title, text, tags)\n"
    "  --table NAME          with csv: change_points (default), series, points or stale\n"
    "  -o FILE               write to FILE (default: standard output); without --format, its\n"
    "                        extension (.md, .html, .csv, .json) names the format\n"
    "  --publish             also store the change points on the fleet's server (--db\n"
    "                        postgresql://...) for Grafana: table change_point, view\n"
    "                        v_annotation; each series read has its rows replaced (a writer's\n"
    "                        URL; no --since or --until: every change point of a series)\n"
    "\n"
    "Examples:\n"
    "  benchdb trend --where storage-class=nfs-csi --since 2026-01-01\n"
    "  benchdb trend --since-last-baseline --format csv   # exit 1: a regression since\n"
    "  benchdb trend --stale 25h                          # exit 5: a nightly never arrived\n"
    "  benchdb trend --metric clat_p99_ns --format html -o trend.html\n"
    "  benchdb trend --format json | jq '.series[] | select(.change_points != [])'\n"
    "  benchdb --db postgresql://bench_push@db.lab/bench trend --publish -o trend.md\n";

struct trend_cli {
    struct trend_opts q;
    struct kv_list where;
    struct str_list metrics;
    struct time_range dates;
    struct time_range now; /* --now D: its lower end */
    const char *format, *table, *output;
    int publish; /* --publish */
};

/* What --format takes, and what -o FILE's extension may name (annotations are JSON: --format
 * says which). */
static const char *const formats[] = {"md", "html", "csv", "json", "annotations", NULL};
static const char *const extensions[] = {"md", "html", "csv", "json", NULL};

/* A number in (lo, hi] (lo itself too when lo_ok; --min-magnitude's PCT may end in '%'); 0, or
 * -1 after a message naming the value and the range (in words). */
static int number_option(const struct opt *opt, const char *arg, const char *cmd, double lo,
                         int lo_ok, double hi, const char *range, double *out)
{
    const char *p = arg;
    double v;
    int pct = !strcmp(opt->long_name, "min-magnitude");
    if (scan_number(&p, &v) && (!*p || (*p == '%' && !p[1] && pct)) &&
        (v > lo || (lo_ok && v == lo)) && v <= hi) {
        *out = v;
        return 0;
    }
    cli_error(cmd, "expected --%s %s, got '%s'", opt->long_name, range, arg);
    return -1;
}

/* --stale DURATION: a positive count of d, h, m, s (1d12h), rounded to whole seconds; a unit
 * is needed (a bare 25 could be hours or seconds). */
static int opt_stale(const struct opt *opt, char *arg, const char *cmd)
{
    size_t n = strlen(arg);
    double secs;
    int64_t *out = opt->value;
    if (n && strchr("dhms", arg[n - 1]) && parse_duration(arg, n, &secs) && secs >= 1 &&
        secs < 1e12) {
        *out = (int64_t)llround(secs);
        return 0;
    }
    cli_error(cmd, "expected --stale DURATION such as 25h, 7d, 90m or 1d12h, got '%s'", arg);
    return -1;
}

/* --p-value P: p = 1 would keep every point the first pass found; 0 none. */
static int opt_p_value(const struct opt *opt, char *arg, const char *cmd)
{
    return number_option(opt, arg, cmd, 0, 0, 0.5, "above 0 and at most 0.5", opt->value);
}

/* --min-magnitude PCT, stored as a fraction. */
static int opt_min_magnitude(const struct opt *opt, char *arg, const char *cmd)
{
    double pct, *fraction = opt->value;
    if (number_option(opt, arg, cmd, 0, 1, 1000, "from 0 to 1000 (percent)", &pct))
        return -1;
    *fraction = pct / 100;
    return 0;
}

static int parse(struct app *app, int argc, char **argv, struct trend_cli *o)
{
    const struct opt opts[] = {
        OPT_CALLBACK(0, "where", &o->where, "KEY=VALUE", "filter (repeatable)", opt_where),
        OPT_STRINGS(0, "metric", &o->metrics, "M", "a stored metric (repeatable)"),
        {.type = OPT_TYPE_DATE,
         .long_name = "since",
         .value = &o->dates,
         .argh = "D",
         .help = "the change points from D on, the runs before it their history"},
        OPT_UNTIL(&o->dates),
        OPT_FLAG(0, "since-last-baseline", &o->q.since_last_baseline,
                 "--since the newest saved baseline's creation"),
        OPT_CALLBACK(0, "stale", &o->q.stale_after, "DURATION",
                     "exit 5 when a series' newest run is older than DURATION", opt_stale),
        {.type = OPT_TYPE_DATE,
         .long_name = "now",
         .value = &o->now,
         .argh = "D",
         .help = "the time --stale measures from"},
        OPT_CALLBACK(0, "p-value", &o->q.cp.max_p, "P", "a change point's t-test p below P",
                     opt_p_value),
        OPT_CALLBACK(0, "min-magnitude", &o->q.cp.min_magnitude, "PCT",
                     "a change point's change above PCT percent", opt_min_magnitude),
        OPT_ENUM(0, "format", &o->format, formats, "output format"),
        OPT_ENUM(0, "table", &o->table, query_trend_tables, "with csv: the table to write"),
        OPT_STRING('o', "output", &o->output, "FILE", "write to FILE"),
        OPT_FLAG(0, "publish", &o->publish, "store the change points on the fleet's server"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->q.since_last_baseline && o->dates.since != INT64_MIN)
        return usage_error("trend", "--since and --since-last-baseline both say since when: give "
                                    "one");
    if (o->publish && !fleet_is_url(app->db_path))
        return usage_error("trend", "--publish stores the change points on the fleet's server: "
                                    "give --db postgresql://...");
    if (o->publish &&
        (o->dates.since != INT64_MIN || o->dates.until != INT64_MAX || o->q.since_last_baseline))
        return usage_error("trend", "--publish replaces every change point of the series it "
                                    "reads: give no --since or --until");
    if (o->now.since != INT64_MIN && !o->q.stale_after)
        return usage_error("trend", "--now is the time --stale measures from: give --stale too");
    if (!o->format && !(o->format = output_format("trend", o->output, extensions, "md")))
        return usage_hint("trend");
    return table_option("trend", o->format, o->table) ? usage_hint("trend") : BDB_EXIT_OK;
}

static int render(const struct trend_cli *o, struct report *r, struct buf *out, struct diag *d)
{
    if (!strcmp(o->format, "html")) {
        report_time_figures(r); /* each series drawn */
        return render_html(r, NULL, out, d);
    }
    if (!strcmp(o->format, "csv"))
        return render_csv(r, o->table ? o->table : "change_points", out, d);
    if (!strcmp(o->format, "json"))
        return render_series_json(r, "series", out, d);
    if (!strcmp(o->format, "annotations"))
        return render_annotations(r, out, d);
    return render_md(r, out, d);
}

/* A regression since --since fails the watch; a stale series too, with a status of its own
 * (a run missing is not a run that got worse). */
static int outcome_status(const struct trend_cli *o, const struct trend_outcome *out)
{
    if (out->regressions && (o->q.since != INT64_MIN || o->q.since_last_baseline))
        return BDB_EXIT_INPUT; /* as check's regression */
    return out->stale ? BDB_EXIT_STALE : BDB_EXIT_OK;
}

/* --publish: the report's change points to the server's table change_point. */
static int publish(struct app *app, const struct report *r)
{
    struct arena a = {0};
    struct annotations an;
    int rc =
        report_annotations(r, &a, &an, &app->diag) || fleet_publish(app->db_path, &an, &app->diag);
    arena_release(&a);
    return rc;
}

static int run_trend(struct app *app, struct trend_cli *o)
{
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct report r;
    struct trend_outcome outcome;
    struct buf out = BUF_INIT;
    report_init(&r, "Benchmark trends");
    int rc = query_trend(db, &o->q, &r, &outcome, &app->diag);
    int status = rc ? BDB_EXIT_INPUT : BDB_EXIT_OK;
    if (status == BDB_EXIT_OK)
        status = render(o, &r, &out, &app->diag) ? BDB_EXIT_INPUT
                                                 : write_output(app, o->output, out.data, out.len);
    if (status == BDB_EXIT_OK && o->publish && publish(app, &r))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK)
        status = outcome_status(o, &outcome);
    buf_release(&out);
    report_release(&r);
    db_close(db);
    return status;
}

int cmd_trend(int argc, char **argv, struct app *app)
{
    struct trend_cli o = {.q = TREND_OPTS_INIT, .dates = TIME_RANGE_ALL, .now = TIME_RANGE_ALL};
    int status = parse(app, argc, argv, &o);
    if (status == BDB_EXIT_OK) {
        o.q.where = o.where.v;
        o.q.nwhere = o.where.n;
        o.q.metrics = o.metrics.v;
        o.q.nmetrics = o.metrics.n;
        o.q.since = o.dates.since;
        o.q.now = o.now.since != INT64_MIN ? o.now.since : now_seconds();
        /* every run up to --until is read (a fleet's too): --since only cuts what is shown */
        o.dates.since = INT64_MIN;
        o.q.dates = app->dates = &o.dates;
        status = run_trend(app, &o);
    }
    kv_list_release(&o.where);
    str_list_release(&o.metrics);
    return status < 0 ? BDB_EXIT_OK : status;
}
