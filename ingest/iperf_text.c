/* iperf_text.c: the human-readable output of iperf3 and iperf2, client and server side
 * (docs/formats.md 6 and 7).
 *
 * One record per test and direction (client's view: a server log's tests are "send"; -R,
 * --bidir, iperf2 -d/-r give "receive" records too). The whole-test row is the result:
 * iperf3's summary rows that end with sender/receiver, iperf2's row that spans the test from
 * 0 ([SUM] with -P); interval rows are ignored. bw_bytes_s is the receiver's figure when the
 * output has one (iperf3 receiver row, iperf2 server side or UDP "Server Report"), else the
 * sender's; sender_bw_bytes_s is the sender's whole-test figure when printed. An iperf3
 * receiver row of 0 bytes after a sender row that moved data (interrupted or very short
 * runs) means the receiver's count never arrived, so the sender's figure is used. */
#include "iperf_common.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/timerange.h"

struct line {
    const char *s;
    size_t n;
    unsigned no;
};

static int starts(const struct line *l, const char *lit)
{
    return mem_starts(l->s, l->n, lit);
}

static const char *find(const struct line *l, const char *lit)
{
    return mem_find(l->s, l->n, lit);
}

/* The word (up to a blank or one of stop) at p, copied into the arena. */
static const char *word(struct arena *a, const char *p, const char *end, const char *stop)
{
    const char *q = p;
    while (q < end && *q != ' ' && *q != '\t' && !strchr(stop, *q))
        q++;
    return q > p ? arena_strndup(a, p, (size_t)(q - p)) : NULL;
}

static int tail_ends(const struct iperf_row *r, const char *lit)
{
    size_t n = r->tail_len, k = strlen(lit);
    while (n && (r->tail[n - 1] == ' ' || r->tail[n - 1] == '\t'))
        n--;
    return n >= k && !memcmp(r->tail + n - k, lit, k);
}

/* The first blank-separated token of the tail as an integer (iperf3 Retr, iperf2 -e Rtry). */
static int64_t tail_int(const struct iperf_row *r, int skip)
{
    const char *p = r->tail, *end = r->tail + r->tail_len;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (!skip--)
            break;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
    }
    int64_t v = 0;
    const char *q = p;
    while (q < end && isdigit((unsigned char)*q) && v < INT64_MAX / 10 - 10)
        v = v * 10 + (*q++ - '0');
    if (q == p || (q < end && *q != ' ' && *q != '\t'))
        return -1;
    return v;
}

static void add_udp(struct arena *a, struct bench_record *r, const struct iperf_row *row)
{
    double jitter, loss;
    int64_t lost, total;
    if (!iperf_parse_udp(row->tail, row->tail_len, &jitter, &lost, &total, &loss))
        return;
    record_metric(a, r, "jitter_ns", jitter * 1e6);
    record_metric(a, r, "lost_packets", (double)lost);
    record_metric(a, r, "packets", (double)total);
    iperf_metric(a, r, "loss_pct", loss);
}

static void add_figure(struct arena *a, struct bench_record *r, const struct iperf_row *row)
{
    record_metric(a, r, "bw_bytes_s", row->bps / 8);
    record_metric(a, r, "io_bytes", row->bytes);
    record_metric(a, r, "runtime_ms", (row->end - row->start) * 1000);
}

/* ======================================================================================
 * lines */

#define PREFIX_WINDOW 65536 /* the prefix is looked for in the first bytes */

/* The input's lines, each without the prefix iperf3 --timestamps or --title writes before
 * every line ("Tue Dec  1 05:35:41 2026 ", "run1:  "). A last line without a newline was cut
 * by the end of the input (iperf ends every line): it is not returned, and cut holds its
 * number, so that a summary it would have completed is reported missing instead. */

struct lines {
    struct line_iter it;
    const struct source *src;
    size_t limit;      /* bytes read: the whole input, or the probe's window */
    char prefix[64];   /* the first prefixed line's prefix: digits and letters may vary */
    size_t prefix_len; /* 0: the lines have none */
    unsigned cut;      /* number of the cut last line, 0 when the input ends with a newline */
    const char *cut_s; /* its text, without the prefix */
};

/* Where a test ended: the line that began the next one, or the end of the input. */
struct test_end {
    unsigned line;
    const char *text; /* NULL at the end of the input */
    size_t len;
};

