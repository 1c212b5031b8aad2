/* attach.c: fio logs belong to the job that wrote them. fio names a log
 * `<prefix>_<kind>.<N>.log` (kind bw, iops, lat, clat, slat, clat_hist; N the thread's number in
 * the run), the prefix being the value of write_bw_log= (write_iops_log=, write_lat_log=,
 * write_hist_log=) or, without one, the job's name. A log and a fio JSON job imported by the same
 * command are together when they are in the same folder, the log's prefix is the job's for that
 * kind and the log has the job's direction: the log's series then moves to the job's result and
 * the log's own result becomes a part (docs/series.md). Pairs are made as files are stored, in
 * command order (the writer's order, whatever -j), so logs may come before or after the JSON:
 * each file's entries pair with the earliest unpaired match among the files stored before it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/hash.h"
#include "../core/xalloc.h"
#include "internal.h"

struct attach_entry {
    /* from the registry's arena; dir: the file's folder, resolved (realpath) */
    const char *dir, *prefix, *kind, *direction, *path;
    int64_t result_id, numjobs;
    int is_log, paired;
    int attached;     /* a log whose series moved to its job's result */
    int awaits_class; /* a log of a file stored unlabeled: counted so if it stays alone */
    size_t next;      /* the next entry of its bucket, in insertion order; NONE at the end */
};

#define NONE SIZE_MAX

/* Entries are found by a hash of what pairs them (folder, prefix, kind, direction), so that
 * pairing a file costs its own entries, not every entry of the command so far. */
struct attach_registry {
    struct attach_entry *v;
    size_t n, a;
    size_t first_new; /* entries from here on are the current file's */
    size_t *head, *tail, nbuckets;
    struct arena strings;
};

static size_t bucket_of(const struct attach_registry *reg, const struct attach_entry *e)
{
    uint64_t h = str_hash(e->dir) ^ str_hash(e->prefix) * 3 ^ str_hash(e->kind) * 5 ^
                 str_hash(e->direction) * 7;
    return (size_t)(h % reg->nbuckets);
}

static void index_entry(struct attach_registry *reg, size_t i)
{
    size_t b = bucket_of(reg, &reg->v[i]);
    reg->v[i].next = NONE;
    if (reg->head[b] == NONE)
        reg->head[b] = i;
    else
        reg->v[reg->tail[b]].next = i;
    reg->tail[b] = i;
}

/* Indexes the first n entries anew in twice as many buckets (at least 64). */
static void reindex(struct attach_registry *reg)
{
    free(reg->head);
    free(reg->tail);
    reg->nbuckets = reg->n * 2 > 64 ? reg->n * 2 : 64;
    reg->head = xmalloc(reg->nbuckets * sizeof(*reg->head));
    reg->tail = xmalloc(reg->nbuckets * sizeof(*reg->tail));
    for (size_t b = 0; b < reg->nbuckets; b++)
        reg->head[b] = reg->tail[b] = NONE;
    for (size_t i = 0; i < reg->n; i++)
        index_entry(reg, i);
}

struct attach_registry *attach_new(void)
{
    struct attach_registry *reg = xcalloc(1, sizeof(*reg));
    reg->strings = (struct arena)ARENA_INIT;
    return reg;
}

static void drop_from(struct attach_registry *reg, size_t from)
{
    reg->n = from;
    if (reg->nbuckets)
        reindex(reg); /* a file that failed: rare, and its entries are gone from the chains */
}

void attach_free(struct attach_registry *reg)
{
    if (!reg)
        return;
    drop_from(reg, 0);
    free(reg->v);
    free(reg->head);
    free(reg->tail);
    arena_release(&reg->strings);
    free(reg);
}

/* The resolved folder of path in the registry's arena, NULL for standard input or a path
 * that cannot be resolved. Resolved once per file: all of a job's entries share it. */
static const char *folder_of(struct attach_registry *reg, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup(".");
    char *real = realpath(dir, NULL);
    free(dir);
    const char *kept = real ? arena_strdup(&reg->strings, real) : NULL;
    free(real);
    return kept;
}

static void add(struct attach_registry *reg, const struct attach_entry *e)
{
    ALLOC_GROW(reg->v, reg->n, reg->a);
    reg->v[reg->n++] = *e;
    if (reg->n > reg->nbuckets)
        reindex(reg);
    else
        index_entry(reg, reg->n - 1);
}

/* The log kinds and the option naming each one's prefix. */
static const char *const log_kinds[][2] = {
    {"bw", "write_bw_log"},    {"iops", "write_iops_log"}, {"lat", "write_lat_log"},
    {"clat", "write_lat_log"}, {"slat", "write_lat_log"},  {"clat_hist", "write_hist_log"},
};

