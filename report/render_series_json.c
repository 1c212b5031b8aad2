/* render_series_json.c: a report of series (benchdb trend) as one JSON document, each series with
 * its change points and values nested (report.h's render_series_json), and its change points
 * as Grafana annotations (render_annotations). */
#include <inttypes.h>
#include <string.h>

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
static void annotation_tags(struct buf *out, const struct table *cp, size_t row,
                            const struct table *series, size_t srow)
{
    static const char *const labels[] = {"metric", "storage_class", "host"};
    buf_adds(out, ",\"tags\":[\"benchdb\"");
    const char *direction = text_of(cp, row, "direction");
    if (direction) {
        buf_addc(out, ',');
        fmt_json_string(out, direction);
    }
    for (size_t i = 0; srow < series->nrows && i < ARRAY_SIZE(labels); i++) {
        const char *v = text_of(series, srow, labels[i]);
        if (!v)
            continue;
        struct buf tag = BUF_INIT;
        buf_addf(&tag, "%s:%s", labels[i], v);
        buf_addc(out, ',');
        fmt_json_string(out, tag.data);
        buf_release(&tag);
    }
    buf_adds(out, "]");
}

int render_annotations(const struct report *r, struct buf *out, struct diag *d)
{
    const struct table *cp = report_find_table(r, "change_points"),
                       *series = report_find_table(r, "series");
    if (!cp || !series)
        return diag_error(d, "the report has no change points and series");
    buf_addc(out, '[');
    for (size_t row = 0; row < cp->nrows; row++) {
        const char *name = text_of(cp, row, "series"), *at = text_of(cp, row, "started_at");
        const char *change = text_of(cp, row, "change"), *p = text_of(cp, row, "p_value"), *why;
        int64_t t;
        if (!name || !at || parse_iso_time(at, TIME_LOWER, &t, &why))
            return diag_error(d, "change point %zu has no series or start time", row + 1);
        size_t srow = 0; /* the series' row, for its labels */
        while (srow < series->nrows &&
               strcmp(name, text_of(series, srow, "series") ? text_of(series, srow, "series") : ""))
            srow++;
        /* an instant: the first run after the change (its end is not known) */
        buf_addf(out, "%s{\"time\":%" PRId64 ",\"title\":", row ? ",\n" : "\n", t * 1000);
        fmt_json_string(out, name);
        buf_adds(out, ",\"text\":");
        struct buf text = BUF_INIT;
        buf_addf(&text, "%s: %s (p = %s)", name, change ? change : "", p ? p : "");
        fmt_json_string(out, text.data);
        buf_release(&text);
        annotation_tags(out, cp, row, series, srow);
        buf_addc(out, '}');
    }
    buf_adds(out, cp->nrows ? "\n]\n" : "]\n");
    return 0;
}
