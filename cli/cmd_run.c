/* cmd_run.c: benchdb run: runs fio, dd or iperf3, and imports its output with the context
 * the output does not tell: host, kernel, OS, tool version, command line, and the mount of
 * every file or directory the benchmark touches. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"

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

struct run {
    struct benchmark bench;
    struct kv_list user_tags; /* --tag K=V */
    struct import_labels labels;
};

/* The labels to store: the command line's over what was recorded (db_labels_overlay); *tags
 * is the caller's to free. */
static void label_run(struct app *app, struct run *r, struct import_labels *out, struct kv **tags)
{
    struct run_context c;
    struct kv recorded_tags[RUN_CONTEXT_TAGS];
    struct import_labels recorded;
    run_context_capture(&c, r->bench.argv.v, r->bench.paths.v, r->bench.paths.n, &r->bench.mem,
                        &app->diag);
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
        return diag_error(&app->diag, "cannot run '%s': %s", r->bench.argv.v[0], strerror(errno));
    return diag_error(&app->diag, "'%s' exited with status %d; nothing imported",
                      r->bench.argv.v[0], status);
}

/* Runs the benchmark and imports its output; an exit status. */
static int run_and_import(struct app *app, struct run *r)
{
    struct buf out = BUF_INIT, err = BUF_INIT, file = BUF_INIT;
    char when[32];
    now_iso(when);
    const struct benchmark *b = &r->bench;
    int status = import_execute(b->argv.v, &out, &err);
    if (status != 0) {
        report_failure(app, r, status, &out, &err);
        status = BDB_EXIT_INPUT;
    }
    struct buf *result = b->from_stderr ? &err : &out;
    FILE *f = status == 0 && b->output ? fopen(b->output, "rb") : NULL;
    if (status == 0 && b->output && (!f || buf_read_file(&file, f))) {
        diag_error(&app->diag, "cannot read fio output '%s': %s", b->output, strerror(errno));
        status = BDB_EXIT_ENV;
    }
    if (f)
        fclose(f);
    if (b->output)
        result = &file;
    struct db *db = NULL;
    if (status == 0) {
        struct kv *tags = NULL;
        struct import_options o = {.format = b->format, .now = now_iso};
        label_run(app, r, &o.labels, &tags);
        struct source src = {arena_printf(&r->bench.mem, "run:%s@%s", b->tool, when), result->data,
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
    if (benchmark_prepare(&r->bench, argv + optind, (size_t)(argc - optind))) {
        fprintf(stderr, "benchdb run: error: cannot run '%s': expected fio, dd or iperf3\n",
                argv[optind]);
        return BDB_EXIT_USAGE;
    }
    return BDB_EXIT_OK;
}

int cmd_run(int argc, char **argv, struct app *app)
{
    struct run r = {0};
    int status = parse_options(argc, argv, &r);
    if (status == BDB_EXIT_OK)
        status = run_and_import(app, &r);
    benchmark_release(&r.bench);
    kv_list_release(&r.user_tags);
    return status < 0 ? BDB_EXIT_OK : status;
}