/* What ended the test, for `expected ..., got %s`. */
static const char *got(const struct test_end *e, char *buf, size_t cap)
{
    if (!e->text)
        return "the end of the input";
    snprintf(buf, cap, "'%.*s'", (int)(e->len > 40 ? 40 : e->len), e->text);
    return buf;
}

static struct test_end input_end(const struct lines *x)
{
    return (struct test_end){x->cut ? x->cut : x->it.lineno ? x->it.lineno : 1, NULL, 0};
}

/* Same characters, except that a digit may stand for any digit and a letter for any letter. */
static int same_shape(const char *s, const char *model, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char a = (unsigned char)s[i], b = (unsigned char)model[i];
        if (isdigit(a) ? !isdigit(b) : isalpha(a) ? !isalpha(b) : a != b)
            return 0;
    }
    return 1;
}

static int has_prefix(const struct lines *x, const char *s, size_t n)
{
    return x->prefix_len && n >= x->prefix_len && same_shape(s, x->prefix, x->prefix_len);
}

/* A prefix is what stands before the first line that opens an iperf3 test, when at least two
 * more lines carry one of the same shape. */
static void find_prefix(struct lines *x)
{
    static const char *const openers[] = {"Connecting to host ", "Server listening on "};
    struct line_iter it;
    const char *s;
    size_t n;
    size_t window = x->limit < PREFIX_WINDOW ? x->limit : PREFIX_WINDOW;
    line_iter_init(&it, x->src->data, window, 0);
    while (line_iter_next(&it, &s, &n) && !x->prefix_len) {
        for (size_t k = 0; k < 2 && !x->prefix_len; k++) {
            const char *at = mem_find(s, n, openers[k]);
            if (at && at > s && (size_t)(at - s) < sizeof(x->prefix)) {
                x->prefix_len = (size_t)(at - s);
                memcpy(x->prefix, s, x->prefix_len);
            }
        }
    }
    int alike = 0;
    line_iter_init(&it, x->src->data, window, 0);
    while (x->prefix_len && line_iter_next(&it, &s, &n) && alike < 3)
        alike += has_prefix(x, s, n);
    if (alike < 3)
        x->prefix_len = 0;
}

static void lines_init(struct lines *x, const struct source *src, size_t limit)
{
    memset(x, 0, sizeof(*x));
    x->src = src;
    x->limit = limit;
    find_prefix(x);
    line_iter_init(&x->it, src->data, limit, 0);
}

static int lines_next(struct lines *x, struct line *l)
{
    const char *s;
    size_t n;
    if (!line_iter_next(&x->it, &s, &n))
        return 0;
    l->no = x->it.lineno;
    if (has_prefix(x, s, n)) {
        s += x->prefix_len;
        n -= x->prefix_len;
    }
    if (x->limit == x->src->len && s + n == x->src->data + x->src->len && n) {
        x->cut = l->no;
        x->cut_s = s;
        return 0;
    }
    l->s = s;
    l->n = n;
    return 1;
}

/* ======================================================================================
 * iperf3 */

struct iperf3_row {
    struct iperf_row row;
    int sender;
    int plain; /* a summary row without sender/receiver (iperf 3.0/3.1 UDP client) */
    unsigned line;
};

/* The streams of one role in a test's rows, interval rows included. */
struct iperf3_streams {
    char role[8];
    int64_t id;    /* the first stream's */
    int many, sum; /* another stream seen; [SUM] rows printed */
};

struct iperf3_test {
    int server, reverse, udp, server_sends, after_sep, suffixed;
    int server_output; /* past a client's "Server output:" (--get-server-output) */
    struct iperf3_streams roles[8];
    size_t nroles;
    double max_end;
    const char *host, *peer;
    struct iperf3_row *rows;
    size_t n, cap;
    unsigned first_line, last_line;
    const char *interrupt;
};

struct iperf3_reader {
    const struct source *src;
    struct arena *a;
    struct record_sink *out;
    const char *version;
    int emitted;
};

static void iperf3_note_stream(struct iperf3_test *t, const struct iperf_row *row)
{
    size_t k = 0;
    while (k < t->nroles && strcmp(t->roles[k].role, row->role))
        k++;
    if (k == t->nroles) {
        if (k == ARRAY_SIZE(t->roles))
            return;
        t->roles[t->nroles++] = (struct iperf3_streams){"", row->id, 0, 0};
        memcpy(t->roles[k].role, row->role, sizeof(row->role));
    }
    struct iperf3_streams *s = &t->roles[k];
    if (row->id < 0)
        s->sum = 1;
    else if (s->id < 0)
        s->id = row->id;
    else if (row->id != s->id)
        s->many = 1;
}

