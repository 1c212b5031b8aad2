/* iozone.c: iozone's text output (3.4xx): the banner and settings lines, the auto/normal mode
 * table (a row per file size x record size, a column per test), the Excel-style section that
 * -R prints after it (a block per test, a row per file size, a column per record size) and the
 * throughput mode's blocks (-t N: "Children see throughput for N initial writers = X kB/sec"
 * and the lines under it). One record per cell: file size, record size and test. The lines
 * come from iozone's src/current/iozone.c (auto_test, the *_perf_test functions, dump_report,
 * the throughput_test blocks). */
#include "importer.h"
#include "text_lines.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"

/* iozone's kilobyte: its rates are bytes per second shifted right by 10 (writerate >>= 10),
 * its sizes bytes / 1024. */
#define IOZ_KB 1024.0

enum unit { U_KBS, U_OPS, U_USOP };

enum dir { D_READ, D_WRITE, D_MIXED };

/* iozone's tests: the auto table's column name, the Excel block, the throughput block, and the
 * fio rw= that does the same I/O where fio has one (else the test's own name: a report must not
 * pool a rewrite or a reread with the first pass, whose cache state differs). */
static const struct test {
    const char *name;  /* tag test, and rw where fio has none */
    const char *excel; /* "Writer report" */
    const char *tput;  /* "initial writers" (throughput mode) */
    const char *tpx;   /* "Initial write" (the throughput mode's Excel rows) */
    const char *rw;
    enum dir dir;
    int stdio; /* fwrite/fread: the C library's buffered calls, no fio engine */
} tests[] = {
    {"write", "Writer report", "initial writers", "Initial write", "write", D_WRITE, 0},
    {"rewrite", "Re-writer report", "rewriters", "Rewrite", "rewrite", D_WRITE, 0},
    {"read", "Reader report", "readers", "Read", "read", D_READ, 0},
    {"reread", "Re-Reader report", "re-readers", "Re-read", "reread", D_READ, 0},
    {"randread", "Random read report", "random readers", "Random read", "randread", D_READ, 0},
    {"randwrite", "Random write report", "random writers", "Random write", "randwrite", D_WRITE, 0},
    {"bkwdread", "Backward read report", "reverse readers", "Reverse read", "bkwdread", D_READ, 0},
    {"recrewrite", "Record rewrite report", NULL, NULL, "recrewrite", D_WRITE, 0},
    {"strideread", "Stride read report", "stride readers", "Stride read", "strideread", D_READ, 0},
    {"fwrite", "Fwrite report", "fwriters", "Fwrite", "fwrite", D_WRITE, 1},
    {"frewrite", "Re-Fwrite report", NULL, NULL, "frewrite", D_WRITE, 1},
    {"fread", "Fread report", "freaders", "Fread", "fread", D_READ, 1},
    {"freread", "Re-Fread report", NULL, NULL, "freread", D_READ, 1},
    {"mixed", NULL, "mixed workload", "Mixed workload", "randrw", D_MIXED, 0},
    {"pwrite", NULL, "pwrite writers", "Pwrite", "pwrite", D_WRITE, 0},
    {"pread", NULL, "pread readers", "Pread", "pread", D_READ, 0},
};

/* The auto table's columns in print order, the first N_COLS tests: its second header line names
 * them ("random read" is "read" under "random" on the line above). */
enum { N_COLS = 13 };
static const char *const col_names[N_COLS] = {"write",    "rewrite", "read",    "reread", "read",
                                              "write",    "read",    "rewrite", "read",   "fwrite",
                                              "frewrite", "fread",   "freread"};

/* How far a value's last character may sit from its column name's: iozone prints the names
 * and the values with different widths (read: name ends at 50, values at 51). */
enum { COL_SLACK = 2 };

/* One cell of the table or of the Excel section. */
struct cell {
    int test;
    int64_t file_kb, rec_kb; /* rec_kb 0: the Excel section's row, not yet placed */
    double v;
    unsigned line;
    size_t off;
};

struct cells {
    struct cell *c;
    size_t n, cap;
};

/* The lines under "Children see throughput for N <test> = X unit", in order. */
enum tfield { T_CHILDREN, T_PARENT, T_MIN, T_MAX, T_AVG, T_XFER, T_COUNT };

struct tput {
    int test;
    int64_t procs, file_kb, rec_kb;
    double v[T_COUNT];
    unsigned char have[T_COUNT];
    unsigned first, last;
};

