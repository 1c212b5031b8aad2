/* test_durable.c: which writes wait for stable storage in their write() call (query/results.c):
 * the sync option read from a canonical mount option list (core/mount_opts.c writes it: sorted,
 * last-wins, a quoted value kept with its commas), O_SYNC, and how many writes an fsync
 * follows. */
#include <math.h>

#include "../../query/insights.h"
#include "../../query/results.h"
#include "harness.h"

static struct side_result write_on(const char *mount)
{
    return (struct side_result){.mount = mount,
                                .rw = "write",
                                .direction = "write",
                                .sync = -1,
                                .fsync = -1,
                                .fdatasync = -1};
}

static void mount_option(void)
{
    static const struct {
        const char *mount;
        int sync;
    } cases[] = {
        {"relatime,rw,sync", 1},
        {"sync", 1},
        {"rw,sync,vers=4.2", 1},
        {"relatime,rw", 0},
        {"", 0},
        {"async,rw", 0},
        {"dirsync,rw", 0},
        {"rw,wsync", 0},
        {"foo=sync,rw", 0},
        {"syncx,rw", 0},
        /* a quoted value's commas are not option separators */
        {"context=\"system_u:object_r:x_t:s0,sync,c1\",rw", 0},
        {"context=\"a,b\",rw,sync", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct side_result r = write_on(cases[i].mount);
        INT_EQ(result_mount_is_sync(&r), cases[i].sync, cases[i].mount);
    }
    struct side_result unknown = write_on(NULL);
    INT_EQ(result_mount_is_sync(&unknown), 0, "no mount recorded");
}

static void write_waits(void)
{
    struct side_result r = write_on("relatime,rw,sync");
    INT_EQ(result_write_waits(&r), 1, "a write on a sync mount");
    r.rw = "read";
    r.direction = "read";
    INT_EQ(result_write_waits(&r), 0, "a read on a sync mount does not");
    r = write_on("relatime,rw");
    INT_EQ(result_write_waits(&r), 0, "a write on a default mount");
    r.sync = 1;
    INT_EQ(result_write_waits(&r), 1, "an O_SYNC write (sync=1)");
    r.fsync = 4;
    INT_EQ(result_writes_per_flush(&r), 4, "fsync=4");
    r.fsync = -1;
    r.fdatasync = 8;
    INT_EQ(result_writes_per_flush(&r), 8, "fdatasync=8");
    r.fdatasync = 0;
    INT_EQ(result_writes_per_flush(&r), 0, "neither");
}

/* An fsync=1 write job on ext4: its write's and its fsync's medians (ns), O_SYNC or not, O_DIRECT
 * or not; every other metric unknown. */
static struct side_result fsync_job(const char *mount, int64_t osync, int64_t direct,
                                    double write_p50, double fsync_p50)
{
    struct side_result r = write_on(mount);
    for (int k = 0; k < RM_COUNT; k++)
        r.m[k] = NAN;
    r.fstype = "ext4";
    r.fsync = 1;
    r.sync = osync;
    r.direct = direct;
    r.m[RM_P50] = write_p50;
    r.m[RM_SYNC_P50] = fsync_p50;
    return r;
}

/* The medians below are those of real fio 3.33 runs on this project's machines (e2e fixtures
 * and the session 18 review's): eatmydata, a real disk, a write-through device. */
static void flush_without_device(void)
{
    struct side_result r = fsync_job("relatime,rw", -1, 0, 5939, 1288);
    OK(suspect_fsync_noop(&r), "buffered writes, fsync 1.3 us (eatmydata): no device wrote");
    r = fsync_job("relatime,rw", -1, 0, 14428, 3489792);
    OK(!suspect_fsync_noop(&r), "buffered writes, fsync 3.5 ms: a disk's flush");
    r = fsync_job("relatime,rw", 1, 0, 2300, 1300);
    OK(suspect_fsync_noop(&r), "O_SYNC under eatmydata (it drops O_SYNC too): write 2.3 us + "
                               "fsync 1.3 us");
    r = fsync_job("relatime,rw", 1, 0, 87500, 35000);
    OK(!suspect_fsync_noop(&r), "O_SYNC on a disk: write 87.5 us + fsync 35 us");
    r = fsync_job("relatime,rw", -1, 1, 45000, 1700);
    OK(!suspect_fsync_noop(&r), "O_DIRECT to a write-through device: the write went to it (45 us), "
                                "the fdatasync found nothing (1.7 us)");
    r = fsync_job("relatime,rw,sync", -1, 0, 300000, 3000);
    OK(!suspect_fsync_noop(&r), "a sync mount: the write() flushed (300 us), the fsync 3 us");
    r = fsync_job("relatime,rw", 1, 0, NAN, 1300);
    OK(!suspect_fsync_noop(&r), "O_SYNC with its write latency unknown: not judged");
    INT_EQ(flush_wait(&r) == flush_wait(&r), 0, "and its flush_wait unknown (NAN)");
    r = fsync_job("relatime,rw", -1, 0, 5939, NAN);
    r.m[RM_SYNC_MEAN] = 3017;
    OK(suspect_fsync_noop(&r), "no fsync median: the mean (3.0 us) is judged");
    r = fsync_job("relatime,rw", -1, 0, 5939, 1288);
    r.fstype = "tmpfs";
    OK(!suspect_fsync_noop(&r), "tmpfs: a no-op by design");
    r.fstype = NULL;
    OK(!suspect_fsync_noop(&r), "a filesystem not recorded: not judged");
    r = fsync_job("relatime,rw", 1, 0, 2640, NAN);
    r.fsync = -1;
    OK(suspect_fsync_noop(&r), "O_SYNC without fsync under eatmydata: the write 2.6 us");
    r.m[RM_P50] = 164864;
    OK(!suspect_fsync_noop(&r), "O_SYNC without fsync on a disk: the write 165 us");
    r = fsync_job("relatime,rw,sync", -1, 0, 2640, NAN);
    r.fsync = -1;
    OK(!suspect_fsync_noop(&r), "a plain write on a sync mount: not judged");
    r = fsync_job("relatime,rw", 1, 0, 2000, 1000);
    r.fsync = 4;
    INT_EQ((long long)flush_wait(&r), 4 * 2000 + 1000,
           "fsync=4 after O_SYNC writes: 4 writes + the fsync");
}

int main(void)
{
    mount_option();
    write_waits();
    flush_without_device();
    return TEST_DONE();
}
