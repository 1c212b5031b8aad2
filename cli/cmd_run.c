/* cmd_run.c: benchdb run: runs fio, dd or iperf3, and imports its output with the context
 * the output does not tell: host, kernel, OS, tool version, command line, and the mount of
 * every file or directory the benchmark touches. */
#define _XOPEN_SOURCE 700 /* sync */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/arena.h"
#include "../core/xalloc.h"
#include "../query/compare.h"
#include "../query/gate.h"
#include "../query/query.h"
#include "../query/sides.h"
#include "progress.h"

/* The tag --repeat auto gives each of its runs, 'run:TOOL@TIME' of the first: its candidate. */
#define RUN_SET_TAG "run_set"
/* The fewest runs a side needs for an interval, before which no verdict is asked for. */
#define MIN_RUNS 2

static const char usage[] =
    "usage: benchdb run [OPTIONS] -- TOOL ARGS...\n"
    "\n"
    "Run a benchmark (fio, dd or iperf3) and import its output in one step. fio gets\n"
    "--output-format=json (or json added to the format given) and iperf3 -J when absent;\n"
    "dd's report is read from its standard error. Recorded with the results: the host name,\n"
    "tags kernel, os, cmdline and tool_version, and the mount (fs type, source, options, NFS\n"
    "sec, tag mountpoint) of the files and directories the job touches. The output is stored\n"
    "as source 'run:TOOL@TIME' ('run:TOOL@TIME#K' for the K-th of --repeat N). A benchmark that\n"
    "fails, writes more than benchdb holds (256 MiB of what it imports, 16 MiB of the other\n"
    "stream) or is stopped by a signal sent to benchdb (which sends it on) is reported and\n"
    "nothing of that run is imported. Then one line per job and direction says what the runs\n"
    "measured: the mean IOPS (random I/O) or bandwidth and p99 latency, with their standard\n"
    "deviation over the runs (n >= 2).\n"
    "\n"
    "  --host H              host name (default: this host's)\n"
    "  --storage-class S     storage class\n"
    "  --mount OPTS_OR_LINE  mount to record instead of the detected one\n"
    "  --sec FLAVOR          NFS security flavor instead of the mount's\n"
    "  --tag K=V             free tag (repeatable; wins over the recorded ones)\n"
    "  --repeat N            run the benchmark N times (1 to 1000), each run imported as its own\n"
    "                        source (verdicts need n >= 2)\n"
    "  --repeat auto         run it until the runs made are judged against --against as\n"
    "                        'benchdb check' judges a candidate: every metric passed or a\n"
    "                        regression, or --max runs; each run gets tag run_set=run:TOOL@TIME\n"
    "                        (the first run's) and the exit status is check's (0, 1, 4)\n"
    "  --max N               the most runs --repeat auto makes (2 to 1000, default 10)\n"
    "  --against VALUE       the baseline of --repeat auto: a value of --by, or baseline:NAME\n"
    "  --by KEY              what --against is a value of (default storage-class)\n"
    "  --limit SPEC, --limits FILE, --threshold PCT\n"
    "                        the limits of --repeat auto, as 'benchdb check' takes them\n"
    "  --prepare CMD         run CMD (with /bin/sh -c) before each run: a failure stops there\n"
    "  --cleanup CMD         run CMD after each run, also a failed one (remove the test file)\n"
    "  --drop-caches         before each run, write dirty pages back and drop the page cache,\n"
    "                        dentries and inodes (root: /proc/sys/vm/drop_caches), so that a\n"
    "                        repeat does not read what the previous one left in memory\n"
    "  -h, --help            show this help\n"
    "\n"
    "Examples:\n"
    "  benchdb run --storage-class nfs-csi -- fio --name=r --filename=/mnt/f --size=64M \\\n"
    "      --rw=randread --bs=4k\n"
    "  benchdb run --tag link=10g -- iperf3 -c server -t 10\n"
    "  benchdb run --repeat 5 --drop-caches --cleanup 'rm -f /mnt/f' -- fio --name=r \\\n"
    "      --filename=/mnt/f --size=1G --rw=read --bs=1M\n"
    "  benchdb run --repeat auto --max 12 --against baseline:nightly --limit bw:-10% \\\n"
    "      --storage-class nfs-csi -- fio job.fio\n";

