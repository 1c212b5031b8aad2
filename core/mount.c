#include "mount.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

enum esc { ESC_NONE, ESC_OCTAL, ESC_HEX };

/* One option string still to split, in input order; super is 1 for mountinfo super options
 * and findmnt FS-OPTIONS (merged after the per-mount ones, see merge_ro). */
struct raw_opts {
    const char *s;
    enum esc esc;
    int super;
};

/* An option being collected: slot names the setting that later spellings override. */
struct opt {
    char *slot, *key, *value;
};

struct line {
    char *s;     /* without trailing whitespace; leading whitespace kept (YAML indentation) */
    unsigned no; /* 1-based */
};

struct parser {
    struct mount_info *m;
    struct buf *err;
    struct line *lines;
    size_t n_lines, alloc_lines;
    struct raw_opts *raw;
    size_t n_raw, alloc_raw;
    struct opt *opts;
    size_t n_opts, alloc_opts;
    unsigned line; /* line being parsed, for messages */
};

static const char *const nfs_flavors[] = {"none", "null",  "sys",   "krb5",  "krb5i",  "krb5p",
                                          "lkey", "lkeyi", "lkeyp", "spkm3", "spkm3i", "spkm3p"};

static int is_ws(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char *dup_n(struct parser *p, const char *s, size_t n)
{
    return arena_strndup(&p->m->mem, s, n);
}

static char *dup_s(struct parser *p, const char *s)
{
    return arena_strdup(&p->m->mem, s);
}

/* A token for an error message: at most 40 bytes, control and non-ASCII bytes as \xHH. */
static char *quoted(struct parser *p, const char *s, size_t n)
{
    struct buf b = BUF_INIT;
    for (size_t i = 0; i < n && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f)
            buf_addf(&b, "\\x%02x", c);
        else
            buf_addc(&b, (char)c);
    }
    if (n > 40)
        buf_adds(&b, "...");
    char *r = dup_n(p, b.data, b.len);
    buf_release(&b);
    return r;
}

static int fail(struct parser *p, const char *fmt, ...) BDB_PRINTF(2, 3);
static int fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(p->err, fmt, ap);
    va_end(ap);
    p->m->line = p->line;
    return -1;
}

