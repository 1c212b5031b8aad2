/* import_sink.c: storing one imported file: its source row and bytes, its runs, and each
 * record its importer emits (db_import_sink) as a result with its labels, mount, tags,
 * histograms and series; and finding a file stored already by its content. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/fmt.h"
#include "../core/mount.h"
#include "../core/xalloc.h"
#include "sql.h"

int db_source_find(struct db *db, const char *sha256, char **path, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(db, &rc, "SELECT path FROM source_file WHERE sha256 = :sha256");
    sql_bind_text(st, &rc, ":sha256", sha256);
    int found = sql_step(st, &rc);
    if (found && path)
        *path = xstrdup((const char *)sqlite3_column_text(st, 0));
    sql_release(st);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    return found;
}

/* A record as it is stored: the checks that may refuse it passed, its texts UTF-8, its labels
 * the import's over its own, its own mount (not the import's) parsed. */
struct checked_record {
    const struct bench_record *r;
    struct import_labels labels;
    struct kv *tags; /* labels.tags, owned */
    const char *sec; /* the flavor stored: labels.sec, else the mount's sec= */
    int own_mount;   /* mount holds the record's mount */
    struct mount_info mount;
};

struct db_import {
    struct db *db;
    struct diag *d;
    const struct import_labels *labels;
    struct source src;
    const char *sha256, *format, *imported_at;
    const struct raw_blob *packed;
    int64_t source_id, run_id;
    char *run_tool;       /* the tool of run_id's results (NULL: unknown) */
    int64_t chunks;       /* stored so far */
    uint64_t chunk_bytes; /* their total */
    int label_mount;      /* label_mount_info holds the import's mount */
    struct mount_info label_mount_info;
    int64_t label_mount_id; /* 0: none */
    size_t count;
    int64_t last_result; /* the id of the result stored last; 0: none */
    sqlite3_stmt *ins_result, *ins_tag, *ins_hist, *ins_series;
    struct buf json;  /* metrics_extra, bins or points being written */
    struct arena fix; /* the records whose text was escaped (record_utf8) */
    int keep; /* db_import_check: the sink checks records and keeps them for db_import_write */
    struct checked_record *kept;
    size_t n_kept, a_kept;
};

/* The result columns store_record binds before the metric columns, in the order of the
 * INSERT's numbered parameters: run_id is ?1 (RP_run_id), metric column k of the schema is
 * ?(RP_METRICS + k). Numbers, not names: a result binds ~25 of them, and SQLite finds a name by
 * comparing it with each of the ~150 parameters' in turn (7 % of an import's writer). */
/* clang-format off */
#define RESULT_FIXED_COLUMNS(X)                                                                    \
    X(run_id) X(host) X(peer) X(storage_class) X(sec) X(mount_id) X(job) X(direction) X(rw)       \
    X(bs_bytes) X(iodepth) X(numjobs) X(direct) X(sync) X(fsync) X(fdatasync) X(ioengine)          \
    X(size_bytes) X(rwmixread) X(runtime_s) X(error) X(error_msg) X(line_first) X(line_last)       \
    X(transcribed) X(metrics_extra)
enum result_param {
    RP_NONE, /* parameters count from 1 */
#define RESULT_PARAM(column) RP_##column,
    RESULT_FIXED_COLUMNS(RESULT_PARAM)
#undef RESULT_PARAM
    RP_METRICS
};
/* clang-format on */

