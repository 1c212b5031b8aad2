/* fio_terse.c: fio --minimal / --output-format=terse, terse versions 2 to 5 (docs/formats.md 2).
 *
 * One `;`-separated line per job (or group_reporting group): header (v2 `2;name;g;err`, v3+
 * `V;fio-X;name;g;err`), then per direction a block of 41 fields (47 in v5): READ, WRITE, and
 * TRIM in v2/v4/v5. unified_rw_reporting=mixed writes one block (direction "mixed"), =both
 * writes the usual blocks plus a mixed one; the block count is found from where the CPU fields
 * (`12.5%`) start. Then 34 fields of CPU and distributions, disk-util entries (v3+, 9 fields,
 * 9 more after `slaves`), `total_err;first_error` with continue_on_error, and the description
 * (v2: on its own `;text` line). Units: KiB, KiB/s, ms, and µs for every latency (fio 3.x
 * truncates ns/1000 for min/max/percentiles). A latency or bw/iops statistic that fio printed as
 * all zeros had no samples (calc_lat() failed) and is left absent. Percentiles are stored as
 * clat_pP_ns: terse does not say when lat_percentiles made them total latencies.
 *
 * Terse carries no workload; fio prints its normal-mode job header `name: (g=0): rw=..., bs=(R)
 * ..., ioengine=..., iodepth=N` for jobs defined before --minimal took effect (at job setup, so
 * not next to the result line): it is matched to result lines by job name and group.
 *
 * A result line without its line end was cut: an error. A copy cut between two whole lines of
 * one job's threads (numjobs without group_reporting) cannot be told from a run with fewer
 * threads: terse names no job count. */
#include "importer.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/xalloc.h"

enum { TAIL_FIELDS = 34, MAX_BLOCKS = 4, MAX_ERRNOS = 16 };

struct field {
    const char *s;
    size_t n;
};

/* The fields of one line; the array is reused from line to line. */
struct fields {
    struct field *f;
    size_t n, alloc;
    const char *end; /* end of the line, for "got end of line" */
};

struct job_header {
    const char *name;
    int64_t group, iodepth;
    const char *rw, *ioengine;
    int64_t bs[3]; /* read, write, trim: min == max, else WL_UNKNOWN */
    int ambiguous; /* the same name and group with different options */
};

struct fio_error {
    int64_t code;
    const char *msg;
};

struct terse {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct fields fl;
    struct job_header *hdrs;
    size_t n_hdrs, a_hdrs;
    struct fio_error errs[MAX_ERRNOS];
    size_t n_errs;
    unsigned lineno;
    /* records of the last job line, held back for a v2 description line */
    struct bench_record *pending[MAX_BLOCKS];
    size_t n_pending;
    int pending_v2;
    size_t emitted;
    /* the first job line with error != 0 and no I/O */
    unsigned failed_line;
    const char *failed_job;
    int64_t failed_err;
};

/* ---- small helpers ---- */

