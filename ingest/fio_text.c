/* fio_text.c: fio's normal (human-readable) output, fio 2.x and 3.x (docs/formats.md section 3).
 *
 * The file is read line by line; a job block starts at `NAME: (groupid=G, jobs=J): err= E:
 * pid=P: <date>` and runs over the indented lines that follow. Each direction line (`read:`,
 * `write:`, ...) opens one record; the latency, percentile, bw and iops lines below it fill
 * that record; `cpu`, `issued` and the fsync section belong to the whole job.
 *
 * Numbers are stored as printed, converted to base units: fio 3.x prints BW and the I/O
 * total with 3 significant digits (`BW=48.1MiB/s`), and that rounded value is what is
 * stored (it is not recomputed from io/runtime, which are rounded too). fio 2.x prints
 * `KB`, `MB`, ... meaning 1024-based units.
 *
 * --status-interval repeats a job's block; the last block of a job (same run, host, name,
 * group and pid) replaces the earlier ones. Client/server output takes the host from the
 * `hostname=..., fio=fio-X` banner or the `<host> ` prefix of the job's option line.
 *
 * A cut input is an error, never other numbers: a last line without its line end (`total=80`
 * of `total=800`); a job block that ends before its `issued` line; a `Run status group`
 * summary without a line for each direction of its jobs, and, in --status-interval output, a
 * last report without its summary (an interim report's numbers are no result); fewer jobs
 * reported than `Starting N processes` named; client/server output without the "All clients"
 * report fio prints after several servers' reports. A copy cut right after a whole summary
 * looks like a shorter run, which nothing tells apart. */
#include "importer.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../core/scan.h"

/* Larger numbers are refused, so that no unit conversion can overflow to infinity. */
#define BIG 1e200

enum { D_READ, D_WRITE, D_TRIM, D_MIXED, D_SYNC, N_DIRS };
static const char *const dir_names[N_DIRS] = {"read", "write", "trim", "mixed", "sync"};

/* `NAME: (g=G): rw=..., bs=..., ioengine=..., iodepth=...` */
struct opt_line {
    const char *host, *name, *rw, *ioengine;
    int64_t group, iodepth, bs[3];
};

struct job {
    const char *name, *host, *version, *error_msg, *description;
    int64_t group, jobs, pid;
    int error, v2, have_cpu, have_depths;
    int client;      /* printed by fio --client (its run has a `hostname=..., fio=` banner) */
    int64_t started; /* jobs the run's `Starting N processes` named, 0 when none did */
    unsigned run, line_first, line_last;
    double cpu_usr, cpu_sys;
    double issued[4];
    int have_issued;
    struct bench_record *dir[N_DIRS];
};

/* The `Run status group G (all jobs):` summary that fio prints after a report's job blocks: one
 * line per direction of the group's jobs (`   READ: bw=...`), so a summary without one was cut. */
struct group_summary {
    int64_t group;
    unsigned want, seen; /* bits 1 << D_READ .. D_MIXED: directions that ran, lines read */
    unsigned line;       /* its `Run status group` line, 0 before it */
};

/* `fio: pid=P, err=E/file:..., error=MSG`: a job failed. fio's normal output omits the report
 * of a job that did no I/O (stat.c: show_thread_status_normal), so such a job is started but
 * never reported: its pid matches no report of its run. */
struct job_failure {
    unsigned run, line;
    int64_t pid, err;
    const char *msg;
};

struct parser {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct buf line; /* the current logical line, NUL-terminated */
    size_t line_off; /* byte offset of line.data[0] in the source */
    unsigned lineno;
    const char *prefix_host; /* `<host> ` prefix of the current line, or NULL */
    const char *version;
    const char *banner_host;
    int n_banner_hosts;
    unsigned run, client_run; /* client_run: 1 + the run that has a client banner, or 0 */
    unsigned started_run;     /* 1 + the run whose `Starting` lines added up to started */
    int64_t started;
    int run_has_blocks;
    int unterminated;           /* the current line is the input's last and has no line end */
    int repeated;               /* a job's report replaced an earlier one (--status-interval) */
    struct group_summary *sums; /* the groups of the report being read */
    size_t n_sums, a_sums;
    struct group_summary *sum;        /* the group whose summary lines are being read, or NULL */
    int in_summary;                   /* a `Run status group` line was read after the job blocks */
    unsigned report_line, report_run; /* the report's first job header, its run */
    struct opt_line *opts;
    size_t n_opts, a_opts;
    struct job *jobs;
    size_t n_jobs, a_jobs;
    struct job *cur;
    int cur_dir;          /* index into cur->dir, or -1 */
    const char *pct_kind; /* metric prefix of the percentile block being read; "" skips */
    double pct_scale;
    const char *fail_msg; /* first line saying that fio failed */
    unsigned fail_line;
    struct job_failure *fails;
    size_t n_fails, a_fails;
};

static size_t off_of(const struct parser *p, const char *s)
{
    return p->line_off + (size_t)(s - p->line.data);
}

/* The token at s for messages: up to a separator, at most 40 bytes. */
static const char *token(struct parser *p, const char *s)
{
    size_t n = 0;
    while (s[n] == ',' || s[n] == ' ' || s[n] == ';')
        n++; /* ", BX=..." reads better whole than as "," */
    while (s[n] && s[n] != ' ' && s[n] != ',' && s[n] != '\t' && n < 40)
        n++;
    if (!n)
        return "end of line";
    return arena_strndup(p->a, s, n);
}

static int bad(struct parser *p, const char *at, const char *what)
{
    return diag_error_at(p->d, p->src, off_of(p, at), "expected %s, got '%s'", what, token(p, at));
}

/* After an item of a `a, b, c` list: 1 at the end of the line, 0 with *s past the ',' that
 * comes before the next item, -1 after reporting anything else. */
static int list_separator(struct parser *p, const char **s)
{
    *s = skip_ws(*s);
    if (!**s)
        return 1;
    if (**s != ',')
        return bad(p, *s, "','");
    ++*s;
    return 0;
}

