/* insights.c: what a careful engineer notes next to a comparison table, found automatically,
 * each with its evidence (which runs, which numbers). The thresholds are constants below and in
 * suspect.c, and documented in the report's method note. */
#include "insights.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "results.h"

const double TAIL_RATIO = 10.0;
const double MAX_CV = 0.25;
/* At most this many sources are named per finding; the rest are counted. */
enum { MAX_EVIDENCE = 3 };

/* A queue asked for at least this deep, with under 1/SHALLOW_FACTOR of it in flight. */
static const double SHALLOW_MIN_DEPTH = 4, SHALLOW_FACTOR = 4;

struct finding {
    const char *kind;
    struct buf text, evidence;
    size_t count;
};

struct insight_ctx {
    struct report *r;
    struct table *t;
    const struct compare_opts *o;
    const struct side_result *res;
    size_t n;
    const unsigned char *net; /* network_sides() */
    const struct links *links;
    const struct series_verdict *series; /* per result (series.h) */
};

static const struct column insight_cols[] = {{"Insight", UNIT_NONE, ROLE_PLAIN},
                                             {"Finding", UNIT_NONE, ROLE_PLAIN},
                                             {"Evidence", UNIT_NONE, ROLE_PLAIN}};

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* Counts r as evidence; 1 when it is among the few named, which the caller then describes
 * with detail() (so a million results cost a count, not a million descriptions). */
static int evidence(struct finding *f, const struct side_result *r)
{
    if (f->count++ >= MAX_EVIDENCE)
        return 0;
    if (f->evidence.len)
        buf_adds(&f->evidence, "; ");
    buf_addf(&f->evidence, "%s:%d", r->source, r->line ? r->line : 1);
    return 1;
}

static void detail(struct finding *f, const char *fmt, ...) BDB_PRINTF(2, 3);
static void detail(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_adds(&f->evidence, " (");
    buf_vaddf(&f->evidence, fmt, ap);
    buf_addc(&f->evidence, ')');
    va_end(ap);
}

static void emit(struct insight_ctx *c, struct finding *f)
{
    if (f->count) {
        if (f->count > MAX_EVIDENCE)
            buf_addf(&f->evidence, "; and %zu more", f->count - MAX_EVIDENCE);
        struct cell *row = table_add_row(c->r, c->t);
        cell_set_text(&row[0], f->kind);
        cell_set_text(&row[1], arena_strdup(&c->r->arena, f->text.data));
        cell_set_text(&row[2], arena_strdup(&c->r->arena, f->evidence.data));
    }
    buf_release(&f->text);
    buf_release(&f->evidence);
}

static const char *fmt_value(struct report *rep, double v, enum unit u)
{
    struct buf b = BUF_INIT;
    unit_format(&b, v, u);
    const char *s = arena_strdup(&rep->arena, b.data);
    buf_release(&b);
    return s;
}

/* r's workload as the comparison names it, broken out by its context where the comparison
 * breaks it out (identity.h). */
static const char *workload(struct insight_ctx *c, const struct side_result *r)
{
    struct buf b = BUF_INIT;
    result_group_name(&b, r);
    const char *s = arena_strdup(&c->r->arena, b.data);
    buf_release(&b);
    return s;
}

/* Names r as evidence with its side and workload. */
static void evidence_workload(struct insight_ctx *c, struct finding *f, const struct side_result *r)
{
    if (evidence(f, r))
        detail(f, "%s, %s", c->o->values[r->side], workload(c, r));
}

/* ---- caches ---- */

/* Counts (and names the first few of) the usable results for which holds() is true. */
static void collect(struct insight_ctx *c, struct finding *f,
                    int (*holds)(const struct side_result *))
{
    for (size_t i = 0; i < c->n; i++)
        if (result_usable(&c->res[i]) && holds(&c->res[i]))
            evidence_workload(c, f, &c->res[i]);
}

/* A finding that counts the usable results a predicate holds for: "<count> <noun>result(s)"
 * and a sentence. */
