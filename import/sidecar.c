/* sidecar.c: reading FILE.meta / benchdb.meta. */
#include "sidecar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/scan.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "internal.h"

#define TAG_PREFIX "tag."

static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

/* Opens path for reading when it is a regular file: 1 with *f set, 0 when it does not exist,
 * -1 after a message. O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever;
 * a FIFO or device is an error rather than skipped, because the labels it was meant to give
 * would otherwise be silently missing from the stored results. */
static int open_regular(const char *path, FILE **f, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        return diag_error(d, "cannot open '%s': %s", path, strerror(errno));
    if (fstat(fd, &st) || !(*f = fdopen(fd, "rb"))) {
        int err = errno;
        close(fd);
        return diag_error(d, "cannot open '%s': %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        fclose(*f);
        return diag_error_path(d, path, "sidecar is %s; it is read only from a regular file",
                               file_kind(st.st_mode));
    }
    return 1;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void forget_listing(struct sidecar_dir *sd)
{
    for (size_t i = 0; i < sd->n; i++)
        free(sd->names[i]);
    sd->n = 0;
    sd->listed = 0;
}

void sidecar_dir_release(struct sidecar_dir *sd)
{
    forget_listing(sd);
    free(sd->names);
    free(sd->dir);
    memset(sd, 0, sizeof(*sd));
}

/* Lists sd->dir's entries ending in ".meta" (listed -1 when it cannot be read). */
static void list_dir(struct sidecar_dir *sd)
{
    DIR *dir = opendir(sd->dir);
    sd->listed = dir ? 1 : -1;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".meta")) {
            ALLOC_GROW(sd->names, sd->n, sd->alloc);
            sd->names[sd->n++] = xstrdup(e->d_name);
        }
    }
    if (dir)
        closedir(dir);
    if (sd->n)
        qsort(sd->names, sd->n, sizeof(*sd->names), cmp_name);
}

/* Counts a file of directory dir (dir_len bytes of result_path), listing the directory once
 * enough of its files are looked for. */
static void see_dir(struct sidecar_dir *sd, const char *dir, size_t dir_len)
{
    if (!sd->dir || strlen(sd->dir) != dir_len || memcmp(sd->dir, dir, dir_len)) {
        forget_listing(sd);
        free(sd->dir);
        sd->dir = xstrndup(dir, dir_len);
        sd->seen = 0;
    }
    if (++sd->seen >= SIDECAR_LIST_AFTER && !sd->listed)
        list_dir(sd);
}

/* Whether the directory's entry name may exist: it is listed, or the directory is not. */
static int may_exist(const struct sidecar_dir *sd, const char *name)
{
    return !sd || sd->listed != 1 ||
           (sd->n && bsearch(&name, sd->names, sd->n, sizeof(*sd->names), cmp_name));
}

/* Opens FILE.meta, else DIR/benchdb.meta: 1 with *f set, 0 when neither exists, -1 after a
 * message. The names are built in a buffer and kept (in sc->mem) only when one is opened: most
 * files have no sidecar, and an arena block per file for two names cost an allocation. */
static int open_sidecar(const char *result_path, struct sidecar_dir *sd, struct sidecar *sc,
                        FILE **f, struct diag *d)
{
    const char *slash = strrchr(result_path, '/');
    const char *base = slash ? slash + 1 : result_path;
    if (sd)
        see_dir(sd, slash ? result_path : ".", slash ? (size_t)(slash - result_path) : 1);
    struct buf name = BUF_INIT;
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        buf_reset(&name);
        if (i == 0)
            buf_addf(&name, "%s.meta", result_path);
        else if (slash)
            buf_addf(&name, "%.*s/benchdb.meta", (int)(slash - result_path), result_path);
        else
            buf_adds(&name, "benchdb.meta");
        const char *entry =
            name.data + (i == 0 ? (size_t)(base - result_path) : name.len - strlen("benchdb.meta"));
        if (may_exist(sd, entry))
            rc = open_regular(name.data, f, d);
    }
    if (rc)
        sc->path = arena_strdup(&sc->mem, name.data);
    buf_release(&name);
    return rc;
}

int import_is_sidecar(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!strcmp(slash ? slash + 1 : path, "benchdb.meta"))
        return 1;
    size_t n = strlen(path);
    if (n <= 5 || !str_ends(path, ".meta"))
        return 0;
    char *described = xstrndup(path, n - 5);
    struct stat st;
    int found = stat(described, &st) == 0;
    free(described);
    return found;
}

