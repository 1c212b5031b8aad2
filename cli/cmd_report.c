/* cmd_report.c: benchdb report. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/xalloc.h"
#include "../query/capacity.h"
#include "../query/compare.h"
#include "../query/query.h"
#include "../query/sides.h"

static const char usage[] =
    "usage: benchdb report --compare BASELINE CANDIDATE... [OPTIONS]\n"
    "\n"
    "Compare results across storage classes (or another key) and write a report.\n"
    "\n"
    "  --compare A B [C...]  values to compare; the first is the baseline\n"
    "  --by KEY              storage-class (default), host, sec, mount:OPTION, tag:NAME\n"
    "  --where KEY=VALUE     filter (repeatable): the --by keys and rw, bs, direction, job,\n"
    "                        iodepth, numjobs, direct, tool\n"
    "  --since D, --until D  only runs started from / up to D, an ISO 8601 date or timestamp\n"
    "                        (UTC unless it has an offset; a bare --until date includes its day)\n"
    "  --rules FILE          tier-recommendation rules (default: built in, as\n"
    "                        " BENCHDB_TEMPLATEDIR "/tiers.rules)\n"
    "  --slo TARGET          a latency target (repeatable): p99<=2ms, p99.9<500us,\n"
    "                        mean<=1ms; the section Capacity gives, per side and queue-depth\n"
    "                        sweep, the most IOPS at a tested depth whose latency meets it\n"
    "  --cost FILE           prices and provisioned IOPS and bandwidth per storage class\n"
    "                        (format: " BENCHDB_TEMPLATEDIR "/costs.example): with --slo,\n"
    "                        the cost per 1k IOPS and per GiB/s, measured / provisioned\n"
    "  -o FILE               write to FILE (default: standard output; xlsx needs a FILE);\n"
    "                        repeatable: one report, a file per format, each named by its\n"
    "                        extension (-o r.md -o r.html -o r.xlsx)\n"
    "  --format F            md (default), html, xlsx, csv, json (described in\n"
    "                        " BENCHDB_DOCDIR "/report.schema.json);\n"
    "                        else inferred from -o FILE's extension (another is an error)\n"
    "  --table NAME          with csv: the table to write: comparison (default), unmatched,\n"
    "                        runs, results; with --slo: capacity, capacity_cost,\n"
    "                        capacity_points, capacity_targets, capacity_costs\n"
    "  --all                 the runs and results tables (xlsx, csv) list every run and\n"
    "                        result in the warehouse, not only those compared\n"
    "  --alias LONG=SHORT    a short label for a compared value in the ranking view (5 or\n"
    "                        more values; repeatable); without one, a label is shortened\n"
    "                        to the part that differs between the values\n"
    "  --template DIR        with html: report.html and style.css in DIR replace the\n"
    "                        built-in ones (a file missing there falls back to the built-in)\n"
    "\n"
    "Examples:\n"
    "  benchdb report --compare nfs-csi local-nvme-retain\n"
    "  benchdb report --by sec --compare sys krb5p --where rw=randread -o sec.md\n"
    "  benchdb report --compare disk tmpfs -o report.html\n"
    "  benchdb report --compare disk tmpfs -o report.xlsx\n"
    "  benchdb report --compare disk tmpfs -o report.md -o report.html -o report.xlsx\n"
    "  benchdb report --compare gp3 io2 --where rw=randread --slo 'p99<=2ms' -o capacity.xlsx\n";

struct report_opts {
    struct compare_opts cmp;
    struct str_list values;
    struct kv_list where, aliases;
    struct time_range dates;
    struct str_list outputs;                            /* each -o FILE */
    struct str_list slo_texts;                          /* each --slo, as given */
    struct slo *slos;                                   /* parsed */
    const char *output, *format, *table, *template_dir; /* output, format: the one written */
    int all; /* --all: the appendix lists the whole warehouse */
};

/* What --format takes and -o FILE's extension may name. */
static const char *const formats[] = {"md", "html", "xlsx", "csv", "json", NULL};

/* Several -o FILEs: each names its format by its extension, none twice; --table is for the
 * CSV among them (one report rendered once per file, as hyperfine writes its --export-* files
 * in one run). */
static int check_outputs(struct report_opts *o)
{
    if (o->format)
        return usage_error("report", "--format names one format: with several -o FILE, each "
                                     "file's extension names its own");
    int csv = 0;
    for (size_t i = 0; i < o->outputs.n; i++) {
        const char *path = o->outputs.v[i];
        if (!strcmp(path, "-"))
            return usage_error("report", "-o -: with several -o FILE, each is a file");
        const char *f = output_format("report", path, formats, "");
        if (!f) /* an extension it does not know, said */
            return usage_hint("report");
        if (!*f)
            return usage_error("report",
                               "-o %s: with several -o FILE, each ends in its "
                               "format's extension (.md, .html, .xlsx, .csv, .json)",
                               path);
        csv |= !strcmp(f, "csv");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->outputs.v[j], path))
                return usage_error("report", "-o %s given twice", path);
    }
    if (o->table && !csv)
        return usage_error("report", "--table is for a -o FILE.csv");
    return BDB_EXIT_OK;
}