static int is_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Text for a message: at most max bytes, unprintable bytes as '?'. */
static const char *printable(struct arena *a, const char *s, size_t n, size_t max)
{
    size_t k = n > max ? max : n;
    char *t = arena_alloc(a, k + 4);
    for (size_t i = 0; i < k; i++)
        t[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
    if (k < n)
        memcpy(t + k, "...", 3);
    return t;
}

static const char *token(struct arena *a, const char *s, size_t n)
{
    return printable(a, s, n, 40);
}

static void split(struct fields *fl, const char *line, size_t len)
{
    struct field_iter it;
    const char *s;
    size_t n;
    fl->n = 0;
    fl->end = line + len;
    field_iter_init(&it, line, len, ';');
    while (field_iter_next(&it, &s, &n)) {
        ALLOC_GROW(fl->f, fl->n, fl->alloc);
        fl->f[fl->n++] = (struct field){s, n};
    }
}

/* A whole field as a number; with pct, followed by exactly one '%'. */
static int field_number(const struct field *f, int pct, double *v)
{
    const char *p = f->s, *end = f->s + f->n;
    if (!f->n || *p == '+' || *p == '-' || !scan_number(&p, v) || p > end || fabs(*v) > 1e300)
        return 0;
    if (pct && p < end && *p == '%')
        p++;
    else if (pct)
        return 0;
    return p == end;
}

/* `99.500000%=3260` (percentile, value) or the unused slot `0%=0` (*used = 0). */
static int field_pctile(const struct field *f, double *p, double *v, int *used)
{
    if (f->n == 4 && !memcmp(f->s, "0%=0", 4)) {
        *used = 0;
        return 1;
    }
    const char *eq = mem_find(f->s, f->n, "%=");
    if (!eq)
        return 0;
    struct field pf = {f->s, (size_t)(eq - f->s)}, vf = {eq + 2, f->n - pf.n - 2};
    if (!field_number(&pf, 0, p) || !field_number(&vf, 0, v) || *p <= 0 || *p > 100)
        return 0;
    for (size_t i = 0; i < pf.n; i++)
        if (!isdigit((unsigned char)pf.s[i]) && pf.s[i] != '.')
            return 0;
    *used = 1;
    return 1;
}

/* `-nan%`: a distribution fio printed as 0/0 because the job completed no I/O (a job that
 * failed its setup, e.g. err=22 for a missing size=, next to jobs that ran). */
static int is_nan_pct(const struct field *f)
{
    return (f->n == 5 && !memcmp(f->s, "-nan%", 5)) || (f->n == 4 && !memcmp(f->s, "nan%", 4));
}

static int is_pct_field(const struct fields *fl, size_t i)
{
    double v;
    return i < fl->n && field_number(&fl->f[i], 1, &v);
}

static int is_pctile_field(const struct fields *fl, size_t i)
{
    return i < fl->n && mem_find(fl->f[i].s, fl->f[i].n, "%=");
}

/* ---- located errors ---- */

/* `expected WHAT (NAME, field N), got '...'`, at the field or at the end of a short line */
static int bad_field(struct terse *t, int version, size_t i, const char *what, const char *name)
{
    if (i >= t->fl.n)
        return diag_error_at(t->d, t->src, (size_t)(t->fl.end - t->src->data),
                             "truncated terse v%d line: expected %s (%s, field %zu), "
                             "got end of line",
                             version, what, name, i + 1);
    const struct field *f = &t->fl.f[i];
    return diag_error_at(t->d, t->src, (size_t)(f->s - t->src->data),
                         "expected %s (%s, field %zu), got '%s'", what, name, i + 1,
                         token(t->a, f->s, f->n));
}

static int get_num(struct terse *t, int version, size_t i, const char *name, double *v)
{
    if (i < t->fl.n && field_number(&t->fl.f[i], 0, v))
        return 0;
    return bad_field(t, version, i, "a number", name);
}

static int get_pct(struct terse *t, int version, size_t i, const char *name, double *v)
{
    if (i < t->fl.n && field_number(&t->fl.f[i], 1, v))
        return 0;
    return bad_field(t, version, i, "a percentage", name);
}

/* ---- fio's own lines: job headers and `fio: ...` errors ---- */

static int64_t header_bs(const char *s, size_t n)
{
    const char *dash = mem_find(s, n, "-");
    char lo[32], hi[32];
    size_t nl = dash ? (size_t)(dash - s) : 0, nh = dash ? n - nl - 1 : 0;
    if (!dash || !nl || !nh || nl >= sizeof(lo) || nh >= sizeof(hi))
        return WL_UNKNOWN;
    memcpy(lo, s, nl);
    lo[nl] = '\0';
    memcpy(hi, dash + 1, nh);
    hi[nh] = '\0';
    int64_t a, b;
    /* num2str may round with a fraction ("1.5MiB"): only exact sizes */
    if (memchr(lo, '.', nl) || memchr(hi, '.', nh) || !parse_fio_size(lo, &a) ||
        !parse_fio_size(hi, &b) || a != b || a <= 0)
        return WL_UNKNOWN;
    return a;
}

/* `(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B` or `(R) a-b, (W) c-d, bs_is_seq_rand` */
static void header_bs_list(struct job_header *h, const char *s, size_t n)
{
    static const char *const tags[] = {"(R) ", "(W) ", "(T) "};
    int seq_rand = mem_find(s, n, "bs_is_seq_rand") != NULL;
    for (int k = 0; k < 3; k++) {
        const char *p = mem_find(s, n, tags[k]);
        if (!p)
            continue;
        p += 4;
        const char *e = mem_find(p, (size_t)(s + n - p), ",");
        h->bs[k] = header_bs(p, e ? (size_t)(e - p) : (size_t)(s + n - p));
    }
    if (seq_rand) { /* (R) is the sequential size, (W) the random one */
        int64_t bs = h->bs[0] == h->bs[1] ? h->bs[0] : WL_UNKNOWN;
        h->bs[0] = h->bs[1] = h->bs[2] = bs;
    }
}

static int header_same(const struct job_header *x, const struct job_header *y)
{
    return x->iodepth == y->iodepth && !strcmp(x->rw, y->rw) && !strcmp(x->ioengine, y->ioengine) &&
           !memcmp(x->bs, y->bs, sizeof(x->bs));
}

/* name: (g=0): rw=randrw, bs=(R) 4096B-4096B, ..., ioengine=libaio, iodepth=32 */
static void scan_job_header(struct terse *t, const char *line, size_t n)
{
    const char *g = mem_find(line, n, ": (g="), *end = line + n;
    if (!g)
        return;
    struct job_header h = {0};
    h.bs[0] = h.bs[1] = h.bs[2] = WL_UNKNOWN;
    const char *p = g + 5, *rw, *bs, *eng, *depth;
    if (!scan_int64(&p, &h.group) || !mem_starts(p, (size_t)(end - p), "): rw="))
        return;
    rw = p + 6;
    bs = mem_find(rw, (size_t)(end - rw), ", bs=");
    eng = bs ? mem_find(bs, (size_t)(end - bs), ", ioengine=") : NULL;
    depth = eng ? mem_find(eng, (size_t)(end - eng), ", iodepth=") : NULL;
    if (!depth || !is_digits(depth + 10, (size_t)(end - depth - 10)))
        return;
    p = depth + 10;
    if (!scan_int64(&p, &h.iodepth))
        return;
    h.name = arena_strndup(t->a, line, (size_t)(g - line));
    h.rw = arena_strndup(t->a, rw, (size_t)(bs - rw));
    h.ioengine = arena_strndup(t->a, eng + 11, (size_t)(depth - eng - 11));
    header_bs_list(&h, bs + 5, (size_t)(eng - bs - 5));
    for (size_t i = 0; i < t->n_hdrs; i++) {
        struct job_header *o = &t->hdrs[i];
        if (o->group == h.group && !strcmp(o->name, h.name)) {
            if (!header_same(o, &h))
                o->ambiguous = 1;
            return;
        }
    }
    ALLOC_GROW(t->hdrs, t->n_hdrs, t->a_hdrs);
    t->hdrs[t->n_hdrs++] = h;
}

/* fio: pid=33699, err=11/file:engines/libaio.c:354, func=io_queue_init, error=Resource ... */
static void scan_fio_error(struct terse *t, const char *line, size_t n)
{
    const char *e = mem_find(line, n, " err="), *msg = mem_find(line, n, ", error=");
    int64_t code;
    if (!e || !msg || t->n_errs == MAX_ERRNOS)
        return;
    const char *p = e + 5;
    if (!scan_int64(&p, &code))
        return;
    for (size_t i = 0; i < t->n_errs; i++)
        if (t->errs[i].code == code)
            return;
    msg += 8;
    t->errs[t->n_errs].code = code;
    t->errs[t->n_errs++].msg = printable(t->a, msg, (size_t)(line + n - msg), 200);
}

static const struct job_header *header_for(const struct terse *t, const char *name, int64_t g)
{
    for (size_t i = 0; i < t->n_hdrs; i++)
        if (t->hdrs[i].group == g && !strcmp(t->hdrs[i].name, name))
            return t->hdrs[i].ambiguous ? NULL : &t->hdrs[i];
    return NULL;
}

/* ---- one terse line ---- */

/* Field names inside a direction block, for messages. */
static const char *const block_names[] = {
    "kb",        "bw",       "iops",     "runtime",  "slat_min",  "slat_max",
    "slat_mean", "slat_dev", "clat_min", "clat_max", "clat_mean", "clat_dev",
};
static const char *const tail_block_names[] = {
    "lat_min",  "lat_max",  "lat_mean",  "lat_dev",  "bw_min",
    "bw_max",   "bw_agg",   "bw_mean",   "bw_dev",   "bw_samples",
    "iops_min", "iops_max", "iops_mean", "iops_dev", "iops_samples",
};

static const char *block_field_name(struct terse *t, const char *dir, size_t off)
{
    if (off < 12)
        return arena_printf(t->a, "%s_%s", dir, block_names[off]);
    if (off < 32)
        return arena_printf(t->a, "%s_clat_pct%02zu", dir, off - 11);
    return arena_printf(t->a, "%s_%s", dir, tail_block_names[off - 32]);
}

/* Adds name_{min,max,mean,stddev}suffix scaled by mult, unless fio printed four zeros. */
static void stat4(struct terse *t, struct bench_record *r, const char *name, const char *suffix,
                  const double v[4], double mult)
{
    static const char *const part[] = {"min", "max", "mean", "stddev"};
    if (!v[0] && !v[1] && !v[2] && !v[3])
        return;
    for (int k = 0; k < 4; k++)
        record_metric(t->a, r, arena_printf(t->a, "%s_%s%s", name, part[k], suffix), v[k] * mult);
}

/* Parses the direction block at field b into r; *did_io says whether it counts. */
static int parse_block(struct terse *t, int ver, size_t b, const char *dir, struct bench_record *r,
                       int *did_io)
{
    double v[12], lat[4], bw[5], iops[6];
    for (size_t k = 0; k < 12; k++)
        if (get_num(t, ver, b + k, block_field_name(t, dir, k), &v[k]))
            return -1;
    *did_io = v[0] > 0 || v[2] > 0;
    record_metric(t->a, r, "io_bytes", v[0] * 1024);
    record_metric(t->a, r, "bw_bytes_s", v[1] * 1024);
    record_metric(t->a, r, "iops", v[2]);
    record_metric(t->a, r, "runtime_ms", v[3]);
    stat4(t, r, "slat", "_ns", v + 4, 1000);
    stat4(t, r, "clat", "_ns", v + 8, 1000);
    for (size_t k = 12; k < 32; k++) {
        double p, x;
        int used;
        if (b + k >= t->fl.n || !field_pctile(&t->fl.f[b + k], &p, &x, &used))
            return bad_field(t, ver, b + k, "a percentile 'P%=N'", block_field_name(t, dir, k));
        if (used)
            record_metric(t->a, r, record_percentile_name(t->a, "clat", p), x * 1000);
    }
    for (size_t k = 0; k < 4; k++)
        if (get_num(t, ver, b + 32 + k, block_field_name(t, dir, 32 + k), &lat[k]))
            return -1;
    stat4(t, r, "lat", "_ns", lat, 1000);
    for (size_t k = 0; k < 5; k++) {
        const char *name = block_field_name(t, dir, 36 + k);
        if (k == 2 ? get_pct(t, ver, b + 36 + k, name, &bw[k])
                   : get_num(t, ver, b + 36 + k, name, &bw[k]))
            return -1;
    }
    double bws[4] = {bw[0], bw[1], bw[3], bw[4]};
    stat4(t, r, "bw", "_bytes_s", bws, 1024);
    if (ver != 5)
        return 0;
    for (size_t k = 0; k < 6; k++)
        if (get_num(t, ver, b + 41 + k, block_field_name(t, dir, 41 + k), &iops[k]))
            return -1;
    stat4(t, r, "iops", "", iops + 1, 1);
    return 0;
}

/* How many direction blocks the line has: the usual count, 1 (unified_rw_reporting=mixed) or
 * one more (=both); 0 when none fits (the line is then parsed as usual to locate the error). */
static size_t count_blocks(const struct fields *fl, size_t hdr, size_t width, size_t usual)
{
    size_t cand[3] = {usual, 1, usual + 1};
    for (int k = 0; k < 3; k++) {
        size_t n = cand[k];
        if (is_pct_field(fl, hdr + n * width) && is_pct_field(fl, hdr + n * width + 1) &&
            is_pctile_field(fl, hdr + (n - 1) * width + 12))
            return n;
    }
    return 0;
}

static int is_disk_entry(const struct fields *fl, size_t i)
{
    if (i + 9 > fl->n || !fl->f[i].n)
        return 0;
    for (size_t k = 1; k < 8; k++)
        if (!is_digits(fl->f[i + k].s, fl->f[i + k].n))
            return 0;
    return is_pct_field(fl, i + 8);
}

/* continue_on_error's `total_err;first_error` */
static int is_error_counts(const struct fields *fl, size_t i)
{
    return i + 2 <= fl->n && is_digits(fl->f[i].s, fl->f[i].n) &&
           is_digits(fl->f[i + 1].s, fl->f[i + 1].n);
}

/* After the fixed tail: disk util (v3+), total_err;first_error, description. */
static int parse_rest(struct terse *t, int ver, size_t i, struct bench_record **recs, size_t n)
{
    const struct fields *fl = &t->fl;
    while (ver >= 3 && is_disk_entry(fl, i)) {
        i += 9;
        if (i < fl->n && fl->f[i].n == 6 && !memcmp(fl->f[i].s, "slaves", 6) &&
            is_disk_entry(fl, i))
            i += 9;
    }
    if (is_error_counts(fl, i)) {
        const char *te = arena_strndup(t->a, fl->f[i].s, fl->f[i].n);
        const char *fe = arena_strndup(t->a, fl->f[i + 1].s, fl->f[i + 1].n);
        for (size_t k = 0; k < n; k++) {
            record_tag(t->a, recs[k], "total_err", te);
            record_tag(t->a, recs[k], "first_error", fe);
        }
        i += 2;
    }
    if (i >= fl->n)
        return 0;
    if (ver == 2)
        return bad_field(t, ver, i, "end of line", "v2 prints the description on its own line");
    /* a name followed by counters is a disk-util entry cut short, not a description */
    if (i + 1 < fl->n && is_digits(fl->f[i + 1].s, fl->f[i + 1].n))
        return bad_field(t, ver, fl->n, "9 fields", "disk util entry");
    const char *desc = arena_strndup(t->a, fl->f[i].s, (size_t)(fl->end - fl->f[i].s));
    for (size_t k = 0; k < n; k++)
        record_tag(t->a, recs[k], "description", desc);
    return 0;
}

static const char *error_msg_for(const struct terse *t, int64_t code)
{
    for (size_t i = 0; i < t->n_errs; i++)
        if (t->errs[i].code == code)
            return t->errs[i].msg;
    return NULL;
}

static void apply_header(const struct job_header *h, struct bench_record *r, int block_dir)
{
    r->wl.rw = h->rw;
    r->wl.ioengine = h->ioengine;
    r->wl.iodepth = h->iodepth;
    if (block_dir >= 0)
        r->wl.bs_bytes = h->bs[block_dir];
    else if (h->bs[0] == h->bs[1] && (h->bs[1] == h->bs[2] || h->bs[2] == WL_UNKNOWN))
        r->wl.bs_bytes = h->bs[0];
}

static int parse_header(struct terse *t, int *ver, size_t *hdr)
{
    const struct fields *fl = &t->fl;
    const struct field *v = &fl->f[0];
    if (v->n != 1 || v->s[0] < '2' || v->s[0] > '5')
        return diag_error_at(t->d, t->src, (size_t)(v->s - t->src->data),
                             "unsupported terse version '%s' (expected 2 to 5)",
                             token(t->a, v->s, v->n));
    *ver = v->s[0] - '0';
    *hdr = *ver == 2 ? 4 : 5;
    if (*ver != 2 && (fl->n < 2 || !mem_starts(fl->f[1].s, fl->f[1].n, "fio")))
        return bad_field(t, *ver, 1, "'fio-VERSION'", "fio_version");
    for (size_t k = *hdr - 2; k < *hdr; k++)
        if (k >= fl->n || !is_digits(fl->f[k].s, fl->f[k].n) || fl->f[k].n > 9)
            return bad_field(t, *ver, k, "a number", k == *hdr - 2 ? "groupid" : "error");
    return 0;
}

static int64_t field_int(const struct field *f)
{
    const char *p = f->s;
    int64_t v = 0;
    scan_int64(&p, &v);
    return v;
}

static int flush_pending(struct terse *t, struct record_sink *out)
{
    for (size_t k = 0; k < t->n_pending; k++)
        if (out->emit(out->ctx, t->pending[k]))
            return -1;
    t->emitted += t->n_pending;
    t->n_pending = 0;
    return 0;
}

static int parse_job_line(struct terse *t, const char *line, size_t len)
{
    static const char *const dirs[] = {"read", "write", "trim"};
    int ver = 0;
    size_t hdr = 0;
    split(&t->fl, line, len);
    if (parse_header(t, &ver, &hdr))
        return -1;
    const struct fields *fl = &t->fl;
    size_t width = ver == 5 ? 47 : 41, usual = ver == 3 ? 2 : 3;
    size_t nblocks = count_blocks(fl, hdr, width, usual);
    if (!nblocks)
        nblocks = usual;
    const char *name = arena_strndup(t->a, fl->f[hdr - 3].s, fl->f[hdr - 3].n);
    const char *version = ver == 2 ? NULL : arena_strndup(t->a, fl->f[1].s, fl->f[1].n);
    int64_t group = field_int(&fl->f[hdr - 2]), err = field_int(&fl->f[hdr - 1]);
    const struct job_header *jh = header_for(t, name, group);
    struct bench_record *recs[MAX_BLOCKS];
    size_t n = 0;
    for (size_t k = 0; k < nblocks; k++) {
        int mixed = nblocks == 1 || k == usual;
        const char *dir = mixed ? "mixed" : dirs[k];
        struct bench_record *r = record_new(t->a, "fio");
        int did_io;
        if (parse_block(t, ver, hdr + k * width, dir, r, &did_io))
            return -1;
        if (!did_io)
            continue;
        r->tool_version = version;
        r->job = name;
        r->direction = dir;
        r->error = (int)err;
        r->error_msg = err ? error_msg_for(t, err) : NULL;
        r->line_first = r->line_last = t->lineno;
        record_tag(t->a, r, "groupid", arena_printf(t->a, "%lld", (long long)group));
        if (!strcmp(name, "All clients")) /* fio --client: the sum of the servers' lines */
            record_tag(t->a, r, "aggregate", "all-clients");
        r->groupid = group;
        if (jh)
            apply_header(jh, r, mixed ? -1 : (int)k);
        recs[n++] = r;
    }
    size_t tail = hdr + nblocks * width;
    double cpu[2], x;
    static const char *const cpu_names[] = {"cpu_usr", "cpu_sys", "cpu_csw", "cpu_mjf", "cpu_minf"};
    for (size_t k = 0; k < TAIL_FIELDS; k++) {
        const char *what = k < 5    ? cpu_names[k]
                           : k < 12 ? "iodepth distribution"
                                    : "latency distribution";
        if (k >= 5 && tail + k < fl->n && is_nan_pct(&fl->f[tail + k]))
            continue; /* checked only, never stored */
        if (k >= 2 && k < 5 ? get_num(t, ver, tail + k, what, &x)
                            : get_pct(t, ver, tail + k, what, k < 2 ? &cpu[k] : &x))
            return -1;
    }
    for (size_t k = 0; k < n; k++) {
        record_metric(t->a, recs[k], "cpu_usr_pct", cpu[0]);
        record_metric(t->a, recs[k], "cpu_sys_pct", cpu[1]);
    }
    if (parse_rest(t, ver, tail + TAIL_FIELDS, recs, n))
        return -1;
    if (!n && err && !t->failed_line) {
        t->failed_line = t->lineno;
        t->failed_job = printable(t->a, name, strlen(name), 100);
        t->failed_err = err;
    }
    memcpy(t->pending, recs, n * sizeof(*recs));
    t->n_pending = n;
    t->pending_v2 = ver == 2;
    return 0;
}

/* A result line starts with a version number and ';' (only 2..5 are valid). */
static int is_job_line(const char *line, size_t n)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)line[i]))
        i++;
    return i > 0 && i < n && line[i] == ';';
}

