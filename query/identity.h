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

/* Whether a and b have the same fields that context key k's value is made of: then the values
 * are equal (the strings are interned: equal strings are one pointer). A million results are
 * mostly repeats of a few contexts, whose values need not be written out each. Unequal fields
 * may still make equal values (context_differs compares those). */
int context_fields_equal(const struct side_result *a, const struct side_result *b,
                         enum context_key k);
/* The context keys (bits of enum context_key) whose values differ between a and b, but the
 * compared key's and those in known (already found elsewhere); scratch: two buffers the caller
 * keeps across calls and releases. */
unsigned context_differs(const struct side_result *a, const struct side_result *b, unsigned known,
                         const char *by, struct buf scratch[2]);
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
