/* chart.h: the bar charts of a comparison table, shared by the HTML and XLSX renderers.
 * Private to report/. The layout is query/compare.c's: column 0 names the workload, column 1
 * the metric, and every later column that is not a factor holds one compared side. */
#ifndef BDB_CHART_H
#define BDB_CHART_H

#include "report.h"

struct chart {
    const char *metric; /* column 1's text: "Bandwidth" */
    enum unit unit;     /* of the metric's values */
    size_t *rows;       /* the table rows of this metric, one bar group (workload) each */
    size_t nrows, arows;
};

struct chart_set {
    struct chart *v; /* one per metric, in the order the table first shows it */
    size_t n, a;
    size_t *sides; /* the value columns, one bar each */
    size_t nsides;
};

/* Collects the charts of a table named "comparison"; other tables have none. */
void chart_set_init(struct chart_set *cs, const struct table *t);
void chart_set_release(struct chart_set *cs);

#endif
