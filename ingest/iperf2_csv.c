/* iperf2_csv.c: iperf 2 `-y C` reports (docs/formats.md 7).
 *
 * Rows: timestamp,local_ip,local_port,remote_ip,remote_port,id,start-end,bytes,bits_per_second
 * and, for UDP, jitter_ms,lost,total,loss_pct,out_of_order. The result of a connection is its
 * row that spans the test from 0.0 (the last such); interval rows are ignored. iperf 2.0
 * prints a sum row (id -1) for -P: then the sums are the results; iperf 2.1 prints none, and
 * each connection is a record of its own (numjobs 1), since a server's CSV does not tell which
 * connections made up one test. CSV does not say which side wrote it, so every record is
 * "send" (what the client sent; -d/-r CSV cannot be told apart). The timestamp is local time
 * of an unknown zone and is not stored. UDP columns with a negative total (2.1.8's client
 * summary) are not the receiver's and are left out. */
#include "iperf_common.h"

#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

#define NFIELDS 16

struct csv_row {
    const char *f[NFIELDS];
    size_t len[NFIELDS];
    int n;
    int64_t id;
    double start, end, bytes, bps;
    unsigned line;
};

/* 0 when the row has more than NFIELDS fields. */
static int split(const char *s, size_t n, struct csv_row *r)
{
    struct field_iter it;
    const char *f;
    size_t len;
    r->n = 0;
    field_iter_init(&it, s, n, ',');
    while (field_iter_next(&it, &f, &len)) {
        if (r->n == NFIELDS)
            return 0;
        r->f[r->n] = f;
        r->len[r->n++] = len;
    }
    return 1;
}

/* A field as a number; the whole field must be one. */
static int fnum(const struct csv_row *r, int i, double *v)
{
    char tmp[64];
    if (r->len[i] == 0 || r->len[i] >= sizeof(tmp))
        return 0;
    memcpy(tmp, r->f[i], r->len[i]);
    tmp[r->len[i]] = '\0';
    const char *p = tmp;
    return scan_number(&p, v) && !*p;
}

/* 1 for a report row, with the column that is wrong in *bad otherwise (-1: not CSV at all). */
static int parse_row(const char *s, size_t n, struct csv_row *r, int *bad)
{
    double v;
    *bad = -1;
    if (!split(s, n, r) || (r->n != 9 && r->n != 14 && r->n != 15))
        return 0;
    const char *p = r->f[0];
    int64_t ts;
    if (!scan_int64(&p, &ts) || r->len[0] < 14)
        return 0;
    for (int i = 2; i <= 4; i += 2) {
        if (!fnum(r, i, &v) || v < 0 || v > 65535) {
            *bad = i;
            return 0;
        }
    }
    if (!fnum(r, 5, &v) || v < -1 || v > 1e9) {
        *bad = 5;
        return 0;
    }
    r->id = (int64_t)v;
    /* interval `0.0-10.0` */
    char tmp[64];
    if (r->len[6] >= sizeof(tmp)) {
        *bad = 6;
        return 0;
    }
    memcpy(tmp, r->f[6], r->len[6]);
    tmp[r->len[6]] = '\0';
    p = tmp;
    if (!scan_number(&p, &r->start) || *p++ != '-' || !scan_number(&p, &r->end) || *p ||
        r->start < 0) {
        *bad = 6;
        return 0;
    }
    if (!fnum(r, 7, &r->bytes) || r->bytes < 0) {
        *bad = 7;
        return 0;
    }
    if (!fnum(r, 8, &r->bps) || r->bps < 0) {
        *bad = 8;
        return 0;
    }
    return 1;
}

struct conn {
    struct csv_row whole;
    double max_end;
    int have_whole, rows, whole_first; /* whole was the connection's first row */
};

/* The banner iperf prints around its CSV rows: a -y C server of a --dualtest run prints the
 * client banner of its connection back to the client. */
