/* xlsx.h (private to report/): the workbook render_xlsx.c writes, shared with the file that
 * draws its native charts (xlsx_charts.c): the spreadsheet units, the formats, and the cell
 * writers every sheet uses. */
#ifndef BDB_XLSX_H
#define BDB_XLSX_H

#include <xlsxwriter.h>

#include "../core/buf.h"
#include "report.h"
#include "xlsx_errbars.h"

enum { N_UNITS = UNIT_BITS_S + 1 };

/* The one spreadsheet unit of each kind of value (render_xlsx.c's opening comment says why). */
struct sheet_unit {
    double div;         /* base units per spreadsheet unit */
    const char *format; /* Excel number format */
    const char *name;
};
extern const struct sheet_unit sheet_units[N_UNITS];

struct xlsx {
    lxw_workbook *wb;
    lxw_format *title, *bold, *header, *wrap, *count, *interval, *better, *worse;
    lxw_format *unit[N_UNITS];
    lxw_error err;          /* the first failed write */
    struct buf clean;       /* the text of the last cell written, as xlsx_cell_text made it */
    struct errbars errbars; /* the charts' interval error bars, put in after workbook_close */
    lxw_col_t helper;       /* the Charts sheet's first hidden column: error bar lengths */
};

/* Keeps e in x->err when it is the first failed write. */
void xlsx_check(struct xlsx *x, lxw_error e);
/* s as a cell can hold it (render_xlsx.c says how); valid until the next call. */
const char *xlsx_cell_text(struct xlsx *x, const char *s);
void xlsx_put_text(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, const char *s,
                   lxw_format *f);
/* Writes v unless it is not finite (the cell stays empty). */
void xlsx_put_number(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, double v,
                     lxw_format *f);
/* Every sheet's page: landscape A4, fitted to the page width, first row repeated. */
void xlsx_page_setup(struct xlsx *x, lxw_worksheet *ws);
/* A sheet that is one table: header frozen (and frozen_cols columns), autofilter on, columns
 * fitted. */
void xlsx_table_sheet(struct xlsx *x, const char *name, const struct table *t,
                      lxw_col_t frozen_cols);

/* ---- xlsx_capacity.c ---- */
/* The sheets Inputs, Capacity and Capacity points of a report with a Capacity section (its
 * capacity, capacity_points, capacity_targets and capacity_costs tables): 1, or 0 (nothing
 * written) when it has none. */
int xlsx_capacity_sheets(struct xlsx *x, const struct report *r);

/* ---- xlsx_charts.c ---- */
/* The sheet "Charts": comparison table t's bar charts, then every figure of r's sections but
 * the time series, each as its data block and a native chart of it. */
void xlsx_charts_sheet(struct xlsx *x, const struct report *r, const struct table *t);
/* Each time-series figure of r as a chart sheet of its own, their data on "Series data". */
void xlsx_timeseries_sheets(struct xlsx *x, const struct report *r);

#endif
