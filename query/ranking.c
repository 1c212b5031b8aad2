/* ranking.c: the ranking view of a comparison of many configurations (seed 001 compares 15
 * ZFS/NFS ones): per workload, its first metric (bandwidth, else IOPS, else latency) with every
 * side sorted best to worst by its direction-aware factor against the baseline, under short
 * labels (--alias LONG=SHORT, else the part of each label that differs from the others). */
#include "ranking.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"

/* From this many compared values on, a table of side columns is too wide to read. */
enum { MIN_RANKED = 5 };

/* The length of the prefix every label shares, cut back to a word boundary (space, '-', '_',
 * '/', ',' or '='), so that "zfs-lz4-1M" and "zfs-zstd-1M" keep "lz4" and "zstd" whole. */
static size_t common_prefix(const char *const *v, size_t n)
{
    size_t len = strlen(v[0]);
    for (size_t i = 1; i < n; i++) {
        size_t k = 0;
        while (k < len && v[i][k] == v[0][k])
            k++;
        len = k;
    }
    while (len > 0 && !strchr(" -_/,=", v[0][len - 1]))
        len--;
    return len;
}

static size_t common_suffix(const char *const *v, size_t n, size_t prefix)
{
    size_t len = strlen(v[0]) - prefix;
    for (size_t i = 1; i < n; i++) {
        size_t a = strlen(v[0]), b = strlen(v[i]), k = 0;
        while (k < len && k < b - prefix && v[i][b - 1 - k] == v[0][a - 1 - k])
            k++;
        len = k;
    }
    size_t a = strlen(v[0]);
    while (len > 0 && !strchr(" -_/,=", v[0][a - len]))
        len--;
    return len;
}

/* The short label of each compared value into out[0..o->nvalues-1]: its --alias, else the value
 * without the words every value starts and ends with ("zfs-lz4-1M", "zfs-off-1M": "lz4",
 * "off"); the value itself when nothing would be left. */
static void ranking_labels(const struct compare_opts *o, struct arena *a, const char **out)
{
    size_t pre = o->nvalues > 1 ? common_prefix(o->values, o->nvalues) : 0;
    size_t suf = o->nvalues > 1 ? common_suffix(o->values, o->nvalues, pre) : 0;
    for (size_t i = 0; i < o->nvalues; i++) {
        const char *v = o->values[i];
        out[i] = NULL;
        for (size_t k = 0; k < o->naliases && !out[i]; k++)
            if (!strcmp(o->aliases[k].key, v))
                out[i] = o->aliases[k].value;
        size_t len = strlen(v);
        if (!out[i])
            out[i] = len > pre + suf ? arena_strndup(a, v + pre, len - pre - suf) : v;
    }
}

struct ranked {
    size_t side;
    const struct cell *value;
    double factor; /* against the baseline, > 1 better; 1 for the baseline itself */
};

static int cmp_ranked(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    if (a->factor != b->factor)
        return a->factor > b->factor ? -1 : 1;
    return a->side < b->side ? -1 : a->side > b->side;
}

/* The value cell of side s in row r of the comparison (baseline at 2, candidate s at 1 + 2s) and
 * its factor cell (at 2 + 2s). */
static const struct cell *side_cell(const struct table *t, size_t r, size_t s)
{
    return table_cell(t, r, s ? 1 + 2 * s : 2);
}

static size_t rank_row(const struct table *t, size_t r, size_t nsides, struct ranked *out)
{
    size_t n = 0;
    for (size_t s = 0; s < nsides; s++) {
        const struct cell *v = side_cell(t, r, s);
        const struct cell *f = s ? table_cell(t, r, 2 + 2 * s) : NULL;
        if (v->kind != CELL_NUMBER || (f && (f->kind != CELL_NUMBER || !isfinite(f->value))))
            continue;
        out[n++] = (struct ranked){s, v, f ? f->value : 1};
    }
    qsort(out, n, sizeof(*out), cmp_ranked);
    return n;
}

/* The section "Ranking": its table, then a bar chart per workload. */
struct ranking {
    struct section *s;
    struct table *t;
};

