/* fio_json.c: fio --output-format=json and json+ (fio 2.x and 3.x, local and client/server).
 *
 * Units by version (docs/formats.md 1.3): fio >= 3.0 reports latencies in ns (`clat_ns`), older
 * versions in µs (`clat`); `bw` is KiB/s everywhere, `bw_bytes` (3.2+) bytes/s; `io_bytes` was
 * KiB until fio 2.21 (detected by the absence of `io_kbytes`). Text around the JSON (warnings,
 * `fio: terminating on signal 2`, the normal report of `--output-format=normal,json`) is
 * skipped; with `--status-interval` fio prints several documents and the last one is final
 * (one without the line end fio writes after it was cut). */
#include "importer.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "fastjson.h"

struct fio_doc {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    const cJSON *root;
    const cJSON *global;
    const char *version;
    int latency_in_ns;   /* fio >= 3.0: *_ns objects */
    int io_bytes_in_kib; /* fio < 2.21 */
    int64_t timestamp;
    unsigned line_first, line_last;     /* the document's (locate) */
    size_t start, stop;                 /* the document's bytes */
    const struct fastjson_spans *spans; /* its objects' lines (none: cJSON parsed it) */
    unsigned job_first, job_last;       /* the job object being read */
};

/* ---- a document's tree ---- */

/* One parsed document: fastjson's tree, allocated from mem and freed with it, with the lines
 * of its objects in spans; or, for what fastjson leaves to cJSON (errors included), cJSON's
 * own tree, freed by cJSON_Delete (spans.n is then 0). */
struct json_tree {
    cJSON *root;
    int by_cjson;
    struct arena mem;
    struct fastjson_spans spans;
};

static cJSON *tree_parse(struct json_tree *t, const char *s, size_t len, const char **end)
{
    t->root = fastjson_parse(&t->mem, s, len, end, &t->spans);
    t->by_cjson = !t->root;
    if (t->root)
        return t->root;
    t->spans.n = 0;
    arena_release(&t->mem); /* what fastjson made before it gave up */
    return t->root = cJSON_ParseWithLengthOpts(s, len, end, 0);
}

/* Frees the tree; the spans' room is kept for the next document. */
static void tree_clear(struct json_tree *t)
{
    if (t->by_cjson)
        cJSON_Delete(t->root);
    t->root = NULL;
    t->by_cjson = 0;
    arena_release(&t->mem);
}

/* ---- locating the JSON documents ---- */

/* Offset of the next '{' that starts a line (after optional blanks and a BOM), or len. */
static size_t next_doc_start(const struct source *src, size_t from)
{
    const char *s = src->data;
    int bol = from == 0 || s[from - 1] == '\n' || s[from - 1] == '\r';
    for (size_t i = from; i < src->len; i++) {
        if (bol) {
            size_t j = i;
            j += bom_len(s + j, src->len - j);
            while (j < src->len && (s[j] == ' ' || s[j] == '\t'))
                j++;
            if (j < src->len && s[j] == '{')
                return j;
        }
        bol = s[i] == '\n' || s[i] == '\r';
    }
    return src->len;
}

/* The member key of obj, as cJSON_GetObjectItemCaseSensitive finds it, which calls strcmp for
 * every member before it (~60 lookups per result in objects of up to ~40 members). Comparing
 * the first byte first leaves strcmp to the few names that share it. */
static const cJSON *field(const cJSON *obj, const char *key)
{
    for (const cJSON *c = obj ? obj->child : NULL; c && c->string; c = c->next)
        if (c->string[0] == key[0] && !strcmp(c->string, key))
            return c;
    return NULL;
}

static int looks_like_fio_doc(const cJSON *root)
{
    return cJSON_IsObject(root) && (field(root, "jobs") || field(root, "client_stats"));
}

/* ---- option values (always strings in fio's JSON) ---- */

