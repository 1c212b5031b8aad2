/* dd.c: dd transcripts (GNU coreutils, BSD/macOS, BusyBox), possibly holding several runs,
 * with the dd command lines (`+ dd if=... of=... bs=1M`) and shell `time` output around them.
 * One record per dd summary; status=progress updates are not results. */
#include "importer.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

struct dd_cmd {
    int present, busybox;
    const char *ifile, *ofile, *iflag, *oflag, *conv;
    int64_t bs, ibs, obs, count;
};

struct dd_xfer {
    int present;
    double bytes, secs;
    const char *variant; /* gnu, bsd, busybox */
    const char *rate;    /* the rate as printed, e.g. "472 MB/s" */
};

struct dd_run {
    unsigned first, last;
    struct dd_cmd cmd;
    int have_in, have_out;
    int64_t in_full, in_part, out_full, out_part;
    const char *truncated;
    struct dd_xfer xfer, progress;
    const char *err, *warning;
    unsigned err_line;
    int have_time;
    double time_s;
    const char *time_kind;
};

struct dd_state {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct dd_cmd cmd; /* the last command line seen applies to the runs after it */
    struct dd_run cur;
    struct dd_run *runs;
    size_t n_runs, a_runs;
};

/* ---- small helpers ---- */

/* The token at p, bounded and with unprintable bytes escaped, for error messages. */
static const char *quote(struct arena *a, const char *p)
{
    char out[48];
    size_t n = 0;
    for (; *p && *p != '\n' && *p != '\r' && n < 40; p++) {
        unsigned char c = (unsigned char)*p;
        out[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[n] = '\0';
    return arena_printf(a, "%s%s", out, (*p && *p != '\n' && *p != '\r') ? "..." : "");
}

static int run_has_output(const struct dd_run *r)
{
    return r->have_in || r->have_out || r->xfer.present || r->progress.present;
}

static int is_pseudo_source(const char *f)
{
    static const char *const dev[] = {"/dev/zero", "/dev/urandom", "/dev/random", "/dev/null"};
    for (size_t i = 0; i < ARRAY_SIZE(dev); i++)
        if (!strcmp(f, dev[i]))
            return 1;
    return 0;
}

static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !memcmp(p, w, n))
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

/* dd size operands: N[c|w|b|k|K|kB|KB|KiB|M|MB|MiB|G...], and NxM products. */
static int dd_size(const char *s, int64_t *out)
{
    const char *p = s;
    double total = 1;
    for (;;) {
        int64_t v;
        if (!scan_int64(&p, &v))
            return 0;
        const char *u = p;
        while (isalpha((unsigned char)*p))
            p++;
        size_t n = (size_t)(p - u);
        double m;
        if (n == 1 && (*u == 'c'))
            m = 1;
        else if (n == 1 && *u == 'w')
            m = 2;
        else if (n == 1 && *u == 'b')
            m = 512;
        else if (n == 3 && u[1] == 'i' && u[2] == 'B')
            m = unit_bytes(u, n, 0);
        else if (n == 2 && u[1] == 'B')
            m = unit_bytes(u, n, 0);
        else
            m = unit_bytes(u, n, 1);
        if (m == 0)
            return 0;
        total *= (double)v * m;
        if (*p != 'x')
            break;
        p++;
    }
    if (*p || total > 9.0e18)
        return 0;
    *out = (int64_t)total;
    return 1;
}

/* ---- the command line ---- */

static const char *unquote(struct arena *a, const char *v, size_t n)
{
    if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
        v++;
        n -= 2;
    }
    return arena_strndup(a, v, n);
}

static int apply_operand(struct arena *a, struct dd_cmd *c, const char *tok, size_t n)
{
    const char *eq = memchr(tok, '=', n);
    if (!eq)
        return 0;
    size_t kn = (size_t)(eq - tok);
    const char *val = unquote(a, eq + 1, n - kn - 1);
    int64_t v;
#define KEY(k) (kn == strlen(k) && !memcmp(tok, k, kn))
    if (KEY("if"))
        c->ifile = val;
    else if (KEY("of"))
        c->ofile = val;
    else if (KEY("iflag"))
        c->iflag = val;
    else if (KEY("oflag"))
        c->oflag = val;
    else if (KEY("conv"))
        c->conv = val;
    else if (KEY("bs") && dd_size(val, &v))
        c->bs = v;
    else if (KEY("ibs") && dd_size(val, &v))
        c->ibs = v;
    else if (KEY("obs") && dd_size(val, &v))
        c->obs = v;
    else if (KEY("count") && dd_size(val, &v))
        c->count = v;
    else if (!(KEY("status") || KEY("seek") || KEY("skip") || KEY("cbs") || KEY("bs") ||
               KEY("ibs") || KEY("obs") || KEY("count") || KEY("iseek") || KEY("oseek")))
        return 0;
#undef KEY
    return 1;
}

