/* render_md.c: GitHub-flavored Markdown. Text from the inputs is escaped so that a job named
 * `a|b`, `<b>`, `&lt;` or `~~x~~` cannot break a table, inject markup or be read as an entity. */
#include "report.h"

#include <string.h>

void report_md_escape(struct buf *out, const char *s)
{
    for (; s && *s; s++) {
        if (strchr("|\\`*_[]<>#&~", *s))
            buf_addc(out, '\\');
        if (*s == '\n' || *s == '\r')
            buf_addc(out, ' ');
        else
            buf_addc(out, *s);
    }
}

static void md_cell(struct buf *out, const struct cell *c, enum unit u)
{
    if (c->kind == CELL_EMPTY)
        buf_adds(out, "–");
    else if (c->kind == CELL_TEXT || c->text)
        report_md_escape(out, c->text);
    else
        value_format(out, c, u, &VALUE_MARKS_TEXT);
}

static void md_table(void *ctx, const struct table *t)
{
    struct buf *out = ctx;
    buf_adds(out, "|");
    for (size_t c = 0; c < t->ncols; c++) {
        buf_addc(out, ' ');
        report_md_escape(out, t->cols[c].name);
        buf_adds(out, " |");
    }
    buf_adds(out, "\n|");
    for (size_t c = 0; c < t->ncols; c++)
        buf_adds(out, t->cols[c].unit == UNIT_NONE ? " --- |" : " ---: |");
    buf_addc(out, '\n');
    for (size_t r = 0; r < t->nrows; r++) {
        buf_adds(out, "|");
        for (size_t c = 0; c < t->ncols; c++) {
            buf_addc(out, ' ');
            md_cell(out, table_cell(t, r, c), cell_unit(t, r, c));
            buf_adds(out, " |");
        }
        buf_addc(out, '\n');
    }
}

static void md_title(void *ctx, const char *title)
{
    buf_adds(ctx, "# ");
    report_md_escape(ctx, title);
    buf_adds(ctx, "\n\n");
}

static void md_fact(void *ctx, const char *key, const char *value)
{
    buf_adds(ctx, "- **");
    report_md_escape(ctx, key);
    buf_adds(ctx, ":** ");
    report_md_escape(ctx, value);
    buf_addc(ctx, '\n');
}

static void md_section(void *ctx, const struct section *s)
{
    buf_adds(ctx, "\n## ");
    report_md_escape(ctx, s->heading);
    buf_adds(ctx, "\n\n");
    if (s->prose && *s->prose) {
        buf_adds(ctx, s->prose); /* our own CommonMark; input text in it is pre-escaped */
        buf_adds(ctx, "\n\n");
    }
}

/* A time series reads as a line per series saying what it showed (steady state, a cliff),
 * when the series says. */
static void md_series_notes(struct buf *out, const struct figure *f)
{
    int titled = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        if (!f->series[s].note)
            continue;
        if (!titled++) {
            buf_adds(out, "\n**");
            report_md_escape(out, f->title);
            buf_adds(out, "**\n\n");
        }
        buf_adds(out, "- ");
        report_md_escape(out, f->series[s].name);
        buf_adds(out, ": ");
        report_md_escape(out, f->series[s].note);
        buf_addc(out, '\n');
    }
}

/* A percentile curve reads well as a table: a row per percentile, a column per side; a value
 * that rests on fewer than 10 samples beyond it is marked. A time series is summed up in a line
 * per series; other figures are drawings only. */
static void md_figure(void *ctx, const struct figure *f)
{
    struct buf *out = ctx;
    if (f->kind == FIGURE_TIMESERIES)
        md_series_notes(out, f);
    if (f->kind != FIGURE_PERCENTILES || !f->nseries)
        return;
    buf_adds(out, "\n**");
    report_md_escape(out, f->title);
    buf_adds(out, "**\n\n| Percentile |");
    for (size_t s = 0; s < f->nseries; s++) {
        buf_addc(out, ' ');
        report_md_escape(out, f->series[s].name);
        buf_adds(out, " |");
    }
    buf_adds(out, "\n| --- |");
    for (size_t s = 0; s < f->nseries; s++)
        buf_adds(out, " ---: |");
    for (size_t i = 0; i < f->series[0].n; i++) {
        buf_addf(out, "\n| p%g |", f->series[0].v[i].x);
        for (size_t s = 0; s < f->nseries; s++) {
            const struct figure_point *p = i < f->series[s].n ? &f->series[s].v[i] : NULL;
            buf_addc(out, ' ');
            if (p)
                unit_format(out, p->y, f->y.unit);
            buf_adds(out, p && p->weak ? " (few samples) |" : " |");
        }
    }
    buf_addc(out, '\n');
}

int render_md(const struct report *r, struct buf *out, struct diag *d)
{
    (void)d;
    static const struct report_walker md = {.title = md_title,
                                            .fact = md_fact,
                                            .section = md_section,
                                            .table = md_table,
                                            .figure = md_figure};
    report_walk(r, &md, out);
    return 0;
}
