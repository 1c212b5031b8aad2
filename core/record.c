#include "record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "hash.h"
#include "utf8.h"

void workload_init(struct workload *wl)
{
    memset(wl, 0, sizeof(*wl));
    wl->bs_bytes = wl->iodepth = wl->numjobs = wl->size_bytes = WL_UNKNOWN;
    wl->rwmixread = wl->runtime_s = WL_UNKNOWN;
    wl->direct = wl->sync = wl->fsync = wl->fdatasync = WL_UNKNOWN;
}

struct bench_record *record_new(struct arena *a, const char *tool)
{
    struct bench_record *r = arena_alloc(a, sizeof(*r));
    r->tool = tool;
    workload_init(&r->wl);
    return r;
}

/* The bit of a name's hash in metric_names_seen. */
static uint64_t name_bit(uint64_t hash)
{
    return (uint64_t)1 << (hash & 63);
}

/* With ~60 metrics most bits of metric_names_seen are set: the names' hashes, not the names,
 * are compared along the list (a strcmp per metric made record building quadratic). */
static struct metric *find_metric(const struct bench_record *r, const char *name, uint64_t hash)
{
    if (!(r->metric_names_seen & name_bit(hash)))
        return NULL;
    for (size_t i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].hash == hash && !strcmp(r->metrics[i].name, name))
            return &r->metrics[i];
    return NULL;
}

void record_metric(struct arena *a, struct bench_record *r, const char *name, double value)
{
    uint64_t hash = str_hash(name);
    struct metric *m = find_metric(r, name, hash);
    if (m) {
        m->value = value;
        return;
    }
    r->metrics = arena_grow(a, r->metrics, r->n_metrics, &r->a_metrics, sizeof(*r->metrics));
    r->metrics[r->n_metrics++] = (struct metric){name, value, hash};
    r->metric_names_seen |= name_bit(hash);
}

const double *record_get(const struct bench_record *r, const char *name)
{
    const struct metric *m = find_metric(r, name, str_hash(name));
    return m ? &m->value : NULL;
}

void record_tag(struct arena *a, struct bench_record *r, const char *key, const char *value)
{
    for (size_t i = 0; i < r->n_tags; i++) {
        if (!strcmp(r->tags[i].key, key)) {
            r->tags[i].value = arena_strdup(a, value);
            return;
        }
    }
    r->tags = arena_grow(a, r->tags, r->n_tags, &r->a_tags, sizeof(*r->tags));
    r->tags[r->n_tags++] = (struct kv){arena_strdup(a, key), arena_strdup(a, value)};
}

const char *record_tag_get(const struct bench_record *r, const char *key)
{
    for (size_t i = 0; i < r->n_tags; i++)
        if (!strcmp(r->tags[i].key, key))
            return r->tags[i].value;
    return NULL;
}

/* A copy of n elements of size bytes from a (NULL when there are none), *cap set to n. */
static void *array_copy(struct arena *a, const void *p, size_t n, size_t size, size_t *cap)
{
    *cap = n;
    if (!n)
        return NULL;
    void *q = arena_alloc(a, n * size);
    memcpy(q, p, n * size);
    return q;
}

struct bench_record *record_copy(struct arena *a, const struct bench_record *r)
{
    struct bench_record *c = arena_alloc(a, sizeof(*c));
    *c = *r;
    c->metrics = array_copy(a, r->metrics, r->n_metrics, sizeof(*r->metrics), &c->a_metrics);
    c->tags = array_copy(a, r->tags, r->n_tags, sizeof(*r->tags), &c->a_tags);
    c->bins = array_copy(a, r->bins, r->n_bins, sizeof(*r->bins), &c->a_bins);
    return c;
}

void record_bin(struct arena *a, struct bench_record *r, double value_ns, double count)
{
    r->bins = arena_grow(a, r->bins, r->n_bins, &r->a_bins, sizeof(*r->bins));
    r->bins[r->n_bins++] = (struct hist_bin){value_ns, count};
}

void record_point(struct arena *a, struct bench_record *r, double t_ms, double value)
{
    r->series = arena_grow(a, r->series, r->n_series, &r->a_series, sizeof(*r->series));
    r->series[r->n_series++] = (struct series_point){t_ms, value};
}

/* fio's default percentile list (and what notes and logs mostly name), with their names
 * ready: formatting a name costs more than parsing the number it came from. */
