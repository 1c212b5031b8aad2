/* ior_json.c: IOR's JSON output (-O summaryFormat=JSON, to stdout or -O summaryFile=;
 * docs/formats.md 16): per test its Parameters (sizes in bytes, fsync settings), Options and
 * Results (one object per iteration and access), then the summary over the iterations. The
 * same records as the text output of the same run (ior.h): one per Results object. The keys
 * come from IOR's src/ior-output.c (ShowTestStart, ShowSetup, PrintReducedResult). */
#include "ior.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../core/scan.h"
#include "fastjson.h"

struct ij_ctx {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    size_t cursor; /* where the object being read starts in the text */
};

/* The offset of the value of the first "key" at or after from: IOR writes its keys in a fixed
 * order, so a cursor that moves on through the text finds the one cJSON read. */
static size_t value_at(const struct source *src, const char *key, size_t from)
{
    return fastjson_value_at(src->data, src->len, key, from);
}

static const char *kind(const cJSON *x)
{
    return !x                  ? "none"
           : cJSON_IsString(x) ? "a string"
           : cJSON_IsArray(x)  ? "an array"
           : cJSON_IsObject(x) ? "an object"
           : cJSON_IsBool(x)   ? "a boolean"
           : cJSON_IsNull(x)   ? "null"
                               : "a number out of range";
}

/* The number under key of o: 0 with *v; -1 after a located error. */
static int number(struct ij_ctx *c, const cJSON *o, const char *key, const char *where, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
        return diag_error_at(c->d, c->src, value_at(c->src, key, c->cursor),
                             "expected a number for '%s' in IOR's %s, got %s", key, where, kind(x));
    *v = x->valuedouble;
    return 0;
}

static int integer(struct ij_ctx *c, const cJSON *o, const char *key, const char *where, int64_t *v)
{
    double x = 0;
    if (number(c, o, key, where, &x))
        return -1;
    if (x != floor(x) || x > 9.0e18)
        return diag_error_at(c->d, c->src, value_at(c->src, key, c->cursor),
                             "expected a whole number for '%s' in IOR's %s, got %g", key, where, x);
    *v = (int64_t)x;
    return 0;
}

static const char *string(struct ij_ctx *c, const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(x) ? arena_strdup(c->a, x->valuestring) : NULL;
}

/* IOR writes every figure with 4 decimals: 0.0000 is below that resolution (a tmpfs latency
 * of 20 us), unknown rather than 0. */
static double resolved(double v)
{
    return v > 0 ? v : -1;
}

/* One Results object: one iteration of one access ("remove" objects are the file removal's
 * time alone and are skipped). */
static int result(struct ij_ctx *c, struct ior_test *t, const cJSON *r, int64_t counts[2],
                  unsigned *run_no)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"bwMiB", offsetof(struct ior_iter, bw_mib)},
        {"iops", offsetof(struct ior_iter, iops)},
        {"latency", offsetof(struct ior_iter, lat_s)},
        {"openTime", offsetof(struct ior_iter, open_s)},
        {"wrRdTime", offsetof(struct ior_iter, wrrd_s)},
        {"closeTime", offsetof(struct ior_iter, close_s)},
        {"totalTime", offsetof(struct ior_iter, total_s)},
    };
    c->cursor = value_at(c->src, "access", c->cursor);
    const char *access = string(c, r, "access");
    if (access && !strcmp(access, "remove"))
        return 0;
    if (!access || (strcmp(access, "write") && strcmp(access, "read")))
        return diag_error_at(c->d, c->src, c->cursor,
                             "expected 'write' or 'read' for 'access' in IOR's Results, got %s",
                             access ? access : kind(cJSON_GetObjectItemCaseSensitive(r, "access")));
    struct ior_iter it = {.write = access[0] == 'w'};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        double v = 0;
        if (number(c, r, keys[i].key, "Results", &v))
            return -1;
        *(double *)((char *)&it + keys[i].off) = resolved(v);
    }
    it.iter = counts[it.write]++;
    it.line_first = it.line_last = source_line(c->src, c->cursor);
    return ior_emit(c->a, c->out, t, &it, (*run_no)++);
}

