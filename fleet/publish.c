/* publish.c: benchdb trend --publish: the change points a trend found in the fleet's series,
 * stored on the server (schema/pg/0006_change_point.sql) for Grafana's annotation queries.
 * Every series the trend looked at has its rows replaced in one transaction: a series whose
 * change point a later run undid loses it, and a reader never sees half a publish. */
#include <inttypes.h>
#include <stdio.h>

#include "../core/buf.h"
#include "fleet_private.h"

#define WHO "benchdb trend"

/* tags as a PostgreSQL array literal: {"benchdb","lower",...}, each element quoted with its
 * double quotes and backslashes escaped. */
static void array_literal(struct buf *out, const struct annotation *a)
{
    buf_addc(out, '{');
    for (size_t i = 0; i < a->ntags; i++) {
        buf_adds(out, i ? ",\"" : "\"");
        for (const char *c = a->tags[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                buf_addc(out, '\\');
            buf_addc(out, *c);
        }
        buf_addc(out, '"');
    }
    buf_addc(out, '}');
}

/* Runs sql with params (texts); 0, or -1 after a message. */
static int exec_params(PGconn *c, const char *sql, int n, const char *const *params,
                       const char *what, struct diag *d)
{
    PGresult *r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : pg_result_error(c, r, WHO, what, d);
    PQclear(r);
    return rc;
}

static int replace_rows(PGconn *c, const struct annotations *an, struct diag *d)
{
    for (size_t i = 0; i < an->nseries; i++)
        if (exec_params(c, "DELETE FROM change_point WHERE series = $1", 1, &an->series[i],
                        "cannot replace the series' change points", d))
            return -1;
    struct buf tags = BUF_INIT;
    int rc = 0;
    for (size_t i = 0; !rc && i < an->n; i++) {
        char when[24];
        snprintf(when, sizeof(when), "%" PRId64, an->v[i].time);
        buf_reset(&tags);
        array_literal(&tags, &an->v[i]);
        const char *params[] = {an->v[i].series, when, an->v[i].text, tags.data};
        rc = exec_params(c,
                         "INSERT INTO change_point (series, time, text, tags) "
                         "VALUES ($1, to_timestamp($2::bigint), $3, $4::text[])",
                         4, params, "cannot store a change point", d);
    }
    buf_release(&tags);
    return rc;
}

int fleet_publish(const char *url, const struct annotations *an, struct diag *d)
{
    PGconn *c = pg_connect(url, 1, WHO, d);
    if (!c)
        return -1;
    int rc = pg_exec(c, "BEGIN", WHO, "cannot publish the change points", d);
    if (!rc)
        rc = replace_rows(c, an, d);
    if (!rc)
        rc = pg_exec(c, "COMMIT", WHO, "cannot publish the change points", d);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    PQfinish(c);
    return rc;
}
