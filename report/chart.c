/* chart.c: which rows and columns of the comparison table make which bar chart. */
#include "chart.h"

#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

/* One chart per metric and unit: rows of one metric in different units (a network's bandwidth
 * in bit/s beside storage bandwidth in bytes/s) cannot share an axis. */
static struct chart *find_chart(struct chart_set *cs, const char *metric, enum unit unit)
{
    for (size_t i = 0; i < cs->n; i++)
        if (!strcmp(cs->v[i].metric, metric) && cs->v[i].unit == unit)
            return &cs->v[i];
    ALLOC_GROW(cs->v, cs->n, cs->a);
    struct chart *c = &cs->v[cs->n++];
    *c = (struct chart){metric, unit, NULL, 0, 0};
    return c;
}

void chart_set_init(struct chart_set *cs, const struct table *t)
{
    memset(cs, 0, sizeof(*cs));
    size_t metric_col = table_find_role(t, ROLE_METRIC);
    cs->key = table_find_role(t, ROLE_KEY);
    if (metric_col == t->ncols || cs->key == t->ncols || table_find_role(t, ROLE_SIDE) == t->ncols)
        return;
    cs->sides = xcalloc(t->ncols, sizeof(*cs->sides));
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cols[c].role == ROLE_SIDE)
            cs->sides[cs->nsides++] = c;
    for (size_t r = 0; r < t->nrows; r++) {
        const struct cell *metric = &t->cells[r * t->ncols + metric_col];
        if (metric->kind != CELL_TEXT)
            continue;
        enum unit unit = UNIT_NONE;
        for (size_t s = 0; s < cs->nsides && unit == UNIT_NONE; s++)
            unit = cell_unit(t, r, cs->sides[s]);
        struct chart *c = find_chart(cs, metric->text, unit);
        ALLOC_GROW(c->rows, c->nrows, c->arows);
        c->rows[c->nrows++] = r;
    }
}

void chart_set_release(struct chart_set *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        free(cs->v[i].rows);
    free(cs->v);
    free(cs->sides);
    memset(cs, 0, sizeof(*cs));
}
