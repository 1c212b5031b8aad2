/* insights.c: what a careful engineer notes next to a comparison table, found automatically,
 * each with its evidence (which runs, which numbers). The thresholds are constants below and
 * documented in the report's method note. */
#include "insights.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "results.h"

/* p99 above this multiple of the median is "tail latency far from the median". */
static const double TAIL_RATIO = 10.0;
/* Runs shorter than this are too short to trust (caches, ramp-up, timer resolution). */
static const double MIN_RUNTIME_MS = 5000.0;
/* Repeats whose coefficient of variation exceeds this disagree too much to average. */
static const double MAX_CV = 0.25;
/* At most this many sources are named per finding; the rest are counted. */
enum { MAX_EVIDENCE = 3 };

struct finding {
    const char *kind;
    struct buf text, evidence;
    size_t count;
};

struct insight_ctx {
    struct report *r;
    struct table *t;
    const struct compare_opts *o;
};

static const struct column insight_cols[] = {
    {"Insight", UNIT_NONE}, {"Finding", UNIT_NONE}, {"Evidence", UNIT_NONE}};

/* Counts r as evidence; 1 when it is among the few named, which the caller then describes
 * with detail() (so a million results cost a count, not a million descriptions). */
static int evidence(struct finding *f, const struct side_result *r)
{
    if (f->count++ >= MAX_EVIDENCE)
        return 0;
    if (f->evidence.len)
        buf_adds(&f->evidence, "; ");
    buf_addf(&f->evidence, "%s:%d", r->source, r->line ? r->line : 1);
    return 1;
}

static void detail(struct finding *f, const char *fmt, ...) BDB_PRINTF(2, 3);
static void detail(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_adds(&f->evidence, " (");
    buf_vaddf(&f->evidence, fmt, ap);
    buf_addc(&f->evidence, ')');
    va_end(ap);
}

static void emit(struct insight_ctx *c, struct finding *f)
{
    if (f->count) {
        if (f->count > MAX_EVIDENCE)
            buf_addf(&f->evidence, "; and %zu more", f->count - MAX_EVIDENCE);
        struct cell *row = table_add_row(c->r, c->t);
        cell_set_text(&row[0], f->kind);
        cell_set_text(&row[1], arena_strdup(&c->r->arena, f->text.data));
        cell_set_text(&row[2], arena_strdup(&c->r->arena, f->evidence.data));
    }
    buf_release(&f->text);
    buf_release(&f->evidence);
}

static int is_random(const struct side_result *r)
{
    return !strncmp(r->rw, "rand", 4);
}

static const char *fmt_value(struct report *rep, double v, enum unit u)
{
    struct buf b = BUF_INIT;
    unit_format(&b, v, u);
    const char *s = arena_strdup(&rep->arena, b.data);
    buf_release(&b);
    return s;
}

/* Buffered random I/O: a page or client cache probably answered (seed 000's "cached" note). */
static void buffered_random(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Probably cached", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < n; i++) {
        const struct side_result *r = &res[i];
        if (r->direct == 0 && is_random(r) && result_usable(r))
            if (evidence(&f, r))
                detail(&f, "%s", c->o->values[r->side]);
    }
    buf_addf(&f.text,
             "%zu buffered (direct=0) random I/O result%s: the page cache or the NFS "
             "client cache probably served much of this I/O, so it does not show what "
             "the storage itself can do. Re-run with direct=1.",
             f.count, f.count == 1 ? "" : "s");
    emit(c, &f);
}

static void tail_latency(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Tail latency", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < n; i++) {
        const struct side_result *r = &res[i];
        double p99 = r->m[RM_P99], p50 = r->m[RM_P50];
        if (!result_usable(r) || !(p50 > 0) || !(p99 / p50 > TAIL_RATIO))
            continue;
        if (evidence(&f, r))
            detail(&f, "%s: p99 %s vs median %s", c->o->values[r->side],
                   fmt_value(c->r, p99, UNIT_NS), fmt_value(c->r, p50, UNIT_NS));
    }
    buf_addf(&f.text,
             "%zu result%s with a p99 latency more than %.0fx the median: occasional "
             "stalls (network retransmits, writeback, garbage collection) that averages "
             "hide.",
             f.count, f.count == 1 ? "" : "s", TAIL_RATIO);
    emit(c, &f);
}

