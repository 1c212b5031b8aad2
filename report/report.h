/* report.h: the neutral report model shared by every renderer, and the renderers.
 * A report is a title, key/value facts, and sections of CommonMark prose and typed tables.
 * Values are in base units; only the renderers format them (report/units.c). */
#ifndef BDB_REPORT_H
#define BDB_REPORT_H

#include <stddef.h>
#include <stdint.h>

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

/* A factor's verdict, after Holm's correction over the report's tests: significant (a direction
 * and its interval), equivalent (not significant, the whole interval within the margin),
 * inconclusive (neither: too few runs or too much spread to tell), single run (no test). */
enum verdict {
    VERDICT_NONE,
    VERDICT_SIGNIFICANT,
    VERDICT_EQUIVALENT,
    VERDICT_INCONCLUSIVE,
    VERDICT_SINGLE_RUN
};

struct cell {
    enum cell_kind kind;
    const char *text;      /* CELL_TEXT; for numbers an optional human phrase ("30.0x faster") */
    double value;          /* CELL_NUMBER, in the column's base unit */
    double sd;             /* spread of repeated runs; NAN when unknown */
    int n;                 /* number of runs averaged; 0 when not applicable */
    enum verdict verdict;  /* for factors */
    const char *direction; /* a significant factor's verdict with its direction: "2.60x faster" */
    double lo, hi;         /* 95 % interval of a factor, or of the mean of averaged runs; NAN */
    enum unit unit;        /* UNIT_NONE: the column's unit */
    double min, max;       /* range of averaged runs; NAN when unknown */
    double p;              /* a factor's test p-value (Welch), before correction; NAN */
    double p_holm;         /* the same after Holm's correction over the report: the verdict's */
    double sd_log;         /* a factor's spread: sd of ln of its runs, sides pooled; NAN */
    const char *caution;   /* why a factor's number may not stand for the storage ("both
                            * cached"); NULL. The text says it too; colour never marks it */
    double alt;            /* a second view of the same value (IOPS beside bandwidth); NAN */
    int exact;             /* CELL_NUMBER read from an integer: integer is its exact value */
    long long integer;     /* (a double holds 53 bits; a query's 64-bit integer stays whole) */
};

/* What a column holds, set where the table is built; renderers, CSV sub-columns and charts
 * read it instead of guessing from table names and positions. */
enum column_role {
    ROLE_PLAIN,  /* text, or numbers shown in their human unit */
    ROLE_KEY,    /* names the row's subject (the workload): a chart's bar group */
    ROLE_METRIC, /* names the row's measure: a chart per metric */
    ROLE_SIDE,   /* one compared side's values: means of repeats with their spread */
    ROLE_FACTOR, /* a candidate against the baseline: factor, 95 % interval, verdict */
    ROLE_FIELD,  /* a stored field as the warehouse holds it: numbers exact, in base units */
    ROLE_TIME,   /* when: ISO 8601 text (core/timerange.h reads it): a line chart's x */
    ROLE_VALUE,  /* a series' value in its row's unit (CSV and JSON name it): a line chart's y */
    ROLE_CHANGE, /* text on the rows where a series changes level: marked on the line chart */
};

struct column {
    const char *name;
    enum unit unit;
    enum column_role role;
};

struct table {
    const char *name; /* short identifier: sheet or CSV file name */
    struct column *cols;
    size_t ncols;
    /* rows[r]: row r's ncols cells. A row never moves once added, so a pointer to a cell (a
     * factor whose verdict is decided after the last row, a regression check prints) stays
     * valid while the table grows; only the array of row pointers is reallocated. */
    struct cell **rows;
    size_t nrows, arows;
};

/* Cell col of row r. */
static inline struct cell *table_cell(const struct table *t, size_t r, size_t col)
{
    return &t->rows[r][col];
}

/* ---- figures: every chart of a report is data (a figure) and one plot writer per page kind
 * draws any figure (report/plot_svg.c for HTML, report/xlsx_charts.c for native charts). ---- */

/* What a figure shows; HTML names it in data-kind ("bars", "percentiles", ...). */
enum figure_kind { FIGURE_BARS, FIGURE_PERCENTILES, FIGURE_TIMESERIES, FIGURE_SCALING };

