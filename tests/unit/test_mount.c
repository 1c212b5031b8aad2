/* Unit tests for core/mount: every written form of one mount must give the same canonical
 * option set and sec flavor. The tmpfs, ext4 and overlay lines were captured on a Debian 12
 * machine (util-linux 2.38.1; the overlay, bind and space mounts in a user namespace made with
 * unshare -rm); the NFS lines are the /proc/mounts lines quoted in a Red Hat krb5 NFS benchmark
 * note, and the other NFS forms are what the kernel and util-linux print for such a mount. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/array.h"
#include "../../core/mount.h"
#include "harness.h"

struct want {
    enum mount_form form;
    const char *source, *target, *fstype, *canonical, *sec;
};

static void check(const char *what, const char *text, const struct want *w)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    char msg[200];
    int rc = mount_parse(text, &m, &err);
    snprintf(msg, sizeof(msg), "%s: parses", what);
    if (!OK(rc == 0, msg))
        fprintf(stderr, "  error: line %u: %s\n", m.line, err.data);
    if (rc == 0) {
        snprintf(msg, sizeof(msg), "%s: form", what);
        STR_EQ(mount_form_name(m.form), mount_form_name(w->form), msg);
        snprintf(msg, sizeof(msg), "%s: source", what);
        STR_EQ(m.source, w->source, msg);
        snprintf(msg, sizeof(msg), "%s: target", what);
        STR_EQ(m.target, w->target, msg);
        snprintf(msg, sizeof(msg), "%s: fstype", what);
        STR_EQ(m.fstype, w->fstype, msg);
        snprintf(msg, sizeof(msg), "%s: canonical", what);
        STR_EQ(m.canonical, w->canonical, msg);
        snprintf(msg, sizeof(msg), "%s: sec", what);
        STR_EQ(m.sec, w->sec, msg);
    }
    mount_info_release(&m);
    buf_release(&err);
}

/* Only the option set and sec (the forms name different fields). */
static void check_opts(const char *what, const char *text, const char *canonical, const char *sec)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    char msg[200];
    int rc = mount_parse(text, &m, &err);
    snprintf(msg, sizeof(msg), "%s: parses", what);
    if (!OK(rc == 0, msg))
        fprintf(stderr, "  error: line %u: %s\n", m.line, err.data);
    snprintf(msg, sizeof(msg), "%s: canonical", what);
    STR_EQ(rc == 0 ? m.canonical : NULL, canonical, msg);
    snprintf(msg, sizeof(msg), "%s: sec", what);
    if (rc == 0)
        STR_EQ(m.sec, sec, msg);
    mount_info_release(&m);
    buf_release(&err);
}

static void check_error(const char *what, const char *text, size_t len, unsigned line,
                        const char *message)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    char msg[200];
    int rc = mount_parse_mem(text, len, &m, &err);
    snprintf(msg, sizeof(msg), "%s: fails", what);
    INT_EQ(rc, -1, msg);
    snprintf(msg, sizeof(msg), "%s: message", what);
    STR_EQ(err.data, message, msg);
    snprintf(msg, sizeof(msg), "%s: line", what);
    INT_EQ(m.line, line, msg);
    OK(m.opts == NULL && m.canonical == NULL && m.source == NULL, "released on failure");
    mount_info_release(&m);
    buf_release(&err);
}

