/* test_graph.c: the description of the warehouse's tables (schema/graph.h) against the schema
 * itself: a fresh warehouse's tables (sqlite_schema) and their foreign keys
 * (pragma_foreign_key_list) are each described, every foreign key described is declared there
 * (or marked as not declared, and its column exists), parents come before the tables that
 * point at them, the columns the description names exist, and the server's migrations
 * (schema/pg/) create each table. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/array.h"
#include "../../core/buf.h"
#include "../../schema/db.h"
#include "../../schema/graph.h"
#include "harness.h"

static void fail_about(const char *what, const char *table, const char *column)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "%s: %s%s%s", what, table, column ? "." : "", column ? column : "");
    OK(0, msg);
}

static int index_of(const struct graph_table *t)
{
    return t ? (int)(t - graph_tables) : -1;
}

/* sql prepared with the texts a, b, c (NULL: none) bound to ?1, ?2, ?3: the caller steps and
 * finalizes it. The test reads the schema through SQLite alone, not through the code it
 * checks. */
static sqlite3_stmt *query(sqlite3 *h, const char *sql, const char *a, const char *b, const char *c)
{
    sqlite3_stmt *st = NULL;
    OK(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, sql);
    const char *texts[] = {a, b, c};
    for (int i = 0; i < 3 && texts[i]; i++)
        sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
    return st;
}

/* 1 when sql (with a, b, c) returns a row, else 0. */
static int exists(sqlite3 *h, const char *sql, const char *a, const char *b, const char *c)
{
    sqlite3_stmt *st = query(h, sql, a, b, c);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int has_column(sqlite3 *h, const char *table, const char *column)
{
    return exists(h, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", table, column, NULL);
}

/* Every table of the schema is described, and every table described is in the schema. */
static void every_table(sqlite3 *h)
{
    sqlite3_stmt *st = query(h,
                             "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT "
                             "LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                             NULL, NULL, NULL);
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!graph_find(name))
            fail_about("a table of the schema is not in graph.c", name, NULL);
        n++;
    }
    sqlite3_finalize(st);
    OK(n > 10, "the fresh warehouse has its tables");
    for (size_t i = 0; i < graph_n_tables; i++) {
        if (!exists(h, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                    graph_tables[i].name, NULL, NULL))
            fail_about("graph.c describes a table the schema lacks", graph_tables[i].name, NULL);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(graph_tables[k].name, graph_tables[i].name))
                fail_about("graph.c describes a table twice", graph_tables[i].name, NULL);
    }
}

/* Every declared foreign key is described (its column, its parent, the parent's id). */
static void declared_keys_described(sqlite3 *h)
{
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        sqlite3_stmt *st = query(h,
                                 "SELECT \"from\", \"table\", \"to\", seq FROM "
                                 "pragma_foreign_key_list(?1)",
                                 t->name, NULL, NULL);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *from = (const char *)sqlite3_column_text(st, 0);
            const char *parent = (const char *)sqlite3_column_text(st, 1);
            const char *to = (const char *)sqlite3_column_text(st, 2);
            const struct graph_fk *fk = graph_fk(t, from);
            if (!fk)
                fail_about("a foreign key of the schema is not in graph.c", t->name, from);
            else if (strcmp(fk->parent, parent))
                fail_about("graph.c names another parent for", t->name, from);
            else if (fk->undeclared)
                fail_about("graph.c says this foreign key is not declared, but it is", t->name,
                           from);
            if (to && strcmp(to, "id"))
                fail_about("a foreign key to another column than id", t->name, from);
            if (sqlite3_column_int(st, 3) != 0)
                fail_about("a foreign key of several columns", t->name, from);
        }
        sqlite3_finalize(st);
    }
}

/* Every foreign key described is declared (unless marked otherwise) on a column that exists,
 * to a table described before it. */