/* The INSERT of one result: the columns above, then every metric column; built once. */
static const char *insert_result_sql(struct db *db, struct diag *d)
{
    static const char *const fixed[] = {
#define RESULT_COLUMN(column) #column,
        RESULT_FIXED_COLUMNS(RESULT_COLUMN)
#undef RESULT_COLUMN
    };
    _Static_assert(ARRAY_SIZE(fixed) == RP_METRICS - 1, "one name per parameter");
    struct wide_columns *w = &db->wide;
    if (wide_load(db, d))
        return NULL;
    if (w->insert_sql)
        return w->insert_sql;
    struct buf cols = BUF_INIT, params = BUF_INIT;
    for (size_t i = 0; i < RP_METRICS - 1 + w->n; i++) {
        buf_addf(&cols, "%s%s", i ? ", " : "",
                 i < RP_METRICS - 1 ? fixed[i] : w->names[i - (RP_METRICS - 1)]);
        buf_addf(&params, "%s?%zu", i ? ", " : "", i + 1);
    }
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "INSERT INTO result(%s) VALUES (%s)", cols.data, params.data);
    buf_release(&cols);
    buf_release(&params);
    return w->insert_sql = buf_detach(&sql, NULL);
}

static int fail(struct db_import *imp)
{
    return diag_error(imp->d, "database '%s': cannot store results of '%s': %s", imp->db->path,
                      imp->src.path, sqlite3_errmsg(imp->db->h));
}

/* Stores one row that hangs off another (a mount's option; a result's tag, histogram or
 * series): st inserts (:owner, :key, :value). */
static void store_detail(sqlite3_stmt *st, int *rc, int64_t owner, const char *key,
                         const char *value)
{
    sql_bind_int(st, rc, ":owner", owner);
    sql_bind_text(st, rc, ":key", key);
    if (value)
        sql_bind_text_borrowed(st, rc, ":value", value, strlen(value)); /* stepped at once */
    sql_step_done(st, rc);
}

/* Stores a parsed mount (once per canonical option set); 0 or -1. */
static int store_mount(struct db_import *imp, const struct mount_info *m, int64_t *id)
{
    struct db *db = imp->db;
    int rc = SQLITE_OK;
    sqlite3_stmt *ins = sql_cached(db, &rc,
                                   "INSERT INTO mount(options, fstype, device) VALUES "
                                   "(:options, :fstype, :device) ON CONFLICT(options) DO "
                                   "UPDATE SET fstype = coalesce(fstype, excluded.fstype), "
                                   "device = coalesce(device, excluded.device) "
                                   "RETURNING id");
    sqlite3_stmt *opt = sql_cached(db, &rc,
                                   "INSERT OR IGNORE INTO mount_option(mount_id, key, value) "
                                   "VALUES (:owner, :key, :value)");
    sql_bind_text(ins, &rc, ":options", m->canonical);
    sql_bind_text(ins, &rc, ":fstype", m->fstype);
    sql_bind_text(ins, &rc, ":device", m->source);
    if (sql_step(ins, &rc))
        *id = sqlite3_column_int64(ins, 0);
    else if (rc == SQLITE_OK)
        rc = SQLITE_ERROR; /* RETURNING always gives the row */
    sql_release(ins);
    for (size_t i = 0; rc == SQLITE_OK && i < m->n_opts; i++)
        store_detail(opt, &rc, *id, m->opts[i].key, m->opts[i].value);
    sql_release(opt);
    return rc == SQLITE_OK ? 0 : fail(imp);
}

/* Parses a mount written in any form into *m (released by the caller once 0 is returned); 0,
 * or -1 after a message. */
static int parse_mount(struct db_import *imp, const char *text, struct mount_info *m)
{
    struct buf err = BUF_INIT;
    int rc = mount_parse(text, m, &err);
    if (rc) {
        diag_error(imp->d, "%s: cannot parse mount options '%s': %s", imp->src.path, text,
                   err.data);
        mount_info_release(m);
    }
    buf_release(&err);
    return rc;
}

/* One chunk of a file given whole, packed here: 0, or -1 after a message. */
static int add_chunk(struct db_import *imp, const void *data, size_t len)
{
    struct raw_blob b = raw_pack(&imp->db->packer, NULL, data, len);
    return db_import_add_packed_chunk(imp, &b, len);
}

