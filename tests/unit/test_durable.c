/* test_durable.c: which writes wait for stable storage in their write() call (query/results.c):
 * the sync option read from a canonical mount option list (core/mount_opts.c writes it: sorted,
 * last-wins, a quoted value kept with its commas), O_SYNC, and how many writes an fsync
 * follows. */
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

int main(void)
{
    mount_option();
    write_waits();
    return TEST_DONE();
}
