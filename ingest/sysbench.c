/* sysbench.c: sysbench fileio text output (1.0.x): the options sysbench prints before a run,
 * then its result blocks (File operations, Throughput, General statistics, Latency (ms),
 * Threads fairness). One record per direction the test mode does (rndrw: read and write); a
 * file may hold several runs one after another, each from its banner. The printed lines come
 * from sysbench's src/tests/fileio/sb_fileio.c (file_print_mode) and src/sysbench.c. */
#include "importer.h"
#include "text_lines.h"

#include <math.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

enum field {
    F_READS,
    F_WRITES,
    F_FSYNCS,
    F_READ_MIB,
    F_WRITTEN_MIB,
    F_TIME,
    F_EVENTS,
    F_LAT_MIN,
    F_LAT_AVG,
    F_LAT_MAX,
    F_LAT_PCT,
    F_LAT_SUM,
    F_FAIR_EVENTS,
    F_FAIR_EVENTS_SD,
    F_FAIR_TIME,
    F_FAIR_TIME_SD,
    F_COUNT
};

/* V_PAIR fills f and f + 1 ("avg/stddev"); V_PCT is "95th percentile: N" or "percentile
 * stats: disabled" (--percentile=0). */
enum vkind { V_NUM, V_SECONDS, V_PAIR, V_PCT };

/* Every line of the result blocks, in the order sysbench prints them: a run lacking one is
 * cut or damaged. */
static const struct result_line {
    const char *section, *label; /* label NULL: the percentile line */
    enum field f;
    enum vkind kind;
} result_lines[] = {
    {"File operations", "reads/s", F_READS, V_NUM},
    {"File operations", "writes/s", F_WRITES, V_NUM},
    {"File operations", "fsyncs/s", F_FSYNCS, V_NUM},
    {"Throughput", "read, MiB/s", F_READ_MIB, V_NUM},
    {"Throughput", "written, MiB/s", F_WRITTEN_MIB, V_NUM},
    {"General statistics", "total time", F_TIME, V_SECONDS},
    {"General statistics", "total number of events", F_EVENTS, V_NUM},
    {"Latency (ms)", "min", F_LAT_MIN, V_NUM},
    {"Latency (ms)", "avg", F_LAT_AVG, V_NUM},
    {"Latency (ms)", "max", F_LAT_MAX, V_NUM},
    {"Latency (ms)", NULL, F_LAT_PCT, V_PCT},
    {"Latency (ms)", "sum", F_LAT_SUM, V_NUM},
    {"Threads fairness", "events (avg/stddev)", F_FAIR_EVENTS, V_PAIR},
    {"Threads fairness", "execution time (avg/stddev)", F_FAIR_TIME, V_PAIR},
};

static const char *const sections[] = {"File operations", "Throughput", "General statistics",
                                       "Latency (ms)", "Threads fairness"};

enum { D_READ = 1, D_WRITE = 2 };

/* "Doing <doing> test" per --file-test-mode, and the fio rw= that does the same I/O. */
static const struct mode {
    const char *doing, *name, *rw;
    unsigned dirs;
} modes[] = {
    {"sequential write (creation)", "seqwr", "write", D_WRITE},
    {"sequential rewrite", "seqrewr", "write", D_WRITE},
    {"sequential read", "seqrd", "read", D_READ},
    {"random read", "rndrd", "randread", D_READ},
    {"random write", "rndwr", "randwrite", D_WRITE},
    {"random r/w", "rndrw", "randrw", D_READ | D_WRITE},
};

/* "Using <said> I/O mode" per --file-io-mode, and fio's engine for the same calls: sync is
 * pread/pwrite, one request in flight per thread (fio's psync); async is libaio with
 * --file-async-backlog in flight, which sysbench does not print. */
static const struct io_mode {
    const char *said, *ioengine;
    int iodepth_one;
} io_modes[] = {
    {"synchronous", "psync", 1},
    {"asynchronous", "libaio", 0},
    {"fast mmaped", "mmap", 1},
    {"slow mmaped", "mmap", 1},
};

