/* cmd_run.c: benchdb run: runs fio, dd or iperf3, and imports its output with the context
 * the output does not tell: host, kernel, OS, tool version, command line, and the mount of
 * every file or directory the benchmark touches. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/arena.h"
#include "../core/scan.h"
#include "../core/xalloc.h"

static const char usage[] =
    "usage: benchdb run [OPTIONS] -- TOOL ARGS...\n"
    "\n"
    "Run a benchmark (fio, dd or iperf3) and import its output in one step. fio gets\n"
    "--output-format=json (or json added to the format given) and iperf3 -J when absent;\n"
    "dd's report is read from its standard error. Recorded with the results: the host name,\n"
    "tags kernel, os, cmdline and tool_version, and the mount (fs type, source, options, NFS\n"
    "sec, tag mountpoint) of the files and directories the job touches. The output is stored\n"
    "as source 'run:TOOL@TIME'. A benchmark that fails is reported and nothing is imported.\n"
    "\n"
    "  --host H              host name (default: this host's)\n"
    "  --storage-class S     storage class\n"
    "  --mount OPTS_OR_LINE  mount to record instead of the detected one\n"
    "  --sec FLAVOR          NFS security flavor instead of the mount's\n"
    "  --tag K=V             free tag (repeatable; wins over the recorded ones)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb run --storage-class nfs-csi -- fio --name=r --filename=/mnt/f --size=64M \\\n"
    "      --rw=randread --bs=4k\n"
    "  benchdb run --tag link=10g -- iperf3 -c server -t 10\n";

/* A growable argv whose strings live in an arena. */
struct strv {
    char **v;
    size_t n, alloc;
};

static void strv_push(struct strv *s, char *arg)
{
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n++] = arg;
    s->v[s->n] = NULL;
}

struct run {
    const struct tool *tool;
    struct strv argv;         /* what is executed */
    struct strv paths;        /* files and directories the job touches */
    struct kv_list user_tags; /* --tag K=V */
    const char *output;       /* fio --output FILE, else NULL: read the captured stream */
    struct import_labels labels;
    struct arena mem;
};

struct tool {
    const char *name, *format;
    int from_stderr;
    void (*prepare)(struct run *r);
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
static void add_fio_paths(struct run *r, const char *list, size_t len, const char *dir)
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
static void scan_job_file(struct run *r, const char *path)
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

static void prepare_fio(struct run *r)
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

static void prepare_dd(struct run *r)
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

static void prepare_iperf3(struct run *r)
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

/* The labels to store: the command line's over what was recorded (db_labels_overlay); *tags
 * is the caller's to free. */
static void label_run(struct app *app, struct run *r, struct import_labels *out, struct kv **tags)
{
    struct run_context c;
    struct kv recorded_tags[RUN_CONTEXT_TAGS];
    struct import_labels recorded;
    run_context_capture(&c, r->argv.v, r->paths.v, r->paths.n, &r->mem, &app->diag);
    run_context_labels(&c, recorded_tags, &recorded);
    r->labels.tags = r->user_tags.v;
    r->labels.n_tags = r->user_tags.n;
    db_labels_overlay(&r->labels, &recorded, out, tags);
}

static int report_failure(struct app *app, const struct run *r, int status, const struct buf *out,
                          const struct buf *err)
{
    fwrite(out->data, 1, out->len, stderr);
    fwrite(err->data, 1, err->len, stderr);
    if (status < 0)
        return diag_error(&app->diag, "cannot run '%s': %s", r->argv.v[0], strerror(errno));
    return diag_error(&app->diag, "'%s' exited with status %d; nothing imported", r->argv.v[0],
                      status);
}

/* Runs the benchmark and imports its output; an exit status. */
static int run_and_import(struct app *app, struct run *r)
{
    struct buf out = BUF_INIT, err = BUF_INIT, file = BUF_INIT;
    char when[32];
    now_iso(when);
    int status = import_execute(r->argv.v, &out, &err);
    if (status != 0) {
        report_failure(app, r, status, &out, &err);
        status = BDB_EXIT_INPUT;
    }
    struct buf *result = r->tool->from_stderr ? &err : &out;
    FILE *f = status == 0 && r->output ? fopen(r->output, "rb") : NULL;
    if (status == 0 && r->output && (!f || buf_read_file(&file, f))) {
        diag_error(&app->diag, "cannot read fio output '%s': %s", r->output, strerror(errno));
        status = BDB_EXIT_ENV;
    }
    if (f)
        fclose(f);
    if (r->output)
        result = &file;
    struct db *db = NULL;
    if (status == 0) {
        struct kv *tags = NULL;
        struct import_options o = {.format = r->tool->format, .now = now_iso};
        label_run(app, r, &o.labels, &tags);
        struct source src = {arena_printf(&r->mem, "run:%s@%s", r->tool->name, when), result->data,
                             result->len};
        status = open_db(app, DB_CREATE, &db)
                     ? BDB_EXIT_ENV
                     : import_exit_status(import_store(db, &o, &src, &app->diag));
        free(tags);
    }
    db_close(db);
    buf_release(&out);
    buf_release(&err);
    buf_release(&file);
    return status;
}

static int parse_options(int argc, char **argv, struct run *r)
{
    static const struct option longopts[] = {
        LABEL_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        if (label_option(c, optarg, &r->labels))
            continue;
        switch (c) {
        case 't':
            if (kv_option("run", "tag", optarg, &r->user_tags))
                return usage_exit(usage, BDB_EXIT_USAGE);
            break;
        default:
            return usage_option(c, usage);
        }
    }
    if (optind == argc)
        return usage_error(usage, "run", "no benchmark to run");
    const char *base = strrchr(argv[optind], '/');
    base = base ? base + 1 : argv[optind];
    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
        if (!strcmp(tools[i].name, base))
            r->tool = &tools[i];
    if (!r->tool) {
        fprintf(stderr, "benchdb run: error: cannot run '%s': expected fio, dd or iperf3\n",
                argv[optind]);
        return BDB_EXIT_USAGE;
    }
    for (int i = optind; i < argc; i++)
        strv_push(&r->argv, argv[i]);
    return BDB_EXIT_OK;
}

int cmd_run(int argc, char **argv, struct app *app)
{
    struct run r = {0};
    int status = parse_options(argc, argv, &r);
    if (status == BDB_EXIT_OK) {
        r.tool->prepare(&r);
        status = run_and_import(app, &r);
    }
    free(r.argv.v);
    free(r.paths.v);
    kv_list_release(&r.user_tags);
    arena_release(&r.mem);
    return status < 0 ? BDB_EXIT_OK : status;
}
