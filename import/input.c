/* input.c: reading an input whole (up to HELD_MAX_MIB) or as a stream of chunks, and choosing
 * the importer for it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/scan.h"
#include "../core/xalloc.h"
#include "internal.h"

/* The default of stream_threshold(); the environment variable BENCHDB_STREAM_THRESHOLD
 * (bytes) sets it, for tests. */
#define STREAM_THRESHOLD ((int64_t)64 << 20)

int64_t stream_threshold(void)
{
    const char *s = getenv("BENCHDB_STREAM_THRESHOLD");
    int64_t v;
    if (s && scan_int64(&s, &v) && !*s)
        return v;
    return STREAM_THRESHOLD;
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

void import_stream_init(struct import_stream *in, const char *name, FILE *f, const struct buf *head,
                        struct diag *d)
{
    *in = (struct import_stream){.stream = {name, stream_read, in},
                                 .f = f,
                                 .head = head,
                                 .chunk = xmalloc(DB_CHUNK_BYTES),
                                 .d = d};
    sha256_init(&in->sha);
}

void import_stream_release(struct import_stream *in)
{
    free(in->chunk);
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
    if (!imp)
        diag_error_line(d, src, 1, "unrecognized format (tried %s)", tried.data);
    buf_release(&tried);
    return imp;
}
