/* pg.c: connections to the fleet's server, its errors, COPY, and the schema migrations of
 * schema/pg/ compiled into the binary, recorded in benchdb_meta's schema_version. */
#include "fleet_private.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"

#define EMBED(ident, name)                                                                         \
    extern const unsigned char ident[];                                                            \
    extern const size_t ident##_len;
#include "pg_migrations.h"
#undef EMBED

static const struct pg_migration {
    const unsigned char *sql;
    const char *name;
} migrations[] = {
#define EMBED(ident, name) {ident, name},
#include "pg_migrations.h"
#undef EMBED
};
#define N_MIGRATIONS ((int)ARRAY_SIZE(migrations))
/* The oldest schema a read takes as it is: the last migration that changed what reads select
 * (0006's change_point table). 0007 adds indexes only: a fleet no one has pushed to since this
 * benchdb came is read, the slower, instead of refused until a push upgrades it (readers may
 * hold no right to). A migration that changes what reads see raises it. */
#define READS_FROM 6

/* Any number: the advisory lock that lets one client at a time migrate. */
#define MIGRATE_LOCK "7461626863686462"

int fleet_is_url(const char *name)
{
    return !strncmp(name, "postgresql://", 13) || !strncmp(name, "postgres://", 11);
}

void pg_message(PGconn *c, struct buf *out)
{
    const char *m = PQerrorMessage(c);
    size_t start = out->len;
    if (!strncmp(m, "ERROR:  ", 8))
        m += 8; /* the severity: ours is "error" already */
    for (; *m; m++) {
        if (*m == '\n' || *m == '\t') {
            if (out->len > start && out->data[out->len - 1] != ' ')
                buf_adds(out, m[1] && *m == '\n' ? "; " : " ");
        } else
            buf_addc(out, *m);
    }
    while (out->len > start && (out->data[out->len - 1] == ' ' || out->data[out->len - 1] == ';'))
        out->data[--out->len] = '\0';
}

int pg_error(PGconn *c, const char *who, const char *what, struct diag *d)
{
    struct buf m = BUF_INIT;
    pg_message(c, &m);
    diag_error_path(d, who, "%s: %s", what, m.data);
    buf_release(&m);
    return -1;
}

int pg_result_error(PGconn *c, const PGresult *r, const char *who, const char *what, struct diag *d)
{
    const char *primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!primary)
        return pg_error(c, who, what, d);
    diag_error_path(d, who, "%s: %s", what, primary);
    return -1;
}

int pg_exec(PGconn *c, const char *sql, const char *who, const char *what, struct diag *d)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        pg_result_error(c, r, who, what, d);
    PQclear(r);
    return ok ? 0 : -1;
}

/* Appends v's low size bytes, most significant first (network order). */
static void put_be(struct buf *out, uint64_t v, int size)
{
    unsigned char b[8];
    for (int i = size - 1; i >= 0; i--, v >>= 8)
        b[i] = (unsigned char)v;
    buf_add(out, b, (size_t)size);
}

void pg_copy_header(struct buf *out)
{
    buf_add(out, "PGCOPY\n\377\r\n\0", 11);
    put_be(out, 0, 4); /* flags: no OIDs */
    put_be(out, 0, 4); /* no header extension */
}

void pg_copy_tuple(struct buf *out, int fields)
{
    put_be(out, (uint64_t)fields, 2);
}

void pg_copy_null(struct buf *out)
{
    put_be(out, UINT32_MAX, 4); /* length -1 */
}

void pg_copy_bytes(struct buf *out, const void *data, size_t n)
{
    put_be(out, n, 4);
    if (n) /* an empty blob may have no pointer */
        buf_add(out, data, n);
}

void pg_copy_int(struct buf *out, int64_t v, int size)
{
    put_be(out, (uint64_t)size, 4);
    put_be(out, (uint64_t)v, size); /* two's complement, as the server reads it */
}

void pg_copy_float8(struct buf *out, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits)); /* IEEE 754, as float8send sends it */
    put_be(out, sizeof(bits), 4);
    put_be(out, bits, 8);
}

void pg_copy_trailer(struct buf *out)
{
    put_be(out, UINT16_MAX, 2); /* a field count of -1 */
}

