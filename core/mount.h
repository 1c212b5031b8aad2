/* mount.h: one parser for every way a mount and its options are written down, giving a
 * canonical option set, so that the same mount compares equal whichever form a note used.
 *
 * Accepted forms (one mount per input; blank lines and '#' comment lines are ignored):
 *   mount(8) output     srv:/x on /mnt type nfs4 (rw,relatime,vers=4.2,sec=krb5p)  [label]
 *   /proc/mounts, fstab srv:/x /mnt nfs4 rw,vers=4.2 0 0      (\040-style octal escapes)
 *   mountinfo           36 35 0:31 / /mnt rw,relatime shared:1 - nfs4 srv:/x rw,vers=4.2
 *                       (per-mount options and super options are merged; "ro" on either wins)
 *   findmnt             a table with its header (TARGET SOURCE FSTYPE OPTIONS in any order,
 *                       VFS-OPTIONS/FS-OPTIONS merged like mountinfo; tree or -l; columns are
 *                       taken from the header positions, so paths may contain spaces), -P pairs
 *                       (TARGET="..." OPTIONS="..."), or -n rows (read as fstab order unless the
 *                       row starts with a tree glyph, or has exactly 4 fields, an absolute first
 *                       field and a second one that is no path ("/mnt srv:/x nfs4 rw"; none and
 *                       swap excepted) or a /dev/ path while the first is not ("/ /dev/vda ...");
 *                       an ambiguous row such as "/srv /data/img ..." is read as fstab)
 *   bare options        rw,vers=4.2,rsize=1048576   (e.g. findmnt -n -o OPTIONS)
 *   a mount command     [sudo] mount [-t TYPE] [-o OPTS]... SOURCE TARGET, mount.nfs4 ...
 *                       (-F TYPE as on Solaris; a host:/path source without -t is nfs)
 *   Kubernetes          mountOptions: followed by "- item" lines, or mountOptions: [a, b], or
 *                       just the "- item" lines or the [a, b] list; inside a larger manifest
 *                       the other lines are ignored except fsType:, an nfs: volume, an nfs
 *                       provisioner:/driver: (fstype nfs) and server: with path:/share: (source)
 *
 * Canonical set: options split at commas (not inside "..."), escapes decoded, "defaults"
 * dropped (it asks for nothing), then normalized where the kernel treats spellings as one
 * setting, resolved last-wins, sorted by key (then value) and joined with commas:
 *   - ro/rw; atime/noatime/relatime/strictatime (and their no- forms); sync/async; and for
 *     any flag, X and noX are one setting;
 *   - NFS (fstype nfs, nfs4 or unknown): nfsvers=N and the flags vN are vers=N; the flags
 *     tcp, udp, rdma are proto=...; hard/soft/softerr are one setting; sec=none is sec=null
 *     (as /proc/mounts prints it).
 * Values are otherwise kept verbatim (vers=4 and vers=4.0 differ). In the canonical string a
 * backslash, whitespace, or a comma outside "..." in a value is written as a \ooo escape.
 *
 * sec: the first flavor of sec= (sec=krb5:krb5i gives "krb5", the one the client tries
 * first; the kernel may negotiate another from the list); for nfs/nfs4 without sec= it is
 * "sys" (the default), an unknown flavor is an error. For an unknown fstype it is the sec=
 * flavor when that is a valid NFS flavor, else NULL; for other fstypes (cifs has its own
 * sec=) it is NULL. */
#ifndef BDB_MOUNT_H
#define BDB_MOUNT_H

#include <stddef.h>

#include "arena.h"
#include "buf.h"

enum mount_form {
    MOUNT_FORM_OPTIONS,   /* bare option string */
    MOUNT_FORM_MOUNT,     /* mount(8) output */
    MOUNT_FORM_TABLE,     /* /proc/mounts or fstab */
    MOUNT_FORM_MOUNTINFO, /* /proc/<pid>/mountinfo */
    MOUNT_FORM_FINDMNT,   /* findmnt table, -P pairs or tree row */
    MOUNT_FORM_COMMAND,   /* mount -t ... -o ... command line */
    MOUNT_FORM_K8S        /* Kubernetes mountOptions list */
};

struct mount_opt {
    char *key;
    char *value; /* NULL for flags such as hard */
};

struct mount_info {
    char *source, *target, *fstype; /* NULL when the form does not say */
    struct mount_opt *opts;         /* canonical: sorted by key, one per setting */
    size_t n_opts;
    char *canonical; /* the options joined with commas; "" when there are none */
    char *sec;       /* see above; NULL when not NFS or unknown */
    enum mount_form form;
    unsigned line;    /* 1-based line the mount (or on failure, the error) is on; 0: none */
    struct arena mem; /* owns every string above */
};

/* Parses text[0..len) (any bytes; NUL bytes are an error). Returns 0, or -1 with a message in
 * err (lower case, the bad token quoted; prefix it with path:line from out->line) and *out
 * released except for out->line. Release *out with mount_info_release in both cases. */
int mount_parse_mem(const char *text, size_t len, struct mount_info *out, struct buf *err);
/* The same for a NUL-terminated string. */
int mount_parse(const char *text, struct mount_info *out, struct buf *err);
void mount_info_release(struct mount_info *m);

/* The value of option key in the canonical set (after alias normalization: ask for "vers",
 * not "nfsvers"), "" for a flag that is present, NULL when absent. */
const char *mount_opt_get(const struct mount_info *m, const char *key);

const char *mount_form_name(enum mount_form form);

#endif
