/* gate.c: the comparison table as a CI gate. It reads the report model only: every verdict,
 * interval and spread is the comparison's own (compare.c), so a gate and a report never
 * disagree; what it adds is the limit each metric is held to and the three outcomes. */
#include "gate.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/distance.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "stats.h"

/* The test an inconclusive metric's run count is for: the level of the comparison's verdicts
 * and the usual 80 % power (Cohen), as benchstat and statsmodels' examples take. */
static const double ALPHA = 0.05;
static const double POWER = 0.8;

/* ---- limits ---- */

static int fail(struct buf *err, size_t *at, size_t offset, const char *msg)
{
    buf_adds(err, msg);
    *at = offset;
    return -1;
}

/* "unknown metric 'bx' (did you mean 'bw'?)", else the short names to choose from. */
static int unknown_metric(const char *name, struct buf *err, size_t *at)
{
    const char *names[64];
    size_t n = 0;
    while (n < 64 && (names[n] = compare_metric_name(n)))
        n++;
    const char *near = str_nearest(name, names, n, 2);
    buf_addf(err, "unknown metric '%s' ", name);
    if (near)
        buf_addf(err, "(did you mean '%s'?)", near);
    else
        buf_adds(err, "(expected bw, iops, lat, p99, fsync, fsync_p99 or a stored name such as "
                      "clat_p99_ns)");
    *at = 0;
    return -1;
}

/* 'bw:-5%': how much worse than the baseline, in the metric's own direction. A sign is
 * optional, and must name that direction when given: 'bw:+5%' would read as a floor above
 * the baseline. */
static int parse_relative(const char *text, const char *p, struct gate_limit *out, struct buf *err,
                          size_t *at)
{
    const struct compare_metric *m = &out->metric;
    int worse = m->higher_is_better ? '-' : '+';
    const char *start = p;
    int sign = *p == '+' || *p == '-' ? *p++ : 0;
    if (sign && sign != worse) {
        buf_addf(err, "a limit on %s is how much %s it may get: expected '%s:%c%s'", m->name,
                 m->higher_is_better ? "lower" : "higher", m->name, worse, p);
        *at = (size_t)(start - text);
        return -1;
    }
    double pct;
    const char *num = p;
    if (!scan_number(&p, &pct) || pct < 0 || *num == '+' || *num == '-')
        return fail(err, at, (size_t)(num - text), "expected a percentage such as 5%");
    if (*p != '%')
        return fail(err, at, (size_t)(p - text), "expected '%' after the percentage");
    if (p[1])
        return fail(err, at, (size_t)(p + 1 - text), "unexpected text after the limit");
    if (m->higher_is_better && pct >= 100)
        return fail(err, at, (size_t)(num - text), "a drop of 100 % or more limits nothing");
    out->kind = LIMIT_RELATIVE;
    out->value = m->higher_is_better ? 1 - pct / 100 : 1 / (1 + pct / 100);
    return 0;
}

/* The multiplier to the metric's base unit of the unit written after a number (at *p), which
 * the metric needs explicitly: ns/us/ms/s for a latency, B/s ... GiB/s for a bandwidth;
 * nothing or k/M/G for IOPS. 0 when it is not one, else *p is past it. */
static double scan_unit(const char **p, enum unit u)
{
    const char *q = *p;
    while (isalpha((unsigned char)*q))
        q++;
    size_t n = (size_t)(q - *p);
    double mult = 0;
    if (u == UNIT_NS && n)
        mult = unit_time_ns(*p, n);
    else if (u == UNIT_BYTES_S && n && strncmp(q, "/s", 2) == 0) {
        mult = unit_bytes(*p, n, 0);
        q += 2;
    } else if (u == UNIT_IOPS && n <= 1)
        mult = !n ? 1 : strchr("kKmMgG", **p) ? unit_count_suffix(**p) : 0;
    if (mult > 0)
        *p = q;
    return mult;
}

static const char *unit_hint(enum unit u)
{
    return u == UNIT_NS        ? "a time with its unit: ns, us, ms or s ('5ms')"
           : u == UNIT_BYTES_S ? "a rate with its unit: B/s, KiB/s, MiB/s, GiB/s, kB/s, MB/s or "
                                 "GB/s ('100MiB/s')"
                               : "a number of I/Os per second, with k for thousands ('3k')";
}

/* 'p99<=5ms', 'bw>=100MiB/s': a bound on the mean, on the side worse values lie. */
static int parse_absolute(const char *text, const char *p, struct gate_limit *out, struct buf *err,
                          size_t *at)
{
    const struct compare_metric *m = &out->metric;
    int floor = *p == '>';
    if (floor != m->higher_is_better) {
        buf_addf(err, "%s is better %s: its limit is %s, '%s%s...'", m->name,
                 floor ? "lower" : "higher", floor ? "a ceiling" : "a floor", m->name,
                 floor ? "<=" : ">=");
        *at = (size_t)(p - text);
        return -1;
    }
    p += 2;
    const char *num = p;
    double v;
    if (!scan_number(&p, &v) || v < 0 || *num == '+' || *num == '-') {
        buf_addf(err, "expected %s", unit_hint(m->unit));
        *at = (size_t)(num - text);
        return -1;
    }
    const char *unit = p;
    double mult = scan_unit(&p, m->unit);
    if (!mult || *p) {
        buf_addf(err, "expected %s", unit_hint(m->unit));
        *at = (size_t)(mult ? p - text : unit - text);
        return -1;
    }
    out->kind = floor ? LIMIT_AT_LEAST : LIMIT_AT_MOST;
    out->value = v * mult;
    return 0;
}

