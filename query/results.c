/* results.c: loading the compared sides' results (filters bound as parameters, never pasted). */
#include "results.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/xalloc.h"

const char *query_key_expr(const char *key, const char **param)
{
    static const char *const names[] = {
        "storage-class", "storage_class", "host",     "sec",   "peer", "rw",
        "direction",     "job",           "ioengine", "tool",  "bs",   "bs_bytes",
        "iodepth",       "numjobs",       "direct",   "source"};
    static const char *const exprs[] = {
        "r.storage_class", "r.storage_class", "r.host",     "r.sec",    "r.peer",     "r.rw",
        "r.direction",     "r.job",           "r.ioengine", "run.tool", "r.bs_bytes", "r.bs_bytes",
        "r.iodepth",       "r.numjobs",       "r.direct",   "s.path"};
    *param = NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(key, names[i]))
            return exprs[i];
    if (!strncmp(key, "mount:", 6) && key[6]) {
        *param = key + 6;
        return "(SELECT mo.value FROM mount_option mo WHERE mo.mount_id = r.mount_id AND "
               "mo.key = ?)";
    }
    if (!strncmp(key, "tag:", 4) && key[4]) {
        *param = key + 4;
        return "(SELECT t.value FROM tag t WHERE t.result_id = r.id AND t.key = ?)";
    }
    return NULL;
}

struct binds {
    const char **v;
    size_t n, a;
};

static void add_bind(struct binds *b, const char *s)
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
};

static int build_sql(struct db *db, const struct compare_opts *o, struct arena *a, struct buf *sql,
                     struct binds *b, struct diag *d)
{
    const char *param;
    const char *kx = query_key_expr(o->by, &param);
    if (!kx)
        return diag_error(d,
                          "unknown comparison key '%s' (expected storage-class, host, sec, "
                          "mount:OPTION or tag:NAME)",
                          o->by);
    buf_addf(sql,
             "SELECT %s, r.id, s.path, r.host, r.job, coalesce(r.rw, ''), "
             "coalesce(r.direction, ''), coalesce(run.tool, ''), r.error_msg, "
             "coalesce(r.line_first, 0), coalesce(r.bs_bytes, -1), coalesce(r.iodepth, -1), "
             "coalesce(r.numjobs, -1), coalesce(r.direct, -1), coalesce(r.sync, -1), "
             "coalesce(r.fsync, -1), coalesce(r.fdatasync, -1), coalesce(r.rwmixread, -1), "
             "r.error, EXISTS (SELECT 1 FROM tag WHERE result_id = r.id AND key = 'aggregate'), "
             "EXISTS (SELECT 1 FROM tag WHERE result_id = r.id AND key = 'part'), r.transcribed, "
             "run.tool_version, r.ioengine, m.options, m.fstype, "
             "(SELECT value FROM tag WHERE result_id = r.id AND key = 'os'), "
             "(SELECT value FROM tag WHERE result_id = r.id AND key = 'label'), "
             "coalesce(r.size_bytes, -1), coalesce(run.started_at, 0), "
             "(SELECT value FROM tag WHERE result_id = r.id AND key = 'protocol'), "
             "EXISTS (SELECT 1 FROM tag WHERE result_id = r.id AND key = 'cached' AND "
             "lower(value) NOT IN ('0', 'no', 'false'))",
             kx);
    if (param)
        add_bind(b, param);
    for (size_t i = 0; i < RM_COUNT; i++) {
        buf_adds(sql, ", coalesce(");
        if (db_metric_expr(db, sql, "r", pivot[i][0], d))
            return -1;
        buf_adds(sql, ", ");
        if (pivot[i][1] && db_metric_expr(db, sql, "r", pivot[i][1], d))
            return -1;
        buf_adds(sql, pivot[i][1] ? ")" : "NULL)");
    }
    buf_adds(sql, " FROM result r JOIN run ON run.id = r.run_id "
                  "JOIN source_file s ON s.id = run.source_id "
                  "LEFT JOIN mount m ON m.id = r.mount_id WHERE 1");
    for (size_t i = 0; i < o->nwhere; i++) {
        const char *wparam;
        const char *wx = query_key_expr(o->where_keys[i], &wparam);
        if (!wx)
            return diag_error(d, "unknown --where key '%s'", o->where_keys[i]);
        buf_addf(sql, " AND %s = ?", wx);
        if (wparam)
            add_bind(b, wparam);
        add_bind(b, where_value(a, o->where_keys[i], o->where_vals[i]));
    }
    buf_addf(sql, " AND %s IN (", kx);
    if (param)
        add_bind(b, param);
    for (size_t i = 0; i < o->nvalues; i++) {
        buf_adds(sql, i ? ", ?" : "?");
        add_bind(b, o->values[i]);
    }
    /* by source, not by id: the same inputs give the same report whatever the import order */
    buf_adds(sql, ") ORDER BY s.path, r.line_first, r.job, r.direction, r.id");
    return 0;
}

/* An open-addressing set of the strings already stored, so a million results from a few
 * files keep one copy of each path and job name. */
