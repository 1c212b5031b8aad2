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

/* An input read piece by piece (a file too large to hold whole). */
struct stream {
    const char *path; /* for messages */
    /* Reads up to cap bytes into buf: 0 with *n bytes read (0 at the end of the input), or -1
     * after reporting a failure. */
    int (*read)(void *ctx, char *buf, size_t cap, size_t *n);
    void *ctx;
    unsigned jobs; /* threads the parser may use (import --jobs); 0 or 1: the calling one */
};

enum {
    PROBE_CERTAIN = 99,
    /* A probe sees at most the first PROBE_BYTES of an input: detection costs the same for a
     * 4 GiB log as for a 4 KiB one, and a streamed input is detected from a head this long. */
    PROBE_BYTES = 1 << 20,
};

struct importer {
    const char *name;    /* --format value, e.g. "fio-json" */
    const char *summary; /* one line for `benchdb formats` */
    /* 0 (not this format) .. 100 (certainly this format); looks at content only, at most
     * PROBE_BYTES of it (detection hands over a view that long, NUL-terminated). A score of
     * PROBE_CERTAIN or more ends detection: give it only when no other format can match. */
    int (*probe)(const struct source *src);
    /* Emits every result through out. Returns 0, or -1 after reporting a located error
     * through d. Allocates records from a (freed by the caller after the file). */
    int (*parse)(const struct source *src, struct arena *a, struct record_sink *out,
                 struct diag *d);
    /* NULL when the importer needs the whole input; else the same records and messages as
     * parse from an input read piece by piece, with memory independent of its size. */
    int (*parse_stream)(struct stream *in, struct arena *a, struct record_sink *out,
                        struct diag *d);
};

typedef int (*importer_parse_fn)(const struct source *src, struct arena *a, struct record_sink *out,
                                 struct diag *d);

/* Runs parse and emits one result per fio job per run (ingest/jobs.c): the entries fio prints
 * per thread (numjobs without group_reporting) or per server (--client) of one job become one
 * job result plus the entries themselves, tagged `part` (`thread K`, `client HOST`). The fio
 * importers' parse goes through it, so every caller (import, dry run, reparse, notes) sees the
 * same records. */
int jobs_parse(importer_parse_fn parse, const struct source *src, struct arena *a,
               struct record_sink *out, struct diag *d);

/* All importers, NULL-terminated, in the order `benchdb formats` lists them. */
extern const struct importer *const importers[];

const struct importer *importer_find(const char *name);
/* The best-scoring importer for the content, or NULL (then *tried lists the names). */
const struct importer *importer_detect(const struct source *src, struct buf *tried);
/* The same among the importers other than skip, with the winner's score in *score (0 when
 * none): the notes importer asks it about a pasted block. */
const struct importer *importer_detect_other(const struct source *src, const struct importer *skip,
                                             int *score);

/* One record as `key=value` lines (dry-run output and golden tests). */
void record_dump(struct buf *out, const struct bench_record *r);

#endif
