/* side_expr.c: keys and compared sides as SQL. A side's value is a value of the --by key, or
 * a saved baseline (schema/0004_baseline.sql), whatever the key. */
#include "side_expr.h"

#include <string.h>

#include "../core/array.h"
#include "query.h"

const char *query_key_expr(const char *key, const char **param)
{
    static const char *const names[] = {
        "storage-class", "storage_class", "host",     "sec",   "peer", "rw",
        "direction",     "job",           "ioengine", "tool",  "bs",   "bs_bytes",
        "iodepth",       "numjobs",       "direct",   "source"};
    static const char *const exprs[] = {
        "r.storage_class", "r.storage_class", "r.host",     "r.sec",    "r.peer",     "r.rw",
        "r.direction",     "r.job",           "r.ioengine", "run.tool", "r.bs_bytes", "r.bs_bytes",
        "r.iodepth",       "r.numjobs",       "r.direct",   "s.path"};
    *param = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (!strcmp(key, names[i]))
            return exprs[i];
    if (!strncmp(key, "mount:", 6) && key[6]) {
        *param = key + 6;
        /* a flag (hard, async) has no value: '' as `labels` lists it, so that --by, --compare
         * and --where find the results that have it */
        return "(SELECT coalesce(mo.value, '') FROM mount_option mo WHERE mo.mount_id = "
               "r.mount_id AND mo.key = ?)";
    }
    if (!strncmp(key, "tag:", 4) && key[4]) {
        *param = key + 4;
        return "(SELECT t.value FROM tag t WHERE t.result_id = r.id AND t.key = ?)";
    }
    return NULL;
}

int query_key_known(const char *key)
{
    const char *param;
    return query_key_expr(key, &param) != NULL;
}

const char *side_baseline(const char *value)
{
    size_t n = strlen(SIDE_BASELINE_PREFIX);
    return !strncmp(value, SIDE_BASELINE_PREFIX, n) ? value + n : NULL;
}

int side_condition(struct buf *sql, const char *by, const char *value, const char *params[2])
{
    const char *name = side_baseline(value), *param;
    if (name) {
        buf_adds(sql, "r.id IN (SELECT br.result_id FROM baseline_result br JOIN baseline b "
                      "ON b.id = br.baseline_id WHERE b.name = ?)");
        params[0] = name;
        return 1;
    }
    const char *kx = query_key_expr(by, &param);
    if (!kx)
        return -1;
    buf_addf(sql, "%s = ?", kx);
    int n = 0;
    if (param)
        params[n++] = param;
    params[n++] = value;
    return n;
}
