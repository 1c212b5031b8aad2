/* mount_findmnt.c: findmnt's output: a table under its header (columns cut at the header's
 * positions), -P KEY="value" pairs, and tree rows. */
#include "mount_parse.h"

#include <stdlib.h>

#include "array.h"
#include "utf8.h"
#include "xalloc.h"

/* findmnt's tree: "├─", "│ └─" (UTF-8) or "|-", "| `-" (--ascii) before the target. */
int mount_is_tree_glyph_start(const char *s)
{
    return (unsigned char)s[0] >= 0x80 || s[0] == '|' || s[0] == '`';
}

/* The part of a findmnt TARGET cell after its tree glyphs (targets are absolute paths). */
const char *mount_strip_tree(const char *s)
{
    const char *slash = strchr(s, '/');
    return slash ? slash : s;
}

/* A findmnt -n tree row: glyphs, then TARGET SOURCE FSTYPE OPTIONS. */
int mount_parse_tree_row(struct parser *p, const char *s)
{
    struct fields f = {0};
    const char *slash = strchr(s, '/');
    int rc = 0;
    if (slash)
        mount_split_blanks(p, slash, &f);
    if (f.n != 4) {
        rc = mount_fail(p, "expected TARGET SOURCE FSTYPE OPTIONS after the findmnt tree, got '%s'",
                        mount_quoted(p, s, strlen(s)));
    } else {
        p->m->target = f.v[0];
        p->m->source = f.v[1];
        p->m->fstype = f.v[2];
        mount_raw_add(p, f.v[3], ESC_NONE, 0);
        p->m->form = MOUNT_FORM_FINDMNT;
    }
    mount_fields_free(&f);
    return rc;
}

/* findmnt's OPTIONS column, else its VFS-OPTIONS and FS-OPTIONS merged the way mountinfo's
 * per-mount and super options are. */
static int findmnt_options(struct parser *p, const char *opts, const char *vfs, const char *fs)
{
    if (opts) {
        mount_raw_add(p, opts, ESC_NONE, 0);
    } else {
        if (vfs)
            mount_raw_add(p, vfs, ESC_NONE, 0);
        if (fs)
            mount_raw_add(p, fs, ESC_NONE, 1);
    }
    p->m->form = MOUNT_FORM_FINDMNT;
    return 0;
}

/* findmnt -P: KEY="value" pairs with \xHH escapes. */
int mount_parse_findmnt_pairs(struct parser *p, const char *s)
{
    struct mount_info *m = p->m;
    const char *opts = NULL, *vfs = NULL, *fs = NULL;
    for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
        const char *k = s;
        while ((*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '-' || is_digit(*s))
            s++;
        size_t kn = (size_t)(s - k);
        if (!kn || s[0] != '=' || s[1] != '"')
            return mount_fail(p, "expected KEY=\"value\" in findmnt -P output, got '%s'",
                              mount_quoted(p, k, strlen(k)));
        s += 2;
        const char *v = s;
        while (*s && *s != '"')
            s++;
        if (!*s)
            return mount_fail(p, "unterminated quote in '%s'", mount_quoted(p, k, strlen(k)));
        char *val = dup_n(p, v, (size_t)(s - v));
        s++;
        if (mount_unescape(p, val, ESC_HEX))
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
        return mount_fail(p, "findmnt -P output has no OPTIONS");
    return findmnt_options(p, opts, vfs, fs);
}

static int is_findmnt_column(const char *w)
{
    static const char *const cols[] = {
        "TARGET", "SOURCE", "FSTYPE", "OPTIONS", "VFS-OPTIONS", "FS-OPTIONS", "SOURCES",
        "LABEL",  "UUID",   "ID",     "PARENT",  "MAJ:MIN",     "FSROOT",     "PROPAGATION",
        "SIZE",   "AVAIL",  "USED",   "USE%",    "FREQ",        "PASSNO",     "TID"};
    for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
        if (!strcmp(w, cols[i]))
            return 1;
    return 0;
}

/* A findmnt -P key: a column name, with '_' for '-' as newer util-linux writes it. */
int mount_is_findmnt_key(const char *s, size_t n)
{
    char key[32];
    if (n == 0 || n >= sizeof(key))
        return 0;
    for (size_t i = 0; i < n; i++)
        key[i] = s[i] == '_' ? '-' : s[i];
    key[n] = '\0';
    return is_findmnt_column(key);
}

int mount_is_findmnt_header(const struct fields *f)
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
        if (utf8_continues((unsigned char)s[i]))
            continue;
        if (c == col)
            return i;
        c++;
    }
    return i;
}

static size_t column_of(const char *s, const char *at)
{
    return utf8_count(s, (size_t)(at - s));
}

static char *trimmed(struct parser *p, const char *s, size_t n)
{
    while (n && is_ws(*s))
        s++, n--;
    while (n && is_ws(s[n - 1]))
        n--;
    return dup_n(p, s, n);
}

int mount_parse_findmnt_table(struct parser *p, const struct line *hdr, const struct line *row)
{
    struct mount_info *m = p->m;
    struct fields h = {0}, r = {0};
    mount_split_blanks(p, hdr->s, &h);
    mount_split_blanks(p, row->s, &r);
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
            m->target = dup_s(p, mount_strip_tree(cell));
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
    mount_fields_free(&h);
    mount_fields_free(&r);
    return findmnt_options(p, opts, vfs, fs);
}
