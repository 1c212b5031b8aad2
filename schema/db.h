/* db.h: the database layer, the only writer of the warehouse. It owns the sqlite3 handle;
 * no other module outside schema/ and query/ sees SQL. */
#ifndef BDB_DB_H
#define BDB_DB_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/diag.h"
#include "../core/record.h"
#include "../core/timerange.h"

struct db;
struct sqlite3;

enum db_open_mode { DB_READ_ONLY, DB_READ_WRITE, DB_CREATE };

/* Opens (and with DB_CREATE creates and migrates) the warehouse; 0 or -1 after a message. */
int db_open(const char *path, enum db_open_mode mode, struct db **out, struct diag *d);
void db_close(struct db *db);
/* Reads the schema version of the database open as schema ("main", or a name it was
 * ATTACHed as) into *version (0: none). A database that cannot be read (locked, damaged,
 * not permitted) and one with tables of its own but no benchdb schema are errors that say
 * so, with path the name shown; 0 or -1 after a message. */
int db_schema_check(struct db *db, const char *schema, const char *path, int *version,
                    struct diag *d);
/* The raw handle, for query/ and fleet/: what schema/sql.h's toolkit takes (their statements
 * go through it, never sqlite3_prepare). */
struct sqlite3 *db_handle(struct db *db);

/* Appends the SQL expression of metric name for the result row aliased alias: its column of
 * table result (schema/0002_wide.sql), else its member of the JSON metrics_extra (NULL when
 * absent). 0, or -1 after a message when name is not a metric name ([a-z0-9_]+). */
int db_metric_expr(struct db *db, struct buf *sql, const char *alias, const char *name,
                   struct diag *d);
/* The metric columns of table result, in schema order (valid until db_close); 0 or -1 after
 * a message. */
int db_metric_columns(struct db *db, const char *const **names, size_t *n, struct diag *d);

int db_begin(struct db *db, struct diag *d);
/* Files imported in batches: many files share one transaction, and each lands whole or not at
 * all. db_file_begin puts the file in a savepoint of its own when savepoint is set, else it is
 * stored only once nothing can refuse it any more (db_import_check); db_file_end keeps or undoes
 * the file (without a savepoint, nothing is to undo); db_batch_rewind takes the batch back to
 * its start, when a file without a savepoint failed after its first row: 0, or -1 when SQLite
 * rolled the whole transaction back itself (a full disk). db_batch_commit commits when the
 * batch is old enough (or force) and returns 1 when it committed, 0 when not yet, -1 on
 * failure (the batch is rolled back). */
int db_file_begin(struct db *db, int savepoint, struct diag *d);
int db_file_end(struct db *db, int keep, struct diag *d);
int db_batch_rewind(struct db *db, struct diag *d);
int db_batch_commit(struct db *db, int force, struct diag *d);
int db_commit(struct db *db, struct diag *d);
void db_rollback(struct db *db);

/* Labels given at import time; they win over what the content says. */
struct import_labels {
    const char *host, *storage_class, *sec;
    const char *mount; /* an option string or a whole mount line */
    const struct kv *tags;
    size_t n_tags;
};

/* The one rule of which label wins: each of over's (a flag over a sidecar, a sidecar or flag
 * over what `benchdb run` recorded, any of them over the content) unless it is NULL, then
 * under's. Tags: under's then over's, each left out where a later one has its key (so over's
 * replace under's). The tags are in *tags, NULL when none, which the caller frees; out's
 * strings are borrowed from over and under. */
void db_labels_overlay(const struct import_labels *over, const struct import_labels *under,
                       struct import_labels *out, struct kv **tags);
/* When the labels given to a file whose content (sha256) is stored already differ from those
 * of its stored results, appends to note (else leaves it) one line saying what is stored and
 * the command that would change it: `benchdb relabel --where source=PATH --set KEY=VALUE...`,
 * or for a mount (whose canonical options are compared) `benchdb rm ...`, then import again.
 * Only labels given count: host, storage_class, sec (else the mount's sec=) and tags. The
 * command is shell-quoted and names the warehouse (--db) unless it is the default one. 0,
 * or -1 after a message. */
int db_reimport_hint(struct db *db, const char *sha256, const struct import_labels *given,
                     struct buf *note, struct diag *d);