static void described_keys_declared(sqlite3 *h)
{
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        for (size_t k = 0; k < GRAPH_MAX_FK && t->fk[k].column; k++) {
            const struct graph_fk *fk = &t->fk[k];
            if (!has_column(h, t->name, fk->column))
                fail_about("graph.c describes a foreign key on a column the schema lacks", t->name,
                           fk->column);
            int parent = index_of(graph_find(fk->parent));
            if (parent < 0)
                fail_about("a foreign key to a table graph.c lacks", t->name, fk->column);
            else if (parent >= (int)i)
                fail_about("a table listed before its parent (not parents first)", t->name,
                           fk->column);
            if (fk->undeclared)
                continue;
            if (!exists(h,
                        "SELECT 1 FROM pragma_foreign_key_list(?1) WHERE \"from\" = ?2 AND "
                        "\"table\" = ?3",
                        t->name, fk->column, fk->parent))
                fail_about("graph.c describes a foreign key the schema does not declare", t->name,
                           fk->column);
        }
    }
}

/* graph_is_parent of the table of that name, -1 when graph.c lacks it. */
static int is_parent(const char *name)
{
    const struct graph_table *t = graph_find(name);
    return t ? graph_is_parent(t) : -1;
}

/* The other columns the description names exist, and the owners make trees of one role. */
static void columns_and_owners(sqlite3 *h)
{
    size_t file_roots = 0;
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        const char *named[] = {t->owner, t->key, t->bytes, t->range};
        for (size_t k = 0; k < ARRAY_SIZE(named); k++)
            if (named[k] && !has_column(h, t->name, named[k]))
                fail_about("graph.c names a column the schema lacks", t->name, named[k]);
        if (t->owner && !graph_fk(t, t->owner))
            fail_about("an owner that is not one of the table's foreign keys", t->name, t->owner);
        const struct graph_table *owner = graph_owner(t);
        if (owner && owner->role != t->role)
            fail_about("a table hangs off a table of another role", t->name, t->owner);
        if (!t->owner && !t->key)
            fail_about("a root without a key (nothing identifies its rows across warehouses)",
                       t->name, NULL);
        if ((t->flags & GRAPH_ORDINAL) && !t->owner)
            fail_about("an ordinal needs an owner to count among", t->name, NULL);
        file_roots += t->role == GRAPH_FILE && !t->owner;
    }
    INT_EQ(file_roots, 1, "one table is the root of an imported file's rows");
    const struct graph_table *source = graph_find("source_file");
    OK(source && source->role == GRAPH_FILE && !source->owner, "source_file is that root");
    INT_EQ(is_parent("run"), 1, "results point at runs");
    INT_EQ(is_parent("tag"), 0, "nothing points at a tag");
    INT_EQ(is_parent("raw_dict"), 0, "no dictionary points at a dictionary (sources are files)");
}

/* The server's migrations create every table, with the ordinal where the graph says so. */
static void server_tables(void)
{
    const char *fixtures = getenv("FIXTURES");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/../../schema/pg", fixtures ? fixtures : "tests/fixtures");
    DIR *dp = opendir(dir);
    OK(dp != NULL, "schema/pg/ is found (beside tests/fixtures/)");
    if (!dp)
        return;
    struct buf all = BUF_INIT;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".sql"))
            continue;
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        OK(f && buf_read_file(&all, f) == 0, path);
        if (f)
            fclose(f);
    }
    closedir(dp);
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        char create[128];
        snprintf(create, sizeof(create), "CREATE TABLE %s (", t->name);
        const char *at = strstr(all.data, create);
        if (!at) {
            fail_about("the server's migrations do not create", t->name, NULL);
            continue;
        }
        const char *end = strstr(at, ");");
        const char *ordinal = strstr(at, "ordinal ");
        if ((t->flags & GRAPH_ORDINAL) && (!ordinal || !end || ordinal > end))
            fail_about("the server's table lacks its ordinal", t->name, "ordinal");
    }
    buf_release(&all);
}

int main(void)
{
    char dir[] = "/tmp/test_graph_XXXXXX";
    OK(mkdtemp(dir) != NULL, "temporary directory");
    char path[64];
    snprintf(path, sizeof(path), "%s/w.db", dir);
    struct diag d = {0};
    struct db *db = NULL;
    OK(db_open(path, DB_CREATE, &db, &d) == 0, "a fresh warehouse opens");
    db_close(db);
    sqlite3 *h = NULL;
    INT_EQ(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "it reopens");
    every_table(h);
    declared_keys_described(h);
    described_keys_declared(h);
    columns_and_owners(h);
    server_tables();
    sqlite3_close(h);
    char side[96];
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
        snprintf(side, sizeof(side), "%s%s", path, suffixes[i]);
        unlink(side);
    }
    rmdir(dir);
    return TEST_DONE();
}
