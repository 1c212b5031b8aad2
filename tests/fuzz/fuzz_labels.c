/* fuzz_labels.c: libFuzzer target for the parsers of what labels a result beside its content:
 * a sidecar (import/sidecar.c: FILE.meta, benchdb.meta), a mount in any of its forms
 * (core/mount.c: mountinfo, /proc/mounts, mount(8), nfsstat -m, fstab, a mount command, a
 * Kubernetes list) and an ISO 8601 date (core/timerange.c: --since, --until). Each input goes
 * to all three, as a user could give it to each: whole as a sidecar and as a mount, its first
 * line as a date (both ends of a range); the sidecar's mount value is parsed as a mount, as the
 * import does with it. Messages are discarded; a crash, leak or sanitizer report is the finding.
 * scripts/fuzz.sh runs it beside the importers' targets, seeded from tests/corpus/labels/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mount.h"
#include "../../core/timerange.h"
#include "../../core/xalloc.h"
#include "../../import/sidecar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void silent(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx;
    (void)level;
    (void)line;
}

static void parse_mount(const char *text, size_t len)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    if (mount_parse_mem(text, len, &m, &err) == 0) {
        volatile size_t sink = strlen(m.canonical) + (m.sec ? strlen(m.sec) : 0);
        for (size_t i = 0; i < m.n_opts; i++)
            sink += strlen(m.opts[i].key) + (m.opts[i].value ? strlen(m.opts[i].value) : 0);
        (void)mount_opt_get(&m, "vers");
        (void)sink;
    }
    mount_info_release(&m);
    buf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* NUL-terminated, as sidecar_load's buf_read_file gives it */
    char *copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';

    struct source src = {"fuzz.meta", copy, size};
    struct diag d = DIAG_INIT;
    d.emit = silent;
    struct sidecar sc;
    memset(&sc, 0, sizeof(sc));
    if (sidecar_parse(&src, &sc, &d) == 0 && sc.labels.mount)
        parse_mount(sc.labels.mount, strlen(sc.labels.mount));
    sidecar_release(&sc);

    parse_mount(copy, size);

    char *line = xstrndup(copy, strcspn(copy, "\n"));
    int64_t t;
    const char *why;
    parse_iso_time(line, TIME_LOWER, &t, &why);
    parse_iso_time(line, TIME_UPPER, &t, &why);
    free(line);
    free(copy);
    return 0;
}
