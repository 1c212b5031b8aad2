/* benchmark.c: what `benchdb run` knows of a benchmark's command line: the tool (fio, dd,
 * iperf3) and its output format, the options that make it print JSON, and the files and
 * directories the job touches (whose mount is recorded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/scan.h"
#include "../core/xalloc.h"
#include "import.h"

static void strv_push(struct strv *s, char *arg)
{
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n++] = arg;
    s->v[s->n] = NULL;
}

struct tool {
    const char *name, *format;
    int from_stderr;
    void (*prepare)(struct benchmark *b);
};

/* The value of option name in arg ("--name=V"), or of the next argument ("--name V"). */
static const char *opt_value(char *const *argv, size_t i, const char *name, size_t *used)
{
    const char *a = argv[i];
    size_t n = strlen(name);
    if (a[0] != '-' || strncmp(a + 1 + (a[1] == '-'), name, n))
        return NULL;
    a += 1 + (a[1] == '-') + n;
    if (*a == '=') {
        *used = 1;
        return a + 1;
    }
    if (*a || !argv[i + 1])
        return NULL;
    *used = 2;
    return argv[i + 1];
}

/* Adds each ':'-separated name, relative ones under dir when given (fio's rules). */
static void add_fio_paths(struct benchmark *r, const char *list, size_t len, const char *dir)
{
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        const char *stop = colon ? colon : end;
        if (stop > p)
            strv_push(&r->paths, *p != '/' && dir
                                     ? arena_printf(&r->mem, "%s/%.*s", dir, (int)(stop - p), p)
                                     : arena_strndup(&r->mem, p, (size_t)(stop - p)));
        p = stop + 1;
    }
}

/* filename= and directory= lines of a fio job file. */
static void scan_job_file(struct benchmark *r, const char *path)
{
    FILE *f = fopen(path, "rb");
    struct buf text = BUF_INIT;
    if (!f)
        return;
    int bad = buf_read_file(&text, f);
    fclose(f);
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, text.data, bad ? 0 : text.len, 0);
    while (line_iter_next(&it, &line, &len)) {
        const char *p = skip_ws(line), *end = line + len;
        int is_dir = scan_lit(&p, "directory");
        if (!is_dir && !scan_lit(&p, "filename"))
            continue;
        p = skip_ws(p);
        if (p >= end || *p != '=')
            continue;
        p = skip_ws(p + 1);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        add_fio_paths(r, p, (size_t)(end - p), NULL);
    }
    buf_release(&text);
}

static void prepare_fio(struct benchmark *r)
{
    char **a = r->argv.v;
    const char *dir = NULL, *format = NULL;
    size_t format_at = 0, used = 0;
    for (size_t i = 1; a[i]; i += used) {
        const char *v;
        used = 1;
        if ((v = opt_value(a, i, "output-format", &used))) {
            format = v;
            format_at = i + used - 1;
        } else if ((v = opt_value(a, i, "output", &used))) {
            r->output = v;
        } else if ((v = opt_value(a, i, "directory", &used))) {
            dir = v;
        } else if (a[i][0] != '-') {
            scan_job_file(r, a[i]);
        }
    }
    for (size_t i = 1; a[i]; i += used) {
        const char *v = opt_value(a, i, "filename", &used);
        if (!v)
            used = 1;
        else
            add_fio_paths(r, v, strlen(v), dir);
    }
    if (dir)
        add_fio_paths(r, dir, strlen(dir), NULL);
    if (!r->paths.n)
        strv_push(&r->paths,
                  arena_strdup(&r->mem, ".")); /* fio creates its files in the working directory */
    if (!format)
        strv_push(&r->argv, arena_strdup(&r->mem, "--output-format=json"));
    else if (!strstr(format, "json"))
        a[format_at] = a[format_at] == format
                           ? arena_printf(&r->mem, "%s,json", format)
                           : arena_printf(&r->mem, "--output-format=%s,json", format);
}

static void prepare_dd(struct benchmark *r)
{
    static const char *const operands[] = {"of=", "if="};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 1; r->argv.v[i]; i++) {
            const char *a = r->argv.v[i];
            struct stat st;
            if (strncmp(a, operands[k], 3) || (stat(a + 3, &st) == 0 && S_ISCHR(st.st_mode)))
                continue; /* /dev/zero and the like say nothing about storage */
            strv_push(&r->paths, arena_strdup(&r->mem, a + 3));
        }
    }
}

static void prepare_iperf3(struct benchmark *r)
{
    for (size_t i = 1; r->argv.v[i]; i++)
        if (!strcmp(r->argv.v[i], "-J") || !strcmp(r->argv.v[i], "--json"))
            return;
    strv_push(&r->argv, arena_strdup(&r->mem, "-J"));
}

static const struct tool tools[] = {
    {"dd", "dd", 1, prepare_dd},
    {"fio", "fio-json", 0, prepare_fio},
    {"iperf3", "iperf3-json", 0, prepare_iperf3},
};

int benchmark_prepare(struct benchmark *b, char *const *argv, size_t argc)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const struct tool *tool = NULL;
    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
        if (!strcmp(tools[i].name, base))
            tool = &tools[i];
    if (!tool)
        return -1;
    b->tool = tool->name;
    b->format = tool->format;
    b->from_stderr = tool->from_stderr;
    for (size_t i = 0; i < argc; i++)
        strv_push(&b->argv, argv[i]);
    tool->prepare(b);
    return 0;
}

void benchmark_release(struct benchmark *b)
{
    free(b->argv.v);
    free(b->paths.v);
    arena_release(&b->mem);
}
