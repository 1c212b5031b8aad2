/* fio_log.c: fio's per-job log files (--write_bw_log, --write_iops_log, --write_lat_log,
 * --write_hist_log). See docs/formats.md section 4 and fio's HOWTO "Log File Formats".
 *
 * Lines are `time, value, ddir, bs[, offset], prio[, issue_time]` (4 columns before
 * fio-3.18), with a second value column (`time, avg, max, ddir, ...`) under
 * log_window_value=both; histogram logs are `time, ddir, bs, c0, c1, ...` with 1856 bins
 * (fio >= 2.99, nanoseconds) or 1216 bins (fio 2.x, microseconds), halved per step of
 * log_hist_coarseness. The content does not say what a value is: the file name does
 * (`<job>_bw.1.log`, `_iops`, `_lat`, `_clat`, `_slat`, `_clat_hist`).
 *
 * One record per direction summarises the whole log in one pass with memory independent of
 * the file size:
 * - bw/iops: mean, min, max and sample stddev of the logged values (for per-I/O logs this is
 *   the mean of the per-I/O rates, not bytes/runtime; with log_max_value=1 the values are
 *   window maxima: the content cannot tell);
 * - latency logs: the same, plus percentiles from a log-linear histogram with 128 buckets per
 *   power of two (values below 256 exact): a percentile is the midpoint of the bucket that
 *   holds the nearest-rank sample, so it is within 0.4% of the exact value. Values are taken
 *   as ns (fio >= 3; fio 2.x wrote microseconds, which the content cannot reveal): tag
 *   log_unit=ns records that assumption. Windowed logs hold window means (or maxima), so
 *   their min/max/percentiles are of those; under log_window_value=both the max metric comes
 *   from the max column and everything else from the mean column;
 * - histogram logs: bins summed per direction (each line holds one interval's counts),
 *   decoded with fio's plat_idx_to_val; mean and percentiles are computed as fio computes
 *   them from its bins (error below 1/128 of the value).
 * The time series is averaged into at most SERIES_CAP fixed-width time buckets; the width
 * doubles (merging neighbours) whenever a time falls beyond the last bucket. */
#include "importer.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"

enum log_kind { KIND_UNKNOWN, KIND_BW, KIND_IOPS, KIND_LAT, KIND_CLAT, KIND_SLAT, KIND_HIST };

#define NDIR            4
#define MIN_PLAIN_COLS  4
#define MAX_PLAIN_COLS  8
#define PLAT_BITS       6
#define PLAT_VAL        (1 << PLAT_BITS)
#define HIST_FIO2_BINS  (19 * PLAT_VAL) /* fio 2.x: microseconds */
#define HIST_FIO3_BINS  (29 * PLAT_VAL) /* fio >= 2.99: nanoseconds */
#define HIST_MAX_COARSE 6
#define MAX_COLS        (3 + HIST_FIO3_BINS)
#define SERIES_CAP      500
/* raw latency values: LAT_SUB buckets per power of two */
#define LAT_BITS    7
#define LAT_SUB     (1 << LAT_BITS)
#define LAT_BUCKETS ((63 - LAT_BITS + 1) * LAT_SUB)
/* more I/Os than any interval can hold: fio-3.7 client/server hist logs carry garbage memory */
#define HIST_COUNT_MAX (INT64_C(1) << 50)
/* log_unix_epoch=1 writes ms since 1970: any time past 2000-01-01 is taken as such */
#define EPOCH_MS_MIN INT64_C(946684800000)
/* How far past the first line detect_both looks, and the least a stream's window holds there
 * (so that a stream and a whole buffer decide the same); the window read from a stream. */
#define LOOKAHEAD_BYTES (1 << 20)
#define WINDOW_BYTES    (4 << 20)

static const char *const dir_names[NDIR] = {"read", "write", "trim", "sync"};

struct kind_info {
    const char *suffix; /* in the file name */
    const char *tag;    /* log_kind tag */
    const char *mean, *min, *max, *avg, *stddev;
    const char *p50, *p95, *p99, *p99_9; /* latency only */
    const char *series;
    double scale; /* logged value -> base unit */
};

static const struct kind_info kinds[] = {
    [KIND_UNKNOWN] = {NULL, "unknown", "value", "value_min", "value_max", "value_mean",
                      "value_stddev", NULL, NULL, NULL, NULL, "value", 1},
    [KIND_BW] = {"_bw", "bw", "bw_bytes_s", "bw_min_bytes_s", "bw_max_bytes_s", "bw_mean_bytes_s",
                 "bw_stddev_bytes_s", NULL, NULL, NULL, NULL, "bw_bytes_s", 1024},
    [KIND_IOPS] = {"_iops", "iops", "iops", "iops_min", "iops_max", "iops_mean", "iops_stddev",
                   NULL, NULL, NULL, NULL, "iops", 1},
    [KIND_LAT] = {"_lat", "lat", "lat_mean_ns", "lat_min_ns", "lat_max_ns", NULL, "lat_stddev_ns",
                  "lat_p50_ns", "lat_p95_ns", "lat_p99_ns", "lat_p99_9_ns", "lat_ns", 1},
    [KIND_CLAT] = {"_clat", "clat", "clat_mean_ns", "clat_min_ns", "clat_max_ns", NULL,
                   "clat_stddev_ns", "clat_p50_ns", "clat_p95_ns", "clat_p99_ns", "clat_p99_9_ns",
                   "clat_ns", 1},
    [KIND_SLAT] = {"_slat", "slat", "slat_mean_ns", "slat_min_ns", "slat_max_ns", NULL,
                   "slat_stddev_ns", "slat_p50_ns", "slat_p95_ns", "slat_p99_ns", "slat_p99_9_ns",
                   "slat_ns", 1},
    [KIND_HIST] = {"_clat_hist", "clat_hist", "clat_mean_ns", NULL, NULL, NULL, NULL, "clat_p50_ns",
                   "clat_p95_ns", "clat_p99_ns", "clat_p99_9_ns", "clat_ns", 1},
};

/* Sums of integers are kept exact (128 bits and more), so that they do not depend on the order
 * of the additions: a log parsed in chunks on several threads and merged gives the same bits
 * as one parsed line by line (and a huge log is no longer rounded at every line). */
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

/* A sum of squares of values below 2^63: up to 2^64 of them */
struct u192 {
    u128 lo;
    uint64_t hi;
};

struct series {
    int shift; /* 2^shift ms per bucket */
    u128 t[SERIES_CAP];
    u128 v[SERIES_CAP];    /* integer values (bw, iops, latency logs) */
    double vd[SERIES_CAP]; /* histogram logs: each line's mean latency */
    uint64_t n[SERIES_CAP];
};

struct dir_acc {
    uint64_t n; /* lines */
    int64_t k;  /* the first value: the summary is computed from the sums shifted by it */
    u128 sum;   /* of the values */
    struct u192 sumsq;
    int64_t min, max;
    int64_t t_max, bs;
    int bs_mixed;
    unsigned line_first, line_last;
    uint64_t *lat; /* LAT_BUCKETS counts, latency logs */
    u128 *bins;    /* per log bin counts, histogram logs */
    u128 ios;      /* histogram logs: sum of all counts */
    struct series *s;
};

