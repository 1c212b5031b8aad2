/* appendix.c: the raw data behind a report, for the spreadsheet and CSV: every run with its
 * keys and every result with its main metrics. Values stay in base units (bytes/s, ns), which
 * the column names say, so these tables are never rescaled. */
#include "rows.h"

/* The metrics of the results table: columns of result (base units in the name). */
static const char *const result_metrics[] = {
    "bw_bytes_s",  "iops",          "lat_mean_ns", "clat_mean_ns", "clat_p50_ns",
    "clat_p99_ns", "clat_p99_9_ns", "lat_max_ns",  "io_bytes",     "runtime_ms",
};

static void results_sql(struct buf *sql)
{
    buf_adds(sql, "SELECT r.id AS result_id, r.run_id, r.host, r.storage_class, r.sec,"
                  " m.options AS mount_options, r.job, r.direction, r.rw, r.bs_bytes,"
                  " r.iodepth, r.numjobs, r.direct, r.sync, r.fsync, r.ioengine, r.error,"
                  " r.error_msg");
    for (size_t i = 0; i < sizeof(result_metrics) / sizeof(result_metrics[0]); i++)
        buf_addf(sql, ", r.%s", result_metrics[i]);
    buf_adds(sql, " FROM result r LEFT JOIN mount m ON m.id = r.mount_id ORDER BY r.id");
}

int query_appendix(struct db *db, struct report *r, struct diag *d)
{
    struct buf runs = BUF_INIT, results = BUF_INIT;
    runs_sql(&runs, 1);
    results_sql(&results);
    int rc = rows_section(db, r, "Runs", "runs", runs.data, d);
    if (rc == 0)
        rc = rows_section(db, r, "Results", "results", results.data, d);
    buf_release(&runs);
    buf_release(&results);
    return rc;
}
