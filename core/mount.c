/* mount.c: mount.h's parser: reads the input into lines, finds its form and calls that form's
 * reader (mount_parse.h names them), then makes the canonical set (mount_opts.c). */
#include "mount_parse.h"

#include <stdlib.h>

#include "k8s_mount.h"
#include "scan.h"
#include "xalloc.h"

static int parse_bare(struct parser *p, const char *s)
{
    mount_raw_add(p, s, ESC_NONE, 0);
    p->m->form = MOUNT_FORM_OPTIONS;
    return 0;
}

static int split_lines(struct parser *p, const char *text, size_t len)
{
    size_t bom = bom_len(text, len);
    text += bom, len -= bom;
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
                return mount_fail(p, "%s byte '\\x%02x' in the input", c ? "control" : "NUL", c);
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
        return mount_fail(p, "no mount found in the input");
    return 0;
}

static int parse_single(struct parser *p, const struct line *ln)
{
    const char *s = skip_blanks(ln->s);
    struct fields f = {0};
    mount_split_blanks(p, s, &f);
    int rc;
    size_t first = f.n && !strcmp(f.v[0], "$") ? 1 : 0;
    first += first < f.n && !strcmp(f.v[first], "sudo");
    int mount_output = strstr(s, " on ") && strstr(s, " type ");
    const char *eq = strstr(s, "=\"");
    if (mount_output && !mount_looks_like_mountinfo(&f))
        rc = mount_parse_output(p, dup_s(p, s));
    else if (first < f.n && mount_is_mount_program(f.v[first]) && f.n > first + 1)
        rc = mount_parse_command(p, s);
    else if (eq && mount_is_findmnt_key(s, (size_t)(eq - s)))
        rc = mount_parse_findmnt_pairs(p, s);
    else if (mount_looks_like_mountinfo(&f))
        rc = mount_parse_mountinfo(p, &f);
    else if (mount_is_tree_glyph_start(s))
        rc = mount_parse_tree_row(p, s);
    else if (f.n >= 4 && f.n <= 6)
        rc = mount_parse_table(p, &f);
    else if (f.n == 1)
        rc = parse_bare(p, s);
    else
        rc = mount_fail(p, "unrecognized mount description '%s'", mount_quoted(p, s, strlen(s)));
    mount_fields_free(&f);
    return rc;
}

/* The Kubernetes form (k8s_mount.c): 1 when the lines are one (then 0, or -1 after its message,
 * in *rc), else 0. */
static int parse_k8s(struct parser *p, int *rc)
{
    struct k8s_line *lines = xcalloc(p->n_lines, sizeof(*lines));
    for (size_t i = 0; i < p->n_lines; i++)
        lines[i] = (struct k8s_line){p->lines[i].s, p->lines[i].no};
    struct k8s_mount k;
    int found = k8s_mount_read(lines, p->n_lines, &p->m->mem, &k, p->err);
    free(lines);
    if (found) {
        struct mount_info *m = p->m;
        m->form = MOUNT_FORM_K8S;
        m->line = k.line;
        p->line = k.read_to;
        m->fstype = k.fstype;
        m->source = k.source;
        for (size_t i = 0; i < k.n_opts; i++)
            mount_raw_add(p, k.opts[i], ESC_NONE, 0);
        *rc = found < 0 ? -1 : 0;
    }
    k8s_mount_release(&k);
    return found != 0;
}

static int parse(struct parser *p, const char *text, size_t len)
{
    if (split_lines(p, text, len))
        return -1;
    int rc = 0;
    if (parse_k8s(p, &rc))
        return rc ? -1 : mount_finish(p);
    struct fields h = {0};
    mount_split_blanks(p, p->lines[0].s, &h);
    int table = mount_is_findmnt_header(&h);
    mount_fields_free(&h);
    size_t first = table ? 1 : 0;
    if (p->n_lines <= first) {
        p->line = p->lines[0].no;
        return mount_fail(p, "findmnt output has a header but no mount");
    }
    if (p->n_lines > first + 1) {
        p->line = p->lines[first + 1].no;
        return mount_fail(p, "more than one mount (lines %u and %u)", p->lines[first].no,
                          p->lines[first + 1].no);
    }
    p->line = p->lines[first].no;
    p->m->line = p->line;
    rc = table ? mount_parse_findmnt_table(p, &p->lines[0], &p->lines[1])
               : parse_single(p, &p->lines[first]);
    return rc ? -1 : mount_finish(p);
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
