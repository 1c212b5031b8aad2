/* test_fleet.c: fleet/'s helpers: which names are server URLs, COPY's binary format (each
 * kind of field push sends, byte for byte), and a libpq message put on one line (libpq's span
 * lines and end with a newline). */
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

/* One tuple of every kind of field push sends; the bytes expected were written by python's
 * struct.pack (">ii", ">h", ">iq", ">id", ...) from the format of PostgreSQL's manual. */
static void test_copy_binary(void)
{
    static const char want[] =
        "\x50\x47\x43\x4f\x50\x59\x0a\xff\x0d\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x06\x00\x00\x00\x08\xff\xff\xff\xff\xff\xff\xff\xfe\x00\x00\x00\x04\x00\x00\x00"
        "\x07\x00\x00\x00\x08\xbf\xb9\x99\x99\x99\x99\x99\x9a\xff\xff\xff\xff\x00\x00\x00"
        "\x03\x61\x09\x62\x00\x00\x00\x00\xff\xff";
    struct buf out = BUF_INIT;
    pg_copy_header(&out);
    pg_copy_tuple(&out, 6);
    pg_copy_int(&out, -2, 8);
    pg_copy_int(&out, 7, 4);
    pg_copy_float8(&out, -0.1);
    pg_copy_null(&out);
    pg_copy_bytes(&out, "a\tb", 3);
    pg_copy_bytes(&out, NULL, 0); /* an empty blob: SQLite gives no pointer */
    pg_copy_trailer(&out);
    INT_EQ((long long)out.len, (long long)sizeof(want) - 1, "the tuple's length");
    OK(out.len == sizeof(want) - 1 && !memcmp(out.data, want, out.len),
       "header, bigint, integer, float8, NULL, text, empty bytea, trailer");
    buf_release(&out);
}

static void test_message(void)
{
    /* no server listens there: libpq's message names the socket and adds a hint line */
    struct diag d = DIAG_INIT;
    OK(libpq_load("test_fleet", &d) == 0 && libpq_load("test_fleet", &d) == 0, "libpq loads, once");
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
    test_copy_binary();
    test_message();
    return TEST_DONE();
}
