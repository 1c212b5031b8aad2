/* ior.c: IOR's text output (4.x; docs/formats.md 16): the header (version, command line,
 * machine), per test its Options block and its Results table (one row per iteration and
 * access), and the 'Summary of all tests' table, whose rows give each test's sizes in bytes.
 * One record per row of a Results table: IOR's repetitions (-i) are repeats of one workload,
 * and a report's statistics see them as such. The lines come from IOR's src/ior-output.c
 * (PrintReducedResult, PrintLongSummaryOneOperation, ShowSetup) and its figures from
 * src/ior.c (ReduceIterResults). Also the helpers ior_json.c shares (ior.h). */
#include "ior.h"
#include "text_lines.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "../core/array.h"
#include "../core/scan.h"

/* ---- shared with ior_json.c ---- */

void ior_test_init(struct ior_test *t)
{
    memset(t, 0, sizeof(*t));
    t->id = t->tasks = t->xfer = t->block = t->segments = t->reps = WL_UNKNOWN;
    t->random = t->direct = t->fsync_end = t->fsync_write = WL_UNKNOWN;
}

/* A -O value: "key=value[,key=value]"; the keys IOR's parse_options.c reads for O_DIRECT and
 * fsync (case-insensitive there too). */
static void dash_o(struct ior_test *t, const char *s, size_t n)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {{"useo_direct", offsetof(struct ior_test, direct)},
                {"posix.odirect", offsetof(struct ior_test, direct)},
                {"fsync", offsetof(struct ior_test, fsync_end)},
                {"fsyncperwrite", offsetof(struct ior_test, fsync_write)}};
    for (size_t i = 0; i < n;) {
        size_t m = i;
        while (m < n && s[m] != ',')
            m++;
        const char *eq = memchr(s + i, '=', m - i);
        for (size_t k = 0; eq && k < ARRAY_SIZE(keys); k++)
            if ((size_t)(eq - (s + i)) == strlen(keys[k].key) &&
                !strncasecmp(s + i, keys[k].key, strlen(keys[k].key)))
                *(int *)((char *)t + keys[k].off) = eq[1] != '0';
        i = m + 1;
    }
}

void ior_command_line(struct ior_test *t, const char *cmd)
{
    int script = 0, direct = 0, fsync_end = 0, fsync_write = 0;
    struct ior_test o;
    ior_test_init(&o);
    for (const char *p = skip_ws(cmd); *p; p = skip_ws(p)) {
        size_t n = strcspn(p, " \t");
        if (n == 2 && !memcmp(p, "-f", 2))
            script = 1;
        else if (n == 2 && !memcmp(p, "-e", 2))
            fsync_end = 1;
        else if (n == 2 && !memcmp(p, "-Y", 2))
            fsync_write = 1;
        else if (n == 15 && !memcmp(p, "--posix.odirect", 15))
            direct = 1;
        else if (n == 2 && !memcmp(p, "-O", 2)) {
            p = skip_ws(p + 2);
            n = strcspn(p, " \t");
            dash_o(&o, p, n);
        }
        p += n;
    }
    /* a -f script's settings are not on the command line: unknown, never 0 */
    t->direct = script ? WL_UNKNOWN : direct || o.direct == 1;
    t->fsync_end = script ? WL_UNKNOWN : fsync_end || o.fsync_end == 1;
    t->fsync_write = script ? WL_UNKNOWN : fsync_write || o.fsync_write == 1;
}

