/* db_private.h: shared inside schema/ only. */
#ifndef BDB_DB_PRIVATE_H
#define BDB_DB_PRIVATE_H

#include <sqlite3.h>

#include "../core/strmap.h"
#include "db.h"

/* Statements prepared once per connection, found again by their SQL text's address (the
 * texts are literals), so a batch of thousands of files is not re-parsed for each file. */
struct stmt_cache {
    const char *sql;
    sqlite3_stmt *st;
};

/* The metric columns of result (its REAL columns, schema/0002_wide.sql), read from the schema
 * when the first file is stored: a metric's column is found by a hash of its name. */
struct wide_columns {
    char **names;
    size_t n, alloc;
    struct strmap index; /* name -> its index into names */
    int loaded;
    char *insert_sql; /* import_sink.c's result INSERT naming them, kept for the statement cache */
};

struct db {
    sqlite3 *h;
    char *path;
    struct stmt_cache *cache;
    size_t ncache, acache;
    struct wide_columns wide;
    struct raw_packer *packer; /* compresses sources' bytes (rawstore.c); NULL until used */
    struct raw_dicts *dicts;   /* db_raw_dicts(); NULL until used */
    int in_batch;              /* a batch transaction is open (db_file_begin) */
    int file_savepoint;        /* the file being stored is in a savepoint of its own */
    unsigned undos;            /* rollbacks so far, of a file, a batch or a transaction */
    struct {                   /* the row of a shipped dictionary, as db_raw_dict_stored found */
        const struct raw_dict *dict;
        int64_t id;
        unsigned undos; /* while db->undos is this: a rollback may take the row back */
    } dict_row;
    double batch_started;
    double batch_seconds;              /* how long the open batch runs (batch.c) */
    struct checkpointer *checkpointer; /* checkpoint.c; NULL: SQLite's automatic checkpoints */
    int wal_pending; /* created by this open, in rollback-journal mode until db_wal_now */
};

/* ---- db.c ---- */
/* Runs sql (no rows, not cached: pragmas, BEGIN, COMMIT); 0, or -1 after a message. */
int db_exec(struct db *db, const char *sql, struct diag *d);

/* A warehouse db_open created goes to WAL now, unless another connection has it open. */
void db_wal_now(struct db *db);

/* ---- checkpoint.c: the WAL checkpoints of a batch writer on a thread of their own ---- */
/* Starts checkpointing db's WAL on a thread (once; nothing when that cannot be done). */
void checkpointer_start(struct db *db);
/* Stops it (waiting for a checkpoint under way); SQLite checkpoints automatically again. */
void checkpointer_stop(struct db *db);

/* ---- migrate.c ---- */
int db_migrate(sqlite3 *h, struct diag *d);
/* The same by replaying each migration not applied yet, also for a new warehouse (the path
 * every upgrade takes; test_migrate.c compares the two). */
int db_migrate_each(sqlite3 *h, struct diag *d);
/* PRAGMA schema.user_version: the schema version of the database open as schema ("main" or
 * an ATTACHed name, from benchdb's code); 0 when it has none or cannot be read. */
int db_user_version(sqlite3 *h, const char *schema);
/* The schema version this benchdb writes: how many migrations it has. */
int db_migration_count(void);

/* ---- relabel.c ---- */
/* Fills temp.sel_result(id) with the ids of the results matching every filter (db.h's filter
 * keys; none: every result); 0 or -1 after a message. */
int db_select_results(struct db *db, const struct kv *where, size_t n, struct diag *d);

/* ---- merge_baseline.c ---- */
/* Copies the baselines of the warehouse attached as merge_other (after its results were
 * copied, inside merge's transaction); 0, or -1 (sqlite3_errmsg says why). */
int merge_baselines(sqlite3 *h, const char *other_path, struct diag *d);

/* ---- wide.c ---- */
/* Reads the metric columns once per connection; 0 or -1 after a message. */
int wide_load(struct db *db, struct diag *d);
/* The metric's column (index into db->wide.names), or -1 when it has none. */
int wide_index(const struct wide_columns *w, const char *name);
void wide_release(struct wide_columns *w);

/* ---- rawstore.c: a source's bytes as stored (schema/0003_raw.sql) ---- */
/* struct raw_blob, raw_pack, raw_packer_free, db_raw_dicts: db.h (import's workers pack ahead) */
/* Frees db's dictionaries (db_raw_dicts reads them again). */
void db_raw_dicts_release(struct db *db);
/* vacuum's part in rawstore_train.c: trains a dictionary for each format stored against the
 * one benchdb ships, repacks each format's files stored against an older one (or none), and
 * drops the dictionaries no file is stored against. 0, or -1 after a message. */
int db_raw_vacuum(struct db *db, struct diag *d);
/* The id of a dictionary (raw_dict.id; 0: shipped, not stored yet), for rawstore_train.c. */
int64_t raw_dict_id(const struct raw_dict *dict);
/* 1 when dict is the one this benchdb ships for its format (stored or not), else 0. */
int raw_dict_is_shipped(const struct raw_dict *dict);
/* The sha256 (hex) of dict's bytes: a dictionary's name in any warehouse. */
const char *raw_dict_sha256(const struct raw_dict *dict);
/* Gets one piece of a source's bytes, in file order; 0, or nonzero to stop. */
typedef int raw_each_fn(void *ctx, const void *data, size_t len);
/* Calls each with the bytes of source id of schema ("main" or an ATTACHed name), decoded:
 * its raw, or its chunks in order. 0; 1 when the stored bytes do not decode (or each
 * stopped); -1 when the database cannot be read (sqlite3_errmsg says why). */
int raw_each(sqlite3 *h, const char *schema, int64_t id, raw_each_fn *each, void *ctx);
/* The same for many sources: one reader of schema's bytes (NULL when its query cannot be
 * prepared: sqlite3_errmsg says why), raw_read as raw_each for each source, then close. */
struct raw_reader;
struct raw_reader *raw_reader_open(sqlite3 *h, const char *schema);
int raw_read(struct raw_reader *r, int64_t id, raw_each_fn *each, void *ctx);
/* Why the last raw_read's bytes did not decode ("" when they did, or when each stopped it). */
const char *raw_reader_why(const struct raw_reader *r);
void raw_reader_close(struct raw_reader *r);

#endif
