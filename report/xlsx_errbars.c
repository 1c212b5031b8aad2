/* xlsx_errbars.c: error bars of any length per point (a 95 % interval each, asymmetric for
 * ratios) in the workbook's charts.
 *
 * Why the workbook is rewritten after libxlsxwriter closed it: a chart takes such bars from
 * cell ranges (ECMA-376 CT_ErrBars: errValType "cust" with <c:plus> and <c:minus> number
 * references), and libxlsxwriter 1.1.4 writes only fixed, percentage, standard deviation and
 * standard error bars. xlsx_charts.c gives each such series a fixed error bar whose value is a
 * marker (1, 2, ...), so that libxlsxwriter writes the <c:errBars> element where the schema
 * order wants it; errbars_apply then replaces each marked fixed value with the references.
 * Debian builds libxlsxwriter against the system minizip (libminizip1), whose unzip.h/zip.h
 * read and write the zip here: no zip code of our own. Every part but the charts is copied
 * still compressed (a Results sheet of a million rows costs no inflating), the charts are
 * inflated, rewritten and deflated again. */
#include "xlsx_errbars.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unzip.h>
#include <zip.h>

#include "../core/xalloc.h"

/* What libxlsxwriter writes for a fixed error bar, up to its value (CT_ErrBars: errBarType,
 * errValType, then val). */
static const char FIXED[] = "<c:errValType val=\"fixedVal\"/><c:val val=\"";

/* "'Charts'!$B$3:$B$9": a sheet name quoted for a formula, escaped for XML. */
static void range_ref(struct buf *out, const char *sheet, lxw_row_t first, lxw_row_t last,
                      lxw_col_t col)
{
    char range[LXW_MAX_CELL_RANGE_LENGTH];
    lxw_rowcol_to_range_abs(range, first, col, last, col);
    buf_addc(out, '\'');
    for (const char *p = sheet; *p; p++) {
        if (*p == '\'')
            buf_adds(out, "''");
        else if (*p == '&')
            buf_adds(out, "&amp;");
        else if (*p == '<')
            buf_adds(out, "&lt;");
        else
            buf_addc(out, *p);
    }
    buf_addf(out, "'!%s", range);
}

/* <c:plus> or <c:minus>: the range and, as Excel writes them, its values (NAN: an empty cell). */
static void number_ref(struct buf *out, const char *tag, const char *sheet, lxw_row_t first,
                       lxw_col_t col, const double *v, size_t n)
{
    buf_addf(out, "<c:%s><c:numRef><c:f>", tag);
    range_ref(out, sheet, first, first + (lxw_row_t)(n ? n - 1 : 0), col);
    buf_addf(out, "</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val=\"%zu\"/>",
             n);
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            buf_addf(out, "<c:pt idx=\"%zu\"><c:v>%.17g</c:v></c:pt>", i, v[i]);
    buf_addf(out, "</c:numCache></c:numRef></c:%s>", tag);
}

double errbars_add(struct errbars *e, const char *sheet, lxw_row_t first, lxw_col_t plus_col,
                   lxw_col_t minus_col, const double *plus, const double *minus, size_t n)
{
    ALLOC_GROW(e->custom, e->n, e->a);
    struct buf *xml = &e->custom[e->n++];
    buf_init(xml);
    buf_adds(xml, "<c:errValType val=\"cust\"/>");
    number_ref(xml, "plus", sheet, first, plus_col, plus, n);
    number_ref(xml, "minus", sheet, first, minus_col, minus, n);
    return (double)e->n;
}

void errbars_release(struct errbars *e)
{
    for (size_t i = 0; i < e->n; i++)
        buf_release(&e->custom[i]);
    free(e->custom);
    *e = (struct errbars)ERRBARS_INIT;
}

/* A chart part (NUL-terminated) with each marked fixed error bar replaced by its custom one;
 * -1 when a fixed error bar carries no marker of e's. */
static int replace_markers(const struct errbars *e, const char *xml, struct buf *out)
{
    const char *p = xml, *hit;
    while ((hit = strstr(p, FIXED))) {
        buf_add(out, p, (size_t)(hit - p));
        const char *q = hit + sizeof(FIXED) - 1;
        size_t k = 0;
        while (*q >= '0' && *q <= '9' && k <= e->n)
            k = k * 10 + (size_t)(*q++ - '0');
        if (k == 0 || k > e->n || strncmp(q, "\"/>", 3))
            return -1;
        buf_add(out, e->custom[k - 1].data, e->custom[k - 1].len);
        p = q + 3;
    }
    buf_adds(out, p);
    return 0;
}

