/* render_html.c: one self-contained HTML5 page: the page and its CSS come from templates (built
 * in, or --template DIR), prose goes through cmark-gfm, and tables and charts are written here.
 * Nothing is fetched and there is no script. Every text from the inputs is escaped. */
#include "report.h"

#include <cmark-gfm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fmt.h"
#include "chart.h"
#include "html_escape.h"
#include "plot.h"
#include "template.h"

static void escaped_number(struct buf *out, double v)
{
    if (isfinite(v))
        fmt_plain_number(out, v);
}

/* ---- prose ---- */

/* CMARK_OPT_DEFAULT leaves out CMARK_OPT_UNSAFE: raw HTML in prose becomes a comment and
 * javascript: links are dropped, so prose cannot inject markup either. */
static void prose(struct buf *out, const char *md)
{
    char *html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_DEFAULT);
    buf_adds(out, html);
    free(html);
}

/* ---- tables ---- */

/* Tables are written here rather than as GFM pipe tables through cmark-gfm's table extension:
 * the cells are typed, and HTML keeps what Markdown would lose: numbers right-aligned with
 * their exact value in data-value, the unit each number is shown in, the spread and run count
 * set apart, and classes that colour only significant factors (better or worse). */
static const char *factor_class(const struct cell *c)
{
    switch (c->verdict) {
    case VERDICT_SIGNIFICANT: /* coloured only when nothing casts doubt on the number */
        return c->caution      ? "factor sig caution"
               : c->value >= 1 ? "factor sig better"
                               : "factor sig worse";
    case VERDICT_EQUIVALENT:
        return "factor equivalent";
    case VERDICT_INCONCLUSIVE:
        return "factor ns";
    case VERDICT_SINGLE_RUN:
        return "factor single";
    case VERDICT_NONE:
        break;
    }
    return "factor";
}

static const struct value_marks html_marks = {" <span class=\"sd\">\xc2\xb1 ", "</span>",
                                              " <span class=\"n\">n=",         "</span>",
                                              " <span class=\"alt\">",         " IOPS</span>"};

static void number_cell(struct buf *out, const struct cell *c, enum unit u)
{
    buf_addf(out, "<td class=\"%s\" data-value=\"", u == UNIT_RATIO ? factor_class(c) : "num");
    escaped_number(out, c->value);
    if (u == UNIT_RATIO) {
        buf_adds(out, "\" data-lo=\"");
        escaped_number(out, c->lo);
        buf_adds(out, "\" data-hi=\"");
        escaped_number(out, c->hi);
    }
    buf_adds(out, "\">");
    if (c->text)
        html_escape(out, c->text);
    else
        value_format(out, c, u, &html_marks); /* our own text: digits and unit names */
    buf_adds(out, "</td>");
}

static void table(struct buf *out, const struct table *t)
{
    buf_adds(out, "<div class=\"table-wrap\"><table data-table=\"");
    html_escape(out, t->name);
    buf_adds(out, "\">\n<thead><tr>");
    for (size_t c = 0; c < t->ncols; c++) {
        buf_adds(out, "<th scope=\"col\">");
        html_escape(out, t->cols[c].name);
        buf_adds(out, "</th>");
    }
    buf_adds(out, "</tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < t->nrows; r++) {
        buf_adds(out, "<tr>");
        for (size_t c = 0; c < t->ncols; c++) {
            const struct cell *cell = table_cell(t, r, c);
            if (cell->kind == CELL_NUMBER) {
                number_cell(out, cell, cell_unit(t, r, c));
            } else if (cell->kind == CELL_TEXT) {
                /* a factor column's text says why the row has no factor: muted, never coloured */
                buf_adds(out,
                         t->cols[c].role == ROLE_FACTOR ? "<td class=\"factor none\">" : "<td>");
                html_escape(out, cell->text);
                buf_adds(out, "</td>");
            } else {
                buf_adds(out, "<td class=\"empty\">–</td>");
            }
        }
        buf_adds(out, "</tr>\n");
    }
    buf_adds(out, "</tbody>\n</table></div>\n");
}

/* ---- charts ---- */

/* The bar charts of a comparison table, drawn by the one plot writer. */
static void charts(struct buf *out, const struct table *t)
{
    struct arena a = ARENA_INIT;
    struct figure **bars;
    size_t n = chart_bar_figures(t, &a, &bars);
    for (size_t i = 0; i < n; i++)
        plot_svg(out, bars[i]);
    arena_release(&a);
}

/* ---- the page ---- */

static void page_title(void *ctx, const char *title)
{
    buf_adds(ctx, "<header>\n<h1>");
    html_escape(ctx, title);
    buf_adds(ctx, "</h1>\n<dl class=\"facts\">\n");
}

static void page_fact(void *ctx, const char *key, const char *value)
{
    buf_adds(ctx, "<dt>");
    html_escape(ctx, key);
    buf_adds(ctx, "</dt><dd>");
    html_escape(ctx, value);
    buf_adds(ctx, "</dd>\n");
}

static void page_facts_end(void *ctx)
{
    buf_adds(ctx, "</dl>\n</header>\n");
}

static void page_section(void *ctx, const struct section *s)
{
    buf_adds(ctx, "<section>\n<h2>");
    html_escape(ctx, s->heading);
    buf_adds(ctx, "</h2>\n");
    if (s->prose && *s->prose)
        prose(ctx, s->prose);
}

static void page_table(void *ctx, const struct table *t)
{
    table(ctx, t);
    charts(ctx, t);
}

static void page_figure(void *ctx, const struct figure *f)
{
    plot_svg(ctx, f);
}

static void page_section_end(void *ctx, const struct section *s)
{
    (void)s;
    buf_adds(ctx, "</section>\n");
}

static void body(struct buf *out, const struct report *r)
{
    static const struct report_walker page = {.title = page_title,
                                              .fact = page_fact,
                                              .facts_end = page_facts_end,
                                              .section = page_section,
                                              .table = page_table,
                                              .figure = page_figure,
                                              .section_end = page_section_end};
    report_walk(r, &page, out);
}

int render_html(const struct report *r, const char *template_dir, struct buf *out, struct diag *d)
{
    struct buf page = BUF_INIT, style = BUF_INIT, title = BUF_INIT, html = BUF_INIT;
    int rc = template_load(template_dir, "report.html", &page, d);
    if (rc == 0)
        rc = template_load(template_dir, "style.css", &style, d);
    if (rc == 0) {
        html_escape(&title, r->title);
        body(&html, r);
        static const char *const keys[] = {"title", "style", "body"};
        const char *const values[] = {title.data, style.data, html.data};
        rc = template_expand("report.html", page.data, keys, values, 3, out, d);
    }
    buf_release(&page);
    buf_release(&style);
    buf_release(&title);
    buf_release(&html);
    return rc;
}
