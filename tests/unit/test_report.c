/* test_report.c: the report model's structure: the page walk every renderer shares, the one
 * rule for a value's spread and run count, and charts found by column roles rather than by a
 * table's name or column positions. Expected texts are worked out by hand beside them. */
#include <math.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../report/chart.h"
#include "../../report/report.h"
#include "harness.h"

/* Records the walk as one line per node: "T title", "F key=value", "E", "S heading", ... */
static void on_title(void *ctx, const char *title)
{
    buf_addf(ctx, "T %s\n", title);
}

static void on_fact(void *ctx, const char *key, const char *value)
{
    buf_addf(ctx, "F %s=%s\n", key, value);
}

static void on_facts_end(void *ctx)
{
    buf_adds(ctx, "E\n");
}

static void on_section(void *ctx, const struct section *s)
{
    buf_addf(ctx, "S %s\n", s->heading);
}

static void on_table(void *ctx, const struct table *t)
{
    buf_addf(ctx, "t %s\n", t->name);
}

static void on_section_end(void *ctx, const struct section *s)
{
    buf_addf(ctx, "/S %s\n", s->heading);
}

static void on_figure(void *ctx, const struct figure *f)
{
    buf_addf(ctx, "f %s %s\n", figure_kind_name(f->kind), f->title);
}

static void walk_order(void)
{
    static const struct column cols[] = {{"a", UNIT_NONE, ROLE_PLAIN}};
    struct report r;
    report_init(&r, "Title");
    report_fact(&r, "Compared by", "host");
    r.generated = "2026-01-01 00:00 UTC";
    struct section *one = report_section(&r, "One", "prose");
    section_figure(&r, one, FIGURE_PERCENTILES, "p");
    report_table(&r, one, "first", cols, 1);
    section_figure(&r, report_section(&r, "Runs", NULL), FIGURE_BARS, "hidden")->note = "x";
    r.sections[1].appendix = 1;
    report_section(&r, "Two", NULL);
    static const struct report_walker all = {on_title, on_fact,        on_facts_end, on_section,
                                             on_table, on_section_end, on_figure};
    struct buf out = BUF_INIT;
    report_walk(&r, &all, &out);
    STR_EQ(out.data,
           "T Title\nF Compared by=host\nF Generated=2026-01-01 00:00 UTC\nE\n"
           "S One\nt first\nf percentiles p\n/S One\nS Two\n/S Two\n",
           "title, facts, Generated last, then the page's sections, each table before its "
           "figures; the appendix is skipped");
    buf_reset(&out);
    static const struct report_walker sections_only = {.section = on_section};
    report_walk(&r, &sections_only, &out);
    STR_EQ(out.data, "S One\nS Two\n", "callbacks left NULL are skipped");
    buf_release(&out);
    report_release(&r);
}

static struct cell number(double v, double sd, int n, double alt)
{
    struct cell c = {.kind = CELL_NUMBER, .value = v, .sd = sd, .n = n, .alt = alt};
    return c;
}

static void spread_rule(void)
{
    struct buf out = BUF_INIT;
    /* 3 runs, mean 2 MiB/s = 2097152 bytes/s, sd 0.5 MiB/s = 524288: "2.00 MiB/s ± 512 KiB/s" */
    struct cell c = number(2097152, 524288, 3, NAN);
    value_format(&out, &c, UNIT_BYTES_S, &VALUE_MARKS_TEXT);
    STR_EQ(out.data, "2.00 MiB/s \xc2\xb1 512 KiB/s (n=3)", "averaged runs: ± sd and n");
    OK(cell_averaged(&c) && cell_has_spread(&c), "3 runs with an sd are averaged with a spread");
    buf_reset(&out);
    /* a single run: the value alone, even with an sd (n=1 has none worth showing) */
    c = number(1500, 10, 1, NAN);
    value_format(&out, &c, UNIT_NS, &VALUE_MARKS_TEXT);
    STR_EQ(out.data, "1.50 \xc2\xb5s", "a single run: the value alone");
    OK(!cell_averaged(&c) && !cell_has_spread(&c), "one run is neither averaged nor spread");
    buf_reset(&out);
    /* 2 runs of unknown sd: n shown, no ± */
    c = number(1500, NAN, 2, NAN);
    value_format(&out, &c, UNIT_NS, &VALUE_MARKS_TEXT);
    STR_EQ(out.data, "1.50 \xc2\xb5s (n=2)", "an unknown sd: the count alone");
    buf_reset(&out);
    /* 4096 bytes/s with 1 IOPS beside it: "4.00 KiB/s; 1 IOPS"; marks without alt leave it out */
    c = number(4096, NAN, 1, 1);
    value_format(&out, &c, UNIT_BYTES_S, &VALUE_MARKS_TEXT);
    STR_EQ(out.data, "4.00 KiB/s; 1 IOPS", "the second view after the value");
    buf_reset(&out);
    /* 3 runs of one value (a p99 fio put in one latency bin each time): no spread, in no unit */
    c = number(94.9e6, 0, 3, NAN);
    value_format(&out, &c, UNIT_NS, &VALUE_MARKS_TEXT);
    STR_EQ(out.data, "94.9 ms \xc2\xb1 0 (n=3)",
           "repeats of one value: \"± 0\", not \"± 0.00 ns\"");
    buf_reset(&out);
    static const struct value_marks no_alt = {"<", ">", "[", "]", NULL, NULL};
    c = number(4096, 1024, 2, 1);
    value_format(&out, &c, UNIT_BYTES_S, &no_alt);
    STR_EQ(out.data, "4.00 KiB/s<1.00 KiB/s>[2]", "a page's own marks; no alt_open: no alt");
    buf_release(&out);
}

