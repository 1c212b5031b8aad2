/* cmd_import.c: benchdb import. Each file is one transaction: it lands whole or not at all,
 * and a bad file never stops the others. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../core/scan.h"
#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "../ingest/importer.h"
#include "progress.h"
#include "sidecar.h"

/* The most of one input held in memory (a format without a stream parser), so that a pipe
 * or FIFO that never ends (/dev/zero) is an error instead of exhausting memory; benchmark
 * outputs are far smaller. The usage text below names it. */
#define HELD_MAX_MIB 256

static const char usage[] =
    "usage: benchdb import [OPTIONS] FILE...\n"
    "\n"
    "Import benchmark output (fio JSON/terse/normal/logs, dd, iperf2/iperf3, bonnie++, notes);\n"
    "the format is detected from the content. '-' reads standard input. fio logs are read as\n"
    "a stream; any other input is held in memory, up to 256 MiB.\n"
    "\n"
    "  --host H              host the benchmark ran on (wins over the content)\n"
    "  --storage-class S     storage class, e.g. nfs-csi or local-nvme-retain\n"
    "  --mount OPTS_OR_LINE  mount options ('rw,vers=4.2,sec=krb5') or a whole mount line\n"
    "  --sec FLAVOR          NFS security flavor: sys, krb5, krb5i, krb5p or none\n"
    "  --tag K=V             free tag (repeatable)\n"
    "  --format NAME         skip detection (see 'benchdb formats')\n"
    "  -n, --dry-run         show what would be imported; store nothing\n"
    "  -v, --verbose         with -n: list the lines that look like results but were not used\n"
    "  -h, --help            show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb import results/*.json\n"
    "  benchdb import --storage-class nfs-csi --mount 'rw,vers=4.2,rsize=1048576' run1.json\n";

struct import_opts {
    struct import_labels labels;
    struct kv *tags;
    size_t n_tags, a_tags;
    const char *format;
    int dry_run, verbose;
    struct progress *progress; /* NULL: none */
    struct batch *batch;
};

/* What the open batch transaction holds, reported once it is committed. */
struct batch {
    struct buf said; /* "imported" lines */
    size_t results;
};

static int parse_tag(struct import_opts *o, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "benchdb import: error: expected --tag KEY=VALUE, got '%s'\n", arg);
        return -1;
    }
    *eq = '\0';
    ALLOC_GROW(o->tags, o->n_tags, o->a_tags);
    o->tags[o->n_tags++] = (struct kv){arg, eq + 1};
    return 0;
}

int label_option(int c, const char *arg, struct import_labels *labels)
{
    switch (c) {
    case 'H':
        labels->host = arg;
        return 1;
    case 'S':
        labels->storage_class = arg;
        return 1;
    case 'M':
        labels->mount = arg;
        return 1;
    case 's':
        labels->sec = arg;
        return 1;
    default:
        return 0;
    }
}

static int parse_options(int argc, char **argv, struct import_opts *o)
{
    static const struct option longopts[] = {
        LABEL_LONGOPTS,
        {"format", required_argument, NULL, 'f'},
        {"dry-run", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "nvh", longopts, NULL)) != -1) {
        if (label_option(c, optarg, &o->labels))
            continue;
        switch (c) {
        case 't':
            if (parse_tag(o, optarg))
                return BDB_EXIT_USAGE;
            break;
        case 'f':
            if (!importer_find(optarg)) {
                fprintf(stderr,
                        "benchdb import: error: unknown format '%s' (see 'benchdb "
                        "formats')\n",
                        optarg);
                return BDB_EXIT_USAGE;
            }
            o->format = optarg;
            break;
        case 'n':
            o->dry_run = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            return usage_exit(usage, BDB_EXIT_OK) - 1;
        default:
            return usage_exit(usage, BDB_EXIT_USAGE);
        }
    }
    if (optind == argc) {
        fprintf(stderr, "benchdb import: error: no input files\n");
        return usage_exit(usage, BDB_EXIT_USAGE);
    }
    o->labels.tags = o->tags;
    o->labels.n_tags = o->n_tags;
    return BDB_EXIT_OK;
}

