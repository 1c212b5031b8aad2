/* results.c: loading the compared sides' results (filters bound as parameters, never pasted). */
#include "results.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "capacity.h"
#include "insights.h"
#include "query.h"
#include "side_expr.h"

void add_bind(struct binds *b, const char *s)
{
    ALLOC_GROW(b->v, b->n, b->a);
    b->v[b->n++] = s;
}

/* "bs=4k" filters compare bytes: the value is normalized the way the column stores it. */
static const char *where_value(struct arena *a, const char *key, const char *value)
{
    int64_t bytes;
    if ((!strcmp(key, "bs") || !strcmp(key, "bs_bytes")) && parse_fio_size(value, &bytes))
        return arena_printf(a, "%" PRId64, bytes);
    return value;
}

/* The metric behind each result_metric and the one that stands in when it is absent: a result
 * with no completion latency (clat) has its total latency (lat), e.g. typed into notes. */
static const char *const pivot[RM_COUNT][2] = {
    {"bw_bytes_s", NULL},
    {"iops", NULL},
    {"clat_mean_ns", "lat_mean_ns"},
    {"clat_p99_ns", "lat_p99_ns"},
    {"clat_p50_ns", "lat_p50_ns"},
    {"runtime_ms", NULL},
    {"lat_mean_ns", "clat_mean_ns"},
    {"sync_lat_mean_ns", NULL},
    {"sync_lat_p99_ns", NULL},
    {"sync_lat_p50_ns", NULL},
    {"slat_mean_ns", NULL},
    {"lat_p99_ns", NULL},
};

/* The tags a comparison reads, in one pass over the table once the results are loaded: a
 * subquery per result cost 0.7 us each even when it found nothing (0.7 s a million). */
static const char TAGS_SQL[] = "SELECT result_id, key, value FROM tag WHERE key IN "
                               "('aggregate', 'part', 'os', 'label', 'protocol', 'cached', "
                               "'nfs_export', 'range', 'fio_defaults')";

/* Appends side i's condition (side_condition) and its parameters. */
static void add_side(struct buf *sql, struct binds *b, const struct compare_opts *o, size_t i)
{
    const char *params[2];
    int n = side_condition(sql, o->keys ? o->keys[i] : o->by, o->values[i], params);
    for (int k = 0; k < n; k++)
        add_bind(b, params[k]);
}

/* The side of a result: the first of the compared values whose condition it meets (a result
 * of a saved baseline and of a candidate is the baseline's). */
static void side_case(struct buf *sql, struct binds *b, const struct compare_opts *o)
{
    buf_adds(sql, "CASE");
    for (size_t i = 0; i < o->nvalues; i++) {
        buf_adds(sql, " WHEN ");
        add_side(sql, b, o, i);
        buf_addf(sql, " THEN %zu", i);
    }
    buf_adds(sql, " END");
}

int query_where_sql(const struct kv *where, size_t n, struct arena *a, struct buf *sql,
                    struct binds *b, struct diag *d)
{
    for (size_t i = 0; i < n; i++) {
        const char *wparam;
        const char *wx = query_key_expr(where[i].key, &wparam);
        if (!wx)
            return diag_error(d, "unknown --where key '%s'", where[i].key);
        buf_addf(sql, " AND %s = ?", wx);
        if (wparam)
            add_bind(b, wparam);
        add_bind(b, where_value(a, where[i].key, where[i].value));
    }
    return 0;
}

/* Whether the compared sides hold a quarter of the warehouse's results or more: then the
 * result table is read in its order (query_selection_sql's in_order) rather than each result
 * found through the index on the compared key, a B-tree seek per result (0.9 s of a report on
 * a million). Asked only when that index is all that picks the results: a key with an index of
 * its own, no --where filter and no saved baseline as a side. */
