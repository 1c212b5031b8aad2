/* db.c: opening the warehouse and storing imported records. */
#include "db_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/fmt.h"
#include "../core/mount.h"
#include "../core/xalloc.h"

/* A report reads the warehouse through a memory map: a million results read page by page
 * with pread cost a fifth of its time. Only for reading commands: a mapped file that an I/O
 * error or another process cuts short kills the process (SIGBUS) instead of failing a
 * statement, which a writer must not risk. 2 GiB is the most Debian's SQLite maps; the rest
 * of a bigger file is read as before. */
#define READ_MMAP_PRAGMA "PRAGMA mmap_size = 2147418112"

/* How long a writer waits for another process's transaction before giving up. */
enum { BUSY_TIMEOUT_MS = 30000 };

/* PRAGMA schema.user_version (schema: main or an ATTACHed name, from benchdb's code). */
static int schema_user_version(sqlite3 *h, const char *schema)
{
    char sql[96];
    snprintf(sql, sizeof(sql), "PRAGMA %s.user_version", schema);
    sqlite3_stmt *st;
    int v = 0;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

int db_user_version(sqlite3 *h)
{
    return schema_user_version(h, "main");
}

static int exec(struct db *db, const char *sql, struct diag *d)
{
    char *err = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &err) == SQLITE_OK)
        return 0;
    diag_error(d, "database '%s': %s", db->path, err ? err : sqlite3_errmsg(db->h));
    sqlite3_free(err);
    return -1;
}

/* Switching a new database to WAL fails at once (no busy handler) while another process
 * switches it too, to avoid a deadlock; the switch is idempotent, so wait and retry. */
static int set_wal(struct db *db, struct diag *d)
{
    for (int ms = 0; ms < BUSY_TIMEOUT_MS; ms += 10) {
        int rc = sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if ((rc & 0xff) != SQLITE_BUSY)
            break;
        sqlite3_sleep(10);
    }
    /* in WAL mode NORMAL loses no committed transaction when the process dies (only on power
     * loss), and it saves an fsync per commit */
    return exec(db, "PRAGMA journal_mode = WAL", d) || exec(db, "PRAGMA synchronous = NORMAL", d);
}

/* Appends why path cannot be opened when the system refuses it (the file unreadable, or
 * its directory unwritable: a WAL database is read through -wal and -shm files SQLite
 * creates next to it); nothing when both are allowed. SQLite's errno is not used here: it
 * is its last system call's, often a harmless ENOENT from looking for a journal. */
static void describe_refusal(struct buf *out, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    if (access(path, R_OK))
        buf_addf(out, "cannot read the file: %s", strerror(errno));
    else if (access(dir, W_OK))
        buf_addf(out,
                 "cannot write its directory '%s' (%s), where SQLite creates the -wal and "
                 "-shm files it reads the warehouse through",
                 dir, strerror(errno));
    free(dir);
}

/* Why reading the database at path failed, in terms the user can act on (wait for the
 * lock, restore the file, fix a permission), from SQLite's result code. */
static void describe_failure(struct buf *out, sqlite3 *h, int rc, const char *path)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        buf_addf(out, "it is locked by another process (waited %d s)", BUSY_TIMEOUT_MS / 1000);
        return;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        buf_addf(out, "it is damaged (truncated?) or not a database: %s", sqlite3_errmsg(h));
        return;
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        describe_refusal(out, path);
    }
    if (!out->len)
        buf_adds(out, sqlite3_errmsg(h));
}