struct db_import; /* one file being imported, inside a transaction */

/* 1 when a file with this content is already stored (its path in *path, caller frees),
 * 0 when not, -1 on error. */
int db_source_find(struct db *db, const char *sha256, char **path, struct diag *d);
/* Files over this size are stored in pieces of it (table source_chunk). */
enum { DB_CHUNK_BYTES = 4 << 20 };
/* The most one stored piece (a source's raw, or one of its chunks) holds, decoded or not: a
 * file is stored whole up to DB_CHUNK_BYTES, else in chunks of it, so benchdb never writes a
 * larger one, and the stored-bytes reader refuses a piece that claims more before it takes
 * memory for it (a zstd frame of 66 KB can decode to 2 GiB). */
enum { RAW_PIECE_MAX = DB_CHUNK_BYTES };
/* The largest compression dictionary read (schema/0006_raw_dict.sql): 32 times the 32 KiB
 * benchdb trains, room for a later version that trains larger ones (zstd's own trainer makes
 * 110 KiB by default), while loading one to compress with stays about a MiB and a millisecond
 * per import; a merged 200 MB "dictionary" took 400 MB and 1.5 s at every import. */
enum { RAW_DICT_MAX = 1 << 20 };

/* A source's bytes as stored (rawstore.c, schema/0003_raw.sql, 0006_raw_dict.sql), packed by
 * raw_pack. */
struct raw_packer; /* a compression context and its output: one per thread that packs */
struct raw_dict;   /* a format's compression dictionary, ready to compress with */
struct raw_dicts;  /* a warehouse's, one per format: read-only, shared by the packing threads */
/* Bytes to store, their codec (NULL: as they are) and the dictionary they were compressed
 * against (NULL: none; db_raw_dict_stored gives its raw_dict.id). */
struct raw_blob {
    const void *data;
    size_t len;
    const char *codec;
    const struct raw_dict *dict;
};
/* The stored form of len bytes at data: compressed (against dict, unless NULL) when that makes
 * them smaller, else themselves. Never fails. The result points into data or into *p (created
 * on first use), valid until the next call. */
struct raw_blob raw_pack(struct raw_packer **p, const struct raw_dict *dict, const void *data,
                         size_t len);
void raw_packer_free(struct raw_packer *p);
/* Why len bytes with hash sha256 (hex, as stored beside them; NULL: not checked) cannot be a
 * compression dictionary, in why (of n bytes): not a zstd dictionary (its magic number and
 * id), over RAW_DICT_MAX, or a hash that is not theirs. 0 when they can, else -1. */
int raw_dict_fault(const void *bytes, size_t len, const char *sha256, char *why, size_t n);
/* The dictionaries of db, read on first use and kept until db_raw_train changes them; none
 * when they cannot be read (bytes are then stored without one). */
const struct raw_dicts *db_raw_dicts(struct db *db);
/* The dictionary of a format's files in dicts (which may be NULL), or NULL: the warehouse's
 * newest, else the one this benchdb ships for the format. */
const struct raw_dict *raw_dict_find(const struct raw_dicts *dicts, const char *format);
/* The raw_dict.id of dict, which a blob packed against it stores: a shipped dictionary is
 * stored (in the caller's transaction) by the first file that needs it. 0 for NULL; -1 when
 * SQLite fails (sqlite3_errmsg says why). Not from the packing threads. */
int64_t db_raw_dict_stored(struct db *db, const struct raw_dict *dict);
/* Trains a dictionary for each format that has none and enough files stored whole without one
 * (rawstore_train.c), and repacks those files against it where that makes them smaller, in one
 * transaction; call it between batches, with no thread packing. 0, or -1 after a message. */
int db_raw_train(struct db *db, struct diag *d);

/* Starts storing one file: its provenance row and, when src->data is set, its bytes (packed
 * here, or given already packed when they fit one row, src->len <= DB_CHUNK_BYTES). A file
 * stored while it is read passes src->data and sha256 NULL, then gives its bytes in order,
 * packed, through db_import_add_packed_chunk (each DB_CHUNK_BYTES but the last) and its hash
 * at the end through db_import_set_hash. src->path must outlive the import. */
