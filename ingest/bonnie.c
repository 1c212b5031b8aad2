/* bonnie.c: bonnie++ results: CSV lines (format_version 1.96/1.97 with 48 fields, 1.98 with 50,
 * and the unversioned 1.03 layout with 27), several per file, and the text tables bonnie++
 * prints (used only when the file has no CSV line: both describe the same runs). One record
 * per test that has a value; "+++++" (too fast to measure) is stored as a tag, never as 0. */
#include "importer.h"

#include <ctype.h>
#include <string.h>

#include "../core/scan.h"

#define N_TESTS 12

enum kind { K_THROUGHPUT, K_OPS };

static const struct test {
    const char *name, *direction, *rw;
    enum kind kind;
} tests[N_TESTS] = {
    {"putc", "write", "write", K_THROUGHPUT},    {"put_block", "write", "write", K_THROUGHPUT},
    {"rewrite", "mixed", "rw", K_THROUGHPUT},    {"getc", "read", "read", K_THROUGHPUT},
    {"get_block", "read", "read", K_THROUGHPUT}, {"seeks", "read", "randread", K_OPS},
    {"seq_create", "write", NULL, K_OPS},        {"seq_stat", "read", NULL, K_OPS},
    {"seq_del", "write", NULL, K_OPS},           {"ran_create", "write", NULL, K_OPS},
    {"ran_stat", "read", NULL, K_OPS},           {"ran_del", "write", NULL, K_OPS},
};

/* One field of a line, with its byte offset in the source (for diagnostics). */
struct field {
    const char *s; /* NUL-terminated arena copy */
    size_t off;
};

/* A run as found in a CSV line or a text table; absent fields are NULL or "". */
struct run {
    const char *csv_version, *version, *name, *file_size, *chunk_size, *num_files;
    const char *concurrency, *seeks, *seek_procs;
    struct field val[N_TESTS], cpu[N_TESTS], lat[N_TESTS];
    int text; /* values carry 1.98's k/m/g suffixes (text tables) */
    unsigned first, last;
};

struct bon_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    size_t emitted;
};

