/* mdtest.c: mdtest's text output (IOR 4.x's mdtest; docs/formats.md 17): per task count its
 * 'SUMMARY rate (in ops/sec)' table, one row per phase with the max, min, mean and standard
 * deviation over the iterations. One record per phase and task count: mdtest prints no
 * iteration's own rate (only -v's debug lines), so a file is one repeat, its mean, and the
 * spread of its iterations stays with it (iops_min, iops_max, iops_stddev). The lines come from
 * IOR's src/mdtest.c (summarize_results_rank0, mdtest_test_name, main). */
#include "importer.h"
#include "text_lines.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

/* The phases mdtest_test_name prints, what a record calls each, and its direction: a phase
 * that changes the namespace writes, one that looks at it reads. */
static const struct phase {
    const char *printed, *rw, *direction;
} phases[] = {
    {"Directory creation", "dir_create", "write"},
    {"Directory stat", "dir_stat", "read"},
    {"Directory rename", "dir_rename", "write"},
    {"Directory removal", "dir_remove", "write"},
    {"File creation", "file_create", "write"},
    {"File stat", "file_stat", "read"},
    {"File read", "file_read", "read"},
    {"File removal", "file_remove", "write"},
    {"Tree creation", "tree_create", "write"},
    {"Tree removal", "tree_remove", "write"},
};

enum block { B_NONE, B_RATE, B_TIME };

struct md_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    const char *version, *items;
    int64_t tasks, iterations;
    int direct, fsync; /* from the command line: 0/1, WL_UNKNOWN without one */
    unsigned started, rows, emitted, run_no;
    enum block block;
    const char *error;
    unsigned error_line;
};

static int at_end(const char *p)
{
    return !*skip_ws(p);
}

/* "Command line used: mdtest '-F' '-n' '100' ...": each argument in single quotes. */
static void command_line(struct md_state *st, const char *p)
{
    st->direct = st->fsync = 0;
    for (p = strchr(p, '\''); p; p = strchr(p, '\'')) {
        const char *e = strchr(p + 1, '\'');
        if (!e)
            break;
        size_t n = (size_t)(e - p - 1);
        if (n == 2 && !memcmp(p + 1, "-y", 2))
            st->fsync = 1; /* sync file after writing */
        else if (n == 15 && !memcmp(p + 1, "--posix.odirect", 15))
            st->direct = 1;
        p = e + 1;
    }
}

/* "   File creation              161567.951     139484.669     150526.310      15615.238"
 * (--showRankStatistics puts three per-rank columns before the four read here). */
static int rate_row(struct md_state *st, const char *t, size_t off, unsigned no)
{
    const char *name = skip_ws(t);
    const struct phase *ph = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(phases); i++)
        if (str_starts(name, phases[i].printed) && name[strlen(phases[i].printed)] == ' ')
            ph = &phases[i];
    if (!ph)
        return diag_error_at(st->d, st->src, off + (size_t)(name - t),
                             "expected an mdtest phase such as 'File creation', got '%.40s'", name);
    double v[7];
    size_t n = 0;
    const char *p = name + strlen(ph->printed);
    while (!at_end(p)) {
        p = skip_ws(p);
        const char *q = p;
        if (n == ARRAY_SIZE(v) || !scan_number(&q, &v[n]) || !isfinite(v[n]) || v[n] < 0 ||
            (*q && *q != ' '))
            return diag_error_at(st->d, st->src, off + (size_t)(p - t),
                                 "expected a rate in ops/sec for mdtest's '%s', got '%.*s'",
                                 ph->printed, (int)strcspn(p, " "), p);
        n++;
        p = q;
    }
    if (n != 4 && n != 7)
        return diag_error_at(st->d, st->src, off,
                             "expected mdtest's max, min, mean and std dev for '%s', got %zu "
                             "numbers",
                             ph->printed, n);
    const double *s = v + n - 4; /* max, min, mean, std dev over the iterations */
    struct arena *a = st->a;
    struct bench_record *rec = record_new(a, "mdtest");
    rec->tool_version = st->version;
    char *job = arena_strdup(a, ph->printed);
    for (char *c = job; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    rec->job = job;
    rec->direction = ph->direction;
    rec->line_first = rec->line_last = no;
    rec->run_no = st->run_no;
    rec->wl.rw = ph->rw;
    rec->wl.numjobs = st->tasks;
    rec->wl.direct = st->direct;
    rec->wl.fsync = st->fsync;
    record_metric(a, rec, "iops", s[2]);
    record_metric(a, rec, "iops_max", s[0]);
    record_metric(a, rec, "iops_min", s[1]);
    /* mdtest prints 0 for one iteration: no spread was measured */
    if (st->iterations > 1)
        record_metric(a, rec, "iops_stddev", s[3]);
    record_tag(a, rec, "iterations", arena_printf(a, "%lld", (long long)st->iterations));
    if (st->items)
        record_tag(a, rec, "items", st->items);
    st->rows++;
    return st->out->emit(st->out->ctx, rec);
}