struct ioz_run {
    unsigned first, last, banner;
    const char *version, *command;
    enum unit unit;
    int unit_said, direct, osync, fsync_in, close_in, mmap, complete;
    int64_t procs, tp_file_kb, tp_rec_kb, file_kb, rec_kb; /* 0 until printed */
    /* the auto table */
    int table; /* 1 inside its rows */
    int col_end[N_COLS], col_n;
    unsigned header_line;
    unsigned empty_row; /* a row with no value: the run failed at it */
    struct cells text, excel;
    /* the Excel section */
    int xtest;        /* the block being read, -1 none */
    int64_t xrec[64]; /* its record sizes */
    size_t nxrec;
    int xstate; /* 0 none, 1 after the block's name, 2 rows */
    int tpx;    /* inside the throughput mode's Excel section */
    /* throughput mode */
    struct tput *tp;
    size_t ntp, atp;
    int tp_open; /* the last block still takes its lines */
};

struct ioz_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    struct ioz_run run;
    unsigned run_no, emitted;
    const char *failed;
    unsigned failed_line;
};

static void cells_add(struct cells *cs, struct cell c)
{
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 64;
        cs->c = xrealloc(cs->c, cs->cap * sizeof(*cs->c));
    }
    cs->c[cs->n++] = c;
}

static void run_release(struct ioz_run *r)
{
    free(r->text.c);
    free(r->excel.c);
    free(r->tp);
    memset(r, 0, sizeof(*r));
    r->xtest = -1;
}

static int at_end(const char *p)
{
    return !*skip_ws(p);
}

/* A rate or size iozone printed: finite and not negative. */
static int scan_measure(const char **p, double *v)
{
    const char *q = *p;
    if (!scan_number(&q, v) || !isfinite(*v) || *v < 0)
        return 0;
    *p = q;
    return 1;
}

static size_t off_of(const char *t, const char *p, size_t off)
{
    return off + (size_t)(p - t);
}

/* ---- the settings lines ---- */

/* "Version $Revision: 3.489 $": "iozone 3.489", or NULL. */
static const char *version_of(struct arena *a, const char *t)
{
    const char *p = t;
    if (!scan_lit(&p, "Version $Revision: "))
        return NULL;
    size_t n = strcspn(p, " $");
    if (!n)
        return NULL;
    return arena_printf(a, "iozone %.*s", (int)n, p);
}

static int header_line(struct ioz_state *st, const char *t, size_t off)
{
    struct ioz_run *r = &st->run;
    const char *p = t, *v;
    int64_t n, m;
    if ((v = version_of(st->a, t))) {
        r->version = v;
        return 0;
    }
    if (!strcmp(t, "Output is in kBytes/sec") || !strcmp(t, "Output is in Kbytes/sec")) {
        r->unit = U_KBS, r->unit_said = 1;
        return 0;
    }
    if (str_starts(t, "OPS Mode. Output is in operations per second")) {
        r->unit = U_OPS, r->unit_said = 1;
        return 0;
    }
    if (str_starts(t, "Microseconds/op Mode. Output is in microseconds per operation")) {
        r->unit = U_USOP, r->unit_said = 1;
        return 0;
    }
    if (!strcmp(t, "O_DIRECT feature enabled")) {
        r->direct = 1;
        return 0;
    }
    if (!strcmp(t, "SYNC Mode.")) {
        r->osync = 1;
        return 0;
    }
    if (!strcmp(t, "Include fsync in write timing")) {
        r->fsync_in = 1;
        return 0;
    }
    if (!strcmp(t, "Include close in write timing")) {
        r->close_in = 1;
        return 0;
    }
    if (!strcmp(t, "Using mmap files")) {
        r->mmap = 1;
        return 0;
    }
    if (scan_lit(&p, "Command line used: ")) {
        r->command = arena_strdup(st->a, p);
        return 0;
    }
    if (scan_lit(&p, "File size set to ")) {
        if (!scan_int64(&p, &n) || !scan_lit(&p, " kB") || !at_end(p))
            return diag_error_at(st->d, st->src, off_of(t, p, off),
                                 "expected a file size such as '1024 kB', got '%.40s'", p);
        r->file_kb = n;
        return 0;
    }
    if (scan_lit(&p, "Record Size ")) {
        if (!scan_int64(&p, &n) || !scan_lit(&p, " kB") || !at_end(p))
            return diag_error_at(st->d, st->src, off_of(t, p, off),
                                 "expected a record size such as '64 kB', got '%.40s'", p);
        r->rec_kb = n;
        return 0;
    }
    if (scan_lit(&p, "Throughput test with ")) {
        if (!scan_int64(&p, &n) || n <= 0 ||
            !(scan_lit(&p, " processes") || scan_lit(&p, " threads")) || !at_end(p))
            return diag_error_at(st->d, st->src, off_of(t, p, off),
                                 "expected a process count such as '4 processes', got '%.40s'", p);
        r->procs = n;
        return 0;
    }
    if (scan_lit(&p, "Each process writes a ") || scan_lit(&p, "Each thread writes a ")) {
        if (!scan_int64(&p, &n) || !scan_lit(&p, " kByte file in ") || !scan_int64(&p, &m) ||
            !scan_lit(&p, " kByte records") || !at_end(p))
            return diag_error_at(st->d, st->src, off_of(t, p, off),
                                 "expected 'N kByte file in M kByte records', got '%.40s'", p);
        r->tp_file_kb = n, r->tp_rec_kb = m;
        return 0;
    }
    return 0;
}

