/* notes_text.c: results read line by line: fio lines pasted without the rest of fio's
 * output (one-line direction summaries, "Run status group" lines), and results a person
 * typed: Markdown "- **Throughput:** 70.2 MiB/s" lists under a heading, and result tables
 * (pipe or tab separated), whose columns are storage classes when they are headed by storage
 * names ("CephFS", "NFS"). A table whose figures restate results already read, or that
 * holds ratios, is a derived comparison and gives no results. */
#include "notes.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../core/array.h"
#include "../core/scan.h"

/* s[0..n) in lower case, copied into a. */
static char *lower_copy(struct arena *a, const char *s, size_t n)
{
    char *t = arena_strndup(a, s, n);
    for (char *c = t; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return t;
}

/* ---- values ---- */

/* A number with optional thousands separators: "2,056", "70.2"; sets the unit of its last
 * digit in *last_digit. */
static int number(const char **p, double *v, double *last_digit)
{
    char tmp[64];
    size_t n = 0;
    const char *s = *p, *dot = NULL;
    while ((isdigit((unsigned char)*s) || *s == '.' ||
            (*s == ',' && isdigit((unsigned char)s[1]) && n)) &&
           n < sizeof(tmp) - 1) {
        if (*s == '.')
            dot = s;
        if (*s != ',')
            tmp[n++] = *s;
        s++;
    }
    tmp[n] = '\0';
    const char *q = tmp;
    if (!n || !scan_number(&q, v) || *q)
        return 0;
    *last_digit = dot ? pow(10, -(double)(s - dot - 1)) : 1;
    *p = s;
    return 1;
}

/* Multiplier and kind of a unit: 'b' bytes/s, 't' ns, 's' bytes, 'c' count. */
static double unit_of(const char *u, size_t n, char *kind)
{
    double m;
    *kind = 'c';
    if (n == 0 || (n == 4 && str_starts(u, "IOPS")))
        return 1;
    if (n == 1 && strchr("kKMG", *u))
        return unit_count_suffix(*u);
    *kind = 'b';
    if (mem_ends(u, n, "/sec") || mem_ends(u, n, "/s")) {
        size_t k = n - (mem_ends(u, n, "/sec") ? 4 : 2);
        if ((m = unit_bytes(u, k, 0)) > 0)
            return m;
        return unit_bits(u, k) / 8;
    }
    *kind = 't';
    if (n >= 3 && (!strncmp(u, "seconds", n) || !strncmp(u, "secs", n)))
        return 1e9;
    if ((m = unit_time_ns(u, n)) > 0)
        return m;
    *kind = 's';
    return unit_bytes(u, n, 0);
}

/* A value with its unit ("70.2 MiB/s", "212 ms", "36.5k", "2,056") in a base unit: kind 'b'
 * bytes/s, 't' ns, 's' bytes, 'c' count; the whole of s[0..n) must be the value. *ulp is the
 * unit of its last digit (70.2 MiB/s: 0.1 MiB/s), to tell a rounded restatement. */
static int notes_value(const char *s, size_t n, double *v, char *kind, double *ulp)
{
    char tmp[128];
    if (n >= sizeof(tmp))
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e = tmp + n;
    while (e > tmp && (isspace((unsigned char)e[-1]) || e[-1] == '*'))
        *--e = '\0';
    const char *p = tmp;
    while (*p == '*' || *p == ' ')
        p++;
    double x, last;
    if (!number(&p, &x, &last))
        return 0;
    p = skip_ws(p);
    double m = unit_of(p, strlen(p), kind);
    if (m <= 0)
        return 0;
    *v = x * m;
    *ulp = last * m;
    return 1;
}

int notes_measurement_like(const char *s)
{
    static const char *const units[] = {"B/s", "b/s", "bits/sec", "bps",  "IOPS", "iops", "ms",
                                        "µs",  "us",  "ns",       "msec", "usec", NULL};
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > s && isalnum((unsigned char)p[-1])))
            continue;
        while (isdigit((unsigned char)*p) || *p == '.' || *p == ',')
            p++;
        if (*p == 'k' || *p == 'K')
            p++;
        if (*p == ' ')
            p++;
        size_t n = 0;
        while (p[n] && (isalpha((unsigned char)p[n]) || p[n] == '/' || (p[n] & 0x80)))
            n++;
        for (size_t i = 0; units[i] && n; i++)
            if (mem_ends(p, n, units[i]) && (n <= 5 || strstr(units[i], "/")))
                return 1;
        if (!*p)
            break;
    }
    return 0;
}

/* ---- fio lines ---- */