int ior_emit(struct arena *a, struct record_sink *out, const struct ior_test *t,
             const struct ior_iter *it, unsigned run_no)
{
    struct bench_record *rec = record_new(a, "ior");
    rec->tool_version = t->version;
    rec->host = t->host;
    rec->job = arena_printf(a, "test %lld", (long long)t->id);
    rec->direction = it->write ? "write" : "read";
    rec->line_first = it->line_first;
    rec->line_last = it->line_last;
    rec->run_no = run_no;
    struct workload *wl = &rec->wl;
    if (t->random != WL_UNKNOWN)
        wl->rw =
            it->write ? (t->random ? "randwrite" : "write") : (t->random ? "randread" : "read");
    if (t->api) {
        char *e = arena_strdup(a, t->api);
        for (char *c = e; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        wl->ioengine = e;
    }
    /* each task issues one transfer at a time, whatever the API */
    wl->iodepth = 1;
    wl->bs_bytes = t->xfer;
    wl->numjobs = t->tasks;
    if (t->block > 0 && t->segments > 0)
        wl->size_bytes = t->block * t->segments; /* what each task moves, as fio's size */
    wl->direct = t->direct;
    /* IOR opens no file O_SYNC; -Y is an fsync after every write */
    wl->sync = t->fsync_write == WL_UNKNOWN ? WL_UNKNOWN : 0;
    wl->fsync = t->fsync_write;
    /* IOR's MiB is 2^20 bytes (src/iordef.h MEBIBYTE) */
    if (it->bw_mib >= 0)
        record_metric(a, rec, "bw_bytes_s", it->bw_mib * 1048576.0);
    if (it->iops >= 0)
        record_metric(a, rec, "iops", it->iops);
    if (it->lat_s >= 0)
        record_metric(a, rec, "lat_mean_ns", it->lat_s * 1e9);
    if (it->total_s >= 0)
        record_metric(a, rec, "runtime_ms", it->total_s * 1000.0);
    if (it->open_s >= 0)
        record_metric(a, rec, "open_time_ms", it->open_s * 1000.0);
    if (it->wrrd_s >= 0)
        record_metric(a, rec, "xfer_time_ms", it->wrrd_s * 1000.0);
    if (it->close_s >= 0)
        record_metric(a, rec, "close_time_ms", it->close_s * 1000.0);
    if (t->block > 0 && t->segments > 0 && t->tasks > 0)
        record_metric(a, rec, "io_bytes", (double)(t->block * t->segments * t->tasks));
    if (t->api)
        record_tag(a, rec, "api", t->api);
    if (t->access)
        record_tag(a, rec, "access", t->access);
    if (t->type)
        record_tag(a, rec, "type", t->type);
    record_tag(a, rec, "iteration", arena_printf(a, "%lld", (long long)it->iter));
    if (t->fsync_end == 1)
        record_tag(a, rec, "fsync_end", "on");
    return out->emit(out->ctx, rec);
}

/* ---- the text output ---- */

/* A test's rows, kept until the run ends: its Summary rows come after every test. */
struct row {
    struct ior_iter it;
    struct row *next;
};

struct test {
    struct ior_test t;
    struct row *rows, **tail;
    unsigned line, n_rows[2];
    unsigned summary[2]; /* line of the Summary row per access (0 read, 1 write), 0 none */
    struct test *next;
};

enum mode { M_HEADER, M_OPTIONS, M_RESULTS, M_SUMMARY };

struct ior_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    /* the run being read */
    const char *version, *host, *cmdline;
    unsigned banner_line, finished;
    struct test *tests, **tail, *cur;
    enum mode mode;
    unsigned run_no, emitted;
    const char *error;
    unsigned error_line;
};

static void run_reset(struct ior_state *st)
{
    st->version = st->host = st->cmdline = NULL;
    st->banner_line = st->finished = 0;
    st->tests = st->cur = NULL;
    st->tail = &st->tests;
    st->mode = M_HEADER;
}

/* The fields of a table row, split at white space. */
struct fields {
    const char *f[32];
    size_t n[32];
    size_t count;
};

static void split(const char *t, struct fields *fs)
{
    fs->count = 0;
    for (const char *p = skip_ws(t); *p && fs->count < ARRAY_SIZE(fs->f); p = skip_ws(p)) {
        size_t n = strcspn(p, " \t");
        fs->f[fs->count] = p;
        fs->n[fs->count++] = n;
        p += n;
    }
}

/* A number no measurement can exceed, the whole field: finite and not negative. */
static int field_number(const char *f, size_t n, double *v)
{
    const char *q = f;
    return scan_number(&q, v) && q == f + n && isfinite(*v) && *v >= 0;
}

static int field_int(const char *f, size_t n, int64_t *v)
{
    const char *q = f;
    return scan_int64(&q, v) && q == f + n;
}