/* A byte unit as fio prints it ("MiB", "KB", "Mi" in the client aggregate, "" = bytes);
 * fio 2.x's KB/MB/GB/TB/PB are 1024-based. 0 when unknown. */
static double byte_unit(const char *u, size_t n, int v2)
{
    char tmp[8];
    if (n >= sizeof(tmp) - 1)
        return 0;
    memcpy(tmp, u, n);
    if (n && tmp[n - 1] != 'B')
        tmp[n++] = 'B';
    tmp[n] = '\0';
    if (v2 && n == 2 && strchr("KMGTP", tmp[0]))
        return pow(1024.0, (double)(strchr("KMGTP", tmp[0]) - "KMGTP" + 1));
    return unit_bytes(tmp, n, 0);
}

/* number + byte unit (+ "/s" when rate): "48.1MiB/s", "254727KB/s", "463MiB". */
static int scan_bytes(const char **s, int v2, int rate, double *v)
{
    const char *q = *s, *u;
    double x;
    size_t un;
    if (!scan_quantity(&q, &x, &u, &un))
        return 0;
    double m = byte_unit(u, un, v2);
    if (m == 0)
        return 0;
    if (rate && !scan_lit(&q, "/s") && !(q > u && q[-1] == 'i') && q - u != 1)
        return 0; /* only the client aggregate omits "/s" ("32.8Mi", "34.4M") */
    if (!(x * m <= BIG))
        return 0;
    *v = x * m;
    *s = q;
    return 1;
}

/* number + time unit -> ms: "10001msec", "120014msec". */
static int scan_ms(const char **s, double *ms)
{
    const char *q = *s, *u;
    double x;
    size_t un;
    if (!scan_quantity(&q, &x, &u, &un))
        return 0;
    double m = unit_time_ns(u, un);
    if (m == 0 || !(x <= BIG))
        return 0;
    *ms = x * m / 1e6;
    *s = q;
    return 1;
}

/* A number with an optional k/K/M/G count suffix (fio's num2str, 1000-based). */
static int scan_count(const char **s, double *v)
{
    const char *q = *s;
    double x;
    if (!scan_number(&q, &x))
        return 0;
    if (*q && strchr("kKMG", *q) && !isalpha((unsigned char)q[1]))
        x *= unit_count_suffix(*q++);
    if (!(fabs(x) <= BIG))
        return 0;
    *v = x;
    *s = q;
    return 1;
}

/* `key=value, key=value` lists (latency, bw, iops, cpu, latency-target lines). */
struct kv_item {
    char key[16];
    double v;
    int pct;
};

static int kv_list(struct parser *p, const char *s, struct kv_item *it, size_t max, size_t *n)
{
    *n = 0;
    for (;;) {
        s = skip_ws(s);
        if (!*s)
            return 0;
        const char *k = s;
        while (isalpha((unsigned char)*s) || *s == '_')
            s++;
        size_t kn = (size_t)(s - k);
        if (!kn || kn >= sizeof(it->key) || *s != '=')
            return bad(p, k, "'key=value'");
        s = skip_ws(s + 1);
        double v;
        const char *vs = s;
        if (!scan_count(&s, &v))
            return bad(p, vs, "a number");
        int pct = scan_lit(&s, "%");
        s = skip_ws(s);
        if (*s && *s != ',')
            return bad(p, vs, "a number");
        if (*n < max) {
            memcpy(it[*n].key, k, kn);
            it[*n].key[kn] = '\0';
            it[*n].v = v;
            it[*n].pct = pct;
            (*n)++;
        }
        if (!*s)
            return 0;
        s++;
    }
}

static const struct kv_item *kv_get(const struct kv_item *it, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(it[i].key, key))
            return &it[i];
    return NULL;
}

/* Requires min, max, avg and stdev and stores them as PREFIX_{min,max,mean,stddev}SUFFIX. */
static int stat_line(struct parser *p, const char *s, struct bench_record *r, const char *prefix,
                     const char *suffix, double scale)
{
    static const char *const keys[] = {"min", "max", "avg", "stdev"};
    static const char *const names[] = {"min", "max", "mean", "stddev"};
    struct kv_item it[8];
    size_t n;
    if (kv_list(p, s, it, 8, &n))
        return -1;
    for (size_t i = 0; i < 4; i++) {
        const struct kv_item *x = kv_get(it, n, keys[i]);
        if (!x)
            return diag_error_at(p->d, p->src, off_of(p, s), "missing '%s=' in '%s' line", keys[i],
                                 prefix);
        record_metric(p->a, r, arena_printf(p->a, "%s_%s%s", prefix, names[i], suffix),
                      x->v * scale);
    }
    return 0;
}

/* "1=0.1%, 2=0.1%, ..., >=64=0.0%": checks the shape only (nothing here is stored). */
static int pct_list(struct parser *p, const char *s, int need_ge)
{
    int ge = 0;
    for (;;) {
        s = skip_ws(s);
        const char *k = s;
        ge = scan_lit(&s, ">=");
        int64_t key;
        double v;
        if (!scan_int64(&s, &key) || !scan_lit(&s, "="))
            return bad(p, k, "'N=percent%'");
        const char *vs = s;
        if (!scan_number(&s, &v) || !scan_lit(&s, "%"))
            return bad(p, vs, "a percentage");
        int sep = list_separator(p, &s);
        if (sep < 0)
            return -1;
        if (sep)
            break;
    }
    if (need_ge && !ge)
        return diag_error_at(p->d, p->src, off_of(p, s), "expected '>=64=...%%', got '%s'",
                             token(p, s));
    return 0;
}

/* "(usec)" -> ns multiplier; s points at '('. */
static int paren_time_unit(struct parser *p, const char **s, double *scale)
{
    const char *q = *s;
    if (*q != '(')
        return bad(p, q, "'(unit)'");
    const char *u = ++q;
    while (*q && *q != ')')
        q++;
    if (*q != ')' || (*scale = unit_time_ns(u, (size_t)(q - u))) == 0)
        return bad(p, u, "a time unit (nsec, usec, msec)");
    *s = q + 1;
    return 0;
}

