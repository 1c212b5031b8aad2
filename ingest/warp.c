/* warp.c: MinIO warp's text report (docs/formats.md 18), as `warp <bench>` and `warp analyze`
 * print it since warp 1.0 (pkg/aggregate/live.go): one block per operation,
 *
 *   Report: GET. Concurrency: 64. Ran: 4m58s
 *    * Average: 79.43 MiB/s, 79.43 obj/s
 *    * Reqs: Avg: 229.8ms, 50%: 166.1ms, 90%: 502.8ms, 99%: 948.7ms, Fastest: 10.8ms, ...
 *    * TTFB: Avg: 73ms, Best: 1ms, 25th: 8ms, Median: 14ms, 75th: 71ms, 90th: 212ms, ...
 *
 *   Throughput, split into 298 x 1s:
 *    * Fastest: 107.2MiB/s, 107.23 obj/s
 *
 * and a mixed run's "Report: Total." One record per block. warp's MiB is 2^20 bytes
 * (throughput.go: BytesPS()/(1<<20)); its durations are Go's (time.Duration.String, or
 * "%.1fms"). */
#include "importer.h"

#include <ctype.h>
#include <string.h>

#include "../core/scan.h"
#include "text_lines.h"

struct wp_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    struct bench_record *rec; /* the block being read, NULL between blocks */
    unsigned report_line, last_line, emitted;
    int average, in_split, in_sizes; /* in_sizes: a 'Request size A -> B' block (random sizes) */
};

/* The op's rw and direction: PUT writes, GET reads; the others keep their own name, an op
 * changing the namespace writing, one looking at it reading; a mixed run's Total is mixed. */