int db_schema_check(struct db *db, const char *schema, const char *path, int *version,
                    struct diag *d)
{
    struct buf sql = BUF_INIT;
    /* not "FROM x.pragma_user_version": that reads main's whatever schema x names */
    buf_addf(&sql,
             "SELECT count(*), (SELECT group_concat(name, ', ') FROM (SELECT name FROM "
             "%s.sqlite_schema WHERE type IN ('table', 'view') ORDER BY rowid LIMIT 5)) FROM "
             "%s.sqlite_schema WHERE type IN ('table', 'view')",
             schema, schema);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql.data, -1, &st, NULL);
    buf_release(&sql);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        struct buf why = BUF_INIT;
        describe_failure(&why, db->h, rc == SQLITE_OK ? SQLITE_ERROR : rc, path);
        sqlite3_finalize(st);
        diag_error(d, "cannot read database '%s': %s", path, why.data);
        buf_release(&why);
        return -1;
    }
    int tables = sqlite3_column_int(st, 0);
    *version = schema_user_version(db->h, schema);
    if (*version == 0 && tables > 0)
        diag_error(d,
                   "'%s' is not a benchdb database: it has %d table%s of its own (%s%s) and no "
                   "benchdb schema; it was left unchanged",
                   path, tables, tables == 1 ? "" : "s", sqlite3_column_text(st, 1),
                   tables > 5 ? ", ..." : "");
    sqlite3_finalize(st);
    return *version == 0 && tables > 0 ? -1 : 0;
}