struct sb_run {
    unsigned first, last;
    const char *version, *flags, *fatal;
    unsigned fatal_line;
    const struct mode *mode;
    const struct io_mode *io;
    int64_t threads, bs, total, fsync_freq; /* WL_UNKNOWN until printed */
    int fsync_all, fsync_end, have_ratio;
    double ratio, pct; /* pct 0: percentile stats disabled */
    double v[F_COUNT];
    unsigned char have[F_COUNT];
    int results; /* a result block was seen */
};

struct sb_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    struct sb_run run;
    int section; /* index into sections, -1 outside the result blocks */
    unsigned run_no, emitted;
    const char *fatal;
    unsigned fatal_line;
};

static void run_reset(struct sb_run *r)
{
    memset(r, 0, sizeof(*r));
    r->threads = r->bs = r->total = r->fsync_freq = WL_UNKNOWN;
}

/* ---- values ---- */

/* The rest of t from p holds nothing but white space. */
static int at_end(const char *p)
{
    return !*skip_ws(p);
}

/* A size sysbench printed with sb_print_value_size ("16KiB", "5.8594KiB", "32MiB", "512B"):
 * rounded to 4 decimals, so a size that is no multiple of its unit reads back to the byte
 * only below MiB; the nearest byte is taken. */
static int printed_size(const char **p, int64_t *bytes)
{
    const char *q = *p, *u;
    size_t un;
    double v;
    if (!scan_quantity(&q, &v, &u, &un))
        return 0;
    double m = unit_bytes(u, un, 0);
    if (m == 0 || v * m > 9.0e18)
        return 0;
    *bytes = (int64_t)llround(v * m);
    *p = q;
    return 1;
}

/* A number no measurement can exceed: finite and not negative ("1e999" is refused here, at
 * its column, rather than where records are stored). */
static int scan_measure(const char **p, double *v)
{
    const char *q = *p;
    if (!scan_number(&q, v) || !isfinite(*v) || *v < 0)
        return 0;
    *p = q;
    return 1;
}

static int bad_value(struct sb_state *st, size_t off, const char *what, const char *label,
                     const char *got)
{
    return diag_error_at(st->d, st->src, off, "expected %s for '%s', got '%.40s'", what, label,
                         got);
}

/* The value of a result line, p after its ':'. */
static int result_value(struct sb_state *st, const struct result_line *rl, const char *label,
                        const char *p, size_t off_p)
{
    struct sb_run *r = &st->run;
    const char *v = skip_ws(p);
    size_t off = off_p + (size_t)(v - p);
    const char *q = v;
    double x, y;
    switch (rl->kind) {
    case V_NUM:
        if (!scan_measure(&q, &x) || !at_end(q))
            return bad_value(st, off, "a number", label, v);
        break;
    case V_SECONDS:
        if (!scan_measure(&q, &x) || !scan_lit(&q, "s") || !at_end(q))
            return bad_value(st, off, "seconds such as '10.0012s'", label, v);
        break;
    case V_PAIR:
        if (!scan_measure(&q, &x) || !scan_lit(&q, "/") || !scan_measure(&q, &y) || !at_end(q))
            return bad_value(st, off, "'avg/stddev' numbers", label, v);
        r->v[rl->f + 1] = y;
        r->have[rl->f + 1] = 1;
        break;
    case V_PCT:
        if (r->pct == 0) { /* "percentile stats: disabled" */
            if (!scan_lit(&q, "disabled") || !at_end(q))
                return bad_value(st, off, "'disabled'", label, v);
            r->have[rl->f] = 1;
            return 0;
        }
        if (!scan_measure(&q, &x) || !at_end(q))
            return bad_value(st, off, "a number", label, v);
        break;
    }
    r->v[rl->f] = x;
    r->have[rl->f] = 1;
    return 0;
}

/* "95th percentile" (--percentile=95, sysbench's default) or "percentile stats": 1 and sets
 * the run's percentile (0: disabled). */
static int percentile_label(struct sb_run *r, const char *label, size_t n)
{
    if (n == 16 && !memcmp(label, "percentile stats", 16)) {
        r->pct = 0;
        return 1;
    }
    const char *q = label;
    double pct;
    if (!scan_number(&q, &pct) || pct <= 0 || pct > 100 || !scan_lit(&q, "th percentile") ||
        q != label + n)
        return 0;
    r->pct = pct;
    return 1;
}