static void first_pass(struct terse *t, unsigned *fio_line, const char **fio_msg, size_t *fio_len)
{
    struct line_iter it;
    const char *line;
    size_t n;
    line_iter_init(&it, t->src->data, t->src->len, 0);
    while (line_iter_next(&it, &line, &n)) {
        size_t b = it.lineno == 1 ? bom_len(line, n) : 0;
        line += b;
        n -= b;
        if (mem_starts(line, n, "fio: ")) {
            if (!*fio_line) {
                *fio_line = it.lineno;
                *fio_msg = line + 5;
                *fio_len = n - 5;
            }
            scan_fio_error(t, line, n);
        } else if (!is_job_line(line, n) && n && line[0] != ';') {
            scan_job_header(t, line, n);
        }
    }
}

/* `Jobs: 1 (f=1): [r(1)][...][eta 00m:00s]\r3;fio-3.33;...`: fio's status line, redrawn with
 * carriage returns and no line end before the result line (fio --client, or stderr sent to
 * the same file). What a terminal would show is the text after the last '\r' (a '\r' that
 * ends the line is a CRLF line end): the bytes to skip. */
static size_t eta_prefix(const char *line, size_t n)
{
    size_t skip = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (line[i] == '\r')
            skip = i + 1;
    return skip;
}