/* A chunk's histogram-log line for the time series, replayed in file order at the merge (its
 * mean latency is no integer: summed in another order, the series would differ). */
struct hist_point {
    int ddir;
    int64_t t;
    double v;
};

/* An error found by a thread parsing a chunk, reported at the merge when no earlier chunk
 * failed: the line (counted from the chunk's first) and the line up to the error. */
struct chunk_error {
    unsigned line;
    struct buf prefix, msg;
};

struct parser {
    const struct source *src; /* a stream's: the path only */
    int streaming;
    struct arena *a;
    struct diag *d;
    unsigned line;   /* the current line */
    const char *bol; /* its start */
    enum log_kind kind;
    int ncols;      /* fixed by the first line */
    unsigned line1; /* the first data line */
    int both;       /* log_window_value=both: avg and max columns */
    int nbins;      /* histogram logs */
    double *bin_ns; /* histogram bin -> latency in ns */
    int fio2_hist;
    int epoch; /* times are Unix epoch ms */
    int64_t t0;
    int64_t cols[MAX_COLS];
    const char *colpos[MAX_PLAIN_COLS];
    struct dir_acc dir[NDIR];
    int layout_only;           /* stop after the line that sets the layout (parse_chunked) */
    struct chunk_error *err;   /* a chunk's parser: errors kept here instead of reported */
    struct hist_point *points; /* a chunk's parser of a histogram log: its series points */
    size_t n_points, cap_points;
};

/* ---- scanning ---- */

static int is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

