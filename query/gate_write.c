/* gate_write.c: benchdb check's verdict in the files CI systems and benchmark trackers read
 * (docs/ci.md): JUnit XML, an OpenMetrics exposition, a Markdown job summary, Bencher Metric
 * Format and github-action-benchmark's JSON. The verdicts come from the gate's rows and their
 * words from gate_text.c; the values from the comparison table, in base units (bytes per
 * second, I/Os per second, seconds), as OpenMetrics and Bencher ask. */
#include "gate.h"

#include <math.h>
#include <string.h>

#include "../core/fmt.h"

/* ---- text escapes ---- */

/* XML 1.0 text or attribute value: the five entities, line breaks kept in attributes as
 * character references, and the C0 controls XML 1.0 forbids (a name read from a tool's output
 * could hold one) as U+FFFD, since a single one makes the whole file unreadable.
 * report/html_escape.c is report/'s own and leaves the controls. */
static void xml_escape(struct buf *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e = c == '&'    ? "&amp;"
                        : c == '<'  ? "&lt;"
                        : c == '>'  ? "&gt;"
                        : c == '"'  ? "&quot;"
                        : c == '\n' ? "&#10;"
                        : c == '\t' ? "&#9;"
                        : c == '\r' ? "&#13;"
                        : c < 0x20  ? "\xef\xbf\xbd"
                                    : NULL;
        if (e)
            buf_adds(out, e);
        else
            buf_addc(out, (char)c);
    }
}

/* An OpenMetrics label value (n bytes): backslash, double quote and line feed escaped (the
 * spec's ABNF), the rest UTF-8 as it is. */
static void om_label_escape_n(struct buf *out, const char *s, size_t n)
{
    for (const char *end = s + n; s < end; s++) {
        if (*s == '\\' || *s == '"')
            buf_addc(out, '\\');
        if (*s == '\n')
            buf_adds(out, "\\n");
        else
            buf_addc(out, *s);
    }
}

static void om_label_escape(struct buf *out, const char *s)
{
    om_label_escape_n(out, s, strlen(s));
}

/* ---- JUnit ---- */

/* <failure>: the row's line as its message, the evidence (factor, interval, runs a side, the
 * Holm-corrected p) as its text. */
static void junit_failure(struct buf *out, const struct gate_row *row, const struct gate_config *c)
{
    struct buf text = BUF_INIT;
    gate_row_text(&text, row, c);
    buf_adds(out, "      <failure type=\"regression\" message=\"");
    xml_escape(out, text.data);
    buf_adds(out, "\">");
    buf_reset(&text);
    gate_value_text(&text, row, 1);
    xml_escape(out, text.data);
    buf_adds(out, "</failure>\n");
    buf_release(&text);
}

/* <skipped>: the runs needed as its message, the row's line as its text. */
static void junit_skipped(struct buf *out, const struct gate_row *row, const struct gate_config *c)
{
    struct buf text = BUF_INIT;
    gate_note_text(&text, row);
    buf_adds(out, "      <skipped message=\"");
    xml_escape(out, text.data);
    buf_adds(out, "\">");
    buf_reset(&text);
    gate_row_text(&text, row, c);
    xml_escape(out, text.data);
    buf_adds(out, "</skipped>\n");
    buf_release(&text);
}

/* <system-out>: what a waiver did ("waived: PERF-1 until 2027-01-31: waiver PERF-1 allows
 * bw:-30%", "regression: waiver PERF-1 expired on 2026-11-30"). */
static void junit_waiver(struct buf *out, const struct gate_row *row)
{
    struct buf text = BUF_INIT;
    gate_outcome_text(&text, row);
    buf_adds(&text, ": ");
    gate_note_text(&text, row);
    buf_adds(out, "      <system-out>");
    xml_escape(out, text.data);
    buf_adds(out, "</system-out>\n");
    buf_release(&text);
}

