/* timerange.h: ISO 8601 dates and timestamps as Unix seconds, and the closed range of run
 * start times that --since/--until select. libc only: no timegm (not C11), no strptime. */
#ifndef BDB_TIMERANGE_H
#define BDB_TIMERANGE_H

#include <stdint.h>

/* Cursor scanners (core/scan.h's way: 1 and *p past what was read, else 0, *p unmoved, and
 * *why a short reason), checked: YYYY-MM-DD, a day the proleptic Gregorian calendar has (no
 * Feb 31, no Feb 29 of a common year), into days since 1970-01-01; HH:MM[:SS[.fff]] into
 * seconds of the day (a leap second :60 is its minute's last), *frac set when a fraction
 * other than zeros followed. The one date reader: importers that find a date in a tool's
 * output read it with these, as --since/--until do (parse_iso_time). */
int scan_iso_date(const char **p, int64_t *days, const char **why);
int scan_iso_clock(const char **p, int64_t *secs, int *frac, const char **why);

/* Which end of a range a value bounds: a bare date means its first second as a lower bound
 * and its last second as an upper bound (--until 2026-03-01 includes that whole day). */
enum time_bound { TIME_LOWER, TIME_UPPER };

/* Parses YYYY-MM-DD, or YYYY-MM-DD[T ]HH:MM[:SS[.fff]] followed by nothing (UTC), 'Z', or an
 * offset +HH, +HHMM, +HH:MM (or -). Fractions are rounded toward the inside of the range,
 * as run start times are whole seconds. Returns 0 and sets *t, or -1 and sets *why to a short
 * reason ("month 13 out of range"). */
int parse_iso_time(const char *s, enum time_bound bound, int64_t *t, const char **why);

/* Run start times since <= t <= until; an open end is INT64_MIN / INT64_MAX. */
struct time_range {
    int64_t since, until;
};
#define TIME_RANGE_ALL ((struct time_range){INT64_MIN, INT64_MAX})
/* 1 when the range has a bound (a run without a start time is then outside it). */
int time_range_bounded(const struct time_range *r);

#endif