/* fio ends every line: a result or description line the input ends in was cut, maybe inside the
 * description, or inside a disk-util entry that would then be read as one. */
static int cut_line(struct terse *t, const char *line, size_t n)
{
    if (line + n != t->src->data + t->src->len)
        return 0;
    return diag_error_at(t->d, t->src, t->src->len,
                         "truncated terse line: expected a line end, got end of file");
}

static int parse_records(const struct source *src, struct arena *a, struct record_sink *out,
                         struct diag *d)
{
    struct terse t = {0};
    t.src = src;
    t.a = a;
    t.d = d;
    unsigned fio_line = 0, job_lines = 0;
    const char *fio_msg = NULL;
    size_t fio_len = 0;
    int rc = 0;
    first_pass(&t, &fio_line, &fio_msg, &fio_len);
    struct line_iter it;
    const char *line;
    size_t n;
    line_iter_init(&it, src->data, src->len, 0);
    while (!rc && line_iter_next(&it, &line, &n)) {
        size_t b = it.lineno == 1 ? bom_len(line, n) : 0;
        line += b;
        n -= b;
        b = eta_prefix(line, n);
        line += b;
        n -= b;
        t.lineno = it.lineno;
        if (n && line[0] == ';' && t.pending_v2 && t.n_pending) {
            /* v2 writes the description on the line after the job line */
            const char *desc = arena_strndup(a, line + 1, n - 1);
            for (size_t k = 0; k < t.n_pending; k++) {
                record_tag(a, t.pending[k], "description", desc);
                t.pending[k]->line_last = it.lineno;
            }
            t.pending_v2 = 0;
            rc = cut_line(&t, line, n);
            continue;
        }
        if (!is_job_line(line, n))
            continue;
        rc = flush_pending(&t, out);
        if (!rc) {
            job_lines++;
            rc = parse_job_line(&t, line, n);
        }
        if (!rc)
            rc = cut_line(&t, line, n);
    }
    if (!rc)
        rc = flush_pending(&t, out);
    free(t.fl.f);
    free(t.hdrs);
    if (rc)
        return -1;
    if (!job_lines && fio_line)
        return diag_error_line(d, src, fio_line, "fio run failed: %s",
                               printable(a, fio_msg, fio_len, 300));
    if (!job_lines) /* at the last line, where one was still expected */
        return diag_error_line(d, src, it.lineno ? it.lineno : 1, "no fio terse result line found");
    if (t.failed_line) {
        const char *msg = error_msg_for(&t, t.failed_err);
        if (!t.emitted)
            return diag_error_line(
                d, src, t.failed_line, "fio run failed: job '%s' did no I/O, error %lld%s%s",
                t.failed_job, (long long)t.failed_err, msg ? ": " : "", msg ? msg : "");
        diag_warn_line(d, src, t.failed_line, "job '%s' did no I/O, error %lld%s%s", t.failed_job,
                       (long long)t.failed_err, msg ? ": " : "", msg ? msg : "");
    }
    return 0;
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    return jobs_parse(parse_records, src, a, out, d);
}

