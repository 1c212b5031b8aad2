/* identity.h (private to query/): what a workload is and what makes results repeats of one
 * another, the one definition every section of a report groups by (the comparison, the
 * percentiles, the scaling curves, the insights, the recommendations and trend).
 *
 * A workload is result_workload_key (rw, mix, block size, iodepth, numjobs, direct, sync,
 * fsync, direction). Results of one workload are repeats only when their context agrees too:
 * host, OS, label, mount options other than the compared one, tool major version, engine and
 * size. Where it does not, the workload is broken out by what differs ("[engine io_uring]"). */
#ifndef BDB_QUERY_IDENTITY_H
#define BDB_QUERY_IDENTITY_H

#include "../core/buf.h"
#include "results.h"

enum context_key { CX_HOST, CX_OS, CX_LABEL, CX_MOUNT, CX_TOOL, CX_ENGINE, CX_SIZE, N_CONTEXT };
/* "host", "OS", ..., as a broken-out workload's name says them. */
extern const char *const context_names[N_CONTEXT];

/* The value of context key k of r ("" unknown) into out (reset first); by is the compared key
 * (--by), whose own mount option is left out of the mount options. */
void context_value(struct buf *out, const struct side_result *r, enum context_key k,
                   const char *by);
/* The compared key is what differs on purpose: it is never a context of its own. */
int context_is_compared(enum context_key k, const char *by);
/* Every context value of r but the compared key's, '\x1f' apart, appended to out: results
 * with the same workload and this text are repeats of one another. */
void context_key(struct buf *out, const struct side_result *r, const char *by);
/* " [engine io_uring, OS RHEL 9]": the context keys in mask of r, as a workload's name ends;
 * the same keys and values, '|'-tagged, appended to key when key is not NULL. */
void context_label(struct buf *name, struct buf *key, const struct side_result *r, unsigned mask,
                   const char *by);
/* Whether a and b are one workload but for settings only one of them states ("direct unknown on
 * pmem"): then why they are not matched is appended to out, the side that leaves each setting
 * unknown named (an and bn). Such results are never matched (identity.c says why). */
int workload_unknown_only(struct buf *out, const struct side_result *a, const char *an,
                          const struct side_result *b, const char *bn);

#endif