struct counted_finding {
    const char *title;
    int (*holds)(const struct side_result *);
    const char *noun, *sentence;
};

static int stated_cached(const struct side_result *r)
{
    return r->stated_cached;
}

/* Buffered I/O that the page cache or the NFS client cache probably served. */
static const struct counted_finding BUFFERED = {
    "Probably cached", suspect_buffered, "buffered (direct=0) ",
    ": random I/O, or sequential writes without fsync/fdatasync/O_SYNC (fio's end_fsync is not "
    "stored, so a final flush cannot be seen). The page cache or the NFS client cache probably "
    "served much of this I/O, so it does not show what the storage itself can do; left out of "
    "the recommendations. Re-run with direct=1."};
static const struct counted_finding STATED = {
    "Stated as cached", stated_cached, "",
    " whose author noted that a cache answered: left out of the recommendations."};
static const struct counted_finding TRANSCRIBED = {
    "Typed without context", suspect_transcribed, "",
    " typed by hand without the workload (no rw): it could be any workload, so it is left out "
    "of the recommendations."};
static const struct counted_finding SYNC_WRITES = {
    "Sync writes", result_is_sync, "sync-write ",
    " (fsync/fdatasync/O_SYNC): each write waits for stable storage, the figure that matters "
    "for databases and journals."};

static void counted(struct insight_ctx *c, const struct counted_finding *k)
{
    struct finding f = {k->title, BUF_INIT, BUF_INIT, 0};
    collect(c, &f, k->holds);
    buf_addf(&f.text, "%zu %sresult%s%s", f.count, k->noun, plural(f.count), k->sentence);
    emit(c, &f);
}

/* Names the usable results holds is true of, each with its side, workload, filesystem and the
 * time (figure, called what) no device could have taken. */
static void name_too_fast(struct insight_ctx *c, struct finding *f,
                          int (*holds)(const struct side_result *),
                          double (*figure)(const struct side_result *), const char *what)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        if (result_usable(r) && holds(r) && evidence(f, r))
            detail(f, "%s, %s on %s: %s %s", c->o->values[r->side], workload(c, r),
                   r->fstype ? r->fstype : "an unrecorded filesystem", what,
                   fmt_value(c->r, figure(r), UNIT_NS));
    }
}

static void below_device(struct insight_ctx *c)
{
    struct finding f = {"Faster than the device", BUF_INIT, BUF_INIT, 0};
    name_too_fast(c, &f, suspect_below_device, io_latency, "latency");
    buf_addf(&f.text,
             "%zu random-I/O result%s with a latency (the mean of the total, submission + "
             "completion, where fio gives it; else of completion; else the median) under %s "
             "on storage not known to be memory: below what any device can do (flash answers "
             "a read in 50-100 µs, a network adds its round trip; only Optane-class media come "
             "near), so memory answered.",
             f.count, plural(f.count), fmt_value(c->r, MIN_DEVICE_IO_NS, UNIT_NS));
    emit(c, &f);
}

static void fsync_noop(struct insight_ctx *c)
{
    struct finding f = {"fsync without a flush", BUF_INIT, BUF_INIT, 0};
    name_too_fast(c, &f, suspect_fsync_noop, flush_wait, "flush");
    buf_addf(
        &f.text,
        "%zu sync-write result%s whose flush waited under %s in all (the fsync's median, "
        "else its mean, plus the writes' before it where the write() itself went to the "
        "device: O_DIRECT, O_SYNC, a sync mount; an O_SYNC write without fsync, its own) on a filesystem that does not live in "
        "memory: no device writes that fast, so the flush waited for none, a no-op "
        "(eatmydata, ZFS sync=disabled). Left out of the recommendations.",
        f.count, plural(f.count), fmt_value(c->r, MIN_DEVICE_IO_NS, UNIT_NS));
    emit(c, &f);
}

