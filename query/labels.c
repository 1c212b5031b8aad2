/* labels.c: benchdb labels: the values results are compared and filtered by (storage classes,
 * hosts, sec flavors, mount options, tags), each with how many results and runs have it. */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/array.h"
#include "../core/xalloc.h"
#include "results.h"
#include "rows.h"
#include "side_expr.h"

/* The overview's keys that are columns of result, listed first and in this order. */
static const char *const column_keys[] = {"storage-class", "host", "sec"};

/* One SELECT of the union: the label's key and value over the selected results, grouped. */
struct part {
    const char *key_sql, *value_sql; /* expressions over result r (and mo, t) */
    const char *join;                /* the table the label comes from, "" for result's own */
    const char *name_sql;            /* the option's or tag's name in that table */
    const char *name;                /* the only name to list, or NULL */
};

static const struct part mount_part = {"'mount:' || mo.key", "mo.value",
                                       " JOIN mount_option mo ON mo.mount_id = r.mount_id",
                                       "mo.key", NULL};
static const struct part tag_part = {"'tag:' || t.key", "t.value",
                                     " JOIN tag t ON t.result_id = r.id", "t.key", NULL};

/* Appends part number ord: its rows of the results that pass o's filters. A flag mount
 * option (no value) is listed with a NULL value; a column's NULL (unknown) is left out. */
static int part_sql(const struct labels_opts *o, int ord, const struct part *p, struct arena *a,
                    struct buf *sql, struct binds *b, struct diag *d)
{
    buf_addf(sql,
             "%sSELECT %d AS ord, %s AS key, %s AS value, count(*) AS results,"
             " count(DISTINCT r.run_id) AS runs FROM result r JOIN run ON run.id = r.run_id"
             " JOIN source_file s ON s.id = run.source_id LEFT JOIN mount m ON m.id = r.mount_id"
             "%s WHERE 1",
             ord ? " UNION ALL " : "", ord, p->key_sql, p->value_sql, p->join);
    if (!*p->join)
        buf_addf(sql, " AND %s IS NOT NULL", p->value_sql);
    if (p->name) {
        buf_addf(sql, " AND %s = ?", p->name_sql);
        add_bind(b, p->name);
    }
    if (query_where_sql(o->where, o->nwhere, a, sql, b, d))
        return -1;
    db_time_range_sql(sql, "run.started_at", o->dates);
    buf_adds(sql, " GROUP BY 2, 3");
    return 0;
}

/* A --by key's values: for mount:NAME and tag:NAME, that option's or tag's part; else the
 * key's column (query_key_expr) under the key as given, bound first as it comes first. */
static int key_sql(const struct labels_opts *o, struct arena *a, struct buf *sql, struct binds *b,
                   struct diag *d)
{
    const char *name;
    struct part p = {"?", query_key_expr(o->key, &name), "", NULL, NULL};
    if (name) {
        p = !strncmp(o->key, "mount:", 6) ? mount_part : tag_part;
        p.name = name;
    } else {
        add_bind(b, o->key);
    }
    return part_sql(o, 0, &p, a, sql, b, d);
}

/* Every label: the columns' parts (each key bound as text), then mount options, then tags. */
static int overview_sql(const struct labels_opts *o, struct arena *a, struct buf *sql,
                        struct binds *b, struct diag *d)
{
    int ord = 0;
    for (size_t i = 0; i < ARRAY_SIZE(column_keys); i++, ord++) {
        const char *param;
        struct part p = {"?", query_key_expr(column_keys[i], &param), "", NULL, NULL};
        add_bind(b, column_keys[i]);
        if (part_sql(o, ord, &p, a, sql, b, d))
            return -1;
    }
    if (part_sql(o, ord++, &mount_part, a, sql, b, d))
        return -1;
    return part_sql(o, ord, &tag_part, a, sql, b, d);
}

int query_labels(struct db *db, const struct labels_opts *o, enum table_format fmt,
                 struct text_sink *out, struct diag *d)
{
    if (o->key && !query_key_known(o->key))
        return diag_error(d, "unknown label key '%s'", o->key);
    struct arena a = ARENA_INIT;
    struct binds b = {0};
    struct buf sql = BUF_INIT;
    /* -z: what --where (KEY=VALUE; a mount flag: KEY=) or --compare (VALUE) takes */
    buf_adds(&sql, !o->nul  ? "SELECT key, value, results, runs FROM ("
                   : o->key ? "SELECT value FROM ("
                            : "SELECT key || '=' || ifnull(value, '') FROM (");
    int rc = o->key ? key_sql(o, &a, &sql, &b, d) : overview_sql(o, &a, &sql, &b, d);
    buf_adds(&sql, ") ORDER BY ord, key, value");
    if (rc == 0 && o->nul)
        rc = rows_nul(db, sql.data, b.v, b.n, "labels", out, d);
    else if (rc == 0)
        rc = rows_list(db, sql.data, b.v, b.n, "labels", fmt, out, d);
    buf_release(&sql);
    free(b.v);
    arena_release(&a);
    return rc;
}