static int streq_n(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_blanks(const char *s)
{
    while (is_ws(*s))
        s++;
    return s;
}

/* ---- fields ---- */

struct fields {
    char **v;
    size_t n, alloc;
};

static void fields_free(struct fields *f)
{
    free(f->v);
    f->v = NULL;
    f->n = f->alloc = 0;
}

/* Splits s at runs of blanks; the pieces are arena copies. */
static void split_blanks(struct parser *p, const char *s, struct fields *f)
{
    for (;;) {
        s = skip_blanks(s);
        if (!*s)
            return;
        const char *e = s;
        while (*e && !is_ws(*e))
            e++;
        ALLOC_GROW(f->v, f->n, f->alloc);
        f->v[f->n++] = dup_n(p, s, (size_t)(e - s));
        s = e;
    }
}

/* Decodes \ooo (octal, as the kernel and fstab write) or \xHH (findmnt -P) escapes in place.
 * A decoded NUL byte is an error. */
static int unescape(struct parser *p, char *s, enum esc esc)
{
    if (esc == ESC_NONE)
        return 0;
    char *w = s;
    for (const char *r = s; *r;) {
        int v = -1, used = 0;
        if (r[0] == '\\' && esc == ESC_OCTAL && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
            r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            v = (r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0');
            used = 4;
        } else if (r[0] == '\\' && esc == ESC_HEX && r[1] == 'x' && r[2] && r[3]) {
            const char *hex = "0123456789abcdef0123456789ABCDEF";
            const char *h1 = strchr(hex, r[2]), *h2 = strchr(hex, r[3]);
            if (h1 && h2) {
                v = (int)((h1 - hex) % 16) * 16 + (int)((h2 - hex) % 16);
                used = 4;
            }
        }
        if (v == 0)
            return fail(p, "escaped NUL byte in '%s'", quoted(p, s, strlen(s)));
        if (v > 0) {
            *w++ = (char)v;
            r += used;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return 0;
}

static char *field_decoded(struct parser *p, const char *s, enum esc esc)
{
    char *d = dup_s(p, s);
    return unescape(p, d, esc) ? NULL : d;
}

/* ---- option set ---- */

static int is_nfs_type(const char *fstype)
{
    return fstype && (!strcmp(fstype, "nfs") || !strcmp(fstype, "nfs4"));
}

static const char *slot_of(const char *key, const char *value, int nfs)
{
    static const char *const atime[] = {"atime",      "noatime",     "relatime",
                                        "norelatime", "strictatime", "nostrictatime"};
    if (value)
        return key;
    if (!strcmp(key, "ro") || !strcmp(key, "rw"))
        return "rw";
    if (!strcmp(key, "sync") || !strcmp(key, "async"))
        return "sync";
    for (size_t i = 0; i < sizeof(atime) / sizeof(atime[0]); i++)
        if (!strcmp(key, atime[i]))
            return "atime";
    if (nfs && (!strcmp(key, "hard") || !strcmp(key, "soft") || !strcmp(key, "softerr")))
        return "hard";
    if (key[0] == 'n' && key[1] == 'o' && key[2])
        return key + 2;
    return key;
}

/* The kernel's NFS spellings: nfsvers= and vN are vers=, tcp/udp/rdma are proto=. */
static void nfs_alias(struct parser *p, char **key, char **value)
{
    static const char *const vflags[] = {"v2", "v3", "v4", "v4.0", "v4.1", "v4.2"};
    if (*value && !strcmp(*key, "nfsvers")) {
        *key = dup_s(p, "vers");
    } else if (!*value && (!strcmp(*key, "tcp") || !strcmp(*key, "udp") || !strcmp(*key, "rdma"))) {
        *value = *key;
        *key = dup_s(p, "proto");
    } else if (*value && !strcmp(*key, "sec") && !strcmp(*value, "none")) {
        *value = dup_s(p, "null");
    } else if (!*value) {
        for (size_t i = 0; i < sizeof(vflags) / sizeof(vflags[0]); i++) {
            if (!strcmp(*key, vflags[i])) {
                *value = dup_s(p, *key + 1);
                *key = dup_s(p, "vers");
            }
        }
    }
}

static void set_opt(struct parser *p, char *key, char *value, int nfs)
{
    const char *slot = slot_of(key, value, nfs);
    for (size_t i = 0; i < p->n_opts; i++) {
        if (!strcmp(p->opts[i].slot, slot)) {
            p->opts[i].key = key;
            p->opts[i].value = value;
            return;
        }
    }
    ALLOC_GROW(p->opts, p->n_opts, p->alloc_opts);
    p->opts[p->n_opts++] = (struct opt){dup_s(p, slot), key, value};
}

static int add_one_opt(struct parser *p, const char *s, size_t n, enum esc esc, int nfs)
{
    char *item = dup_n(p, s, n);
    char *eq = strchr(item, '=');
    char *key = item, *value = NULL;
    if (eq) {
        *eq = '\0';
        value = eq + 1;
    }
    if (!*key)
        return fail(p, "empty option name in '%s'", quoted(p, s, n));
    for (const char *k = key; *k; k++)
        if ((unsigned char)*k <= ' ' || *k == '"' || *k == 0x7f)
            return fail(p, "invalid character in option name '%s'", quoted(p, s, n));
    if (unescape(p, key, esc) || (value && unescape(p, value, esc)))
        return -1;
    if (!value && !strcmp(key, "defaults"))
        return 0;
    if (nfs)
        nfs_alias(p, &key, &value);
    set_opt(p, key, value, nfs);
    return 0;
}

/* Splits an option string at commas outside "..." and adds each option. */
static int add_opts(struct parser *p, const char *s, enum esc esc, int nfs)
{
    const char *start = s;
    int quote = 0;
    for (const char *c = s;; c++) {
        if (*c == '"')
            quote = !quote;
        if (*c == '\0' || (*c == ',' && !quote)) {
            if (quote)
                return fail(p, "unterminated quote in options '%s'", quoted(p, s, strlen(s)));
            if (c > start && add_one_opt(p, start, (size_t)(c - start), esc, nfs))
                return -1;
            if (*c == '\0')
                return 0;
            start = c + 1;
        }
    }
}

static void raw_add(struct parser *p, const char *s, enum esc esc, int super)
{
    ALLOC_GROW(p->raw, p->n_raw, p->alloc_raw);
    p->raw[p->n_raw++] = (struct raw_opts){s, esc, super};
}

static struct opt *find_slot(struct parser *p, const char *slot)
{
    for (size_t i = 0; i < p->n_opts; i++)
        if (!strcmp(p->opts[i].slot, slot))
            return &p->opts[i];
    return NULL;
}

static int cmp_opt(const void *a, const void *b)
{
    const struct opt *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c || x->value == y->value)
        return c;
    if (!x->value || !y->value)
        return x->value ? 1 : -1;
    return strcmp(x->value, y->value);
}

static void add_canonical_text(struct buf *b, const char *s)
{
    int quote = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"')
            quote = !quote;
        if (c <= ' ' || c == 0x7f || c == '\\' || (c == ',' && !quote))
            buf_addf(b, "\\%03o", c);
        else
            buf_addc(b, (char)c);
    }
}

static int first_flavor(const char *v, const char **name, size_t *n)
{
    const char *colon = strchr(v, ':');
    *n = colon ? (size_t)(colon - v) : strlen(v);
    *name = v;
    for (size_t i = 0; i < sizeof(nfs_flavors) / sizeof(nfs_flavors[0]); i++)
        if (streq_n(v, *n, nfs_flavors[i]))
            return 1;
    return 0;
}

static int finish_sec(struct parser *p)
{
    struct mount_info *m = p->m;
    const char *sec = mount_opt_get(m, "sec");
    int nfs = is_nfs_type(m->fstype);
    if (!nfs && m->fstype)
        return 0;
    if (!sec) {
        m->sec = nfs ? dup_s(p, "sys") : NULL;
        return 0;
    }
    const char *name;
    size_t n;
    if (!first_flavor(sec, &name, &n)) {
        if (nfs)
            return fail(p, "unknown nfs security flavor '%s'", quoted(p, name, n));
        return 0;
    }
    m->sec = streq_n(name, n, "none") ? dup_s(p, "null") : dup_n(p, name, n);
    return 0;
}

/* Parses the collected option strings into the canonical set. */
static int finish(struct parser *p)
{
    struct mount_info *m = p->m;
    int nfs = !m->fstype || is_nfs_type(m->fstype);
    int mount_ro = 0;
    for (size_t i = 0; i < p->n_raw; i++) {
        if (p->raw[i].super && (i == 0 || !p->raw[i - 1].super)) {
            struct opt *rw = find_slot(p, "rw");
            mount_ro = rw && !strcmp(rw->key, "ro");
        }
        if (add_opts(p, p->raw[i].s, p->raw[i].esc, nfs))
            return -1;
    }
    /* a read-only mount of a read-write superblock, or the reverse, is read-only */
    struct opt *rw = find_slot(p, "rw");
    if (mount_ro && rw)
        rw->key = dup_s(p, "ro");
    if (p->n_opts)
        qsort(p->opts, p->n_opts, sizeof(*p->opts), cmp_opt);
    m->opts = arena_alloc(&m->mem, (p->n_opts ? p->n_opts : 1) * sizeof(*m->opts));
    struct buf b = BUF_INIT;
    for (size_t i = 0; i < p->n_opts; i++) {
        m->opts[i] = (struct mount_opt){p->opts[i].key, p->opts[i].value};
        if (i)
            buf_addc(&b, ',');
        add_canonical_text(&b, p->opts[i].key);
        if (p->opts[i].value) {
            buf_addc(&b, '=');
            add_canonical_text(&b, p->opts[i].value);
        }
    }
    m->n_opts = p->n_opts;
    m->canonical = dup_n(p, b.data, b.len);
    buf_release(&b);
    return finish_sec(p);
}

/* ---- forms ---- */

/* SOURCE on TARGET type FSTYPE (OPTIONS) [LABEL] */
static int parse_mount_output(struct parser *p, char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == ']') {
        char *open = strrchr(s, '[');
        if (open && open > s && open[-1] == ' ')
            n = (size_t)(open - 1 - s);
    }
    if (!n || s[n - 1] != ')')
        return fail(p, "expected '(options)' at the end of '%s'", quoted(p, s, strlen(s)));
    s[n - 1] = '\0';
    char *open = NULL;
    for (char *c = s; (c = strstr(c, " (")); c++)
        open = c;
    if (!open)
        return fail(p, "expected '(options)' at the end of '%s'", quoted(p, s, strlen(s)));
    *open = '\0';
    char *type = NULL;
    for (char *c = s; (c = strstr(c, " type ")); c++)
        type = c;
    char *on = strstr(s, " on ");
    if (!type || !on || on >= type || !type[6] || strchr(type + 6, ' '))
        return fail(p, "expected 'SOURCE on TARGET type FSTYPE (OPTIONS)', got '%s'",
                    quoted(p, s, strlen(s)));
    p->m->fstype = dup_s(p, type + 6);
    *type = '\0';
    *on = '\0';
    p->m->source = dup_s(p, s);
    p->m->target = dup_s(p, on + 4);
    raw_add(p, dup_s(p, open + 2), ESC_NONE, 0);
    p->m->form = MOUNT_FORM_MOUNT;
    return 0;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!is_digit(*s))
            return 0;
    return 1;
}

