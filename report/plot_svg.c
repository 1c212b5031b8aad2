/* plot_svg.c: any figure of the report model as inline SVG, for the HTML page. Two geometries:
 * bars (categories down the side, one bar per series in each, the value axis along the bottom)
 * and x/y plots (lines with markers, bands or error bars, marks), each axis linear, log or
 * nines. Nothing is fetched and there is no script; text from the inputs is escaped. */
#include "plot.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "../core/array.h"
#include "../core/fmt.h"
#include "../core/utf8.h"
#include "html_escape.h"

/* The Okabe-Ito palette: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#F0E442", "#000000"};
enum { N_COLORS = ARRAY_SIZE(palette) };

/* Geometry in SVG user units (the CSS scales the whole drawing to the page). */
enum {
    CHART_W = 760,
    LABEL_W = 230, /* bars: workload names, right-aligned against the plot */
    BARS_X0 = 240,
    BARS_X1 = 670, /* room on the right for the value of the longest bar */
    BAR_H = 16,
    BAR_GAP = 3,
    GROUP_GAP = 14,
    LINE_H = 13,
    LABEL_CHARS = 34, /* characters per line of a wrapped workload name */
    LABEL_LINES = 4,
    XY_X0 = 90, /* x/y plots: the plot area */
    XY_X1 = 730,
    XY_Y0 = 36,
    XY_Y1 = 316,
    XY_H = 372,
    MARK_ROWS = 6,    /* vertical marks' labels stack this many lines deep, then start over */
    MAX_MARKERS = 60, /* a series of more points is drawn as its line alone */
    LEGEND_ROW_H = 16,
};

static void number_attr(struct buf *out, double v)
{
    if (isfinite(v))
        fmt_plain_number(out, v);
}

static void human(struct buf *out, double v, enum unit u)
{
    struct buf tmp = BUF_INIT;
    unit_format(&tmp, v, u);
    html_escape(out, tmp.data);
    buf_release(&tmp);
}

/* ---- axes ---- */

double plot_axis_value(enum axis_scale s, double v)
{
    switch (s) {
    case SCALE_LOG:
        return v > 0 ? log10(v) : -INFINITY;
    case SCALE_NINES:
        return v < 100 ? -log10(1 - v / 100) : INFINITY;
    case SCALE_LINEAR:
    case SCALE_DATE:
        break;
    }
    return v;
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x)));
    double f = x / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

struct axis {
    const struct figure_axis *def;
    double lo, hi;    /* the ends, as plot_axis_value gives them (linear: in axis units) */
    double div;       /* linear: base units per axis unit */
    double step;      /* linear: between ticks, in axis units */
    const char *name; /* linear: the axis unit */
    double p0, p1;    /* the ends in SVG units */
};

/* An axis over [min, max] (base units) drawn from p0 to p1. Linear axes start at 0; log axes
 * span whole decades; a nines axis starts at p50. */
static void axis_init(struct axis *a, const struct figure_axis *def, double min, double max,
                      double p0, double p1)
{
    a->def = def;
    a->p0 = p0;
    a->p1 = p1;
    a->div = 1;
    a->name = "";
    if (def->scale == SCALE_LOG) {
        a->lo = floor(log10(min > 0 ? min : 1));
        a->hi = ceil(log10(max > 0 ? max : 1));
        if (a->hi <= a->lo)
            a->hi = a->lo + 1;
    } else if (def->scale == SCALE_NINES) {
        a->lo = plot_axis_value(SCALE_NINES, 50);
        a->hi = ceil(plot_axis_value(SCALE_NINES, max) - 1e-9);
        if (a->hi <= a->lo)
            a->hi = 1;
    } else if (def->scale == SCALE_DATE) {
        /* a single date sits in the middle of a day around it */
        a->lo = max > min ? min : min - 43200;
        a->hi = max > min ? max : min + 43200;
    } else {
        a->div = unit_scale(max > 0 ? max : 1, def->unit, &a->name);
        double m = max > 0 ? max / a->div : 1;
        a->step = nice_step(m / 5);
        a->lo = 0;
        a->hi = ceil(m / a->step) * a->step;
    }
}