/* An indented "label:   value" line inside a result block. */
static int result_line(struct sb_state *st, const char *t, size_t off)
{
    const char *label = skip_ws(t), *colon = strchr(label, ':');
    const char *sec = sections[st->section];
    size_t n = colon ? (size_t)(colon - label) : 0;
    for (size_t i = 0; colon && i < ARRAY_SIZE(result_lines); i++) {
        const struct result_line *rl = &result_lines[i];
        if (strcmp(rl->section, sec))
            continue;
        int match = rl->label ? strlen(rl->label) == n && !memcmp(rl->label, label, n)
                              : percentile_label(&st->run, label, n);
        if (!match)
            continue;
        if (st->run.have[rl->f])
            return diag_error_at(st->d, st->src, off + (size_t)(label - t),
                                 "expected one '%.*s' line in sysbench's '%s' block, got a "
                                 "second",
                                 (int)n, label, sec);
        const char *name = arena_strndup(st->a, label, n);
        return result_value(st, rl, name, colon + 1, off + (size_t)(colon + 1 - t));
    }
    return diag_error_at(st->d, st->src, off + (size_t)(label - t),
                         "expected a line of sysbench's '%s' block, got '%.40s'", sec, label);
}

/* ---- the options sysbench prints before the run ---- */

static const struct mode *find_mode(const char *s, size_t n)
{
    for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
        if (strlen(modes[i].doing) == n && !memcmp(modes[i].doing, s, n))
            return &modes[i];
    return NULL;
}

static const struct io_mode *find_io_mode(const char *s, size_t n)
{
    for (size_t i = 0; i < ARRAY_SIZE(io_modes); i++)
        if (strlen(io_modes[i].said) == n && !memcmp(io_modes[i].said, s, n))
            return &io_modes[i];
    return NULL;
}

/* "Doing random r/w test", "Using synchronous I/O mode": the words between prefix and
 * suffix, or NULL when t is not such a line. */
static const char *between(const char *t, const char *prefix, const char *suffix, size_t *n)
{
    size_t lt = strlen(t), lp = strlen(prefix), ls = strlen(suffix);
    if (lt < lp + ls || !str_starts(t, prefix) || !str_ends(t, suffix))
        return NULL;
    *n = lt - lp - ls;
    return t + lp;
}

/* "Extra file open flags: (none)" or any of "sync ", "dsync ", "directio" (print order). */
static int flags_line(struct sb_state *st, const char *p, size_t off)
{
    struct sb_run *r = &st->run;
    r->flags = arena_strdup(st->a, p);
    if (!strcmp(p, "(none)"))
        return 0;
    for (const char *q = p; *(q = skip_ws(q));) {
        if (!scan_lit(&q, "sync") && !scan_lit(&q, "dsync") && !scan_lit(&q, "directio"))
            return diag_error_at(st->d, st->src, off + (size_t)(q - p),
                                 "expected sysbench's open flags 'sync', 'dsync' or 'directio', "
                                 "got '%.40s'",
                                 q);
        if (*q && *q != ' ')
            return diag_error_at(st->d, st->src, off + (size_t)(q - p),
                                 "expected a space between sysbench's open flags, got '%.40s'", q);
    }
    return 0;
}

static int header_int(struct sb_state *st, const char *p, size_t off, const char *what,
                      const char *rest, int64_t *v)
{
    const char *q = p;
    if (!scan_int64(&q, v) || !scan_lit(&q, rest) || !at_end(q))
        return diag_error_at(st->d, st->src, off, "expected %s, got '%.40s'", what, p);
    return 0;
}

/* A line of the options block; unknown lines are skipped (shell prompts and `time` around a
 * run, sysbench's own chatter). */
