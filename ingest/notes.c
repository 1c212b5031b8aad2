/* notes.c: free-form notes: prose with pasted tool output (fio, dd, iperf, sysbench), shell
 * transcripts, mount lines and results a person typed. Each pasted block is handed to the
 * importer that recognises it through a source pointing into the note; a wrapping sink
 * moves the line numbers to the note's and adds the context the text around gives. */
#include "notes.h"

#include <ctype.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

extern const struct importer importer_notes;

static const char *const shell_words[] = {
    "time",     "dd",     "fio",  "mount",  "umount", "cat",     "cd",
    "df",       "ls",     "rm",   "uname",  "iperf",  "iperf3",  "zfs",
    "zpool",    "ip",     "echo", "sudo",   "sync",   "kubectl", "apt",
    "yum",      "dnf",    "pwd",  "mkdir",  "export", "nfsstat", "findmnt",
    "sysbench", "iozone", "ior",  "mdtest", "mpirun", "mpiexec", "dlio_benchmark",
    "warp",     NULL,
};

static int is_shell_word(const char *s)
{
    for (size_t i = 0; shell_words[i]; i++) {
        size_t k = strlen(shell_words[i]);
        if (!strncmp(s, shell_words[i], k) && (s[k] == ' ' || s[k] == '\0'))
            return 1;
    }
    return 0;
}

/* "[user@host dir]# cmd", "user@host:dir$ cmd", "-bash-3.2# cmd", "$ cmd", "# cmd". */
static void prompt(struct arena *a, struct nline *l)
{
    const char *s = l->t, *at, *end = NULL, *host = NULL;
    size_t hn = 0;
    if (*s == '[' && (end = strchr(s, ']')) && (end[1] == '#' || end[1] == '$') &&
        (at = memchr(s, '@', (size_t)(end - s)))) {
        host = at + 1;
        hn = strcspn(host, " ]");
        end += 2;
    } else if (str_starts(s, "-bash-") && (end = strpbrk(s, "#$")) && end[1] == ' ') {
        end++;
    } else if ((s[0] == '$' || s[0] == '#') && s[1] == ' ' && is_shell_word(s + 2)) {
        end = s + 1;
    } else if ((at = strchr(s, '@')) && at > s && (end = strpbrk(at, "$#")) && end[1] == ' ' &&
               memchr(at, ':', (size_t)(end - at)) && !memchr(s, ' ', (size_t)(end - s))) {
        host = at + 1;
        hn = strcspn(host, ":");
        end++;
    } else {
        return;
    }
    l->kind = NK_PROMPT;
    l->cmd = skip_ws(end);
    if (host && hn)
        l->host = arena_strndup(a, host, hn);
}

static int digits_then(const char *s, const char *lit)
{
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    return str_starts(s, lit);
}

/* "real    15m57.921s", "user\t0m4.451s", "sys 1m52.813s" (shell time). */
static int time_line(const char *t)
{
    const char *p = t;
    if (!scan_lit(&p, "real") && !scan_lit(&p, "user") && !scan_lit(&p, "sys"))
        return 0;
    return (*p == ' ' || *p == '\t') && isdigit((unsigned char)*skip_ws(p));
}

/* The lines sysbench fileio prints unindented (ingest/sysbench.c reads them), its command line
 * and its banner; the indented lines of its result blocks continue the block. */
static int sysbench_line(const char *t)
{
    static const char *const starts[] = {
        "sysbench fileio ",
        "Running the test with following options:",
        "Number of threads: ",
        "Initializing random number generator",
        "Random number generator seed is ",
        "Extra file open flags: ",
        "Block size ",
        "Number of IO requests: ",
        "Read/Write ratio for combined random IO test: ",
        "Periodic FSYNC enabled, ",
        "Calling fsync() ",
        "Merging requests up to ",
        "Using checksums validation.",
        "Initializing worker threads...",
        "Threads started!",
        "File operations:",
        "General statistics:",
        "Latency (ms):",
        "Threads fairness:",
        "FATAL: ",
    };
    for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
        if (str_starts(t, starts[i]))
            return 1;
    return (str_starts(t, "sysbench ") && isdigit((unsigned char)t[9]) && strstr(t, " (using ")) ||
           (str_starts(t, "Doing ") && str_ends(t, " test")) ||
           (str_starts(t, "Using ") && str_ends(t, " I/O mode")) || !strcmp(t, "Throughput:") ||
           digits_then(t, " files, ") || str_ends(t, " total file size") ||
           (str_starts(t, "[ ") && strstr(t, "s ] reads: ")); /* --report-interval */
}

