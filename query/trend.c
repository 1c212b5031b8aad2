/* trend.c: benchdb trend. One series per host x storage class x mount set x sec x workload x
 * metric, one value per run (the mean of the run's results in it, in the order the runs
 * started), and the change points E-divisive finds in it (changepoint.c). Results that failed,
 * are a part of a job result, or whose run has no start time are not in any series. */
#include "trend.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "identity.h"
#include "results.h"

const char *const query_trend_tables[] = {"change_points", "series", "points", "stale", NULL};

static const char *const default_metrics[] = {"bw_bytes_s", "lat_mean_ns", "clat_p99_ns"};

/* How a metric reads: its unit, which way is better, and what the change phrase calls it. */
struct metric_info {
    enum unit unit;
    int higher_is_better;
    const char *noun; /* "18.0 % lower bandwidth" */
};

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* As the comparison reads them (compare.c's metric_defs): throughput (bandwidth, IOPS) is
 * better higher; times, losses, retransmits and CPU use are better lower. */
static struct metric_info metric_info(const char *name)
{
    static const struct {
        const char *name, *noun;
    } nouns[] = {
        {"bw_bytes_s", "bandwidth"},    {"iops", "IOPS"},
        {"lat_mean_ns", "latency"},     {"clat_mean_ns", "completion latency"},
        {"clat_p99_ns", "p99 latency"}, {"sync_lat_mean_ns", "fsync latency"},
    };
    struct metric_info m = {UNIT_NONE, 0, name};
    for (size_t i = 0; i < ARRAY_SIZE(nouns); i++)
        if (!strcmp(name, nouns[i].name))
            m.noun = nouns[i].noun;
    m.higher_is_better =
        !strncmp(name, "bw_", 3) || !strncmp(name, "iops", 4) || has_suffix(name, "_bytes_s");
    if (has_suffix(name, "_bytes_s"))
        m.unit = UNIT_BYTES_S;
    else if (!strncmp(name, "iops", 4))
        m.unit = UNIT_IOPS;
    else if (has_suffix(name, "_ns"))
        m.unit = UNIT_NS;
    else if (has_suffix(name, "_bytes"))
        m.unit = UNIT_BYTES;
    else if (has_suffix(name, "_pct"))
        m.unit = UNIT_PERCENT;
    return m;
}

/* One result's value, with what places it in a series. */
struct trend_row {
    const char *key;  /* base, then the context (identity.h): the series */
    const char *base; /* host, class, mount, sec and workload, '\x1f' apart */
    const char *host, *storage_class, *mount, *sec, *workload;
    /* the rest of the context: results that differ in it are not repeats (identity.h) */
    const char *tool, *tool_version, *ioengine, *os, *label;
    int64_t size;
    int64_t started_at, run;
    double value;
};

struct trend_rows {
    struct trend_row *v;
    size_t n, a;
};

#define ROW_SQL                                                                                    \
    "SELECT r.host, r.storage_class, m.options, r.sec, coalesce(r.rw, ''), "                       \
    "coalesce(r.direction, ''), coalesce(run.tool, ''), r.ioengine, coalesce(r.bs_bytes, -1), "    \
    "coalesce(r.iodepth, -1), coalesce(r.numjobs, -1), coalesce(r.direct, -1), "                   \
    "coalesce(r.sync, -1), coalesce(r.fsync, -1), coalesce(r.fdatasync, -1), "                     \
    "coalesce(r.rwmixread, -1), "                                                                  \
    "(SELECT t.value FROM tag t WHERE t.result_id = r.id AND t.key = 'protocol'), "                \
    "run.tool_version, coalesce(r.size_bytes, -1), "                                               \
    "(SELECT t.value FROM tag t WHERE t.result_id = r.id AND t.key = 'os'), "                      \
    "(SELECT t.value FROM tag t WHERE t.result_id = r.id AND t.key = 'label'), "                   \
    "run.started_at, run.id, "

static int rows_sql(struct db *db, const struct trend_opts *o, const char *metric, struct arena *a,
                    struct buf *sql, struct binds *b, struct diag *d)
{
    buf_adds(sql, ROW_SQL);
    if (db_metric_expr(db, sql, "r", metric, d))
        return -1;
    buf_adds(sql,
             " AS v FROM result r JOIN run ON run.id = r.run_id "
             "JOIN source_file s ON s.id = run.source_id "
             "LEFT JOIN mount m ON m.id = r.mount_id "
             "WHERE run.started_at IS NOT NULL AND NOT coalesce(r.error, 0) AND v IS NOT NULL "
             "AND NOT EXISTS (SELECT 1 FROM tag t WHERE t.result_id = r.id AND t.key = 'part')");
    if (query_where_sql(o->where, o->nwhere, a, sql, b, d))
        return -1;
    /* every run before --since too: they are the history a change point after it is found
     * against (o->since cuts what is shown) */
    struct time_range read = o->dates ? *o->dates : TIME_RANGE_ALL;
    read.since = INT64_MIN;
    db_time_range_sql(sql, "run.started_at", &read);
    return 0;
}

static const char *column_text(struct arena *a, sqlite3_stmt *st, int col)
{
    const char *s = sql_text(st, col);
    return s ? arena_strdup(a, s) : NULL;
}

/* The workload's name as the comparison gives it ("Random Read 4K QD32"). */
static const char *workload_name(struct arena *a, sqlite3_stmt *st, struct buf *tmp)
{
    struct side_result r = {0};
    r.rw = sql_text(st, 4);
    r.direction = sql_text(st, 5);
    r.tool = sql_text(st, 6);
    r.ioengine = sql_text(st, 7);
    int64_t *ints[] = {&r.bs,   &r.iodepth, &r.numjobs,   &r.direct,
                       &r.sync, &r.fsync,   &r.fdatasync, &r.rwmixread};
    for (int i = 0; i < 8; i++)
        *ints[i] = sqlite3_column_int64(st, 8 + i);
    r.protocol = sql_text(st, 16);
    buf_reset(tmp);
    result_workload_name(tmp, &r);
    return arena_strdup(a, tmp->data);
}

/* What identity.h reads of a row, as a result. */
static void row_identity(const struct trend_row *row, struct side_result *r)
{
    *r = (struct side_result){.host = row->host,
                              .mount = row->mount,
                              .tool = row->tool,
                              .tool_version = row->tool_version,
                              .ioengine = row->ioengine,
                              .os = row->os,
                              .label = row->label,
                              .size = row->size};
}

static void read_row(struct arena *a, sqlite3_stmt *st, struct trend_row *row, struct buf *tmp)
{
    row->host = column_text(a, st, 0);
    row->storage_class = column_text(a, st, 1);
    row->mount = column_text(a, st, 2);
    row->sec = column_text(a, st, 3);
    row->workload = workload_name(a, st, tmp);
    row->tool = column_text(a, st, 6);
    row->ioengine = column_text(a, st, 7);
    row->tool_version = column_text(a, st, 17);
    row->size = sqlite3_column_int64(st, 18);
    row->os = column_text(a, st, 19);
    row->label = column_text(a, st, 20);
    row->started_at = sqlite3_column_int64(st, 21);
    row->run = sqlite3_column_int64(st, 22);
    row->value = sqlite3_column_double(st, 23);
    row->base = arena_printf(a, "%s\x1f%s\x1f%s\x1f%s\x1f%s", row->host ? row->host : "",
                             row->storage_class ? row->storage_class : "",
                             row->mount ? row->mount : "", row->sec ? row->sec : "", row->workload);
    struct side_result r;
    row_identity(row, &r);
    buf_reset(tmp);
    buf_adds(tmp, row->base);
    buf_addc(tmp, '\x1e');
    context_key(tmp, &r, "");
    row->key = arena_strdup(a, tmp->data);
}

/* Every usable result's value of metric, into rows (strings from a). */
static int load_rows(struct db *db, const struct trend_opts *o, const char *metric, struct arena *a,
                     struct trend_rows *rows, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    struct buf sql = BUF_INIT, tmp = BUF_INIT;
    struct binds b = {NULL, 0, 0};
    sqlite3_stmt *st = NULL;
    int rc = rows_sql(db, o, metric, a, &sql, &b, d), src = SQLITE_OK;
    if (rc == 0) {
        st = sql_prepare(h, &src, sql.data);
        sql_bind_texts(st, &src, b.v, b.n);
    }
    while (rc == 0 && sql_step(st, &src)) {
        ALLOC_GROW(rows->v, rows->n, rows->a);
        read_row(a, st, &rows->v[rows->n++], &tmp);
    }
    if (rc == 0 && src != SQLITE_OK)
        rc = diag_error(d, "cannot read the series: %s", sqlite3_errmsg(h));
    sqlite3_finalize(st);
    buf_release(&sql);
    buf_release(&tmp);
    free(b.v);
    return rc;
}

/* Series first, then start time, then run: a series' runs in the order they started. */
static int cmp_row(const void *pa, const void *pb)
{
    const struct trend_row *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    if (a->started_at != b->started_at)
        return a->started_at < b->started_at ? -1 : 1;
    return a->run < b->run ? -1 : a->run > b->run;
}

/* One series: its first row names it; one value per run. */
struct series {
    const struct trend_row *first;
    const char *workload; /* broken out by the context its neighbours differ in */
    const char *metric, *label;
    struct metric_info info;
    double *value;
    int64_t *started_at, *run;
    size_t n;
    struct change_point *cp;
    size_t ncp;
};

/* The series starting at rows[*i], its runs' means; *i moves past it. */
static void take_series(const struct trend_rows *rows, size_t *i, struct series *s)
{
    size_t end = *i;
    while (end < rows->n && !strcmp(rows->v[end].key, rows->v[*i].key))
        end++;
    s->first = &rows->v[*i];
    s->value = xcalloc(end - *i, sizeof(double));
    s->started_at = xcalloc(end - *i, sizeof(int64_t));
    s->run = xcalloc(end - *i, sizeof(int64_t));
    s->n = 0;
    for (size_t j = *i; j < end;) {
        size_t k = j;
        double sum = 0;
        for (; k < end && rows->v[k].run == rows->v[j].run; k++)
            sum += rows->v[k].value;
        s->value[s->n] = sum / (double)(k - j);
        s->started_at[s->n] = rows->v[j].started_at;
        s->run[s->n++] = rows->v[j].run;
        j = k;
    }
    *i = end;
}

static void series_release(struct series *s)
{
    free(s->value);
    free(s->started_at);
    free(s->run);
    free(s->cp);
}

/* ---- the report ------------------------------------------------------------------------- */

static const struct column change_cols[] = {
    {"series", UNIT_NONE, ROLE_KEY},      {"started_at", UNIT_NONE, ROLE_TIME},
    {"run_id", UNIT_NONE, ROLE_FIELD},    {"before", UNIT_NONE, ROLE_VALUE},
    {"after", UNIT_NONE, ROLE_VALUE},     {"change", UNIT_PERCENT, ROLE_PLAIN},
    {"direction", UNIT_NONE, ROLE_PLAIN}, {"p_value", UNIT_NONE, ROLE_PLAIN},
};
static const struct column series_cols[] = {
    {"series", UNIT_NONE, ROLE_KEY},          {"metric", UNIT_NONE, ROLE_METRIC},
    {"host", UNIT_NONE, ROLE_PLAIN},          {"storage_class", UNIT_NONE, ROLE_PLAIN},
    {"mount_options", UNIT_NONE, ROLE_PLAIN}, {"sec", UNIT_NONE, ROLE_PLAIN},
    {"workload", UNIT_NONE, ROLE_PLAIN},      {"runs", UNIT_NONE, ROLE_FIELD},
    {"first", UNIT_NONE, ROLE_TIME},          {"last", UNIT_NONE, ROLE_TIME},
    {"latest", UNIT_NONE, ROLE_VALUE},        {"change_count", UNIT_NONE, ROLE_FIELD},
};
static const struct column point_cols[] = {
    {"series", UNIT_NONE, ROLE_KEY},    {"started_at", UNIT_NONE, ROLE_TIME},
    {"run_id", UNIT_NONE, ROLE_FIELD},  {"value", UNIT_NONE, ROLE_VALUE},
    {"change", UNIT_NONE, ROLE_CHANGE},
};

static void set_text(struct report *r, struct cell *c, const char *s)
{
    cell_set_text(c, s ? arena_strdup(&r->arena, s) : NULL);
    if (!s)
        c->kind = CELL_EMPTY;
}

static void set_integer(struct cell *c, int64_t v)
{
    cell_set_number(c, (double)v);
    c->exact = 1;
    c->integer = v;
}

/* A start time (Unix seconds) as ISO 8601 UTC text. */
static const char *iso_text(struct arena *a, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char iso[32] = "";
    if (gmtime_r(&tt, &tm))
        strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return arena_strdup(a, iso);
}

static void set_time(struct report *r, struct cell *c, int64_t t)
{
    cell_set_text(c, iso_text(&r->arena, t));
}

static void set_value(struct cell *c, double v, enum unit u)
{
    cell_set_number(c, v);
    c->unit = u;
}

/* "18.0 % lower bandwidth": how much, which way, of what. */
static const char *change_phrase(struct report *r, const struct series *s,
                                 const struct change_point *cp)
{
    double rel = cp->after / cp->before - 1;
    return arena_printf(&r->arena, "%.1f %% %s %s", fabs(rel) * 100, rel > 0 ? "higher" : "lower",
                        s->info.noun);
}

/* Higher bandwidth and IOPS, lower times are better (metric_info). */
static int is_better(const struct series *s, const struct change_point *cp)
{
    return (cp->after > cp->before) == s->info.higher_is_better;
}

static void change_row(struct report *r, struct table *t, const struct series *s,
                       const struct change_point *cp)
{
    struct cell *row = table_add_row(r, t);
    int better = is_better(s, cp);
    set_text(r, &row[0], s->label);
    set_time(r, &row[1], s->started_at[cp->index]);
    set_integer(&row[2], s->run[cp->index]);
    set_value(&row[3], cp->before, s->info.unit);
    set_value(&row[4], cp->after, s->info.unit);
    cell_set_number(&row[5], (cp->after / cp->before - 1) * 100);
    row[5].text = change_phrase(r, s, cp);
    set_text(r, &row[6], better ? "better" : "worse");
    cell_set_number(&row[7], cp->p);
    row[7].text = arena_printf(&r->arena, "%.2g", cp->p);
}

/* The series' runs and change points from `from` on (the window shown), ncp of them. */
static void series_row(struct report *r, struct table *t, const struct series *s, size_t from,
                       size_t ncp)
{
    struct cell *row = table_add_row(r, t);
    const struct trend_row *f = s->first;
    set_text(r, &row[0], s->label);
    set_text(r, &row[1], s->metric);
    set_text(r, &row[2], f->host);
    set_text(r, &row[3], f->storage_class);
    set_text(r, &row[4], f->mount);
    set_text(r, &row[5], f->sec);
    set_text(r, &row[6], s->workload);
    set_integer(&row[7], (int64_t)(s->n - from));
    set_time(r, &row[8], s->started_at[from]);
    set_time(r, &row[9], s->started_at[s->n - 1]);
    set_value(&row[10], s->value[s->n - 1], s->info.unit);
    set_integer(&row[11], (int64_t)ncp);
}

/* The runs from `from` on, a change point's run naming its change. */
static void point_rows(struct report *r, struct table *t, const struct series *s, size_t from)
{
    size_t k = 0;
    while (k < s->ncp && s->cp[k].index < from)
        k++;
    for (size_t i = from; i < s->n; i++) {
        struct cell *row = table_add_row(r, t);
        set_text(r, &row[0], s->label);
        set_time(r, &row[1], s->started_at[i]);
        set_integer(&row[2], s->run[i]);
        set_value(&row[3], s->value[i], s->info.unit);
        if (k < s->ncp && s->cp[k].index == i)
            set_text(r, &row[4], change_phrase(r, s, &s->cp[k++]));
    }
}

/* A network test's rate in bit/s, as links are rated and as the comparison shows it. */
static void network_in_bits(struct series *s)
{
    struct side_result r;
    row_identity(s->first, &r);
    if (s->info.unit != UNIT_BYTES_S || !r.tool || !result_is_network(&r))
        return;
    s->info.unit = UNIT_BITS_S;
    for (size_t i = 0; i < s->n; i++)
        s->value[i] *= 8;
}

/* The context keys whose values differ among the rows [i, *end) that share rows->v[i]'s base
 * (*end is set past them): results of one workload that are not repeats of one another
 * (libaio and io_uring, RHEL 7 and 9) are series of their own, named by what differs. */
static unsigned varying_context(const struct trend_rows *rows, size_t i, size_t *end)
{
    unsigned mask = 0;
    struct side_result first, other;
    struct buf scratch[2] = {BUF_INIT, BUF_INIT};
    row_identity(&rows->v[i], &first);
    size_t j = i + 1;
    for (; j < rows->n && !strcmp(rows->v[j].base, rows->v[i].base); j++) {
        if (!strcmp(rows->v[j].key, rows->v[j - 1].key))
            continue; /* the same series */
        row_identity(&rows->v[j], &other);
        mask |= context_differs(&first, &other, mask, "", scratch);
    }
    *end = j;
    buf_release(&scratch[0]);
    buf_release(&scratch[1]);
    return mask;
}

/* The series' workload, with the context keys in mask ("[engine io_uring]"). */
static const char *broken_out_name(struct arena *a, const struct trend_row *f, unsigned mask)
{
    if (!mask)
        return f->workload;
    struct side_result r;
    row_identity(f, &r);
    struct buf b = BUF_INIT;
    buf_adds(&b, f->workload);
    context_label(&b, NULL, &r, mask, "");
    const char *s = arena_strdup(a, b.data);
    buf_release(&b);
    return s;
}

/* "disk, Random Read 4K buffered": the series' labels that are known and its workload, the
 * runs it follows (one name for all their metrics); with_metric adds ": bandwidth". */
static const char *series_label(struct report *r, const struct series *s, int with_metric)
{
    const struct trend_row *f = s->first;
    const char *parts[] = {f->host, f->storage_class, f->mount, f->sec};
    struct buf b = BUF_INIT;
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
        if (parts[i] && *parts[i])
            buf_addf(&b, "%s, ", parts[i]);
    buf_adds(&b, s->workload);
    if (with_metric)
        buf_addf(&b, ": %s", s->info.noun);
    const char *label = arena_strdup(&r->arena, b.data);
    buf_release(&b);
    return label;
}

/* The newest run of each series' runs (of any metric), for --stale. */
struct newest {
    const char *name; /* series_label without the metric */
    int64_t started_at, run;
};

struct trend_tables {
    struct table *changes, *series, *points, *stale;
    size_t nseries, nshown, nchanges;
    struct newest *newest;
    size_t nnewest, anewest;
    struct trend_outcome *out;
};

/* Keeps s's last run as its runs' newest unless another metric's series had a newer one. */
static void note_newest(struct report *r, struct trend_tables *tt, const struct series *s)
{
    const char *name = series_label(r, s, 0);
    int64_t last = s->started_at[s->n - 1], run = s->run[s->n - 1];
    for (size_t i = 0; i < tt->nnewest; i++)
        if (!strcmp(tt->newest[i].name, name)) {
            if (last > tt->newest[i].started_at)
                tt->newest[i] = (struct newest){name, last, run};
            return;
        }
    ALLOC_GROW(tt->newest, tt->nnewest + 1, tt->anewest);
    tt->newest[tt->nnewest++] = (struct newest){name, last, run};
}

/* The first of s's runs shown: the first started at or after since (s->n when none). */
static size_t first_shown(const struct series *s, int64_t since)
{
    size_t i = 0;
    while (i < s->n && s->started_at[i] < since)
        i++;
    return i;
}

/* s's change points, series row and points from `since` on, counted in tt. */
static void show_series(struct report *r, const struct trend_opts *o, struct trend_tables *tt,
                        const struct series *s)
{
    size_t from = first_shown(s, o->since), ncp = 0;
    if (from == s->n)
        return; /* no run since: nothing happened in the window */
    for (size_t k = 0; k < s->ncp; k++) {
        if (s->cp[k].index < from)
            continue;
        change_row(r, tt->changes, s, &s->cp[k]);
        ncp++;
        if (is_better(s, &s->cp[k]))
            tt->out->improvements++;
        else
            tt->out->regressions++;
    }
    series_row(r, tt->series, s, from, ncp);
    point_rows(r, tt->points, s, from);
    tt->nshown++;
    tt->nchanges += ncp;
}

/* Every series of one metric: found, measured, added to the tables. */
static int metric_series(struct db *db, const struct trend_opts *o, const char *metric,
                         struct report *r, struct trend_tables *tt, struct diag *d)
{
    struct trend_rows rows = {NULL, 0, 0};
    if (load_rows(db, o, metric, &r->arena, &rows, d)) {
        free(rows.v);
        return -1;
    }
    if (rows.n) /* qsort's array may not be NULL, even empty */
        qsort(rows.v, rows.n, sizeof(*rows.v), cmp_row);
    unsigned mask = 0;
    for (size_t i = 0, base_end = 0; i < rows.n;) {
        if (i == base_end)
            mask = varying_context(&rows, i, &base_end);
        struct series s = {.metric = metric, .info = metric_info(metric)};
        take_series(&rows, &i, &s);
        network_in_bits(&s);
        s.workload = broken_out_name(&r->arena, s.first, mask);
        s.label = series_label(r, &s, 1);
        /* on every run read: those before --since are the history it is found against */
        s.ncp = changepoints_find(s.value, s.n, &o->cp, &s.cp);
        show_series(r, o, tt, &s);
        note_newest(r, tt, &s);
        tt->nseries++;
        series_release(&s);
    }
    free(rows.v);
    return 0;
}

/* 25 h, 7 d, 90 min: a --stale duration as a person reads it. */
static const char *duration_text(struct arena *a, int64_t secs)
{
    static const struct {
        int64_t secs;
        const char *unit;
    } units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}};
    for (size_t i = 0; i < ARRAY_SIZE(units); i++)
        if (secs % units[i].secs == 0)
            return arena_printf(a, "%" PRId64 " %s", secs / units[i].secs, units[i].unit);
    return arena_printf(a, "%" PRId64 " s", secs);
}

