/* xlsx_capacity.c: the planner's sheets of a report with a Capacity section (report --slo).
 * "Inputs" holds the targets and each compared value's prices and provisioned figures, cells a
 * planner edits; "Capacity points" the measured depths (IOPS, bandwidth, the latency each
 * target bounds); "Capacity" a row per target, workload and side whose every derived cell is a
 * formula over those two sheets, its value cached so that it shows before any recalculation:
 * change a price or a limit and the IOPS at the target, the price per 1k IOPS and the headroom
 * follow. Formulas hold only numbers, operators and cell references: no text of the warehouse
 * (a job or class name) ever enters one. docs/methods.md, "Capacity at a latency target" and
 * "Cost and headroom", state what each cell computes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/array.h"
#include "xlsx.h"

/* The report's capacity tables (query/capacity.c), by name. */
struct cap_tables {
    const struct table *rows, *points, *targets, *costs;
};

static const char *text_at(const struct table *t, size_t row, size_t col)
{
    const struct cell *c = table_cell(t, row, col);
    return c->kind == CELL_TEXT ? c->text : "";
}

static double number_at(const struct table *t, size_t row, size_t col)
{
    const struct cell *c = table_cell(t, row, col);
    return c->kind == CELL_NUMBER ? c->value : NAN;
}

/* The first row of t whose column col holds s; t->nrows when none. */
static size_t row_named(const struct table *t, size_t col, const char *s)
{
    size_t i = 0;
    while (i < t->nrows && strcmp(text_at(t, i, col), s))
        i++;
    return i;
}

/* ---- Inputs ---- */

/* Where the inputs stand: Excel row numbers (1-based) of the first target and the first cost
 * row; one row each after it, in the tables' order. */
struct inputs {
    unsigned target_row, cost_row;
    lxw_format *input, *input_percent; /* shaded: cells to edit */
    lxw_format *ms, *money, *percent;
};

static const char *const COST_HEADERS[] = {"Name",
                                           "Price per month",
                                           "Price per GiB-month",
                                           "Capacity (GiB)",
                                           "Price per IOPS-month",
                                           "Provisioned IOPS",
                                           "Price per MiB/s-month",
                                           "Provisioned MiB/s",
                                           "Demand IOPS",
                                           "Growth per year"};

static void header_row(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, const char *const *names,
                       size_t n)
{
    for (size_t i = 0; i < n; i++)
        xlsx_put_text(x, ws, row, (lxw_col_t)i, names[i], x->header);
}

/* An editable number: blank when unknown (never 0). */
static void input_number(struct xlsx *x, lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, double v,
                         lxw_format *f)
{
    if (isfinite(v))
        xlsx_put_number(x, ws, row, col, v, f);
    else
        xlsx_check(x, worksheet_write_blank(ws, row, col, f));
}

static void targets_block(struct xlsx *x, lxw_worksheet *ws, const struct table *t,
                          struct inputs *in)
{
    static const char *const names[] = {"Target", "Statistic", "Limit (ms)", "Met when"};
    xlsx_put_text(x, ws, 0, 0, "Latency targets", x->title);
    header_row(x, ws, 1, names, ARRAY_SIZE(names));
    for (size_t i = 0; i < t->nrows; i++) {
        lxw_row_t row = 2 + (lxw_row_t)i;
        double pct = number_at(t, i, 2);
        char stat[32];
        snprintf(stat, sizeof(stat), isfinite(pct) ? "p%g" : "mean", pct);
        xlsx_put_text(x, ws, row, 0, text_at(t, i, 0), NULL);
        xlsx_put_text(x, ws, row, 1, stat, NULL);
        input_number(x, ws, row, 2, number_at(t, i, 3) / 1e6, in->input);
        xlsx_put_text(x, ws, row, 3, number_at(t, i, 4) ? "below the limit" : "at most the limit",
                      NULL);
    }
    in->target_row = 3;
}

static void costs_block(struct xlsx *x, lxw_worksheet *ws, const struct table *t, lxw_row_t row0,
                        struct inputs *in)
{
    const char *currency = "";
    for (size_t i = 0; i < t->nrows && !*currency; i++)
        currency = text_at(t, i, 1);
    char title[96];
    snprintf(title, sizeof(title), "Prices%s%s and provisioned figures", *currency ? " in " : "",
             currency);
    xlsx_put_text(x, ws, row0, 0, title, x->title);
    header_row(x, ws, row0 + 1, COST_HEADERS, ARRAY_SIZE(COST_HEADERS));
    /* the costs table's columns (query/capacity.c) in the spreadsheet's units */
    static const struct {
        size_t col;
        double div;
    } cols[] = {{2, 1},         {3, 1}, {4, 1073741824.0}, {5, 1}, {6, 1}, {7, 1},
                {8, 1048576.0}, {9, 1}, {10, 100}};
    for (size_t i = 0; i < t->nrows; i++) {
        lxw_row_t row = row0 + 2 + (lxw_row_t)i;
        xlsx_put_text(x, ws, row, 0, text_at(t, i, 0), NULL);
        for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
            input_number(x, ws, row, (lxw_col_t)(1 + k), number_at(t, i, cols[k].col) / cols[k].div,
                         k == ARRAY_SIZE(cols) - 1 ? in->input_percent : in->input);
    }
    in->cost_row = row0 + 3;
}