static const double common_pcts[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                     80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
#define PCT_NAMES(k)                                                                               \
    {                                                                                              \
        k "_p1_ns", k "_p5_ns", k "_p10_ns", k "_p20_ns", k "_p30_ns", k "_p40_ns", k "_p50_ns",   \
            k "_p60_ns", k "_p70_ns", k "_p80_ns", k "_p90_ns", k "_p95_ns", k "_p99_ns",          \
            k "_p99_5_ns", k "_p99_9_ns", k "_p99_95_ns", k "_p99_99_ns"                           \
    }
static const char *const common_kinds[] = {"clat", "lat", "slat", "sync_lat"};
static const char *const common_names[][ARRAY_SIZE(common_pcts)] = {
    PCT_NAMES("clat"), PCT_NAMES("lat"), PCT_NAMES("slat"), PCT_NAMES("sync_lat")};

static const char *common_percentile_name(const char *kind, double pct)
{
    for (size_t k = 0; k < ARRAY_SIZE(common_kinds); k++) {
        if (strcmp(kind, common_kinds[k]))
            continue;
        for (size_t i = 0; i < ARRAY_SIZE(common_pcts); i++)
            if (common_pcts[i] == pct)
                return common_names[k][i];
        return NULL;
    }
    return NULL;
}

const char *record_percentile_name(struct arena *a, const char *kind, double pct)
{
    const char *common = common_percentile_name(kind, pct);
    if (common)
        return common;
    char num[32];
    snprintf(num, sizeof(num), "%.6f", pct);
    char *dot = strchr(num, '.');
    char *end = num + strlen(num);
    while (end > dot + 1 && end[-1] == '0')
        *--end = '\0';
    if (end == dot + 1)
        *dot = '\0';
    else
        *dot = '_';
    return arena_printf(a, "%s_p%s_ns", kind, num);
}

/* Every metric benchdb knows (docs/HACKING.md) is a magnitude: a rate, a size, a count, a
 * duration, a latency or a percentage; none can be negative. A signed metric added later (a
 * temperature, a clock offset) needs an exception here.
 *
 * Such a value is rejected, not stored as unknown with a warning: a tool never prints it, so
 * the file was edited or damaged, and its other numbers cannot be trusted either; a file
 * imports whole or not at all. */
static int measurable(double v)
{
    return isfinite(v) && v >= 0;
}

static int bad_value(const struct bench_record *r, const struct source *src, struct diag *d,
                     const char *what, double v)
{
    return diag_error_line(d, src, r->line_first ? r->line_first : 1,
                           "expected a non-negative number for '%s' of result '%s/%s', got '%g'",
                           what, r->job ? r->job : "", r->direction ? r->direction : "", v);
}

int record_check(const struct bench_record *r, const struct source *src, struct diag *d)
{
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!measurable(r->metrics[i].value))
            return bad_value(r, src, d, r->metrics[i].name, r->metrics[i].value);
    for (size_t i = 0; i < r->n_bins; i++) {
        if (!measurable(r->bins[i].value_ns))
            return bad_value(r, src, d, "histogram bin latency", r->bins[i].value_ns);
        if (!measurable(r->bins[i].count))
            return bad_value(r, src, d, "histogram bin count", r->bins[i].count);
    }
    for (size_t i = 0; i < r->n_series; i++)
        if (!measurable(r->series[i].value))
            return bad_value(r, src, d, r->series_metric ? r->series_metric : "series value",
                             r->series[i].value);
    return 0;
}

/* The text fields of r a record's check walks, and what a message calls them. */
enum { RECORD_TEXTS = 14 };
static const char *const text_names[RECORD_TEXTS] = {
    "tool",
    "tool version",
    "host",
    "peer",
    "job",
    "direction",
    "error message",
    "storage class",
    "mount",
    "sec",
    "rw",
    "ioengine",
    "histogram metric",
    "series metric",
};

static void text_fields(struct bench_record *r, const char **f[RECORD_TEXTS])
{
    const char **all[RECORD_TEXTS] = {
        &r->tool,      &r->tool_version, &r->host,          &r->peer,         &r->job,
        &r->direction, &r->error_msg,    &r->storage_class, &r->mount,        &r->sec,
        &r->wl.rw,     &r->wl.ioengine,  &r->bins_metric,   &r->series_metric};
    memcpy(f, all, sizeof(all));
}

static int is_utf8(const char *s)
{
    return !s || utf8_invalid(s) < 0;
}

const struct bench_record *record_utf8(struct arena *a, const struct bench_record *r,
                                       const struct source *src, struct diag *d)
{
    const char **f[RECORD_TEXTS];
    int clean = 1;
    struct bench_record fields = *r; /* read only: its pointers are r's */
    text_fields(&fields, f);
    for (size_t i = 0; clean && i < RECORD_TEXTS; i++)
        clean = is_utf8(*f[i]);
    for (size_t i = 0; clean && i < r->n_tags; i++)
        clean = is_utf8(r->tags[i].key) && is_utf8(r->tags[i].value);
    for (size_t i = 0; clean && i < r->n_metrics; i++)
        clean = is_utf8(r->metrics[i].name);
    if (clean)
        return r;
    struct bench_record *c = record_copy(a, r);
    unsigned line = r->line_first ? r->line_first : 1;
    text_fields(c, f);
    for (size_t i = 0; i < RECORD_TEXTS; i++)
        *f[i] = utf8_stored(a, *f[i], text_names[i], NULL, src, line, d);
    for (size_t i = 0; i < c->n_tags; i++) {
        const char *key = c->tags[i].key;
        c->tags[i].key = utf8_stored(a, key, "tag name", NULL, src, line, d);
        c->tags[i].value = utf8_stored(a, c->tags[i].value, "tag", c->tags[i].key, src, line, d);
    }
    for (size_t i = 0; i < c->n_metrics; i++) {
        struct metric *m = &c->metrics[i];
        if (!is_utf8(m->name)) {
            m->name = utf8_stored(a, m->name, "metric name", NULL, src, line, d);
            m->hash = str_hash(m->name);
            c->metric_names_seen |= name_bit(m->hash);
        }
    }
    return c;
}
