/* identity.c: what a workload is and what makes results repeats of one another (identity.h).
 *
 * A workload setting that one result states and another leaves unknown (a pasted fio report
 * without its direct=, a typed table without its iodepth) does not match: unknown is not "the
 * same". Buffered and O_DIRECT runs of one rw and block size differ by orders of magnitude
 * (the page cache answers one of them), and a queue depth changes what a device can do, so
 * matching them would give a factor that compares the cache with the storage, or two depths,
 * under one name. Such results stay in "Workloads not compared", and the row says why: the
 * setting that is unknown and on which side ("direct unknown on pmem; the NFS side states
 * direct=1"), so the reader knows what to re-run or state (a sidecar's direct=1 matches
 * them). Seed 004's local pmem baseline (its header gives rw, bs, engine and iodepth, not
 * direct) against its NFS runs (direct=1) is that case. */
#include "identity.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "../core/array.h"

const char *const context_names[N_CONTEXT] = {"host",         "OS",     "label", "mount options",
                                              "tool version", "engine", "size"};

/* The mount options without the compared one (sec=, or mount:KEY): comparing sec=sys with
 * sec=krb5 must not make every mount a context of its own. */
static void mount_without(struct buf *out, const char *options, const char *key)
{
    size_t klen = key ? strlen(key) : 0;
    for (const char *p = options; *p;) {
        size_t n = strcspn(p, ",");
        if (!(klen && !strncmp(p, key, klen) && (p[klen] == '=' || p[klen] == ',' || !p[klen]))) {
            if (out->len)
                buf_addc(out, ',');
            buf_add(out, p, n);
        }
        p += n + (p[n] == ',');
    }
}

/* "fio-3.33" -> "fio 3": a major version changes units and defaults, a minor one does not. */
static void tool_major(struct buf *out, const struct side_result *r)
{
    buf_adds(out, r->tool);
    const char *v = r->tool_version ? r->tool_version : "";
    v += strcspn(v, "0123456789");
    if (*v) {
        buf_addc(out, ' ');
        buf_add(out, v, strspn(v, "0123456789"));
    }
}

/* The value of context key k of r ("" unknown) into out (reset first); by is the compared key
 * (--by), whose own mount option is left out of the mount options. */
static void context_value(struct buf *out, const struct side_result *r, enum context_key k,
                          const char *by)
{
    buf_reset(out);
    switch (k) {
    case CX_HOST:
        buf_adds(out, r->host ? r->host : "");
        break;
    case CX_OS:
        buf_adds(out, r->os ? r->os : "");
        break;
    case CX_LABEL:
        buf_adds(out, r->label ? r->label : "");
        break;
    case CX_MOUNT:
        mount_without(out, r->mount ? r->mount : "",
                      !strcmp(by, "sec")          ? "sec"
                      : !strncmp(by, "mount:", 6) ? by + 6
                                                  : NULL);
        break;
    case CX_TOOL:
        tool_major(out, r);
        break;
    case CX_ENGINE:
        buf_adds(out, r->ioengine ? r->ioengine : "");
        break;
    case CX_SIZE:
        if (r->size > 0)
            buf_addf(out, "%" PRId64, r->size);
        break;
    case N_CONTEXT:
        break;
    }
}

/* The compared key is what differs on purpose: it is never a context of its own. */
static int context_is_compared(enum context_key k, const char *by)
{
    return (k == CX_HOST && !strcmp(by, "host")) || (k == CX_OS && !strcmp(by, "tag:os")) ||
           (k == CX_LABEL && !strcmp(by, "tag:label")) || (k == CX_MOUNT && !strcmp(by, "mount")) ||
           (k == CX_ENGINE && !strcmp(by, "ioengine"));
}

int context_fields_equal(const struct side_result *a, const struct side_result *b,
                         enum context_key k)
{
    switch (k) {
    case CX_HOST:
        return a->host == b->host;
    case CX_OS:
        return a->os == b->os;
    case CX_LABEL:
        return a->label == b->label;
    case CX_MOUNT:
        return a->mount == b->mount;
    case CX_TOOL:
        return a->tool == b->tool && a->tool_version == b->tool_version;
    case CX_ENGINE:
        return a->ioengine == b->ioengine;
    case CX_SIZE:
        return a->size == b->size;
    case N_CONTEXT:
        break;
    }
    return 0;
}