static void test_tmpfs_with_space(void)
{
    const struct want w = {MOUNT_FORM_TABLE,
                           "tmpfs",
                           "/tmp/ov/with space",
                           "tmpfs",
                           "nr_inodes=100,relatime,rw,size=2048k",
                           NULL};
    struct want v = w;
    check("proc/mounts",
          "tmpfs /tmp/ov/with\\040space tmpfs rw,relatime,size=2048k,nr_inodes=100 0 0\n", &v);
    v.form = MOUNT_FORM_MOUNTINFO;
    check("mountinfo",
          "63 43 0:39 / /tmp/ov/with\\040space rw,relatime - tmpfs tmpfs "
          "rw,size=2048k,nr_inodes=100\n",
          &v);
    v.form = MOUNT_FORM_MOUNT;
    check("mount",
          "tmpfs on /tmp/ov/with space type tmpfs (rw,relatime,size=2048k,nr_inodes=100)\n", &v);
    v.form = MOUNT_FORM_FINDMNT;
    check("findmnt table",
          "TARGET             SOURCE FSTYPE OPTIONS\n"
          "/tmp/ov/with space tmpfs  tmpfs  rw,relatime,size=2048k,nr_inodes=100\n",
          &v);
    check("findmnt -P",
          "TARGET=\"/tmp/ov/with space\" SOURCE=\"tmpfs\" FSTYPE=\"tmpfs\" "
          "OPTIONS=\"rw,relatime,size=2048k,nr_inodes=100\"\n",
          &v);
    check("findmnt -P hex escape",
          "TARGET=\"/tmp/ov/with\\x20space\" SOURCE=\"tmpfs\" "
          "FSTYPE=\"tmpfs\" OPTIONS=\"rw,relatime,size=2048k,nr_inodes=100\"",
          &v);
    check_opts("findmnt -n -o OPTIONS", "rw,relatime,size=2048k,nr_inodes=100\n", w.canonical,
               NULL);
    check_opts("reordered options", "size=2048k,nr_inodes=100,rw,relatime", w.canonical, NULL);
}

static void test_ext4_root(void)
{
    const char *canon = "discard,relatime,resgid=65534,resuid=65534,resv_strict,rw";
    struct want v = {MOUNT_FORM_MOUNT, "/dev/vda", "/", "ext4", canon, NULL};
    check("ext4 mount",
          "/dev/vda on / type ext4 (rw,relatime,discard,resv_strict,resuid=65534,"
          "resgid=65534)",
          &v);
    v.form = MOUNT_FORM_TABLE;
    check("ext4 proc/mounts",
          "/dev/vda / ext4 rw,relatime,discard,resv_strict,resuid=65534,resgid=65534 0 0", &v);
    v.form = MOUNT_FORM_MOUNTINFO;
    check("ext4 mountinfo",
          "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,"
          "resuid=65534,resgid=65534",
          &v);
    v.form = MOUNT_FORM_FINDMNT;
    check("ext4 findmnt /",
          "TARGET SOURCE   FSTYPE OPTIONS\n"
          "/      /dev/vda ext4   rw,relatime,discard,resv_strict,resuid=65534,"
          "resgid=65534\n",
          &v);
    check("ext4 findmnt -P",
          "TARGET=\"/\" SOURCE=\"/dev/vda\" FSTYPE=\"ext4\" OPTIONS=\"rw,"
          "relatime,discard,resv_strict,resuid=65534,resgid=65534\"",
          &v);
    check("ext4 findmnt -n row",
          "/ /dev/vda ext4 rw,relatime,discard,resv_strict,resuid=65534,"
          "resgid=65534",
          &v);

    /* rows of the full findmnt tree (findmnt -n, and findmnt -n --ascii) */
    const struct want shm = {MOUNT_FORM_FINDMNT,           "tmpfs", "/dev/shm", "tmpfs",
                             "relatime,rw,size=24684096k", NULL};
    check("findmnt tree row",
          "\xe2\x94\x82 \xe2\x94\x9c\xe2\x94\x80/dev/shm                      "
          "          tmpfs                   tmpfs    rw,relatime,"
          "size=24684096k",
          &shm);
    check("findmnt tree row, last child",
          "\xe2\x94\x82 \xe2\x94\x82 \xe2\x94\x94\xe2\x94\x80"
          "/dev/shm      tmpfs   tmpfs    rw,relatime,"
          "size=24684096k",
          &shm);
    check("findmnt --ascii tree row",
          "| |-/dev/shm                                tmpfs       "
          "            tmpfs    rw,relatime,size=24684096k",
          &shm);
    check("findmnt table with tree",
          "TARGET                                      SOURCE      "
          "            FSTYPE   OPTIONS\n"
          "\xe2\x94\x82 \xe2\x94\x9c\xe2\x94\x80/dev/shm            "
          "                    tmpfs                   tmpfs    "
          "rw,relatime,size=24684096k\n",
          &shm);
}