/* The series whose newest run started more than o->stale_after before o->now, in the table
 * "stale" (a nightly that never arrived): each named once, whatever its metrics. */
static void stale_rows(struct report *r, const struct trend_opts *o, struct trend_tables *tt)
{
    for (size_t i = 0; i < tt->nnewest; i++) {
        const struct newest *n = &tt->newest[i];
        if (o->now - n->started_at <= o->stale_after)
            continue;
        struct cell *row = table_add_row(r, tt->stale);
        set_text(r, &row[0], n->name);
        set_time(r, &row[1], n->started_at);
        set_integer(&row[2], n->run);
        cell_set_number(&row[3], (double)(o->now - n->started_at) / 3600);
        row[3].text = arena_printf(&r->arena, "%.1f", row[3].value);
        tt->out->stale++;
    }
}

static void method_facts(struct report *r, const struct trend_opts *o,
                         const struct trend_tables *tt, const char *baseline)
{
    int since = o->since != INT64_MIN;
    const char *from = since ? iso_text(&r->arena, o->since) : NULL;
    report_fact(r, "Series",
                since ? arena_printf(&r->arena, "%zu with runs since %s (of %zu)", tt->nshown, from,
                                     tt->nseries)
                      : arena_printf(&r->arena, "%zu", tt->nseries));
    report_fact(r, "Change points",
                arena_printf(&r->arena,
                             "%zu (E-divisive means, Student t-test p < %g, change above %g %%, "
                             "windows of %zu runs)",
                             tt->nchanges, o->cp.max_p, o->cp.min_magnitude * 100, o->cp.window));
    if (since) {
        report_fact(
            r, "Since",
            baseline ? arena_printf(&r->arena, "%s, when baseline '%s' was saved", from, baseline)
                     : from);
        report_fact(r, "Regressions since",
                    arena_printf(&r->arena, "%zu (improvements: %zu)", tt->out->regressions,
                                 tt->out->improvements));
    }
    if (o->stale_after > 0)
        report_fact(r, "Stale",
                    arena_printf(&r->arena, "%zu series with no run in the %s before %s",
                                 tt->out->stale, duration_text(&r->arena, o->stale_after),
                                 iso_text(&r->arena, o->now)));
}