static int hex_val(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A non-negative integer below 2^63; "0x..." too when hex (fio's log_prio column). */
static int scan_uint(const char **pp, const char *eol, int64_t *v, int hex)
{
    const char *p = *pp;
    uint64_t x = 0;
    if (hex && eol - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hex_val(p[2]) >= 0) {
        for (p += 2; p < eol && hex_val(*p) >= 0; p++) {
            if (x > (uint64_t)INT64_MAX >> 4)
                return 0;
            x = x * 16 + (uint64_t)hex_val(*p);
        }
    } else {
        const char *s = p;
        for (; p < eol && is_digit(*p); p++) {
            unsigned d = (unsigned)(*p - '0');
            if (p - s >= 18 && x > ((uint64_t)INT64_MAX - d) / 10)
                return 0;
            x = x * 10 + d;
        }
        if (p == s)
            return 0;
    }
    *v = (int64_t)x;
    *pp = p;
    return 1;
}

static const char *skip_blank(const char *p, const char *eol)
{
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

enum row_status { ROW_OK, ROW_BAD_INT, ROW_BAD_SEP, ROW_TOO_MANY };

struct row {
    int n;
    const char *bad; /* where scanning stopped on error */
};

/* A plain decimal of at most 18 digits (cannot overflow), the common case; else 0 and the
 * caller takes scan_uint. */
static int scan_short(const char **pp, const char *eol, int64_t *v)
{
    const char *p = *pp, *s = p;
    int64_t x = 0;
    while (p < eol && is_digit(*p) && p - s < 18)
        x = x * 10 + (*p++ - '0');
    if (p == s || (p < eol && (is_digit(*p) || *p == 'x' || *p == 'X')))
        return 0;
    *v = x;
    *pp = p;
    return 1;
}

/* Scans one line of comma-separated integers into cols (at most max). strict: fio's exact
 * ", " separators and nothing else (probing). colpos receives the first columns' starts. */
static enum row_status scan_row(const char *p, const char *eol, int64_t *cols, int max,
                                const char **colpos, int hex_cols, int strict, struct row *r)
{
    int n = 0;
    if (!strict)
        p = skip_blank(p, eol);
    for (;; n++) {
        if (n == max) {
            r->n = n;
            r->bad = p;
            return ROW_TOO_MANY;
        }
        if (n < MAX_PLAIN_COLS)
            colpos[n] = p;
        if (!scan_short(&p, eol, &cols[n]) &&
            !scan_uint(&p, eol, &cols[n], n >= 4 && n < hex_cols)) {
            r->n = n;
            r->bad = p;
            return ROW_BAD_INT;
        }
        if (eol - p >= 2 && p[0] == ',' && p[1] == ' ') { /* fio's own separator */
            p += 2;
            if (!strict)
                p = skip_blank(p, eol);
            continue;
        }
        if (!strict)
            p = skip_blank(p, eol);
        if (p == eol) {
            r->n = n + 1;
            return ROW_OK;
        }
        if (*p != ',' || strict) {
            r->n = n + 1;
            r->bad = p;
            return ROW_BAD_SEP;
        }
        p = skip_blank(p + 1, eol);
    }
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The value of the decimal digits in the top n bytes of v (0-9 each, the first lowest):
 * pairs, then fours, then the eight, combined by multiplications in each lane. */
static uint64_t swar_value(uint64_t v)
{
    v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffu;
    v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffu;
    return (v * 10000 + (v >> 32)) & 0xffffffffu;
}

/* Reads the digits at p eight bytes at a time while eight are left before end: the lines of a
 * big log are most of its parse. Sets *v and returns how many digits were read: all of them up
 * to 18, more than 18 when there are more (*v is then of no use; a value here has at most 18). */
static int scan_digits(const char *p, const char *end, uint64_t *v)
{
    static const uint64_t pow10[9] = {1,      10,      100,      1000,     10000,
                                      100000, 1000000, 10000000, 100000000};
    uint64_t x = 0;
    int n = 0;
    while (n < 19 && end - (p + n) >= 8) {
        uint64_t w;
        memcpy(&w, p + n, 8);
        uint64_t d = w - 0x3030303030303030u;
        /* a byte's top bit: below '0' (borrow) or above '9' (carry); no byte before the first
         * such one borrows or carries, so the first is right (the later ones do not matter) */
        uint64_t not_digit = (d | (w + 0x4646464646464646u)) & 0x8080808080808080u;
        int k = not_digit ? __builtin_ctzll(not_digit) / 8 : 8;
        if (k)
            x = x * pow10[k] + swar_value(d << (64 - 8 * k));
        n += k;
        if (k < 8) {
            *v = x;
            return n;
        }
    }
    for (; n < 19 && p + n < end && is_digit(p[n]); n++)
        x = x * 10 + (unsigned)(p[n] - '0');
    *v = x;
    return n;
}
#else
static int scan_digits(const char *p, const char *end, uint64_t *v)
{
    uint64_t x = 0;
    int n = 0;
    for (; n < 19 && p + n < end && is_digit(p[n]); n++)
        x = x * 10 + (unsigned)(p[n] - '0');
    *v = x;
    return n;
}
#endif

/* fio's own line of ncols columns at p, ended by a newline before end: plain decimals of at
 * most 18 digits separated by ", ", with nothing before or after them. Fills cols (and
 * colpos) as scan_row would, points *eol at the line's end (its "\n" or "\r\n") and returns
 * where the next line starts; NULL for any other line, which parse_lines then reads as it reads
 * every line (and names what is wrong with it). The lines of a big log are all of this form:
 * read in one pass, without looking for the newline first, they cost half what they did. */
static const char *scan_fio_line(const char *p, const char *end, int64_t *cols, int ncols,
                                 const char **colpos, const char **eol)
{
    for (int n = 0;; n++) {
        const char *s = p;
        uint64_t x;
        int digits = scan_digits(p, end, &x);
        p += digits;
        if (!digits || digits > 18 || p == end)
            return NULL;
        if (n < MAX_PLAIN_COLS)
            colpos[n] = s;
        cols[n] = (int64_t)x;
        if (n + 1 == ncols)
            break;
        if (end - p < 2 || p[0] != ',' || p[1] != ' ')
            return NULL;
        p += 2;
    }
    *eol = p;
    if (*p == '\r' && end - p >= 2)
        p++;
    return *p == '\n' ? p + 1 : NULL;
}

/* The next line [*line, *eol) of [p, end); returns where the one after starts. */
static const char *next_line(const char *p, const char *end, const char **eol)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    if (e > p && e[-1] == '\r')
        e--;
    *eol = e;
    return nl ? nl + 1 : end;
}

/* 0 for no histogram; else the log_hist_coarseness that gives nbins bins (+1), with fio2
 * set for fio 2.x's 1216-bin layout. */
static int hist_layout(int nbins, int *fio2)
{
    for (int k = 0; k <= HIST_MAX_COARSE; k++) {
        if (nbins == HIST_FIO3_BINS >> k) {
            *fio2 = 0;
            return k + 1;
        }
        if (nbins == HIST_FIO2_BINS >> k) {
            *fio2 = 1;
            return k + 1;
        }
    }
    return 0;
}

/* ---- probe ---- */

static int probe_row(const int64_t *cols, int n)
{
    int fio2;
    if (n > MAX_PLAIN_COLS)
        return hist_layout(n - 3, &fio2) && cols[1] < NDIR ? (n - 3 >= 1000 ? 70 : 65) : 0;
    if (n < MIN_PLAIN_COLS)
        return 0;
    /* ddir is the third column, or the fourth under log_window_value=both */
    return cols[2] < NDIR || (n >= 6 && cols[3] < NDIR) ? 60 : 0;
}

/* The first line decides; the next few confirm it, and a disagreeing or damaged one only
 * lowers the score (the parser then says where the file is broken). */
static int fio_log_probe(const struct source *src)
{
    const char *p = src->data + bom_len(src->data, src->len), *end = src->data + src->len;
    int64_t *cols = xmalloc(MAX_COLS * sizeof(*cols));
    const char *colpos[MAX_PLAIN_COLS];
    int score = 0, ncols = 0, lines = 0;
    while (p < end && lines < 5) {
        const char *eol, *next = next_line(p, end, &eol);
        struct row r;
        if (eol == p) {
            p = next;
            continue;
        }
        enum row_status st = scan_row(p, eol, cols, MAX_COLS, colpos, MAX_PLAIN_COLS, 1, &r);
        int s = st == ROW_OK ? probe_row(cols, r.n) : 0;
        if (!lines) {
            score = s;
            ncols = r.n;
        } else if (!s || r.n != ncols) {
            score -= 15;
        }
        if (!score || (lines && (!s || r.n != ncols)))
            break;
        lines++;
        p = next;
    }
    free(cols);
    return score;
}

/* ---- file name ---- */

/* `<job>_<kind>[.<index>].log` */
static enum log_kind kind_from_path(struct parser *ps, const char **job, const char **index)
{
    static const enum log_kind order[] = {KIND_HIST, KIND_CLAT, KIND_SLAT,
                                          KIND_LAT,  KIND_BW,   KIND_IOPS};
    const char *base = strrchr(ps->src->path, '/');
    base = base ? base + 1 : ps->src->path;
    size_t n = strlen(base);
    *job = *index = NULL;
    if (!mem_ends(base, n, ".log"))
        return KIND_UNKNOWN;
    n -= 4;
    size_t dot = n;
    while (dot > 0 && is_digit(base[dot - 1]))
        dot--;
    if (dot < n && dot > 0 && base[dot - 1] == '.') {
        *index = arena_strndup(ps->a, base + dot, n - dot);
        n = dot - 1;
    }
    for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
        const char *suffix = kinds[order[i]].suffix;
        if (mem_ends(base, n, suffix)) {
            size_t k = n - strlen(suffix);
            *job = k ? arena_strndup(ps->a, base, k) : NULL;
            return order[i];
        }
    }
    *index = NULL;
    return KIND_UNKNOWN;
}

/* ---- errors ---- */

/* The token at p for messages: up to the next separator, at most 32 bytes, printable. */
static const char *token(struct arena *a, const char *p, const char *eol)
{
    if (p >= eol)
        return NULL;
    const char *q = p;
    while (q < eol && q - p < 32 && *q != ',' && *q != ' ' && *q != '\t')
        q++;
    if (q == p)
        q++;
    char *t = arena_alloc(a, (size_t)(q - p) + 1);
    for (size_t i = 0; p + i < q; i++)
        t[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
    return t;
}

/* diag_error_at for a position on a streamed input's line: a stream keeps no earlier lines, so
 * the position is given in a stand-in source: line - 1 empty lines, then the line up to the
 * position (prefix). */
static int error_streamed(struct parser *ps, unsigned line, const char *prefix, size_t n,
                          const char *msg)
{
    struct buf stand_in = BUF_INIT;
    struct source src = *ps->src;
    buf_grow(&stand_in, line + n);
    memset(stand_in.data, '\n', line - 1);
    stand_in.len = line - 1;
    buf_add(&stand_in, prefix, n);
    src.data = stand_in.data;
    src.len = stand_in.len;
    diag_error_at(ps->d, &src, src.len, "%s", msg);
    buf_release(&stand_in);
    return -1;
}

/* diag_error_at for a position on the current line; a chunk's parser keeps it in ps->err. */
static int BDB_PRINTF(3, 4) error_pos(struct parser *ps, const char *at, const char *fmt, ...)
{
    struct buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    if (ps->err) {
        ps->err->line = ps->line;
        buf_add(&ps->err->prefix, ps->bol, (size_t)(at - ps->bol));
        buf_release(&ps->err->msg);
        ps->err->msg = msg;
        return -1;
    }
    if (ps->streaming)
        error_streamed(ps, ps->line, ps->bol, (size_t)(at - ps->bol), msg.data);
    else
        diag_error_at(ps->d, ps->src, (size_t)(at - ps->src->data), "%s", msg.data);
    buf_release(&msg);
    return -1;
}

static int error_at(struct parser *ps, const char *at, const char *eol, const char *what)
{
    const char *tok = token(ps->a, at, eol);
    if (!tok)
        return error_pos(ps, at, "expected %s, got end of line", what);
    return error_pos(ps, at, "expected %s, got '%s'", what, tok);
}

static int row_error(struct parser *ps, enum row_status st, const struct row *r, const char *eol)
{
    char what[64];
    switch (st) {
    case ROW_BAD_INT:
        if (r->bad < eol && is_digit(*r->bad))
            return error_at(ps, r->bad, eol, "an integer below 2^63");
        return error_at(ps, r->bad, eol, "a non-negative integer");
    case ROW_BAD_SEP:
        return error_at(ps, r->bad, eol, "',' or end of line");
    case ROW_TOO_MANY:
        snprintf(what, sizeof(what), "end of line after %d columns", r->n);
        return error_at(ps, r->bad, eol, what);
    default:
        return -1;
    }
}

/* ---- accumulation ---- */

static void series_merge(struct series *s)
{
    for (int i = 0; i < SERIES_CAP / 2; i++) {
        s->t[i] = s->t[2 * i] + s->t[2 * i + 1];
        s->v[i] = s->v[2 * i] + s->v[2 * i + 1];
        s->vd[i] = s->vd[2 * i] + s->vd[2 * i + 1];
        s->n[i] = s->n[2 * i] + s->n[2 * i + 1];
    }
    for (int i = SERIES_CAP / 2; i < SERIES_CAP; i++) {
        s->t[i] = s->v[i] = 0;
        s->vd[i] = 0;
        s->n[i] = 0;
    }
    s->shift++;
}

/* The bucket of time t, merging buckets until it fits. */
static int64_t series_at(struct series *s, int64_t t)
{
    while ((t >> s->shift) >= SERIES_CAP)
        series_merge(s);
    int64_t i = t >> s->shift;
    s->t[i] += (u128)t;
    s->n[i] += 1;
    return i;
}

static void series_add(struct series *s, int64_t t, int64_t v)
{
    s->v[series_at(s, t)] += (u128)v;
}

static void series_add_mean(struct series *s, int64_t t, double v)
{
    s->vd[series_at(s, t)] += v;
}

/* Adds the integer sums of from to into: a bucket at a shift holds the sums of the times t
 * with t >> shift its index, whatever the order they came in, so both are brought to the
 * larger shift first. from is left merged. */
static void series_absorb(struct series *into, struct series *from)
{
    while (into->shift < from->shift)
        series_merge(into);
    while (from->shift < into->shift)
        series_merge(from);
    for (int i = 0; i < SERIES_CAP; i++) {
        into->t[i] += from->t[i];
        into->v[i] += from->v[i];
        into->n[i] += from->n[i];
    }
}

static unsigned lat_bucket(uint64_t v)
{
    if (v < 2 * LAT_SUB)
        return (unsigned)v;
#if defined(__GNUC__)
    unsigned msb = 63 - (unsigned)__builtin_clzll(v);
#else
    unsigned msb = 63;
    while (!(v >> msb))
        msb--;
#endif
    unsigned shift = msb - LAT_BITS;
    return (shift + 1) * LAT_SUB + (unsigned)((v >> shift) & (LAT_SUB - 1));
}

/* The middle of a bucket's value range. */
static double lat_bucket_value(unsigned idx)
{
    if (idx < 2 * LAT_SUB)
        return idx;
    unsigned shift = idx / LAT_SUB - 1;
    double lo = ldexp((double)(LAT_SUB + idx % LAT_SUB), (int)shift);
    return lo + (ldexp(1, (int)shift) - 1) / 2;
}

static struct dir_acc *dir_get(struct parser *ps, int64_t ddir, unsigned line)
{
    struct dir_acc *acc = &ps->dir[ddir];
    if (!acc->n && !acc->line_first) {
        acc->line_first = line;
        acc->min = INT64_MAX;
        acc->bs = -1;
        acc->s = arena_alloc(ps->a, sizeof(*acc->s));
        if (ps->kind == KIND_HIST)
            acc->bins = arena_alloc(ps->a, (size_t)ps->nbins * sizeof(*acc->bins));
        else if (kinds[ps->kind].p50)
            acc->lat = arena_alloc(ps->a, LAT_BUCKETS * sizeof(*acc->lat));
    }
    acc->line_last = line;
    return acc;
}

/* Time since the job started (log_unix_epoch logs count from the first line). */
static int64_t rel_time(struct parser *ps, int64_t t)
{
    if (!ps->epoch)
        return t;
    return t > ps->t0 ? t - ps->t0 : 0;
}

static void note_bs(struct dir_acc *acc, int64_t bs)
{
    if (acc->bs < 0)
        acc->bs = bs;
    else if (acc->bs != bs)
        acc->bs_mixed = 1;
}

static int plain_row(struct parser *ps, const char *eol, unsigned line)
{
    const int64_t *c = ps->cols;
    int dc = ps->both ? 3 : 2;
    if (c[dc] >= NDIR)
        return error_at(ps, ps->colpos[dc], eol, "a data direction 0-3");
    struct dir_acc *acc = dir_get(ps, c[dc], line);
    int64_t v = c[1], hi = ps->both ? c[2] : c[1];
    if (!acc->n++)
        acc->k = v;
    u128 sq = (u128)v * (u128)v;
    acc->sum += (u128)v;
    acc->sumsq.lo += sq;
    acc->sumsq.hi += acc->sumsq.lo < sq;
    if (v < acc->min)
        acc->min = v;
    if (hi > acc->max)
        acc->max = hi;
    int64_t t = rel_time(ps, c[0]);
    if (t > acc->t_max)
        acc->t_max = t;
    note_bs(acc, c[dc + 1]);
    if (acc->lat)
        acc->lat[lat_bucket((uint64_t)v)]++;
    series_add(acc->s, t, v);
    return 0;
}

/* Points at bin i's column by scanning the line again (errors only). */
static int hist_count_error(struct parser *ps, const char *eol, int i)
{
    const char *p = ps->colpos[2];
    for (int commas = 0; p < eol && commas < i + 1; p++)
        commas += *p == ',';
    p = skip_blank(p, eol);
    return error_at(ps, p, eol,
                    "a histogram bin count below 2^50 (fio-3.7 client/server logs "
                    "can hold garbage)");
}

static int hist_row(struct parser *ps, const char *eol, unsigned line)
{
    const int64_t *c = ps->cols;
    if (c[1] >= NDIR)
        return error_at(ps, ps->colpos[1], eol, "a data direction 0-3");
    struct dir_acc *acc = dir_get(ps, c[1], line);
    double n = 0, sum = 0;
    u128 ios = 0;
    for (int i = 0; i < ps->nbins; i++) {
        if (c[3 + i] >= HIST_COUNT_MAX)
            return hist_count_error(ps, eol, i);
        double k = (double)c[3 + i];
        acc->bins[i] += (u128)c[3 + i];
        ios += (u128)c[3 + i];
        n += k;
        sum += k * ps->bin_ns[i];
    }
    acc->n++;
    acc->ios += ios;
    int64_t t = rel_time(ps, c[0]);
    if (t > acc->t_max)
        acc->t_max = t;
    note_bs(acc, c[2]);
    if (n > 0 && ps->err) { /* a chunk: replayed at the merge */
        ps->points =
            arena_grow(ps->a, ps->points, ps->n_points, &ps->cap_points, sizeof(*ps->points));
        ps->points[ps->n_points++] = (struct hist_point){(int)c[1], t, sum / n};
    } else if (n > 0) {
        series_add_mean(acc->s, t, sum / n);
    }
    return 0;
}

/* ---- layout, decided by the first line ---- */

/* fio's plat_idx_to_val (stat.c), including its integer truncation. */
static double plat_idx_to_val(unsigned idx)
{
    if (idx < (PLAT_VAL << 1))
        return idx;
    unsigned error_bits = (idx >> PLAT_BITS) - 1;
    double base = ldexp(1, (int)(error_bits + PLAT_BITS));
    unsigned k = idx % PLAT_VAL;
    return base + floor((k + 0.5) * ldexp(1, (int)error_bits));
}

static void hist_setup(struct parser *ps, int coarse_plus1)
{
    int stride = 1 << (coarse_plus1 - 1);
    double unit = ps->fio2_hist ? 1000 : 1;
    ps->bin_ns = arena_alloc(ps->a, (size_t)ps->nbins * sizeof(*ps->bin_ns));
    for (int i = 0; i < ps->nbins; i++) {
        double sum = 0;
        for (int j = 0; j < stride; j++)
            sum += plat_idx_to_val((unsigned)(i * stride + j));
        ps->bin_ns[i] = sum / stride * unit;
    }
}

/* log_window_value=both puts the window max before ddir; per-I/O and plain windowed logs
 * have ddir there. Decided by the first line that tells them apart (ddir is 0-3, bs is
 * 0 in windowed logs and at least 512 per I/O), among the next 10000 lines that end within
 * LOOKAHEAD_BYTES. */
static int detect_both(const char *p, const char *end, int ncols)
{
    int64_t c[MAX_PLAIN_COLS];
    const char *colpos[MAX_PLAIN_COLS];
    const char *start = p;
    if (ncols < 6)
        return 0;
    for (int lines = 0; p < end && lines < 10000; lines++) {
        const char *eol, *next = next_line(p, end, &eol);
        struct row r;
        if (next - start > LOOKAHEAD_BYTES)
            return 0;
        if (scan_row(p, eol, c, MAX_PLAIN_COLS, colpos, MAX_PLAIN_COLS, 0, &r) != ROW_OK ||
            r.n != ncols)
            return 0;
        if (c[2] >= NDIR || (c[3] > 0 && c[3] < NDIR))
            return 1;
        if (c[3] >= NDIR)
            return 0;
        p = next;
    }
    return 0;
}

static int setup_layout(struct parser *ps, const char *p, const char *end, const char *eol,
                        const struct row *r)
{
    int coarse = r->n > MAX_PLAIN_COLS ? hist_layout(r->n - 3, &ps->fio2_hist) : 0;
    ps->ncols = r->n;
    if (r->n < MIN_PLAIN_COLS || (r->n > MAX_PLAIN_COLS && !coarse))
        return error_pos(ps, eol,
                         "expected %d to %d columns, or 3 + %d (%d in fio 2.x) in a "
                         "histogram log, got %d",
                         MIN_PLAIN_COLS, MAX_PLAIN_COLS, HIST_FIO3_BINS, HIST_FIO2_BINS, r->n);
    if (coarse) {
        if (ps->kind != KIND_HIST && ps->kind != KIND_UNKNOWN)
            diag_warn_line(ps->d, ps->src, ps->line1,
                           "file name says '%s' but the lines are a latency histogram log; "
                           "importing as clat_hist",
                           kinds[ps->kind].tag);
        ps->kind = KIND_HIST;
        ps->nbins = r->n - 3;
        hist_setup(ps, coarse);
    } else if (ps->kind == KIND_HIST) {
        return error_pos(ps, eol,
                         "expected 3 + %d (%d in fio 2.x) columns in a histogram log, got %d",
                         HIST_FIO3_BINS, HIST_FIO2_BINS, r->n);
    } else {
        ps->both = detect_both(p, end, r->n);
    }
    if (ps->cols[0] >= EPOCH_MS_MIN) {
        ps->epoch = 1;
        ps->t0 = ps->cols[0];
    }
    return 0;
}

/* ---- output ---- */

static double lat_percentile(const struct dir_acc *acc, double pct)
{
    double want = pct / 100 * (double)acc->n, cum = 0;
    for (unsigned i = 0; i < LAT_BUCKETS; i++) {
        cum += (double)acc->lat[i];
        if (acc->lat[i] && cum >= want) {
            double v = lat_bucket_value(i);
            return v < (double)acc->min   ? (double)acc->min
                   : v > (double)acc->max ? (double)acc->max
                                          : v;
        }
    }
    return (double)acc->max;
}

static double hist_percentile(const struct parser *ps, const struct dir_acc *acc, double pct)
{
    double want = pct / 100 * (double)acc->ios, cum = 0;
    for (int i = 0; i < ps->nbins; i++) {
        cum += (double)acc->bins[i];
        if (acc->bins[i] > 0 && cum >= want)
            return ps->bin_ns[i];
    }
    return ps->bin_ns[ps->nbins - 1];
}

static void emit_percentiles(struct parser *ps, struct bench_record *r, const struct dir_acc *acc)
{
    static const double pcts[] = {50, 95, 99, 99.9};
    const struct kind_info *k = &kinds[ps->kind];
    const char *names[] = {k->p50, k->p95, k->p99, k->p99_9};
    for (int i = 0; i < 4; i++) {
        double v = ps->kind == KIND_HIST ? hist_percentile(ps, acc, pcts[i])
                                         : lat_percentile(acc, pcts[i]);
        record_metric(ps->a, r, names[i], v);
    }
}

static void emit_hist_metrics(struct parser *ps, struct bench_record *r, const struct dir_acc *acc)
{
    r->bins_metric = "clat";
    double sum = 0, ios = (double)acc->ios;
    for (int i = 0; i < ps->nbins; i++) {
        if (acc->bins[i] > 0) {
            record_bin(ps->a, r, ps->bin_ns[i], (double)acc->bins[i]);
            sum += (double)acc->bins[i] * ps->bin_ns[i];
        }
    }
    record_metric(ps->a, r, "total_ios", ios);
    if (acc->ios > 0) {
        record_metric(ps->a, r, "clat_mean_ns", sum / ios);
        emit_percentiles(ps, r, acc);
    }
}

/* 256-bit unsigned arithmetic, modulo 2^256, for shifted_sums */
struct u256 {
    uint64_t w[4];
};

static void u256_add(struct u256 *x, const uint64_t *v, int nw)
{
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t a = i < nw ? v[i] : 0, s = x->w[i] + a;
        unsigned c = s < a;
        x->w[i] = s + carry;
        carry = c | (x->w[i] < s);
    }
}

/* x += f * (b_hi * 2^64 + b_lo), negated first when neg */
static void u256_add_mul(struct u256 *x, uint64_t f, uint64_t b_lo, uint64_t b_hi, int neg)
{
    u128 lo = (u128)f * b_lo, hi = (u128)f * b_hi;
    struct u256 p = {{(uint64_t)lo, 0, 0, 0}};
    u128 mid = (lo >> 64) + (uint64_t)hi;
    p.w[1] = (uint64_t)mid;
    p.w[2] = (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64);
    if (neg) { /* two's complement */
        for (int i = 0; i < 4; i++)
            p.w[i] = ~p.w[i];
        uint64_t one = 1;
        u256_add(&p, &one, 1);
    }
    u256_add(x, p.w, 4);
}

static double u256_double(const struct u256 *x)
{
    return ldexp((double)x->w[3], 192) + ldexp((double)x->w[2], 128) + ldexp((double)x->w[1], 64) +
           (double)x->w[0];
}

/* The sum and the sum of squares of value - k (k the first value: the summary's formulas
 * lose no precision to a large mean), computed exactly from the plain sums and rounded once:
 * s1 = sum - n k, s2 = sumsq - 2 k sum + n k^2. */
static void shifted_sums(const struct dir_acc *acc, double *s1, double *s2)
{
    uint64_t k = (uint64_t)acc->k;
    *s1 = (double)(i128)(acc->sum - (u128)acc->n * k);
    struct u256 x = {{(uint64_t)acc->sumsq.lo, (uint64_t)(acc->sumsq.lo >> 64), acc->sumsq.hi, 0}};
    u128 kk = (u128)k * k;
    u256_add_mul(&x, acc->n, (uint64_t)kk, (uint64_t)(kk >> 64), 0);
    u256_add_mul(&x, 2 * k, (uint64_t)acc->sum, (uint64_t)(acc->sum >> 64), 1);
    *s2 = x.w[3] || x.w[2] || x.w[1] ? u256_double(&x) : (double)x.w[0];
}

static void emit_value_metrics(struct parser *ps, struct bench_record *r, const struct dir_acc *acc)
{
    const struct kind_info *k = &kinds[ps->kind];
    double scale = k->scale, n = (double)acc->n, sum, sumsq;
    shifted_sums(acc, &sum, &sumsq);
    double mean = (double)acc->k + sum / n;
    record_metric(ps->a, r, k->mean, mean * scale);
    if (k->avg)
        record_metric(ps->a, r, k->avg, mean * scale);
    record_metric(ps->a, r, k->min, (double)acc->min * scale);
    record_metric(ps->a, r, k->max, (double)acc->max * scale);
    if (acc->n > 1) {
        double var = (sumsq - sum * sum / n) / (n - 1);
        record_metric(ps->a, r, k->stddev, sqrt(var > 0 ? var : 0) * scale);
    }
    if (acc->lat)
        emit_percentiles(ps, r, acc);
}

static void emit_series(struct parser *ps, struct bench_record *r, const struct dir_acc *acc)
{
    const struct series *s = acc->s;
    r->series_metric = kinds[ps->kind].series;
    for (int i = 0; i < SERIES_CAP; i++) {
        if (s->n[i] > 0) {
            double n = (double)s->n[i];
            double v = ps->kind == KIND_HIST ? s->vd[i] : (double)s->v[i];
            record_point(ps->a, r, (double)s->t[i] / n, v / n * kinds[ps->kind].scale);
        }
    }
}

static int emit_dir(struct parser *ps, struct record_sink *out, int ddir, const char *job,
                    const char *index)
{
    const struct dir_acc *acc = &ps->dir[ddir];
    struct bench_record *r = record_new(ps->a, "fio");
    r->job = job;
    r->direction = dir_names[ddir];
    r->line_first = acc->line_first;
    r->line_last = acc->line_last;
    if (acc->bs > 0 && !acc->bs_mixed)
        r->wl.bs_bytes = acc->bs;
    if (ps->epoch)
        r->started_at = ps->t0 / 1000;
    record_tag(ps->a, r, "log_kind", kinds[ps->kind].tag);
    if (index)
        record_tag(ps->a, r, "log_job_index", index);
    if (kinds[ps->kind].p50)
        record_tag(ps->a, r, "log_unit", ps->kind == KIND_HIST && ps->fio2_hist ? "us" : "ns");
    if (ps->both)
        record_tag(ps->a, r, "log_window_value", "both");
    if (ps->epoch)
        record_tag(ps->a, r, "log_time", "unix_epoch");
    if (ps->kind == KIND_HIST)
        emit_hist_metrics(ps, r, acc);
    else
        emit_value_metrics(ps, r, acc);
    record_metric(ps->a, r, "samples", (double)acc->n);
    record_metric(ps->a, r, "runtime_ms", (double)acc->t_max);
    emit_series(ps, r, acc);
    return out->emit(out->ctx, r);
}

/* ---- parse ---- */

static int parse_line(struct parser *ps, const char *p, const char *end, const char *eol,
                      unsigned line)
{
    struct row r;
    int first = !ps->ncols;
    int max = first ? MAX_COLS : ps->ncols;
    int hex_cols = ps->nbins ? 0 : MAX_PLAIN_COLS;
    enum row_status st = scan_row(p, eol, ps->cols, max, ps->colpos, hex_cols, 0, &r);
    if (st != ROW_OK)
        return row_error(ps, st, &r, eol);
    if (first) {
        ps->line1 = line;
        if (setup_layout(ps, p, end, eol, &r))
            return -1;
        /* fio's hex priorities are no histogram counts */
        if (ps->nbins && scan_row(p, eol, ps->cols, max, ps->colpos, 0, 0, &r) != ROW_OK)
            return row_error(ps, ROW_BAD_INT, &r, eol);
    } else if (r.n != ps->ncols) {
        return error_pos(ps, eol, "expected %d columns as on line %u, got %d", ps->ncols, ps->line1,
                         r.n);
    }
    return ps->nbins ? hist_row(ps, eol, line) : plain_row(ps, eol, line);
}

/* Parses the lines of [p, end) and returns where it stopped, or NULL after an error. Unless
 * eof, it stops before a line without its newline and before the first data line when less
 * than LOOKAHEAD_BYTES follow (a stream then reads more and calls again from there). */
static const char *parse_lines(struct parser *ps, const char *p, const char *end, int eof)
{
    while (p < end) {
        const char *eol, *next;
        if (ps->ncols && !ps->layout_only &&
            (next = scan_fio_line(p, end, ps->cols, ps->ncols, ps->colpos, &eol))) {
            ps->bol = p;
            if (ps->nbins ? hist_row(ps, eol, ++ps->line) : plain_row(ps, eol, ++ps->line))
                return NULL;
            p = next;
            continue;
        }
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && !eof)
            break;
        eol = nl ? nl : end;
        if (eol > p && eol[-1] == '\r')
            eol--;
        if (skip_blank(p, eol) != eol) {
            if (!ps->ncols && !eof && end - p <= LOOKAHEAD_BYTES)
                break;
            ps->line++;
            ps->bol = p;
            if (parse_line(ps, p, end, eol, ps->line))
                return NULL;
            if (!nl) { /* fio ends every line with one: the input was cut inside this line
                        * (checked after the line, whose own errors say more) */
                error_pos(ps, eol,
                          "expected a newline ending the last sample, got the end of "
                          "the input (a cut log?)");
                return NULL;
            }
            if (ps->layout_only && ps->ncols)
                return nl + 1;
        } else {
            ps->line++;
        }
        p = nl ? nl + 1 : end;
    }
    return p;
}

static struct parser *parser_new(const struct source *src, struct arena *a, struct diag *d)
{
    struct parser *ps = xcalloc(1, sizeof(*ps));
    ps->src = src;
    ps->a = a;
    ps->d = d;
    return ps;
}

/* After the last line: the warnings and one record per direction. Frees ps. */
static int finish(struct parser *ps, const char *job, const char *index, struct record_sink *out)
{
    int rc = 0;
    if (!ps->ncols)
        diag_warn_line(ps->d, ps->src, 1, "no samples in fio log");
    if (ps->ncols && ps->kind == KIND_UNKNOWN)
        diag_warn_line(ps->d, ps->src, ps->line1,
                       "the file name does not say which fio log this is (expected "
                       "<job>_{bw,iops,lat,clat,slat,clat_hist}.N.log); importing as metric "
                       "'value' with tag log_kind=unknown");
    for (int i = 0; i < NDIR && !rc; i++)
        if (ps->dir[i].n)
            rc = emit_dir(ps, out, i, job, index);
    free(ps);
    return rc ? -1 : 0;
}

static int fio_log_parse(const struct source *src, struct arena *a, struct record_sink *out,
                         struct diag *d)
{
    struct parser *ps = parser_new(src, a, d);
    const char *job, *index;
    ps->kind = kind_from_path(ps, &job, &index);
    const char *end = src->data + src->len;
    if (!parse_lines(ps, src->data + bom_len(src->data, src->len), end, 1)) {
        free(ps);
        return -1;
    }
    return finish(ps, job, index, out);
}

/* ---- a stream parsed in chunks on several threads ----
 *
 * After the line that sets the layout (parsed here), the rest of the input is cut at line
 * ends into chunks of about CHUNK_BYTES, each parsed by a thread into accumulators of its own
 * (its line numbers counted from its first line), then merged in file order by the calling
 * thread, which also reads the input. The merge gives what one pass gives (exact sums; a
 * histogram log's series points replayed in order) and reports the error of the first
 * failing chunk at its line in the file. Memory: CHUNKS_PER_THREAD chunks per thread: the
 * reading thread also hashes each DB_CHUNK_BYTES it reads (import/input.c), and while it does,
 * the parsers live on the chunks queued before; with 2 a thread (one DB_CHUNK_BYTES of lines
 * for 2 threads) they ran dry there when other programs took the CPUs: a 1 GiB log took 10-15 %
 * longer on a loaded machine, 2-3 % on a quiet one (bench/RESULTS.md). */
#define CHUNK_BYTES       (1 << 20)
#define CHUNKS_PER_THREAD 4
#define CHUNK_THREADS_MAX 8

struct chunk {
    char *data;
    size_t len, cap;
    int eof; /* the input's last bytes */
    int done, rc;
    struct parser ps;
    struct arena a;
    struct arena_pool pool;
    struct chunk_error err;
};

struct chunker {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct chunk *chunks;
    unsigned n_chunks;
    uint64_t filled, taken, merged; /* chunks handed out, taken by a thread, merged */
    int stop;
};

/* The input not yet in a chunk: b from off, then the stream. */
struct pending {
    struct buf b;
    size_t off;
    int eof;
};

static void *chunk_worker(void *arg)
{
    struct chunker *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && c->taken == c->filled)
            pthread_cond_wait(&c->changed, &c->lock);
        if (c->stop)
            break;
        struct chunk *ch = &c->chunks[c->taken++ % c->n_chunks];
        pthread_mutex_unlock(&c->lock);
        ch->rc = parse_lines(&ch->ps, ch->data, ch->data + ch->len, ch->eof) ? 0 : -1;
        pthread_mutex_lock(&c->lock);
        ch->done = 1;
        pthread_cond_broadcast(&c->changed);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Fills ch with the next whole lines of the input (the last chunk: all the rest), at most
 * want bytes unless one line is longer. 0, or -1 after a read error (in reported it). */
static int fill_chunk(struct chunk *ch, struct pending *p, struct stream *in, size_t want)
{
    ch->len = 0;
    ch->eof = 0;
    for (;;) {
        if (ch->cap < want) {
            ch->cap = want;
            ch->data = xrealloc(ch->data, ch->cap);
        }
        size_t take = p->b.len - p->off < ch->cap - ch->len ? p->b.len - p->off : ch->cap - ch->len;
        memcpy(ch->data + ch->len, p->b.data + p->off, take);
        ch->len += take;
        p->off += take;
        int from_pending = p->off < p->b.len; /* ch filled before p ran out */
        while (!from_pending && !p->eof && ch->len < ch->cap) {
            size_t n = 0;
            if (in->read(in->ctx, ch->data + ch->len, ch->cap - ch->len, &n))
                return -1;
            p->eof = n == 0;
            ch->len += n;
        }
        if (!from_pending && p->eof) {
            ch->eof = 1;
            return 0;
        }
        size_t cut = ch->len;
        while (cut > 0 && ch->data[cut - 1] != '\n')
            cut--;
        if (cut > 0) {
            size_t tail = ch->len - cut;
            if (from_pending) {
                p->off -= tail;
            } else {
                buf_reset(&p->b);
                p->off = 0;
                buf_add(&p->b, ch->data + cut, tail);
            }
            ch->len = cut;
            return 0;
        }
        want = ch->cap * 2; /* a line longer than the chunk */
    }
}

/* A chunk's parser: the layout of ps, empty accumulators, lines counted from 1. */
static void chunk_setup(struct chunk *ch, const struct parser *ps)
{
    struct parser *cp = &ch->ps;
    memset(cp, 0, offsetof(struct parser, cols));
    memset(cp->dir, 0, sizeof(cp->dir));
    cp->src = ps->src;
    cp->streaming = 1;
    cp->a = &ch->a;
    cp->kind = ps->kind;
    cp->ncols = ps->ncols;
    cp->line1 = ps->line1;
    cp->both = ps->both;
    cp->nbins = ps->nbins;
    cp->bin_ns = ps->bin_ns;
    cp->fio2_hist = ps->fio2_hist;
    cp->epoch = ps->epoch;
    cp->t0 = ps->t0;
    cp->err = &ch->err;
    cp->layout_only = 0;
    cp->points = NULL;
    cp->n_points = cp->cap_points = 0;
    ch->a.pool = &ch->pool;
    ch->done = ch->rc = 0;
}

static void chunk_clear(struct chunk *ch)
{
    arena_release(&ch->a);
    buf_reset(&ch->err.prefix);
    buf_reset(&ch->err.msg);
}

static void merge_dir(struct parser *ps, int ddir, struct dir_acc *from, unsigned base)
{
    struct dir_acc *acc = dir_get(ps, ddir, base + from->line_first);
    acc->line_last = base + from->line_last;
    if (!acc->n)
        acc->k = from->k;
    acc->n += from->n;
    acc->sum += from->sum;
    acc->sumsq.lo += from->sumsq.lo;
    acc->sumsq.hi += from->sumsq.hi + (acc->sumsq.lo < from->sumsq.lo);
    if (from->min < acc->min)
        acc->min = from->min;
    if (from->max > acc->max)
        acc->max = from->max;
    if (from->t_max > acc->t_max)
        acc->t_max = from->t_max;
    if (from->bs >= 0)
        note_bs(acc, from->bs);
    acc->bs_mixed |= from->bs_mixed;
    if (acc->lat)
        for (unsigned i = 0; i < LAT_BUCKETS; i++)
            acc->lat[i] += from->lat[i];
    if (acc->bins) {
        for (int i = 0; i < ps->nbins; i++)
            acc->bins[i] += from->bins[i];
        acc->ios += from->ios;
    } else {
        series_absorb(acc->s, from->s);
    }
}

/* Adds a parsed chunk to ps, or reports its error at its place in the file. */
static int merge_chunk(struct parser *ps, struct chunk *ch)
{
    const struct parser *cp = &ch->ps;
    unsigned base = ps->line;
    if (ch->rc)
        return error_streamed(ps, base + ch->err.line, ch->err.prefix.data, ch->err.prefix.len,
                              ch->err.msg.data);
    for (int i = 0; i < NDIR; i++)
        if (cp->dir[i].line_first)
            merge_dir(ps, i, &ch->ps.dir[i], base);
    for (size_t i = 0; i < cp->n_points; i++)
        series_add_mean(ps->dir[cp->points[i].ddir].s, cp->points[i].t, cp->points[i].v);
    ps->line = base + cp->line;
    return 0;
}

/* Parses the rest of the input (p, then in) on threads; 0, or -1 after an error. */
static int parse_chunked(struct parser *ps, struct stream *in, struct pending *p, unsigned threads)
{
    struct chunker c = {.n_chunks = CHUNKS_PER_THREAD * threads};
    size_t want = (size_t)scan_env_int64("BENCHDB_LOG_CHUNK_BYTES", CHUNK_BYTES);
    pthread_t tid[CHUNK_THREADS_MAX];
    unsigned started = 0;
    int rc = 0;
    c.chunks = xcalloc(c.n_chunks, sizeof(*c.chunks));
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.changed, NULL);
    while (started < threads && !pthread_create(&tid[started], NULL, chunk_worker, &c))
        started++;
    if (!started) /* no thread: the chunks are parsed here, one at a time */
        c.n_chunks = 1;
    for (;;) {
        while (!rc && (!p->eof || p->off < p->b.len) && c.filled - c.merged < c.n_chunks) {
            struct chunk *ch = &c.chunks[c.filled % c.n_chunks];
            if (fill_chunk(ch, p, in, want ? want : 1)) {
                rc = -1;
                break;
            }
            if (!ch->len)
                break;
            chunk_setup(ch, ps);
            if (!started) {
                ch->rc = parse_lines(&ch->ps, ch->data, ch->data + ch->len, ch->eof) ? 0 : -1;
                ch->done = 1;
            }
            pthread_mutex_lock(&c.lock);
            c.filled++;
            pthread_cond_broadcast(&c.changed);
            pthread_mutex_unlock(&c.lock);
            if (ch->eof)
                break;
        }
        if (rc || c.merged == c.filled)
            break;
        struct chunk *ch = &c.chunks[c.merged % c.n_chunks];
        pthread_mutex_lock(&c.lock);
        while (!ch->done)
            pthread_cond_wait(&c.changed, &c.lock);
        pthread_mutex_unlock(&c.lock);
        rc = merge_chunk(ps, ch);
        chunk_clear(ch);
        c.merged++;
    }
    pthread_mutex_lock(&c.lock);
    c.stop = 1;
    pthread_cond_broadcast(&c.changed);
    pthread_mutex_unlock(&c.lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (unsigned i = 0; i < c.n_chunks; i++) {
        chunk_clear(&c.chunks[i]);
        arena_pool_release(&c.chunks[i].pool);
        buf_release(&c.chunks[i].err.prefix);
        buf_release(&c.chunks[i].err.msg);
        free(c.chunks[i].data);
    }
    free(c.chunks);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.changed);
    return rc;
}