struct run {
    struct benchmark bench;
    struct kv_list user_tags; /* --tag K=V */
    struct import_labels labels;
    unsigned repeat;           /* --repeat N; --repeat auto: --max */
    int repeat_auto;           /* --repeat auto */
    unsigned max;              /* --max N */
    const char *against, *by;  /* --against VALUE, --by KEY: auto's baseline */
    struct gate_limits limits; /* --limit, --limits: auto's */
    const char *limits_file;
    struct buf limits_text;        /* the limits file's, which its limits point into */
    double threshold_pct;          /* --threshold */
    const char *run_set;           /* auto: the tag value of the runs made, its candidate */
    const char *prepare, *cleanup; /* --prepare CMD, --cleanup CMD: around each run */
    int drop_caches;               /* --drop-caches: before each run */
    const char **sources;          /* of the runs stored, for the summary */
    size_t nsources;
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

/* The benchmark was stopped by benchdb (x says why); its other stream, the messages, are
 * shown, not the one that went over its limit. An exit status. */
static int report_stop(struct app *app, const struct run *r, const struct child_run *x,
                       const struct buf *out, const struct buf *err)
{
    const char *tool = r->bench.argv.v[0];
    if (x->signal) {
        diag_error(
            &app->diag,
            "stopped by signal %d (%s) while '%s' ran, which was stopped too; nothing imported",
            x->signal, strsignal(x->signal), tool);
        return 128 + x->signal; /* a shell's status for a command a signal ended */
    }
    const struct buf *shown = x->overflow == STDOUT_FILENO ? err : out;
    fwrite(shown->data, 1, shown->len, stderr);
    size_t max = r->bench.capture_max[x->overflow == STDERR_FILENO];
    diag_error(&app->diag,
               "'%s' wrote more than %zu MiB to its standard %s, the most benchdb holds: it was "
               "stopped; nothing imported%s",
               tool, max >> 20, x->overflow == STDOUT_FILENO ? "output" : "error",
               !strcmp(r->bench.tool, "dd") && x->overflow == STDOUT_FILENO
                   ? " (give dd of=FILE or of=/dev/null)"
                   : "");
    return BDB_EXIT_INPUT;
}

/* Runs a --prepare or --cleanup command with /bin/sh -c: BDB_EXIT_OK, or BDB_EXIT_INPUT after
 * its output and a message (what fails is the user's command, as a benchmark's failure is). */
static int run_hook(struct app *app, const char *option, const char *cmd, unsigned k)
{
    char sh[] = "/bin/sh", c[] = "-c", *line = xstrdup(cmd);
    char *const argv[] = {sh, c, line, NULL};
    struct buf out = BUF_INIT, err = BUF_INIT;
    int status = import_execute(argv, &out, &err);
    free(line);
    if (status != 0) {
        fwrite(out.data, 1, out.len, stderr);
        fwrite(err.data, 1, err.len, stderr);
        if (status < 0)
            diag_error(&app->diag, "cannot run --%s '%s': %s", option, cmd, strerror(errno));
        else
            diag_error(&app->diag, "--%s '%s' exited with status %d (run %u)", option, cmd, status,
                       k);
    }
    buf_release(&out);
    buf_release(&err);
    return status ? BDB_EXIT_INPUT : BDB_EXIT_OK;
}

/* Writes dirty pages back, then drops the clean page cache, dentries and inodes (the kernel's
 * drop_caches: 3), so that a run reads from the storage what the previous one left in memory. */
static int drop_caches(struct app *app)
{
    sync();
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    int ok = f && fputs("3\n", f) >= 0;
    if (f && fclose(f))
        ok = 0;
    if (!ok)
        diag_error(&app->diag,
                   "--drop-caches: cannot write /proc/sys/vm/drop_caches: %s (it "
                   "takes root)",
                   strerror(errno));
    return ok ? BDB_EXIT_OK : BDB_EXIT_ENV;
}

/* Runs the benchmark (the k-th time of r->repeat) and imports its output; an exit status. */
static int run_and_import(struct app *app, struct run *r, unsigned k)
{
    struct buf out = BUF_INIT, err = BUF_INIT, file = BUF_INIT;
    char when[32];
    now_iso(when);
    const struct benchmark *b = &r->bench;
    struct child_run x = {.max = {b->capture_max[0], b->capture_max[1]}};
    int status = import_run(b->argv.v, &out, &err, &x);
    if (x.signal || x.overflow)
        status = report_stop(app, r, &x, &out, &err);
    else if (status != 0) {
        report_failure(app, r, status, &out, &err);
        status = BDB_EXIT_INPUT;
    }
    struct buf *result = b->from_stderr ? &err : &out;
    if (status == 0 && b->output && benchmark_read_output(b, &file, &app->diag))
        status = BDB_EXIT_ENV;
    if (b->output)
        result = &file;
    struct db *db = NULL;
    if (status == 0) {
        struct kv *tags = NULL;
        struct import_options o = {.format = b->format, .now = now_iso};
        label_run(app, r, &o.labels, &tags);
        const char *name = r->repeat > 1
                               ? arena_printf(&r->bench.mem, "run:%s@%s#%u", b->tool, when, k)
                               : arena_printf(&r->bench.mem, "run:%s@%s", b->tool, when);
        struct source src = {name, result->data, result->len};
        status = open_db(app, DB_CREATE, &db)
                     ? BDB_EXIT_ENV
                     : import_exit_status(import_store(db, &o, &src, &app->diag));
        if (status == BDB_EXIT_OK)
            r->sources[r->nsources++] = name;
        free(tags);
    }
    db_close(db);
    buf_release(&out);
    buf_release(&err);
    buf_release(&file);
    return status;
}

/* The k-th run with what goes around it: --drop-caches and --prepare before (a failure stops
 * there), --cleanup after, whatever the run did; an exit status. */
static int run_once(struct app *app, struct run *r, unsigned k)
{
    int status = r->drop_caches ? drop_caches(app) : BDB_EXIT_OK;
    if (status == BDB_EXIT_OK && r->prepare)
        status = run_hook(app, "prepare", r->prepare, k);
    if (status != BDB_EXIT_OK)
        return status;
    status = run_and_import(app, r, k);
    int cleaned = r->cleanup ? run_hook(app, "cleanup", r->cleanup, k) : BDB_EXIT_OK;
    return status != BDB_EXIT_OK ? status : cleaned;
}

/* "112k IOPS ± 1.2k": a summary cell's mean and spread, the unit after the mean; the count
 * "(n=5)" when with_n. */
static void add_measure(struct buf *out, const struct cell *c, const char *unit, int with_n)
{
    unit_format(out, c->value, c->unit);
    buf_adds(out, unit);
    if (cell_has_spread(c)) {
        buf_adds(out, " \xc2\xb1 ");
        unit_format(out, c->sd, c->unit);
    }
    if (with_n)
        buf_addf(out, " (n=%d)", c->n);
}

/* One line per row of the summary on stdout, hyperfine's way:
 * "r: Random Read 4K QD1 (storage class nvme): 112k IOPS ± 1.2k (n=5), p99 310 µs ± 12.0 µs". */
static void print_summary(const struct table *t, const char *storage_class)
{
    struct buf line = BUF_INIT;
    for (size_t i = 0; i < t->nrows; i++) {
        const struct cell *row = t->rows[i];
        buf_reset(&line);
        buf_adds(&line, row[0].text);
        if (storage_class)
            buf_addf(&line, " (storage class %s)", storage_class);
        buf_adds(&line, ":");
        if (row[1].kind == CELL_NUMBER) {
            buf_adds(&line, " ");
            add_measure(&line, &row[1], row[1].unit == UNIT_IOPS ? " IOPS" : "", 1);
        }
        if (row[2].kind == CELL_NUMBER) {
            buf_adds(&line, row[1].kind == CELL_NUMBER ? ", p99 " : " p99 ");
            add_measure(&line, &row[2], "", row[1].kind != CELL_NUMBER);
        }
        puts(line.data);
    }
    fflush(stdout);
    buf_release(&line);
}

/* What the stored runs measured, on stdout: BDB_EXIT_OK or BDB_EXIT_ENV. */
static int summarize(struct app *app, const struct run *r)
{
    struct db *db;
    if (!r->nsources)
        return BDB_EXIT_OK;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    struct report rep;
    report_init(&rep, "run");
    int rc = query_run_summary(db, r->sources, r->nsources, &rep, &app->diag);
    if (rc == 0)
        print_summary(rep.sections[rep.nsections - 1].table, r->labels.storage_class);
    report_release(&rep);
    db_close(db);
    return rc ? BDB_EXIT_ENV : BDB_EXIT_OK;
}

/* Whether more runs of the candidate could decide an inconclusive row: not when the baseline
 * has a single run of it, which no number of candidate runs gives an interval. */
static int more_runs_help(const struct gate *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].outcome == GATE_INCONCLUSIVE && g->v[i].base && g->v[i].base->n >= MIN_RUNS)
            return 1;
    return 0;
}