static const char method_prose[] =
    "Each series is one host, storage class, mount option set, security flavor, workload and "
    "metric over the runs in the order they started; a run with several results in a series "
    "counts as their mean. A change point is the first run after a shift in the series' level: "
    "found by E-divisive means (Matteson & James) and kept when a Student t-test finds the runs "
    "before and after it different and the change is large enough, as Hunter/Otava do; each "
    "side needs 3 runs or more to be tested (one or two equal runs would give p = 0, an "
    "artefact). Results that are not repeats of one another (another engine, tool version, OS "
    "or size) are series of their own, named by what differs. "
    "*before* and *after* are the means of the runs between the neighbouring change points. "
    "With --since, the change points, series and values shown are those from that date on, "
    "found on every run: the runs before it are the history a change after it is measured "
    "against.";

static const char stale_prose[] =
    "The series whose newest run started longer ago than --stale allows: a run that was due "
    "and never arrived. Each is named once, whatever its metrics, with its newest run.";

static const struct column stale_cols[] = {
    {"series", UNIT_NONE, ROLE_PLAIN},
    {"last", UNIT_NONE, ROLE_TIME},
    {"run_id", UNIT_NONE, ROLE_FIELD},
    {"age_hours", UNIT_NONE, ROLE_PLAIN},
};

