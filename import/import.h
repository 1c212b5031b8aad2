/* import.h: the one interface of the import module, the pipeline below the commands that
 * store benchmark output: reading (whole or as a stream), hashing, format detection, sidecars,
 * dedupe by content, batches of per-file transactions, and parsing in worker threads; plus
 * the context `benchdb run` records (context.c) and the child process it runs (child.c).
 * Layering: cli -> import -> {ingest, schema} -> core. Each file lands whole or not at all. */
#ifndef BDB_IMPORT_H
#define BDB_IMPORT_H

#include <signal.h>
#include <stdatomic.h>

#include "../core/arena.h"
#include "../core/buf.h"
#include "../core/diag.h"
#include "../schema/db.h"

enum import_outcome {
    IMPORT_STORED,    /* stored (or, in a dry run, shown) */
    IMPORT_SKIPPED,   /* the same content is stored already */
    IMPORT_REJECTED,  /* bad input: every reason reported, nothing of it stored */
    IMPORT_FAILED_DB, /* the database failed: stop */
};

struct import_options {
    struct import_labels labels; /* the command line's; a file's sidecar goes under them */
    const char *format;          /* NULL: detect from the content */
    int dry_run, verbose;        /* dry run: db is NULL, records are printed */
    int quiet;                   /* no line for each file stored or skipped (errors stay) */
    unsigned jobs;               /* parser threads; 1: parse in the calling thread */
    void (*now)(char out[32]);   /* the import time, ISO 8601 UTC */
    /* set (non-zero) by a signal's handler, which may run on any thread (an atomic, not a
     * volatile sig_atomic_t, for the threads reading it): a file being read as a stream is given up
     * once its next chunk is read (4 MiB more, or its end: a pipe whose writer stalls holds it
     * until then), not stored; a log of many GiB would otherwise hold the stop for minutes.
     * NULL: none */
    const atomic_int *stop;
};

struct import_session;

/* A session importing paths[0..n) in that order ("-": standard input); with o->jobs > 1,
 * worker threads read and parse up to 16 * jobs files ahead of the caller, which stores them,
 * from now on: before the warehouse is opened (a new one's schema is 12 million instructions).
 * o and paths are borrowed until import_session_end. */
struct import_session *import_session_start(const struct import_options *o, struct diag *d,
                                            char *const *paths, size_t n);
/* The warehouse the session stores into (NULL: a dry run); before the first import_file. */
void import_session_open(struct import_session *s, struct db *db);
/* Imports paths[i]; call it for i = 0, 1, ... in order. Messages and output are those of a
 * serial import whatever the jobs. */
enum import_outcome import_file(struct import_session *s, size_t i);
/* Results stored by the batches committed since the last call (for a progress line). */
size_t import_session_committed(struct import_session *s);
/* What a session did so far: only files in a committed batch count as stored. */
struct import_totals {
    size_t stored, results; /* files stored and their results (a dry run: parsed, and records) */
    size_t skipped;         /* files whose content was stored already */
    size_t skipped_unsaid;  /* of those, the ones past the first IMPORT_SKIP_NOTES (or all, when
                               quiet), which got no note of their own */
    size_t other_labels;    /* of skipped_unsaid, those stored with other labels than given */
    size_t unlabeled;       /* files stored without a storage class (no flag, no sidecar's) */
};
/* The skipped files named one by one before the rest are only counted. */
enum { IMPORT_SKIP_NOTES = 10 };
void import_session_totals(const struct import_session *s, struct import_totals *t);
/* Stops the workers and commits the last batch (unless failed is set): IMPORT_STORED, or
 * IMPORT_FAILED_DB when the commit failed. */
enum import_outcome import_session_end(struct import_session *s, int failed);
void import_session_free(struct import_session *s);

/* A sidecar named as an input (a glob of a whole folder takes FILE.meta with FILE): benchdb.meta,
 * or FILE.meta where FILE exists. It is read beside its file, never imported on its own. */
int import_is_sidecar(const char *path);

/* Stores one source with the options' format and labels in its own transaction (reparse,
 * run). */
enum import_outcome import_store(struct db *db, const struct import_options *o,
                                 const struct source *src, struct diag *d);

/* How import_run runs a program, and what happened beside its exit status. */
struct child_run {
    size_t max[2]; /* the most of its standard output and error held: past it, the program is
                      stopped (SIGTERM) and that stream's pipe closed */
    int overflow;  /* STDOUT_FILENO or STDERR_FILENO when that stream went over its max */
    int signal;    /* SIGTERM, SIGINT or SIGHUP benchdb received while it ran (sent on to the
                      program by benchdb unless a terminal sent it to both), else 0 */
};
/* Runs argv with standard output and error captured: the exit status, or -1 when it could not
 * be started at all (errno set), or the child's 128 + signal (child.c). */
int import_run(char *const *argv, struct buf *out, struct buf *err, struct child_run *x);
/* import_run for a short output (a tool's --version: 1 MiB of each stream at most). */
int import_execute(char *const *argv, struct buf *out, struct buf *err);

/* A growable, NULL-terminated argv. */
struct strv {
    char **v;
    size_t n, alloc;
};
/* What `benchdb run` knows of a benchmark's command line (benchmark.c). */
struct benchmark {
    const char *tool;      /* "fio", "dd" or "iperf3" */
    const char *format;    /* the importer of its output */
    int from_stderr;       /* dd reports on its standard error */
    struct strv argv;      /* what is executed: the command, asked for JSON where the tool can */
    struct strv paths;     /* files and directories the job touches */
    const char *output;    /* fio --output FILE, else NULL: the captured stream */
    size_t capture_max[2]; /* the most of its standard output and error held (import_run) */
    struct arena mem;      /* the strings added */
};
/* Prepares argv[0..argc) (argv[0] names fio, dd or iperf3, by path or name; the strings are
 * borrowed): 0, or -1 for another program. Zero *b first; benchmark_release it after. */
int benchmark_prepare(struct benchmark *b, char *const *argv, size_t argc);
/* Reads fio's --output FILE (a regular file, at most the size of an imported file) into
 * out: 0, or -1 after a message. */
int benchmark_read_output(const struct benchmark *b, struct buf *out, struct diag *d);
void benchmark_release(struct benchmark *b);

/* What `benchdb run` records beside the output it imports (context.c). */
struct run_context {
    const char *host;        /* this host's name, NULL when unknown */
    const char *kernel, *os; /* uname release, os-release PRETTY_NAME; NULL when unknown */
    const char *tool_version;
    const char *cmdline;            /* argv, shell-quoted */
    const char *mount, *mountpoint; /* the mountinfo line holding the first path found */
};
/* Fills *c (strings from a) for running argv on paths; a warning through d for each path
 * that is on another mount than the first. */
void run_context_capture(struct run_context *c, char *const *argv, char *const *paths,
                         size_t n_paths, struct arena *a, struct diag *d);
/* The most tags a run context gives: kernel, os, tool_version, cmdline, mountpoint. */
enum { RUN_CONTEXT_TAGS = 5 };
/* The labels of what was recorded (host, mount, and the known ones of the tags above, in
 * tags), to go under the command line's (db_labels_overlay); strings borrowed from c. */
void run_context_labels(const struct run_context *c, struct kv tags[RUN_CONTEXT_TAGS],
                        struct import_labels *out);

#endif