static struct bench_record *section(struct parser *p, const char *at, const char *what)
{
    if (p->cur_dir < 0 || !p->cur->dir[p->cur_dir]) {
        diag_error_at(p->d, p->src, off_of(p, at),
                      "'%s' line outside a read/write/trim section of job '%s'", what,
                      p->cur->name);
        return NULL;
    }
    return p->cur->dir[p->cur_dir];
}

/* `     |  1.00th=[  302],  5.00th=[  326], ...` */
static int percentile_line(struct parser *p, const char *s)
{
    if (!*p->pct_kind)
        return 0;
    struct bench_record *r = section(p, s, "percentiles");
    if (!r)
        return -1;
    s++;
    for (;;) {
        s = skip_ws(s);
        if (!*s)
            return 0;
        double pct, v;
        const char *at = s;
        if (!scan_number(&s, &pct) || pct <= 0 || pct > 100 || !scan_lit(&s, "th=["))
            return bad(p, at, "'N.NNth=[value]'");
        s = skip_ws(s);
        at = s;
        if (!scan_count(&s, &v) || v < 0 || !scan_lit(&s, "]"))
            return bad(p, at, "a percentile value and ']'");
        record_metric(p->a, r, record_percentile_name(p->a, p->pct_kind, pct), v * p->pct_scale);
        if (list_separator(p, &s) < 0)
            return -1;
    }
}

/* fio 3.x: `IOPS=12.3k, BW=48.1MiB/s (50.4MB/s)(463MiB/10001msec)[; ...]` */
static int dir_line_v3(struct parser *p, const char *s, struct bench_record *r)
{
    double iops, bw, io, ms, other;
    const char *at = s;
    if (!scan_lit(&s, "IOPS=") || !scan_count(&s, &iops) || iops < 0)
        return bad(p, at, "'IOPS=<number>'");
    at = s;
    if (!scan_lit(&s, ", BW=") || !scan_bytes(&s, 0, 1, &bw))
        return bad(p, at, "', BW=<rate>'");
    s = skip_ws(s);
    at = s;
    if (!scan_lit(&s, "(") || !scan_bytes(&s, 0, 1, &other) || !scan_lit(&s, ")"))
        return bad(p, at, "'(<rate>)'");
    at = s;
    if (!scan_lit(&s, "(") || !scan_bytes(&s, 0, 0, &io) || !scan_lit(&s, "/") ||
        !scan_ms(&s, &ms) || !scan_lit(&s, ")"))
        return bad(p, at, "'(<io>/<runtime>)'");
    s = skip_ws(s);
    if (*s && *s != ';')
        return bad(p, s, "end of line or ';'");
    record_metric(p->a, r, "iops", iops);
    record_metric(p->a, r, "bw_bytes_s", bw);
    record_metric(p->a, r, "io_bytes", io);
    record_metric(p->a, r, "runtime_ms", ms);
    return 0;
}

/* fio 2.x: `io=29854MB, bw=254727KB/s, iops=63647, runt=120014msec` */
static int dir_line_v2(struct parser *p, const char *s, struct bench_record *r)
{
    int seen = 0;
    for (;;) {
        s = skip_ws(s);
        const char *at = s;
        double v;
        if (scan_lit(&s, "io=")) {
            s = skip_ws(s);
            if (!scan_bytes(&s, 1, 0, &v))
                return bad(p, s, "an I/O size such as '29854MB'");
            record_metric(p->a, r, "io_bytes", v);
            seen |= 1;
        } else if (scan_lit(&s, "bw=")) {
            s = skip_ws(s);
            if (!scan_bytes(&s, 1, 1, &v))
                return bad(p, s, "a rate such as '254727KB/s'");
            record_metric(p->a, r, "bw_bytes_s", v);
            seen |= 2;
        } else if (scan_lit(&s, "iops=")) {
            s = skip_ws(s);
            if (!scan_count(&s, &v) || v < 0)
                return bad(p, s, "a number");
            record_metric(p->a, r, "iops", v);
            seen |= 4;
        } else if (scan_lit(&s, "runt=")) {
            s = skip_ws(s);
            if (!scan_ms(&s, &v))
                return bad(p, s, "a runtime such as '120014msec'");
            record_metric(p->a, r, "runtime_ms", v);
            seen |= 8;
        } else {
            return bad(p, at, "'io=', 'bw=', 'iops=' or 'runt='");
        }
        int sep = list_separator(p, &s);
        if (sep < 0)
            return -1;
        if (sep)
            break;
    }
    if ((seen & 3) != 3)
        return diag_error_at(p->d, p->src, off_of(p, s), "expected 'io=' and 'bw=' in '%s'",
                             p->line.data);
    return 0;
}

static int direction_line(struct parser *p, int dir, const char *s)
{
    struct bench_record *r = record_new(p->a, "fio");
    r->direction = dir_names[dir];
    p->cur->dir[dir] = r;
    p->cur_dir = dir;
    s = skip_ws(s);
    if (str_starts(s, "IOPS="))
        return dir_line_v3(p, s, r);
    if (str_starts(s, "io=")) {
        p->cur->v2 = 1;
        return dir_line_v2(p, s, r);
    }
    return bad(p, s, "'IOPS=' or 'io='");
}

/* `slat (usec): min=...`, `clat percentiles (usec):`, `lat (msec) : 50=0.01%, ...` */
static int latency_line(struct parser *p, const char *word, const char *s)
{
    const char *kind = !strcmp(word, "sync") ? "sync_lat" : word;
    s = skip_ws(s);
    int pct = scan_lit(&s, "percentiles");
    s = skip_ws(s);
    double scale = 1;
    if (paren_time_unit(p, &s, &scale))
        return -1;
    s = skip_ws(s);
    if (!scan_lit(&s, ":"))
        return bad(p, s, "':'");
    s = skip_ws(s);
    if (pct) {
        p->pct_kind = kind;
        p->pct_scale = scale;
        return 0;
    }
    if (!strcmp(word, "lat") && !str_starts(s, "min="))
        return pct_list(p, s, 0); /* the latency distribution of the job */
    struct bench_record *r = section(p, word, word);
    if (!r)
        return -1;
    return stat_line(p, s, r, kind, "_ns", scale);
}