static const char *option(const struct fio_doc *doc, const cJSON *job, const char *key)
{
    const cJSON *opts = field(job, "job options");
    const cJSON *v = field(opts, key);
    if (!cJSON_IsString(v))
        v = field(doc->global, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int64_t size_text(const char *v, size_t n)
{
    char text[64];
    int64_t bytes;
    if (n == 0 || n >= sizeof(text))
        return WL_UNKNOWN;
    memcpy(text, v, n);
    text[n] = '\0';
    return parse_fio_size(text, &bytes) ? bytes : WL_UNKNOWN;
}

static int64_t option_size(const struct fio_doc *doc, const cJSON *job, const char *key)
{
    const char *v = option(doc, job, key);
    return v ? size_text(v, strlen(v)) : WL_UNKNOWN;
}

/* bs for direction k (0 read, 1 write, 2 trim), fio's HOWTO: "bs=8k,32k" is 8k for reads and
 * 32k for writes and trims (a value not followed by a comma applies to the types after it),
 * "bs=8k,32k," leaves trims at the default, an empty value is the default (4k). */
static int64_t bs_of_direction(const char *v, int k)
{
    const char *part = v;
    for (int i = 0; i < k; i++) {
        const char *comma = strchr(part, ',');
        if (!comma)
            break; /* the last value applies to the types after it */
        part = comma + 1;
    }
    size_t n = strcspn(part, ",");
    return n ? size_text(part, n) : 4096;
}

/* The block size of the job's direction dir (NULL: a job with no I/O): unknown when it varies
 * (bsrange, bssplit, bs_is_seq_rand, or a mixed direction whose reads and writes differ). */
static int64_t option_bs(const struct fio_doc *doc, const cJSON *job, const char *dir)
{
    static const char *const varying[] = {"bsrange", "blocksize_range", "bssplit",
                                          "bs_is_seq_rand"};
    for (size_t i = 0; i < ARRAY_SIZE(varying); i++) {
        const char *v = option(doc, job, varying[i]);
        if (v && strcmp(v, "0"))
            return WL_UNKNOWN;
    }
    const char *v = option(doc, job, "bs");
    if (!v)
        v = option(doc, job, "blocksize");
    if (!v) /* fio's default, when the job options are listed at all */
        return cJSON_GetObjectItemCaseSensitive(job, "job options") ? 4096 : WL_UNKNOWN;
    if (dir && !strcmp(dir, "mixed")) {
        int64_t r = bs_of_direction(v, 0), w = bs_of_direction(v, 1);
        return r == w ? r : WL_UNKNOWN;
    }
    return bs_of_direction(v, !dir || !strcmp(dir, "read") ? 0 : !strcmp(dir, "write") ? 1 : 2);
}

static int64_t option_int(const struct fio_doc *doc, const cJSON *job, const char *key)
{
    const char *v = option(doc, job, key);
    int64_t x;
    if (!v)
        return WL_UNKNOWN;
    const char *p = v;
    if (!scan_int64(&p, &x) || *p)
        return WL_UNKNOWN;
    return x;
}

/* fio boolean options: present with "1"/"true", or present with an empty value */
static int option_bool(const struct fio_doc *doc, const cJSON *job, const char *key)
{
    const char *v = option(doc, job, key);
    if (!v)
        return WL_UNKNOWN;
    return !(!strcmp(v, "0") || !strcmp(v, "false"));
}

/* fio time values: plain seconds, or with a us/ms/s/m/h/d suffix. */
static int64_t option_seconds(const struct fio_doc *doc, const cJSON *job, const char *key)
{
    const char *v = option(doc, job, key);
    if (!v)
        return WL_UNKNOWN;
    const char *p = v;
    double x;
    if (!scan_number(&p, &x) || x < 0)
        return WL_UNKNOWN;
    double mult = 1;
    if (!strcmp(p, "us") || !strcmp(p, "usec"))
        mult = 1e-6;
    else if (!strcmp(p, "ms") || !strcmp(p, "msec"))
        mult = 1e-3;
    else if (!strcmp(p, "m") || !strcmp(p, "min"))
        mult = 60;
    else if (!strcmp(p, "h"))
        mult = 3600;
    else if (!strcmp(p, "d"))
        mult = 86400;
    else if (*p && strcmp(p, "s"))
        return WL_UNKNOWN;
    return (int64_t)llround(x * mult);
}

/* Strings in records are arena copies: the records outlive the cJSON tree (ingest/jobs.c
 * holds them until the whole file is read). */
static const char *copy(const struct fio_doc *doc, const char *s)
{
    return s ? arena_strdup(doc->a, s) : NULL;
}

static void read_workload(const struct fio_doc *doc, const cJSON *job, const char *dir,
                          struct workload *wl)
{
    const char *rw = option(doc, job, "rw");
    if (!rw)
        rw = option(doc, job, "readwrite");
    wl->rw = copy(doc, rw);
    wl->ioengine = copy(doc, option(doc, job, "ioengine"));
    wl->bs_bytes = option_bs(doc, job, dir);
    wl->size_bytes = option_size(doc, job, "size");
    wl->iodepth = option_int(doc, job, "iodepth");
    wl->numjobs = option_int(doc, job, "numjobs");
    wl->runtime_s = option_seconds(doc, job, "runtime");
    wl->rwmixread = option_int(doc, job, "rwmixread");
    if (wl->rwmixread == WL_UNKNOWN) {
        int64_t w = option_int(doc, job, "rwmixwrite");
        if (w != WL_UNKNOWN && w <= 100)
            wl->rwmixread = 100 - w;
    }
    wl->direct = option_bool(doc, job, "direct");
    if (wl->direct == WL_UNKNOWN && option_bool(doc, job, "buffered") != WL_UNKNOWN)
        wl->direct = !option_bool(doc, job, "buffered");
    const char *sync = option(doc, job, "sync");
    if (sync) /* 0/1, or none/sync/dsync since fio 3.25 */
        wl->sync = !(!strcmp(sync, "0") || !strcmp(sync, "none") || !strcmp(sync, "false"));
    wl->fsync = option_int(doc, job, "fsync");
    wl->fdatasync = option_int(doc, job, "fdatasync");
    /* fio's documented defaults apply only when the job options are actually listed */
    if (field(job, "job options")) {
        if (!wl->rw)
            wl->rw = "read";
        if (wl->iodepth == WL_UNKNOWN)
            wl->iodepth = 1;
        if (wl->numjobs == WL_UNKNOWN)
            wl->numjobs = 1;
        if (wl->direct == WL_UNKNOWN)
            wl->direct = 0;
        if (wl->sync == WL_UNKNOWN)
            wl->sync = 0;
    }
}

/* ---- metrics ---- */

static int number(const cJSON *obj, const char *key, double *v)
{
    const cJSON *x = field(obj, key);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return 0;
    *v = x->valuedouble;
    return 1;
}

static void put(struct fio_doc *doc, struct bench_record *r, const cJSON *obj, const char *key,
                const char *name, double scale)
{
    double v;
    if (number(obj, key, &v))
        record_metric(doc->a, r, name, v * scale);
}

static void put_percentiles(struct fio_doc *doc, struct bench_record *r, const cJSON *lat,
                            const char *kind, double scale)
{
    const cJSON *list = field(lat, "percentile");
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const char *p = it->string;
        double pct;
        /* fio's keys ("99.500000") are plain decimals, read without strtod */
        if (!p || !(fastjson_decimal(p, strlen(p), &pct) || (scan_number(&p, &pct) && !*p)) ||
            pct <= 0 || pct > 100 || !cJSON_IsNumber(it))
            continue; /* fio 2.x pads with duplicate "0.00" : 0 slots */
        record_metric(doc->a, r, record_percentile_name(doc->a, kind, pct),
                      it->valuedouble * scale);
    }
}

/* fio's plat_idx_to_val (stat.c) for fio 2.x json+ bins, which are keyed by bin index. */
static double plat_idx_to_val(unsigned idx, unsigned bits, unsigned val)
{
    if (idx < (val << 1))
        return idx;
    unsigned error_bits = (idx >> bits) - 1;
    double base = ldexp(1.0, (int)(error_bits + bits));
    unsigned k = idx % val;
    return base + (k + 0.5) * ldexp(1.0, (int)error_bits);
}

static void put_bins(struct fio_doc *doc, struct bench_record *r, const cJSON *lat,
                     const char *kind, double scale)
{
    const cJSON *bins = field(lat, "bins");
    if (!cJSON_IsObject(bins))
        return;
    double bits = 0, val = 0;
    int indexed = number(bins, "FIO_IO_U_PLAT_BITS", &bits) &&
                  number(bins, "FIO_IO_U_PLAT_VAL", &val) && bits > 0 && bits < 16 && val > 0 &&
                  val < 65536;
    const cJSON *it;
    cJSON_ArrayForEach(it, bins)
    {
        const char *p = it->string;
        int64_t key;
        if (!p || !scan_int64(&p, &key) || *p || !cJSON_IsNumber(it) || it->valuedouble <= 0)
            continue;
        double value =
            indexed ? plat_idx_to_val((unsigned)(key & 0xffffff), (unsigned)bits, (unsigned)val)
                    : (double)key;
        record_bin(doc->a, r, value * scale, it->valuedouble);
    }
    r->bins_metric = kind;
}

/* fio prints all-zero latency objects for latencies it did not measure (slat with psync) */
static int measured(const cJSON *lat)
{
    double n, max;
    if (number(lat, "N", &n))
        return n > 0;
    return number(lat, "max", &max) && max > 0;
}

/* A latency kind's names: its object in fio 3 (ns) and its metrics. Spelled out: formatting
 * them with printf per result cost 2 % of an import of small files. */
struct latency_kind {
    const char *kind, *key_ns, *stats[4];
};
#define LATENCY_KIND(k)                                                                            \
    {                                                                                              \
        k, k "_ns",                                                                                \
        {                                                                                          \
            k "_min_ns", k "_max_ns", k "_mean_ns", k "_stddev_ns"                                 \
        }                                                                                          \
    }
static const struct latency_kind slat = LATENCY_KIND("slat"), clat = LATENCY_KIND("clat"),
                                 lat_total = LATENCY_KIND("lat"),
                                 sync_lat = LATENCY_KIND("sync_lat");

/* The statistics of a latency object (min, max, mean, stddev in fio's order) and its
 * percentiles. */
static void put_stats(struct fio_doc *doc, struct bench_record *r, const cJSON *lat,
                      const struct latency_kind *k, double scale)
{
    static const char *const stat[] = {"min", "max", "mean", "stddev"};
    for (size_t i = 0; i < 4; i++)
        put(doc, r, lat, stat[i], k->stats[i], scale);
    put_percentiles(doc, r, lat, k->kind, scale);
}

/* A direction's object of latency kind k, and the scale of its numbers to ns; NULL when fio
 * did not measure it. */
static const cJSON *latency_object(const cJSON *dir, const struct latency_kind *k, double *scale)
{
    const cJSON *lat = field(dir, k->key_ns);
    *scale = 1;
    if (!lat) {
        lat = field(dir, k->kind);
        *scale = 1000; /* fio 2.x: µs */
    }
    return cJSON_IsObject(lat) && measured(lat) ? lat : NULL;
}

static void put_latency(struct fio_doc *doc, struct bench_record *r, const cJSON *dir,
                        const struct latency_kind *k)
{
    double scale;
    const cJSON *lat = latency_object(dir, k, &scale);
    if (lat)
        put_stats(doc, r, lat, k, scale);
}

/* One histogram per result: the total latency's where fio gives it (lat_percentiles=1 prints
 * lat bins beside the clat ones), else the completion latency's. Both would count every I/O
 * twice and merge two distributions into one. */
static void put_histogram(struct fio_doc *doc, struct bench_record *r, const cJSON *dir)
{
    static const struct latency_kind *const kinds[] = {&lat_total, &clat};
    for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
        double scale;
        const cJSON *lat = latency_object(dir, kinds[i], &scale);
        if (lat && cJSON_IsObject(field(lat, "bins"))) {
            put_bins(doc, r, lat, kinds[i]->kind, scale);
            return;
        }
    }
}

