/* test_record.c: building records: metric names (percentiles: a table for fio's defaults, a
 * formatter for the rest, which must agree), metrics added and replaced by name, and the
 * numbers the warehouse writes into JSON (bins, points, metrics_extra) reading back exactly. */
#include <stdlib.h>
#include <string.h>

#include "../../core/array.h"
#include "../../core/buf.h"
#include "../../core/fmt.h"
#include "../../core/record.h"
#include "harness.h"

static void percentile_names(void)
{
    struct arena a = ARENA_INIT;
    /* fio's default list, from the table */
    STR_EQ(record_percentile_name(&a, "clat", 99.9), "clat_p99_9_ns", "clat 99.9");
    STR_EQ(record_percentile_name(&a, "clat", 1), "clat_p1_ns", "clat 1");
    STR_EQ(record_percentile_name(&a, "lat", 50), "lat_p50_ns", "lat 50");
    STR_EQ(record_percentile_name(&a, "sync_lat", 99.95), "sync_lat_p99_95_ns", "fsync 99.95");
    STR_EQ(record_percentile_name(&a, "slat", 99.99), "slat_p99_99_ns", "slat 99.99");
    /* others, formatted: trailing zeros dropped, the point an underscore */
    STR_EQ(record_percentile_name(&a, "clat", 99.999), "clat_p99_999_ns", "clat 99.999");
    STR_EQ(record_percentile_name(&a, "clat", 12.5), "clat_p12_5_ns", "clat 12.5");
    STR_EQ(record_percentile_name(&a, "clat", 25), "clat_p25_ns", "clat 25");
    STR_EQ(record_percentile_name(&a, "xlat", 99.9), "xlat_p99_9_ns", "a kind not in the table");
    arena_release(&a);
}

/* Many names, so that several share a bit of the seen-names filter: each is still found, and
 * adding one again replaces its value instead of adding a second. */
static void metrics_by_name(void)
{
    struct arena a = ARENA_INIT;
    struct bench_record *r = record_new(&a, "fio");
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "m%d", i);
        record_metric(&a, r, arena_strdup(&a, name), i);
    }
    for (int i = 0; i < 300; i += 7) {
        snprintf(name, sizeof(name), "m%d", i);
        record_metric(&a, r, arena_strdup(&a, name), i + 0.5);
    }
    INT_EQ(r->n_metrics, 300, "replacing a value adds no metric");
    int wrong = 0;
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "m%d", i);
        const double *v = record_get(r, name);
        wrong += !v || *v != (i % 7 ? i : i + 0.5);
    }
    INT_EQ(wrong, 0, "every value found by name");
    OK(!record_get(r, "m300"), "an absent name is absent");
    arena_release(&a);
}

static void exact_numbers(void)
{
    /* integers as digits; others with the digits that read back as the same double */
    const double v[] = {0,     1024,   4096000,           0.1, 1.0 / 3, 1234.5678901234567,
                        1e300, 5e-324, 9007199254740993.0};
    const char *const text[] = {"0",      "1024", "4096000",         "0.1", NULL, NULL,
                                "1e+300", NULL,   "9007199254740992"};
    for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
        struct buf b = BUF_INIT;
        fmt_plain_number(&b, v[i]);
        OK(strtod(b.data, NULL) == v[i], b.data);
        if (text[i])
            STR_EQ(b.data, text[i], "as written");
        buf_release(&b);
    }
}

int main(void)
{
    percentile_names();
    metrics_by_name();
    exact_numbers();
    return TEST_DONE();
}
