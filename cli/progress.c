#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, size_t files)
{
    *p = (struct progress){.on = files > 1 && isatty(STDERR_FILENO), .files = files};
    p->start = p->shown = now_s();
}

void progress_clear(struct progress *p)
{
    if (p->drawn)
        fputs("\r\033[K", stderr);
    p->drawn = 0;
}

void progress_results(struct progress *p, size_t results)
{
    if (p)
        p->results += results;
}

void progress_file(struct progress *p)
{
    p->done++;
    double t = now_s();
    if (!p->on || (t - p->shown < 0.1 && p->done < p->files))
        return;
    double secs = t - p->start > 1e-3 ? t - p->start : 1e-3;
    fprintf(stderr, "\r\033[K%zu/%zu files, %zu results, %.0f files/s", p->done, p->files,
            p->results, (double)p->done / secs);
    p->drawn = 1;
    p->shown = t;
}

void progress_end(struct progress *p)
{
    progress_clear(p);
}
