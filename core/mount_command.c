/* mount_command.c: a mount command line ([sudo] mount -t TYPE -o OPTS SOURCE TARGET,
 * mount.TYPE ...), split as a shell would (quotes, no expansions). */
#include "mount_parse.h"

#include "scan.h"
#include "xalloc.h"

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
                    return mount_fail(p, "unterminated quote in command '%s'",
                                      mount_quoted(p, s - 1, strlen(s - 1)));
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

int mount_is_mount_program(const char *w)
{
    const char *base = strrchr(w, '/');
    base = base ? base + 1 : w;
    return !strcmp(base, "mount") || str_starts(base, "mount.");
}

/* [sudo] mount [-t TYPE] [-o OPTS]... SOURCE [TARGET], or mount.TYPE SOURCE TARGET -o OPTS */
int mount_parse_command(struct parser *p, const char *s)
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
    if (!rc && str_starts(prog, "mount.") && prog[6])
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
        else if (str_starts(a, "--types="))
            val = a + 8, type = 1;
        else if (str_starts(a, "--options="))
            val = a + 10, opts = 1;
        else if (str_starts(a, "-t") || str_starts(a, "-F"))
            val = a + 2, type = 1;
        else if (str_starts(a, "-o"))
            val = a + 2, opts = 1;
        if ((type || opts) && !val) {
            if (i + 1 == f.n) {
                rc = mount_fail(p, "option '%s' of the mount command needs a value",
                                mount_quoted(p, a, strlen(a)));
                break;
            }
            val = f.v[++i];
        }
        if (type)
            m->fstype = dup_s(p, val);
        else if (opts)
            mount_raw_add(p, val, ESC_NONE, 0);
        else if (!strcmp(a, "-r") || !strcmp(a, "--read-only"))
            mount_raw_add(p, "ro", ESC_NONE, 0);
        else if (!strcmp(a, "-w") || !strcmp(a, "--rw") || !strcmp(a, "--read-write"))
            mount_raw_add(p, "rw", ESC_NONE, 0);
        else if (a[0] == '-')
            continue; /* -v, -f, -n, ... do not change the options */
        else if (n_pos == 2)
            rc = mount_fail(p,
                            "unexpected argument '%s' after SOURCE and TARGET of the mount command",
                            mount_quoted(p, a, strlen(a)));
        else
            pos[n_pos++] = a;
    }
    if (!rc && n_pos == 0)
        rc = mount_fail(p, "the mount command names no SOURCE or TARGET");
    if (!rc) {
        m->source = dup_s(p, pos[0]);
        m->target = pos[1] ? dup_s(p, pos[1]) : NULL;
        /* mount(8) takes host:/dir as nfs when no type is given */
        if (!m->fstype && strstr(m->source, ":/"))
            m->fstype = dup_s(p, "nfs");
        m->form = MOUNT_FORM_COMMAND;
    }
    mount_fields_free(&f);
    return rc;
}