/* --repeat auto: judges the runs made so far against --against as 'benchdb check' judges a
 * candidate. 1 when decided (a regression, no metric inconclusive, nothing compared, or
 * nothing more runs could decide), 0 to run again, -1 on failure. With print, the verdict goes to
 * standard output and its exit status to *status. */
static int judge(struct app *app, const struct run *r, int print, int *status)
{
    const char *values[] = {r->against, r->run_set};
    const char *keys[] = {r->by, "tag:" RUN_SET_TAG};
    struct compare_opts o = {.by = r->by, .values = values, .nvalues = 2, .keys = keys};
    struct gate_config c = {r->limits.v, r->limits.n, r->threshold_pct, NULL, 0, 0};
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return -1;
    struct report rep;
    report_init(&rep, "run");
    int decided = -1;
    if (!query_compare(db, &o, &rep, &app->diag)) {
        struct gate g;
        gate_evaluate(&rep, &c, &g);
        /* a regression stands whatever the rows still inconclusive come to */
        decided = g.count[GATE_FAIL] || !g.count[GATE_INCONCLUSIVE] || !more_runs_help(&g);
        if (print) {
            const char *word;
            *status = gate_status(&g, NULL, &word);
            gate_print("run", &g, &c);
            if (!decided)
                printf("run: --max %u runs made, and still inconclusive\n", r->repeat);
        }
        gate_release(&g);
    }
    report_release(&rep);
    db_close(db);
    return decided;
}