static const char *link_name(struct insight_ctx *c, const struct link *l)
{
    return arena_printf(&c->r->arena, "%s: %s at %s:%d", l->label,
                        fmt_value(c->r, l->bits_s, UNIT_BITS_S), l->source, l->line);
}

/* The network-filesystem results of hosts with a measured link, as a share of it. */
static void network_table(struct insight_ctx *c)
{
    static const struct column cols[] = {
        {"Host", UNIT_NONE, ROLE_PLAIN},     {"Side", UNIT_NONE, ROLE_PLAIN},
        {"Workload", UNIT_NONE, ROLE_PLAIN}, {"Storage", UNIT_BITS_S, ROLE_PLAIN},
        {"Link", UNIT_BITS_S, ROLE_PLAIN},   {"Share", UNIT_PERCENT, ROLE_PLAIN},
        {"Link test", UNIT_NONE, ROLE_PLAIN}};
    struct table *t = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        const struct link *l = link_of(c->links, r->host);
        if (!l || !result_usable(r) || !result_on_network(r, c->net) || isnan(r->m[RM_BW]))
            continue;
        if (!t) {
            struct section *s = report_section(
                c->r, "Storage against the network",
                "Throughput of network-filesystem results (bit/s) as a share of the fastest "
                "network test (iperf) measured for the same host. Above 100 % the data cannot "
                "have crossed that link: a client cache answered.");
            t = report_table(c->r, s, "network", cols, 7);
        }
        struct cell *row = table_add_row(c->r, t);
        cell_set_text(&row[0], arena_strdup(&c->r->arena, r->host));
        cell_set_text(&row[1], c->o->values[r->side]);
        cell_set_text(&row[2], workload(c, r));
        cell_set_number(&row[3], r->m[RM_BW] * 8);
        cell_set_number(&row[4], l->bits_s);
        cell_set_number(&row[5], 100 * r->m[RM_BW] * 8 / l->bits_s);
        cell_set_text(&row[6], link_name(c, l));
    }
}

static void above_link(struct insight_ctx *c)
{
    struct finding f = {"Faster than the network", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        const struct link *l = link_of(c->links, r->host);
        int why = result_usable(r) && result_on_network(r, c->net) ? suspect_above_link(r, l) : 0;
        if (!why || !evidence(&f, r))
            continue;
        if (why == 1)
            detail(&f, "%s, %s: %s, %.0f %% of the link; link: %s", c->o->values[r->side],
                   workload(c, r), fmt_value(c->r, r->m[RM_BW] * 8, UNIT_BITS_S),
                   100 * r->m[RM_BW] * 8 / l->bits_s, link_name(c, l));
        else
            detail(&f, "%s, %s: %s, above the link's %s packets/s; link: %s", c->o->values[r->side],
                   workload(c, r), fmt_value(c->r, r->m[RM_IOPS], UNIT_IOPS),
                   fmt_value(c->r, l->bits_s / ETHERNET_FRAME_BITS, UNIT_IOPS), link_name(c, l));
    }
    buf_addf(&f.text,
             "%zu network-filesystem result%s above the network link measured for the same "
             "host (in bit/s, or in IOPS above the link's packet rate: every I/O needs at least "
             "one %.0f-byte Ethernet frame): a client cache must have answered.",
             f.count, plural(f.count), ETHERNET_FRAME_BITS / 8);
    emit(c, &f);
}

/* ---- numbers that cannot all be true, settings that do nothing ---- */

