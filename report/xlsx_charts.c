/* xlsx_charts.c: the workbook's native charts (render_xlsx.c writes the other sheets): the
 * sheet "Charts", each figure as its data block in the spreadsheet unit and an Excel chart of
 * it, and each time series as a chart sheet of its own with its data on "Series data". */
#include "xlsx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "chart.h"
#include "plot.h"

/* ---- Charts: any figure as its data block and a native chart of it ---- */

enum { CHART_ROWS = 18 }; /* a chart's height in rows at the default 480x288 px */
enum { CHART_COLS = 8 };  /* its width in columns of the default 64 px, or more */

static const char CHARTS_SHEET[] = "Charts";

/* "Bandwidth (MiB/s)": an axis title with the spreadsheet unit its numbers are in. */
static void sheet_axis_title(struct buf *out, const struct figure_axis *a)
{
    buf_adds(out, a->title);
    const char *unit = sheet_units[a->unit].name, *log = a->scale == SCALE_LOG ? "log scale" : "";
    if (!strcmp(a->title, unit))
        unit = ""; /* never "IOPS (IOPS)" */
    if (a->scale == SCALE_NINES)
        buf_adds(out, " (nines: 1 = p90, 2 = p99, 3 = p99.9)");
    else if (*unit || *log)
        buf_addf(out, " (%s%s%s)", unit, *unit && *log ? ", " : "", log);
}

/* A value of axis a as the sheet holds it: its spreadsheet unit; nines as nines. */
static double sheet_value(const struct figure_axis *a, double v)
{
    return a->scale == SCALE_NINES ? plot_axis_value(SCALE_NINES, v) : v / sheet_units[a->unit].div;
}

static void axis_setup(struct xlsx *x, lxw_chart_axis *axis, const struct figure_axis *a)
{
    struct buf title = BUF_INIT;
    sheet_axis_title(&title, a);
    chart_axis_set_name(axis, xlsx_cell_text(x, title.data));
    if (a->scale == SCALE_LOG)
        chart_axis_set_log_base(axis, 10);
    buf_release(&title);
}

/* Bars: a row per category, a column per series. Returns the last data row. */
static lxw_row_t bar_data(struct xlsx *x, lxw_worksheet *ws, lxw_row_t first,
                          const struct figure *f)
{
    for (size_t c = 0; c < f->ncategories; c++)
        xlsx_put_text(x, ws, first + (lxw_row_t)c, 0, f->categories[c], NULL);
    for (size_t s = 0; s < f->nseries; s++)
        for (size_t i = 0; i < f->series[s].n; i++) {
            const struct figure_point *p = &f->series[s].v[i];
            xlsx_put_number(x, ws, first + (lxw_row_t)p->x, (lxw_col_t)(1 + s),
                            sheet_value(&f->y, p->y), x->unit[f->y.unit]);
        }
    return first + (lxw_row_t)(f->ncategories ? f->ncategories - 1 : 0);
}

/* x/y plots: two columns (x, y) per series, its points down them. Returns the last data row. */
static lxw_row_t xy_data(struct xlsx *x, lxw_worksheet *ws, lxw_row_t first, const struct figure *f)
{
    size_t longest = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        const struct figure_series *fs = &f->series[s];
        for (size_t i = 0; i < fs->n; i++) {
            lxw_format *xf = f->x.scale == SCALE_NINES ? x->interval : x->unit[f->x.unit];
            xlsx_put_number(x, ws, first + (lxw_row_t)i, (lxw_col_t)(2 * s),
                            sheet_value(&f->x, fs->v[i].x), xf);
            xlsx_put_number(x, ws, first + (lxw_row_t)i, (lxw_col_t)(2 * s + 1),
                            sheet_value(&f->y, fs->v[i].y), x->unit[f->y.unit]);
        }
        longest = fs->n > longest ? fs->n : longest;
    }
    return first + (lxw_row_t)(longest ? longest - 1 : 0);
}

static void data_header(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, const struct figure *f)
{
    if (f->kind == FIGURE_BARS)
        xlsx_put_text(x, ws, row, 0, "Workload", x->header);
    for (size_t s = 0; s < f->nseries; s++) {
        if (f->kind == FIGURE_BARS) {
            xlsx_put_text(x, ws, row, (lxw_col_t)(1 + s), f->series[s].name, x->header);
            continue;
        }
        struct buf h = BUF_INIT;
        buf_addf(&h, "%s: %s", f->series[s].name, f->x.title);
        xlsx_put_text(x, ws, row, (lxw_col_t)(2 * s), h.data, x->header);
        xlsx_put_text(x, ws, row, (lxw_col_t)(2 * s + 1), f->y.title, x->header);
        buf_release(&h);
    }
}