/* The base value at the axis' end p1 (at_end) or p0: what a script maps pixels back with. */
static double axis_end_value(const struct axis *a, int at_end)
{
    double t = at_end ? a->hi : a->lo;
    switch (a->def->scale) {
    case SCALE_LOG:
        return pow(10, t);
    case SCALE_NINES:
        return 100 * (1 - pow(10, -t));
    case SCALE_LINEAR:
        return t * a->div;
    case SCALE_DATE:
        break;
    }
    return t;
}

/* Where base value v lands, clamped to the axis. */
static double axis_pos(const struct axis *a, double v)
{
    double t = a->def->scale == SCALE_LINEAR ? v / a->div : plot_axis_value(a->def->scale, v);
    t = (t - a->lo) / (a->hi - a->lo);
    t = isnan(t) || t < 0 ? 0 : t > 1 ? 1 : t;
    return a->p0 + t * (a->p1 - a->p0);
}

enum { MAX_TICKS = 24, DATE_TICKS = 5 };

/* Unix time v as a UTC date, with the time of day when asked; NUL-terminated in out. */
static void date_text(struct buf *out, double v, int with_time)
{
    time_t when = (time_t)floor(v);
    struct tm tm;
    char text[32];
    gmtime_r(&when, &tm);
    strftime(text, sizeof(text), with_time ? "%Y-%m-%d %H:%M" : "%Y-%m-%d", &tm);
    buf_add(out, text, strlen(text) + 1);
}

/* Evenly spaced dates, with the time of day when the axis spans less than two days. */
static size_t date_ticks(const struct axis *a, double *v, struct buf *labels)
{
    for (size_t i = 0; i < DATE_TICKS; i++) {
        v[i] = a->lo + (a->hi - a->lo) * (double)i / (DATE_TICKS - 1);
        date_text(labels, v[i], a->hi - a->lo < 2 * 86400);
    }
    return DATE_TICKS;
}

/* The tick values (base units) and their labels into labels (NUL-separated). */
static size_t axis_ticks(const struct axis *a, double *v, struct buf *labels)
{
    size_t n = 0;
    if (a->def->scale == SCALE_LOG) {
        for (double e = a->lo; e <= a->hi + 1e-9 && n < MAX_TICKS; e++) {
            v[n++] = pow(10, e);
            unit_format(labels, pow(10, e), a->def->unit);
            buf_addc(labels, '\0');
        }
    } else if (a->def->scale == SCALE_DATE) {
        n = date_ticks(a, v, labels);
    } else if (a->def->scale == SCALE_NINES) {
        static const double nines[] = {50, 90, 99, 99.9, 99.99, 99.999, 99.9999};
        static const char *const names[] = {"p50",    "p90",     "p99",     "p99.9",
                                            "p99.99", "p99.999", "p99.9999"};
        for (size_t i = 0; i < ARRAY_SIZE(nines); i++) {
            if (plot_axis_value(SCALE_NINES, nines[i]) > a->hi + 1e-9)
                break;
            v[n++] = nines[i];
            buf_add(labels, names[i], strlen(names[i]) + 1);
        }
    } else {
        int prec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step));
        for (double t = 0; t <= a->hi + a->step / 2 && n < MAX_TICKS; t += a->step) {
            v[n++] = t * a->div;
            buf_addf(labels, "%.*f", prec, t);
            buf_addc(labels, '\0');
        }
    }
    return n;
}

/* "Bandwidth (MiB/s)", "IOPS (k IOPS)", "Latency (log scale)", "Percentile (nines)". */
static void axis_title(struct buf *out, const struct axis *a)
{
    html_escape(out, a->def->title);
    if (a->def->scale == SCALE_LOG)
        buf_adds(out, " (log scale)");
    else if (a->def->scale == SCALE_NINES)
        buf_adds(out, " (nines)");
    else if (a->def->scale == SCALE_DATE)
        buf_adds(out, " (UTC)");
    else if (a->def->unit == UNIT_IOPS)
        buf_addf(out, " (%s%sIOPS)", a->name, *a->name ? " " : "");
    else if (a->def->unit != UNIT_NONE) {
        buf_adds(out, " (");
        html_escape(out, a->name);
        buf_addc(out, ')');
    }
}

