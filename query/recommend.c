/* recommend.c: storage-tier recommendations per workload class, from user-editable rules
 * (templates/tiers.rules documents the format). A class's value per side is its worst
 * workload's mean: each workload (the comparison's group, identity.h) is averaged over its repeats,
 * never pooled with another, and a tier must meet the threshold on every workload of the class it
 * ran. Suspect results are left out and named. Deterministic: ties go to the side named first. */
#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/ini.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "insights.h"
#include "results.h"
#include "stats.h"

/* At most this many results are named per reason they were left out; the rest are counted. */
enum { MAX_NAMED = 3 };

struct rule {
    const char *name, *title, *metric;
    const char *direction; /* read, write; NULL: any */
    const char *rw[8];
    size_t nrw;
    int64_t bs_min, bs_max;
    int sync, direct;  /* -1: any */
    double threshold;  /* base unit of the metric */
    int higher_better; /* bandwidth, IOPS; the rest (latencies, ...) lower-better */
    int pick_all;
    enum unit unit;
    unsigned line;
};

struct rules {
    struct rule *v;
    size_t n, a;
};

/* ---- metrics ---- */

/* The metrics loaded with every result (with their stand-ins and derivations). */
static const struct {
    const char *name;
    enum result_metric m;
} loaded[] = {
    {"bw_bytes_s", RM_BW},
    {"iops", RM_IOPS},
    {"clat_mean_ns", RM_LAT_MEAN},
    {"clat_p99_ns", RM_P99},
    {"clat_p50_ns", RM_P50},
    {"runtime_ms", RM_RUNTIME},
    {"lat_mean_ns", RM_LAT_TOTAL},
    {"sync_lat_mean_ns", RM_SYNC_MEAN},
    {"sync_lat_p99_ns", RM_SYNC_P99},
    {"sync_lat_p50_ns", RM_SYNC_P50},
};

static const char known_metrics[] =
    "bw_bytes_s, iops, io_bytes, runtime_ms, total_ios, "
    "{slat,clat,lat,sync_lat}_{min,max,mean,stddev}_ns, {slat,clat,lat,sync_lat}_pP_ns "
    "(clat_p99_ns, clat_p99_9_ns, ...), bw_{min,max,mean,stddev}_bytes_s, "
    "iops_{min,max,mean,stddev}, sync_total_ios, cpu_usr_pct, cpu_sys_pct, cpu_pct, "
    "retransmits, jitter_ns, lost_packets, packets, loss_pct, rtt_{min,max,mean}_ns, samples";

static int loaded_index(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(loaded); i++)
        if (!strcmp(loaded[i].name, name))
            return (int)i;
    return -1;
}

static int one_of(const char *s, size_t n, const char *const *list, size_t nlist)
{
    for (size_t i = 0; i < nlist; i++)
        if (strlen(list[i]) == n && !strncmp(s, list[i], n))
            return 1;
    return 0;
}

/* "p99", "p99_9", "p50" */
static int percentile(const char *s, size_t n)
{
    if (n < 2 || s[0] != 'p')
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] >= '0' && s[i] <= '9') && !(s[i] == '_' && i > 1 && i + 1 < n))
            return 0;
    return 1;
}

/* prefix + middle + suffix, the middle one of a statistic or (pct) a percentile. */
static int family(const char *m, const char *prefix, const char *suffix, int pct)
{
    static const char *const stats[] = {"min", "max", "mean", "stddev"};
    size_t lp = strlen(prefix), ls = strlen(suffix), n = strlen(m);
    if (n <= lp + ls || strncmp(m, prefix, lp) || strcmp(m + n - ls, suffix))
        return 0;
    const char *mid = m + lp;
    size_t k = n - lp - ls;
    return one_of(mid, k, stats, 4) || (pct && percentile(mid, k));
}