static const char *after(const char *s, const char *lit)
{
    const char *p = strstr(s, lit);
    return p ? p + strlen(lit) : NULL;
}

static int value_at(const char *p, double *v, char *kind)
{
    double ulp;
    size_t n = p ? strcspn(p, " ,()") : 0;
    return n && notes_value(p, n, v, kind, &ulp);
}

/* rw and direction from words such as "4K randread", "Sequential Write", "mixed". */
static void words_workload(struct arena *a, const char *text, struct workload *wl, const char **dir)
{
    static const struct {
        const char *word, *rw;
    } rws[] = {{"randrw", "randrw"},
               {"randread", "randread"},
               {"randwrite", "randwrite"},
               {"seqread", "read"},
               {"seqwrite", "write"}};
    const char *t = lower_copy(a, text, strlen(text));
    int rnd = strstr(t, "random") || strstr(t, "rand "), rd = strstr(t, "read") != NULL,
        wr = strstr(t, "write") != NULL, mixed = strstr(t, "mixed") || (rd && wr);
    for (size_t i = 0; i < ARRAY_SIZE(rws); i++)
        if (strstr(t, rws[i].word) && !wl->rw)
            wl->rw = rws[i].rw;
    if (!wl->rw && mixed)
        wl->rw = rnd ? "randrw" : NULL;
    else if (!wl->rw && (rd || wr))
        wl->rw = rnd ? (rd ? "randread" : "randwrite") : (rd ? "read" : "write");
    if (dir && !*dir)
        *dir = mixed ? NULL : rd ? "read" : wr ? "write" : NULL;
    for (const char *p = t; *p; p++) {
        int64_t x, b;
        const char *q = p;
        if ((p > t && isalnum((unsigned char)p[-1])) || !scan_int64(&q, &x))
            continue;
        if ((*q == 'k' || *q == 'm' || *q == 'g') &&
            (str_starts(q + 1, " block") || str_starts(q + 1, "b block") ||
             str_starts(q + 1, " rand") || str_starts(q + 1, " seq"))) {
            char sz[32];
            int k = snprintf(sz, sizeof(sz), "%lld%c", (long long)x, *q);
            if (k > 0 && parse_fio_size(sz, &b) && wl->bs_bytes == WL_UNKNOWN)
                wl->bs_bytes = b;
        } else if (str_starts(q, "% read") && wl->rwmixread == WL_UNKNOWN) {
            wl->rwmixread = x;
        } else if ((str_starts(q, " concurrent jobs") || str_starts(q, " jobs")) &&
                   wl->numjobs == WL_UNKNOWN) {
            wl->numjobs = x;
        }
        p = q - 1;
    }
}

/* "4K randread: IOPS=36.5k, BW=143MiB/s (149MB/s)(10.0GiB/71823msec)" */
static struct bench_record *summary_line(struct notes *nt, const char *t)
{
    const char *iops = after(t, ": IOPS="), *bw = after(t, ", BW=");
    double v;
    char kind;
    if (!iops || !bw || !value_at(iops, &v, &kind) || kind != 'c')
        return NULL;
    struct bench_record *r = record_new(nt->a, "fio");
    record_metric(nt->a, r, "iops", v);
    if (value_at(bw, &v, &kind) && kind == 'b')
        record_metric(nt->a, r, "bw_bytes_s", v);
    const char *io = strstr(bw, ")(");
    if (io && value_at(io + 2, &v, &kind) && kind == 's')
        record_metric(nt->a, r, "io_bytes", v);
    const char *rt = io ? strchr(io + 2, '/') : NULL;
    if (rt && value_at(rt + 1, &v, &kind) && kind == 't')
        record_metric(nt->a, r, "runtime_ms", v / 1e6);
    const char *label = notes_trim(nt->a, t, (size_t)(iops - 7 - t));
    words_workload(nt->a, label, &r->wl, &r->direction);
    if (strcmp(label, "read") && strcmp(label, "write"))
        record_tag(nt->a, r, "line_label", label);
    return r;
}

struct group_job {
    int64_t group;
    const char *name, *rw, *ioengine;
    int64_t bs_r, bs_w, iodepth;
};

static int64_t bs_of(const char *t, const char *which)
{
    const char *p = after(t, which);
    int64_t v;
    return p && scan_int64(&p, &v) ? v : WL_UNKNOWN;
}

