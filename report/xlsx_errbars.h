/* xlsx_errbars.h (private to report/): error bars of any length per point in xlsx_charts.c's
 * charts, which libxlsxwriter 1.1.4 cannot write itself (xlsx_errbars.c says how). */
#ifndef BDB_XLSX_ERRBARS_H
#define BDB_XLSX_ERRBARS_H

#include <stddef.h>
#include <xlsxwriter.h>

#include "../core/buf.h"
#include "../core/diag.h"

/* The <c:errBars> contents still to be put into the workbook, one per marked series. */
struct errbars {
    struct buf *custom; /* custom[k]: what replaces the fixed error bar marked k + 1 */
    size_t n, a;
};

#define ERRBARS_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Records a series' error bars whose plus and minus lengths stand in the sheet's columns
 * plus_col and minus_col from row first on (n rows; plus[i], minus[i] as written there, NAN
 * where a cell is empty). Returns the marker to give that series as its fixed error bar
 * value: errbars_apply replaces the fixed bar with these. */
double errbars_add(struct errbars *e, const char *sheet, lxw_row_t first, lxw_col_t plus_col,
                   lxw_col_t minus_col, const double *plus, const double *minus, size_t n);
/* Rewrites the workbook at path (closed) so that each marked fixed error bar becomes its custom
 * one; nothing to do without any. 0, or -1 after a message. */
int errbars_apply(const struct errbars *e, const char *path, struct diag *d);
void errbars_release(struct errbars *e);

#endif
