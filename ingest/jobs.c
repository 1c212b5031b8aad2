/* jobs.c: one result per fio job per run (docs/methods.md, "What one result is").
 *
 * fio prints one entry per thread when numjobs > 1 runs without group_reporting (same job name,
 * options and groupid), and with --client one entry per server plus "All clients". Stored as
 * they are, the threads of one run would be taken for repeats. A merging sink buffers a file's
 * records and, at the end, emits per job one result that is compared and keeps the entries as
 * parts (tag `part`, left out of comparisons by the query layer):
 *
 * - threads: a merged result, as group_reporting would print it: bandwidth, IOPS, bytes and
 *   I/O counts summed, runtime the longest, latency means weighted by I/O count and standard
 *   deviations pooled, min/max the extremes, percentiles from the summed json+ bins (else the
 *   worst thread's, tagged `percentiles=worst-thread`), CPU weighted by runtime, the thread
 *   spread as bw/iops_thread_{min,max}; tagged `threads=N`. Per-sample bw/iops statistics are
 *   left out: fio sums the samples over time, which the threads' summaries cannot give.
 * - clients: fio's own "All clients" sum is the result when the entries it sums are one job's;
 *   the per-server entries are its parts. Summing several jobs, it is itself a part.
 *
 * Records are borrowed from the per-file arena, which outlives the parse: buffering pointers is
 * safe, and every changed record is a copy (record_copy). */
#include "importer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"

enum role { PLAIN, PART, MERGED_FIRST, RESULT };

struct entry {
    const struct bench_record *rec;
    enum role role;
    const char *part;                   /* the `part` tag of a part */
    const struct bench_record *emit_as; /* the record to emit in its place (NULL: rec) */
    const struct bench_record *before;  /* a merged result emitted before it */
};

struct jobs {
    struct record_sink sink, *out;
    struct arena *a;
    struct entry *e;
    size_t n, alloc;
};

static int buffer(void *ctx, const struct bench_record *rec)
{
    struct jobs *j = ctx;
    ALLOC_GROW(j->e, j->n, j->alloc);
    j->e[j->n++] = (struct entry){rec, PLAIN, NULL, NULL, NULL};
    return 0;
}

/* ---- which entries belong together ---- */

static int same_str(const char *x, const char *y)
{
    return x == y || (x && y && !strcmp(x, y));
}

static int same_workload(const struct workload *x, const struct workload *y)
{
    return same_str(x->rw, y->rw) && same_str(x->ioengine, y->ioengine) &&
           x->bs_bytes == y->bs_bytes && x->iodepth == y->iodepth && x->numjobs == y->numjobs &&
           x->size_bytes == y->size_bytes && x->rwmixread == y->rwmixread &&
           x->runtime_s == y->runtime_s && x->direct == y->direct && x->sync == y->sync &&
           x->fsync == y->fsync && x->fdatasync == y->fdatasync;
}

static int is_aggregate(const struct bench_record *r)
{
    return record_tag_get(r, "aggregate") != NULL;
}

/* An entry of a fio job that can have siblings: a direction's result of a named job. */
static int mergeable(const struct bench_record *r)
{
    return r->tool && !strcmp(r->tool, "fio") && r->job && r->direction && !r->n_series &&
           !is_aggregate(r);
}

/* The same job, direction and run, host aside. */
static int same_job(const struct bench_record *x, const struct bench_record *y)
{
    return x->run_no == y->run_no && x->groupid == y->groupid && same_str(x->job, y->job) &&
           same_str(x->direction, y->direction) && same_str(x->tool_version, y->tool_version) &&
           same_workload(&x->wl, &y->wl);
}

/* ---- merging thread entries ---- */

