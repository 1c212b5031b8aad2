/* line_chart.c: a series over time as an SVG line chart for the HTML page (benchdb trend):
 * x is the run's start time, y its value from 0 (a level is read against zero, as a bar
 * would be), and each change point a dashed vertical line with its phrase as a tooltip. */
#include <math.h>
#include <string.h>

#include "../core/timerange.h"
#include "chart.h"

enum {
    LINE_W = 640,
    LINE_H = 180,
    X0 = 70, /* room for the y labels */
    X1 = 620,
    Y0 = 16,
    Y1 = 150,
};

struct line_cols {
    size_t key, time, value, change;
};

static const char *text_at(const struct table *t, size_t row, size_t col)
{
    const struct cell *c = &t->cells[row * t->ncols + col];
    return c->kind == CELL_TEXT && c->text ? c->text : "";
}

static int64_t time_at(const struct table *t, size_t row, size_t col)
{
    int64_t when = 0;
    const char *why;
    return parse_iso_time(text_at(t, row, col), TIME_LOWER, &when, &why) ? 0 : when;
}

/* The plot's scales for rows [first, end). */
struct line_scale {
    int64_t t0, t1;
    double ymax;
};

static struct line_scale scale(const struct table *t, const struct line_cols *lc, size_t first,
                               size_t end)
{
    struct line_scale s = {time_at(t, first, lc->time), time_at(t, end - 1, lc->time), 0};
    for (size_t r = first; r < end; r++) {
        const struct cell *c = &t->cells[r * t->ncols + lc->value];
        if (c->kind == CELL_NUMBER && isfinite(c->value) && c->value > s.ymax)
            s.ymax = c->value;
    }
    s.ymax = s.ymax > 0 ? s.ymax * 1.1 : 1;
    return s;
}

static double x_of(const struct line_scale *s, int64_t when)
{
    if (s->t1 == s->t0)
        return (X0 + X1) / 2.0;
    return X0 + (double)(when - s->t0) / (double)(s->t1 - s->t0) * (X1 - X0);
}

static double y_of(const struct line_scale *s, double v)
{
    return Y1 - v / s->ymax * (Y1 - Y0);
}

/* The y axis: 0, half and the top, in the values' human unit; the first and last dates. */
static void axes(struct buf *out, const struct table *t, const struct line_cols *lc,
                 const struct line_scale *s, size_t first, size_t end)
{
    enum unit u = cell_unit(t, first, lc->value);
    for (int i = 0; i <= 2; i++) {
        double v = s->ymax * i / 2, y = y_of(s, v);
        struct buf label = BUF_INIT;
        unit_format(&label, v, u);
        buf_addf(out,
                 "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                 "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">",
                 X0, X1, y, y, X0 - 6, y + 4);
        html_escape(out, label.data);
        buf_adds(out, "</text>\n");
        buf_release(&label);
    }
    const char *dates[] = {text_at(t, first, lc->time), text_at(t, end - 1, lc->time)};
    const char *anchor[] = {"start", "end"};
    for (int i = 0; i < 2; i++) {
        buf_addf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"%s\">", i ? X1 : X0,
                 LINE_H - 8, anchor[i]);
        html_escape(out, dates[i]);
        buf_adds(out, "</text>\n");
    }
}

/* The values as a polyline with a dot per run; a change point's run gets a dashed line. */
static void marks(struct buf *out, const struct table *t, const struct line_cols *lc,
                  const struct line_scale *s, size_t first, size_t end)
{
    buf_adds(out, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
    for (size_t r = first; r < end; r++) {
        const struct cell *c = &t->cells[r * t->ncols + lc->value];
        if (c->kind == CELL_NUMBER && isfinite(c->value))
            buf_addf(out, "%.1f,%.1f ", x_of(s, time_at(t, r, lc->time)), y_of(s, c->value));
    }
    buf_adds(out, "\"/>\n");
    for (size_t r = first; r < end; r++) {
        double x = x_of(s, time_at(t, r, lc->time));
        const char *change = text_at(t, r, lc->change);
        if (!*change)
            continue;
        buf_addf(out,
                 "<line class=\"change-point\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                 "stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>",
                 x, x, Y0, Y1);
        html_escape(out, text_at(t, r, lc->time));
        buf_adds(out, ": ");
        html_escape(out, change);
        buf_adds(out, "</title></line>\n");
    }
}

static void line_chart(struct buf *out, const struct table *t, const struct line_cols *lc,
                       size_t first, size_t end)
{
    struct line_scale s = scale(t, lc, first, end);
    buf_adds(out, "<figure class=\"chart\"><figcaption>");
    html_escape(out, text_at(t, first, lc->key));
    buf_addf(out,
             "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
             "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
             LINE_W, LINE_H, LINE_W, LINE_H);
    html_escape(out, text_at(t, first, lc->key));
    buf_adds(out, " over time\">\n");
    axes(out, t, lc, &s, first, end);
    marks(out, t, lc, &s, first, end);
    buf_adds(out, "</svg></figure>\n");
}

void line_charts(struct buf *out, const struct table *t)
{
    struct line_cols lc = {table_find_role(t, ROLE_KEY), table_find_role(t, ROLE_TIME),
                           table_find_role(t, ROLE_VALUE), table_find_role(t, ROLE_CHANGE)};
    if (lc.key == t->ncols || lc.time == t->ncols || lc.value == t->ncols || lc.change == t->ncols)
        return;
    for (size_t first = 0, end; first < t->nrows; first = end) {
        const char *key = text_at(t, first, lc.key);
        for (end = first + 1; end < t->nrows && !strcmp(text_at(t, end, lc.key), key); end++)
            ;
        line_chart(out, t, &lc, first, end);
    }
}