/* A regular file larger than this whose format has a stream parser is read, hashed, stored
 * and parsed piece by piece, so memory does not grow with its size; the environment variable
 * BENCHDB_STREAM_THRESHOLD (bytes) sets it, for tests. */
#define STREAM_THRESHOLD ((int64_t)64 << 20)
/* What detection sees of such a file. */
#define HEAD_BYTES (1 << 20)

/* A file being read piece by piece: the head already read, then the rest, one chunk of
 * DB_CHUNK_BYTES at a time, each hashed and (unless a dry run) stored as it is read. */
struct import_stream {
    struct stream stream;
    FILE *f;
    const struct buf *head;
    size_t head_used;
    char *chunk;
    size_t len, served; /* bytes in chunk, of them given to the parser */
    struct sha256 sha;
    struct db_import *di; /* NULL: a dry run */
    struct diag *d;
};

static int64_t stream_threshold(void)
{
    const char *s = getenv("BENCHDB_STREAM_THRESHOLD");
    int64_t v;
    if (s && scan_int64(&s, &v) && !*s)
        return v;
    return STREAM_THRESHOLD;
}

/* Appends up to max bytes of f; 0, or -1 on a read error. */
static int read_upto(FILE *f, struct buf *b, size_t max)
{
    buf_grow(b, max);
    b->len += fread(b->data + b->len, 1, max, f);
    b->data[b->len] = '\0';
    return ferror(f) ? -1 : 0;
}

/* Appends the rest of f, holding at most HELD_MAX_MIB in all: 0, -1 on a read error, 1 when
 * f holds more. */
static int read_rest(FILE *f, struct buf *b)
{
    const size_t max = (size_t)HELD_MAX_MIB << 20;
    while (!feof(f)) {
        if (b->len > max)
            return 1;
        if (read_upto(f, b, HEAD_BYTES))
            return -1;
    }
    return b->len > max;
}

static int next_chunk(struct import_stream *s)
{
    size_t n =
        s->head->len - s->head_used < DB_CHUNK_BYTES ? s->head->len - s->head_used : DB_CHUNK_BYTES;
    memcpy(s->chunk, s->head->data + s->head_used, n);
    s->head_used += n;
    if (n < DB_CHUNK_BYTES)
        n += fread(s->chunk + n, 1, DB_CHUNK_BYTES - n, s->f);
    if (ferror(s->f))
        return diag_error(s->d, "cannot read '%s': %s", s->stream.path, strerror(errno));
    s->len = n;
    s->served = 0;
    if (!n)
        return 0;
    sha256_update(&s->sha, s->chunk, n);
    return s->di ? db_import_add_chunk(s->di, s->chunk, n) : 0;
}

static int stream_read(void *ctx, char *buf, size_t cap, size_t *n)
{
    struct import_stream *s = ctx;
    if (s->served == s->len && next_chunk(s))
        return -1;
    *n = s->len - s->served < cap ? s->len - s->served : cap;
    memcpy(buf, s->chunk + s->served, *n);
    s->served += *n;
    return 0;
}

/* The importer that reads f as a stream, or NULL when f is read whole: a regular file not
 * over the threshold, a pipe, FIFO or device that ended within the head (its size is known
 * only at its end, so a longer one streams at once), or a format (given, or detected from
 * the head) that needs the whole input. */
static const struct importer *stream_choice(const struct import_opts *o, FILE *f,
                                            const struct source *head)
{
    struct stat st;
    if (!head->len || fstat(fileno(f), &st) ||
        (S_ISREG(st.st_mode) ? st.st_size <= stream_threshold() : head->len < HEAD_BYTES))
        return NULL;
    const struct importer *imp = o->format ? importer_find(o->format) : importer_detect(head, NULL);
    return imp && importer_stream(imp) ? imp : NULL;
}