/* "clat_p99_9_ns" -> kind "clat" (length *kind_len), 99.9; 0 when name is no percentile. */
static int percentile_of(const char *name, size_t *kind_len, double *pct)
{
    const char *p = NULL;
    for (const char *q = strstr(name, "_p"); q; q = strstr(q + 1, "_p"))
        if (q[2] >= '0' && q[2] <= '9')
            p = q;
    if (!p || !str_ends(name, "_ns"))
        return 0;
    char num[32];
    size_t n = strlen(p + 2) - 3;
    if (n == 0 || n >= sizeof(num))
        return 0;
    memcpy(num, p + 2, n);
    num[n] = '\0';
    char *us = strchr(num, '_');
    if (us)
        *us = '.';
    char *end;
    *pct = strtod(num, &end);
    *kind_len = (size_t)(p - name);
    return *end == '\0' && *pct > 0 && *pct <= 100;
}

struct threads {
    struct arena *a;
    const struct bench_record **r;
    size_t n;
    struct bench_record *m; /* the merged result */
    int worst_thread;       /* a percentile was taken from the worst thread */
};

/* The value of name in every thread, or 0 when one lacks it. */
static int all_have(const struct threads *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!record_get(t->r[i], name))
            return 0;
    return 1;
}

static double value(const struct bench_record *r, const char *name)
{
    return *record_get(r, name);
}

/* I/Os behind a latency of this kind in r (sync latencies: the syncs), or NAN. */
static double io_weight(const struct bench_record *r, const char *kind)
{
    const double *n = record_get(r, !strcmp(kind, "sync_lat") ? "sync_total_ios" : "total_ios");
    if (n)
        return *n;
    const double *iops = record_get(r, "iops"), *ms = record_get(r, "runtime_ms");
    return iops && ms && strcmp(kind, "sync_lat") ? *iops * *ms / 1000 : NAN;
}

/* Mean and pooled standard deviation of a latency kind, weighted by I/O count. */
static void merge_latency(struct threads *t, const char *kind)
{
    const char *mean = arena_printf(t->a, "%s_mean_ns", kind);
    const char *sd = arena_printf(t->a, "%s_stddev_ns", kind);
    if (!all_have(t, mean))
        return;
    double w = 0, sum = 0, sq = 0;
    for (size_t i = 0; i < t->n; i++) {
        double wi = io_weight(t->r[i], kind), mi = value(t->r[i], mean);
        w += wi;
        sum += wi * mi;
        const double *si = record_get(t->r[i], sd);
        sq += si ? wi * (*si * *si + mi * mi) : NAN;
    }
    if (!(w > 0))
        return;
    double mu = sum / w;
    record_metric(t->a, t->m, mean, mu);
    if (isfinite(sq))
        record_metric(t->a, t->m, sd, sqrt(fmax(sq / w - mu * mu, 0)));
}

static int cmp_bin(const void *x, const void *y)
{
    double a = ((const struct hist_bin *)x)->value_ns, b = ((const struct hist_bin *)y)->value_ns;
    return (a > b) - (a < b);
}

/* The threads' bins summed per value, when all have bins of the same latency. */
static void merge_bins(struct threads *t)
{
    const char *kind = t->r[0]->bins_metric;
    for (size_t i = 0; i < t->n; i++)
        if (!t->r[i]->n_bins || !same_str(t->r[i]->bins_metric, kind))
            return;
    size_t total = 0;
    for (size_t i = 0; i < t->n; i++)
        total += t->r[i]->n_bins;
    struct hist_bin *all = xmalloc(total * sizeof(*all));
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        for (size_t b = 0; b < t->r[i]->n_bins; b++)
            all[k++] = t->r[i]->bins[b];
    qsort(all, total, sizeof(*all), cmp_bin);
    for (size_t b = 0; b < total; b++) {
        if (t->m->n_bins && t->m->bins[t->m->n_bins - 1].value_ns == all[b].value_ns)
            t->m->bins[t->m->n_bins - 1].count += all[b].count;
        else
            record_bin(t->a, t->m, all[b].value_ns, all[b].count);
    }
    t->m->bins_metric = kind;
    free(all);
}