static const char *quote(struct arena *a, const char *p)
{
    char out[48];
    size_t n = 0;
    for (; *p && n < 40; p++) {
        unsigned char c = (unsigned char)*p;
        out[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[n] = '\0';
    return arena_printf(a, "%s%s", out, *p ? "..." : "");
}

static int is_too_fast(const char *s)
{
    return *s == '+' && strspn(s, "+") == strlen(s);
}

/* ---- values ---- */

/* Throughput in K/sec ("110033"; text: "617k", "305m", "1.2g") -> bytes/s. */
static int throughput(const char *s, int text, double *bps)
{
    const char *p = s;
    double v;
    if (!scan_number(&p, &v) || v < 0)
        return 0;
    double k = 1;
    if (text && *p) {
        switch (*p++) {
        case 'k':
            k = 1;
            break;
        case 'm':
            k = 1024;
            break;
        case 'g':
            k = 1024.0 * 1024;
            break;
        default:
            return 0;
        }
    }
    if (*p)
        return 0;
    *bps = v * k * 1024;
    return 1;
}

static int plain_number(const char *s, double *v)
{
    const char *p = s;
    return scan_number(&p, v) && *v >= 0 && !*p;
}

static int latency_ns(const char *s, double *ns)
{
    const char *p = s;
    double v;
    if (!scan_number(&p, &v) || v < 0)
        return 0;
    double m = unit_time_ns(p, strlen(p));
    if (m == 0)
        return 0;
    *ns = v * m;
    return 1;
}

/* bonnie++ sizes: "8096M", "16G", "256M", "4k", plain bytes. */
static int bonnie_size(const char *s, int64_t *bytes)
{
    int64_t v;
    return parse_fio_size(s, &v) ? (*bytes = v, 1) : 0;
}

/* ---- records ---- */

static int bad_field(struct bon_state *st, const struct field *f, const char *what,
                     const char *test)
{
    return diag_error_at(st->d, st->src, f->off, "expected %s for '%s', got '%s'", what, test,
                         quote(st->a, f->s));
}

static int emit_test(struct bon_state *st, const struct run *r, int i)
{
    const struct test *t = &tests[i];
    const struct field *val = &r->val[i], *cpu = &r->cpu[i], *lat = &r->lat[i];
    if (!val->s || !*val->s)
        return 0; /* the test was not run */
    struct arena *a = st->a;
    struct bench_record *rec = record_new(a, "bonnie++");
    rec->tool_version = r->version && *r->version ? r->version : NULL;
    rec->host = r->name && *r->name ? r->name : NULL;
    rec->job = t->name;
    rec->direction = t->direction;
    rec->wl.rw = t->rw;
    rec->line_first = r->first;
    rec->line_last = r->last;
    double v;
    if (is_too_fast(val->s)) {
        record_tag(a, rec, "note", "too-fast-to-measure");
    } else if (t->kind == K_THROUGHPUT) {
        if (!throughput(val->s, r->text, &v))
            return bad_field(st, val, "a throughput in K/sec", t->name);
        record_metric(a, rec, "bw_bytes_s", v);
    } else {
        if (!plain_number(val->s, &v))
            return bad_field(st, val, "a rate per second", t->name);
        record_metric(a, rec, "iops", v);
    }
    if (cpu->s && *cpu->s && !is_too_fast(cpu->s)) {
        if (!plain_number(cpu->s, &v))
            return bad_field(st, cpu, "a CPU percentage", t->name);
        record_metric(a, rec, "cpu_pct", v);
    }
    if (lat->s && *lat->s) {
        if (!latency_ns(lat->s, &v))
            return bad_field(st, lat, "a latency such as '9829us'", t->name);
        record_metric(a, rec, "lat_max_ns", v);
    }
    int64_t n;
    if (i < 6) {
        if (r->file_size && bonnie_size(r->file_size, &n))
            rec->wl.size_bytes = n;
        if (r->chunk_size && bonnie_size(r->chunk_size, &n))
            rec->wl.bs_bytes = n;
    } else if (r->num_files && *r->num_files) {
        record_tag(a, rec, "num_files", r->num_files);
    }
    const char *p = r->concurrency;
    if (p && scan_int64(&p, &n) && !*p && n > 0)
        rec->wl.numjobs = n;
    if (r->csv_version)
        record_tag(a, rec, "csv_format", r->csv_version);
    if (i == 5 && r->seeks && *r->seeks)
        record_tag(a, rec, "seeks", r->seeks);
    if (i == 5 && r->seek_procs && *r->seek_procs)
        record_tag(a, rec, "seek_procs", r->seek_procs);
    st->emitted++;
    return st->out->emit(st->out->ctx, rec);
}

static int emit_run(struct bon_state *st, const struct run *r)
{
    for (int i = 0; i < N_TESTS; i++)
        if (emit_test(st, r, i) < 0)
            return -1;
    return 0;
}

/* ---- CSV ---- */

/* Splits a line at commas into arena strings; returns the count (at most max). */
static size_t split_csv(struct arena *a, const char *line, size_t len, size_t off, struct field *f,
                        size_t max)
{
    struct field_iter it;
    const char *s;
    size_t n = 0, k;
    field_iter_init(&it, line, len, ',');
    while (field_iter_next(&it, &s, &k)) {
        if (n == max)
            return max + 1;
        f[n].s = arena_strndup(a, s, k);
        f[n].off = off + (size_t)(s - line);
        n++;
    }
    return n;
}

static int is_csv_version(const char *s)
{
    return !strcmp(s, "1.96") || !strcmp(s, "1.97") || !strcmp(s, "1.98");
}

/* The unversioned bonnie++ 1.03 line: name,size, 6 (value,cpu) pairs, files, 6 pairs. */
static int looks_103(const struct field *f, size_t n)
{
    if (n != 27 || !*f[0].s)
        return 0;
    const char *p = f[1].s;
    double v;
    return scan_number(&p, &v) && (*p == 'M' || *p == 'G' || *p == 'K' || *p == 'k') &&
           isdigit((unsigned char)*f[14].s);
}

/* 1 when the line was a CSV result (emitted), 0 when not one, -1 after an error. */
static int csv_line(struct bon_state *st, const char *line, size_t len, size_t off, unsigned lineno)
{
    struct field f[52];
    size_t n = split_csv(st->a, line, len, off, f, 51);
    struct run r = {0};
    r.first = r.last = lineno;
    if (is_csv_version(f[0].s)) {
        int v198 = !strcmp(f[0].s, "1.98");
        if (n != (v198 ? 50u : 48u))
            return diag_error_at(st->d, st->src, off,
                                 "expected %d fields in a bonnie++ %s CSV line, got %zu",
                                 v198 ? 50 : 48, f[0].s, n);
        int s = v198 ? 0 : -2; /* 1.96 has no seeks/seek_proc_count fields */
        r.csv_version = f[0].s;
        r.version = f[1].s;
        r.name = f[2].s;
        r.concurrency = f[3].s;
        r.file_size = f[5].s;
        r.chunk_size = f[6].s;
        if (v198) {
            r.seeks = f[7].s;
            r.seek_procs = f[8].s;
        }
        r.num_files = f[21 + s].s;
        for (int i = 0; i < 6; i++) {
            r.val[i] = f[9 + s + 2 * i];
            r.cpu[i] = f[10 + s + 2 * i];
            r.val[6 + i] = f[26 + s + 2 * i];
            r.cpu[6 + i] = f[27 + s + 2 * i];
        }
        for (int i = 0; i < N_TESTS; i++)
            r.lat[i] = f[38 + s + i];
    } else if (looks_103(f, n)) {
        r.csv_version = "1.03";
        r.name = f[0].s;
        r.file_size = f[1].s;
        r.num_files = f[14].s;
        for (int i = 0; i < 6; i++) {
            r.val[i] = f[2 + 2 * i];
            r.cpu[i] = f[3 + 2 * i];
            r.val[6 + i] = f[15 + 2 * i];
            r.cpu[6 + i] = f[16 + 2 * i];
        }
    } else {
        return 0;
    }
    return emit_run(st, &r) < 0 ? -1 : 1;
}

/* ---- text tables ---- */

struct tok {
    const char *s;
    size_t start, end; /* columns, end exclusive */
};

static size_t tokens(struct arena *a, const char *line, size_t len, struct tok *t, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
            i++;
        if (i == len)
            break;
        size_t b = i;
        while (i < len && line[i] != ' ' && line[i] != '\t')
            i++;
        if (n == max)
            return max + 1;
        t[n++] = (struct tok){arena_strndup(a, line + b, i - b), b, i};
    }
    return n;
}

struct table {
    int active, files; /* 0 none; files: the file-creation block */
    unsigned line;     /* of its 'Version' line */
    const char *version, *host;
    size_t val_end[6], cpu_end[6];
    int row_seen, latency_seen;
    struct run run;
};

/* Default column ends of bonnie++ 1.98/2.00 tables (values right-aligned). */
static void default_cols(struct table *tb)
{
    for (int i = 0; i < 6; i++) {
        tb->val_end[i] = 25 + 10 * (size_t)i;
        tb->cpu_end[i] = 29 + 10 * (size_t)i;
    }
}

static int nearest(const size_t *ends, size_t col, size_t tol)
{
    for (int i = 0; i < 6; i++)
        if (col + tol >= ends[i] && col <= ends[i] + tol)
            return i;
    return -1;
}

static int table_flush(struct bon_state *st, struct table *tb)
{
    int rc = 0;
    /* bonnie++ 1.96 and later print a Latency row under every result row */
    if (tb->active && tb->row_seen && !tb->latency_seen && tb->version &&
        (str_starts(tb->version, "1.9") || (tb->version[0] >= '2' && tb->version[0] <= '9')))
        return diag_error_line(st->d, st->src, tb->run.last + 1,
                               "expected a 'Latency' row after the bonnie++ result row");
    if (tb->active && tb->row_seen)
        rc = emit_run(st, &tb->run);
    tb->active = 0;
    tb->row_seen = tb->latency_seen = 0;
    return rc;
}

static int text_line(struct bon_state *st, struct table *tb, const char *line, size_t len,
                     size_t off, unsigned lineno)
{
    struct tok t[32];
    size_t n = tokens(st->a, line, len, t, 31);
    if (n == 0 || n > 31)
        return table_flush(st, tb);
    if (!strcmp(t[0].s, "Version") && n >= 3) {
        if (table_flush(st, tb) < 0)
            return -1;
        memset(tb, 0, sizeof(*tb));
        tb->active = 1;
        tb->line = lineno;
        tb->version = t[1].s;
        tb->files = mem_find(line, len, "Sequential Create") || (n > 2 && strstr(t[2].s, "Create"));
        default_cols(tb);
        return 0;
    }
    if (!tb->active)
        return 0;
    if (n == 13 || n == 14) { /* the units line: "/sec %CP" or "K/sec %CP" six times */
        int units = 1;
        for (size_t i = n - 12; i < n; i += 2)
            units &= strstr(t[i].s, "/sec") != NULL && !strcmp(t[i + 1].s, "%CP");
        if (units) {
            for (int i = 0; i < 6; i++) {
                tb->val_end[i] = t[n - 12 + 2 * (size_t)i].end;
                tb->cpu_end[i] = t[n - 11 + 2 * (size_t)i].end;
            }
            return 0;
        }
    }
    if (mem_find(line, len, "-Per Chr-") || mem_find(line, len, "-Create--") ||
        !strcmp(t[0].s, "Concurrency")) {
        if (tb->files && mem_find(line, len, "-Create--") && t[0].start == 0 && t[0].s[0] != '-')
            tb->host = t[0].s;
        return 0;
    }
    struct run *r = &tb->run;
    if (!strcmp(t[0].s, "Latency")) {
        if (!tb->row_seen)
            return 0;
        for (size_t k = 1; k < n; k++) {
            int i = nearest(tb->val_end, t[k].end >= 2 ? t[k].end - 2 : 0, 3);
            if (i < 0)
                return diag_error_at(st->d, st->src, off + t[k].start,
                                     "expected a latency under a bonnie++ column, got '%s'",
                                     quote(st->a, t[k].s));
            r->lat[tb->files ? 6 + i : i] = (struct field){t[k].s, off + t[k].start};
        }
        r->last = lineno;
        tb->latency_seen = 1;
        return table_flush(st, tb);
    }
    if (tb->row_seen)
        return 0;
    /* the data row: labels (name and size, or the files count), then the columns */
    size_t labels = tb->files ? 1 : 2;
    if (n <= labels)
        return diag_error_at(st->d, st->src, off, "expected a bonnie++ result row, got '%s'",
                             quote(st->a, t[0].s));
    size_t shift = 0, room = tb->val_end[0] > 6 ? tb->val_end[0] - 6 : 0;
    if (t[labels - 1].end > room)
        shift = t[labels - 1].end - room;
    memset(r, 0, sizeof(*r));
    r->text = 1;
    r->version = tb->version;
    r->first = r->last = lineno;
    if (tb->files) {
        r->name = tb->host;
        r->num_files = t[0].s;
    } else {
        r->name = t[0].s;
        r->file_size = t[1].s;
    }
    for (size_t k = labels; k < n; k++) {
        size_t col = t[k].end - shift;
        int i = nearest(tb->val_end, col, 2), c = -1;
        if (i < 0)
            c = nearest(tb->cpu_end, col, 2);
        if (i < 0 && c < 0)
            return diag_error_at(st->d, st->src, off + t[k].start,
                                 "expected a value under a bonnie++ column, got '%s'",
                                 quote(st->a, t[k].s));
        struct field f = {t[k].s, off + t[k].start};
        if (i >= 0)
            r->val[tb->files ? 6 + i : i] = f;
        else
            r->cpu[tb->files ? 6 + c : c] = f;
    }
    tb->row_seen = 1;
    return 0;
}

/* ---- driver ---- */

static int has_csv(const struct source *src, struct arena *a)
{
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        if (len < 5 || !memchr(line, ',', len))
            continue;
        struct field f[52];
        size_t n = split_csv(a, line, len, 0, f, 51);
        if (is_csv_version(f[0].s) || looks_103(f, n))
            return 1;
    }
    return 0;
}