/* ---- the auto table ---- */

/* The second header line ("kB  reclen    write  rewrite ..."): each column's last character. */
static int table_header(struct ioz_state *st, const char *t, size_t off, unsigned no)
{
    struct ioz_run *r = &st->run;
    const char *p = skip_ws(t) + strlen("kB  reclen");
    r->col_n = 0;
    for (p = skip_ws(p); *p; p = skip_ws(p)) {
        size_t n = strcspn(p, " \t");
        if (r->col_n == N_COLS || strlen(col_names[r->col_n]) != n ||
            memcmp(col_names[r->col_n], p, n))
            return diag_error_at(st->d, st->src, off_of(t, p, off),
                                 "expected iozone's column '%s', got '%.*s'",
                                 r->col_n < N_COLS ? col_names[r->col_n] : "(none)", (int)n, p);
        r->col_end[r->col_n++] = (int)(p + n - t);
        p += n;
    }
    if (r->col_n != N_COLS)
        return diag_error_at(st->d, st->src, off + strlen(t),
                             "expected iozone's column '%s', got the end of the line",
                             col_names[r->col_n]);
    r->table = 1;
    r->header_line = no;
    return 0;
}

/* A row of the table: file size and record size in kB, then a value under each test run. */
static int table_row(struct ioz_state *st, const char *t, size_t off, unsigned no)
{
    struct ioz_run *r = &st->run;
    const char *p = skip_ws(t);
    int64_t fkb, rkb;
    if (!scan_int64(&p, &fkb) || (*p && *p != ' ' && *p != '\t'))
        return diag_error_at(st->d, st->src, off_of(t, skip_ws(t), off),
                             "expected a file size in kB at the start of an iozone row, got "
                             "'%.40s'",
                             skip_ws(t));
    const char *q = skip_ws(p);
    if (!*q) {
        return diag_error_at(st->d, st->src, off_of(t, q, off),
                             "expected a record size in kB after the file size, got the end "
                             "of the line");
    }
    if (!scan_int64(&q, &rkb) || (*q && *q != ' ' && *q != '\t'))
        return diag_error_at(st->d, st->src, off_of(t, skip_ws(p), off),
                             "expected a record size in kB after the file size, got '%.40s'",
                             skip_ws(p));
    if (fkb <= 0 || rkb <= 0)
        return diag_error_at(st->d, st->src, off_of(t, skip_ws(t), off),
                             "expected sizes above 0 in an iozone row, got '%.40s'", skip_ws(t));
    int col = 0, values = 0;
    for (p = skip_ws(q); *p; p = skip_ws(p)) {
        const char *tok = p;
        size_t n = strcspn(p, " \t");
        int end = (int)(p + n - t);
        while (col < N_COLS && r->col_end[col] + COL_SLACK < end)
            col++;
        if (col == N_COLS || end < r->col_end[col] - COL_SLACK)
            return diag_error_at(st->d, st->src, off_of(t, tok, off),
                                 "expected a value under a column of iozone's table (line %u), "
                                 "got '%.*s'",
                                 r->header_line, (int)n, tok);
        double v;
        const char *e = tok;
        if (!scan_measure(&e, &v) || e != tok + n)
            return diag_error_at(st->d, st->src, off_of(t, tok, off),
                                 "expected a number under iozone's '%s' column, got '%.*s'",
                                 tests[col].name, (int)n, tok);
        cells_add(&r->text, (struct cell){col, fkb, rkb, v, no, off_of(t, tok, off)});
        values++;
        col++;
        p += n;
    }
    if (!values)
        r->empty_row = no;
    return 0;
}

/* ---- the Excel section ---- */

static int excel_test(const char *name, size_t n)
{
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
        if (tests[i].excel && strlen(tests[i].excel) == n && !memcmp(tests[i].excel, name, n))
            return (int)i;
    return -1;
}

/* '"64"': the number between quotes. */
static int quoted_int(const char **p, int64_t *v)
{
    const char *q = *p;
    if (!scan_lit(&q, "\"") || !scan_int64(&q, v) || !scan_lit(&q, "\""))
        return 0;
    *p = q;
    return 1;
}