unsigned context_differs(const struct side_result *a, const struct side_result *b, unsigned known,
                         const char *by, struct buf scratch[2])
{
    unsigned mask = 0;
    if (a->context && a->context == b->context) /* interned: one context, one pointer */
        return 0;
    for (int k = 0; k < N_CONTEXT; k++) {
        unsigned bit = 1u << k;
        if ((known & bit) || context_is_compared((enum context_key)k, by) ||
            context_fields_equal(a, b, (enum context_key)k))
            continue;
        context_value(&scratch[0], a, (enum context_key)k, by);
        context_value(&scratch[1], b, (enum context_key)k, by);
        if (strcmp(scratch[0].data, scratch[1].data))
            mask |= bit;
    }
    return mask;
}

void context_key(struct buf *out, const struct side_result *r, const char *by)
{
    struct buf v = BUF_INIT;
    for (int k = 0; k < N_CONTEXT; k++) {
        if (context_is_compared((enum context_key)k, by))
            continue;
        context_value(&v, r, (enum context_key)k, by);
        buf_add(out, v.data, v.len);
        buf_addc(out, '\x1f');
    }
    buf_release(&v);
}

void context_label(struct buf *name, struct buf *key, const struct side_result *r, unsigned mask,
                   const char *by)
{
    struct buf v = BUF_INIT;
    const char *sep = " [";
    for (int k = 0; k < N_CONTEXT; k++) {
        if (!(mask & (1u << k)))
            continue;
        context_value(&v, r, (enum context_key)k, by);
        if (k == CX_LABEL && r->os && !strcmp(v.data, r->os))
            continue; /* a note's "RHEL 7" heading is its label and its OS: named once */
        buf_addf(name, "%s%s %s", sep, context_names[k], v.len ? v.data : "unknown");
        if (key)
            buf_addf(key, "|%d=%s", k, v.data);
        sep = ", ";
    }
    buf_adds(name, "]");
    buf_release(&v);
}

/* The workload settings result_workload_key joins, one that a side may leave unknown (-1). */
static const struct {
    const char *name;
    size_t off;
} settings[] = {
    {"bs", offsetof(struct side_result, bs)},
    {"iodepth", offsetof(struct side_result, iodepth)},
    {"numjobs", offsetof(struct side_result, numjobs)},
    {"direct", offsetof(struct side_result, direct)},
    {"sync", offsetof(struct side_result, sync)},
    {"fsync", offsetof(struct side_result, fsync)},
    {"fdatasync", offsetof(struct side_result, fdatasync)},
    {"rwmixread", offsetof(struct side_result, rwmixread)},
};

static int64_t setting(const struct side_result *r, size_t i)
{
    int64_t v;
    memcpy(&v, (const char *)r + settings[i].off, sizeof(v));
    return v;
}

static int same_text(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

int workload_unknown_only(struct buf *out, const struct side_result *a, const char *an,
                          const struct side_result *b, const char *bn)
{
    if (!*(a->rw ? a->rw : "") || !same_text(a->rw, b->rw) ||
        !same_text(a->direction, b->direction) || !same_text(a->tool, b->tool))
        return 0;
    size_t unknown = 0;
    for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
        int64_t x = setting(a, i), y = setting(b, i);
        if (x != y && x >= 0 && y >= 0)
            return 0; /* a setting both state, and differ in: another workload */
        unknown += (x < 0) != (y < 0);
    }
    if (!unknown)
        return 0;
    size_t start = out->len;
    for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
        int64_t x = setting(a, i), y = setting(b, i);
        if ((x < 0) == (y < 0))
            continue;
        buf_addf(out, "%s%s unknown on %s, %s=%" PRId64 " on %s", out->len > start ? "; " : "",
                 settings[i].name, x < 0 ? an : bn, settings[i].name, x < 0 ? y : x,
                 x < 0 ? bn : an);
    }
    buf_adds(out, ": otherwise the same workload, not matched while the setting is unknown");
    return 1;
}
