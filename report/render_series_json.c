/* render_series_json.c: a report of series (benchdb trend) as one JSON document, each series with
 * its change points and values nested (report.h's render_series_json), and its change points
 * as Grafana annotations (render_annotations). */
#include <inttypes.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/array.h"
#include "../core/fmt.h"
#include "../core/timerange.h"
#include "report.h"

/* Bumped when a field changes meaning or goes; new fields keep it. */
enum { SERIES_JSON_SCHEMA = 2 };

static const char *key_text(const struct table *t, size_t row, size_t key)
{
    const struct cell *c = table_cell(t, row, key);
    return c->kind == CELL_TEXT ? c->text : "";
}

/* Row's cells as "name": value pairs (the key column left out when skip is it), then "unit":
 * the base unit of its values (ROLE_VALUE), as the CSV's unit column. */
static void fields(struct buf *out, const struct table *t, size_t row, size_t skip)
{
    const char *sep = "";
    for (size_t c = 0; c < t->ncols; c++) {
        if (c == skip)
            continue;
        buf_adds(out, sep);
        fmt_json_string(out, t->cols[c].name);
        buf_addc(out, ':');
        report_json_value(out, table_cell(t, row, c));
        sep = ",";
    }
    size_t value = table_find_role(t, ROLE_VALUE);
    if (value < t->ncols) {
        buf_addf(out, "%s\"unit\":", sep);
        fmt_json_string(out, unit_name(cell_unit(t, row, value)));
    }
}

/* A child table's cursor: its rows are taken in order, as long as they belong to the parent. */
struct child {
    const struct table *t;
    size_t key, next;
};

static void child_rows(struct buf *out, struct child *ch, const char *parent_key)
{
    buf_addc(out, ',');
    fmt_json_string(out, ch->t->name);
    buf_adds(out, ":[");
    for (const char *sep = "";
         ch->next < ch->t->nrows && !strcmp(key_text(ch->t, ch->next, ch->key), parent_key);
         ch->next++, sep = ",") {
        buf_addf(out, "%s{", sep);
        fields(out, ch->t, ch->next, ch->key);
        buf_addc(out, '}');
    }
    buf_addc(out, ']');
}

/* The other tables with a key column: each parent row's rows of them. */
static size_t children(const struct report *r, const struct table *parent, struct child *ch,
                       size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsections && n < max; i++) {
        const struct table *t = r->sections[i].table;
        size_t key = t ? table_find_role(t, ROLE_KEY) : 0;
        if (t && t != parent && key < t->ncols)
            ch[n++] = (struct child){t, key, 0};
    }
    return n;
}

static void header(struct buf *out, const struct report *r)
{
    buf_addf(out, "{\"schema\":%d,\"title\":", SERIES_JSON_SCHEMA);
    fmt_json_string(out, r->title);
    buf_adds(out, ",\"facts\":{");
    for (size_t i = 0; i < r->nfacts; i++) {
        buf_adds(out, i ? "," : "");
        fmt_json_string(out, r->facts[i].key);
        buf_addc(out, ':');
        fmt_json_string(out, r->facts[i].value);
    }
    buf_adds(out, "}");
}

/* The tables without a key column (trend's "stale"): each an array of its own beside the
 * parent's, as they describe no one row of it. */
static void loose_tables(struct buf *out, const struct report *r)
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct table *t = r->sections[i].table;
        if (!t || table_find_role(t, ROLE_KEY) < t->ncols)
            continue;
        buf_addc(out, ',');
        fmt_json_string(out, t->name);
        buf_adds(out, ":[");
        for (size_t row = 0; row < t->nrows; row++) {
            buf_adds(out, row ? ",\n{" : "\n{");
            fields(out, t, row, t->ncols);
            buf_addc(out, '}');
        }
        buf_addc(out, ']');
    }
}

int render_series_json(const struct report *r, const char *parent, struct buf *out, struct diag *d)
{
    const struct table *p = report_find_table(r, parent);
    size_t key = p ? table_find_role(p, ROLE_KEY) : 0;
    if (!p || key == p->ncols)
        return diag_error(d, "the report has no table '%s' with a key column", parent);
    struct child ch[8];
    size_t nch = children(r, p, ch, ARRAY_SIZE(ch));
    header(out, r);
    buf_addc(out, ',');
    fmt_json_string(out, parent);
    buf_adds(out, ":[");
    for (size_t row = 0; row < p->nrows; row++) {
        buf_adds(out, row ? ",\n{" : "\n{");
        fields(out, p, row, p->ncols);
        for (size_t i = 0; i < nch; i++)
            child_rows(out, &ch[i], key_text(p, row, key));
        buf_addc(out, '}');
    }
    buf_addc(out, ']');
    loose_tables(out, r);
    buf_adds(out, "}\n");
    for (size_t i = 0; i < nch; i++)
        if (ch[i].next < ch[i].t->nrows) /* a row out of its parent's order: never dropped */
            return diag_error(d, "table '%s' row %zu is not in the order of table '%s'",
                              ch[i].t->name, ch[i].next + 1, parent);
    return 0;
}

