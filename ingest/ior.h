/* ior.h (private to ingest/): what IOR's text output (ior.c) and its JSON summary (ior_json.c)
 * share: a test's settings, one iteration's row, and the record both make of them, so that the
 * two formats of one run give the same records (docs/formats.md 16). */
#ifndef BDB_IOR_H
#define BDB_IOR_H

#include "importer.h"

/* One test of an IOR run (a command line, or each RUN of a -f script). */
struct ior_test {
    const char *version; /* "IOR-4.1.0+dev" */
    const char *host;    /* the nodename of 'Machine', NULL unknown */
    const char *api;     /* "POSIX", "MPIIO", ... */
    const char *access;  /* "single-shared-file" or "file-per-process", NULL unknown */
    const char *type;    /* "independent" or "collective", NULL unknown */
    int64_t id, tasks, xfer, block, segments, reps; /* WL_UNKNOWN until read */
    int random;                                     /* ordering in a file: 0/1, WL_UNKNOWN */
    /* From the command line (ior_command_line): 0/1, or WL_UNKNOWN when a -f script holds the
     * settings instead */
    int direct, fsync_end, fsync_write;
};

/* One row of a test's results: one iteration of one access. A value below 0 is unknown. */
struct ior_iter {
    int write;
    int64_t iter;
    double bw_mib, iops, lat_s, open_s, wrrd_s, close_s, total_s;
    unsigned line_first, line_last;
};

void ior_test_init(struct ior_test *t);
/* Sets t's direct, fsync_end and fsync_write from IOR's command line as it prints it. */
void ior_command_line(struct ior_test *t, const char *cmd);
/* Emits the record of one iteration of test t through out (its return value). */
int ior_emit(struct arena *a, struct record_sink *out, const struct ior_test *t,
             const struct ior_iter *it, unsigned run_no);

#endif