enum axis_scale {
    SCALE_LINEAR,
    SCALE_LOG,   /* decades: values spanning more than 100x, latencies */
    SCALE_NINES, /* percentiles: p90, p99, p99.9 equally spaced (-log10(1 - p/100)) */
    SCALE_DATE,  /* Unix seconds from the first to the last, ticks labelled as UTC dates */
};

struct figure_axis {
    const char *title; /* "Latency", "IOPS", "Percentile" (the unit is added by the writer) */
    enum unit unit;    /* of the values on the axis, in base units */
    enum axis_scale scale;
};

struct figure_point {
    double x, y;   /* bars: x is the category's index */
    double lo, hi; /* y's error bar (a 95 % interval) or band (min/max); NAN: none */
    int weak;      /* rests on too little data (a percentile with < 10 samples beyond it) */
    const struct cell *cell; /* bars: the table cell shown (spread, run count); NULL */
    const char *label;       /* bars: the text beside the bar ("1.52x"); NULL: its value */
};

struct figure_series {
    const char *name; /* legend: the compared side */
    struct figure_point *v;
    size_t n, a;
    int band; /* lo/hi are a band around the line (min/max of downsampled points), not bars */
    const char *note; /* one line on what the series shows (steady state, a cliff); NULL */
};

/* A point of interest drawn over the series: the knee of a scaling curve, a cliff in time. */
struct figure_mark {
    double x, y; /* y NAN: a vertical line at x */
    const char *label;
};

struct figure {
    enum figure_kind kind;
    const char *title; /* the caption */
    const char *note;  /* a sentence under the chart (how to read it, what is flagged); NULL */
    struct figure_axis x, y;
    const char **categories; /* bars: the category names (workloads), x = 0 .. n-1 */
    size_t ncategories, acategories;
    struct figure_series *series;
    size_t nseries, aseries;
    struct figure_mark *marks;
    size_t nmarks, amarks;
};

/* A figure in arena a (everything added to it lives there too). */
struct figure *figure_new(struct arena *a, enum figure_kind kind, const char *title);
size_t figure_category(struct arena *a, struct figure *f, const char *name);
struct figure_series *figure_series(struct arena *a, struct figure *f, const char *name);
/* Appends a point (lo, hi NAN; not weak) and returns it. */
struct figure_point *figure_point(struct arena *a, struct figure_series *s, double x, double y);
void figure_mark(struct arena *a, struct figure *f, double x, double y, const char *label);
/* "bars", "percentiles", "timeseries", "scaling" */
const char *figure_kind_name(enum figure_kind k);
/* Puts f's value axis on a log scale when its values span more than FIGURE_LOG_SPAN (figure.c):
 * the largest above 100 times the smallest positive one. */
void figure_fit_scale(struct figure *f);
/* The smallest and largest finite y (with error bars and bands) of f's points; 0 when none. */
int figure_y_range(const struct figure *f, double *lo, double *hi);

struct report;
/* For each table of r with ROLE_KEY, ROLE_TIME, ROLE_VALUE and ROLE_CHANGE columns (a series'
 * rows together, in time order; benchdb trend's values), a FIGURE_TIMESERIES per series in its
 * section: the values at their times (x in Unix seconds on a date axis, y from 0), a dashed
 * line at each row with ROLE_CHANGE text, labelled with it. */
void report_time_figures(struct report *r);