static int bad_field(struct ior_state *st, const char *t, size_t off, const struct fields *fs,
                     size_t i, const char *what, const char *col)
{
    return diag_error_at(st->d, st->src, off + (size_t)(fs->f[i] - t),
                         "expected %s for IOR's '%s' column, got '%.*s'", what, col,
                         (int)(fs->n[i] > 40 ? 40 : fs->n[i]), fs->f[i]);
}

/* "write     2524.41    40700      0.000037    4096  64.00  0.000020  0.003145  0.000815
 * 0.003169   0": one iteration of one access (PrintReducedResult). */
static int result_row(struct ior_state *st, const char *t, size_t off, unsigned no)
{
    static const char *const cols[] = {"bw(MiB/s)",  "IOPS",      "Latency(s)",
                                       "block(KiB)", "xfer(KiB)", "open(s)",
                                       "wr/rd(s)",   "close(s)",  "total(s)"};
    struct fields fs;
    split(t, &fs);
    if (fs.count != 11)
        return diag_error_at(st->d, st->src, off,
                             "expected 11 columns in IOR's results row, got %zu", fs.count);
    double v[ARRAY_SIZE(cols)];
    for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
        if (!field_number(fs.f[i + 1], fs.n[i + 1], &v[i]))
            return bad_field(st, t, off, &fs, i + 1, "a number", cols[i]);
    struct row *r = arena_alloc(st->a, sizeof(*r));
    r->it.write = t[0] == 'w';
    if (!field_int(fs.f[10], fs.n[10], &r->it.iter))
        return bad_field(st, t, off, &fs, 10, "an iteration number", "iter");
    r->it.bw_mib = v[0];
    r->it.iops = v[1];
    r->it.lat_s = v[2];
    r->it.open_s = v[5];
    r->it.wrrd_s = v[6];
    r->it.close_s = v[7];
    r->it.total_s = v[8];
    r->it.line_first = r->it.line_last = no;
    *st->cur->tail = r;
    st->cur->tail = &r->next;
    st->cur->n_rows[r->it.write]++;
    return 0;
}

/* A row of 'Summary of all tests' (PrintLongSummaryOneOperation): 27 columns, of which the
 * test number, tasks, repetitions, file per process, segments, block and transfer size in
 * bytes and the API are read; the Max/Min/Mean columns are the iterations' statistics. */
static int summary_row(struct ior_state *st, const char *t, size_t off, unsigned no)
{
    struct fields fs;
    split(t, &fs);
    if (fs.count != 27)
        return diag_error_at(st->d, st->src, off,
                             "expected 27 columns in IOR's 'Summary of all tests' row, got %zu",
                             fs.count);
    static const struct {
        size_t i;
        const char *col;
    } ints[] = {{12, "Test#"},  {13, "#Tasks"}, {15, "reps"}, {16, "fPP"},
                {21, "segcnt"}, {22, "blksiz"}, {23, "xsize"}};
    int64_t v[ARRAY_SIZE(ints)];
    for (size_t k = 0; k < ARRAY_SIZE(ints); k++)
        if (!field_int(fs.f[ints[k].i], fs.n[ints[k].i], &v[k]))
            return bad_field(st, t, off, &fs, ints[k].i, "a whole number", ints[k].col);
    for (size_t k = 1; k <= 9; k++) {
        double x;
        if (!field_number(fs.f[k], fs.n[k], &x))
            return bad_field(st, t, off, &fs, k, "a number", k <= 4 ? "Max(MiB)" : "Max(OPs)");
    }
    struct test *te = st->tests;
    while (te && te->t.id != v[0])
        te = te->next;
    if (!te)
        return diag_error_at(st->d, st->src, off + (size_t)(fs.f[12] - t),
                             "expected the number of a test of this IOR run for 'Test#', got "
                             "'%.*s'",
                             (int)fs.n[12], fs.f[12]);
    int w = t[0] == 'w';
    if (te->summary[w])
        return diag_error_at(st->d, st->src, off,
                             "expected one '%s' row of IOR test %lld in its summary, got a "
                             "second (the first at line %u)",
                             w ? "write" : "read", (long long)te->t.id, te->summary[w]);
    te->summary[w] = no;
    te->t.tasks = v[1];
    te->t.reps = v[2];
    te->t.access = v[3] ? "file-per-process" : "single-shared-file";
    te->t.segments = v[4];
    te->t.block = v[5];
    te->t.xfer = v[6];
    te->t.api = arena_strndup(st->a, fs.f[25], fs.n[25]);
    return 0;
}

