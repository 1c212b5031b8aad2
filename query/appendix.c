/* appendix.c: the raw data behind a report, for the spreadsheet and CSV: the runs with their
 * keys and the results with their main metrics, those the report compared (or every one).
 * Values stay in base units (bytes/s, ns), which the column names say, so these tables are
 * never rescaled. */
#include "rows.h"

#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "results.h"

/* The metrics of the results table: columns of result (base units in the name). */
static const char *const result_metrics[] = {
    "bw_bytes_s",  "iops",          "lat_mean_ns", "clat_mean_ns", "clat_p50_ns",
    "clat_p99_ns", "clat_p99_9_ns", "lat_max_ns",  "io_bytes",     "runtime_ms",
};

int appendix_reads_metric(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(result_metrics); i++)
        if (!strcmp(result_metrics[i], name))
            return 1;
    return 0;
}

/* The results (a condition on result r; NULL: all) with their context and main metrics. */
static void results_sql(struct buf *sql, const char *results)
{
    buf_adds(sql, "SELECT r.id AS result_id, r.run_id, r.host, r.storage_class, r.sec,"
                  " m.options AS mount_options, r.job, r.direction, r.rw, r.bs_bytes,"
                  " r.iodepth, r.numjobs, r.direct, r.sync, r.fsync, r.ioengine, r.error,"
                  " r.error_msg");
    for (size_t i = 0; i < ARRAY_SIZE(result_metrics); i++)
        buf_addf(sql, ", r.%s", result_metrics[i]);
    buf_adds(sql, " FROM result r LEFT JOIN mount m ON m.id = r.mount_id");
    if (results)
        buf_addf(sql, " WHERE %s", results);
    buf_adds(sql, " ORDER BY r.id");
}

/* The condition on result r that keeps what the report compared: the results the comparison
 * loads (its sides, --where, --since/--until; failed jobs too, whose error columns say why they
 * were left out) but the parts of job results (threads, a client/server run's hosts, attached
 * fio logs), which are never compared. Its parameters go to b. */
static int compared_sql(const struct compare_opts *o, struct arena *a, struct buf *cond,
                        struct binds *b, struct diag *d)
{
    buf_adds(cond, "r.id IN (SELECT r.id");
    if (query_selection_sql(o, 0, a, cond, b, d))
        return -1;
    buf_adds(cond, " AND NOT EXISTS (SELECT 1 FROM tag WHERE tag.result_id = r.id"
                   " AND tag.key = 'part'))");
    return 0;
}

int query_appendix(struct db *db, const struct compare_opts *o, int all, struct report *r,
                   struct diag *d)
{
    struct buf runs = BUF_INIT, results = BUF_INIT, compared = BUF_INIT;
    struct binds b = {NULL, 0, 0};
    int rc = all ? 0 : compared_sql(o, &r->arena, &compared, &b, d);
    runs_sql(&runs, 1, NULL, all ? NULL : compared.data);
    results_sql(&results, all ? NULL : compared.data);
    if (rc == 0)
        rc = rows_section(db, r, "Runs", "runs", runs.data, b.v, b.n, d);
    if (rc == 0)
        rc = rows_section(db, r, "Results", "results", results.data, b.v, b.n, d);
    buf_release(&runs);
    buf_release(&results);
    buf_release(&compared);
    free(b.v);
    return rc;
}