/* The lowest end an error bar of f may have: an interval of a mean from few runs can reach
 * below zero, which no bandwidth or latency can be and a log axis cannot show, so the bar
 * stops at zero, or on a log axis at the power of ten below f's smallest bar (the axis' own
 * end). The CSV and JSON keep the interval as computed. */
static double error_floor(const struct figure *f)
{
    if (f->y.scale != SCALE_LOG)
        return 0;
    double min = INFINITY;
    for (size_t s = 0; s < f->nseries; s++)
        for (size_t i = 0; i < f->series[s].n; i++)
            if (f->series[s].v[i].y > 0 && f->series[s].v[i].y < min)
                min = f->series[s].v[i].y;
    return isfinite(min) ? pow(10, floor(log10(min))) : 0;
}

/* Bar series s's 95 % intervals as error bars: their plus and minus lengths in the hidden
 * helper columns of its data block (header at row), and the chart's fixed error bar marking
 * them for errbars_apply (xlsx_errbars.c says why). A series without intervals has none. */
static void bar_error_bars(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, const struct figure *f,
                           size_t s, lxw_chart_series *series)
{
    const struct figure_series *fs = &f->series[s];
    size_t n = f->ncategories, shown = 0;
    double *len = xmalloc(2 * (n ? n : 1) * sizeof(*len)), *plus = len, *minus = len + n;
    double floor_v = error_floor(f);
    for (size_t i = 0; i < 2 * n; i++)
        len[i] = NAN;
    for (size_t i = 0; i < fs->n; i++) {
        const struct figure_point *p = &fs->v[i];
        if (!isfinite(p->lo) || !isfinite(p->hi))
            continue;
        double y = sheet_value(&f->y, p->y);
        plus[(size_t)p->x] = sheet_value(&f->y, p->hi) - y;
        minus[(size_t)p->x] = y - sheet_value(&f->y, p->lo > floor_v ? p->lo : floor_v);
        shown++;
    }
    lxw_col_t col = x->helper + (lxw_col_t)(2 * s);
    for (int side = 0; shown && side < 2; side++) {
        struct buf h = BUF_INIT;
        buf_addf(&h, "%s 95%% CI %s", fs->name, side ? "minus" : "plus");
        xlsx_put_text(x, ws, row, col + side, h.data, x->header);
        buf_release(&h);
        for (size_t c = 0; c < n; c++)
            xlsx_put_number(x, ws, row + 1 + (lxw_row_t)c, col + side, len[side * n + c],
                            x->unit[f->y.unit]);
    }
    if (shown)
        chart_series_set_error_bars(
            series->x_error_bars, LXW_CHART_ERROR_BAR_TYPE_FIXED,
            errbars_add(&x->errbars, CHARTS_SHEET, row + 1, col, col + 1, plus, minus, n));
    free(len);
}

/* The native chart over the data block (header at row, data first..last). */
static lxw_chart *native_chart(struct xlsx *x, lxw_worksheet *ws, const struct figure *f,
                               lxw_row_t row, lxw_row_t first, lxw_row_t last)
{
    int bars = f->kind == FIGURE_BARS;
    lxw_chart *chart =
        workbook_add_chart(x->wb, bars ? LXW_CHART_BAR : LXW_CHART_SCATTER_STRAIGHT_WITH_MARKERS);
    chart_title_set_name(chart, xlsx_cell_text(x, f->title)); /* copies the text */
    if (bars) {
        /* libxlsxwriter swaps a bar chart's axes: x_axis is the value axis (drawn across), y_axis
         * the category axis (drawn upright). The category axis is reversed so that the first
         * workload is on top, as in the table; the value axis never is, and crossing the
         * categories at their maximum keeps it below the bars. */
        chart_axis_set_reverse(chart->y_axis);
        chart_axis_set_crossing_max(chart->y_axis);
        axis_setup(x, chart->x_axis, &f->y);
    } else {
        axis_setup(x, chart->x_axis, &f->x);
        axis_setup(x, chart->y_axis, &f->y);
    }
    for (size_t s = 0; s < f->nseries; s++) {
        lxw_chart_series *series = chart_add_series(chart, NULL, NULL);
        lxw_col_t xcol = bars ? 0 : (lxw_col_t)(2 * s), ycol = bars ? (lxw_col_t)(1 + s) : xcol + 1;
        chart_series_set_categories(series, CHARTS_SHEET, first, xcol, last, xcol);
        chart_series_set_values(series, CHARTS_SHEET, first, ycol, last, ycol);
        if (bars) {
            chart_series_set_name_range(series, CHARTS_SHEET, row, ycol);
            bar_error_bars(x, ws, row, f, s, series);
        } else {
            chart_series_set_name(series, xlsx_cell_text(x, f->series[s].name));
        }
    }
    chart_legend_set_position(chart, LXW_CHART_LEGEND_BOTTOM);
    return chart;
}