static int is_dev_number(const char *s)
{
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return 0;
    for (const char *c = s; *c; c++)
        if (c != colon && !is_digit(*c))
            return 0;
    return 1;
}

static int looks_like_mountinfo(const struct fields *f)
{
    return f->n >= 10 && all_digits(f->v[0]) && all_digits(f->v[1]) && is_dev_number(f->v[2]);
}

/* ID PARENT MAJ:MIN ROOT TARGET MOUNT-OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTS */
static int parse_mountinfo(struct parser *p, const struct fields *f)
{
    size_t sep = 6;
    while (sep < f->n && strcmp(f->v[sep], "-"))
        sep++;
    if (sep == f->n || f->n - sep != 4)
        return fail(p,
                    "expected '- FSTYPE SOURCE SUPER-OPTIONS' at the end of the mountinfo "
                    "line, got %zu fields after '-'",
                    sep == f->n ? (size_t)0 : f->n - sep - 1);
    struct mount_info *m = p->m;
    if (!(m->target = field_decoded(p, f->v[4], ESC_OCTAL)) ||
        !(m->fstype = field_decoded(p, f->v[sep + 1], ESC_OCTAL)) ||
        !(m->source = field_decoded(p, f->v[sep + 2], ESC_OCTAL)))
        return -1;
    raw_add(p, f->v[5], ESC_OCTAL, 0);
    raw_add(p, f->v[sep + 3], ESC_OCTAL, 1);
    m->form = MOUNT_FORM_MOUNTINFO;
    return 0;
}

