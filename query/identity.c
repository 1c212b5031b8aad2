/* identity.c: what a workload is and what makes results repeats of one another (identity.h). */
#include "identity.h"

#include <inttypes.h>
#include <string.h>

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

void context_value(struct buf *out, const struct side_result *r, enum context_key k, const char *by)
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

int context_is_compared(enum context_key k, const char *by)
{
    return (k == CX_HOST && !strcmp(by, "host")) || (k == CX_OS && !strcmp(by, "tag:os")) ||
           (k == CX_LABEL && !strcmp(by, "tag:label")) || (k == CX_MOUNT && !strcmp(by, "mount")) ||
           (k == CX_ENGINE && !strcmp(by, "ioengine"));
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