/* The input ends inside its last line (bonnie++ ends every line): 1 and an error when that line
 * is part of a result (a CSV result line other than a versioned one, whose field count and
 * values show a cut), or of text tables: those of a run without -q come before its CSV line,
 * which has the exact figures, so rounded table figures may not stand for a cut run. */
static int cut_result(struct bon_state *st, int csv, const char *line, size_t len, unsigned lineno)
{
    int part = csv ? isdigit((unsigned char)line[0]) &&
                         !(len > 5 && !memcmp(line, "1.9", 3) && line[4] == ',')
                   : !!*skip_ws(line);
    if (!part)
        return 0;
    diag_error_line(st->d, st->src, lineno,
                    "expected a whole bonnie++ %s line, got the end of the input (the line is "
                    "cut)",
                    csv ? "CSV" : "table");
    return 1;
}

static int bon_parse(const struct source *src, struct arena *a, struct record_sink *out,
                     struct diag *d)
{
    struct bon_state st = {src, a, d, out, 0};
    struct arena scratch = ARENA_INIT;
    int csv = has_csv(src, &scratch);
    arena_release(&scratch);
    struct table tb = {0};
    struct line_iter it;
    const char *line;
    size_t len;
    size_t skip = bom_len(src->data, src->len);
    line_iter_init(&it, src->data + skip, src->len - skip, 0);
    while (line_iter_next(&it, &line, &len)) {
        size_t off = (size_t)(line - src->data);
        if (line + len == src->data + src->len && len && cut_result(&st, csv, line, len, it.lineno))
            return -1;
        int rc = csv ? csv_line(&st, line, len, off, it.lineno)
                     : text_line(&st, &tb, line, len, off, it.lineno);
        if (rc < 0)
            return -1;
    }
    if (!csv && tb.active && !tb.row_seen)
        return diag_error_line(d, src, it.lineno,
                               "expected a bonnie++ result row under the table of line %u, got "
                               "the end of the input",
                               tb.line);
    if (!csv && table_flush(&st, &tb) < 0)
        return -1;
    if (!st.emitted)
        return diag_error_line(d, src, it.lineno ? it.lineno : 1,
                               "no bonnie++ result found: expected a CSV line starting "
                               "'1.96,', '1.97,' or '1.98,', or a 'Version ...' table with a "
                               "result row");
    return 0;
}

static int bon_probe(const struct source *src)
{
    struct line_iter it;
    const char *line;
    size_t len;
    int score = 0;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len) && score < 100) {
        if (len > 5 &&
            (!memcmp(line, "1.96,", 5) || !memcmp(line, "1.97,", 5) || !memcmp(line, "1.98,", 5))) {
            size_t commas = 0;
            for (size_t i = 0; i < len; i++)
                commas += line[i] == ',';
            if (commas == 47 || commas == 49)
                score = 100;
            else if (commas >= 20 && score < 60)
                score = 60; /* a truncated CSV line: let the parser say what is wrong */
        } else if (len > 8 && !memcmp(line, "Version ", 8) &&
                   (mem_find(line, len, "Sequential Output") ||
                    mem_find(line, len, "Sequential Create"))) {
            score = score > 90 ? score : 90;
        }
    }
    return score;
}

const struct importer importer_bonnie = {
    .name = "bonnie++",
    .summary = "bonnie++ CSV (1.96, 1.98) and text tables",
    .probe = bon_probe,
    .parse = bon_parse,
};