int db_open(const char *path, enum db_open_mode mode, struct db **out, struct diag *d)
{
    /* each connection is used by one thread at a time: SQLite's own locking only costs */
    int flags = SQLITE_OPEN_NOMUTEX |
                (mode == DB_READ_ONLY    ? SQLITE_OPEN_READONLY
                 : mode == DB_READ_WRITE ? SQLITE_OPEN_READWRITE
                                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    /* nothing reads SQLite's memory statistics, whose upkeep takes a mutex per allocation
     * (refused, harmlessly, once SQLite is initialized: the first open sets it) */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    struct db *db = xcalloc(1, sizeof(*db));
    db->path = xstrdup(path);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        diag_error(d, "cannot open database '%s': %s", path,
                   db->h ? sqlite3_errmsg(db->h) : "out of memory");
        db_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(db->h, 1);
    /* before anything is written: a foreign database is refused as it was found */
    int version;
    /* SQLite's default page cache (2 MiB) is kept: a bigger one made memory grow with the
     * number of files imported and bought no measured speed (bench/RESULTS.md); temporary
     * tables and statement journals stay in memory, never spilled to a file */
    if (db_schema_check(db, "main", path, &version, d) || exec(db, "PRAGMA foreign_keys = ON", d) ||
        exec(db, "PRAGMA temp_store = MEMORY", d) || (mode != DB_READ_ONLY && set_wal(db, d)) ||
        (mode != DB_READ_ONLY && db_migrate(db->h, d)) ||
        (mode == DB_READ_ONLY && exec(db, READ_MMAP_PRAGMA, d))) {
        db_close(db);
        return -1;
    }
    if (mode == DB_READ_ONLY && version == 0) {
        diag_error(d, "'%s' is not a benchdb database (no schema)", path);
        db_close(db);
        return -1;
    }
    if (mode == DB_READ_ONLY && version < db_migration_count()) {
        /* a warehouse of an older release is brought up to date at its first use, reading
         * included: the queries of this release read only the current schema */
        db_close(db);
        if (db_open(path, DB_READ_WRITE, out, d))
            return diag_error(d,
                              "'%s' has schema version %d and this benchdb reads %d: it "
                              "must be upgraded once, which needs write access",
                              path, version, db_migration_count());
        return 0;
    }
    *out = db;
    return 0;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    if (db->in_batch)
        db_rollback(db);
    for (size_t i = 0; i < db->ncache; i++)
        sqlite3_finalize(db->cache[i].st);
    free(db->cache);
    wide_release(&db->wide);
    raw_packer_free(db->packer);
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}

struct sqlite3 *db_handle(struct db *db)
{
    return db->h;
}

int db_schema_version(struct db *db)
{
    return db_user_version(db->h);
}

int db_begin(struct db *db, struct diag *d)
{
    return exec(db, "BEGIN IMMEDIATE", d);
}

int db_commit(struct db *db, struct diag *d)
{
    db->in_batch = 0;
    return exec(db, "COMMIT", d);
}

void db_rollback(struct db *db)
{
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    db->in_batch = 0;
}

/* ---- batches of files ---- */

/* How long a batch of files may hold the write lock before it is committed: long enough that
 * thousands of small files share one commit, short enough that another writer waiting on the
 * busy timeout barely notices and a crash loses at most this much work. */
static const double BATCH_SECONDS = 0.25;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int exec_cached(struct db *db, const char *sql, struct diag *d);

int db_file_begin(struct db *db, struct diag *d)
{
    if (!db->in_batch) {
        if (exec(db, "BEGIN IMMEDIATE", d))
            return -1;
        db->in_batch = 1;
        db->batch_started = now_seconds();
    }
    return exec_cached(db, "SAVEPOINT file", d);
}

int db_file_end(struct db *db, int keep, struct diag *d)
{
    if (!keep && exec_cached(db, "ROLLBACK TO file", d))
        return -1;
    return exec_cached(db, "RELEASE file", d);
}

int db_batch_commit(struct db *db, int force, struct diag *d)
{
    if (!db->in_batch || (!force && now_seconds() - db->batch_started < BATCH_SECONDS))
        return 0;
    db->in_batch = 0;
    if (exec(db, "COMMIT", d)) {
        db_rollback(db);
        return -1;
    }
    return 1;
}

/* ---- statements carried through one rc, as in sqlite's shell ---- */

/* The cached statement for a literal SQL text, reset and unbound; NULL once *rc failed. */
static sqlite3_stmt *prepare(struct db *db, int *rc, const char *sql)
{
    if (*rc != SQLITE_OK)
        return NULL;
    for (size_t i = 0; i < db->ncache; i++) {
        if (db->cache[i].sql == sql) {
            sqlite3_reset(db->cache[i].st);
            sqlite3_clear_bindings(db->cache[i].st);
            return db->cache[i].st;
        }
    }
    sqlite3_stmt *st = NULL;
    *rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (*rc == SQLITE_OK) {
        ALLOC_GROW(db->cache, db->ncache, db->acache);
        db->cache[db->ncache++] = (struct stmt_cache){sql, st};
    }
    return st;
}

/* Gives a cached statement back (it stays prepared for the next file). */
static void release(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v)
{
    if (v == WL_UNKNOWN)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

/* Steps a write statement and resets it; keeps *rc at SQLITE_OK on success. */
static void step_done(sqlite3_stmt *st, int *rc)
{
    if (*rc != SQLITE_OK)
        return;
    int s = sqlite3_step(st);
    *rc = s == SQLITE_DONE || s == SQLITE_ROW ? SQLITE_OK : s;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows, prepared once per connection (a savepoint per file
 * of a batch would otherwise be parsed again for each). */
static int exec_cached(struct db *db, const char *sql, struct diag *d)
{
    int rc = SQLITE_OK;
    step_done(prepare(db, &rc, sql), &rc);
    if (rc == SQLITE_OK)
        return 0;
    return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
}

int db_source_find(struct db *db, const char *sha256, char **path, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = prepare(db, &rc, "SELECT path FROM source_file WHERE sha256 = ?");
    if (rc != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found && path)
        *path = xstrdup((const char *)sqlite3_column_text(st, 0));
    release(st);
    return found;
}

/* ---- one file being imported ---- */

struct db_import {
    struct db *db;
    struct diag *d;
    const struct import_labels *labels;
    struct source src;
    int64_t source_id, run_id;
    int64_t chunks;         /* stored so far */
    uint64_t chunk_bytes;   /* their total */
    int64_t label_mount_id; /* 0: none */
    char *label_mount_sec;
    size_t count;
    sqlite3_stmt *ins_result, *ins_tag, *ins_hist, *ins_series;
    struct buf json; /* metrics_extra, bins or points being written */
};

/* The result columns store_record binds before the metric columns, in this order. */
static const char result_columns[] =
    "run_id, host, peer, storage_class, sec, mount_id, job, direction, rw, bs_bytes, iodepth, "
    "numjobs, direct, sync, fsync, fdatasync, ioengine, size_bytes, rwmixread, runtime_s, error, "
    "error_msg, line_first, line_last, transcribed, metrics_extra";
enum { RESULT_FIXED_COLUMNS = 26 }; /* the names above: the metric columns' parameters follow */

/* The INSERT of one result: the columns above, then every metric column; built once. */
static const char *insert_result_sql(struct db *db, struct diag *d)
{
    struct wide_columns *w = &db->wide;
    if (wide_load(db, d))
        return NULL;
    if (w->insert_sql)
        return w->insert_sql;
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "INSERT INTO result(%s", result_columns);
    for (size_t i = 0; i < w->n; i++)
        buf_addf(&sql, ", %s", w->names[i]);
    buf_adds(&sql, ") VALUES (?");
    for (size_t i = 1; i < RESULT_FIXED_COLUMNS + w->n; i++)
        buf_adds(&sql, ", ?");
    buf_adds(&sql, ")");
    return w->insert_sql = buf_detach(&sql, NULL);
}

static int fail(struct db_import *imp, int rc)
{
    (void)rc;
    return diag_error(imp->d, "database '%s': cannot store results of '%s': %s", imp->db->path,
                      imp->src.path, sqlite3_errmsg(imp->db->h));
}

/* Stores a parsed mount (once per canonical option set); 0 or -1. */
static int store_mount(struct db_import *imp, const struct mount_info *m, int64_t *id)
{
    struct db *db = imp->db;
    int rc = SQLITE_OK;
    sqlite3_stmt *ins = prepare(db, &rc,
                                "INSERT INTO mount(options, fstype, device) VALUES "
                                "(?, ?, ?) ON CONFLICT(options) DO UPDATE SET "
                                "fstype = coalesce(fstype, excluded.fstype), "
                                "device = coalesce(device, excluded.device) "
                                "RETURNING id");
    sqlite3_stmt *opt = prepare(db, &rc,
                                "INSERT OR IGNORE INTO mount_option(mount_id, key, value) "
                                "VALUES (?, ?, ?)");
    if (rc == SQLITE_OK) {
        bind_text(ins, 1, m->canonical);
        bind_text(ins, 2, m->fstype);
        bind_text(ins, 3, m->source);
        if (sqlite3_step(ins) == SQLITE_ROW)
            *id = sqlite3_column_int64(ins, 0);
        else
            rc = SQLITE_ERROR;
        sqlite3_reset(ins);
    }
    for (size_t i = 0; rc == SQLITE_OK && i < m->n_opts; i++) {
        sqlite3_bind_int64(opt, 1, *id);
        bind_text(opt, 2, m->opts[i].key);
        bind_text(opt, 3, m->opts[i].value);
        step_done(opt, &rc);
    }
    release(ins);
    release(opt);
    return rc == SQLITE_OK ? 0 : fail(imp, rc);
}

/* Parses and stores a mount written in any form; *sec gets its flavor (caller frees). */
static int resolve_mount(struct db_import *imp, const char *text, int64_t *id, char **sec)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    if (mount_parse(text, &m, &err)) {
        diag_error(imp->d, "%s: cannot parse mount options '%s': %s", imp->src.path, text,
                   err.data);
        buf_release(&err);
        return -1;
    }
    buf_release(&err);
    int rc = store_mount(imp, &m, id);
    if (sec && m.sec)
        *sec = xstrdup(m.sec);
    mount_info_release(&m);
    return rc;
}

struct db_import *db_import_begin(struct db *db, const struct source *src, const char *sha256,
                                  const struct raw_blob *packed, const char *format,
                                  const char *imported_at, const struct import_labels *labels,
                                  struct diag *d)
{
    struct db_import *imp = xcalloc(1, sizeof(*imp));
    buf_init(&imp->json);
    imp->db = db;
    imp->d = d;
    imp->labels = labels;
    imp->src = *src;
    int rc = SQLITE_OK;
    int whole = src->data && src->len <= DB_CHUNK_BYTES;
    sqlite3_stmt *st = prepare(db, &rc,
                               "INSERT INTO source_file(path, sha256, format, "
                               "importer_version, imported_at, size_bytes, raw, raw_codec) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    if (rc == SQLITE_OK) {
        bind_text(st, 1, src->path);
        /* the transaction holds the write lock: no other file can have this placeholder */
        bind_text(st, 2, sha256 ? sha256 : "(being read)");
        bind_text(st, 3, format);
        bind_text(st, 4, BENCHDB_IMPORTER_VERSION);
        bind_text(st, 5, imported_at);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)src->len);
        if (whole) {
            struct raw_blob b = packed ? *packed : raw_pack(&db->packer, src->data, src->len);
            sqlite3_bind_blob64(st, 7, b.data, b.len, SQLITE_STATIC);
            bind_text(st, 8, b.codec);
        }
        step_done(st, &rc);
    }
    release(st);
    if (rc != SQLITE_OK) {
        fail(imp, rc);
        db_import_free(imp);
        return NULL;
    }
    imp->source_id = sqlite3_last_insert_rowid(db->h);
    for (size_t at = 0; src->data && !whole && at < src->len; at += DB_CHUNK_BYTES) {
        size_t n = src->len - at < DB_CHUNK_BYTES ? src->len - at : DB_CHUNK_BYTES;
        if (db_import_add_chunk(imp, src->data + at, n)) {
            db_import_free(imp);
            return NULL;
        }
    }
    if (labels->mount &&
        resolve_mount(imp, labels->mount, &imp->label_mount_id, &imp->label_mount_sec)) {
        db_import_free(imp);
        return NULL;
    }
    const char *ins_sql = insert_result_sql(db, d);
    if (!ins_sql) {
        db_import_free(imp);
        return NULL;
    }
    /* plain INSERTs: a conflict clause would open a statement journal for every row */
    imp->ins_result = prepare(db, &rc, ins_sql);
    imp->ins_tag = prepare(db, &rc, "INSERT INTO tag(result_id, key, value) VALUES (?, ?, ?)");
    imp->ins_hist =
        prepare(db, &rc, "INSERT INTO histogram(result_id, metric, bins) VALUES (?, ?, ?)");
    imp->ins_series =
        prepare(db, &rc, "INSERT INTO series(result_id, metric, points) VALUES (?, ?, ?)");
    if (rc != SQLITE_OK) {
        fail(imp, rc);
        db_import_free(imp);
        return NULL;
    }
    return imp;
}

