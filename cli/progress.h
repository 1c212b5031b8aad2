/* progress.h: a one-line status (files done, results, rate) for long imports, redrawn on
 * standard error when it is a terminal; silent otherwise. */
#ifndef BDB_PROGRESS_H
#define BDB_PROGRESS_H

#include <stddef.h>

struct progress {
    int on;    /* stderr is a terminal and there is more than one file */
    int drawn; /* the status line is on the screen */
    size_t files, done, results;
    double start, shown; /* monotonic seconds */
};

void progress_start(struct progress *p, size_t files);
/* Erases the status line, so that other messages start on a clean line. */
void progress_clear(struct progress *p);
/* Counts results stored; p may be NULL (imports that show no progress). */
void progress_results(struct progress *p, size_t results);
/* One more file done; redraws at most ten times a second. */
void progress_file(struct progress *p);
void progress_end(struct progress *p);

#endif
