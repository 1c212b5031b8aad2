/* query.c: benchdb query --db postgresql://...: the user's one statement runs on the server
 * itself (PostgreSQL's SQL, its views), in a read-only transaction with a statement timeout,
 * and its rows are written as the SQLite query command writes them (report/'s table writers,
 * streamed as they come). */
#include "fleet_private.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/arena.h"
#include "../core/xalloc.h"

#define WHO "benchdb"

/* The grid and Markdown size their columns from this many first rows (query/rows.c). */
enum { SIZING_ROWS = 100 };

/* PostgreSQL's type oids (pg_type.dat) of the numbers a cell holds as numbers. */
enum {
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_NUMERIC = 1700
};

static void fill_cell(struct arena *a, struct cell *c, const PGresult *r, int col)
{
    if (PQgetisnull(r, 0, col))
        return;
    const char *v = PQgetvalue(r, 0, col);
    Oid type = PQftype(r, col);
    if (type == OID_INT8 || type == OID_INT2 || type == OID_INT4) {
        cell_set_number(c, strtod(v, NULL));
        c->exact = 1;
        c->integer = strtoll(v, NULL, 10);
    } else if (type == OID_FLOAT4 || type == OID_FLOAT8 || type == OID_NUMERIC)
        cell_set_number(c, strtod(v, NULL));
    else
        cell_set_text(c, arena_strdup(a, v));
}

struct stream {
    struct row_table rows;
    struct table_writer w;
    struct buf out;
    int started, stopped;
};

/* The first row's result names the columns. */
static void stream_start(struct stream *s, const PGresult *r, enum table_format fmt)
{
    size_t n = (size_t)PQnfields(r);
    struct column *cols = xcalloc(n ? n : 1, sizeof(*cols));
    for (size_t i = 0; i < n; i++)
        cols[i] = (struct column){PQfname(r, (int)i), UNIT_NONE, ROLE_FIELD};
    row_table_init(&s->rows, "rows", cols, n);
    free(cols);
    table_writer_init(&s->w, fmt);
    s->started = 1;
}

/* Writes the rows held (when enough for the grid's widths, or at the end). */
static void stream_flush(struct stream *s, struct text_sink *sink, int end)
{
    if (!s->started || s->stopped)
        return;
    if (!end && table_format_sized(s->w.fmt) && !s->w.started && s->rows.t.nrows < SIZING_ROWS)
        return;
    table_write_rows(&s->w, &s->rows.t, &s->out);
    row_table_clear(&s->rows);
    if (end)
        table_write_end(&s->w, &s->rows.t, &s->out);
    s->stopped = s->out.len && sink->write(sink->ctx, s->out.data, s->out.len);
    buf_reset(&s->out);
}

static const char copy_refused[] = "query: COPY is refused: query prints the rows of a "
                                   "statement that reads (SELECT ...; --format csv writes CSV)";

/* The statement's first word is COPY (after blanks and comments, nested as PostgreSQL nests
 * them): COPY TO a server file or PROGRAM is allowed in a read-only transaction, and COPY TO
 * STDOUT would stream outside the rows. */
static int is_copy(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')
            p++;
        if (p[0] == '-' && p[1] == '-') {
            p += strcspn(p, "\n");
        } else if (p[0] == '/' && p[1] == '*') {
            int depth = 0;
            do {
                if (p[0] == '/' && p[1] == '*')
                    depth++, p += 2;
                else if (p[0] == '*' && p[1] == '/')
                    depth--, p += 2;
                else
                    p++;
            } while (depth && *p);
        } else
            break;
    }
    return !strncasecmp(p, "copy", 4) && !(isalnum((unsigned char)p[4]) || p[4] == '_' ||
                                           p[4] == '$' || (unsigned char)p[4] >= 0x80);
}

/* Reads the statement's results; 0, 1 when the sink stopped, -1 after a message. */
static int stream_rows(PGconn *c, enum table_format fmt, double timeout_s, struct text_sink *sink,
                       struct diag *d)
{
    struct stream s = {.out = BUF_INIT};
    int rc = 0;
    PGresult *r;
    while ((r = PQgetResult(c))) {
        ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_COPY_OUT || status == PGRES_COPY_IN || status == PGRES_COPY_BOTH) {
            /* libpq gives the COPY's state at every call until the copy ends (which spun at
             * 100 % CPU): the caller closes the connection instead */
            PQclear(r);
            rc = diag_error(d, "%s", copy_refused);
            break;
        }
        if (status == PGRES_EMPTY_QUERY && !rc)
            rc = diag_error(d, "query: empty statement");
        else if (status == PGRES_SINGLE_TUPLE || (status == PGRES_TUPLES_OK && !s.started)) {
            if (!s.started)
                stream_start(&s, r, fmt);
            if (status == PGRES_SINGLE_TUPLE) {
                struct cell *row = row_table_add(&s.rows);
                for (int i = 0; i < PQnfields(r); i++)
                    fill_cell(&s.rows.rows, &row[i], r, i);
                stream_flush(&s, sink, 0);
            }
        } else if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK &&
                   status != PGRES_EMPTY_QUERY && !rc) {
            const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
            if (state && !strcmp(state, "57014")) /* query_canceled: the statement timeout */
                rc = diag_error(d, "query: stopped by --timeout after %g s", timeout_s);
            else
                rc = pg_result_error(c, r, WHO, "query", d);
        }
        PQclear(r);
    }
    if (!rc)
        stream_flush(&s, sink, 1);
    if (s.started) {
        table_writer_release(&s.w);
        row_table_release(&s.rows);
    }
    buf_release(&s.out);
    return rc ? rc : s.stopped;
}

int fleet_query(const char *url, const char *sql, enum table_format fmt, double timeout_s,
                struct text_sink *out, struct diag *d)
{
    if (is_copy(sql))
        return diag_error(d, "%s", copy_refused);
    PGconn *c = pg_connect(url, 0, WHO, d);
    if (!c)
        return -1;
    char setup[128];
    snprintf(setup, sizeof(setup), "BEGIN READ ONLY; SET LOCAL statement_timeout = %.0f",
             ceil(timeout_s * 1000));
    int rc = pg_exec(c, setup, WHO, "query", d);
    /* the extended protocol takes one statement only */
    if (rc == 0 &&
        !(PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0) && PQsetSingleRowMode(c)))
        rc = pg_error(c, WHO, "query", d);
    if (rc == 0)
        rc = stream_rows(c, fmt, timeout_s, out, d);
    PQfinish(c); /* the read-only transaction ends with the connection */
    return rc;
}