/* The import of one file, nothing written yet: its labels' mount parsed. NULL after a message. */
static struct db_import *import_new(struct db *db, const struct source *src, const char *sha256,
                                    const struct raw_blob *packed, const char *format,
                                    const char *imported_at, const struct import_labels *labels,
                                    struct diag *d)
{
    struct db_import *imp = xcalloc(1, sizeof(*imp));
    *imp = (struct db_import){.db = db,
                              .d = d,
                              .labels = labels,
                              .src = *src,
                              .sha256 = sha256,
                              .format = format,
                              .imported_at = imported_at,
                              .packed = packed};
    buf_init(&imp->json);
    if (labels->mount && parse_mount(imp, labels->mount, &imp->label_mount_info)) {
        db_import_free(imp);
        return NULL;
    }
    imp->label_mount = labels->mount != NULL;
    return imp;
}

/* The file's source row and, when given whole, its bytes; the labels' mount; the statements
 * its records are stored with. 0, or -1 after a message. */
static int store_source(struct db_import *imp)
{
    struct db *db = imp->db;
    const struct source *src = &imp->src;
    int rc = SQLITE_OK;
    int whole = src->data && src->len <= DB_CHUNK_BYTES;
    sqlite3_stmt *st = sql_cached(db, &rc,
                                  "INSERT INTO source_file(path, sha256, format, "
                                  "importer_version, imported_at, size_bytes, raw, raw_codec, "
                                  "raw_dict) VALUES (:path, :sha256, :format, "
                                  ":importer_version, :imported_at, :size_bytes, :raw, "
                                  ":raw_codec, :raw_dict)");
    if (rc == SQLITE_OK) {
        sql_bind_text(st, &rc, ":path", src->path);
        /* the transaction holds the write lock: no other file can have this placeholder */
        sql_bind_text(st, &rc, ":sha256", imp->sha256 ? imp->sha256 : "(being read)");
        sql_bind_text(st, &rc, ":format", imp->format);
        sql_bind_text(st, &rc, ":importer_version", BENCHDB_IMPORTER_VERSION);
        sql_bind_text(st, &rc, ":imported_at", imp->imported_at);
        sql_bind_int(st, &rc, ":size_bytes", (int64_t)src->len);
        if (whole) {
            struct raw_blob b =
                imp->packed ? *imp->packed
                            : raw_pack(&db->packer, raw_dict_find(db_raw_dicts(db), imp->format),
                                       src->data, src->len);
            sql_bind_blob(st, &rc, ":raw", b.data, b.len);
            sql_bind_text(st, &rc, ":raw_codec", b.codec);
            int64_t dict = rc == SQLITE_OK ? db_raw_dict_stored(db, b.dict) : 0;
            if (dict < 0)
                rc = SQLITE_ERROR;
            else if (dict)
                sql_bind_int(st, &rc, ":raw_dict", dict);
        }
        sql_step_done(st, &rc);
    }
    sql_release(st);
    if (rc != SQLITE_OK)
        return fail(imp);
    imp->source_id = sqlite3_last_insert_rowid(db->h);
    for (size_t at = 0; src->data && !whole && at < src->len; at += DB_CHUNK_BYTES) {
        size_t n = src->len - at < DB_CHUNK_BYTES ? src->len - at : DB_CHUNK_BYTES;
        if (add_chunk(imp, src->data + at, n))
            return -1;
    }
    if (imp->label_mount && store_mount(imp, &imp->label_mount_info, &imp->label_mount_id))
        return -1;
    const char *ins_sql = insert_result_sql(db, imp->d);
    if (!ins_sql)
        return -1;
    /* plain INSERTs: a conflict clause would open a statement journal for every row */
    imp->ins_result = sql_cached(db, &rc, ins_sql);
    imp->ins_tag = sql_cached(db, &rc,
                              "INSERT INTO tag(result_id, key, value) VALUES "
                              "(:owner, :key, :value)");
    imp->ins_hist = sql_cached(db, &rc,
                               "INSERT INTO histogram(result_id, metric, bins) VALUES "
                               "(:owner, :key, :value)");
    imp->ins_series = sql_cached(db, &rc,
                                 "INSERT INTO series(result_id, metric, points) VALUES "
                                 "(:owner, :key, :value)");
    return rc == SQLITE_OK ? 0 : fail(imp);
}

