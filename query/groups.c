/* groups.c: results in groups (key, side, swept value), sorted, and the latency bins of a
 * group's results merged (groups.h). */
#include "groups.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/array.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "identity.h"

static int bins_failed(sqlite3 *h, struct diag *d)
{
    return diag_error(d, "cannot read latency bins: %s", sqlite3_errmsg(h));
}

int groups_load_binned(sqlite3 *h, struct id_set *s, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, "SELECT DISTINCT result_id FROM histogram ORDER BY 1");
    while (sql_step(st, &rc)) {
        ALLOC_GROW(s->v, s->n, s->a);
        s->v[s->n++] = sqlite3_column_int64(st, 0);
    }
    sql_finalize(st, &rc);
    return rc == SQLITE_OK ? 0 : bins_failed(h, d);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int id_set_has(const struct id_set *s, int64_t id)
{
    return s->n && bsearch(&id, s->v, s->n, sizeof(*s->v), cmp_id) != NULL;
}

static int cmp_int64(int64_t x, int64_t y)
{
    return x < y ? -1 : x > y;
}

/* The results' strings are interned: one pointer for equal texts, which sorts a million of
 * them without reading most. */
static int cmp_text(const char *x, const char *y)
{
    return x == y ? 0 : strcmp(x, y);
}

static int cmp_group(const struct group *x, const struct group *y)
{
    int c = cmp_text(x->workload, y->workload);
    if (!c)
        c = cmp_text(x->rw, y->rw);
    if (!c)
        c = cmp_text(x->direction, y->direction);
    const int64_t xs[] = {x->bs, x->other, x->direct, x->sync, x->fsync};
    const int64_t ys[] = {y->bs, y->other, y->direct, y->sync, y->fsync};
    for (size_t i = 0; !c && i < ARRAY_SIZE(xs); i++)
        c = cmp_int64(xs[i], ys[i]);
    return c;
}

static int cmp_items(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    int c = cmp_group(&x->key, &y->key);
    if (c)
        return c;
    if (x->side != y->side)
        return x->side < y->side ? -1 : 1;
    if (x->x != y->x)
        return x->x < y->x ? -1 : 1;
    return x->r->id < y->r->id ? -1 : x->r->id > y->r->id;
}

void items_add(struct items *it, struct group key, const struct side_result *r, int64_t x,
               const struct id_set *binned)
{
    ALLOC_GROW(it->v, it->n, it->a);
    it->v[it->n++] = (struct item){key, r->side, x, r, id_set_has(binned, r->id)};
}

void items_sort(struct items *it)
{
    if (it->n)
        qsort(it->v, it->n, sizeof(*it->v), cmp_items);
}

void items_release(struct items *it)
{
    free(it->v);
}

/* The end of the run of items from i that share the key (and the side, when by_side). */
size_t items_run_end(const struct items *it, size_t i, int by_side)
{
    size_t j = i;
    while (j < it->n && !cmp_group(&it->v[j].key, &it->v[i].key) &&
           (!by_side || it->v[j].side == it->v[i].side))
        j++;
    return j;
}

/* The context keys (identity.h) whose value differs between the results of one side among
 * items [i, end), sorted by side. */
static unsigned varying_within_sides(const struct items *it, size_t i, size_t end, const char *by)
{
    struct buf scratch[2] = {BUF_INIT, BUF_INIT};
    unsigned mask = 0;
    for (size_t first = i, j = i; j < end; j++) {
        if (it->v[j].side != it->v[first].side)
            first = j;
        mask |= context_differs(it->v[first].r, it->v[j].r, mask, by, scratch);
    }
    buf_release(&scratch[0]);
    buf_release(&scratch[1]);
    return mask;
}

/* key, then the values of r's context keys in mask, '|'-tagged (identity.h), kept in a. */
static const char *with_context(struct arena *a, const char *key, const struct side_result *r,
                                unsigned mask, const char *by)
{
    struct buf name = BUF_INIT, k = BUF_INIT;
    buf_adds(&k, key);
    context_label(&name, &k, r, mask, by);
    const char *s = arena_strdup(a, k.data);
    buf_release(&name);
    buf_release(&k);
    return s;
}

/* A family's contexts and the key each gives: a family has few, and its items, sorted by side
 * and depth, take them in turns. */