static int parse_limit(const char *text, struct gate_limit *out, struct buf *err, size_t *at)
{
    const char *p = text;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    memset(out, 0, sizeof(*out));
    out->text = text;
    out->text_len = (int)strlen(text);
    if (p == text)
        return fail(err, at, 0, "expected a metric name (bw, iops, lat, p99, fsync, fsync_p99)");
    char name[64];
    size_t n = (size_t)(p - text) < sizeof(name) ? (size_t)(p - text) : sizeof(name) - 1;
    memcpy(name, text, n);
    name[n] = 0;
    if (compare_metric_find(name, &out->metric))
        return unknown_metric(name, err, at);
    if (*p == ':')
        return parse_relative(text, p + 1, out, err, at);
    if ((*p == '<' || *p == '>') && p[1] == '=')
        return parse_absolute(text, p, out, err, at);
    buf_addf(err, "expected ':PCT%%', '<=VALUE' or '>=VALUE' after '%s'", name);
    *at = (size_t)(p - text);
    return -1;
}

int gate_limits_add(struct gate_limits *out, const char *text, struct buf *err, size_t *at)
{
    struct gate_limit l;
    if (parse_limit(text, &l, err, at))
        return -1;
    ALLOC_GROW(out->v, out->n, out->a);
    out->v[out->n++] = l;
    return 0;
}

/* One line of a limits file, its comment and surrounding blanks cut: 0 when it holds none. */
static size_t trim_line(const char **line, size_t len)
{
    const char *hash = memchr(*line, '#', len);
    if (hash)
        len = (size_t)(hash - *line);
    while (len && isspace((unsigned char)**line)) {
        (*line)++;
        len--;
    }
    while (len && isspace((unsigned char)(*line)[len - 1]))
        len--;
    return len;
}

unsigned gate_limits_read(const struct source *src, struct gate_limits *out, struct diag *d)
{
    struct line_iter it;
    const char *line;
    size_t len;
    unsigned errors = 0;
    struct buf copy = BUF_INIT, err = BUF_INIT;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        if (!(len = trim_line(&line, len)))
            continue;
        buf_reset(&copy);
        buf_add(&copy, line, len); /* parsed NUL-terminated; kept pointing into the file */
        buf_reset(&err);
        size_t at = 0;
        if (gate_limits_add(out, copy.data, &err, &at)) {
            diag_error_at(d, src, (size_t)(line - src->data) + at, "%s", err.data);
            errors++;
        } else
            out->v[out->n - 1].text = line;
    }
    buf_release(&copy);
    buf_release(&err);
    return errors;
}

void gate_limits_release(struct gate_limits *l)
{
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* ---- judging ---- */

const struct table *gate_comparison_table(const struct report *r)
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct table *t = r->sections[i].table;
        if (t && !strcmp(t->name, "comparison"))
            return t;
    }
    return NULL;
}

/* Whether limit l is about the table's metric label: its own row, or IOPS on the bandwidth row
 * that carries it. */
static int names_row(const struct gate_limit *l, const char *label)
{
    return !strcmp(l->metric.label, label) ||
           (l->metric.rides_on && !strcmp(l->metric.rides_on, label));
}

/* The strictest relative limit on the row's metric, else the default: the highest floor. */
static double relative_floor(const struct gate_config *c, const char *label,
                             const struct gate_limit **limit)
{
    double floor = 1 / (1 + c->threshold_pct / 100);
    *limit = NULL;
    for (size_t i = 0; i < c->nlimits; i++) {
        const struct gate_limit *l = &c->limits[i];
        if (l->kind == LIMIT_RELATIVE && names_row(l, label) && (!*limit || l->value > floor)) {
            floor = l->value;
            *limit = l;
        }
    }
    return floor;
}

struct row_ref {
    const struct table *t;
    const struct cell *cells;
    const char *workload, *metric;
};

static struct gate_row *add(struct gate *g, const struct row_ref *r, const char *versus,
                            const struct cell *cell, enum gate_outcome outcome)
{
    ALLOC_GROW(g->v, g->n, g->a);
    struct gate_row *row = &g->v[g->n++];
    *row = (struct gate_row){.workload = r->workload,
                             .metric = r->metric,
                             .versus = versus,
                             .cell = cell,
                             .value = NAN,
                             .outcome = outcome};
    g->count[outcome]++;
    return row;
}

/* The factor in column col against its relative floor. Its baseline is the table's first side
 * column, its candidate the column before it. */