static int excel_line(struct ioz_state *st, const char *t, size_t off, unsigned no)
{
    struct ioz_run *r = &st->run;
    const char *p = skip_ws(t);
    if (r->xstate == 1) { /* the record sizes */
        r->nxrec = 0;
        while (*p) {
            int64_t v;
            if (!quoted_int(&p, &v) || v <= 0 || (*p && *p != ' ' && *p != '\t'))
                return diag_error_at(st->d, st->src, off_of(t, p, off),
                                     "expected a record size such as '\"4\"' in iozone's '%s', "
                                     "got '%.40s'",
                                     tests[r->xtest].excel, p);
            if (r->nxrec == ARRAY_SIZE(r->xrec))
                return diag_error_at(st->d, st->src, off_of(t, p, off),
                                     "expected at most %zu record sizes in iozone's '%s'",
                                     ARRAY_SIZE(r->xrec), tests[r->xtest].excel);
            r->xrec[r->nxrec++] = v;
            p = skip_ws(p);
        }
        if (!r->nxrec)
            return diag_error_at(st->d, st->src, off,
                                 "expected the record sizes of iozone's '%s', got an empty line",
                                 tests[r->xtest].excel);
        r->xstate = 2;
        return 0;
    }
    int64_t fkb;
    const char *q = p;
    if (!quoted_int(&q, &fkb) || fkb <= 0)
        return diag_error_at(st->d, st->src, off_of(t, p, off),
                             "expected a row of iozone's '%s' such as '\"64\"   477808', got "
                             "'%.40s'",
                             tests[r->xtest].excel, p);
    size_t first = r->excel.n;
    for (p = skip_ws(q); *p; p = skip_ws(p)) {
        const char *tok = p;
        size_t n = strcspn(p, " \t");
        double v;
        if (!scan_measure(&p, &v) || p != tok + n)
            return diag_error_at(st->d, st->src, off_of(t, tok, off),
                                 "expected a number in iozone's '%s', got '%.*s'",
                                 tests[r->xtest].excel, (int)n, tok);
        cells_add(&r->excel, (struct cell){r->xtest, fkb, 0, v, no, off_of(t, tok, off)});
        p = tok + n;
    }
    size_t nv = r->excel.n - first;
    /* dump_report prints a row's values without their record sizes: those run for this file
     * size, in order. They are the header's sizes up to the file size; in auto mode above
     * 32 MB iozone skips those below 64 kB (without -z), so then the largest ones. */
    size_t fit = 0;
    while (fit < r->nxrec && r->xrec[fit] <= fkb)
        fit++;
    if (nv == 0 || nv > fit)
        return diag_error_at(st->d, st->src, off_of(t, skip_ws(t), off),
                             "expected 1 to %zu values (the record sizes up to %" PRId64
                             " kB) in this row of iozone's '%s', got %zu",
                             fit, fkb, tests[r->xtest].excel, nv);
    for (size_t k = 0; k < nv; k++)
        r->excel.c[first + k].rec_kb = r->xrec[fit - nv + k];
    return 0;
}

/* The throughput mode's Excel section: '"  Initial write "  573204.75 ' rows, checked against
 * the blocks (the k-th value of a row is the k-th "Children see" of its test). */
static int tpx_line(struct ioz_state *st, const char *t, size_t off)
{
    struct ioz_run *r = &st->run;
    const char *p = skip_ws(t);
    if (str_starts(p, "\"Record size = ") || str_starts(p, "\"Output is in ") ||
        str_starts(p, "\"File size = "))
        return 0;
    if (*p != '"')
        return diag_error_at(st->d, st->src, off_of(t, p, off),
                             "expected a row of iozone's throughput report, got '%.40s'", p);
    const char *name = skip_ws(p + 1), *close = strchr(name, '"');
    size_t n = close ? (size_t)(close - name) : 0;
    while (n && name[n - 1] == ' ')
        n--;
    int test = -1;
    for (size_t i = 0; close && i < ARRAY_SIZE(tests); i++)
        if (tests[i].tpx && strlen(tests[i].tpx) == n && !memcmp(tests[i].tpx, name, n))
            test = (int)i;
    if (test < 0)
        return diag_error_at(st->d, st->src, off_of(t, name, off),
                             "expected a test of iozone's throughput report such as 'Initial "
                             "write', got '%.40s'",
                             name);
    size_t k = 0;
    for (p = skip_ws(close + 1); *p; p = skip_ws(p), k++) {
        const char *tok = p;
        double v;
        if (!scan_measure(&p, &v) || (*p && *p != ' ' && *p != '\t'))
            return diag_error_at(st->d, st->src, off_of(t, tok, off),
                                 "expected a number in iozone's throughput report, got '%.40s'",
                                 tok);
        size_t seen = 0, i;
        for (i = 0; i < r->ntp; i++)
            if (r->tp[i].test == test && seen++ == k)
                break;
        if (i == r->ntp || fabs(r->tp[i].v[T_CHILDREN] - v) > 0.005)
            return diag_error_at(st->d, st->src, off_of(t, tok, off),
                                 "expected the 'Children see throughput' of iozone's %s block "
                                 "%zu, got '%.*s'",
                                 tests[test].tput, k + 1, (int)(p - tok), tok);
    }
    return 0;
}