/* "sys: (g=0): rw=randwrite, bs=(R) 8192B-8192B, (W) ..., ioengine=libaio, iodepth=128" */
static int group_header(struct notes *nt, const char *t, struct group_job *g)
{
    const char *p = after(t, ": (g=");
    if (!p || !scan_int64(&p, &g->group))
        return 0;
    g->name = arena_strndup(nt->a, t, strcspn(t, ":"));
    const char *rw = after(t, "rw="), *eng = after(t, "ioengine="), *qd = after(t, "iodepth=");
    g->rw = rw ? arena_strndup(nt->a, rw, strcspn(rw, ",")) : NULL;
    g->ioengine = eng ? arena_strndup(nt->a, eng, strcspn(eng, ",")) : NULL;
    g->bs_r = bs_of(t, "(R) ");
    g->bs_w = bs_of(t, "(W) ");
    if (!qd || !scan_int64(&qd, &g->iodepth))
        g->iodepth = WL_UNKNOWN;
    return 1;
}

/* "  WRITE: bw=179MiB/s (187MB/s), ..., io=8192MiB (8590MB), run=45878-45878msec" */
static struct bench_record *status_line(struct notes *nt, const char *t, const struct group_job *g)
{
    const char *s = skip_ws(t), *bw = after(s, ": bw="), *io = after(s, ", io="),
               *run = after(s, ", run=");
    double v;
    char kind;
    int read = str_starts(s, "READ:");
    if (!bw || (!read && !str_starts(s, "WRITE:")) || !value_at(bw, &v, &kind) || kind != 'b')
        return NULL;
    struct bench_record *r = record_new(nt->a, "fio");
    r->direction = read ? "read" : "write";
    record_metric(nt->a, r, "bw_bytes_s", v);
    if (io && value_at(io, &v, &kind) && kind == 's')
        record_metric(nt->a, r, "io_bytes", v);
    const char *dash = run ? strchr(run, '-') : NULL;
    if (dash && value_at(dash + 1, &v, &kind) && kind == 't')
        record_metric(nt->a, r, "runtime_ms", v / 1e6);
    if (g) {
        r->job = g->name;
        r->wl.rw = g->rw;
        r->wl.ioengine = g->ioengine;
        r->wl.bs_bytes = read ? g->bs_r : g->bs_w;
        r->wl.iodepth = g->iodepth;
    }
    return r;
}

static int emit_at(struct notes *nt, struct bench_record *r, size_t i)
{
    nt->l[i].used = 1;
    notes_context(nt, i, i, r, 0, NULL);
    return notes_emit(nt, r);
}

int notes_fio_lines(struct notes *nt, size_t first, size_t last)
{
    struct group_job jobs[64];
    size_t n_jobs = 0;
    const struct group_job *cur = NULL;
    int in_group = 0;
    for (size_t i = first; i <= last; i++) {
        const char *t = nt->l[i].t, *p;
        struct bench_record *r;
        int64_t g;
        if (n_jobs < 64 && group_header(nt, t, &jobs[n_jobs])) {
            n_jobs++;
        } else if ((p = after(t, "Run status group ")) && scan_int64(&p, &g)) {
            in_group = 1;
            cur = NULL;
            for (size_t k = 0; k < n_jobs; k++)
                if (jobs[k].group == g)
                    cur = &jobs[k];
        } else if (in_group && (r = status_line(nt, t, cur))) {
            if (emit_at(nt, r, i))
                return -1;
        } else if ((r = summary_line(nt, t)) && emit_at(nt, r, i)) {
            return -1;
        }
    }
    return 0;
}

/* ---- Markdown key/value lists ---- */

struct kv_line {
    const char *key, *val;
};

/* "- **Throughput:** 70.2 MiB/s (73.6 MB/s)", "- 99th percentile: 212 ms" */
static int kv_line(struct notes *nt, const char *t, struct kv_line *kv)
{
    const char *s = skip_ws(t);
    int bullet = 0;
    if ((*s == '-' || *s == '*' || *s == '+') && s[1] == ' ')
        s += 2, bullet = 1;
    else if (str_starts(s, "\xe2\x80\xa2 "))
        s += 4, bullet = 1;
    s = skip_ws(s);
    int bold = str_starts(s, "**");
    if (!bullet && !bold)
        return 0;
    const char *colon = strchr(s, ':');
    if (!colon || colon - s > 60)
        return 0;
    char *k = notes_trim(nt->a, s + 2 * bold, (size_t)(colon - s) - 2 * (size_t)bold);
    const char *v = colon + 1;
    while (*v == '*' || *v == ' ')
        v++;
    kv->val = v;
    for (size_t i = strlen(k); i > 0 && k[i - 1] == '*'; i--)
        k[i - 1] = '\0';
    kv->key = k;
    return 1;
}