/* "SUMMARY rate (in ops/sec): (of 3 iterations)" or "SUMMARY time (in ms/op): ...". */
static int summary_line(struct md_state *st, const char *t, size_t off)
{
    const char *p = t;
    if (scan_lit(&p, "SUMMARY rate (in ops/sec): (of "))
        st->block = B_RATE;
    else if (scan_lit(&p, "SUMMARY time (in ms/op): (of "))
        st->block = B_TIME;
    else
        return diag_error_at(st->d, st->src, off,
                             "expected mdtest's 'SUMMARY rate (in ops/sec): (of N iterations)', "
                             "got '%.60s'",
                             t);
    int64_t n;
    if (!scan_int64(&p, &n) || n < 1 || !scan_lit(&p, " iteration") ||
        !(scan_lit(&p, "s)") || scan_lit(&p, ")")) || !at_end(p))
        return diag_error_at(st->d, st->src, off + (size_t)(p - t),
                             "expected '(of N iterations)' in mdtest's summary line, got '%.40s'",
                             p);
    st->iterations = n;
    return 0;
}

/* "2 tasks, 200 files/directories" (also "files", "directories", "1 file"). */
static int tasks_line(struct md_state *st, const char *t)
{
    const char *p = t;
    int64_t n;
    if (!scan_int64(&p, &n) || !scan_lit(&p, " tasks, "))
        return 0;
    st->tasks = n;
    st->items = arena_strdup(st->a, p);
    return 1;
}

static int handle_line(struct md_state *st, const char *t, size_t off, unsigned no)
{
    const char *p = t;
    if (str_starts(t, "-- started at ")) {
        if (st->started)
            return diag_error_line(st->d, st->src, no,
                                   "expected mdtest's '-- finished at' line of the run started "
                                   "at line %u, got the next run's start",
                                   st->started);
        st->started = no;
        st->version = NULL;
        st->tasks = st->iterations = WL_UNKNOWN;
        st->direct = st->fsync = WL_UNKNOWN;
        st->rows = 0;
        st->block = B_NONE;
        return 0;
    }
    if (!st->started)
        return 0; /* a shell's prompt or anything else before mdtest's start */
    if (str_starts(t, "-- finished at ")) {
        if (st->rows)
            st->emitted++;
        st->run_no++;
        st->started = 0;
        return 0;
    }
    if (str_starts(t, "mdtest-") && strstr(t, " was launched with ")) {
        st->version = arena_strndup(st->a, t, strcspn(t, " "));
        return 0;
    }
    if (scan_lit(&p, "Command line used: ")) {
        command_line(st, p);
        return 0;
    }
    if (str_starts(t, "ERROR") && !st->error) {
        st->error = arena_strdup(st->a, t);
        st->error_line = no;
    }
    if (str_starts(t, "SUMMARY "))
        return summary_line(st, t, off);
    if (st->block != B_NONE && (t[0] == ' ' || t[0] == '\t')) {
        const char *s = skip_ws(t);
        if (str_starts(s, "Operation ") || str_starts(s, "---------"))
            return 0;
        return st->block == B_RATE ? rate_row(st, t, off, no) : 0;
    }
    st->block = B_NONE;
    if (tasks_line(st, t))
        st->run_no++;
    return 0;
}

/* text_lines' callback: one line to handle_line. */
static int each_line(void *st, const char *line, size_t off, unsigned lineno)
{
    return handle_line(st, line, off, lineno);
}

static int md_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    struct md_state st = {.src = src, .a = a, .d = d, .out = out};
    unsigned lines;
    if (text_lines(src, "mdtest", each_line, &st, d, &lines))
        return -1;
    unsigned last = lines ? lines : 1;
    if (st.started && (st.rows || !st.error))
        return diag_error_line(d, src, last,
                               "expected mdtest's '-- finished at' line of the run started at "
                               "line %u, got the end of the input",
                               st.started);
    if (st.emitted)
        return 0;
    if (st.error)
        return diag_error_line(d, src, st.error_line, "mdtest run failed: %s", st.error);
    return diag_error_line(d, src, last,
                           "no mdtest result found: expected a 'SUMMARY rate (in ops/sec)' table "
                           "between '-- started at' and '-- finished at'");
}

static int md_probe(const struct source *src)
{
    int launched = 0, summary = 0, started = 0;
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        if (mem_starts(line, len, "mdtest-") && mem_find(line, len, " was launched with "))
            launched = 1;
        else if (mem_starts(line, len, "SUMMARY rate (in ops/sec)") ||
                 mem_starts(line, len, "SUMMARY time (in ms/op)"))
            summary = 1;
        else if (mem_starts(line, len, "-- started at "))
            started = 1;
    }
    if (launched && summary)
        return 95;
    if (started && summary)
        return 70;
    return launched ? 40 : 0;
}

const struct importer importer_mdtest = {
    .name = "mdtest",
    .summary = "mdtest text output (IOR 4.x): ops/sec per phase and task count over iterations",
    .probe = md_probe,
    .parse = md_parse,
};
