/* report.h: the neutral report model shared by every renderer, and the renderers.
 * A report is a title, key/value facts, and sections of CommonMark prose and typed tables.
 * Values are in base units; only the renderers format them (report/units.c). */
#ifndef BDB_REPORT_H
#define BDB_REPORT_H

#include <stddef.h>

#include "../core/arena.h"
#include "../core/buf.h"
#include "../core/diag.h"

/* Base units of numeric cells; renderers choose the human unit. */
enum unit {
    UNIT_NONE,    /* a plain number */
    UNIT_BYTES_S, /* bytes per second */
    UNIT_BYTES,   /* bytes */
    UNIT_IOPS,    /* operations per second */
    UNIT_NS,      /* nanoseconds */
    UNIT_RATIO,   /* a factor, candidate vs baseline */
    UNIT_PERCENT,
    UNIT_BITS_S, /* bits per second: network links, as they are rated (decimal prefixes) */
};

enum cell_kind { CELL_EMPTY, CELL_TEXT, CELL_NUMBER };

enum verdict { VERDICT_NONE, VERDICT_SIGNIFICANT, VERDICT_NOT_SIGNIFICANT, VERDICT_SINGLE_RUN };

struct cell {
    enum cell_kind kind;
    const char *text;     /* CELL_TEXT; for numbers an optional human phrase ("30.0x faster") */
    double value;         /* CELL_NUMBER, in the column's base unit */
    double sd;            /* spread of repeated runs; NAN when unknown */
    int n;                /* number of runs averaged; 0 when not applicable */
    enum verdict verdict; /* for factors */
    double lo, hi;        /* 95 % interval of a factor, or of the mean of averaged runs; NAN */
    enum unit unit;       /* UNIT_NONE: the column's unit */
    double min, max;      /* range of averaged runs; NAN when unknown */
    double p;             /* a factor's test p-value (Welch), before correction; NAN */
    double alt;           /* a second view of the same value (IOPS beside bandwidth); NAN */
};

struct column {
    const char *name;
    enum unit unit;
};

struct table {
    const char *name; /* short identifier: sheet or CSV file name */
    struct column *cols;
    size_t ncols;
    struct cell *cells; /* row-major, nrows * ncols */
    size_t nrows, arows;
};

struct section {
    const char *heading;
    const char *prose; /* CommonMark, may be NULL */
    struct table *table;
    int appendix; /* data for spreadsheets and CSV (runs, results): md and html skip it */
};

struct fact {
    const char *key, *value;
};

struct report {
    struct arena arena; /* owns everything below */
    const char *title;
    const char *generated;     /* from SOURCE_DATE_EPOCH or --now; NULL: not stated */
    long long generated_epoch; /* the same time in Unix seconds, when generated is set */
    struct fact *facts;
    size_t nfacts, afacts;
    struct section *sections;
    size_t nsections, asections;
};

void report_init(struct report *r, const char *title);
void report_release(struct report *r);
void report_fact(struct report *r, const char *key, const char *value);
struct section *report_section(struct report *r, const char *heading, const char *prose);
struct table *report_table(struct report *r, struct section *s, const char *name,
                           const struct column *cols, size_t ncols);
/* The unit a cell is shown in: its own, else its column's. */
enum unit cell_unit(const struct table *t, size_t row, size_t col);
/* Fill a cell of a new row (borrowed text must outlive the report: literals or arena). */
void cell_set_text(struct cell *c, const char *text);
void cell_set_number(struct cell *c, double value);
/* Appends a row of empty cells and returns it. */
struct cell *table_add_row(struct report *r, struct table *t);

/* Human text of a value in its unit: "70.2 MiB/s", "212 ms", "308k", "30.0x". */
void unit_format(struct buf *out, double v, enum unit u);
/* The human unit unit_format shows v in: returns the divisor, *name gets "MiB/s", "µs", ... */
double unit_scale(double v, enum unit u, const char **name);
/* "significant", "not significant", "single run"; "" for VERDICT_NONE. */
const char *verdict_text(enum verdict v);
const char *unit_name(enum unit u);

/* A file of templates/ as compiled into the binary (NUL-terminated), or NULL. */
const char *report_builtin_file(const char *name, size_t *len);

/* Appends one CSV field: RFC 4180 quoting when needed. Text that a spreadsheet would evaluate
 * (=, +, -, @, tab, CR at the start) is prefixed with a quote character (OWASP CSV injection
 * guidance). */
void report_csv_field(struct buf *out, const char *s);
/* Appends text from the inputs so that CommonMark shows it literally. */
void report_md_escape(struct buf *out, const char *s);

int render_md(const struct report *r, struct buf *out, struct diag *d);
/* One table (by name; NULL: the first) as CSV. */
int render_csv(const struct report *r, const char *table, struct buf *out, struct diag *d);
/* One self-contained HTML5 page. template_dir (may be NULL) holds report.html and style.css
 * that replace the built-in ones. */
int render_html(const struct report *r, const char *template_dir, struct buf *out, struct diag *d);
/* An Excel workbook at path (libxlsxwriter 1.1.4 writes files only, no memory buffer). */
int render_xlsx(const struct report *r, const char *path, struct diag *d);

#endif