/* Ticks and labels of a horizontal axis at y, or of a vertical one at x (vertical set). */
static void axis_draw(struct buf *out, const struct axis *a, double at, int vertical)
{
    double v[MAX_TICKS];
    struct buf labels = BUF_INIT;
    size_t n = axis_ticks(a, v, &labels);
    const char *label = labels.data;
    static const char *const scales[] = {[SCALE_LINEAR] = "linear",
                                         [SCALE_LOG] = "log",
                                         [SCALE_NINES] = "nines",
                                         [SCALE_DATE] = "date"};
    buf_addf(out, "<g class=\"axis\" data-scale=\"%s\">", scales[a->def->scale]);
    for (size_t i = 0; i < n; i++, label += strlen(label) + 1) {
        double p = axis_pos(a, v[i]);
        if (vertical)
            buf_addf(out,
                     "<line class=\"grid\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
                     "<text x=\"%.1f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"end\">",
                     at, p, XY_X1, p, at - 4, p + 3.5);
        else
            buf_addf(out,
                     "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>"
                     "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">",
                     p, at, p, at + 4, p, at + 15);
        html_escape(out, label);
        buf_adds(out, "</text>");
    }
    buf_adds(out, "</g>\n");
    buf_release(&labels);
}

/* The legend from x0 on, wrapped into rows of LEGEND_ROW_H so that it ends inside the
 * drawing; returns the height the rows after the first take (the drawing below moves down). */
static double legend(struct buf *out, const struct figure *f, double x0)
{
    double x = x0, y = 6;
    for (size_t s = 0; s < f->nseries; s++) {
        const char *name = f->series[s].name;
        double w = 30 + 7.0 * (double)strlen(name); /* about 7 units a character at 12 px */
        if (x > x0 && x + w > CHART_W) {
            x = x0;
            y += LEGEND_ROW_H;
        }
        buf_addf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>", x, y,
                 palette[s % N_COLORS]);
        buf_addf(out, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"12\">", x + 14, y + 9);
        html_escape(out, name);
        buf_adds(out, "</text>\n");
        x += w;
    }
    return y - 6;
}

/* How far the legend of f pushes the drawing down (legend's return value, not drawn). */
static double legend_height(const struct figure *f, double x0)
{
    struct buf scratch = BUF_INIT;
    double h = legend(&scratch, f, x0);
    buf_release(&scratch);
    return h;
}

/* The figure element and the SVG's opening: data-kind, data-scale="log" when an axis is. */
static void figure_open(struct buf *out, const struct figure *f, const struct axis *value,
                        double height)
{
    int log = f->x.scale == SCALE_LOG || f->y.scale == SCALE_LOG;
    buf_addf(out, "<figure class=\"chart\" data-kind=\"%s\"%s><figcaption>",
             figure_kind_name(f->kind), log ? " data-scale=\"log\"" : "");
    html_escape(out, f->title);
    buf_addf(out,
             "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %.0f\" "
             "width=\"%d\" height=\"%.0f\" role=\"img\" aria-label=\"",
             CHART_W, height, CHART_W, height);
    axis_title(out, value);
    buf_adds(out, "\">\n");
}

static void figure_close(struct buf *out, const struct figure *f)
{
    buf_adds(out, "</svg>");
    if (f->note) {
        buf_adds(out, "<p class=\"note\">");
        html_escape(out, f->note);
        buf_adds(out, "</p>");
    }
    buf_adds(out, "</figure>\n");
}

/* ---- bars ---- */

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
            while (end > start + 1 && utf8_continues((unsigned char)s[end]))
                end--;
        }
        ends[n++] = end;
        start = end;
        while (start < len && s[start] == ' ')
            start++;
    }
    return n;
}

static void category_label(struct buf *out, const char *name, double y_mid)
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

/* The end of what a bar draws: its value or the top of its error bar. */
static double bar_end(const struct figure_point *p)
{
    return isfinite(p->hi) && p->hi > p->y ? p->hi : p->y;
}

