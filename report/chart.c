/* chart.c: which rows and columns of the comparison table make which bar chart. */
#include "chart.h"

#include <math.h>
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
        const struct cell *metric = table_cell(t, r, metric_col);
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

static struct figure *bar_figure(const struct table *t, const struct chart *ch,
                                 const struct chart_set *cs, struct arena *a)
{
    struct figure *f = figure_new(a, FIGURE_BARS, ch->metric);
    f->y = (struct figure_axis){ch->metric, ch->unit, SCALE_LINEAR};
    for (size_t s = 0; s < cs->nsides; s++)
        figure_series(a, f, t->cols[cs->sides[s]].name);
    for (size_t i = 0; i < ch->nrows; i++) {
        const struct cell *name = table_cell(t, ch->rows[i], cs->key);
        size_t x = figure_category(a, f, name->kind == CELL_TEXT ? name->text : "");
        for (size_t s = 0; s < cs->nsides; s++) {
            const struct cell *c = table_cell(t, ch->rows[i], cs->sides[s]);
            if (c->kind != CELL_NUMBER || !isfinite(c->value))
                continue;
            struct figure_point *p = figure_point(a, &f->series[s], (double)x, c->value);
            p->cell = c;
            if (isfinite(c->lo) && isfinite(c->hi) && cell_averaged(c)) {
                p->lo = c->lo;
                p->hi = c->hi;
            }
        }
    }
    figure_fit_scale(f);
    return f;
}

size_t chart_bar_figures(const struct table *t, struct arena *a, struct figure ***out)
{
    struct chart_set cs;
    chart_set_init(&cs, t);
    size_t n = cs.nsides ? cs.n : 0;
    *out = arena_alloc(a, (n ? n : 1) * sizeof(**out));
    for (size_t i = 0; i < n; i++)
        (*out)[i] = bar_figure(t, &cs.v[i], &cs, a);
    chart_set_release(&cs);
    return n;
}
