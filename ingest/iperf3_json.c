/* iperf3_json.c: iperf3 -J output (3.0 .. 3.1x), client and server side (docs/formats.md 5).
 *
 * One record per direction measured, from the client's point of view: a normal test "send",
 * -R "receive", --bidir both. bw_bytes_s is the receiver's whole-test figure (sum_received, or
 * the UDP `sum` before 3.11), sender_bw_bytes_s the sender's (sum_sent). A side that reports
 * 0 bytes while the other moved data did not report at all (an interrupted client, the sender
 * figure in a server log): its metrics are absent, not 0. A file can hold several documents
 * (server logs: one per test) with junk around them (`^C`, terminal escapes, CRLF). */
#include "iperf_common.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../core/scan.h"
#include "fastjson.h"

struct doc_ctx {
    const struct source *src;
    struct arena *a;
    struct record_sink *out;
    struct diag *d;
    const cJSON *root;
    size_t off, end; /* byte range of the document in the source */
};

/* The next '{' that opens an object (next non-blank is '"' or '}'), or len. */
static size_t next_doc_start(const struct source *src, size_t from)
{
    const char *s = src->data;
    for (size_t i = from; i < src->len; i++) {
        if (s[i] != '{')
            continue;
        size_t j = i + 1;
        while (j < src->len && isspace((unsigned char)s[j]))
            j++;
        if (j < src->len && (s[j] == '"' || s[j] == '}'))
            return i;
    }
    return src->len;
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *x = item(o, key);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* The number at key, or -1 when absent or not a finite non-negative number. */
static double num(const cJSON *o, const char *key)
{
    const cJSON *x = item(o, key);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
        return -1;
    return x->valuedouble;
}

static int has_results(const cJSON *end)
{
    return item(end, "sum_received") || item(end, "sum_sent") || item(end, "sum");
}

/* The totals of one direction: the sender's and the receiver's view. */
struct totals {
    const cJSON *sent, *received;
    int local_sends; /* 1 when this host's sockets send in this direction */
};

static void add_side(struct arena *a, struct bench_record *r, const cJSON *s, int receiver)
{
    double bytes = num(s, "bytes"), bps = num(s, "bits_per_second");
    if (receiver) {
        iperf_metric(a, r, "bw_bytes_s", bps >= 0 ? bps / 8 : -1);
        iperf_metric(a, r, "io_bytes", bytes);
    } else {
        iperf_metric(a, r, "sender_bw_bytes_s", bps >= 0 ? bps / 8 : -1);
        iperf_metric(a, r, "retransmits", num(s, "retransmits"));
    }
    double secs = num(s, "seconds");
    if (secs >= 0 && (receiver || !record_get(r, "runtime_ms")))
        record_metric(a, r, "runtime_ms", secs * 1000);
}

static void add_udp(struct arena *a, struct bench_record *r, const cJSON *s)
{
    double j = num(s, "jitter_ms");
    iperf_metric(a, r, "jitter_ns", j >= 0 ? j * 1e6 : -1);
    iperf_metric(a, r, "lost_packets", num(s, "lost_packets"));
    iperf_metric(a, r, "packets", num(s, "packets"));
    iperf_metric(a, r, "loss_pct", num(s, "lost_percent"));
}

/* RTT of the streams whose sending socket is local (TCP_INFO exists on the sender only). */
static void add_rtt(struct arena *a, struct bench_record *r, const cJSON *end)
{
    double sum = 0, mn = -1, mx = -1;
    int n = 0;
    const cJSON *st;
    cJSON_ArrayForEach(st, item(end, "streams"))
    {
        const cJSON *snd = item(st, "sender");
        const cJSON *flag = item(snd, "sender");
        if (cJSON_IsBool(flag) && !cJSON_IsTrue(flag))
            continue;
        double mean = num(snd, "mean_rtt"), lo = num(snd, "min_rtt"), hi = num(snd, "max_rtt");
        if (mean < 0 || hi <= 0)
            continue;
        sum += mean;
        n++;
        if (lo >= 0 && (mn < 0 || lo < mn))
            mn = lo;
        if (hi > mx)
            mx = hi;
    }
    if (!n)
        return;
    record_metric(a, r, "rtt_mean_ns", sum / n * 1e3);
    iperf_metric(a, r, "rtt_min_ns", mn >= 0 ? mn * 1e3 : -1);
    iperf_metric(a, r, "rtt_max_ns", mx >= 0 ? mx * 1e3 : -1);
}

/* A side that says 0 bytes while the other side moved data never reported. */
static const cJSON *reported(const cJSON *side, const cJSON *other)
{
    if (!cJSON_IsObject(side))
        return NULL;
    if (num(side, "bytes") == 0 && num(other, "bytes") > 0)
        return NULL;
    return side;
}

static unsigned doc_line(const struct doc_ctx *c, size_t off)
{
    return source_line(c->src, off);
}

/* Offset of `"key"` inside the document, for messages; the document start when absent. */
static size_t find_key(const struct doc_ctx *c, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = c->off; i + kl + 2 <= c->end; i++)
        if (c->src->data[i] == '"' && !memcmp(c->src->data + i + 1, key, kl) &&
            c->src->data[i + 1 + kl] == '"')
            return i;
    return c->off;
}

