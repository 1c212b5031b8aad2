/* suspect.c: results that are not taken at face value (enum suspect), and the tests behind
 * them, shared by the insights (which explain them) and the recommendations (which leave them
 * out). docs/methods.md, "Caches and links", gives the reasoning. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../schema/sql.h"
#include "insights.h"
#include "results.h"

const double MIN_RUNTIME_MS = 5000.0;
/* NAND flash answers a 4k read in 50-100 µs, a network filesystem adds a round trip on top;
 * only Optane-class media come near 10 µs. Below it the page cache (or a client cache) did. */
const double MIN_DEVICE_IO_NS = 10000.0;
/* Each NFS (or SMB, ...) I/O needs at least one packet; the smallest Ethernet frame takes 84
 * bytes on the wire (64 frame + 8 preamble + 12 inter-frame gap): link bit/s / 672 is its
 * highest packet rate. */
const double ETHERNET_FRAME_BITS = 84.0 * 8.0;
/* The fastest link a network filesystem's I/O plausibly crosses when none was measured for its
 * host: 100 Gbit/s Ethernet, the fastest in common NFS/SMB use (NFS over RDMA on 200-400 Gbit/s
 * InfiniBand is the exception: measure the link with iperf to be judged against it). */
const double PLAUSIBLE_LINK_BITS = 100e9;
/* IOPS and mean latency come from slightly different windows (ramp-up, the I/Os still in flight
 * at the end, rounding of typed values): 25 % leeway keeps honest results clear while the
 * impossible ones (cache hits, mistyped units) are usually off by 2x or more. */
const double LITTLE_TOLERANCE = 1.25;

/* ---- the links: the fastest iperf test per host ---- */

static const char *link_label(struct arena *a, sqlite3_stmt *st)
{
    const char *dir = sql_text(st, 7);
    int64_t streams = sqlite3_column_int64(st, 6);
    struct buf b = BUF_INIT;
    network_test_label(&b, sql_text(st, 4), sql_text(st, 5), streams > 0 ? streams : 1);
    if (dir && !strcmp(dir, "receive"))
        buf_adds(&b, ", reverse");
    const char *label = arena_strdup(a, b.data);
    buf_release(&b);
    return label;
}

/* Each host's fastest network test into out. */
static int query_links(struct db *db, struct links *out, struct diag *d)
{
    sqlite3 *h = db_handle(db);
    memset(out, 0, sizeof(*out));
    int rc = SQLITE_OK;
    /* per host, its fastest test first; ties by file and line so reports are deterministic */
    sqlite3_stmt *st =
        sql_prepare(h, &rc,
                    "SELECT r.host, r.bw_bytes_s * 8, s.path, coalesce(r.line_first, 1), run.tool, "
                    "(SELECT value FROM tag WHERE result_id = r.id AND key = 'protocol'), "
                    "coalesce(r.numjobs, 1), r.direction "
                    "FROM result r JOIN run ON run.id = r.run_id "
                    "JOIN source_file s ON s.id = run.source_id "
                    "WHERE " QUERY_LINKS_WHERE " ORDER BY r.host, r.bw_bytes_s DESC, s.path, "
                    "r.line_first");
    while (sql_step(st, &rc)) {
        const char *host = sql_text(st, 0);
        if (out->n && !strcmp(out->v[out->n - 1].host, host))
            continue;
        ALLOC_GROW(out->v, out->n, out->a);
        struct link *l = &out->v[out->n++];
        l->host = arena_strdup(&out->strings, host);
        l->bits_s = sqlite3_column_double(st, 1);
        l->source = arena_strdup(&out->strings, sql_text(st, 2));
        l->line = sqlite3_column_int(st, 3);
        l->label = link_label(&out->strings, st);
    }
    int failed =
        rc != SQLITE_OK ? diag_error(d, "cannot read network results: %s", sqlite3_errmsg(h)) : 0;
    sqlite3_finalize(st);
    return failed;
}

static void links_release(struct links *l)
{
    free(l->v);
    arena_release(&l->strings);
    memset(l, 0, sizeof(*l));
}

const struct link *link_of(const struct links *l, const char *host)
{
    for (size_t i = 0; host && i < l->n; i++)
        if (!strcmp(l->v[i].host, host))
            return &l->v[i];
    return NULL;
}

/* ---- the tests ---- */

static int by_storage_class(const struct compare_opts *o)
{
    return !strcmp(o->by, "storage-class") || !strcmp(o->by, "storage_class");
}