static void failed_jobs(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Failed jobs", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < n; i++)
        if (res[i].error && evidence(&f, &res[i]) && res[i].error_msg)
            detail(&f, "%s", res[i].error_msg);
    buf_addf(&f.text, "%zu result%s reported an error by the tool; left out of the comparison.",
             f.count, f.count == 1 ? "" : "s");
    emit(c, &f);
}

static void short_runs(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Short runs", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < n; i++) {
        const struct side_result *r = &res[i];
        if (!r->error && r->m[RM_RUNTIME] < MIN_RUNTIME_MS && evidence(&f, r))
            detail(&f, "%s", fmt_value(c->r, r->m[RM_RUNTIME] * 1e6, UNIT_NS));
    }
    buf_addf(&f.text,
             "%zu result%s ran for less than %.0f s: too short to trust (caches, "
             "ramp-up and timer resolution dominate).",
             f.count, f.count == 1 ? "" : "s", MIN_RUNTIME_MS / 1000);
    emit(c, &f);
}

static void sync_writes(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Sync writes", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < n; i++) {
        const struct side_result *r = &res[i];
        if (!result_is_sync(r) || r->error || !evidence(&f, r))
            continue;
        struct buf name = BUF_INIT;
        result_workload_name(&name, r);
        detail(&f, "%s, %s", c->o->values[r->side], name.data);
        buf_release(&name);
    }
    buf_addf(&f.text,
             "%zu sync-write result%s (fsync/fdatasync/O_SYNC): each write waits for "
             "stable storage, the figure that matters for databases and journals.",
             f.count, f.count == 1 ? "" : "s");
    emit(c, &f);
}

/* Repeats of one workload on one side that disagree: coefficient of variation above MAX_CV. */
static void spread(struct insight_ctx *c, const struct side_result *res, size_t n)
{
    struct finding f = {"Large spread", BUF_INIT, BUF_INIT, 0};
    char *done = xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (done[i] || !result_usable(&res[i]) || isnan(res[i].m[RM_BW]))
            continue;
        struct buf key = BUF_INIT, other = BUF_INIT;
        result_workload_key(&key, &res[i]);
        double *v = xmalloc(n * sizeof(*v));
        size_t k = 0;
        for (size_t j = i; j < n; j++) {
            buf_reset(&other);
            result_workload_key(&other, &res[j]);
            if (res[j].side != res[i].side || strcmp(key.data, other.data) || res[j].error ||
                isnan(res[j].m[RM_BW]))
                continue;
            done[j] = 1;
            v[k++] = res[j].m[RM_BW];
        }
        struct sample_stats st;
        stats_describe(v, k, &st);
        if (k >= 2 && st.mean > 0 && st.sd / st.mean > MAX_CV && evidence(&f, &res[i])) {
            struct buf name = BUF_INIT;
            result_workload_name(&name, &res[i]);
            detail(&f, "%s, %s: %zu runs, bandwidth %s to %s", c->o->values[res[i].side], name.data,
                   k, fmt_value(c->r, st.min, UNIT_BYTES_S), fmt_value(c->r, st.max, UNIT_BYTES_S));
            buf_release(&name);
        }
        free(v);
        buf_release(&key);
        buf_release(&other);
    }
    free(done);
    buf_addf(&f.text,
             "%zu workload%s whose repeats differ by more than %.0f %% (coefficient of "
             "variation of bandwidth): find out why before trusting the mean.",
             f.count, f.count == 1 ? "" : "s", MAX_CV * 100);
    emit(c, &f);
}

/* ---- storage against the network measured for the same host ---- */

struct net {
    char *host;
    double bw;
};

