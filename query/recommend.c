/* recommend.c: storage-tier recommendations per workload class, from user-editable rules
 * (templates/tiers.rules documents the format). Deterministic: ties go to the side named first. */
#include "insights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/xalloc.h"
#include "results.h"

struct rule {
    const char *name, *title, *metric;
    const char *rw[8];
    size_t nrw;
    int64_t bs_min, bs_max;
    int sync, direct;  /* -1: any */
    double threshold;  /* base unit of the metric */
    int higher_better; /* bandwidth, IOPS; latencies (…_ns) are lower-better */
    int pick_all;
    unsigned line;
};

struct rules {
    struct rule *v;
    size_t n, a;
};

static const struct {
    const char *name;
    enum result_metric m;
    enum unit unit;
} metric_map[] = {
    {"bw_bytes_s", RM_BW, UNIT_BYTES_S},    {"iops", RM_IOPS, UNIT_IOPS},
    {"clat_mean_ns", RM_LAT_MEAN, UNIT_NS}, {"lat_mean_ns", RM_LAT_MEAN, UNIT_NS},
    {"clat_p99_ns", RM_P99, UNIT_NS},       {"clat_p50_ns", RM_P50, UNIT_NS},
};

static int metric_index(const char *name)
{
    for (size_t i = 0; i < sizeof(metric_map) / sizeof(metric_map[0]); i++)
        if (!strcmp(metric_map[i].name, name))
            return (int)i;
    return -1;
}

/* "200MiB/s", "5k", "2ms", "1048576" in the metric's base unit. */
static int parse_threshold(const char *s, const char *metric, double *out)
{
    const char *p = s;
    double v;
    if (!scan_number(&p, &v) || v < 0)
        return -1;
    size_t n = strlen(p);
    if (n >= 2 && !strcmp(p + n - 2, "/s"))
        n -= 2;
    double mult = n == 0                              ? 1
                  : strstr(metric, "_ns")             ? unit_time_ns(p, n)
                  : !strcmp(metric, "iops") && n == 1 ? unit_count_suffix(p[0])
                                                      : unit_bytes(p, n, 0);
    if (mult == 0 || (n == 1 && mult == 1 && p[0] != 'B'))
        return -1;
    *out = v * mult;
    return 0;
}

static int bad(struct diag *d, const char *path, unsigned line, const char *what, const char *v)
{
    struct source src = {path, "", 0};
    return diag_error_line(d, &src, line, "%s '%s'", what, v);
}