static int did_io(const cJSON *dir)
{
    double v;
    return (number(dir, "io_bytes", &v) && v > 0) || (number(dir, "total_ios", &v) && v > 0) ||
           (number(dir, "iops", &v) && v > 0) || (number(dir, "io_kbytes", &v) && v > 0);
}

static void put_direction(struct fio_doc *doc, struct bench_record *r, const cJSON *dir)
{
    double v;
    if (number(dir, "bw_bytes", &v))
        record_metric(doc->a, r, "bw_bytes_s", v);
    else
        put(doc, r, dir, "bw", "bw_bytes_s", 1024);
    put(doc, r, dir, "iops", "iops", 1);
    if (field(dir, "io_kbytes") || !doc->io_bytes_in_kib)
        put(doc, r, dir, "io_bytes", "io_bytes", 1);
    else
        put(doc, r, dir, "io_bytes", "io_bytes", 1024);
    put(doc, r, dir, "runtime", "runtime_ms", 1);
    put(doc, r, dir, "total_ios", "total_ios", 1);
    /* per-sample statistics are all zero when fio took no samples (short runs) */
    if (!number(dir, "bw_samples", &v) || v > 0) {
        put(doc, r, dir, "bw_min", "bw_min_bytes_s", 1024);
        put(doc, r, dir, "bw_max", "bw_max_bytes_s", 1024);
        put(doc, r, dir, "bw_mean", "bw_mean_bytes_s", 1024);
        put(doc, r, dir, "bw_dev", "bw_stddev_bytes_s", 1024);
    }
    if (!number(dir, "iops_samples", &v) || v > 0) {
        put(doc, r, dir, "iops_min", "iops_min", 1);
        put(doc, r, dir, "iops_max", "iops_max", 1);
        put(doc, r, dir, "iops_mean", "iops_mean", 1);
        put(doc, r, dir, "iops_stddev", "iops_stddev", 1);
    }
    put_latency(doc, r, dir, &slat);
    put_latency(doc, r, dir, &clat);
    put_latency(doc, r, dir, &lat_total);
    put_histogram(doc, r, dir);
}