static void junit_case(struct buf *out, const struct gate_row *row, const struct gate_config *c)
{
    struct buf name = BUF_INIT;
    buf_addf(&name, "%s: %s",
             row->limit && row->limit->kind != LIMIT_RELATIVE ? row->limit->metric.label
                                                              : row->metric,
             row->versus);
    buf_adds(out, "    <testcase classname=\"");
    xml_escape(out, row->workload);
    buf_adds(out, "\" name=\"");
    xml_escape(out, name.data);
    buf_release(&name);
    buf_adds(out, "\" time=\"0\"");
    if (row->outcome == GATE_PASS && !row->waiver) {
        buf_adds(out, "/>\n");
        return;
    }
    buf_adds(out, ">\n");
    if (row->outcome == GATE_FAIL)
        junit_failure(out, row, c);
    else if (row->outcome == GATE_INCONCLUSIVE)
        junit_skipped(out, row, c);
    if (row->waiver)
        junit_waiver(out, row);
    buf_adds(out, "    </testcase>\n");
}

void gate_write_junit(struct buf *out, const struct gate *g, const struct gate_config *c)
{
    size_t fail = g->count[GATE_FAIL], skip = g->count[GATE_INCONCLUSIVE];
    /* skipped only on <testsuite>: Jenkins' schema has no such attribute on <testsuites> */
    buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    buf_addf(out,
             "<testsuites name=\"benchdb check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
             "time=\"0\">\n",
             g->n, fail);
    buf_addf(out,
             "  <testsuite name=\"benchdb check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
             "skipped=\"%zu\" time=\"0\">\n",
             g->n, fail, skip);
    struct buf limits = BUF_INIT;
    gate_limits_text(&limits, c);
    buf_adds(out, "    <properties>\n      <property name=\"limits\" value=\"");
    xml_escape(out, limits.data);
    buf_adds(out, "\"/>\n    </properties>\n");
    buf_release(&limits);
    for (size_t i = 0; i < g->n; i++)
        junit_case(out, &g->v[i], c);
    buf_adds(out, "  </testsuite>\n</testsuites>\n");
}

/* ---- the comparison's values, in base units ---- */

/* How a compared metric is named and measured in the files others read. */
struct measure {
    const char *family; /* OpenMetrics metric family */
    const char *unit;   /* its UNIT ("" none), and what github-action-benchmark shows */
    const char *bench_unit;
    double scale; /* from the comparison's base unit */
};

static const struct measure BANDWIDTH = {"benchdb_bw_bytes_per_second", "bytes_per_second",
                                         "bytes/s", 1};
static const struct measure IOPS = {"benchdb_iops", "", "IOPS", 1};
static const struct measure LATENCY = {"benchdb_latency_seconds", "seconds", "s", 1e-9};

/* One side's mean of one compared metric. */
struct side_value {
    const char *workload;
    const char *side; /* the compared value: side_len bytes (the baseline's column says more) */
    int side_len;
    const char *base; /* the baseline's name (base_len bytes) */
    int base_len;
    int baseline;       /* this side is the baseline */
    int rides;          /* IOPS read from its bandwidth row */
    int candidate;      /* compared with a baseline: factor is its factor */
    int candidates;     /* how many sides are candidates (the files name one alone less) */
    const char *metric; /* the short name: bw, iops, lat, p99 ... */
    const struct measure *m;
    double value, lo, hi; /* lo, hi: the 95 % interval of the mean; NAN: one run */
    int n;
    const struct cell *factor; /* against the baseline; NULL for the baseline and one value */
};

typedef void value_fn(void *ctx, const struct side_value *v);

/* The short name of the table's metric label ("p99 latency" -> "p99"). */
static int metric_of(const char *label, struct compare_metric *out)
{
    const char *name;
    for (size_t i = 0; (name = compare_metric_name(i)); i++)
        if (!compare_metric_find(name, out) && !strcmp(out->label, label))
            return 0;
    return -1;
}

static void emit(value_fn *fn, void *ctx, struct side_value v, const struct cell *c, double scale)
{
    v.value = c->value * scale;
    v.lo = c->lo * scale;
    v.hi = c->hi * scale;
    v.n = c->n;
    if (isfinite(v.value))
        fn(ctx, &v);
}

