/* sidecar.h: context stored next to a result file. For FILE, FILE.meta is read, else
 * benchdb.meta in FILE's directory: `key=value` lines with the keys host, storage_class,
 * mount, sec and tag.NAME; blank lines and lines starting with '#' are ignored. On import,
 * command-line flags win over the sidecar and the sidecar wins over the content
 * (db_labels_overlay). */
#ifndef BDB_SIDECAR_H
#define BDB_SIDECAR_H

#include "../core/arena.h"
#include "../core/diag.h"
#include "../schema/db.h"

struct sidecar {
    const char *path; /* the sidecar read, NULL when there is none */
    struct import_labels labels;
    struct kv *tags;
    size_t a_tags;
    struct arena mem; /* owns every string above */
};

/* The sidecars of the directory an import's files came from last, listed once: looking for
 * FILE.meta and benchdb.meta beside each of 10,000 files was 20,000 failed opens, a third of
 * the import's system calls. A directory is listed from its SIDECAR_LIST_AFTER-th file on
 * (a file or two are looked for by name), and a sidecar created after the listing is not
 * seen by that import. One per thread; zeroed to start. */
struct sidecar_dir {
    char *dir;     /* the directory of the last file; NULL: none yet */
    unsigned seen; /* files of it looked for so far */
    int listed;    /* 1: names holds its entries ending in ".meta" (sorted); -1: unlistable */
    char **names;
    size_t n, alloc;
};
enum { SIDECAR_LIST_AFTER = 4 };
/* The largest sidecar read, in bytes: a larger one (a 1 GiB sparse file was read whole before
 * its first NUL byte was refused) is an error before it is read. */
enum { SIDECAR_MAX = 1 << 20 };

/* Reads the sidecar of result_path ("-": none), through sd's listing (NULL: by name). 0 (with
 * or without a sidecar), or -1 after a `path:line: error: ...` message. Release with
 * sidecar_release in both cases. */
int sidecar_load(const char *result_path, struct sidecar_dir *sd, struct sidecar *sc,
                 struct diag *d);
/* Parses the sidecar text src (its path names it in messages) into sc, zeroed before; 0, or -1
 * after a message. sidecar_load's parser, for the fuzz target (tests/fuzz/fuzz_labels.c). */
int sidecar_parse(const struct source *src, struct sidecar *sc, struct diag *d);
void sidecar_release(struct sidecar *sc);
void sidecar_dir_release(struct sidecar_dir *sd);

#endif
