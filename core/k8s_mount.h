/* k8s_mount.h (private to core/): the Kubernetes form of mount.h, read from the subset of YAML
 * that StorageClass and PersistentVolume manifests use: a "mountOptions:" key followed by
 * "- item" lines or an [a, b] flow list (either of them alone too), quoted scalars and #
 * comments; around the key, fsType:, an nfs: volume, an nfs provisioner:/driver: and server:
 * with path:/share: give the fstype and source. */
#ifndef BDB_K8S_MOUNT_H
#define BDB_K8S_MOUNT_H

#include <stddef.h>

#include "arena.h"
#include "buf.h"

/* A line of the input: without its newline and trailing blanks, its leading blanks kept (the
 * indentation); blank and comment lines are left out. */
struct k8s_line {
    const char *s;
    unsigned no; /* 1-based */
};

struct k8s_mount {
    char **opts; /* the list's entries, unquoted, in order (in mem; the array k8s_mount_release
                  * frees) */
    size_t n_opts, alloc_opts;
    char *fstype, *source; /* what the manifest around a mountOptions: key says; else NULL */
    unsigned line;         /* the mountOptions: line (0 for a list alone), or the error's */
    unsigned read_to; /* the line being read when the list ended (messages about its entries) */
};

/* Reads lines[0..n) (n > 0), its strings in mem: 1 with *out filled in when they are a
 * Kubernetes mountOptions list, -1 with a message in err (lower case, the bad token quoted) and
 * out->line when they are one that cannot be read, 0 when they are not one. Release *out with
 * k8s_mount_release in every case. */
int k8s_mount_read(const struct k8s_line *lines, size_t n, struct arena *mem, struct k8s_mount *out,
                   struct buf *err);
void k8s_mount_release(struct k8s_mount *k);

#endif
