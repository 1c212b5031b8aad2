/* render_xlsx.c: the report as an Excel workbook (libxlsxwriter): Summary, Comparison, and the
 * Runs and Results appendix tables, the cells every sheet writes, and the workbook itself; the
 * Charts sheet and the time-series chart sheets are xlsx_charts.c's.
 *
 * Units: the Comparison and Charts sheets hold numbers in one spreadsheet unit per kind of
 * value (MiB/s, IOPS, µs, MiB), whatever their size, so that a column can be sorted and summed;
 * each cell's number format shows the unit ("#,##0.0 "MiB/s""). Runs and Results keep the
 * database's base units, which their column names state (bw_bytes_s, clat_p99_ns).
 *
 * Text from the inputs is only ever written with worksheet_write_string, which stores a string
 * and never a formula; the only formulas are the conditional-format rules written below. */
#include "report.h"

#include <cmark-gfm.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "xlsx.h"

const struct sheet_unit sheet_units[N_UNITS] = {
    [UNIT_NONE] = {1, "General", ""},
    [UNIT_BYTES_S] = {1048576, "#,##0.0 \"MiB/s\"", "MiB/s"},
    [UNIT_BYTES] = {1048576, "#,##0.0 \"MiB\"", "MiB"},
    [UNIT_IOPS] = {1, "#,##0 \"IOPS\"", "IOPS"},
    [UNIT_NS] = {1000, "#,##0.00 \"\xc2\xb5s\"", "\xc2\xb5s"},
    [UNIT_RATIO] = {1, "0.00\"x\"", "x"},
    [UNIT_PERCENT] = {1, "0.0\"%\"", "%"},
    [UNIT_BITS_S] = {1e9, "#,##0.00 \"Gbit/s\"", "Gbit/s"},
};

/* Files carry this creation date when the report states no time (SOURCE_DATE_EPOCH unset), so
 * the same database gives the same bytes: 2000-01-01T00:00:00Z. */
static const time_t FIXED_CREATED = 946684800;

enum { WIDTH_MIN = 6, WIDTH_MAX = 60, PROSE_WIDTH = 100 };
enum { CELL_CHARS_MAX = 32767 }; /* Excel's limit on the characters of a cell */

/* How one column of the model spreads over the sheet: a value with its spread, a factor with
 * its interval and verdict, or a plain column. */
/* COL_VALUE_ALT: values with a second view beside them (IOPS beside bandwidth) */
enum col_kind { COL_PLAIN, COL_VALUE, COL_VALUE_ALT, COL_FACTOR };

struct sheet_table {
    const struct table *t;
    enum col_kind *kind;
    lxw_col_t *first; /* the sheet column of each model column */
    lxw_col_t ncols;  /* sheet columns in all */
    double *width;    /* fitted width of each sheet column */
};

void xlsx_check(struct xlsx *x, lxw_error e)
{
    if (e && !x->err)
        x->err = e;
}

/* Display width of UTF-8 text: one per code point. */
static double text_width(const char *s)
{
    return (double)utf8_count(s, strlen(s));
}

static void fit(struct sheet_table *st, lxw_col_t col, double w)
{
    if (w + 2 > st->width[col])
        st->width[col] = w + 2 > WIDTH_MAX ? WIDTH_MAX : w + 2;
}

/* Whether the well-formed n-byte sequence at s is a character XML 1.0 allows: not a C0 control
 * but tab and newline, not U+FFFE or U+FFFF. */
static int xml_char(const unsigned char *s, int n)
{
    if (n == 1)
        return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n';
    return !(n == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE);
}

/* s as a cell can hold it. Text from the inputs may be any bytes, and libxlsxwriter writes them
 * as they are, so one bad byte makes the workbook unreadable: an ill-formed UTF-8 sequence and
 * U+FFFE/U+FFFF become U+FFFD, other C0 controls are dropped. Text longer than Excel's
 * 32,767-character limit (which libxlsxwriter refuses) is cut to that many characters, the last
 * an ellipsis. Returns x->clean's text, valid until the next call. */