/* The metric a key names and the kind of value it needs; NULL when it names none. */
static const char *key_metric(struct notes *nt, const char *key, char *kind)
{
    const char *k = lower_copy(nt->a, key, strlen(key)), *p = k;
    double pct;
    *kind = 't';
    if (strstr(k, "median"))
        return "lat_p50_ns";
    /* "99.9th percentile" is p99.9, named as fio's percentiles are (lat_p99_9_ns), not p99 */
    if (strstr(k, "percentile") && scan_number(&p, &pct) && pct > 0 && pct <= 100)
        return record_percentile_name(nt->a, "lat", pct);
    if (strstr(k, "latency"))
        return strstr(k, "sync") ? "sync_lat_mean_ns" : "lat_mean_ns";
    if (strstr(k, "duration") || strstr(k, "runtime"))
        return "runtime_ms";
    *kind = 'c';
    if (strstr(k, "iops"))
        return "iops";
    *kind = 'b';
    if (strstr(k, "throughput") || strstr(k, "bandwidth") || !strcmp(k, "bw"))
        return "bw_bytes_s";
    *kind = 's';
    if (strstr(k, "data written") || strstr(k, "data read") || strstr(k, "transferred"))
        return "io_bytes";
    return NULL;
}

/* A range typed as "13-15ms" or "13 ms - 15 ms": the midpoint, both ends in want's kind (a bare
 * lower end takes the upper end's unit). */
static int range_value(const char *v, size_t n, char want, double *out)
{
    const char *dash = memchr(v, '-', n);
    if (!dash || dash == v)
        return 0;
    const char *hi = skip_ws(dash + 1);
    size_t nl = (size_t)(dash - v), nh = n - (size_t)(hi - v);
    while (nl && isspace((unsigned char)v[nl - 1]))
        nl--;
    if (!nl || !nh || !isdigit((unsigned char)v[0]) || !isdigit((unsigned char)hi[0]))
        return 0;
    const char *unit = hi;
    while (unit < hi + nh && (isdigit((unsigned char)*unit) || *unit == '.'))
        unit++;
    size_t k = 0;
    while (k < nl && (isdigit((unsigned char)v[k]) || v[k] == '.'))
        k++;
    char lo[128];
    int bare = k == nl; /* "13" of "13-15ms" */
    if (nl + (size_t)(hi + nh - unit) >= sizeof(lo))
        return 0;
    memcpy(lo, v, nl);
    if (bare)
        memcpy(lo + nl, unit, (size_t)(hi + nh - unit));
    size_t n_lo = nl + (bare ? (size_t)(hi + nh - unit) : 0);
    double a, b, ulp;
    char ka, kb;
    if (!notes_value(lo, n_lo, &a, &ka, &ulp) || !notes_value(hi, nh, &b, &kb, &ulp) ||
        ka != want || kb != want || a > b)
        return 0;
    *out = (a + b) / 2;
    return 1;
}

/* The value part: "70.2 MiB/s (73.6 MB/s)", "4.9ms average", "13-15ms average" (the midpoint;
 * *range is then the range as typed, else NULL); no "~". */
static int kv_value(struct notes *nt, const char *v, char want, double *out, const char **range)
{
    *range = NULL;
    size_t n = strcspn(v, "(");
    if (v[n] == '(' && !strchr(v + n, ')'))
        return 0;
    if (v[n] && *skip_ws(strchr(v + n, ')') + 1))
        return 0;
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    static const char *const tails[] = {" average", " avg", " mean"};
    for (size_t i = 0; i < 3; i++)
        if (mem_ends(v, n, tails[i]))
            n -= strlen(tails[i]);
    char kind;
    double ulp;
    if (notes_value(v, n, out, &kind, &ulp))
        return kind == want;
    if (!range_value(v, n, want, out))
        return 0;
    *range = notes_trim(nt->a, v, n);
    return 1;
}

struct slot {
    struct bench_record *r;
    size_t first, last;
    size_t lines[32];
    size_t n_lines;
};

static const char *tool_named(struct notes *nt, size_t i)
{
    for (size_t k = i + 1; k-- > 0;) {
        struct kv_line kv;
        if (kv_line(nt, nt->l[k].t, &kv) && !strcasecmp(kv.key, "tool")) {
            return lower_copy(nt->a, kv.val, strcspn(kv.val, " "));
        }
    }
    return "unknown";
}

/* Whether a word of the clause before p (back to its start: line start or . , ; ( ) denies or
 * avoids a cache ("not cached", "without local caching", "Unlike NFS tests which show cached
 * results", "to minimize caching effects", "bypasses the page cache"). */
