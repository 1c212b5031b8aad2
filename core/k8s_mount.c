/* k8s_mount.c: the Kubernetes form of a mount (k8s_mount.h): a mountOptions list read from the
 * subset of YAML that StorageClass and PersistentVolume manifests use, and the hints around it. */
#include "k8s_mount.h"

static size_t indent_of(const char *s)
{
    return (size_t)(skip_blanks(s) - s);
}

/* A YAML scalar (NULL when a quote is not closed): quotes removed ('' and \" unescaped), a
 * trailing # comment dropped. */
static char *yaml_scalar(struct parser *p, const char *s, size_t n)
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
        char *r = i < n ? dup_n(p, b.data, b.len) : NULL;
        buf_release(&b);
        return r; /* NULL: unterminated quote */
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '#' && (i == 0 || is_ws(s[i - 1])))
            n = i;
    while (n && is_ws(s[n - 1]))
        n--;
    return dup_n(p, s, n);
}

static int k8s_item(struct parser *p, const char *s, size_t n)
{
    char *v = yaml_scalar(p, s, n);
    if (!v)
        return mount_fail(p, "unterminated quote in '%s'", mount_quoted(p, s, n));
    if (!*v)
        return mount_fail(p, "empty entry in the mountOptions list");
    mount_raw_add(p, v, ESC_NONE, 0);
    return 0;
}

/* [a, b, "c"]: s starts at '['; the list may continue on the following lines. */
static int k8s_flow(struct parser *p, size_t *li, const char *s)
{
    struct buf all = BUF_INIT;
    buf_adds(&all, s + 1);
    while (!strchr(all.data, ']') && *li + 1 < p->n_lines) {
        ++*li;
        buf_addc(&all, ' ');
        buf_adds(&all, p->lines[*li].s);
    }
    char *list = dup_n(p, all.data, all.len);
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
        return mount_fail(p, "expected ']' to close the mountOptions list");
    *close = '\0';
    const char *rest = skip_blanks(close + 1);
    if (*rest && *rest != '#')
        return mount_fail(p, "unexpected '%s' after the mountOptions list",
                          mount_quoted(p, rest, strlen(rest)));
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
                if (k8s_item(p, start, n))
                    return -1;
            } else if (*c) {
                /* YAML allows a trailing comma, not an empty entry */
                return mount_fail(p, "empty entry in the mountOptions list");
            }
            if (!*c)
                return 0;
            start = c + 1;
        }
    }
}

/* "- item" lines from line *li on, at least `indent` deep. */
static int k8s_block(struct parser *p, size_t *li, size_t indent)
{
    size_t n = 0;
    for (; *li < p->n_lines; ++*li) {
        const char *s = p->lines[*li].s, *t = skip_blanks(s);
        p->line = p->lines[*li].no;
        if (*t == '#')
            continue;
        if (indent_of(s) < indent || t[0] != '-' || (t[1] && !is_ws(t[1])))
            break;
        if (k8s_item(p, t + 1, strlen(t + 1)))
            return -1;
        n++;
    }
    if (!n)
        return mount_fail(p, "expected '- option' entries in the mountOptions list");
    return 0;
}

/* The value of a "key: value" line, or NULL. */
static char *yaml_value(struct parser *p, const char *line, const char *key)
{
    const char *t = skip_blanks(line);
    if (t[0] == '-' && is_ws(t[1]))
        t = skip_blanks(t + 1);
    size_t kn = strlen(key);
    if (strncmp(t, key, kn) || t[kn] != ':' || (t[kn + 1] && !is_ws(t[kn + 1])))
        return NULL;
    return yaml_scalar(p, t + kn + 1, strlen(t + kn + 1));
}

static void k8s_hints(struct parser *p)
{
    struct mount_info *m = p->m;
    char *server = NULL, *path = NULL, *fstype = NULL;
    int nfs = 0;
    for (size_t i = 0; i < p->n_lines; i++) {
        const char *s = p->lines[i].s;
        char *v;
        /* a line that is no "key: value" or whose quote is not closed gives no hint */
        if ((v = yaml_value(p, s, "fsType")) && *v)
            fstype = v;
        else if ((v = yaml_value(p, s, "nfs")) && !*v)
            nfs = 1;
        else if (((v = yaml_value(p, s, "provisioner")) || (v = yaml_value(p, s, "driver"))) &&
                 strstr(v, "nfs"))
            nfs = 1;
        else if ((v = yaml_value(p, s, "server")) && *v)
            server = v;
        else if (((v = yaml_value(p, s, "path")) || (v = yaml_value(p, s, "share"))) && *v)
            path = v;
    }
    m->fstype = fstype ? fstype : nfs ? dup_s(p, "nfs") : NULL;
    if (server && path)
        m->source = arena_printf(&m->mem, "%s:%s", server, path);
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
int k8s_mount_read(struct parser *p, int *rc)
{
    size_t key = p->n_lines;
    const char *value = NULL;
    for (size_t i = 0; i < p->n_lines; i++) {
        const char *v;
        if (is_key_line(p->lines[i].s, "mountOptions", &v)) {
            p->line = p->lines[i].no;
            if (key != p->n_lines) {
                *rc = mount_fail(p, "more than one mountOptions list (lines %u and %u)",
                                 p->lines[key].no, p->lines[i].no);
                return 1;
            }
            key = i;
            value = v;
        }
    }
    p->m->form = MOUNT_FORM_K8S;
    if (key < p->n_lines) {
        size_t li = key;
        if (*value == '[') {
            *rc = k8s_flow(p, &li, value);
        } else if (!*value || *value == '#') {
            li++;
            *rc = k8s_block(p, &li, indent_of(p->lines[key].s));
        } else {
            *rc = mount_fail(p, "expected a list after 'mountOptions:', got '%s'",
                             mount_quoted(p, value, strlen(value)));
        }
        if (!*rc) {
            k8s_hints(p);
            p->m->line = p->lines[key].no;
        }
        return 1;
    }
    const char *first = skip_blanks(p->lines[0].s);
    p->line = p->lines[0].no;
    if (first[0] == '[') {
        size_t li = 0;
        *rc = k8s_flow(p, &li, first);
        if (!*rc && li + 1 < p->n_lines) {
            p->line = p->lines[li + 1].no;
            *rc = mount_fail(p, "unexpected '%s' after the mountOptions list",
                             mount_quoted(p, p->lines[li + 1].s, strlen(p->lines[li + 1].s)));
        }
        return 1;
    }
    if (first[0] == '-' && (!first[1] || is_ws(first[1]))) {
        size_t li = 0;
        *rc = k8s_block(p, &li, 0);
        if (!*rc && li < p->n_lines) {
            p->line = p->lines[li].no;
            *rc = mount_fail(p, "unexpected '%s' after the mountOptions list",
                             mount_quoted(p, p->lines[li].s, strlen(p->lines[li].s)));
        }
        return 1;
    }
    return 0;
}
