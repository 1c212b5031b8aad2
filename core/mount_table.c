/* mount_table.c: the one-line forms the kernel and mount(8) write: mount(8)'s "SOURCE on
 * TARGET type FSTYPE (OPTIONS)", /proc/mounts and fstab rows (and findmnt -n rows they are
 * told from), and mountinfo lines. */
#include "mount_parse.h"

#include "scan.h"

/* SOURCE on TARGET type FSTYPE (OPTIONS) [LABEL] */
int mount_parse_output(struct parser *p, char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == ']') {
        char *open = strrchr(s, '[');
        if (open && open > s && open[-1] == ' ')
            n = (size_t)(open - 1 - s);
    }
    if (!n || s[n - 1] != ')')
        return mount_fail(p, "expected '(options)' at the end of '%s'",
                          mount_quoted(p, s, strlen(s)));
    s[n - 1] = '\0';
    char *open = NULL;
    for (char *c = s; (c = strstr(c, " (")); c++)
        open = c;
    if (!open)
        return mount_fail(p, "expected '(options)' at the end of '%s'",
                          mount_quoted(p, s, strlen(s)));
    *open = '\0';
    char *type = NULL;
    for (char *c = s; (c = strstr(c, " type ")); c++)
        type = c;
    char *on = strstr(s, " on ");
    if (!type || !on || on >= type || !type[6] || strchr(type + 6, ' '))
        return mount_fail(p, "expected 'SOURCE on TARGET type FSTYPE (OPTIONS)', got '%s'",
                          mount_quoted(p, s, strlen(s)));
    p->m->fstype = dup_s(p, type + 6);
    *type = '\0';
    *on = '\0';
    p->m->source = dup_s(p, s);
    p->m->target = dup_s(p, on + 4);
    mount_raw_add(p, dup_s(p, open + 2), ESC_NONE, 0);
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

int mount_looks_like_mountinfo(const struct fields *f)
{
    return f->n >= 10 && all_digits(f->v[0]) && all_digits(f->v[1]) && is_dev_number(f->v[2]);
}

/* ID PARENT MAJ:MIN ROOT TARGET MOUNT-OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTS */
int mount_parse_mountinfo(struct parser *p, const struct fields *f)
{
    size_t sep = 6;
    while (sep < f->n && strcmp(f->v[sep], "-"))
        sep++;
    if (sep == f->n || f->n - sep != 4)
        return mount_fail(p,
                          "expected '- FSTYPE SOURCE SUPER-OPTIONS' at the end of the mountinfo "
                          "line, got %zu fields after '-'",
                          sep == f->n ? (size_t)0 : f->n - sep - 1);
    struct mount_info *m = p->m;
    if (!(m->target = mount_field_decoded(p, f->v[4], ESC_OCTAL)) ||
        !(m->fstype = mount_field_decoded(p, f->v[sep + 1], ESC_OCTAL)) ||
        !(m->source = mount_field_decoded(p, f->v[sep + 2], ESC_OCTAL)))
        return -1;
    mount_raw_add(p, f->v[5], ESC_OCTAL, 0);
    mount_raw_add(p, f->v[sep + 3], ESC_OCTAL, 1);
    m->form = MOUNT_FORM_MOUNTINFO;
    return 0;
}

/* SOURCE TARGET FSTYPE OPTIONS [DUMP [PASS]] (fstab, /proc/mounts), or a findmnt -n row
 * TARGET SOURCE FSTYPE OPTIONS. */
int mount_parse_table(struct parser *p, const struct fields *f)
{
    struct mount_info *m = p->m;
    for (size_t i = 4; i < f->n; i++)
        if (!all_digits(f->v[i]))
            return mount_fail(p, "expected a number for the %s field, got '%s'",
                              i == 4 ? "dump" : "pass", mount_quoted(p, f->v[i], strlen(f->v[i])));
    const char *a = f->v[0], *b = f->v[1];
    int findmnt =
        (f->n == 4 && a[0] == '/' && b[0] != '/' && strcmp(b, "none") && strcmp(b, "swap")) ||
        (f->n == 4 && a[0] == '/' && !str_starts(a, "/dev/") && str_starts(b, "/dev/"));
    if (findmnt) {
        m->target = dup_s(p, mount_strip_tree(a));
        m->source = dup_s(p, b);
        m->form = MOUNT_FORM_FINDMNT;
        mount_raw_add(p, f->v[3], ESC_NONE, 0);
    } else {
        if (!(m->source = mount_field_decoded(p, a, ESC_OCTAL)) ||
            !(m->target = mount_field_decoded(p, b, ESC_OCTAL)))
            return -1;
        m->form = MOUNT_FORM_TABLE;
        mount_raw_add(p, f->v[3], ESC_OCTAL, 0);
    }
    if (!(m->fstype = mount_field_decoded(p, f->v[2], ESC_OCTAL)))
        return -1;
    return 0;
}