/* findmnt's tree: "├─", "│ └─" (UTF-8) or "|-", "| `-" (--ascii) before the target. */
static int is_tree_glyph_start(const char *s)
{
    return (unsigned char)s[0] >= 0x80 || s[0] == '|' || s[0] == '`';
}

/* The part of a findmnt TARGET cell after its tree glyphs (targets are absolute paths). */
static const char *strip_tree(const char *s)
{
    const char *slash = strchr(s, '/');
    return slash ? slash : s;
}

/* SOURCE TARGET FSTYPE OPTIONS [DUMP [PASS]] (fstab, /proc/mounts), or a findmnt -n row
 * TARGET SOURCE FSTYPE OPTIONS. */
static int parse_table(struct parser *p, const struct fields *f)
{
    struct mount_info *m = p->m;
    for (size_t i = 4; i < f->n; i++)
        if (!all_digits(f->v[i]))
            return fail(p, "expected a number for the %s field, got '%s'", i == 4 ? "dump" : "pass",
                        quoted(p, f->v[i], strlen(f->v[i])));
    const char *a = f->v[0], *b = f->v[1];
    int findmnt =
        (f->n == 4 && a[0] == '/' && b[0] != '/' && strcmp(b, "none") && strcmp(b, "swap")) ||
        (f->n == 4 && a[0] == '/' && !has_prefix(a, "/dev/") && has_prefix(b, "/dev/"));
    if (findmnt) {
        m->target = dup_s(p, strip_tree(a));
        m->source = dup_s(p, b);
        m->form = MOUNT_FORM_FINDMNT;
        raw_add(p, f->v[3], ESC_NONE, 0);
    } else {
        if (!(m->source = field_decoded(p, a, ESC_OCTAL)) ||
            !(m->target = field_decoded(p, b, ESC_OCTAL)))
            return -1;
        m->form = MOUNT_FORM_TABLE;
        raw_add(p, f->v[3], ESC_OCTAL, 0);
    }
    if (!(m->fstype = field_decoded(p, f->v[2], ESC_OCTAL)))
        return -1;
    return 0;
}

/* A findmnt -n tree row: glyphs, then TARGET SOURCE FSTYPE OPTIONS. */
static int parse_tree_row(struct parser *p, const char *s)
{
    struct fields f = {0};
    const char *slash = strchr(s, '/');
    int rc = 0;
    if (slash)
        split_blanks(p, slash, &f);
    if (f.n != 4) {
        rc = fail(p, "expected TARGET SOURCE FSTYPE OPTIONS after the findmnt tree, got '%s'",
                  quoted(p, s, strlen(s)));
    } else {
        p->m->target = f.v[0];
        p->m->source = f.v[1];
        p->m->fstype = f.v[2];
        raw_add(p, f.v[3], ESC_NONE, 0);
        p->m->form = MOUNT_FORM_FINDMNT;
    }
    fields_free(&f);
    return rc;
}