/* --since-last-baseline: o->since becomes the newest saved baseline's creation time, *name its
 * name. 0, 1 when none is saved (after a message), -1 after a message. */
static int newest_baseline(struct db *db, struct trend_opts *o, struct arena *a, const char **name,
                           struct diag *d)
{
    sqlite3 *h = db_handle(db);
    int rc = SQLITE_OK, status = 1;
    const char *why = NULL;
    /* created_at is ISO 8601 UTC text of one form (baseline.c): its order is time's */
    sqlite3_stmt *st = sql_prepare(
        h, &rc, "SELECT name, created_at FROM baseline ORDER BY created_at DESC, id DESC LIMIT 1");
    if (sql_step(st, &rc)) {
        *name = column_text(a, st, 0);
        const char *at = sql_text(st, 1);
        status = parse_iso_time(at ? at : "", TIME_LOWER, &o->since, &why);
        if (status)
            diag_error(d, "baseline '%s' has no creation time benchdb can read ('%s': %s)", *name,
                       at ? at : "", why);
    } else if (rc == SQLITE_OK)
        diag_error(d, "no baseline is saved: 'benchdb baseline save NAME' saves one, or give "
                      "--since DATE");
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return diag_error(d, "cannot read the baselines: %s", sqlite3_errmsg(h));
    return status;
}