/* The zip header fields of the part being copied, as the source has them. */
static zip_fileinfo entry_info(const unz_file_info64 *info)
{
    zip_fileinfo zi;
    memset(&zi, 0, sizeof(zi));
    zi.tmz_date.tm_sec = info->tmu_date.tm_sec;
    zi.tmz_date.tm_min = info->tmu_date.tm_min;
    zi.tmz_date.tm_hour = info->tmu_date.tm_hour;
    zi.tmz_date.tm_mday = info->tmu_date.tm_mday;
    zi.tmz_date.tm_mon = info->tmu_date.tm_mon;
    zi.tmz_date.tm_year = info->tmu_date.tm_year;
    zi.dosDate = info->dosDate;
    zi.internal_fa = info->internal_fa;
    zi.external_fa = info->external_fa;
    return zi;
}

/* A part as it is, still compressed. */
static int copy_raw(unzFile in, zipFile out, const char *name, const unz_file_info64 *info)
{
    int method, level, n, rc = 0;
    char chunk[65536];
    zip_fileinfo zi = entry_info(info);
    if (unzOpenCurrentFile2(in, &method, &level, 1) != UNZ_OK)
        return -1;
    if (zipOpenNewFileInZip2_64(out, name, &zi, NULL, 0, NULL, 0, NULL, method, level, 1,
                                info->uncompressed_size >= 0xffffffffu) != ZIP_OK)
        rc = -1;
    while (rc == 0 && (n = unzReadCurrentFile(in, chunk, sizeof(chunk))) > 0)
        rc = zipWriteInFileInZip(out, chunk, (unsigned)n) == ZIP_OK ? 0 : -1;
    if (rc == 0 && (n < 0 || zipCloseFileInZipRaw64(out, info->uncompressed_size, info->crc)))
        rc = -1;
    return unzCloseCurrentFile(in) == UNZ_OK ? rc : -1;
}

/* A chart part inflated, its markers replaced, deflated again. */
static int copy_chart(unzFile in, zipFile out, const char *name, const unz_file_info64 *info,
                      const struct errbars *e)
{
    struct buf xml = BUF_INIT, done = BUF_INIT;
    char chunk[65536];
    int n, rc = unzOpenCurrentFile(in) == UNZ_OK ? 0 : -1;
    while (rc == 0 && (n = unzReadCurrentFile(in, chunk, sizeof(chunk))) > 0)
        buf_add(&xml, chunk, (size_t)n);
    if (rc == 0 && (unzCloseCurrentFile(in) != UNZ_OK || replace_markers(e, xml.data, &done)))
        rc = -1;
    zip_fileinfo zi = entry_info(info);
    if (rc == 0 && zipOpenNewFileInZip64(out, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
                                         Z_DEFAULT_COMPRESSION, 0) != ZIP_OK)
        rc = -1;
    if (rc == 0 && (zipWriteInFileInZip(out, done.data, (unsigned)done.len) != ZIP_OK ||
                    zipCloseFileInZip(out) != ZIP_OK))
        rc = -1;
    buf_release(&xml);
    buf_release(&done);
    return rc;
}

/* Every part of in into out, in order. */
static int copy_parts(unzFile in, zipFile out, const struct errbars *e)
{
    int rc = unzGoToFirstFile(in) == UNZ_OK ? 0 : -1;
    while (rc == 0) {
        char name[512];
        unz_file_info64 info;
        if (unzGetCurrentFileInfo64(in, &info, name, sizeof(name), NULL, 0, NULL, 0) != UNZ_OK)
            return -1;
        if (!strncmp(name, "xl/charts/chart", 15))
            rc = copy_chart(in, out, name, &info, e);
        else
            rc = copy_raw(in, out, name, &info);
        int next = unzGoToNextFile(in);
        if (next == UNZ_END_OF_LIST_OF_FILE)
            break;
        if (next != UNZ_OK)
            rc = -1;
    }
    return rc;
}

int errbars_apply(const struct errbars *e, const char *path, struct diag *d)
{
    if (!e->n)
        return 0;
    struct buf tmp = BUF_INIT;
    buf_addf(&tmp, "%s.errbars", path);
    unzFile in = unzOpen64(path);
    zipFile out = in ? zipOpen64(tmp.data, APPEND_STATUS_CREATE) : NULL;
    int rc = in && out ? copy_parts(in, out, e) : -1;
    if (out && zipClose(out, NULL) != ZIP_OK)
        rc = -1;
    if (in)
        unzClose(in);
    if (rc == 0 && rename(tmp.data, path))
        rc = diag_error(d, "cannot write '%s': %s", path, strerror(errno));
    else if (rc)
        diag_error(d, "cannot write '%s': cannot add the error bars to its charts", path);
    if (rc)
        remove(tmp.data);
    buf_release(&tmp);
    return rc;
}
