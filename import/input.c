/* input.c: reading an input whole (up to HELD_MAX_MIB) or as a stream of chunks, and choosing
 * the importer for it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "internal.h"

/* The default of stream_threshold(); the environment variable BENCHDB_STREAM_THRESHOLD
 * (bytes) sets it, for tests. */
#define STREAM_THRESHOLD ((int64_t)64 << 20)

int64_t stream_threshold(void)
{
    return scan_env_int64("BENCHDB_STREAM_THRESHOLD", STREAM_THRESHOLD);
}

int read_upto(FILE *f, struct buf *b, size_t max)
{
    buf_grow(b, max);
    b->len += fread(b->data + b->len, 1, max, f);
    b->data[b->len] = '\0';
    return ferror(f) ? -1 : 0;
}

int read_rest(FILE *f, struct buf *b)
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

int read_regular(int fd, size_t size, struct buf *b)
{
    const size_t max = (size_t)HELD_MAX_MIB << 20;
    size_t want = size + 1; /* one more, to see the end at once when the size held */
    for (;;) {
        buf_grow(b, want);
        ssize_t n = read(fd, b->data + b->len, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        b->len += (size_t)n;
        if (b->len > max)
            return 1;
        /* all of the size fstat gave, and not the byte more: the end, without a read of 0
         * bytes to say so (a system call per file) */
        if ((size_t)n < want && b->len == size)
            break;
        want = 64 << 10; /* the file grew: read on */
    }
    b->data[b->len] = '\0';
    return 0;
}

/* The chunks read are hashed as they are read and packed by a thread of their own, in order,
 * while the parser reads the next: a fio log of 1 GiB spends about 0.6 s of CPU in SHA-256,
 * 1 s in zstd and 1 s in its parse, which three threads share best on two CPUs. The packer's
 * queue holds STREAM_BUFFERS chunks, so that neither waits for the other's chunk unless it is
 * full. A chunk's buffer is read into again once its packed form is stored (by the calling
 * thread: the warehouse's connection is its own). */
struct pack_job {
    const char *data;
    size_t len;
    struct raw_packer *packer; /* one per job: its output lives until the job is stored */
    struct raw_blob packed;    /* data NULL: nothing to store */
};

struct chunk_packer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stop, started;
    uint64_t queued, packed, stored; /* chunks given to the thread, done by it, stored */
    struct pack_job job[STREAM_BUFFERS];
};

static void pack_job_run(struct pack_job *j)
{
    j->packed = raw_pack(&j->packer, NULL, j->data, j->len);
}

static void *pack_chunks(void *arg)
{
    struct chunk_packer *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->packed == p->queued && !p->stop)
            pthread_cond_wait(&p->changed, &p->lock);
        if (p->packed == p->queued)
            break;
        struct pack_job *j = &p->job[p->packed % STREAM_BUFFERS];
        pthread_mutex_unlock(&p->lock);
        pack_job_run(j);
        pthread_mutex_lock(&p->lock);
        p->packed++;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static struct chunk_packer *packer_get(struct import_stream *in)
{
    struct chunk_packer *p = in->packer;
    if (!p) {
        p = in->packer = xcalloc(1, sizeof(*p));
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->changed, NULL);
        p->started = pthread_create(&p->thread, NULL, pack_chunks, p) == 0;
    }
    return p;
}

/* Packs len bytes of data after the chunks queued before, on the thread, or here when it
 * cannot be started. */
