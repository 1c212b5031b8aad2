/* iperf_common.h: what the iperf importers (iperf3 JSON, iperf2/3 text, iperf2 CSV) share:
 * the record they build, iperf's units and the report row of the text outputs. */
#ifndef BDB_IPERF_COMMON_H
#define BDB_IPERF_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "importer.h"

/* A record with the fields every iperf result has; direction is the client's view. */
struct bench_record *iperf_record(struct arena *a, const char *tool, const char *version,
                                  const char *direction, const char *protocol);

/* Sets name to value unless value is negative (iperf's "unknown" in several places). */
void iperf_metric(struct arena *a, struct bench_record *r, const char *name, double value);

/* One report row: `[  5][TX-C]   0.00-1.00   sec  9.97 MBytes  83.6 Mbits/sec <tail>`. */
struct iperf_row {
    int64_t id;        /* stream id, -1 for [SUM] */
    char role[8];      /* TX-C, RX-C, TX-S, RX-S or "" */
    int star;          /* `[ *9]`: iperf 2.1 marks the reverse direction */
    double start, end; /* seconds */
    double bytes, bps; /* transfer in bytes, rate in bits/s */
    const char *tail;  /* what follows the rate, up to the end of the line */
    size_t tail_len;
};
/* 1 when line (len bytes, not NUL-terminated) is a report row. */
int iperf_parse_row(const char *line, size_t len, struct iperf_row *row);

/* UDP receiver columns `0.026 ms 0/1787 (0%)` at the start of s (n bytes): 1 and the values. */
int iperf_parse_udp(const char *s, size_t n, double *jitter_ms, int64_t *lost, int64_t *total,
                    double *loss_pct);

#endif
