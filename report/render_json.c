/* render_json.c: the report model as JSON (benchdb report --format json), shape version 1
 * (docs/report.schema.json): every value in its base unit with the unit's name, and what the
 * pages print beside it (spread, run count, interval, verdict, phrase) as fields of its own. */
#include "report.h"

#include <math.h>

#include "../core/fmt.h"

/* The shape's version: bumped when a field changes meaning or goes away (added fields do
 * not bump it). */
enum { REPORT_JSON_SCHEMA = 1 };

struct json_page {
    struct buf *out;
    size_t nfacts, nsections;
};

static const char *role_name(enum column_role role)
{
    static const char *const names[] = {"plain", "key", "metric", "side", "factor", "field"};
    return names[role];
}

static void json_key(struct buf *out, const char *sep, const char *key)
{
    buf_adds(out, sep);
    fmt_json_string(out, key);
    buf_adds(out, ": ");
}

/* ", "key": v" when v is known. */
static void json_known(struct buf *out, const char *key, double v)
{
    if (isfinite(v)) {
        json_key(out, ", ", key);
        fmt_json_number(out, v);
    }
}

static void json_number(struct buf *out, const struct cell *c, enum unit u)
{
    buf_adds(out, "{\"value\": ");
    if (c->exact)
        buf_addf(out, "%lld", c->integer);
    else
        fmt_json_number(out, c->value);
    json_key(out, ", ", "unit");
    if (u == UNIT_NONE)
        buf_adds(out, "null");
    else
        fmt_json_string(out, unit_name(u));
    if (c->n > 0)
        buf_addf(out, ", \"n\": %d", c->n);
    json_known(out, "sd", c->sd);
    json_known(out, "min", c->min);
    json_known(out, "max", c->max);
    json_known(out, "lo", c->lo);
    json_known(out, "hi", c->hi);
    json_known(out, "p", c->p);
    json_known(out, "p_holm", c->p_holm);
    json_known(out, "iops", c->alt);
    if (c->verdict != VERDICT_NONE) {
        json_key(out, ", ", "verdict");
        fmt_json_string(out, verdict_text(c->verdict));
    }
    if (c->caution) {
        json_key(out, ", ", "caution");
        fmt_json_string(out, c->caution);
    }
    if (c->text) {
        json_key(out, ", ", "text");
        fmt_json_string(out, c->text);
    }
    buf_addc(out, '}');
}

static void json_cell(struct buf *out, const struct cell *c, enum unit u)
{
    if (c->kind == CELL_TEXT)
        fmt_json_string(out, c->text);
    else if (c->kind == CELL_NUMBER)
        json_number(out, c, u);
    else
        buf_adds(out, "null");
}

static void json_title(void *ctx, const char *title)
{
    struct json_page *p = ctx;
    buf_addf(p->out, "{\n  \"schema\": %d,\n  \"title\": ", REPORT_JSON_SCHEMA);
    fmt_json_string(p->out, title);
    buf_adds(p->out, ",\n  \"facts\": [");
}

static void json_fact(void *ctx, const char *key, const char *value)
{
    struct json_page *p = ctx;
    buf_adds(p->out, p->nfacts++ ? ",\n    {\"key\": " : "\n    {\"key\": ");
    fmt_json_string(p->out, key);
    json_key(p->out, ", ", "value");
    fmt_json_string(p->out, value);
    buf_addc(p->out, '}');
}

static void json_facts_end(void *ctx)
{
    struct json_page *p = ctx;
    buf_adds(p->out, p->nfacts ? "\n  ],\n  \"sections\": [" : "],\n  \"sections\": [");
}

static void json_section(void *ctx, const struct section *s)
{
    struct json_page *p = ctx;
    buf_adds(p->out, p->nsections++ ? ",\n    {\"heading\": " : "\n    {\"heading\": ");
    fmt_json_string(p->out, s->heading);
    json_key(p->out, ", ", "prose");
    if (s->prose)
        fmt_json_string(p->out, s->prose);
    else
        buf_adds(p->out, "null");
    json_key(p->out, ", ", "table");
    if (!s->table)
        buf_adds(p->out, "null");
}

static void json_columns(struct buf *out, const struct table *t)
{
    buf_adds(out, "\"columns\": [");
    for (size_t c = 0; c < t->ncols; c++) {
        json_key(out, c ? ", {" : "{", "name");
        fmt_json_string(out, t->cols[c].name);
        json_key(out, ", ", "unit");
        if (t->cols[c].unit == UNIT_NONE)
            buf_adds(out, "null");
        else
            fmt_json_string(out, unit_name(t->cols[c].unit));
        json_key(out, ", ", "role");
        fmt_json_string(out, role_name(t->cols[c].role));
        buf_addc(out, '}');
    }
    buf_adds(out, "]");
}

static void json_table(void *ctx, const struct table *t)
{
    struct buf *out = ((struct json_page *)ctx)->out;
    buf_adds(out, "{\"name\": ");
    fmt_json_string(out, t->name);
    buf_adds(out, ",\n      ");
    json_columns(out, t);
    buf_adds(out, ",\n      \"rows\": [");
    for (size_t r = 0; r < t->nrows; r++) {
        buf_adds(out, r ? ",\n        [" : "\n        [");
        for (size_t c = 0; c < t->ncols; c++) {
            buf_adds(out, c ? ", " : "");
            json_cell(out, table_cell(t, r, c), cell_unit(t, r, c));
        }
        buf_addc(out, ']');
    }
    buf_adds(out, t->nrows ? "\n      ]}" : "]}");
}

static void json_section_end(void *ctx, const struct section *s)
{
    (void)s;
    buf_addc(((struct json_page *)ctx)->out, '}');
}

int render_json(const struct report *r, struct buf *out, struct diag *d)
{
    (void)d;
    static const struct report_walker json = {
        .title = json_title,
        .fact = json_fact,
        .facts_end = json_facts_end,
        .section = json_section,
        .table = json_table,
        .section_end = json_section_end,
    };
    struct json_page p = {out, 0, 0};
    report_walk(r, &json, &p);
    buf_adds(out, p.nsections ? "\n  ]\n}\n" : "]\n}\n");
    return 0;
}