/* fsync/fdatasync latency (fio 3.4+ `sync` object), kept with the write result. fio 3.33
 * counts a direct=1 job's fsyncs in lat_ns.N alone, its total_ios staying 0
 * (tests/fixtures/fsync_noop/direct-1.json): either count stands. */
static void put_sync(struct fio_doc *doc, struct bench_record *r, const cJSON *job)
{
    const cJSON *sync = field(job, "sync");
    double ios, n;
    if (!cJSON_IsObject(sync))
        return;
    if (!number(sync, "total_ios", &ios) || ios <= 0)
        ios = number(field(sync, "lat_ns"), "N", &n) ? n : 0;
    if (ios <= 0)
        return;
    record_metric(doc->a, r, "sync_total_ios", ios);
    put_stats(doc, r, field(sync, "lat_ns"), &sync_lat, 1);
}

static const char *string(const struct fio_doc *doc, const cJSON *obj, const char *key)
{
    const cJSON *v = field(obj, key);
    return cJSON_IsString(v) ? copy(doc, v->valuestring) : NULL;
}

/* The file-name prefix of each log the job wrote when its option names one (write_bw_log=pre
 * writes pre_bw.N.log; without a value the prefix is the job name): what ties the logs to
 * this job when both are imported together (import/attach.c). */