/* "Options:" block lines ("api                 : POSIX"): the ones no Summary row gives. */
static int option_line(struct ior_state *st, const char *t)
{
    struct ior_test *it = &st->cur->t;
    const char *colon = strstr(t, " : ");
    if (!colon)
        return 0;
    size_t n = (size_t)(colon - t);
    while (n && t[n - 1] == ' ')
        n--;
    const char *v = skip_ws(colon + 3);
    if (n == 18 && !memcmp(t, "ordering in a file", 18))
        it->random = !strcmp(v, "random");
    else if (n == 4 && !memcmp(t, "type", 4))
        it->type = arena_strdup(st->a, v);
    return 0;
}

static const char *after_key(const char *t, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(t, key, n))
        return NULL;
    const char *p = t + n;
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    return skip_ws(p + 1);
}

static int finish_run(struct ior_state *st, unsigned next_line, const char *got)
{
    unsigned rows = 0;
    for (struct test *te = st->tests; te; te = te->next)
        rows += te->n_rows[0] + te->n_rows[1];
    if (!rows) {
        run_reset(st);
        return 0;
    }
    for (struct test *te = st->tests; te; te = te->next)
        for (int w = 1; w >= 0; w--) {
            if (!te->n_rows[w])
                continue;
            if (!te->summary[w])
                return diag_error_line(st->d, st->src, next_line,
                                       "expected the '%s' row of IOR test %lld in its 'Summary "
                                       "of all tests' table, got %s",
                                       w ? "write" : "read", (long long)te->t.id, got);
            if (te->t.reps != (int64_t)te->n_rows[w])
                return diag_error_line(st->d, st->src, te->summary[w],
                                       "expected %lld '%s' rows in the results of IOR test %lld "
                                       "(its repetitions), got %u",
                                       (long long)te->t.reps, w ? "write" : "read",
                                       (long long)te->t.id, te->n_rows[w]);
        }
    if (!st->finished)
        return diag_error_line(st->d, st->src, next_line,
                               "expected IOR's 'Finished' line after its summary, got %s", got);
    for (struct test *te = st->tests; te; te = te->next) {
        te->t.version = st->version;
        te->t.host = st->host;
        if (st->cmdline)
            ior_command_line(&te->t, st->cmdline);
        for (struct row *r = te->rows; r; r = r->next) {
            if (ior_emit(st->a, st->out, &te->t, &r->it, st->run_no++))
                return -1;
        }
    }
    st->emitted++;
    run_reset(st);
    return 0;
}

/* "IOR-4.1.0+dev: MPI Coordinated Test of Parallel I/O": the version, or NULL. */
static const char *banner(struct arena *a, const char *t)
{
    if (!str_starts(t, "IOR-") || !isdigit((unsigned char)t[4]))
        return NULL;
    const char *c = strstr(t, ": MPI Coordinated Test of Parallel I/O");
    return c ? arena_strndup(a, t, (size_t)(c - t)) : NULL;
}

