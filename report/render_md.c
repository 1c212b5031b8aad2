/* render_md.c: GitHub-flavored Markdown. Text from the inputs is escaped so that a job named
 * `a|b`, `<b>`, `&lt;` or `~~x~~` cannot break a table, inject markup or be read as an entity. */
#include "report.h"

#include <math.h>
#include <string.h>

void report_md_escape(struct buf *out, const char *s)
{
    for (; s && *s; s++) {
        if (strchr("|\\`*_[]<>#&~", *s))
            buf_addc(out, '\\');
        if (*s == '\n' || *s == '\r')
            buf_addc(out, ' ');
        else
            buf_addc(out, *s);
    }
}

static void md_cell(struct buf *out, const struct cell *c, enum unit u)
{
    struct buf tmp = BUF_INIT;
    switch (c->kind) {
    case CELL_EMPTY:
        buf_adds(out, "–");
        break;
    case CELL_TEXT:
        report_md_escape(out, c->text);
        break;
    case CELL_NUMBER:
        if (c->text) {
            report_md_escape(out, c->text);
            break;
        }
        unit_format(&tmp, c->value, u);
        buf_add(out, tmp.data, tmp.len);
        if (c->n > 1 && isfinite(c->sd)) {
            buf_reset(&tmp);
            unit_format(&tmp, c->sd, u);
            buf_addf(out, " ± %s", tmp.data);
        }
        if (c->n > 1)
            buf_addf(out, " (n=%d)", c->n);
        if (isfinite(c->alt)) {
            buf_reset(&tmp);
            unit_format(&tmp, c->alt, UNIT_IOPS);
            buf_addf(out, "; %s IOPS", tmp.data);
        }
        break;
    }
    buf_release(&tmp);
}

static void md_table(struct buf *out, const struct table *t)
{
    buf_adds(out, "|");
    for (size_t c = 0; c < t->ncols; c++) {
        buf_addc(out, ' ');
        report_md_escape(out, t->cols[c].name);
        buf_adds(out, " |");
    }
    buf_adds(out, "\n|");
    for (size_t c = 0; c < t->ncols; c++)
        buf_adds(out, t->cols[c].unit == UNIT_NONE ? " --- |" : " ---: |");
    buf_addc(out, '\n');
    for (size_t r = 0; r < t->nrows; r++) {
        buf_adds(out, "|");
        for (size_t c = 0; c < t->ncols; c++) {
            buf_addc(out, ' ');
            md_cell(out, &t->cells[r * t->ncols + c], cell_unit(t, r, c));
            buf_adds(out, " |");
        }
        buf_addc(out, '\n');
    }
}

int render_md(const struct report *r, struct buf *out, struct diag *d)
{
    (void)d;
    buf_adds(out, "# ");
    report_md_escape(out, r->title);
    buf_adds(out, "\n\n");
    for (size_t i = 0; i < r->nfacts; i++) {
        buf_adds(out, "- **");
        report_md_escape(out, r->facts[i].key);
        buf_adds(out, ":** ");
        report_md_escape(out, r->facts[i].value);
        buf_addc(out, '\n');
    }
    if (r->generated)
        buf_addf(out, "- **Generated:** %s\n", r->generated);
    for (size_t i = 0; i < r->nsections; i++) {
        const struct section *s = &r->sections[i];
        if (s->appendix)
            continue;
        buf_adds(out, "\n## ");
        report_md_escape(out, s->heading);
        buf_adds(out, "\n\n");
        if (s->prose && *s->prose) {
            buf_adds(out, s->prose); /* our own CommonMark; input text in it is pre-escaped */
            buf_adds(out, "\n\n");
        }
        if (s->table)
            md_table(out, s->table);
    }
    return 0;
}
