/* results.h (private to query/): the results of the compared sides, loaded once with their
 * workload and main metrics, for the comparison, the insights and the recommendations. */
#ifndef BDB_QUERY_RESULTS_H
#define BDB_QUERY_RESULTS_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/buf.h"
#include "compare.h"

enum result_metric {
    RM_BW,
    RM_IOPS,
    RM_LAT_MEAN, /* clat_mean_ns, else lat_mean_ns */
    RM_P99,      /* clat_p99_ns, else lat_p99_ns */
    RM_P50,      /* clat_p50_ns, else lat_p50_ns */
    RM_RUNTIME,
    RM_LAT_TOTAL, /* lat_mean_ns, else clat_mean_ns (Little's law) */
    RM_SYNC_MEAN, /* sync_lat_mean_ns: fsync/fdatasync latency */
    RM_SYNC_P99,  /* sync_lat_p99_ns */
    RM_SYNC_P50,  /* sync_lat_p50_ns */
    RM_SLAT_MEAN, /* slat_mean_ns: submission latency, part of lat */
    RM_LAT_P99,   /* lat_p99_ns: total latency's p99 (fio's lat_percentiles=1) */
    RM_COUNT
};

/* Why a result is not taken at face value (set by query_flag_suspects in insights.c). */
enum suspect {
    SUSPECT_CACHED = 1 << 0,      /* a cache probably answered (buffered, above the link, ...) */
    SUSPECT_SHORT = 1 << 1,       /* ran for less than MIN_RUNTIME_MS */
    SUSPECT_TRANSCRIBED = 1 << 2, /* typed by hand without the workload's context */
    SUSPECT_IMPOSSIBLE = 1 << 3,  /* numbers that cannot all be true (Little's law) */
    SUSPECT_UNSTEADY = 1 << 4,    /* its time series (or fio's ss=) did not reach steady state */
};

struct side_result {
    size_t side; /* index into compare_opts.values */
    int64_t id;
    const char *source, *host, *job, *rw, *direction, *tool, *error_msg;
    /* context: what must agree for two results to be repeats of one another */
    const char *tool_version, *ioengine, *mount, *fstype, *os, *label; /* NULL unknown */
    const char *protocol; /* network tests: tcp or udp; NULL unknown */
    const char *sec;      /* NFS security flavor; NULL unknown */
    const char *range;    /* tag range: a value its author typed as a range ("13-15ms"), stored
                           * as its midpoint (notes); result_typed_range reads it */
    /* result_workload_key's text, interned when loaded: the results of one workload share
     * the pointer, so grouping a million results compares pointers */
    const char *workload;
    /* set by the comparison (identity.h), interned: the context values but the compared key's
     * (repeats share it), and the workload as the comparison groups it, broken out by the
     * context its repeats disagree on, with its name ("Random Read 4K [engine io_uring]");
     * every section groups by these. NULL: not grouped (unusable, or no workload known) */
    const char *context, *group, *group_name;
    int line;
    int64_t bs, iodepth, numjobs, direct, sync, fsync, fdatasync, rwmixread; /* -1 unknown */
    int64_t size;                                                            /* bytes, -1 unknown */
    int64_t started_at; /* Unix seconds, 0 unknown */
    int error;
    int aggregate;      /* fio's "All clients" sum of a client/server run */
    int part;           /* a thread or client of a job result stored beside it: never compared */
    int transcribed;    /* typed by a person (notes) */
    int stated_cached;  /* tag cached (not 0/no/false): its author says a cache answered */
    int p99_untimed;    /* submission dominates and fio gave no total p99: m[RM_P99] unknown */
    int nfs_export;     /* tag nfs_export: the text names the NFS export it ran on */
    int engine_default; /* tag fio_defaults names ioengine: fio's default, not typed */
    unsigned suspect;   /* enum suspect bits */
    unsigned derived;   /* bit (1 << RM_x): m[x] computed from other metrics, not measured */
    double m[RM_COUNT]; /* NAN when absent */
};

/* Every result of the compared sides that passes the filters, ordered by source file and line.
 * Loaded once per report and shared by the comparison, the insights and the recommendations;
 * repeated strings (paths, job names) are stored once. */
struct side_results {
    struct side_result *v;
    size_t n, a;
    struct arena strings;
    struct intern *intern;
    struct id_map *by_id; /* side_results_find's */
};

int query_side_results(struct db *db, const struct compare_opts *o, struct side_results *out,
                       struct diag *d);
/* s stored once in res: equal texts get one pointer, alive as long as res. */
const char *side_results_intern(struct side_results *res, const char *s);
void side_results_release(struct side_results *res);
/* The index in res->v of the result with id, or -1: for rows read by result_id. */
long side_results_find(const struct side_results *res, int64_t id);