/* The lines iozone prints (ingest/iozone.c reads them), most of them tab-indented: its banner and
 * settings, its table's header, the throughput blocks, the end line and the Excel section's
 * quoted lines; the indented lines between them (the table's rows, the contributors) continue
 * the block. */
static int iozone_line(const char *t)
{
    static const char *const starts[] = {
        "Iozone: Performance Test of File I/O",
        "Version $Revision: ",
        "Contributors:",
        "Run began: ",
        "Auto Mode",
        "Command line used: iozone",
        "Output is in kBytes/sec",
        "Output is in Kbytes/sec",
        "OPS Mode. ",
        "Microseconds/op Mode. ",
        "O_DIRECT feature enabled",
        "SYNC Mode.",
        "Include fsync in write timing",
        "Include close in write timing",
        "Excel chart generation enabled",
        "File size set to ",
        "Record Size ",
        "Using minimum file size ",
        "Using maximum file size ",
        "Using Minimum Record Size ",
        "Using Maximum Record Size ",
        "Time Resolution = ",
        "Processor cache ",
        "File stride size set to ",
        "Throughput test with ",
        "Each process writes a ",
        "Each thread writes a ",
        "Children see throughput for ",
        "Parent sees throughput for ",
        "Min throughput per ",
        "Max throughput per ",
        "Avg throughput per ",
        "Min xfer ",
        "kB  reclen ",
        "iozone test complete.",
        "Excel output is below:",
    };
    const char *s = skip_ws(t);
    for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
        if (str_starts(s, starts[i]))
            return 1;
    /* the Excel sections: '"Writer report"', '"64"   477808 ...', '"Throughput report ...',
     * '"  Initial write "  573204.75' */
    const char *close = *s == '"' ? strchr(s + 1, '"') : NULL;
    return close &&
           (str_ends(s, " report\"") || isdigit((unsigned char)s[1]) ||
            isdigit((unsigned char)*skip_ws(close + 1)) || str_starts(s, "\"Throughput report ") ||
            str_starts(s, "\"Output is in ") || str_starts(s, "\"Record size = "));
}

/* The lines IOR and mdtest print (ingest/ior.c, mdtest.c read them): IOR's banner, its
 * "key<padding to 20>: value" lines (Began, Command line, the Options block, Finished), its
 * tables' headers and rows; mdtest's start and end lines, its launch line, its task count and
 * summary lines, whose indented rows continue the block. */
static int ior_line(const char *t)
{
    static const char *const starts[] = {
        "Options:",
        "Results:",
        "Summary of all tests:",
        "Max Write: ",
        "Max Read:  ",
        "-- started at ",
        "-- finished at ",
        "Command line used: mdtest ",
        "Nodemap: ",
        "SUMMARY rate (in ops/sec)",
        "SUMMARY time (in ms/op)",
    };
    for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
        if (str_starts(t, starts[i]))
            return 1;
    size_t n = strlen(t);
    int padded_key = n >= 21 && isalpha((unsigned char)t[0]) && t[19] == ' ' && t[20] == ':' &&
                     (t[21] == ' ' || !t[21]) && !memchr(t, ':', 20);
    int row = (str_starts(t, "write ") || str_starts(t, "read ") || str_starts(t, "remove ")) &&
              (isdigit((unsigned char)*skip_ws(t + 5)) || *skip_ws(t + 5) == '-');
    return padded_key || row || (str_starts(t, "IOR-") && strstr(t, ": MPI Coordinated Test")) ||
           (str_starts(t, "access ") && strstr(t, "bw(MiB/s)")) ||
           (str_starts(t, "Operation ") && strstr(t, "Max(MiB)")) || str_starts(t, "------    ") ||
           (str_starts(t, "mdtest-") && strstr(t, " was launched with ")) ||
           digits_then(t, " tasks, ");
}

/* The lines MinIO warp prints (ingest/warp.c reads its Report blocks): its last progress lines
 * ("Reqs: N, Errs:0, ..." and one " -  OP Average: ..." line per operation), each block's
 * "Report: OP. Concurrency: N. Ran: D" and " * " lines, a random size's "Request size A -> B"
 * lines, the segments' header and the line of '─' between blocks. */
