/* test_sql.c: the statement toolkit of schema/ (schema/sql.h): parameters bound by name, a
 * name the statement lacks is an error, the first failure of a sequence is kept and the calls
 * after it do nothing, step errors reach rc and sqlite3_errmsg, cached statements come back
 * reset and unbound; statements built at run time (a list of values bound in order, the first
 * statement of a text), the column readers, and the message a finalize can overwrite. */
#include <math.h>
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
    sql_bind_known_int_at(st, &rc, 2, WL_UNKNOWN); /* :n is the second parameter */
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
    /* after a failed prepare the statement is NULL: the calls that follow never read it */
    sql_bind_int(NULL, &rc, ":n", 3);
    sql_bind_known_int_at(NULL, &rc, 2, 3);
    INT_EQ(rc, SQLITE_RANGE, "no call reads the statement once rc failed");
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

static void run_time_statements(void)
{
    sqlite3 *h = open_memory();
    int rc = SQLITE_OK;
    char value[] = "first";
    const char *values[] = {value, NULL, "third"};
    sqlite3_stmt *st = sql_prepare(h, &rc, "SELECT ?, ?, ?3, 2.5, 3");
    sql_bind_texts(st, &rc, values, 3);
    value[0] = 'F'; /* the values are copied: changing the caller's string changes nothing */
    OK(sql_step(st, &rc), "a row");
    STR_EQ(sql_text(st, 0), "first", "?1 is the first value, as it was when bound");
    OK(sql_text(st, 1) == NULL, "a NULL value binds NULL and reads NULL");
    STR_EQ(sql_text(st, 2), "third", "?3 is the third value");
    OK(isnan(sql_real(st, 1)), "sql_real of NULL is NAN");
    OK(sql_real(st, 3) == 2.5 && sql_real(st, 4) == 3.0, "sql_real reads reals and integers");
    sql_finalize(st, &rc);
    INT_EQ(rc, SQLITE_OK, "no failure");

    const char *tail = NULL;
    st = sql_prepare_first(h, &rc, "SELECT 1; SELECT 2", &tail);
    OK(st && !strcmp(tail, " SELECT 2"), "the tail is the text after the first statement");
    sqlite3_finalize(st);
    st = sql_prepare_first(h, &rc, " -- nothing\n ;", &tail);
    OK(st == NULL && rc == SQLITE_OK, "a text of no statement gives none, and no failure");

    /* a failing step, kept by sql_finalize when the caller stepped it itself */
    sql_exec(h, &rc, "INSERT INTO t(id) VALUES (1)");
    st = sql_prepare(h, &rc, "INSERT INTO t(id) VALUES (1)");
    sqlite3_step(st);
    sql_finalize(st, &rc);
    INT_EQ(rc & 0xff, SQLITE_CONSTRAINT, "sql_finalize keeps the statement's failure");
    rc = SQLITE_OK;
    st = sql_prepare(h, &rc, "INSERT INTO t(id) VALUES (1)");
    sqlite3_step(st);
    rc = SQLITE_RANGE;
    sql_finalize(st, &rc);
    INT_EQ(rc, SQLITE_RANGE, "and an earlier failure over a later one");

    /* why sql.h says to read the message first: a finalize after the failure replaces it */
    rc = SQLITE_OK;
    sqlite3_stmt *good = sql_prepare(h, &rc, "SELECT 1");
    sql_step(good, &rc);
    st = sql_prepare(h, &rc, "INSERT INTO t(id) VALUES (1)");
    sql_step(st, &rc);
    OK(strstr(sqlite3_errmsg(h), "UNIQUE") != NULL, "the failure is described");
    sqlite3_finalize(good);
    STR_EQ(sqlite3_errmsg(h), "not an error", "until a statement that ran well is finalized");
    sqlite3_finalize(st);
    sqlite3_close(h);
}

int main(void)
{
    binds_by_name();
    missing_name_is_an_error();
    step_errors_reported();
    cached_statements();
    run_time_statements();
    return TEST_DONE();
}
