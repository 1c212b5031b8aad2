/* notes_ctx.c: the context a note gives a result: the headings and labels above it, the
 * host from shell prompts and uname -a, the mount from mount commands, mount output and
 * fstab lines (or df output for the export), the storage class from a "Storage Class:"
 * line, and the workload from fio command lines and job files shown in the text. */
#include "notes.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "../core/array.h"
#include "../core/mount.h"
#include "../core/scan.h"

static const char *const fstypes[] = {"nfs",  "nfs4",  "xfs",  "ext4",  "ext3",       "zfs",
                                      "cifs", "tmpfs", "ceph", "btrfs", "fuse.sshfs", NULL};

static const char *text_of(const struct nline *l)
{
    const char *s = l->cmd ? l->cmd : l->t;
    return str_starts(s, "sudo ") ? skip_ws(s + 5) : s;
}

static size_t field(const char **p)
{
    *p = skip_ws(*p);
    size_t n = strcspn(*p, " \t");
    return n;
}

char *notes_trim(struct arena *a, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return arena_strndup(a, s, n);
}

int notes_is_mount_line(const char *s)
{
    s = skip_ws(s);
    if (str_starts(s, "sudo "))
        s = skip_ws(s + 5);
    if (str_starts(s, "mount ") || str_starts(s, "mount.nfs"))
        return 1;
    if (strstr(s, " on ") && strstr(s, " type ") && strchr(s, '('))
        return 1;
    const char *p = s;
    size_t n[4];
    const char *f[4];
    for (int i = 0; i < 4; i++) {
        n[i] = field(&p);
        f[i] = p;
        if (!n[i])
            return 0;
        p += n[i];
    }
    for (size_t i = 0; fstypes[i]; i++)
        if (strlen(fstypes[i]) == n[2] && !strncmp(f[2], fstypes[i], n[2]))
            return memchr(f[3], ',', n[3]) || memchr(f[3], '=', n[3]) || n[3] == 2;
    return 0;
}

/* ---- fio command lines and job files ---- */

static struct fio_job *new_job(struct notes *nt, size_t at, const char *name)
{
    if (nt->n_jobs == nt->a_jobs) {
        nt->a_jobs = nt->a_jobs ? 2 * nt->a_jobs : 16;
        struct fio_job *j = arena_alloc(nt->a, nt->a_jobs * sizeof(*j));
        if (nt->n_jobs)
            memcpy(j, nt->jobs, nt->n_jobs * sizeof(*j));
        nt->jobs = j;
    }
    struct fio_job *j = &nt->jobs[nt->n_jobs++];
    memset(j, 0, sizeof(*j));
    j->at = at;
    j->name = name;
    workload_init(&j->wl);
    return j;
}

static void int_opt(const char *v, int64_t *out)
{
    int64_t x;
    const char *p = v;
    if (scan_int64(&p, &x) && !*p)
        *out = x;
}

static void bool_opt(const char *v, int *out)
{
    *out = strcmp(v, "0") && strcmp(v, "none") ? 1 : 0;
}

/* One fio option (key=value) into a job. */
static void job_opt(struct arena *a, struct fio_job *j, const char *k, const char *v)
{
    int64_t bytes;
    if (!strcmp(k, "name"))
        j->name = arena_strdup(a, v);
    else if (!strcmp(k, "rw") || !strcmp(k, "readwrite"))
        j->wl.rw = arena_strndup(a, v, strcspn(v, ":"));
    else if ((!strcmp(k, "bs") || !strcmp(k, "blocksize")) && parse_fio_size(v, &bytes))
        j->wl.bs_bytes = bytes;
    else if ((!strcmp(k, "size") || !strcmp(k, "filesize")) && parse_fio_size(v, &bytes))
        j->wl.size_bytes = bytes;
    else if (!strcmp(k, "iodepth"))
        int_opt(v, &j->wl.iodepth);
    else if (!strcmp(k, "numjobs"))
        int_opt(v, &j->wl.numjobs);
    else if (!strcmp(k, "runtime"))
        int_opt(v, &j->wl.runtime_s);
    else if (!strcmp(k, "rwmixread"))
        int_opt(v, &j->wl.rwmixread);
    else if (!strcmp(k, "direct"))
        bool_opt(v, &j->wl.direct);
    else if (!strcmp(k, "buffered")) { /* buffered=0 is direct=1 */
        bool_opt(v, &j->wl.direct);
        j->wl.direct = !j->wl.direct;
    } else if (!strcmp(k, "sync"))
        bool_opt(v, &j->wl.sync);
    else if (!strcmp(k, "ioengine"))
        j->wl.ioengine = arena_strdup(a, v);
    else if (!strcmp(k, "filename") || !strcmp(k, "directory") || !strcmp(k, "filename_format"))
        j->path = arena_strdup(a, v);
}