/* A metric name of the export's (docs/HACKING.md, "Metric names"). */
static int known_metric(const char *m)
{
    static const char *const plain[] = {
        "bw_bytes_s",     "iops",         "io_bytes",    "runtime_ms", "total_ios",
        "sync_total_ios", "cpu_usr_pct",  "cpu_sys_pct", "cpu_pct",    "retransmits",
        "jitter_ns",      "lost_packets", "packets",     "loss_pct",   "samples"};
    static const char *const lat[] = {"slat_", "clat_", "lat_", "sync_lat_"};
    if (one_of(m, strlen(m), plain, ARRAY_SIZE(plain)))
        return 1;
    for (size_t i = 0; i < ARRAY_SIZE(lat); i++)
        if (family(m, lat[i], "_ns", 1))
            return 1;
    return family(m, "bw_", "_bytes_s", 0) || family(m, "iops_", "", 0) ||
           family(m, "rtt_", "_ns", 0);
}

static void ignore_line(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx, (void)level, (void)line;
}

static int stored_metric(struct db *db, const char *m)
{
    struct diag quiet = DIAG_INIT;
    quiet.emit = ignore_line; /* a name that cannot be a metric is simply not stored */
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "SELECT 1 FROM result r WHERE ");
    int found = 0;
    if (db_metric_expr(db, &sql, "r", m, &quiet) == 0) {
        buf_adds(&sql, " IS NOT NULL LIMIT 1");
        int rc = SQLITE_OK;
        sqlite3_stmt *st = sql_prepare(db_handle(db), &rc, sql.data);
        found = sql_step(st, &rc);
        sqlite3_finalize(st);
    }
    buf_release(&sql);
    return found;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static enum unit metric_unit(const char *m)
{
    if (ends_with(m, "_ns"))
        return UNIT_NS;
    if (ends_with(m, "bytes_s"))
        return UNIT_BYTES_S;
    if (ends_with(m, "bytes"))
        return UNIT_BYTES;
    if (!strncmp(m, "iops", 4))
        return UNIT_IOPS;
    return ends_with(m, "_pct") ? UNIT_PERCENT : UNIT_NONE;
}

/* What a person calls the metric, for "has 2 sync-write results but no fsync latency". */
static const char *metric_words(const char *m)
{
    if (!strncmp(m, "sync_lat_", 9))
        return "fsync latency";
    if (!strncmp(m, "bw_", 3))
        return "bandwidth";
    if (!strncmp(m, "iops", 4))
        return "IOPS";
    return strstr(m, "lat_") ? "latency" : "value";
}

/* ---- the rules file ---- */

static int bad(struct diag *d, const char *path, unsigned line, const char *what, const char *v)
{
    struct source src = {path, "", 0};
    return diag_error_line(d, &src, line, "%s '%s'", what, v);
}

static int set_metric(struct db *db, struct rule *r, struct arena *a, const char *val,
                      const char *path, unsigned line, struct diag *d)
{
    if (!known_metric(val) && !stored_metric(db, val)) {
        struct source src = {path, "", 0};
        return diag_error_line(d, &src, line,
                               "unknown metric '%s' (known: %s; or any metric stored in this "
                               "warehouse)",
                               val, known_metrics);
    }
    r->metric = arena_strdup(a, val);
    r->unit = metric_unit(val);
    r->higher_better = !strncmp(val, "bw_", 3) || !strncmp(val, "iops", 4);
    return 0;
}

static int set_choice(int *out, const char *val, const char *a, const char *b)
{
    if (strcmp(val, a) && strcmp(val, b))
        return -1;
    *out = !strcmp(val, a);
    return 0;
}

static int set_key(struct db *db, struct rule *r, struct arena *a, const char *key, const char *val,
                   const char *path, unsigned line, struct diag *d)
{
    if (!strcmp(key, "title"))
        r->title = arena_strdup(a, val);
    else if (!strcmp(key, "metric"))
        return set_metric(db, r, a, val, path, line, d);
    else if (!strcmp(key, "rw")) {
        for (const char *p = skip_ws(val); *p && r->nrw < ARRAY_SIZE(r->rw);) {
            size_t n = strcspn(p, " \t");
            r->rw[r->nrw++] = arena_strndup(a, p, n);
            p = skip_ws(p + n);
        }
    } else if (!strcmp(key, "direction")) {
        if (strcmp(val, "read") && strcmp(val, "write"))
            return bad(d, path, line, "expected direction = read or write, got", val);
        r->direction = arena_strdup(a, val);
    } else if (!strcmp(key, "bs_min") || !strcmp(key, "bs_max")) {
        int64_t b;
        if (!parse_fio_size(val, &b))
            return bad(d, path, line, "expected a block size such as 4k or 1M, got", val);
        *(!strcmp(key, "bs_min") ? &r->bs_min : &r->bs_max) = b;
    } else if (!strcmp(key, "sync") || !strcmp(key, "direct")) {
        if (set_choice(!strcmp(key, "sync") ? &r->sync : &r->direct, val, "1", "0"))
            return bad(d, path, line, "expected 0 or 1, got", val);
    } else if (!strcmp(key, "threshold")) {
        if (!r->metric)
            return bad(d, path, line, "'metric' must come before", key);
        if (unit_parse(val, r->unit, &r->threshold))
            return bad(d, path, line, "cannot read threshold", val);
    } else if (!strcmp(key, "better")) {
        if (set_choice(&r->higher_better, val, "higher", "lower"))
            return bad(d, path, line, "expected better = higher or lower, got", val);
    } else if (!strcmp(key, "pick")) {
        if (set_choice(&r->pick_all, val, "all", "best"))
            return bad(d, path, line, "expected pick = best or all, got", val);
    } else {
        return bad(d, path, line, "unknown key", key);
    }
    return 0;
}