/* A table in compare.c's shape but with its columns in another order and another name: the
 * charts follow the roles. */
static void charts_by_role(void)
{
    static const struct column cols[] = {
        {"B side", UNIT_NONE, ROLE_SIDE},    {"Metric", UNIT_NONE, ROLE_METRIC},
        {"B vs A", UNIT_RATIO, ROLE_FACTOR}, {"Workload", UNIT_NONE, ROLE_KEY},
        {"A side", UNIT_NONE, ROLE_SIDE},
    };
    struct report r;
    report_init(&r, "x");
    struct table *t = report_table(&r, report_section(&r, "s", NULL), "anything", cols, 5);
    const char *metrics[] = {"IOPS", "Latency", "IOPS"};
    for (size_t i = 0; i < 3; i++) {
        struct cell *row = table_add_row(&r, t);
        cell_set_number(&row[0], 1);
        row[0].unit = i == 1 ? UNIT_NS : UNIT_IOPS;
        cell_set_text(&row[1], metrics[i]);
        cell_set_text(&row[3], "w");
        cell_set_number(&row[4], 2);
    }
    struct chart_set cs;
    chart_set_init(&cs, t);
    INT_EQ(cs.nsides, 2, "two side columns");
    INT_EQ(cs.nsides == 2 ? cs.sides[0] * 10 + cs.sides[1] : 0, 4, "sides are columns 0 and 4");
    INT_EQ(cs.key, 3, "the workload column names the bar groups");
    INT_EQ(cs.n, 2, "one chart per metric: IOPS, Latency");
    OK(cs.n == 2 && !strcmp(cs.v[0].metric, "IOPS") && cs.v[0].nrows == 2 &&
           cs.v[0].unit == UNIT_IOPS && cs.v[1].unit == UNIT_NS,
       "IOPS has rows 0 and 2 in IOPS; Latency is in ns");
    chart_set_release(&cs);
    static const struct column plain[] = {{"Workload", UNIT_NONE, ROLE_PLAIN},
                                          {"Metric", UNIT_NONE, ROLE_PLAIN},
                                          {"A", UNIT_NONE, ROLE_PLAIN}};
    t = report_table(&r, report_section(&r, "c", NULL), "comparison", plain, 3);
    cell_set_text(&table_add_row(&r, t)[1], "IOPS");
    chart_set_init(&cs, t);
    INT_EQ(cs.n, 0, "a table named comparison without roles has no chart");
    chart_set_release(&cs);
    INT_EQ(table_find_role(t, ROLE_SIDE), 3, "no side column: ncols");
    report_release(&r);
}

/* A streamed table in each text format; expected texts written by hand from RFC 4180 / JSON. */
static void table_text(void)
{
    static const struct column cols[] = {{"id", UNIT_NONE, ROLE_FIELD},
                                         {"name", UNIT_NONE, ROLE_FIELD}};
    static const char *const want[] = {
        /* every cell padded to its column's width, the last one too */
        [TABLE_TEXT] = "id                   name \n9223372036854775807  a,\"b\"\n"
                       "1.5                       \n",
        [TABLE_CSV] = "id,name\r\n9223372036854775807,\"a,\"\"b\"\"\"\r\n1.5,\r\n",
        [TABLE_JSON] = "[\n  {\"id\": 9223372036854775807, \"name\": \"a,\\\"b\\\"\"},\n"
                       "  {\"id\": 1.5, \"name\": null}\n]\n",
        [TABLE_MD] = "| id                  | name  |\n| ------------------- | ----- |\n"
                     "| 9223372036854775807 | a,\"b\" |\n| 1.5                 |       |\n"};
    for (int f = TABLE_TEXT; f <= TABLE_MD; f++) {
        struct row_table rt;
        row_table_init(&rt, "t", cols, 2);
        struct cell *row = row_table_add(&rt);
        cell_set_number(&row[0], 9223372036854775807.0);
        row[0].exact = 1;
        row[0].integer = 9223372036854775807LL; /* 2^63 - 1: not a double */
        cell_set_text(&row[1], "a,\"b\"");
        struct table_writer w;
        table_writer_init(&w, (enum table_format)f);
        struct buf out = BUF_INIT;
        table_write_rows(&w, &rt.t, &out); /* the first batch sizes the grid */
        row_table_clear(&rt);
        cell_set_number(&row_table_add(&rt)[0], 1.5);
        table_write_rows(&w, &rt.t, &out);
        table_write_end(&w, &rt.t, &out);
        STR_EQ(out.data, want[f], "a table streamed in two batches");
        buf_release(&out);
        table_writer_release(&w);
        row_table_release(&rt);
    }
}

int main(void)
{
    table_text();
    walk_order();
    spread_rule();
    charts_by_role();
    return TEST_DONE();
}
