/* test_sql.c: the statement toolkit of schema/ (schema/sql.h): parameters bound by name, a
 * name the statement lacks is an error, the first failure of a sequence is kept and the calls
 * after it do nothing, step errors reach rc and sqlite3_errmsg, cached statements come back
 * reset and unbound. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/record.h"
#include "../../schema/db.h"
#include "../../schema/sql.h"
#include "harness.h"

static sqlite3 *open_memory(void)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open(":memory:", &h);
    INT_EQ(rc, SQLITE_OK, "in-memory database opens");
    sql_exec(h, &rc, "CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, s TEXT, b BLOB)");
    INT_EQ(rc, SQLITE_OK, "table created");
    return h;
}

/* The row of t with id, as "n|s|hex(b)" (NULL as "null"), through SQL of its own. */
static char *row_text(sqlite3 *h, int64_t id)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc,
                                   "SELECT coalesce(n, 'null') || '|' || coalesce(s, 'null') || "
                                   "'|' || coalesce(hex(b), 'null') FROM t WHERE id = :id");
    sql_bind_int(st, &rc, ":id", id);
    char *text = sql_step(st, &rc) ? strdup((const char *)sqlite3_column_text(st, 0)) : NULL;
    sqlite3_finalize(st);
    return text;
}

static void binds_by_name(void)
{
    sqlite3 *h = open_memory();
    int rc = SQLITE_OK;
    /* the parameters in another order than the columns: names, not positions, decide */
    sqlite3_stmt *st = sql_prepare(h, &rc, "INSERT INTO t(id, n, s, b) VALUES (:id, :n, :s, :b)");
    sql_bind_text(st, &rc, ":s", "text");
    sql_bind_blob(st, &rc, ":b", "\x01\xff", 2);
    sql_bind_int(st, &rc, ":n", 42);
    sql_bind_int(st, &rc, ":id", 1);
    sql_step_done(st, &rc);
    INT_EQ(rc, SQLITE_OK, "insert by name");
    char *row = row_text(h, 1);
    STR_EQ(row, "42|text|01FF", "each value in its named column");
    free(row);

    /* NULL text and an unknown workload value bind NULL */
    sql_bind_int(st, &rc, ":id", 2);
    sql_bind_known_int(st, &rc, ":n", WL_UNKNOWN);
    sql_bind_text(st, &rc, ":s", NULL);
    sql_bind_text_borrowed(st, &rc, ":b", "abc", 2);
    sql_step_done(st, &rc);
    INT_EQ(rc, SQLITE_OK, "insert with NULLs");
    row = row_text(h, 2);
    STR_EQ(row, "null|null|6162", "NULL text and WL_UNKNOWN are NULL; borrowed text has length");
    free(row);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static void missing_name_is_an_error(void)
{
    sqlite3 *h = open_memory();
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, "INSERT INTO t(id, n) VALUES (:id, :n)");
    OK(sql_uses(st, ":n") && !sql_uses(st, ":count"), "sql_uses knows the statement's names");
    INT_EQ(sql_param(st, &rc, ":n"), 2, "parameter index of :n");
    sql_bind_int(st, &rc, ":id", 7);
    sql_bind_int(st, &rc, ":count", 3); /* a typo of :n */
    INT_EQ(rc, SQLITE_RANGE, "a name the statement lacks is SQLITE_RANGE");
    sql_bind_int(st, &rc, ":n", 3);
    INT_EQ(rc, SQLITE_RANGE, "the first failure is kept");
    OK(!sql_step(st, &rc), "no step after a failure");
    sqlite3_finalize(st);
    int counted = SQLITE_OK;
    INT_EQ(sql_int(h, &counted, "SELECT count(*) FROM t"), 0, "nothing was inserted");
    INT_EQ(counted, SQLITE_OK, "count ran");
    INT_EQ(sql_param(NULL, &rc, ":n"), 0, "no parameter once rc failed");
    sqlite3_close(h);
}

static void step_errors_reported(void)
{
    sqlite3 *h = open_memory();
    int rc = SQLITE_OK;
    sql_exec(h, &rc, "INSERT INTO t(id, n) VALUES (1, 1)");
    sqlite3_stmt *st = sql_prepare(h, &rc, "INSERT INTO t(id, n) VALUES (:id, :n)");
    sql_bind_int(st, &rc, ":id", 1);
    sql_bind_int(st, &rc, ":n", 2);
    sql_step_done(st, &rc);
    INT_EQ(rc & 0xff, SQLITE_CONSTRAINT, "a duplicate key is a step error in rc");
    OK(strstr(sqlite3_errmsg(h), "UNIQUE constraint failed: t.id") != NULL,
       "sqlite3_errmsg says which constraint");
    sqlite3_finalize(st);

    rc = SQLITE_OK;
    st = sql_prepare(h, &rc, "SELEKT 1");
    OK(st == NULL && rc == SQLITE_ERROR, "a syntax error fails the prepare");
    OK(strstr(sqlite3_errmsg(h), "syntax error") != NULL, "and is described");
    INT_EQ(sql_int(h, &rc, "SELECT 5"), 0, "a query after a failure does not run");
    INT_EQ(rc, SQLITE_ERROR, "the prepare's failure is kept");

    rc = SQLITE_OK;
    INT_EQ(sql_int(h, &rc, "SELECT n * 10 FROM t WHERE id = 1"), 10, "sql_int reads the value");
    INT_EQ(sql_int(h, &rc, "SELECT n FROM t WHERE id = 99"), 0, "no row reads 0");
    INT_EQ(rc, SQLITE_OK, "no row is not an error");
    sql_exec(h, &rc, "INSERT INTO nowhere VALUES (1)");
    OK(rc == SQLITE_ERROR && strstr(sqlite3_errmsg(h), "no such table: nowhere"),
       "sql_exec reports its failure");
    sqlite3_close(h);
}

static void cached_statements(void)
{
    static const char sql[] = "SELECT :v";
    char path[] = "/tmp/test_sql_XXXXXX";
    int fd = mkstemp(path);
    OK(fd >= 0, "temporary file");
    struct diag d = {0};
    struct db *db = NULL;
    OK(db_open(path, DB_CREATE, &db, &d) == 0, "warehouse opens");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(db, &rc, sql);
    sql_bind_int(st, &rc, ":v", 5);
    OK(sql_step(st, &rc) && sqlite3_column_int(st, 0) == 5, "bound value read");
    sql_release(st);
    sqlite3_stmt *again = sql_cached(db, &rc, sql);
    OK(again == st, "the same text gives the same statement");
    OK(sql_step(again, &rc) && sqlite3_column_type(again, 0) == SQLITE_NULL,
       "it comes back unbound");
    sql_release(again);
    INT_EQ(rc, SQLITE_OK, "no failure");
    rc = SQLITE_ERROR;
    OK(sql_cached(db, &rc, sql) == NULL, "no statement once rc failed");
    db_close(db);
    close(fd);
    unlink(path);
    char wal[64];
    snprintf(wal, sizeof(wal), "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof(wal), "%s-shm", path);
    unlink(wal);
}

int main(void)
{
    binds_by_name();
    missing_name_is_an_error();
    step_errors_reported();
    cached_statements();
    return TEST_DONE();
}