static void new_class(struct rules *out, char *name, unsigned line)
{
    ALLOC_GROW(out->v, out->n, out->a);
    out->v[out->n++] = (struct rule){.name = name,
                                     .title = name,
                                     .bs_min = -1,
                                     .bs_max = -1,
                                     .sync = -1,
                                     .direct = -1,
                                     .line = line};
}

struct rules_reader {
    struct db *db;
    const char *path;
    struct arena *a;
    struct rules *out;
    struct diag *d;
};

static int rules_entry(void *ctx, const struct ini_entry *e)
{
    struct rules_reader *rr = ctx;
    if (!e->key) {
        new_class(rr->out, arena_strdup(rr->a, e->section), e->line);
        return 0;
    }
    if (!rr->out->n && !strcmp(e->key, "slo"))
        return 0; /* a latency target of the capacity section (capacity.c reads it) */
    if (!rr->out->n)
        return bad(rr->d, rr->path, e->line, "expected a [class] (or slo = TARGET) before",
                   e->text);
    return set_key(rr->db, &rr->out->v[rr->out->n - 1], rr->a, e->key, e->value, rr->path, e->line,
                   rr->d);
}

static int parse_rules(struct db *db, const char *path, const char *text, struct arena *a,
                       struct rules *out, struct diag *d)
{
    struct rules_reader rr = {db, path, a, out, d};
    if (ini_parse(path, text, strlen(text), rules_entry, &rr, d))
        return -1;
    for (size_t i = 0; i < out->n; i++)
        if (!out->v[i].metric || out->v[i].threshold <= 0)
            return bad(d, path, out->v[i].line,
                       "class needs 'metric' and 'threshold':", out->v[i].name);
    return 0;
}

/* ---- the values ---- */

enum { FLAG_DERIVED = 1, FLAG_DURABLE = 2, FLAG_WRITE_WAITS = 4, FLAG_WRITE_UNKNOWN = 8 };

/* Every result's value of metric m into v, with FLAG_DERIVED where it was computed. */
static int metric_column(struct db *db, const struct side_results *res, const char *m, double *v,
                         unsigned char *flags, struct diag *d)
{
    int k = loaded_index(m);
    if (k < 0)
        return query_metric_values(db, res, m, v, d);
    for (size_t i = 0; i < res->n; i++) {
        v[i] = res->v[i].m[loaded[k].m];
        if (res->v[i].derived & (1u << loaded[k].m))
            flags[i] |= FLAG_DERIVED;
    }
    return 0;
}

/* The durable write's latency where the write() call waits for stable storage itself (O_SYNC,
 * a sync mount): without fsync/fdatasync, the write's completion latency (alt); with one every
 * N writes, the N writes' and the fsync's: N x alt + v (exact for the mean; for a percentile an
 * approximation, which assumes a slow write meets a slow fsync, and may fall either side). The
 * fsync alone, which finds little left to flush, made such storage look the faster for a WAL.
 * NAN: none known. */
