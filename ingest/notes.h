/* notes.h: private to the notes importer (notes.c, notes_ctx.c, notes_text.c). A note is
 * split into lines; pasted tool output goes to the matching importer, the surrounding text
 * gives each result its context, and results a person typed (Markdown lists, tables) are
 * read here and marked transcribed. */
#ifndef BDB_NOTES_H
#define BDB_NOTES_H

#include "importer.h"

enum nkind { NK_BLANK, NK_TEXT, NK_HEADING, NK_LABEL, NK_PROMPT, NK_TOOL };
enum ntool { NT_NONE, NT_FIO, NT_DD, NT_IPERF, NT_SYSBENCH, NT_IOZONE, NT_IOR, NT_WARP };

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
int notes_measurement_like(const char *s);

#endif