/* --format (else -o FILE's extension), --table and -o agree: BDB_EXIT_OK or a usage error. */
static int check_output(struct report_opts *o)
{
    if (o->outputs.n > 1)
        return check_outputs(o);
    o->output = o->outputs.n ? o->outputs.v[0] : NULL;
    if (!o->format && !(o->format = output_format("report", o->output, formats, "md")))
        return usage_hint("report");
    if (!strcmp(o->format, "xlsx") && (!o->output || !strcmp(o->output, "-")))
        return usage_error("report", "xlsx needs an output file: -o FILE.xlsx");
    return table_option("report", o->format, o->table) ? usage_hint("report") : BDB_EXIT_OK;
}

/* Each --slo TARGET: BDB_EXIT_OK, or a usage error that says what was expected. */
static int parse_slos(struct report_opts *o)
{
    o->slos = xcalloc(o->slo_texts.n ? o->slo_texts.n : 1, sizeof(*o->slos));
    for (size_t i = 0; i < o->slo_texts.n; i++) {
        const char *why;
        if (slo_parse(o->slo_texts.v[i], &o->slos[i], &why))
            return usage_error("report", "--slo '%s': %s", o->slo_texts.v[i], why);
    }
    o->cmp.slos = o->slos;
    o->cmp.nslos = o->slo_texts.n;
    if (o->cmp.cost_name && !o->slo_texts.n && !o->cmp.rules_name)
        return usage_error("report", "--cost prices the capacity at a latency target: give "
                                     "one with --slo (p99<=2ms) or a --rules file's slo line");
    return BDB_EXIT_OK;
}

static int parse(struct app *app, int argc, char **argv, struct report_opts *o)
{
    const struct opt opts[] = {
        OPT_COMPARE(&o->values, &o->cmp.by, &o->where),
        OPT_SINCE(&o->dates),
        OPT_UNTIL(&o->dates),
        OPT_STRING(0, "rules", &o->cmp.rules_name, "FILE", "tier-recommendation rules"),
        OPT_STRINGS(0, "slo", &o->slo_texts, "TARGET", "a latency target (p99<=2ms)"),
        OPT_STRING(0, "cost", &o->cmp.cost_name, "FILE", "what each storage class costs"),
        OPT_STRINGS('o', "output", &o->outputs, "FILE", "write to FILE (repeatable)"),
        OPT_ENUM(0, "format", &o->format, formats, "output format"),
        OPT_ENUM(0, "table", &o->table, query_compare_tables, "with csv: the table to write"),
        OPT_STRING(0, "template", &o->template_dir, "DIR", "with html: templates in DIR"),
        OPT_KV("alias", &o->aliases, 0, "a short label for a compared value"),
        OPT_FLAG(0, "all", &o->all, "runs and results tables: the whole warehouse"),
        OPT_END(),
    };
    o->cmp.by = "storage-class";
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status;
    if (o->values.n < 2)
        return usage_error("report", "--compare needs a baseline and at least one candidate");
    if (check_output(o) || parse_slos(o))
        return BDB_EXIT_USAGE;
    o->cmp.values = o->values.v;
    o->cmp.nvalues = o->values.n;
    o->cmp.where = o->where.v;
    o->cmp.nwhere = o->where.n;
    o->cmp.dates = &o->dates;
    o->cmp.aliases = o->aliases.v;
    o->cmp.naliases = o->aliases.n;
    return BDB_EXIT_OK;
}

/* The report states a time only when asked (SOURCE_DATE_EPOCH), so output is reproducible. */
static void set_generated(struct report *r)
{
    time_t t;
    struct tm tm;
    char when[32];
    if (source_date_epoch(&t, &tm) != 1)
        return;
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
    r->generated = arena_strdup(&r->arena, when);
    r->generated_epoch = (long long)t;
}

/* Whether the output shows the appendix (the runs and results): the workbook always, CSV only
 * when one of those tables is asked for (it can hold a million rows). */
static int format_wants_appendix(const char *format, const char *table)
{
    if (!strcmp(format, "xlsx"))
        return 1;
    return !strcmp(format, "csv") && table && (!strcmp(table, "runs") || !strcmp(table, "results"));
}