/* Per compared value: 1 when it is a storage class whose results carry a network mount. */
static unsigned char *network_sides(const struct compare_opts *o, const struct side_results *res)
{
    unsigned char *net = xcalloc(o->nvalues ? o->nvalues : 1, 1);
    for (size_t i = 0; by_storage_class(o) && i < res->n; i++)
        if (result_is_network_fs(&res->v[i]))
            net[res->v[i].side] = 1;
    return net;
}

int result_on_network(const struct side_result *r, const unsigned char *net_sides)
{
    if (result_is_network(r))
        return 0;
    return result_is_network_fs(r) || (!r->fstype && net_sides[r->side]);
}

static int is_random(const struct side_result *r)
{
    return !strncmp(r->rw, "rand", 4);
}

static int is_seq_write(const struct side_result *r)
{
    return !strcmp(r->rw, "write") || (!strcmp(r->rw, "rw") && !strcmp(r->direction, "write")) ||
           (!strcmp(r->rw, "readwrite") && !strcmp(r->direction, "write"));
}

/* All of the result's I/O is writes: a write row, or a mix without reads. */
static int only_writes(const struct side_result *r)
{
    if (!strcmp(r->direction, "write"))
        return 1;
    return (!strcmp(r->direction, "mixed") || !*r->direction) &&
           (!strcmp(r->rw, "write") || !strcmp(r->rw, "randwrite") ||
            ((!strcmp(r->rw, "rw") || !strcmp(r->rw, "randrw") || !strcmp(r->rw, "readwrite")) &&
             r->rwmixread == 0));
}

static int memory_fs(const char *fstype)
{
    return !strcmp(fstype, "tmpfs") || !strcmp(fstype, "ramfs");
}

int suspect_buffered(const struct side_result *r)
{
    if (r->direct != 0 || result_is_sync(r))
        return 0; /* a sync write waits for stable storage whatever the page cache does */
    /* so does every write on a sync mount (but tmpfs's, which stays in memory); reads do not */
    if (result_mount_is_sync(r) && only_writes(r) && !(r->fstype && memory_fs(r->fstype)))
        return 0;
    return is_random(r) || is_seq_write(r);
}

double io_latency(const struct side_result *r)
{
    return isnan(r->m[RM_LAT_TOTAL]) ? r->m[RM_P50] : r->m[RM_LAT_TOTAL];
}

/* No persistent device completes an I/O under MIN_DEVICE_IO_NS, so only a filesystem known to
 * live in memory may: on a disk or network filesystem, or one whose type was not recorded (a
 * typed note's "NVMe: 980 ns median"), memory answered. Writes of fsync/fdatasync jobs are
 * left alone: their write() is meant to land in the page cache, the fsync latency is the
 * device's. */
int suspect_below_device(const struct side_result *r)
{
    if (!is_random(r) || r->fsync > 0 || r->fdatasync > 0 || !(io_latency(r) < MIN_DEVICE_IO_NS))
        return 0;
    return !(r->fstype && memory_fs(r->fstype));
}

static double median_else_mean(double median, double mean)
{
    return isnan(median) ? mean : median;
}

double flush_wait(const struct side_result *r)
{
    int64_t n = result_writes_per_flush(r);
    double t = n ? median_else_mean(r->m[RM_SYNC_P50], r->m[RM_SYNC_MEAN]) : 0;
    if (r->direct > 0 || result_write_waits(r)) /* an O_SYNC job without fsync: each write */
        t += (double)(n ? n : 1) * median_else_mean(r->m[RM_P50], r->m[RM_LAT_TOTAL]);
    return t;
}

/* A flush makes the writes before it durable: where they sat in the page cache it writes them
 * to a device, where the write() itself went to the device (O_DIRECT, O_SYNC, a sync mount) the
 * writes did, and the fsync may find nothing left (a device without a volatile cache drops the
 * flush). Either way a device wrote, which no device does in under MIN_DEVICE_IO_NS: a flush
 * that waited less in all (flush_wait) waited for none, a no-op as under eatmydata (which drops
 * O_SYNC too) or ZFS sync=disabled. Medians are judged, which a few slow flushes do not move. A
 * memory filesystem's fsync is a no-op by design, and on a filesystem whose type was not
 * recorded, often a class named after tmpfs, nothing is said. */
