/* importer.h: the one interface of the ingest module. Each importer maps the bytes of one
 * input to normalized records (core/record.h) and knows no SQL. To add one: write
 * ingest/<name>.c exporting `const struct importer importer_<name>`, and add it to the
 * table in registry.c. */
#ifndef BDB_IMPORTER_H
#define BDB_IMPORTER_H

#include "../core/arena.h"
#include "../core/buf.h"
#include "../core/diag.h"
#include "../core/record.h"

enum { PROBE_CERTAIN = 99 };

struct importer {
    const char *name;    /* --format value, e.g. "fio-json" */
    const char *summary; /* one line for `benchdb formats` */
    /* 0 (not this format) .. 100 (certainly this format); looks at content only. A score of
     * PROBE_CERTAIN or more ends detection: give it only when no other format can match. */
    int (*probe)(const struct source *src);
    /* Emits every result through out. Returns 0, or -1 after reporting a located error
     * through d. Allocates records from a (freed by the caller after the file). */
    int (*parse)(const struct source *src, struct arena *a, struct record_sink *out,
                 struct diag *d);
};

/* All importers, NULL-terminated, in the order `benchdb formats` lists them. */
extern const struct importer *const importers[];

const struct importer *importer_find(const char *name);
/* The best-scoring importer for the content, or NULL (then *tried lists the names). */
const struct importer *importer_detect(const struct source *src, struct buf *tried);

/* One record as `key=value` lines (dry-run output and golden tests). */
void record_dump(struct buf *out, const struct bench_record *r);

#endif