int db_import_add_chunk(struct db_import *imp, const void *data, size_t len)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = prepare(imp->db, &rc,
                               "INSERT INTO source_chunk(source_id, seq, data, codec, "
                               "size_bytes) VALUES (?, ?, ?, ?, ?)");
    if (rc == SQLITE_OK) {
        struct raw_blob b = raw_pack(&imp->db->packer, data, len);
        sqlite3_bind_int64(st, 1, imp->source_id);
        sqlite3_bind_int64(st, 2, imp->chunks);
        sqlite3_bind_blob64(st, 3, b.data, b.len, SQLITE_STATIC);
        bind_text(st, 4, b.codec);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)len);
        step_done(st, &rc);
    }
    release(st);
    if (rc != SQLITE_OK)
        return fail(imp, rc);
    imp->chunks++;
    imp->chunk_bytes += len;
    return 0;
}

int db_import_set_hash(struct db_import *imp, const char *sha256)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = prepare(imp->db, &rc,
                               "UPDATE source_file SET sha256 = ?, size_bytes = ? "
                               "WHERE id = ?");
    if (rc == SQLITE_OK) {
        bind_text(st, 1, sha256);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)imp->chunk_bytes);
        sqlite3_bind_int64(st, 3, imp->source_id);
        step_done(st, &rc);
    }
    release(st);
    return rc == SQLITE_OK ? 0 : fail(imp, rc);
}

