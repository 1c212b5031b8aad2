/* mount_opts.c: the canonical option set (mount.h says its rules): the option strings the
 * readers collected, split at commas, aliases normalized, last-wins per setting, sorted and
 * joined; and the NFS security flavor. */
#include "mount_parse.h"

#include <stdlib.h>

#include "array.h"
#include "xalloc.h"

static const char *const nfs_flavors[] = {"none", "null",  "sys",   "krb5",  "krb5i",  "krb5p",
                                          "lkey", "lkeyi", "lkeyp", "spkm3", "spkm3i", "spkm3p"};

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
    for (size_t i = 0; i < ARRAY_SIZE(atime); i++)
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
        for (size_t i = 0; i < ARRAY_SIZE(vflags); i++) {
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
        return mount_fail(p, "empty option name in '%s'", mount_quoted(p, s, n));
    for (const char *k = key; *k; k++)
        if ((unsigned char)*k <= ' ' || *k == '"' || *k == 0x7f)
            return mount_fail(p, "invalid character in option name '%s'", mount_quoted(p, s, n));
    if (mount_unescape(p, key, esc) || (value && mount_unescape(p, value, esc)))
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
                return mount_fail(p, "unterminated quote in options '%s'",
                                  mount_quoted(p, s, strlen(s)));
            if (c > start && add_one_opt(p, start, (size_t)(c - start), esc, nfs))
                return -1;
            if (*c == '\0')
                return 0;
            start = c + 1;
        }
    }
}

void mount_raw_add(struct parser *p, const char *s, enum esc esc, int super)
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
    for (size_t i = 0; i < ARRAY_SIZE(nfs_flavors); i++)
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
            return mount_fail(p, "unknown nfs security flavor '%s'", mount_quoted(p, name, n));
        return 0;
    }
    m->sec = streq_n(name, n, "none") ? dup_s(p, "null") : dup_n(p, name, n);
    return 0;
}

/* Parses the collected option strings into the canonical set. */
int mount_finish(struct parser *p)
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

const char *mount_opt_get(const struct mount_info *m, const char *key)
{
    for (size_t i = 0; i < m->n_opts; i++)
        if (!strcmp(m->opts[i].key, key))
            return m->opts[i].value ? m->opts[i].value : "";
    return NULL;
}