/* A bar's hover text and data attributes: the side, the mean, its spread and run count. */
static void bar_data(struct buf *out, const char *side, const struct figure_point *p, enum unit u)
{
    const struct cell *c = p->cell;
    buf_adds(out, "data-side=\"");
    html_escape(out, side);
    buf_adds(out, "\" data-value=\"");
    number_attr(out, p->y);
    buf_adds(out, "\" data-sd=\"");
    number_attr(out, c && cell_has_spread(c) ? c->sd : NAN);
    buf_adds(out, "\" data-lo=\"");
    number_attr(out, p->lo);
    buf_adds(out, "\" data-hi=\"");
    number_attr(out, p->hi);
    buf_addf(out, "\" data-n=\"%d\"><title>", c ? c->n : 0);
    html_escape(out, side);
    buf_adds(out, ": ");
    static const struct value_marks title_marks = {" \xc2\xb1 ", "", " (n=", ")", NULL, NULL};
    if (c)
        value_format(out, c, u, &title_marks);
    else
        human(out, p->y, u);
    if (isfinite(p->lo) && isfinite(p->hi)) {
        buf_adds(out, "; 95 % interval ");
        human(out, p->lo, u);
        buf_adds(out, " to ");
        human(out, p->hi, u);
    }
    buf_adds(out, "</title>");
}

static void bar(struct buf *out, const struct axis *a, const struct figure_series *s,
                const struct figure_point *p, size_t color, double y)
{
    double yc = y + BAR_H / 2.0;
    buf_addf(out,
             "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" ",
             BARS_X0, y, axis_pos(a, p->y) - BARS_X0, BAR_H, palette[color]);
    bar_data(out, s->name, p, a->def->unit);
    buf_adds(out, "</rect>\n");
    if (isfinite(p->lo) && isfinite(p->hi)) {
        double lo = axis_pos(a, p->lo), hi = axis_pos(a, p->hi);
        buf_addf(out, "<path class=\"err\" d=\"M%.2f %.1fH%.2fM%.2f %.1fV%.1fM%.2f %.1fV%.1f\"/>\n",
                 lo, yc, hi, lo, yc - 4, yc + 4, hi, yc - 4, yc + 4);
    }
    buf_addf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\">", axis_pos(a, bar_end(p)) + 5,
             yc + 3.5);
    if (p->label)
        html_escape(out, p->label);
    else
        human(out, p->y, a->def->unit);
    buf_adds(out, "</text>\n");
}

/* The point of series s in category c, or NULL. */
static const struct figure_point *category_point(const struct figure_series *s, size_t c)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].x == (double)c)
            return &s->v[i];
    return NULL;
}

static void bar_axis(struct axis *a, const struct figure *f)
{
    double lo = INFINITY, hi = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        for (size_t i = 0; i < f->series[s].n; i++) {
            const struct figure_point *p = &f->series[s].v[i];
            if (isfinite(p->y) && p->y > 0 && p->y < lo)
                lo = p->y;
            if (isfinite(p->y) && bar_end(p) > hi)
                hi = bar_end(p);
        }
    }
    axis_init(a, &f->y, lo, hi, BARS_X0, BARS_X1);
}

/* A horizontal grouped bar chart: a group per category, a bar per series, 95 % error bars. */
static void plot_bars(struct buf *out, const struct figure *f)
{
    struct axis a;
    bar_axis(&a, f);
    struct buf g = BUF_INIT;
    double y = 28, bars = (double)f->nseries * BAR_H + (double)(f->nseries - 1) * BAR_GAP;
    for (size_t c = 0; c < f->ncategories; c++) {
        size_t ends[LABEL_LINES];
        double lines = (double)wrap_label(f->categories[c], ends) * LINE_H;
        double h = bars > lines ? bars : lines;
        category_label(&g, f->categories[c], y + h / 2);
        for (size_t s = 0; s < f->nseries; s++) {
            const struct figure_point *p = category_point(&f->series[s], c);
            if (p && isfinite(p->y))
                bar(&g, &a, &f->series[s], p, s % N_COLORS,
                    y + (h - bars) / 2 + (double)s * (BAR_H + BAR_GAP));
        }
        y += h + GROUP_GAP;
    }
    double dy = legend_height(f, BARS_X0);
    figure_open(out, f, &a, y + 40 + dy);
    legend(out, f, BARS_X0);
    buf_addf(out, "<g transform=\"translate(0 %.0f)\">\n", dy);
    buf_add(out, g.data, g.len);
    buf_addf(out, "<line class=\"baseline\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
             BARS_X0, y, BARS_X1, y);
    axis_draw(out, &a, y, 0);
    buf_addf(out,
             "<text class=\"axis-title\" x=\"%d\" y=\"%.1f\" font-size=\"12\" "
             "text-anchor=\"middle\">",
             (BARS_X0 + BARS_X1) / 2, y + 34);
    axis_title(out, &a);
    buf_adds(out, "</text>\n</g>\n");
    figure_close(out, f);
    buf_release(&g);
}

