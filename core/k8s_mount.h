/* k8s_mount.h (private to core/): the Kubernetes form of mount.h, read from the subset of YAML
 * that StorageClass and PersistentVolume manifests use: a "mountOptions:" key followed by
 * "- item" lines or an [a, b] flow list (either of them alone too), quoted scalars and #
 * comments; around the key, fsType:, an nfs: volume, an nfs provisioner:/driver: and server:
 * with path:/share: give the fstype and source. */
#ifndef BDB_K8S_MOUNT_H
#define BDB_K8S_MOUNT_H

#include "mount_parse.h"

/* 1 when p's lines are a Kubernetes mountOptions list, with *rc 0 (its options added with
 * mount_raw_add, the form, fstype, source and line set) or -1 after mount_fail; 0 when they are
 * not, leaving p as it was but its form. */
int k8s_mount_read(struct parser *p, int *rc);

#endif
