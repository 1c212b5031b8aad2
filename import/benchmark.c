/* benchmark.c: what `benchdb run` knows of a benchmark's command line: the tool (fio, dd,
 * iperf3) and its output format, the options that make it print JSON, and the files and
 * directories the job touches (whose mount is recorded). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/array.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "internal.h"

/* The most of the stream benchdb does not import (dd's standard output, fio's and iperf3's
 * standard error, or both of fio's with --output) held to show when the benchmark fails. */
#define RUN_MESSAGES_MAX_MIB 16

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

/* fio's options that take no value from the argument after them: its own options with
 * no_argument or optional_argument, and the job options of type FIO_OPT_STR_SET (engines'
 * included), which it gives optional_argument (fio 3.33 to 3.38: init.c l_opts,
 * options.c add_to_lopt). Every other option takes one, as --opt=V or as --opt V, with one
 * dash or two (getopt_long_only). Sorted, for bsearch. */
static const char *const fio_flags[] = {
    "append-terse",
    "blocksize_unaligned",
    "bs_unaligned",
    "cmdhelp",
    "cpuclock-test",
    "crctest",
    "dummy",
    "enghelp",
    "exitall",
    "exitall_on_error",
    "fixedbufs",
    "group_reporting",
    "help",
    "hipri",
    "libblkio_force_enable_completion_eventfd",
    "libblkio_write_zeroes_on_trim",
    "listen",
    "memcpytest",
    "merge-blktrace-only",
    "minimal",
    "new_group",
    "no_completion_thread",
    "norandommap",
    "parse-only",
    "pingpong",
    "prep",
    "readonly",
    "refill_buffers",
    "registerfiles",
    "server",
    "showcmd",
    "sqthread_poll",
    "stonewall",
    "thread",
    "time_based",
    "userspace_reap",
    "verify_only",
    "version",
    "wait_for_previous",
    "warnings-fatal",
    "xnvme_iovec",
    "zero_buffers",
};

/* fio's one-letter options that take a value (-o FILE: l_opts' required_argument). */
static const char fio_short_values[] = "oleFOEdxXapjVDCRILWBHJK";

/* The most of a job file read for its filename= and directory= lines: a job file is a few
 * lines, so a bigger file where one stands is not one. */
enum { JOB_FILE_MAX = 1 << 20 };

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

/* One argument of fio's command line, as fio's getopt_long_only reads it. */
struct fio_arg {
    const char *name;  /* the option's name (its long name for -o and -F), NULL: a job file */
    const char *value; /* its value, or the job file; NULL for an option without one */
    size_t at;         /* the index of the argument holding value */
};

/* Reads the argument at *i (and the value after it when the option takes one), moving *i
 * past them: 0 at the end. *ended is set after "--", past which all are job files. */
static int fio_next_arg(char **a, size_t *i, int *ended, struct fio_arg *out, struct arena *mem)
{
    for (;;) {
        const char *arg = a[*i];
        if (!arg)
            return 0;
        *out = (struct fio_arg){NULL, arg, *i};
        (*i)++;
        if (*ended || arg[0] != '-' || !arg[1])
            return 1;
        if (!strcmp(arg, "--")) {
            *ended = 1;
            continue;
        }
        const char *name = arg + 1 + (arg[1] == '-'), *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        int is_short = arg[1] != '-' && n == 1;
        out->name = arena_strndup(mem, name, n);
        out->value = eq ? eq + 1 : NULL;
        if (is_short && *name == 'o')
            out->name = "output";
        else if (is_short && *name == 'F')
            out->name = "output-format";
        int takes_value = is_short ? strchr(fio_short_values, *name) != NULL
                                   : !bsearch(out->name, fio_flags, ARRAY_SIZE(fio_flags),
                                              sizeof(fio_flags[0]), cmp_name);
        if (!eq && takes_value && a[*i]) {
            out->value = a[*i];
            out->at = (*i)++;
        }
        return 1;
    }
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

/* Reads the regular file path of at most max bytes into text: 0; -1 when it cannot be read
 * (errno set), 1 when it is larger, 2 when it is not a regular file (a device, FIFO or socket
 * is never read, nor opened: it could block, or never end). */
static int read_small_file(const char *path, size_t max, struct buf *text)
{
    struct stat st;
    if (stat(path, &st))
        return -1;
    if (!S_ISREG(st.st_mode))
        return 2;
    if ((uint64_t)st.st_size > max)
        return 1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fstat(fd, &st) ? -1 : !S_ISREG(st.st_mode) ? 2 : 0;
    while (rc == 0) {
        buf_grow(text, 64 << 10);
        ssize_t n = read(fd, text->data + text->len, 64 << 10);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        text->len += (size_t)n;
        text->data[text->len] = '\0';
        if (text->len > max)
            rc = 1; /* it grew */
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* filename= and directory= lines of a fio job file. */
static void scan_job_file(struct benchmark *r, const char *path)
{
    struct buf text = BUF_INIT;
    if (!strcmp(path, "-") || read_small_file(path, JOB_FILE_MAX, &text)) {
        buf_release(&text); /* fio reads "-" from its standard input */
        return;
    }
    struct line_iter it;
    const char *line;
    size_t len;
    line_iter_init(&it, text.data, text.len, 0);
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
    size_t format_at = 0, i = 1;
    int ended = 0;
    struct fio_arg arg;
    while (fio_next_arg(a, &i, &ended, &arg, &r->mem)) {
        if (!arg.name)
            scan_job_file(r, arg.value);
        else if (!arg.value)
            continue;
        else if (!strcmp(arg.name, "output-format")) {
            format = arg.value;
            format_at = arg.at;
        } else if (!strcmp(arg.name, "output"))
            r->output = arg.value;
        else if (!strcmp(arg.name, "directory"))
            dir = arg.value;
    }
    for (i = 1, ended = 0; fio_next_arg(a, &i, &ended, &arg, &r->mem);)
        if (arg.name && arg.value && !strcmp(arg.name, "filename"))
            add_fio_paths(r, arg.value, strlen(arg.value), dir);
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
    for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
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
    b->capture_max[0] = b->capture_max[1] = (size_t)RUN_MESSAGES_MAX_MIB << 20;
    if (!b->output) /* what is imported may be as large as an imported file */
        b->capture_max[b->from_stderr] = (size_t)HELD_MAX_MIB << 20;
    return 0;
}

int benchmark_read_output(const struct benchmark *b, struct buf *out, struct diag *d)
{
    int rc = read_small_file(b->output, (size_t)HELD_MAX_MIB << 20, out);
    if (rc == 1)
        return diag_error(d, "cannot read fio output '%s': larger than %d MiB", b->output,
                          HELD_MAX_MIB);
    if (rc == 2)
        return diag_error(d, "cannot read fio output '%s': not a regular file", b->output);
    if (rc)
        return diag_error(d, "cannot read fio output '%s': %s", b->output, strerror(errno));
    return 0;
}

void benchmark_release(struct benchmark *b)
{
    free(b->argv.v);
    free(b->paths.v);
    arena_release(&b->mem);
}
