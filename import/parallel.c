/* parallel.c: worker threads that read, detect and parse files ahead of the writer. A worker
 * touches no database and prints nothing: records (copied into the file's arena) and
 * diagnostic lines are kept in order for the writer to replay (session.c). At most
 * SLOTS_PER_JOB * jobs files, and HELD_MAX_MIB of their bytes, are held, each in its slot:
 * file i in slot i % n_slots. */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "internal.h"

/* Files held per worker. Each handoff that has to wait costs a futex sleep and wake-up (tens
 * of microseconds in a VM, as much as parsing a small file): room for many files, and workers
 * woken only once half the slots are free, make those waits rare. */
enum { SLOTS_PER_JOB = 16 };

struct workers {
    pthread_mutex_t lock;
    pthread_cond_t ready; /* a slot was filled */
    pthread_cond_t room;  /* the writer freed a slot, or stop */
    pthread_t *threads;
    unsigned n_threads;
    struct parsed *slots;
    size_t n_slots;
    size_t next;  /* the next file a worker takes */
    size_t taken; /* files the writer is done with */
    size_t held;  /* bytes read into slots not yet taken */
    int waiting;  /* workers waiting for room */
    int stop;
    const struct import_options *o;
    const struct raw_dicts *dicts; /* the warehouse's compression dictionaries */
    int dicts_given;
    int verbose;
    char *const *paths;
    size_t n;
};

static void add_event(struct parsed *p, const struct bench_record *rec, enum diag_level level,
                      const char *line)
{
    ALLOC_GROW(p->ev, p->n_ev + 1, p->a_ev);
    p->ev[p->n_ev++] = (struct parsed_event){rec, level, line};
}

static void keep_line(void *ctx, enum diag_level level, const char *line)
{
    struct parsed *p = ctx;
    add_event(p, NULL, level, arena_strdup(&p->a, line));
}

static const char *own(struct arena *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

/* A copy of r that depends on nothing the importer frees or reuses once the file is parsed:
 * record_copy shares the strings and the series, and an importer may point them into its
 * own temporary memory (iperf3's strings live in the parsed JSON tree). */
static struct bench_record *record_own(struct arena *a, const struct bench_record *r)
{
    struct bench_record *c = record_copy(a, r);
    const char **strings[] = {&c->tool,  &c->tool_version, &c->host,        &c->peer,
                              &c->job,   &c->direction,    &c->error_msg,   &c->storage_class,
                              &c->mount, &c->sec,          &c->bins_metric, &c->series_metric,
                              &c->wl.rw, &c->wl.ioengine};
    for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
        *strings[i] = own(a, *strings[i]);
    for (size_t i = 0; i < c->n_metrics; i++)
        c->metrics[i].name = own(a, c->metrics[i].name);
    for (size_t i = 0; i < c->n_tags; i++)
        c->tags[i] = (struct kv){own(a, c->tags[i].key), own(a, c->tags[i].value)};
    if (c->n_series) {
        c->series = arena_alloc(a, c->n_series * sizeof(*c->series));
        memcpy(c->series, r->series, c->n_series * sizeof(*c->series));
        c->a_series = c->n_series;
    }
    return c;
}

/* Records are borrowed by the sink: what the writer replays is a copy of its own. */
static int keep_record(void *ctx, const struct bench_record *r)
{
    struct parsed *p = ctx;
    add_event(p, record_own(&p->a, r), DIAG_NOTE, NULL);
    return 0;
}

/* Reads path whole into p when the writer would: a regular file that cannot stream;
 * anything else (or a failure, reported by the writer) stays PARSED_SERIAL. One stat, open
 * and read (stdio made twice the system calls). A FIFO is not opened here: opening it lets
 * the open of the program writing into it return, and closing it then ends that program's
 * writes with EPIPE before the storing thread opens it to read. O_NONBLOCK for a path that
 * became a FIFO since the stat. */
static int read_whole(struct parsed *p, const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode) ||
        st.st_size > stream_threshold())
        return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = read_regular(fd, (size_t)st.st_size, &p->data);
    close(fd);
    p->src = (struct source){path, p->data.data, p->data.len};
    return rc ? -1 : 0;
}