static int warp_line(const char *t)
{
    static const char *const starts[] = {
        " * Average: ",
        " * Reqs: ",
        " * TTFB: ",
        " * Errors: ",
        " * Fastest: ",
        " * 50% Median: ",
        " * Slowest: ",
        "Throughput, split into ",
        "\xe2\x94\x80\xe2\x94\x80",
    };
    for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
        if (str_starts(t, starts[i]))
            return 1;
    return (str_starts(t, "Report: ") && strstr(t, ". Concurrency: ") && strstr(t, ". Ran: ")) ||
           (str_starts(t, "Reqs: ") && strstr(t, ", Errs:")) ||
           (str_starts(t, "Request size ") && strstr(t, " -> ") && strstr(t, "Requests: ")) ||
           (str_starts(t, " - ") && strstr(t, " Average: ") && strstr(t, " Obj/s"));
}

/* Lines that only a tool prints; indented lines after them continue a fio, sysbench or iozone
 * block. */
static enum ntool tool_line(const char *t)
{
    const char *s = skip_ws(t);
    if (strstr(t, ": (g=") || strstr(t, ": (groupid=") || str_starts(t, "fio-") ||
        str_starts(t, "Jobs: ") || str_starts(t, "Run status group ") || !strcmp(t, "...") ||
        str_starts(t, "Disk stats (") || strstr(s, ": bw=") || strstr(s, ": IOPS=") ||
        (str_starts(t, "Starting ") &&
         (digits_then(t + 9, " process") || digits_then(t + 9, " thread"))))
        return NT_FIO; /* "Starting 4 processes": the job's header lines stay in its block */
    if ((digits_then(s, "+") && (strstr(s, " records in") || strstr(s, " records out"))) ||
        (digits_then(s, " bytes") && (strstr(s, " copied") || strstr(s, " transferred"))) ||
        time_line(t))
        return NT_DD;
    if (sysbench_line(t))
        return NT_SYSBENCH; /* before iperf's: its reports open with "[ 1s ]" */
    if (iozone_line(t))
        return NT_IOZONE;
    if (ior_line(t))
        return NT_IOR; /* before iperf's: IOR's table underline starts with dashes */
    if (warp_line(t))
        return NT_WARP;
    if (str_starts(t, "Client connecting to ") || str_starts(t, "Server listening on ") ||
        str_starts(t, "TCP window size") || str_starts(t, "UDP buffer size") ||
        str_starts(t, "------------") || str_starts(t, "[ ID]") || str_starts(t, "[SUM]") ||
        (*t == '[' && isdigit((unsigned char)*skip_ws(t + 1))) || str_starts(t, "iperf Done") ||
        str_starts(t, "Connecting to host ") || str_starts(t, "- - - - ") ||
        str_starts(t, "Accepted connection from ") || str_starts(t, "iperf3: ") ||
        str_starts(t, "Server output:"))
        return NT_IPERF; /* the last five: iperf3's, so that its output is one block (with
                          * --get-server-output, the server's report of the same test) */
    return NT_NONE;
}

static void classify(struct notes *nt, struct nline *l)
{
    const char *t = l->t;
    if (!*skip_ws(t)) {
        l->kind = NK_BLANK;
        return;
    }
    l->kind = NK_TEXT;
    prompt(nt->a, l);
    if (l->kind == NK_PROMPT)
        return;
    if ((l->tool = tool_line(t)) != NT_NONE) {
        l->kind = NK_TOOL;
        return;
    }
    int h = 0;
    while (t[h] == '#')
        h++;
    if (h >= 1 && h <= 6 && t[h] == ' ') {
        l->kind = NK_HEADING;
        l->level = h;
    }
}

/* A plain-text label: a short line opening a paragraph that is no command, list item,
 * table row or key/value line ("RHEL 7:", "E1000 network adapter", "local - recordsize=..."). */
static int is_label(const struct nline *l, const struct nline *prev)
{
    const char *t = l->t;
    size_t n = strlen(t);
    if (l->kind != NK_TEXT || (prev && prev->kind != NK_BLANK) || n > 120 || n < 2)
        return 0;
    if (strchr("-*+|[`", t[0]) || str_starts(t, "\xe2\x80\xa2") || strchr(t, '\t') ||
        isspace((unsigned char)t[0]) || is_shell_word(t) || notes_is_mount_line(t))
        return 0;
    return !strchr(t, '=') || strstr(t, " - ") != NULL;
}