static int read_in_order(struct db *db, const struct compare_opts *o)
{
    const char *param;
    const char *column = query_key_expr(o->by, &param);
    if (!column || (strcmp(column, "r.storage_class") && strcmp(column, "r.host")) || o->nwhere ||
        !o->nvalues || o->keys)
        return 0;
    for (size_t i = 0; i < o->nvalues; i++)
        if (side_baseline(o->values[i]))
            return 0;
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "SELECT (SELECT count(*) FROM result r WHERE %s IN (", column);
    for (size_t i = 0; i < o->nvalues; i++)
        buf_adds(&sql, i ? ", ?" : "?");
    buf_adds(&sql, ")) * 4 >= (SELECT coalesce(max(id), 0) FROM result)");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db_handle(db), &rc, sql.data);
    sql_bind_texts(st, &rc, o->values, o->nvalues);
    int most = sql_step(st, &rc) && sqlite3_column_int(st, 0);
    sqlite3_finalize(st); /* a failure leaves the choice to SQLite, as before */
    buf_release(&sql);
    return most;
}

static int build_sql(struct db *db, const struct compare_opts *o, struct arena *a, struct buf *sql,
                     struct binds *b, struct diag *d)
{
    const char *param;
    if (!query_key_expr(o->by, &param))
        return diag_error(d,
                          "unknown comparison key '%s' (expected storage-class, host, sec, "
                          "mount:OPTION or tag:NAME)",
                          o->by);
    buf_adds(sql, "SELECT ");
    side_case(sql, b, o);
    buf_addf(sql, ", r.id, s.path, r.host, r.job, coalesce(r.rw, ''), "
                  "coalesce(r.direction, ''), coalesce(run.tool, ''), r.error_msg, "
                  "coalesce(r.line_first, 0), coalesce(r.bs_bytes, -1), coalesce(r.iodepth, -1), "
                  "coalesce(r.numjobs, -1), coalesce(r.direct, -1), coalesce(r.sync, -1), "
                  "coalesce(r.fsync, -1), coalesce(r.fdatasync, -1), coalesce(r.rwmixread, -1), "
                  "r.error, r.transcribed, run.tool_version, r.ioengine, m.options, m.fstype, "
                  "coalesce(r.size_bytes, -1), coalesce(run.started_at, 0), r.sec");
    for (size_t i = 0; i < RM_COUNT; i++) {
        buf_adds(sql, ", coalesce(");
        if (db_metric_expr(db, sql, "r", pivot[i][0], d))
            return -1;
        buf_adds(sql, ", ");
        if (pivot[i][1] && db_metric_expr(db, sql, "r", pivot[i][1], d))
            return -1;
        buf_adds(sql, pivot[i][1] ? ")" : "NULL)");
    }
    /* in rowid order: sort_results() orders them */
    return query_selection_sql(o, read_in_order(db, o), a, sql, b, d);
}

int query_selection_sql(const struct compare_opts *o, int in_order, struct arena *a,
                        struct buf *sql, struct binds *b, struct diag *d)
{
    buf_adds(sql, in_order ? " FROM result r NOT INDEXED CROSS JOIN run ON run.id = r.run_id "
                           : " FROM result r JOIN run ON run.id = r.run_id ");
    buf_adds(sql, "JOIN source_file s ON s.id = run.source_id "
                  "LEFT JOIN mount m ON m.id = r.mount_id WHERE true");
    if (query_where_sql(o->where, o->nwhere, a, sql, b, d))
        return -1;
    db_time_range_sql(sql, "run.started_at", o->dates);
    buf_adds(sql, " AND (");
    for (size_t i = 0; i < o->nvalues; i++) {
        buf_adds(sql, i ? " OR " : "");
        add_side(sql, b, o, i);
    }
    buf_adds(sql, ")");
    return 0;
}

int query_read_rows_sql(const struct compare_opts *o, const char *columns, struct arena *a,
                        struct buf *sql, const char ***params, size_t *nparams, struct diag *d)
{
    struct binds b = {NULL, 0, 0};
    buf_adds(sql, "SELECT ''");
    for (size_t i = 0; i < o->nvalues; i++) {
        buf_adds(sql, " || CASE WHEN ");
        add_side(sql, &b, o, i);
        buf_adds(sql, " THEN '1' ELSE '0' END");
    }
    buf_addf(sql, ", %s", columns);
    int rc = query_selection_sql(o, 0, a, sql, &b, d);
    buf_addf(sql,
             " UNION ALL SELECT '', %s FROM result r JOIN run ON run.id = r.run_id JOIN "
             "source_file s ON s.id = run.source_id LEFT JOIN mount m ON m.id = r.mount_id WHERE "
             "" QUERY_LINKS_WHERE,
             columns);
    *params = b.v;
    *nparams = b.n;
    return rc;
}