static int iperf3_has_kind(const struct iperf3_test *t, int sender)
{
    for (size_t i = 0; i < t->n; i++)
        if (!t->rows[i].plain && t->rows[i].sender == sender)
            return 1;
    return 0;
}

/* 1 when the summary row iperf3 prints for streams s and kind (sender or receiver) is there:
 * a client prints both kinds, a server the kinds it has (in all its roles); the [SUM] row
 * when the role has several streams. */
static int iperf3_has_summary(const struct iperf3_test *t, const struct iperf3_streams *s,
                              int sender)
{
    if (t->server && !iperf3_has_kind(t, sender))
        return 1;
    int sum = s->sum || s->many;
    for (size_t i = 0; i < t->n; i++) {
        const struct iperf3_row *r = &t->rows[i];
        if (!r->plain && r->sender == sender && !strcmp(r->row.role, s->role) &&
            (!sum || r->row.id < 0))
            return 1;
    }
    return 0;
}

/* A test whose summary began must have all of it: a cut one would give other numbers (one
 * stream's figure as the total, the sender's as the receiver's). */
static int iperf3_check_test(struct iperf3_reader *c, const struct iperf3_test *t,
                             const struct test_end *e, struct diag *d)
{
    if (!t->suffixed)
        return 0;
    for (size_t k = 0; k < t->nroles; k++) {
        const struct iperf3_streams *s = &t->roles[k];
        for (int sender = 1; sender >= 0; sender--) {
            if (iperf3_has_summary(t, s, sender))
                continue;
            char id[24], role[12] = "", buf[48];
            if (s->sum || s->many)
                snprintf(id, sizeof(id), "SUM");
            else
                snprintf(id, sizeof(id), "%3lld", (long long)s->id);
            if (*s->role)
                snprintf(role, sizeof(role), "[%s]", s->role);
            return diag_error_line(d, c->src, e->line,
                                   "expected iperf3 summary row '[%s]%s ... %s' of the test "
                                   "from line %u, got %s",
                                   id, role, sender ? "sender" : "receiver", t->first_line,
                                   got(e, buf, sizeof(buf)));
        }
    }
    return 0;
}

static const char *iperf3_direction(const struct iperf3_test *t, const char *role)
{
    if (*role)
        return (role[0] == 'T') == (role[3] == 'C') ? "send" : "receive";
    if (t->server)
        return t->server_sends ? "receive" : "send";
    return t->reverse ? "receive" : "send";
}

/* The sender or receiver whole-test row of one role: [SUM] when printed, else the stream. */
static const struct iperf3_row *iperf3_pick_row(const struct iperf3_test *t, const char *role,
                                                int sender, int *nstreams)
{
    const struct iperf3_row *sum = NULL, *one = NULL;
    int64_t ids[64];
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct iperf3_row *r = &t->rows[i];
        if (strcmp(r->row.role, role) || r->sender != sender)
            continue;
        if (r->plain && (t->suffixed || r->row.start != 0 || r->row.end < t->max_end - 0.5))
            continue;
        if (r->row.id < 0) {
            sum = r;
            continue;
        }
        one = r;
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= ids[k] == r->row.id;
        if (!seen && n < 64)
            ids[n++] = r->row.id;
    }
    if (n > *nstreams)
        *nstreams = n;
    return sum ? sum : n == 1 ? one : NULL;
}

/* Emits the test's results; a test with interval rows only is named in a warning (unless it
 * is the input's last and only one: then the caller reports that nothing was found). */