static int ensure_run(struct db_import *imp, const struct bench_record *r)
{
    if (imp->run_id)
        return 0;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = prepare(imp->db, &rc,
                               "INSERT INTO run(source_id, tool, tool_version, "
                               "started_at) VALUES (?, ?, ?, ?)");
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, imp->source_id);
        bind_text(st, 2, r->tool);
        bind_text(st, 3, r->tool_version);
        if (r->started_at)
            sqlite3_bind_int64(st, 4, r->started_at);
        step_done(st, &rc);
    }
    release(st);
    if (rc != SQLITE_OK)
        return fail(imp, rc);
    imp->run_id = sqlite3_last_insert_rowid(imp->db->h);
    return 0;
}

int db_sec_valid(const char *s)
{
    static const char *const ok[] = {"sys", "krb5", "krb5i", "krb5p", "none"};
    for (size_t i = 0; s && i < sizeof(ok) / sizeof(ok[0]); i++)
        if (!strcmp(s, ok[i]))
            return 1;
    return 0;
}

/* Flags win over the content: host, storage class, mount, then the security flavor from
 * --sec, the flag mount's sec=, the record's sec, the record mount's sec=. */
static int bind_context(struct db_import *imp, const struct bench_record *r, char **rec_sec)
{
    const struct import_labels *l = imp->labels;
    sqlite3_stmt *st = imp->ins_result;
    int64_t mount_id = imp->label_mount_id;
    if (!mount_id && r->mount && resolve_mount(imp, r->mount, &mount_id, rec_sec))
        return -1;
    const char *sec = l->sec                 ? l->sec
                      : imp->label_mount_sec ? imp->label_mount_sec
                      : r->sec               ? r->sec
                                             : *rec_sec;
    if (sec && !db_sec_valid(sec))
        return diag_error(imp->d,
                          "%s: unknown NFS security flavor '%s' (expected " DB_SEC_FLAVORS ")",
                          imp->src.path, sec);
    bind_text(st, 2, l->host ? l->host : r->host);
    bind_text(st, 3, r->peer);
    bind_text(st, 4, l->storage_class ? l->storage_class : r->storage_class);
    bind_text(st, 5, sec);
    if (mount_id)
        sqlite3_bind_int64(st, 6, mount_id);
    return 0;
}