static void job_kv(struct arena *a, struct fio_job *j, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    const char *k = notes_trim(a, s, eq ? (size_t)(eq - s) : n);
    const char *v = eq ? notes_trim(a, eq + 1, n - (size_t)(eq - s) - 1) : "1";
    job_opt(a, j, k, v);
}

/* fio --name=x --rw=randrw ... with backslash continuations. */
static size_t command_job(struct notes *nt, size_t i)
{
    struct fio_job *j = new_job(nt, i, NULL);
    for (;; i++) {
        const char *s = i == j->at ? text_of(&nt->l[i]) + 4 : nt->l[i].t;
        while (*(s = skip_ws(s))) {
            size_t n = strcspn(s, " \t");
            if (str_starts(s, "--") && n > 2 && s[2] != '\\')
                job_kv(nt->a, j, s + 2, n - 2);
            s += n;
        }
        size_t len = strlen(nt->l[i].t);
        if (i + 1 >= nt->n || !len || nt->l[i].t[len - 1] != '\\')
            return i;
    }
}

static int section_name(const char *t, const char **name, size_t *n)
{
    size_t len = strlen(t);
    if (t[0] != '[' || len < 3 || t[len - 1] != ']' || strpbrk(t, " \t@"))
        return 0;
    *name = t + 1;
    *n = len - 2;
    return 1;
}

/* [global] and [job] sections with key=value lines; a job inherits [global]. */
static size_t job_file(struct notes *nt, size_t i)
{
    struct fio_job global, *cur = &global;
    memset(&global, 0, sizeof(global));
    workload_init(&global.wl);
    for (; i < nt->n; i++) {
        const char *t = nt->l[i].t, *name;
        size_t n;
        if (section_name(t, &name, &n)) {
            if (n == 6 && str_starts(name, "global")) {
                cur = &global;
                continue;
            }
            struct fio_job saved = global;
            cur = new_job(nt, i, arena_strndup(nt->a, name, n));
            cur->wl = saved.wl;
            cur->path = saved.path;
        } else if (*t && *t != '#' && *t != ';' && !isspace((unsigned char)*t) && !strchr(t, ' ')) {
            job_kv(nt->a, cur, t, strlen(t));
            if (cur->path && cur->name && strstr(cur->path, "$jobname")) {
                const char *at = strstr(cur->path, "$jobname");
                cur->path = arena_printf(nt->a, "%.*s%s%s", (int)(at - cur->path), cur->path,
                                         cur->name, at + 8);
            }
        } else if (*skip_ws(t)) {
            return i - 1;
        }
    }
    return i - 1;
}

void notes_scan_jobs(struct notes *nt)
{
    for (size_t i = 0; i < nt->n; i++) {
        const char *s = text_of(&nt->l[i]), *name;
        size_t n;
        if (str_starts(s, "fio ") && strstr(s, "--"))
            i = command_job(nt, i);
        else if (nt->l[i].kind != NK_PROMPT && section_name(nt->l[i].t, &name, &n))
            i = job_file(nt, i);
    }
    /* jobs inherit [global] when it comes after their section was opened: fix paths */
    for (size_t k = 0; k < nt->n_jobs; k++) {
        struct fio_job *j = &nt->jobs[k];
        const char *at = j->path && j->name ? strstr(j->path, "$jobname") : NULL;
        if (at)
            j->path =
                arena_printf(nt->a, "%.*s%s%s", (int)(at - j->path), j->path, j->name, at + 8);
    }
}

