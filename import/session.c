/* session.c: the writer. Each file is one transaction inside a batch: it lands whole or not
 * at all, and a bad file never stops the others. Files parsed ahead by workers (parallel.c)
 * are replayed here in input order, so that what is printed and stored does not depend on
 * the number of jobs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/scan.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "internal.h"

struct import_session {
    struct db *db; /* NULL: a dry run */
    const struct import_options *o;
    struct diag *d;
    char *const *paths;
    size_t n;
    struct buf said; /* the open batch's "imported" and "skipped" lines, said at its commit */
    size_t batch_results, committed;
    size_t batch_files, batch_unlabeled; /* the open batch's files stored, those unlabeled */
    /* The open batch's files stored without a savepoint of their own (their paths), which a
     * failure inside a later one stores again (store_batch_again); and whether it holds a file
     * stored in a savepoint, after which the rest of it is stored so too (a file read here, say
     * standard input, may not be read again). */
    const char **again;
    size_t n_again, a_again;
    int batch_savepoints;
    struct import_totals totals;
    struct workers *workers;        /* NULL: every file is read and parsed here */
    struct attach_registry *attach; /* NULL: logs are not paired with jobs (reparse, run) */
    struct sidecar_dir sidecars;    /* of the files read here (not by workers) */
};

/* What runs the importer on a file inside its transaction: the importer itself, or the
 * replay of what a worker produced (ahead: every record is known before the first is stored).
 * 0, or -1 after an error. */
struct producer {
    int (*run)(void *ctx, struct arena *a, struct record_sink *sink, struct diag *d);
    void *ctx;
    int ahead;
};

/* The importer on the whole input src, or on the stream in when set. */
struct live_parse {
    const struct importer *imp;
    const struct source *src;
    struct import_stream *in;
};

static int run_live(void *ctx, struct arena *a, struct record_sink *sink, struct diag *d)
{
    struct live_parse *lp = ctx;
    if (lp->in)
        return lp->imp->parse_stream(&lp->in->stream, a, sink, d);
    return lp->imp->parse(lp->src, a, sink, d);
}

/* A worker's events in order; stops where the sink refuses a record, as the importer would. */
static int run_replay(void *ctx, struct arena *a, struct record_sink *sink, struct diag *d)
{
    const struct parsed *p = ctx;
    (void)a;
    for (size_t i = 0; i < p->n_ev; i++) {
        if (!p->ev[i].rec)
            diag_replay(d, p->ev[i].level, p->ev[i].line);
        else if (sink->emit(sink->ctx, p->ev[i].rec))
            return -1;
    }
    return p->rc;
}

/* Lines the session says itself ("imported", "already imported"; each ends in '\n') go out as
 * the diagnostics do, through d's emit when set (cli/progress.c erases its line first); else
 * to stderr in one write, not one per file. */
static void say(struct diag *d, char *lines)
{
    if (!d->emit) {
        fputs(lines, stderr);
        return;
    }
    for (char *nl; (nl = strchr(lines, '\n')); lines = nl + 1) {
        *nl = '\0';
        diag_replay(d, DIAG_NOTE, lines);
    }
}

/* A dry run's sink: each record checked as the database's sink checks it, then printed. */
struct dry_sink {
    struct arena *a;
    size_t count;
    const struct source *src;
    struct diag *d;
};