struct section {
    const char *heading;
    const char *prose; /* CommonMark, may be NULL */
    struct table *table;
    struct figure **figures; /* drawn after the table (in the report's arena) */
    size_t nfigures, afigures;
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
/* Adds a new figure to s and returns it. */
struct figure *section_figure(struct report *r, struct section *s, enum figure_kind kind,
                              const char *title);
void report_fact(struct report *r, const char *key, const char *value);
struct section *report_section(struct report *r, const char *heading, const char *prose);
struct table *report_table(struct report *r, struct section *s, const char *name,
                           const struct column *cols, size_t ncols);
/* The table named name (NULL: the first of any name), or NULL. */
const struct table *report_find_table(const struct report *r, const char *name);
/* The unit a cell is shown in: its own, else its column's. */
enum unit cell_unit(const struct table *t, size_t row, size_t col);
/* Fill a cell of a new row (borrowed text must outlive the report: literals or arena). */
void cell_set_text(struct cell *c, const char *text);
void cell_set_number(struct cell *c, double value);
/* Appends a row of empty cells and returns it. */
struct cell *table_add_row(struct report *r, struct table *t);
/* A table outside any report (benchdb runs, query, runs --history): its rows stream through it
 * a batch at a time, their cells and text held in rows until row_table_clear. */
struct row_table {
    struct table t;
    struct arena names; /* the table's and its columns' names */
    struct arena rows;
};
void row_table_init(struct row_table *rt, const char *name, const struct column *cols,
                    size_t ncols);
struct cell *row_table_add(struct row_table *rt);
void row_table_clear(struct row_table *rt);
void row_table_release(struct row_table *rt);

/* The first column of role, or t->ncols when there is none. */
size_t table_find_role(const struct table *t, enum column_role role);

/* The rule every page follows for a value: a mean of two or more runs shows its sample
 * standard deviation (when known) and its run count; a single run shows the value alone. */
int cell_averaged(const struct cell *c);
int cell_has_spread(const struct cell *c);
/* What a page puts around the parts of a value; NULL alt_open: the second view is left out. */
struct value_marks {
    const char *sd_open, *sd_close;   /* " ± " "" */
    const char *n_open, *n_close;     /* " (n=" ")" */
    const char *alt_open, *alt_close; /* "; " " IOPS" */
};
extern const struct value_marks VALUE_MARKS_TEXT; /* "70.2 MiB/s ± 1.2 MiB/s (n=3); 17.5k IOPS" */
/* A number cell's value as a page shows it (a cell with a phrase shows the phrase instead, in the
 * page's escaping): the value in unit u, its spread and run count as cell_averaged says, and its
 * second view (IOPS beside bandwidth), each set apart by m. */
void value_format(struct buf *out, const struct cell *c, enum unit u, const struct value_marks *m);

/* The page walk every page renderer shares (cmark's renderer idea): the walk visits the title,
 * the facts (and "Generated" when the report states a time), then each section that is not an
 * appendix with its table; each renderer supplies what a node becomes. NULL callbacks are
 * skipped. */
struct report_walker {
    void (*title)(void *ctx, const char *title);
    void (*fact)(void *ctx, const char *key, const char *value);
    void (*facts_end)(void *ctx);
    void (*section)(void *ctx, const struct section *s); /* its heading and prose */
    void (*table)(void *ctx, const struct table *t);
    void (*section_end)(void *ctx, const struct section *s);
    void (*figure)(void *ctx, const struct figure *f); /* each of the section's figures, after
                                                          its table */
};
void report_walk(const struct report *r, const struct report_walker *w, void *ctx);

/* Human text of a value in its unit: "70.2 MiB/s", "212 ms", "308k", "30.0x". */
void unit_format(struct buf *out, double v, enum unit u);
/* The human unit unit_format shows v in: returns the divisor, *name gets "MiB/s", "µs", ... */
double unit_scale(double v, enum unit u, const char **name);
/* "significant", "not significant", "single run"; "" for VERDICT_NONE. */
const char *verdict_text(enum verdict v);
const char *unit_name(enum unit u);
/* A value as a person types it, in base unit u: "50MiB/s" or "50 MB/s" (bytes; "/s" optional),
 * "2ms" (ns), "5k" (IOPS and plain counts: k, M, G), "20%" (percent), or a bare number in the
 * base unit. 0 and *out, or -1. */
int unit_parse(const char *s, enum unit u, double *out);

/* A file of templates/ as compiled into the binary (NUL-terminated), or NULL. */
const char *report_builtin_file(const char *name, size_t *len);

/* Appends one CSV field: RFC 4180 quoting when needed. Text that a spreadsheet would evaluate
 * (=, +, -, @, tab, CR at the start) is prefixed with a quote character (OWASP CSV injection
 * guidance). */
void report_csv_field(struct buf *out, const char *s);
/* A cell as a JSON value: text a string, empty null, numbers exact (integers whole). */
void report_json_value(struct buf *out, const struct cell *c);
/* Appends text from the inputs so that CommonMark shows it literally. */
void report_md_escape(struct buf *out, const char *s);

int render_md(const struct report *r, struct buf *out, struct diag *d);
/* The report as JSON, shape version 1 (docs/report.schema.json). */
int render_json(const struct report *r, struct buf *out, struct diag *d);

/* A table as text, written as its rows come: an aligned grid, RFC 4180 CSV (header first), a
 * JSON array of objects (one per row, keyed by column name), newline-delimited JSON (the same
 * objects, one per line: jq -c's and sqlite-utils --nl's form), or a Markdown table. Cells are
 * shown as stored: numbers exact, in base units. The grid and Markdown escape control characters
 * (\x1b, \n: a name must neither drive the terminal nor split a row) and Markdown its own
 * syntax too; CSV and JSON keep the text exact, quoted their own way. */
enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_JSON, TABLE_MD, TABLE_NDJSON };
/* The grid and Markdown size their columns from the first rows: the others stream. */
static inline int table_format_sized(enum table_format fmt)
{
    return fmt == TABLE_TEXT || fmt == TABLE_MD;
}
struct table_writer {
    enum table_format fmt;
    size_t *width;   /* grid and Markdown: sized from the header and the first batch of rows */
    size_t nrows;    /* rows written */
    int started;     /* the header is written */
    struct buf cell; /* a cell's text as shown */
};
void table_writer_init(struct table_writer *w, enum table_format fmt);
/* Appends t's rows to out, the first call the header too; later batches keep the first widths
 * (a wider cell pushes its line along; nothing is cut). */