static int header_line(struct sb_state *st, const char *t, size_t off)
{
    struct sb_run *r = &st->run;
    const char *p = t, *w;
    size_t n;
    if (scan_lit(&p, "Number of threads: "))
        return header_int(st, p, off + (size_t)(p - t), "a thread count", "", &r->threads);
    if (scan_lit(&p, "Extra file open flags: "))
        return flags_line(st, p, off + (size_t)(p - t));
    if (scan_lit(&p, "Block size ")) {
        if (!printed_size(&p, &r->bs) || !at_end(p))
            return diag_error_at(st->d, st->src, off + 11,
                                 "expected a block size such as "
                                 "'16KiB', got '%.40s'",
                                 t + 11);
        return 0;
    }
    if ((w = between(t, "", " total file size", &n))) {
        const char *q = w;
        if (!printed_size(&q, &r->total) || q != w + n)
            return diag_error_at(st->d, st->src, off,
                                 "expected a total file size such as "
                                 "'2GiB', got '%.40s'",
                                 t);
        return 0;
    }
    if (scan_lit(&p, "Read/Write ratio for combined random IO test: ")) {
        if (!scan_measure(&p, &r->ratio) || !at_end(p))
            return diag_error_at(st->d, st->src, off + 47,
                                 "expected a read/write ratio such as '1.50', got '%.40s'", t + 47);
        r->have_ratio = 1;
        return 0;
    }
    if (scan_lit(&p, "Periodic FSYNC enabled, calling fsync() each "))
        return header_int(st, p, off + (size_t)(p - t), "'N requests.'", " requests.",
                          &r->fsync_freq);
    if (!strcmp(t, "Calling fsync() after each write operation.")) {
        r->fsync_all = 1;
        return 0;
    }
    if (!strcmp(t, "Calling fsync() at the end of test, Enabled.")) {
        r->fsync_end = 1;
        return 0;
    }
    if ((w = between(t, "Using ", " I/O mode", &n)) && !(r->io = find_io_mode(w, n)))
        return diag_error_at(st->d, st->src, off + 6,
                             "expected sysbench's I/O mode "
                             "'synchronous', 'asynchronous' or 'fast mmaped', got '%.*s'",
                             (int)n, w);
    if ((w = between(t, "Doing ", " test", &n)) && !(r->mode = find_mode(w, n)))
        return diag_error_at(st->d, st->src, off + 6,
                             "expected a sysbench fileio test mode "
                             "such as 'random r/w', got '%.*s'",
                             (int)n, w);
    return 0;
}

/* ---- runs ---- */

/* "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)": the version, or NULL. */
static const char *banner(struct arena *a, const char *t)
{
    const char *p = t;
    if (!scan_lit(&p, "sysbench ") || *p < '0' || *p > '9')
        return NULL;
    p += strcspn(p, " ");
    if (!str_starts(p, " (using "))
        return NULL;
    return arena_strndup(a, t, (size_t)(p - t));
}

static void add_latency(struct arena *a, struct bench_record *rec, const struct sb_run *r)
{
    static const struct {
        enum field f;
        const char *name;
    } lat[] = {{F_LAT_MIN, "lat_min_ns"},
               {F_LAT_AVG, "lat_mean_ns"},
               {F_LAT_MAX, "lat_max_ns"},
               {F_LAT_SUM, "lat_sum_ns"}};
    for (size_t i = 0; i < ARRAY_SIZE(lat); i++)
        record_metric(a, rec, lat[i].name, r->v[lat[i].f] * 1e6);
    if (r->pct > 0)
        record_metric(a, rec, record_percentile_name(a, "lat", r->pct), r->v[F_LAT_PCT] * 1e6);
}

/* What sysbench's per-event latency covers: each event is one request, fsyncs included. */
static const char *lat_events(const struct sb_run *r)
{
    int rd = r->v[F_READS] > 0, wr = r->v[F_WRITES] > 0, fs = r->v[F_FSYNCS] > 0;
    static const char *const names[8] = {
        "none",   "reads",        "writes",        "reads,writes",
        "fsyncs", "reads,fsyncs", "writes,fsyncs", "reads,writes,fsyncs"};
    return names[rd | wr << 1 | fs << 2];
}