static double waited_write(const struct side_result *r, double v, double alt, unsigned *flag)
{
    int64_t n = result_writes_per_flush(r);
    if (!n) { /* a measured fsync latency wins (a note's "fsync latency") */
        *flag = isnan(v) ? FLAG_DURABLE : 0;
        return isnan(v) ? alt : v;
    }
    *flag = isnan(alt) ? FLAG_WRITE_UNKNOWN : FLAG_WRITE_WAITS;
    return isnan(alt) ? v : (double)n * alt + v;
}

/* The rule's metric for every result; for fsync latency metrics (sync_lat_*), the durable
 * write's (waited_write). */
static int rule_values(struct db *db, const struct rule *ru, const struct side_results *res,
                       double *v, unsigned char *flags, struct diag *d)
{
    int rc = metric_column(db, res, ru->metric, v, flags, d);
    if (rc || strncmp(ru->metric, "sync_lat_", 9))
        return rc;
    struct buf name = BUF_INIT;
    buf_addf(&name, "c%s", ru->metric + 5); /* sync_lat_mean_ns -> clat_mean_ns */
    double *alt = xmalloc((res->n ? res->n : 1) * sizeof(*alt));
    unsigned char *altf = xcalloc(res->n ? res->n : 1, 1);
    rc = metric_column(db, res, name.data, alt, altf, d);
    for (size_t i = 0; rc == 0 && i < res->n; i++) {
        unsigned flag;
        if (!result_write_waits(&res->v[i]))
            continue;
        v[i] = waited_write(&res->v[i], v[i], alt[i], &flag);
        flags[i] |= flag | (flag & (FLAG_DURABLE | FLAG_WRITE_WAITS) ? altf[i] : 0);
    }
    buf_release(&name);
    free(alt);
    free(altf);
    return rc;
}

/* The class's workload selection, whatever the result's worth. */
static int selects(const struct rule *ru, const struct side_result *r)
{
    int rw_ok = ru->nrw == 0;
    for (size_t i = 0; i < ru->nrw; i++)
        rw_ok |= !strcmp(ru->rw[i], r->rw);
    return rw_ok && !r->part && (!ru->direction || !strcmp(r->direction, ru->direction)) &&
           (ru->bs_min < 0 || r->bs >= ru->bs_min) &&
           (ru->bs_max < 0 || (r->bs > 0 && r->bs <= ru->bs_max)) &&
           (ru->sync < 0 || result_is_sync(r) == ru->sync) &&
           (ru->direct < 0 || r->direct == ru->direct);
}

/* Why a result is left out, in the order they are named; N_REASONS: it is not. */
enum reason { R_FAILED, R_CACHED, R_IMPOSSIBLE, R_TRANSCRIBED, R_SHORT, N_REASONS };

static enum reason left_out(const struct side_result *r)
{
    static const unsigned bits[] = {0, SUSPECT_CACHED, SUSPECT_IMPOSSIBLE, SUSPECT_TRANSCRIBED,
                                    SUSPECT_SHORT};
    if (r->error)
        return R_FAILED;
    for (int k = R_CACHED; k < N_REASONS; k++)
        if (r->suspect & bits[k])
            return (enum reason)k;
    return N_REASONS;
}

struct side_tally {
    double value;        /* the worst workload's mean; NAN: none */
    const char *worst;   /* its name */
    const char *range;   /* its one result's value as its author typed it ("13-15 ms"); NULL */
    size_t workloads, n; /* workloads with a value; the worst's results */
    struct sample_stats spread; /* the worst's results: their mean and spread */
    unsigned flags;             /* FLAG_* of the worst's results */
    size_t selected, nometric;
    size_t out[N_REASONS]; /* left out, per reason */
    struct buf named[N_REASONS];
};

struct entry {
    size_t side, i; /* i: result index */
    char *key;      /* result_group: the comparison's workload */
};

static int same_workload(const struct entry *x, const struct entry *y)
{
    return x->side == y->side && !strcmp(x->key, y->key);
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->side != y->side)
        return x->side < y->side ? -1 : 1;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void tally_left_out(struct side_tally *t, enum reason why, const struct side_result *r)
{
    if (t->out[why]++ < MAX_NAMED)
        buf_addf(&t->named[why], "%s%s:%d", t->named[why].len ? ", " : "", r->source,
                 r->line ? r->line : 1);
}