/* findmnt's OPTIONS column, else its VFS-OPTIONS and FS-OPTIONS merged the way mountinfo's
 * per-mount and super options are. */
static int findmnt_options(struct parser *p, const char *opts, const char *vfs, const char *fs)
{
    if (opts) {
        raw_add(p, opts, ESC_NONE, 0);
    } else {
        if (vfs)
            raw_add(p, vfs, ESC_NONE, 0);
        if (fs)
            raw_add(p, fs, ESC_NONE, 1);
    }
    p->m->form = MOUNT_FORM_FINDMNT;
    return 0;
}

/* findmnt -P: KEY="value" pairs with \xHH escapes. */
static int parse_findmnt_pairs(struct parser *p, const char *s)
{
    struct mount_info *m = p->m;
    const char *opts = NULL, *vfs = NULL, *fs = NULL;
    for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
        const char *k = s;
        while ((*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '-' || is_digit(*s))
            s++;
        size_t kn = (size_t)(s - k);
        if (!kn || s[0] != '=' || s[1] != '"')
            return fail(p, "expected KEY=\"value\" in findmnt -P output, got '%s'",
                        quoted(p, k, strlen(k)));
        s += 2;
        const char *v = s;
        while (*s && *s != '"')
            s++;
        if (!*s)
            return fail(p, "unterminated quote in '%s'", quoted(p, k, strlen(k)));
        char *val = dup_n(p, v, (size_t)(s - v));
        s++;
        if (unescape(p, val, ESC_HEX))
            return -1;
        if (streq_n(k, kn, "TARGET"))
            m->target = val;
        else if (streq_n(k, kn, "SOURCE"))
            m->source = val;
        else if (streq_n(k, kn, "FSTYPE"))
            m->fstype = val;
        else if (streq_n(k, kn, "OPTIONS"))
            opts = val;
        else if (streq_n(k, kn, "VFS_OPTIONS") || streq_n(k, kn, "VFS-OPTIONS"))
            vfs = val;
        else if (streq_n(k, kn, "FS_OPTIONS") || streq_n(k, kn, "FS-OPTIONS"))
            fs = val;
    }
    if (!opts && !vfs && !fs)
        return fail(p, "findmnt -P output has no OPTIONS");
    return findmnt_options(p, opts, vfs, fs);
}

/* Splits a shell command line at blanks, honouring '...' and "..." (no expansions). */
static int split_shell(struct parser *p, const char *s, struct fields *f)
{
    struct buf w = BUF_INIT;
    for (;;) {
        s = skip_blanks(s);
        if (!*s)
            break;
        buf_reset(&w);
        while (*s && !is_ws(*s)) {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                const char *e = strchr(s, q);
                if (!e) {
                    buf_release(&w);
                    return fail(p, "unterminated quote in command '%s'",
                                quoted(p, s - 1, strlen(s - 1)));
                }
                buf_add(&w, s, (size_t)(e - s));
                s = e + 1;
            } else {
                buf_addc(&w, *s++);
            }
        }
        ALLOC_GROW(f->v, f->n, f->alloc);
        f->v[f->n++] = dup_n(p, w.data, w.len);
    }
    buf_release(&w);
    return 0;
}

static int is_mount_program(const char *w)
{
    const char *base = strrchr(w, '/');
    base = base ? base + 1 : w;
    return !strcmp(base, "mount") || has_prefix(base, "mount.");
}