/* A shell line running dd (`$ dd if=...`, `+ time dd ...`, `busybox dd ...`, `/bin/dd ...`):
 * 1 with *c filled when the line has a dd word followed by at least one dd operand. */
static int parse_command(struct arena *a, const char *line, struct dd_cmd *c)
{
    const char *p = line;
    int after_dd = 0, busybox = 0, operands = 0;
    struct dd_cmd found = {0};
    found.bs = found.ibs = found.obs = found.count = -1;
    while (*(p = skip_ws(p))) {
        const char *t = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t n = (size_t)(p - t);
        if (!after_dd) {
            if ((n == 2 && !memcmp(t, "dd", 2)) || (n > 3 && mem_ends(t, n, "/dd")))
                after_dd = 1;
            else if (n == 7 && !memcmp(t, "busybox", 7))
                busybox = 1;
            continue;
        }
        if (!apply_operand(a, &found, t, n))
            break;
        operands++;
    }
    if (!operands)
        return 0;
    found.present = 1;
    found.busybox = busybox;
    *c = found;
    return 1;
}

/* ---- dd's own lines ---- */

/* "N+M records in|out": 1, 0 when the line is not one, -1 after an error. */
static int parse_records(struct dd_state *st, const char *line, size_t off, struct dd_run *r)
{
    const char *p = skip_ws(line);
    int64_t full, part;
    if (!scan_int64(&p, &full) || *p != '+')
        return 0;
    p++;
    int out;
    if (!scan_int64(&p, &part) || !scan_lit(&p, " records ") ||
        !((out = scan_lit(&p, "out")) || scan_lit(&p, "in")) || *skip_ws(p))
        return diag_error_at(st->d, st->src, off + (size_t)(p - line),
                             "expected 'N+M records in' or 'N+M records out', got '%s'",
                             quote(st->a, skip_ws(line)));
    if (out) {
        r->have_out = 1;
        r->out_full = full;
        r->out_part = part;
    } else {
        r->have_in = 1;
        r->in_full = full;
        r->in_part = part;
    }
    return 1;
}

/* The rate after the seconds: "472 MB/s", "Infinity B/s", "304.3MB/s" (busybox, 1024-based),
 * or BSD's "(280218813 bytes/sec)". Sets the variant; 0 when malformed. */
static int parse_rate(const char **pp, struct dd_xfer *x, int bsd)
{
    const char *p = *pp;
    double v;
    if (bsd) {
        if (!scan_lit(&p, "(") || !scan_number(&p, &v) || !scan_lit(&p, " bytes/sec)"))
            return 0;
        *pp = p;
        return 1;
    }
    if (!scan_lit(&p, "Infinity") && !scan_number(&p, &v))
        return 0;
    int spaced = scan_lit(&p, " ");
    const char *u = p;
    while (isalpha((unsigned char)*p))
        p++;
    if (p == u || !scan_lit(&p, "/s"))
        return 0;
    if (!spaced)
        x->variant = "busybox";
    *pp = p;
    return 1;
}

/* A transfer summary ("N bytes (...) copied, S s, R MB/s", "N bytes transferred in S secs
 * (R bytes/sec)"): 1, 0 when the text is not one, -1 after an error. */