int query_reads_metric(const struct compare_opts *o, const char *name)
{
    for (size_t i = 0; i < RM_COUNT; i++)
        for (size_t k = 0; k < 2; k++)
            if (pivot[i][k] && !strcmp(pivot[i][k], name))
                return 1;
    if (o->rules) /* a rules file may name any metric, and its slo lines any percentile */
        return 1;
    size_t len;
    return appendix_reads_metric(name) || capacity_reads_metric(o, name) ||
           recommend_reads_metric(report_builtin_file("tiers.rules", &len), name);
}

/* The strings already stored, so a million results from a few files keep one copy of each
 * path and job name: the keys of a string map (its indexes unused). */
struct intern {
    struct strmap set;
    struct buf scratch; /* the text being interned: a workload key, a tag value (read_row) */
};

static const char *intern(struct side_results *res, const char *s)
{
    struct strmap *set = &res->intern->set;
    const struct strmap_entry *e = strmap_find(set, s);
    if (e)
        return e->key;
    const char *copy = arena_strdup(&res->strings, s);
    strmap_put(set, copy, 0);
    return copy;
}

const char *side_results_intern(struct side_results *res, const char *s)
{
    return intern(res, s);
}

const char *result_group(const struct side_result *r)
{
    return r->group ? r->group : r->workload;
}

void result_group_name(struct buf *out, const struct side_result *r)
{
    if (r->group_name)
        buf_adds(out, r->group_name);
    else
        result_workload_name(out, r);
}

static const char *text(struct side_results *res, sqlite3_stmt *st, int col)
{
    const char *s = sql_text(st, col);
    return s ? intern(res, s) : NULL;
}

/* IOPS = bandwidth / block size and back, where exact: a fixed block size, one direction.
 * Marked derived, so that reports can say so. */
static void derive(struct side_result *r)
{
    if (r->bs <= 0 || !strcmp(r->direction, "mixed") || !strcmp(r->tool, "iperf") ||
        !strcmp(r->tool, "iperf3"))
        return;
    if (isnan(r->m[RM_IOPS]) && r->m[RM_BW] > 0) {
        r->m[RM_IOPS] = r->m[RM_BW] / (double)r->bs;
        r->derived |= 1u << RM_IOPS;
    } else if (isnan(r->m[RM_BW]) && r->m[RM_IOPS] > 0) {
        r->m[RM_BW] = r->m[RM_IOPS] * (double)r->bs;
        r->derived |= 1u << RM_BW;
    }
}

/* Submission latency under a microsecond is bookkeeping, whatever clat says. */
static const double SUBMISSION_FLOOR_NS = 1000;

int result_submission_dominates(const struct side_result *r)
{
    double slat = r->m[RM_SLAT_MEAN];
    return slat >= SUBMISSION_FLOOR_NS && slat > r->m[RM_LAT_MEAN];
}

/* Where submission dominates, a completion percentile times the wrong part of the I/O: the
 * p99 is the total's where fio gave it (lat_percentiles=1), else unknown, never the
 * completion's (a 181x "lower p99" for reads done inside io_submit). */
static void p99_of_the_io(struct side_result *r)
{
    if (!result_submission_dominates(r))
        return;
    r->m[RM_P99] = r->m[RM_LAT_P99];
    r->p99_untimed = isnan(r->m[RM_P99]);
}

/* The key's text, written once per loaded result (a million printf calls cost a second). */
static void format_workload_key(struct buf *out, const struct side_result *r)
{
    const int64_t ints[] = {
        r->bs,       result_engine_is_sync(r) && r->iodepth > 1 ? 1 : r->iodepth,
        r->numjobs,  r->direct,
        r->sync,     r->fsync,
        r->fdatasync};
    buf_adds(out, r->rw);
    for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
        buf_addc(out, '|');
        buf_add_int(out, ints[i]);
    }
    buf_addc(out, '|');
    buf_adds(out, r->direction);
    buf_addc(out, '|');
    buf_adds(out, r->tool);
    buf_addc(out, '|');
    buf_add_int(out, r->rwmixread);
}

