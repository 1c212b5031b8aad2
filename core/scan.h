/* scan.h: small cursor-based parsing helpers shared by the text importers (curl's
 * strparse idea: no sscanf/atoi/strtok). Each scan_* advances *p only on success. */
#ifndef BDB_SCAN_H
#define BDB_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Iterates over the lines of a buffer; handles LF, CRLF and lone CR (dd status=progress). */
struct line_iter {
    const char *p, *end;
    unsigned lineno; /* 1-based number of the line last returned */
    int cr_is_newline;
};
void line_iter_init(struct line_iter *it, const char *data, size_t len, int cr_is_newline);
/* 1 and sets *line and *len (without the terminator), or 0 at the end. */
int line_iter_next(struct line_iter *it, const char **line, size_t *len);

/* Iterates over the fields of s[0..n) that sep separates (a CSV row without quoting, fio's
 * terse ';' lines): "a,,b" is three fields, the middle one empty, and an empty s is one empty
 * field. Fields are spans of s, not copies. */
struct field_iter {
    const char *p, *end; /* p is NULL once the last field was returned */
    char sep;
};
void field_iter_init(struct field_iter *it, const char *s, size_t n, char sep);
/* 1 and sets *field and *len, or 0 after the last field. */
int field_iter_next(struct field_iter *it, const char **field, size_t *len);

const char *skip_ws(const char *p);
/* First occurrence of needle in hay[0..n), or NULL (memmem is not POSIX). */
const char *mem_find(const char *hay, size_t n, const char *needle);
/* Whether s[0..n) starts (ends) with lit. */
int mem_starts(const char *s, size_t n, const char *lit);
int mem_ends(const char *s, size_t n, const char *lit);
/* Whether the NUL-terminated s starts (ends) with lit. */
int str_starts(const char *s, const char *lit);
int str_ends(const char *s, const char *lit);
/* Whether the NUL-terminated hay (NULL: none) contains needle, ignoring ASCII case. */
int str_contains_ci(const char *hay, const char *needle);
/* 3 when s[0..n) starts with a UTF-8 byte order mark (editors on Windows write one), else 0:
 * the bytes to skip before the content. */
size_t bom_len(const char *s, size_t n);
/* A decimal number: [+-]digits[.digits][e[+-]digits]; no inf, nan or hex. */
int scan_number(const char **p, double *v);
/* A non-negative decimal integer that fits in int64_t. */
int scan_int64(const char **p, int64_t *v);
/* The environment variable name as a non-negative decimal integer (the knobs tests set, e.g.
 * BENCHDB_BATCH_MS), or fallback when it is unset or is not one. */
int64_t scan_env_int64(const char *name, int64_t fallback);
/* A non-negative number and the letters right after it, its unit (maybe none): "48.1MiB/s"
 * gives 48.1 and "MiB", leaving *p at "/s". */
int scan_quantity(const char **p, double *v, const char **unit, size_t *unit_len);
/* Matches a literal prefix. */
int scan_lit(const char **p, const char *lit);

/* Multiplier for a byte unit: B, KiB, MiB, GiB, TiB, PiB (1024-based), kB, KB, MB, GB, TB
 * (1000-based), and k/M/G/T suffixes when binary_k (fio option values: 4k = 4096).
 * 0 when unknown. */
double unit_bytes(const char *u, size_t n, int binary_k);
/* Multiplier to nanoseconds for nsec, ns, usec, us, µs, msec, ms, sec, s; 0 when unknown. */
double unit_time_ns(const char *u, size_t n);
/* Multiplier to bits/s for bits, Kbits, Mbits, Gbits, Tbits (per sec implied), 1000-based. */
double unit_bits(const char *u, size_t n);
/* Multiplier for k/K, m/M, g/G (1000-based counts such as IOPS=12.3k); 1 for none. */
double unit_count_suffix(char c);

/* fio size strings: "4k", "1M", "4KiB", "1048576" -> bytes (k = 1024, fio's kb_base). */
int parse_fio_size(const char *s, int64_t *bytes);
/* "15m57.921s", "0m0.045s", "1h2m3.5s", "7d", "1d12h", "12.5" -> seconds. */
int parse_duration(const char *s, size_t n, double *secs);

#endif