/* Runs the importer on the whole input src, or on the stream in when set. */
static int parse_input(const struct importer *imp, const struct source *src,
                       struct import_stream *in, struct arena *a, struct record_sink *sink,
                       struct diag *d)
{
    if (in)
        return importer_stream(imp)->parse_stream(&in->stream, a, sink, d);
    return imp->parse(src, a, sink, d);
}

/* A dry run's sink: each record checked as the database's sink checks it, then printed. */
struct dry_sink {
    size_t count;
    const struct source *src;
    struct diag *d;
};

static int print_record(void *ctx, const struct bench_record *r)
{
    struct dry_sink *ds = ctx;
    if (record_check(r, ds->src, ds->d))
        return -1;
    struct buf b = BUF_INIT;
    record_dump(&b, r);
    fputs(b.data, stdout);
    buf_release(&b);
    ds->count++;
    return 0;
}

static const struct importer *choose(struct app *app, const struct import_opts *o,
                                     const struct source *src)
{
    if (o->format)
        return importer_find(o->format);
    struct buf tried = BUF_INIT;
    const struct importer *imp = importer_detect(src, &tried);
    if (!imp)
        diag_error_line(&app->diag, src, 1, "unrecognized format (tried %s)", tried.data);
    buf_release(&tried);
    return imp;
}

/* During a dry run the importer runs verbose; its notes (lines that look like results but
 * were not used) are counted and shown only with -v. */
struct unused_notes {
    struct diag *parent;
    int show;
    size_t count;
};

static void count_note(void *ctx, enum diag_level level, const char *line)
{
    struct unused_notes *u = ctx;
    if (level == DIAG_NOTE)
        u->count++;
    if (level != DIAG_NOTE || u->show) {
        if (u->parent->emit)
            u->parent->emit(u->parent->ctx, level, line);
        else
            fprintf(stderr, "%s\n", line);
    }
}

static int dry_run(struct app *app, const struct import_opts *o, const struct importer *imp,
                   const struct source *src, struct import_stream *in)
{
    struct arena a = ARENA_INIT;
    struct unused_notes u = {&app->diag, o->verbose, 0};
    struct diag d = {count_note, &u, 0, 0, 1};
    struct dry_sink ds = {0, src, &d};
    struct record_sink sink = {print_record, &ds};
    struct buf name = BUF_INIT;
    diag_escape(&name, src->path);
    printf("%s: format %s\n", name.data, imp->name);
    fflush(stdout);
    int rc = parse_input(imp, src, in, &a, &sink, &d);
    app->diag.errors += d.errors;
    app->diag.warnings += d.warnings;
    arena_release(&a);
    if (rc == 0)
        printf("%s: %zu result%s; %zu line%s look%s like measurements but %s not used (dry run: "
               "nothing stored)\n",
               name.data, ds.count, ds.count == 1 ? "" : "s", u.count, u.count == 1 ? "" : "s",
               u.count == 1 ? "s" : "", u.count == 1 ? "was" : "were");
    buf_release(&name);
    return rc;
}

/* When a file with content sha is stored already: undoes this file, says so and returns 1;
 * 0 when not, -2 on failure. */
static int skip_if_stored(struct app *app, struct db *db, const char *path, const char *sha)
{
    char *first = NULL;
    int found = db_source_find(db, sha, &first, &app->diag);
    if (!found)
        return 0;
    int rc = db_file_end(db, 0, &app->diag) || found < 0 ? -2 : 1;
    if (rc == 1) {
        struct buf note = BUF_INIT;
        diag_escape(&note, path);
        buf_adds(&note, ": note: already imported (same content as '");
        diag_escape(&note, first);
        buf_adds(&note, "'), skipped\n");
        fputs(note.data, stderr);
        buf_release(&note);
    }
    free(first);
    return rc;
}