struct db_import *db_import_begin(struct db *db, const struct source *src, const char *sha256,
                                  const struct raw_blob *packed, const char *format,
                                  const char *imported_at, const struct import_labels *labels,
                                  struct diag *d);
/* The same import with nothing written yet, for a file whose records are all known before the
 * first is stored (parsed ahead), so that no savepoint of its own is needed (db_file_begin):
 * its sink checks each record as db_import_begin's would store it (every check that may refuse
 * the file) and keeps it; db_import_write then stores the file and the records kept, and can
 * fail only as the database does (0, or -1 after a message). src, sha256 and packed must
 * outlive the import, the records given to the sink too. */
struct db_import *db_import_check(struct db *db, const struct source *src, const char *sha256,
                                  const struct raw_blob *packed, const char *format,
                                  const char *imported_at, const struct import_labels *labels,
                                  struct diag *d);
int db_import_write(struct db_import *imp);
/* The next chunk of a file stored while read, packed already (raw_pack of its len bytes): 0, or
 * -1 after a message. */
int db_import_add_packed_chunk(struct db_import *imp, const struct raw_blob *packed, size_t len);
/* The content hash and size (the chunks' total) of a file stored while read: call only when
 * db_source_find found no other file with this hash. 0, or -1 after a message. */
int db_import_set_hash(struct db_import *imp, const char *sha256);
/* The sink that stores records of this file (db_import_check's: checks and keeps them). */
struct record_sink db_import_sink(struct db_import *imp);
size_t db_import_count(const struct db_import *imp);
/* The id of the result the sink stored last (0: none yet). */
int64_t db_import_last_result(const struct db_import *imp);
/* Moves the series of result `from` (a fio log's own result) to result `to` (the job that
 * wrote the log) and tags `from` part=fio log, so that comparisons leave it out while its
 * summary stays with its source; `from` stored without a storage class takes `to`'s labels
 * (class, host, sec, mount). Inside the caller's transaction; 0 or -1 after a message. */
int db_series_attach(struct db *db, int64_t from, int64_t to, struct diag *d);
void db_import_free(struct db_import *imp);

/* The values a sec label may hold (the schema's CHECK), as messages list them. */
#define DB_SEC_FLAVORS "sys, krb5, krb5i, krb5p or none"
/* 1 when s is one of DB_SEC_FLAVORS, else 0. */
int db_sec_valid(const char *s);

/* Appends " AND STARTED_AT BETWEEN since AND until" when range (NULL: every run) has a bound;
 * started_at names the run's start column ("run.started_at"). A run with no start time is
 * outside every bounded range (dates.c). */
void db_time_range_sql(struct buf *sql, const char *started_at, const struct time_range *range);

/* ---- changing stored results (relabel.c, reparse.c, merge.c) ---- */

/* Filters and assignments are KEY=VALUE pairs (struct kv). Filter keys: storage_class, host,
 * sec, job, rw, source (the source path), run (run id), tag:NAME. Settable keys: storage_class,
 * host, sec, tag:NAME. */

/* For filters that selected nothing: appends "--where KEY=VALUE: did you mean 'V'?" for each
 * filter of a label (host, sec, storage_class or storage-class, job, rw, tag:NAME) whose value
 * is near a stored one ("; " between them); nothing when none is. */
void db_filters_hint(struct db *db, const struct kv *where, size_t n, struct buf *out);
/* 1 when key may be used in a filter (set: as a --set key), else 0. */
int db_filter_key_ok(const char *key, int set);
/* Sets each key of every result matching all filters (none: every result), recording each
 * change in label_history. The caller holds the transaction. *matched counts the results the
 * filters select, *changed those whose labels changed; 0 or -1 after a message. */
int db_relabel(struct db *db, const struct kv *where, size_t n_where, const struct kv *set,
               size_t n_set, const char *changed_by, const char *changed_at, size_t *matched,
               size_t *changed, struct diag *d);

/* A stored source file, raw bytes included (from raw or put together from its chunks; caller
 * releases with db_stored_release). */
struct db_stored {
    int64_t id;
    char *path, *sha256, *format, *imported_at, *raw;
    struct source src; /* path and raw */
};
void db_stored_release(struct db_stored *s);
/* The ids of sources with a result matching all filters (none: every source), ascending;
 * *ids is the caller's to free. 0 or -1. */