/* fio's calc_clat_percentiles: the first bin whose cumulative count reaches pct of all. */
static double bins_percentile(const struct bench_record *m, double pct)
{
    double total = 0, sum = 0;
    for (size_t b = 0; b < m->n_bins; b++)
        total += m->bins[b].count;
    for (size_t b = 0; b < m->n_bins; b++) {
        sum += m->bins[b].count;
        if (sum >= pct / 100.0 * total)
            return m->bins[b].value_ns;
    }
    return m->bins[m->n_bins - 1].value_ns;
}

static void merge_percentile(struct threads *t, const char *name, size_t kind_len, double pct)
{
    const char *kind = t->m->bins_metric;
    if (kind && strlen(kind) == kind_len && !strncmp(name, kind, kind_len)) {
        record_metric(t->a, t->m, name, bins_percentile(t->m, pct));
        return;
    }
    double worst = 0;
    for (size_t i = 0; i < t->n; i++)
        worst = fmax(worst, value(t->r[i], name));
    record_metric(t->a, t->m, name, worst);
    t->worst_thread = 1;
}

enum rule { DROP, SUM, MAX, MIN, LATENCY, CPU, PERCENTILE };

static enum rule rule_of(const char *name)
{
    static const char *const summed[] = {"bw_bytes_s", "iops", "io_bytes", "total_ios",
                                         "sync_total_ios"};
    for (size_t i = 0; i < ARRAY_SIZE(summed); i++)
        if (!strcmp(name, summed[i]))
            return SUM;
    if (!strcmp(name, "runtime_ms"))
        return MAX;
    if (!strcmp(name, "cpu_usr_pct") || !strcmp(name, "cpu_sys_pct"))
        return CPU;
    size_t kind_len;
    double pct;
    if (percentile_of(name, &kind_len, &pct))
        return PERCENTILE;
    static const char *const kinds[] = {"slat_", "clat_", "lat_", "sync_lat_"};
    for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
        if (!str_starts(name, kinds[i]))
            continue;
        const char *stat = name + strlen(kinds[i]);
        if (!strcmp(stat, "min_ns"))
            return MIN;
        if (!strcmp(stat, "max_ns"))
            return MAX;
        if (!strcmp(stat, "mean_ns") || !strcmp(stat, "stddev_ns"))
            return LATENCY;
    }
    return DROP; /* per-sample bw/iops statistics: not derivable from the threads' */
}

static void merge_metric(struct threads *t, const char *name)
{
    enum rule rule = rule_of(name);
    if (rule == DROP || !all_have(t, name))
        return;
    double v = value(t->r[0], name);
    for (size_t i = 1; i < t->n; i++) {
        double x = value(t->r[i], name);
        v = rule == SUM ? v + x : rule == MAX ? fmax(v, x) : rule == MIN ? fmin(v, x) : v;
    }
    if (rule == SUM || rule == MAX || rule == MIN) {
        record_metric(t->a, t->m, name, v);
    } else if (rule == CPU) {
        double w = 0, sum = 0;
        for (size_t i = 0; i < t->n; i++) {
            const double *ms = record_get(t->r[i], "runtime_ms");
            w += ms ? *ms : NAN;
            sum += ms ? *ms * value(t->r[i], name) : NAN;
        }
        if (w > 0)
            record_metric(t->a, t->m, name, sum / w);
    } else if (rule == PERCENTILE) {
        size_t kind_len;
        double pct;
        percentile_of(name, &kind_len, &pct);
        merge_percentile(t, name, kind_len, pct);
    }
}

/* bw_thread_min_bytes_s, ..., iops_thread_max: how far apart the threads were. */
static void thread_spread(struct threads *t, const char *name, const char *min, const char *max)
{
    if (!all_have(t, name))
        return;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->n; i++) {
        lo = fmin(lo, value(t->r[i], name));
        hi = fmax(hi, value(t->r[i], name));
    }
    record_metric(t->a, t->m, min, lo);
    record_metric(t->a, t->m, max, hi);
}