/* The columns of f's data block; its chart stands one column to the right. */
static size_t data_width(const struct figure *f)
{
    return f->kind == FIGURE_BARS ? f->nseries + 1 : 2 * f->nseries;
}

/* The figure's data (in the spreadsheet unit) and a native chart of it; returns the next row. */
static lxw_row_t figure_block(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row,
                              const struct figure *f)
{
    struct buf title = BUF_INIT;
    sheet_axis_title(&title, &f->y);
    if (f->kind != FIGURE_BARS) {
        buf_reset(&title);
        buf_adds(&title, f->title);
    }
    xlsx_put_text(x, ws, row, 0, title.data, x->bold);
    buf_release(&title);
    data_header(x, ws, row + 1, f);
    lxw_row_t first = row + 2;
    lxw_row_t last = f->kind == FIGURE_BARS ? bar_data(x, ws, first, f) : xy_data(x, ws, first, f);
    xlsx_check(x, worksheet_insert_chart(ws, row, (lxw_col_t)(data_width(f) + 1),
                                         native_chart(x, ws, f, row + 1, first, last)));
    lxw_row_t height = last - row + 2;
    return row + (height > CHART_ROWS ? height : CHART_ROWS);
}

/* The comparison's bar charts, then every figure of the page's sections. */
void xlsx_charts_sheet(struct xlsx *x, const struct report *r, const struct table *t)
{
    struct arena a = ARENA_INIT;
    struct figure **bars;
    size_t n = chart_bar_figures(t, &a, &bars);
    lxw_worksheet *ws = workbook_add_worksheet(x->wb, CHARTS_SHEET);
    xlsx_page_setup(x, ws);
    size_t widest = 1, columns = 0;
    for (size_t i = 0; i < n; i++) {
        widest = bars[i]->nseries > widest ? bars[i]->nseries : widest;
        columns = data_width(bars[i]) > columns ? data_width(bars[i]) : columns;
    }
    for (size_t i = 0; i < r->nsections; i++)
        for (size_t j = 0; j < r->sections[i].nfigures && !r->sections[i].appendix; j++)
            if (r->sections[i].figures[j]->kind != FIGURE_TIMESERIES && /* timeseries_sheets */
                data_width(r->sections[i].figures[j]) > columns)
                columns = data_width(r->sections[i].figures[j]);
    /* right of every data block and chart; hidden, as only the charts read them */
    x->helper = (lxw_col_t)(columns + 1 + CHART_COLS + 1);
    lxw_row_t row = 0;
    for (size_t i = 0; i < n; i++)
        row = figure_block(x, ws, row, bars[i]);
    for (size_t i = 0; i < r->nsections; i++)
        for (size_t j = 0; j < r->sections[i].nfigures && !r->sections[i].appendix; j++)
            if (r->sections[i].figures[j]->kind != FIGURE_TIMESERIES)
                row = figure_block(x, ws, row, r->sections[i].figures[j]);
    xlsx_check(x, worksheet_set_column(ws, 0, 0, 36, NULL));
    xlsx_check(x, worksheet_set_column(ws, 1, (lxw_col_t)(2 * widest), 16, NULL));
    lxw_row_col_options hidden = {.hidden = 1};
    xlsx_check(x, worksheet_set_column_opt(ws, x->helper, x->helper + (lxw_col_t)(2 * widest - 1),
                                           16, NULL, &hidden));
    arena_release(&a);
}

/* ---- Time series: a chart sheet each, their data on the sheet "Series data" ---- */

static const char SERIES_DATA[] = "Series data";

/* The columns of series s in a block: time and value, then min and max when it has a band. */
static lxw_col_t series_columns(const struct figure *f, size_t s)
{
    lxw_col_t c = 0;
    for (size_t i = 0; i < s; i++)
        c += f->series[i].band ? 4 : 2;
    return c;
}