/* [sudo] mount [-t TYPE] [-o OPTS]... SOURCE [TARGET], or mount.TYPE SOURCE TARGET -o OPTS */
static int parse_command(struct parser *p, const char *s)
{
    struct mount_info *m = p->m;
    struct fields f = {0};
    int rc = split_shell(p, s, &f);
    size_t i = 0;
    if (!rc && i < f.n && !strcmp(f.v[i], "$"))
        i++;
    if (!rc && i < f.n && !strcmp(f.v[i], "sudo"))
        i++;
    const char *prog = i < f.n ? strrchr(f.v[i], '/') : NULL;
    prog = prog ? prog + 1 : (i < f.n ? f.v[i] : "");
    if (!rc && has_prefix(prog, "mount.") && prog[6])
        m->fstype = dup_s(p, prog + 6);
    const char *pos[2] = {NULL, NULL};
    size_t n_pos = 0;
    for (i++; !rc && i < f.n; i++) {
        const char *a = f.v[i], *val = NULL;
        int type = 0, opts = 0;
        if (!strcmp(a, "-t") || !strcmp(a, "-F") || !strcmp(a, "--types"))
            type = 1;
        else if (!strcmp(a, "-o") || !strcmp(a, "--options"))
            opts = 1;
        else if (has_prefix(a, "--types="))
            val = a + 8, type = 1;
        else if (has_prefix(a, "--options="))
            val = a + 10, opts = 1;
        else if (has_prefix(a, "-t") || has_prefix(a, "-F"))
            val = a + 2, type = 1;
        else if (has_prefix(a, "-o"))
            val = a + 2, opts = 1;
        if ((type || opts) && !val) {
            if (i + 1 == f.n) {
                rc = fail(p, "option '%s' of the mount command needs a value",
                          quoted(p, a, strlen(a)));
                break;
            }
            val = f.v[++i];
        }
        if (type)
            m->fstype = dup_s(p, val);
        else if (opts)
            raw_add(p, val, ESC_NONE, 0);
        else if (!strcmp(a, "-r") || !strcmp(a, "--read-only"))
            raw_add(p, "ro", ESC_NONE, 0);
        else if (!strcmp(a, "-w") || !strcmp(a, "--rw") || !strcmp(a, "--read-write"))
            raw_add(p, "rw", ESC_NONE, 0);
        else if (a[0] == '-')
            continue; /* -v, -f, -n, ... do not change the options */
        else if (n_pos == 2)
            rc = fail(p, "unexpected argument '%s' after SOURCE and TARGET of the mount command",
                      quoted(p, a, strlen(a)));
        else
            pos[n_pos++] = a;
    }
    if (!rc && n_pos == 0)
        rc = fail(p, "the mount command names no SOURCE or TARGET");
    if (!rc) {
        m->source = dup_s(p, pos[0]);
        m->target = pos[1] ? dup_s(p, pos[1]) : NULL;
        /* mount(8) takes host:/dir as nfs when no type is given */
        if (!m->fstype && strstr(m->source, ":/"))
            m->fstype = dup_s(p, "nfs");
        m->form = MOUNT_FORM_COMMAND;
    }
    fields_free(&f);
    return rc;
}

static int parse_bare(struct parser *p, const char *s)
{
    raw_add(p, s, ESC_NONE, 0);
    p->m->form = MOUNT_FORM_OPTIONS;
    return 0;
}

/* ---- findmnt tables ---- */

static int is_findmnt_column(const char *w)
{
    static const char *const cols[] = {
        "TARGET", "SOURCE", "FSTYPE", "OPTIONS", "VFS-OPTIONS", "FS-OPTIONS", "SOURCES",
        "LABEL",  "UUID",   "ID",     "PARENT",  "MAJ:MIN",     "FSROOT",     "PROPAGATION",
        "SIZE",   "AVAIL",  "USED",   "USE%",    "FREQ",        "PASSNO",     "TID"};
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        if (!strcmp(w, cols[i]))
            return 1;
    return 0;
}

/* A findmnt -P key: a column name, with '_' for '-' as newer util-linux writes it. */
static int is_findmnt_key(const char *s, size_t n)
{
    char key[32];
    if (n == 0 || n >= sizeof(key))
        return 0;
    for (size_t i = 0; i < n; i++)
        key[i] = s[i] == '_' ? '-' : s[i];
    key[n] = '\0';
    return is_findmnt_column(key);
}

static int is_findmnt_header(const struct fields *f)
{
    if (!f->n)
        return 0;
    int opts = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (!is_findmnt_column(f->v[i]))
            return 0;
        opts |= !!strstr(f->v[i], "OPTIONS");
    }
    return opts;
}

/* Display column of each byte offset: UTF-8 continuation bytes take no column. */
static size_t byte_at_column(const char *s, size_t col)
{
    size_t c = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) == 0x80)
            continue;
        if (c == col)
            return i;
        c++;
    }
    return i;
}

static size_t column_of(const char *s, const char *at)
{
    size_t c = 0;
    for (const char *q = s; q < at; q++)
        c += ((unsigned char)*q & 0xc0) != 0x80;
    return c;
}

