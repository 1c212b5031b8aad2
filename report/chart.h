/* chart.h: the bar charts of a comparison table, shared by the HTML and XLSX renderers.
 * Private to report/. The columns' roles say the layout: the ROLE_KEY column names a bar group
 * (the workload), the ROLE_METRIC column the chart, and each ROLE_SIDE column is one bar. */
#ifndef BDB_CHART_H
#define BDB_CHART_H

#include "report.h"

struct chart {
    const char *metric; /* the metric column's text: "Bandwidth" */
    enum unit unit;     /* of the metric's values */
    size_t *rows;       /* the table rows of this metric, one bar group (workload) each */
    size_t nrows, arows;
};

struct chart_set {
    struct chart *v; /* one per metric, in the order the table first shows it */
    size_t n, a;
    size_t key;    /* the column naming each bar group */
    size_t *sides; /* the value columns, one bar each */
    size_t nsides;
};

/* Collects the charts of a table with a metric column and side columns; others have none. */
void chart_set_init(struct chart_set *cs, const struct table *t);
void chart_set_release(struct chart_set *cs);

/* The bar figures of a table, one per chart of chart_set_init, made in arena a: categories are
 * the workloads, a series per side, error bars the 95 % intervals of the means; the value axis
 * is log exactly when the bars' values span more than FIGURE_LOG_SPAN (figure_fit_scale).
 * Returns how many, *out their array (in a). */
size_t chart_bar_figures(const struct table *t, struct arena *a, struct figure ***out);

#endif