/* Whether the space-separated flags list holds the word w. */
static int has_flag(const char *flags, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = flags; *(p = skip_ws(p)); p += strcspn(p, " "))
        if (!strncmp(p, w, n) && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

static void set_workload(const struct sb_run *r, struct workload *wl)
{
    if (r->mode) {
        wl->rw = r->mode->rw;
        /* sysbench never fsyncs in a mode that does not write (its is_dirty stays 0), whatever
         * --file-fsync-freq says */
        if (!(r->mode->dirs & D_WRITE))
            wl->fsync = 0;
        else if (r->fsync_all)
            wl->fsync = 1;
        else
            wl->fsync = r->fsync_freq == WL_UNKNOWN ? 0 : r->fsync_freq;
        if (r->mode->dirs == (D_READ | D_WRITE) && r->have_ratio)
            wl->rwmixread = (int64_t)llround(100.0 * r->ratio / (1.0 + r->ratio));
    }
    if (r->io) {
        wl->ioengine = r->io->ioengine;
        if (r->io->iodepth_one)
            wl->iodepth = 1;
    }
    if (r->flags) {
        wl->direct = has_flag(r->flags, "directio");
        wl->sync = has_flag(r->flags, "sync"); /* O_SYNC; dsync (O_DSYNC) stays in the tag */
    }
    wl->bs_bytes = r->bs;
    wl->numjobs = r->threads;
    wl->size_bytes = r->total;
}

static int emit_dir(struct sb_state *st, const struct sb_run *r, int write, int fsyncs_here)
{
    struct arena *a = st->a;
    struct bench_record *rec = record_new(a, "sysbench");
    rec->tool_version = r->version;
    rec->job = arena_printf(a, "fileio %s", r->mode ? r->mode->name : "");
    rec->direction = write ? "write" : "read";
    rec->line_first = r->first;
    rec->line_last = r->last;
    rec->run_no = st->run_no;
    set_workload(r, &rec->wl);
    record_metric(a, rec, "iops", r->v[write ? F_WRITES : F_READS]);
    /* sysbench divides by its mebibyte, 1024 * 1024 */
    record_metric(a, rec, "bw_bytes_s", r->v[write ? F_WRITTEN_MIB : F_READ_MIB] * 1048576.0);
    record_metric(a, rec, "runtime_ms", r->v[F_TIME] * 1000.0);
    add_latency(a, rec, r);
    if (fsyncs_here)
        record_metric(a, rec, "fsync_iops", r->v[F_FSYNCS]);
    record_metric(a, rec, "events", r->v[F_EVENTS]);
    record_metric(a, rec, "events_thread_mean", r->v[F_FAIR_EVENTS]);
    record_metric(a, rec, "events_thread_stddev", r->v[F_FAIR_EVENTS_SD]);
    record_metric(a, rec, "thread_runtime_mean_ms", r->v[F_FAIR_TIME] * 1000.0);
    record_metric(a, rec, "thread_runtime_stddev_ms", r->v[F_FAIR_TIME_SD] * 1000.0);
    if (r->mode)
        record_tag(a, rec, "mode", r->mode->name);
    record_tag(a, rec, "lat_events", lat_events(r));
    if (r->flags)
        record_tag(a, rec, "open_flags", r->flags);
    if (r->fsync_end)
        record_tag(a, rec, "fsync_end", "on");
    return st->out->emit(st->out->ctx, rec);
}

/* The directions of a run: its mode's, or without a "Doing ... test" line (a block pasted from
 * "File operations:" on) those that did any I/O. */
static unsigned run_dirs(const struct sb_run *r)
{
    if (r->mode)
        return r->mode->dirs;
    unsigned dirs = (r->v[F_READS] > 0 ? D_READ : 0) | (r->v[F_WRITES] > 0 ? D_WRITE : 0);
    return dirs ? dirs : D_READ;
}

/* Ends the current run: emits it when it has results, all of them. */
static int finish_run(struct sb_state *st, unsigned next_line, const char *got)
{
    struct sb_run *r = &st->run;
    if (r->fatal && !r->results && !st->fatal) {
        st->fatal = r->fatal;
        st->fatal_line = r->fatal_line;
    }
    if (!r->results) {
        run_reset(r);
        return 0;
    }
    for (size_t i = 0; i < ARRAY_SIZE(result_lines); i++) {
        const struct result_line *rl = &result_lines[i];
        if (!r->have[rl->f])
            return diag_error_line(st->d, st->src, next_line,
                                   "expected sysbench's '%s' line in its '%s' block, got %s",
                                   rl->label ? rl->label : "95th percentile", rl->section, got);
    }
    unsigned dirs = run_dirs(r);
    if ((dirs & D_READ) && emit_dir(st, r, 0, !(dirs & D_WRITE)))
        return -1;
    if ((dirs & D_WRITE) && emit_dir(st, r, 1, 1))
        return -1;
    st->emitted++;
    st->run_no++;
    run_reset(r);
    return 0;
}

static int section_of(const char *t)
{
    for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
        size_t n = strlen(sections[i]);
        if (!strncmp(t, sections[i], n) && t[n] == ':' && at_end(t + n + 1))
            return (int)i;
    }
    return -1;
}

