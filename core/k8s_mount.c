/* k8s_mount.c: the Kubernetes form of a mount (k8s_mount.h): a mountOptions list read from the
 * subset of YAML that StorageClass and PersistentVolume manifests use, and the hints around it. */
#include "k8s_mount.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mount_parse.h"
#include "xalloc.h"

struct reader {
    const struct k8s_line *lines;
    size_t n_lines;
    struct arena *mem;
    struct buf *err;
    struct k8s_mount *out;
    unsigned line; /* line being read, for messages */
};

static int fail(struct reader *r, const char *fmt, ...) BDB_PRINTF(2, 3);
static int fail(struct reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(r->err, fmt, ap);
    va_end(ap);
    r->out->line = r->line;
    return -1;
}

static size_t indent_of(const char *s)
{
    return (size_t)(skip_blanks(s) - s);
}

/* A YAML scalar (NULL when a quote is not closed): quotes removed ('' and \" unescaped), a
 * trailing # comment dropped. */
static char *yaml_scalar(struct reader *r, const char *s, size_t n)
{
    while (n && is_ws(*s))
        s++, n--;
    if (n && (*s == '\'' || *s == '"')) {
        char q = *s;
        struct buf b = BUF_INIT;
        size_t i = 1;
        for (; i < n; i++) {
            if (s[i] == q && q == '\'' && i + 1 < n && s[i + 1] == '\'')
                buf_addc(&b, s[i++]);
            else if (s[i] == '\\' && q == '"' && i + 1 < n)
                buf_addc(&b, s[++i]);
            else if (s[i] == q)
                break;
            else
                buf_addc(&b, s[i]);
        }
        char *v = i < n ? arena_strndup(r->mem, b.data, b.len) : NULL;
        buf_release(&b);
        return v; /* NULL: unterminated quote */
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '#' && (i == 0 || is_ws(s[i - 1])))
            n = i;
    while (n && is_ws(s[n - 1]))
        n--;
    return arena_strndup(r->mem, s, n);
}

static int k8s_item(struct reader *r, const char *s, size_t n)
{
    char *v = yaml_scalar(r, s, n);
    if (!v)
        return fail(r, "unterminated quote in '%s'", mount_quoted_in(r->mem, s, n));
    if (!*v)
        return fail(r, "empty entry in the mountOptions list");
    ALLOC_GROW(r->out->opts, r->out->n_opts, r->out->alloc_opts);
    r->out->opts[r->out->n_opts++] = v;
    return 0;
}

/* [a, b, "c"]: s starts at '['; the list may continue on the following lines. */
static int k8s_flow(struct reader *r, size_t *li, const char *s)
{
    struct buf all = BUF_INIT;
    buf_adds(&all, s + 1);
    while (!strchr(all.data, ']') && *li + 1 < r->n_lines) {
        ++*li;
        buf_addc(&all, ' ');
        buf_adds(&all, r->lines[*li].s);
    }
    char *list = arena_strndup(r->mem, all.data, all.len);
    buf_release(&all);
    char *close = NULL;
    int quote = 0;
    for (char *c = list; *c && !close; c++) {
        if (*c == '"' || *c == '\'')
            quote = quote == *c ? 0 : (quote ? quote : *c);
        else if (*c == ']' && !quote)
            close = c;
    }
    if (!close)
        return fail(r, "expected ']' to close the mountOptions list");
    *close = '\0';
    const char *rest = skip_blanks(close + 1);
    if (*rest && *rest != '#')
        return fail(r, "unexpected '%s' after the mountOptions list",
                    mount_quoted_in(r->mem, rest, strlen(rest)));
    if (!*skip_blanks(list))
        return 0; /* [] */
    const char *start = list;
    quote = 0;
    for (char *c = list;; c++) {
        if (*c == '"' || *c == '\'')
            quote = quote == *c ? 0 : (quote ? quote : *c);
        if (!*c || (*c == ',' && !quote)) {
            size_t n = (size_t)(c - start);
            if (skip_blanks(start) < c) {
                if (k8s_item(r, start, n))
                    return -1;
            } else if (*c) {
                /* YAML allows a trailing comma, not an empty entry */
                return fail(r, "empty entry in the mountOptions list");
            }
            if (!*c)
                return 0;
            start = c + 1;
        }
    }
}

/* "- item" lines from line *li on, at least `indent` deep. */
static int k8s_block(struct reader *r, size_t *li, size_t indent)
{
    size_t n = 0;
    for (; *li < r->n_lines; ++*li) {
        const char *s = r->lines[*li].s, *t = skip_blanks(s);
        r->line = r->lines[*li].no;
        if (*t == '#')
            continue;
        if (indent_of(s) < indent || t[0] != '-' || (t[1] && !is_ws(t[1])))
            break;
        if (k8s_item(r, t + 1, strlen(t + 1)))
            return -1;
        n++;
    }
    if (!n)
        return fail(r, "expected '- option' entries in the mountOptions list");
    return 0;
}