static int iperf3_emit_test(struct iperf3_reader *c, struct iperf3_test *t,
                            const struct test_end *e, struct diag *d)
{
    if (!t->n) {
        if (t->nroles && (e->text || c->emitted))
            diag_warn_line(d, c->src, t->first_line,
                           "iperf3 test from line %u ends before its summary rows: not imported",
                           t->first_line);
        return 0;
    }
    if (iperf3_check_test(c, t, e, d))
        return -1;
    /* roles in order of appearance */
    const char *roles[8];
    size_t nroles = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = 0;
        while (k < nroles && strcmp(roles[k], t->rows[i].row.role))
            k++;
        if (k == nroles && nroles < 8)
            roles[nroles++] = t->rows[i].row.role;
    }
    for (size_t k = 0; k < nroles; k++) {
        int nstreams = 0;
        const struct iperf3_row *snd = iperf3_pick_row(t, roles[k], 1, &nstreams);
        const struct iperf3_row *rcv = iperf3_pick_row(t, roles[k], 0, &nstreams);
        if (!snd && !rcv)
            continue;
        struct bench_record *r = iperf_record(
            c->a, "iperf3", c->version, iperf3_direction(t, roles[k]), t->udp ? "udp" : "tcp");
        r->host = t->host;
        r->peer = t->peer;
        if (nstreams)
            r->wl.numjobs = nstreams;
        if (snd) {
            record_metric(c->a, r, "sender_bw_bytes_s", snd->row.bps / 8);
            if (!t->udp) {
                int64_t retr = tail_int(&snd->row, 0);
                if (retr >= 0)
                    record_metric(c->a, r, "retransmits", (double)retr);
            }
        }
        int rcv_missing = rcv && snd && rcv->row.bytes == 0 && snd->row.bytes > 0;
        add_figure(c->a, r, rcv && !rcv_missing ? &rcv->row : &snd->row);
        if (t->udp && rcv)
            add_udp(c->a, r, &rcv->row);
        if (t->interrupt) {
            r->error = 1;
            r->error_msg = t->interrupt;
        }
        r->line_first = t->first_line;
        r->line_last = t->last_line;
        if (c->out->emit(c->out->ctx, r))
            return -1;
        c->emitted++;
    }
    return 0;
}

static void iperf3_new_test(struct iperf3_test *t, int server, unsigned line)
{
    memset(t, 0, sizeof(*t));
    t->server = server;
    t->first_line = line;
}

static void iperf3_add_row(struct arena *a, struct iperf3_test *t, const struct iperf_row *row,
                           unsigned no, int plain)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        struct iperf3_row *rows = arena_alloc(a, cap * sizeof(*rows));
        if (t->n)
            memcpy(rows, t->rows, t->n * sizeof(*rows));
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->n++] = (struct iperf3_row){*row, tail_ends(row, "sender"), plain, no};
    t->suffixed |= !plain;
    t->last_line = no;
}

static int parse_iperf3(const struct source *src, struct arena *a, struct record_sink *out,
                        struct diag *d)
{
    struct iperf3_reader c = {.src = src, .a = a, .out = out};
    struct iperf3_test t;
    struct lines it;
    struct line l;
    unsigned err_line = 0;
    const char *err = NULL;
    iperf3_new_test(&t, 0, 1);
    lines_init(&it, src, src->len);
    while (lines_next(&it, &l)) {
        const char *end = l.s + l.n, *p;
        struct iperf_row row;
        if (l.n && l.s[0] == '\x03') { /* ^C echoed into the log */
            l.s++;
            l.n--;
        }
        if (starts(&l, "^C")) {
            l.s += 2;
            l.n -= 2;
        }
        int starts_test = starts(&l, "Server listening on") || starts(&l, "Connecting to host ");
        if (t.server_output && !starts_test)
            continue; /* the server's own report of the test the client's rows gave */
        if (starts_test) {
            struct test_end e = {l.no, l.s, l.n};
            if (iperf3_emit_test(&c, &t, &e, d))
                return -1;
            iperf3_new_test(&t, starts(&l, "Server"), l.no);
            if (!t.server)
                t.peer = word(a, l.s + 19, end, ",");
        } else if (starts(&l, "Server output:") && !t.server) {
            t.server_output = 1;
        } else if (starts(&l, "Accepted connection from ")) {
            t.server = 1;
            t.peer = word(a, l.s + 25, end, ",");
        } else if (starts(&l, "- - - - ")) {
            t.after_sep = 1;
        } else if (starts(&l, "Reverse mode")) {
            t.reverse = 1;
        } else if (starts(&l, "iperf 3") && !c.version) {
            c.version = word(a, l.s + 6, end, "")
                            ? arena_printf(a, "iperf %s", word(a, l.s + 6, end, ""))
                            : NULL;
        } else if (starts(&l, "iperf3: error - ")) {
            if (!err) {
                err = arena_strndup(a, l.s + 16, l.n - 16);
                err_line = l.no;
            }
        } else if (starts(&l, "iperf3: interrupt - ")) {
            if (!t.server)
                t.interrupt = arena_strndup(a, l.s + 8, l.n - 8);
            if (!err) {
                err = arena_strndup(a, l.s + 8, l.n - 8);
                err_line = l.no;
            }
        } else if (starts(&l, "[ ID]")) {
            if (find(&l, "Jitter") || find(&l, "Datagrams"))
                t.udp = 1;
            if (find(&l, "Retr") || (find(&l, "Total Datagrams") && !find(&l, "Jitter")))
                t.server_sends = 1;
        } else if (iperf_parse_row(l.s, l.n, &row)) {
            iperf3_note_stream(&t, &row);
            if (tail_ends(&row, "sender") || tail_ends(&row, "receiver"))
                iperf3_add_row(a, &t, &row, l.no, 0);
            else if (t.after_sep && row.start == 0)
                iperf3_add_row(a, &t, &row, l.no, 1);
            if (row.end > t.max_end)
                t.max_end = row.end;
            if (!t.host && (p = find(&l, " local ")) != NULL)
                t.host = word(a, p + 7, end, "");
        } else if (l.n > 6 && l.s[0] == '[' && (p = find(&l, "] local ")) != NULL) {
            t.host = word(a, p + 8, end, "");
            const char *q = find(&l, " connected to ");
            if (q && !t.peer)
                t.peer = word(a, q + 14, end, "");
        }
    }
    struct test_end e = input_end(&it);
    if (iperf3_emit_test(&c, &t, &e, d))
        return -1;
    if (c.emitted)
        return 0;
    if (err)
        return diag_error_line(d, src, err_line, "iperf3 run failed: %s", err);
    return diag_error_line(d, src, it.it.lineno ? it.it.lineno : 1,
                           "no iperf3 summary rows (sender/receiver) found");
}