/* Sets the field that tag key gives r. */
static void apply_tag(struct side_results *res, struct side_result *r, const char *key,
                      const char *value)
{
    if (!strcmp(key, "aggregate"))
        r->aggregate = 1;
    else if (!strcmp(key, "part"))
        r->part = 1;
    else if (!strcmp(key, "os"))
        r->os = intern(res, value);
    else if (!strcmp(key, "label"))
        r->label = intern(res, value);
    else if (!strcmp(key, "protocol"))
        r->protocol = intern(res, value);
    else if (!strcmp(key, "nfs_export"))
        r->nfs_export = 1;
    else if (!strcmp(key, "fio_defaults")) /* "ioengine=psync,direct=0" */
        r->engine_default = str_starts(value, "ioengine=") || strstr(value, ",ioengine=");
    else if (!strcmp(key, "range"))
        r->range = intern(res, value);
    else if (!strcmp(key, "cached")) /* unless it says no */
        r->stated_cached =
            strcmp(value, "0") && strcasecmp(value, "no") && strcasecmp(value, "false");
}

static void read_row(struct side_results *a, sqlite3_stmt *st, struct side_result *r)
{
    memset(r, 0, sizeof(*r)); /* ALLOC_GROW does not clear: derived and suspect start empty */
    r->side = (size_t)sqlite3_column_int64(st, 0);
    r->id = sqlite3_column_int64(st, 1);
    r->source = text(a, st, 2);
    r->host = text(a, st, 3);
    r->job = text(a, st, 4);
    r->rw = text(a, st, 5);
    r->direction = text(a, st, 6);
    r->tool = text(a, st, 7);
    r->error_msg = text(a, st, 8);
    r->line = sqlite3_column_int(st, 9);
    int64_t *ints[] = {&r->bs,   &r->iodepth, &r->numjobs,   &r->direct,
                       &r->sync, &r->fsync,   &r->fdatasync, &r->rwmixread};
    for (int i = 0; i < 8; i++)
        *ints[i] = sqlite3_column_int64(st, 10 + i);
    r->error = sqlite3_column_int(st, 18);
    r->transcribed = sqlite3_column_int(st, 19);
    const char **strs[] = {&r->tool_version, &r->ioengine, &r->mount, &r->fstype};
    for (int i = 0; i < 4; i++)
        *strs[i] = text(a, st, 20 + i);
    r->size = sqlite3_column_int64(st, 24);
    r->started_at = sqlite3_column_int64(st, 25);
    r->sec = text(a, st, 26);
    for (int i = 0; i < RM_COUNT; i++) {
        int col = 27 + i;
        r->m[i] = sql_real(st, col);
    }
    derive(r);
    p99_of_the_io(r);
    struct buf *key = &a->intern->scratch;
    buf_reset(key);
    format_workload_key(key, r);
    r->workload = intern(a, key->data);
}

/* ---- the order of the results ---- */

/* Every interned string's rank in byte order (0: NULL), found by its address: a million
 * results are then ordered by comparing integers. */