static void put_log_prefixes(struct fio_doc *doc, struct bench_record *r, const cJSON *job)
{
    static const char *const opts[] = {"write_bw_log", "write_iops_log", "write_lat_log",
                                       "write_hist_log"};
    for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
        const char *v = option(doc, job, opts[i]);
        if (v && *v)
            record_tag(doc->a, r, opts[i], copy(doc, v));
    }
}

/* fio's own steady-state detection (ss=, ss_dur=): tag ss holds the criterion as fio prints
 * it ("iops_slope:0.300000%"), ss_attained yes or no. */
static void put_steadystate(struct fio_doc *doc, struct bench_record *r, const cJSON *job)
{
    const cJSON *ss = field(job, "steadystate");
    double attained;
    if (!cJSON_IsObject(ss) || !number(ss, "attained", &attained))
        return;
    const char *criterion = string(doc, ss, "ss");
    if (criterion)
        record_tag(doc->a, r, "ss", criterion);
    record_tag(doc->a, r, "ss_attained", attained != 0 ? "yes" : "no");
}

static struct bench_record *job_record(struct fio_doc *doc, const cJSON *job, const char *dir)
{
    struct bench_record *r = record_new(doc->a, "fio");
    r->tool_version = doc->version;
    r->job = string(doc, job, "jobname");
    r->host = string(doc, job, "hostname");
    r->direction = dir;
    r->started_at = doc->timestamp;
    r->line_first = doc->job_first;
    r->line_last = doc->job_last;
    read_workload(doc, job, dir, &r->wl);
    double err, group;
    if (number(job, "groupid", &group) && fabs(group) < 1e9)
        r->groupid = (int64_t)group;
    if (number(job, "error", &err) && err != 0) {
        r->error = (int)fmin(fmax(err, -1e9), 1e9);
        r->error_msg = arena_printf(doc->a, "fio reported error %d for job '%s'", r->error,
                                    r->job ? r->job : "");
    }
    if (r->job && !strcmp(r->job, "All clients")) {
        /* the client/server aggregate repeats its hosts' results: kept apart, never averaged */
        r->host = NULL;
        record_tag(doc->a, r, "aggregate", "all-clients");
    }
    const char *desc = string(doc, job, "desc");
    if (desc && *desc)
        record_tag(doc->a, r, "description", desc);
    put_log_prefixes(doc, r, job);
    put_steadystate(doc, r, job);
    return r;
}