/* Parses into the database inside one transaction: src whole, or the stream in (then src
 * has the path only, and the hash is known, and looked up, only at the end). 0 stored,
 * 1 skipped, -1 rejected, -2 database failure. */
static int store(struct app *app, struct db *db, const struct import_opts *o,
                 const struct importer *imp, const struct source *src, struct import_stream *in)
{
    char sha[65], when[32];
    /* Look up inside the write transaction: another import may be storing the same file. */
    if (db_file_begin(db, &app->diag))
        return -2;
    int rc = 0;
    if (!in) {
        sha256_hex(src->data, src->len, sha);
        rc = skip_if_stored(app, db, src->path, sha);
    }
    if (rc)
        return rc;
    now_iso(when);
    unsigned errors = app->diag.errors;
    struct db_import *di =
        db_import_begin(db, src, in ? NULL : sha, imp->name, when, &o->labels, &app->diag);
    struct arena a = ARENA_INIT;
    rc = -2;
    if (di) {
        struct record_sink sink = db_import_sink(di);
        if (in)
            in->di = di;
        rc = parse_input(imp, src, in, &a, &sink, &app->diag);
        if (rc == 0 && in) {
            sha256_final(&in->sha, sha);
            rc = skip_if_stored(app, db, src->path, sha);
            if (rc == 0 && db_import_set_hash(di, sha))
                rc = -2;
        }
        if (rc == 0 && db_import_count(di) == 0)
            rc = diag_error_line(&app->diag, src, 1, "no results found in %s output", imp->name);
    }
    if (rc == 1) {
        /* skip_if_stored ended the file */
    } else if (db_file_end(db, rc == 0, &app->diag)) {
        rc = -2;
    } else if (rc == 0) {
        /* said once the batch holding this file is committed (flush_batch) */
        diag_escape(&o->batch->said, src->path);
        buf_addf(&o->batch->said, ": imported %zu result%s (%s)\n", db_import_count(di),
                 db_import_count(di) == 1 ? "" : "s", imp->name);
        o->batch->results += db_import_count(di);
    } else if (rc == -1 && app->diag.errors == errors) {
        diag_error(&app->diag, "%s: import failed", src->path);
    }
    db_import_free(di);
    arena_release(&a);
    return rc;
}

/* Commits the batch when it is due (or force) and only then reports its files as imported.
 * 0, or -2 when the commit failed: then none of the batch's files is stored. */
static int flush_batch(struct app *app, struct db *db, const struct import_opts *o, int force)
{
    int rc = db_batch_commit(db, force, &app->diag);
    if (rc == 0)
        return 0;
    if (rc > 0) {
        fputs(o->batch->said.data, stderr);
        progress_results(o->progress, o->batch->results);
    } else {
        diag_error(&app->diag, "the files of the last batch were not stored (nothing of them "
                               "is in the warehouse)");
    }
    buf_reset(&o->batch->said);
    o->batch->results = 0;
    return rc > 0 ? 0 : -2;
}

/* store() with the labels of path's sidecar under the command-line ones. */
static int store_with_sidecar(struct app *app, struct db *db, const struct import_opts *o,
                              const char *path, const struct importer *imp,
                              const struct source *src, struct import_stream *in)
{
    struct sidecar sc;
    struct import_opts merged = *o;
    struct kv *tags = NULL;
    int rc = sidecar_load(path, &sc, &app->diag);
    if (rc == 0) {
        sidecar_merge(&sc, &o->labels, &merged.labels, &tags);
        rc = store(app, db, &merged, imp, src, in);
    }
    free(tags);
    sidecar_release(&sc);
    return rc;
}

static int import_whole(struct app *app, struct db *db, const struct import_opts *o,
                        const char *path, const struct source *src)
{
    const struct importer *imp;
    if (src->len == 0)
        return diag_error_line(&app->diag, src, 1, "empty file: no benchmark output to import");
    if (!(imp = choose(app, o, src)))
        return -1;
    if (o->dry_run)
        return dry_run(app, o, imp, src, NULL);
    return store_with_sidecar(app, db, o, path, imp, src, NULL);
}