static int is_banner(const char *s, size_t n)
{
    static const char *const starts[] = {
        "------",          "Client connecting to ", "Server listening on ",
        "TCP window size", "UDP buffer size",       "Sending ",
        "Receiving "};
    for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
        if (n >= strlen(starts[i]) && !memcmp(s, starts[i], strlen(starts[i])))
            return 1;
    return 0;
}

/* A row from 0 is the connection's whole-test row when it spans the connection's rows. With
 * interval reports (-i) the first row from 0 is the first interval's, so it must not be the
 * first row; nor may it be when the input is cut inside a row, as interval rows may follow. */
static int is_final(const struct conn *c, int intervals, int cut)
{
    return c->have_whole && c->whole.end >= c->max_end - 0.5 && c->whole.end > 0 &&
           !(c->whole_first && (intervals || cut));
}

/* What the whole file says about its connections. */
struct facts {
    int have_sum;  /* iperf 2.0 -P sum rows: the sums are the results */
    int intervals; /* interval reports (-i): a row not from 0 seen */
    unsigned cut;  /* the last line, when the input ends inside it (iperf ends every line) */
};

enum fate { CONN_PART, CONN_RESULT, CONN_DROPPED };

static enum fate fate(const struct conn *c, const struct facts *f)
{
    if (f->have_sum && c->whole.id >= 0)
        return CONN_PART;
    return is_final(c, f->intervals, f->cut != 0) ? CONN_RESULT : CONN_DROPPED;
}

static int same_conn(const struct csv_row *a, const struct csv_row *b)
{
    for (int i = 1; i <= 5; i++)
        if (a->len[i] != b->len[i] || memcmp(a->f[i], b->f[i], a->len[i]))
            return 0;
    return 1;
}

static void add_udp(struct arena *a, struct bench_record *r, const struct csv_row *row)
{
    double jitter, lost, total, loss;
    if (row->n < 14 || !fnum(row, 9, &jitter) || !fnum(row, 10, &lost) || !fnum(row, 11, &total) ||
        !fnum(row, 12, &loss) || total < 0 || lost < 0 || jitter < 0)
        return;
    record_metric(a, r, "jitter_ns", jitter * 1e6);
    record_metric(a, r, "lost_packets", lost);
    record_metric(a, r, "packets", total);
    iperf_metric(a, r, "loss_pct", loss);
}

