/* record.h: the normalized record every importer emits: one result of one job in one
 * direction, with its workload, its context as far as the content tells it, and its
 * metrics in base units (bytes, bytes/s, IOPS, ns, ms). Importers know no SQL. */
#ifndef BDB_RECORD_H
#define BDB_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

/* Metric names are the export field names (see docs/export.md): bw_bytes_s, iops,
 * io_bytes, runtime_ms, clat_mean_ns, clat_p99_ns, ... Values are in the base unit the
 * suffix names; a metric that is unknown is simply absent (never 0). */
struct metric {
    const char *name;
    double value;
    uint64_t hash; /* str_hash(name): record_metric compares it before the names */
};

struct kv {
    const char *key, *value;
};

/* One bucket of a latency histogram (fio json+ `bins`, or a decoded hist log). */
struct hist_bin {
    double value_ns;
    double count;
};

/* One point of a time series (fio bw/iops/lat logs), t in ms since job start. */
struct series_point {
    double t_ms, value;
};

/* Stored with every imported file; bump when an importer changes what it derives. */
#define BENCHDB_IMPORTER_VERSION "2"

#define WL_UNKNOWN (-1)

struct workload {
    const char *rw;       /* fio rw= value (read, randwrite, randrw, ...); NULL unknown */
    const char *ioengine; /* NULL unknown */
    int64_t bs_bytes, iodepth, numjobs, size_bytes, rwmixread, runtime_s; /* WL_UNKNOWN */
    int direct, sync, fsync, fdatasync; /* 0/1 or WL_UNKNOWN; fsync/fdatasync = every N writes */
};

struct bench_record {
    const char *tool;         /* fio, dd, iperf, iperf3, bonnie++ */
    const char *tool_version; /* as printed: "fio-3.33", "iperf 3.9", ... ; NULL unknown */
    const char *host;         /* host the benchmark ran on, from the content; NULL unknown */
    const char *peer;         /* the other endpoint for network tests */
    const char *job;
    const char *direction; /* read write trim mixed | send receive */
    int64_t started_at;    /* Unix seconds; 0 unknown */
    struct workload wl;
    int error; /* tool-reported error code, 0 = none */
    const char *error_msg;
    unsigned line_first, line_last; /* where in the source the result was found; 0 unknown */
    int transcribed;                /* typed by a person (notes), not printed by a tool */
    /* context the content itself gives (notes, sidecars); command-line flags win */
    const char *storage_class, *mount, *sec;
    struct metric *metrics;
    size_t n_metrics, a_metrics;
    /* A bit per hash of each name record_metric added: a name whose bit is clear is absent,
     * so adding ~50 metrics does not compare each name with all the others. */
    uint64_t metric_names_seen;
    struct kv *tags;
    size_t n_tags, a_tags;
    const char *bins_metric; /* which latency the bins describe: "clat", "lat", "slat" */
    struct hist_bin *bins;
    size_t n_bins, a_bins;
    const char *series_metric; /* e.g. "bw_bytes_s", "clat_ns" */
    struct series_point *series;
    size_t n_series, a_series;
    /* Not stored: what tells the entries of one fio job (its threads without group_reporting,
     * its clients) from the repeats of another run (ingest/jobs.c merges them): the run of a
     * file holding several (numbered by the importer, 0 when one) and fio's groupid. */
    unsigned run_no;
    int64_t groupid;
};

/* A record allocated from the arena with every workload field unknown. */
struct bench_record *record_new(struct arena *a, const char *tool);
void workload_init(struct workload *wl);
/* Adds or replaces a metric; name must outlive the record (a literal or arena string). */
void record_metric(struct arena *a, struct bench_record *r, const char *name, double value);
/* The metric's value, or NULL when absent. */
const double *record_get(const struct bench_record *r, const char *name);
/* The metric name of a latency percentile: ("clat", 99.9) -> "clat_p99_9_ns", ("lat", 50) ->
 * "lat_p50_ns"; allocated from a. */
const char *record_percentile_name(struct arena *a, const char *kind, double pct);
void record_tag(struct arena *a, struct bench_record *r, const char *key, const char *value);
/* The tag's value, or NULL when absent. */
const char *record_tag_get(const struct bench_record *r, const char *key);
/* A copy from a whose metrics, tags and bins can be changed without touching r (strings and
 * the series are shared). */
struct bench_record *record_copy(struct arena *a, const struct bench_record *r);
void record_bin(struct arena *a, struct bench_record *r, double value_ns, double count);
void record_point(struct arena *a, struct bench_record *r, double t_ms, double value);

/* Reports a located error (at the result's first line) and returns -1 when r holds a value no
 * benchmark can measure: NaN, infinite or negative (metrics, histogram bins, series values);
 * else 0. Called where records are stored, so every importer is held to it. */
int record_check(const struct bench_record *r, const struct source *src, struct diag *d);

/* r, or when one of its texts is not UTF-8 a copy from a with those texts escaped (each byte
 * of an ill-formed sequence as \xNN: core/utf8.h), each named in a warning at the result's
 * first line. Called where records are stored, as record_check is: the warehouse holds UTF-8
 * text only (docs/schema.md), which PostgreSQL needs on push. */
const struct bench_record *record_utf8(struct arena *a, const struct bench_record *r,
                                       const struct source *src, struct diag *d);

struct record_sink {
    int (*emit)(void *ctx, const struct bench_record *rec); /* rec is borrowed; 0 or -1 */
    void *ctx;
};

#endif
