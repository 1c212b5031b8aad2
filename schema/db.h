/* db.h: the database layer, the only writer of the warehouse. It owns the sqlite3 handle;
 * no other module outside schema/ and query/ sees SQL. */
#ifndef BDB_DB_H
#define BDB_DB_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../core/record.h"

struct db;
struct sqlite3;

enum db_open_mode { DB_READ_ONLY, DB_READ_WRITE, DB_CREATE };

/* Opens (and with DB_CREATE creates and migrates) the warehouse; 0 or -1 after a message. */
int db_open(const char *path, enum db_open_mode mode, struct db **out, struct diag *d);
void db_close(struct db *db);
/* The raw handle, for query/ only. */
struct sqlite3 *db_handle(struct db *db);
int db_schema_version(struct db *db);

int db_begin(struct db *db, struct diag *d);
int db_commit(struct db *db, struct diag *d);
void db_rollback(struct db *db);

/* Labels given at import time; they win over what the content says. */
struct import_labels {
    const char *host, *storage_class, *sec;
    const char *mount; /* an option string or a whole mount line */
    const struct kv *tags;
    size_t n_tags;
};

struct db_import; /* one file being imported, inside a transaction */

/* 1 when a file with this content is already stored (its path in *path, caller frees),
 * 0 when not, -1 on error. */
int db_source_find(struct db *db, const char *sha256, char **path, struct diag *d);
/* Starts storing one file: its provenance row. */
struct db_import *db_import_begin(struct db *db, const struct source *src, const char *sha256,
                                  const char *format, const char *imported_at,
                                  const struct import_labels *labels, struct diag *d);
/* The sink that stores records of this file. */
struct record_sink db_import_sink(struct db_import *imp);
size_t db_import_count(const struct db_import *imp);
void db_import_free(struct db_import *imp);

#endif