static int parse_xfer(struct dd_state *st, const char *seg, size_t off, struct dd_xfer *x)
{
    const char *p = skip_ws(seg);
    int64_t bytes;
    const char *q = p;
    if (!scan_int64(&q, &bytes) || !(scan_lit(&q, " byte")))
        return 0;
    memset(x, 0, sizeof(*x));
    p = q;
    scan_lit(&p, "s");
    x->variant = "gnu";
    int bsd = 0;
    if (scan_lit(&p, " (")) {
        const char *c = strchr(p, ')');
        if (!c)
            goto bad;
        p = c + 1;
    }
    if (scan_lit(&p, " copied, ")) {
        /* GNU and BusyBox */
    } else if (scan_lit(&p, " transferred in ")) {
        x->variant = "bsd";
        bsd = 1;
    } else {
        goto bad;
    }
    if (!scan_number(&p, &x->secs) || x->secs < 0)
        goto bad;
    if (bsd) {
        if (!scan_lit(&p, " secs "))
            goto bad;
    } else if (scan_lit(&p, " s, ") || scan_lit(&p, " seconds, ") || scan_lit(&p, " second, ")) {
        /* "%g s" since coreutils 6.1; "%g seconds" before, and in BusyBox */
    } else {
        goto bad;
    }
    const char *r = p;
    if (!parse_rate(&p, x, bsd) || *skip_ws(p))
        goto bad;
    x->rate = arena_strndup(st->a, r, (size_t)(p - r));
    x->bytes = (double)bytes;
    x->present = 1;
    return 1;
bad:
    return diag_error_at(st->d, st->src, off + (size_t)(p - seg),
                         "expected a dd transfer summary 'N bytes ... copied, S s, R/s', "
                         "got '%s'",
                         quote(st->a, skip_ws(seg)));
}

/* ---- shell time ---- */

static int parse_clock(const char *s, size_t n, double *secs)
{
    /* GNU time's [h:]m:ss.ss */
    double parts[3];
    int k = 0;
    const char *p = s, *end = s + n;
    while (p < end && k < 3) {
        if (!scan_number(&p, &parts[k]) || parts[k] < 0 || p > end)
            return 0;
        k++;
        if (p == end)
            break;
        if (*p++ != ':')
            return 0;
    }
    if (p != end || k < 2)
        return 0;
    *secs = k == 2 ? parts[0] * 60 + parts[1] : parts[0] * 3600 + parts[1] * 60 + parts[2];
    return 1;
}

/* bash `time` (real<TAB>0m0.045s), `time -p` (real 0.06), GNU time (0:00.04elapsed), zsh
 * (... 0.040 total): 1 with the elapsed seconds. */