static void ranking_section(struct report *r, struct ranking *out)
{
    static const struct column cols[] = {
        {"Workload", UNIT_NONE, ROLE_PLAIN}, {"Metric", UNIT_NONE, ROLE_PLAIN},
        {"Rank", UNIT_NONE, ROLE_PLAIN},     {"Configuration", UNIT_NONE, ROLE_PLAIN},
        {"Value", UNIT_NONE, ROLE_PLAIN},    {"Factor vs baseline", UNIT_RATIO, ROLE_PLAIN},
    };
    out->s = report_section(
        r, "Ranking",
        "Many configurations compared: per workload, its first metric with every configuration "
        "sorted best to worst by its factor against the baseline (above 1 is better in the "
        "metric's own direction). Labels are shortened to the part that differs between them, "
        "or as --alias says. Each chart draws the ranking best (top) to worst, the factor "
        "against the baseline beside each bar, the 95 % interval of a mean of repeats as its "
        "error bar.");
    out->t = report_table(r, out->s, "ranking", cols, ARRAY_SIZE(cols));
}

/* The workload's ranking as horizontal bars, best on top, each labelled with its factor. */
static void ranking_figure(struct report *r, struct section *s, const char *workload,
                           const char *metric, enum unit unit, const char *const *labels,
                           const struct ranked *v, size_t n)
{
    struct figure *f =
        section_figure(r, s, FIGURE_BARS, arena_printf(&r->arena, "Ranking: %s", workload));
    f->y = (struct figure_axis){metric, unit, SCALE_LINEAR};
    struct figure_series *fs = figure_series(&r->arena, f, metric);
    for (size_t i = 0; i < n; i++) {
        struct figure_point *p =
            figure_point(&r->arena, fs, (double)figure_category(&r->arena, f, labels[v[i].side]),
                         v[i].value->value);
        p->cell = v[i].value;
        p->label = v[i].side ? arena_printf(&r->arena, "%.2fx", v[i].factor) : "1.00x (baseline)";
        if (isfinite(v[i].value->lo) && isfinite(v[i].value->hi) && cell_averaged(v[i].value)) {
            p->lo = v[i].value->lo;
            p->hi = v[i].value->hi;
        }
    }
    figure_fit_scale(f);
}

/* The workload's ranking rows, best first, and its chart. */
static void rank_workload(struct report *r, struct ranking *rk, const struct table *cmp, size_t row,
                          const char *const *labels, const struct ranked *v, size_t n)
{
    if (!rk->t)
        ranking_section(r, rk);
    const struct cell *name = cmp->rows[row];
    const struct cell *metric = table_cell(cmp, row, 1);
    for (size_t i = 0; i < n; i++) {
        struct cell *c = table_add_row(r, rk->t);
        cell_set_text(&c[0], name->text);
        cell_set_text(&c[1], metric->text);
        cell_set_number(&c[2], (double)(i + 1));
        cell_set_text(&c[3], labels[v[i].side]);
        c[4] = *v[i].value;
        c[4].unit = cell_unit(cmp, row, v[i].side ? 1 + 2 * v[i].side : 2);
        cell_set_number(&c[5], v[i].factor);
    }
    ranking_figure(r, rk->s, name->text, metric->text, cell_unit(cmp, row, 2), labels, v, n);
}

void query_ranking(const struct compare_opts *o, const struct table *cmp, struct report *r)
{
    if (o->nvalues < MIN_RANKED || !cmp)
        return;
    const char **labels = xcalloc(o->nvalues, sizeof(*labels));
    struct ranked *v = xcalloc(o->nvalues, sizeof(*v));
    ranking_labels(o, &r->arena, labels);
    struct ranking rk = {NULL, NULL};
    const char *last = NULL;
    for (size_t row = 0; row < cmp->nrows; row++) {
        const char *name = cmp->rows[row][0].text;
        if (last && !strcmp(last, name))
            continue; /* the first metric of each workload */
        last = name;
        size_t n = rank_row(cmp, row, o->nvalues, v);
        if (n >= MIN_RANKED)
            rank_workload(r, &rk, cmp, row, labels, v, n);
    }
    free(v);
    free(labels);
}