struct db_import *db_import_begin(struct db *db, const struct source *src, const char *sha256,
                                  const struct raw_blob *packed, const char *format,
                                  const char *imported_at, const struct import_labels *labels,
                                  struct diag *d)
{
    struct db_import *imp = import_new(db, src, sha256, packed, format, imported_at, labels, d);
    if (imp && store_source(imp)) {
        db_import_free(imp);
        return NULL;
    }
    return imp;
}

struct db_import *db_import_check(struct db *db, const struct source *src, const char *sha256,
                                  const struct raw_blob *packed, const char *format,
                                  const char *imported_at, const struct import_labels *labels,
                                  struct diag *d)
{
    struct db_import *imp = import_new(db, src, sha256, packed, format, imported_at, labels, d);
    if (imp)
        imp->keep = 1;
    return imp;
}

int db_import_add_packed_chunk(struct db_import *imp, const struct raw_blob *b, size_t len)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(imp->db, &rc,
                                  "INSERT INTO source_chunk(source_id, seq, data, codec, "
                                  "size_bytes) VALUES (:source_id, :seq, :data, :codec, "
                                  ":size_bytes)");
    if (rc == SQLITE_OK) {
        sql_bind_int(st, &rc, ":source_id", imp->source_id);
        sql_bind_int(st, &rc, ":seq", imp->chunks);
        sql_bind_blob(st, &rc, ":data", b->data, b->len);
        sql_bind_text(st, &rc, ":codec", b->codec);
        sql_bind_int(st, &rc, ":size_bytes", (int64_t)len);
        sql_step_done(st, &rc);
    }
    sql_release(st);
    if (rc != SQLITE_OK)
        return fail(imp);
    imp->chunks++;
    imp->chunk_bytes += len;
    return 0;
}

