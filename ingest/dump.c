#include "importer.h"

#include <inttypes.h>

static void str(struct buf *out, const char *key, const char *v)
{
    if (v)
        buf_addf(out, "  %s=%s\n", key, v);
}

static void num(struct buf *out, const char *key, int64_t v)
{
    if (v != WL_UNKNOWN)
        buf_addf(out, "  %s=%" PRId64 "\n", key, v);
}

void record_dump(struct buf *out, const struct bench_record *r)
{
    buf_addf(out, "record %s/%s", r->job ? r->job : "", r->direction ? r->direction : "");
    if (r->line_first)
        buf_addf(out, " lines %u-%u", r->line_first, r->line_last);
    buf_adds(out, "\n");
    str(out, "tool", r->tool);
    str(out, "tool_version", r->tool_version);
    str(out, "host", r->host);
    str(out, "peer", r->peer);
    str(out, "storage_class", r->storage_class);
    str(out, "mount", r->mount);
    str(out, "sec", r->sec);
    if (r->started_at)
        buf_addf(out, "  started_at=%" PRId64 "\n", r->started_at);
    str(out, "rw", r->wl.rw);
    str(out, "ioengine", r->wl.ioengine);
    num(out, "bs_bytes", r->wl.bs_bytes);
    num(out, "iodepth", r->wl.iodepth);
    num(out, "numjobs", r->wl.numjobs);
    num(out, "size_bytes", r->wl.size_bytes);
    num(out, "rwmixread", r->wl.rwmixread);
    num(out, "runtime_s", r->wl.runtime_s);
    num(out, "direct", r->wl.direct);
    num(out, "sync", r->wl.sync);
    num(out, "fsync", r->wl.fsync);
    num(out, "fdatasync", r->wl.fdatasync);
    if (r->error || r->error_msg)
        buf_addf(out, "  error=%d %s\n", r->error, r->error_msg ? r->error_msg : "");
    if (r->transcribed)
        buf_adds(out, "  transcribed=1\n");
    for (size_t i = 0; i < r->n_tags; i++)
        buf_addf(out, "  tag.%s=%s\n", r->tags[i].key, r->tags[i].value);
    for (size_t i = 0; i < r->n_metrics; i++)
        buf_addf(out, "  %s=%.17g\n", r->metrics[i].name, r->metrics[i].value);
    if (r->n_bins)
        buf_addf(out, "  %s_bins=%zu\n", r->bins_metric ? r->bins_metric : "lat", r->n_bins);
    if (r->n_series)
        buf_addf(out, "  series.%s=%zu points\n", r->series_metric ? r->series_metric : "value",
                 r->n_series);
}