/* Tags every thread has with the same value. */
static void common_tags(struct threads *t)
{
    const struct bench_record *first = t->r[0];
    for (size_t k = 0; k < first->n_tags; k++) {
        int common = 1;
        for (size_t i = 1; i < t->n && common; i++)
            common = same_str(record_tag_get(t->r[i], first->tags[k].key), first->tags[k].value);
        if (common)
            record_tag(t->a, t->m, first->tags[k].key, first->tags[k].value);
    }
}

static void merge_fields(struct threads *t)
{
    struct bench_record *m = t->m;
    const struct bench_record *first = t->r[0];
    *m = *first;
    m->metrics = NULL;
    m->n_metrics = m->a_metrics = 0;
    m->tags = NULL;
    m->n_tags = m->a_tags = 0;
    m->bins = NULL;
    m->n_bins = m->a_bins = 0;
    m->bins_metric = NULL;
    if (m->wl.numjobs == WL_UNKNOWN) /* terse does not say; the entries do */
        m->wl.numjobs = (int64_t)t->n;
    for (size_t i = 1; i < t->n; i++) {
        const struct bench_record *r = t->r[i];
        if (r->line_first && (!m->line_first || r->line_first < m->line_first))
            m->line_first = r->line_first;
        if (r->line_last > m->line_last)
            m->line_last = r->line_last;
        if (!m->error && r->error) {
            m->error = r->error;
            m->error_msg = r->error_msg;
        }
    }
}

static struct bench_record *merge_threads(struct arena *a, const struct bench_record **r, size_t n)
{
    struct threads t = {a, r, n, arena_alloc(a, sizeof(*t.m)), 0};
    merge_fields(&t);
    merge_bins(&t);
    for (size_t k = 0; k < r[0]->n_metrics; k++)
        merge_metric(&t, r[0]->metrics[k].name);
    for (size_t k = 0; k < r[0]->n_metrics; k++)
        if (rule_of(r[0]->metrics[k].name) == LATENCY &&
            str_ends(r[0]->metrics[k].name, "_mean_ns"))
            merge_latency(&t, arena_strndup(a, r[0]->metrics[k].name,
                                            strlen(r[0]->metrics[k].name) - strlen("_mean_ns")));
    thread_spread(&t, "bw_bytes_s", "bw_thread_min_bytes_s", "bw_thread_max_bytes_s");
    thread_spread(&t, "iops", "iops_thread_min", "iops_thread_max");
    common_tags(&t);
    record_tag(a, t.m, "threads", arena_printf(a, "%zu", n));
    if (t.worst_thread)
        record_tag(a, t.m, "percentiles", "worst-thread");
    return t.m;
}

/* ---- roles ---- */

/* Indexes of the entries of the same job (and host) as e[first] not yet given a role. */
static size_t siblings(const struct jobs *j, size_t first, size_t *idx)
{
    size_t n = 0;
    const struct bench_record *r = j->e[first].rec;
    for (size_t i = first; i < j->n; i++) {
        const struct entry *e = &j->e[i];
        if (e->role == PLAIN && mergeable(e->rec) && same_job(r, e->rec) &&
            same_str(r->host, e->rec->host))
            idx[n++] = i;
    }
    return n;
}

static void mark_threads(struct jobs *j)
{
    size_t *idx = xmalloc(j->n * sizeof(*idx));
    const struct bench_record **recs = xmalloc(j->n * sizeof(*recs));
    for (size_t i = 0; i < j->n; i++) {
        if (j->e[i].role != PLAIN || !mergeable(j->e[i].rec))
            continue;
        size_t n = siblings(j, i, idx);
        if (n < 2)
            continue;
        for (size_t k = 0; k < n; k++) {
            j->e[idx[k]].role = PART;
            j->e[idx[k]].part = arena_printf(j->a, "thread %zu", k + 1);
            recs[k] = j->e[idx[k]].rec;
        }
        j->e[i].before = merge_threads(j->a, recs, n);
    }
    free(recs);
    free(idx);
}