static int emit_job(struct fio_doc *doc, const cJSON *job, struct record_sink *out)
{
    static const char *const dirs[] = {"read", "write", "trim", "mixed"};
    int emitted = 0;
    for (size_t i = 0; i < 4; i++) {
        const cJSON *dir = field(job, dirs[i]);
        if (!cJSON_IsObject(dir) || !did_io(dir))
            continue;
        struct bench_record *r = job_record(doc, job, dirs[i]);
        put_direction(doc, r, dir);
        put(doc, r, job, "usr_cpu", "cpu_usr_pct", 1);
        put(doc, r, job, "sys_cpu", "cpu_sys_pct", 1);
        if (!strcmp(dirs[i], "write") || !strcmp(dirs[i], "mixed"))
            put_sync(doc, r, job);
        if (out->emit(out->ctx, r))
            return -1;
        emitted++;
    }
    if (!emitted) {
        /* a job without any I/O is stored only when fio says why: flagged, never as zero */
        struct bench_record *r = job_record(doc, job, NULL);
        if (!r->error)
            return 0;
        return out->emit(out->ctx, r);
    }
    return 0;
}

/* "fio-2.1.4", "fio-3.14-6-g97134", "fio-2.99" -> major*1000+minor */
static int version_number(const char *v)
{
    const char *p = v;
    int64_t major, minor = 0;
    if (!p)
        return -1;
    scan_lit(&p, "fio-");
    if (!scan_int64(&p, &major))
        return -1;
    if (scan_lit(&p, "."))
        scan_int64(&p, &minor);
    if (major > 1000 || minor > 999)
        return -1;
    return (int)(major * 1000 + minor);
}

/* ---- where each job is in the text ---- */

/* Where the document and the objects of its top-level array `key` are: cJSON keeps no
 * positions, so the valid JSON it parsed is scanned again, once, for line ends and for
 * brackets outside strings. */
struct doc_lines {
    const char *key;
    unsigned *first, *last; /* each job object's '{' and '}' lines */
    size_t max, n;          /* room, and how many objects were found */
};

/* After the string starting with the quote at i: the offset of its closing quote (or stop);
 * *line counts the line ends inside (none in valid JSON, but cJSON lets them pass). */
static size_t string_end(const char *s, size_t i, size_t stop, unsigned *line)
{
    for (i++; i < stop && s[i] != '"'; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '\n')
            ++*line;
    }
    return i < stop ? i : stop;
}

/* The bytes locate_jobs acts on: the others (blanks, digits, letters) are passed over in a
 * loop of one test each, which made the scan about twice as fast. */