static void little(struct insight_ctx *c)
{
    struct finding f = {"Little's law", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        double in_flight, bound;
        if (!little_in_flight(r, &in_flight, &bound) || in_flight <= bound * LITTLE_TOLERANCE ||
            !evidence(&f, r))
            continue;
        detail(&f, "%s, %s: %s IOPS%s x %s mean latency = %.1f I/Os in flight, at most %.0f",
               c->o->values[r->side], workload(c, r), fmt_value(c->r, r->m[RM_IOPS], UNIT_IOPS),
               r->derived & (1u << RM_IOPS) ? " (derived)" : "",
               fmt_value(c->r, r->m[RM_LAT_TOTAL], UNIT_NS), in_flight, bound);
    }
    buf_addf(&f.text,
             "%zu result%s whose IOPS x mean latency (Little's law: the I/Os in flight) exceeds "
             "iodepth x numjobs (one per job for synchronous engines) by more than %.2fx: the "
             "numbers cannot all be true (a cache, a mistyped unit or a summed report); left "
             "out of the recommendations.",
             f.count, plural(f.count), LITTLE_TOLERANCE);
    emit(c, &f);
}

/* Submission latency larger than completion latency: the I/O happened inside the submit call
 * (io_submit with O_DIRECT silently ignored, as on ext4 data=journal, some FUSE and network
 * filesystems; or a saturated submission path), so clat alone flatters the storage. */
static void submission_dominates(struct insight_ctx *c)
{
    struct finding f = {"Submission latency", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        double slat = r->m[RM_SLAT_MEAN], clat = r->m[RM_LAT_MEAN];
        if (result_usable(r) && result_submission_dominates(r) && evidence(&f, r))
            detail(&f, "%s, %s: submission %s, completion %s", c->o->values[r->side],
                   workload(c, r), fmt_value(c->r, slat, UNIT_NS), fmt_value(c->r, clat, UNIT_NS));
    }
    buf_addf(&f.text,
             "%zu result%s whose I/O spent longer being submitted (slat) than completing "
             "(clat): the work happened inside the submit call (O_DIRECT silently ignored, as on "
             "ext4 data=journal and some FUSE or network filesystems, or a saturated submission "
             "path). Completion latency alone would flatter it: mean latency here, and the "
             "cache and Little's law checks, use the total (fio's lat = slat + clat), and its "
             "p99 is the total's where fio gave it (lat_percentiles=1), else not compared.",
             f.count, plural(f.count));
    emit(c, &f);
}

/* IOPS x total latency (the I/Os really in flight) far below iodepth x numjobs: the device
 * never saw the queue depth the job asked for (a submitter that cannot keep up, I/O done
 * inside submission). A sync engine's depth is its own insight. One direction of a mixed job
 * holds only its share of the queue (a capped volume's writes 0.3 of 8 while its reads held
 * the rest): it is not judged alone. */
static void shallow_queue(struct insight_ctx *c)
{
    struct finding f = {"Effective queue depth", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        double in_flight, bound;
        if (!result_engine_is_sync(r) && !result_is_mixed(r) &&
            little_in_flight(r, &in_flight, &bound) && bound >= SHALLOW_MIN_DEPTH &&
            in_flight < bound / SHALLOW_FACTOR && evidence(&f, r))
            detail(&f, "%s, %s: %.2f I/Os in flight of %.0f asked", c->o->values[r->side],
                   workload(c, r), in_flight, bound);
    }
    buf_addf(&f.text,
             "%zu result%s whose IOPS x mean latency (Little's law: the I/Os in flight) is "
             "under 1/%.0f of iodepth x numjobs: the storage never saw the queue depth the job "
             "asked for, so the result describes a shallower queue than its name says.",
             f.count, plural(f.count), SHALLOW_FACTOR);
    emit(c, &f);
}

