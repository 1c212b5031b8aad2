/* progress.h: a one-line status for long imports and repeated runs (done/total, results
 * stored, bytes read, rates), redrawn in place on standard error when it is a terminal, at most
 * ten times a second; silent otherwise. The last line stays when it ends. */
#ifndef BDB_PROGRESS_H
#define BDB_PROGRESS_H

#include <stddef.h>

#include "../core/diag.h"

struct progress {
    int on;           /* stderr is a terminal and there is more than one step */
    int drawn;        /* the status line is on the screen */
    const char *noun; /* what a step is: "files", "runs" */
    size_t total, done, results;
    int counts_results;  /* progress_results was called: the line shows them */
    double bytes;        /* read by the steps done (regular files only) */
    double start, shown; /* monotonic seconds */
};

/* Starts counting total steps called noun ("files"). */
void progress_start(struct progress *p, size_t total, const char *noun);
/* A diag emit (struct diag's) that erases the status line before each message, so that
 * messages start on a clean line; ctx is the struct progress. */
void progress_emit(void *ctx, enum diag_level level, const char *line);
/* Counts results stored (the line shows them from then on); p may be NULL. */
void progress_results(struct progress *p, size_t results);
/* One more step done, which read path (NULL or "-": nothing counted); redraws at most ten times
 * a second. */
void progress_step(struct progress *p, const char *path);
/* Draws the line now, after doing: "run 2/5" as a run starts. */
void progress_show(struct progress *p, const char *doing);
/* Draws the final line, which stays. */
void progress_end(struct progress *p);

#endif
