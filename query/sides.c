/* sides.c: each compared value has results, or the user is told why not (values bound as
 * parameters, never pasted). */
#include "sides.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "results.h"

enum {
    SHOWN_VALUES = 10, /* known values named in a message; the rest are counted */
    SHOWN_KEYS = 5,    /* other keys named */
    MAX_CHARS = 256,   /* longer values are not matched for spelling */
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

/* ---- spelling ---------------------------------------------------------------------------- */

/* The characters of s (UTF-8; a stray byte counts as one), ASCII letters lowered; the count,
 * or -1 when over MAX_CHARS. */
static int decode(const char *s, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    int n = 0;
    while (*p) {
        if (n == MAX_CHARS)
            return -1;
        uint32_t c = *p++;
        int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (more) {
            c &= 0x3fu >> more;
            for (; more && (*p & 0xc0) == 0x80; more--)
                c = c << 6 | (*p++ & 0x3fu);
        } else if (c >= 'A' && c <= 'Z') {
            c += 'a' - 'A';
        }
        out[n++] = c;
    }
    return n;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* The optimal-string-alignment (Damerau-Levenshtein) distance, case-insensitive for ASCII;
 * -1 when either string is too long to match. */
static int distance(const char *a, const char *b)
{
    uint32_t x[MAX_CHARS], y[MAX_CHARS];
    int rows[3][MAX_CHARS + 1];
    int n = decode(a, x), m = decode(b, y);
    if (n < 0 || m < 0)
        return -1;
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (int j = 0; j <= m; j++)
        prev[j] = j;
    for (int i = 1; i <= n; i++) {
        cur[0] = i;
        for (int j = 1; j <= m; j++) {
            int cost = x[i - 1] != y[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

/* The known value nearest to v when it is close enough to be a misspelling of it: within
 * max(2, len/3) edits and not a complete rewrite; NULL when none is. The first of equals. */
static const char *nearest(const char *v, const struct strs *known)
{
    uint32_t tmp[MAX_CHARS];
    int len = decode(v, tmp), best = -1;
    const char *found = NULL;
    if (len <= 0)
        return NULL;
    int limit = len / 3 > 2 ? len / 3 : 2;
    for (size_t i = 0; i < known->n; i++) {
        int dist = distance(v, known->v[i]);
        if (dist >= 0 && dist <= limit && dist < len && (best < 0 || dist < best)) {
            best = dist;
            found = known->v[i];
        }
    }
    return found;
}

/* ---- queries ----------------------------------------------------------------------------- */

struct check {
    sqlite3 *h;
    const struct compare_opts *o;
    const char *kx, *param;                   /* the --by key's expression and its name */
    sqlite3_stmt *count_filtered, *count_all; /* results of one value: ? = the value */
    struct strs known;                        /* the key's values, sorted */
    int known_loaded;
    struct diag *d;
};

static int fail_sql(struct check *c)
{
    return diag_error(c->d, "cannot compare: %s", sqlite3_errmsg(c->h));
}

/* Only the keys run.tool and s.path (query_key_expr) read another table than result: without
 * them, counting a storage class's million results reads just an index. */
static const char *from_sql(const struct check *c)
{
    int joins = strstr(c->kx, "run.") || strstr(c->kx, "s.path");
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

/* The statement counting one value's results, with the filters or without. */
static int prepare_count(struct check *c, int filtered, sqlite3_stmt **st)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "SELECT count(*)%s WHERE %s = ?", from_sql(c), c->kx);
    for (size_t i = 0; filtered && i < c->o->nwhere; i++) {
        const char *wparam;
        buf_addf(&sql, " AND %s = ?", query_key_expr(c->o->where[i].key, &wparam));
    }
    int rc = sqlite3_prepare_v2(c->h, sql.data, -1, st, NULL) == SQLITE_OK ? 0 : fail_sql(c);
    buf_release(&sql);
    if (rc)
        return rc;
    int p = 1;
    if (c->param)
        sqlite3_bind_text(*st, p++, c->param, -1, SQLITE_STATIC);
    p++; /* the value, bound per value */
    for (size_t i = 0; filtered && i < c->o->nwhere; i++) {
        const char *wparam;
        struct buf tmp = BUF_INIT;
        query_key_expr(c->o->where[i].key, &wparam);
        if (wparam)
            sqlite3_bind_text(*st, p++, wparam, -1, SQLITE_STATIC);
        sqlite3_bind_text(*st, p++, where_value(&tmp, c->o->where[i].key, c->o->where[i].value), -1,
                          SQLITE_TRANSIENT);
        buf_release(&tmp);
    }
    return 0;
}

static int count(struct check *c, sqlite3_stmt *st, const char *value, int64_t *n)
{
    sqlite3_bind_text(st, c->param ? 2 : 1, value, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    *n = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return s == SQLITE_ROW ? 0 : fail_sql(c);
}

/* Every value the key has, sorted. */
static int load_known(struct check *c)
{
    if (c->known_loaded)
        return 0;
    c->known_loaded = 1;
    struct buf sql = BUF_INIT;
    sqlite3_stmt *st;
    buf_addf(&sql, "SELECT v FROM (SELECT %s AS v%s) WHERE v IS NOT NULL GROUP BY v ORDER BY v",
             c->kx, from_sql(c));
    int rc = sqlite3_prepare_v2(c->h, sql.data, -1, &st, NULL) == SQLITE_OK ? 0 : fail_sql(c);
    buf_release(&sql);
    if (rc)
        return rc;
    if (c->param)
        sqlite3_bind_text(st, 1, c->param, -1, SQLITE_STATIC);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW)
        strs_add(&c->known, (const char *)sqlite3_column_text(st, 0));
    if (s != SQLITE_DONE)
        rc = fail_sql(c);
    sqlite3_finalize(st);
    return rc;
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
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->h, sql, -1, &st, NULL) != SQLITE_OK)
        return fail_sql(c);
    sqlite3_bind_text(st, 1, value, -1, SQLITE_STATIC);
    const char *by = strcmp(c->o->by, "storage_class") ? c->o->by : "storage-class";
    int s;
    *spelling = NULL;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 2);
        const char *v = (const char *)sqlite3_column_text(st, 3);
        if (!strcmp(k, by))
            continue;
        if (!*spelling)
            *spelling = xstrdup(v);
        else if (strcmp(*spelling, v))
            continue; /* another spelling: one is enough to point the way */
        strs_add(keys, k);
    }
    int rc = s == SQLITE_ROW || s == SQLITE_DONE ? 0 : fail_sql(c);
    sqlite3_finalize(st);
    return rc;
}

/* ---- messages ---------------------------------------------------------------------------- */

static void add_filters(struct buf *msg, const struct compare_opts *o)
{
    for (size_t i = 0; i < o->nwhere; i++)
        buf_addf(msg, "%s%s=%s", i ? ", " : "", o->where[i].key, o->where[i].value);
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

/* 0 when value has results, 1 after saying why it has none, -1 on failure. */
static int check_value(struct check *c, const char *value)
{
    int64_t n, all = 0;
    if (count(c, c->count_filtered, value, &n))
        return -1;
    if (n > 0)
        return 0;
    if (c->count_all && count(c, c->count_all, value, &all))
        return -1;
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
    const char *near = nearest(value, &c->known);
    if (keys.n && (!near || !strcmp(spelling, value))) {
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
    struct check c = {db_handle(db), o, NULL, NULL, NULL, NULL, {NULL, 0, 0}, 0, d};
    const char *wparam;
    c.kx = query_key_expr(o->by, &c.param);
    for (size_t i = 0; c.kx && i < o->nwhere; i++)
        if (!query_key_expr(o->where[i].key, &wparam))
            c.kx = NULL;
    if (!c.kx)
        return 0; /* query_compare names the unknown key */
    int rc = prepare_count(&c, 1, &c.count_filtered);
    if (rc == 0 && o->nwhere)
        rc = prepare_count(&c, 0, &c.count_all);
    int missing = 0;
    for (size_t i = 0; rc == 0 && i < o->nvalues; i++) {
        int r = check_value(&c, o->values[i]);
        if (r < 0)
            rc = -1;
        missing |= r > 0;
    }
    sqlite3_finalize(c.count_filtered);
    sqlite3_finalize(c.count_all);
    strs_release(&c.known);
    return rc || missing ? -1 : 0;
}