/* suspect_io_above_link's evidence: one I/O moved faster than a link could carry it. */
static void io_above_link(struct insight_ctx *c)
{
    struct finding f = {"Faster than the network per I/O", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        const struct link *l = link_of(c->links, r->host);
        if (!result_usable(r) || !result_on_network(r, c->net) || !suspect_io_above_link(r, l) ||
            !evidence(&f, r))
            continue;
        double lat = io_latency(r), per_io = (double)r->bs * 8 / (lat / 1e9);
        if (l && l->bits_s > 0)
            detail(&f, "%s, %s: %s in %s = %s per I/O, above the link's %s; link: %s",
                   c->o->values[r->side], workload(c, r),
                   fmt_value(c->r, (double)r->bs, UNIT_BYTES), fmt_value(c->r, lat, UNIT_NS),
                   fmt_value(c->r, per_io, UNIT_BITS_S), fmt_value(c->r, l->bits_s, UNIT_BITS_S),
                   link_name(c, l));
        else
            detail(&f, "%s, %s: %s in %s = %s per I/O, above %s (no link measured)",
                   c->o->values[r->side], workload(c, r),
                   fmt_value(c->r, (double)r->bs, UNIT_BYTES), fmt_value(c->r, lat, UNIT_NS),
                   fmt_value(c->r, per_io, UNIT_BITS_S),
                   fmt_value(c->r, PLAUSIBLE_LINK_BITS, UNIT_BITS_S));
    }
    buf_addf(&f.text,
             "%zu network-filesystem result%s whose single I/O (block size / latency) is faster "
             "than the link it would cross (the host's measured link, else the fastest a client "
             "plausibly has): the data did not cross it, a client cache answered.",
             f.count, plural(f.count));
    emit(c, &f);
}

static void sync_engine_depth(struct insight_ctx *c)
{
    struct finding f = {"Synchronous engine", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        if (result_usable(r) && r->iodepth > 1 && result_engine_is_sync(r) && evidence(&f, r))
            detail(&f, "%s, %s: ioengine=%s%s, iodepth=%lld", c->o->values[r->side], workload(c, r),
                   r->ioengine, r->engine_default ? " (fio's default)" : "", (long long)r->iodepth);
    }
    buf_addf(&f.text,
             "%zu result%s with iodepth>1 on a synchronous engine (psync, sync, pvsync, ...): "
             "fio ignores it, the effective depth is 1 per job. Use libaio or io_uring for "
             "queued I/O.",
             f.count, plural(f.count));
    emit(c, &f);
}

/* ---- time series ---- */

static const char *series_value(struct insight_ctx *c, const struct series_verdict *sv, double v)
{
    return fmt_value(c->r, v, !strcmp(sv->metric, "iops") ? UNIT_IOPS : UNIT_BYTES_S);
}

/* How the verdict was reached: fio's own check, or the SNIA window's numbers. */
static void steady_basis(struct buf *out, const struct series_verdict *sv)
{
    if (sv->by_fio)
        buf_addf(out, "fio ss=%s %s", sv->criterion ? sv->criterion : "",
                 sv->steady == STEADY_YES ? "attained" : "not attained");
    else
        buf_addf(out, "%s, last %d of %d rounds: range %.1f %% of the mean, slope x %d %.1f %%",
                 sv->metric, SNIA_WINDOW, SERIES_ROUNDS, sv->w.range * 100, SNIA_WINDOW - 1,
                 sv->w.excursion * 100);
}

/* Results whose series (or fio's ss= check) did not settle: their mean mixes phases. */
static void unsteady(struct insight_ctx *c)
{
    struct finding f = {"Not steady", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct series_verdict *sv = &c->series[i];
        if (!result_usable(&c->res[i]) || sv->steady != STEADY_NO || !evidence(&f, &c->res[i]))
            continue;
        struct buf why = BUF_INIT;
        steady_basis(&why, sv);
        detail(&f, "%s, %s: %s", c->o->values[c->res[i].side], workload(c, &c->res[i]), why.data);
        buf_release(&why);
    }
    buf_addf(&f.text,
             "%zu result%s did not reach steady state (SNIA PTS over the last %d of %d equal "
             "rounds of the run: range above %.0f %% of the mean or slope x %d above %.0f %%; or "
             "fio's own ss= check not attained): the mean mixes phases of the run; marked *not "
             "steady* in the comparison.",
             f.count, plural(f.count), SNIA_WINDOW, SERIES_ROUNDS, SNIA_RANGE_MAX * 100,
             SNIA_WINDOW - 1, SNIA_SLOPE_MAX * 100);
    emit(c, &f);
}