int db_sources_matching(struct db *db, const struct kv *where, size_t n_where, int64_t **ids,
                        size_t *n, struct diag *d);
/* Loads stored source id into out: 0; 1 when its stored bytes do not decode (an error names
 * the file and says why; nothing is left to release), -1 when the database cannot be read
 * (after a message). Sizes are checked before memory is taken (RAW_PIECE_MAX). */
int db_stored_load(struct db *db, int64_t id, struct db_stored *out, struct diag *d);

/* What reparsing one source changed. */
struct reparse_counts {
    size_t results_before, results_after;
    size_t results_added, results_removed;
    size_t results_changed; /* content columns (workload, error, ...), bins or series differ */
    size_t runs_changed;    /* tool, version, start time */
    size_t metrics_added, metrics_removed, metrics_changed, tags_added;
    int changed; /* any of the above: the new results were stored */
};
/* Begins re-deriving stored source s inside a new transaction: the results parsed into the
 * returned import replace the stored ones at db_reparse_finish. */
struct db_import *db_reparse_begin(struct db *db, const struct db_stored *s, struct diag *d);
/* Compares the new results with the stored ones, carries over the labels (host,
 * storage_class, sec, mount, tags and label history, matching results by job and direction
 * in order) and commits when anything changed (else rolls back). 0 or -1 (rolled back). */
int db_reparse_finish(struct db *db, const struct db_stored *s, struct reparse_counts *c,
                      struct diag *d);

/* ---- saved baselines (baseline.c) ---- */

/* A baseline's name: one or more of [A-Za-z0-9._-] (it follows "baseline:" in --compare). */
int db_baseline_name_ok(const char *name);
struct db_baseline {
    const char *name, *filter; /* filter: the --where filters as given, for the listing */
    const char *created_by, *created_at;
};
/* Saves the results matching every filter (db_relabel's keys; none: every result) as baseline
 * b->name; *n gets how many. The caller holds the transaction. 0; 1 after a message when the
 * name is taken or no result matches; -1 after a message on a database failure. */
int db_baseline_save(struct db *db, const struct db_baseline *b, const struct kv *where,
                     size_t n_where, size_t *n, struct diag *d);
/* Removes baseline name (its results stay). 0; 1 after a message when there is none; -1. */
int db_baseline_remove(struct db *db, const char *name, struct diag *d);

/* ---- removing results (remove.c) ---- */

/* One run some of whose results are removed. */
struct db_removed_run {
    const char *source; /* its source's path */
    int64_t run;
    size_t removed, results; /* results removed, of how many */
    int run_goes;            /* no result is left: the run is removed */
    int source_goes;         /* and its source has no other run: the source and its bytes too */
};
struct db_remove_sink {
    void (*run)(void *ctx, const struct db_removed_run *run);
    void *ctx;
};
struct db_remove_counts {
    size_t results, runs, sources;
};
/* Removes the results matching every filter (db_relabel's keys) of runs started within dates
 * (NULL: any), and the runs and sources
 * left without results, recording each result's removal in label_history (field 'removed',
 * old_value what it was) by `by` at `at`; each run touched is given to out first. The caller
 * holds the transaction (a dry run rolls it back). 0, or -1 after a message. */
int db_remove(struct db *db, const struct kv *where, size_t n_where, const struct time_range *dates,
              const char *by, const char *at, const struct db_remove_sink *out,
              struct db_remove_counts *c, struct diag *d);
/* Gives the free pages back to the file system (SQLite VACUUM: the file is rewritten, outside
 * any transaction). 0, or -1 after a message. */
int db_vacuum(struct db *db, struct diag *d);

struct merge_counts {
    size_t sources, runs, results, skipped, conflicts;
};
/* Copies the sources of the warehouse at other_path (opened read-only) whose content is not
 * stored here, with everything hanging off them, in one transaction. A source stored in both
 * with different labels is a warning (the stored labels are kept). Every source to be copied
 * is hashed first: when one's bytes do not match its sha256, each such source is named and
 * nothing is merged (-1). 0, -1 rejected, or -2 on a database failure. */
int db_merge(struct db *db, const char *other_path, struct merge_counts *c, struct diag *d);

#endif