static void split_lines(struct notes *nt)
{
    struct line_iter it;
    const char *s;
    size_t len, a_lines = 0;
    line_iter_init(&it, nt->src->data, nt->src->len, 0);
    while (line_iter_next(&it, &s, &len)) {
        if (nt->n == a_lines) {
            a_lines = a_lines ? 2 * a_lines : 64;
            struct nline *m = arena_alloc(nt->a, a_lines * sizeof(*m));
            if (nt->n)
                memcpy(m, nt->l, nt->n * sizeof(*m));
            nt->l = m;
        }
        struct nline *l = &nt->l[nt->n++];
        memset(l, 0, sizeof(*l));
        while (len && isspace((unsigned char)s[len - 1]))
            len--;
        l->t = arena_strndup(nt->a, s, len);
        l->off = (size_t)(s - nt->src->data);
        l->no = it.lineno;
        classify(nt, l);
    }
    int fence = 0;
    for (size_t i = 0; i < nt->n; i++) {
        if (str_starts(nt->l[i].t, "```"))
            fence = !fence;
        else if (!fence && is_label(&nt->l[i], i ? &nt->l[i - 1] : NULL))
            nt->l[i].kind = NK_LABEL;
    }
}

/* ---- pasted tool output ---- */

struct wrap {
    struct notes *nt;
    size_t first, last; /* the block's line indices */
    unsigned shift;
    const struct importer *imp;
};

static int wrap_emit(void *ctx, const struct bench_record *rec)
{
    struct wrap *w = ctx;
    struct bench_record r = *rec;
    r.tags = NULL;
    r.n_tags = r.a_tags = 0;
    for (size_t i = 0; i < rec->n_tags; i++)
        record_tag(w->nt->a, &r, rec->tags[i].key, rec->tags[i].value);
    r.metrics = arena_alloc(w->nt->a, (rec->n_metrics + 1) * sizeof(*r.metrics));
    if (rec->n_metrics) /* metrics may be NULL when there are none */
        memcpy(r.metrics, rec->metrics, rec->n_metrics * sizeof(*r.metrics));
    r.a_metrics = rec->n_metrics + 1;
    size_t first = w->first, last = w->last;
    if (rec->line_first) {
        r.line_first = rec->line_first + w->shift;
        r.line_last = rec->line_last + w->shift;
        while (first < w->last && w->nt->l[first].no < r.line_first)
            first++;
        while (last > first && w->nt->l[last].no > r.line_last)
            last--;
    }
    notes_context(w->nt, first, last, &r, 0, NULL);
    return notes_emit(w->nt, &r);
}

static int discard(void *ctx, const struct bench_record *rec)
{
    (void)rec;
    (*(size_t *)ctx)++;
    return 0;
}

static void quiet(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx;
    (void)level;
    (void)line;
}

/* The importer that takes the block whole, tried on a quiet diag first so that a block it
 * rejects can still be read line by line here. */
static const struct importer *block_importer(const struct source *sub)
{
    int best_score;
    const struct importer *best = importer_detect_other(sub, &importer_notes, &best_score);
    if (!best || best_score < 50)
        return NULL;
    struct diag q = {quiet, NULL, 0, 0, 0};
    size_t count = 0;
    struct record_sink s = {discard, &count};
    struct arena scratch = ARENA_INIT;
    int rc = best->parse(sub, &scratch, &s, &q);
    arena_release(&scratch);
    return rc == 0 && count ? best : NULL;
}

static void mark_used(struct notes *nt, size_t first, size_t last)
{
    for (size_t i = first; i <= last; i++)
        nt->l[i].used = 1;
}

/* The block's bytes with its last line's line end. Importers take a last line without one for
 * a line the end of the input cut; a note's last line is whole (people end notes anywhere), so
 * a block there gets a copy with the line end added. */
static struct source block_source(const struct notes *nt, size_t first, size_t last)
{
    const struct nline *f = &nt->l[first], *e = &nt->l[last];
    const char *data = nt->src->data;
    size_t end = e->off + strlen(e->t);
    if (end < nt->src->len && data[end] == '\r')
        end++;
    if (end < nt->src->len && data[end] == '\n')
        return (struct source){nt->src->path, data + f->off, end + 1 - f->off};
    size_t n = end - f->off;
    char *copy = arena_alloc(nt->a, n + 2);
    memcpy(copy, data + f->off, n);
    memcpy(copy + n, "\n", 2);
    return (struct source){nt->src->path, copy, n + 1};
}

static int import_block(struct notes *nt, size_t first, size_t last)
{
    const struct nline *f = &nt->l[first];
    struct source sub = block_source(nt, first, last);
    const struct importer *imp = block_importer(&sub);
    if (!imp)
        return notes_fio_lines(nt, first, last);
    struct wrap w = {nt, first, last, f->no - 1, imp};
    struct record_sink s = {wrap_emit, &w};
    if (imp->parse(&sub, nt->a, &s, nt->d))
        return -1;
    mark_used(nt, first, last);
    return 0;
}