static void test_overlay(void)
{
    const char *canon = "lowerdir=/tmp/ov/l,redirect_dir=nofollow,relatime,rw,upperdir=/tmp/ov/u,"
                        "uuid=null,workdir=/tmp/ov/w";
    struct want v = {MOUNT_FORM_MOUNTINFO, "overlay", "/tmp/ov/m", "overlay", canon, NULL};
    check("overlay mountinfo",
          "65 43 0:39 / /tmp/ov/m rw,relatime - overlay overlay rw,"
          "lowerdir=/tmp/ov/l,upperdir=/tmp/ov/u,workdir=/tmp/ov/w,"
          "redirect_dir=nofollow,uuid=null",
          &v);
    v.form = MOUNT_FORM_TABLE;
    check("overlay proc/mounts",
          "overlay /tmp/ov/m overlay rw,relatime,lowerdir=/tmp/ov/l,"
          "upperdir=/tmp/ov/u,workdir=/tmp/ov/w,redirect_dir=nofollow,"
          "uuid=null 0 0",
          &v);
    v.form = MOUNT_FORM_MOUNT;
    check("overlay mount",
          "overlay on /tmp/ov/m type overlay (rw,relatime,lowerdir=/tmp/ov/l,"
          "upperdir=/tmp/ov/u,workdir=/tmp/ov/w,redirect_dir=nofollow,"
          "uuid=null)",
          &v);
    v.form = MOUNT_FORM_FINDMNT;
    check("overlay findmnt",
          "TARGET    SOURCE  FSTYPE  OPTIONS\n"
          "/tmp/ov/m overlay overlay rw,relatime,lowerdir=/tmp/ov/l,"
          "upperdir=/tmp/ov/u,workdir=/tmp/ov/w,redirect_dir=nofollow,"
          "uuid=null",
          &v);
}

/* A read-only bind mount of a read-write tmpfs: mountinfo says ro per mount, rw for the
 * superblock; /proc/mounts and mount(8) say ro. */
static void test_ro_bind(void)
{
    const char *canon = "relatime,ro,size=1024k";
    struct want v = {MOUNT_FORM_MOUNTINFO, "tmpfs", "/tmp/ov/ro", "tmpfs", canon, NULL};
    check("ro bind mountinfo", "64 43 0:39 / /tmp/ov/ro ro,relatime - tmpfs tmpfs rw,size=1024k",
          &v);
    v.form = MOUNT_FORM_TABLE;
    check("ro bind proc/mounts", "tmpfs /tmp/ov/ro tmpfs ro,relatime,size=1024k 0 0", &v);
    v.form = MOUNT_FORM_MOUNT;
    check("ro bind mount", "tmpfs on /tmp/ov/ro type tmpfs (ro,relatime,size=1024k)", &v);
    v.form = MOUNT_FORM_FINDMNT;
    v.source = v.fstype = NULL;
    check("ro bind findmnt VFS/FS-OPTIONS",
          "TARGET     VFS-OPTIONS FS-OPTIONS\n"
          "/tmp/ov/ro ro,relatime rw,size=1024k\n",
          &v);
}

#define NFS_OPTS(sec)                                                                              \
    "rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"        \
    "retrans=2,sec=" sec ",clientaddr=192.168.0.2,local_lock=none,addr=192.168.0.1"
#define NFS_SUPER(sec)                                                                             \
    "rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"                 \
    "retrans=2,sec=" sec ",clientaddr=192.168.0.2,local_lock=none,addr=192.168.0.1"