int db_import_set_hash(struct db_import *imp, const char *sha256)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(imp->db, &rc,
                                  "UPDATE source_file SET sha256 = :sha256, size_bytes = "
                                  ":size_bytes WHERE id = :id");
    sql_bind_text(st, &rc, ":sha256", sha256);
    sql_bind_int(st, &rc, ":size_bytes", (int64_t)imp->chunk_bytes);
    sql_bind_int(st, &rc, ":id", imp->source_id);
    sql_step_done(st, &rc);
    return rc == SQLITE_OK ? 0 : fail(imp);
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* A file is one run of one tool; a note with several tools' outputs pasted in is a run of
 * each, so that every result keeps the tool that made it (a dd result under the note's first
 * tool, iperf3, would be stored as iperf3's). */
static int ensure_run(struct db_import *imp, const struct bench_record *r)
{
    if (imp->run_id && same_text(imp->run_tool, r->tool))
        return 0;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(imp->db, &rc,
                                  "INSERT INTO run(source_id, tool, tool_version, started_at) "
                                  "VALUES (:source_id, :tool, :tool_version, :started_at)");
    sql_bind_int(st, &rc, ":source_id", imp->source_id);
    sql_bind_text(st, &rc, ":tool", r->tool);
    sql_bind_text(st, &rc, ":tool_version", r->tool_version);
    if (r->started_at)
        sql_bind_int(st, &rc, ":started_at", r->started_at);
    sql_step_done(st, &rc);
    if (rc != SQLITE_OK)
        return fail(imp);
    imp->run_id = sqlite3_last_insert_rowid(imp->db->h);
    free(imp->run_tool);
    imp->run_tool = r->tool ? xstrdup(r->tool) : NULL;
    return 0;
}

int db_sec_valid(const char *s)
{
    static const char *const ok[] = {"sys", "krb5", "krb5i", "krb5p", "none"};
    for (size_t i = 0; s && i < ARRAY_SIZE(ok); i++)
        if (!strcmp(s, ok[i]))
            return 1;
    return 0;
}

/* The record's labels under the import's (db_labels_overlay) into c, its own mount parsed, and
 * its flavor checked. A mount's sec= counts as given with that mount, so the flavor is the
 * first of --sec, the label mount's sec=, the record's sec, the record mount's sec=. 0, or -1
 * after a message. */
static int check_labels(struct db_import *imp, struct checked_record *c)
{
    const struct bench_record *r = c->r;
    struct import_labels given = *imp->labels;
    const struct import_labels content = {r->host,  r->storage_class, r->sec,
                                          r->mount, r->tags,          r->n_tags};
    if (!given.sec && imp->label_mount)
        given.sec = imp->label_mount_info.sec;
    db_labels_overlay(&given, &content, &c->labels, &c->tags);
    if (c->labels.mount && c->labels.mount != imp->labels->mount) {
        if (parse_mount(imp, c->labels.mount, &c->mount))
            return -1;
        c->own_mount = 1;
    }
    c->sec = c->labels.sec ? c->labels.sec : c->own_mount ? c->mount.sec : NULL;
    if (c->sec && !db_sec_valid(c->sec))
        return diag_error(imp->d,
                          "%s: unknown NFS security flavor '%s' (expected " DB_SEC_FLAVORS ")",
                          imp->src.path, c->sec);
    return 0;
}

/* Binds the labels c holds, its mount stored (once per canonical option set). 0, or -1 after a
 * message. */
static int bind_labels(struct db_import *imp, const struct checked_record *c, int *rc)
{
    int64_t mount_id = c->labels.mount ? imp->label_mount_id : 0;
    if (c->own_mount && store_mount(imp, &c->mount, &mount_id))
        return -1;
    sqlite3_stmt *st = imp->ins_result;
    sql_bind_text_at(st, rc, RP_host, c->labels.host);
    sql_bind_text_at(st, rc, RP_peer, c->r->peer);
    sql_bind_text_at(st, rc, RP_storage_class, c->labels.storage_class);
    sql_bind_text_at(st, rc, RP_sec, c->sec);
    if (mount_id)
        sql_bind_int_at(st, rc, RP_mount_id, mount_id);
    return 0;
}

static void bind_workload(sqlite3_stmt *st, int *rc, const struct workload *wl)
{
    sql_bind_text_at(st, rc, RP_rw, wl->rw);
    sql_bind_known_int_at(st, rc, RP_bs_bytes, wl->bs_bytes);
    sql_bind_known_int_at(st, rc, RP_iodepth, wl->iodepth);
    sql_bind_known_int_at(st, rc, RP_numjobs, wl->numjobs);
    sql_bind_known_int_at(st, rc, RP_direct, wl->direct);
    sql_bind_known_int_at(st, rc, RP_sync, wl->sync);
    sql_bind_known_int_at(st, rc, RP_fsync, wl->fsync);
    sql_bind_known_int_at(st, rc, RP_fdatasync, wl->fdatasync);
    sql_bind_text_at(st, rc, RP_ioengine, wl->ioengine);
    sql_bind_known_int_at(st, rc, RP_size_bytes, wl->size_bytes);
    sql_bind_known_int_at(st, rc, RP_rwmixread, wl->rwmixread);
    sql_bind_known_int_at(st, rc, RP_runtime_s, wl->runtime_s);
}

static void bind_provenance(sqlite3_stmt *st, int *rc, const struct bench_record *r)
{
    sql_bind_text_at(st, rc, RP_job, r->job);
    sql_bind_text_at(st, rc, RP_direction, r->direction);
    sql_bind_int_at(st, rc, RP_error, r->error);
    sql_bind_text_at(st, rc, RP_error_msg, r->error_msg);
    if (r->line_first) {
        sql_bind_int_at(st, rc, RP_line_first, r->line_first);
        sql_bind_int_at(st, rc, RP_line_last, r->line_last);
    }
    sql_bind_int_at(st, rc, RP_transcribed, r->transcribed);
}

/* Writes pairs (bins or points) into imp->json as one JSON array of [a, b] pairs. */
static const char *pairs_json(struct db_import *imp, const double *pairs, size_t n)
{
    struct buf *b = &imp->json;
    buf_reset(b);
    buf_addc(b, '[');
    for (size_t i = 0; i < n; i++) {
        buf_adds(b, i ? ",[" : "[");
        fmt_plain_number(b, pairs[2 * i]);
        buf_addc(b, ',');
        fmt_plain_number(b, pairs[2 * i + 1]);
        buf_addc(b, ']');
    }
    buf_addc(b, ']');
    return b->data;
}

/* The tags (labels' over the record's, as bind_labels merged them), the histogram and the
 * series of result id. */
static int store_details(struct db_import *imp, const struct bench_record *r, int64_t id,
                         const struct kv *tags, size_t n_tags)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; i < n_tags; i++)
        store_detail(imp->ins_tag, &rc, id, tags[i].key, tags[i].value);
    _Static_assert(sizeof(struct hist_bin) == 2 * sizeof(double), "bins are pairs of doubles");
    _Static_assert(sizeof(struct series_point) == 2 * sizeof(double), "points are pairs");
    if (r->n_bins)
        store_detail(imp->ins_hist, &rc, id, r->bins_metric ? r->bins_metric : "clat",
                     pairs_json(imp, (const double *)r->bins, r->n_bins));
    if (r->n_series)
        store_detail(imp->ins_series, &rc, id, r->series_metric ? r->series_metric : "value",
                     pairs_json(imp, (const double *)r->series, r->n_series));
    return rc == SQLITE_OK ? 0 : fail(imp);
}