void table_write_rows(struct table_writer *w, const struct table *t, struct buf *out);
/* Ends the table (JSON's closing bracket; the header of a table that had no rows). */
void table_write_end(struct table_writer *w, const struct table *t, struct buf *out);
void table_writer_release(struct table_writer *w);
/* A report of series as one JSON document, shape "schema": 2 (docs/trend.schema.json): the
 * title, the facts as an object, and under the parent table's name an array of its rows as
 * objects keyed by column name (and "unit", the base unit of a ROLE_VALUE column), each
 * carrying, under each other table's name, the rows of that table whose ROLE_KEY text is the
 * parent row's (which come in the parent rows' order); a table without a ROLE_KEY column is
 * an array of its own beside the parent's, under its name. */
int render_series_json(const struct report *r, const char *parent, struct buf *out, struct diag *d);
/* A trend report's change points as Grafana annotations (its HTTP API's and JSON data sources'
 * shape): an array of {"time": Unix ms, "title": the series, "text": the change and p, "tags":
 * ["benchdb", direction, "metric:M", "storage_class:C", "host:H"]}. */
int render_annotations(const struct report *r, struct buf *out, struct diag *d);
/* A change point of a trend report as an annotation: when (the first run after the change),
 * its series, the change and p in words, and its tags as above. */
struct annotation {
    int64_t time; /* Unix seconds */
    const char *series, *text;
    const char *tags[5];
    size_t ntags;
};
/* A trend report's annotations, and every series it looked at (with change points or not). */
struct annotations {
    struct annotation *v;
    size_t n;
    const char **series;
    size_t nseries;
};
/* The change points of r (query_trend's) as annotations into out, allocated in a with their
 * strings: 0, or -1 after a message. */
int report_annotations(const struct report *r, struct arena *a, struct annotations *out,
                       struct diag *d);
/* One table (by name; NULL: the first) as CSV. */
int render_csv(const struct report *r, const char *table, struct buf *out, struct diag *d);
/* One self-contained HTML5 page. template_dir (may be NULL) holds report.html and style.css
 * that replace the built-in ones. */
int render_html(const struct report *r, const char *template_dir, struct buf *out, struct diag *d);
/* An Excel workbook at path (libxlsxwriter 1.1.4 writes files only, no memory buffer). */
int render_xlsx(const struct report *r, const char *path, struct diag *d);

#endif