static char rw_family(const char *rw)
{
    if (!rw)
        return 0;
    if (strstr(rw, "rw") || strstr(rw, "readwrite") || strstr(rw, "trimwrite"))
        return 'm';
    if (strstr(rw, "read"))
        return 'r';
    if (strstr(rw, "write"))
        return 'w';
    return 0;
}

static const struct fio_job *choose_job(const struct notes *nt, size_t first,
                                        const struct bench_record *r, char family, const char *hint)
{
    const struct fio_job *best = NULL;
    for (size_t k = 0; k < nt->n_jobs; k++)
        if (r->job && nt->jobs[k].name && !strcmp(nt->jobs[k].name, r->job))
            best = &nt->jobs[k];
    if (best || r->job)
        return best;
    for (size_t k = 0; k < nt->n_jobs && nt->jobs[k].at < first; k++) {
        const struct fio_job *j = &nt->jobs[k];
        if (family && rw_family(j->wl.rw) != family)
            continue;
        if (!hint || str_contains_ci(j->name, hint) || str_contains_ci(j->path, hint) || !best)
            best = j;
    }
    return best;
}

static void fill_workload(struct workload *w, const struct workload *from)
{
    if (!w->rw)
        w->rw = from->rw;
    if (!w->ioengine)
        w->ioengine = from->ioengine;
    int64_t *dst[] = {&w->bs_bytes,   &w->iodepth,   &w->numjobs,
                      &w->size_bytes, &w->rwmixread, &w->runtime_s};
    const int64_t src[] = {from->bs_bytes,   from->iodepth,   from->numjobs,
                           from->size_bytes, from->rwmixread, from->runtime_s};
    for (size_t i = 0; i < ARRAY_SIZE(src); i++)
        if (*dst[i] == WL_UNKNOWN)
            *dst[i] = src[i];
    int *bdst[] = {&w->direct, &w->sync, &w->fsync, &w->fdatasync};
    const int bsrc[] = {from->direct, from->sync, from->fsync, from->fdatasync};
    for (size_t i = 0; i < ARRAY_SIZE(bsrc); i++)
        if (*bdst[i] == WL_UNKNOWN)
            *bdst[i] = bsrc[i];
}

/* What fio does with what a job shown whole (a command line, a job file) leaves out (fio
 * HOWTO): ioengine psync ("default on all supported operating systems except for Windows"),
 * buffered I/O (direct=0), iodepth 1, numjobs 1. The result's own output (a header line's
 * ioengine=) wins. Tag fio_defaults lists what was assumed, not stated ("ioengine=psync,
 * direct=0"): a psync job's iodepth=16 is still the one typed, and the query layer knows that
 * a synchronous engine has one I/O in flight per job whatever it says. */
static void fio_defaults(struct notes *nt, struct bench_record *r)
{
    struct buf b = BUF_INIT;
    if (!r->wl.ioengine) {
        r->wl.ioengine = "psync";
        buf_adds(&b, ",ioengine=psync");
    }
    int64_t *ints[] = {&r->wl.iodepth, &r->wl.numjobs};
    static const char *const names[] = {"iodepth", "numjobs"};
    for (size_t i = 0; i < 2; i++)
        if (*ints[i] == WL_UNKNOWN) {
            *ints[i] = 1;
            buf_addf(&b, ",%s=1", names[i]);
        }
    if (r->wl.direct == WL_UNKNOWN) {
        r->wl.direct = 0;
        buf_adds(&b, ",direct=0");
    }
    if (b.len)
        record_tag(nt->a, r, "fio_defaults", b.data + 1);
    buf_release(&b);
}

/* ---- sections ---- */

static int is_boundary(const struct nline *l)
{
    return l->kind == NK_HEADING || l->kind == NK_LABEL;
}

static size_t section_begin(const struct notes *nt, size_t i)
{
    while (i > 0 && !is_boundary(&nt->l[i]))
        i--;
    return i;
}

static size_t section_end(const struct notes *nt, size_t i)
{
    while (++i < nt->n && !is_boundary(&nt->l[i]))
        ;
    return i;
}