/* The value of a "key: value" line, or NULL. */
static char *yaml_value(struct reader *r, const char *line, const char *key)
{
    const char *t = skip_blanks(line);
    if (t[0] == '-' && is_ws(t[1]))
        t = skip_blanks(t + 1);
    size_t kn = strlen(key);
    if (strncmp(t, key, kn) || t[kn] != ':' || (t[kn + 1] && !is_ws(t[kn + 1])))
        return NULL;
    return yaml_scalar(r, t + kn + 1, strlen(t + kn + 1));
}

static void k8s_hints(struct reader *r)
{
    char *server = NULL, *path = NULL, *fstype = NULL;
    int nfs = 0;
    for (size_t i = 0; i < r->n_lines; i++) {
        const char *s = r->lines[i].s;
        char *v;
        /* a line that is no "key: value" or whose quote is not closed gives no hint */
        if ((v = yaml_value(r, s, "fsType")) && *v)
            fstype = v;
        else if ((v = yaml_value(r, s, "nfs")) && !*v)
            nfs = 1;
        else if (((v = yaml_value(r, s, "provisioner")) || (v = yaml_value(r, s, "driver"))) &&
                 strstr(v, "nfs"))
            nfs = 1;
        else if ((v = yaml_value(r, s, "server")) && *v)
            server = v;
        else if (((v = yaml_value(r, s, "path")) || (v = yaml_value(r, s, "share"))) && *v)
            path = v;
    }
    r->out->fstype = fstype ? fstype : nfs ? arena_strdup(r->mem, "nfs") : NULL;
    if (server && path)
        r->out->source = arena_printf(r->mem, "%s:%s", server, path);
}

static int is_key_line(const char *s, const char *key, const char **value)
{
    const char *t = skip_blanks(s);
    size_t kn = strlen(key);
    if (strncmp(t, key, kn) || t[kn] != ':')
        return 0;
    *value = skip_blanks(t + kn + 1);
    return 1;
}

/* 1 if the input is a Kubernetes list (then 0/-1 in *rc), else 0. */
static int read_list(struct reader *r, int *rc)
{
    size_t key = r->n_lines;
    const char *value = NULL;
    for (size_t i = 0; i < r->n_lines; i++) {
        const char *v;
        if (is_key_line(r->lines[i].s, "mountOptions", &v)) {
            r->line = r->lines[i].no;
            if (key != r->n_lines) {
                *rc = fail(r, "more than one mountOptions list (lines %u and %u)", r->lines[key].no,
                           r->lines[i].no);
                return 1;
            }
            key = i;
            value = v;
        }
    }
    if (key < r->n_lines) {
        size_t li = key;
        if (*value == '[') {
            *rc = k8s_flow(r, &li, value);
        } else if (!*value || *value == '#') {
            li++;
            *rc = k8s_block(r, &li, indent_of(r->lines[key].s));
        } else {
            *rc = fail(r, "expected a list after 'mountOptions:', got '%s'",
                       mount_quoted_in(r->mem, value, strlen(value)));
        }
        if (!*rc) {
            k8s_hints(r);
            r->out->line = r->lines[key].no;
        }
        return 1;
    }
    const char *first = skip_blanks(r->lines[0].s);
    r->line = r->lines[0].no;
    if (first[0] == '[') {
        size_t li = 0;
        *rc = k8s_flow(r, &li, first);
        if (!*rc && li + 1 < r->n_lines) {
            r->line = r->lines[li + 1].no;
            *rc = fail(r, "unexpected '%s' after the mountOptions list",
                       mount_quoted_in(r->mem, r->lines[li + 1].s, strlen(r->lines[li + 1].s)));
        }
        return 1;
    }
    if (first[0] == '-' && (!first[1] || is_ws(first[1]))) {
        size_t li = 0;
        *rc = k8s_block(r, &li, 0);
        if (!*rc && li < r->n_lines) {
            r->line = r->lines[li].no;
            *rc = fail(r, "unexpected '%s' after the mountOptions list",
                       mount_quoted_in(r->mem, r->lines[li].s, strlen(r->lines[li].s)));
        }
        return 1;
    }
    return 0;
}

int k8s_mount_read(const struct k8s_line *lines, size_t n, struct arena *mem, struct k8s_mount *out,
                   struct buf *err)
{
    struct reader r = {lines, n, mem, err, out, 0};
    int rc = 0;
    memset(out, 0, sizeof(*out));
    if (!read_list(&r, &rc))
        return 0;
    out->read_to = r.line;
    return rc ? -1 : 1;
}

void k8s_mount_release(struct k8s_mount *k)
{
    free(k->opts);
    memset(k, 0, sizeof(*k));
}