static int negated(const char *text, const char *p)
{
    static const char *const words[] = {"not",   "no",     "without", "unlike", "bypass",
                                        "avoid", "minimi", "disabl",  "drop",   "never",
                                        "isn't", "aren't", "don't",   "doesn't"};
    const char *c = p;
    while (c > text && !strchr(".,;()", c[-1]))
        c--;
    for (; c < p; c++) {
        if (c > text && isalpha((unsigned char)c[-1]))
            continue;
        for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
            size_t k = strlen(words[i]);
            int prefix = !strcmp(words[i], "bypass") || !strcmp(words[i], "avoid") ||
                         !strcmp(words[i], "minimi") || !strcmp(words[i], "disabl") ||
                         !strcmp(words[i], "drop");
            if (!strncasecmp(c, words[i], k) && (prefix || !isalpha((unsigned char)c[k])))
                return 1;
        }
    }
    return 0;
}

/* Whether text says a cache served the result: "cached", "caching", or a cache that serves
 * I/O ("page cache", "client cache", "local cache", "buffer cache", "cache hit"), not negated
 * in its clause and not part of another word ("uncached", "Memcached"). */
static int says_cached(const char *text)
{
    static const char *const qualified[] = {"page ", "client ", "local ", "buffer "};
    for (const char *p = text; *p; p++) {
        if (strncasecmp(p, "cach", 4) || (p > text && isalpha((unsigned char)p[-1])))
            continue;
        int served = !strncasecmp(p, "cached", 6) || !strncasecmp(p, "caching", 7) ||
                     !strncasecmp(p, "cache hit", 9);
        for (size_t i = 0; i < ARRAY_SIZE(qualified) && !served; i++) {
            size_t k = strlen(qualified[i]);
            served = (size_t)(p - text) >= k && !strncasecmp(p - k, qualified[i], k);
        }
        if (served && !negated(text, p))
            return 1;
    }
    return 0;
}

/* Whether the prose under the result's heading (or label), and under each heading above it
 * before its first subheading, says a cache served the results there: "**Note:** High IOPS
 * values indicate substantial local caching effects." below seed 000's mixed results. Lines
 * that look like measurements are results (each judged by its own words), not statements. */
static int section_says_cached(struct notes *nt, size_t heading)
{
    int level = 7;
    for (size_t k = heading + 1; k-- > 0;) {
        const struct nline *h = &nt->l[k];
        int own = k == heading && h->kind == NK_LABEL;
        if (!own && (h->kind != NK_HEADING || h->level >= level))
            continue;
        if (h->kind == NK_HEADING)
            level = h->level;
        for (size_t i = k + 1;
             i < nt->n && nt->l[i].kind != NK_HEADING && nt->l[i].kind != NK_LABEL; i++)
            if (nt->l[i].kind == NK_TEXT && !notes_measurement_like(nt->l[i].t) &&
                says_cached(nt->l[i].t))
                return 1;
    }
    return 0;
}

/* cached=stated when the heading, the text of its section or one of the result's lines says
 * the cache served it. */
static void tag_cached(struct notes *nt, const struct slot *s, const char *chain, size_t heading)
{
    int cached = says_cached(chain) || section_says_cached(nt, heading);
    for (size_t i = 0; i < s->n_lines && !cached; i++)
        cached = says_cached(nt->l[s->lines[i]].t);
    if (cached)
        record_tag(nt->a, s->r, "cached", "stated");
}

static int flush_slots(struct notes *nt, struct slot *s, size_t n, size_t heading)
{
    for (size_t k = 0; k < n; k++) {
        struct bench_record *r = s[k].r;
        if (!r || (!record_get(r, "bw_bytes_s") && !record_get(r, "iops")))
            continue;
        for (size_t i = 0; i < s[k].n_lines; i++)
            nt->l[s[k].lines[i]].used = 1;
        const char *chain = notes_heading_chain(nt, heading);
        words_workload(nt->a, nt->l[heading].t, &r->wl, NULL);
        words_workload(nt->a, chain, &r->wl, NULL);
        if (strstr(nt->l[heading].t, "ync") && r->wl.sync == WL_UNKNOWN)
            r->wl.sync = 1;
        r->job = notes_trim(nt->a, nt->l[heading].t + nt->l[heading].level,
                            strlen(nt->l[heading].t) - (size_t)nt->l[heading].level);
        tag_cached(nt, &s[k], chain, heading);
        notes_context(nt, s[k].first, s[k].last, r, 0, NULL);
        if (notes_emit(nt, r))
            return -1;
    }
    return 0;
}

