/* cost.h: what each storage class costs and was provisioned with, read from a cost file
 * (report --cost FILE; its format: templates/costs.example, docs/methods.md "Cost and
 * headroom"), for the capacity section's price per IOPS and headroom. Private to query/. */
#ifndef BDB_QUERY_COST_H
#define BDB_QUERY_COST_H

#include <stddef.h>

#include "../core/arena.h"
#include "../core/diag.h"

/* One [class] of a cost file. Every number is NAN when not given (never 0: unknown is not
 * free). */
struct cost_class {
    const char *name; /* the compared value it prices: a storage class, a host ... */
    double month;     /* a flat price per month (an instance, a volume) */
    double gib_month, capacity_bytes;    /* price per GiB-month, and the capacity it is paid on */
    double iops_month, provisioned_iops; /* price per provisioned IOPS-month, and those IOPS */
    double mibs_month, provisioned_bw;   /* price per provisioned MiB/s-month; bytes/s */
    double growth_pct;                   /* yearly growth of demand, percent */
    double demand_iops;                  /* the IOPS the workload needs today */
    unsigned line;
};

struct costs {
    const char *currency; /* "USD"; "" when the file names none */
    struct cost_class *v;
    size_t n, a;
    struct arena strings;
};

/* Reads text (the file at path): 0, or -1 after "path:LINE: error: ..." (an unknown key, a
 * value that is not a quantity in its unit, a price without the quantity it is paid on). */
int costs_parse(const char *path, const char *text, struct costs *out, struct diag *d);
void costs_release(struct costs *c);
/* The [name] class, or NULL. */
const struct cost_class *costs_find(const struct costs *c, const char *name);
/* Its price per month: the flat price and each price times its quantity; NAN when the class
 * prices nothing. */
double cost_monthly(const struct cost_class *c);

#endif