static char *trimmed(struct parser *p, const char *s, size_t n)
{
    while (n && is_ws(*s))
        s++, n--;
    while (n && is_ws(s[n - 1]))
        n--;
    return dup_n(p, s, n);
}

static int parse_findmnt_table(struct parser *p, const struct line *hdr, const struct line *row)
{
    struct mount_info *m = p->m;
    struct fields h = {0}, r = {0};
    split_blanks(p, hdr->s, &h);
    split_blanks(p, row->s, &r);
    size_t *start = xcalloc(h.n + 1, sizeof(*start));
    const char *at = hdr->s;
    for (size_t i = 0; i < h.n; i++) {
        at = strstr(skip_blanks(at), h.v[i]);
        start[i] = column_of(hdr->s, at);
        at += strlen(h.v[i]);
    }
    const char *opts = NULL, *vfs = NULL, *fs = NULL;
    for (size_t i = 0; i < h.n; i++) {
        char *cell;
        if (r.n == h.n) {
            cell = r.v[i];
        } else {
            /* a cell with blanks (a path with a space): cut at the header's columns */
            size_t b0 = byte_at_column(row->s, start[i]);
            size_t b1 = i + 1 < h.n ? byte_at_column(row->s, start[i + 1]) : strlen(row->s);
            cell = trimmed(p, row->s + b0, b1 > b0 ? b1 - b0 : 0);
        }
        if (!strcmp(h.v[i], "TARGET"))
            m->target = dup_s(p, strip_tree(cell));
        else if (!strcmp(h.v[i], "SOURCE"))
            m->source = cell;
        else if (!strcmp(h.v[i], "FSTYPE"))
            m->fstype = cell;
        else if (!strcmp(h.v[i], "OPTIONS"))
            opts = cell;
        else if (!strcmp(h.v[i], "VFS-OPTIONS"))
            vfs = cell;
        else if (!strcmp(h.v[i], "FS-OPTIONS"))
            fs = cell;
    }
    free(start);
    fields_free(&h);
    fields_free(&r);
    return findmnt_options(p, opts, vfs, fs);
}

/* ---- Kubernetes ---- */

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
        return fail(p, "unterminated quote in '%s'", quoted(p, s, n));
    if (!*v)
        return fail(p, "empty entry in the mountOptions list");
    raw_add(p, v, ESC_NONE, 0);
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
        return fail(p, "expected ']' to close the mountOptions list");
    *close = '\0';
    const char *rest = skip_blanks(close + 1);
    if (*rest && *rest != '#')
        return fail(p, "unexpected '%s' after the mountOptions list",
                    quoted(p, rest, strlen(rest)));
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
                return fail(p, "empty entry in the mountOptions list");
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
        return fail(p, "expected '- option' entries in the mountOptions list");
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
static int try_k8s(struct parser *p, int *rc)
{
    size_t key = p->n_lines;
    const char *value = NULL;
    for (size_t i = 0; i < p->n_lines; i++) {
        const char *v;
        if (is_key_line(p->lines[i].s, "mountOptions", &v)) {
            p->line = p->lines[i].no;
            if (key != p->n_lines) {
                *rc = fail(p, "more than one mountOptions list (lines %u and %u)", p->lines[key].no,
                           p->lines[i].no);
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
            *rc = fail(p, "expected a list after 'mountOptions:', got '%s'",
                       quoted(p, value, strlen(value)));
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
            *rc = fail(p, "unexpected '%s' after the mountOptions list",
                       quoted(p, p->lines[li + 1].s, strlen(p->lines[li + 1].s)));
        }
        return 1;
    }
    if (first[0] == '-' && (!first[1] || is_ws(first[1]))) {
        size_t li = 0;
        *rc = k8s_block(p, &li, 0);
        if (!*rc && li < p->n_lines) {
            p->line = p->lines[li].no;
            *rc = fail(p, "unexpected '%s' after the mountOptions list",
                       quoted(p, p->lines[li].s, strlen(p->lines[li].s)));
        }
        return 1;
    }
    return 0;
}

/* ---- driver ---- */

static int split_lines(struct parser *p, const char *text, size_t len)
{
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        text += 3, len -= 3;
    unsigned no = 0;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *e = s;
        while (e < end && *e != '\n')
            e++;
        no++;
        size_t n = (size_t)(e - s);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                p->line = no;
                return fail(p, "%s byte '\\x%02x' in the input", c ? "control" : "NUL", c);
            }
        }
        while (n && (s[n - 1] == '\r' || is_ws(s[n - 1])))
            n--;
        const char *t = s;
        while (t < s + n && is_ws(*t))
            t++;
        if (t < s + n && *t != '#') {
            ALLOC_GROW(p->lines, p->n_lines, p->alloc_lines);
            p->lines[p->n_lines++] = (struct line){dup_n(p, s, n), no};
        }
        s = e < end ? e + 1 : e;
    }
    if (!p->n_lines)
        return fail(p, "no mount found in the input");
    return 0;
}