static const unsigned char structural[256] = {
    ['\n'] = 1, ['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, [','] = 1,
};

/* Whether the string s[i..end] (quotes included) is a member name equal to key. */
static int is_key(const char *s, size_t i, size_t end, size_t stop, const char *key)
{
    size_t n = strlen(key);
    if (end - i - 1 != n || memcmp(s + i + 1, key, n))
        return 0;
    size_t k = end + 1;
    while (k < stop && fastjson_blank((unsigned char)s[k]))
        k++;
    return k < stop && s[k] == ':';
}

/* The line of the document's first byte. */
static unsigned line_of_start(const struct fio_doc *doc)
{
    const char *s = doc->src->data;
    unsigned line = 1;
    for (const char *nl = s; (nl = memchr(nl, '\n', doc->start - (size_t)(nl - s))); nl++)
        line++;
    return line;
}

/* The lines of the document's first and last bytes (doc->line_first, doc->line_last) and of
 * each object of the array dl->key, counted on in one pass from the start of the file: for a
 * tree cJSON parsed, which has no positions. */
static void locate_jobs(struct fio_doc *doc, struct doc_lines *dl)
{
    const char *s = doc->src->data;
    size_t stop = doc->stop;
    unsigned line = line_of_start(doc);
    doc->line_first = line;
    enum { BEFORE, IN, AFTER } array = BEFORE; /* where the scan is, as to the array */
    int depth = 0, in_key = 0;
    for (size_t i = doc->start; i < stop; i++) {
        while (i < stop && !structural[(unsigned char)s[i]])
            i++;
        if (i == stop)
            break;
        char c = s[i];
        if (c == '\n') {
            line++;
        } else if (c == '"') {
            size_t end = string_end(s, i, stop, &line);
            if (depth == 1 && array == BEFORE && is_key(s, i, end, stop, dl->key))
                in_key = 1;
            i = end;
        } else if (c == '{' || c == '[') {
            if (in_key && depth == 1 && c == '[')
                array = IN;
            else if (array == IN && depth == 2 && c == '{' && dl->n < dl->max)
                dl->first[dl->n] = line;
            in_key = 0;
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
            if (array == IN && depth == 2 && c == '}' && dl->n < dl->max)
                dl->last[dl->n++] = line;
            else if (array == IN && depth == 1)
                array = AFTER; /* the scan goes on for the document's last line */
        } else if (c == ',' && depth == 1) {
            in_key = 0;
        }
    }
    /* the line of the document's last byte: its '}' (a line end there is the next line's) */
    doc->line_last = line - (stop > doc->start && s[stop - 1] == '\n');
}

/* locate_jobs's lines from the spans of fastjson's parse, which saw every line end: the job
 * objects' spans are found in the order of the jobs, as they come in the document. */
static void locate_spans(struct fio_doc *doc, const cJSON *jobs, struct doc_lines *dl)
{
    const struct fastjson_spans *sp = doc->spans;
    unsigned base = line_of_start(doc) - 1; /* the spans count lines from 1 at doc->start */
    doc->line_first = base + sp->v[0].first;
    doc->line_last = base + sp->v[0].last; /* v[0] is the document's object */
    size_t k = 0;
    const cJSON *job;
    if (!cJSON_IsArray(jobs))
        return;
    cJSON_ArrayForEach(job, jobs)
    {
        while (k < sp->n && sp->v[k].node != job)
            k++;
        if (k == sp->n || dl->n == dl->max)
            return;
        dl->first[dl->n] = base + sp->v[k].first;
        dl->last[dl->n++] = base + sp->v[k].last;
    }
}

static int emit_doc(struct fio_doc *doc, struct record_sink *out)
{
    const cJSON *root = doc->root;
    doc->version = string(doc, root, "fio version");
    doc->global = field(root, "global options");
    if (cJSON_IsArray(doc->global)) /* fio 3.39+ client mode: one object per server */
        doc->global = cJSON_GetArrayItem(doc->global, 0);
    double ts;
    if (number(root, "timestamp", &ts) && ts > 0 && ts < 1e11)
        doc->timestamp = (int64_t)ts;
    int ver = version_number(doc->version);
    doc->io_bytes_in_kib = ver >= 0 && ver < 2021;
    const char *key = "client_stats";
    const cJSON *jobs = field(root, key);
    if (!jobs)
        jobs = field(root, key = "jobs");
    size_t n = cJSON_IsArray(jobs) ? (size_t)cJSON_GetArraySize(jobs) : 0, k = 0;
    struct doc_lines dl = {key, arena_alloc(doc->a, (n + 1) * sizeof(unsigned)),
                           arena_alloc(doc->a, (n + 1) * sizeof(unsigned)), n, 0};
    if (doc->spans->n)
        locate_spans(doc, jobs, &dl);
    else
        locate_jobs(doc, &dl);
    if (!cJSON_IsArray(jobs))
        return diag_error_line(doc->d, doc->src, doc->line_first,
                               "expected 'jobs' to be an array in fio JSON output");
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs)
    {
        if (!cJSON_IsObject(job))
            return diag_error_line(doc->d, doc->src, doc->line_first,
                                   "expected each entry of 'jobs' to be an object");
        /* the whole document when the scan disagrees with cJSON (it never should) */
        doc->job_first = dl.n == n ? dl.first[k] : doc->line_first;
        doc->job_last = dl.n == n ? dl.last[k] : doc->line_last;
        k++;
        if (emit_job(doc, job, out))
            return -1;
    }
    return 0;
}

/* fio's own failure text, e.g. "fio: engine x not loadable": the first line starting "fio:"
 * or "error:" that is not the harmless signal notice. Reported (-1), or 0 when there is none. */
static int report_failure(const struct source *src, struct diag *d)
{
    struct line_iter it;
    const char *line;
    size_t n;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &n)) {
        if ((n > 5 && !memcmp(line, "fio: ", 5) && !mem_find(line, n, "terminating on signal")) ||
            (n > 7 && !memcmp(line, "error: ", 7))) {
            const char *msg = line + (line[0] == 'f' ? 5 : 7);
            return diag_error_line(d, src, it.lineno, "fio run failed: %.*s",
                                   (int)(n - (size_t)(msg - line)), msg);
        }
    }
    return 0;
}

/* cJSON stops at the token it could not use; nothing but blanks (cJSON's) after it means the
 * document was cut short rather than malformed. */