/* One entry per log kind the job could have written. */
static void add_job(struct attach_registry *reg, const char *path, const struct bench_record *r,
                    int64_t id)
{
    struct arena *a = &reg->strings;
    if (!r->job || !r->direction || record_tag_get(r, "part") || record_tag_get(r, "aggregate"))
        return;
    const char *dir = folder_of(reg, path);
    if (!dir)
        return;
    const char *job = arena_strdup(a, r->job), *direction = arena_strdup(a, r->direction);
    path = arena_strdup(a, path);
    for (size_t k = 0; k < ARRAY_SIZE(log_kinds); k++) {
        const char *prefix = record_tag_get(r, log_kinds[k][1]);
        struct attach_entry e = {dir,
                                 prefix ? arena_strdup(a, prefix) : job,
                                 log_kinds[k][0],
                                 direction,
                                 path,
                                 id,
                                 r->wl.numjobs,
                                 0,
                                 0,
                                 0,
                                 0,
                                 NONE};
        add(reg, &e);
    }
}

static void add_log(struct attach_registry *reg, const char *path, const struct bench_record *r,
                    int64_t id)
{
    struct arena *a = &reg->strings;
    const char *kind = record_tag_get(r, "log_kind");
    if (!r->job || !r->direction || !kind || !strcmp(kind, "unknown"))
        return;
    const char *dir = folder_of(reg, path);
    if (!dir)
        return;
    struct attach_entry e = {dir,
                             arena_strdup(a, r->job),
                             arena_strdup(a, kind),
                             arena_strdup(a, r->direction),
                             arena_strdup(a, path),
                             id,
                             WL_UNKNOWN,
                             1,
                             0,
                             0,
                             0,
                             NONE};
    add(reg, &e);
}

void attach_collect(struct attach_registry *reg, const char *path, const char *format,
                    const struct bench_record *r, int64_t result_id)
{
    if (!reg || result_id <= 0)
        return;
    if (!strcmp(format, "fio-json"))
        add_job(reg, path, r, result_id);
    else if (!strcmp(format, "fio-log"))
        add_log(reg, path, r, result_id);
}

static int together(const struct attach_entry *x, const struct attach_entry *y)
{
    return x->is_log != y->is_log && !y->paired && !strcmp(x->dir, y->dir) &&
           !strcmp(x->prefix, y->prefix) && !strcmp(x->kind, y->kind) &&
           !strcmp(x->direction, y->direction);
}

/* Pairs e with the earliest match stored before the current file: 0, or -1 when the database
 * failed. A job of several threads wrote one log per thread: none of them is its series. */
static int pair(struct attach_registry *reg, struct attach_entry *e, struct db *db, struct diag *d)
{
    for (size_t i = reg->head[bucket_of(reg, e)]; i != NONE && i < reg->first_new;
         i = reg->v[i].next) {
        struct attach_entry *o = &reg->v[i];
        if (!together(e, o))
            continue;
        struct attach_entry *log = e->is_log ? e : o, *job = e->is_log ? o : e;
        log->paired = 1;
        if (job->numjobs > 1) {
            diag_note(d,
                      "%s: not attached to job '%s' of '%s': it ran %lld threads, each with "
                      "a log of its own",
                      log->path, log->prefix, job->path, (long long)job->numjobs);
            return 0;
        }
        job->paired = 1;
        if (db_series_attach(db, log->result_id, job->result_id, d))
            return -1;
        log->attached = 1;
        return 0;
    }
    return 0;
}

int attach_file_end(struct attach_registry *reg, struct db *db, struct diag *d)
{
    if (!reg)
        return 0;
    for (size_t i = reg->first_new; i < reg->n; i++)
        if (!reg->v[i].paired && pair(reg, &reg->v[i], db, d))
            return -1;
    reg->first_new = reg->n;
    return 0;
}

void attach_file_drop(struct attach_registry *reg)
{
    /* pairs are made only once a file is complete, and a database failure after that stops
     * the import: only the file's own entries are left to forget */
    if (reg)
        drop_from(reg, reg->first_new);
}

int attach_file_awaits_class(struct attach_registry *reg, size_t n)
{
    size_t logs = 0;
    for (size_t i = reg ? reg->first_new : 0; reg && i < reg->n; i++)
        logs += reg->v[i].is_log;
    if (!n || logs != n)
        return 0;
    for (size_t i = reg->first_new; i < reg->n; i++)
        reg->v[i].awaits_class = 1;
    return 1;
}

size_t attach_unlabeled_alone(const struct attach_registry *reg)
{
    size_t files = 0;
    /* a file's entries are next to one another, with its path */
    for (size_t i = 0, end; reg && i < reg->n; i = end) {
        int alone = 0;
        for (end = i; end < reg->n && !strcmp(reg->v[end].path, reg->v[i].path); end++)
            alone |= reg->v[end].awaits_class && !reg->v[end].attached;
        files += alone;
    }
    return files;
}