/* ======================================================================================
 * iperf2 */

struct iperf2_stream {
    int64_t id;
    int accepted; /* the local end accepted the connection (a server's receiving side) */
    int reverse;  /* `[ *9]` or `(reverse)`: data flows from the server to the client */
    const char *host, *peer;
    int64_t started_at;
    struct iperf_row whole, report; /* last row from 0; the UDP "Server Report" row */
    int have_whole, have_report, want_report;
    int rows, whole_first; /* rows (not the report); whole was the stream's first row */
    int final;             /* whole is the whole-test row (iperf2_is_whole) */
    double max_end;
    unsigned line_first, line_last;
    struct iperf2_stream *next;
};

struct iperf2_group {
    struct iperf2_stream *streams, **tail;
    struct iperf_row sum;
    int have_sum, rows, udp, rtry;
    int sum_rows, sum_first; /* [SUM] rows; sum was the first of them */
    int no_ack;              /* a UDP client that got no Server Report says so */
    double sum_max_end;
    const char *error;
    unsigned line_first, line_last;
};

enum iperf2_side { SIDE_UNKNOWN, SIDE_CLIENT, SIDE_SERVER };

struct iperf2_reader {
    const struct source *src;
    struct arena *a;
    struct record_sink *out;
    const char *version;
    int64_t listen_ports[8];
    int nlisten, emitted;
    enum iperf2_side side; /* whose output this is: from the first connection */
    int intervals;         /* interval reports (-i): a row not from 0 seen */
    struct diag *d;
};

static int is_whole(const struct iperf_row *r, double max_end)
{
    return r->start == 0 && r->end > 0 && r->end >= max_end - 0.5;
}

/* A row from 0 is the whole-test row when it spans its stream's rows. With interval reports
 * the first row from 0 is the first interval's, so it must not be the stream's first row;
 * nor may it be in a test the input cuts off, where interval reports may have been next. */
static int iperf2_is_whole(const struct iperf2_reader *c, int cut, const struct iperf_row *row,
                           int have, int first, double max_end)
{
    return have && is_whole(row, max_end) && !(first && (c->intervals || cut));
}

static int iperf2_missing(struct iperf2_reader *c, const struct iperf2_group *g,
                          const struct test_end *e, const char *what, int64_t id)
{
    char buf[48];
    return diag_error_line(c->d, c->src, e->line,
                           "expected iperf %s of stream [%3lld] (test from line %u), got %s", what,
                           (long long)id, g->line_first, got(e, buf, sizeof(buf)));
}

/* A test whose summary began must have all of it: every stream's whole-test row, the [SUM]
 * row when iperf prints sums (-P), a UDP client's Server Reports (unless it said none came). */
