/* side_expr.c: a compared side as SQL. A value is a value of the --by key, or a saved
 * baseline (schema/0004_baseline.sql), whatever the key. */
#include "side_expr.h"

#include <string.h>

#include "results.h"

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