#define NFS_CANON(sec)                                                                             \
    "addr=192.168.0.1,clientaddr=192.168.0.2,hard,local_lock=none,namlen=255,proto=tcp,"           \
    "relatime,retrans=2,rsize=1048576,rw,sec=" sec ",timeo=600,vers=4.2,wsize=1048576"

static void test_nfs_flavors(void)
{
    static const char *const flavors[] = {"sys", "krb5", "krb5i", "krb5p"};
    char text[1024], what[64], target[32], canon[512];
    for (size_t i = 0; i < 4; i++) {
        const char *f = flavors[i];
        snprintf(target, sizeof(target), "/mnt/%s", f);
        snprintf(canon, sizeof(canon), NFS_CANON("%s"), f);
        struct want v = {
            MOUNT_FORM_TABLE, "fedora-kdc.example.com:/mnt/nfs", target, "nfs4", canon, f};
        /* the seed's own line: /proc/mounts columns aligned with blanks */
        snprintf(text, sizeof(text),
                 "fedora-kdc.example.com:/mnt/nfs  %-10s  nfs4  " NFS_OPTS("%s") "    0  0", target,
                 f);
        snprintf(what, sizeof(what), "nfs %s proc/mounts", f);
        check(what, text, &v);
        v.form = MOUNT_FORM_MOUNT;
        snprintf(text, sizeof(text),
                 "fedora-kdc.example.com:/mnt/nfs on %s type nfs4 (" NFS_OPTS("%s") ")", target, f);
        snprintf(what, sizeof(what), "nfs %s mount", f);
        check(what, text, &v);
        v.form = MOUNT_FORM_MOUNTINFO;
        snprintf(text, sizeof(text),
                 "412 29 0:52 / %s rw,relatime shared:221 - nfs4 "
                 "fedora-kdc.example.com:/mnt/nfs " NFS_SUPER("%s"),
                 target, f);
        snprintf(what, sizeof(what), "nfs %s mountinfo", f);
        check(what, text, &v);
        v.form = MOUNT_FORM_FINDMNT;
        snprintf(text, sizeof(text),
                 "TARGET     SOURCE                          FSTYPE OPTIONS\n"
                 "%-10s fedora-kdc.example.com:/mnt/nfs nfs4   " NFS_OPTS("%s"),
                 target, f);
        snprintf(what, sizeof(what), "nfs %s findmnt", f);
        check(what, text, &v);
        snprintf(text, sizeof(text), NFS_OPTS("%s"), f);
        snprintf(what, sizeof(what), "nfs %s bare options", f);
        check_opts(what, text, canon, f);
    }
}