/* 95 for a well-formed terse line (the first line starting with a number and ';'), 40 for a
 * `3;fio-...` line that does not parse (so that parse() reports where), 0 otherwise. */
static int probe(const struct source *src)
{
    struct line_iter it;
    const char *line;
    size_t n;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &n) && it.lineno <= 1000) {
        size_t b = it.lineno == 1 ? bom_len(line, n) : 0;
        line += b;
        n -= b;
        if (!is_job_line(line, n))
            continue;
        if (n < 2 || line[0] < '2' || line[0] > '5' || line[1] != ';')
            return 0;
        int v2 = line[0] == '2';
        if (!v2 && !mem_starts(line + 2, n - 2, "fio-"))
            return 0;
        struct fields fl = {0};
        split(&fl, line, n);
        size_t hdr = v2 ? 4 : 5, width = line[0] == '5' ? 47 : 41, usual = line[0] == '3' ? 2 : 3;
        size_t nb = count_blocks(&fl, hdr, width, usual);
        int ok = nb && fl.n >= hdr + nb * width + TAIL_FIELDS;
        free(fl.f);
        return ok ? 95 : v2 ? 10 : 40;
    }
    return 0;
}

const struct importer importer_fio_terse = {
    .name = "fio-terse",
    .summary = "fio --minimal / --output-format=terse, versions 2-5",
    .probe = probe,
    .parse = parse,
};
