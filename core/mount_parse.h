/* mount_parse.h (private to core/): the parser of mount.h, one file per family of forms:
 * mount.c reads the input into lines, picks the form and calls its reader; mount_table.c reads
 * the kernel's tables and mount(8)'s output, mount_findmnt.c findmnt's, mount_command.c a mount
 * command line, k8s_mount.c (k8s_mount.h) Kubernetes' mountOptions; each reader adds the option
 * strings it finds (mount_raw_add) and mount_opts.c makes the canonical set of them. The helpers
 * they share are below and in mount_text.c. */
#ifndef BDB_MOUNT_PARSE_H
#define BDB_MOUNT_PARSE_H

#include <string.h>

#include "mount.h"

enum esc { ESC_NONE, ESC_OCTAL, ESC_HEX };

/* One option string still to split, in input order; super is 1 for mountinfo super options
 * and findmnt FS-OPTIONS (merged after the per-mount ones, see mount_finish). */
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

/* Blank-separated fields, arena copies in a malloc'd array (mount_fields_free). */
struct fields {
    char **v;
    size_t n, alloc;
};

static inline int is_ws(char c)
{
    return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline char *dup_n(struct parser *p, const char *s, size_t n)
{
    return arena_strndup(&p->m->mem, s, n);
}

static inline char *dup_s(struct parser *p, const char *s)
{
    return arena_strdup(&p->m->mem, s);
}

static inline int streq_n(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static inline const char *skip_blanks(const char *s)
{
    while (is_ws(*s))
        s++;
    return s;
}

/* ---- mount_text.c: fields, escapes and error messages ---- */
/* A token for an error message, in arena a (mount_quoted: in the mount's). */
char *mount_quoted_in(struct arena *a, const char *s, size_t n);
static inline char *mount_quoted(struct parser *p, const char *s, size_t n)
{
    return mount_quoted_in(&p->m->mem, s, n);
}
/* Appends the message to p->err, sets the mount's line to p->line; returns -1. */
int mount_fail(struct parser *p, const char *fmt, ...) BDB_PRINTF(2, 3);
void mount_fields_free(struct fields *f);
void mount_split_blanks(struct parser *p, const char *s, struct fields *f);
int mount_unescape(struct parser *p, char *s, enum esc esc);
/* An arena copy of s with its escapes decoded; NULL after mount_fail. */
char *mount_field_decoded(struct parser *p, const char *s, enum esc esc);

/* ---- mount_opts.c: the canonical option set ---- */
/* Adds an option string still to split (s is kept, not copied). */
void mount_raw_add(struct parser *p, const char *s, enum esc esc, int super);
/* Parses the collected option strings into the canonical set and the mount's sec; 0 or -1. */
int mount_finish(struct parser *p);

/* The form readers below fill in what their form says of p->m (form,
 * source, target, fstype) and add its option strings; 0, or -1 after mount_fail. */

/* ---- mount_table.c: mount(8) output, /proc/mounts and fstab, mountinfo ---- */
int mount_parse_output(struct parser *p, char *s);
int mount_looks_like_mountinfo(const struct fields *f);
int mount_parse_mountinfo(struct parser *p, const struct fields *f);
int mount_parse_table(struct parser *p, const struct fields *f);

/* ---- mount_findmnt.c: findmnt's table, -P pairs and tree rows ---- */
int mount_is_tree_glyph_start(const char *s);
const char *mount_strip_tree(const char *s);
int mount_parse_tree_row(struct parser *p, const char *s);
int mount_parse_findmnt_pairs(struct parser *p, const char *s);
int mount_is_findmnt_key(const char *s, size_t n);
int mount_is_findmnt_header(const struct fields *f);
int mount_parse_findmnt_table(struct parser *p, const struct line *hdr, const struct line *row);

/* ---- mount_command.c: a mount command line ---- */
int mount_is_mount_program(const char *w);
int mount_parse_command(struct parser *p, const char *s);

#endif