static const char *heading_text(struct notes *nt, const struct nline *l)
{
    const char *t = l->kind == NK_HEADING ? l->t + l->level + 1 : l->t;
    size_t n = strlen(t);
    while (n && (t[n - 1] == ':' || t[n - 1] == '#' || isspace((unsigned char)t[n - 1])))
        n--;
    return notes_trim(nt->a, t, n);
}

const char *notes_heading_chain(struct notes *nt, size_t i)
{
    struct buf b = BUF_INIT;
    int level = 7;
    const char *label = NULL;
    for (size_t k = i + 1; k-- > 0;) {
        const struct nline *l = &nt->l[k];
        if (l->kind == NK_LABEL && level == 7 && !label)
            label = heading_text(nt, l);
        if (l->kind != NK_HEADING || l->level >= level)
            continue;
        const char *h = heading_text(nt, l);
        struct buf t = BUF_INIT;
        buf_addf(&t, "%s%s%s", h, b.len ? " / " : "", b.data);
        buf_release(&b);
        b = t;
        level = l->level;
    }
    if (label)
        buf_addf(&b, "%s%s", b.len ? " / " : "", label);
    const char *s = arena_strdup(nt->a, b.data);
    buf_release(&b);
    return s;
}

/* ---- context ---- */

static void add_headings(struct notes *nt, size_t first, struct bench_record *r)
{
    for (size_t k = first + 1; k-- > 0;) {
        if (nt->l[k].kind == NK_HEADING) {
            record_tag(nt->a, r, "heading", heading_text(nt, &nt->l[k]));
            return;
        }
        if (nt->l[k].kind == NK_LABEL)
            record_tag(nt->a, r, "label", heading_text(nt, &nt->l[k]));
        if (nt->l[k].kind == NK_LABEL)
            return;
    }
}

/* "RHEL 7", "Rocky Linux 9", "Ubuntu 22.04", "RHEL 4u7", "Solaris 10" in text[0..len) -> "RHEL 7",
 * "Rocky 9", "Ubuntu 22.04", "RHEL 4.7", "Solaris 10"; NULL when it names no release. Ubuntu's are
 * YY.MM; the others' a major version (minor kept: RHEL's "4u7" is 4 update 7). */
static const char *os_release(struct arena *a, const char *text, size_t len)
{
    static const char *const names[] = {"RHEL",   "CentOS", "Rocky", "Ubuntu",
                                        "Debian", "Fedora", "SLES",  "Solaris"};
    for (const char *p = text; p < text + len && *p; p++) {
        if (p > text && isalnum((unsigned char)p[-1]))
            continue;
        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
            size_t k = strlen(names[i]);
            if (strncasecmp(p, names[i], k) || isalpha((unsigned char)p[k]))
                continue;
            const char *v = skip_ws(p + k);
            if (!strncasecmp(v, "Linux ", 6))
                v = skip_ws(v + 6);
            size_t n = 0;
            while (isdigit((unsigned char)v[n]) ||
                   (v[n] == '.' && isdigit((unsigned char)v[n + 1])))
                n++;
            int ubuntu = !strcmp(names[i], "Ubuntu");
            size_t u = 0; /* "4u7": the update's digits after the 'u' */
            if (n && !memchr(v, '.', n) && v[n] == 'u')
                while (isdigit((unsigned char)v[n + 1 + u]))
                    u++;
            if (u && !isalpha((unsigned char)v[n + 1 + u]))
                return arena_printf(a, "%s %.*s.%.*s", names[i], (int)n, v, (int)u, v + n + 1);
            if (!n || isalpha((unsigned char)v[n]) || (ubuntu && !memchr(v, '.', n)))
                continue;
            return arena_printf(a, "%s %.*s", names[i], (int)n, v);
        }
    }
    return NULL;
}

/* "... over NFS from RHEL 4u7 to Fedora 8 Host": the client's OS (from) and the server's (to);
 * 0 when text names no such pair. */
