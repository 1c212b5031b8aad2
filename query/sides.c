/* sides.c: each compared value has results, or the user is told why not (values bound as
 * parameters, never pasted). */
#include "sides.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/buf.h"
#include "../core/distance.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "results.h"
#include "side_expr.h"

enum {
    SHOWN_VALUES = 10, /* known values named in a message; the rest are counted */
    SHOWN_KEYS = 5,    /* other keys named */
};

struct strs {
    char **v;
    size_t n, a;
};

static void strs_add(struct strs *s, const char *v)
{
    ALLOC_GROW(s->v, s->n, s->a);
    s->v[s->n++] = xstrdup(v);
}

static void strs_release(struct strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* ---- queries ----------------------------------------------------------------------------- */

struct check {
    sqlite3 *h;
    const struct compare_opts *o;
    const char *kx, *param; /* the --by key's expression and its name */
    struct strs known;      /* the key's values, sorted */
    int known_loaded;
    struct diag *d;
};

/* Finalizes st, a statement of the check: 0, or -1 after SQLite's message when rc failed
 * (said first: finalizing a statement that ran well sets the message to "not an error"). */
static int check_end(struct check *c, sqlite3_stmt *st, int rc)
{
    int failed = rc != SQLITE_OK ? diag_error(c->d, "cannot compare: %s", sqlite3_errmsg(c->h)) : 0;
    sqlite3_finalize(st);
    return failed;
}

static int has_dates(const struct compare_opts *o)
{
    return o->dates && time_range_bounded(o->dates);
}

/* Only the keys run.tool and s.path (query_key_expr) read another table than result: without
 * them, counting a storage class's million results reads just an index. */
static const char *from_sql(const struct check *c)
{
    int joins = strstr(c->kx, "run.") || strstr(c->kx, "s.path") || has_dates(c->o);
    for (size_t i = 0; i < c->o->nwhere; i++) {
        const char *param, *x = query_key_expr(c->o->where[i].key, &param);
        joins |= strstr(x, "run.") || strstr(x, "s.path");
    }
    return joins ? " FROM result r JOIN run ON run.id = r.run_id "
                   "JOIN source_file s ON s.id = run.source_id"
                 : " FROM result r";
}

/* "bs=4k" filters compare bytes, as query_compare's do. */
static const char *where_value(struct buf *tmp, const char *key, const char *value)
{
    int64_t bytes;
    if ((!strcmp(key, "bs") || !strcmp(key, "bs_bytes")) && parse_fio_size(value, &bytes)) {
        buf_reset(tmp);
        buf_addf(tmp, "%" PRId64, bytes);
        return tmp->data;
    }
    return value;
}

/* Binds the filters' parameters from index p on. */
static void bind_filters(struct check *c, sqlite3_stmt *st, int p, int *rc)
{
    for (size_t i = 0; i < c->o->nwhere; i++) {
        const char *wparam;
        struct buf tmp = BUF_INIT;
        query_key_expr(c->o->where[i].key, &wparam);
        if (wparam)
            sql_bind_text_at(st, rc, p++, wparam);
        sql_bind_text_at(st, rc, p++, where_value(&tmp, c->o->where[i].key, c->o->where[i].value));
        buf_release(&tmp);
    }
}

/* The number of results of side value (query/side_expr.c), with the filters or without. */
static int count(struct check *c, const char *value, int filtered, int64_t *n)
{
    struct buf sql = BUF_INIT;
    const char *params[2];
    buf_addf(&sql, "SELECT count(*)%s WHERE ", from_sql(c));
    int nparams = side_condition(&sql, c->o->by, value, params);
    for (size_t i = 0; filtered && i < c->o->nwhere; i++) {
        const char *wparam;
        buf_addf(&sql, " AND %s = ?", query_key_expr(c->o->where[i].key, &wparam));
    }
    if (filtered)
        db_time_range_sql(&sql, "run.started_at", c->o->dates);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(c->h, &rc, sql.data);
    buf_release(&sql);
    sql_bind_texts(st, &rc, params, (size_t)nparams);
    if (filtered)
        bind_filters(c, st, nparams + 1, &rc);
    *n = sql_step(st, &rc) ? sqlite3_column_int64(st, 0) : 0;
    return check_end(c, st, rc);
}

/* Every value the key has, sorted. */
static int load_known(struct check *c)
{
    if (c->known_loaded)
        return 0;
    c->known_loaded = 1;
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "SELECT v FROM (SELECT %s AS v%s) WHERE v IS NOT NULL GROUP BY v ORDER BY v",
             c->kx, from_sql(c));
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(c->h, &rc, sql.data);
    buf_release(&sql);
    if (c->param)
        sql_bind_text_at(st, &rc, 1, c->param);
    while (sql_step(st, &rc))
        strs_add(&c->known, sql_text(st, 0));
    return check_end(c, st, rc);
}