/* The format of the i-th file written: --format or -o FILE's for one, each file's for several
 * (check_outputs took their extensions). */
static const char *format_of(const struct report_opts *o, size_t i)
{
    return o->outputs.n > 1 ? output_format("report", o->outputs.v[i], formats, "md") : o->format;
}

static int wants_appendix(const struct report_opts *o)
{
    for (size_t i = 0; i < o->outputs.n || i == 0; i++)
        if (format_wants_appendix(format_of(o, i), o->table))
            return 1;
    return 0;
}

/* Builds the report: the comparison, and the runs and results where they are shown. A compared
 * value without results is an error, never an empty report. */
static int build(struct db *db, const struct report_opts *o, struct report *r, struct diag *d)
{
    if (query_check_sides(db, &o->cmp, d) || query_compare(db, &o->cmp, r, d))
        return -1;
    return wants_appendix(o) ? query_appendix(db, &o->cmp, o->all, r, d) : 0;
}

/* libxlsxwriter writes the file itself: into a temporary one, as write_output does. */
static int write_workbook(struct app *app, const char *path, const struct report *r)
{
    struct output out;
    int status = output_begin(app, &out, path);
    if (status != BDB_EXIT_OK)
        return status;
    status = render_xlsx(r, output_name(&out), &app->diag) ? BDB_EXIT_ENV : BDB_EXIT_OK;
    return output_end(app, &out, status);
}

/* Reads the file an option names into *text, which *data then points at; no path: nothing. */
static int read_input(const char *what, const char *path, struct buf *text, const char **data,
                      struct diag *d)
{
    int status = path ? read_option_file(what, path, text, d) : BDB_EXIT_OK;
    if (path && status == BDB_EXIT_OK)
        *data = text->data;
    return status;
}

/* Renders into out, except xlsx, which libxlsxwriter writes to the file itself. */
static int render(const struct report_opts *o, const struct report *r, struct buf *out,
                  struct app *app)
{
    struct diag *d = &app->diag;
    int rc;
    if (!strcmp(o->format, "xlsx"))
        return write_workbook(app, o->output, r);
    if (!strcmp(o->format, "csv"))
        rc = render_csv(r, o->table ? o->table : "comparison", out, d);
    else if (!strcmp(o->format, "json"))
        rc = render_json(r, out, d);
    else if (!strcmp(o->format, "html"))
        rc = render_html(r, o->template_dir, out, d);
    else
        rc = render_md(r, out, d);
    return rc ? BDB_EXIT_INPUT : write_output(app, o->output, out->data, out->len);
}

int cmd_report(int argc, char **argv, struct app *app)
{
    struct report_opts o = {.dates = TIME_RANGE_ALL};
    struct buf rules = BUF_INIT, costs = BUF_INIT;
    int status = parse(app, argc, argv, &o);
    struct db *db = NULL;
    if (status == BDB_EXIT_OK)
        status = read_input("rules", o.cmp.rules_name, &rules, &o.cmp.rules, &app->diag);
    if (status == BDB_EXIT_OK)
        status = read_input("cost file", o.cmp.cost_name, &costs, &o.cmp.cost, &app->diag);
    app->dates = &o.dates;
    app->compared = o.all ? NULL : &o.cmp; /* --all: the appendix lists the whole warehouse */
    if (status == BDB_EXIT_OK && open_db(app, DB_READ_ONLY, &db))
        status = BDB_EXIT_ENV;
    if (status == BDB_EXIT_OK) {
        struct report r;
        struct buf title = BUF_INIT;
        buf_addf(&title, "Benchmark comparison: %s", o.values.v[0]);
        for (size_t i = 1; i < o.values.n; i++)
            buf_addf(&title, " vs %s", o.values.v[i]);
        report_init(&r, title.data);
        buf_release(&title);
        set_generated(&r);
        struct buf out = BUF_INIT;
        if (build(db, &o, &r, &app->diag))
            status = BDB_EXIT_INPUT;
        /* one report, rendered into each file asked for */
        for (size_t i = 0; status == BDB_EXIT_OK && (i < o.outputs.n || i == 0); i++) {
            if (o.outputs.n > 1) {
                o.output = o.outputs.v[i];
                o.format = format_of(&o, i);
            }
            buf_reset(&out);
            status = render(&o, &r, &out, app);
        }
        buf_release(&out);
        report_release(&r);
    }
    db_close(db);
    str_list_release(&o.values);
    str_list_release(&o.outputs);
    str_list_release(&o.slo_texts);
    free(o.slos);
    kv_list_release(&o.where);
    kv_list_release(&o.aliases);
    buf_release(&rules);
    buf_release(&costs);
    return status < 0 ? BDB_EXIT_OK : status;
}