static void inputs_sheet(struct xlsx *x, const struct cap_tables *ct, struct inputs *in)
{
    lxw_worksheet *ws = workbook_add_worksheet(x->wb, "Inputs");
    targets_block(x, ws, ct->targets, in);
    lxw_row_t row = 2 + (lxw_row_t)ct->targets->nrows + 1;
    costs_block(x, ws, ct->costs, row, in);
    row += 2 + (lxw_row_t)ct->costs->nrows + 1;
    xlsx_put_text(x, ws, row, 0,
                  "The shaded cells are inputs: change a limit, a price or a provisioned figure "
                  "and the Capacity sheet recomputes. A blank cell is unknown, never 0.",
                  NULL);
    xlsx_check(x, worksheet_set_column(ws, 0, 0, 28, NULL));
    xlsx_check(x, worksheet_set_column(ws, 1, (lxw_col_t)ARRAY_SIZE(COST_HEADERS) - 1, 18, NULL));
}

/* ---- Capacity ---- */

/* The rows of the points sheet (Excel rows, first and last) of one capacity row; first > last
 * when it has none. */
struct block {
    unsigned first, last;
};

static struct block points_of(const struct table *points, const char *target, const char *wl,
                              const char *side)
{
    struct block b = {1, 0};
    for (size_t i = 0; i < points->nrows; i++)
        if (!strcmp(text_at(points, i, 0), target) && !strcmp(text_at(points, i, 1), wl) &&
            !strcmp(text_at(points, i, 2), side)) {
            if (b.first > b.last)
                b.first = (unsigned)i + 2; /* the header is row 1 */
            b.last = (unsigned)i + 2;
        }
    return b;
}

/* One capacity row's formulas and the values they give now (cached). */
struct cap_row {
    lxw_worksheet *ws;
    lxw_row_t row;         /* 0-based */
    unsigned excel;        /* row + 1 */
    unsigned target, cost; /* their rows on Inputs (Excel) */
    struct block pts;
};

static void formula_num(struct xlsx *x, const struct cap_row *c, lxw_col_t col, const char *formula,
                        double v, lxw_format *f)
{
    if (isfinite(v))
        xlsx_check(x, worksheet_write_formula_num(c->ws, c->row, col, formula, f, v));
    else
        xlsx_check(x, worksheet_write_formula_str(c->ws, c->row, col, formula, f, ""));
}

#define POINTS "'Capacity points'!"

/* The capacity at the target (column E): the most IOPS of a point whose latency meets the
 * limit, "not reached" when none does. Returns the index (in the points table) of that point,
 * or -1. */
static long capacity_cell(struct xlsx *x, const struct cap_row *c, const struct table *points,
                          double limit_ms, int strict)
{
    const char *op = strict ? "<" : "<=";
    char lat[96], iops[96], f[512];
    snprintf(lat, sizeof(lat), POINTS "$H$%u:$H$%u", c->pts.first, c->pts.last);
    snprintf(iops, sizeof(iops), POINTS "$F$%u:$F$%u", c->pts.first, c->pts.last);
    snprintf(f, sizeof(f),
             "=IF(COUNTIFS(%s,\"%s\"&(D%u*1000000))=0,\"not reached\","
             "SUMPRODUCT(MAX((%s%sD%u*1000000)*%s)))",
             lat, op, c->excel, lat, op, c->excel, iops);
    long best = -1;
    for (unsigned r = c->pts.first; r <= c->pts.last; r++) {
        size_t i = r - 2;
        double l = number_at(points, i, 7), v = number_at(points, i, 5);
        int met = strict ? l < limit_ms * 1e6 : l <= limit_ms * 1e6;
        if (met && (best < 0 || v > number_at(points, (size_t)best, 5)))
            best = (long)i;
    }
    if (best < 0)
        xlsx_check(x, worksheet_write_formula_str(c->ws, c->row, 4, f, NULL, "not reached"));
    else
        xlsx_check(x, worksheet_write_formula_num(c->ws, c->row, 4, f, NULL,
                                                  number_at(points, (size_t)best, 5)));
    return best;
}

