/* gate.c: the comparison table as a CI gate. It reads the report model only: every verdict,
 * interval and phrase is the comparison's own (compare.c), so a gate and a report never
 * disagree. */
#include "gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "compare.h"

static const struct table *comparison_table(const struct report *r)
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct table *t = r->sections[i].table;
        if (t && !strcmp(t->name, "comparison"))
            return t;
    }
    return NULL;
}

/* A factor "how many times better" below 1 / (1 + threshold) means the baseline beats the
 * candidate by more than the threshold, whichever way the metric is better. A significant
 * factor reported as equivalent (within +-5 %) still fails a threshold below 5 %. */
static int fails(const struct cell *f, double threshold_pct)
{
    return f->kind == CELL_NUMBER && compare_significant(f) && isfinite(f->value) &&
           f->value < 1 / (1 + threshold_pct / 100);
}

static void read_factor(struct gate *g, const struct table *t, size_t row, size_t col,
                        double threshold_pct)
{
    const struct cell *cells = t->rows[row];
    const struct cell *f = &cells[col];
    if (f->kind != CELL_NUMBER)
        return; /* a side without this metric: nothing compared */
    if (f->verdict == VERDICT_SINGLE_RUN) {
        g->single_run++;
        return;
    }
    g->tested++;
    if (!fails(f, threshold_pct))
        return;
    size_t key = table_find_role(t, ROLE_KEY), metric = table_find_role(t, ROLE_METRIC);
    ALLOC_GROW(g->v, g->n, g->a);
    g->v[g->n++] =
        (struct gate_regression){key < t->ncols ? cells[key].text : "",
                                 metric < t->ncols ? cells[metric].text : "", t->cols[col].name, f};
}

size_t gate_evaluate(const struct report *r, double threshold_pct, struct gate *g)
{
    memset(g, 0, sizeof(*g));
    const struct table *t = comparison_table(r);
    if (!t)
        return 0;
    for (size_t row = 0; row < t->nrows; row++)
        for (size_t col = 0; col < t->ncols; col++)
            if (t->cols[col].role == ROLE_FACTOR)
                read_factor(g, t, row, col, threshold_pct);
    return g->n;
}

void gate_release(struct gate *g)
{
    free(g->v);
    memset(g, 0, sizeof(*g));
}