/* Calls fn for the value in column col of a row, and for the IOPS a bandwidth carries. */
static void row_values(const struct table *t, const struct cell *row, size_t col,
                       struct side_value v, value_fn *fn, void *ctx)
{
    const struct cell *c = &row[col];
    struct compare_metric cm;
    size_t key = table_find_role(t, ROLE_KEY), metric = table_find_role(t, ROLE_METRIC);
    if (c->kind != CELL_NUMBER || metric_of(row[metric].text, &cm))
        return;
    v.workload = row[key].text;
    v.metric = cm.name;
    if (v.candidate) /* a candidate's factor column follows its own */
        v.factor = &row[col + 1];
    v.m = cm.unit == UNIT_NS ? &LATENCY : cm.unit == UNIT_IOPS ? &IOPS : &BANDWIDTH;
    /* a network's rate is shown in bit/s; the files get bytes/s as every other rate */
    emit(fn, ctx, v, c, v.m->scale / (c->unit == UNIT_BITS_S ? 8 : 1));
    if (cm.unit == UNIT_BYTES_S && isfinite(c->alt) && c->value > 0 && c->unit != UNIT_BITS_S) {
        /* IOPS is the bandwidth over the block size: one measurement, the same interval */
        v.m = &IOPS;
        v.metric = "iops";
        v.rides = 1;
        emit(fn, ctx, v, c, c->alt / c->value);
    }
}

/* Calls fn for every side value of the comparison (candidates only when candidates_only is
 * set), one side after the other, each in the table's order, so that the measures of one
 * benchmark come together. */
static void each_value(const struct report *r, int candidates_only, value_fn *fn, void *ctx)
{
    static const char BASELINE[] = " (baseline)";
    const struct table *t = gate_comparison_table(r);
    if (!t)
        return;
    size_t base = table_find_role(t, ROLE_SIDE);
    int compared = table_find_role(t, ROLE_FACTOR) < t->ncols;
    int candidates = 0;
    for (size_t col = 0; col < t->ncols; col++)
        candidates += t->cols[col].role == ROLE_SIDE && !(compared && col == base);
    for (size_t col = 0; col < t->ncols; col++) {
        int baseline = compared && col == base;
        if (t->cols[col].role != ROLE_SIDE || (candidates_only && baseline))
            continue;
        const char *name = t->cols[col].name, *bname = t->cols[base].name;
        size_t len = strlen(name) - (baseline ? strlen(BASELINE) : 0);
        size_t blen = strlen(bname) - (compared ? strlen(BASELINE) : 0);
        struct side_value v = {.side = name,
                               .side_len = (int)len,
                               .base = bname,
                               .base_len = (int)blen,
                               .baseline = baseline,
                               .candidates = candidates,
                               .candidate = compared && !baseline};
        for (size_t i = 0; i < t->nrows; i++)
            row_values(t, t->rows[i], col, v, fn, ctx);
    }
}

/* ---- OpenMetrics ---- */

struct om_family {
    struct buf *out;
    const struct measure *m;
};

static void om_labels(struct buf *out, const struct side_value *v)
{
    buf_adds(out, "{workload=\"");
    om_label_escape(out, v->workload);
    buf_addf(out, "\",metric=\"%s\",side=\"", v->metric);
    om_label_escape_n(out, v->side, v->side_len);
    buf_adds(out, "\"");
}

static void om_sample(void *ctx, const struct side_value *v)
{
    const struct om_family *f = ctx;
    if (v->m != f->m)
        return;
    buf_adds(f->out, f->m->family);
    om_labels(f->out, v);
    buf_adds(f->out, "} ");
    fmt_plain_number(f->out, v->value);
    buf_addc(f->out, '\n');
}