int pg_copy_begin(PGconn *c, const char *target, const char *who, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "COPY %s FROM STDIN (FORMAT binary)", target);
    PGresult *r = PQexec(c, sql.data);
    int ok = PQresultStatus(r) == PGRES_COPY_IN;
    if (!ok)
        pg_result_error(c, r, who, sql.data, d);
    PQclear(r);
    buf_release(&sql);
    return ok ? 0 : -1;
}

int pg_copy_put(PGconn *c, struct buf *data)
{
    int ok = !data->len || PQputCopyData(c, data->data, (int)data->len) == 1;
    buf_reset(data);
    return ok ? 0 : -1;
}

int pg_copy_end(PGconn *c, int ok, const char *target, const char *who, struct diag *d)
{
    if (PQputCopyEnd(c, ok ? NULL : "benchdb stopped the copy") != 1)
        ok = 0;
    PGresult *r = PQgetResult(c);
    if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
        struct buf what = BUF_INIT;
        buf_addf(&what, "COPY %s", target);
        pg_result_error(c, r, who, what.data, d);
        buf_release(&what);
        ok = 0;
    }
    PQclear(r);
    while ((r = PQgetResult(c)))
        PQclear(r);
    return ok ? 0 : -1;
}

/* The integers of 2, 4 and 8 bytes at p, most significant first, each written out so that the
 * compiler makes it one load and a byte swap: a loop over the bytes was 0.3 of the reader's
 * 7.45 billion instructions at 100,000 results, read for each field of a COPY (callgrind). */