/* `bw (  KiB/s): min=..., max=..., per=..%, avg=..., stdev=...[, samples=N]` */
static int bw_line(struct parser *p, const char *s)
{
    struct bench_record *r = section(p, s, "bw");
    if (!r)
        return -1;
    s = skip_ws(s + 2);
    if (*s != '(')
        return bad(p, s, "'(unit/s)'");
    char u[16];
    size_t n = 0;
    const char *q = s + 1;
    for (; *q && *q != ')'; q++)
        if (*q != ' ' && n < sizeof(u) - 1)
            u[n++] = *q;
    u[n] = '\0';
    double m = 0;
    if (*q == ')' && n > 2 && !strcmp(u + n - 2, "/s"))
        m = byte_unit(u, n - 2, p->cur->v2);
    if (m == 0)
        return bad(p, s + 1, "a rate unit such as 'KiB/s'");
    s = skip_ws(q + 1);
    if (!scan_lit(&s, ":"))
        return bad(p, s, "':'");
    return stat_line(p, s, r, "bw", "_bytes_s", m);
}

static int cpu_line(struct parser *p, const char *s)
{
    struct kv_item it[8];
    size_t n;
    if (kv_list(p, s, it, 8, &n))
        return -1;
    const struct kv_item *usr = kv_get(it, n, "usr"), *sys = kv_get(it, n, "sys");
    if (!usr || !sys || !usr->pct || !sys->pct)
        return diag_error_at(p->d, p->src, off_of(p, s), "expected 'usr=N%%, sys=N%%', got '%s'",
                             token(p, skip_ws(s)));
    p->cur->cpu_usr = usr->v;
    p->cur->cpu_sys = sys->v;
    p->cur->have_cpu = 1;
    return 0;
}

/* 3.x `total=R,W,T[,S] short=...`; 2.x `total=r=R/w=W/d=T, short=...` */
static int issued_line(struct parser *p, const char *s)
{
    const char *t = strstr(s, "total=");
    if (!t)
        return bad(p, skip_ws(s), "'total='");
    t += 6;
    int v2 = scan_lit(&t, "r=");
    for (int i = 0; i < 4; i++) {
        int64_t v;
        if (!scan_int64(&t, &v))
            return bad(p, t, "an I/O count");
        p->cur->issued[i] = (double)v;
        p->cur->have_issued = i + 1;
        if (v2 ? !scan_lit(&t, "/") : !scan_lit(&t, ","))
            break;
        if (v2 && (!isalpha((unsigned char)*t) || t[1] != '='))
            return bad(p, t, "'w=' or 'd='");
        if (v2)
            t += 2;
        if (!isdigit((unsigned char)*t))
            break; /* fio 3.0's "total=0,13808,0, short=" */
    }
    return 0;
}

static int target_line(struct parser *p, const char *s)
{
    struct kv_item it[8];
    size_t n;
    if (kv_list(p, s, it, 8, &n))
        return -1;
    if (!kv_get(it, n, "target") || !kv_get(it, n, "depth"))
        return diag_error_at(p->d, p->src, off_of(p, s),
                             "expected 'target=..., depth=N', "
                             "got '%s'",
                             token(p, skip_ws(s)));
    return 0;
}

/* "word   :" -> pointer after the colon, or NULL. */
static const char *label(const char *s, const char *word)
{
    if (!str_starts(s, word))
        return NULL;
    s = skip_ws(s + strlen(word));
    return *s == ':' ? s + 1 : NULL;
}

static int body_line(struct parser *p, const char *s)
{
    const char *rest;
    if (*s == '|' && p->pct_kind)
        return percentile_line(p, s);
    p->pct_kind = NULL;
    for (int dir = 0; dir < D_SYNC; dir++)
        if ((rest = label(s, dir_names[dir])))
            return direction_line(p, dir, rest);
    static const char *const lat_words[] = {"slat", "clat", "lat", "sync"};
    for (size_t i = 0; i < 4; i++) {
        size_t n = strlen(lat_words[i]);
        if (str_starts(s, lat_words[i]) && s[n] == ' ' &&
            (skip_ws(s + n)[0] == '(' || str_starts(skip_ws(s + n), "percentiles ("))) {
            if (!strcmp(lat_words[i], "sync")) {
                p->cur_dir = D_SYNC;
                if (!p->cur->dir[D_SYNC])
                    p->cur->dir[D_SYNC] = record_new(p->a, "fio");
            }
            return latency_line(p, lat_words[i], s + n);
        }
    }
    if (strstr(s, "percentiles") && strchr(s, '|') == NULL) {
        p->pct_kind = ""; /* e.g. "clat prio 1 percentiles": not stored */
        return 0;
    }
    if (str_starts(s, "bw ("))
        return bw_line(p, s);
    if ((rest = label(s, "iops"))) {
        struct bench_record *r = section(p, s, "iops");
        return r ? stat_line(p, rest, r, "iops", "", 1) : -1;
    }
    if ((rest = label(s, "cpu")))
        return cpu_line(p, rest);
    if ((rest = label(s, "IO depths"))) {
        p->cur->have_depths = 1;
        return pct_list(p, rest, 1);
    }
    if ((rest = label(s, "submit")) || (rest = label(s, "complete")))
        return pct_list(p, rest, 1);
    if (str_starts(s, "issued") && (rest = strchr(s, ':')))
        return issued_line(p, rest + 1);
    if ((rest = label(s, "latency")))
        return target_line(p, rest);
    if ((rest = label(s, "Description"))) {
        rest = skip_ws(rest);
        size_t n = strlen(rest);
        if (n >= 2 && rest[0] == '[' && rest[n - 1] == ']')
            p->cur->description = arena_strndup(p->a, rest + 1, n - 2);
        return 0;
    }
    return 0; /* lines this importer does not use (zone resets, prio stats, ...) */
}

static struct opt_line *find_opt(struct parser *p, const char *host, const char *name,
                                 int64_t group)
{
    for (size_t i = p->n_opts; i-- > 0;) {
        struct opt_line *o = &p->opts[i];
        if (!strcmp(o->name, name) && o->group == group &&
            (!host || !o->host || !strcmp(o->host, host)))
            return o;
    }
    return NULL;
}