int query_trend(struct db *db, const struct trend_opts *opts, struct report *r,
                struct trend_outcome *out, struct diag *d)
{
    struct trend_opts q = *opts, *o = &q;
    const char *const *metrics = o->nmetrics ? o->metrics : default_metrics;
    size_t nmetrics = o->nmetrics ? o->nmetrics : ARRAY_SIZE(default_metrics);
    const char *baseline = NULL;
    struct trend_tables tt = {.out = out};
    *out = (struct trend_outcome){0};
    int status = o->since_last_baseline ? newest_baseline(db, o, &r->arena, &baseline, d) : 0;
    if (status)
        return status;
    if (o->stale_after > 0) /* first: when a run is missing, that is the news */
        tt.stale = report_table(r, report_section(r, "Stale series", stale_prose), "stale",
                                stale_cols, ARRAY_SIZE(stale_cols));
    tt.changes = report_table(r, report_section(r, "Change points", method_prose), "change_points",
                              change_cols, ARRAY_SIZE(change_cols));
    tt.series = report_table(r, report_section(r, "Series", NULL), "series", series_cols,
                             ARRAY_SIZE(series_cols));
    tt.points = report_table(r, report_section(r, "Values", NULL), "points", point_cols,
                             ARRAY_SIZE(point_cols));
    for (size_t i = 0; i < nmetrics && status == 0; i++)
        status = metric_series(db, o, metrics[i], r, &tt, d);
    if (status == 0 && tt.stale)
        stale_rows(r, o, &tt);
    free(tt.newest);
    if (status)
        return status;
    method_facts(r, o, &tt, baseline);
    if (tt.nseries == 0) {
        struct buf hint = BUF_INIT;
        db_filters_hint(db, o->where, o->nwhere, &hint);
        diag_error(
            d, "no results with a start time and a value of %s%s%s%s%s",
            o->nmetrics ? "the --metric metrics" : "the metrics (" TREND_DEFAULT_METRICS ")",
            o->nwhere || (o->dates && o->dates->until != INT64_MAX) ? " that pass the filters" : "",
            hint.len ? " (" : "", hint.len ? hint.data : "", hint.len ? ")" : "");
        buf_release(&hint);
        return 1;
    }
    return 0;
}