/* One workload's results e[0..k-1] (one side, one key): its mean, kept when it is the worst. */
static void take_workload(const struct rule *ru, struct side_tally *t, const struct entry *e,
                          size_t k, const double *v, const unsigned char *flags,
                          const struct side_results *res, struct report *r)
{
    double *x = xmalloc(k * sizeof(*x));
    unsigned f = 0;
    for (size_t j = 0; j < k; j++) {
        x[j] = v[e[j].i];
        f |= flags[e[j].i];
    }
    struct sample_stats st;
    stats_describe(x, k, &st);
    free(x);
    double mean = st.mean;
    t->workloads++;
    if (!isnan(t->value) && (ru->higher_better ? mean >= t->value : mean <= t->value))
        return;
    t->spread = st;
    struct buf name = BUF_INIT;
    result_workload_name(&name, &res->v[e[0].i]);
    t->value = mean;
    t->worst = arena_strdup(&r->arena, name.data);
    t->n = k;
    t->flags = f;
    /* a typed range is shown as typed, never as its midpoint alone (results.h) */
    int li = loaded_index(ru->metric);
    buf_reset(&name);
    t->range = k == 1 && li >= 0 && result_typed_range(&res->v[e[0].i], loaded[li].m, &name)
                   ? arena_printf(&r->arena, "%s (typed range)", name.data)
                   : NULL;
    buf_release(&name);
}

/* Each side's tally for the class: selected results sorted out, workloads averaged. */
static void tally(const struct rule *ru, const struct side_results *res, const double *v,
                  const unsigned char *flags, struct side_tally *t, struct report *r)
{
    struct entry *e = xmalloc((res->n ? res->n : 1) * sizeof(*e));
    size_t ne = 0;
    for (size_t i = 0; i < res->n; i++) {
        const struct side_result *x = &res->v[i];
        if (!selects(ru, x))
            continue;
        struct side_tally *s = &t[x->side];
        s->selected++;
        enum reason why = left_out(x);
        if (why != N_REASONS)
            tally_left_out(s, why, x);
        else if (isnan(v[i]))
            s->nometric++;
        else {
            struct buf key = BUF_INIT; /* the comparison's group: repeats only (identity.h) */
            buf_adds(&key, result_group(x));
            e[ne++] = (struct entry){x->side, i, buf_detach(&key, NULL)};
        }
    }
    qsort(e, ne, sizeof(*e), cmp_entry);
    for (size_t a = 0, b; a < ne; a = b) {
        for (b = a + 1; b < ne && same_workload(&e[a], &e[b]); b++)
            ;
        take_workload(ru, &t[e[a].side], e + a, b - a, v, flags, res, r);
    }
    for (size_t i = 0; i < ne; i++)
        free(e[i].key);
    free(e);
}

/* ---- the evidence and the pick ---- */

/* Two sides' worst workloads whose difference has p at least this are a tie (recommend.c
 * decides one class at a time: no correction over the report's tests). */
static const double TIE_ALPHA = 0.05;

static const char *const reason_words[N_REASONS] = {"failed", "cached", "impossible (Little's law)",
                                                    "typed without context", "short"};

/* What a sync_lat_* value of a side is made of, where the write() waited too (waited_write). */
static const char *durable_words(unsigned flags)
{
    if (flags & FLAG_WRITE_UNKNOWN)
        return "; write() waits for storage too (O_SYNC or a sync mount), its latency unknown: "
               "the fsync's alone";
    if (flags & FLAG_WRITE_WAITS)
        return "; write() waits for storage too (O_SYNC or a sync mount): the writes' latency "
               "plus the fsync's";
    return flags & FLAG_DURABLE ? "; O_SYNC writes: their write latency" : "";
}