static uint16_t get_be16(const char *p)
{
    const unsigned char *b = (const unsigned char *)p;
    return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t get_be32(const char *p)
{
    const unsigned char *b = (const unsigned char *)p;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint64_t get_be64(const char *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

int64_t pg_field_int(const struct pg_field *f)
{
    switch (f->len) { /* two's complement, of a smallint, an integer, a bigint */
    case 2:
        return (int16_t)get_be16(f->data);
    case 4:
        return (int32_t)get_be32(f->data);
    case 8:
        return (int64_t)get_be64(f->data);
    default:
        return 0;
    }
}

double pg_field_float8(const struct pg_field *f)
{
    if (f->len != 8 || !f->data)
        return NAN;
    uint64_t bits = get_be64(f->data);
    double v;
    memcpy(&v, &bits, sizeof(v));
    return v;
}

/* The fields of the tuple at *p (before end) into f[0..n): 1, or 0 at the trailer (-1 fields),
 * -1 when it is not a tuple of n fields whole. *p moves past it. */
static int copy_tuple(const char **p, const char *end, struct pg_field *f, size_t n)
{
    if (end - *p < 2)
        return -1;
    int16_t fields = (int16_t)get_be16(*p);
    *p += 2;
    if (fields == -1)
        return 0;
    if ((size_t)fields != n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (end - *p < 4)
            return -1;
        int32_t len = (int32_t)get_be32(*p);
        *p += 4;
        if (len < -1 || end - *p < len)
            return -1;
        f[i] = (struct pg_field){len == -1 ? NULL : *p, len};
        *p += len < 0 ? 0 : len;
    }
    return 1;
}

/* The header of COPY's binary format at the start of *p's data: 0 with *p past it, else -1. */
static int copy_header(const char **p, const char *end)
{
    /* then the flags: bit 16 says each tuple starts with an OID, and a reader must stop at any
     * of bits 17-31; benchdb asks for neither */
    if (end - *p < 19 || memcmp(*p, "PGCOPY\n\377\r\n\0", 11) || get_be32(*p + 11))
        return -1;
    uint32_t extension = get_be32(*p + 15);
    if ((uint64_t)(end - *p) < 19 + (uint64_t)extension)
        return -1;
    *p += 19 + extension;
    return 0;
}

int pg_copy_out(PGconn *c, const char *select, size_t nfields, pg_row_fn *row, void *ctx,
                const char *who, const char *what, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "COPY ("); /* not buf_addf: select may list a hundred thousand ids */
    buf_adds(&sql, select);
    buf_adds(&sql, ") TO STDOUT (FORMAT binary)");
    PGresult *r = PQexec(c, sql.data);
    buf_release(&sql);
    int failed = 0, header = 0, ended = 0;
    if (PQresultStatus(r) != PGRES_COPY_OUT)
        failed = pg_result_error(c, r, who, what, d);
    PQclear(r);
    struct pg_field *f = xcalloc(nfields ? nfields : 1, sizeof(*f));
    char *data;
    int len = -1;
    /* the server sends a tuple a message, the header with the first, the trailer alone */
    while (!failed && (len = PQgetCopyData(c, &data, 0)) > 0) {
        const char *p = data, *end = data + len;
        int got = 1;
        if (!header)
            got = copy_header(&p, end) ? -1 : 1, header = 1;
        while (!failed && got > 0 && p < end && !ended)
            if ((got = copy_tuple(&p, end, f, nfields)) > 0)
                failed = row(ctx, f);
            else if (got == 0)
                ended = 1;
        PQfreemem(data);
        if (got < 0 || (ended && p < end))
            failed = diag_error_path(d, who, "%s: the server's COPY is not of %zu columns", what,
                                     nfields);
    }
    free(f);
    if (!failed && len == -2)
        failed = pg_error(c, who, what, d);
    if (failed) /* what is left of the copy is read and dropped: the connection goes on */
        while (PQgetCopyData(c, &data, 0) > 0)
            PQfreemem(data);
    while ((r = PQgetResult(c))) {
        if (!failed && PQresultStatus(r) != PGRES_COMMAND_OK)
            failed = pg_result_error(c, r, who, what, d);
        PQclear(r);
    }
    if (!failed && !ended) /* a copy the server said was whole: never seen */
        failed = diag_error_path(d, who, "%s: the server's COPY ended early", what);
    return failed ? -1 : 0;
}

/* The first value of the one-row result of sql as an integer; 0 or -1 (no message). */
static int pg_query_int(PGconn *c, const char *sql, int64_t *v)
{
    PGresult *r = PQexec(c, sql);
    const char *p =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)
            ? PQgetvalue(r, 0, 0)
            : "";
    int ok = scan_int64(&p, v) && !*p;
    PQclear(r);
    return ok ? 0 : -1;
}

/* The server's schema version: 0 for a database with no tables, -1 after a message when it
 * holds tables of its own but no benchdb_meta. */
static int server_version(PGconn *c, const char *who, struct diag *d)
{
    int64_t meta, tables, v = 0;
    if (pg_query_int(c, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
                     &tables) ||
        pg_query_int(c, "SELECT (to_regclass('benchdb_meta') IS NOT NULL)::int", &meta) ||
        (meta && pg_query_int(c,
                              "SELECT coalesce(max(value::int), 0) FROM benchdb_meta "
                              "WHERE key = 'schema_version'",
                              &v)))
        return pg_error(c, who, "cannot read the warehouse's schema version", d);
    if (!meta && tables > 0)
        return diag_error_path(d, who,
                               "the database holds tables but no benchdb warehouse (no table "
                               "benchdb_meta)");
    return (int)v;
}

/* Applies the migrations after version in one transaction, under a lock that makes a second
 * client wait and then find them applied. */
static int migrate(PGconn *c, const char *who, struct diag *d)
{
    if (pg_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", who,
                "cannot migrate the warehouse", d))
        return -1;
    int version = server_version(c, who, d);
    for (int i = version; version >= 0 && i < N_MIGRATIONS; i++) {
        struct buf what = BUF_INIT, record = BUF_INIT;
        buf_addf(&what, "cannot apply schema migration 'pg/%s'", migrations[i].name);
        buf_addf(&record,
                 "INSERT INTO benchdb_meta VALUES ('schema_version', '%d') ON CONFLICT (key) "
                 "DO UPDATE SET value = excluded.value",
                 i + 1);
        int rc = pg_exec(c, (const char *)migrations[i].sql, who, what.data, d) ||
                 pg_exec(c, record.data, who, what.data, d);
        buf_release(&what);
        buf_release(&record);
        if (rc)
            version = -1;
    }
    if (version < 0) {
        PQclear(PQexec(c, "ROLLBACK"));
        return -1;
    }
    return pg_exec(c, "COMMIT", who, "cannot migrate the warehouse", d);
}

