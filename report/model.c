/* model.c: the report model (report.h) as the query layer builds it (reports, sections, tables,
 * rows and cells) and as each renderer walks it (report_walk). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

void report_init(struct report *r, const char *title)
{
    memset(r, 0, sizeof(*r));
    r->title = arena_strdup(&r->arena, title);
}

void report_release(struct report *r)
{
    free(r->facts);
    free(r->sections);
    arena_release(&r->arena);
    memset(r, 0, sizeof(*r));
}

void report_fact(struct report *r, const char *key, const char *value)
{
    ALLOC_GROW(r->facts, r->nfacts, r->afacts);
    r->facts[r->nfacts++] =
        (struct fact){arena_strdup(&r->arena, key), arena_strdup(&r->arena, value)};
}

struct section *report_section(struct report *r, const char *heading, const char *prose)
{
    ALLOC_GROW(r->sections, r->nsections, r->asections);
    struct section *s = &r->sections[r->nsections++];
    s->heading = arena_strdup(&r->arena, heading);
    s->prose = arena_strdup(&r->arena, prose);
    s->table = NULL;
    s->figures = NULL;
    s->nfigures = s->afigures = 0;
    s->appendix = 0;
    return s;
}

const struct table *report_find_table(const struct report *r, const char *name)
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct table *t = r->sections[i].table;
        if (t && (!name || !strcmp(t->name, name)))
            return t;
    }
    return NULL;
}

static void copy_columns(struct arena *a, struct table *t, const char *name,
                         const struct column *cols, size_t ncols)
{
    t->name = arena_strdup(a, name);
    t->cols = arena_alloc(a, ncols * sizeof(*cols));
    for (size_t i = 0; i < ncols; i++)
        t->cols[i] = (struct column){arena_strdup(a, cols[i].name), cols[i].unit, cols[i].role};
    t->ncols = ncols;
}

struct table *report_table(struct report *r, struct section *s, const char *name,
                           const struct column *cols, size_t ncols)
{
    struct table *t = arena_alloc(&r->arena, sizeof(*t));
    t->name = arena_strdup(&r->arena, name);
    t->cols = arena_alloc(&r->arena, ncols * sizeof(*cols));
    for (size_t i = 0; i < ncols; i++)
        t->cols[i] =
            (struct column){arena_strdup(&r->arena, cols[i].name), cols[i].unit, cols[i].role};
    t->ncols = ncols;
    s->table = t;
    return t;
}

/* Appends a row of empty cells to t, whose rows live in a: the row is allocated on its own
 * and never moves; the array of row pointers grows by doubling (the old one stays in a). */
static struct cell *add_row(struct arena *a, struct table *t)
{
    if (t->nrows == t->arows) {
        size_t n = t->arows ? t->arows * 2 : 16;
        struct cell **rows = arena_alloc(a, n * sizeof(*rows));
        if (t->nrows)
            memcpy(rows, t->rows, t->nrows * sizeof(*rows));
        t->rows = rows;
        t->arows = n;
    }
    struct cell *row = arena_alloc(a, (t->ncols ? t->ncols : 1) * sizeof(*row));
    t->rows[t->nrows++] = row;
    for (size_t i = 0; i < t->ncols; i++)
        row[i] = (struct cell){.kind = CELL_EMPTY,
                               .sd = NAN,
                               .lo = NAN,
                               .hi = NAN,
                               .min = NAN,
                               .max = NAN,
                               .p = NAN,
                               .p_holm = NAN,
                               .sd_log = NAN,
                               .alt = NAN};
    return row;
}

struct cell *table_add_row(struct report *r, struct table *t)
{
    return add_row(&r->arena, t);
}

void row_table_init(struct row_table *rt, const char *name, const struct column *cols, size_t ncols)
{
    memset(rt, 0, sizeof(*rt));
    copy_columns(&rt->names, &rt->t, name, cols, ncols);
}

struct cell *row_table_add(struct row_table *rt)
{
    return add_row(&rt->rows, &rt->t);
}

void row_table_clear(struct row_table *rt)
{
    arena_release(&rt->rows);
    rt->t.rows = NULL;
    rt->t.nrows = rt->t.arows = 0;
}

void row_table_release(struct row_table *rt)
{
    row_table_clear(rt);
    arena_release(&rt->names);
    memset(rt, 0, sizeof(*rt));
}

enum unit cell_unit(const struct table *t, size_t row, size_t col)
{
    enum unit u = table_cell(t, row, col)->unit;
    return u != UNIT_NONE ? u : t->cols[col].unit;
}

const char *verdict_text(enum verdict v)
{
    switch (v) {
    case VERDICT_SIGNIFICANT:
        return "significant";
    case VERDICT_EQUIVALENT:
        return "equivalent";
    case VERDICT_INCONCLUSIVE:
        return "inconclusive";
    case VERDICT_SINGLE_RUN:
        return "single run";
    case VERDICT_NONE:
        break;
    }
    return "";
}

void cell_set_text(struct cell *c, const char *text)
{
    c->kind = CELL_TEXT;
    c->text = text;
}

void cell_set_number(struct cell *c, double value)
{
    c->kind = CELL_NUMBER;
    c->value = value;
}

size_t table_find_role(const struct table *t, enum column_role role)
{
    size_t c = 0;
    while (c < t->ncols && t->cols[c].role != role)
        c++;
    return c;
}

void report_walk(const struct report *r, const struct report_walker *w, void *ctx)
{
    if (w->title)
        w->title(ctx, r->title);
    for (size_t i = 0; i < r->nfacts && w->fact; i++)
        w->fact(ctx, r->facts[i].key, r->facts[i].value);
    if (r->generated && w->fact)
        w->fact(ctx, "Generated", r->generated);
    if (w->facts_end)
        w->facts_end(ctx);
    for (size_t i = 0; i < r->nsections; i++) {
        const struct section *s = &r->sections[i];
        if (s->appendix)
            continue;
        if (w->section)
            w->section(ctx, s);
        if (s->table && w->table)
            w->table(ctx, s->table);
        for (size_t f = 0; f < s->nfigures && w->figure; f++)
            w->figure(ctx, s->figures[f]);
        if (w->section_end)
            w->section_end(ctx, s);
    }
}