/* ---- throughput mode ---- */

static const struct tline {
    const char *start;
    enum tfield f;
    int optional; /* Parent sees: not in a distributed (-+m) run */
} tlines[] = {
    {"Parent sees throughput for ", T_PARENT, 1},
    {"Min throughput per ", T_MIN, 0},
    {"Max throughput per ", T_MAX, 0},
    {"Avg throughput per ", T_AVG, 0},
    {"Min xfer ", T_XFER, 0},
};

/* "= 1391207.38 kB/sec" (rate) or "= 256.00 kB" (xfer): the value. */
static int tput_value(struct ioz_state *st, const char *t, const char *p, size_t off, int rate,
                      double *v)
{
    struct ioz_run *r = &st->run;
    const char *eq = strchr(p, '=');
    const char *q = eq ? skip_ws(eq + 1) : p;
    const char *want = r->unit == U_OPS ? (rate ? "ops/sec" : "ops") : (rate ? "kB/sec" : "kB");
    const char *alt = r->unit == U_OPS ? want : (rate ? "KB/sec" : "KB");
    const char *v0 = q;
    if (!eq || !scan_measure(&q, v) || !scan_lit(&q, " ") ||
        !(scan_lit(&q, want) || scan_lit(&q, alt)) || !at_end(q))
        return diag_error_at(st->d, st->src, off_of(t, v0, off),
                             "expected a number and '%s' after '=', got '%.40s'", want, v0);
    return 0;
}

static int tput_children(struct ioz_state *st, const char *t, const char *p, size_t off,
                         unsigned no)
{
    struct ioz_run *r = &st->run;
    int64_t n;
    const char *q = skip_ws(p);
    if (!scan_int64(&q, &n) || n <= 0)
        return diag_error_at(st->d, st->src, off_of(t, q, off),
                             "expected a process count after 'Children see throughput for', "
                             "got '%.40s'",
                             q);
    const char *name = skip_ws(q), *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    while (len && (name[len - 1] == ' ' || name[len - 1] == '\t'))
        len--;
    int test = -1;
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
        if (tests[i].tput && strlen(tests[i].tput) == len && !memcmp(tests[i].tput, name, len))
            test = (int)i;
    if (test < 0)
        return diag_error_at(st->d, st->src, off_of(t, name, off),
                             "expected an iozone throughput test such as 'initial writers', got "
                             "'%.*s'",
                             (int)len, name);
    if (r->ntp == r->atp) {
        r->atp = r->atp ? 2 * r->atp : 16;
        r->tp = xrealloc(r->tp, r->atp * sizeof(*r->tp));
    }
    struct tput *b = &r->tp[r->ntp];
    memset(b, 0, sizeof(*b));
    b->test = test;
    b->procs = n;
    b->file_kb = r->tp_file_kb ? r->tp_file_kb : r->file_kb;
    b->rec_kb = r->tp_rec_kb ? r->tp_rec_kb : r->rec_kb;
    b->first = b->last = no;
    if (tput_value(st, t, name + len, off, 1, &b->v[T_CHILDREN]))
        return -1;
    b->have[T_CHILDREN] = 1;
    r->ntp++;
    r->tp_open = 1;
    return 0;
}

/* Whether the last block has every line it must have; else the error at line no. */
static int tput_close(struct ioz_state *st, unsigned no, const char *got)
{
    struct ioz_run *r = &st->run;
    if (!r->tp_open)
        return 0;
    r->tp_open = 0;
    struct tput *b = &r->tp[r->ntp - 1];
    for (size_t i = 0; i < ARRAY_SIZE(tlines); i++)
        if (!tlines[i].optional && !b->have[tlines[i].f])
            return diag_error_line(st->d, st->src, no,
                                   "expected iozone's '%s...' line in the %s block, got %s",
                                   tlines[i].start, tests[b->test].tput, got);
    return 0;
}