static int load_network(struct db *db, struct net **out, size_t *n, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(
            h,
            "SELECT r.host, max(m.value) FROM result r JOIN run ON run.id = r.run_id "
            "JOIN metric m ON m.result_id = r.id AND m.name = 'bw_bytes_s' "
            "WHERE run.tool IN ('iperf', 'iperf3') AND r.host IS NOT NULL "
            "AND r.error = 0 GROUP BY r.host ORDER BY r.host",
            -1, &st, NULL) != SQLITE_OK)
        return diag_error(d, "cannot read network results: %s", sqlite3_errmsg(h));
    while (sqlite3_step(st) == SQLITE_ROW) {
        ALLOC_GROW(*out, *n, cap);
        (*out)[*n].host = xstrdup((const char *)sqlite3_column_text(st, 0));
        (*out)[(*n)++].bw = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return 0;
}

static const struct net *network_of(const struct net *net, size_t n, const char *host)
{
    for (size_t i = 0; host && i < n; i++)
        if (!strcmp(net[i].host, host))
            return &net[i];
    return NULL;
}

static void network_share(struct insight_ctx *c, const struct side_result *res, size_t n,
                          const struct net *net, size_t nnet)
{
    static const struct column cols[] = {{"Host", UNIT_NONE},       {"Side", UNIT_NONE},
                                         {"Workload", UNIT_NONE},   {"Storage", UNIT_BYTES_S},
                                         {"Network", UNIT_BYTES_S}, {"Share", UNIT_PERCENT}};
    struct finding f = {"Faster than the network", BUF_INIT, BUF_INIT, 0};
    struct table *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct side_result *r = &res[i];
        const struct net *w = network_of(net, nnet, r->host);
        if (!w || !result_usable(r) || isnan(r->m[RM_BW]) || !strcmp(r->tool, "iperf") ||
            !strcmp(r->tool, "iperf3"))
            continue;
        if (!t) {
            struct section *s = report_section(
                c->r, "Storage against the network",
                "Storage throughput as a share of the best network throughput measured (iperf) "
                "for the same host. Above 100 % the result cannot have crossed that network: a "
                "cache answered.");
            t = report_table(c->r, s, "network", cols, 6);
        }
        struct buf name = BUF_INIT;
        result_workload_name(&name, r);
        struct cell *row = table_add_row(c->r, t);
        cell_set_text(&row[0], arena_strdup(&c->r->arena, r->host));
        cell_set_text(&row[1], c->o->values[r->side]);
        cell_set_text(&row[2], arena_strdup(&c->r->arena, name.data));
        cell_set_number(&row[3], r->m[RM_BW]);
        cell_set_number(&row[4], w->bw);
        cell_set_number(&row[5], 100 * r->m[RM_BW] / w->bw);
        if (r->m[RM_BW] > w->bw && evidence(&f, r))
            detail(&f, "%s at %s, network %s", name.data,
                   fmt_value(c->r, r->m[RM_BW], UNIT_BYTES_S),
                   fmt_value(c->r, w->bw, UNIT_BYTES_S));
        buf_release(&name);
    }
    buf_addf(&f.text,
             "%zu storage result%s above the network throughput measured for the same "
             "host: a cache must have answered.",
             f.count, f.count == 1 ? "" : "s");
    emit(c, &f);
}

int query_insights(struct db *db, const struct compare_opts *o, const struct side_results *all,
                   struct report *r, struct diag *d)
{
    const struct side_result *res = all->v;
    size_t n = all->n, nnet = 0;
    struct net *net = NULL;
    int rc = load_network(db, &net, &nnet, d);
    if (rc == 0) {
        struct section *s = report_section(
            r, "Insights", "Findings from the data itself, each with its evidence (file:line).");
        struct insight_ctx c = {r, report_table(r, s, "insights", insight_cols, 3), o};
        failed_jobs(&c, res, n);
        buffered_random(&c, res, n);
        network_share(&c, res, n, net, nnet);
        tail_latency(&c, res, n);
        spread(&c, res, n);
        short_runs(&c, res, n);
        sync_writes(&c, res, n);
        if (!c.t->nrows)
            s->prose = "Nothing to note: no cache effects, tail latency, errors, short runs or "
                       "disagreeing repeats were found.";
    }
    for (size_t i = 0; i < nnet; i++)
        free(net[i].host);
    free(net);
    return rc;
}
