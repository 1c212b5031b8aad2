/* db.c: opening the warehouse: its flags and URI, WAL and the pragmas of each connection, the
 * schema check and migration, and closing it. A writer's transactions are batch.c's, the records
 * an import stores import_sink.c's. */
#include "db_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "sql.h"

/* No command maps the warehouse (SQLite's mmap_size stays 0): every mapped page counts in the
 * process's RSS (a 1M-result report: 1.2 GB with the file mapped, 0.64 GB without), and on
 * the 2-CPU VMs benchdb is measured on, faulting the pages in cost more than SQLite's pread
 * into its 2 MiB cache (bench/RESULTS.md). */

/* How long a writer waits for another process's transaction before giving up. */
enum { BUSY_TIMEOUT_MS = 30000 };

int db_exec(struct db *db, const char *sql, struct diag *d)
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
    return db_exec(db, "PRAGMA journal_mode = WAL", d) ||
           db_exec(db, "PRAGMA synchronous = NORMAL", d);
}

/* A warehouse this open creates is filled in SQLite's rollback-journal mode until its first
 * batch is committed (db_batch_commit) or it is closed, then switched to WAL (db_wal_now). A new
 * file's pages have no old content to journal, so that batch writes each page once, into the
 * database; in WAL mode it wrote each twice (into the -wal file, then checkpointed into the
 * database) and then deleted a -wal file as large as the database: a sixth of a first import of
 * 3,000 small files, which fit in one batch (bench/RESULTS.md). Readers of a warehouse being
 * created wait for that first commit as WAL readers would not; nothing of it existed before.
 * FULL: a commit in this mode is durable and uncorrupted by a power loss only so. */
static int fill_new(struct db *db, struct diag *d)
{
    db->wal_pending = 1;
    return db_exec(db, "PRAGMA synchronous = FULL", d);
}

static int said_wal(void *ctx, int n, char **values, char **names)
{
    (void)names;
    *(int *)ctx = n == 1 && values[0] && strcmp(values[0], "wal") == 0;
    return 0;
}

void db_wal_now(struct db *db)
{
    int wal = 0;
    /* fails at once (no busy handler) while another connection has the file open: tried again
     * at the close, and every writer's open switches a warehouse left so (set_wal) */
    if (db->wal_pending &&
        sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", said_wal, &wal, NULL) == SQLITE_OK &&
        wal && sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) == SQLITE_OK)
        db->wal_pending = 0;
}

/* Appends why path cannot be opened when the system refuses it (the file unreadable, or
 * its directory unwritable: a WAL database is read through -wal and -shm files SQLite
 * creates next to it); nothing when both are allowed. SQLite's errno is not used here: it
 * is its last system call's, often a harmless ENOENT from looking for a journal. */
/* The directory holding path (caller frees): where SQLite puts its -wal and -shm files. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
}

/* Whether path's -wal, -shm or -journal file is there (a writer has it open, or stopped before
 * folding its -wal in, or while it filled a new warehouse: fill_new). */
static int has_writer_files(const char *path)
{
    static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
    struct buf name = BUF_INIT;
    struct stat st;
    int found = 0;
    for (size_t i = 0; i < ARRAY_SIZE(suffixes) && !found; i++) {
        buf_reset(&name);
        buf_addf(&name, "%s%s", path, suffixes[i]);
        found = lstat(name.data, &st) == 0 || errno != ENOENT;
    }
    buf_release(&name);
    return found;
}