struct ranks {
    const char **key;
    uint32_t *rank;
    size_t mask;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t address_slot(const struct ranks *rk, const char *p)
{
    return (size_t)(((uintptr_t)p * UINT64_C(11400714819323198485)) >> 20) & rk->mask;
}

static void ranks_build(struct ranks *rk, const struct intern *in)
{
    const char **sorted = xmalloc((in->set.n ? in->set.n : 1) * sizeof(*sorted));
    size_t n = 0;
    for (size_t i = 0; i < in->set.cap; i++)
        if (in->set.slot[i].key)
            sorted[n++] = in->set.slot[i].key;
    qsort(sorted, n, sizeof(*sorted), cmp_str);
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    rk->key = xcalloc(cap, sizeof(*rk->key));
    rk->rank = xmalloc(cap * sizeof(*rk->rank));
    rk->mask = cap - 1;
    for (size_t i = 0; i < n; i++) {
        size_t j = address_slot(rk, sorted[i]);
        while (rk->key[j])
            j = (j + 1) & rk->mask;
        rk->key[j] = sorted[i];
        rk->rank[j] = (uint32_t)i + 1;
    }
    free(sorted);
}

static uint32_t rank_of(const struct ranks *rk, const char *p)
{
    if (!p)
        return 0;
    size_t j = address_slot(rk, p);
    while (rk->key[j] != p)
        j = (j + 1) & rk->mask;
    return rk->rank[j];
}

struct order_key {
    uint32_t source, job, direction;
    int line;
    int64_t id;
    size_t index; /* in the loaded order */
};

static int cmp_order(const void *pa, const void *pb)
{
    const struct order_key *a = pa, *b = pb;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->direction != b->direction)
        return a->direction < b->direction ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* By source path, line, job, direction, then id (not by id alone: the same inputs give the
 * same report whatever the order they were imported in). Sorting small integer keys and then
 * moving each result once is several times faster than SQLite's sorter on wide rows. */
static void sort_results(struct side_results *res)
{
    struct ranks rk;
    ranks_build(&rk, res->intern);
    struct order_key *k = xmalloc((res->n ? res->n : 1) * sizeof(*k));
    for (size_t i = 0; i < res->n; i++) {
        const struct side_result *r = &res->v[i];
        k[i] = (struct order_key){rank_of(&rk, r->source),
                                  rank_of(&rk, r->job),
                                  rank_of(&rk, r->direction),
                                  r->line,
                                  r->id,
                                  i};
    }
    qsort(k, res->n, sizeof(*k), cmp_order);
    /* in place, one cycle of the permutation at a time: position i takes k[i].index */
    for (size_t i = 0; i < res->n; i++) {
        if (k[i].index == i || k[i].index == SIZE_MAX)
            continue;
        struct side_result first = res->v[i];
        size_t at = i;
        while (k[at].index != i) {
            size_t from = k[at].index;
            res->v[at] = res->v[from];
            k[at].index = SIZE_MAX;
            at = from;
        }
        res->v[at] = first;
        k[at].index = SIZE_MAX;
    }
    free(k);
    free(rk.key);
    free(rk.rank);
}

/* ---- results by id ---- */

/* Open addressing, id -> index in v; built once the results are in their order. */
struct id_map {
    int64_t *id;
    size_t *index;
    size_t mask;
};

static size_t id_slot(const struct id_map *m, int64_t id)
{
    return (size_t)(((uint64_t)id * UINT64_C(11400714819323198485)) >> 17) & m->mask;
}

static void id_map_build(struct side_results *res)
{
    struct id_map *m = xcalloc(1, sizeof(*m));
    size_t cap = 16;
    while (cap < 2 * res->n)
        cap *= 2;
    m->id = xmalloc(cap * sizeof(*m->id));
    m->index = xmalloc(cap * sizeof(*m->index));
    m->mask = cap - 1;
    for (size_t j = 0; j < cap; j++)
        m->index[j] = SIZE_MAX;
    for (size_t i = 0; i < res->n; i++) {
        size_t j = id_slot(m, res->v[i].id);
        while (m->index[j] != SIZE_MAX)
            j = (j + 1) & m->mask;
        m->id[j] = res->v[i].id;
        m->index[j] = i;
    }
    res->by_id = m;
}

long side_results_find(const struct side_results *res, int64_t id)
{
    const struct id_map *m = res->by_id;
    if (!m)
        return -1;
    for (size_t j = id_slot(m, id); m->index[j] != SIZE_MAX; j = (j + 1) & m->mask)
        if (m->id[j] == id)
            return (long)m->index[j];
    return -1;
}

/* Sets the tags st gives (result_id, key, value) on their results. */
static void apply_tag_rows(sqlite3_stmt *st, struct side_results *res, int *rc)
{
    while (sql_step(st, rc)) {
        long i = side_results_find(res, sqlite3_column_int64(st, 0));
        const char *key = sql_text(st, 1);
        const char *value = sql_text(st, 2);
        if (i >= 0 && key && value)
            apply_tag(res, &res->v[i], key, value);
    }
}

/* Up to this many results, their tags are looked up by id (the table's key): a comparison of
 * a few results in a big warehouse does not read all of its tags. Beyond, one pass over the
 * table is cheaper than a lookup per result. */
enum { TAGS_BY_ID_MAX = 4096 };

/* The tags of TAGS_SQL set on the results they belong to. */
static void load_tags(sqlite3 *h, struct side_results *res, int *rc)
{
    int by_id = res->n <= TAGS_BY_ID_MAX;
    struct buf sql = BUF_INIT;
    buf_adds(&sql, TAGS_SQL);
    if (by_id)
        buf_adds(&sql, " AND result_id = ?");
    sqlite3_stmt *st = sql_prepare(h, rc, sql.data);
    buf_release(&sql);
    if (!by_id)
        apply_tag_rows(st, res, rc);
    for (size_t i = 0; by_id && i < res->n; i++) {
        sql_bind_int_at(st, rc, 1, res->v[i].id);
        apply_tag_rows(st, res, rc);
        sql_release(st);
    }
    sql_finalize(st, rc);
}

/* The results sql (its ? bound to b) selects, sorted, with their tags; 0, or -1 after a
 * message. */
static int load_results(sqlite3 *h, const char *sql, const struct binds *b,
                        struct side_results *out, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql);
    sql_bind_texts(st, &rc, b->v, b->n);
    while (sql_step(st, &rc)) {
        ALLOC_GROW(out->v, out->n, out->a);
        read_row(out, st, &out->v[out->n++]);
    }
    if (rc == SQLITE_OK) {
        sort_results(out);
        id_map_build(out);
        load_tags(h, out, &rc);
    }
    /* said before st is finalized, which would set SQLite's message back to "not an error" */
    int failed = rc != SQLITE_OK ? diag_error(d, "cannot compare: %s", sqlite3_errmsg(h)) : 0;
    sqlite3_finalize(st);
    return failed;
}