/* Checks the server's schema, migrating it when asked; 0 or -1 after a message. */
static int check_schema(PGconn *c, int may_migrate, const char *who, struct diag *d)
{
    int version = server_version(c, who, d);
    if (version < 0)
        return -1;
    if (version > N_MIGRATIONS)
        return diag_error_path(d, who,
                               "the server's warehouse has schema version %d, newer than this "
                               "benchdb's (%d)",
                               version, N_MIGRATIONS);
    if (version == N_MIGRATIONS)
        return 0;
    if (may_migrate)
        return migrate(c, who, d);
    if (version == 0)
        return diag_error_path(d, who, "no benchdb warehouse on the server yet: push to it first");
    if (version >= READS_FROM)
        return 0;
    return diag_error_path(d, who,
                           "the server's warehouse has schema version %d and this benchdb "
                           "reads %d or later: push to it once to upgrade it",
                           version, READS_FROM);
}

/* A secret of a URL: its bytes at url[start, end) as written, and percent-decoded. */
struct secret {
    size_t start, end;
    struct buf decoded;
};

/* The most passwords looked for in one connection string (a URL's and two parameters'). */
enum { MAX_SECRETS = 8 };

static int hex_digit(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static void add_secret(struct secret *s, size_t *n, const char *url, size_t start, size_t end)
{
    if (end <= start || *n >= MAX_SECRETS)
        return;
    s[*n] = (struct secret){start, end, BUF_INIT};
    for (size_t i = start; i < end; i++) {
        int hi = url[i] == '%' && i + 2 < end ? hex_digit(url[i + 1]) : -1;
        int lo = hi >= 0 ? hex_digit(url[i + 2]) : -1;
        buf_addc(&s[*n].decoded, lo >= 0 ? (char)(hi * 16 + lo) : url[i]);
        i += lo >= 0 ? 2 : 0;
    }
    (*n)++;
}

/* Whether the parameter name ending at p (exclusive) is password or sslpassword, a whole word
 * of conn (not "xpassword"). */
static int names_password(const char *conn, const char *p)
{
    const char *name = p - 8;
    if (name - conn >= 3 && !strncmp(name - 3, "ssl", 3))
        name -= 3;
    return name == conn || !(isalnum((unsigned char)name[-1]) || name[-1] == '_');
}

/* The passwords a connection string holds, generously (a password with an unencoded '/', '?'
 * or '@' is still found, and a URL's whatever its scheme): a URL's userinfo after its first ':'
 * up to the last '@' (before the query when an '@' is there), and the values of the parameters
 * or keywords password and sslpassword, in a URL's query (up to '&') or a libpq keyword
 * string (password = 'quoted value' or up to a space). */
static size_t find_secrets(const char *url, struct secret *s)
{
    size_t n = 0;
    const char *rest = strstr(url, "://"), *query = strchr(url, '?');
    /* a scheme mistyped as "postgres:/" or "postgres//" */
    rest = rest ? rest + 3 : strstr(url, ":/") ? strstr(url, ":/") + 2 : strstr(url, "//");
    rest = rest && *rest == '/' ? rest + 1 : rest;
    const char *at = NULL;
    for (const char *p = rest ? rest : ""; *p; p++)
        if (*p == '@' && (!at || !query || p < query || at > query))
            at = p;
    const char *colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
    if (colon)
        add_secret(s, &n, url, (size_t)(colon + 1 - url), (size_t)(at - url));
    for (const char *p = url; (p = strstr(p, "password")); p += 8) {
        if (!names_password(url, p + 8))
            continue;
        const char *v = p + 8;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v++ != '=')
            continue;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t start = (size_t)(v - url), end;
        if (*v == '\'') { /* a keyword string's quoted value, \' and \\ escaped */
            const char *e = ++v;
            while (*e && *e != '\'')
                e += e[0] == '\\' && e[1] ? 2 : 1;
            start = (size_t)(v - url), end = (size_t)(e - url);
        } else
            end = start + strcspn(v, "& \t\n");
        add_secret(s, &n, url, start, end);
    }
    return n;
}

/* Whether url[start, end) meets a secret. */
static int meets_secret(const struct secret *s, size_t n, size_t start, size_t end)
{
    for (size_t i = 0; i < n; i++)
        if (start < s[i].end && s[i].start < end)
            return 1;
    return 0;
}