static void new_run_mark(struct parser *p)
{
    if (p->run_has_blocks) {
        p->run++;
        p->run_has_blocks = 0;
    }
}

/* "4096B-4096B" / "64.0KiB-64.0KiB" / "4K-4K": the size when min == max, else unknown. */
static int64_t bs_range(const char *s, size_t n)
{
    char tmp[64];
    if (n == 0 || n >= sizeof(tmp))
        return WL_UNKNOWN;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *dash = strchr(tmp, '-');
    if (!dash)
        return WL_UNKNOWN;
    *dash = '\0';
    int64_t lo, hi;
    if (!parse_fio_size(tmp, &lo) || !parse_fio_size(dash + 1, &hi) || lo != hi)
        return WL_UNKNOWN;
    return lo;
}

static const char *opt_value(struct parser *p, const char *s, const char *key, size_t *n)
{
    const char *v = strstr(s, key);
    if (!v)
        return NULL;
    v += strlen(key);
    *n = strcspn(v, ",");
    return arena_strndup(p->a, v, *n);
}

/* `NAME: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) ..., ioengine=libaio, iodepth=32`;
 * fio 2.x: `bs=4K-4K/4K-4K/4K-4K`. Malformed option lines are ignored (no results). */
static void option_line(struct parser *p, const char *s, const char *mark)
{
    new_run_mark(p);
    struct opt_line o = {p->prefix_host, arena_strndup(p->a, s, (size_t)(mark - s)), NULL, NULL, 0,
                         WL_UNKNOWN,     {WL_UNKNOWN, WL_UNKNOWN, WL_UNKNOWN}};
    const char *q = mark + 5;
    if (!scan_int64(&q, &o.group) || !scan_lit(&q, "):"))
        return;
    size_t n;
    o.rw = opt_value(p, q, "rw=", &n);
    o.ioengine = opt_value(p, q, "ioengine=", &n);
    const char *d = strstr(q, "iodepth=");
    int64_t v;
    if (d && (d += 8, scan_int64(&d, &v)))
        o.iodepth = v;
    const char *bs = strstr(q, "bs=");
    if (bs) {
        bs += 3;
        if (str_starts(bs, "(R) ")) {
            static const char *const tags[] = {"(R) ", "(W) ", "(T) "};
            for (int i = 0; i < 3; i++) {
                const char *t = strstr(bs, tags[i]);
                if (t) {
                    t += 4;
                    o.bs[i] = bs_range(t, strcspn(t, ", "));
                }
            }
        } else {
            for (int i = 0; i < 3 && *bs && *bs != ','; i++) {
                size_t m = strcspn(bs, "/,");
                o.bs[i] = bs_range(bs, m);
                bs += m;
                if (*bs == '/')
                    bs++;
            }
        }
    }
    p->opts = arena_grow(p->a, p->opts, p->n_opts, &p->a_opts, sizeof(*p->opts));
    p->opts[p->n_opts++] = o;
}

/* ---- the `Run status group` summaries ---- */

static const char *const summary_labels[D_SYNC] = {"READ:", "WRITE:", "TRIM:", "MIXED:"};

static struct group_summary *group_summary(struct parser *p, int64_t group)
{
    for (size_t i = 0; i < p->n_sums; i++)
        if (p->sums[i].group == group)
            return &p->sums[i];
    p->sums = arena_grow(p->a, p->sums, p->n_sums, &p->a_sums, sizeof(*p->sums));
    p->sums[p->n_sums] = (struct group_summary){group, 0, 0, 0};
    return &p->sums[p->n_sums++];
}

/* Every group of the report being read has its summary, with a line per direction that ran;
 * else a located error at line. */
static int check_summaries(struct parser *p, unsigned line)
{
    for (size_t i = 0; i < p->n_sums; i++) {
        const struct group_summary *g = &p->sums[i];
        unsigned missing = g->want & ~g->seen;
        if (!missing)
            continue;
        if (!g->line)
            return diag_error_line(p->d, p->src, line,
                                   "truncated report (line %u): no 'Run status group %lld' "
                                   "summary after its job blocks",
                                   p->report_line, (long long)g->group);
        int dir = 0;
        while (!(missing & 1u << dir))
            dir++;
        return diag_error_line(p->d, p->src, line,
                               "truncated 'Run status group %lld' summary (line %u): no '%s' line",
                               (long long)g->group, g->line, summary_labels[dir]);
    }
    return 0;
}

/* A job header: the first of a report when the previous report's summary began or the run
 * changed (--status-interval prints job blocks and summaries over and over). */
static int report_start(struct parser *p)
{
    if (p->n_sums && !p->in_summary && p->report_run == p->run)
        return 0;
    if (p->in_summary && check_summaries(p, p->lineno))
        return -1;
    p->n_sums = 0;
    p->sum = NULL;
    p->in_summary = 0;
    p->report_line = p->lineno;
    p->report_run = p->run;
    return 0;
}

/* `Run status group G (all jobs):` after the job blocks of G */
static void summary_header(struct parser *p, const char *s)
{
    const char *q = s + strlen("Run status group ");
    int64_t group;
    p->sum = NULL;
    if (!p->n_sums || !scan_int64(&q, &group))
        return;
    p->in_summary = 1;
    p->sum = group_summary(p, group);
    p->sum->line = p->lineno;
}

/* `   READ: bw=...` in the summary being read */
static void summary_line(struct parser *p, const char *s)
{
    s = skip_ws(s);
    for (int dir = 0; dir < D_SYNC; dir++)
        if (str_starts(s, summary_labels[dir]))
            p->sum->seen |= 1u << dir;
}

/* The directions of a finished job block that its group's summary has a line for: those that
 * ran (fio prints none for a direction with no run time). */
static void summary_wants(struct parser *p, const struct job *j)
{
    struct group_summary *g = group_summary(p, j->group);
    for (int dir = 0; dir < D_SYNC; dir++) {
        const double *ms = j->dir[dir] ? record_get(j->dir[dir], "runtime_ms") : NULL;
        if (ms && *ms > 0)
            g->want |= 1u << dir;
    }
}