static int set_key(struct rule *r, struct arena *a, const char *key, const char *val,
                   const char *path, unsigned line, struct diag *d)
{
    if (!strcmp(key, "title"))
        r->title = arena_strdup(a, val);
    else if (!strcmp(key, "metric")) {
        if (metric_index(val) < 0)
            return bad(d, path, line, "unknown metric", val);
        r->metric = arena_strdup(a, val);
        r->higher_better = !strstr(val, "_ns");
    } else if (!strcmp(key, "rw")) {
        for (const char *p = skip_ws(val); *p && r->nrw < sizeof(r->rw) / sizeof(r->rw[0]);) {
            size_t n = strcspn(p, " \t");
            r->rw[r->nrw++] = arena_strndup(a, p, n);
            p = skip_ws(p + n);
        }
    } else if (!strcmp(key, "bs_min") || !strcmp(key, "bs_max")) {
        int64_t b;
        if (!parse_fio_size(val, &b))
            return bad(d, path, line, "expected a block size such as 4k or 1M, got", val);
        *(key[3] == 'm' && key[4] == 'i' ? &r->bs_min : &r->bs_max) = b;
    } else if (!strcmp(key, "sync") || !strcmp(key, "direct")) {
        if (strcmp(val, "0") && strcmp(val, "1"))
            return bad(d, path, line, "expected 0 or 1, got", val);
        *(key[0] == 's' ? &r->sync : &r->direct) = val[0] - '0';
    } else if (!strcmp(key, "threshold")) {
        if (!r->metric)
            return bad(d, path, line, "'metric' must come before", key);
        if (parse_threshold(val, r->metric, &r->threshold))
            return bad(d, path, line, "cannot read threshold", val);
    } else if (!strcmp(key, "pick")) {
        if (strcmp(val, "best") && strcmp(val, "all"))
            return bad(d, path, line, "expected pick = best or all, got", val);
        r->pick_all = !strcmp(val, "all");
    } else {
        return bad(d, path, line, "unknown key", key);
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static int parse_rules(const char *path, const char *text, struct arena *a, struct rules *out,
                       struct diag *d)
{
    struct line_iter it;
    const char *l;
    size_t n;
    line_iter_init(&it, text, strlen(text), 0);
    while (line_iter_next(&it, &l, &n)) {
        char *line = trim(arena_strndup(a, l, n));
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line = trim(line);
        if (!*line)
            continue;
        if (line[0] == '[') {
            char *end = strchr(line, ']');
            if (!end || end == line + 1)
                return bad(d, path, it.lineno, "expected [class-name], got", line);
            *end = '\0';
            ALLOC_GROW(out->v, out->n, out->a);
            out->v[out->n++] = (struct rule){.name = line + 1,
                                             .title = line + 1,
                                             .bs_min = -1,
                                             .bs_max = -1,
                                             .sync = -1,
                                             .direct = -1,
                                             .line = it.lineno};
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq)
            return bad(d, path, it.lineno, "expected key = value, got", line);
        if (!out->n)
            return bad(d, path, it.lineno, "expected a [class] before", line);
        *eq = '\0';
        if (set_key(&out->v[out->n - 1], a, trim(line), trim(eq + 1), path, it.lineno, d))
            return -1;
    }
    for (size_t i = 0; i < out->n; i++)
        if (!out->v[i].metric || out->v[i].threshold <= 0)
            return bad(d, path, out->v[i].line,
                       "class needs 'metric' and 'threshold':", out->v[i].name);
    return 0;
}

static int matches(const struct rule *ru, const struct side_result *r)
{
    int rw_ok = ru->nrw == 0;
    for (size_t i = 0; i < ru->nrw; i++)
        rw_ok |= !strcmp(ru->rw[i], r->rw);
    return rw_ok && result_usable(r) && (ru->bs_min < 0 || r->bs >= ru->bs_min) &&
           (ru->bs_max < 0 || (r->bs > 0 && r->bs <= ru->bs_max)) &&
           (ru->sync < 0 || result_is_sync(r) == ru->sync) &&
           (ru->direct < 0 || r->direct == ru->direct);
}

/* The class's value per side: mean of the matching results (all matching workloads pooled). */
static void side_values(const struct rule *ru, const struct side_result *res, size_t n,
                        size_t nsides, double *mean, size_t *count)
{
    enum result_metric m = metric_map[metric_index(ru->metric)].m;
    for (size_t s = 0; s < nsides; s++)
        mean[s] = 0, count[s] = 0;
    for (size_t i = 0; i < n; i++) {
        if (!matches(ru, &res[i]) || isnan(res[i].m[m]))
            continue;
        mean[res[i].side] += res[i].m[m];
        count[res[i].side]++;
    }
    for (size_t s = 0; s < nsides; s++)
        mean[s] = count[s] ? mean[s] / (double)count[s] : NAN;
}

static int meets(const struct rule *ru, double v)
{
    return ru->higher_better ? v >= ru->threshold : v <= ru->threshold;
}

static void recommend_class(struct report *r, struct table *t, const struct rule *ru,
                            const struct compare_opts *o, const struct side_result *res, size_t n)
{
    double *mean = xcalloc(o->nvalues, sizeof(double));
    size_t *count = xcalloc(o->nvalues, sizeof(size_t));
    side_values(ru, res, n, o->nvalues, mean, count);
    enum unit u = metric_map[metric_index(ru->metric)].unit;
    struct buf pick = BUF_INIT, why = BUF_INIT, tmp = BUF_INIT;
    size_t best = o->nvalues;
    for (size_t s = 0; s < o->nvalues; s++) {
        buf_reset(&tmp);
        if (!count[s]) {
            buf_addf(&why, "%sno %s results for %s", why.len ? "; " : "", ru->name, o->values[s]);
            continue;
        }
        unit_format(&tmp, mean[s], u);
        buf_addf(&why, "%s%s: %s %s (%zu result%s)", why.len ? "; " : "", o->values[s], ru->metric,
                 tmp.data, count[s], count[s] == 1 ? "" : "s");
        if (!meets(ru, mean[s]))
            continue;
        if (ru->pick_all)
            buf_addf(&pick, "%s%s", pick.len ? ", " : "", o->values[s]);
        else if (best == o->nvalues ||
                 (ru->higher_better ? mean[s] > mean[best] : mean[s] < mean[best]))
            best = s;
    }
    if (!ru->pick_all && best < o->nvalues)
        buf_adds(&pick, o->values[best]);
    buf_reset(&tmp);
    unit_format(&tmp, ru->threshold, u);
    struct cell *row = table_add_row(r, t);
    cell_set_text(&row[0], ru->title);
    cell_set_text(&row[1],
                  pick.len ? arena_strdup(&r->arena, pick.data) : "none meets the threshold");
    cell_set_text(&row[2], arena_printf(&r->arena, "%s %s %s", ru->metric,
                                        ru->higher_better ? ">=" : "<=", tmp.data));
    cell_set_text(&row[3], arena_strdup(&r->arena, why.data));
    buf_release(&pick);
    buf_release(&why);
    buf_release(&tmp);
    free(mean);
    free(count);
}

int query_recommend(const struct compare_opts *o, const struct side_results *res,
                    const char *rules_path, const char *rules, struct report *r, struct diag *d)
{
    static const struct column cols[] = {{"Workload class", UNIT_NONE},
                                         {"Recommended", UNIT_NONE},
                                         {"Rule", UNIT_NONE},
                                         {"Evidence", UNIT_NONE}};
    struct rules ru = {NULL, 0, 0};
    int rc = parse_rules(rules_path, rules, &r->arena, &ru, d);
    if (rc == 0) {
        struct buf prose = BUF_INIT;
        buf_adds(&prose, "Per workload class, the storage that meets the rule's threshold with "
                         "the best measured value (rules: ");
        report_md_escape(&prose, rules_path);
        buf_adds(&prose, "). Missing data is named, never guessed.");
        struct section *s = report_section(r, "Recommendations", prose.data);
        buf_release(&prose);
        struct table *t = report_table(r, s, "recommendations", cols, 4);
        for (size_t i = 0; i < ru.n; i++)
            recommend_class(r, t, &ru.v[i], o, res->v, res->n);
    }
    free(ru.v);
    return rc;
}