/* ---- x/y plots ---- */

static void x_range(const struct figure *f, double *lo, double *hi)
{
    int any = 0;
    *lo = *hi = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        for (size_t i = 0; i < f->series[s].n; i++) {
            double x = f->series[s].v[i].x;
            if (!isfinite(x))
                continue;
            if (!any || x < *lo)
                *lo = x;
            if (!any || x > *hi)
                *hi = x;
            any = 1;
        }
    }
}

static void band(struct buf *out, const struct axis *ax, const struct axis *ay,
                 const struct figure_series *s, size_t color)
{
    buf_addf(out, "<path class=\"band\" fill=\"%s\" fill-opacity=\"0.2\" data-series=\"",
             palette[color]);
    html_escape(out, s->name);
    buf_adds(out, "\" d=\"");
    for (size_t i = 0; i < s->n; i++)
        buf_addf(out, "%c%.2f %.2f", i ? 'L' : 'M', axis_pos(ax, s->v[i].x),
                 axis_pos(ay, isfinite(s->v[i].hi) ? s->v[i].hi : s->v[i].y));
    for (size_t i = s->n; i-- > 0;)
        buf_addf(out, "L%.2f %.2f", axis_pos(ax, s->v[i].x),
                 axis_pos(ay, isfinite(s->v[i].lo) ? s->v[i].lo : s->v[i].y));
    buf_adds(out, "Z\"/>\n");
}

/* A marker with its data (x, y in base units; weak points hollow) and hover text. */
static void marker(struct buf *out, const struct figure *f, const struct axis *ax,
                   const struct axis *ay, const struct figure_series *s,
                   const struct figure_point *p, size_t color)
{
    double px = axis_pos(ax, p->x), py = axis_pos(ay, p->y);
    if (!s->band && isfinite(p->lo) && isfinite(p->hi))
        buf_addf(out, "<path class=\"err\" d=\"M%.2f %.2fV%.2fM%.2f %.2fH%.2fM%.2f %.2fH%.2f\"/>",
                 px, axis_pos(ay, p->lo), axis_pos(ay, p->hi), px - 3, axis_pos(ay, p->lo), px + 3,
                 px - 3, axis_pos(ay, p->hi), px + 3);
    buf_addf(out,
             "<circle class=\"point%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" stroke=\"%s\" "
             "fill=\"%s\" data-series=\"",
             p->weak ? " weak" : "", px, py, palette[color], p->weak ? "#fff" : palette[color]);
    html_escape(out, s->name);
    buf_adds(out, "\" data-x=\"");
    number_attr(out, p->x);
    buf_adds(out, "\" data-y=\"");
    number_attr(out, p->y);
    buf_adds(out, "\"><title>");
    html_escape(out, s->name);
    buf_adds(out, ": ");
    if (f->x.scale == SCALE_NINES) {
        buf_addf(out, "p%g", p->x);
    } else if (f->x.scale == SCALE_DATE) {
        struct buf date = BUF_INIT;
        date_text(&date, p->x, 1);
        buf_adds(out, date.data);
        buf_release(&date);
    } else {
        human(out, p->x, f->x.unit);
    }
    buf_adds(out, ", ");
    human(out, p->y, f->y.unit);
    if (p->weak)
        buf_adds(out, " (fewer than 10 samples beyond it)");
    buf_adds(out, "</title></circle>");
}

static void series_line(struct buf *out, const struct figure *f, const struct axis *ax,
                        const struct axis *ay, const struct figure_series *s, size_t color)
{
    if (s->band)
        band(out, ax, ay, s, color);
    buf_addf(out,
             "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
             "data-series=\"",
             palette[color]);
    html_escape(out, s->name);
    buf_adds(out, "\" d=\"");
    for (size_t i = 0; i < s->n; i++)
        buf_addf(out, "%c%.2f %.2f", i ? 'L' : 'M', axis_pos(ax, s->v[i].x),
                 axis_pos(ay, s->v[i].y));
    buf_adds(out, "\"/>\n");
    for (size_t i = 0; i < s->n && s->n <= MAX_MARKERS; i++) /* a long series is its line alone */
        marker(out, f, ax, ay, s, &s->v[i], color);
    buf_adds(out, "\n");
}