/* The column of t named name (t->ncols when none). */
static size_t column(const struct table *t, const char *name)
{
    size_t c = 0;
    while (c < t->ncols && strcmp(t->cols[c].name, name))
        c++;
    return c;
}

static const char *text_of(const struct table *t, size_t row, const char *name)
{
    size_t c = column(t, name);
    const struct cell *cell = c < t->ncols ? table_cell(t, row, c) : NULL;
    return cell && cell->kind != CELL_EMPTY && cell->text ? cell->text : NULL;
}

/* Grafana's tags of a change point: what a dashboard's annotation query filters on. */
static void annotation_tags(struct arena *a, struct annotation *an, const struct table *cp,
                            size_t row, const struct table *series, size_t srow)
{
    static const char *const labels[] = {"metric", "storage_class", "host"};
    an->tags[an->ntags++] = "benchdb";
    const char *direction = text_of(cp, row, "direction");
    if (direction)
        an->tags[an->ntags++] = arena_strdup(a, direction);
    for (size_t i = 0; srow < series->nrows && i < ARRAY_SIZE(labels); i++) {
        const char *v = text_of(series, srow, labels[i]);
        if (v)
            an->tags[an->ntags++] = arena_printf(a, "%s:%s", labels[i], v);
    }
}

/* The row of the series table that names series name (series->nrows when none). */
static size_t series_row(const struct table *series, const char *name)
{
    size_t srow = 0;
    while (srow < series->nrows &&
           strcmp(name, text_of(series, srow, "series") ? text_of(series, srow, "series") : ""))
        srow++;
    return srow;
}

int report_annotations(const struct report *r, struct arena *a, struct annotations *out,
                       struct diag *d)
{
    const struct table *cp = report_find_table(r, "change_points"),
                       *series = report_find_table(r, "series");
    *out = (struct annotations){0};
    if (!cp || !series)
        return diag_error(d, "the report has no change points and series");
    out->series = arena_alloc(a, (series->nrows ? series->nrows : 1) * sizeof(*out->series));
    for (size_t row = 0; row < series->nrows; row++)
        if (text_of(series, row, "series"))
            out->series[out->nseries++] = text_of(series, row, "series");
    out->v = arena_alloc(a, (cp->nrows ? cp->nrows : 1) * sizeof(*out->v));
    for (size_t row = 0; row < cp->nrows; row++) {
        struct annotation *an = &out->v[row];
        const char *name = text_of(cp, row, "series"), *at = text_of(cp, row, "started_at");
        const char *change = text_of(cp, row, "change"), *p = text_of(cp, row, "p_value"), *why;
        if (!name || !at || parse_iso_time(at, TIME_LOWER, &an->time, &why))
            return diag_error(d, "change point %zu has no series or start time", row + 1);
        an->series = name;
        an->text = arena_printf(a, "%s: %s (p = %s)", name, change ? change : "", p ? p : "");
        annotation_tags(a, an, cp, row, series, series_row(series, name));
        out->n = row + 1;
    }
    return 0;
}

int render_annotations(const struct report *r, struct buf *out, struct diag *d)
{
    struct arena a = {0};
    struct annotations an;
    int rc = report_annotations(r, &a, &an, d);
    buf_addc(out, '[');
    for (size_t i = 0; !rc && i < an.n; i++) {
        const struct annotation *v = &an.v[i];
        /* an instant: the first run after the change (its end is not known) */
        buf_addf(out, "%s{\"time\":%" PRId64 ",\"title\":", i ? ",\n" : "\n", v->time * 1000);
        fmt_json_string(out, v->series);
        buf_adds(out, ",\"text\":");
        fmt_json_string(out, v->text);
        buf_adds(out, ",\"tags\":[");
        for (size_t k = 0; k < v->ntags; k++) {
            if (k)
                buf_addc(out, ',');
            fmt_json_string(out, v->tags[k]);
        }
        buf_adds(out, "]}");
    }
    buf_adds(out, an.n ? "\n]\n" : "]\n");
    arena_release(&a);
    return rc;
}