/* Each candidate's factor, once a row: IOPS riding on a bandwidth is that factor again. */
static void om_factor(void *ctx, const struct side_value *v)
{
    struct buf *out = ctx;
    const struct cell *f = v->factor;
    if (!f || f->kind != CELL_NUMBER || !isfinite(f->value) || v->rides)
        return;
    buf_adds(out, "benchdb_factor");
    om_labels(out, v);
    buf_adds(out, ",baseline=\"");
    om_label_escape_n(out, v->base, v->base_len);
    buf_adds(out, "\"} ");
    fmt_plain_number(out, f->value);
    buf_addc(out, '\n');
}

void gate_write_openmetrics(struct buf *out, const struct report *r)
{
    static const struct {
        const struct measure *m;
        const char *help;
    } families[] = {
        {&BANDWIDTH, "mean bandwidth of the repeated runs, by workload, metric and side"},
        {&IOPS, "mean I/O operations per second of the repeated runs"},
        {&LATENCY, "mean latency of the repeated runs (metric: lat mean, p99, fsync, fsync_p99)"},
    };
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        const struct measure *m = families[i].m;
        buf_addf(out, "# TYPE %s gauge\n", m->family);
        if (*m->unit)
            buf_addf(out, "# UNIT %s %s\n", m->family, m->unit);
        buf_addf(out, "# HELP %s %s\n", m->family, families[i].help);
        struct om_family f = {out, m};
        each_value(r, 0, om_sample, &f);
    }
    buf_adds(out, "# TYPE benchdb_factor gauge\n# HELP benchdb_factor candidate against the "
                  "baseline, above 1 better\n");
    each_value(r, 1, om_factor, out);
    buf_adds(out, "# EOF\n");
}

/* ---- Bencher Metric Format, github-action-benchmark ---- */

/* The benchmark's name: the workload, and the side when several candidates share the file. */
static void bench_name(struct buf *out, const struct side_value *v, const char *sep)
{
    buf_adds(out, v->workload);
    if (sep)
        buf_addf(out, "%s%s", sep, v->metric);
    if (v->candidates > 1)
        buf_addf(out, " (%.*s)", v->side_len, v->side);
}

/* The measure's slug (kebab case, as Bencher's own): the metric and its unit, "bw-bytes-per-
 * second", "p99-seconds", "iops". */
static void bench_slug(struct buf *out, const struct side_value *v)
{
    struct buf slug = BUF_INIT;
    buf_adds(&slug, v->metric);
    if (*v->m->unit)
        buf_addf(&slug, "-%s", v->m->unit);
    for (char *c = slug.data; *c; c++)
        if (*c == '_')
            *c = '-';
    fmt_json_string(out, slug.data);
    buf_release(&slug);
}

struct bencher {
    struct buf *out;
    struct buf current; /* the open benchmark's name; empty: none yet */
};

static void bencher_value(void *ctx, const struct side_value *v)
{
    struct bencher *b = ctx;
    struct buf name = BUF_INIT;
    bench_name(&name, v, NULL);
    int same = b->current.len && !strcmp(name.data, b->current.data);
    if (!same) {
        /* the comparison sorts its workloads by name: one benchmark's rows come together */
        buf_adds(b->out, b->current.len ? "\n  },\n  " : "\n  ");
        fmt_json_string(b->out, name.data);
        buf_adds(b->out, ": {");
        buf_reset(&b->current);
        buf_adds(&b->current, name.data);
    }
    buf_adds(b->out, same ? ",\n    " : "\n    ");
    bench_slug(b->out, v);
    buf_adds(b->out, ": {\"value\": ");
    fmt_json_number(b->out, v->value);
    if (isfinite(v->lo) && isfinite(v->hi)) {
        buf_adds(b->out, ", \"lower_value\": ");
        fmt_json_number(b->out, v->lo);
        buf_adds(b->out, ", \"upper_value\": ");
        fmt_json_number(b->out, v->hi);
    }
    buf_adds(b->out, "}");
    buf_release(&name);
}

void gate_write_bencher(struct buf *out, const struct report *r)
{
    struct bencher b = {out, BUF_INIT};
    buf_adds(out, "{");
    each_value(r, 1, bencher_value, &b);
    buf_adds(out, b.current.len ? "\n  }\n}\n" : "}\n");
    buf_release(&b.current);
}