/* Appends url[start, end) with each run of secret bytes as "***". */
static void add_redacted(struct buf *out, const char *url, const struct secret *s, size_t n,
                         size_t start, size_t end)
{
    for (size_t i = start; i < end; i++) {
        if (!meets_secret(s, n, i, i + 1))
            buf_addc(out, url[i]);
        else if (i == start || !meets_secret(s, n, i - 1, i))
            buf_adds(out, "***");
    }
}

/* Replaces every occurrence of what (of n bytes) in m with "***". */
static void replace_all(struct buf *m, const char *what, size_t n)
{
    if (!n)
        return;
    struct buf out = BUF_INIT;
    const char *p = m->data, *hit;
    while ((hit = strstr(p, what))) {
        buf_add(&out, p, (size_t)(hit - p));
        buf_adds(&out, "***");
        p = hit + n;
    }
    buf_adds(&out, p);
    buf_release(m);
    *m = out;
}

/* Hides the passwords of url in m, a message of libpq's about it. */
static void redact_url(const char *url, struct buf *m)
{
    struct secret s[MAX_SECRETS];
    size_t n = find_secrets(url, s);
    if (!n)
        return;
    /* libpq quotes what it could not parse: a token of the URL that meets a password (a
     * password with a '/' is a port to it) is given with the password's bytes hidden */
    struct buf out = BUF_INIT;
    const char *p = m->data, *open;
    while ((open = strchr(p, '"'))) {
        const char *close = strchr(open + 1, '"');
        if (!close)
            break;
        buf_add(&out, p, (size_t)(open + 1 - p));
        size_t tn = (size_t)(close - open - 1);
        char *token = xstrndup(open + 1, tn);
        const char *in = tn ? strstr(url, token) : NULL;
        while (in && !meets_secret(s, n, (size_t)(in - url), (size_t)(in - url) + tn))
            in = strstr(in + 1, token);
        if (in)
            add_redacted(&out, url, s, n, (size_t)(in - url), (size_t)(in - url) + tn);
        else
            buf_add(&out, open + 1, tn);
        free(token);
        buf_addc(&out, '"');
        p = close + 1;
    }
    buf_adds(&out, p);
    buf_release(m);
    *m = out;
    /* then the passwords anywhere, as written and decoded (the whole URL included) */
    for (size_t i = 0; i < n; i++) {
        char *raw = xstrndup(url + s[i].start, s[i].end - s[i].start);
        replace_all(m, raw, strlen(raw));
        replace_all(m, s[i].decoded.data, strlen(s[i].decoded.data));
        free(raw);
        buf_release(&s[i].decoded);
    }
}

int fleet_has_password(const char *conn)
{
    struct secret s[MAX_SECRETS];
    size_t n = find_secrets(conn, s);
    for (size_t i = 0; i < n; i++)
        buf_release(&s[i].decoded);
    return n > 0;
}

void fleet_scrub(char *conn)
{
    struct secret s[MAX_SECRETS];
    size_t n = find_secrets(conn, s);
    for (size_t i = 0; i < n; i++) {
        memset(conn + s[i].start, '*', s[i].end - s[i].start);
        buf_release(&s[i].decoded);
    }
}

char *fleet_redact(const char *conn, const char *text)
{
    if (!*text)
        return xstrdup(text);
    struct buf m = BUF_INIT;
    buf_adds(&m, text);
    redact_url(conn, &m);
    return buf_detach(&m, NULL);
}

PGconn *pg_connect(const char *url, int migrate_schema, const char *who, struct diag *d)
{
    if (libpq_load(who, d))
        return NULL;
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        /* libpq's messages about the URL quote it, and its passwords */
        struct buf m = BUF_INIT;
        pg_message(c, &m);
        redact_url(url, &m);
        diag_error_path(d, who, "cannot connect to the server: %s", m.data);
        buf_release(&m);
        PQfinish(c);
        return NULL;
    }
    /* every client speaks UTF-8 and reads floats back exactly; quiet NOTICEs */
    if (pg_exec(c,
                "SET client_encoding = 'UTF8'; SET extra_float_digits = 3; "
                "SET client_min_messages = warning",
                who, "cannot set up the session", d) ||
        check_schema(c, migrate_schema, who, d)) {
        PQfinish(c);
        return NULL;
    }
    return c;
}