static void op_identity(struct wp_state *st, struct bench_record *r, const char *op)
{
    static const struct {
        const char *op, *rw, *direction;
    } ops[] = {{"PUT", "write", "write"}, {"GET", "read", "read"},  {"DELETE", "delete", "write"},
               {"STAT", "stat", "read"},  {"LIST", "list", "read"}, {"Total", "mixed", "mixed"}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strcmp(op, ops[i].op)) {
            r->wl.rw = ops[i].rw;
            r->direction = ops[i].direction;
            return;
        }
    char *low = arena_strdup(st->a, op);
    for (char *p = low; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    r->wl.rw = low;
    r->direction = "mixed";
}

/* A Go duration ("4m57s", "1.575s", "229.8ms", "950µs", "12ns") in ns at *p; 0 when none. */
static int go_duration(const char **p, double *ns)
{
    const char *q = *p;
    double total = 0;
    int parts = 0;
    for (;;) {
        double v;
        const char *s = q;
        if (!scan_number(&s, &v) || v < 0)
            break;
        double unit;
        if (!strncmp(s, "ns", 2))
            unit = 1, s += 2;
        else if (!strncmp(s, "us", 2))
            unit = 1e3, s += 2;
        else if (!strncmp(s, "\xc2\xb5s", 3) || !strncmp(s, "\xce\xbcs", 3))
            unit = 1e3, s += 3;
        else if (!strncmp(s, "ms", 2))
            unit = 1e6, s += 2;
        else if (*s == 's')
            unit = 1e9, s++;
        else if (*s == 'm')
            unit = 60e9, s++;
        else if (*s == 'h')
            unit = 3600e9, s++;
        else
            break;
        total += v * unit;
        parts++;
        q = s;
    }
    if (!parts)
        return 0;
    *p = q;
    *ns = total;
    return 1;
}

static int bad(struct wp_state *st, size_t off, const char *what, const char *got)
{
    size_t n = strcspn(got, ",");
    return diag_error_at(st->d, st->src, off, "expected %s in warp's report, got '%.*s'", what,
                         (int)(n > 40 ? 40 : n), got);
}

/* "79.43 MiB/s, 79.43 obj/s" or "17.67 obj/s" (the Average line) or "107.2MiB/s, 107.23
 * obj/s" (a segment): the byte rate when printed, the op rate. */
static int rates(struct wp_state *st, const char *p, size_t off, const char *bw_name,
                 const char *iops_name)
{
    double v;
    const char *s = p;
    if (!scan_number(&s, &v))
        return bad(st, off, "a rate such as '79.43 MiB/s'", p);
    s = skip_ws(s);
    if (scan_lit(&s, "MiB/s")) {
        record_metric(st->a, st->rec, bw_name, v * 1048576.0);
        if (!scan_lit(&s, ","))
            return bad(st, off, "', N obj/s' after the MiB/s", s);
        s = skip_ws(s);
        if (!scan_number(&s, &v))
            return bad(st, off, "an op rate such as '79.43 obj/s'", s);
        s = skip_ws(s);
    }
    if (!scan_lit(&s, "obj/s"))
        return bad(st, off, "'obj/s' or 'MiB/s'", s);
    record_metric(st->a, st->rec, iops_name, v);
    return 0;
}

/* "Avg: 107.7ms, 50%: 25.0ms, ..." (Reqs) or "Avg: 73ms, Best: 1ms, 25th: 8ms, ... Worst:
 * 1.575s StdDev: 148ms" (TTFB): each label's duration as kind's metric. */
static int durations(struct wp_state *st, const char *p, size_t off, const char *kind)
{
    static const struct {
        const char *label, *suffix;
    } labels[] = {{"Avg", "mean"},  {"Fastest", "min"},   {"Best", "min"},   {"Slowest", "max"},
                  {"Worst", "max"}, {"StdDev", "stddev"}, {"50%", "p50"},    {"90%", "p90"},
                  {"99%", "p99"},   {"25th", "p25"},      {"Median", "p50"}, {"75th", "p75"},
                  {"90th", "p90"},  {"99th", "p99"}};
    const char *s = p;
    int n = 0;
    while (*(s = skip_ws(s))) {
        if (n && *s == ',')
            s = skip_ws(s + 1);
        size_t len = strcspn(s, ":");
        if (!s[len])
            return bad(st, off + (size_t)(s - p), "'Label: duration'", s);
        const char *suffix = NULL;
        for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
            if (strlen(labels[i].label) == len && !strncmp(labels[i].label, s, len))
                suffix = labels[i].suffix;
        const char *label = s;
        s = skip_ws(s + len + 1);
        double ns;
        const char *at = s;
        if (!go_duration(&s, &ns))
            return diag_error_at(st->d, st->src, off + (size_t)(at - p),
                                 "expected a duration such as '107.7ms' for %s '%.*s', got '%.*s'",
                                 kind, (int)len, label, (int)strcspn(at, ", "), at);
        if (suffix) {
            char name[48];
            snprintf(name, sizeof name, "%s_%s_ns", kind, suffix);
            record_metric(st->a, st->rec, arena_strdup(st->a, name), ns);
        }
        n++;
    }
    return 0;
}

static int finish(struct wp_state *st)
{
    if (!st->rec)
        return 0;
    if (!st->average)
        return diag_error_line(st->d, st->src, st->report_line,
                               "expected warp's ' * Average:' line after 'Report:', got %s",
                               st->last_line > st->report_line ? "none before the next block"
                                                               : "the end of the input");
    st->rec->line_last = st->last_line;
    int rc = st->out->emit(st->out->ctx, st->rec);
    st->rec = NULL;
    st->emitted++;
    return rc;
}

/* "Report: GET. Concurrency: 64. Ran: 4m58s" */
static int report_line(struct wp_state *st, const char *t, size_t off, unsigned no)
{
    if (finish(st))
        return -1;
    const char *p = t + strlen("Report: ");
    size_t n = strcspn(p, ". ");
    if (!n || p[n] != '.')
        return bad(st, off, "'Report: OP. Concurrency: N. Ran: D'", t);
    struct bench_record *r = record_new(st->a, "warp");
    r->job = arena_strndup(st->a, p, n);
    op_identity(st, r, r->job);
    r->line_first = r->line_last = no;
    st->rec = r;
    st->report_line = no;
    st->average = st->in_split = st->in_sizes = 0;
    const char *s = skip_ws(p + n + 1);
    int64_t conc;
    if (!scan_lit(&s, "Concurrency: ") || !scan_int64(&s, &conc) || conc < 1 || !scan_lit(&s, "."))
        return bad(st, off + (size_t)(s - t), "'Concurrency: N.'", s);
    r->wl.numjobs = conc;
    s = skip_ws(s);
    double ns;
    const char *at;
    if (!scan_lit(&s, "Ran: ") || (at = s, !go_duration(&s, &ns)) || *s)
        return bad(st, off + (size_t)(s - t), "'Ran: D' (a duration such as 4m58s)", s);
    (void)at;
    record_metric(st->a, r, "runtime_ms", ns / 1e6);
    return 0;
}

static int handle_line(void *ctx, const char *t, size_t off, unsigned no)
{
    struct wp_state *st = ctx;
    if (str_starts(t, "Report: "))
        return report_line(st, t, off, no);
    if (!st->rec)
        return 0; /* warp's progress lines, a prompt, anything between blocks */
    if (str_starts(t, "\xe2\x94\x80")) /* the separator line of '─' */
        return finish(st);
    const char *p = t;
    if (!*t)
        return 0;
    st->last_line = no;
    if (scan_lit(&p, "Throughput, split into ")) {
        st->in_split = 1;
        st->in_sizes = 0;
        return 0;
    }
    if (str_starts(t, "Request size ")) {
        st->in_sizes = 1; /* its Reqs are rates per size class, not request times */
        return 0;
    }
    if (!scan_lit(&p, " * ")) {
        if (st->in_split)
            return 0;
        return finish(st); /* text after the block */
    }
    if (st->in_sizes)
        return 0;
    size_t o = off + (size_t)(p - t);
    if (st->in_split) {
        if (scan_lit(&p, "Fastest: "))
            return rates(st, p, o, "seg_fastest_bw_bytes_s", "seg_fastest_iops");
        if (scan_lit(&p, "50% Median: "))
            return rates(st, p, o, "seg_median_bw_bytes_s", "seg_median_iops");
        if (scan_lit(&p, "Slowest: "))
            return rates(st, p, o, "seg_slowest_bw_bytes_s", "seg_slowest_iops");
        return 0;
    }
    if (scan_lit(&p, "Average: ")) {
        st->average = 1;
        return rates(st, p, off + (size_t)(p - t), "bw_bytes_s", "iops");
    }
    if (scan_lit(&p, "Reqs: "))
        return durations(st, p, off + (size_t)(p - t), "lat");
    if (scan_lit(&p, "TTFB: "))
        return durations(st, p, off + (size_t)(p - t), "ttfb");
    if (scan_lit(&p, "Errors: ")) {
        int64_t e;
        if (!scan_int64(&p, &e) || *p)
            return bad(st, off + (size_t)(p - t), "'Errors: N'", p);
        record_metric(st->a, st->rec, "errors", (double)e);
    }
    return 0;
}

static int wp_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    struct wp_state st = {.src = src, .a = a, .d = d, .out = out};
    unsigned lines = 0;
    if (text_lines(src, "warp", handle_line, &st, d, &lines) || finish(&st))
        return -1;
    if (!st.emitted)
        return diag_error_line(d, src, lines ? lines : 1,
                               "no warp result found: expected a 'Report: OP. Concurrency: N. "
                               "Ran: D' block");
    return 0;
}

static int wp_probe(const struct source *src)
{
    int report = 0, average = 0;
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        if (mem_starts(line, len, "Report: ") && mem_find(line, len, ". Concurrency: ") &&
            mem_find(line, len, ". Ran: "))
            report = 1;
        else if (report && mem_starts(line, len, " * Average: ") && mem_find(line, len, "obj/s"))
            average = 1;
    }
    return report && average ? 95 : report ? 40 : 0;
}

const struct importer importer_warp = {
    .name = "warp",
    .summary = "MinIO warp text report: throughput, ops/s and request latency per operation",
    .probe = wp_probe,
    .parse = wp_parse,
};