static const char *trimmed(struct arena *a, const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return arena_strndup(a, s, (size_t)(end - s));
}

static const char **scalar_slot(struct sidecar *sc, const char *key)
{
    struct import_labels *l = &sc->labels;
    return !strcmp(key, "host")            ? &l->host
           : !strcmp(key, "storage_class") ? &l->storage_class
           : !strcmp(key, "mount")         ? &l->mount
           : !strcmp(key, "sec")           ? &l->sec
                                           : NULL;
}

static int tag_seen(const struct sidecar *sc, const char *name)
{
    for (size_t i = 0; i < sc->labels.n_tags; i++)
        if (!strcmp(sc->tags[i].key, name))
            return 1;
    return 0;
}

static int parse_line(struct sidecar *sc, const struct source *src, unsigned lineno,
                      const char *line, size_t len, struct diag *d)
{
    const char *eq = memchr(line, '=', len);
    if (!eq)
        return diag_error_line(d, src, lineno, "expected key=value, got '%.*s'", (int)len, line);
    const char *key = trimmed(&sc->mem, line, eq);
    const char *value = trimmed(&sc->mem, eq + 1, line + len);
    const char **slot = scalar_slot(sc, key);
    int is_tag = str_starts(key, TAG_PREFIX) && key[strlen(TAG_PREFIX)];
    if (!slot && !is_tag)
        return diag_error_line(d, src, lineno,
                               "unknown key '%s' (expected host, storage_class, mount, sec or "
                               "tag.NAME)",
                               key);
    if (!*value)
        return diag_error_line(d, src, lineno, "empty value for '%s'", key);
    if (slot ? *slot != NULL : tag_seen(sc, key + strlen(TAG_PREFIX)))
        return diag_error_line(d, src, lineno, "duplicate key '%s'", key);
    key = utf8_stored(&sc->mem, key, "key", NULL, src, lineno, d);
    value = utf8_stored(&sc->mem, value, "value of", key, src, lineno, d);
    if (slot) {
        *slot = value;
        return 0;
    }
    ALLOC_GROW(sc->tags, sc->labels.n_tags, sc->a_tags);
    sc->tags[sc->labels.n_tags++] = (struct kv){key + strlen(TAG_PREFIX), value};
    sc->labels.tags = sc->tags;
    return 0;
}

int sidecar_parse(const struct source *src, struct sidecar *sc, struct diag *d)
{
    struct line_iter it;
    const char *line;
    size_t len;
    size_t nul = strlen(src->data);
    if (nul < src->len)
        return diag_error_line(d, src, source_line(src, nul), "unexpected NUL byte");
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &line, &len)) {
        const char *p = skip_ws(line);
        size_t rest = len - (size_t)(p - line);
        if (rest == 0 || *p == '#')
            continue;
        if (parse_line(sc, src, it.lineno, p, rest, d))
            return -1;
    }
    return 0;
}

int sidecar_load(const char *result_path, struct sidecar_dir *sd, struct sidecar *sc,
                 struct diag *d)
{
    memset(sc, 0, sizeof(*sc));
    if (!strcmp(result_path, "-"))
        return 0;
    FILE *f = NULL;
    int found = open_sidecar(result_path, sd, sc, &f, d);
    if (found <= 0) {
        sc->path = NULL;
        return found;
    }
    struct buf text = BUF_INIT;
    int rc = read_upto(f, &text, SIDECAR_MAX + 1);
    int err = errno;
    fclose(f);
    if (rc == 0 && text.len > SIDECAR_MAX) {
        rc = diag_error_path(d, sc->path,
                             "sidecar over %d KiB, the most read (a sidecar holds a few key=value "
                             "lines); the file it labels is not imported",
                             SIDECAR_MAX >> 10);
    } else if (rc == 0) {
        struct source src = {sc->path, text.data, text.len};
        rc = sidecar_parse(&src, sc, d);
    } else {
        diag_error(d, "cannot read '%s': %s", sc->path, strerror(err));
    }
    buf_release(&text);
    return rc;
}

void sidecar_release(struct sidecar *sc)
{
    free(sc->tags);
    arena_release(&sc->mem);
    memset(sc, 0, sizeof(*sc));
}
