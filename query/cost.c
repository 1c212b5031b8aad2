/* cost.c: cost files (cost.h). */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/ini.h"
#include "../core/xalloc.h"
#include "../report/report.h"

/* The keys of a [class]: where each goes and in which unit it is typed. */
static const struct cost_key {
    const char *key;
    size_t offset;
    enum unit unit;
} KEYS[] = {
    {"month", offsetof(struct cost_class, month), UNIT_NONE},
    {"gib_month", offsetof(struct cost_class, gib_month), UNIT_NONE},
    {"capacity", offsetof(struct cost_class, capacity_bytes), UNIT_BYTES},
    {"iops_month", offsetof(struct cost_class, iops_month), UNIT_NONE},
    {"provisioned_iops", offsetof(struct cost_class, provisioned_iops), UNIT_IOPS},
    {"mibs_month", offsetof(struct cost_class, mibs_month), UNIT_NONE},
    {"provisioned_bw", offsetof(struct cost_class, provisioned_bw), UNIT_BYTES_S},
    {"growth", offsetof(struct cost_class, growth_pct), UNIT_PERCENT},
    {"demand_iops", offsetof(struct cost_class, demand_iops), UNIT_IOPS},
};

/* Each price and the quantity it is paid on. */
static const struct {
    const char *price, *quantity;
} PAIRS[] = {
    {"gib_month", "capacity"},
    {"iops_month", "provisioned_iops"},
    {"mibs_month", "provisioned_bw"},
};

struct cost_reader {
    const char *path;
    struct costs *out;
    struct diag *d;
};

/* The file, for diag_error_line's "path:LINE: error: ...". */
static struct source file_of(const struct cost_reader *cr)
{
    return (struct source){cr->path, "", 0};
}

static double *field(struct cost_class *c, const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(KEYS); i++)
        if (!strcmp(KEYS[i].key, key))
            return (double *)((char *)c + KEYS[i].offset);
    return NULL;
}

static void new_class(struct costs *out, const char *name, unsigned line)
{
    ALLOC_GROW(out->v, out->n, out->a);
    struct cost_class *c = &out->v[out->n++];
    c->name = arena_strdup(&out->strings, name);
    c->line = line;
    for (size_t i = 0; i < ARRAY_SIZE(KEYS); i++)
        *field(c, KEYS[i].key) = NAN;
}

static int class_entry(struct cost_reader *cr, const struct ini_entry *e)
{
    struct cost_class *c = &cr->out->v[cr->out->n - 1];
    struct source src = file_of(cr);
    size_t k = 0;
    while (k < ARRAY_SIZE(KEYS) && strcmp(KEYS[k].key, e->key))
        k++;
    if (k == ARRAY_SIZE(KEYS))
        return diag_error_line(cr->d, &src, e->line, "unknown key '%s' in [%s]", e->key, c->name);
    double v;
    if (unit_parse(e->value, KEYS[k].unit, &v) || !isfinite(v))
        return diag_error_line(cr->d, &src, e->line, "expected %s to be a quantity, got '%s'",
                               e->key, e->value);
    *field(c, e->key) = v;
    return 0;
}

static int cost_entry(void *ctx, const struct ini_entry *e)
{
    struct cost_reader *cr = ctx;
    struct source src = file_of(cr);
    if (!e->key) {
        if (costs_find(cr->out, e->section))
            return diag_error_line(cr->d, &src, e->line, "[%s] given twice", e->section);
        new_class(cr->out, e->section, e->line);
        return 0;
    }
    if (e->section)
        return class_entry(cr, e);
    if (strcmp(e->key, "currency"))
        return diag_error_line(cr->d, &src, e->line,
                               "expected currency = NAME or a [class] before '%s'", e->text);
    cr->out->currency = arena_strdup(&cr->out->strings, e->value);
    return 0;
}

/* A price needs what it is paid on, and the other way round. */
static int check_pairs(struct cost_reader *cr, struct cost_class *c)
{
    struct source src = file_of(cr);
    for (size_t i = 0; i < ARRAY_SIZE(PAIRS); i++)
        if (!isnan(*field(c, PAIRS[i].price)) && isnan(*field(c, PAIRS[i].quantity)))
            return diag_error_line(cr->d, &src, c->line, "[%s] gives %s but not %s", c->name,
                                   PAIRS[i].price, PAIRS[i].quantity);
    return 0;
}

int costs_parse(const char *path, const char *text, struct costs *out, struct diag *d)
{
    *out = (struct costs){.currency = "", .strings = ARENA_INIT};
    struct cost_reader cr = {path, out, d};
    if (ini_parse(path, text, strlen(text), cost_entry, &cr, d))
        return -1;
    for (size_t i = 0; i < out->n; i++)
        if (check_pairs(&cr, &out->v[i]))
            return -1;
    return 0;
}

void costs_release(struct costs *c)
{
    free(c->v);
    arena_release(&c->strings);
}

const struct cost_class *costs_find(const struct costs *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].name, name))
            return &c->v[i];
    return NULL;
}

double cost_monthly(const struct cost_class *c)
{
    double sum = c->month;
    const double terms[] = {c->gib_month * c->capacity_bytes / 1073741824.0,
                            c->iops_month * c->provisioned_iops,
                            c->mibs_month * c->provisioned_bw / 1048576.0};
    for (size_t i = 0; i < ARRAY_SIZE(terms); i++)
        if (!isnan(terms[i]))
            sum = isnan(sum) ? terms[i] : sum + terms[i];
    return sum;
}