static void kv_add(struct notes *nt, struct slot *s, size_t i, const char *metric, double v,
                   const char *dir)
{
    if (!s->r) {
        s->r = record_new(nt->a, tool_named(nt, i));
        s->r->transcribed = 1;
        s->r->direction = dir;
        s->first = i;
    }
    if (!strcmp(metric, "runtime_ms"))
        v /= 1e6;
    record_metric(nt->a, s->r, metric, v);
    s->last = i;
    if (s->n_lines < 32)
        s->lines[s->n_lines++] = i;
}

int notes_markdown(struct notes *nt)
{
    struct slot slots[3];
    size_t heading = 0;
    memset(slots, 0, sizeof(slots));
    for (size_t i = 0; i <= nt->n; i++) {
        if (i == nt->n || nt->l[i].kind == NK_HEADING || nt->l[i].kind == NK_LABEL) {
            if (flush_slots(nt, slots, 3, heading))
                return -1;
            memset(slots, 0, sizeof(slots));
            heading = i;
            continue;
        }
        struct kv_line kv;
        char want;
        double v;
        const char *metric, *range;
        if (nt->l[i].used || !kv_line(nt, nt->l[i].t, &kv) ||
            !(metric = key_metric(nt, kv.key, &want)) || !kv_value(nt, kv.val, want, &v, &range))
            continue;
        const char *dir = NULL;
        struct workload ignore;
        workload_init(&ignore);
        words_workload(nt->a, kv.key, &ignore, &dir);
        const char *hdir = NULL;
        if (!dir)
            words_workload(nt->a, nt->l[heading].t, &ignore, &hdir);
        struct slot *slot = &slots[dir ? (dir[0] == 'r' ? 1 : 2) : 0];
        kv_add(nt, slot, i, metric, v, dir ? dir : hdir);
        if (range)
            record_tag(nt->a, slot->r, "range", range);
    }
    return 0;
}

/* ---- tables ---- */

#define MAX_COLS 12

struct row {
    size_t line;
    const char *cell[MAX_COLS];
    size_t n;
};

static size_t split_cells(struct notes *nt, const char *t, char sep, const char **cell)
{
    size_t n = 0;
    if (sep == '|' && *(t = skip_ws(t)) == '|')
        t++;
    while (*t && n < MAX_COLS) {
        size_t k = strcspn(t, sep == '|' ? "|" : "\t");
        char *c = notes_trim(nt->a, t, k);
        while (*c == '*')
            c++;
        char *e = c + strlen(c);
        while (e > c && e[-1] == '*')
            *--e = '\0';
        cell[n++] = c;
        t += k;
        if (*t)
            t++;
    }
    return n;
}

struct cell_val {
    size_t col, line;
    const char *dir, *metric;
    double v, ulp;
};

static int restated(const struct notes *nt, const struct cell_val *c)
{
    for (size_t i = 0; i < nt->n_vals; i++)
        if (!strcmp(nt->vals[i].metric, c->metric) &&
            fabs(nt->vals[i].value - c->v) <= c->ulp / 2 * 1.0000001)
            return 1;
    return 0;
}

static int derived_header(const char *h)
{
    static const char *const words[] = {"factor",  "ratio",  "improvement",
                                        "speedup", "faster", NULL};
    for (size_t i = 0; words[i]; i++)
        if (str_contains_ci(h, words[i]))
            return 1;
    return 0;
}

/* The direction the row's label names ("READ BW", "Random Write IOPS"); NULL when none. */
static const char *row_direction(struct notes *nt, const struct row *row)
{
    struct workload ignore;
    const char *dir = NULL;
    workload_init(&ignore);
    if (row->n) /* a row of bare pipes ("|") has no label cell */
        words_workload(nt->a, row->cell[0], &ignore, &dir);
    return dir;
}

static size_t table_cells(struct notes *nt, const struct row *rows, size_t n_rows,
                          const struct row *hdr, struct cell_val *out)
{
    size_t n = 0;
    for (size_t r = 0; r < n_rows; r++) {
        const char *dir = row_direction(nt, &rows[r]);
        for (size_t c = 1; c < rows[r].n && dir && n < 256; c++) {
            struct cell_val *cv = &out[n];
            char kind;
            const char *label = rows[r].cell[0];
            if ((c < hdr->n && derived_header(hdr->cell[c])) ||
                !notes_value(rows[r].cell[c], strlen(rows[r].cell[c]), &cv->v, &kind, &cv->ulp))
                continue;
            cv->metric = kind == 'b'                                     ? "bw_bytes_s"
                         : kind == 'c' && str_contains_ci(label, "iops") ? "iops"
                         : kind == 't' && str_contains_ci(label, "lat")  ? "lat_mean_ns"
                                                                         : NULL;
            if (!cv->metric)
                continue;
            cv->col = c;
            cv->dir = dir;
            cv->line = rows[r].line;
            n++;
        }
    }
    return n;
}

