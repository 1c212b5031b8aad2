/* dlio.c: DLIO benchmark's summary.json, the file MLPerf Storage keeps per run (docs/formats.md
 * 14). One record per file: the training phase of one run, its means over the run's epochs as
 * DLIO computes them (dlio_benchmark/utils/statscounter.py, finalize): samples/s, MB/s (DLIO's
 * MB is 2^20 bytes: samples/s x record_length / 1024 / 1024) and accelerator utilization (AU,
 * whose first step of each epoch block DLIO leaves out as warm-up). MLPerf's result, the mean
 * of 5 such runs, is what a report computes from 5 imported files: each file is one repeat. */
#include "importer.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "../core/scan.h"
#include "../core/timerange.h"
#include "fastjson.h"

struct dl_ctx {
    const struct source *src;
    struct diag *d;
    size_t doc; /* offset of the document's '{' */
};

/* The offset of the value of the first "key" at or after from: the key names DLIO writes are
 * unique within summary.json's top level and its "metric" object, so the first one is the one
 * cJSON read (a duplicate key is cJSON's first, too). */
static size_t value_at(const struct dl_ctx *c, const char *key, size_t from)
{
    return fastjson_value_at(c->src->data, c->src->len, key, from);
}

static const char *kind(const cJSON *x)
{
    return cJSON_IsString(x)   ? "a string"
           : cJSON_IsArray(x)  ? "an array"
           : cJSON_IsObject(x) ? "an object"
           : cJSON_IsBool(x)   ? "a boolean"
           : cJSON_IsNull(x)   ? "null"
                               : "a number that is not finite";
}

/* The number under key in o (within the text from `from` on), into *v: 0; 1 when absent and
 * optional; -1 after a located error. */
static int number(const struct dl_ctx *c, const cJSON *o, const char *key, size_t from,
                  int required, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x) {
        if (!required)
            return 1;
        return diag_error_at(c->d, c->src, from, "expected DLIO's '%s' in summary.json, got none",
                             key);
    }
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return diag_error_at(c->d, c->src, value_at(c, key, from),
                             "expected a number for '%s', got %s", key, kind(x));
    *v = x->valuedouble;
    return 0;
}

/* An array of numbers under key (per epoch): its length, or -1 after a located error. */
static int per_epoch(const struct dl_ctx *c, const cJSON *o, const char *key, size_t from)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x)
        return 0;
    if (!cJSON_IsArray(x))
        return diag_error_at(c->d, c->src, value_at(c, key, from),
                             "expected an array of numbers (one per epoch) for '%s', got %s", key,
                             kind(x));
    int n = 0;
    for (const cJSON *e = x->child; e; e = e->next, n++)
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return diag_error_at(c->d, c->src, value_at(c, key, from),
                                 "expected a number for epoch %d of '%s', got %s", n + 1, key,
                                 kind(e));
    return n;
}

/* "2024-08-09T09:11:53.709631" (DLIO's utcnow(): UTC, no zone written) as Unix seconds with
 * the fraction; -1 after a located error. */
static int timestamp(const struct dl_ctx *c, const cJSON *root, const char *key, double *t)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, key);
    size_t at = value_at(c, key, c->doc);
    if (!cJSON_IsString(x))
        return diag_error_at(c->d, c->src, at, "expected a date such as '%s' for '%s', got %s",
                             "2024-08-09T09:11:53.709631", key, x ? kind(x) : "none");
    const char *p = x->valuestring, *why = "not a date";
    int64_t days, secs;
    int frac;
    if (!scan_iso_date(&p, &days, &why) || (*p != 'T' && *p != ' '))
        goto bad;
    p++;
    const char *clock = p;
    if (!scan_iso_clock(&p, &secs, &frac, &why) || *p)
        goto bad;
    double f = 0;
    const char *dot = strchr(clock, '.');
    if (dot) {
        const char *q = dot;
        if (!scan_number(&q, &f))
            goto bad;
    }
    *t = (double)(days * 86400 + secs) + f;
    return 0;
bad:
    return diag_error_at(c->d, c->src, at, "expected a date such as '%s' for '%s', got '%s' (%s)",
                         "2024-08-09T09:11:53.709631", key, x->valuestring, why);
}