static int parse_time(struct arena *a, const char *line, double *secs, const char **kind)
{
    const char *p = skip_ws(line);
    if (scan_lit(&p, "real") && (*p == ' ' || *p == '\t')) {
        char *v = arena_strdup(a, skip_ws(p));
        size_t n = strlen(v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            v[--n] = '\0';
        for (char *c = v; *c; c++)
            if (*c == ',') /* decimal comma locales */
                *c = '.';
        *kind = strchr(v, 's') ? "time" : "time -p";
        return n && parse_duration(v, n, secs);
    }
    const char *e = strstr(line, "elapsed ");
    if (e && strstr(line, "user ") && strstr(line, "system ")) {
        const char *b = e;
        while (b > line && b[-1] != ' ')
            b--;
        *kind = "GNU time";
        return parse_clock(b, (size_t)(e - b), secs);
    }
    size_t n = strlen(line);
    if (n > 6 && !strcmp(line + n - 6, " total") && strstr(line, " cpu ")) {
        const char *b = line + n - 6;
        while (b > line && b[-1] != ' ')
            b--;
        const char *q = b;
        *kind = "zsh time";
        return scan_number(&q, secs) && q == line + n - 6;
    }
    return 0;
}

/* ---- runs ---- */

static void finish_run(struct dd_state *st)
{
    struct dd_run *r = &st->cur;
    if (run_has_output(r) || r->err) {
        if (st->n_runs == st->a_runs) {
            size_t cap = st->a_runs ? st->a_runs * 2 : 8;
            struct dd_run *n = arena_alloc(st->a, cap * sizeof(*n));
            if (st->n_runs)
                memcpy(n, st->runs, st->n_runs * sizeof(*n));
            st->runs = n;
            st->a_runs = cap;
        }
        st->runs[st->n_runs++] = *r;
    }
    memset(r, 0, sizeof(*r));
    r->cmd = st->cmd;
}

static void touch(struct dd_run *r, unsigned line)
{
    if (!r->first)
        r->first = line;
    r->last = line;
}

/* Digits alone or followed by the start of " bytes": a summary line cut short. */
static int truncated_summary(const char *t)
{
    int64_t v;
    if (!scan_int64(&t, &v))
        return 0;
    return !*t || (t[0] == ' ' && (!t[1] || t[1] == 'b'));
}

/* One CR-separated piece of a line. progress: the piece was followed or preceded by a CR. */
static int handle_segment(struct dd_state *st, const char *seg, size_t off, unsigned line,
                          int progress)
{
    struct dd_run *r = &st->cur;
    const char *p = skip_ws(seg);
    if (!*p)
        return 0;
    if (str_starts(p, "dd: ")) {
        p += 4;
        if (str_starts(p, "warning: ")) {
            if (!r->warning)
                r->warning = arena_strdup(st->a, p + 9);
            touch(r, line);
            return 0;
        }
        if (r->xfer.present || (r->have_out && r->err))
            finish_run(st);
        if (!r->err) {
            r->err = arena_strdup(st->a, p);
            r->err_line = line;
        }
        touch(&st->cur, line);
        return 0;
    }
    struct dd_run probe = {0};
    int rc = parse_records(st, seg, off, &probe);
    if (rc < 0)
        return -1;
    if (rc) {
        if ((probe.have_in && (r->have_in || r->have_out)) || (probe.have_out && r->have_out) ||
            r->xfer.present)
            finish_run(st);
        r = &st->cur;
        if (probe.have_in) {
            r->have_in = 1;
            r->in_full = probe.in_full;
            r->in_part = probe.in_part;
        } else {
            r->have_out = 1;
            r->out_full = probe.out_full;
            r->out_part = probe.out_part;
        }
        touch(r, line);
        return 0;
    }
    struct dd_xfer x;
    rc = parse_xfer(st, seg, off, &x);
    if (rc < 0)
        return -1;
    if (rc) {
        /* a summary before any records line is a status=progress update */
        int is_progress = progress || !(r->have_in || r->have_out);
        if (r->xfer.present || (is_progress && (r->have_in || r->have_out)))
            finish_run(st);
        r = &st->cur;
        if (is_progress)
            r->progress = x;
        else
            r->xfer = x;
        touch(r, line);
        return 0;
    }
    const char *t = skip_ws(seg);
    if (strstr(t, "truncated record") || strstr(t, "truncated block") ||
        strstr(t, "odd length swab")) {
        r->truncated = arena_strdup(st->a, t);
        touch(r, line);
        return 0;
    }
    double secs;
    const char *kind;
    if (parse_time(st->a, seg, &secs, &kind)) {
        if (run_has_output(r) && !r->have_time) {
            r->have_time = 1;
            r->time_s = secs;
            r->time_kind = kind;
            touch(r, line);
        }
        return 0;
    }
    if (r->have_out && !r->xfer.present && truncated_summary(t))
        return diag_error_at(st->d, st->src, off + (size_t)(t - seg),
                             "expected a dd transfer summary after the records lines, got '%s'",
                             quote(st->a, t));
    struct dd_cmd c;
    if (parse_command(st->a, seg, &c)) {
        finish_run(st);
        st->cmd = c;
        st->cur.cmd = c;
        touch(&st->cur, line);
    }
    return 0;
}

static int handle_line(struct dd_state *st, struct buf *lb, size_t off, unsigned line)
{
    /* status=progress rewrites one terminal line with CRs: split the pieces */
    int has_cr = memchr(lb->data, '\r', lb->len) != NULL;
    char *s = lb->data;
    for (;;) {
        char *cr = strchr(s, '\r');
        if (cr)
            *cr = '\0';
        if (handle_segment(st, s, off + (size_t)(s - lb->data), line, has_cr && cr) < 0)
            return -1;
        if (!cr)
            return 0;
        s = cr + 1;
    }
}

/* ---- records ---- */

static int64_t out_block(const struct dd_cmd *c)
{
    if (c->obs > 0)
        return c->obs;
    if (c->bs > 0)
        return c->bs;
    return 512;
}

static const char *version_name(const char *variant)
{
    if (!variant)
        return NULL;
    if (!strcmp(variant, "gnu"))
        return "GNU coreutils";
    if (!strcmp(variant, "bsd"))
        return "BSD";
    return "BusyBox";
}

static void set_workload(struct arena *a, struct bench_record *rec, const struct dd_cmd *c)
{
    if (!c->present)
        return;
    int64_t bs = c->bs > 0 ? c->bs : (c->ibs > 0 && c->ibs == c->obs ? c->ibs : -1);
    if (bs < 0 && c->ibs <= 0 && c->obs <= 0)
        bs = 512;
    if (bs > 0)
        rec->wl.bs_bytes = bs;
    int count_bytes = has_word(c->iflag, "count_bytes");
    if (c->count >= 0) {
        record_tag(a, rec, "count", arena_printf(a, "%lld", (long long)c->count));
        if (count_bytes)
            rec->wl.size_bytes = c->count;
        else if (bs > 0 && (double)c->count * (double)bs < 9.0e18)
            rec->wl.size_bytes = c->count * bs;
    }
    rec->wl.direct = has_word(c->oflag, "direct") || has_word(c->iflag, "direct");
    rec->wl.sync = has_word(c->oflag, "dsync") || has_word(c->oflag, "sync");
    rec->wl.fdatasync = has_word(c->conv, "fdatasync");
    rec->wl.fsync = has_word(c->conv, "fsync");
    if (c->ifile)
        record_tag(a, rec, "if", c->ifile);
    if (c->ofile)
        record_tag(a, rec, "of", c->ofile);
    if (c->iflag)
        record_tag(a, rec, "iflag", c->iflag);
    if (c->oflag)
        record_tag(a, rec, "oflag", c->oflag);
    if (c->conv)
        record_tag(a, rec, "conv", c->conv);
    if (c->ofile && !strcmp(c->ofile, "/dev/null")) {
        if (!c->ifile || !is_pseudo_source(c->ifile))
            rec->direction = "read";
    } else if (c->ofile && c->ifile && is_pseudo_source(c->ifile)) {
        rec->direction = "write";
    }
    rec->wl.rw = rec->direction;
}

static const char *run_variant(const struct dd_run *r)
{
    const struct dd_xfer *x = r->xfer.present ? &r->xfer : &r->progress;
    if (r->cmd.busybox)
        return "busybox";
    if (x->present)
        return x->variant;
    if (r->err && str_starts(r->err, "failed to open"))
        return "gnu";
    return NULL;
}

/* file_variant: what another run of the same transcript showed (one dd binary made it). */
static int emit_run(struct dd_state *st, const struct dd_run *r, const char *file_variant,
                    struct record_sink *out)
{
    struct arena *a = st->a;
    struct bench_record *rec = record_new(a, "dd");
    rec->job = "dd";
    rec->line_first = r->first;
    rec->line_last = r->last;
    const struct dd_xfer *x = r->xfer.present ? &r->xfer : &r->progress;
    const char *variant = run_variant(r);
    if (!variant)
        variant = file_variant;
    rec->tool_version = version_name(variant);
    if (variant)
        record_tag(a, rec, "dd_variant", variant);
    set_workload(a, rec, &r->cmd);

    double bytes = -1, secs = -1;
    if (x->present) {
        bytes = x->bytes;
        secs = x->secs;
        record_tag(a, rec, "printed_rate", x->rate);
        record_tag(a, rec, "elapsed_from", "dd");
    } else if (r->have_out && r->out_part == 0 && r->cmd.present) {
        bytes = (double)r->out_full * (double)out_block(&r->cmd);
    }
    if (secs < 0 && r->have_time) {
        secs = r->time_s;
        record_tag(a, rec, "elapsed_from", r->time_kind);
    } else if (r->have_time) {
        record_tag(a, rec, "time_real_s", arena_printf(a, "%g", r->time_s));
    }
    if (bytes >= 0)
        record_metric(a, rec, "io_bytes", bytes);
    if (secs >= 0)
        record_metric(a, rec, "runtime_ms", secs * 1000.0);
    /* dd prints "0 bytes copied, ..., 0.0 kB/s" for count=0 or an empty input: a rate over
     * no data measures nothing and would enter comparisons as a throughput of zero */
    if (bytes > 0 && secs > 0)
        record_metric(a, rec, "bw_bytes_s", bytes / secs);
    else if (bytes == 0 && !r->err)
        diag_warn_line(st->d, st->src, r->last, "dd copied 0 bytes: no throughput stored");

    if (r->have_in)
        record_tag(a, rec, "records_in",
                   arena_printf(a, "%lld+%lld", (long long)r->in_full, (long long)r->in_part));
    if (r->have_out)
        record_tag(a, rec, "records_out",
                   arena_printf(a, "%lld+%lld", (long long)r->out_full, (long long)r->out_part));
    if (r->truncated)
        record_tag(a, rec, "truncated", r->truncated);
    if (r->warning)
        record_tag(a, rec, "warning", r->warning);
    if (r->err) {
        rec->error = 1;
        rec->error_msg = r->err;
    } else if (!r->xfer.present && r->progress.present) {
        /* killed, or the output cut, before dd's summary: a progress update is not the run's
         * result, and storing it would store a different number */
        return diag_error_line(st->d, st->src, r->last,
                               "expected dd's final summary after its status=progress updates, "
                               "got the end of the run");
    }
    return out->emit(out->ctx, rec);
}

static int dd_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    struct dd_state st = {0};
    st.src = src;
    st.a = a;
    st.d = d;
    struct line_iter it;
    const char *line;
    size_t len;
    struct buf lb = BUF_INIT;
    size_t skip = bom_len(src->data, src->len);
    line_iter_init(&it, src->data + skip, src->len - skip, 0);
    while (line_iter_next(&it, &line, &len)) {
        buf_reset(&lb);
        buf_add(&lb, line, len);
        if (handle_line(&st, &lb, (size_t)(line - src->data), it.lineno) < 0) {
            buf_release(&lb);
            return -1;
        }
    }
    buf_release(&lb);
    finish_run(&st);

    size_t results = 0;
    for (size_t i = 0; i < st.n_runs; i++)
        results += run_has_output(&st.runs[i]);
    if (!results) {
        for (size_t i = 0; i < st.n_runs; i++)
            if (st.runs[i].err)
                return diag_error_line(d, src, st.runs[i].err_line, "dd run failed: %s",
                                       st.runs[i].err);
        return diag_error_line(d, src, it.lineno ? it.lineno : 1,
                               "no dd output found: expected 'N+M records in' lines or a "
                               "transfer summary");
    }
    const char *file_variant = NULL;
    for (size_t i = 0; i < st.n_runs && !file_variant; i++)
        file_variant = run_variant(&st.runs[i]);
    for (size_t i = 0; i < st.n_runs; i++) {
        const struct dd_run *r = &st.runs[i];
        if (!run_has_output(r)) {
            diag_warn_line(d, src, r->err_line, "dd run failed, no result: %s", r->err);
            continue;
        }
        if (emit_run(&st, r, file_variant, out) < 0)
            return -1;
    }
    return 0;
}