/* Whether a column header names a storage: one word, a file system or a kind of storage
 * ("CephFS", "NFS", "NFSv4", "NVMe"), or a storage class's name with one as a part between
 * '-' or '_' ("nfs-csi", "local-nvme-retain"). */
static int names_storage(const char *h)
{
    static const char *const kinds[] = {
        "nfs",  "cephfs", "ceph",   "rbd",  "xfs",       "ext4",  "ext3", "zfs", "btrfs", "tmpfs",
        "cifs", "smb",    "lustre", "gpfs", "glusterfs", "iscsi", "nvme", "ssd", "hdd",   "pmem"};
    for (const char *c = h; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
            return 0;
    for (const char *p = h; *p; p += strcspn(p, "-_")) {
        p += strspn(p, "-_");
        size_t k = strcspn(p, "-_");
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
            if (k == strlen(kinds[i]) && !strncasecmp(p, kinds[i], k))
                return 1;
        /* "nfs4", "NFSv4.1": the protocol's version */
        size_t v = k > 3 ? 3 + (size_t)(p[3] == 'v' || p[3] == 'V') : k;
        if (k > v && !strncasecmp(p, "nfs", 3) && isdigit((unsigned char)p[v]) &&
            strspn(p + v, "0123456789.") == k - v)
            return 1;
    }
    return 0;
}

/* Whether every column that holds a figure is headed by a storage's name: the table compares
 * storage, its columns are storage classes. */
static int columns_are_classes(const struct row *hdr, const struct cell_val *cv, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cv[i].col >= hdr->n || !names_storage(hdr->cell[cv[i].col]))
            return 0;
    return n > 0;
}

static int emit_table(struct notes *nt, const struct row *hdr, const struct cell_val *cv, size_t n,
                      size_t first, size_t last)
{
    size_t restates = 0;
    for (size_t i = 0; i < n; i++) {
        restates += restated(nt, &cv[i]);
        for (size_t k = 0; k < i; k++)
            if (cv[k].col == cv[i].col && !strcmp(cv[k].dir, cv[i].dir) &&
                !strcmp(cv[k].metric, cv[i].metric))
                return 0; /* one figure per column, direction and metric, or it is no result table
                           */
    }
    if (!n || restates * 2 >= n)
        return 0;
    int classes = columns_are_classes(hdr, cv, n);
    for (size_t c = 1; c < MAX_COLS; c++) {
        for (int d = 0; d < 2; d++) {
            const char *dir = d ? "write" : "read";
            struct bench_record *r = NULL;
            int both = 0;
            for (size_t i = 0; i < n; i++) {
                both |= cv[i].col == c && strcmp(cv[i].dir, dir);
                if (cv[i].col != c || strcmp(cv[i].dir, dir))
                    continue;
                if (!r) {
                    r = record_new(nt->a, tool_named(nt, first));
                    r->transcribed = 1;
                    r->direction = dir;
                }
                record_metric(nt->a, r, cv[i].metric, cv[i].v);
            }
            if (!r)
                continue;
            const char *col = c < hdr->n ? hdr->cell[c] : NULL;
            if (col)
                record_tag(nt->a, r, "column", col);
            notes_context(nt, first, last, r, both ? 'm' : dir[0], col);
            /* a "Storage Class:" line of the note wins: the columns then compare something
             * else on that class (file systems, say) */
            if (col && classes && !r->storage_class)
                r->storage_class = lower_copy(nt->a, col, strlen(col));
            if (notes_emit(nt, r))
                return -1;
        }
    }
    for (size_t i = first; i <= last; i++)
        nt->l[i].used = 1;
    return 0;
}

static int is_rule(const char *t)
{
    return strspn(t, "|-: \t") == strlen(t);
}

/* Rows from line i on: pipe rows, or rows of at least two tabs; returns the last index. */
static size_t table_rows(struct notes *nt, size_t i, char sep, struct row *rows, size_t *n)
{
    size_t last = i;
    *n = 0;
    for (; i < nt->n && *n < 64; i++) {
        const char *t = nt->l[i].t;
        int row =
            sep == '|' ? *skip_ws(t) == '|' : strchr(t, '\t') && strchr(strchr(t, '\t') + 1, '\t');
        if (!row)
            break;
        last = i;
        if (sep == '|' && is_rule(t))
            continue;
        rows[*n].line = i;
        rows[*n].n = split_cells(nt, t, sep, rows[*n].cell);
        (*n)++;
    }
    return last;
}

/* The line a tab-separated table's header is typed on: the text line just above its rows (up
 * to three blank lines between), no heading, prompt or pasted output; nt->n when none. */