struct context_keys {
    struct context_key_of {
        const char *context, *key;
    } * v;
    size_t n, a;
};

static const char *key_of(struct context_keys *ck, struct arena *a, const char *family,
                          const struct side_result *x, unsigned mask, const char *by)
{
    for (size_t i = 0; i < ck->n; i++)
        if (ck->v[i].context == x->context) /* interned: one context, one pointer */
            return ck->v[i].key;
    ALLOC_GROW(ck->v, ck->n, ck->a);
    ck->v[ck->n] = (struct context_key_of){x->context, with_context(a, family, x, mask, by)};
    return ck->v[ck->n++].key;
}

void items_split_contexts(struct items *it, struct arena *a, const char *by)
{
    struct context_keys ck = {0};
    for (size_t i = 0, end; i < it->n; i = end) {
        end = items_run_end(it, i, 0);
        unsigned mask = varying_within_sides(it, i, end, by);
        if (!mask)
            continue;
        const char *family = it->v[i].key.workload;
        ck.n = 0;
        for (size_t j = i; j < end; j++)
            it->v[j].key.workload = key_of(&ck, a, family, it->v[j].r, mask, by);
        qsort(it->v + i, end - i, sizeof(*it->v), cmp_items);
    }
    free(ck.v);
}

size_t items_x_end(const struct items *it, size_t i, size_t end)
{
    size_t j = i;
    while (j < end && it->v[j].x == it->v[i].x)
        j++;
    return j;
}

void sweep_name(struct buf *out, const struct side_result *first, int swept_depth, int swept_jobs)
{
    struct side_result r = *first;
    if (swept_depth)
        r.iodepth = 1;
    if (swept_jobs)
        r.numjobs = 1;
    result_workload_name(out, &r);
    const char *context = first->group_name ? strstr(first->group_name, " [") : NULL;
    if (context)
        buf_adds(out, context);
}

/* ---- merged histograms ---- */

/* The bins of every result of items[from, to) summed per latency, of kind "clat" (else
 * "lat"): 0, or -1 after a message. */
int bins_merge(sqlite3 *h, const struct item *v, size_t from, size_t to, struct bins *out,
               struct diag *d)
{
    out->n = 0;
    out->total = 0;
    struct buf ids = BUF_INIT;
    for (size_t i = from; i < to; i++)
        if (v[i].binned)
            buf_addf(&ids, "%s%" PRId64, ids.len ? "," : "[", v[i].r->id);
    if (!ids.len)
        return 0; /* none of them has bins */
    buf_addc(&ids, ']');
    int rc = SQLITE_OK;
    sqlite3_stmt *st =
        sql_prepare(h, &rc,
                    "SELECT b.value ->> 0 AS ns, sum(b.value ->> 1) FROM histogram hg, "
                    "json_each(hg.bins) b WHERE hg.metric = :metric AND hg.result_id IN "
                    "(SELECT value FROM json_each(:ids)) GROUP BY ns ORDER BY ns");
    static const char *const kinds[] = {"clat", "lat"};
    for (size_t k = 0; k < 2 && !out->n; k++) {
        sql_bind_text(st, &rc, ":metric", kinds[k]);
        sql_bind_text(st, &rc, ":ids", ids.data);
        while (sql_step(st, &rc)) {
            ALLOC_GROW(out->ns, out->n, out->a);
            out->count = xrealloc(out->count, out->a * sizeof(*out->count));
            out->ns[out->n] = sqlite3_column_double(st, 0);
            out->count[out->n] = sqlite3_column_double(st, 1);
            out->total += out->count[out->n++];
        }
        sql_release(st);
    }
    sql_finalize(st, &rc);
    buf_release(&ids);
    return rc == SQLITE_OK ? 0 : bins_failed(h, d);
}

/* fio's rule (calc_clat_percentiles): the first bin whose cumulative count reaches p % of all. */
double bins_percentile(const struct bins *b, double pct)
{
    double sum = 0;
    for (size_t i = 0; i < b->n; i++) {
        sum += b->count[i];
        if (sum >= pct / 100.0 * b->total)
            return b->ns[i];
    }
    return b->n ? b->ns[b->n - 1] : NAN;
}

void bins_release(struct bins *b)
{
    free(b->ns);
    free(b->count);
}