/* `NAME: (groupid=G, jobs=J): err= E[ (file:..., error=...)]: pid=P: <date>` */
static int job_header(struct parser *p, const char *s, const char *mark)
{
    struct job j;
    memset(&j, 0, sizeof(j));
    j.name = arena_strndup(p->a, s, (size_t)(mark - s));
    j.host = p->prefix_host;
    j.version = p->version;
    j.run = p->run;
    j.client = p->client_run == p->run + 1;
    j.started = p->started_run == p->run + 1 ? p->started : 0;
    j.line_first = j.line_last = p->lineno;
    const char *q = mark + strlen(": (groupid="), *at = q;
    if (!scan_int64(&q, &j.group) || !scan_lit(&q, ", jobs=") || !scan_int64(&q, &j.jobs) ||
        !scan_lit(&q, "): err="))
        return bad(p, at, "'(groupid=G, jobs=J): err='");
    q = skip_ws(q);
    at = q;
    double err;
    if (!scan_number(&q, &err) || err != floor(err) || fabs(err) > 1e9)
        return bad(p, at, "an error number");
    j.error = (int)err;
    if (*q == ' ' && q[1] == '(') {
        const char *end = strstr(q, "): pid=");
        if (!end)
            return bad(p, q, "'(...): pid='");
        const char *msg = strstr(q, "error=");
        msg = msg && msg < end ? msg + 6 : q + 2;
        j.error_msg = arena_strndup(p->a, msg, (size_t)(end - msg));
        q = end + 1;
    }
    at = q;
    if (!scan_lit(&q, ": pid=") || !scan_int64(&q, &j.pid))
        return bad(p, at, "': pid=P'");
    if (j.error && !j.error_msg)
        j.error_msg = arena_printf(p->a, "fio reported error %d for job '%s'", j.error, j.name);
    if (report_start(p))
        return -1;
    p->run_has_blocks = 1;
    p->jobs = arena_grow(p->a, p->jobs, p->n_jobs, &p->a_jobs, sizeof(*p->jobs));
    p->jobs[p->n_jobs] = j;
    p->cur = &p->jobs[p->n_jobs++];
    p->cur_dir = -1;
    p->pct_kind = NULL;
    return 0;
}

/* A finished block: complete, and it replaces an earlier report of the same job. */
static int end_block(struct parser *p)
{
    struct job *j = p->cur;
    p->cur = NULL;
    /* the lines after `issued` (latency target) store nothing */
    const char *missing = !j->have_cpu ? "cpu" : !j->have_depths ? "IO depths" : "issued";
    if (!j->have_cpu || !j->have_depths || !j->have_issued)
        return diag_error_line(p->d, p->src, j->line_last,
                               "truncated report of job '%s' (line %u): no '%s' line", j->name,
                               j->line_first, missing);
    summary_wants(p, j);
    for (size_t i = 0; i + 1 < p->n_jobs; i++) {
        struct job *o = &p->jobs[i];
        if (o->run == j->run && o->group == j->group && o->pid == j->pid &&
            !strcmp(o->name, j->name) &&
            ((!o->host && !j->host) || (o->host && j->host && !strcmp(o->host, j->host)))) {
            *o = *j; /* --status-interval: the last report is the final one */
            p->n_jobs--;
            p->repeated = 1;
            break;
        }
    }
    return 0;
}