int query_side_results(struct db *db, const struct compare_opts *o, struct side_results *out,
                       struct diag *d)
{
    struct buf sql = BUF_INIT;
    struct binds b = {NULL, 0, 0};
    memset(out, 0, sizeof(*out));
    out->intern = xcalloc(1, sizeof(*out->intern));
    buf_init(&out->intern->scratch);
    int rc = build_sql(db, o, &out->strings, &sql, &b, d);
    if (rc == 0)
        rc = load_results(db_handle(db), sql.data, &b, out, d);
    buf_release(&sql);
    free(b.v);
    return rc;
}

void side_results_release(struct side_results *res)
{
    free(res->v);
    if (res->by_id) {
        free(res->by_id->id);
        free(res->by_id->index);
    }
    free(res->by_id);
    if (res->intern) {
        strmap_release(&res->intern->set);
        buf_release(&res->intern->scratch);
    }
    free(res->intern);
    arena_release(&res->strings);
    memset(res, 0, sizeof(*res));
}

static int is_write(const struct side_result *r)
{
    if (!strcmp(r->direction, "write"))
        return 1;
    if (!strcmp(r->direction, "mixed") || !*r->direction)
        return strstr(r->rw, "write") || !strcmp(r->rw, "rw") || !strcmp(r->rw, "randrw");
    return 0;
}

int result_is_sync(const struct side_result *r)
{
    return is_write(r) && (r->sync > 0 || r->fsync > 0 || r->fdatasync > 0);
}

/* The end of the option at o in a canonical option list: its comma, or its NUL. A quoted value
 * (SELinux's context="a,b") keeps its commas (core/mount_opts.c). */
static const char *option_end(const char *o)
{
    int quoted = 0;
    for (; *o && (quoted || *o != ','); o++)
        quoted ^= *o == '"';
    return o;
}

int result_mount_is_sync(const struct side_result *r)
{
    for (const char *o = r->mount; o && *o;) {
        const char *end = option_end(o);
        if (end - o == 4 && !memcmp(o, "sync", 4))
            return 1;
        o = *end ? end + 1 : end;
    }
    return 0;
}

int64_t result_writes_per_flush(const struct side_result *r)
{
    return r->fsync > 0 ? r->fsync : r->fdatasync > 0 ? r->fdatasync : 0;
}