static int test(struct ij_ctx *c, const cJSON *root, const cJSON *te, unsigned *run_no)
{
    struct ior_test t;
    ior_test_init(&t);
    const char *v = string(c, root, "Version");
    t.version = v ? arena_printf(c->a, "IOR-%s", v) : NULL;
    const char *machine = string(c, root, "Machine"), *sp;
    if (machine && (sp = strchr(machine, ' ')) && sp[1])
        t.host = arena_strndup(c->a, sp + 1, strcspn(sp + 1, " "));
    const char *cmd = string(c, root, "Command line");
    if (cmd)
        ior_command_line(&t, cmd);
    size_t test_at = c->cursor = value_at(c->src, "TestID", c->cursor);
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(te, "Parameters");
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(te, "Options");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(te, "Results");
    if (!cJSON_IsObject(par) || !cJSON_IsObject(opt) || !cJSON_IsArray(res))
        return diag_error_at(c->d, c->src, test_at,
                             "expected 'Parameters', 'Options' and 'Results' in each of IOR's "
                             "tests, got %s for '%s'",
                             kind(!cJSON_IsObject(par)   ? par
                                  : !cJSON_IsObject(opt) ? opt
                                                         : res),
                             !cJSON_IsObject(par)   ? "Parameters"
                             : !cJSON_IsObject(opt) ? "Options"
                                                    : "Results");
    int64_t fpp, random, fsync, fsync_write, collective;
    c->cursor = value_at(c->src, "Parameters", c->cursor);
    if (integer(c, par, "testID", "Parameters", &t.id) ||
        integer(c, par, "repetitions", "Parameters", &t.reps) ||
        integer(c, par, "fsync", "Parameters", &fsync) ||
        integer(c, par, "fsyncperwrite", "Parameters", &fsync_write) ||
        integer(c, par, "filePerProc", "Parameters", &fpp) ||
        integer(c, par, "randomOffset", "Parameters", &random) ||
        integer(c, par, "collective", "Parameters", &collective) ||
        integer(c, par, "segmentCount", "Parameters", &t.segments) ||
        integer(c, par, "transferSize", "Parameters", &t.xfer) ||
        integer(c, par, "blockSize", "Parameters", &t.block))
        return -1;
    t.api = string(c, par, "api");
    /* the Parameters are the test's own, a -f script's settings included */
    t.fsync_end = fsync != 0;
    t.fsync_write = fsync_write != 0;
    t.access = fpp ? "file-per-process" : "single-shared-file";
    t.random = random != 0;
    t.type = collective ? "collective" : "independent";
    c->cursor = value_at(c->src, "Options", c->cursor);
    if (integer(c, opt, "tasks", "Options", &t.tasks))
        return -1;
    c->cursor = value_at(c->src, "Results", c->cursor);
    int64_t counts[2] = {0, 0};
    for (const cJSON *r = res->child; r; r = r->next) {
        /* one array per repetition in some IOR versions, objects in a flat array in 4.x */
        const cJSON *e = cJSON_IsArray(r) ? r->child : r;
        for (; e; e = cJSON_IsArray(r) ? e->next : NULL) {
            if (!cJSON_IsObject(e))
                return diag_error_at(c->d, c->src, c->cursor,
                                     "expected an object per iteration in IOR's Results, got %s",
                                     kind(e));
            if (result(c, &t, e, counts, run_no))
                return -1;
        }
    }
    for (int w = 0; w < 2; w++)
        if (counts[w] && counts[w] != t.reps)
            return diag_error_at(c->d, c->src, test_at,
                                 "expected %lld '%s' results in IOR test %lld (its repetitions), "
                                 "got %lld",
                                 (long long)t.reps, w ? "write" : "read", (long long)t.id,
                                 (long long)counts[w]);
    return counts[0] + counts[1] ? 1 : 0;
}

static int ij_parse(const struct source *src, struct arena *a, struct record_sink *out,
                    struct diag *d)
{
    size_t pos = bom_len(src->data, src->len);
    while (pos < src->len && src->data[pos] != '{')
        pos++;
    if (pos >= src->len)
        return diag_error_line(d, src, 1, "expected IOR's JSON output (a '{'), got none");
    const char *endp = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(src->data + pos, src->len - pos, &endp, 0);
    if (!root) {
        size_t at = endp ? (size_t)(endp - src->data) : src->len;
        if (at >= src->len || fastjson_unterminated(src->data + pos, src->len - pos))
            return diag_error_at(d, src, src->len, "truncated JSON document (opened at line %u)",
                                 source_line(src, pos));
        return diag_error_at(d, src, at, "invalid JSON near '%.12s'", src->data + at);
    }
    struct ij_ctx c = {src, a, d, out, pos};
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests");
    int rc = 0, found = 0;
    unsigned run_no = 0;
    if (!cJSON_IsArray(tests))
        rc = diag_error_at(d, src, value_at(src, "tests", pos),
                           "expected IOR's 'tests' array in its JSON output, got %s", kind(tests));
    for (const cJSON *te = rc ? NULL : tests->child; te && !rc; te = te->next) {
        int n = test(&c, root, te, &run_no);
        if (n < 0)
            rc = -1;
        found += n;
    }
    if (!rc && !found)
        rc = diag_error_at(d, src, value_at(src, "tests", pos),
                           "no IOR result found: no test has a write or read in its 'Results'");
    cJSON_Delete(root);
    return rc;
}

static int ij_probe(const struct source *src)
{
    size_t n = src->len < 4096 ? src->len : 4096;
    const char *s = src->data;
    int version = mem_find(s, n, "\"Version\"") != NULL;
    int began = mem_find(s, n, "\"Began\"") != NULL;
    int cmd = mem_find(s, n, "\"Command line\"") != NULL;
    int ior = mem_find(s, n, "\"tests\"") != NULL || mem_find(src->data, src->len, "\"Results\"");
    if (version && began && cmd && ior && mem_find(src->data, src->len, "\"bwMiB\""))
        return 95;
    if (version && began && cmd)
        return 50;
    return 0;
}

const struct importer importer_ior_json = {
    .name = "ior-json",
    .summary = "IOR JSON output (-O summaryFormat=JSON): the same per-iteration results",
    .probe = ij_probe,
    .parse = ij_parse,
};