/* A line under "Children see": 1 when it is one (or the error's -1), 0 when not. */
static int tput_line(struct ioz_state *st, const char *t, size_t off, unsigned no)
{
    struct ioz_run *r = &st->run;
    struct tput *b = &r->tp[r->ntp - 1];
    for (size_t i = 0; i < ARRAY_SIZE(tlines); i++) {
        if (!str_starts(t, tlines[i].start))
            continue;
        if (b->have[tlines[i].f])
            return diag_error_at(st->d, st->src, off,
                                 "expected one '%s...' line in iozone's %s block, got a second",
                                 tlines[i].start, tests[b->test].tput);
        if (tput_value(st, t, t + strlen(tlines[i].start), off, tlines[i].f != T_XFER,
                       &b->v[tlines[i].f]))
            return -1;
        b->have[tlines[i].f] = 1;
        b->last = no;
        return 1;
    }
    /* -+u's CPU line and -C's per-child lines belong to the block; not read */
    if (str_starts(t, "CPU Utilization:") || str_starts(t, "CPU utilization:") ||
        str_starts(t, "Child["))
        return 1;
    return 0;
}

/* ---- records ---- */

static void set_workload(const struct ioz_run *r, const struct test *tt, int64_t fkb, int64_t rkb,
                         int64_t procs, struct bench_record *rec)
{
    struct workload *wl = &rec->wl;
    wl->rw = tt->rw;
    wl->bs_bytes = rkb > 0 ? (int64_t)(rkb * IOZ_KB) : WL_UNKNOWN;
    wl->size_bytes = fkb > 0 ? (int64_t)(fkb * IOZ_KB) : WL_UNKNOWN;
    wl->numjobs = procs;
    wl->iodepth = 1;
    if (r->banner) { /* the settings are printed only after the banner */
        /* read()/write() after lseek(): fio's sync engine; -B maps the file; the f* tests go
         * through stdio, which no fio engine does */
        wl->ioengine = tt->stdio ? NULL : r->mmap ? "mmap" : "sync";
        wl->direct = r->direct;
        wl->sync = r->osync;
        wl->fsync = 0;
    }
}

static void add_tags(struct ioz_state *st, const struct ioz_run *r, const struct test *tt,
                     struct bench_record *rec, const char *section)
{
    struct arena *a = st->a;
    record_tag(a, rec, "test", tt->name);
    record_tag(a, rec, "section", section);
    if (tt->stdio)
        record_tag(a, rec, "api", "stdio");
    if (r->fsync_in)
        record_tag(a, rec, "fsync_end", "on");
    if (r->close_in)
        record_tag(a, rec, "close_in_timing", "on");
    if (!r->unit_said)
        record_tag(a, rec, "unit_assumed", "kB/s");
    if (r->command)
        record_tag(a, rec, "command", r->command);
}

static struct bench_record *new_record(struct ioz_state *st, const struct ioz_run *r,
                                       const struct test *tt)
{
    struct bench_record *rec = record_new(st->a, "iozone");
    rec->tool_version = r->version;
    rec->direction = tt->dir == D_READ ? "read" : tt->dir == D_WRITE ? "write" : "mixed";
    rec->run_no = st->run_no;
    return rec;
}

/* The value of a cell in its unit, as metrics. */
static void cell_metric(struct arena *a, struct bench_record *rec, enum unit u, double v)
{
    if (u == U_KBS)
        record_metric(a, rec, "bw_bytes_s", v * IOZ_KB);
    else if (u == U_OPS)
        record_metric(a, rec, "iops", v);
    else
        record_metric(a, rec, "lat_mean_ns", v * 1000.0);
}

static int emit_cell(struct ioz_state *st, const struct ioz_run *r, const struct cell *c,
                     const char *section)
{
    const struct test *tt = &tests[c->test];
    struct bench_record *rec = new_record(st, r, tt);
    rec->job = arena_printf(st->a, "%s %" PRId64 "k/%" PRId64 "k", tt->name, c->file_kb, c->rec_kb);
    rec->line_first = rec->line_last = c->line;
    set_workload(r, tt, c->file_kb, c->rec_kb, 1, rec);
    cell_metric(st->a, rec, r->unit, c->v);
    add_tags(st, r, tt, rec, section);
    return st->out->emit(st->out->ctx, rec);
}