static void side_evidence(struct buf *why, const struct rule *ru, const char *side,
                          const struct side_tally *t)
{
    const char *const *words = reason_words;
    size_t start = why->len;
    if (!isnan(t->value)) {
        buf_addf(why, "%s: %s ", side, ru->metric);
        if (t->range)
            buf_adds(why, t->range);
        else
            unit_format(why, t->value, ru->unit);
        buf_addf(why, "%s, worst of %zu workload%s (%s: mean of %zu result%s%s)",
                 t->flags & FLAG_DERIVED ? " (derived)" : "", t->workloads,
                 t->workloads == 1 ? "" : "s", t->worst, t->n, t->n == 1 ? "" : "s",
                 durable_words(t->flags));
    } else if (!t->selected) {
        buf_addf(why, "no %s results for %s", ru->name, side);
    }
    if (t->nometric)
        buf_addf(why, "%s%s has %zu %s result%s but no %s (%s)", why->len > start ? "; " : "", side,
                 t->nometric, ru->name, t->nometric == 1 ? "" : "s", metric_words(ru->metric),
                 ru->metric);
    int first = 1;
    for (int k = 0; k < N_REASONS; k++) {
        if (!t->out[k])
            continue;
        if (first)
            buf_addf(why, "%s%s: %zu result%s left out as %s (%s", why->len > start ? "; " : "",
                     side, t->out[k], t->out[k] == 1 ? "" : "s", words[k], t->named[k].data);
        else
            buf_addf(why, ", %zu as %s (%s", t->out[k], words[k], t->named[k].data);
        if (t->out[k] > MAX_NAMED)
            buf_addf(why, "; and %zu more", t->out[k] - MAX_NAMED);
        buf_addc(why, ')');
        first = 0;
    }
}

static int meets(const struct rule *ru, double v)
{
    return ru->higher_better ? v >= ru->threshold : v <= ru->threshold;
}

/* A side that meets the threshold too, and whose repeats cannot be told from the best's (both
 * repeated, p >= 0.05 on the log ratio): picking the best of them alone would rest on noise. */
static int tied_with(const struct side_tally *best, const struct side_tally *other)
{
    if (best->spread.n < 2 || other->spread.n < 2)
        return 0;
    double p = stats_ratio_p(&best->spread, &other->spread);
    return !isnan(p) && p >= TIE_ALPHA;
}

/* The sides that meet the threshold: the best (ties to the first named) with those that do not
 * differ from it significantly, or all. */
static void pick(struct buf *out, const struct rule *ru, const struct compare_opts *o,
                 const struct side_tally *t)
{
    size_t best = o->nvalues;
    for (size_t s = 0; s < o->nvalues; s++) {
        if (isnan(t[s].value) || !meets(ru, t[s].value))
            continue;
        if (ru->pick_all)
            buf_addf(out, "%s%s", out->len ? ", " : "", o->values[s]);
        else if (best == o->nvalues ||
                 (ru->higher_better ? t[s].value > t[best].value : t[s].value < t[best].value))
            best = s;
    }
    if (ru->pick_all || best == o->nvalues)
        return;
    buf_adds(out, o->values[best]);
    size_t tied = 0;
    for (size_t s = 0; s < o->nvalues; s++)
        if (s != best && !isnan(t[s].value) && meets(ru, t[s].value) &&
            tied_with(&t[best], &t[s])) {
            buf_addf(out, ", %s", o->values[s]);
            tied++;
        }
    if (tied)
        buf_adds(out, " (no significant difference)");
}

/* Why no side is recommended, in the cell's words: none meets the threshold (and which side
 * came closest, at what), or there was nothing to judge: no usable results (and why they
 * were left out), no results with the rule's metric, no results of the class. */
static void no_pick(struct buf *out, const struct rule *ru, const struct compare_opts *o,
                    const struct side_tally *t)
{
    size_t closest = o->nvalues, selected = 0, nometric = 0, left[N_REASONS] = {0};
    for (size_t s = 0; s < o->nvalues; s++) {
        selected += t[s].selected;
        nometric += t[s].nometric;
        for (int k = 0; k < N_REASONS; k++)
            left[k] += t[s].out[k];
        if (!isnan(t[s].value) &&
            (closest == o->nvalues ||
             (ru->higher_better ? t[s].value > t[closest].value : t[s].value < t[closest].value)))
            closest = s;
    }
    if (closest < o->nvalues) {
        buf_addf(out, "none meets the threshold (closest: %s, %s ", o->values[closest], ru->metric);
        unit_format(out, t[closest].value, ru->unit);
        buf_addc(out, ')');
    } else if (!selected) {
        buf_adds(out, "no results of this class");
    } else if (nometric == selected) {
        buf_addf(out, "no results with %s", metric_words(ru->metric));
    } else {
        buf_adds(out, "no usable results (");
        const char *sep = "";
        for (int k = 0; k < N_REASONS; k++)
            if (left[k]) {
                buf_addf(out, "%s%zu %s", sep, left[k], reason_words[k]);
                sep = ", ";
            }
        if (nometric)
            buf_addf(out, "%s%zu without %s", sep, nometric, metric_words(ru->metric));
        buf_addc(out, ')');
    }
}