/* Columns F-H: the chosen point's iodepth, numjobs and MiB/s, looked up by its IOPS. */
static void chosen_cells(struct xlsx *x, const struct cap_row *c, const struct table *points,
                         long best, lxw_format *mibs)
{
    static const struct {
        char col;
        size_t field;
        double div;
    } looked[] = {{'D', 3, 1}, {'E', 4, 1}, {'G', 6, 1048576.0}};
    for (size_t k = 0; k < ARRAY_SIZE(looked); k++) {
        char f[256];
        snprintf(f, sizeof(f),
                 "=IF(ISNUMBER(E%u),INDEX(" POINTS "$%c$%u:$%c$%u,MATCH(E%u," POINTS
                 "$F$%u:$F$%u,0))%s,\"\")",
                 c->excel, looked[k].col, c->pts.first, looked[k].col, c->pts.last, c->excel,
                 c->pts.first, c->pts.last, looked[k].div > 1 ? "/1048576" : "");
        double v =
            best < 0 ? NAN : number_at(points, (size_t)best, looked[k].field) / looked[k].div;
        formula_num(x, c, (lxw_col_t)(5 + k), f, v, looked[k].div > 1 ? mibs : NULL);
    }
}

/* Column I: the price per month from the Inputs row (a flat price, and each price times its
 * quantity); "no cost given" when the row prices nothing. */
static double month_cell(struct xlsx *x, const struct cap_row *c, const double *in,
                         lxw_format *money)
{
    char f[512];
    unsigned r = c->cost;
    snprintf(f, sizeof(f),
             "=IF(COUNT(Inputs!$B$%u,Inputs!$C$%u,Inputs!$E$%u,Inputs!$G$%u)=0,\"no cost given\","
             "N(Inputs!$B$%u)+N(Inputs!$C$%u)*N(Inputs!$D$%u)+N(Inputs!$E$%u)*N(Inputs!$F$%u)"
             "+N(Inputs!$G$%u)*N(Inputs!$H$%u))",
             r, r, r, r, r, r, r, r, r, r, r);
    /* in: B..J of the Inputs row, NAN where blank */
    int priced = isfinite(in[0]) || isfinite(in[1]) || isfinite(in[3]) || isfinite(in[5]);
    double n[8];
    for (size_t k = 0; k < 8; k++)
        n[k] = isfinite(in[k]) ? in[k] : 0;
    double month = n[0] + n[1] * n[2] + n[3] * n[4] + n[5] * n[6];
    if (priced)
        xlsx_check(x, worksheet_write_formula_num(c->ws, c->row, 8, f, money, month));
    else
        xlsx_check(x, worksheet_write_formula_str(c->ws, c->row, 8, f, NULL, "no cost given"));
    return priced ? month : NAN;
}

/* Columns J-M: price per 1k IOPS and per GiB/s, IOPS of provisioned, months of headroom. */
static void derived_cells(struct xlsx *x, const struct cap_row *c, double month, double iops,
                          double mibs, const double *in, const struct inputs *fm)
{
    unsigned e = c->excel, r = c->cost;
    char f[512];
    snprintf(f, sizeof(f), "=IF(AND(ISNUMBER(I%u),ISNUMBER(E%u)),I%u/(E%u/1000),\"\")", e, e, e, e);
    formula_num(x, c, 9, f, month / (iops / 1000), fm->money);
    snprintf(f, sizeof(f), "=IF(AND(ISNUMBER(I%u),ISNUMBER(H%u)),I%u/(H%u/1024),\"\")", e, e, e, e);
    formula_num(x, c, 10, f, month / (mibs / 1024), fm->money);
    snprintf(f, sizeof(f), "=IF(AND(ISNUMBER(E%u),N(Inputs!$F$%u)>0),E%u/Inputs!$F$%u,\"\")", e, r,
             e, r);
    formula_num(x, c, 11, f, in[4] > 0 ? iops / in[4] : NAN, fm->percent);
    snprintf(f, sizeof(f),
             "=IF(AND(ISNUMBER(E%u),N(Inputs!$I$%u)>0,N(Inputs!$J$%u)>0),IF(E%u<=Inputs!$I$%u,0,"
             "12*LN(E%u/Inputs!$I$%u)/LN(1+Inputs!$J$%u)),\"\")",
             e, r, r, e, r, e, r, r);
    double demand = in[7], growth = in[8], months = NAN;
    if (isfinite(iops) && demand > 0 && growth > 0)
        months = iops <= demand ? 0 : 12 * log(iops / demand) / log1p(growth);
    formula_num(x, c, 12, f, months, fm->money);
}

