/* insights.h: suspect results, findings and tier recommendations added to a comparison
 * report. Private to query/. */
#ifndef BDB_INSIGHTS_H
#define BDB_INSIGHTS_H

#include <stdint.h>

#include "../core/arena.h"
#include "compare.h"
#include "series.h"

struct side_result;
struct side_results;

/* ---- suspect results (suspect.c) ---- */

/* Runs shorter than this are too short to trust (caches, ramp-up, timer resolution). */
extern const double MIN_RUNTIME_MS;
/* A random read answered faster than this by a disk or network filesystem came from memory. */
extern const double MIN_DEVICE_IO_NS;
extern const double PLAUSIBLE_LINK_BITS;
/* The fewest bits one I/O puts on an Ethernet link: a minimum frame with its overhead. */
extern const double ETHERNET_FRAME_BITS;
/* Little's law may be exceeded by this factor before the numbers are called impossible. */
extern const double LITTLE_TOLERANCE;

/* The fastest network test (iperf/iperf3) measured for a host. */
struct link {
    const char *host, *source, *label; /* label: "iperf3 TCP, 4 streams" */
    int line;
    double bits_s;
};

struct links {
    struct link *v;
    size_t n, a;
    struct arena strings;
};

const struct link *link_of(const struct links *l, const char *host);

/* The result is on a network filesystem: its own mount, or (fstype unknown) its class's. */
int result_on_network(const struct side_result *r, const unsigned char *net_sides);

/* Buffered (direct=0) random I/O, or a buffered sequential write without fsync/fdatasync/O_SYNC
 * (fio's end_fsync is not stored, so a final flush cannot be seen). */
int suspect_buffered(const struct side_result *r);
/* A result's latency: the mean of the total (submission + completion: what the I/O took),
 * else of the completion latency, else its median (typed notes give one). */
double io_latency(const struct side_result *r);
/* Random I/O (not an fsync job's writes) below MIN_DEVICE_IO_NS on anything but a memory
 * filesystem (tmpfs, ramfs): a disk, a network filesystem, or storage of unrecorded type. */
int suspect_below_device(const struct side_result *r);
/* An fsync job whose flush waited less than MIN_DEVICE_IO_NS in all (flush_wait), on a
 * filesystem known not to live in memory: no device wrote for it. */
int suspect_fsync_noop(const struct side_result *r);
/* What one flush of an fsync job waited for (ns): the fsync's median (else its mean), plus the
 * N writes' before it where the write() itself went to the device (O_DIRECT, O_SYNC, a sync
 * mount), their median each (else their mean); an O_SYNC job without fsync: its write's. NAN:
 * not known. */
double flush_wait(const struct side_result *r);
/* A network-filesystem result above its host's link: bit/s (1), or IOPS above the link's packet
 * rate (2); 0 when neither. */
int suspect_above_link(const struct side_result *r, const struct link *l);
/* One I/O faster than any link it could cross: block size / latency (io_latency) above the
 * host's measured link, else above PLAUSIBLE_LINK_BITS (1 MiB in 49 µs is 171 Gbit/s). For
 * network-filesystem results only (the caller checks). */
int suspect_io_above_link(const struct side_result *r, const struct link *l);
/* Little's law: 1 when in-flight I/Os (IOPS x mean total latency) and their bound (iodepth x
 * numjobs, one per job for synchronous engines) can be computed. */
int little_in_flight(const struct side_result *r, double *in_flight, double *bound);
/* Typed by a person without the workload (no rw or no block size). */
int suspect_transcribed(const struct side_result *r);

/* What the suspicion rules read besides a result itself, loaded once per report for the
 * flags and the insights: each host's fastest link and which compared values are on a network
 * filesystem. */
struct suspect_basis {
    struct links links;
    unsigned char *net;            /* network_sides() */
    struct series_verdict *series; /* per result: steady state and cliff (series.h) */
    struct arena strings;
};
int suspect_basis_load(struct db *db, const struct compare_opts *o, const struct side_results *res,
                       struct suspect_basis *out, struct diag *d);
void suspect_basis_release(struct suspect_basis *b);

/* Sets res->v[i].suspect (enum suspect): cached, short, transcribed without context,
 * impossible, not steady. Called before the comparison, the insights and the recommendations. */
void query_flag_suspects(const struct suspect_basis *b, struct side_results *res);

/* ---- findings (insights.c) ---- */

/* p99 above this multiple of the median is "tail latency far from the median". */
extern const double TAIL_RATIO;
/* Repeats whose coefficient of variation exceeds this disagree too much to average. */
extern const double MAX_CV;

/* Cache effects, impossible numbers, synchronous engines, tail latency, failed jobs, short
 * runs, disagreeing repeats, sync writes and network storage against its link, each with its
 * evidence. */
void query_insights(const struct compare_opts *o, const struct side_results *res,
                    const struct suspect_basis *b, struct report *r);

/* ---- recommendations (recommend.c) ---- */

/* Whether the recommendations of the rules text read the stored metric name: a superset,
 * every metric the text names as a word (query_reads_metric). */
int recommend_reads_metric(const char *rules, const char *name);

/* Tier recommendations per workload class from a rules text (templates/tiers.rules format);
 * rules_path names it in error messages. Rules may name any metric stored in db. */
int query_recommend(struct db *db, const struct compare_opts *o, const struct side_results *res,
                    const char *rules_path, const char *rules, struct report *r, struct diag *d);

#endif