static int handle_line(struct sb_state *st, const char *t, size_t off, unsigned no)
{
    struct sb_run *r = &st->run;
    const char *version = banner(st->a, t);
    if (version) {
        if (finish_run(st, no, "the next run's banner"))
            return -1;
        r->version = version;
        r->first = r->last = no;
        return 0;
    }
    int sec = section_of(t);
    if (sec >= 0) {
        /* a second "File operations:" without a banner between: the next run's */
        if (sec == 0 && r->results && finish_run(st, no, "the next run's 'File operations:'"))
            return -1;
        if (!r->first)
            r->first = no;
        st->section = sec;
        r->results = 1;
        r->last = no;
        return 0;
    }
    if (!*t)
        return 0;
    if (st->section >= 0 && (t[0] == ' ' || t[0] == '\t')) {
        r->last = no;
        return result_line(st, t, off);
    }
    st->section = -1;
    if (str_starts(t, "FATAL: ") && !r->fatal) {
        r->fatal = arena_strdup(st->a, t + 7);
        r->fatal_line = no;
    }
    if (!r->results && r->first && header_line(st, t, off))
        return -1;
    return 0;
}

/* text_lines' callback: one line to handle_line. */
static int each_line(void *st, const char *line, size_t off, unsigned lineno)
{
    return handle_line(st, line, off, lineno);
}

static int sb_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    struct sb_state st = {.src = src, .a = a, .d = d, .out = out, .section = -1};
    run_reset(&st.run);
    unsigned lines;
    int rc = text_lines(src, "sysbench", each_line, &st, d, &lines);
    if (rc)
        return -1;
    if (finish_run(&st, lines ? lines : 1, "the end of the input"))
        return -1;
    if (st.emitted)
        return 0;
    if (st.fatal)
        return diag_error_line(d, src, st.fatal_line, "sysbench run failed: %s", st.fatal);
    return diag_error_line(d, src, lines ? lines : 1,
                           "no sysbench fileio result found: expected a 'File operations:' "
                           "block after a 'sysbench 1.0.x (using ...)' banner");
}

/* ---- probe ---- */

static int sb_probe(const struct source *src)
{
    int bann = 0, fileops = 0, doing = 0, rates = 0;
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        const char *t = line;
        while (len && (*t == ' ' || *t == '\t'))
            t++, len--;
        if (mem_starts(t, len, "sysbench ") && mem_find(t, len, " (using "))
            bann = 1;
        else if (mem_starts(t, len, "File operations:"))
            fileops = 1;
        else if (mem_starts(t, len, "Doing ") && mem_ends(t, len, " test"))
            doing = 1;
        else if (mem_starts(t, len, "reads/s:") || mem_starts(t, len, "fsyncs/s:"))
            rates++;
    }
    if (bann && fileops)
        return 95;
    if (fileops && rates >= 2)
        return 70;
    if (bann && doing)
        return 60;
    return bann ? 30 : 0;
}

const struct importer importer_sysbench = {
    .name = "sysbench",
    .summary = "sysbench fileio text output (1.0.x): every test mode, threads, fsync, direct",
    .probe = sb_probe,
    .parse = sb_parse,
};