/* A drop below half the level before it that lasts: writeback, a cache running out. */
static void cliffs(struct insight_ctx *c)
{
    struct finding f = {"Throughput cliff", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct series_verdict *sv = &c->series[i];
        if (!result_usable(&c->res[i]) || !sv->has_cliff || !evidence(&f, &c->res[i]))
            continue;
        detail(&f, "%s, %s: %s falls from %s to %s at %.2f s for %.2f s",
               c->o->values[c->res[i].side], workload(c, &c->res[i]), sv->metric,
               series_value(c, sv, sv->cliff.before), series_value(c, sv, sv->cliff.level),
               sv->cliff.start_ms / 1000, sv->cliff.span_ms / 1000);
    }
    buf_addf(&f.text,
             "%zu result%s whose throughput fell below %.0f %% of its mean so far for more than "
             "%.0f %% of the run (dirty pages written back, a cache or SLC buffer running out): "
             "the run's mean describes neither phase.",
             f.count, plural(f.count), CLIFF_DROP * 100, CLIFF_SPAN * 100);
    emit(c, &f);
}

static const struct column steady_cols[] = {{"Result", UNIT_NONE, ROLE_PLAIN},
                                            {"Side", UNIT_NONE, ROLE_PLAIN},
                                            {"Workload", UNIT_NONE, ROLE_PLAIN},
                                            {"Steady state", UNIT_NONE, ROLE_PLAIN},
                                            {"Basis", UNIT_NONE, ROLE_PLAIN}};

/* Per result with a series or fio's ss= check: whether it reached steady state, and why. */
static void steady_table(struct insight_ctx *c)
{
    struct table *t = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct series_verdict *sv = &c->series[i];
        const struct side_result *r = &c->res[i];
        if (!result_usable(r) || sv->steady == STEADY_UNKNOWN)
            continue;
        if (!t)
            t = report_table(c->r, report_section(c->r, "Steady state", NULL), "steady_state",
                             steady_cols, 5);
        struct buf b = BUF_INIT;
        struct cell *row = table_add_row(c->r, t);
        cell_set_text(&row[0],
                      arena_printf(&c->r->arena, "%s:%d", r->source, r->line ? r->line : 1));
        cell_set_text(&row[1], c->o->values[r->side]);
        cell_set_text(&row[2], workload(c, r));
        cell_set_text(&row[3], sv->steady == STEADY_YES ? "reached" : "not reached");
        steady_basis(&b, sv);
        cell_set_text(&row[4], arena_strdup(&c->r->arena, b.data));
        buf_release(&b);
    }
}

/* ---- the rest ---- */

static void tail_latency(struct insight_ctx *c)
{
    struct finding f = {"Tail latency", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        double p99 = r->m[RM_P99], p50 = r->m[RM_P50];
        if (!result_usable(r) || !(p50 > 0) || !(p99 / p50 > TAIL_RATIO))
            continue;
        if (evidence(&f, r))
            detail(&f, "%s: p99 %s vs median %s", c->o->values[r->side],
                   fmt_value(c->r, p99, UNIT_NS), fmt_value(c->r, p50, UNIT_NS));
    }
    buf_addf(&f.text,
             "%zu result%s with a p99 latency more than %.0fx the median: occasional "
             "stalls (network retransmits, writeback, garbage collection) that averages "
             "hide.",
             f.count, plural(f.count), TAIL_RATIO);
    emit(c, &f);
}

static void failed_jobs(struct insight_ctx *c)
{
    struct finding f = {"Failed jobs", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++)
        if (c->res[i].error && evidence(&f, &c->res[i]) && c->res[i].error_msg)
            detail(&f, "%s", c->res[i].error_msg);
    buf_addf(&f.text, "%zu result%s reported an error by the tool; left out of the comparison.",
             f.count, plural(f.count));
    emit(c, &f);
}