static int emit(struct dl_ctx *c, const cJSON *root, size_t end, struct arena *a,
                struct record_sink *out)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metric");
    size_t mat = value_at(c, "metric", c->doc);
    if (!cJSON_IsObject(m))
        return diag_error_at(c->d, c->src, m ? mat : c->doc,
                             "expected DLIO's 'metric' object in summary.json, got %s",
                             m ? kind(m) : "none");
    double sps, mbps, au, v;
    if (number(c, m, "train_throughput_mean_samples_per_second", mat, 1, &sps) ||
        number(c, m, "train_io_mean_MB_per_second", mat, 1, &mbps) ||
        number(c, m, "train_au_mean_percentage", mat, 1, &au))
        return -1;
    int epochs = per_epoch(c, m, "train_au_percentage", mat);
    int tput_epochs = per_epoch(c, m, "train_throughput_samples_per_second", mat);
    if (epochs < 0 || tput_epochs < 0)
        return -1;
    if (tput_epochs != epochs)
        return diag_error_at(
            c->d, c->src, value_at(c, "train_throughput_samples_per_second", mat),
            "expected %d epochs' throughput (as 'train_au_percentage' has), got %d", epochs,
            tput_epochs);

    struct bench_record *r = record_new(a, "dlio");
    r->job = "train";
    r->direction = "read";
    r->line_first = source_line(c->src, c->doc);
    r->line_last = source_line(c->src, end > c->doc ? end - 1 : c->doc);
    record_metric(a, r, "bw_bytes_s", mbps * 1048576.0);
    record_metric(a, r, "train_samples_s", sps);
    record_metric(a, r, "train_au_pct", au);
    if (epochs > 0)
        record_metric(a, r, "epochs", epochs);
    /* each simulated accelerator is one reader process (an MPI rank), as fio's numjobs */
    double n;
    int rc = number(c, root, "num_accelerators", c->doc, 0, &n);
    if (rc < 0)
        return -1;
    if (rc == 0 && n >= 1 && n <= 1e9 && n == floor(n))
        r->wl.numjobs = (int64_t)n;
    /* The sample size (DLIO's record_length) is not written but is the ratio of the two
     * throughputs DLIO derived from it: the size of a read, so one model's dataset is not
     * compared with another's. */
    if (sps > 0 && mbps > 0)
        r->wl.bs_bytes = (int64_t)llround(mbps * 1048576.0 / sps);
    static const struct {
        const char *key, *name;
        double scale;
    } extra[] = {
        {"train_au_stdev_percentage", "train_au_stddev_pct", 1},
        {"train_throughput_stdev_samples_per_second", "train_samples_stddev_s", 1},
        {"train_io_stdev_MB_per_second", "bw_stddev_bytes_s", 1048576.0},
        {"eval_throughput_mean_samples_per_second", "eval_samples_s", 1},
        {"eval_io_mean_MB_per_second", "eval_bw_bytes_s", 1048576.0},
    };
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        if ((rc = number(c, m, extra[i].key, mat, 0, &v)) < 0)
            return -1;
        if (rc == 0)
            record_metric(a, r, extra[i].name, v * extra[i].scale);
    }
    static const struct {
        const char *key, *name;
    } counts[] = {
        {"num_hosts", "hosts"},
        {"num_files_train", "files_train"},
        {"num_samples_per_file", "samples_per_file"},
    };
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        if ((rc = number(c, root, counts[i].key, c->doc, 0, &v)) < 0)
            return -1;
        if (rc == 0)
            record_metric(a, r, counts[i].name, v);
    }
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(m, "train_au_meet_expectation");
    if (cJSON_IsString(ok))
        record_tag(a, r, "au_expectation", arena_strdup(a, ok->valuestring));
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(root, "hostname");
    if (cJSON_IsString(host) && host->valuestring[0])
        r->host = arena_strdup(a, host->valuestring);
    double t0, t1;
    if (timestamp(c, root, "start", &t0))
        return -1;
    r->started_at = (int64_t)floor(t0);
    if (cJSON_GetObjectItemCaseSensitive(root, "end")) {
        if (timestamp(c, root, "end", &t1))
            return -1;
        if (t1 >= t0)
            record_metric(a, r, "runtime_ms", (t1 - t0) * 1000.0);
    }
    return out->emit(out->ctx, r);
}

static int dl_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    size_t pos = bom_len(src->data, src->len);
    while (pos < src->len && (unsigned char)src->data[pos] <= ' ')
        pos++;
    if (pos >= src->len)
        return diag_error_line(d, src, 1, "empty file: expected DLIO's summary.json");
    if (src->data[pos] != '{')
        return diag_error_at(d, src, pos,
                             "expected DLIO's summary.json (a JSON object), got '%.12s'",
                             src->data + pos);
    const char *endp = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(src->data + pos, src->len - pos, &endp, 0);
    if (!root) {
        size_t at = endp ? (size_t)(endp - src->data) : src->len;
        if (at >= src->len || fastjson_unterminated(src->data + pos, src->len - pos))
            return diag_error_at(d, src, src->len,
                                 "truncated JSON: unexpected end of file (the document opened at "
                                 "line %u)",
                                 source_line(src, pos));
        return diag_error_at(d, src, at, "invalid JSON near '%.12s'", src->data + at);
    }
    size_t end = (size_t)(endp - src->data), after = end;
    while (after < src->len && (unsigned char)src->data[after] <= ' ')
        after++;
    int rc;
    struct dl_ctx c = {src, d, pos};
    if (after < src->len)
        rc = diag_error_at(d, src, after, "expected the end of summary.json, got '%.12s'",
                           src->data + after);
    else
        rc = emit(&c, root, end, a, out);
    cJSON_Delete(root);
    return rc;
}

/* summary.json's "metric" keys; 95 with the run's shape around them (DLIO's own file), 80 for
 * the metric keys alone. */
static int dl_probe(const struct source *src)
{
    size_t pos = bom_len(src->data, src->len);
    while (pos < src->len && (unsigned char)src->data[pos] <= ' ')
        pos++;
    if (pos >= src->len || src->data[pos] != '{')
        return 0;
    const char *s = src->data + pos;
    size_t n = src->len - pos;
    int au = mem_find(s, n, "\"train_au_mean_percentage\"") != NULL;
    int tput = mem_find(s, n, "\"train_throughput_mean_samples_per_second\"") != NULL;
    int shape = mem_find(s, n, "\"num_accelerators\"") != NULL && mem_find(s, n, "\"metric\"");
    if (au && tput)
        return shape ? 95 : 80;
    return 0;
}

const struct importer importer_dlio = {
    .name = "dlio",
    .summary = "DLIO / MLPerf Storage summary.json: training samples/s, MB/s and AU per run",
    .probe = dl_probe,
    .parse = dl_parse,
};