static int is_version(const char *s)
{
    if (!str_starts(s, "fio-") || !isdigit((unsigned char)s[4]))
        return 0;
    for (s += 4; *s; s++)
        if (isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* `hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1` */
static int banner_line(struct parser *p, const char *s)
{
    const char *f = strstr(s, ", fio=");
    if (!str_starts(s, "hostname=") || !f)
        return 0;
    const char *h = s + 9;
    p->banner_host = arena_strndup(p->a, h, strcspn(h, ","));
    p->n_banner_hosts++;
    f += 6;
    p->version = arena_strndup(p->a, f, strcspn(f, ", "));
    new_run_mark(p);
    p->client_run = p->run + 1;
    return 1;
}

/* `Starting 4 processes`, `Starting 2 threads and 1 process`: how many jobs fio started. */
static int64_t started_jobs(const char *s)
{
    const char *q = s + strlen("Starting ");
    int64_t n, total = 0;
    while (scan_int64(&q, &n) && n >= 0 && n < 1000000) {
        total += n;
        q = skip_ws(q);
        while (isalpha((unsigned char)*q))
            q++;
        if (!scan_lit(&q, " and "))
            break;
    }
    return total;
}

static int is_failure(const char *s)
{
    return str_starts(s, "fio: ") || str_starts(s, "verify: ") || strstr(s, ": verify failed");
}

static void job_failure(struct parser *p, const char *s)
{
    struct job_failure f = {p->run, p->lineno, 0, 0, NULL};
    if (!scan_int64(&s, &f.pid) || !scan_lit(&s, ", err=") || !scan_int64(&s, &f.err))
        return;
    const char *m = strstr(s, ", error=");
    f.msg = m ? arena_strndup(p->a, m + 8, strlen(m + 8) > 200 ? 200 : strlen(m + 8)) : "";
    p->fails = arena_grow(p->a, p->fails, p->n_fails, &p->a_fails, sizeof(*p->fails));
    p->fails[p->n_fails++] = f;
}

static int outside_line(struct parser *p, const char *s)
{
    const char *mark;
    if (str_starts(s, "Run status group ")) {
        summary_header(p, s);
        return 0;
    }
    if (p->sum)
        summary_line(p, s);
    if (str_starts(s, "Jobs:")) {
        /* an ETA line with a job report glued after it (no newline) */
        mark = strstr(s, ": (groupid=");
        if (!mark)
            return 0;
        const char *name = mark;
        while (name > s && name[-1] != ']' && name[-1] != ')')
            name--;
        s = skip_ws(name);
        if (s >= mark)
            return 0;
    }
    if ((mark = strstr(s, ": (groupid=")) && mark > s)
        return job_header(p, s, mark);
    if (banner_line(p, s))
        return 0;
    if (is_version(s)) {
        new_run_mark(p);
        p->version = arena_strdup(p->a, s);
        return 0;
    }
    if (str_starts(s, "Starting ") && isdigit((unsigned char)s[9])) {
        new_run_mark(p);
        if (p->started_run != p->run + 1)
            p->started = 0; /* servers of one client run print one line each */
        p->started_run = p->run + 1;
        p->started += started_jobs(s);
        return 0;
    }
    if ((mark = strstr(s, ": (g=")) && mark > s) {
        option_line(p, s, mark);
        return 0;
    }
    if (str_starts(s, "fio: pid="))
        job_failure(p, s + 9);
    if (!p->fail_msg && is_failure(s)) {
        const char *m = str_starts(s, "fio: ") ? s + 5 : s;
        p->fail_msg = arena_strndup(p->a, m, strlen(m) > 300 ? 300 : strlen(m));
        p->fail_line = p->lineno;
    }
    return 0;
}

/* One logical line: a '\n' line, or a piece of one split at '\r' (ETA lines). */
static int segment(struct parser *p, const char *s, size_t n, size_t off)
{
    size_t bom = bom_len(s, n);
    s += bom, n -= bom, off += bom;
    p->prefix_host = NULL;
    if (n > 3 && s[0] == '<') {
        size_t i = 1;
        while (i < n && i < 256 && s[i] != '>' && s[i] != ' ' && s[i] != '\0')
            i++;
        if (i > 1 && i + 1 < n && s[i] == '>' && s[i + 1] == ' ') {
            p->prefix_host = arena_strndup(p->a, s + 1, i - 1);
            s += i + 2, n -= i + 2, off += i + 2;
        }
    }
    buf_reset(&p->line);
    buf_add(&p->line, s, n);
    p->line_off = off;
    const char *t = p->line.data;
    int blank = !*skip_ws(t);
    if (p->cur) {
        if (blank)
            return 0;
        if (*t == ' ' || *t == '\t') {
            p->cur->line_last = p->lineno;
            if (strlen(t) != n)
                return diag_error_at(p->d, p->src, off + strlen(t),
                                     "unexpected NUL byte in the report of job '%s'", p->cur->name);
            return body_line(p, skip_ws(t));
        }
        if (end_block(p))
            return -1;
    }
    return blank ? 0 : outside_line(p, t);
}

static const struct opt_line *job_options(struct parser *p, const struct job *j)
{
    return find_opt(p, j->host, j->name, j->group);
}

static int is_all_clients(const struct job *j)
{
    return j->pid == 0 && !strcmp(j->name, "All clients");
}

/* The reports of one run: job entries (servers' with --client), the jobs they cover (`jobs=J`)
 * and "All clients" reports. */
struct run_reports {
    size_t entries, aggregates;
    int64_t jobs;
};

static struct run_reports run_reports(const struct parser *p, unsigned run)
{
    struct run_reports r = {0, 0, 0};
    for (size_t i = 0; i < p->n_jobs; i++) {
        const struct job *j = &p->jobs[i];
        if (j->run == run && is_all_clients(j)) {
            r.aggregates++;
        } else if (j->run == run) {
            r.entries++;
            r.jobs += j->jobs;
        }
    }
    return r;
}

/* Reports missing from a run whose output was cut between two whole ones:
 * - fio reports every job it started: the `jobs=J` of a run's reports add up to the count of
 *   its `Starting` lines (numjobs without group_reporting prints one report per thread);
 * - fio --client prints an "All clients" report once the servers have sent more than one
 *   (client.c: sum_stat_clients > 1), else a server's entry would be taken for the result. */
static int reported_pid(const struct parser *p, unsigned run, int64_t pid)
{
    for (size_t i = 0; i < p->n_jobs; i++)
        if (p->jobs[i].run == run && p->jobs[i].pid == pid)
            return 1;
    return 0;
}

/* The run's jobs that failed with no report (a warning each): fio started them too. */
static int64_t unreported_failures(const struct parser *p, unsigned run)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->n_fails; i++) {
        const struct job_failure *f = &p->fails[i];
        if (f->run != run || reported_pid(p, run, f->pid))
            continue;
        diag_warn_line(p->d, p->src, f->line,
                       "a job failed with error %lld%s%s and did no I/O: fio printed no report "
                       "for it",
                       (long long)f->err, *f->msg ? ": " : "", f->msg);
        n++;
    }
    return n;
}

static int check_runs(struct parser *p)
{
    for (size_t i = 0; i < p->n_jobs; i++) {
        const struct job *j = &p->jobs[i];
        if (i && p->jobs[i - 1].run == j->run)
            continue; /* runs are in order: one check at the first job of each */
        struct run_reports r = run_reports(p, j->run);
        r.jobs += unreported_failures(p, j->run);
        if (j->started && r.jobs < j->started)
            return diag_error_line(p->d, p->src, p->lineno,
                                   "truncated output: fio started %lld jobs and reported %lld "
                                   "(the run's first report is at line %u)",
                                   (long long)j->started, (long long)r.jobs, j->line_first);
        if (j->client && r.entries > 1 && !r.aggregates)
            return diag_error_line(p->d, p->src, p->lineno,
                                   "truncated client/server output: no 'All clients' report "
                                   "after the %zu reports of the servers (from line %u)",
                                   r.entries, j->line_first);
    }
    return 0;
}

static int clones(const struct parser *p, const struct job *j)
{
    int n = 0;
    for (size_t i = 0; i < p->n_jobs; i++) {
        const struct job *o = &p->jobs[i];
        n += o->run == j->run && o->group == j->group && !strcmp(o->name, j->name) &&
             ((!o->host && !j->host) || (o->host && j->host && !strcmp(o->host, j->host)));
    }
    return n;
}

