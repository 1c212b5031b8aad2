/* gate_waivers.c: the waivers file of benchdb check (gate.h, docs/ci.md "Waivers"). One
 * section a waiver, named by its reference, so that a review names it the way a tracker does:
 *
 *     [PERF-1234]
 *     workload = Random Read 4K buffered
 *     limit = bw:-30%
 *     expires = 2027-01-31
 *     url = https://tracker.example/PERF-1234
 *
 * An expiry is required: a waiver without one would outlive the reason it was granted. */
#include "gate.h"

#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/ini.h"
#include "../core/timerange.h"
#include "../core/xalloc.h"

static const char *const KEYS[] = {"workload", "limit", "expires", "url"};

struct waiver_reader {
    const char *path;
    struct gate_waivers *out;
    struct diag *d;
};

static struct source file_of(const struct waiver_reader *wr)
{
    return (struct source){wr->path, "", 0};
}

static int new_waiver(struct waiver_reader *wr, const struct ini_entry *e)
{
    struct gate_waivers *w = wr->out;
    struct source src = file_of(wr);
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->v[i].ref, e->section))
            return diag_error_line(wr->d, &src, e->line, "[%s] given twice (first on line %u)",
                                   e->section, w->v[i].line);
    ALLOC_GROW(w->v, w->n, w->a);
    w->v[w->n++] =
        (struct gate_waiver){.ref = arena_strdup(&w->strings, e->section), .line = e->line};
    return 0;
}

/* limit = 'bw:-30%': read as --limit reads it, its text kept in the arena. */
static int read_limit(struct waiver_reader *wr, struct gate_waiver *v, const struct ini_entry *e)
{
    struct gate_limits one = {NULL, 0, 0};
    struct buf err = BUF_INIT;
    size_t at;
    const char *text = arena_strdup(&wr->out->strings, e->value);
    int rc = gate_limits_add(&one, text, &err, &at);
    if (rc) {
        struct source src = file_of(wr);
        diag_error_line(wr->d, &src, e->line, "limit '%s' in [%s]: %s", e->value, v->ref, err.data);
    } else
        v->limit = one.v[0];
    gate_limits_release(&one);
    buf_release(&err);
    return rc;
}

static int read_date(struct waiver_reader *wr, struct gate_waiver *v, const struct ini_entry *e)
{
    const char *p = e->value, *why = "expected YYYY-MM-DD";
    if (scan_iso_date(&p, &v->expires_day, &why) && !*p) {
        v->expires = arena_strdup(&wr->out->strings, e->value);
        return 0;
    }
    struct source src = file_of(wr);
    return diag_error_line(wr->d, &src, e->line, "expected expires = YYYY-MM-DD in [%s], got '%s'",
                           v->ref, e->value);
}

/* Whether key was given already: each is given once. */
static int given(const struct gate_waiver *v, const char *key)
{
    return !strcmp(key, "workload")  ? !!v->workload
           : !strcmp(key, "limit")   ? !!v->limit.text
           : !strcmp(key, "expires") ? !!v->expires
                                     : !!v->url;
}

static int waiver_entry(struct waiver_reader *wr, const struct ini_entry *e)
{
    struct gate_waiver *v = &wr->out->v[wr->out->n - 1];
    struct source src = file_of(wr);
    size_t k = 0;
    while (k < ARRAY_SIZE(KEYS) && strcmp(KEYS[k], e->key))
        k++;
    if (k == ARRAY_SIZE(KEYS))
        return diag_error_line(wr->d, &src, e->line,
                               "unknown key '%s' in [%s] (expected workload, limit, expires or "
                               "url)",
                               e->key, v->ref);
    if (given(v, e->key))
        return diag_error_line(wr->d, &src, e->line, "%s given twice in [%s]", e->key, v->ref);
    if (!strcmp(e->key, "limit"))
        return read_limit(wr, v, e);
    if (!strcmp(e->key, "expires"))
        return read_date(wr, v, e);
    const char *value = arena_strdup(&wr->out->strings, e->value);
    if (!strcmp(e->key, "workload"))
        v->workload = value;
    else
        v->url = value;
    return 0;
}

static int entry(void *ctx, const struct ini_entry *e)
{
    struct waiver_reader *wr = ctx;
    if (!e->key)
        return new_waiver(wr, e);
    if (e->section)
        return waiver_entry(wr, e);
    struct source src = file_of(wr);
    return diag_error_line(wr->d, &src, e->line, "expected a [REFERENCE] section before '%s'",
                           e->text);
}

/* A waiver is its workload, its limit and its expiry: the one missing is named. */
static int complete(struct waiver_reader *wr, const struct gate_waiver *v)
{
    const char *missing = !v->workload     ? "workload = NAME"
                          : !v->limit.text ? "limit = SPEC"
                          : !v->expires    ? "expires = YYYY-MM-DD"
                                           : NULL;
    if (!missing)
        return 0;
    struct source src = file_of(wr);
    return diag_error_line(wr->d, &src, v->line, "[%s] has no %s", v->ref, missing);
}

int gate_waivers_read(const char *path, const char *text, struct gate_waivers *out, struct diag *d)
{
    *out = (struct gate_waivers){.strings = ARENA_INIT};
    struct waiver_reader wr = {path, out, d};
    if (ini_parse(path, text, strlen(text), entry, &wr, d))
        return -1;
    for (size_t i = 0; i < out->n; i++)
        if (complete(&wr, &out->v[i]))
            return -1;
    return 0;
}

void gate_waivers_release(struct gate_waivers *w)
{
    free(w->v);
    arena_release(&w->strings);
    memset(w, 0, sizeof(*w));
}
