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

/* Reads the sidecar of result_path ("-": none). 0 (with or without a sidecar), or -1 after
 * a `path:line: error: ...` message. Release with sidecar_release in both cases. */
int sidecar_load(const char *result_path, struct sidecar *sc, struct diag *d);
void sidecar_release(struct sidecar *sc);

#endif