int result_write_waits(const struct side_result *r)
{
    return (r->sync > 0 || result_mount_is_sync(r)) && is_write(r); /* is_write: strcmp */
}

int result_engine_is_sync(const struct side_result *r)
{
    static const char *const engines[] = {"sync", "psync", "vsync", "pvsync", "pvsync2"};
    for (size_t i = 0; r->ioengine && i < ARRAY_SIZE(engines); i++)
        if (!strcmp(r->ioengine, engines[i]))
            return 1;
    return 0;
}

/* One end of a typed range: its number and unit ("13", "ms"; the unit may be empty). */
static int range_end(const char **p, double *v, const char **unit, size_t *unit_len)
{
    while (**p == ' ')
        (*p)++;
    if (!scan_number(p, v))
        return 0;
    while (**p == ' ')
        (*p)++;
    *unit = *p;
    while (**p && **p != '-' && **p != ' ')
        (*p)++;
    *unit_len = (size_t)(*p - *unit);
    while (**p == ' ')
        (*p)++;
    return 1;
}

/* The multiplier from a typed unit to m's base unit (a bare number: 1), 0 when unknown. */
static double range_unit(enum result_metric m, const char *u, size_t n)
{
    if (!n)
        return 1;
    if (m == RM_BW) {
        const char *slash = memchr(u, '/', n);
        return slash && slash + 2 == u + n && slash[1] == 's'
                   ? unit_bytes(u, (size_t)(slash - u), 0)
                   : 0;
    }
    if (m == RM_IOPS)
        return n == 1 && (*u == 'k' || *u == 'K') ? 1e3 : 0;
    if (m == RM_RUNTIME)
        return unit_time_ns(u, n) / 1e6;
    return unit_time_ns(u, n);
}

int result_typed_range(const struct side_result *r, enum result_metric m, struct buf *out)
{
    const char *p = r->range, *ul, *uh;
    size_t nl, nh;
    double lo, hi;
    if (!p || isnan(r->m[m]) || !range_end(&p, &lo, &ul, &nl) || *p++ != '-' ||
        !range_end(&p, &hi, &uh, &nh) || *p)
        return 0;
    double kl = range_unit(m, nl ? ul : uh, nl ? nl : nh), kh = range_unit(m, uh, nh);
    double mid = (lo * kl + hi * kh) / 2;
    if (!(kl > 0 && kh > 0) || !(fabs(r->m[m] - mid) <= 1e-9 * fabs(mid)))
        return 0; /* the range is another metric's */
    if (out) {
        const char *a = r->range;
        while (*a == ' ')
            a++;
        /* "13-15ms" and "13 ms - 15 ms" read "13-15 ms"; ends in two units keep both */
        size_t same = nl && (nl != nh || memcmp(ul, uh, nh));
        buf_addf(out, "%g%s%.*s-%g%s%.*s", lo, same ? " " : "", same ? (int)nl : 0, ul, hi,
                 nh ? " " : "", (int)nh, uh);
    }
    return 1;
}

int result_is_network_fs(const struct side_result *r)
{
    static const char *const net[] = {"nfs",       "nfs4", "cifs",   "smb3",   "smbfs", "ceph",
                                      "glusterfs", "9p",   "lustre", "beegfs", "gpfs"};
    if (!r->fstype) /* a note that names the NFS export (df's Filesystem, "NFS Server:") */
        return r->nfs_export;
    if (!strncmp(r->fstype, "fuse.", 5))
        return 1;
    for (size_t i = 0; i < ARRAY_SIZE(net); i++)
        if (!strcmp(r->fstype, net[i]))
            return 1;
    return 0;
}

int result_usable(const struct side_result *r)
{
    return !r->error && !r->part;
}

int query_metric_values(struct db *db, const struct side_results *res, const char *name,
                        double *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT ");
    if (db_metric_expr(db, &sql, "r", name, d)) {
        buf_release(&sql);
        return -1;
    }
    buf_adds(&sql, " FROM result r WHERE r.id = ?");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql.data);
    buf_release(&sql);
    for (size_t i = 0; i < res->n; i++) {
        sql_bind_int_at(st, &rc, 1, res->v[i].id);
        /* a NULL column: the metric is unknown (absent), never 0 */
        out[i] = sql_step(st, &rc) ? sql_real(st, 0) : NAN;
        sql_release(st);
    }
    int failed =
        rc != SQLITE_OK ? diag_error(d, "cannot read metric '%s': %s", name, sqlite3_errmsg(h)) : 0;
    sqlite3_finalize(st);
    return failed;
}

