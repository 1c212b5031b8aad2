/* graph.h: the warehouse's tables as one graph: each table's foreign keys, the one of them its
 * rows hang off (their owner), what identifies a row across warehouses, and what the commands
 * that copy rows between warehouses do with it. merge (schema/merge.c), push (fleet/push*.c)
 * and the read commands' pull (fleet/pull.c) walk this list instead of naming tables, so a
 * table is added by one entry in graph.c plus its migrations (schema/NNNN_*.sql for SQLite,
 * schema/pg/NNNN_*.sql for the server). tests/unit/test_graph.c checks the list against a
 * fresh warehouse's schema (every table and every foreign key described, parents first). */
#ifndef BDB_GRAPH_H
#define BDB_GRAPH_H

#include <stddef.h>

/* What a table's rows are to the warehouses they are copied between. */
enum graph_role {
    /* An imported file's rows: source_file, the root (known by its key, the content's sha256),
     * and the rows that hang off it through their owner. They come with their source: merge
     * and push copy the rows of the sources the other side lacks, whole; the id of a row
     * other rows point at (graph_is_parent) is moved to the other side's ids (merge: by an
     * offset; push: through the ids the server reserves), any other id is given afresh. */
    GRAPH_FILE,
    /* Rows that files share, known by their key (a mount by its options, a dictionary by its
     * sha256), and the rows that hang off them: stored once; the rows that point at them are
     * given the id stored under the same key. */
    GRAPH_SHARED,
    /* What a user saved in one warehouse (baselines): merge copies them by name with
     * schema/merge_baseline.c (a table added here needs its own code there), push leaves them,
     * the read commands pull them whole. */
    GRAPH_SAVED,
};

enum {
    /* On the server, known by its ordinal among its owner's rows (by id): the extra column
     * "ordinal" (schema/pg/0001_init.sql), which push counts as it sends. */
    GRAPH_ORDINAL = 1 << 0,
    /* A source's stored bytes, or what they are compressed against: the read commands do not
     * pull it (nor the column `bytes`, nor a foreign key to such a table: NULL there). */
    GRAPH_BYTES = 1 << 1,
    /* A log of changes made to rows stored elsewhere (label_history): push sends it after the
     * files, keyed by content, and applies it on the server (fleet/push_labels.c). */
    GRAPH_CHANGES = 1 << 2,
};

/* A column holding the id of a row of parent. */
struct graph_fk {
    const char *column, *parent;
    /* No foreign-key constraint: the row outlives its parent (label_history keeps a removed
     * result's history, schema/0004_baseline.sql). */
    int undeclared;
};

enum { GRAPH_MAX_FK = 2 };

struct graph_table {
    const char *name;
    enum graph_role role;
    /* The column (one of fk's) whose row this one hangs off, or NULL (a root). */
    const char *owner;
    /* A root's column that identifies a row across warehouses (a row with an owner is known
     * by its owner and its own primary key, or its ordinal); NULL when it has none. */
    const char *key;
    /* A column of stored bytes (GRAPH_BYTES for the column alone), or NULL. */
    const char *bytes;
    /* The column of time a read command's --since/--until bounds (the rows that hang off a
     * row in range, and the row it hangs off, come with it), or NULL. */
    const char *range;
    unsigned flags;
    struct graph_fk fk[GRAPH_MAX_FK]; /* the unused ones have no column */
};

/* Every table of the warehouse, parents before the tables that point at them. */
extern const struct graph_table graph_tables[];
extern const size_t graph_n_tables;

/* The table of that name, or NULL. */
const struct graph_table *graph_find(const char *name);
/* t's foreign key in column, or NULL. */
const struct graph_fk *graph_fk(const struct graph_table *t, const char *column);
/* The table t's rows hang off (its owner column's parent), or NULL for a root. */
const struct graph_table *graph_owner(const struct graph_table *t);
/* 1 when a table of t's role points at t's rows (a foreign key to t): t's ids are then
 * re-keyed where its rows are copied, else 0 (a copy gives them afresh). */
int graph_is_parent(const struct graph_table *t);

#endif