/* The keys other than --by's (storage-class, host, sec, mount:OPTION, tag:NAME) that have
 * value as a value: the exact spelling if any key has it, else the first spelling that differs
 * in case only (in *spelling). */
static int other_keys(struct check *c, const char *value, struct strs *keys, char **spelling)
{
    static const char sql[] =
        "SELECT v <> ?1, rank, k, v FROM ("
        "SELECT 0 AS rank, 'storage-class' AS k, storage_class AS v FROM result "
        "WHERE storage_class = ?1 COLLATE NOCASE "
        "UNION SELECT 1, 'host', host FROM result WHERE host = ?1 COLLATE NOCASE "
        "UNION SELECT 2, 'sec', sec FROM result WHERE sec = ?1 COLLATE NOCASE "
        "UNION SELECT 3, 'mount:' || mo.key, mo.value FROM mount_option mo "
        "WHERE mo.value = ?1 COLLATE NOCASE AND EXISTS (SELECT 1 FROM result r "
        "WHERE r.mount_id = mo.mount_id) "
        "UNION SELECT 4, 'tag:' || t.key, t.value FROM tag t WHERE t.value = ?1 COLLATE NOCASE"
        ") ORDER BY 1, 4, 2, 3";
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(c->h, &rc, sql);
    sql_bind_text_at(st, &rc, 1, value);
    const char *by = strcmp(c->o->by, "storage_class") ? c->o->by : "storage-class";
    *spelling = NULL;
    while (sql_step(st, &rc)) {
        const char *k = sql_text(st, 2);
        const char *v = sql_text(st, 3);
        if (!strcmp(k, by))
            continue;
        if (!*spelling)
            *spelling = xstrdup(v);
        else if (strcmp(*spelling, v))
            continue; /* another spelling: one is enough to point the way */
        strs_add(keys, k);
    }
    return check_end(c, st, rc);
}

/* ---- messages ---------------------------------------------------------------------------- */

static void add_filters(struct buf *msg, const struct compare_opts *o)
{
    for (size_t i = 0; i < o->nwhere; i++)
        buf_addf(msg, "%s%s=%s", i ? ", " : "", o->where[i].key, o->where[i].value);
    if (has_dates(o))
        buf_addf(msg, "%sstarted within --since/--until", o->nwhere ? ", " : "");
}

/* "'x' is a value of host and tag:node: try --by host or --by tag:node" */
static void add_other_keys(struct buf *msg, const char *spelling, const struct strs *keys)
{
    size_t shown = keys->n < SHOWN_KEYS ? keys->n : SHOWN_KEYS;
    buf_addf(msg, "'%s' is a value of ", spelling);
    for (size_t i = 0; i < shown; i++)
        buf_addf(msg, "%s%s",
                 i == 0                               ? ""
                 : i + 1 == shown && shown == keys->n ? " and "
                                                      : ", ",
                 keys->v[i]);
    if (shown < keys->n)
        buf_addf(msg, " and %zu more", keys->n - shown);
    buf_adds(msg, ": try");
    for (size_t i = 0; i < shown; i++)
        buf_addf(msg, "%s --by %s", i ? " or" : "", keys->v[i]);
}

/* "storage-class values: 'disk', 'tmpfs'" or "no result has a storage-class" */
static void note_known(struct check *c)
{
    struct buf msg = BUF_INIT;
    if (!c->known.n) {
        diag_note(c->d, "no result has a %s", c->o->by);
        return;
    }
    size_t shown = c->known.n < SHOWN_VALUES ? c->known.n : SHOWN_VALUES;
    buf_addf(&msg, "%s values: ", c->o->by);
    for (size_t i = 0; i < shown; i++)
        buf_addf(&msg, "%s'%s'", i ? ", " : "", c->known.v[i]);
    if (shown < c->known.n)
        buf_addf(&msg, " and %zu more", c->known.n - shown);
    diag_note(c->d, "%s", msg.data);
    buf_release(&msg);
}

/* The saved baselines' names, sorted, into out. */
static int baseline_names(struct check *c, struct strs *out)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(c->h, &rc, "SELECT name FROM baseline ORDER BY name");
    while (sql_step(st, &rc))
        strs_add(out, sql_text(st, 0));
    return check_end(c, st, rc);
}

/* Why baseline name has no results: unknown (the saved ones named), filtered out (all: its
 * results without the filters), or every result of it removed. 1, or -1 on failure. */