const char *xlsx_cell_text(struct xlsx *x, const char *s)
{
    static const char replacement[] = "\xEF\xBF\xBD", ellipsis[] = "\xE2\x80\xA6";
    size_t chars = 0, cut = 0;
    buf_reset(&x->clean);
    for (const unsigned char *p = (const unsigned char *)s; *p && chars <= CELL_CHARS_MAX;) {
        int n = utf8_len(p);
        if (chars == CELL_CHARS_MAX - 1)
            cut = x->clean.len;
        if (n == 1 && !xml_char(p, n)) {
            p++;
            continue;
        }
        if (n > 0 && xml_char(p, n))
            buf_add(&x->clean, p, (size_t)n);
        else
            buf_adds(&x->clean, replacement);
        p += n > 0 ? n : -n;
        chars++;
    }
    if (chars > CELL_CHARS_MAX) {
        x->clean.len = cut; /* back to a character boundary */
        x->clean.data[cut] = '\0';
        buf_adds(&x->clean, ellipsis);
    }
    return x->clean.data;
}

void xlsx_put_text(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, const char *s,
                   lxw_format *f)
{
    xlsx_check(x, worksheet_write_string(ws, row, col, xlsx_cell_text(x, s), f));
}

void xlsx_put_number(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, double v,
                     lxw_format *f)
{
    if (isfinite(v))
        xlsx_check(x, worksheet_write_number(ws, row, col, v, f));
}

static void formats(struct xlsx *x)
{
    x->title = workbook_add_format(x->wb);
    format_set_bold(x->title);
    format_set_font_size(x->title, 14);
    x->bold = workbook_add_format(x->wb);
    format_set_bold(x->bold);
    format_set_align(x->bold, LXW_ALIGN_VERTICAL_TOP);
    x->header = workbook_add_format(x->wb);
    format_set_bold(x->header);
    format_set_bg_color(x->header, 0xE7ECF0);
    format_set_bottom(x->header, LXW_BORDER_THIN);
    x->wrap = workbook_add_format(x->wb);
    format_set_text_wrap(x->wrap);
    format_set_align(x->wrap, LXW_ALIGN_VERTICAL_TOP);
    x->count = workbook_add_format(x->wb);
    format_set_num_format(x->count, "0");
    x->interval = workbook_add_format(x->wb);
    format_set_num_format(x->interval, "0.00");
    for (int u = 0; u < N_UNITS; u++) {
        x->unit[u] = workbook_add_format(x->wb);
        format_set_num_format(x->unit[u], sheet_units[u].format);
    }
    /* conditional formats: Excel overlays only colours and font style */
    x->better = workbook_add_format(x->wb);
    format_set_bg_color(x->better, 0xC6EFCE);
    format_set_font_color(x->better, 0x006100);
    x->worse = workbook_add_format(x->wb);
    format_set_bg_color(x->worse, 0xFFC7CE);
    format_set_font_color(x->worse, 0x9C0006);
}

/* ---- typed tables ---- */

static enum col_kind column_kind(const struct table *t, size_t c)
{
    if (t->cols[c].role == ROLE_FACTOR)
        return COL_FACTOR;
    if (t->cols[c].role != ROLE_SIDE)
        return COL_PLAIN;
    for (size_t r = 0; r < t->nrows; r++) {
        const struct cell *v = table_cell(t, r, c);
        if (v->kind == CELL_NUMBER && isfinite(v->alt))
            return COL_VALUE_ALT;
    }
    return COL_VALUE;
}

static void layout(struct sheet_table *st, const struct table *t)
{
    static const lxw_col_t span[] = {
        [COL_PLAIN] = 1, [COL_VALUE] = 3, [COL_VALUE_ALT] = 4, [COL_FACTOR] = 4};
    st->t = t;
    st->kind = xcalloc(t->ncols, sizeof(*st->kind));
    st->first = xcalloc(t->ncols, sizeof(*st->first));
    st->ncols = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        st->kind[c] = column_kind(t, c);
        st->first[c] = st->ncols;
        st->ncols += span[st->kind[c]];
    }
    st->width = xcalloc(st->ncols, sizeof(*st->width));
    for (lxw_col_t c = 0; c < st->ncols; c++)
        st->width[c] = WIDTH_MIN;
}

static void layout_release(struct sheet_table *st)
{
    free(st->kind);
    free(st->first);
    free(st->width);
}

static void header(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, struct sheet_table *st)
{
    static const char *const value_sub[] = {"sd", "n", "IOPS"};
    static const char *const factor_sub[] = {"95% CI low", "95% CI high", "verdict"};
    struct buf h = BUF_INIT;
    for (size_t c = 0; c < st->t->ncols; c++) {
        const char *name = st->t->cols[c].name;
        lxw_col_t col = st->first[c];
        xlsx_put_text(x, ws, row, col, name, x->header);
        fit(st, col, text_width(name) + 2); /* the autofilter button */
        static const size_t nsubs[] = {
            [COL_PLAIN] = 0, [COL_VALUE] = 2, [COL_VALUE_ALT] = 3, [COL_FACTOR] = 3};
        for (size_t i = 0; i < nsubs[st->kind[c]]; i++) {
            buf_reset(&h);
            buf_addf(&h, "%s %s", name, st->kind[c] == COL_FACTOR ? factor_sub[i] : value_sub[i]);
            xlsx_put_text(x, ws, row, col + 1 + (lxw_col_t)i, h.data, x->header);
            fit(st, col + 1 + (lxw_col_t)i, text_width(h.data) + 2);
        }
    }
    buf_release(&h);
}