static int recommend_class(struct db *db, struct report *r, struct table *tb, const struct rule *ru,
                           const struct compare_opts *o, const struct side_results *res,
                           struct diag *d)
{
    double *v = xmalloc((res->n ? res->n : 1) * sizeof(*v));
    unsigned char *flags = xcalloc(res->n ? res->n : 1, 1);
    struct side_tally *t = xcalloc(o->nvalues, sizeof(*t));
    for (size_t s = 0; s < o->nvalues; s++)
        t[s].value = NAN;
    int rc = rule_values(db, ru, res, v, flags, d);
    if (rc == 0) {
        tally(ru, res, v, flags, t, r);
        struct buf chosen = BUF_INIT, why = BUF_INIT, thr = BUF_INIT;
        for (size_t s = 0; s < o->nvalues; s++) {
            if (why.len)
                buf_adds(&why, "; ");
            side_evidence(&why, ru, o->values[s], &t[s]);
        }
        pick(&chosen, ru, o, t);
        if (!chosen.len)
            no_pick(&chosen, ru, o, t);
        unit_format(&thr, ru->threshold, ru->unit);
        struct cell *row = table_add_row(r, tb);
        cell_set_text(&row[0], ru->title);
        cell_set_text(&row[1], arena_strdup(&r->arena, chosen.data));
        cell_set_text(&row[2], arena_printf(&r->arena, "%s %s %s", ru->metric,
                                            ru->higher_better ? ">=" : "<=", thr.data));
        cell_set_text(&row[3], arena_strdup(&r->arena, why.data));
        buf_release(&chosen);
        buf_release(&why);
        buf_release(&thr);
    }
    for (size_t s = 0; s < o->nvalues; s++)
        for (int k = 0; k < N_REASONS; k++)
            buf_release(&t[s].named[k]);
    free(t);
    free(flags);
    free(v);
    return rc;
}

/* Whether word appears in text as a whole word (letters, digits and '_' around it). */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

int recommend_reads_metric(const char *rules, const char *name)
{
    /* a rule on sync_lat_X reads clat_X too (rule_values) */
    char sync[64];
    int stands_in = !strncmp(name, "clat_", 5) &&
                    (size_t)snprintf(sync, sizeof(sync), "sync_%s", name + 1) < sizeof(sync);
    return has_word(rules, name) || (stands_in && has_word(rules, sync));
}

int query_recommend(struct db *db, const struct compare_opts *o, const struct side_results *res,
                    const char *rules_path, const char *rules, struct report *r, struct diag *d)
{
    static const struct column cols[] = {{"Workload class", UNIT_NONE, ROLE_PLAIN},
                                         {"Recommended", UNIT_NONE, ROLE_PLAIN},
                                         {"Rule", UNIT_NONE, ROLE_PLAIN},
                                         {"Evidence", UNIT_NONE, ROLE_PLAIN}};
    struct rules ru = {NULL, 0, 0};
    int rc = parse_rules(db, rules_path, rules, &r->arena, &ru, d);
    if (rc == 0) {
        struct buf prose = BUF_INIT;
        buf_adds(&prose,
                 "Per workload class, the storage that meets the rule's threshold with the best "
                 "value (rules: ");
        report_md_escape(&prose, rules_path);
        buf_adds(&prose,
                 "). Each workload (rw, block size, iodepth, numjobs, direction, sync ...) is "
                 "the mean of its repeats, never pooled with another; a side's value is its "
                 "worst workload of the class, since a tier must meet the threshold on every "
                 "workload of the class it ran. Suspect results (failed, cached, short, typed "
                 "without context, impossible) are left out and named. Missing data is named, "
                 "never guessed.");
        struct section *s = report_section(r, "Recommendations", prose.data);
        buf_release(&prose);
        struct table *t = report_table(r, s, "recommendations", cols, 4);
        for (size_t i = 0; rc == 0 && i < ru.n; i++)
            rc = recommend_class(db, r, t, &ru.v[i], o, res, d);
    }
    free(ru.v);
    return rc;
}
