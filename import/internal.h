/* internal.h: what the files of import/ share; nothing outside import/ includes it. */
#ifndef BDB_IMPORT_INTERNAL_H
#define BDB_IMPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "../core/sha256.h"
#include "../ingest/importer.h"
#include "import.h"
#include "sidecar.h"

/* The most of one input held in memory (a format without a stream parser), so that a pipe
 * or FIFO that never ends (/dev/zero) is an error instead of exhausting memory; benchmark
 * outputs are far smaller. `benchdb import`'s usage text names it. */
#define HELD_MAX_MIB 256
/* What detection sees of a file that may be streamed; read first from every input. */
#define HEAD_BYTES (1 << 20)

/* A regular file larger than this whose format has a stream parser is read, hashed, stored
 * and parsed piece by piece (input.c). */
int64_t stream_threshold(void);
/* Appends up to max bytes of f; 0, or -1 on a read error. */
int read_upto(FILE *f, struct buf *b, size_t max);
/* Appends the rest of f, holding at most HELD_MAX_MIB in all: 0, -1 on a read error, 1 when
 * f holds more. */
int read_rest(FILE *f, struct buf *b);
/* Appends the rest of the regular file fd, whose size was size, with as few reads as that
 * allows; the same results as read_rest. */
int read_regular(int fd, size_t size, struct buf *b);

/* A file being read piece by piece: the head already read, then the rest, one chunk of
 * DB_CHUNK_BYTES at a time, each hashed and (unless a dry run) stored as it is read. */
struct chunk_packer; /* a thread hashing and packing each chunk while it is parsed */
/* A streamed input's chunks in memory at once: being parsed, and hashed and packed behind. */
enum { STREAM_BUFFERS = 2 };

struct import_stream {
    struct stream stream;
    FILE *f;
    const struct buf *head;
    size_t head_used;
    char *buffer[STREAM_BUFFERS];
    uint64_t chunks;      /* read so far */
    char *chunk;          /* the last read: one of buffer */
    size_t len, served;   /* bytes in chunk, of them given to the parser */
    struct sha256 sha;    /* of the chunks read so far */
    struct db_import *di; /* NULL: a dry run */
    struct diag *d;
    struct chunk_packer *packer; /* NULL until the first chunk */
    const atomic_int *stop;      /* import_options.stop */
};
/* in reading f after head, named name in messages; release with import_stream_release. */
void import_stream_init(struct import_stream *in, const char *name, FILE *f, const struct buf *head,
                        const atomic_int *stop, struct diag *d);
void import_stream_release(struct import_stream *in);
/* Waits for the last chunks' packed forms and stores them. 0 or -1. */
int import_stream_drain(struct import_stream *in);

/* The importer for src: the given format, else the detected one; NULL after an error. */
const struct importer *import_choose(const struct import_options *o, const struct source *src,
                                     struct diag *d);

/* What a worker computed ahead of the writer from a whole file's bytes: their hash and their
 * stored form, so that the writer (the one thread that cannot be parallel) neither hashes nor
 * compresses. */
struct prepared {
    char sha[65];
    struct raw_blob raw; /* raw.data NULL: packed by the writer (a file over DB_CHUNK_BYTES, or
                          * parsed before the writer gave the dictionaries) */
};

/* One event of a file parsed ahead: a record, or a diagnostic line (rec NULL). */
struct parsed_event {
    const struct bench_record *rec;
    enum diag_level level;
    const char *line;
};

/* A file a worker read and parsed ahead of the writer (parallel.c): its records and
 * diagnostics in the order the importer produced them, replayed by the writer (session.c). */
struct parsed {
    enum {
        PARSED_SERIAL,   /* not read here (stdin, not a regular file, a stream, unreadable):
                          * the writer imports it itself */
        PARSED_REJECTED, /* rejected before parsing: replay the events, store nothing */
        PARSED_DONE,     /* parsed: rc is the parser's result */
    } state;
    int ready; /* the worker is done with it */
    int rc;
    struct buf data;
    struct source src;
    const struct importer *imp;
    struct sidecar sc;
    struct prepared pre;    /* when parsed without error */
    struct buf packed;      /* pre.raw's bytes when compressed */
    struct arena a;         /* the records, their copies and the lines */
    struct arena_pool pool; /* a's blocks, kept from one file to the next */
    struct parsed_event *ev;
    size_t n_ev, a_ev;
};

/* Which fio logs and fio JSON jobs of one import command belong together (attach.c). */
struct attach_registry;
struct attach_registry *attach_new(void);
void attach_free(struct attach_registry *reg);
/* Notes what record r of the file at path (format: its importer), stored as result_id, may
 * pair with: a fio JSON job or a fio log. reg NULL: nothing. */
void attach_collect(struct attach_registry *reg, const char *path, const char *format,
                    const struct bench_record *r, int64_t result_id);
/* The file collected since the last call is complete: pairs its jobs or logs with those of the
 * files stored before it and moves each paired log's series to its job's result, inside the
 * file's transaction. 0, or -1 after a database failure. */
int attach_file_end(struct attach_registry *reg, struct db *db, struct diag *d);
/* The file was not stored: forgets what was collected from it. */
void attach_file_drop(struct attach_registry *reg);
/* The current file (collected since the last attach_file_end) is stored without a storage
 * class and its unclassed results are n: 1 when they are all logs that may still be attached
 * to a job (that file's class then becomes theirs); the file is then counted by
 * attach_unlabeled_alone, not now. Else 0. */
int attach_file_awaits_class(struct attach_registry *reg, size_t n);
/* The files attach_file_awaits_class deferred with a log that stayed alone. */
size_t attach_unlabeled_alone(const struct attach_registry *reg);

struct workers;
/* Starts o->jobs threads parsing paths[0..n) ahead, at most 16 * o->jobs files, and packing
 * their bytes against the dictionaries workers_give_dicts gives them (parallel.c). */
struct workers *workers_start(const struct import_options *o, int verbose, char *const *paths,
                              size_t n);
/* The dictionaries to pack against (NULL: none), which must not change until workers_stop:
 * given once the threads run, so that they parse while the writer opens the warehouse and reads
 * them (18 million instructions for a new one); the writer packs the files parsed before. */
void workers_give_dicts(struct workers *w, const struct raw_dicts *dicts);
/* Waits for paths[i] (taken in order). */
struct parsed *workers_take(struct workers *w, size_t i);
/* The writer is done with p: its slot takes the next file. */
void workers_done(struct workers *w, struct parsed *p);
/* Stops the threads (after the files they are parsing) and frees everything. */
void workers_stop(struct workers *w);

#endif