struct intern {
    const char **slot;
    size_t cap, used;
};

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static const char *intern(struct side_results *res, const char *s)
{
    struct intern *in = res->intern;
    if (in->used * 2 >= in->cap) {
        struct intern bigger = {xcalloc(in->cap ? in->cap * 2 : 256, sizeof(char *)),
                                in->cap ? in->cap * 2 : 256, in->used};
        for (size_t i = 0; i < in->cap; i++) {
            if (!in->slot[i])
                continue;
            size_t j = hash_str(in->slot[i]) & (bigger.cap - 1);
            while (bigger.slot[j])
                j = (j + 1) & (bigger.cap - 1);
            bigger.slot[j] = in->slot[i];
        }
        free(in->slot);
        *in = bigger;
    }
    size_t j = hash_str(s) & (in->cap - 1);
    for (; in->slot[j]; j = (j + 1) & (in->cap - 1))
        if (!strcmp(in->slot[j], s))
            return in->slot[j];
    in->used++;
    return in->slot[j] = arena_strdup(&res->strings, s);
}

static const char *text(struct side_results *res, sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? intern(res, (const char *)s) : NULL;
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

static void read_row(struct side_results *a, sqlite3_stmt *st, const struct compare_opts *o,
                     struct side_result *r)
{
    memset(r, 0, sizeof(*r)); /* ALLOC_GROW does not clear: derived and suspect start empty */
    const char *k = (const char *)sqlite3_column_text(st, 0);
    for (r->side = 0; r->side < o->nvalues && strcmp(o->values[r->side], k); r->side++)
        ;
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
    r->aggregate = sqlite3_column_int(st, 19);
    r->part = sqlite3_column_int(st, 20);
    r->transcribed = sqlite3_column_int(st, 21);
    const char **strs[] = {&r->tool_version, &r->ioengine, &r->mount,
                           &r->fstype,       &r->os,       &r->label};
    for (int i = 0; i < 6; i++)
        *strs[i] = text(a, st, 22 + i);
    r->size = sqlite3_column_int64(st, 28);
    r->started_at = sqlite3_column_int64(st, 29);
    r->protocol = text(a, st, 30);
    r->stated_cached = sqlite3_column_int(st, 31);
    for (int i = 0; i < RM_COUNT; i++) {
        int col = 32 + i;
        r->m[i] =
            sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
    }
    derive(r);
}

int query_side_results(struct db *db, const struct compare_opts *o, struct side_results *out,
                       struct diag *d)
{
    sqlite3 *h = db_handle(db);
    struct buf sql = BUF_INIT;
    struct binds b = {NULL, 0, 0};
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof(*out));
    out->intern = xcalloc(1, sizeof(*out->intern));
    int rc = build_sql(db, o, &out->strings, &sql, &b, d);
    if (rc == 0 && sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) != SQLITE_OK)
        rc = diag_error(d, "cannot compare: %s", sqlite3_errmsg(h));
    for (size_t i = 0; rc == 0 && i < b.n; i++)
        sqlite3_bind_text(st, (int)i + 1, b.v[i], -1, SQLITE_STATIC);
    int s = SQLITE_DONE;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
        ALLOC_GROW(out->v, out->n, out->a);
        read_row(out, st, o, &out->v[out->n++]);
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = diag_error(d, "cannot compare: %s", sqlite3_errmsg(h));
    sqlite3_finalize(st);
    buf_release(&sql);
    free(b.v);
    return rc;
}

void side_results_release(struct side_results *res)
{
    free(res->v);
    if (res->intern)
        free(res->intern->slot);
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

int result_engine_is_sync(const struct side_result *r)
{
    static const char *const engines[] = {"sync", "psync", "vsync", "pvsync", "pvsync2"};
    for (size_t i = 0; r->ioengine && i < sizeof(engines) / sizeof(engines[0]); i++)
        if (!strcmp(r->ioengine, engines[i]))
            return 1;
    return 0;
}

int result_is_network_fs(const struct side_result *r)
{
    static const char *const net[] = {"nfs",       "nfs4", "cifs",   "smb3",   "smbfs", "ceph",
                                      "glusterfs", "9p",   "lustre", "beegfs", "gpfs"};
    if (!r->fstype)
        return 0;
    if (!strncmp(r->fstype, "fuse.", 5))
        return 1;
    for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
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
    sqlite3_stmt *st;
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT ");
    int rc = db_metric_expr(db, &sql, "r", name, d);
    buf_adds(&sql, " FROM result r WHERE r.id = ?");
    if (rc == 0 && sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) != SQLITE_OK)
        rc = diag_error(d, "cannot read metric '%s': %s", name, sqlite3_errmsg(h));
    buf_release(&sql);
    if (rc)
        return rc;
    for (size_t i = 0; i < res->n; i++) {
        sqlite3_bind_int64(st, 1, res->v[i].id);
        /* a NULL column: the metric is unknown (absent), never 0 */
        out[i] = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
                     ? sqlite3_column_double(st, 0)
                     : NAN;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
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
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(rw, map[i][0]))
            return map[i][1];
    return NULL;
}

static int is_mixed(const char *rw)
{
    return !strcmp(rw, "randrw") || !strcmp(rw, "rw") || !strcmp(rw, "readwrite");
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
    buf_addf(out,
             "%s|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64
             "|%s|%s|%" PRId64,
             r->rw, r->bs, result_engine_is_sync(r) && r->iodepth > 1 ? 1 : r->iodepth, r->numjobs,
             r->direct, r->sync, r->fsync, r->fdatasync, r->direction, r->tool, r->rwmixread);
}
