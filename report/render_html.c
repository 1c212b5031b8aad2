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
#include "template.h"

/* The Okabe-Ito palette: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#F0E442", "#000000"};
enum { N_COLORS = sizeof(palette) / sizeof(palette[0]) };

/* Chart geometry in SVG user units (the CSS scales the whole drawing to the page). */
enum {
    CHART_W = 760,
    LABEL_W = 230, /* workload names, right-aligned against the plot */
    PLOT_X0 = 240,
    PLOT_X1 = 670, /* room on the right for the value of the longest bar */
    BAR_H = 16,
    BAR_GAP = 3,
    GROUP_GAP = 14,
    LINE_H = 13,
    LABEL_CHARS = 34, /* characters per line of a wrapped workload name */
    LABEL_LINES = 4,
};

static void html_escape_n(struct buf *out, const char *s, size_t n)
{
    for (const char *end = s + n; s < end; s++) {
        switch (*s) {
        case '&':
            buf_adds(out, "&amp;");
            break;
        case '<':
            buf_adds(out, "&lt;");
            break;
        case '>':
            buf_adds(out, "&gt;");
            break;
        case '"':
            buf_adds(out, "&quot;");
            break;
        case '\'':
            buf_adds(out, "&#39;");
            break;
        default:
            buf_addc(out, *s);
        }
    }
}

void html_escape(struct buf *out, const char *s)
{
    if (s)
        html_escape_n(out, s, strlen(s));
}

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
    case VERDICT_SIGNIFICANT:
        return c->value >= 1 ? "factor sig better" : "factor sig worse";
    case VERDICT_NOT_SIGNIFICANT:
        return "factor ns";
    case VERDICT_SINGLE_RUN:
        return "factor single";
    case VERDICT_NONE:
        break;
    }
    return "factor";
}

static void human(struct buf *out, double v, enum unit u)
{
    struct buf tmp = BUF_INIT;
    unit_format(&tmp, v, u);
    html_escape(out, tmp.data);
    buf_release(&tmp);
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
            const struct cell *cell = &t->cells[r * t->ncols + c];
            if (cell->kind == CELL_NUMBER) {
                number_cell(out, cell, cell_unit(t, r, c));
            } else if (cell->kind == CELL_TEXT) {
                buf_adds(out, "<td>");
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

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x)));
    double f = x / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

struct axis {
    double div;       /* base unit per axis unit */
    double max;       /* in axis units */
    double step;      /* between ticks, in axis units */
    const char *name; /* the axis unit */
};

static double bar_end(const struct cell *c)
{
    return cell_has_spread(c) ? c->value + c->sd : c->value;
}

static void axis_init(struct axis *a, const struct table *t, const struct chart *ch,
                      const struct chart_set *cs)
{
    double top = 0;
    for (size_t i = 0; i < ch->nrows; i++) {
        for (size_t s = 0; s < cs->nsides; s++) {
            const struct cell *c = &t->cells[ch->rows[i] * t->ncols + cs->sides[s]];
            if (c->kind == CELL_NUMBER && isfinite(c->value) && bar_end(c) > top)
                top = bar_end(c);
        }
    }
    a->div = unit_scale(top > 0 ? top : 1, ch->unit, &a->name);
    double m = top > 0 ? top / a->div : 1;
    a->step = nice_step(m / 5);
    a->max = ceil(m / a->step) * a->step;
}

static double axis_x(const struct axis *a, double base_value)
{
    double v = base_value / a->div;
    if (v < 0)
        v = 0;
    return PLOT_X0 + v / a->max * (PLOT_X1 - PLOT_X0);
}

/* Splits a workload name into lines of at most LABEL_CHARS bytes, at spaces where it can and
 * never inside a UTF-8 sequence; returns the number of lines, ends[] their end offsets. */
static size_t wrap_label(const char *s, size_t *ends)
{
    size_t n = 0, start = 0, len = strlen(s);
    while (start < len && n < LABEL_LINES) {
        size_t end = start + LABEL_CHARS < len ? start + LABEL_CHARS : len;
        if (end < len) {
            size_t sp = end;
            while (sp > start && s[sp] != ' ')
                sp--;
            if (sp > start)
                end = sp;
            while (end > start + 1 && ((unsigned char)s[end] & 0xC0) == 0x80)
                end--;
        }
        ends[n++] = end;
        start = end;
        while (start < len && s[start] == ' ')
            start++;
    }
    return n;
}

static void label(struct buf *out, const char *name, double y_mid)
{
    size_t ends[LABEL_LINES], n = wrap_label(name, ends), start = 0;
    double y = y_mid - (double)(n - 1) * LINE_H / 2 + 4;
    buf_addf(out, "<text x=\"%d\" text-anchor=\"end\" font-size=\"12\">", LABEL_W);
    for (size_t i = 0; i < n; i++) {
        while (name[start] == ' ')
            start++;
        buf_addf(out, "<tspan x=\"%d\" y=\"%.1f\">", LABEL_W, y + (double)i * LINE_H);
        html_escape_n(out, name + start, ends[i] - start);
        buf_adds(out, i + 1 == n && name[ends[i]] ? "…</tspan>" : "</tspan>");
        start = ends[i];
    }
    buf_adds(out, "</text>\n");
}