static void test_nfs_aliases(void)
{
    /* one NFS v4.1 hard mount written six ways */
    const char *canon = "hard,nconnect=8,vers=4.1";
    struct want v = {MOUNT_FORM_TABLE, "srv:/x", "/mnt", "nfs", canon, "sys"};
    check("fstab", "# /etc/fstab\nsrv:/x /mnt nfs defaults,hard,nconnect=8,nfsvers=4.1 0 0\n", &v);
    check("fstab, tabs, no dump/pass", "srv:/x\t/mnt\tnfs\tv4.1,nconnect=8,soft,hard", &v);
    v.form = MOUNT_FORM_COMMAND;
    check("mount command", "sudo mount -t nfs -o hard,nfsvers=4.1 -o nconnect=8 srv:/x /mnt", &v);
    check("mount command, type guessed", "$ mount -o 'vers=4.1,hard,nconnect=8' srv:/x /mnt", &v);
    v.fstype = "nfs4";
    check("mount.nfs4 command", "mount.nfs4 srv:/x /mnt -o nconnect=8,hard,v4.1 -v", &v);
    v = (struct want){MOUNT_FORM_K8S, NULL, NULL, NULL, canon, NULL};
    check("k8s block", "mountOptions:\n  - hard\n  - nfsvers=4.1\n  - \"nconnect=8\"\n", &v);
    check("k8s flow", "mountOptions: [hard, nfsvers=4.1, 'nconnect=8']", &v);
    check("k8s bare flow", "[hard, nfsvers=4.1, nconnect=8]", &v);
    check("k8s bare block", "- hard\n- nfsvers=4.1\n- nconnect=8\n", &v);
    v.fstype = "nfs";
    v.source = "192.168.0.105:/nfs/NFS/ocp";
    v.sec = "sys";
    check("k8s storage class",
          "apiVersion: storage.k8s.io/v1\nkind: StorageClass\n"
          "metadata:\n  name: nfs-csi\nprovisioner: nfs.csi.k8s.io\n"
          "parameters:\n  server: 192.168.0.105\n  share: /nfs/NFS/ocp\n"
          "reclaimPolicy: Delete\nmountOptions:\n  # tuned\n  - hard\n"
          "  - nfsvers=4.1   # pNFS\n  - nconnect=8\n"
          "volumeBindingMode: Immediate\n",
          &v);
    check("k8s PV, list at key indent",
          "kind: PersistentVolume\nspec:\n  mountOptions:\n"
          "  - hard\n  - nfsvers=4.1\n  - nconnect=8\n  nfs:\n"
          "    server: 192.168.0.105\n"
          "    path: /nfs/NFS/ocp\n",
          &v);
    check_opts("bare", "hard,vers=4.1,nconnect=8", canon, NULL);
    check_opts("CRLF and BOM", "\xef\xbb\xbfhard,vers=4.1,nconnect=8\r\n", canon, NULL);
}

static void test_last_wins(void)
{
    check_opts("rw then ro", "rw,ro", "ro", NULL);
    check_opts("soft then hard", "soft,hard,timeo=600", "hard,timeo=600", NULL);
    check_opts("noac then ac", "noac,ac", "ac", NULL);
    check_opts("atime family", "relatime,noatime", "noatime", NULL);
    check_opts("repeated value", "rsize=4096,wsize=4096,rsize=8192", "rsize=8192,wsize=4096", NULL);
    check_opts("udp then proto=tcp", "udp,proto=tcp", "proto=tcp", NULL);
    check_opts("nfsvers then vers", "nfsvers=3,vers=4.2", "vers=4.2", NULL);
    check_opts("sync, async", "sync,async", "async", NULL);
    check_opts("empty items", ",,hard,,", "hard", NULL);
    check_opts("quoted comma", "context=\"system_u:object_r:nfs_t:s0:c1,c2\",ro",
               "context=\"system_u:object_r:nfs_t:s0:c1,c2\",ro", NULL);
    check_opts("only defaults", "defaults", "", NULL);
}

static void test_sec(void)
{
    check_opts("sec list keeps the first", "sec=krb5:krb5i,hard", "hard,sec=krb5:krb5i", "krb5");
    check_opts("sec=none is null", "sec=none", "sec=null", "null");
    check_opts("cifs sec= in bare options", "sec=ntlmssp,vers=3.0", "sec=ntlmssp,vers=3.0", NULL);
    const struct want cifs = {
        MOUNT_FORM_TABLE, "//srv/share", "/mnt/c", "cifs", "nfsvers=3,sec=krb5,vers=3.0", NULL};
    check("cifs: no nfs aliases, no flavor", "//srv/share /mnt/c cifs vers=3.0,sec=krb5,nfsvers=3",
          &cifs);
    const struct want nfs3 = {MOUNT_FORM_MOUNT,      "srv:/export", "/mnt", "nfs",
                              "proto=udp,rw,vers=3", "sys"};
    check("nfs v3 without sec", "srv:/export on /mnt type nfs (rw,vers=3,udp)", &nfs3);
}

#define CHECK_ERROR(what, lit, line, message) check_error(what, lit, sizeof(lit) - 1, line, message)