static int iperf2_check_group(struct iperf2_reader *c, const struct iperf2_group *g,
                              const struct test_end *e, int sum_final, int one_direction,
                              int nstreams)
{
    for (struct iperf2_stream *s = g->streams; s; s = s->next) {
        if (!s->final)
            return iperf2_missing(c, g, e, "whole-test row", s->id);
        if (g->udp && c->side == SIDE_CLIENT && !s->accepted && !s->reverse && !s->have_report &&
            !g->no_ack)
            return iperf2_missing(c, g, e, "UDP 'Server Report'", s->id);
    }
    if (g->sum_rows && nstreams > 1 && one_direction && !sum_final) {
        char buf[48];
        return diag_error_line(c->d, c->src, e->line,
                               "expected iperf whole-test row '[SUM] 0.0...' (test from line %u), "
                               "got %s",
                               g->line_first, got(e, buf, sizeof(buf)));
    }
    return 0;
}

static struct bench_record *iperf2_record(struct iperf2_reader *c, const struct iperf2_group *g,
                                          const struct iperf2_stream *s,
                                          const struct iperf_row *row, int64_t numjobs)
{
    int receive = s->reverse || (c->side == SIDE_SERVER ? !s->accepted : s->accepted);
    struct bench_record *r = iperf_record(c->a, "iperf", c->version, receive ? "receive" : "send",
                                          g->udp ? "udp" : "tcp");
    r->host = s->host;
    r->peer = s->peer;
    r->started_at = s->started_at;
    r->wl.numjobs = numjobs;
    r->line_first = s->line_first;
    r->line_last = g->line_last;
    if (g->error) {
        r->error = 1;
        r->error_msg = g->error;
    }
    if (!s->accepted) {
        record_metric(c->a, r, "sender_bw_bytes_s", row->bps / 8);
        if (g->rtry) {
            int64_t v = tail_int(row, 1);
            if (v >= 0)
                record_metric(c->a, r, "retransmits", (double)v);
        }
    }
    return r;
}

/* Emits the test's results (cut: the input ends inside the test); a test that ended before its
 * summary is named in a warning (unless nothing else was found: then the caller says so). */
static int iperf2_emit_group(struct iperf2_reader *c, struct iperf2_group *g,
                             const struct test_end *e, int cut)
{
    int nstreams = 0, naccepted = 0, all_reports = 1, began = 0;
    for (struct iperf2_stream *s = g->streams; s; s = s->next) {
        nstreams++;
        naccepted += s->accepted;
        all_reports &= s->have_report;
        s->final = iperf2_is_whole(c, cut, &s->whole, s->have_whole, s->whole_first, s->max_end);
        began |= s->final;
    }
    int sum_final = iperf2_is_whole(c, cut, &g->sum, g->have_sum, g->sum_first, g->sum_max_end);
    if (!began && !sum_final) {
        if (g->rows && (e->text || c->emitted))
            diag_warn_line(c->d, c->src, g->line_first,
                           "iperf test from line %u ends before its whole-test rows: not imported",
                           g->line_first);
        return 0;
    }
    int one_direction = naccepted == 0 || naccepted == nstreams;
    if (iperf2_check_group(c, g, e, sum_final, one_direction, nstreams))
        return -1;
    if (sum_final && nstreams > 1 && one_direction) {
        struct bench_record *r = iperf2_record(c, g, g->streams, &g->sum, nstreams);
        add_figure(c->a, r, &g->sum);
        if (g->udp && all_reports && !g->streams->accepted) {
            /* the receiver's figures are per stream: add them up */
            double bytes = 0, bps = 0, jitter = 0, lost = 0, total = 0;
            int udp_ok = 1;
            for (struct iperf2_stream *s = g->streams; s; s = s->next) {
                double j, loss;
                int64_t lo, to;
                bytes += s->report.bytes;
                bps += s->report.bps;
                if (iperf_parse_udp(s->report.tail, s->report.tail_len, &j, &lo, &to, &loss)) {
                    jitter += j;
                    lost += (double)lo;
                    total += (double)to;
                } else {
                    udp_ok = 0;
                }
            }
            record_metric(c->a, r, "bw_bytes_s", bps / 8);
            record_metric(c->a, r, "io_bytes", bytes);
            if (udp_ok) {
                record_metric(c->a, r, "jitter_ns", jitter / nstreams * 1e6);
                record_metric(c->a, r, "lost_packets", lost);
                record_metric(c->a, r, "packets", total);
                if (total > 0)
                    record_metric(c->a, r, "loss_pct", lost * 100 / total);
            }
        } else if (g->udp && g->streams->accepted) {
            add_udp(c->a, r, &g->sum);
        }
        if (c->out->emit(c->out->ctx, r))
            return -1;
        c->emitted++;
        return 0;
    }
    for (struct iperf2_stream *s = g->streams; s; s = s->next) {
        struct bench_record *r = iperf2_record(c, g, s, &s->whole, 1);
        const struct iperf_row *rcv = s->have_report ? &s->report : &s->whole;
        add_figure(c->a, r, rcv);
        if (g->udp && (s->have_report || s->accepted))
            add_udp(c->a, r, rcv);
        if (c->out->emit(c->out->ctx, r))
            return -1;
        c->emitted++;
    }
    return 0;
}