/* The figure's title, a header row and its series' points from row; returns the last row. */
static lxw_row_t series_block(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row,
                              const struct figure *f)
{
    static const char *const what[] = {"time (s)", "", "min", "max"};
    lxw_row_t last = row + 2;
    xlsx_put_text(x, ws, row, 0, f->title, x->bold);
    for (size_t s = 0; s < f->nseries; s++) {
        const struct figure_series *fs = &f->series[s];
        lxw_col_t c0 = series_columns(f, s);
        for (lxw_col_t k = 0; k < (fs->band ? 4 : 2); k++) {
            struct buf h = BUF_INIT;
            buf_addf(&h, "%s: %s", fs->name, k == 1 ? f->y.title : what[k]);
            xlsx_put_text(x, ws, row + 1, c0 + k, h.data, x->header);
            buf_release(&h);
        }
        for (size_t i = 0; i < fs->n; i++) {
            const struct figure_point *p = &fs->v[i];
            const double v[] = {p->x, sheet_value(&f->y, p->y), sheet_value(&f->y, p->lo),
                                sheet_value(&f->y, p->hi)};
            for (lxw_col_t k = 0; k < (fs->band ? 4 : 2); k++)
                xlsx_put_number(x, ws, row + 2 + (lxw_row_t)i, c0 + k, v[k],
                                k ? x->unit[f->y.unit] : NULL);
        }
        if (fs->n && row + 1 + (lxw_row_t)fs->n > last)
            last = row + 1 + (lxw_row_t)fs->n;
    }
    return last;
}

/* Under a block, a line per series that says what it showed (steady state, a cliff), as the
 * Markdown and HTML reports say it; returns how many rows that took. */
static lxw_row_t series_notes(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row,
                              const struct figure *f)
{
    lxw_row_t n = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        if (!f->series[s].note)
            continue;
        struct buf line = BUF_INIT;
        buf_addf(&line, "%s: %s", f->series[s].name, f->series[s].note);
        xlsx_put_text(x, ws, row + n++, 0, line.data, NULL);
        buf_release(&line);
    }
    return n;
}

/* A line chart of the block at row (data from row + 2 to last): each series' value, and its
 * min and max as thin dashed lines when it has a band. */
static lxw_chart *series_chart(struct xlsx *x, const struct figure *f, lxw_row_t row,
                               lxw_row_t last)
{
    lxw_chart *chart = workbook_add_chart(x->wb, LXW_CHART_SCATTER_STRAIGHT);
    chart_title_set_name(chart, xlsx_cell_text(x, f->title));
    axis_setup(x, chart->x_axis, &f->x);
    axis_setup(x, chart->y_axis, &f->y);
    lxw_chart_line thin = {.width = 0.75, .dash_type = LXW_CHART_LINE_DASH_DASH};
    for (size_t s = 0; s < f->nseries; s++) {
        lxw_col_t c0 = series_columns(f, s);
        for (lxw_col_t k = 1; k < (f->series[s].band ? 4 : 2); k++) {
            lxw_chart_series *series = chart_add_series(chart, NULL, NULL);
            chart_series_set_categories(series, SERIES_DATA, row + 2, c0, last, c0);
            chart_series_set_values(series, SERIES_DATA, row + 2, c0 + k, last, c0 + k);
            chart_series_set_name_range(series, SERIES_DATA, row + 1, c0 + k);
            if (k > 1)
                chart_series_set_line(series, &thin);
        }
    }
    chart_legend_set_position(chart, LXW_CHART_LEGEND_BOTTOM);
    return chart;
}

/* Each time-series figure of r as a chart sheet of its own ("Time series 1", ...), its data on
 * the worksheet "Series data", one block under the other. */
void xlsx_timeseries_sheets(struct xlsx *x, const struct report *r)
{
    lxw_worksheet *data = NULL;
    lxw_row_t row = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->nsections; i++) {
        for (size_t j = 0; j < r->sections[i].nfigures && !r->sections[i].appendix; j++) {
            const struct figure *f = r->sections[i].figures[j];
            if (f->kind != FIGURE_TIMESERIES)
                continue;
            if (!data) {
                data = workbook_add_worksheet(x->wb, SERIES_DATA);
                xlsx_page_setup(x, data);
            }
            lxw_row_t last = series_block(x, data, row, f);
            char name[32];
            snprintf(name, sizeof(name), "Time series %zu", ++n);
            lxw_chartsheet *cs = workbook_add_chartsheet(x->wb, name);
            xlsx_check(x, chartsheet_set_chart(cs, series_chart(x, f, row, last)));
            row = last + 2 + series_notes(x, data, last + 1, f);
        }
    }
    if (data)
        xlsx_check(x, worksheet_set_column(data, 0, 255, 16, NULL));
}