static void describe_refusal(struct buf *out, const char *path)
{
    char *dir = dir_of(path);
    if (access(path, R_OK))
        buf_addf(out, "cannot read the file: %s", strerror(errno));
    else if (access(dir, W_OK) && has_writer_files(path))
        buf_addf(out,
                 "cannot write its directory '%s' (%s), where a writer left '%s-wal', "
                 "'-shm' or '-journal' (it has the warehouse open, or stopped before folding "
                 "them in): "
                 "SQLite reads it only through a -shm file it can write; run a benchdb command "
                 "once as a user who may write there, or read a copy",
                 dir, strerror(errno), path);
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
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    int row = sql_step(st, &rc);
    buf_release(&sql);
    if (!row) {
        struct buf why = BUF_INIT;
        describe_failure(&why, db->h, rc == SQLITE_OK ? SQLITE_ERROR : rc, path);
        sqlite3_finalize(st);
        diag_error(d, "cannot read database '%s': %s", path, why.data);
        buf_release(&why);
        return -1;
    }
    int tables = sqlite3_column_int(st, 0);
    *version = db_user_version(db->h, schema);
    if (*version == 0 && tables > 0)
        diag_error(d,
                   "'%s' is not a benchdb database: it has %d table%s of its own (%s%s) and no "
                   "benchdb schema; it was left unchanged",
                   path, tables, tables == 1 ? "" : "s", sqlite3_column_text(st, 1),
                   tables > 5 ? ", ..." : "");
    sqlite3_finalize(st);
    return *version == 0 && tables > 0 ? -1 : 0;
}

/* A reader opens the file read-write when it may: a read-only connection cannot remove the
 * -wal and -shm files it makes when it closes, so every report would leave them beside the
 * warehouse. The readers never write it (the query command refuses statements that would);
 * query_only is no guard here, since it refuses the temporary tables push reads through. */
static int read_flags(const char *path)
{
    char *dir = dir_of(path);
    int writable = access(path, W_OK) == 0 && access(dir, W_OK) == 0;
    free(dir);
    return writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
}

/* The URI that opens path as immutable (no locks, no -shm), when a reader cannot write its
 * directory (read-only media, another user's warehouse) and so SQLite cannot create the -shm
 * file a WAL database is read through: only with no -wal, -shm or -journal file there, when
 * no writer has it open and the file holds every commit. Else NULL (caller frees). */
static char *immutable_uri(const char *path)
{
    char *dir = dir_of(path);
    int dir_writable = access(dir, W_OK) == 0;
    free(dir);
    if (dir_writable || has_writer_files(path))
        return NULL;
    struct buf uri = BUF_INIT;
    buf_adds(&uri, "file:");
    for (const char *p = path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#')
            buf_addf(&uri, "%%%02x", (unsigned char)*p);
        else
            buf_addc(&uri, *p);
    }
    buf_adds(&uri, "?immutable=1");
    return buf_detach(&uri, NULL);
}

int db_open(const char *path, enum db_open_mode mode, struct db **out, struct diag *d)
{
    /* each connection is used by one thread at a time: SQLite's own locking only costs */
    int flags = SQLITE_OPEN_NOMUTEX |
                (mode == DB_READ_ONLY    ? read_flags(path)
                 : mode == DB_READ_WRITE ? SQLITE_OPEN_READWRITE
                                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    /* nothing reads SQLite's memory statistics, whose upkeep takes a mutex per allocation
     * (refused, harmlessly, once SQLite is initialized: the first open sets it) */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    struct stat st;
    if (mode != DB_CREATE && stat(path, &st) != 0 && errno == ENOENT)
        return diag_error(d,
                          "no warehouse at '%s' yet: import results first (or name one with "
                          "--db or $BENCHDB_DB)",
                          path);
    char *uri = flags & SQLITE_OPEN_READONLY ? immutable_uri(path) : NULL;
    struct db *db = xcalloc(1, sizeof(*db));
    db->path = xstrdup(path);
    int created = mode == DB_CREATE && stat(path, &st) != 0 && errno == ENOENT;
    int rc = sqlite3_open_v2(uri ? uri : path, &db->h, flags | (uri ? SQLITE_OPEN_URI : 0), NULL);
    free(uri);
    if (rc != SQLITE_OK) {
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
    if (db_schema_check(db, "main", path, &version, d) ||
        db_exec(db, "PRAGMA foreign_keys = ON", d) ||
        db_exec(db, "PRAGMA temp_store = MEMORY", d) ||
        (mode != DB_READ_ONLY && (created ? fill_new(db, d) : set_wal(db, d))) ||
        (mode != DB_READ_ONLY && db_migrate(db->h, d))) {
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
    checkpointer_stop(db);
    sql_cache_free(db);
    db_wal_now(db);
    wide_release(&db->wide);
    raw_packer_free(db->packer);
    db_raw_dicts_release(db);
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}

struct sqlite3 *db_handle(struct db *db)
{
    return db->h;
}