static int import_streamed(struct app *app, struct db *db, const struct import_opts *o,
                           const char *path, const char *name, const struct importer *imp, FILE *f,
                           const struct buf *head)
{
    struct import_stream in = {.stream = {name, stream_read, NULL},
                               .f = f,
                               .head = head,
                               .chunk = xmalloc(DB_CHUNK_BYTES),
                               .d = &app->diag};
    in.stream.ctx = &in;
    sha256_init(&in.sha);
    struct source src = {name, NULL, 0};
    int rc = o->dry_run ? dry_run(app, o, imp, &src, &in)
                        : store_with_sidecar(app, db, o, path, imp, &src, &in);
    free(in.chunk);
    return rc;
}

/* A file or standard input: the first HEAD_BYTES, then either the rest as a stream or all of
 * it in memory. */
static int import_one(struct app *app, struct db *db, const struct import_opts *o, const char *path)
{
    int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return diag_error(&app->diag, "cannot open '%s': %s", path, strerror(errno));
    struct buf data = BUF_INIT;
    struct source src = {is_stdin ? "<stdin>" : path, NULL, 0};
    const struct importer *streamed = NULL;
    int rc = read_upto(f, &data, HEAD_BYTES);
    if (rc == 0) {
        src.data = data.data;
        src.len = data.len;
        streamed = stream_choice(o, f, &src);
        if (!streamed)
            rc = read_rest(f, &data);
    }
    src.data = data.data;
    src.len = data.len;
    if (rc > 0)
        rc = diag_error_path(&app->diag, src.path,
                             "input over %d MiB, the most read into memory (only fio logs are "
                             "read as a stream); nothing stored",
                             HELD_MAX_MIB);
    else if (rc)
        rc = diag_error(&app->diag, "cannot read '%s': %s", path, strerror(errno));
    else if (streamed)
        rc = import_streamed(app, db, o, path, src.path, streamed, f, &data);
    else
        rc = import_whole(app, db, o, path, &src);
    if (!is_stdin)
        fclose(f);
    buf_release(&data);
    return rc;
}

int import_store(struct app *app, struct db *db, const struct import_labels *labels,
                 const char *format, const struct source *src)
{
    struct batch batch = {BUF_INIT, 0};
    struct import_opts o = {.labels = *labels, .format = format, .batch = &batch};
    int rc = store(app, db, &o, importer_find(format), src, NULL);
    if (flush_batch(app, db, &o, 1))
        rc = -2;
    buf_release(&batch.said);
    return rc;
}

int cmd_import(int argc, char **argv, struct app *app)
{
    struct batch batch = {BUF_INIT, 0};
    struct import_opts o = {.batch = &batch};
    int status = parse_options(argc, argv, &o);
    if (status != BDB_EXIT_OK) {
        free(o.tags);
        return status < 0 ? BDB_EXIT_OK : status;
    }
    struct db *db = NULL;
    if (!o.dry_run && open_db(app, DB_CREATE, &db)) {
        free(o.tags);
        return BDB_EXIT_ENV;
    }
    struct progress pg;
    progress_start(&pg, (size_t)(argc - optind));
    o.progress = &pg;
    for (int i = optind; i < argc; i++) {
        progress_clear(&pg);
        int rc = import_one(app, db, &o, argv[i]);
        if (rc != -2 && db)
            rc = flush_batch(app, db, &o, 0) ? -2 : rc;
        progress_file(&pg);
        if (rc == -2) {
            status = BDB_EXIT_ENV;
            break;
        }
        if (rc == -1)
            status = BDB_EXIT_INPUT;
    }
    if (db && status != BDB_EXIT_ENV && flush_batch(app, db, &o, 1))
        status = BDB_EXIT_ENV;
    progress_end(&pg);
    buf_release(&batch.said);
    db_close(db);
    free(o.tags);
    return status;
}
