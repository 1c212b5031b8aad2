/* render_csv.c: one report table as RFC 4180 CSV in base units. Every column of averaged runs
 * is followed by its n, standard deviation, min, max and the 95 % interval of the mean; every
 * factor column by its interval, its p-value before and after Holm's correction (the verdict
 * rests on the second), its verdict and phrase; and a `unit` column names the base unit of the
 * row's values, so no reader guesses units. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "../core/array.h"
#include "../core/fmt.h"

/* Factor columns get their interval and verdict; columns of a compared side their n and sd. */
static int numeric_column(const struct table *t, size_t c)
{
    return t->cols[c].role == ROLE_SIDE || t->cols[c].role == ROLE_FACTOR;
}

/* A column with a second view of its values (IOPS beside bandwidth) gets a column for it. */
static int alt_column(const struct table *t, size_t c)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (isfinite(table_cell(t, r, c)->alt))
            return 1;
    return 0;
}

static void sub_header(struct buf *out, const char *name, const char *suffix)
{
    struct buf h = BUF_INIT;
    buf_addf(&h, "%s %s", name, suffix);
    buf_addc(out, ',');
    report_csv_field(out, h.data); /* names come from the inputs: quoted and guarded */
    buf_release(&h);
}

static void header(struct buf *out, const struct table *t)
{
    static const char *const factor_cols[] = {"ci_lo", "ci_hi", "p", "p_holm", "verdict", "text"};
    static const char *const value_cols[] = {"n", "sd", "min", "max", "ci_lo", "ci_hi"};
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            buf_addc(out, ',');
        report_csv_field(out, t->cols[c].name);
        if (!numeric_column(t, c))
            continue;
        int ratio = t->cols[c].role == ROLE_FACTOR;
        for (size_t i = 0; i < 6; i++)
            sub_header(out, t->cols[c].name, ratio ? factor_cols[i] : value_cols[i]);
        if (alt_column(t, c))
            sub_header(out, t->cols[c].name, "iops");
    }
    buf_adds(out, ",unit\r\n");
}

static void number(struct buf *out, double v)
{
    if (isfinite(v))
        fmt_plain_number(out, v);
}

static void row(struct buf *out, const struct table *t, size_t r)
{
    enum unit row_unit = UNIT_NONE;
    for (size_t c = 0; c < t->ncols; c++) {
        const struct cell *cell = table_cell(t, r, c);
        enum unit u = cell_unit(t, r, c);
        if (c)
            buf_addc(out, ',');
        if (cell->kind == CELL_TEXT)
            report_csv_field(out, cell->text);
        else if (cell->kind == CELL_NUMBER)
            number(out, cell->value);
        if (t->cols[c].role == ROLE_VALUE && cell->kind == CELL_NUMBER && row_unit == UNIT_NONE)
            row_unit = u;
        if (!numeric_column(t, c))
            continue;
        if (t->cols[c].role == ROLE_FACTOR) {
            buf_addc(out, ',');
            number(out, cell->lo);
            buf_addc(out, ',');
            number(out, cell->hi);
            buf_addc(out, ',');
            number(out, cell->p);
            buf_addc(out, ',');
            number(out, cell->p_holm);
            buf_addf(out, ",%s,", verdict_text(cell->verdict));
            if (cell->kind == CELL_NUMBER && cell->text)
                report_csv_field(out, cell->text);
            continue;
        }
        if (cell->kind == CELL_NUMBER && row_unit == UNIT_NONE)
            row_unit = u;
        buf_addc(out, ',');
        if (cell->n)
            buf_addf(out, "%d", cell->n);
        const double stats[] = {cell->sd, cell->min, cell->max, cell->lo, cell->hi};
        for (size_t i = 0; i < ARRAY_SIZE(stats); i++) {
            buf_addc(out, ',');
            if (cell->kind == CELL_NUMBER)
                number(out, stats[i]);
        }
        if (alt_column(t, c)) {
            buf_addc(out, ',');
            number(out, cell->alt);
        }
    }
    buf_addf(out, ",%s\r\n", unit_name(row_unit));
}

int render_csv(const struct report *r, const char *table, struct buf *out, struct diag *d)
{
    const struct table *t = report_find_table(r, table);
    if (!t)
        return diag_error(d, "report has no table '%s'", table ? table : "");
    header(out, t);
    for (size_t j = 0; j < t->nrows; j++)
        row(out, t, j);
    return 0;
}
