/* table_text.c: a table as text for benchdb runs, query and runs --history: an aligned grid,
 * CSV, JSON or Markdown, written batch by batch so that a large result never sits in memory. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../core/fmt.h"
#include "../core/xalloc.h"

void table_writer_init(struct table_writer *w, enum table_format fmt)
{
    *w = (struct table_writer){fmt, NULL, 0, 0, BUF_INIT};
}

void table_writer_release(struct table_writer *w)
{
    free(w->width);
    buf_release(&w->cell);
}

static int grid(const struct table_writer *w)
{
    return table_format_sized(w->fmt);
}

/* A stored number: an integer exactly, a float in its shortest exact form. */
static void plain_number(struct buf *out, const struct cell *c)
{
    if (c->exact)
        buf_addf(out, "%lld", c->integer);
    else
        fmt_plain_number(out, c->value);
}

/* Text as a terminal (and Markdown) shows it, into w->cell. */
static const char *shown_text(struct table_writer *w, const char *s)
{
    struct buf safe = BUF_INIT;
    diag_escape(&safe, s);
    buf_reset(&w->cell);
    if (w->fmt == TABLE_MD)
        report_md_escape(&w->cell, safe.data);
    else
        buf_add(&w->cell, safe.data, safe.len);
    buf_release(&safe);
    return w->cell.data;
}

static const char *shown_cell(struct table_writer *w, const struct cell *c)
{
    if (c->kind == CELL_TEXT)
        return shown_text(w, c->text);
    buf_reset(&w->cell);
    if (c->kind == CELL_NUMBER)
        plain_number(&w->cell, c);
    return w->cell.data;
}

/* The header and the first batch decide the widths. */
static void size_columns(struct table_writer *w, const struct table *t)
{
    w->width = xcalloc(t->ncols ? t->ncols : 1, sizeof(*w->width));
    for (size_t c = 0; c < t->ncols; c++)
        w->width[c] = strlen(shown_text(w, t->cols[c].name));
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            size_t n = strlen(shown_cell(w, table_cell(t, r, c)));
            if (n > w->width[c])
                w->width[c] = n;
        }
}

static void grid_cell(struct table_writer *w, struct buf *out, size_t c, const char *text)
{
    int md = w->fmt == TABLE_MD;
    buf_addf(out, "%s%-*s", c ? (md ? " | " : "  ") : (md ? "| " : ""), (int)w->width[c], text);
}

static void grid_header(struct table_writer *w, const struct table *t, struct buf *out)
{
    size_columns(w, t);
    for (size_t c = 0; c < t->ncols; c++)
        grid_cell(w, out, c, shown_text(w, t->cols[c].name));
    buf_adds(out, w->fmt == TABLE_MD ? " |\n" : "\n");
    if (w->fmt != TABLE_MD)
        return;
    buf_adds(out, "|"); /* the rule: at least three dashes, a colon for numbers in a unit */
    for (size_t c = 0; c < t->ncols; c++) {
        buf_addc(out, ' ');
        for (size_t i = 0; i < (w->width[c] < 3 ? 3 : w->width[c]); i++)
            buf_addc(out, '-');
        buf_adds(out, t->cols[c].unit == UNIT_NONE ? " |" : ": |");
    }
    buf_addc(out, '\n');
}

static void csv_header(const struct table *t, struct buf *out)
{
    for (size_t c = 0; c < t->ncols; c++) {
        buf_adds(out, c ? "," : "");
        report_csv_field(out, t->cols[c].name);
    }
    buf_adds(out, "\r\n");
}

static void header(struct table_writer *w, const struct table *t, struct buf *out)
{
    if (grid(w))
        grid_header(w, t, out);
    else if (w->fmt == TABLE_CSV)
        csv_header(t, out);
    else if (w->fmt == TABLE_JSON)
        buf_addc(out, '[');
}

static void csv_row(const struct table *t, const struct cell *row, struct buf *out)
{
    for (size_t c = 0; c < t->ncols; c++) {
        buf_adds(out, c ? "," : "");
        if (row[c].kind == CELL_NUMBER)
            plain_number(out, &row[c]);
        else if (row[c].kind == CELL_TEXT)
            report_csv_field(out, row[c].text);
    }
    buf_adds(out, "\r\n");
}

void report_json_value(struct buf *out, const struct cell *c)
{
    if (c->kind == CELL_TEXT)
        fmt_json_string(out, c->text);
    else if (c->kind == CELL_EMPTY)
        buf_adds(out, "null");
    else if (c->exact)
        buf_addf(out, "%lld", c->integer);
    else
        fmt_json_number(out, c->value);
}

static void json_row(struct table_writer *w, const struct table *t, const struct cell *row,
                     struct buf *out)
{
    if (w->fmt == TABLE_NDJSON)
        buf_addc(out, '{');
    else
        buf_adds(out, w->nrows ? ",\n  {" : "\n  {");
    for (size_t c = 0; c < t->ncols; c++) {
        buf_adds(out, c ? ", " : "");
        fmt_json_string(out, t->cols[c].name);
        buf_adds(out, ": ");
        report_json_value(out, &row[c]);
    }
    buf_adds(out, w->fmt == TABLE_NDJSON ? "}\n" : "}");
}

static void row(struct table_writer *w, const struct table *t, const struct cell *cells,
                struct buf *out)
{
    if (w->fmt == TABLE_CSV) {
        csv_row(t, cells, out);
    } else if (w->fmt == TABLE_JSON || w->fmt == TABLE_NDJSON) {
        json_row(w, t, cells, out);
    } else {
        for (size_t c = 0; c < t->ncols; c++)
            grid_cell(w, out, c, shown_cell(w, &cells[c]));
        buf_adds(out, w->fmt == TABLE_MD ? " |\n" : "\n");
    }
    w->nrows++;
}

void table_write_rows(struct table_writer *w, const struct table *t, struct buf *out)
{
    if (!w->started)
        header(w, t, out);
    w->started = 1;
    for (size_t r = 0; r < t->nrows; r++)
        row(w, t, t->rows[r], out);
}

void table_write_end(struct table_writer *w, const struct table *t, struct buf *out)
{
    if (!w->started)
        table_write_rows(w, t, out);
    if (w->fmt == TABLE_JSON)
        buf_adds(out, w->nrows ? "\n]\n" : "]\n");
}