static int missing_baseline(struct check *c, const char *name, int64_t all)
{
    struct strs names = {NULL, 0, 0};
    if (baseline_names(c, &names))
        return -1;
    int known = 0;
    for (size_t i = 0; i < names.n; i++)
        known |= !strcmp(names.v[i], name);
    if (all > 0) {
        struct buf msg = BUF_INIT;
        add_filters(&msg, c->o);
        diag_error(c->d,
                   "no results of baseline '%s' where %s (the filters remove all %" PRId64
                   " of its results)",
                   name, msg.data, all);
        buf_release(&msg);
    } else if (known) {
        diag_error(c->d, "baseline '%s' has no results left (removed by 'benchdb rm')", name);
    } else {
        struct buf list = BUF_INIT;
        for (size_t i = 0; i < names.n && i < SHOWN_VALUES; i++)
            buf_addf(&list, "%s'%s'", i ? ", " : "", names.v[i]);
        if (names.n > SHOWN_VALUES)
            buf_addf(&list, " and %zu more", names.n - SHOWN_VALUES);
        diag_error(c->d, "no saved baseline '%s'", name);
        if (names.n)
            diag_note(c->d, "saved baselines: %s", list.data);
        else
            diag_note(c->d, "no baseline is saved ('benchdb baseline save NAME --where ...')");
        buf_release(&list);
    }
    strs_release(&names);
    return 1;
}

/* The known value that is value but for its letters' case, or NULL. */
static const char *known_ignoring_case(const struct check *c, const char *value)
{
    for (size_t i = 0; i < c->known.n; i++)
        if (!strcasecmp(c->known.v[i], value))
            return c->known.v[i];
    return NULL;
}

/* 0 when value has results, 1 after saying why it has none, -1 on failure. */
static int check_value(struct check *c, const char *value)
{
    int64_t n, all = 0;
    if (count(c, value, 1, &n))
        return -1;
    if (n > 0)
        return 0;
    if ((c->o->nwhere || has_dates(c->o)) && count(c, value, 0, &all))
        return -1;
    if (side_baseline(value))
        return missing_baseline(c, side_baseline(value), all);
    struct buf msg = BUF_INIT;
    buf_addf(&msg, "no results with %s '%s'", c->o->by, value);
    if (all > 0) {
        buf_adds(&msg, " where ");
        add_filters(&msg, c->o);
        buf_addf(&msg, " (the filters remove all %" PRId64 " of its results)", all);
        diag_error(c->d, "%s", msg.data);
        buf_release(&msg);
        return 1;
    }
    struct strs keys = {NULL, 0, 0};
    char *spelling = NULL;
    if (load_known(c) || other_keys(c, value, &keys, &spelling)) {
        buf_release(&msg);
        strs_release(&keys);
        return -1;
    }
    /* the value in another case (a note's "CephFS" is stored as the class cephfs), else a
     * misspelling of a known value: within max(2, length / 3) edits */
    const char *cased = known_ignoring_case(c, value);
    const char *near =
        cased ? NULL : str_nearest(value, (const char *const *)c->known.v, c->known.n, 2);
    if (cased) {
        buf_addf(&msg, "; did you mean '%s'?", cased);
        if (keys.n) {
            buf_adds(&msg, " (");
            add_other_keys(&msg, spelling, &keys);
            buf_adds(&msg, ")");
        }
    } else if (keys.n && (!near || !strcmp(spelling, value))) {
        buf_adds(&msg, "; ");
        add_other_keys(&msg, spelling, &keys);
    } else if (near) {
        buf_addf(&msg, "; did you mean '%s'?", near);
    }
    diag_error(c->d, "%s", msg.data);
    note_known(c);
    buf_release(&msg);
    strs_release(&keys);
    free(spelling);
    return 1;
}

int query_check_sides(struct db *db, const struct compare_opts *o, struct diag *d)
{
    struct check c = {db_handle(db), o, NULL, NULL, {NULL, 0, 0}, 0, d};
    const char *wparam;
    c.kx = query_key_expr(o->by, &c.param);
    for (size_t i = 0; c.kx && i < o->nwhere; i++)
        if (!query_key_expr(o->where[i].key, &wparam))
            c.kx = NULL;
    if (!c.kx)
        return 0; /* query_compare names the unknown key */
    int rc = 0, missing = 0;
    for (size_t i = 0; rc == 0 && i < o->nvalues; i++) {
        int r = check_value(&c, o->values[i]);
        if (r < 0)
            rc = -1;
        missing |= r > 0;
    }
    strs_release(&c.known);
    return rc || missing ? -1 : 0;
}