struct github_benchmark {
    struct buf *out;
    int bigger;
    size_t n;
};

static void github_value(void *ctx, const struct side_value *v)
{
    struct github_benchmark *g = ctx;
    if ((v->m != &LATENCY) != g->bigger) /* rates are better bigger, latencies smaller */
        return;
    struct buf text = BUF_INIT;
    buf_adds(g->out, g->n++ ? ",\n  {\"name\": " : "\n  {\"name\": ");
    bench_name(&text, v, ": ");
    fmt_json_string(g->out, text.data);
    buf_adds(g->out, ", \"unit\": ");
    fmt_json_string(g->out, v->m->bench_unit);
    buf_adds(g->out, ", \"value\": ");
    fmt_json_number(g->out, v->value);
    buf_reset(&text);
    if (isfinite(v->lo) && isfinite(v->hi)) {
        /* the t interval of a mean is symmetric: its half width, as the action shows ranges */
        buf_adds(&text, "\xc2\xb1 ");
        fmt_plain_number(&text, (v->hi - v->lo) / 2);
        buf_adds(g->out, ", \"range\": ");
        fmt_json_string(g->out, text.data);
        buf_reset(&text);
    }
    buf_addf(&text, "%s of %d run%s", v->n == 1 ? "value" : "mean", v->n, v->n == 1 ? "" : "s");
    if (v->factor && v->factor->text)
        buf_addf(&text, "; against %.*s: %s", v->base_len, v->base, v->factor->text);
    buf_adds(g->out, ", \"extra\": ");
    fmt_json_string(g->out, text.data);
    buf_adds(g->out, "}");
    buf_release(&text);
}

void gate_write_github_benchmark(struct buf *out, const struct report *r, int bigger)
{
    struct github_benchmark g = {out, bigger, 0};
    buf_adds(out, "[");
    each_value(r, 1, github_value, &g);
    buf_adds(out, g.n ? "\n]\n" : "]\n");
}

/* ---- the Markdown job summary ---- */

static void md_cell(struct buf *out, const char *s)
{
    buf_adds(out, " ");
    report_md_escape(out, s);
    buf_adds(out, " |");
}

static void summary_row(struct buf *out, const struct gate_row *row, const struct gate_config *c)
{
    struct buf text = BUF_INIT;
    buf_adds(out, "|");
    md_cell(out, row->workload);
    md_cell(out, row->limit && row->limit->kind != LIMIT_RELATIVE ? row->limit->metric.label
                                                                  : row->metric);
    md_cell(out, row->versus);
    gate_value_text(&text, row, 1);
    md_cell(out, text.data);
    buf_reset(&text);
    gate_limit_text(&text, row, c);
    md_cell(out, text.data);
    buf_reset(&text);
    gate_outcome_text(&text, row);
    struct buf note = BUF_INIT;
    gate_note_text(&note, row);
    if (note.len)
        buf_addf(&text, ": %s", note.data);
    md_cell(out, text.data);
    buf_adds(out, "\n");
    buf_release(&text);
    buf_release(&note);
}

void gate_write_summary(struct buf *out, const struct gate *g, const struct gate_config *c,
                        const char *verdict)
{
    struct buf text = BUF_INIT;
    gate_counts_text(&text, g);
    buf_addf(out, "**benchdb check: %s**: %s\n\nLimits: ", verdict, text.data);
    buf_reset(&text);
    gate_limits_text(&text, c);
    report_md_escape(out, text.data);
    buf_adds(out, ".\n\n");
    buf_release(&text);
    if (!g->n) {
        buf_adds(out, "Nothing was compared: no workload was run on both sides, or no result "
                      "has a metric the limits name.\n");
        return;
    }
    buf_adds(out, "| Workload | Metric | Compared | Factor (above 1 better) or mean, 95 % CI, "
                  "evidence | Limit | Outcome |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < g->n; i++)
        summary_row(out, &g->v[i], c);
}
