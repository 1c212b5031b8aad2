#include "importer.h"

#include <inttypes.h>

#include "../core/diag.h"

/* Text from the input, with control characters escaped: a job named with ESC ]0;... must
 * not set the terminal's title, nor a newline start a record line of its own. */
static void text(struct buf *out, const char *v)
{
    diag_escape(out, v ? v : "");
}

static void str(struct buf *out, const char *key, const char *v)
{
    if (!v)
        return;
    buf_addf(out, "  %s=", key);
    text(out, v);
    buf_addc(out, '\n');
}

static void num(struct buf *out, const char *key, int64_t v)
{
    if (v != WL_UNKNOWN)
        buf_addf(out, "  %s=%" PRId64 "\n", key, v);
}

void record_dump(struct buf *out, const struct bench_record *r)
{
    buf_adds(out, "record ");
    text(out, r->job);
    buf_addc(out, '/');
    text(out, r->direction);
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
    if (r->error || r->error_msg) {
        buf_addf(out, "  error=%d ", r->error);
        text(out, r->error_msg);
        buf_addc(out, '\n');
    }
    if (r->transcribed)
        buf_adds(out, "  transcribed=1\n");
    for (size_t i = 0; i < r->n_tags; i++) {
        buf_adds(out, "  tag.");
        text(out, r->tags[i].key);
        buf_addc(out, '=');
        text(out, r->tags[i].value);
        buf_addc(out, '\n');
    }
    for (size_t i = 0; i < r->n_metrics; i++)
        buf_addf(out, "  %s=%.17g\n", r->metrics[i].name, r->metrics[i].value);
    if (r->n_bins)
        buf_addf(out, "  %s_bins=%zu\n", r->bins_metric ? r->bins_metric : "lat", r->n_bins);
    if (r->n_series)
        buf_addf(out, "  series.%s=%zu points\n", r->series_metric ? r->series_metric : "value",
                 r->n_series);
}