/* A number in the spreadsheet unit of u; the width is that of its shown text. */
static void number(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                   struct sheet_table *st, double v, enum unit u)
{
    double shown = v / sheet_units[u].div;
    xlsx_put_number(x, ws, row, col, shown, x->unit[u]);
    char tmp[64];
    int n = snprintf(tmp, sizeof(tmp), "%.2f", shown);
    fit(st, col, n + 1.3 * (double)n / 3 + text_width(sheet_units[u].name) + 1);
}

static void cell(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, struct sheet_table *st, size_t r,
                 size_t c)
{
    const struct cell *v = table_cell(st->t, r, c);
    lxw_col_t col = st->first[c];
    enum unit u = cell_unit(st->t, r, c);
    if (v->kind == CELL_TEXT) {
        xlsx_put_text(x, ws, row, col, v->text, NULL);
        fit(st, col, text_width(v->text));
    } else if (v->kind == CELL_NUMBER) {
        number(x, ws, row, col, st, v->value, u);
    }
    if ((st->kind[c] == COL_VALUE || st->kind[c] == COL_VALUE_ALT) && v->kind == CELL_NUMBER) {
        if (v->text) /* "13-15 ms (typed range)": the number is its midpoint, never alone */
            xlsx_check(x, worksheet_write_comment(ws, row, col, xlsx_cell_text(x, v->text)));
        if (cell_has_spread(v))
            number(x, ws, row, col + 1, st, v->sd, u);
        if (v->n > 0)
            xlsx_put_number(x, ws, row, col + 2, v->n, x->count);
        if (isfinite(v->alt))
            number(x, ws, row, col + 3, st, v->alt, UNIT_IOPS);
    } else if (st->kind[c] == COL_FACTOR && v->kind == CELL_NUMBER) {
        xlsx_put_number(x, ws, row, col + 1, v->lo, x->interval);
        xlsx_put_number(x, ws, row, col + 2, v->hi, x->interval);
        /* the words md and html show: a direction, or what an inconclusive verdict needs, and
         * any caution, so that no reader of the sheet loses them */
        struct buf verdict = BUF_INIT;
        if (v->text && (v->verdict == VERDICT_INCONCLUSIVE || v->verdict == VERDICT_EQUIVALENT)) {
            buf_adds(&verdict, v->text);
        } else {
            buf_adds(&verdict, v->direction ? v->direction : verdict_text(v->verdict));
            if (v->caution)
                buf_addf(&verdict, "; caution: %s", v->caution);
        }
        xlsx_put_text(x, ws, row, col + 3, verdict.data, NULL);
        fit(st, col + 3, text_width(verdict.data));
        buf_release(&verdict);
    }
}

/* Colours a factor only when its verdict column says it is significant (a verdict that names
 * its direction: "2.60x faster", never "inconclusive" or "single run") and casts no doubt on
 * it (no "caution"): green when the candidate is better (factor > 1), red when worse. The rule
 * reads the verdict column of its row. */
static void factor_rules(struct xlsx *x, lxw_worksheet *ws, lxw_row_t first, lxw_row_t last,
                         lxw_col_t col, lxw_col_t verdict)
{
    char fcol[16], vcol[16], formula[160];
    lxw_col_to_name(fcol, col, 0);
    lxw_col_to_name(vcol, verdict, 1);
    for (int better = 1; better >= 0; better--) {
        snprintf(formula, sizeof(formula),
                 "=AND(ISNUMBER(SEARCH(\"x \",%s%u)),ISERROR(SEARCH(\"caution\",%s%u)),%s%u%s1)",
                 vcol, (unsigned)first + 1, vcol, (unsigned)first + 1, fcol, (unsigned)first + 1,
                 better ? ">" : "<");
        lxw_conditional_format rule = {0};
        rule.type = LXW_CONDITIONAL_TYPE_FORMULA;
        rule.value_string = formula;
        rule.format = better ? x->better : x->worse;
        xlsx_check(x, worksheet_conditional_format_range(ws, first, col, last, col, &rule));
    }
}