/* The same as fio_log_parse on a window of WINDOW_BYTES read from in (larger only for a longer
 * line): memory does not grow with the input. With in->jobs > 1, the lines after the first
 * are parsed on that many threads (at most CHUNK_THREADS_MAX), with the same results. */
static int fio_log_parse_stream(struct stream *in, struct arena *a, struct record_sink *out,
                                struct diag *d)
{
    struct source src = {in->path, NULL, 0};
    struct parser *ps = parser_new(&src, a, d);
    const char *job, *index;
    ps->kind = kind_from_path(ps, &job, &index);
    ps->streaming = 1;
    unsigned threads = in->jobs < CHUNK_THREADS_MAX ? in->jobs : CHUNK_THREADS_MAX;
    ps->layout_only = threads > 1;
    size_t cap = WINDOW_BYTES, have = 0;
    char *win = xmalloc(cap);
    int eof = 0, rc = 0;
    for (int first = 1; !rc; first = 0) {
        while (!rc && !eof && have < cap) {
            size_t n = 0;
            rc = in->read(in->ctx, win + have, cap - have, &n);
            eof = n == 0;
            have += n;
        }
        const char *start = first ? win + bom_len(win, have) : win;
        const char *stop = rc ? NULL : parse_lines(ps, start, win + have, eof);
        if (stop && ps->layout_only && ps->ncols) {
            struct pending p = {BUF_INIT, 0, eof};
            buf_add(&p.b, stop, (size_t)(win + have - stop));
            free(win);
            win = NULL;
            rc = parse_chunked(ps, in, &p, threads);
            buf_release(&p.b);
            break;
        }
        if (!stop || eof) {
            rc = stop ? 0 : -1;
            break;
        }
        size_t rest = (size_t)(win + have - stop);
        if (rest == have) { /* one line (or the look-ahead) fills the window */
            cap *= 2;
            win = xrealloc(win, cap);
        } else {
            memmove(win, stop, rest);
            have = rest;
        }
    }
    free(win);
    if (rc) {
        free(ps);
        return -1;
    }
    return finish(ps, job, index, out);
}

const struct importer importer_fio_log = {
    .name = "fio-log",
    .summary = "fio --write_{bw,iops,lat}_log and --write_hist_log files",
    .probe = fio_log_probe,
    .parse = fio_log_parse,
    .parse_stream = fio_log_parse_stream,
};
