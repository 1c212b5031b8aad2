/* plot.h (private to report/): the plot writers that draw any figure of the model. */
#ifndef BDB_PLOT_H
#define BDB_PLOT_H

#include "report.h"

/* A figure as <figure class="chart" data-kind="..."> with an inline SVG drawing; a log axis
 * adds data-scale="log" and says so in its title. */
void plot_svg(struct buf *out, const struct figure *f);

/* Where a value lands on an axis: linear, log10, or nines (-log10(1 - p/100)). */
double plot_axis_value(enum axis_scale s, double v);

#endif