static int print_record(void *ctx, const struct bench_record *r)
{
    struct dry_sink *ds = ctx;
    r = record_utf8(ds->a, r, ds->src, ds->d);
    if (record_check(r, ds->src, ds->d))
        return -1;
    struct buf b = BUF_INIT;
    record_dump(&b, r);
    fputs(b.data, stdout);
    buf_release(&b);
    ds->count++;
    return 0;
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

static int dry_run(struct import_session *s, const struct importer *imp, const struct source *src,
                   struct import_stream *in)
{
    struct arena a = ARENA_INIT;
    struct unused_notes u = {s->d, s->o->verbose, 0};
    struct diag d = {count_note, &u, 0, 0, 1};
    struct dry_sink ds = {&a, 0, src, &d};
    struct record_sink sink = {print_record, &ds};
    struct live_parse lp = {imp, src, in};
    struct buf name = BUF_INIT;
    diag_escape(&name, src->path);
    printf("%s: format %s\n", name.data, imp->name);
    fflush(stdout);
    int rc = run_live(&lp, &a, &sink, &d);
    s->d->errors += d.errors;
    s->d->warnings += d.warnings;
    arena_release(&a);
    if (rc == 0) {
        s->totals.stored++;
        s->totals.results += ds.count;
    }
    if (rc == 0)
        printf("%s: %zu result%s; %zu line%s look%s like measurements but %s not used (dry run: "
               "nothing stored)\n",
               name.data, ds.count, ds.count == 1 ? "" : "s", u.count, u.count == 1 ? "" : "s",
               u.count == 1 ? "s" : "", u.count == 1 ? "was" : "were");
    buf_release(&name);
    return rc;
}

/* When the labels given now differ from the stored ones, a note with the command that would
 * change them (after the note that the file is skipped). 0, or -1 after a message. */
static int note_other_labels(struct import_session *s, const char *sha,
                             const struct import_labels *labels, int said)
{
    struct buf hint = BUF_INIT;
    int rc = db_reimport_hint(s->db, sha, labels, &hint, s->d);
    if (rc == 0 && hint.len && said) { /* after its skip note, in the batch's lines */
        buf_adds(&s->said, "benchdb: note: ");
        diag_escape(&s->said, hint.data);
        buf_adds(&s->said, "\n");
    } else if (rc == 0 && hint.len)
        s->totals.other_labels++;
    buf_release(&hint);
    return rc;
}

/* When a file with content sha is stored already: undoes this file, says so (the first
 * IMPORT_SKIP_NOTES skipped files, none when quiet; the others are counted) and returns 1; 0
 * when not, -2 on failure. */
static int skip_if_stored(struct import_session *s, const char *path, const char *sha,
                          const struct import_labels *labels)
{
    char *first = NULL;
    int found = db_source_find(s->db, sha, &first, s->d);
    if (!found)
        return 0;
    int rc = db_file_end(s->db, 0, s->d) || found < 0 ? -2 : 1;
    if (rc == 1) {
        int said = !s->o->quiet && s->totals.skipped < IMPORT_SKIP_NOTES;
        s->totals.skipped++;
        s->totals.skipped_unsaid += !said;
        struct buf note = BUF_INIT;
        diag_escape(&note, path);
        buf_adds(&note, ": note: already imported (same content as '");
        diag_escape(&note, first);
        buf_adds(&note, "'), skipped\n");
        if (said) /* in input order with the "imported" lines, said when the batch commits */
            buf_adds(&s->said, note.data);
        buf_release(&note);
        if (note_other_labels(s, sha, labels, said))
            rc = -2;
    }
    free(first);
    return rc;
}

/* The database's sink, noting each stored record for attach.c. */
struct collect_sink {
    struct record_sink db;
    struct db_import *di;
    struct attach_registry *attach;
    const char *path, *format;
    size_t unclassed; /* records whose content names no storage class */
};

static int collect_emit(void *ctx, const struct bench_record *r)
{
    struct collect_sink *c = ctx;
    if (c->db.emit(c->db.ctx, r))
        return -1;
    c->unclassed += !r->storage_class || !*r->storage_class;
    attach_collect(c->attach, c->path, c->format, r, db_import_last_result(c->di));
    return 0;
}

/* The file's name and labels as stored: UTF-8 (docs/schema.md). Flags that are not were
 * refused (cli/options.c) and a sidecar's values escaped where it was read (sidecar.c); what
 * is left is a file name, and what `benchdb run` recorded (the command line, the OS). */
static void utf8_file(struct arena *a, const struct source *src, const struct import_labels *in,
                      struct source *named, struct import_labels *out, struct diag *d)
{
    *named = *src;
    *out = *in;
    named->path = utf8_stored(a, src->path, "file name", NULL, src, 0, d);
    out->host = utf8_stored(a, in->host, "host", NULL, src, 0, d);
    out->storage_class = utf8_stored(a, in->storage_class, "storage class", NULL, src, 0, d);
    out->sec = utf8_stored(a, in->sec, "sec", NULL, src, 0, d);
    out->mount = utf8_stored(a, in->mount, "mount", NULL, src, 0, d);
    struct kv *tags = NULL;
    for (size_t i = 0; i < in->n_tags; i++) {
        const char *key = utf8_stored(a, in->tags[i].key, "tag name", NULL, src, 0, d);
        const char *value = utf8_stored(a, in->tags[i].value, "tag", key, src, 0, d);
        if (!tags && (key != in->tags[i].key || value != in->tags[i].value)) {
            tags = arena_alloc(a, in->n_tags * sizeof(*tags));
            memcpy(tags, in->tags, in->n_tags * sizeof(*tags));
            out->tags = tags;
        }
        if (tags)
            tags[i] = (struct kv){key, value};
    }
}

static int store_batch_again(struct import_session *s);

/* Parses into the database inside one transaction: src whole (its hash and stored bytes from
 * pre when a worker prepared them), or the stream in (then src has the path only, and the hash
 * is known, and looked up, only at the end). 0 stored, 1 skipped, -1 rejected, -2 database
 * failure. */
static int store_file(struct import_session *s, const struct import_labels *labels,
                      const struct importer *imp, const struct source *src,
                      struct import_stream *in, const struct producer *parse,
                      const struct prepared *pre)
{
    char sha[65], when[32];
    /* A file parsed ahead is checked whole before its first row is written, and needs no
     * savepoint of its own (a fifth of the writer's work for a small fio JSON file: SQLite
     * copies each page the file changes first, ~10). Not when fio logs are paired with jobs:
     * attach.c keeps the ids of results stored, which storing the batch again would change. */
    int checked_first = parse->ahead && !s->attach && !s->batch_savepoints;
    /* Look up inside the write transaction: another import may be storing the same file. */
    if (db_file_begin(s->db, !checked_first, s->d))
        return -2;
    int rc = 0;
    struct arena a = ARENA_INIT;
    struct source named;
    struct import_labels stored;
    const char *path = src->path; /* as opened: attach.c pairs logs by it */
    utf8_file(&a, src, labels, &named, &stored, s->d);
    src = &named;
    labels = &stored;
    if (!in) {
        if (pre)
            memcpy(sha, pre->sha, sizeof(sha));
        else
            sha256_hex(src->data, src->len, sha);
        rc = skip_if_stored(s, src->path, sha, labels);
    }
    if (rc) {
        arena_release(&a);
        return rc;
    }
    s->o->now(when);
    unsigned errors = s->d->errors;
    struct db_import *di = (checked_first ? db_import_check : db_import_begin)(
        s->db, src, in ? NULL : sha, pre && pre->raw.data ? &pre->raw : NULL, imp->name, when,
        labels, s->d);
    rc = -2;
    size_t unclassed = 0;
    if (di) {
        struct collect_sink collect = {db_import_sink(di), di, s->attach, path, imp->name, 0};
        struct record_sink sink = {collect_emit, &collect};
        if (in)
            in->di = di;
        rc = parse->run(parse->ctx, &a, &sink, s->d);
        if (rc == 0 && in && import_stream_drain(in))
            rc = -2;
        if (rc == 0 && in) {
            sha256_final(&in->sha, sha);
            rc = skip_if_stored(s, src->path, sha, labels);
            if (rc == 0 && db_import_set_hash(di, sha))
                rc = -2;
        }
        if (rc == 0 && db_import_count(di) == 0)
            rc = diag_error_line(s->d, src, 1, "no results found in %s output", imp->name);
        if (rc == 0 && checked_first && db_import_write(di))
            rc = store_batch_again(s);
        unclassed = collect.unclassed;
        /* a class given wins over the content's; without one, the content may name it
         * (notes typed per storage class), or the job a fio log is attached to */
        if (labels->storage_class && *labels->storage_class)
            unclassed = 0;
        else if (rc == 0 && attach_file_awaits_class(s->attach, unclassed))
            unclassed = 0;
        if (rc == 0 && attach_file_end(s->attach, s->db, s->d))
            rc = -2;
    }
    if (rc)
        attach_file_drop(s->attach);
    if (rc == 1) {
        /* skip_if_stored ended the file */
    } else if (db_file_end(s->db, rc == 0, s->d)) {
        rc = -2;
    } else if (rc == 0) {
        /* said once the batch holding this file is committed (flush_batch) */
        if (!s->o->quiet) {
            diag_escape(&s->said, src->path);
            buf_addf(&s->said, ": imported %zu result%s (%s)\n", db_import_count(di),
                     db_import_count(di) == 1 ? "" : "s", imp->name);
        }
        s->batch_results += db_import_count(di);
        s->batch_files++;
        s->batch_unlabeled += unclassed > 0;
        if (checked_first) {
            ALLOC_GROW(s->again, s->n_again + 1, s->a_again);
            s->again[s->n_again++] = path;
        } else {
            s->batch_savepoints = 1;
        }
    } else if (rc == -1 && s->d->errors == errors) {
        diag_error(s->d, "%s: import failed", src->path);
    }
    db_import_free(di);
    arena_release(&a);
    return rc;
}

/* The open batch is committed or lost: the next one starts with no file stored. */
static void batch_ended(struct import_session *s)
{
    buf_reset(&s->said);
    s->batch_results = s->batch_files = s->batch_unlabeled = 0;
    s->n_again = 0;
    s->batch_savepoints = 0;
}

/* After a database failure in path's transaction: the batch is lost (rolled back, by SQLite
 * itself or when the warehouse is closed), the files stored before it in the batch with it. The
 * error that caused it was said where it happened; this says what is not in the warehouse. */
static void batch_lost(struct import_session *s, const char *path)
{
    size_t before = s->batch_files;
    struct buf msg = BUF_INIT;
    buf_adds(&msg, "'");
    diag_escape(&msg, path);
    if (before)
        buf_addf(&msg, "' and the %zu file%s stored before it in its batch were not stored", before,
                 before == 1 ? "" : "s");
    else
        buf_adds(&msg, "' was not stored");
    diag_error(s->d, "%s (nothing of them is in the warehouse)", msg.data);
    buf_release(&msg);
    batch_ended(s);
}

/* store_file(), saying what is lost when the database failed. */
static int store(struct import_session *s, const struct import_labels *labels,
                 const struct importer *imp, const struct source *src, struct import_stream *in,
                 const struct producer *parse, const struct prepared *pre)
{
    int rc = store_file(s, labels, imp, src, in, parse, pre);
    if (rc == -2 && s->db)
        batch_lost(s, src->path);
    return rc;
}

/* Commits the batch when it is due (or force) and only then reports its files as imported.
 * 0, or -2 when the commit failed: then none of the batch's files is stored. */
static int flush_batch(struct import_session *s, int force)
{
    int rc = db_batch_commit(s->db, force, s->d);
    if (rc == 0)
        return 0;
    if (rc > 0) {
        say(s->d, s->said.data);
        s->committed += s->batch_results;
        s->totals.stored += s->batch_files;
        s->totals.results += s->batch_results;
        s->totals.unlabeled += s->batch_unlabeled;
    } else {
        diag_error(s->d, "the files of the last batch were not stored (nothing of them is in the "
                         "warehouse)");
    }
    batch_ended(s);
    return rc > 0 ? 0 : -2;
}

/* The last batch committed, then the dictionaries trained that the files stored call for
 * (rawstore.c); 0 or -2, as flush_batch. */
static int end_batches(struct import_session *s)
{
    return flush_batch(s, 1) || db_raw_train(s->db, s->d) ? -2 : 0;
}

/* store() with the labels of the sidecar sc under the command-line ones. */
static int store_with_sidecar(struct import_session *s, const struct sidecar *sc,
                              const struct importer *imp, const struct source *src,
                              struct import_stream *in, const struct producer *parse,
                              const struct prepared *pre)
{
    struct import_labels merged;
    struct kv *tags = NULL;
    db_labels_overlay(&s->o->labels, &sc->labels, &merged, &tags);
    int rc = store(s, &merged, imp, src, in, parse, pre);
    free(tags);
    return rc;
}

/* Loads path's sidecar, then stores (or in a dry run shows) what the importer makes of src or
 * in. */
static int import_parse(struct import_session *s, const char *path, const struct importer *imp,
                        const struct source *src, struct import_stream *in)
{
    struct live_parse lp = {imp, src, in};
    struct producer parse = {run_live, &lp, 0};
    if (s->o->dry_run)
        return dry_run(s, imp, src, in);
    struct sidecar sc;
    int rc = sidecar_load(path, &s->sidecars, &sc, s->d);
    if (rc == 0)
        rc = store_with_sidecar(s, &sc, imp, src, in, &parse, NULL);
    sidecar_release(&sc);
    return rc;
}

static int import_whole(struct import_session *s, const char *path, const struct source *src)
{
    const struct importer *imp;
    if (src->len == 0)
        return diag_error_line(s->d, src, 1, "empty file: no benchmark output to import");
    if (!(imp = import_choose(s->o, src, s->d)))
        return -1;
    return import_parse(s, path, imp, src, NULL);
}

/* The importer that reads f as a stream, or NULL when f is read whole: a regular file not
 * over the threshold, a pipe, FIFO or device that ended within the head (its size is known
 * only at its end, so a longer one streams at once), or a format (given, or detected from
 * the head) that needs the whole input. */
static const struct importer *stream_choice(const struct import_options *o, FILE *f,
                                            const struct source *head)
{
    struct stat st;
    if (!head->len || fstat(fileno(f), &st) ||
        (S_ISREG(st.st_mode) ? st.st_size <= stream_threshold() : head->len < HEAD_BYTES))
        return NULL;
    const struct importer *imp = o->format ? importer_find(o->format) : importer_detect(head, NULL);
    return imp && imp->parse_stream ? imp : NULL;
}

static int import_streamed(struct import_session *s, const char *path, const char *name,
                           const struct importer *imp, FILE *f, const struct buf *head)
{
    struct import_stream in;
    import_stream_init(&in, name, f, head, s->o->stop, s->d);
    in.stream.jobs = s->o->jobs;
    struct source src = {name, NULL, 0};
    int rc = import_parse(s, path, imp, &src, &in);
    import_stream_release(&in);
    return rc;
}

/* A file or standard input read here: the first HEAD_BYTES, then either the rest as a stream
 * or all of it in memory. */
static int import_here(struct import_session *s, const char *path)
{
    int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return diag_error(s->d, "cannot open '%s': %s", path, strerror(errno));
    struct buf data = BUF_INIT;
    struct source src = {is_stdin ? "<stdin>" : path, NULL, 0};
    const struct importer *streamed = NULL;
    int rc = read_upto(f, &data, HEAD_BYTES);
    if (rc == 0) {
        src.data = data.data;
        src.len = data.len;
        streamed = stream_choice(s->o, f, &src);
        if (!streamed)
            rc = read_rest(f, &data);
    }
    src.data = data.data;
    src.len = data.len;
    if (rc > 0)
        rc = diag_error_path(s->d, src.path,
                             "input over %d MiB, the most read into memory (only fio logs are "
                             "read as a stream); nothing stored",
                             HELD_MAX_MIB);
    else if (rc)
        rc = diag_error(s->d, "cannot read '%s': %s", path, strerror(errno));
    else if (streamed)
        rc = import_streamed(s, path, src.path, streamed, f, &data);
    else
        rc = import_whole(s, path, &src);
    if (!is_stdin)
        fclose(f);
    buf_release(&data);
    return rc;
}

/* A diagnostic line kept while a file is stored again: its level, then the line. */
static void keep_line(void *ctx, enum diag_level level, const char *line)
{
    buf_addf(ctx, "%c%s\n", '0' + level, line);
}

/* Reads and stores path again, in a savepoint, saying nothing unless that fails (then its
 * messages). 0, or what store_file returns. */
static int store_again(struct import_session *s, const char *path)
{
    struct buf lines = BUF_INIT;
    struct diag quiet = {keep_line, &lines, 0, 0, s->d->verbose};
    struct diag *d = s->d;
    s->d = &quiet;
    int rc = import_here(s, path);
    s->d = d;
    for (char *at = lines.data, *nl; rc && (nl = strchr(at, '\n')); at = nl + 1) {
        *nl = '\0';
        diag_replay(d, (enum diag_level)(at[0] - '0'), at + 1);
    }
    buf_release(&lines);
    return rc;
}

/* A file stored without a savepoint failed after its first row: the database refused a row (a
 * constraint or trigger of the warehouse's that no check knows). The batch is taken back to its
 * start and its files stored before this one are read and stored again, each in a savepoint,
 * as they would have been without checked_first; the rest of the batch is stored so too. What
 * they said and are counted as stands. -1: this file is not stored; -2: the batch is lost (the
 * database failed, or a file was not stored again: it changed since it was read). */
static int store_batch_again(struct import_session *s)
{
    s->batch_savepoints = 1;
    if (db_batch_rewind(s->db, s->d))
        return -2;
    char *said = xstrdup(s->said.data);
    size_t results = s->batch_results, files = s->batch_files, unlabeled = s->batch_unlabeled;
    int rc = -1;
    for (size_t i = 0; rc == -1 && i < s->n_again; i++)
        if (store_again(s, s->again[i]))
            rc = -2;
    s->n_again = 0;
    buf_reset(&s->said);
    buf_adds(&s->said, said);
    free(said);
    s->batch_results = results;
    s->batch_files = files;
    s->batch_unlabeled = unlabeled;
    return rc;
}

/* A file a worker parsed: its messages before parsing, or the transaction with its records. */
static int import_parsed(struct import_session *s, struct parsed *p)
{
    struct producer replay = {run_replay, p, 1};
    if (p->state == PARSED_REJECTED)
        return run_replay(p, NULL, NULL, s->d);
    return store_with_sidecar(s, &p->sc, p->imp, &p->src, NULL, &replay,
                              p->rc == 0 ? &p->pre : NULL);
}

static enum import_outcome outcome(int rc)
{
    switch (rc) {
    case 0:
        return IMPORT_STORED;
    case 1:
        return IMPORT_SKIPPED;
    case -1:
        return IMPORT_REJECTED;
    default:
        return IMPORT_FAILED_DB;
    }
}

/* Logs pair with jobs only under fio's log names, `<prefix>_<kind>.<N>.log` (ingest/fio_log.c
 * reads the kind from the name): a command naming no *.log file pairs nothing, and its jobs
 * are not registered (attach.c keeps every job of the command until the end). */
static struct attach_registry *attach_if_logs(char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (str_ends(paths[i], ".log"))
            return attach_new();
    return NULL;
}

struct import_session *import_session_start(const struct import_options *o, struct diag *d,
                                            char *const *paths, size_t n)
{
    struct import_session *s = xcalloc(1, sizeof(*s));
    *s = (struct import_session){.o = o,
                                 .d = d,
                                 .paths = paths,
                                 .n = n,
                                 .said = BUF_INIT,
                                 .attach = attach_if_logs(paths, n)};
    /* a dry run prints as it parses: it stays serial */
    if (o->jobs > 1 && n > 1 && !o->dry_run)
        s->workers = workers_start(o, d->verbose, paths, n);
    return s;
}

void import_session_open(struct import_session *s, struct db *db)
{
    s->db = db;
    if (s->workers)
        workers_give_dicts(s->workers, db ? db_raw_dicts(db) : NULL);
}

enum import_outcome import_file(struct import_session *s, size_t i)
{
    struct parsed *p = s->workers ? workers_take(s->workers, i) : NULL;
    int rc = p && p->state != PARSED_SERIAL ? import_parsed(s, p) : import_here(s, s->paths[i]);
    if (p)
        workers_done(s->workers, p);
    if (rc != -2 && s->db)
        rc = flush_batch(s, 0) ? -2 : rc;
    return outcome(rc);
}

void import_session_totals(const struct import_session *s, struct import_totals *t)
{
    *t = s->totals;
}

size_t import_session_committed(struct import_session *s)
{
    size_t n = s->committed;
    s->committed = 0;
    return n;
}

enum import_outcome import_session_end(struct import_session *s, int failed)
{
    int rc = 0;
    if (s->workers)
        workers_stop(s->workers);
    s->workers = NULL;
    if (s->db && !failed)
        rc = end_batches(s);
    if (!rc && !failed)
        s->totals.unlabeled += attach_unlabeled_alone(s->attach);
    return rc ? IMPORT_FAILED_DB : IMPORT_STORED;
}

void import_session_free(struct import_session *s)
{
    if (s->workers)
        workers_stop(s->workers);
    buf_release(&s->said);
    free(s->again);
    attach_free(s->attach);
    sidecar_dir_release(&s->sidecars);
    free(s);
}

enum import_outcome import_store(struct db *db, const struct import_options *o,
                                 const struct source *src, struct diag *d)
{
    struct import_session s = {.db = db, .o = o, .d = d, .said = BUF_INIT};
    const struct importer *imp = importer_find(o->format);
    struct live_parse lp = {imp, src, NULL};
    struct producer parse = {run_live, &lp, 0};
    int rc = store(&s, &o->labels, imp, src, NULL, &parse, NULL);
    if (end_batches(&s))
        rc = -2;
    buf_release(&s.said);
    return outcome(rc);
}