static void capacity_row(struct xlsx *x, lxw_worksheet *ws, const struct cap_tables *ct, size_t i,
                         const struct inputs *in)
{
    const char *wl = text_at(ct->rows, i, 0), *target = text_at(ct->rows, i, 1),
               *side = text_at(ct->rows, i, 2);
    size_t ti = row_named(ct->targets, 0, target), ci = row_named(ct->costs, 0, side);
    if (ti == ct->targets->nrows || ci == ct->costs->nrows)
        return; /* capacity.c lists every target and side: never, but no read past a table */
    struct cap_row c = {ws,
                        (lxw_row_t)(i + 1),
                        (unsigned)i + 2,
                        in->target_row + (unsigned)ti,
                        in->cost_row + (unsigned)ci,
                        points_of(ct->points, target, wl, side)};
    xlsx_put_text(x, ws, c.row, 0, wl, NULL);
    xlsx_put_text(x, ws, c.row, 1, target, NULL);
    xlsx_put_text(x, ws, c.row, 2, side, NULL);
    char f[64];
    double limit_ms = number_at(ct->targets, ti, 3) / 1e6;
    snprintf(f, sizeof(f), "=Inputs!$C$%u", c.target);
    xlsx_check(x, worksheet_write_formula_num(ws, c.row, 3, f, in->ms, limit_ms));
    double cost_in[9];
    for (size_t k = 0; k < 9; k++) { /* the Inputs row's B..J, in its units */
        static const size_t col[] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
        static const double div[] = {1, 1, 1073741824.0, 1, 1, 1, 1048576.0, 1, 100};
        cost_in[k] = number_at(ct->costs, ci, col[k]) / div[k];
    }
    long best = -1;
    if (c.pts.first <= c.pts.last) {
        best = capacity_cell(x, &c, ct->points, limit_ms, (int)number_at(ct->targets, ti, 4));
        chosen_cells(x, &c, ct->points, best, in->money);
    } else {
        xlsx_put_text(x, ws, c.row, 4, "no sweep", NULL);
    }
    double iops = best < 0 ? NAN : number_at(ct->points, (size_t)best, 5);
    double mibs = best < 0 ? NAN : number_at(ct->points, (size_t)best, 6) / 1048576.0;
    double month = month_cell(x, &c, cost_in, in->money);
    derived_cells(x, &c, month, iops, mibs, cost_in, in);
}

static void capacity_sheet(struct xlsx *x, const struct cap_tables *ct, const struct inputs *in)
{
    static const char *const names[] = {"Workload",
                                        "Target",
                                        "Side",
                                        "Limit (ms)",
                                        "IOPS at the target",
                                        "iodepth",
                                        "numjobs",
                                        "MiB/s",
                                        "Price per month",
                                        "Price per 1k IOPS",
                                        "Price per GiB/s",
                                        "IOPS of provisioned",
                                        "Months of headroom"};
    lxw_worksheet *ws = workbook_add_worksheet(x->wb, "Capacity");
    header_row(x, ws, 0, names, ARRAY_SIZE(names));
    for (size_t i = 0; i < ct->rows->nrows; i++)
        capacity_row(x, ws, ct, i, in);
    xlsx_check(x, worksheet_set_column(ws, 0, 0, 28, NULL));
    xlsx_check(x, worksheet_set_column(ws, 1, (lxw_col_t)ARRAY_SIZE(names) - 1, 14, NULL));
    worksheet_freeze_panes(ws, 1, 3);
    xlsx_page_setup(x, ws);
}

static lxw_format *number_format(struct xlsx *x, const char *num, int input)
{
    lxw_format *f = workbook_add_format(x->wb);
    format_set_num_format(f, num);
    if (input)
        format_set_bg_color(f, 0xFFF2CC);
    return f;
}

int xlsx_capacity_sheets(struct xlsx *x, const struct report *r)
{
    struct cap_tables ct = {
        report_find_table(r, "capacity"), report_find_table(r, "capacity_points"),
        report_find_table(r, "capacity_targets"), report_find_table(r, "capacity_costs")};
    if (!ct.rows || !ct.points || !ct.targets || !ct.costs)
        return 0;
    struct inputs in = {0,
                        0,
                        number_format(x, "0.######", 1),
                        number_format(x, "0.0%", 1),
                        number_format(x, "0.000", 0),
                        number_format(x, "0.00", 0),
                        number_format(x, "0.0%", 0)};
    inputs_sheet(x, &ct, &in);
    capacity_sheet(x, &ct, &in);
    xlsx_table_sheet(x, "Capacity points", ct.points, 0);
    return 1;
}