static int emit_tput(struct ioz_state *st, const struct ioz_run *r, const struct tput *b)
{
    static const char *const kbs[T_COUNT] = {"bw_bytes_s",           "parent_bw_bytes_s",
                                             "proc_bw_min_bytes_s",  "proc_bw_max_bytes_s",
                                             "proc_bw_mean_bytes_s", "min_xfer_bytes"};
    static const char *const ops[T_COUNT] = {"iops",          "parent_iops",    "proc_iops_min",
                                             "proc_iops_max", "proc_iops_mean", "min_xfer_ops"};
    const struct test *tt = &tests[b->test];
    struct bench_record *rec = new_record(st, r, tt);
    rec->job = arena_printf(st->a, "%s %" PRId64 "k/%" PRId64 "k x%" PRId64, tt->name, b->file_kb,
                            b->rec_kb, b->procs);
    rec->line_first = b->first;
    rec->line_last = b->last;
    set_workload(r, tt, b->file_kb, b->rec_kb, b->procs, rec);
    for (int f = 0; f < T_COUNT; f++)
        if (b->have[f])
            record_metric(st->a, rec, r->unit == U_OPS ? ops[f] : kbs[f],
                          r->unit == U_OPS ? b->v[f] : b->v[f] * IOZ_KB);
    add_tags(st, r, tt, rec, "throughput");
    return st->out->emit(st->out->ctx, rec);
}

static int same_cell(const struct cell *a, const struct cell *b)
{
    return a->test == b->test && a->file_kb == b->file_kb && a->rec_kb == b->rec_kb;
}

/* The text table and the Excel section of one run print the same cells: each must be in both,
 * with one value (a copy edited in one place is refused). */
static int cross_check(struct ioz_state *st, const struct ioz_run *r)
{
    for (size_t i = 0; i < r->excel.n; i++) {
        const struct cell *x = &r->excel.c[i];
        size_t j = 0;
        while (j < r->text.n && !same_cell(&r->text.c[j], x))
            j++;
        if (j == r->text.n)
            return diag_error_at(st->d, st->src, x->off,
                                 "expected a cell of iozone's table in its Excel section, got '%s' "
                                 "at %" PRId64 " kB / %" PRId64 " kB, which the table lacks",
                                 tests[x->test].excel, x->file_kb, x->rec_kb);
        if (r->text.c[j].v != x->v)
            return diag_error_at(st->d, st->src, x->off,
                                 "expected %.0f in iozone's '%s' at %" PRId64 " kB / %" PRId64
                                 " kB (the table's value, line %u), got %.0f",
                                 r->text.c[j].v, tests[x->test].excel, x->file_kb, x->rec_kb,
                                 r->text.c[j].line, x->v);
    }
    for (size_t j = 0; j < r->text.n; j++) {
        const struct cell *c = &r->text.c[j];
        size_t i = 0;
        while (i < r->excel.n && !same_cell(&r->excel.c[i], c))
            i++;
        if (i == r->excel.n && tests[c->test].excel)
            return diag_error_line(st->d, st->src, r->last ? r->last : c->line,
                                   "expected iozone's Excel section to hold '%s' at %" PRId64
                                   " kB / %" PRId64 " kB (line %u), got the section without it",
                                   tests[c->test].excel, c->file_kb, c->rec_kb, c->line);
    }
    return 0;
}

/* Ends the current run: emits its results, all of them, or refuses it. */
static int finish_run(struct ioz_state *st, unsigned no, const char *got)
{
    struct ioz_run *r = &st->run;
    int rc = 0;
    if (tput_close(st, no, got))
        return -1;
    if (r->xstate == 1)
        return diag_error_line(st->d, st->src, no,
                               "expected the record sizes of iozone's '%s', got %s",
                               tests[r->xtest].excel, got);
    int any = r->text.n || r->excel.n || r->ntp;
    if (!any) {
        run_release(r);
        return 0;
    }
    if (r->empty_row && !st->failed)
        return diag_error_line(st->d, st->src, r->empty_row + 1,
                               "expected iozone's next row or its message, got %s", got);
    if (r->banner && !r->complete && !r->excel.n)
        return diag_error_line(st->d, st->src, no,
                               "expected 'iozone test complete.' at the end of the run, got %s",
                               got);
    if (r->text.n && r->excel.n && cross_check(st, r))
        return -1;
    const struct cells *cs = r->text.n ? &r->text : &r->excel;
    for (size_t i = 0; !rc && i < cs->n; i++)
        rc = emit_cell(st, r, &cs->c[i], r->text.n ? "table" : "excel");
    for (size_t i = 0; !rc && i < r->ntp; i++)
        rc = emit_tput(st, r, &r->tp[i]);
    if (rc)
        return -1;
    st->emitted++;
    st->run_no++;
    run_release(r);
    return 0;
}

static int is_banner(const char *t)
{
    return !strcmp(t, "Iozone: Performance Test of File I/O");
}

/* A table row: digits first, indented. */
static int row_like(const char *line)
{
    const char *p = skip_ws(line);
    return p != line && *p >= '0' && *p <= '9';
}