int suspect_fsync_noop(const struct side_result *r)
{
    /* the numbers first: most results have neither fsync nor O_SYNC, and the rest compares
     * strings; a plain write on a sync mount is not judged (eatmydata cannot undo a mount) */
    double part = result_writes_per_flush(r)
                      ? median_else_mean(r->m[RM_SYNC_P50], r->m[RM_SYNC_MEAN])
                  : r->sync > 0 ? median_else_mean(r->m[RM_P50], r->m[RM_LAT_TOTAL])
                                : NAN;
    if (!r->fstype || !(part < MIN_DEVICE_IO_NS))
        return 0;
    return result_is_sync(r) && flush_wait(r) < MIN_DEVICE_IO_NS && !memory_fs(r->fstype);
}

int suspect_above_link(const struct side_result *r, const struct link *l)
{
    if (!l || !(l->bits_s > 0))
        return 0;
    if (r->m[RM_BW] * 8 > l->bits_s)
        return 1;
    if (r->m[RM_IOPS] > l->bits_s / ETHERNET_FRAME_BITS)
        return 2;
    return 0;
}

/* Each I/O's bytes cross the link within its latency, whatever the queue depth (parallel I/Os
 * share the link, which only makes the bound tighter): a block size over latency above the link
 * means the I/O never left the client, its cache answered. Seed 000's NFS writes: 1 MiB at a
 * 49 µs median is 171 Gbit/s per I/O, on a 1 GbE link. */
int suspect_io_above_link(const struct side_result *r, const struct link *l)
{
    double lat = io_latency(r);
    if (r->bs <= 0 || !(lat > 0))
        return 0;
    double link = l && l->bits_s > 0 ? l->bits_s : PLAUSIBLE_LINK_BITS;
    return (double)r->bs * 8 / (lat / 1e9) > link;
}

int little_in_flight(const struct side_result *r, double *in_flight, double *bound)
{
    if (!result_usable(r) || r->aggregate || !(r->m[RM_IOPS] > 0) || !(r->m[RM_LAT_TOTAL] > 0))
        return 0;
    /* fio's defaults when its output does not say: iodepth=1, numjobs=1 */
    int fio = !strcmp(r->tool, "fio");
    int64_t depth = result_engine_is_sync(r) ? 1 : r->iodepth > 0 ? r->iodepth : fio ? 1 : -1;
    int64_t jobs = r->numjobs > 0 ? r->numjobs : fio ? 1 : -1;
    if (depth <= 0 || jobs <= 0)
        return 0;
    *in_flight = r->m[RM_IOPS] * r->m[RM_LAT_TOTAL] / 1e9;
    *bound = (double)(depth * jobs);
    return 1;
}

/* A typed result without its rw could be any workload. A missing block size is not enough:
 * classes that select by block size already leave such a result out, and the others (sync
 * writes) do not depend on it. */
int suspect_transcribed(const struct side_result *r)
{
    return r->transcribed && !*r->rw;
}

/* ---- flagging ---- */

static unsigned suspicion(const struct side_result *r, const struct suspect_basis *b,
                          enum steady steady)
{
    unsigned s = 0;
    double in_flight, bound;
    if (r->stated_cached || suspect_buffered(r) || suspect_below_device(r) ||
        suspect_fsync_noop(r) ||
        (result_on_network(r, b->net) && (suspect_above_link(r, link_of(&b->links, r->host)) ||
                                          suspect_io_above_link(r, link_of(&b->links, r->host)))))
        s |= SUSPECT_CACHED;
    if (r->m[RM_RUNTIME] < MIN_RUNTIME_MS)
        s |= SUSPECT_SHORT;
    if (suspect_transcribed(r))
        s |= SUSPECT_TRANSCRIBED;
    if (little_in_flight(r, &in_flight, &bound) && in_flight > bound * LITTLE_TOLERANCE)
        s |= SUSPECT_IMPOSSIBLE;
    if (steady == STEADY_NO)
        s |= SUSPECT_UNSTEADY;
    return s;
}

int suspect_basis_load(struct db *db, const struct compare_opts *o, const struct side_results *res,
                       struct suspect_basis *out, struct diag *d)
{
    out->net = network_sides(o, res);
    out->series = xmalloc((res->n ? res->n : 1) * sizeof(*out->series));
    if (query_series_verdicts(db, res, &out->strings, out->series, d))
        return -1;
    return query_links(db, &out->links, d);
}

void suspect_basis_release(struct suspect_basis *b)
{
    free(b->net);
    free(b->series);
    arena_release(&b->strings);
    links_release(&b->links);
}

void query_flag_suspects(const struct suspect_basis *b, struct side_results *res)
{
    for (size_t i = 0; i < res->n; i++)
        res->v[i].suspect = suspicion(&res->v[i], b, b->series[i].steady);
}