static void bar(struct buf *out, const struct axis *a, const char *side, const struct cell *c,
                enum unit u, size_t color, double y)
{
    double x1 = axis_x(a, c->value), yc = y + BAR_H / 2.0;
    buf_addf(out,
             "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
             "fill=\"%s\" data-side=\"",
             PLOT_X0, y, x1 - PLOT_X0, BAR_H, palette[color]);
    html_escape(out, side);
    buf_adds(out, "\" data-value=\"");
    escaped_number(out, c->value);
    buf_adds(out, "\" data-sd=\"");
    escaped_number(out, cell_has_spread(c) ? c->sd : NAN);
    buf_addf(out, "\" data-n=\"%d\"><title>", c->n);
    html_escape(out, side);
    buf_adds(out, ": ");
    static const struct value_marks title_marks = {" \xc2\xb1 ", "", " (n=", ")", NULL, NULL};
    value_format(out, c, u, &title_marks);
    buf_adds(out, "</title></rect>\n");
    if (cell_has_spread(c)) {
        double lo = axis_x(a, c->value - c->sd), hi = axis_x(a, c->value + c->sd);
        buf_addf(out, "<path class=\"err\" d=\"M%.2f %.1fH%.2fM%.2f %.1fV%.1fM%.2f %.1fV%.1f\"/>\n",
                 lo, yc, hi, lo, yc - 4, yc + 4, hi, yc - 4, yc + 4);
    }
    buf_addf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\">", axis_x(a, bar_end(c)) + 5,
             yc + 3.5);
    human(out, c->value, u);
    buf_adds(out, "</text>\n");
}

static void legend(struct buf *out, const struct table *t, const struct chart_set *cs)
{
    double x = PLOT_X0;
    for (size_t s = 0; s < cs->nsides; s++) {
        const char *name = t->cols[cs->sides[s]].name;
        buf_addf(out, "<rect x=\"%.1f\" y=\"6\" width=\"10\" height=\"10\" fill=\"%s\"/>", x,
                 palette[s % N_COLORS]);
        buf_addf(out, "<text x=\"%.1f\" y=\"15\" font-size=\"12\">", x + 14);
        html_escape(out, name);
        buf_adds(out, "</text>\n");
        x += 30 + 7.0 * (double)strlen(name);
    }
}

static void ticks(struct buf *out, const struct axis *a, double y)
{
    int prec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step));
    buf_addf(out, "<g class=\"axis\"><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", PLOT_X0,
             y, PLOT_X1, y);
    for (double v = 0; v <= a->max + a->step / 2; v += a->step) {
        double x = axis_x(a, v * a->div);
        buf_addf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>", x, y, x, y + 4);
        buf_addf(out,
                 "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%.*f"
                 "</text>",
                 x, y + 15, prec, v);
    }
    buf_adds(out, "</g>\n");
}

/* The axis title: "Bandwidth (MiB/s)", "IOPS (k IOPS)", "Mean latency (µs)". */
static void axis_title(struct buf *out, const struct chart *ch, const struct axis *a)
{
    html_escape(out, ch->metric);
    buf_adds(out, " (");
    if (ch->unit == UNIT_IOPS)
        buf_addf(out, "%s%sIOPS", a->name, *a->name ? " " : "");
    else
        html_escape(out, a->name);
    buf_addc(out, ')');
}

/* One horizontal grouped bar chart: a group per workload, a bar per compared side, ± sd. */
static void chart(struct buf *out, const struct table *t, const struct chart *ch,
                  const struct chart_set *cs)
{
    struct axis a;
    axis_init(&a, t, ch, cs);
    struct buf g = BUF_INIT;
    double y = 28;
    for (size_t i = 0; i < ch->nrows; i++) {
        size_t row = ch->rows[i], ends[LABEL_LINES];
        const char *name = t->cells[row * t->ncols + cs->key].text;
        double bars = (double)cs->nsides * BAR_H + (double)(cs->nsides - 1) * BAR_GAP;
        double lines = (double)wrap_label(name ? name : "", ends) * LINE_H;
        double h = bars > lines ? bars : lines;
        label(&g, name ? name : "", y + h / 2);
        for (size_t s = 0; s < cs->nsides; s++) {
            const struct cell *c = &t->cells[row * t->ncols + cs->sides[s]];
            if (c->kind == CELL_NUMBER && isfinite(c->value))
                bar(&g, &a, t->cols[cs->sides[s]].name, c, ch->unit, s % N_COLORS,
                    y + (h - bars) / 2 + (double)s * (BAR_H + BAR_GAP));
        }
        y += h + GROUP_GAP;
    }
    buf_adds(out, "<figure class=\"chart\"><figcaption>");
    html_escape(out, ch->metric);
    buf_addf(out,
             "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %.0f\" "
             "width=\"%d\" height=\"%.0f\" role=\"img\" aria-label=\"",
             CHART_W, y + 40, CHART_W, y + 40);
    axis_title(out, ch, &a);
    buf_adds(out, "\">\n");
    legend(out, t, cs);
    buf_add(out, g.data, g.len);
    ticks(out, &a, y);
    buf_addf(out,
             "<text class=\"axis-title\" x=\"%d\" y=\"%.1f\" font-size=\"12\" "
             "text-anchor=\"middle\">",
             (PLOT_X0 + PLOT_X1) / 2, y + 34);
    axis_title(out, ch, &a);
    buf_adds(out, "</text>\n</svg></figure>\n");
    buf_release(&g);
}

static void charts(struct buf *out, const struct table *t)
{
    struct chart_set cs;
    chart_set_init(&cs, t);
    for (size_t i = 0; i < cs.n && cs.nsides; i++)
        chart(out, t, &cs.v[i], &cs);
    chart_set_release(&cs);
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
    line_charts(ctx, t);
    table(ctx, t);
    charts(ctx, t);
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
