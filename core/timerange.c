#include "timerange.h"

#include <ctype.h>

/* Days from 1970-01-01 to y-m-d (m 1-12, d 1-31) in the proleptic Gregorian calendar: H.
 * Hinnant's days_from_civil, exact for every year, no table, no libc time zone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * ((int64_t)m + (m > 2 ? -3 : 9)) + 2) / 5 + (int64_t)d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

/* Exactly n digits at *p into *v. */
static int digits(const char **p, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return 0;
        x = x * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *v = x;
    return 1;
}

static int scan_date_at(const char **p, int64_t *days, const char **why)
{
    int y, m, d;
    if (!digits(p, 4, &y) || *(*p)++ != '-' || !digits(p, 2, &m) || *(*p)++ != '-' ||
        !digits(p, 2, &d))
        return *why = "expected YYYY-MM-DD", 0;
    if (m < 1 || m > 12)
        return *why = "month out of range", 0;
    if (d < 1 || d > days_in_month(y, m))
        return *why = "day out of range", 0;
    *days = days_from_civil(y, (unsigned)m, (unsigned)d);
    return 1;
}

int scan_iso_date(const char **p, int64_t *days, const char **why)
{
    const char *q = *p;
    return scan_date_at(&q, days, why) && (*p = q, 1);
}

static int scan_clock_at(const char **p, int64_t *secs, int *frac, const char **why)
{
    int h, mi, s = 0;
    if (!digits(p, 2, &h) || *(*p)++ != ':' || !digits(p, 2, &mi))
        return *why = "expected HH:MM after the date", 0;
    if (**p == ':' && (++*p, !digits(p, 2, &s)))
        return *why = "expected two digits of seconds", 0;
    *frac = 0;
    if (**p == '.' || **p == ',') {
        const char *start = ++*p;
        for (; isdigit((unsigned char)**p); ++*p)
            *frac |= **p != '0';
        if (*p == start)
            return *why = "expected digits after the decimal mark", 0;
    }
    if (h > 23 || mi > 59 || s > 60)
        return *why = "time of day out of range", 0;
    *secs = h * 3600 + mi * 60 + (s == 60 ? 59 : s); /* a leap second is its minute's last */
    return 1;
}

int scan_iso_clock(const char **p, int64_t *secs, int *frac, const char **why)
{
    const char *q = *p;
    return scan_clock_at(&q, secs, frac, why) && (*p = q, 1);
}

/* "", "Z", +HH, +HHMM, +HH:MM (or -) into seconds east of UTC. */
static int scan_offset(const char **p, int64_t *east, const char **why)
{
    *east = 0;
    if (!**p)
        return 0;
    if (**p == 'Z' || **p == 'z')
        return ++*p, 0;
    int sign = **p == '-' ? -1 : 1, h, m = 0;
    if ((**p != '+' && **p != '-') || (++*p, !digits(p, 2, &h)))
        return *why = "expected 'Z' or a UTC offset such as +02:00 after the time", -1;
    if (**p == ':')
        ++*p;
    if (**p && !digits(p, 2, &m))
        return *why = "expected the offset's minutes", -1;
    if (h > 23 || m > 59)
        return *why = "UTC offset out of range", -1;
    *east = sign * (h * 3600 + m * 60);
    return 0;
}

int parse_iso_time(const char *s, enum time_bound bound, int64_t *t, const char **why)
{
    const char *p = s;
    int64_t days, secs, east;
    int frac;
    if (!scan_iso_date(&p, &days, why))
        return -1;
    if (!*p) {
        *t = days * 86400 + (bound == TIME_UPPER ? 86399 : 0);
        return 0;
    }
    if (*p != 'T' && *p != 't' && *p != ' ')
        return *why = "expected 'T' and a time after the date", -1;
    p++;
    if (!scan_iso_clock(&p, &secs, &frac, why) || scan_offset(&p, &east, why))
        return -1;
    if (*p)
        return *why = "unexpected text after the time", -1;
    /* start times are whole seconds: t >= 10.5 means t >= 11; t <= 10.5 means t <= 10 */
    *t = days * 86400 + secs - east + (frac && bound == TIME_LOWER);
    return 0;
}

int time_range_bounded(const struct time_range *r)
{
    return r->since != INT64_MIN || r->until != INT64_MAX;
}