/* Writes a table with its header at row0; returns the row after it. Widths accumulate in st. */
static lxw_row_t table(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row0, struct sheet_table *st)
{
    const struct table *t = st->t;
    header(x, ws, row0, st);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            cell(x, ws, row0 + 1 + (lxw_row_t)r, st, r, c);
    for (size_t c = 0; c < t->ncols && t->nrows; c++)
        if (st->kind[c] == COL_FACTOR)
            factor_rules(x, ws, row0 + 1, row0 + (lxw_row_t)t->nrows, st->first[c],
                         st->first[c] + 3);
    return row0 + 1 + (lxw_row_t)t->nrows;
}

static void set_widths(struct xlsx *x, lxw_worksheet *ws, const struct sheet_table *st)
{
    for (lxw_col_t c = 0; c < st->ncols; c++)
        xlsx_check(x, worksheet_set_column(ws, c, c, st->width[c], NULL));
}

/* Every sheet prints landscape on A4, its columns fitted to the page width (as many pages down
 * as it takes), its first row repeated on each page. */
void xlsx_page_setup(struct xlsx *x, lxw_worksheet *ws)
{
    enum { PAPER_A4 = 9 };
    worksheet_set_landscape(ws);
    worksheet_set_paper(ws, PAPER_A4);
    worksheet_fit_to_pages(ws, 1, 0);
    xlsx_check(x, worksheet_repeat_rows(ws, 0, 0));
}

void xlsx_table_sheet(struct xlsx *x, const char *name, const struct table *t,
                      lxw_col_t frozen_cols)
{
    lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
    struct sheet_table st;
    layout(&st, t);
    lxw_row_t end = table(x, ws, 0, &st);
    set_widths(x, ws, &st);
    worksheet_freeze_panes(ws, 1, frozen_cols);
    xlsx_page_setup(x, ws);
    xlsx_check(x, worksheet_autofilter(ws, 0, 0, end > 1 ? end - 1 : 1, st.ncols - 1));
    layout_release(&st);
}

/* ---- Summary ---- */

/* CommonMark prose as plain text: cmark-gfm drops the markup and the escapes. */
static char *plain_text(const char *md)
{
    cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
    char *text = cmark_render_plaintext(doc, CMARK_OPT_DEFAULT, 0);
    cmark_node_free(doc);
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        text[--n] = '\0';
    return text;
}

/* Excel does not fit row heights to wrapped text when the file is written: estimate it. */
static double wrapped_height(const char *s, double width)
{
    double lines = 0, run = 0;
    for (; *s; s++) {
        if (*s == '\n') {
            lines += 1 + floor(run / width);
            run = 0;
        } else if (!utf8_continues((unsigned char)*s)) {
            run++;
        }
    }
    lines += 1 + floor(run / width);
    return 15 * lines;
}

/* The Summary sheet as the page walk fills it: row is the next free row. */
struct summary {
    struct xlsx *x;
    lxw_worksheet *ws;
    lxw_row_t row;
};

static void summary_title(void *ctx, const char *title)
{
    struct summary *sm = ctx;
    xlsx_put_text(sm->x, sm->ws, sm->row, 0, title, sm->x->title);
    sm->row += 2;
}

static void summary_fact(void *ctx, const char *key, const char *value)
{
    struct summary *sm = ctx;
    xlsx_put_text(sm->x, sm->ws, sm->row, 0, key, sm->x->bold);
    xlsx_put_text(sm->x, sm->ws, sm->row++, 1, value, sm->x->wrap);
}

static void summary_units(void *ctx)
{
    summary_fact(ctx, "Units",
                 "Comparison and Charts: MiB/s, IOPS and \xc2\xb5s (each cell's number "
                 "format shows its unit). Runs and Results: base units as named in the "
                 "column headers (bytes/s, ns, ms, bytes).");
    ((struct summary *)ctx)->row++;
}

static void summary_section(void *ctx, const struct section *s)
{
    struct summary *sm = ctx;
    xlsx_put_text(sm->x, sm->ws, sm->row, 0, s->heading, sm->x->bold);
    if (s->prose && *s->prose) {
        char *text = plain_text(s->prose);
        xlsx_put_text(sm->x, sm->ws, sm->row, 1, text, sm->x->wrap);
        xlsx_check(sm->x,
                   worksheet_set_row(sm->ws, sm->row, wrapped_height(text, PROSE_WIDTH), NULL));
        free(text);
    }
    sm->row++;
}