/* The hash and stored form of a file the writer will store, with the packer of this worker;
 * the writer packs a file over DB_CHUNK_BYTES, and one parsed before it gave the dictionaries
 * (have_dicts 0: while it opens the warehouse). */
static void prepare_bytes(struct parsed *p, struct raw_packer **packer, int have_dicts,
                          const struct raw_dicts *dicts)
{
    sha256_hex(p->src.data, p->src.len, p->pre.sha);
    p->pre.raw = (struct raw_blob){NULL, 0, NULL, 0};
    if (!have_dicts || p->src.len > DB_CHUNK_BYTES)
        return;
    struct raw_blob b =
        raw_pack(packer, raw_dict_find(dicts, p->imp->name), p->src.data, p->src.len);
    if (b.data != p->src.data) {
        /* the packer's output is overwritten by the next file: the slot keeps a copy */
        buf_add(&p->packed, b.data, b.len);
        b.data = p->packed.data;
    }
    p->pre.raw = b;
}

/* 1 once the writer has given the dictionaries to pack with (then in *dicts). */
static int dicts_given(struct workers *w, const struct raw_dicts **dicts)
{
    pthread_mutex_lock(&w->lock);
    int given = w->dicts_given;
    *dicts = w->dicts;
    pthread_mutex_unlock(&w->lock);
    return given;
}

/* What the writer's import of a whole file does before its transaction, then the parse. */
static void parse_ahead(struct workers *w, struct parsed *p, const char *path,
                        struct sidecar_dir *sidecars)
{
    struct diag d = {keep_line, p, 0, 0, w->verbose};
    p->state = PARSED_SERIAL;
    if (read_whole(p, path))
        return;
    p->state = PARSED_REJECTED;
    p->rc = -1;
    if (p->src.len == 0) {
        diag_error_line(&d, &p->src, 1, "empty file: no benchmark output to import");
        return;
    }
    if (!(p->imp = import_choose(w->o, &p->src, &d)))
        return;
    if (sidecar_load(path, sidecars, &p->sc, &d)) {
        sidecar_release(&p->sc);
        return;
    }
    struct record_sink sink = {keep_record, p};
    p->rc = p->imp->parse(&p->src, &p->a, &sink, &d);
    p->state = PARSED_DONE;
}

/* A slot's buffer up to this size is kept for its next file: allocating a fresh one per file
 * in a worker thread cost page faults and heap trims (a fifth of a parallel import's time). */
#define KEPT_BUFFER_BYTES (4 << 20)

/* Frees what the slot holds but its ready flag (which only the lock's holders touch) and its
 * buffer's room; called by the worker that fills the slot next, so that the memory is freed by
 * the thread that allocates, not by the writer. */
static void parsed_clear(struct parsed *p)
{
    if (p->state == PARSED_DONE)
        sidecar_release(&p->sc);
    free(p->ev);
    arena_release(&p->a);
    if (p->data.cap > KEPT_BUFFER_BYTES)
        buf_release(&p->data);
    buf_reset(&p->data);
    buf_reset(&p->packed);
    p->state = PARSED_SERIAL;
    p->rc = 0;
    p->src = (struct source){0};
    p->imp = NULL;
    p->sc = (struct sidecar){0};
    p->ev = NULL;
    p->n_ev = p->a_ev = 0;
    p->a.pool = &p->pool;
}

/* The next file to parse, waiting while its slot is held; -1 when there is none. */
static long claim(struct workers *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->stop && w->next < w->n &&
           (w->next >= w->taken + w->n_slots ||
            (w->next > w->taken && w->held > ((size_t)HELD_MAX_MIB << 20)))) {
        w->waiting++;
        pthread_cond_wait(&w->room, &w->lock);
        w->waiting--;
    }
    long i = w->stop || w->next >= w->n ? -1 : (long)w->next++;
    pthread_mutex_unlock(&w->lock);
    return i;
}