static void fill(struct parser *p, const struct job *j, struct bench_record *r, int dir)
{
    const struct opt_line *o = job_options(p, j);
    r->tool_version = j->version;
    r->host = j->host                  ? j->host
              : o && o->host           ? o->host
              : p->n_banner_hosts == 1 ? p->banner_host
                                       : NULL;
    r->job = j->name;
    r->error = j->error;
    r->error_msg = j->error_msg;
    r->line_first = j->line_first;
    r->line_last = j->line_last;
    r->run_no = j->run;
    r->groupid = j->group;
    r->wl.numjobs = j->jobs > 1 ? j->jobs : clones(p, j);
    if (o) {
        r->wl.rw = o->rw;
        r->wl.ioengine = o->ioengine;
        r->wl.iodepth = o->iodepth;
        if (dir >= 0 && dir < D_MIXED)
            r->wl.bs_bytes = o->bs[dir];
        else if (dir == D_MIXED && o->bs[0] == o->bs[1])
            r->wl.bs_bytes = o->bs[0];
    }
    if (j->description)
        record_tag(p->a, r, "description", j->description);
    if (is_all_clients(j)) {
        r->host = NULL; /* the client/server aggregate, as the fio-json importer keeps it */
        record_tag(p->a, r, "aggregate", "all-clients");
    }
}

static int emit_job(struct parser *p, const struct job *j, struct record_sink *out)
{
    int emitted = 0;
    for (int dir = 0; dir < D_SYNC; dir++) {
        struct bench_record *r = j->dir[dir];
        if (!r)
            continue;
        fill(p, j, r, dir);
        if (j->have_cpu) {
            record_metric(p->a, r, "cpu_usr_pct", j->cpu_usr);
            record_metric(p->a, r, "cpu_sys_pct", j->cpu_sys);
        }
        if (dir < D_MIXED && j->have_issued > dir)
            record_metric(p->a, r, "total_ios", j->issued[dir]);
        const struct bench_record *sync = j->dir[D_SYNC];
        if (sync && (dir == D_WRITE || (dir == D_MIXED && !j->dir[D_WRITE]))) {
            for (size_t i = 0; i < sync->n_metrics; i++)
                record_metric(p->a, r, sync->metrics[i].name, sync->metrics[i].value);
            if (j->have_issued > 3)
                record_metric(p->a, r, "sync_total_ios", j->issued[3]);
        }
        if (out->emit(out->ctx, r))
            return -1;
        emitted++;
    }
    if (!emitted && j->error) {
        /* a job that failed before any I/O is stored flagged, never as zeros */
        struct bench_record *r = record_new(p->a, "fio");
        fill(p, j, r, -1);
        return out->emit(out->ctx, r);
    }
    return 0;
}

static int parse_lines(struct parser *p)
{
    const char *data = p->src->data, *end = data + p->src->len;
    const char *s = data;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        p->lineno++;
        for (const char *seg = s; seg <= e;) {
            const char *cr = memchr(seg, '\r', (size_t)(e - seg));
            const char *se = cr ? cr : e;
            p->unterminated = !cr && !nl && se > seg;
            if ((se > seg || !cr) && segment(p, seg, (size_t)(se - seg), (size_t)(seg - data)))
                return -1;
            if (!cr)
                break;
            seg = cr + 1;
        }
        s = nl ? nl + 1 : end;
    }
    if (p->unterminated) { /* fio ends every line: the input was cut inside its last one */
        const char *what = p->cur ? arena_printf(p->a, "report of job '%s' (line %u)", p->cur->name,
                                                 p->cur->line_first)
                                  : "output";
        return diag_error_at(p->d, p->src, p->src->len,
                             "truncated %s: expected a line end, got end of file", what);
    }
    if (p->cur && end_block(p))
        return -1;
    if ((p->in_summary || p->repeated) && check_summaries(p, p->lineno))
        return -1;
    return check_runs(p);
}

static int parse_records(const struct source *src, struct arena *a, struct record_sink *out,
                         struct diag *d)
{
    struct parser p;
    memset(&p, 0, sizeof(p));
    p.src = src;
    p.a = a;
    p.d = d;
    buf_init(&p.line);
    p.cur_dir = -1;
    int rc = parse_lines(&p);
    buf_release(&p.line);
    if (rc)
        return -1;
    unsigned last = p.lineno ? p.lineno : 1;
    if (!p.n_jobs) {
        if (p.fail_msg)
            return diag_error_line(d, src, p.fail_line, "fio run failed: %s", p.fail_msg);
        return diag_error_line(d, src, last,
                               "no fio job report found (expected a line "
                               "'NAME: (groupid=G, jobs=J): err= E: pid=P: ...')");
    }
    for (size_t i = 0; i < p.n_jobs; i++)
        if (emit_job(&p, &p.jobs[i], out))
            return -1;
    return 0;
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    return jobs_parse(parse_records, src, a, out, d);
}

/* Up to 511 bytes of a line as a C string (the content may hold NULs). */
static void line_copy(char *dst, const char *s, size_t n)
{
    if (n > 511)
        n = 511;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static int probe(const struct source *src)
{
    const char *s = src->data, *end = s + src->len;
    s += bom_len(s, src->len);
    const char *first = s;
    while (first < end && isspace((unsigned char)*first))
        first++;
    if (first < end && *first == '{')
        return 0; /* fio JSON */
    int header = 0, marker = 0, brace = 0, fio_version = 0, failure = 0;
    char line[512];
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        line_copy(line, s, (size_t)(e - s));
        char *t = line;
        t += bom_len(t, strlen(t));
        if (*t == '<' && strstr(t, "> "))
            t = strstr(t, "> ") + 2;
        brace |= *t == '{';
        fio_version |= strstr(t, "\"fio version\"") != NULL;
        if (strstr(t, ": (groupid=") && strstr(t, "): err="))
            header = 1;
        else if (strstr(t, ": (g=") || is_version(t) ||
                 (str_starts(t, "hostname=") && strstr(t, ", fio=")))
            marker = 1;
        else if (is_failure(t))
            failure = 1;
        s = nl ? nl + 1 : end;
    }
    if (brace && fio_version)
        return header ? 40 : 0; /* --output-format=normal,json: the JSON importer's */
    if (header)
        return 85;
    if (marker)
        return 60;
    return failure ? 30 : 0;
}

const struct importer importer_fio_text = {
    .name = "fio-text",
    .summary = "fio normal (human-readable) output, 2.x and 3.x",
    .probe = probe,
    .parse = parse,
};