/* A mark's label beside x (pixels): to its right in the plot's left half, else to its left,
 * so that it stays inside the drawing. */
static void mark_label(struct buf *out, const char *label, double px, double y, double gap)
{
    int left = px > (XY_X0 + XY_X1) / 2.0;
    buf_addf(out, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" text-anchor=\"%s\">",
             left ? px - gap : px + gap, y, left ? "end" : "start");
    html_escape(out, label);
    buf_adds(out, "</text>");
}

/* A mark: a ringed point, or (y NAN) a dashed vertical line whose label is the k-th of the
 * vertical ones, one line of text lower than the one before so that labels do not overlap. */
static void mark(struct buf *out, const struct axis *ax, const struct axis *ay,
                 const struct figure_mark *m, size_t k)
{
    double px = axis_pos(ax, m->x);
    buf_adds(out, "<g class=\"mark\" data-x=\"");
    number_attr(out, m->x);
    buf_adds(out, "\">");
    if (isnan(m->y)) {
        buf_addf(out,
                 "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke-dasharray=\"4 3\"/>", px,
                 XY_Y0, px, XY_Y1);
        mark_label(out, m->label, px, XY_Y0 + 10 + (double)(k % MARK_ROWS) * LINE_H, 3);
    } else {
        double py = axis_pos(ay, m->y);
        buf_addf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"7\" fill=\"none\"/>", px, py);
        mark_label(out, m->label, px, py - 9, 9);
    }
    buf_adds(out, "</g>\n");
}

/* The axes' ends in pixels and in base units, for scripts (and tests) that read values back
 * from the drawing: x = x0 + (v - xmin) / (xmax - xmin) x (x1 - x0) on a linear axis. */
static void scale_attrs(struct buf *out, const char *name, const struct axis *a)
{
    buf_addf(out, " data-%s0=\"%g\" data-%s1=\"%g\" data-%smin=\"", name, a->p0, name, a->p1, name);
    number_attr(out, axis_end_value(a, 0));
    buf_addf(out, "\" data-%smax=\"", name);
    number_attr(out, axis_end_value(a, 1));
    buf_adds(out, "\"");
}

static void plot_xy(struct buf *out, const struct figure *f)
{
    struct axis ax, ay;
    double lo, hi;
    x_range(f, &lo, &hi);
    axis_init(&ax, &f->x, lo, hi, XY_X0, XY_X1);
    figure_y_range(f, &lo, &hi);
    axis_init(&ay, &f->y, lo, hi, XY_Y1, XY_Y0);
    double dy = legend_height(f, XY_X0);
    figure_open(out, f, &ay, XY_H + dy);
    legend(out, f, XY_X0);
    buf_addf(out, "<g transform=\"translate(0 %.0f)\">\n", dy);
    axis_draw(out, &ay, XY_X0, 1);
    buf_addf(out, "<line class=\"baseline\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", XY_X0,
             XY_Y1, XY_X1, XY_Y1);
    axis_draw(out, &ax, XY_Y1, 0);
    buf_adds(out, "<g class=\"plot\"");
    scale_attrs(out, "x", &ax);
    scale_attrs(out, "y", &ay);
    buf_adds(out, ">\n");
    for (size_t s = 0; s < f->nseries; s++)
        series_line(out, f, &ax, &ay, &f->series[s], s % N_COLORS);
    for (size_t m = 0, k = 0; m < f->nmarks; m++)
        mark(out, &ax, &ay, &f->marks[m], isnan(f->marks[m].y) ? k++ : 0);
    buf_adds(out, "</g>\n");
    buf_addf(out,
             "<text class=\"axis-title\" x=\"%d\" y=\"%d\" font-size=\"12\" "
             "text-anchor=\"middle\">",
             (XY_X0 + XY_X1) / 2, XY_H - 8);
    axis_title(out, &ax);
    buf_addf(out,
             "</text>\n<text class=\"axis-title\" font-size=\"12\" text-anchor=\"middle\" "
             "transform=\"translate(14 %d) rotate(-90)\">",
             (XY_Y0 + XY_Y1) / 2);
    axis_title(out, &ay);
    buf_adds(out, "</text>\n</g>\n");
    figure_close(out, f);
}

void plot_svg(struct buf *out, const struct figure *f)
{
    if (f->kind == FIGURE_BARS)
        plot_bars(out, f);
    else
        plot_xy(out, f);
}