static void pack_queue(struct import_stream *in, const char *data, size_t len)
{
    struct chunk_packer *p = packer_get(in);
    struct pack_job *j = &p->job[p->queued % STREAM_BUFFERS];
    j->data = data;
    j->len = len;
    if (!p->started) {
        pack_job_run(j);
        p->queued++;
        p->packed++;
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->queued++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

/* Waits until at most pending chunks are left to the thread, and stores the packed ones in
 * their order. 0 or -1. */
static int pack_wait(struct import_stream *in, uint64_t pending)
{
    struct chunk_packer *p = in->packer;
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    while (p->queued - p->packed > pending)
        pthread_cond_wait(&p->changed, &p->lock);
    uint64_t packed = p->packed;
    pthread_mutex_unlock(&p->lock);
    for (; p->stored < packed; p->stored++) {
        struct pack_job *j = &p->job[p->stored % STREAM_BUFFERS];
        if (j->packed.data && db_import_add_packed_chunk(in->di, &j->packed, j->len))
            return -1;
    }
    return 0;
}

int import_stream_drain(struct import_stream *in)
{
    return pack_wait(in, 0);
}

static int next_chunk(struct import_stream *s)
{
    /* the buffer read into now is the one of STREAM_BUFFERS chunks before */
    if (pack_wait(s, STREAM_BUFFERS - 1))
        return -1;
    s->chunk = s->buffer[s->chunks++ % STREAM_BUFFERS];
    size_t n =
        s->head->len - s->head_used < DB_CHUNK_BYTES ? s->head->len - s->head_used : DB_CHUNK_BYTES;
    memcpy(s->chunk, s->head->data + s->head_used, n);
    s->head_used += n;
    if (n < DB_CHUNK_BYTES)
        n += fread(s->chunk + n, 1, DB_CHUNK_BYTES - n, s->f);
    if (ferror(s->f))
        return diag_error(s->d, "cannot read '%s': %s", s->stream.path, strerror(errno));
    if (s->stop && atomic_load(s->stop))
        return diag_error(s->d, "'%s': stopped while being read, not stored", s->stream.path);
    s->len = n;
    s->served = 0;
    sha256_update(&s->sha, s->chunk, n);
    if (n && s->di)
        pack_queue(s, s->chunk, n);
    return 0;
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

void import_stream_init(struct import_stream *in, const char *name, FILE *f, const struct buf *head,
                        const atomic_int *stop, struct diag *d)
{
    *in = (struct import_stream){
        .stream = {name, stream_read, in}, .f = f, .head = head, .d = d, .stop = stop};
    for (int i = 0; i < STREAM_BUFFERS; i++)
        in->buffer[i] = xmalloc(DB_CHUNK_BYTES);
    sha256_init(&in->sha);
}

void import_stream_release(struct import_stream *in)
{
    struct chunk_packer *p = in->packer;
    if (p && p->started) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
    }
    if (p) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
        for (int i = 0; i < STREAM_BUFFERS; i++)
            raw_packer_free(p->job[i].packer);
        free(p);
    }
    for (int i = 0; i < STREAM_BUFFERS; i++)
        free(in->buffer[i]);
}

/* What src is when it is one of benchdb's own outputs, which a whole results folder often
 * holds beside the runs (a report written into it), with what to do instead; else NULL. Asked
 * only of a file no importer recognized. */
static const char *own_output(const struct source *src)
{
    static const struct {
        const char *start, *says;
    } own[] = {
        /* report/render_json.c's first line and key (docs/report.schema.json) */
        {"{\n  \"schema\": ",
         "a benchdb report (JSON), not benchmark output; import the results it was made from"},
        /* query/export.c's rows, JSON lines and CSV */
        {"{\"result_id\":", "results exported by 'benchdb export' (JSON lines), not benchmark "
                            "output; import the files they name, or combine warehouses with "
                            "'benchdb merge'"},
        {"result_id,source,sha256,format,",
         "results exported by 'benchdb export' (CSV), not benchmark output; import the files "
         "they name, or combine warehouses with 'benchdb merge'"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(own); i++)
        if (mem_starts(src->data, src->len, own[i].start))
            return own[i].says;
    return NULL;
}

const struct importer *import_choose(const struct import_options *o, const struct source *src,
                                     struct diag *d)
{
    if (o->format)
        return importer_find(o->format);
    /* a warehouse keeps its sources' bytes, in which an importer could find output */
    if (src->len >= 16 && !memcmp(src->data, "SQLite format 3", 16)) { /* with its NUL */
        diag_error_line(d, src, 1,
                        "a SQLite database (a benchdb warehouse?), not benchmark output; to "
                        "combine warehouses use 'benchdb merge'");
        return NULL;
    }
    struct buf tried = BUF_INIT;
    const struct importer *imp = importer_detect(src, &tried);
    const char *own = imp ? NULL : own_output(src);
    if (own)
        diag_error_line(d, src, 1, "%s", own);
    else if (!imp)
        diag_error_line(d, src, 1, "unrecognized format (tried %s)", tried.data);
    buf_release(&tried);
    return imp;
}