/* A worker does not preempt the writer when it wakes up. The writer is the import's one serial
 * stage, and on 2 CPUs it spent a third of its time runnable but waiting behind the workers
 * (/proc/thread-self/schedstat: 0.22 s of 0.6 s); SCHED_BATCH, which any thread may take,
 * disfavors a thread at wake-up only, not in its share of the CPU. A failure costs only that. */
static void defer_to_writer(void)
{
#ifdef SCHED_BATCH
    struct sched_param none = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
#endif
}

static void *work(void *arg)
{
    struct workers *w = arg;
    struct raw_packer *packer = NULL;
    struct sidecar_dir sidecars = {0};
    const struct raw_dicts *dicts = NULL;
    int have_dicts = 0;
    long i;
    defer_to_writer();
    while ((i = claim(w)) >= 0) {
        struct parsed *p = &w->slots[(size_t)i % w->n_slots];
        parsed_clear(p);
        parse_ahead(w, p, w->paths[i], &sidecars);
        /* then what the writer's store would do first with the bytes of a file parsed
         * without error */
        if (p->state == PARSED_DONE && p->rc == 0) {
            have_dicts = have_dicts || dicts_given(w, &dicts);
            prepare_bytes(p, &packer, have_dicts, dicts);
        }
        pthread_mutex_lock(&w->lock);
        p->ready = 1;
        w->held += p->data.len;
        pthread_cond_broadcast(&w->ready);
        pthread_mutex_unlock(&w->lock);
    }
    raw_packer_free(packer);
    sidecar_dir_release(&sidecars);
    return NULL;
}

struct workers *workers_start(const struct import_options *o, int verbose, char *const *paths,
                              size_t n)
{
    struct workers *w = xcalloc(1, sizeof(*w));
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->ready, NULL);
    pthread_cond_init(&w->room, NULL);
    w->o = o;
    w->verbose = verbose;
    w->paths = paths;
    w->n = n;
    w->n_slots = SLOTS_PER_JOB * (size_t)o->jobs;
    w->slots = xcalloc(w->n_slots, sizeof(*w->slots));
    for (size_t k = 0; k < w->n_slots; k++) {
        buf_init(&w->slots[k].data);
        buf_init(&w->slots[k].packed);
    }
    w->threads = xcalloc(o->jobs, sizeof(*w->threads));
    for (unsigned t = 0; t < o->jobs; t++)
        if (pthread_create(&w->threads[w->n_threads], NULL, work, w) == 0)
            w->n_threads++;
    return w;
}

struct parsed *workers_take(struct workers *w, size_t i)
{
    struct parsed *p = &w->slots[i % w->n_slots];
    pthread_mutex_lock(&w->lock);
    /* no thread started: the writer imports every file itself */
    while (w->n_threads && !p->ready)
        pthread_cond_wait(&w->ready, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->n_threads ? p : NULL;
}

void workers_give_dicts(struct workers *w, const struct raw_dicts *dicts)
{
    pthread_mutex_lock(&w->lock);
    w->dicts = dicts;
    w->dicts_given = 1;
    pthread_mutex_unlock(&w->lock);
}

void workers_done(struct workers *w, struct parsed *p)
{
    pthread_mutex_lock(&w->lock);
    p->ready = 0; /* cleared by the worker that fills it next (parsed_clear) */
    w->taken++;
    w->held -= p->data.len;
    if (w->waiting && w->next - w->taken <= w->n_slots / 2)
        pthread_cond_broadcast(&w->room);
    pthread_mutex_unlock(&w->lock);
}

void workers_stop(struct workers *w)
{
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_broadcast(&w->room);
    pthread_mutex_unlock(&w->lock);
    for (unsigned t = 0; t < w->n_threads; t++)
        pthread_join(w->threads[t], NULL);
    for (size_t k = 0; k < w->n_slots; k++) {
        parsed_clear(&w->slots[k]);
        buf_release(&w->slots[k].data);
        buf_release(&w->slots[k].packed);
        arena_pool_release(&w->slots[k].pool);
    }
    pthread_cond_destroy(&w->ready);
    pthread_cond_destroy(&w->room);
    pthread_mutex_destroy(&w->lock);
    free(w->slots);
    free(w->threads);
    free(w);
}