static int only_space_after(const struct source *src, size_t at)
{
    for (size_t i = at; i < src->len; i++)
        if (!fastjson_blank((unsigned char)src->data[i]))
            return 0;
    return 1;
}

static int parse_records(const struct source *src, struct arena *a, struct record_sink *out,
                         struct diag *d)
{
    size_t start = next_doc_start(src, 0);
    if (start == src->len) {
        if (report_failure(src, d))
            return -1;
        if (src->len == 0)
            return diag_error_line(d, src, 1, "empty file: expected fio JSON output");
        return diag_error_line(d, src, 1, "expected fio JSON output (a line starting with '{')");
    }
    /* the last fio report so far and the document being read, their fastjson trees from a's
     * pool of blocks when it has one */
    struct json_tree final = {.mem = {NULL, a->pool}}, cur = {.mem = {NULL, a->pool}};
    unsigned reports = 0;
    size_t final_start = 0, final_stop = 0;
    int rc = 0;
    while (start < src->len) {
        const char *end = NULL;
        cJSON *root = tree_parse(&cur, src->data + start, src->len - start, &end);
        if (!root) {
            size_t at = end ? (size_t)(end - src->data) : start;
            rc = only_space_after(src, at)
                     ? diag_error_at(d, src, src->len, "truncated JSON: unexpected end of file")
                     : diag_error_at(d, src, at, "invalid JSON near '%.12s'", src->data + at);
            break;
        }
        size_t stop = (size_t)(end - src->data);
        if (looks_like_fio_doc(root)) {
            tree_clear(&final);
            struct json_tree swap = final;
            final = cur;
            cur = swap;
            final_start = start;
            final_stop = stop;
            reports++;
        } else {
            tree_clear(&cur);
        }
        start = next_doc_start(src, stop);
    }
    if (rc == 0 && !final.root)
        rc = diag_error_line(d, src, source_line(src, next_doc_start(src, 0)),
                             "expected fio JSON output with 'jobs' or 'client_stats'");
    /* --status-interval prints one report per interval, each ending its line: a last report
     * with no line end after it was cut right after its '}', and may be an interim one. (A copy
     * cut right after a line end cannot be told from a shorter run.) */
    if (rc == 0 && reports > 1 && !memchr(src->data + final_stop, '\n', src->len - final_stop))
        rc = diag_error_at(d, src, final_stop,
                           "truncated --status-interval output: expected a line end after the "
                           "last of %u reports, got end of file",
                           reports);
    if (rc == 0) {
        /* the document's lines are counted with its jobs' (emit_doc) */
        struct fio_doc doc = {.src = src,
                              .a = a,
                              .d = d,
                              .root = final.root,
                              .start = final_start,
                              .stop = final_stop,
                              .spans = &final.spans};
        rc = emit_doc(&doc, out);
    }
    tree_clear(&final);
    tree_clear(&cur);
    free(final.spans.v);
    free(cur.spans.v);
    return rc;
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    return jobs_parse(parse_records, src, a, out, d);
}

/* Offset of the first byte that is not a BOM or white space. */
static size_t first_content(const struct source *src)
{
    size_t i = bom_len(src->data, src->len);
    while (i < src->len && strchr(" \t\r\n", src->data[i]))
        i++;
    return i;
}

static int probe(const struct source *src)
{
    size_t start = next_doc_start(src, 0);
    if (start == src->len) {
        /* fio's own error text with no JSON: a failed fio run, reported as such by parse() */
        struct line_iter it;
        const char *line;
        size_t n;
        line_iter_init(&it, src->data, src->len, 0);
        while (line_iter_next(&it, &line, &n) && it.lineno <= 20)
            if ((n > 5 && !memcmp(line, "fio: ", 5)) || (n > 7 && !memcmp(line, "error: ", 7)))
                return 15;
        return 0;
    }
    size_t window = src->len - start < 4096 ? src->len - start : 4096;
    const char *w = src->data + start;
    if (mem_find(w, window, "\"fio version\"") || mem_find(w, window, "\"client_stats\""))
        return start == first_content(src) ? PROBE_CERTAIN : 95; /* nothing but JSON before */
    if (mem_find(w, window, "\"jobs\"") && mem_find(w, window, "\"jobname\""))
        return 80;
    return 0;
}

const struct importer importer_fio_json = {
    .name = "fio-json",
    .summary = "fio --output-format=json / json+ (fio 2.x and 3.x, client/server)",
    .probe = probe,
    .parse = parse,
};