/* Binds each metric to its column, and the others as the JSON object metrics_extra. */
static void bind_metrics(struct db_import *imp, const struct bench_record *r, int *rc)
{
    sqlite3_stmt *st = imp->ins_result;
    const struct wide_columns *w = &imp->db->wide;
    struct buf *extra = &imp->json;
    buf_reset(extra);
    for (size_t i = 0; i < r->n_metrics; i++) {
        const struct metric *m = &r->metrics[i];
        int col = wide_index(w, m->name);
        if (col >= 0) {
            sqlite3_bind_double(st, RP_METRICS + col, m->value);
            continue;
        }
        buf_adds(extra, extra->len ? "," : "{");
        fmt_json_string(extra, m->name);
        buf_addc(extra, ':');
        fmt_plain_number(extra, m->value);
    }
    if (extra->len) {
        buf_addc(extra, '}');
        sql_bind_text_at(st, rc, RP_metrics_extra, extra->data);
    }
}

/* Checks r as storing it would (record_check, its texts, labels and mount) into *c, which
 * checked_release frees in any case. 0, or -1 after a message. */
static int check_record(struct db_import *imp, const struct bench_record *r,
                        struct checked_record *c)
{
    *c = (struct checked_record){.r = record_utf8(&imp->fix, r, &imp->src, imp->d)};
    if (record_check(c->r, &imp->src, imp->d))
        return -1;
    return check_labels(imp, c);
}

static void checked_release(struct checked_record *c)
{
    free(c->tags);
    if (c->own_mount)
        mount_info_release(&c->mount);
}

/* Stores a checked record: its run when it is a new one, its result and its details. 0, or -1
 * after a message (the database failed: nothing of the checks is left to refuse it). */
static int insert_record(struct db_import *imp, const struct checked_record *c)
{
    if (ensure_run(imp, c->r))
        return -1;
    sqlite3_stmt *st = imp->ins_result;
    int rc = SQLITE_OK;
    if (bind_labels(imp, c, &rc))
        return -1;
    sql_bind_int_at(st, &rc, RP_run_id, imp->run_id);
    bind_provenance(st, &rc, c->r);
    bind_workload(st, &rc, &c->r->wl);
    bind_metrics(imp, c->r, &rc);
    sql_step_done(st, &rc);
    if (rc != SQLITE_OK)
        return fail(imp);
    imp->last_result = sqlite3_last_insert_rowid(imp->db->h);
    return store_details(imp, c->r, imp->last_result, c->labels.tags, c->labels.n_tags);
}

