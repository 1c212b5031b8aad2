/* test_timerange.c: ISO 8601 dates and timestamps for --since/--until. Expected seconds are
 * python3's: int(datetime.fromisoformat("2026-03-01T14:30:00+01:00").timestamp()). */
#include <stdint.h>

#include "../../core/timerange.h"
#include "harness.h"

static int64_t parsed(const char *s, enum time_bound bound)
{
    int64_t t = -42;
    const char *why = NULL;
    if (parse_iso_time(s, bound, &t, &why))
        fprintf(stderr, "  '%s' refused: %s\n", s, why);
    return t;
}

static int64_t lower(const char *s)
{
    return parsed(s, TIME_LOWER);
}

static int64_t upper(const char *s)
{
    return parsed(s, TIME_UPPER);
}

static void dates(void)
{
    INT_EQ(lower("2026-03-01"), 1772323200, "a bare date starts at its midnight UTC");
    INT_EQ(upper("2026-03-01"), 1772409599, "a bare --until date includes the whole day");
    INT_EQ(lower("2000-01-01"), 946684800, "2000-01-01");
    INT_EQ(lower("1969-12-31T23:59:59Z"), -1, "before the epoch");
    INT_EQ(upper("9999-12-31"), 253402300799, "the last day of year 9999");
}

static void timestamps(void)
{
    INT_EQ(lower("2026-03-01T14:30:00"), 1772375400, "no offset is UTC");
    INT_EQ(lower("2026-03-01T14:30Z"), 1772375400, "seconds may be left out");
    INT_EQ(lower("2026-03-01 14:30:00z"), 1772375400, "a space for T, lower-case z");
    INT_EQ(lower("2026-03-01T14:30:00+01:00"), 1772371800, "+01:00 is an hour before UTC");
    INT_EQ(lower("2026-03-01T14:30:00+0100"), 1772371800, "basic-format offset");
    INT_EQ(lower("2026-03-01T14:30:00+01"), 1772371800, "hours-only offset");
    INT_EQ(lower("2026-03-01T14:30:00-05:30"), 1772395200, "negative offset");
    INT_EQ(lower("2024-02-29T12:34:56Z"), 1709210096, "a leap day");
    INT_EQ(upper("2026-03-01T14:30"), 1772375400, "a timestamp bounds at itself, not its day");
    INT_EQ(lower("2026-03-01T14:30:00.5Z"), 1772375401, "since 10.5 s: from the next second");
    INT_EQ(upper("2026-03-01T14:30:00.5Z"), 1772375400, "until 10.5 s: up to that second");
    INT_EQ(lower("2026-03-01T14:30:00.000Z"), 1772375400, "a zero fraction is no fraction");
}

static void refuses(const char *s, const char *reason)
{
    int64_t t = 7;
    const char *why = NULL;
    OK(parse_iso_time(s, TIME_LOWER, &t, &why) == -1, s);
    STR_EQ(why, reason, s);
    INT_EQ(t, 7, "a refused value leaves *t alone");
}

static void errors(void)
{
    refuses("yesterday", "expected YYYY-MM-DD");
    refuses("2026-3-1", "expected YYYY-MM-DD");
    refuses("2026-13-01", "month out of range");
    refuses("2025-02-29", "day out of range");
    refuses("2026-04-31", "day out of range");
    refuses("2026-03-01x", "expected 'T' and a time after the date");
    refuses("2026-03-01T25:00", "time of day out of range");
    refuses("2026-03-01T14", "expected HH:MM after the date");
    refuses("2026-03-01T14:30:0", "expected two digits of seconds");
    refuses("2026-03-01T14:30:00.", "expected digits after the decimal mark");
    refuses("2026-03-01T14:30:00 UTC",
            "expected 'Z' or a UTC offset such as +02:00 after the time");
    refuses("2026-03-01T14:30:00+1", "expected 'Z' or a UTC offset such as +02:00 after the time");
    refuses("2026-03-01T14:30:00+24:00", "UTC offset out of range");
    refuses("2026-03-01T14:30:00Z junk", "unexpected text after the time");
}

/* The cursor scanners importers read a tool's dates with (iperf2's "on 2026-11-30 08:34:23
 * (UTC)"): a day the calendar has, the cursor past it; else refused, the cursor where it was.
 * Days are python3's: (date(2024, 2, 29) - date(1970, 1, 1)).days. */
static void scan_refuses(const char *s, const char *reason)
{
    const char *p = s, *why = NULL;
    int64_t days = 7;
    OK(!scan_iso_date(&p, &days, &why), s);
    STR_EQ(why, reason, s);
    OK(p == s && days == 7, "a refused date leaves the cursor and *days alone");
}

static int64_t scanned_days(const char *s, const char *rest)
{
    const char *p = s, *why = NULL;
    int64_t days = -1;
    OK(scan_iso_date(&p, &days, &why), s);
    STR_EQ(p, rest, "the cursor is just past the date");
    return days;
}

static void scanners(void)
{
    scan_refuses("2026-02-31 08:34:23 (UTC)", "day out of range");
    scan_refuses("2026-02-29 08:34:23 (UTC)", "day out of range");
    scan_refuses("1900-02-29", "day out of range");
    scan_refuses("2026-00-10", "month out of range");
    scan_refuses("2026-11-3 08:34:23", "expected YYYY-MM-DD");
    INT_EQ(scanned_days("2024-02-29 08:34:23 (UTC)", " 08:34:23 (UTC)"), 19782,
           "Feb 29 of a leap year");
    INT_EQ(scanned_days("2000-02-29", ""), 11016, "Feb 29 of 2000 (divisible by 400)");
    INT_EQ(scanned_days("2026-02-28T", "T"), 20512, "Feb 28 of a common year");

    const char *p = "08:34:23 (UTC)", *why = NULL;
    int64_t secs = 0;
    int frac = 1;
    OK(scan_iso_clock(&p, &secs, &frac, &why), "a clock");
    INT_EQ(secs, 8 * 3600 + 34 * 60 + 23, "its seconds of the day");
    OK(!frac && !strcmp(p, " (UTC)"), "no fraction, the cursor past it");
    const char *bad = "24:00:00";
    OK(!scan_iso_clock(&bad, &secs, &frac, &why) && !strcmp(bad, "24:00:00"),
       "hour 24 is refused, the cursor unmoved");
}

int main(void)
{
    dates();
    timestamps();
    errors();
    scanners();
    return TEST_DONE();
}