static void size_label(struct buf *out, int64_t bytes)
{
    if (bytes >= 1048576 && bytes % 1048576 == 0)
        buf_addf(out, "%" PRId64 "M", bytes / 1048576);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        buf_addf(out, "%" PRId64 "K", bytes / 1024);
    else
        buf_addf(out, "%" PRId64 "B", bytes);
}

static const char *rw_label(const char *rw)
{
    static const char *const map[][2] = {
        {"read", "Sequential Read"}, {"write", "Sequential Write"},
        {"randread", "Random Read"}, {"randwrite", "Random Write"},
        {"rw", "Sequential Mixed"},  {"readwrite", "Sequential Mixed"},
        {"randrw", "Random Mixed"},  {"trim", "Sequential Trim"},
        {"randtrim", "Random Trim"}, {"trimwrite", "Trim+Write"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(map); i++)
        if (!strcmp(rw, map[i][0]))
            return map[i][1];
    return NULL;
}

static int is_mixed(const char *rw)
{
    return !strcmp(rw, "randrw") || !strcmp(rw, "rw") || !strcmp(rw, "readwrite");
}

int result_is_mixed(const struct side_result *r)
{
    return is_mixed(r->rw);
}

int result_is_network(const struct side_result *r)
{
    return !strcmp(r->tool, "iperf") || !strcmp(r->tool, "iperf3");
}

void network_test_label(struct buf *out, const char *tool, const char *protocol, int64_t streams)
{
    buf_adds(out, tool && *tool ? tool : "iperf");
    if (protocol) {
        buf_addc(out, ' ');
        for (const char *p = protocol; *p; p++)
            buf_addc(out, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    }
    if (streams > 0)
        buf_addf(out, ", %" PRId64 " stream%s", streams, streams == 1 ? "" : "s");
}

/* "iperf3 TCP, 4 streams (send)": what a network engineer calls the test. */
static void network_name(struct buf *out, const struct side_result *r)
{
    network_test_label(out, r->tool, r->protocol, r->numjobs);
    if (*r->direction)
        buf_addf(out, " (%s)", r->direction);
}

void result_workload_name(struct buf *out, const struct side_result *r)
{
    if (result_is_network(r)) {
        network_name(out, r);
        return;
    }
    const char *label = rw_label(r->rw);
    /* a typed note may give the mix ("70% read / 30% write") without fio's rw= */
    int mixed = (label && is_mixed(r->rw)) || (!*r->rw && r->rwmixread >= 0);
    if (label)
        buf_adds(out, label);
    else if (*r->rw)
        buf_adds(out, r->rw);
    else if (mixed)
        buf_adds(out, "Mixed");
    else
        buf_addf(out, "%s %s", *r->tool ? r->tool : "unknown", r->direction);
    if (mixed && r->rwmixread >= 0 && r->rwmixread <= 100)
        buf_addf(out, " %" PRId64 "/%" PRId64, r->rwmixread, 100 - r->rwmixread);
    if (r->bs > 0) {
        buf_addc(out, ' ');
        size_label(out, r->bs);
    }
    /* synchronous engines run one I/O per job whatever iodepth says: no "QD16" for them */
    if (r->iodepth > 1 && !result_engine_is_sync(r))
        buf_addf(out, " QD%" PRId64, r->iodepth);
    if (r->numjobs > 1)
        buf_addf(out, " x%" PRId64 " jobs", r->numjobs);
    if (result_is_sync(r))
        buf_adds(out, " sync");
    if (r->direct == 0)
        buf_adds(out, " buffered");
    if (mixed && *r->direction)
        buf_addf(out, " (%s)", r->direction);
}

void result_workload_key(struct buf *out, const struct side_result *r)
{
    buf_adds(out, r->workload);
}
