/* harness.h: a tiny unit-test harness (in the style of cmark's api_test).
 * Each check prints a line only on failure (file:line, the message, got/expected);
 * TEST_DONE() prints "N passed, M failed" and gives the exit status (1 on any failure). */
#ifndef BDB_TEST_HARNESS_H
#define BDB_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_passed, test_failed;

static inline int test_check(int ok, const char *file, int line, const char *msg)
{
    if (ok) {
        test_passed++;
    } else {
        test_failed++;
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, msg);
    }
    return ok;
}

#define OK(cond, msg) test_check(!!(cond), __FILE__, __LINE__, (msg))

#define INT_EQ(got, expected, msg)                                                                 \
    do {                                                                                           \
        long long g_ = (long long)(got), e_ = (long long)(expected);                               \
        if (!test_check(g_ == e_, __FILE__, __LINE__, (msg)))                                      \
            fprintf(stderr, "  got      %lld\n  expected %lld\n", g_, e_);                         \
    } while (0)

/* NULL is a value: it equals only NULL */
#define STR_EQ(got, expected, msg)                                                                 \
    do {                                                                                           \
        const char *g_ = (got), *e_ = (expected);                                                  \
        int same_ = (g_ && e_) ? strcmp(g_, e_) == 0 : g_ == e_;                                   \
        if (!test_check(same_, __FILE__, __LINE__, (msg)))                                         \
            fprintf(stderr, "  got      %s%s%s\n  expected %s%s%s\n", g_ ? "'" : "",               \
                    g_ ? g_ : "(null)", g_ ? "'" : "", e_ ? "'" : "", e_ ? e_ : "(null)",          \
                    e_ ? "'" : "");                                                                \
    } while (0)

/* |got - expected| <= rel * |expected| (or both NaN, or equal infinities) */
#define NUM_REL(got, expected, rel, msg)                                                           \
    do {                                                                                           \
        double g_ = (got), e_ = (expected);                                                        \
        int ok_ = (isnan(g_) && isnan(e_)) || g_ == e_ || fabs(g_ - e_) <= (rel)*fabs(e_);         \
        if (!test_check(ok_, __FILE__, __LINE__, (msg)))                                           \
            fprintf(stderr, "  got      %.17g\n  expected %.17g (rel %.3g)\n", g_, e_,             \
                    e_ != 0 ? fabs(g_ - e_) / fabs(e_) : fabs(g_));                                \
    } while (0)

#define TEST_DONE()                                                                                \
    (printf("%d passed, %d failed\n", test_passed, test_failed), test_failed ? 1 : 0)

#endif
