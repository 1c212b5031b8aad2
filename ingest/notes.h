/* notes.h: private to the notes importer (notes.c, notes_ctx.c, notes_text.c). A note is
 * split into lines; pasted tool output goes to the matching importer, the surrounding text
 * gives each result its context, and results a person typed (Markdown lists, tables) are
 * read here and marked transcribed. */
#ifndef BDB_NOTES_H
#define BDB_NOTES_H

#include "importer.h"

enum nkind { NK_BLANK, NK_TEXT, NK_HEADING, NK_LABEL, NK_PROMPT, NK_TOOL };
enum ntool { NT_NONE, NT_FIO, NT_DD, NT_IPERF };

struct nline {
    char *t;          /* the line, NUL-terminated, without its terminator */
    size_t off;       /* byte offset in the source */
    unsigned no;      /* 1-based line number */
    const char *cmd;  /* after a shell prompt: the command; else NULL */
    const char *host; /* host named by the prompt; NULL none */
    int level;        /* NK_HEADING: 1..6 */
    enum nkind kind;
    enum ntool tool;
    int used; /* part of an emitted result */
};

/* A fio job as a command line or a job-file section shows it. */
struct fio_job {
    size_t at; /* line index */
    const char *name, *path;
    struct workload wl;
};

struct emitted {
    const char *metric;
    double value;
};

struct notes {
    const struct source *src;
    struct arena *a;
    struct diag *d;
    struct record_sink *out;
    struct nline *l;
    size_t n;
    struct fio_job *jobs;
    size_t n_jobs, a_jobs;
    struct emitted *vals; /* every metric emitted so far (restated tables) */
    size_t n_vals, a_vals;
};

/* The files call in one direction: notes.c -> notes_text.c -> notes_ctx.c. */

/* notes_ctx.c */
void notes_scan_jobs(struct notes *nt);
/* Adds what the text around lines [first, last] says; family is 'r', 'w', 'm' or 0 and
 * hint a word that names the fio job (a table column), or NULL. */
void notes_context(struct notes *nt, size_t first, size_t last, struct bench_record *r, char family,
                   const char *hint);
int notes_is_mount_line(const char *s);
/* Tag os (e.g. "RHEL 7") when the result's label or heading names an OS release; of a client
 * and a server ("from RHEL 4u7 to Fedora 8 Host"), os is the client's, server_os the server's. */
void notes_os_tag(struct notes *nt, struct bench_record *r);
/* The heading/label text that governs line i and its parents, joined with " / ". */
const char *notes_heading_chain(struct notes *nt, size_t i);
/* Emits r through nt->out, remembering its values (for restated tables): every result of a
 * note, pasted or typed, leaves through here. */
int notes_emit(struct notes *nt, struct bench_record *r);
/* s[0..n) without leading and trailing white space, copied into a. */
char *notes_trim(struct arena *a, const char *s, size_t n);

/* notes_text.c */
int notes_fio_lines(struct notes *nt, size_t first, size_t last);
int notes_markdown(struct notes *nt);
int notes_tables(struct notes *nt);
/* A value with its unit ("70.2 MiB/s", "212 ms", "36.5k", "2,056") in a base unit: kind 'b'
 * bytes/s, 't' ns, 's' bytes, 'c' count; the whole of s[0..n) must be the value. *ulp is the
 * unit of its last digit (70.2 MiB/s: 0.1 MiB/s), to tell a rounded restatement. */
int notes_value(const char *s, size_t n, double *v, char *kind, double *ulp);
int notes_measurement_like(const char *s);

#endif