static int store_record(void *ctx, const struct bench_record *r)
{
    struct db_import *imp = ctx;
    struct checked_record c;
    int bad = check_record(imp, r, &c) || insert_record(imp, &c);
    checked_release(&c);
    imp->count += !bad;
    return bad ? -1 : 0;
}

/* db_import_check's sink: checks r, keeping it for db_import_write. */
static int keep_record(void *ctx, const struct bench_record *r)
{
    struct db_import *imp = ctx;
    ALLOC_GROW(imp->kept, imp->n_kept + 1, imp->a_kept);
    struct checked_record *c = &imp->kept[imp->n_kept];
    if (check_record(imp, r, c)) {
        checked_release(c);
        return -1;
    }
    imp->n_kept++;
    imp->count++;
    return 0;
}

int db_import_write(struct db_import *imp)
{
    if (store_source(imp))
        return -1;
    for (size_t i = 0; i < imp->n_kept; i++)
        if (insert_record(imp, &imp->kept[i]))
            return -1;
    return 0;
}

struct record_sink db_import_sink(struct db_import *imp)
{
    return (struct record_sink){imp->keep ? keep_record : store_record, imp};
}

size_t db_import_count(const struct db_import *imp)
{
    return imp->count;
}

int64_t db_import_last_result(const struct db_import *imp)
{
    return imp->last_result;
}

/* Runs one statement of db_series_attach: sql names the log's result :from and may name the
 * job's :to. */
static void attach_step(struct db *db, int *rc, const char *sql, int64_t from, int64_t to)
{
    sqlite3_stmt *st = sql_cached(db, rc, sql);
    sql_bind_int(st, rc, ":from", from);
    if (st && sqlite3_bind_parameter_index(st, ":to"))
        sql_bind_int(st, rc, ":to", to);
    sql_step_done(st, rc);
}

int db_series_attach(struct db *db, int64_t from, int64_t to, struct diag *d)
{
    int rc = SQLITE_OK;
    /* tag series:<metric> on the job names the log the series came from (and tells reparse) */
    attach_step(db, &rc,
                "INSERT OR REPLACE INTO tag(result_id, key, value) SELECT :to, 'series:' || "
                "se.metric, sf.path FROM series se JOIN result r ON r.id = se.result_id JOIN run "
                "ON run.id = r.run_id JOIN source_file sf ON sf.id = run.source_id WHERE "
                "se.result_id = :from",
                from, to);
    attach_step(db, &rc, "UPDATE series SET result_id = :to WHERE result_id = :from", from, to);
    attach_step(db, &rc,
                "INSERT OR REPLACE INTO tag(result_id, key, value) VALUES (:from, 'part', "
                "'fio log')",
                from, to);
    /* a log stored without a class (its sidecar is its JSON's, FILE.meta) is its job's part:
     * it takes the job's labels, so that listing or removing by them finds it with its job */
    attach_step(db, &rc,
                "UPDATE result SET storage_class = j.storage_class, host = coalesce(result.host, "
                "j.host), sec = coalesce(result.sec, j.sec), mount_id = coalesce(result.mount_id, "
                "j.mount_id) FROM result j WHERE j.id = :to AND result.id = :from AND "
                "result.storage_class IS NULL",
                from, to);
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': cannot attach a fio log's series to its job: %s",
                          db->path, sqlite3_errmsg(db->h));
    return 0;
}

void db_import_free(struct db_import *imp)
{
    if (!imp)
        return;
    /* the statements are released after each row and when fetched (sql_cached), not again here:
     * clearing the result INSERT's ~180 parameters once more cost 2 % of the writer */
    buf_release(&imp->json);
    arena_release(&imp->fix);
    if (imp->label_mount)
        mount_info_release(&imp->label_mount_info);
    for (size_t i = 0; i < imp->n_kept; i++)
        checked_release(&imp->kept[i]);
    free(imp->kept);
    free(imp->run_tool);
    free(imp);
}