static int parse_single(struct parser *p, const struct line *ln)
{
    const char *s = skip_blanks(ln->s);
    struct fields f = {0};
    split_blanks(p, s, &f);
    int rc;
    size_t first = f.n && !strcmp(f.v[0], "$") ? 1 : 0;
    first += first < f.n && !strcmp(f.v[first], "sudo");
    int mount_output = strstr(s, " on ") && strstr(s, " type ");
    const char *eq = strstr(s, "=\"");
    if (mount_output && !looks_like_mountinfo(&f))
        rc = parse_mount_output(p, dup_s(p, s));
    else if (first < f.n && is_mount_program(f.v[first]) && f.n > first + 1)
        rc = parse_command(p, s);
    else if (eq && is_findmnt_key(s, (size_t)(eq - s)))
        rc = parse_findmnt_pairs(p, s);
    else if (looks_like_mountinfo(&f))
        rc = parse_mountinfo(p, &f);
    else if (is_tree_glyph_start(s))
        rc = parse_tree_row(p, s);
    else if (f.n >= 4 && f.n <= 6)
        rc = parse_table(p, &f);
    else if (f.n == 1)
        rc = parse_bare(p, s);
    else
        rc = fail(p, "unrecognized mount description '%s'", quoted(p, s, strlen(s)));
    fields_free(&f);
    return rc;
}

static int parse(struct parser *p, const char *text, size_t len)
{
    if (split_lines(p, text, len))
        return -1;
    int rc = 0;
    if (try_k8s(p, &rc))
        return rc ? -1 : finish(p);
    struct fields h = {0};
    split_blanks(p, p->lines[0].s, &h);
    int table = is_findmnt_header(&h);
    fields_free(&h);
    size_t first = table ? 1 : 0;
    if (p->n_lines <= first) {
        p->line = p->lines[0].no;
        return fail(p, "findmnt output has a header but no mount");
    }
    if (p->n_lines > first + 1) {
        p->line = p->lines[first + 1].no;
        return fail(p, "more than one mount (lines %u and %u)", p->lines[first].no,
                    p->lines[first + 1].no);
    }
    p->line = p->lines[first].no;
    p->m->line = p->line;
    rc = table ? parse_findmnt_table(p, &p->lines[0], &p->lines[1])
               : parse_single(p, &p->lines[first]);
    return rc ? -1 : finish(p);
}

int mount_parse_mem(const char *text, size_t len, struct mount_info *out, struct buf *err)
{
    memset(out, 0, sizeof(*out));
    struct parser p = {0};
    p.m = out;
    p.err = err;
    int rc = parse(&p, text ? text : "", text ? len : 0);
    free(p.lines);
    free(p.raw);
    free(p.opts);
    if (rc) {
        unsigned line = out->line;
        mount_info_release(out);
        out->line = line;
        return -1;
    }
    return 0;
}

int mount_parse(const char *text, struct mount_info *out, struct buf *err)
{
    return mount_parse_mem(text, text ? strlen(text) : 0, out, err);
}

void mount_info_release(struct mount_info *m)
{
    arena_release(&m->mem);
    memset(m, 0, sizeof(*m));
}

const char *mount_opt_get(const struct mount_info *m, const char *key)
{
    for (size_t i = 0; i < m->n_opts; i++)
        if (!strcmp(m->opts[i].key, key))
            return m->opts[i].value ? m->opts[i].value : "";
    return NULL;
}

const char *mount_form_name(enum mount_form form)
{
    switch (form) {
    case MOUNT_FORM_OPTIONS:
        return "options";
    case MOUNT_FORM_MOUNT:
        return "mount";
    case MOUNT_FORM_TABLE:
        return "table";
    case MOUNT_FORM_MOUNTINFO:
        return "mountinfo";
    case MOUNT_FORM_FINDMNT:
        return "findmnt";
    case MOUNT_FORM_COMMAND:
        return "command";
    case MOUNT_FORM_K8S:
        return "kubernetes";
    }
    return "?";
}