static void bind_workload(sqlite3_stmt *st, const struct workload *wl)
{
    bind_text(st, 9, wl->rw);
    bind_opt_int(st, 10, wl->bs_bytes);
    bind_opt_int(st, 11, wl->iodepth);
    bind_opt_int(st, 12, wl->numjobs);
    bind_opt_int(st, 13, wl->direct);
    bind_opt_int(st, 14, wl->sync);
    bind_opt_int(st, 15, wl->fsync);
    bind_opt_int(st, 16, wl->fdatasync);
    bind_text(st, 17, wl->ioengine);
    bind_opt_int(st, 18, wl->size_bytes);
    bind_opt_int(st, 19, wl->rwmixread);
    bind_opt_int(st, 20, wl->runtime_s);
}

/* 1 when a later tag of the list (labels come after the record's) has the same key: that one
 * is stored, as --tag wins over the content and a later --tag over an earlier one. */
static int tag_overridden(const struct kv *const *t, size_t n, size_t i)
{
    for (size_t j = i + 1; j < n; j++)
        if (!strcmp(t[j]->key, t[i]->key))
            return 1;
    return 0;
}

static int store_tags(struct db_import *imp, const struct bench_record *r, int64_t id)
{
    const struct import_labels *l = imp->labels;
    size_t n = r->n_tags + l->n_tags;
    const struct kv **t = xmalloc((n ? n : 1) * sizeof(*t));
    for (size_t i = 0; i < n; i++)
        t[i] = i < r->n_tags ? &r->tags[i] : &l->tags[i - r->n_tags];
    int rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        if (tag_overridden(t, n, i))
            continue;
        sqlite3_bind_int64(imp->ins_tag, 1, id);
        bind_text(imp->ins_tag, 2, t[i]->key);
        bind_text(imp->ins_tag, 3, t[i]->value);
        step_done(imp->ins_tag, &rc);
    }
    free(t);
    return rc;
}

