/* push.h: what the files of benchdb push share (private to fleet/push*.c). push.c runs the
 * push (its lock, the sources to send, the workers and their batches); push_rekey.c gives the
 * rows of a batch the server's ids; push_copy.c sends rows in COPY's binary format;
 * push_check.c leaves out the sources the server would refuse; push_labels.c sends the label
 * changes. The tables are those of schema/graph.h that hold a file's rows or the rows files
 * share, parents first. */
#ifndef BDB_PUSH_H
#define BDB_PUSH_H

#include <pthread.h>
#include <sqlite3.h>

#include "../schema/graph.h"
#include "fleet_private.h"

#define WHO "benchdb push"

/* The server's column types that a push sends, in COPY's binary format. */
enum pg_type { PG_INT8, PG_INT4, PG_FLOAT8, PG_TEXT, PG_BYTEA };

/* A table pushed, and the SQL that sends a batch's rows of it, built once per push (the
 * workers' connections cache the statements by the address of their text, which lives as long
 * as the push). */
struct push_table {
    const struct graph_table *g;
    struct buf cols;     /* its local columns, "a, b, c" */
    struct buf sent;     /* the server's columns sent: the local ones, then the ordinal */
    enum pg_type *types; /* their types on the server */
    /* Other rows pushed hold its ids: temp.fleet_map_<table> (local, server) gives the
     * server's, reserved from its sequence for a file's table, read back by key for a shared
     * one. */
    int mapped;
    char *seq;          /* a file's mapped table: the server's sequence of its ids (a literal) */
    struct buf reserve; /* a file's mapped table: the ids of the batch's rows, ascending */
    struct buf map;     /* a mapped table: INSERT INTO its map (:local, :server) */
    struct buf fresh;   /* a shared table without owner: the ids the batch's rows point at that
                           the push has not mapped, into temp.fleet_new_<table> */
    struct buf select;  /* the batch's rows, with the server's ids */
};

/* What the workers of a push share: read-only once they start, but for the turns and tallies
 * under the mutex. */
struct push_plan {
    const char *url, *path; /* the server; the warehouse's file */
    struct push_table *tables;
    size_t n_tables;
    struct buf batch_tables; /* a worker's temporary tables: the batch's sources, the maps */
    struct buf clear_batch;  /* empties the batch's sources and the maps of a file's tables */
    int64_t *sources;        /* the local ids of the sources to send, ascending */
    size_t n_sources;
    pthread_mutex_t mutex;
    pthread_cond_t turn; /* signalled when reserved grows or failed is set */
    size_t cut;          /* sources[0 .. cut) are in the batches workers have taken */
    size_t taken;        /* the batches workers have taken */
    size_t reserved;     /* the batches whose ids are reserved: they are reserved in order */
    int failed;          /* a worker failed: the others stop */
    struct fleet_push_counts *counts;
    const struct fleet_progress *progress;
};

/* One worker's connections (or the push's own: the keys, the checks, the labels). h is db's
 * raw handle (db_handle), which the toolkit still needs where it takes no struct db: the SQL
 * built at run time from the schema's columns is compiled on it (sql_prepare, sql_exec), and
 * SQLite's own calls read it (sqlite3_errmsg after a failure, sqlite3_changes, the warehouse's
 * file name; push_check.c's SQL function is made on it). */
struct push {
    struct db *db;
    sqlite3 *h;
    PGconn *c;
    struct diag *d;
    struct push_plan *plan;
    size_t first, end;   /* a worker's: its batch is sources[first .. end) */
    unsigned char *news; /* a worker's, per table: the batch had shared rows new to the push */
};

/* ---- push.c ---- */
/* SQLite's message about what failed, as "benchdb push: error: WHAT: message" (read it before
 * other statements are reset or finalized); always -1. */
int local_error(struct push *p, const char *what);
/* Runs sql (no rows); 0, or -1 after a message. */
int local_exec(struct push *p, const char *sql);
/* Runs a statement on the server that returns rows; NULL after a message. */
PGresult *server_rows(struct push *p, const char *sql, const char *what);
/* The next column of a list "a, b, c" at *list: its length; *list moves past it and its ", ". */
size_t next_column(const char **list);

/* ---- push_copy.c: local rows sent in COPY's binary format ---- */
/* The server's types of table's columns cols ("a, b, c"), in their order; NULL after a
 * message (a column the server lacks, or of a type a push does not send). */
enum pg_type *column_types(struct push *p, const char *table, const char *cols);
/* COPYs the rows of st (a local SELECT, stepped here; the caller gives it back) into the
 * server's table (cols, of types); *rows counts them. With parent_col >= 0, each row ends with
 * its ordinal among the rows of its value of that column (the rows come grouped by it, in the
 * order of their ids). No rows: no COPY. 0, or -1 after a message. */
int copy_table(struct push *p, sqlite3_stmt *st, const char *table, const char *cols,
               const enum pg_type *types, int parent_col, size_t *rows);

/* ---- push_rekey.c: a batch's rows given the server's ids ---- */
/* Reads the tables pushed (their columns here and their types on the server) and builds the
 * SQL of the batches and of the workers' temporary tables into plan; 0, or -1 after a
 * message. */
int rekey_plan(struct push *p);
void rekey_plan_release(struct push_plan *plan);
/* Reserves the server's ids of the rows of the batch in temp.fleet_batch (empty maps: a
 * worker's turn, the batches in order) and maps them; reserved[i]: how many of tables[i]. */
int rekey_reserve(struct push *p, size_t *reserved);
/* Sends the batch's rows, parents first, with the server's ids (the shared rows the server
 * lacks stored, and mapped, on the way). */
int rekey_send(struct push *p);

/* ---- push_check.c: the sources the server would refuse, left out ---- */
/* Each leaves the sources it finds out of plan->sources, with a message naming each; 1 when
 * some were left out, 0 when none, -1 after a message. A dictionary whose bytes are not its
 * sha256's, or no zstd dictionary: */
int leave_out_bad_dicts(struct push *p);
/* Text that is not UTF-8, or holds a NUL: */
int leave_out_bad_text(struct push *p);

/* ---- push_labels.c ---- */
/* Sends the label changes the server lacks and applies them there; 0, or -1 after a
 * message. */
int push_labels(struct push *p);

#endif