static void short_runs(struct insight_ctx *c)
{
    struct finding f = {"Short runs", BUF_INIT, BUF_INIT, 0};
    for (size_t i = 0; i < c->n; i++) {
        const struct side_result *r = &c->res[i];
        if (!r->error && r->m[RM_RUNTIME] < MIN_RUNTIME_MS && evidence(&f, r))
            detail(&f, "%s", fmt_value(c->r, r->m[RM_RUNTIME] * 1e6, UNIT_NS));
    }
    buf_addf(&f.text,
             "%zu result%s ran for less than %.0f s: too short to trust (caches, "
             "ramp-up and timer resolution dominate); left out of the recommendations.",
             f.count, plural(f.count), MIN_RUNTIME_MS / 1000);
    emit(c, &f);
}

/* The bandwidths of r's repeats on its side (r's group: identity.h), marked done; their count. */
static size_t repeats(const struct insight_ctx *c, size_t i, char *done, double *v)
{
    size_t k = 0;
    for (size_t j = i; j < c->n; j++) {
        const struct side_result *r = &c->res[j];
        if (r->side != c->res[i].side || !result_usable(r) || isnan(r->m[RM_BW]) ||
            result_group(r) != result_group(&c->res[i])) /* interned: one pointer per group */
            continue;
        done[j] = 1;
        v[k++] = r->m[RM_BW];
    }
    return k;
}

/* Repeats of one workload on one side that disagree: coefficient of variation above MAX_CV. */
static void spread(struct insight_ctx *c)
{
    struct finding f = {"Large spread", BUF_INIT, BUF_INIT, 0};
    char *done = xcalloc(c->n ? c->n : 1, 1);
    double *v = xmalloc((c->n ? c->n : 1) * sizeof(*v));
    for (size_t i = 0; i < c->n; i++) {
        if (done[i] || !result_usable(&c->res[i]) || isnan(c->res[i].m[RM_BW]))
            continue;
        size_t k = repeats(c, i, done, v);
        struct sample_stats st;
        stats_describe(v, k, &st);
        if (k >= 2 && st.mean > 0 && st.sd / st.mean > MAX_CV && evidence(&f, &c->res[i]))
            detail(&f, "%s, %s: %zu runs, bandwidth %s to %s", c->o->values[c->res[i].side],
                   workload(c, &c->res[i]), k, fmt_value(c->r, st.min, UNIT_BYTES_S),
                   fmt_value(c->r, st.max, UNIT_BYTES_S));
    }
    free(v);
    free(done);
    buf_addf(&f.text,
             "%zu workload%s whose repeats differ by more than %.0f %% (coefficient of "
             "variation of bandwidth): find out why before trusting the mean.",
             f.count, plural(f.count), MAX_CV * 100);
    emit(c, &f);
}

void query_insights(const struct compare_opts *o, const struct side_results *all,
                    const struct suspect_basis *b, struct report *r)
{
    struct section *s = report_section(
        r, "Insights", "Findings from the data itself, each with its evidence (file:line).");
    struct insight_ctx c = {r,         report_table(r, s, "insights", insight_cols, 3),
                            o,         all->v,
                            all->n,    b->net,
                            &b->links, b->series};
    network_table(&c);
    failed_jobs(&c);
    counted(&c, &BUFFERED);
    counted(&c, &STATED);
    below_device(&c);
    fsync_noop(&c);
    above_link(&c);
    io_above_link(&c);
    little(&c);
    submission_dominates(&c);
    shallow_queue(&c);
    counted(&c, &TRANSCRIBED);
    sync_engine_depth(&c);
    tail_latency(&c);
    spread(&c);
    short_runs(&c);
    unsteady(&c);
    cliffs(&c);
    counted(&c, &SYNC_WRITES);
    if (!c.t->nrows)
        s->prose = "Nothing to note: no cache effects, impossible numbers, tail latency, "
                   "errors, short runs or disagreeing repeats were found.";
    steady_table(&c);
}
