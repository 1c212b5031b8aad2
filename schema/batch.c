/* batch.c: a writer's transactions: db_begin/db_commit/db_rollback, and the batches an import
 * stores its files in: one transaction committed when the batch is old enough, with a savepoint
 * at its start, and each file in a savepoint of its own unless every check that may refuse it
 * ran before its first row was written (db.h). */
#include "db_private.h"

#include <time.h>

#include "../core/scan.h"
#include "sql.h"

int db_begin(struct db *db, struct diag *d)
{
    return db_exec(db, "BEGIN IMMEDIATE", d);
}

int db_commit(struct db *db, struct diag *d)
{
    db->in_batch = 0;
    return db_exec(db, "COMMIT", d);
}

void db_rollback(struct db *db)
{
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    db->in_batch = 0;
    db->undos++;
}

/* Runs a statement that returns no rows, prepared once per connection (a savepoint per file
 * of a batch would otherwise be parsed again for each). */
static int exec_cached(struct db *db, const char *sql, struct diag *d)
{
    int rc = SQLITE_OK;
    sql_step_done(sql_cached(db, &rc, sql), &rc);
    if (rc == SQLITE_OK)
        return 0;
    return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
}

/* How long a batch of files may hold the write lock before it is committed: long enough that
 * thousands of small files share one commit, short enough that another writer waiting on the
 * busy timeout barely notices and a crash loses at most this much work. The environment
 * variable BENCHDB_BATCH_MS sets it, for tests (a fast machine imports their whole input
 * within one batch). */
static double batch_seconds(void)
{
    return (double)scan_env_int64("BENCHDB_BATCH_MS", 250) / 1000;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int db_file_begin(struct db *db, int savepoint, struct diag *d)
{
    if (!db->in_batch) {
        checkpointer_start(db);
        /* the batch's own savepoint costs a copy of each page it finds and changes, once per
         * batch; a file's costs that for every file (~10 pages: the right-most leaves) */
        if (db_exec(db, "BEGIN IMMEDIATE", d) || exec_cached(db, "SAVEPOINT batch", d))
            return -1;
        db->in_batch = 1;
        db->batch_started = now_seconds();
        db->batch_seconds = batch_seconds();
    }
    db->file_savepoint = savepoint;
    return savepoint ? exec_cached(db, "SAVEPOINT file", d) : 0;
}

/* A full disk or an I/O error may make SQLite roll the whole transaction back (its savepoints
 * with it): the batch is lost, and the error that did it, said where it happened, is the one to
 * report, not "no such savepoint". 1 then, else 0. */
static int batch_gone(struct db *db)
{
    if (db->in_batch && sqlite3_get_autocommit(db->h)) {
        db->in_batch = 0;
        db->undos++;
        return 1;
    }
    return 0;
}

int db_file_end(struct db *db, int keep, struct diag *d)
{
    if (batch_gone(db))
        return -1;
    if (!db->file_savepoint)
        return 0;
    db->file_savepoint = 0;
    db->undos += !keep;
    if (!keep && exec_cached(db, "ROLLBACK TO file", d))
        return -1;
    return exec_cached(db, "RELEASE file", d);
}

int db_batch_rewind(struct db *db, struct diag *d)
{
    if (batch_gone(db))
        return -1;
    db->undos++;
    return exec_cached(db, "ROLLBACK TO batch", d);
}

int db_batch_commit(struct db *db, int force, struct diag *d)
{
    if (!db->in_batch || (!force && now_seconds() - db->batch_started < db->batch_seconds))
        return 0;
    db->in_batch = 0;
    if (db_exec(db, "COMMIT", d)) {
        db_rollback(db);
        return -1;
    }
    db_wal_now(db);
    return 1;
}