/* A comparison has sheets of its own; other tables stand in the Summary. */
static int compares(const struct table *t)
{
    return table_find_role(t, ROLE_SIDE) < t->ncols;
}

static void summary_table(void *ctx, const struct table *t)
{
    struct summary *sm = ctx;
    if (compares(t)) {
        xlsx_put_text(sm->x, sm->ws, sm->row++, 1,
                      "The table is on the Comparison sheet, the charts on the Charts sheet.",
                      NULL);
        return;
    }
    struct sheet_table small;
    layout(&small, t);
    sm->row = table(sm->x, sm->ws, sm->row, &small) + 1;
    layout_release(&small);
}

static void summary_section_end(void *ctx, const struct section *s)
{
    (void)s;
    ((struct summary *)ctx)->row++;
}

static void summary_sheet(struct xlsx *x, const struct report *r)
{
    static const struct report_walker summary = {.title = summary_title,
                                                 .fact = summary_fact,
                                                 .facts_end = summary_units,
                                                 .section = summary_section,
                                                 .table = summary_table,
                                                 .section_end = summary_section_end};
    struct summary sm = {x, workbook_add_worksheet(x->wb, "Summary"), 0};
    report_walk(r, &summary, &sm);
    xlsx_check(x, worksheet_set_column(sm.ws, 0, 0, 34, NULL));
    xlsx_check(x, worksheet_set_column(sm.ws, 1, 1, PROSE_WIDTH, NULL));
    xlsx_page_setup(x, sm.ws);
}

/* ---- the workbook ---- */

/* The first table that compares sides. */
static const struct table *find_comparison(const struct report *r)
{
    for (size_t i = 0; i < r->nsections; i++)
        if (r->sections[i].table && compares(r->sections[i].table))
            return r->sections[i].table;
    return NULL;
}

static void properties(struct xlsx *x, const struct report *r)
{
    char author[] = "benchdb";
    char *title = xstrdup(xlsx_cell_text(x, r->title));
    lxw_doc_properties p = {0};
    p.title = title;
    p.author = author;
    p.created = r->generated ? (time_t)r->generated_epoch : FIXED_CREATED;
    if (!p.created)
        p.created = 1; /* libxlsxwriter writes the clock for 0: state epoch 0 a second late */
    xlsx_check(x, workbook_set_properties(x->wb, &p)); /* copies the strings */
    free(title);
}

/* Summary, then the comparison with the columns that name a row frozen, its charts, the
 * planner's sheets of a Capacity section (xlsx_capacity.c, which writes its appendix tables
 * its own way), and a sheet per other appendix table named as its section. */
static void sheets(struct xlsx *x, const struct report *r)
{
    const struct table *cmp = find_comparison(r);
    summary_sheet(x, r);
    if (cmp) {
        xlsx_table_sheet(x, "Comparison", cmp, (lxw_col_t)table_find_role(cmp, ROLE_SIDE));
        xlsx_charts_sheet(x, r, cmp);
        xlsx_timeseries_sheets(x, r);
    }
    int planner = xlsx_capacity_sheets(x, r);
    for (size_t i = 0; i < r->nsections; i++)
        if (r->sections[i].appendix && r->sections[i].table &&
            !(planner && !strncmp(r->sections[i].table->name, "capacity_", 9)))
            xlsx_table_sheet(x, r->sections[i].heading, r->sections[i].table, 0);
}

int render_xlsx(const struct report *r, const char *path, struct diag *d)
{
    /* libxlsxwriter opens the file only in workbook_close and prints its own message when it
     * cannot: try it first, so the user gets ours. */
    FILE *f = fopen(path, "wb");
    if (!f)
        return diag_error(d, "cannot write '%s': %s", path, strerror(errno));
    fclose(f);
    struct xlsx x = {0};
    x.clean = (struct buf)BUF_INIT;
    x.errbars = (struct errbars)ERRBARS_INIT;
    x.wb = workbook_new(path);
    if (!x.wb)
        return diag_error(d, "cannot create workbook '%s'", path);
    formats(&x);
    properties(&x, r);
    sheets(&x, r);
    lxw_error err = workbook_close(x.wb);
    buf_release(&x.clean);
    int rc = 0;
    if (x.err || err)
        rc = diag_error(d, "cannot write '%s': %s", path, lxw_strerror(x.err ? x.err : err));
    else
        rc = errbars_apply(&x.errbars, path, d);
    errbars_release(&x.errbars);
    return rc;
}
