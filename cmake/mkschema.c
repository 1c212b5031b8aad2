/* mkschema.c: the build's schema snapshot. Applies the SQLite migrations (schema/0*.sql, given
 * in order) to an in-memory database, as schema/migrate.c applies them to a warehouse, and
 * writes a C file holding what they leave: the SQL of every table, index, view and trigger in
 * the order SQLite keeps them, which a new warehouse runs in one transaction instead of
 * replaying every migration (their 99 ALTER TABLEs each made SQLite parse the whole schema
 * again: 30 ms of a new warehouse's first import). The migrations stay the one source: this
 * file is made from them at every build, and tests/unit/test_migrate.c checks that a warehouse
 * made either way has the same schema, text for text.
 * usage: mkschema OUT.c MIGRATION.sql... */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *data = malloc(cap + 1);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *more = realloc(data, 2 * cap + 1);
            if (!more) {
                free(data);
                data = NULL;
                break;
            }
            data = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (data)
        data[n] = '\0';
    return data;
}

/* s as the bytes of a C array (a string literal may be no longer than 4,095 bytes in C99),
 * n written so far (for the line breaks). */
static void put_bytes(FILE *out, const char *s, size_t *n)
{
    for (; *s; s++)
        fprintf(out, "0x%02x,%s", (unsigned char)*s, ++*n % 16 ? "" : "\n");
}

int main(int argc, char **argv)
{
    sqlite3 *h = NULL;
    char *err = NULL;
    if (argc < 3 || sqlite3_open(":memory:", &h) != SQLITE_OK) {
        fprintf(stderr, "usage: mkschema OUT.c MIGRATION.sql...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char *sql = read_all(argv[i]);
        if (!sql || sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK) {
            fprintf(stderr, "mkschema: %s: %s\n", argv[i], sql ? err : "cannot be read");
            return 1;
        }
        free(sql);
    }
    sqlite3_stmt *st = NULL;
    FILE *out = fopen(argv[1], "w");
    if (!out || sqlite3_prepare_v2(h,
                                   "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name "
                                   "NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
                                   -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mkschema: cannot write %s: %s\n", argv[1], sqlite3_errmsg(h));
        return 1;
    }
    fprintf(out,
            "/* made by cmake/mkschema.c from schema/0*.sql: do not edit */\n"
            "const int schema_snapshot_version = %d;\n"
            "const unsigned char schema_snapshot_sql[] = {\n",
            argc - 2);
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        put_bytes(out, (const char *)sqlite3_column_text(st, 0), &n);
        put_bytes(out, ";\n", &n);
    }
    fputs("0x00};\n", out);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return fclose(out) == 0 ? 0 : 1;
}
