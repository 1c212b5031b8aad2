/* figure.c: the figures of the report model (report.h): data only; plot_svg.c and xlsx_charts.c
 * draw them. Everything lives in the arena the figure was made in. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "../core/timerange.h"

struct figure *figure_new(struct arena *a, enum figure_kind kind, const char *title)
{
    struct figure *f = arena_alloc(a, sizeof(*f));
    f->kind = kind;
    f->title = arena_strdup(a, title);
    return f;
}

size_t figure_category(struct arena *a, struct figure *f, const char *name)
{
    f->categories =
        arena_grow(a, f->categories, f->ncategories, &f->acategories, sizeof(*f->categories));
    f->categories[f->ncategories] = arena_strdup(a, name);
    return f->ncategories++;
}

struct figure_series *figure_series(struct arena *a, struct figure *f, const char *name)
{
    f->series = arena_grow(a, f->series, f->nseries, &f->aseries, sizeof(*f->series));
    struct figure_series *s = &f->series[f->nseries++];
    memset(s, 0, sizeof(*s));
    s->name = arena_strdup(a, name);
    return s;
}

struct figure_point *figure_point(struct arena *a, struct figure_series *s, double x, double y)
{
    s->v = arena_grow(a, s->v, s->n, &s->a, sizeof(*s->v));
    struct figure_point *p = &s->v[s->n++];
    *p = (struct figure_point){.x = x, .y = y, .lo = NAN, .hi = NAN};
    return p;
}

void figure_mark(struct arena *a, struct figure *f, double x, double y, const char *label)
{
    f->marks = arena_grow(a, f->marks, f->nmarks, &f->amarks, sizeof(*f->marks));
    f->marks[f->nmarks++] = (struct figure_mark){x, y, arena_strdup(a, label)};
}

const char *figure_kind_name(enum figure_kind k)
{
    static const char *const names[] = {
        [FIGURE_BARS] = "bars",
        [FIGURE_PERCENTILES] = "percentiles",
        [FIGURE_TIMESERIES] = "timeseries",
        [FIGURE_SCALING] = "scaling",
    };
    return names[k];
}

static void widen(double v, double *lo, double *hi, int *any)
{
    if (!isfinite(v))
        return;
    if (!*any || v < *lo)
        *lo = v;
    if (!*any || v > *hi)
        *hi = v;
    *any = 1;
}

int figure_y_range(const struct figure *f, double *lo, double *hi)
{
    int any = 0;
    *lo = *hi = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        for (size_t i = 0; i < f->series[s].n; i++) {
            const struct figure_point *p = &f->series[s].v[i];
            widen(p->y, lo, hi, &any);
            widen(p->lo, lo, hi, &any);
            widen(p->hi, lo, hi, &any);
        }
    }
    return any;
}

/* Past two decades a linear axis leaves the small values thinner than a pixel: a 737 ns fsync
 * beside a 2.46 ms one. */
static const double FIGURE_LOG_SPAN = 100.0;

void figure_fit_scale(struct figure *f)
{
    double lo = INFINITY, hi = 0;
    for (size_t s = 0; s < f->nseries; s++) {
        for (size_t i = 0; i < f->series[s].n; i++) {
            double v = f->series[s].v[i].y;
            if (v > 0 && v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
    }
    f->y.scale = hi > 0 && hi / lo > FIGURE_LOG_SPAN ? SCALE_LOG : SCALE_LINEAR;
}

struct figure *section_figure(struct report *r, struct section *s, enum figure_kind kind,
                              const char *title)
{
    struct figure *f = figure_new(&r->arena, kind, title);
    s->figures = arena_grow(&r->arena, s->figures, s->nfigures, &s->afigures, sizeof(*s->figures));
    s->figures[s->nfigures++] = f;
    return f;
}

/* ---- series over time from a table (benchdb trend) ---- */

struct time_cols {
    size_t key, time, value, change;
};

static const char *text_at(const struct table *t, size_t row, size_t col)
{
    const struct cell *c = table_cell(t, row, col);
    return c->kind == CELL_TEXT && c->text ? c->text : "";
}

/* The value axis' title of a series in unit u: what is measured, the writer adds the unit. */
static const char *quantity(enum unit u)
{
    switch (u) {
    case UNIT_BYTES_S:
    case UNIT_BITS_S:
        return "Bandwidth";
    case UNIT_IOPS:
        return "IOPS";
    case UNIT_NS:
        return "Latency";
    case UNIT_BYTES:
        return "Size";
    default:
        return "Value";
    }
}

/* The figure of rows [first, end), one series in time order: each run's value at its start
 * time, a dashed line where the level changed. */
static void time_figure(struct report *r, struct section *s, const struct table *t,
                        const struct time_cols *tc, size_t first, size_t end)
{
    const char *key = text_at(t, first, tc->key);
    struct figure *f = section_figure(r, s, FIGURE_TIMESERIES, key);
    f->x = (struct figure_axis){"Run start", UNIT_NONE, SCALE_DATE};
    enum unit u = cell_unit(t, first, tc->value);
    f->y = (struct figure_axis){quantity(u), u, SCALE_LINEAR};
    struct figure_series *fs = figure_series(&r->arena, f, key);
    for (size_t row = first; row < end; row++) {
        const struct cell *v = table_cell(t, row, tc->value);
        int64_t when;
        const char *why;
        if (v->kind != CELL_NUMBER || !isfinite(v->value) ||
            parse_iso_time(text_at(t, row, tc->time), TIME_LOWER, &when, &why))
            continue;
        figure_point(&r->arena, fs, (double)when, v->value);
        if (*text_at(t, row, tc->change))
            figure_mark(&r->arena, f, (double)when, NAN, text_at(t, row, tc->change));
    }
}

void report_time_figures(struct report *r)
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct table *t = r->sections[i].table;
        if (!t || r->sections[i].appendix)
            continue;
        struct time_cols tc = {table_find_role(t, ROLE_KEY), table_find_role(t, ROLE_TIME),
                               table_find_role(t, ROLE_VALUE), table_find_role(t, ROLE_CHANGE)};
        if (tc.key == t->ncols || tc.time == t->ncols || tc.value == t->ncols ||
            tc.change == t->ncols)
            continue;
        for (size_t first = 0, end; first < t->nrows; first = end) {
            const char *key = text_at(t, first, tc.key);
            for (end = first + 1; end < t->nrows && !strcmp(text_at(t, end, tc.key), key); end++)
                ;
            time_figure(r, &r->sections[i], t, &tc, first, end);
        }
    }
}