/* Stores pairs (bins or points) as one row: a JSON array of [a, b] pairs. */
static void store_pairs(struct db_import *imp, sqlite3_stmt *st, int64_t id, const char *metric,
                        const double *pairs, size_t n, int *rc)
{
    if (!n)
        return;
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
    sqlite3_bind_int64(st, 1, id);
    bind_text(st, 2, metric);
    sqlite3_bind_text(st, 3, b->data, (int)b->len, SQLITE_STATIC);
    step_done(st, rc);
}

static int store_details(struct db_import *imp, const struct bench_record *r, int64_t id)
{
    int rc = store_tags(imp, r, id);
    _Static_assert(sizeof(struct hist_bin) == 2 * sizeof(double), "bins are pairs of doubles");
    _Static_assert(sizeof(struct series_point) == 2 * sizeof(double), "points are pairs");
    store_pairs(imp, imp->ins_hist, id, r->bins_metric ? r->bins_metric : "clat",
                (const double *)r->bins, r->n_bins, &rc);
    store_pairs(imp, imp->ins_series, id, r->series_metric ? r->series_metric : "value",
                (const double *)r->series, r->n_series, &rc);
    return rc == SQLITE_OK ? 0 : fail(imp, rc);
}

/* Binds each metric to its column, and the others as the JSON object metrics_extra. */
static void bind_metrics(struct db_import *imp, const struct bench_record *r)
{
    sqlite3_stmt *st = imp->ins_result;
    struct buf *extra = &imp->json;
    buf_reset(extra);
    for (size_t i = 0; i < r->n_metrics; i++) {
        const struct metric *m = &r->metrics[i];
        int col = wide_index(&imp->db->wide, m->name);
        if (col >= 0) {
            sqlite3_bind_double(st, RESULT_FIXED_COLUMNS + 1 + col, m->value);
            continue;
        }
        buf_adds(extra, extra->len ? "," : "{");
        fmt_json_string(extra, m->name);
        buf_addc(extra, ':');
        fmt_plain_number(extra, m->value);
    }
    if (extra->len) {
        buf_addc(extra, '}');
        sqlite3_bind_text(st, RESULT_FIXED_COLUMNS, extra->data, (int)extra->len, SQLITE_TRANSIENT);
    }
}

static int store_record(void *ctx, const struct bench_record *r)
{
    struct db_import *imp = ctx;
    if (record_check(r, &imp->src, imp->d) || ensure_run(imp, r))
        return -1;
    sqlite3_stmt *st = imp->ins_result;
    char *rec_sec = NULL;
    sqlite3_bind_int64(st, 1, imp->run_id);
    int bad = bind_context(imp, r, &rec_sec);
    free(rec_sec);
    if (bad) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return -1;
    }
    bind_text(st, 7, r->job);
    bind_text(st, 8, r->direction);
    bind_workload(st, &r->wl);
    sqlite3_bind_int(st, 21, r->error);
    bind_text(st, 22, r->error_msg);
    if (r->line_first) {
        sqlite3_bind_int(st, 23, (int)r->line_first);
        sqlite3_bind_int(st, 24, (int)r->line_last);
    }
    sqlite3_bind_int(st, 25, r->transcribed);
    bind_metrics(imp, r);
    int rc = SQLITE_OK;
    step_done(st, &rc);
    if (rc != SQLITE_OK)
        return fail(imp, rc);
    imp->count++;
    return store_details(imp, r, sqlite3_last_insert_rowid(imp->db->h));
}

struct record_sink db_import_sink(struct db_import *imp)
{
    return (struct record_sink){store_record, imp};
}

size_t db_import_count(const struct db_import *imp)
{
    return imp->count;
}

void db_import_free(struct db_import *imp)
{
    if (!imp)
        return;
    release(imp->ins_result);
    release(imp->ins_tag);
    release(imp->ins_hist);
    release(imp->ins_series);
    buf_release(&imp->json);
    free(imp->label_mount_sec);
    free(imp);
}
