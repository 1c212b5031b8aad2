/* context.c: what `benchdb run` records that the output does not tell: host, kernel, OS,
 * tool version, command line and the mount holding the files the benchmark touches. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../core/mount.h"
#include "../core/scan.h"
#include "import.h"

/* PRETTY_NAME of /etc/os-release, unquoted; NULL when absent. */
static const char *os_release(struct arena *a)
{
    FILE *f = fopen("/etc/os-release", "rb");
    struct buf text = BUF_INIT;
    const char *name = NULL, *line;
    size_t len;
    struct line_iter it;
    if (!f)
        return NULL;
    int bad = buf_read_file(&text, f);
    fclose(f);
    line_iter_init(&it, text.data, bad ? 0 : text.len, 0);
    while (!name && line_iter_next(&it, &line, &len)) {
        const char *p = line;
        if (!scan_lit(&p, "PRETTY_NAME="))
            continue;
        size_t n = len - (size_t)(p - line);
        int quoted = n >= 2 && (*p == '"' || *p == '\'') && p[n - 1] == *p;
        name = arena_strndup(a, p + quoted, n - 2 * (size_t)quoted);
    }
    buf_release(&text);
    return name;
}

/* The first line `TOOL --version` prints. */
static const char *tool_version(struct arena *a, const char *tool)
{
    char *argv[] = {arena_strdup(a, tool), arena_strdup(a, "--version"), NULL};
    struct buf out = BUF_INIT, err = BUF_INIT;
    const char *v = NULL;
    if (import_execute(argv, &out, &err) == 0) {
        struct buf *b = out.len ? &out : &err;
        v = arena_strndup(a, b->data, strcspn(b->data, "\r\n"));
    }
    buf_release(&out);
    buf_release(&err);
    return v && *v ? v : NULL;
}

/* The mountinfo line of the mount that holds path (longest mount point that is a prefix of
 * its real path, or of its nearest existing parent), and that mount point. */
static const char *find_mount(struct arena *a, const char *path, const char **target)
{
    char *p = arena_strdup(a, path), real[PATH_MAX];
    while (!realpath(p, real)) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            if (!realpath(slash ? "/" : ".", real))
                return NULL;
            break;
        }
        *slash = '\0';
    }
    FILE *f = fopen("/proc/self/mountinfo", "rb");
    struct buf text = BUF_INIT;
    const char *best = NULL, *line;
    size_t best_len = 0, len;
    if (!f)
        return NULL;
    int bad = buf_read_file(&text, f);
    fclose(f);
    struct line_iter it;
    line_iter_init(&it, text.data, bad ? 0 : text.len, 0);
    while (line_iter_next(&it, &line, &len)) {
        struct mount_info m;
        struct buf err = BUF_INIT;
        if (mount_parse_mem(line, len, &m, &err) == 0 && m.target) {
            size_t n = strlen(m.target);
            int under = !strncmp(real, m.target, n) &&
                        (real[n] == '/' || real[n] == '\0' || !strcmp(m.target, "/"));
            if (under && (!best || n >= best_len)) {
                best = arena_strndup(a, line, len);
                *target = arena_strdup(a, m.target);
                best_len = n;
            }
        }
        mount_info_release(&m);
        buf_release(&err);
    }
    buf_release(&text);
    return best;
}

/* The mount of the first path found; a warning for each other path on another mount. */
static void capture_mount(struct run_context *c, char *const *paths, size_t n_paths,
                          struct arena *a, struct diag *d)
{
    for (size_t i = 0; i < n_paths; i++) {
        const char *target = NULL, *line = find_mount(a, paths[i], &target);
        if (!line)
            continue;
        if (!c->mountpoint) {
            c->mountpoint = target;
            c->mount = line;
        } else if (strcmp(target, c->mountpoint)) {
            diag_warn(d, "'%s' is on %s, not on %s: the mount of %s is recorded", paths[i], target,
                      c->mountpoint, c->mountpoint);
        }
    }
}

void run_context_capture(struct run_context *c, char *const *argv, char *const *paths,
                         size_t n_paths, struct arena *a, struct diag *d)
{
    struct utsname u;
    struct buf cmd = BUF_INIT;
    *c = (struct run_context){0};
    if (uname(&u) == 0) {
        c->host = arena_strdup(a, u.nodename);
        c->kernel = arena_strdup(a, u.release);
    }
    c->os = os_release(a);
    c->tool_version = tool_version(a, argv[0]);
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            buf_addc(&cmd, ' ');
        buf_add_shell_word(&cmd, argv[i]);
    }
    c->cmdline = arena_strdup(a, cmd.data);
    buf_release(&cmd);
    capture_mount(c, paths, n_paths, a, d);
}

void run_context_labels(const struct run_context *c, struct kv tags[RUN_CONTEXT_TAGS],
                        struct import_labels *out)
{
    const struct kv recorded[RUN_CONTEXT_TAGS] = {
        {"kernel", c->kernel},
        {"os", c->os},
        {"tool_version", c->tool_version},
        {"cmdline", c->cmdline},
        {"mountpoint", c->mountpoint},
    };
    *out = (struct import_labels){.host = c->host, .mount = c->mount, .tags = tags};
    for (size_t i = 0; i < RUN_CONTEXT_TAGS; i++)
        if (recorded[i].value)
            tags[out->n_tags++] = recorded[i];
}