static int continues(const struct notes *nt, size_t i, enum ntool tool)
{
    const struct nline *l = &nt->l[i];
    int indented_continues =
        tool == NT_FIO || tool == NT_SYSBENCH || tool == NT_IOZONE || tool == NT_IOR;
    if (l->kind == NK_TOOL || (indented_continues && isspace((unsigned char)l->t[0])))
        return l->kind != NK_TOOL || l->tool == tool || isspace((unsigned char)l->t[0]);
    if (l->kind != NK_BLANK)
        return 0;
    while (i < nt->n && nt->l[i].kind == NK_BLANK)
        i++;
    return i < nt->n && nt->l[i].kind == NK_TOOL && nt->l[i].tool == tool;
}

static int tool_blocks(struct notes *nt)
{
    for (size_t i = 0; i < nt->n; i++) {
        if (nt->l[i].kind != NK_TOOL)
            continue;
        size_t first = i, last = i;
        enum ntool tool = nt->l[i].tool;
        if (i && nt->l[i - 1].kind == NK_PROMPT)
            first = i - 1;
        while (last + 1 < nt->n && continues(nt, last + 1, tool))
            last++;
        while (nt->l[last].kind == NK_BLANK)
            last--;
        if (import_block(nt, first, last))
            return -1;
        i = last;
    }
    return 0;
}

/* With d->verbose, one note per line that looks like a result but went into none. */
static void report_unused(struct notes *nt)
{
    if (!nt->d->verbose || !nt->d->emit)
        return;
    for (size_t i = 0; i < nt->n; i++) {
        const struct nline *l = &nt->l[i];
        if (l->used || !notes_measurement_like(l->t))
            continue;
        struct buf b = BUF_INIT;
        buf_addf(&b, "%s:%u: note: unused measurement '%s'", nt->src->path, l->no, skip_ws(l->t));
        nt->d->emit(nt->d->ctx, DIAG_NOTE, b.data);
        buf_release(&b);
    }
}

static int parse(const struct source *src, struct arena *a, struct record_sink *out, struct diag *d)
{
    struct notes nt = {src, a, d, out, NULL, 0, NULL, 0, 0, NULL, 0, 0};
    if (memchr(src->data, '\0', src->len))
        return diag_error_at(d, src,
                             (size_t)((const char *)memchr(src->data, '\0', src->len) - src->data),
                             "unexpected NUL byte in a text note");
    split_lines(&nt);
    notes_scan_jobs(&nt);
    if (tool_blocks(&nt) || notes_markdown(&nt) || notes_tables(&nt))
        return -1;
    report_unused(&nt);
    return 0;
}

/* Prose plus lines that look like results scores 10..30, below any importer that recognises
 * the whole file. A document whose own structure says a person wrote it (headings, labels,
 * shell prompts around the tool output) is notes even when one tool's output dominates it:
 * the other importers would drop the context. */
/* 1 when some line could be prose as probe counts it (its first character after blanks a
 * letter, a space in it): without one there are no notes, and probe need not classify every
 * line (which took 0.1 s over the 1 MiB it sees of a fio log). */
static int prose_possible(const struct source *src)
{
    struct line_iter it;
    const char *s;
    size_t len;
    line_iter_init(&it, src->data, src->len, 0);
    while (line_iter_next(&it, &s, &len)) {
        size_t i = 0;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i < len && isalpha((unsigned char)s[i]) && memchr(s + i, ' ', len - i))
            return 1;
    }
    return 0;
}

static int probe(const struct source *src)
{
    if (memchr(src->data, '\0', src->len) || !prose_possible(src))
        return 0;
    struct arena a = ARENA_INIT;
    struct notes nt = {src, &a, NULL, NULL, NULL, 0, NULL, 0, 0, NULL, 0, 0};
    split_lines(&nt);
    unsigned prose = 0, measure = 0, written = 0, tool = 0;
    for (size_t i = 0; i < nt.n; i++) {
        const struct nline *l = &nt.l[i];
        written += l->kind == NK_HEADING || l->kind == NK_LABEL || l->kind == NK_PROMPT;
        tool += l->kind == NK_TOOL;
        if (notes_measurement_like(l->t))
            measure++;
        else if (strchr(l->t, ' ') && isalpha((unsigned char)*skip_ws(l->t)))
            prose++;
    }
    arena_release(&a);
    /* a tool's lines count as measurements: sysbench prints its figures without units */
    if (!prose || !(measure || tool))
        return 0;
    if (written >= 3 && tool)
        return 97;
    return measure > 20 ? 30 : 10 + (int)measure;
}

const struct importer importer_notes = {
    .name = "notes",
    .summary = "free-form notes with pasted tool output, transcribed results and context",
    .probe = probe,
    .parse = parse,
};