static int emit(struct arena *a, struct record_sink *out, const struct conn *cn)
{
    const struct csv_row *w = &cn->whole;
    struct bench_record *r = iperf_record(a, "iperf", NULL, "send", w->n >= 14 ? "udp" : "tcp");
    r->host = arena_strndup(a, w->f[1], w->len[1]);
    r->peer = arena_strndup(a, w->f[3], w->len[3]);
    if (w->id >= 0)
        r->wl.numjobs = 1;
    else
        r->job = "sum";
    record_metric(a, r, "bw_bytes_s", w->bps / 8);
    record_metric(a, r, "io_bytes", w->bytes);
    record_metric(a, r, "runtime_ms", (w->end - w->start) * 1000);
    if (w->n >= 14)
        add_udp(a, r, w);
    r->line_first = r->line_last = w->line;
    return out->emit(out->ctx, r);
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    struct line_iter it;
    const char *s;
    size_t n;
    struct conn *conns = NULL;
    size_t nconn = 0, cap = 0;
    struct facts file = {0, 0, 0};
    size_t bom = bom_len(src->data, src->len); /* a CSV saved by an editor that writes one */
    line_iter_init(&it, src->data + bom, src->len - bom, 0);
    while (line_iter_next(&it, &s, &n)) {
        struct csv_row r;
        int bad;
        if (n == 0 || is_banner(s, n))
            continue;
        if (s + n == src->data + src->len && memchr(s, ',', n)) {
            file.cut = it.lineno;
            break;
        }
        if (!parse_row(s, n, &r, &bad)) {
            if (bad >= 0)
                return diag_error_at(d, src, (size_t)(r.f[bad] - src->data),
                                     "bad iperf CSV field %d '%.*s'", bad + 1,
                                     (int)(r.len[bad] > 40 ? 40 : r.len[bad]), r.f[bad]);
            if (memchr(s, ',', n))
                return diag_error_line(d, src, it.lineno,
                                       "expected an iperf CSV report row of 9 or 14 fields");
            continue; /* text around the rows: "tcp connect failed: ..." etc. */
        }
        r.line = it.lineno;
        /* a connection's rows are close together: look back a bounded way (no O(n^2)) */
        size_t i = nconn, stop = nconn > 512 ? nconn - 512 : 0;
        while (i > stop && !same_conn(&conns[i - 1].whole, &r))
            i--;
        i = i > stop ? i - 1 : nconn;
        if (i == nconn) {
            if (nconn == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                struct conn *c = arena_alloc(a, ncap * sizeof(*c));
                if (nconn)
                    memcpy(c, conns, nconn * sizeof(*c));
                conns = c;
                cap = ncap;
            }
            conns[nconn++] = (struct conn){r, r.end, 0, 0, 0};
        }
        struct conn *c = &conns[i];
        if (r.end > c->max_end)
            c->max_end = r.end;
        c->rows++;
        if (r.start == 0) {
            c->whole = r;
            c->have_whole = 1;
            c->whole_first = c->rows == 1;
        }
        file.have_sum |= r.id < 0;
        file.intervals |= r.start > 0;
    }
    int emitted = 0;
    for (size_t i = 0; i < nconn; i++) {
        if (fate(&conns[i], &file) != CONN_RESULT)
            continue;
        if (emit(a, out, &conns[i]))
            return -1;
        emitted++;
    }
    if (emitted > 1 && !file.have_sum)
        diag_warn_line(d, src, conns[nconn - 1].whole.line,
                       "%d iperf connections, each stored as a result of its own: iperf 2's CSV "
                       "does not tell the parallel streams of one test (-P, whose sum is the "
                       "result) from a server's successive tests, and a report takes them for "
                       "repeats; for a -P run import its text output (the [SUM] row)",
                       emitted);
    if (emitted) {
        for (size_t i = 0; i < nconn; i++)
            if (fate(&conns[i], &file) == CONN_DROPPED)
                diag_warn_line(d, src, conns[i].whole.line,
                               "iperf connection of line %u has no whole-test row (the "
                               "output ends before it): not imported",
                               conns[i].whole.line);
        return 0;
    }
    if (nconn || file.cut)
        return diag_error_line(d, src, file.cut ? file.cut : conns[nconn - 1].whole.line,
                               "no whole-test row: the run ended before iperf printed its "
                               "summary");
    /* no rows: the client's error (connect failed) goes to stderr, the rest is text */
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &s, &n)) {
        const char *f = NULL;
        for (size_t k = 0; k + 8 <= n && !f; k++)
            if (!memcmp(s + k, "failed: ", 8))
                f = s + k;
        if (f)
            return diag_error_line(d, src, it.lineno, "iperf run failed: %.*s", (int)n, s);
    }
    return diag_error_line(d, src, 1, "no iperf CSV report rows found");
}

static int probe(const struct source *src)
{
    struct line_iter it;
    const char *s;
    size_t n;
    int rows = 0, other = 0;
    size_t bom = bom_len(src->data, src->len), n_probe = src->len > 65536 ? 65536 : src->len;
    line_iter_init(&it, src->data + bom, n_probe - bom, 0);
    while (line_iter_next(&it, &s, &n) && it.lineno < 200) {
        struct csv_row r;
        int bad;
        if (n == 0 || is_banner(s, n))
            continue;
        if (parse_row(s, n, &r, &bad))
            rows++;
        else
            other++;
    }
    if (rows && rows >= other)
        return 90;
    return rows ? 40 : 0;
}

const struct importer importer_iperf2_csv = {
    .name = "iperf2-csv",
    .summary = "iperf 2 -y C reports",
    .probe = probe,
    .parse = parse,
};