/* The host all entries share, or NULL. */
static const char *common_host(const struct jobs *j, const size_t *idx, size_t n)
{
    const char *host = j->e[idx[0]].rec->host;
    for (size_t k = 1; k < n; k++)
        if (!same_str(host, j->e[idx[k]].rec->host))
            return NULL;
    return host;
}

static size_t entries_of_host(const struct jobs *j, const size_t *idx, size_t n, const char *host)
{
    size_t c = 0;
    for (size_t k = 0; k < n; k++)
        c += same_str(j->e[idx[k]].rec->host, host);
    return c;
}

/* `client HOST`; numbered `client HOST #K` when the host has several entries (its threads, or
 * servers on one host told apart only by port); terse names no host: `client #K`. */
static void mark_client(struct jobs *j, const size_t *idx, size_t n, size_t k)
{
    struct entry *e = &j->e[idx[k]];
    const char *host = e->rec->host;
    size_t nth = 1;
    for (size_t q = 0; q < k; q++)
        nth += same_str(j->e[idx[q]].rec->host, host);
    int several = entries_of_host(j, idx, n, host) > 1;
    e->role = PART;
    e->part = arena_printf(j->a, "client%s%s", host ? " " : "", host ? host : "");
    if (several)
        e->part = arena_printf(j->a, "%s #%zu", e->part, nth);
}

/* The server entries an "All clients" entry sums: the fio entries of its run and direction. */
static size_t summed_entries(const struct jobs *j, const struct bench_record *agg, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < j->n; i++) {
        const struct bench_record *r = j->e[i].rec;
        if (mergeable(r) && r->run_no == agg->run_no && same_str(r->direction, agg->direction))
            idx[n++] = i;
    }
    return n;
}

/* All clients of one job: the result, described as its job (workload, group, common host) but
 * keeping the name fio printed, so the export says which line it is; the servers' entries are
 * its parts. Summing several jobs it describes none, and is a part itself. */
static void mark_clients(struct jobs *j, size_t at, size_t *idx)
{
    const struct bench_record *agg = j->e[at].rec;
    size_t n = summed_entries(j, agg, idx);
    if (!n)
        return;
    const struct bench_record *job = j->e[idx[0]].rec;
    for (size_t k = 1; k < n; k++) {
        if (!same_job(job, j->e[idx[k]].rec)) {
            j->e[at].role = PART;
            j->e[at].part = "all clients, several jobs";
            return;
        }
    }
    struct bench_record *res = record_copy(j->a, agg);
    res->wl = job->wl;
    res->groupid = job->groupid;
    res->host = common_host(j, idx, n);
    j->e[at].role = RESULT;
    j->e[at].emit_as = res;
    for (size_t k = 0; k < n; k++)
        mark_client(j, idx, n, k);
}

static int emit_all(struct jobs *j)
{
    for (size_t i = 0; i < j->n; i++) {
        struct entry *e = &j->e[i];
        if (e->before && j->out->emit(j->out->ctx, e->before))
            return -1;
        const struct bench_record *r = e->emit_as ? e->emit_as : e->rec;
        if (e->role == PART) {
            struct bench_record *p = record_copy(j->a, r);
            record_tag(j->a, p, "part", e->part);
            r = p;
        }
        if (j->out->emit(j->out->ctx, r))
            return -1;
    }
    return 0;
}

static int finish(struct jobs *j)
{
    size_t *idx = xmalloc((j->n + 1) * sizeof(*idx));
    for (size_t i = 0; i < j->n; i++)
        if (is_aggregate(j->e[i].rec) && j->e[i].rec->direction)
            mark_clients(j, i, idx);
    free(idx);
    mark_threads(j);
    return emit_all(j);
}

int jobs_parse(importer_parse_fn parse, const struct source *src, struct arena *a,
               struct record_sink *out, struct diag *d)
{
    struct jobs j = {{buffer, NULL}, out, a, NULL, 0, 0};
    j.sink.ctx = &j;
    int rc = parse(src, a, &j.sink, d);
    if (rc == 0)
        rc = finish(&j);
    free(j.e);
    return rc;
}
