/* test_fleet.c: fleet/'s text helpers: which names are server URLs, COPY's text escapes (a
 * field with a tab, newline, carriage return or backslash must read back as itself), and a
 * libpq message put on one line (libpq's span lines and end with a newline). */
#include "../../fleet/fleet_private.h"

#include <string.h>

#include "harness.h"

static void test_is_url(void)
{
    OK(fleet_is_url("postgresql://db.lab/bench"), "postgresql:// is a server");
    OK(fleet_is_url("postgres:///bench?host=/run/postgresql"), "postgres:// is a server");
    OK(!fleet_is_url("benchdb.sqlite"), "a file name is not");
    OK(!fleet_is_url("postgresql:/x"), "a URL needs its //");
    OK(!fleet_is_url("./postgresql://x"), "a path that contains one is not");
}

static void test_copy_text(void)
{
    static const char in[] = "a\tb\\c\nd\re f";
    struct buf out = BUF_INIT;
    pg_copy_text(&out, in, sizeof(in) - 1);
    STR_EQ(out.data, "a\\tb\\\\c\\nd\\re f", "tab, backslash, newline, return escaped");
    buf_reset(&out);
    pg_copy_text(&out, "x\0y", 3);
    INT_EQ((long long)out.len, 3, "the length given is copied");
    buf_release(&out);
}

static void test_message(void)
{
    /* no server listens there: libpq's message names the socket and adds a hint line */
    PGconn *c = PQconnectdb("postgresql:///x?host=/nonexistent-benchdb-test&port=1");
    struct buf m = BUF_INIT;
    pg_message(c, &m);
    OK(PQstatus(c) == CONNECTION_BAD, "the connection fails");
    OK(m.len > 0 && !strchr(m.data, '\n') && !strchr(m.data, '\t'), "one line");
    OK(strstr(m.data, "/nonexistent-benchdb-test/.s.PGSQL.1") != NULL, "names the socket");
    OK(m.data[m.len - 1] != ' ' && m.data[m.len - 1] != ';', "no trailing separator");
    buf_release(&m);
    PQfinish(c);
}

int main(void)
{
    test_is_url();
    test_copy_text();
    test_message();
    return TEST_DONE();
}