static int client_server_os(struct arena *a, const char *text, const char **client,
                            const char **server)
{
    const char *from = strstr(text, " from "), *to = from ? strstr(from + 6, " to ") : NULL;
    if (!to)
        return 0;
    *client = os_release(a, from + 6, (size_t)(to - from - 6));
    *server = os_release(a, to + 4, strlen(to + 4));
    return *client || *server;
}

/* Tag os (e.g. "RHEL 7") when the result's label or heading names an OS release; when it names
 * a client and a server ("from RHEL 4u7 to Fedora 8 Host"), os is the client's (the machine
 * that ran the benchmark) and server_os the server's. */
static void notes_os_tag(struct notes *nt, struct bench_record *r)
{
    static const char *const keys[] = {"label", "heading"};
    for (size_t i = 0; i < 2 && !record_tag_get(r, "os") && !record_tag_get(r, "server_os"); i++) {
        const char *text = record_tag_get(r, keys[i]), *client, *server;
        if (text && client_server_os(nt->a, text, &client, &server)) {
            if (client)
                record_tag(nt->a, r, "os", client);
            if (server)
                record_tag(nt->a, r, "server_os", server);
            continue;
        }
        const char *os = text ? os_release(nt->a, text, strlen(text)) : NULL;
        if (os)
            record_tag(nt->a, r, "os", os);
    }
}

/* The second word of uname -a output ("Linux graybox 2.6.24 ..."). */
static const char *uname_host(struct notes *nt, size_t sb, size_t se)
{
    for (size_t k = sb; k + 1 < se; k++) {
        if (!str_starts(text_of(&nt->l[k]), "uname") || !nt->l[k].cmd)
            continue;
        const char *p = nt->l[k + 1].t;
        size_t n = field(&p);
        p += n;
        n = field(&p);
        if (n)
            return arena_strndup(nt->a, p, n);
    }
    return NULL;
}

static const char *find_host(struct notes *nt, size_t first, size_t sb, size_t se)
{
    for (size_t k = first + 1; k-- > sb;)
        if (nt->l[k].host)
            return nt->l[k].host;
    for (size_t k = first; k < se; k++)
        if (nt->l[k].host)
            return nt->l[k].host;
    return uname_host(nt, sb, se);
}

static void export_tag(struct notes *nt, struct bench_record *r, const char *source)
{
    const char *c = source ? strstr(source, ":/") : NULL;
    if (c && c > source && !strchr(source, ' '))
        record_tag(nt->a, r, "nfs_export", source);
}

static int use_mount(struct notes *nt, struct bench_record *r, size_t k)
{
    struct mount_info mi;
    struct buf err = BUF_INIT;
    const char *line = text_of(&nt->l[k]);
    int ok = mount_parse(line, &mi, &err) == 0;
    if (ok) {
        r->mount = arena_strdup(nt->a, skip_ws(line));
        if (!r->sec && mi.sec)
            r->sec = arena_strdup(nt->a, mi.sec);
        export_tag(nt, r, mi.source);
    }
    mount_info_release(&mi);
    buf_release(&err);
    return ok;
}

static const char *mount_target(struct notes *nt, size_t k)
{
    struct mount_info mi;
    struct buf err = BUF_INIT;
    const char *t = NULL;
    if (mount_parse(text_of(&nt->l[k]), &mi, &err) == 0 && mi.target)
        t = arena_strdup(nt->a, mi.target);
    mount_info_release(&mi);
    buf_release(&err);
    return t;
}

/* The mount a fio job wrote to: its file under a mount's target, or a target named after it. */
static int job_mount(struct notes *nt, struct bench_record *r, const struct fio_job *j)
{
    for (size_t k = 0; k < nt->n; k++) {
        if (!notes_is_mount_line(text_of(&nt->l[k])))
            continue;
        const char *t = mount_target(nt, k), *base = t ? strrchr(t, '/') : NULL;
        size_t tn = t ? strlen(t) : 0;
        int hit = (j && j->path && tn > 1 && !strncmp(j->path, t, tn) && j->path[tn] == '/') ||
                  (base && r->job && !strcmp(base + 1, r->job));
        if (hit && use_mount(nt, r, k))
            return 1;
    }
    return 0;
}