static size_t header_line(const struct notes *nt, size_t i)
{
    size_t h = i;
    while (h > 0 && i - h < 3 && nt->l[h - 1].kind == NK_BLANK)
        h--;
    if (!h || (nt->l[h - 1].kind != NK_TEXT && nt->l[h - 1].kind != NK_LABEL) ||
        strchr(nt->l[h - 1].t, '\t'))
        return nt->n;
    return h - 1;
}

/* The number of the rows' columns a header must name one by one: the label column and the
 * columns up to the last that holds a figure in a row naming a direction (0: none does). */
static size_t leading_columns(struct notes *nt, const struct row *rows, size_t n_rows)
{
    size_t lead = 0;
    for (size_t r = 0; r < n_rows; r++) {
        if (!row_direction(nt, &rows[r]))
            continue;
        for (size_t c = lead; c < rows[r].n; c++) {
            double v, ulp;
            char kind;
            if (c && notes_value(rows[r].cell[c], strlen(rows[r].cell[c]), &v, &kind, &ulp))
                lead = c + 1;
        }
    }
    return lead;
}

/* A header typed with blanks between its cells above tab-separated rows, as a table pasted
 * from a wiki or a spreadsheet often is (seed 003: "<item> CephFS NFS <difference>( ... )"
 * above "READ BW<TAB>2.35 MiB/s<TAB>16.1 MiB/s<TAB><comment>"). Its words name the label
 * and value columns one by one, and the rest of the line heads the text columns after them
 * (a comment, its words one cell), or, when the rows have none, the last value column
 * ("Metric Baseline New config"). Only a count tells whether it names them: it must have at
 * least a word for each of those columns. A header that has fewer is warned about and names
 * no column; a cell of several words among the first ones would shift the names, which no
 * count sees (a column is then a storage class only when every value column's name is a
 * storage's, one word). */
static int spaced_header(struct notes *nt, size_t at, const struct row *rows, size_t n_rows,
                         struct row *hdr)
{
    size_t lead = leading_columns(nt, rows, n_rows), width = 0, words = 0;
    for (size_t r = 0; r < n_rows; r++)
        width = rows[r].n > width ? rows[r].n : width;
    const char *t = nt->l[at].t;
    hdr->n = 0;
    for (t = skip_ws(t); lead && *t; t = skip_ws(t), words++) {
        size_t k = strcspn(t, " \t"), n = hdr->n;
        /* the rest of the line: the text columns' heading, or without any ("Metric Baseline
         * New config") the last value column's, several words (so never a storage class) */
        int rest = n == lead || (n + 1 == lead && width == lead);
        if (n < lead || (n == lead && width > lead)) /* width > lead: cell[lead] exists */
            hdr->cell[hdr->n++] = notes_trim(nt->a, t, rest ? strlen(t) : k);
        t += k;
    }
    if (!lead || words >= lead)
        return lead > 0;
    diag_warn_line(nt->d, nt->src, nt->l[at].no,
                   "table header '%s' does not match the %zu columns of its rows (%zu words for a "
                   "label and %zu value column%s%s): its columns are not named",
                   nt->l[at].t, width, words, lead - 1, lead == 2 ? "" : "s",
                   width > lead ? ", then text" : "");
    hdr->n = 0;
    return 0;
}

int notes_tables(struct notes *nt)
{
    struct row *rows = arena_alloc(nt->a, 64 * sizeof(*rows));
    struct cell_val *cells = arena_alloc(nt->a, 256 * sizeof(*cells));
    for (size_t i = 0; i < nt->n; i++) {
        const char *t = nt->l[i].t;
        char sep = *skip_ws(t) == '|' ? '|' : strchr(t, '\t') ? '\t' : 0;
        size_t n_rows, first = i, last;
        if (!sep || nt->l[i].used || (last = table_rows(nt, i, sep, rows, &n_rows)) == i)
            continue;
        if (!n_rows) { /* only rule lines ("|", "|---|"): no header, no cells */
            i = last;
            continue;
        }
        struct row hdr = rows[0];
        const struct row *body = rows + 1;
        size_t n_body = n_rows - 1;
        if (sep == '\t') {
            size_t h = header_line(nt, i);
            body = rows;
            n_body = n_rows;
            hdr.n = 0;
            if (h < nt->n && spaced_header(nt, h, rows, n_rows, &hdr))
                first = h;
        }
        size_t n = table_cells(nt, body, n_body, &hdr, cells);
        if (emit_table(nt, &hdr, cells, n, first, last))
            return -1;
        i = last;
    }
    return 0;
}