/* --repeat auto's baseline has results (as check says when it has none): 0, or an exit
 * status after the message. */
static int check_against(struct app *app, const struct run *r)
{
    const char *values[] = {r->against};
    struct compare_opts o = {.by = r->by, .values = values, .nvalues = 1};
    struct db *db;
    if (open_db(app, DB_READ_ONLY, &db))
        return BDB_EXIT_ENV;
    int rc = query_check_sides(db, &o, &app->diag);
    db_close(db);
    return rc ? BDB_EXIT_INPUT : BDB_EXIT_OK;
}

/* Runs the benchmark r->repeat times (--repeat auto: until judged, at most --max) with a
 * progress line, then the summary: an exit status. */
static int run_all(struct app *app, struct run *r)
{
    struct progress pg;
    struct diag saved = app->diag;
    int status = BDB_EXIT_OK;
    r->sources = xcalloc(r->repeat, sizeof(*r->sources));
    progress_start(&pg, r->repeat, "runs");
    if (pg.on) { /* messages erase the status line first */
        app->diag.emit = progress_emit;
        app->diag.ctx = &pg;
    }
    int decided = 0;
    for (unsigned k = 1; k <= r->repeat && status == BDB_EXIT_OK && !decided; k++) {
        char doing[64];
        snprintf(doing, sizeof(doing), "run %u/%u", k, r->repeat);
        progress_show(&pg, doing);
        status = run_once(app, r, k);
        progress_step(&pg, NULL);
        if (status == BDB_EXIT_OK && r->repeat_auto && k >= MIN_RUNS &&
            (decided = judge(app, r, 0, NULL)) < 0)
            status = BDB_EXIT_ENV;
    }
    progress_end(&pg);
    app->diag.emit = saved.emit;
    app->diag.ctx = saved.ctx;
    int summary = summarize(app, r);
    if (status == BDB_EXIT_OK && summary == BDB_EXIT_OK && r->repeat_auto &&
        judge(app, r, 1, &summary) < 0)
        summary = BDB_EXIT_ENV;
    return status != BDB_EXIT_OK ? status : summary;
}