static void test_errors(void)
{
    CHECK_ERROR("empty", "", 0, "no mount found in the input");
    CHECK_ERROR("comments only", "# nothing\n\n   \n", 0, "no mount found in the input");
    CHECK_ERROR("NUL byte", "rw,\0hard", 1, "NUL byte '\\x00' in the input");
    CHECK_ERROR("control byte", "hard\n\x1b[31mrw\n", 2, "control byte '\\x1b' in the input");
    CHECK_ERROR("two mounts", "a /x tmpfs rw 0 0\n\nb /y tmpfs rw 0 0\n", 3,
                "more than one mount (lines 1 and 3)");
    CHECK_ERROR("two words", "hard soft", 1, "unrecognized mount description 'hard soft'");
    CHECK_ERROR("mount output without options", "srv:/x on /mnt type nfs4 rw", 1,
                "expected '(options)' at the end of 'srv:/x on /mnt type nfs4 rw'");
    CHECK_ERROR("mount output without type", "srv:/x on /mnt type (rw)", 1,
                "expected 'SOURCE on TARGET type FSTYPE (OPTIONS)', got 'srv:/x on /mnt type'");
    CHECK_ERROR("bad dump field", "srv:/x /mnt nfs rw x 0", 1,
                "expected a number for the dump field, got 'x'");
    CHECK_ERROR("mountinfo cut short", "36 35 0:31 / /mnt rw,relatime shared:1 - nfs4 srv:/x", 1,
                "expected '- FSTYPE SOURCE SUPER-OPTIONS' at the end of the mountinfo line, got "
                "2 fields after '-'");
    CHECK_ERROR("empty key", "rw,=x", 1, "empty option name in '=x'");
    CHECK_ERROR("unterminated quote", "context=\"abc,rw", 1,
                "unterminated quote in options 'context=\"abc,rw'");
    CHECK_ERROR("unknown flavor", "srv:/x /mnt nfs sec=krb6 0 0", 1,
                "unknown nfs security flavor 'krb6'");
    CHECK_ERROR("k8s empty entry", "mountOptions: [hard,,soft]", 1,
                "empty entry in the mountOptions list");
    CHECK_ERROR("k8s no items", "x: 1\nmountOptions:\ny: 2\n", 3,
                "expected '- option' entries in the mountOptions list");
    CHECK_ERROR("k8s unclosed", "mountOptions: [hard,\n  soft\n", 1,
                "expected ']' to close the mountOptions list");
    CHECK_ERROR("k8s two lists", "mountOptions: [a]\nmountOptions: [b]\n", 2,
                "more than one mountOptions list (lines 1 and 2)");
    CHECK_ERROR("findmnt header only", "TARGET SOURCE FSTYPE OPTIONS\n", 1,
                "findmnt output has a header but no mount");
    CHECK_ERROR("mount command without source", "mount -t nfs -o hard", 1,
                "the mount command names no SOURCE or TARGET");
    CHECK_ERROR("mount command -o at end", "mount srv:/x /mnt -o", 1,
                "option '-o' of the mount command needs a value");
    CHECK_ERROR("escaped NUL", "a\\000b /mnt tmpfs rw 0 0", 1, "escaped NUL byte in 'a\\000b'");
}

/* Every prefix of every real line, and scrambled bytes: must return without a crash, leak or
 * undefined behaviour (the unit tests run under ASan/UBSan) and leave a message on failure. */
