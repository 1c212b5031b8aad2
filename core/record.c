#include "record.h"

#include <stdio.h>
#include <string.h>

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

void record_metric(struct arena *a, struct bench_record *r, const char *name, double value)
{
    for (size_t i = 0; i < r->n_metrics; i++) {
        if (!strcmp(r->metrics[i].name, name)) {
            r->metrics[i].value = value;
            return;
        }
    }
    r->metrics = arena_grow(a, r->metrics, r->n_metrics, &r->a_metrics, sizeof(*r->metrics));
    r->metrics[r->n_metrics++] = (struct metric){name, value};
}

const double *record_get(const struct bench_record *r, const char *name)
{
    for (size_t i = 0; i < r->n_metrics; i++)
        if (!strcmp(r->metrics[i].name, name))
            return &r->metrics[i].value;
    return NULL;
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

const char *record_percentile_name(struct arena *a, const char *kind, double pct)
{
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