static int handle_line(struct ioz_state *st, const char *line, size_t off, unsigned no)
{
    struct ioz_run *r = &st->run;
    const char *t = skip_ws(line);
    size_t toff = off_of(line, t, off);
    if (is_banner(t)) {
        if (finish_run(st, no, "the next run's banner"))
            return -1;
        r->banner = r->first = no;
        return 0;
    }
    if (r->tp_open) {
        int k = *t ? tput_line(st, t, toff, no) : 0;
        if (k < 0)
            return -1;
        if (k)
            return 0;
        if (tput_close(st, no, *t ? "another line" : "an empty line"))
            return -1;
    }
    if (!*t) {
        r->table = 0;
        if (r->xstate == 2)
            r->xstate = 0, r->xtest = -1;
        return 0;
    }
    if (!r->first)
        r->first = no;
    r->last = no;
    if (r->table) {
        if (row_like(line))
            return table_row(st, line, off, no);
        r->table = 0;
    }
    if (r->empty_row && !st->failed) {
        /* what iozone printed after a row it could not finish: why */
        st->failed = arena_strdup(st->a, t);
        st->failed_line = no;
        return 0;
    }
    if (r->xstate) {
        if (*t == '"' && (t[1] < '0' || t[1] > '9') && r->xstate == 2)
            r->xstate = 0, r->xtest = -1; /* the next block's name, no blank line between */
        else
            return excel_line(st, line, off, no);
    }
    if (*t == '"' && !r->tpx) {
        const char *close = strchr(t + 1, '"');
        if (close && at_end(close + 1) && str_starts(t, "\"Throughput report ")) {
            r->tpx = 1;
            return 0;
        }
        if (close && at_end(close + 1)) {
            int test = excel_test(t + 1, (size_t)(close - t - 1));
            if (test < 0)
                return diag_error_at(st->d, st->src, toff + 1,
                                     "expected an iozone report such as 'Writer report', got "
                                     "'%.*s'",
                                     (int)(close - t - 1), t + 1);
            for (size_t i = 0; i < r->excel.n; i++)
                if (r->excel.c[i].test == test)
                    return diag_error_at(st->d, st->src, toff + 1,
                                         "expected one '%s' in the run, got a second",
                                         tests[test].excel);
            r->xtest = test;
            r->xstate = 1;
            return 0;
        }
    }
    if (r->tpx && *t == '"')
        return tpx_line(st, line, off);
    r->tpx = 0;
    if (!strcmp(t, "iozone test complete.")) {
        r->complete = 1;
        return 0;
    }
    const char *p = t;
    if (scan_lit(&p, "Children see throughput for"))
        return tput_children(st, t, p, toff, no);
    if (str_starts(t, "kB  reclen"))
        return table_header(st, line, off, no);
    return header_line(st, t, toff);
}

/* text_lines' callback: one line to handle_line. */
static int each_line(void *st, const char *line, size_t off, unsigned lineno)
{
    return handle_line(st, line, off, lineno);
}

static int ioz_parse(const struct source *src, struct arena *a, struct record_sink *out,
                     struct diag *d)
{
    struct ioz_state st = {.src = src, .a = a, .d = d, .out = out};
    run_release(&st.run);
    unsigned lines;
    int rc = text_lines(src, "iozone", each_line, &st, d, &lines);
    if (!rc && st.failed && st.run.empty_row)
        rc = diag_error_line(d, src, st.failed_line, "iozone run failed: %s", st.failed);
    if (!rc)
        rc = finish_run(&st, lines ? lines : 1, "the end of the input");
    if (!rc && !st.emitted)
        rc = diag_error_line(d, src, lines ? lines : 1,
                             "no iozone result found: expected its table ('kB  reclen  write "
                             "...'), an Excel section ('\"Writer report\"') or a 'Children see "
                             "throughput' block");
    run_release(&st.run);
    return rc ? -1 : 0;
}

/* ---- probe ---- */

static int ioz_probe(const struct source *src)
{
    int banner = 0, header = 0, excel = 0, children = 0;
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        const char *t = line;
        while (len && (*t == ' ' || *t == '\t'))
            t++, len--;
        if (mem_starts(t, len, "Iozone: Performance Test of File I/O"))
            banner = 1;
        else if (mem_starts(t, len, "kB  reclen    write"))
            header = 1;
        else if (mem_starts(t, len, "\"Writer report\"") ||
                 mem_starts(t, len, "\"Reader report\"") ||
                 mem_starts(t, len, "\"Re-writer report\""))
            excel = 1;
        else if (mem_starts(t, len, "Children see throughput for "))
            children = 1;
    }
    if (banner && (header || children || excel))
        return 95;
    if (header || excel || children)
        return 75;
    return banner ? 30 : 0;
}

const struct importer importer_iozone = {
    .name = "iozone",
    .summary = "iozone text output: auto/-i table, -R Excel section, -t throughput blocks",
    .probe = ioz_probe,
    .parse = ioz_parse,
};