static void section_mount(struct notes *nt, struct bench_record *r, size_t first, size_t sb,
                          size_t se)
{
    for (size_t k = first + 1; k-- > sb;)
        if (notes_is_mount_line(text_of(&nt->l[k])) && use_mount(nt, r, k))
            return;
    /* df: the Filesystem column of the row under the header */
    for (size_t k = sb; k + 1 < se; k++) {
        if (!str_starts(nt->l[k].t, "Filesystem "))
            continue;
        const char *p = nt->l[k + 1].t;
        size_t n = field(&p);
        export_tag(nt, r, arena_strndup(nt->a, p, n));
    }
}

static const char *storage_class(struct notes *nt, size_t first)
{
    for (size_t k = first + 1; k-- > 0;) {
        const char *s = strstr(nt->l[k].t, "Storage Class:");
        if (!s)
            s = strstr(nt->l[k].t, "storageClassName:");
        if (!s)
            continue;
        s = strchr(s, ':') + 1;
        while (*s == '*' || *s == ' ')
            s++;
        size_t n = strcspn(s, " \t*`");
        if (n)
            return arena_strndup(nt->a, s, n);
    }
    return NULL;
}

/* The export a "**NFS Server:** 192.168.0.105:/nfs/NFS/ocp" line above the result names, within
 * its part of the note (up to the level-1 heading above it: seed 000's NVMe part, under a
 * heading of its own, is not on that server). */
static const char *nfs_server(struct notes *nt, size_t first)
{
    for (size_t k = first + 1; k-- > 0;) {
        const char *s = strstr(nt->l[k].t, "NFS Server:");
        if (s) {
            s += 11;
            while (*s == '*' || *s == ' ')
                s++;
            size_t n = strcspn(s, " \t*`");
            return n ? arena_strndup(nt->a, s, n) : NULL;
        }
        if (nt->l[k].kind == NK_HEADING && nt->l[k].level == 1)
            return NULL;
    }
    return NULL;
}

void notes_context(struct notes *nt, size_t first, size_t last, struct bench_record *r, char family,
                   const char *hint)
{
    size_t sb = section_begin(nt, first), se = section_end(nt, last);
    if (!r->line_first) {
        r->line_first = nt->l[first].no;
        r->line_last = nt->l[last].no;
    }
    add_headings(nt, first, r);
    if (!r->host)
        r->host = find_host(nt, first, sb, se);
    if (!r->storage_class)
        r->storage_class = storage_class(nt, first);
    const struct fio_job *j = NULL;
    if (!strcmp(r->tool, "fio") || r->transcribed) {
        if (!family)
            family = r->wl.rw ? rw_family(r->wl.rw) : r->direction ? (char)r->direction[0] : 0;
        j = choose_job(nt, first, r, family, hint);
        if (j) {
            fill_workload(&r->wl, &j->wl);
            fio_defaults(nt, r);
            if (!r->job)
                r->job = hint ? hint : j->name;
            if (r->transcribed && !strcmp(r->tool, "unknown"))
                r->tool = "fio";
        }
    }
    if (!r->mount && !(r->job && job_mount(nt, r, j)))
        section_mount(nt, r, first, sb, se);
    if (!r->mount && !record_tag_get(r, "nfs_export"))
        export_tag(nt, r, nfs_server(nt, first));
}

/* ---- every result of a note leaves through here ---- */

int notes_emit(struct notes *nt, struct bench_record *r)
{
    notes_os_tag(nt, r);
    for (size_t i = 0; i < r->n_metrics; i++) {
        if (nt->n_vals == nt->a_vals) {
            nt->a_vals = nt->a_vals ? 2 * nt->a_vals : 64;
            struct emitted *v = arena_alloc(nt->a, nt->a_vals * sizeof(*v));
            if (nt->n_vals)
                memcpy(v, nt->vals, nt->n_vals * sizeof(*v));
            nt->vals = v;
        }
        nt->vals[nt->n_vals++] = (struct emitted){r->metrics[i].name, r->metrics[i].value};
    }
    return nt->out->emit(nt->out->ctx, r);
}