static void iperf2_new_group(struct iperf2_group *g, unsigned line, int udp)
{
    memset(g, 0, sizeof(*g));
    g->tail = &g->streams;
    g->line_first = g->line_last = line;
    g->udp = udp;
}

static struct iperf2_stream *stream_of(struct arena *a, struct iperf2_group *g, int64_t id,
                                       unsigned line)
{
    for (struct iperf2_stream *s = g->streams; s; s = s->next)
        if (s->id == id)
            return s;
    struct iperf2_stream *s = arena_alloc(a, sizeof(*s));
    s->id = id;
    s->line_first = line;
    *g->tail = s;
    g->tail = &s->next;
    return s;
}

/* `... port 5001 connected with B port M (...) on 2026-11-30 08:34:23 (UTC)` */
static int64_t connect_time(const struct line *l)
{
    const char *p = find(l, ") on ");
    if (!p || !find(l, "(UTC)"))
        return 0;
    p += 5;
    int64_t days, secs;
    int frac;
    const char *why;
    if (!scan_iso_date(&p, &days, &why) || *p++ != ' ' || !scan_iso_clock(&p, &secs, &frac, &why))
        return 0;
    int64_t t = days * 86400 + secs;
    return t > 0 ? t : 0; /* 0 is unknown: a date before 1970 too */
}

static void iperf2_connect(struct iperf2_reader *c, struct iperf2_group *g, const struct line *l,
                           const char *p)
{
    const char *end = l->s + l->n, *q = l->s + 1;
    int64_t id, lport = -1;
    q = skip_ws(q);
    int star = *q == '*';
    q += star;
    if (!scan_int64(&q, &id))
        return;
    struct iperf2_stream *s = stream_of(c->a, g, id, l->no);
    s->host = word(c->a, p + 8, end, "%");
    const char *pp = find(l, " port ");
    if (pp) {
        pp += 6;
        scan_int64(&pp, &lport);
    }
    for (int i = 0; i < c->nlisten; i++)
        s->accepted |= c->listen_ports[i] == lport;
    s->reverse = star || find(l, " (reverse)") != NULL;
    if (c->side == SIDE_UNKNOWN)
        c->side = s->accepted ? SIDE_SERVER : SIDE_CLIENT;
    const char *w = find(l, " connected with ");
    if (w)
        s->peer = word(c->a, w + 16, end, "");
    s->started_at = connect_time(l);
}