/* ---- probe ---- */

static int dd_probe(const struct source *src)
{
    struct line_iter it;
    const char *line;
    size_t len;
    int rin = 0, rout = 0, xfer = 0, err = 0;
    line_iter_init(&it, src->data, src->len, 1);
    while (line_iter_next(&it, &line, &len)) {
        char text[256];
        size_t k = len < sizeof(text) - 1 ? len : sizeof(text) - 1;
        memcpy(text, line, k);
        text[k] = '\0';
        const char *p = skip_ws(text);
        int64_t v;
        if (scan_int64(&p, &v)) {
            if (*p == '+' && strstr(p, " records in"))
                rin++;
            if (*p == '+' && strstr(p, " records out"))
                rout++;
            if ((scan_lit(&p, " bytes") || scan_lit(&p, " byte")) &&
                (strstr(p, " copied, ") || strstr(p, " transferred in ")))
                xfer++;
        } else if (str_starts(text, "dd: ")) {
            err++;
        }
    }
    if (xfer && (rin || rout))
        return 95;
    if (xfer)
        return 80;
    if (rin && rout)
        return 75;
    if (err)
        return 50;
    return 0;
}

const struct importer importer_dd = {
    .name = "dd",
    .summary = "dd transcripts: GNU coreutils, BSD/macOS, busybox, with time",
    .probe = dd_probe,
    .parse = dd_parse,
};