/* The machine's name from start.system_info, uname -a's text ("Linux vm 6.1.0 #1 SMP ...
 * x86_64"): its second word, the nodename. NULL when there is none. */
static const char *system_nodename(struct arena *a, const cJSON *start)
{
    const char *u = str(start, "system_info"), *p, *end;
    if (!u || !(p = strchr(u, ' ')))
        return NULL;
    p++;
    end = strchr(p, ' ');
    return end && end > p ? arena_strndup(a, p, (size_t)(end - p)) : NULL;
}

static int emit_direction(struct doc_ctx *c, const struct totals *t, const char *direction,
                          const char *protocol)
{
    const cJSON *start = item(c->root, "start"), *end = item(c->root, "end");
    const cJSON *ts = item(start, "test_start");
    const cJSON *recv = reported(t->received, t->sent), *sent = reported(t->sent, t->received);
    struct bench_record *r =
        iperf_record(c->a, "iperf3", str(start, "version"), direction, protocol);
    const cJSON *conn = cJSON_GetArrayItem(item(start, "connected"), 0);
    /* the host is the machine (start.system_info), not the address of its socket: a run on
     * loopback would otherwise file one machine under 127.0.0.1, ::1 and its LAN address */
    r->host = system_nodename(c->a, start);
    const char *address = str(conn, "local_host");
    if (!r->host)
        r->host = address;
    else if (address)
        record_tag(c->a, r, "local_address", address);
    r->peer = str(item(start, "connecting_to"), "host");
    if (!r->peer)
        r->peer = str(item(start, "accepted_connection"), "host");
    if (!r->peer)
        r->peer = str(conn, "remote_host");
    double secs = num(item(start, "timestamp"), "timesecs");
    if (secs > 0 && secs < 9e15)
        r->started_at = (int64_t)secs;
    double v = num(ts, "num_streams");
    if (v > 0 && v < 1e9)
        r->wl.numjobs = (int64_t)v;
    v = num(ts, "blksize");
    if (v > 0 && v < 9e15)
        r->wl.bs_bytes = (int64_t)v;
    v = num(ts, "duration");
    if (v > 0 && v < 9e15)
        r->wl.runtime_s = (int64_t)v;
    if (sent)
        add_side(c->a, r, sent, 0);
    if (recv)
        add_side(c->a, r, recv, 1);
    if (protocol && !strcmp(protocol, "udp")) {
        /* 3.11+: receiver's view in sum_received; before: `sum` carries the receiver's loss */
        const cJSON *u = recv && item(recv, "jitter_ms") ? recv : item(end, "sum");
        add_udp(c->a, r, u);
    }
    if ((!protocol || strcmp(protocol, "udp")) && t->local_sends)
        add_rtt(c->a, r, end);
    iperf_metric(c->a, r, "cpu_pct", num(item(end, "cpu_utilization_percent"), "host_total"));
    const char *err = str(c->root, "error");
    if (err) {
        r->error = 1;
        r->error_msg = err;
    }
    r->line_first = doc_line(c, c->off);
    r->line_last = doc_line(c, c->end ? c->end - 1 : 0);
    return c->out->emit(c->out->ctx, r);
}