static void test_robustness(void)
{
    static const char *const lines[] = {
        "63 43 0:39 / /tmp/ov/with\\040space rw,relatime - tmpfs tmpfs rw,size=2048k",
        "tmpfs on /tmp/ov/with space type tmpfs (rw,relatime,size=2048k,nr_inodes=100) [x]",
        "TARGET             SOURCE FSTYPE OPTIONS\n/tmp/ov/with space tmpfs  tmpfs  rw,a=\"b,c\"",
        "TARGET=\"/\" SOURCE=\"/dev/vda\" FSTYPE=\"ext4\" OPTIONS=\"rw,relatime\"",
        "kind: PV\nmountOptions:\n  - hard\n  - 'nfsvers=4.1'\nnfs:\n  server: s\n  path: /p",
        "mountOptions: [\"hard\", 'a''b', nfsvers=4.1]",
        "sudo mount -t nfs -o 'hard,sec=krb5p' srv:/x /mnt",
        "\xe2\x94\x82 \xe2\x94\x9c\xe2\x94\x80/dev/shm tmpfs tmpfs rw,relatime"};
    int failures_without_message = 0, runs = 0;
    struct buf err = BUF_INIT;
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        size_t n = strlen(lines[i]);
        for (size_t cut = 0; cut <= n; cut++) {
            struct mount_info m;
            buf_reset(&err);
            char *copy = malloc(cut + 1);
            memcpy(copy, lines[i], cut);
            copy[cut] = '\0';
            if (mount_parse_mem(copy, cut, &m, &err) && err.len == 0)
                failures_without_message++;
            runs++;
            mount_info_release(&m);
            free(copy);
        }
    }
    srand(12345);
    for (int k = 0; k < 3000; k++) {
        char text[96];
        size_t n = (size_t)(rand() % (int)sizeof(text));
        const char *base = lines[(size_t)rand() % ARRAY_SIZE(lines)];
        for (size_t j = 0; j < n; j++)
            text[j] = rand() % 3 ? base[(size_t)rand() % strlen(base)] : (char)(rand() % 256);
        struct mount_info m;
        buf_reset(&err);
        if (mount_parse_mem(text, n, &m, &err) && err.len == 0)
            failures_without_message++;
        runs++;
        mount_info_release(&m);
    }
    /* a huge line */
    size_t big = (size_t)7 << 17; /* "abcdef," 131072 times */
    char *huge = malloc(big + 1);
    for (size_t j = 0; j < big; j++)
        huge[j] = j % 7 == 6 ? ',' : 'a' + (char)(j % 7);
    huge[big] = '\0';
    struct mount_info m;
    buf_reset(&err);
    OK(mount_parse(huge, &m, &err) == 0, "0.9 MiB option string parses");
    STR_EQ(m.canonical, "abcdef", "0.9 MiB option string collapses to one option");
    mount_info_release(&m);
    free(huge);
    buf_release(&err);
    INT_EQ(failures_without_message, 0, "every failure has a message");
    OK(runs > 3000, "robustness runs");
}

static void test_accessors(void)
{
    struct mount_info m;
    struct buf err = BUF_INIT;
    OK(mount_parse("srv:/x /mnt nfs4 rw,nfsvers=4.2,hard 0 0", &m, &err) == 0, "parse");
    STR_EQ(mount_opt_get(&m, "vers"), "4.2", "vers after alias");
    STR_EQ(mount_opt_get(&m, "hard"), "", "flag present");
    STR_EQ(mount_opt_get(&m, "nfsvers"), NULL, "alias is gone");
    INT_EQ(m.n_opts, 3, "three options");
    STR_EQ(m.opts[0].key, "hard", "sorted: hard first");
    OK(m.opts[0].value == NULL, "flag has a NULL value");
    INT_EQ(m.line, 1, "line of the mount");
    mount_info_release(&m);
    OK(mount_parse("\n# x\n  hard\n", &m, &err) == 0 && m.line == 3, "line skips comments");
    mount_info_release(&m);
    buf_release(&err);
}

int main(void)
{
    test_tmpfs_with_space();
    test_ext4_root();
    test_overlay();
    test_ro_bind();
    test_nfs_flavors();
    test_nfs_aliases();
    test_last_wins();
    test_sec();
    test_errors();
    test_robustness();
    test_accessors();
    return TEST_DONE();
}