/* Whether the appendix (appendix.c) reads the stored metric name (query_reads_metric). */
int appendix_reads_metric(const char *name);

/* A sync-write test: a write (or the write half of a mix) with fsync/fdatasync or O_SYNC.
 * Reads are never sync writes, whatever sync= says. */
int result_is_sync(const struct side_result *r);
/* Mounted with the sync option (ext4's, XFS's, NFS's `sync`; the stored options are canonical,
 * so an `async` after it is gone): every write() waits for stable storage (NFS: the server's,
 * which is stable only if it exports `sync`), whatever the job asked for. */
int result_mount_is_sync(const struct side_result *r);
/* fsync=N or fdatasync=N: the writes each flush follows; 0 for a job without them. */
int64_t result_writes_per_flush(const struct side_result *r);
/* A write whose write() call itself waits for stable storage: O_SYNC (sync=1) or a sync
 * mount. An fsync after it finds little left to flush. */
int result_write_waits(const struct side_result *r);
/* "iperf3 TCP, 4 streams": a network test as a network engineer names it (streams <= 0:
 * unknown, not named). */
void network_test_label(struct buf *out, const char *tool, const char *protocol, int64_t streams);
/* An iperf/iperf3 network test. */
int result_is_network(const struct side_result *r);
/* fio's synchronous engines (sync, psync, vsync, pvsync, pvsync2): one I/O in flight per job,
 * whatever iodepth says. */
int result_engine_is_sync(const struct side_result *r);
/* One direction of a mixed job (rw, randrw): its queue is shared with the other direction. */
int result_is_mixed(const struct side_result *r);
/* The result is on a network filesystem (nfs, nfs4, cifs, smb3, ceph, glusterfs, fuse.*). */
int result_is_network_fs(const struct side_result *r);
/* Submission latency above completion latency (and above a microsecond of bookkeeping): the
 * I/O happened inside the submit call (io_submit with O_DIRECT silently ignored, as on ext4
 * data=journal; or a saturated submission path), so completion latency alone flatters it. */
int result_submission_dominates(const struct side_result *r);
/* Whether r's value of m was typed as a range (tag range, "13-15ms": stored as its midpoint,
 * which m's value is); if so and out is not NULL, the range as a person reads it ("13-15 ms")
 * is appended to out. A typed range is never shown as its midpoint alone. */
int result_typed_range(const struct side_result *r, enum result_metric m, struct buf *out);
/* The result can be compared: not failed, not a part of another result. */
int result_usable(const struct side_result *r);
/* Every result's value of the stored metric `name` into out[0..res->n-1] (NAN when absent). */
int query_metric_values(struct db *db, const struct side_results *res, const char *name,
                        double *out, struct diag *d);
/* The workload r is grouped in (its group, else its workload): one pointer per group. */
const char *result_group(const struct side_result *r);
/* r's group's name ("Random Read 4K QD16 [engine libaio]"), else its workload's, appended. */
void result_group_name(struct buf *out, const struct side_result *r);
/* "Random Read 4K QD32", "Sequential Write 1M sync" ... */
void result_workload_name(struct buf *out, const struct side_result *r);
/* The identity results are matched on (rw, bs, iodepth, numjobs, direct, sync, direction):
 * r->workload, appended. */
void result_workload_key(struct buf *out, const struct side_result *r);

/* A statement's parameters, collected as its SQL is written and bound in order. */
struct binds {
    const char **v;
    size_t n, a;
};
void add_bind(struct binds *b, const char *s);
/* Appends " AND KEY = ?" for each --where filter over result r (run, source s and mount m
 * joined), its parameters to b ("bs=4k" as bytes, from a); 0, or -1 after "unknown --where
 * key". */
int query_where_sql(const struct kv *where, size_t n, struct arena *a, struct buf *sql,
                    struct binds *b, struct diag *d);
/* Appends " FROM result r ... WHERE ..." (run, source s and mount m joined) that selects the
 * results a comparison loads: the compared sides' that pass the --where filters and were
 * started within the dates; its parameters to b. in_order: read the result table in its order,
 * no index (when most of it is selected). 0, or -1 after a message. */
int query_selection_sql(const struct compare_opts *o, int in_order, struct arena *a,
                        struct buf *sql, struct binds *b, struct diag *d);

/* The condition on result r (run joined) of the network tests a report reads whatever it
 * compares: each host's fastest is the link its storage results are held against (suspect.c). */
#define QUERY_LINKS_WHERE                                                                          \
    "run.tool IN ('iperf', 'iperf3') AND r.host IS NOT NULL AND r.error = 0 AND r.bw_bytes_s IS "  \
    "NOT NULL"

#endif