static const char *protocol_of(struct arena *a, const cJSON *root)
{
    const char *p = str(item(item(root, "start"), "test_start"), "protocol");
    if (p) {
        char *l = arena_strdup(a, p);
        for (char *q = l; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        return l;
    }
    const cJSON *end = item(root, "end");
    if (item(item(end, "sum"), "jitter_ms"))
        return "udp";
    if (item(end, "sum_sent") || item(end, "sum_received"))
        return "tcp";
    return NULL;
}

static int emit_doc(struct doc_ctx *c)
{
    const cJSON *start = item(c->root, "start"), *end = item(c->root, "end");
    int server = item(start, "accepted_connection") && !item(start, "connecting_to");
    int reverse = num(item(start, "test_start"), "reverse") > 0;
    const char *protocol = protocol_of(c->a, c->root);
    /* 3.7-3.10 --bidir reused the key names: the second sum_sent/sum_received is the reverse */
    struct totals fwd = {NULL, NULL, 0}, rev = {NULL, NULL, 0};
    const cJSON *x;
    cJSON_ArrayForEach(x, end)
    {
        if (!x->string)
            continue;
        if (!strcmp(x->string, "sum_sent"))
            *(fwd.sent ? &rev.sent : &fwd.sent) = x;
        else if (!strcmp(x->string, "sum_received"))
            *(fwd.received ? &rev.received : &fwd.received) = x;
        else if (!strcmp(x->string, "sum_sent_bidir_reverse"))
            rev.sent = x;
        else if (!strcmp(x->string, "sum_received_bidir_reverse"))
            rev.received = x;
    }
    if (!fwd.sent && !fwd.received) /* UDP before 3.11 */
        fwd.received = item(end, "sum");
    /* the client sends unless -R; a server sends exactly when the client receives */
    int client_sends = !reverse;
    fwd.local_sends = server ? !client_sends : client_sends;
    rev.local_sends = !fwd.local_sends;
    if (emit_direction(c, &fwd, client_sends ? "send" : "receive", protocol))
        return -1;
    if ((rev.sent || rev.received) &&
        emit_direction(c, &rev, client_sends ? "receive" : "send", protocol))
        return -1;
    return 0;
}

static int bad_json(const struct source *src, size_t pos, size_t at, struct diag *d)
{
    char tok[16];
    size_t n = 0;
    if (fastjson_unterminated(src->data + pos, src->len - pos))
        return diag_error_at(d, src, src->len, "truncated JSON document (opened at line %u)",
                             source_line(src, pos));
    while (at + n < src->len && n < sizeof(tok) - 1 && isgraph((unsigned char)src->data[at + n]))
        n++;
    memcpy(tok, src->data + at, n);
    tok[n] = '\0';
    return diag_error_at(d, src, at, "invalid JSON near '%s'", tok);
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    size_t pos = next_doc_start(src, 0);
    int emitted = 0;
    size_t err_off = 0;
    const char *err_text = NULL;
    if (pos >= src->len)
        return diag_error_at(d, src, 0, "no iperf3 JSON document found");
    while (pos < src->len) {
        const char *endp = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(src->data + pos, src->len - pos, &endp, 0);
        if (!root) {
            size_t at = endp ? (size_t)(endp - src->data) : src->len;
            return bad_json(src, pos, at < src->len ? at : src->len, d);
        }
        struct doc_ctx c = {src, a, out, d, root, pos, (size_t)(endp - src->data)};
        int rc = 0;
        const char *err = str(root, "error");
        if (has_results(item(root, "end"))) {
            rc = emit_doc(&c);
            emitted++;
        } else if (!err_text) {
            err_off = err ? find_key(&c, "error") : pos;
            err_text = err ? arena_strdup(a, err) : NULL;
            if (!err)
                err_text = "";
        }
        cJSON_Delete(root);
        if (rc)
            return -1;
        pos = next_doc_start(src, c.end);
    }
    if (emitted)
        return 0; /* a server log's documents without results (the server's own exit) */
    if (err_text && *err_text)
        return diag_error_at(d, src, err_off, "iperf3 run failed: %s", err_text);
    return diag_error_at(d, src, err_off, "iperf3 JSON document has no results (empty 'end')");
}

static int probe(const struct source *src)
{
    size_t pos = next_doc_start(src, 0);
    if (pos >= src->len || pos > 4096)
        return 0;
    size_t n = src->len - pos < 65536 ? src->len - pos : 65536;
    const char *s = src->data + pos;
    int start = 0, iperf = 0, shape = 0;
    for (size_t i = 0; i + 12 < n; i++) {
        if (s[i] != '"')
            continue;
        /* str_starts, not memcmp: a key may run past the end; the data is NUL-terminated. */
        if (str_starts(s + i, "\"start\""))
            start = 1;
        else if (str_starts(s + i, "\"intervals\"") || str_starts(s + i, "\"connected\""))
            shape = 1;
        else if (str_starts(s + i, "\"iperf 3") || str_starts(s + i, "\"tcp_mss_default\""))
            iperf = 1;
    }
    if (start && iperf)
        return 95;
    if (start && shape)
        return 70;
    return 0;
}

const struct importer importer_iperf3_json = {
    .name = "iperf3-json",
    .summary = "iperf3 -J output (client and server, several tests per file)",
    .probe = probe,
    .parse = parse,
};