static int handle_line(struct ior_state *st, const char *t, size_t off, unsigned no)
{
    const char *v;
    const char *version = banner(st->a, t);
    if (version) {
        if (finish_run(st, no, "the next run's banner"))
            return -1;
        st->version = version;
        st->banner_line = no;
        return 0;
    }
    if (!st->banner_line) /* a shell's prompt or anything else before IOR's banner */
        return 0;
    if (str_starts(t, "ERROR: ") && !st->error) {
        st->error = arena_strdup(st->a, t + 7);
        st->error_line = no;
    }
    if (st->mode == M_RESULTS) {
        if (str_starts(t, "write ") || str_starts(t, "read "))
            return result_row(st, t, off, no);
        if (str_starts(t, "remove ") || str_starts(t, "------"))
            return 0; /* the removal's time; the header's underline */
    }
    if (st->mode == M_SUMMARY && (str_starts(t, "write ") || str_starts(t, "read ")))
        return summary_row(st, t, off, no);
    if ((v = after_key(t, "Command line"))) {
        st->cmdline = arena_strdup(st->a, v);
    } else if ((v = after_key(t, "Machine"))) {
        /* "Linux vm" (uname's sysname and nodename; -vv adds release, version, machine) */
        const char *sp = strchr(v, ' ');
        if (sp && sp[1])
            st->host = arena_strndup(st->a, sp + 1, strcspn(sp + 1, " "));
    } else if ((v = after_key(t, "TestID"))) {
        struct test *te = arena_alloc(st->a, sizeof(*te));
        ior_test_init(&te->t);
        const char *q = v;
        if (!scan_int64(&q, &te->t.id) || *q)
            return diag_error_at(st->d, st->src, off + (size_t)(v - t),
                                 "expected a test number for IOR's 'TestID', got '%.40s'", v);
        te->tail = &te->rows;
        te->line = no;
        *st->tail = te;
        st->tail = &te->next;
        st->cur = te;
        st->mode = M_HEADER;
    } else if (!strcmp(t, "Options:") && st->cur) {
        st->mode = M_OPTIONS;
    } else if (str_starts(t, "access ") && strstr(t, "bw(MiB/s)")) {
        if (!st->cur)
            return diag_error_at(st->d, st->src, off,
                                 "expected IOR's 'TestID' line before its results table");
        st->mode = M_RESULTS;
    } else if (str_starts(t, "Operation ") && strstr(t, "Max(MiB)")) {
        st->mode = M_SUMMARY;
    } else if (after_key(t, "Finished")) {
        st->finished = no;
    } else if (st->mode == M_OPTIONS) {
        return option_line(st, t);
    } else if (*t && st->mode != M_HEADER && !str_starts(t, "Summary of all tests:") &&
               !str_starts(t, "Max Write: ") && !str_starts(t, "Max Read: ") &&
               !str_starts(t, "Results:")) {
        st->mode = M_HEADER;
    }
    return 0;
}

/* text_lines' callback: one line to handle_line. */
static int each_line(void *st, const char *line, size_t off, unsigned lineno)
{
    return handle_line(st, line, off, lineno);
}

static int ior_parse(const struct source *src, struct arena *a, struct record_sink *out,
                     struct diag *d)
{
    struct ior_state st = {.src = src, .a = a, .d = d, .out = out};
    run_reset(&st);
    unsigned lines;
    if (text_lines(src, "IOR", each_line, &st, d, &lines))
        return -1;
    if (finish_run(&st, lines ? lines : 1, "the end of the input"))
        return -1;
    if (st.emitted)
        return 0;
    if (st.error)
        return diag_error_line(d, src, st.error_line, "IOR run failed: %s", st.error);
    return diag_error_line(d, src, lines ? lines : 1,
                           "no IOR result found: expected a results table ('access    "
                           "bw(MiB/s) ...') after an 'IOR-4.x: MPI Coordinated Test of Parallel "
                           "I/O' banner");
}

static int ior_probe(const struct source *src)
{
    int bann = 0, table = 0, summary = 0, options = 0;
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        if (mem_starts(line, len, "IOR-") && mem_find(line, len, ": MPI Coordinated Test of"))
            bann = 1;
        else if (mem_starts(line, len, "access ") && mem_find(line, len, "bw(MiB/s)"))
            table = 1;
        else if (mem_starts(line, len, "Operation ") && mem_find(line, len, "Max(MiB)"))
            summary = 1;
        else if (mem_starts(line, len, "Options:"))
            options = 1;
    }
    if (bann && (table || summary))
        return 95;
    if (bann && options) /* a run that failed before its results: IOR's all the same */
        return 90;
    if (table && summary)
        return 70;
    return bann ? 40 : 0;
}

const struct importer importer_ior = {
    .name = "ior",
    .summary = "IOR text output (4.x): per-iteration results of every test, POSIX/MPIIO/...",
    .probe = ior_probe,
    .parse = ior_parse,
};
