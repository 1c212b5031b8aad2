/* progress.c: the status line of progress.h. */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../report/report.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, size_t total, const char *noun)
{
    *p = (struct progress){.on = total > 1 && isatty(STDERR_FILENO), .noun = noun, .total = total};
    p->start = p->shown = now_s();
}

static void clear(struct progress *p)
{
    if (p->drawn)
        fputs("\r\033[K", stderr);
    p->drawn = 0;
}

void progress_emit(void *ctx, enum diag_level level, const char *line)
{
    (void)level;
    clear(ctx);
    fprintf(stderr, "%s\n", line);
}

void progress_results(struct progress *p, size_t results)
{
    if (p) {
        p->results += results;
        p->counts_results = 1;
    }
}

/* "12/200 files, 340 results, 1.20 MiB, 61.0 files/s, 612 KiB/s" (results once counted, bytes
 * when steps read files), after doing ("run 2/5") when given. */
static void draw(struct progress *p, double t, const char *doing)
{
    double secs = t - p->start > 1e-3 ? t - p->start : 1e-3;
    struct buf line = BUF_INIT;
    buf_addf(&line, "\r\033[K%s%s%zu/%zu %s", doing ? doing : "", doing ? ": " : "", p->done,
             p->total, p->noun);
    if (p->counts_results)
        buf_addf(&line, ", %zu result%s", p->results, p->results == 1 ? "" : "s");
    if (p->bytes > 0) {
        buf_adds(&line, ", ");
        unit_format(&line, p->bytes, UNIT_BYTES);
    }
    buf_addf(&line, ", %.1f %s/s", (double)p->done / secs, p->noun);
    if (p->bytes > 0) {
        buf_adds(&line, ", ");
        unit_format(&line, p->bytes / secs, UNIT_BYTES_S);
    }
    fputs(line.data, stderr);
    fflush(stderr);
    buf_release(&line);
    p->drawn = 1;
    p->shown = t;
}

void progress_step(struct progress *p, const char *path)
{
    struct stat st;
    p->done++;
    /* the bytes are only shown: no stat per file when the line is off (not a terminal) */
    if (p->on && path && strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        p->bytes += (double)st.st_size;
    double t = now_s();
    if (p->on && t - p->shown >= 0.1)
        draw(p, t, NULL);
}

void progress_show(struct progress *p, const char *doing)
{
    if (p->on)
        draw(p, now_s(), doing);
}

void progress_end(struct progress *p)
{
    if (!p->on)
        return;
    draw(p, now_s(), NULL);
    fputc('\n', stderr);
    p->drawn = 0;
}