/* --repeat N (1 to 1000) or auto. */
static int opt_repeat(const struct opt *opt, char *arg, const char *cmd)
{
    struct run *r = opt->value;
    char *end;
    errno = 0;
    unsigned long n = strtoul(arg, &end, 10);
    r->repeat_auto = !strcmp(arg, "auto");
    if (r->repeat_auto || (*arg >= '0' && *arg <= '9' && !*end && !errno && n >= 1 && n <= 1000)) {
        r->repeat = r->repeat_auto ? 0 : (unsigned)n;
        return 0;
    }
    cli_error(cmd, "expected --repeat 1..1000 or auto, got '%s'", arg);
    return -1;
}

/* What --repeat auto needs, and what only it takes: BDB_EXIT_OK or a usage error. */
static int check_auto(struct run *r, struct app *app)
{
    if (!r->repeat_auto) {
        const char *only = r->against                       ? "--against"
                           : r->max                         ? "--max"
                           : r->limits.n || r->limits_file  ? "--limit(s)"
                           : r->threshold_pct >= 0          ? "--threshold"
                           : strcmp(r->by, "storage-class") ? "--by"
                                                            : NULL;
        return only ? usage_error("run", "%s goes with --repeat auto", only) : BDB_EXIT_OK;
    }
    if (!r->against)
        return usage_error("run", "--repeat auto needs --against, the baseline its runs are "
                                  "judged against");
    for (size_t i = 0; i < r->user_tags.n; i++)
        if (!strcmp(r->user_tags.v[i].key, RUN_SET_TAG))
            return usage_error("run", "--tag " RUN_SET_TAG " is --repeat auto's own");
    r->repeat = r->max ? r->max : 10;
    if (r->repeat < MIN_RUNS)
        return usage_error("run", "expected --max 2..1000, got '%u'", r->repeat);
    if (r->threshold_pct < 0)
        r->threshold_pct = 5;
    int status = r->limits_file
                     ? read_limits_file(r->limits_file, &r->limits, &r->limits_text, &app->diag)
                     : BDB_EXIT_OK;
    char when[32];
    now_iso(when);
    r->run_set = arena_printf(&r->bench.mem, "run:%s@%s", r->bench.tool, when);
    kv_list_add(&r->user_tags, RUN_SET_TAG, r->run_set);
    return status;
}

static int parse(struct app *app, int argc, char **argv, struct run *r)
{
    const struct opt opts[] = {
        OPT_LABELS(&r->labels, &r->user_tags),
        OPT_CALLBACK(0, "repeat", r, "N", "run the benchmark N times, or auto", opt_repeat),
        OPT_UINT(0, "max", &r->max, 1000, "the most runs --repeat auto makes"),
        OPT_STRING(0, "against", &r->against, "VALUE", "the baseline of --repeat auto"),
        OPT_CALLBACK(0, "by", &r->by, "KEY", "what --against is a value of", opt_by),
        OPT_CALLBACK(0, "limit", &r->limits, "SPEC", "a limit on one metric ('bw:-5%')", opt_limit),
        OPT_STRING(0, "limits", &r->limits_file, "FILE", "limits from a file, one a line"),
        OPT_CALLBACK(0, "threshold", &r->threshold_pct, "PCT",
                     "the relative limit of metrics no limit names", opt_threshold),
        OPT_STRING(0, "prepare", &r->prepare, "CMD", "run CMD before each run"),
        OPT_STRING(0, "cleanup", &r->cleanup, "CMD", "run CMD after each run"),
        OPT_FLAG(0, "drop-caches", &r->drop_caches, "drop the page cache before each run"),
        OPT_END(),
    };
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_STOP_AT_OPERAND);
    if (status != BDB_EXIT_OK)
        return status;
    if (argc == 1)
        return usage_error("run", "no benchmark to run");
    if (benchmark_prepare(&r->bench, argv + 1, (size_t)(argc - 1)))
        return usage_error("run", "cannot run '%s': expected fio, dd or iperf3", argv[1]);
    return check_auto(r, app);
}

int cmd_run(int argc, char **argv, struct app *app)
{
    struct run r = {.repeat = 1, .by = "storage-class", .threshold_pct = -1};
    int status = parse(app, argc, argv, &r);
    if (status == BDB_EXIT_OK && r.repeat_auto)
        status = check_against(app, &r);
    if (status == BDB_EXIT_OK)
        status = run_all(app, &r);
    free(r.sources);
    benchmark_release(&r.bench);
    kv_list_release(&r.user_tags);
    gate_limits_release(&r.limits);
    buf_release(&r.limits_text);
    return status < 0 ? BDB_EXIT_OK : status;
}