static void judge_factor(struct gate *g, const struct gate_config *c, const struct row_ref *r,
                         size_t col, size_t base)
{
    const struct cell *f = &r->cells[col];
    if (f->kind != CELL_NUMBER || !isfinite(f->value))
        return; /* a side without this metric: nothing compared */
    const struct gate_limit *limit;
    double floor = relative_floor(c, r->metric, &limit);
    enum gate_outcome o = compare_significant(f) && f->value < floor ? GATE_FAIL
                          : isfinite(f->lo) && f->lo >= floor        ? GATE_PASS
                                                                     : GATE_INCONCLUSIVE;
    struct gate_row *row = add(g, r, r->t->cols[col].name, f, o);
    row->base = &r->cells[base];
    row->cand = &r->cells[col - 1];
    row->limit = limit;
    row->bound = floor;
    /* the change to detect is the floor's, on the log scale the interval is on */
    if (o == GATE_INCONCLUSIVE)
        row->runs = stats_ttest_runs(-log(floor) / f->sd_log, ALPHA, POWER);
}

/* A side's mean against each absolute limit on the row's metric. */
static void judge_side(struct gate *g, const struct gate_config *c, const struct row_ref *r,
                       size_t col)
{
    const struct cell *v = &r->cells[col];
    if (v->kind != CELL_NUMBER)
        return;
    for (size_t i = 0; i < c->nlimits; i++) {
        const struct gate_limit *l = &c->limits[i];
        if (l->kind == LIMIT_RELATIVE || !names_row(l, r->metric))
            continue;
        /* a network's bandwidth is shown in bit/s; limits are in bytes/s */
        double x = strcmp(l->metric.label, r->metric) ? v->alt
                   : v->unit == UNIT_BITS_S           ? v->value / 8
                                                      : v->value;
        if (!isfinite(x))
            continue;
        int ok = l->kind == LIMIT_AT_MOST ? x <= l->value : x >= l->value;
        struct gate_row *row = add(g, r, r->t->cols[col].name, v, ok ? GATE_PASS : GATE_FAIL);
        row->limit = l;
        row->bound = l->value;
        row->value = x;
    }
}

/* The waiver that speaks for a regression row: its workload, its metric, and a limit of its
 * kind (a factor's is relative; a mean's is absolute, on the limit's own metric, since an IOPS
 * mean is not the bandwidth row's value). */
static const struct gate_waiver *waiver_of(const struct gate_waivers *w, const struct gate_row *row)
{
    int absolute = row->limit && row->limit->kind != LIMIT_RELATIVE;
    for (size_t i = 0; w && i < w->n; i++) {
        const struct gate_limit *l = &w->v[i].limit;
        if (strcmp(w->v[i].workload, row->workload) || (l->kind != LIMIT_RELATIVE) != absolute)
            continue;
        if (absolute ? !strcmp(l->metric.label, row->limit->metric.label)
                     : names_row(l, row->metric))
            return &w->v[i];
    }
    return NULL;
}

/* A waiver names how far the row may regress: the factor itself (not its interval, which
 * the review saw too) at or above its floor, or the mean within its absolute limit. */
static int within_waiver(const struct gate_row *row, const struct gate_limit *l)
{
    if (l->kind == LIMIT_RELATIVE)
        return row->cell->value >= l->value;
    return l->kind == LIMIT_AT_MOST ? row->value <= l->value : row->value >= l->value;
}

/* A regression with a waiver in force passes, counted as waived; an expired or exceeded one
 * leaves it a regression that names the waiver. */
static void apply_waiver(struct gate *g, struct gate_row *row, const struct gate_config *c)
{
    if (row->outcome != GATE_FAIL || !(row->waiver = waiver_of(c->waivers, row)))
        return;
    row->expired = c->today > row->waiver->expires_day;
    if (row->expired || !within_waiver(row, &row->waiver->limit))
        return;
    row->waived = 1;
    row->outcome = GATE_PASS;
    g->count[GATE_FAIL]--;
    g->count[GATE_PASS]++;
    g->waived++;
}

void gate_evaluate(const struct report *r, const struct gate_config *c, struct gate *g)
{
    memset(g, 0, sizeof(*g));
    const struct table *t = gate_comparison_table(r);
    if (!t)
        return;
    size_t key = table_find_role(t, ROLE_KEY), metric = table_find_role(t, ROLE_METRIC);
    size_t base = table_find_role(t, ROLE_SIDE);
    int compared = table_find_role(t, ROLE_FACTOR) < t->ncols;
    for (size_t i = 0; i < t->nrows; i++) {
        const struct cell *cells = t->rows[i];
        struct row_ref ref = {t, cells, key < t->ncols ? cells[key].text : "",
                              metric < t->ncols ? cells[metric].text : ""};
        for (size_t col = 0; col < t->ncols; col++) {
            if (t->cols[col].role == ROLE_FACTOR)
                judge_factor(g, c, &ref, col, base);
            else if (t->cols[col].role == ROLE_SIDE && !(compared && col == base))
                judge_side(g, c, &ref, col); /* the baseline is no candidate */
        }
    }
    for (size_t i = 0; i < g->n; i++)
        apply_waiver(g, &g->v[i], c);
}

void gate_release(struct gate *g)
{
    free(g->v);
    memset(g, 0, sizeof(*g));
}