static int parse_iperf2(const struct source *src, struct arena *a, struct record_sink *out,
                        struct diag *d)
{
    struct iperf2_reader c = {.src = src, .a = a, .out = out, .d = d};
    struct iperf2_group g;
    struct lines it;
    struct line l;
    unsigned err_line = 0, last_row = 0;
    const char *err = NULL;
    int udp = 0;
    iperf2_new_group(&g, 1, 0);
    lines_init(&it, src, src->len);
    while (lines_next(&it, &l)) {
        const char *end = l.s + l.n, *p;
        struct iperf_row row;
        if (starts(&l, "Server listening on ") || starts(&l, "Client connecting to ")) {
            udp = find(&l, "UDP port") != NULL;
            g.udp |= udp;
            if (l.s[0] == 'S' && (p = find(&l, " port ")) != NULL && c.nlisten < 7) {
                p += 6;
                int64_t port;
                if (scan_int64(&p, &port))
                    c.listen_ports[c.nlisten++] = port;
            }
        } else if (starts(&l, "iperf version ") && !c.version) {
            const char *v = word(a, l.s + 14, end, "");
            c.version = v ? arena_printf(a, "iperf version %s", v) : NULL;
        } else if (find(&l, "connect failed: ") || find(&l, "write failed: ") ||
                   find(&l, "read failed: ")) {
            const char *m = l.s;
            while (m < end && (*m == ' ' || *m == '\t'))
                m++;
            if (!err) {
                err = arena_strndup(a, m, (size_t)(end - m));
                err_line = l.no;
            }
            g.error = err;
        } else if (find(&l, "did not receive ack")) {
            g.no_ack = 1;
        } else if (iperf_parse_row(l.s, l.n, &row)) {
            g.rows++;
            g.line_last = l.no;
            last_row = l.no;
            c.intervals |= row.start > 0;
            if (row.id < 0) {
                g.sum_rows++;
                if (row.end >= g.sum_max_end)
                    g.sum_max_end = row.end;
                if (row.start == 0) {
                    g.sum = row;
                    g.have_sum = 1;
                    g.sum_first = g.sum_rows == 1;
                }
                continue;
            }
            struct iperf2_stream *s = stream_of(a, &g, row.id, l.no);
            s->line_last = l.no;
            if (s->want_report) {
                s->report = row;
                s->have_report = 1;
                s->want_report = 0;
                continue;
            }
            if (row.end > s->max_end)
                s->max_end = row.end;
            s->rows++;
            if (row.start == 0) {
                s->whole = row;
                s->have_whole = 1;
                s->whole_first = s->rows == 1;
            }
        } else if (l.n > 6 && l.s[0] == '[' && find(&l, "] Server Report:")) {
            const char *q = skip_ws(l.s + 1);
            int64_t id;
            if (scan_int64(&q, &id))
                stream_of(a, &g, id, l.no)->want_report = 1;
        } else if (starts(&l, "[ ID]")) {
            g.rtry |= find(&l, "Rtry") != NULL;
        } else if (l.n > 6 && l.s[0] == '[' && (p = find(&l, "] local ")) != NULL &&
                   find(&l, " connected with ")) {
            if (g.rows) { /* a new test begins */
                struct test_end e = {l.no, l.s, l.n};
                if (iperf2_emit_group(&c, &g, &e, 0))
                    return -1;
                iperf2_new_group(&g, l.no, udp);
            }
            iperf2_connect(&c, &g, &l, p);
        }
    }
    /* a cut report line ('[...') belongs to the last test */
    struct test_end e = input_end(&it);
    if (iperf2_emit_group(&c, &g, &e, it.cut && it.cut_s[0] == '['))
        return -1;
    if (c.emitted)
        return 0;
    if (err)
        return diag_error_line(d, src, err_line, "iperf run failed: %s", err);
    if (last_row)
        return diag_error_line(d, src, it.cut ? it.cut : last_row,
                               "no whole-test row: the run ended before iperf printed its "
                               "summary");
    return diag_error_line(d, src, input_end(&it).line, "no iperf report rows found");
}

/* ======================================================================================
 * detection */

struct marks {
    int v3, v2, rows, other;
};

static void scan_marks(const struct source *src, struct marks *m)
{
    struct lines it;
    struct line l;
    struct iperf_row row;
    memset(m, 0, sizeof(*m));
    lines_init(&it, src, src->len > 262144 ? 262144 : src->len);
    while (lines_next(&it, &l)) {
        if (starts(&l, "Connecting to host ") || starts(&l, "iperf3: ") ||
            starts(&l, "- - - - - - ") || starts(&l, "[ ID][Role]") ||
            starts(&l, "Accepted connection from ") || starts(&l, "iperf Done.") ||
            (starts(&l, "Server listening on ") && l.n > 20 && isdigit((unsigned char)l.s[20])) ||
            (l.n && l.s[0] == '[' && find(&l, " connected to ")))
            m->v3++;
        else if (starts(&l, "Client connecting to ") || starts(&l, "Server listening on ") ||
                 find(&l, "connect failed: ") || starts(&l, "iperf version 2") ||
                 (l.n && l.s[0] == '[' && find(&l, " connected with ")))
            m->v2++;
        else if (iperf_parse_row(l.s, l.n, &row))
            m->rows++;
        else if (l.n && (l.s[0] == '{' || l.s[0] == '"' || l.s[0] == '\t'))
            m->other++;
    }
}

static int probe(const struct source *src)
{
    struct marks m;
    scan_marks(src, &m);
    if (m.other > m.rows + m.v2 + m.v3)
        return 0; /* JSON (iperf3 -J with text in server_output_text) */
    if ((m.v3 || m.v2) && m.rows)
        return 90;
    if (m.v3 || m.v2)
        return 60;
    return m.rows ? 50 : 0;
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    struct marks m;
    scan_marks(src, &m);
    if (m.v3 > m.v2)
        return parse_iperf3(src, a, out, d);
    return parse_iperf2(src, a, out, d);
}

const struct importer importer_iperf_text = {
    .name = "iperf-text",
    .summary = "iperf3 and iperf2 text output (client and server)",
    .probe = probe,
    .parse = parse,
};
