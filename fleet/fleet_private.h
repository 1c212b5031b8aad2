/* fleet_private.h: what the files of fleet/ share: a connection and its errors. */
#ifndef BDB_FLEET_PRIVATE_H
#define BDB_FLEET_PRIVATE_H

#include <stdint.h>

#include "../core/buf.h"
#include "fleet.h"
#include "libpq.h"

/* Connects to url (libpq, loaded here first, reads the password from PGPASSWORD or ~/.pgpass) and
 * checks, or with migrate creates or upgrades, the warehouse schema; NULL after "WHO: error: ..."
 * (who: the command, "benchdb push"). */
PGconn *pg_connect(const char *url, int migrate, const char *who, struct diag *d);
/* Runs sql (no rows expected); 0, or -1 after "WHO: error: WHAT: server message". */
int pg_exec(PGconn *c, const char *sql, const char *who, const char *what, struct diag *d);
/* The server's last message on one line (libpq's ends with a newline, some hold a hint on a
 * second line). */
void pg_message(PGconn *c, struct buf *out);
/* One result's error as pg_exec reports it; always -1. */
int pg_error(PGconn *c, const char *who, const char *what, struct diag *d);
/* A failed result's error as "WHO: error: WHAT: message" (the server's primary message, else
 * the connection's); always -1. */
int pg_result_error(PGconn *c, const PGresult *r, const char *who, const char *what,
                    struct diag *d);
/* COPY target FROM STDIN in binary format: begin, put rows (each call sends data's bytes and
 * empties it), end (ok 0: the copy is abandoned, as after a local failure). 0, or -1 (begin
 * and end after a message). */
int pg_copy_begin(PGconn *c, const char *target, const char *who, struct diag *d);
int pg_copy_put(PGconn *c, struct buf *data);
int pg_copy_end(PGconn *c, int ok, const char *target, const char *who, struct diag *d);
/* The pieces of COPY's binary format (PostgreSQL's manual, COPY, "Binary Format"), appended to
 * out: the header, each tuple's field count, then its fields (a length, -1 for NULL, and the
 * type's binary form: integers and floats big-endian, text and bytea their bytes), and the
 * trailer. */
void pg_copy_header(struct buf *out);
void pg_copy_tuple(struct buf *out, int fields);
void pg_copy_null(struct buf *out);
void pg_copy_bytes(struct buf *out, const void *data, size_t n);
void pg_copy_int(struct buf *out, int64_t v, int size); /* size: 4 (integer), 8 (bigint) */
void pg_copy_float8(struct buf *out, double v);
void pg_copy_trailer(struct buf *out);

/* A field of a row read in COPY's binary format: the type's binary form (data NULL for an SQL
 * NULL), and its length. pg_field_int: a smallint's, an integer's or a bigint's (len 2, 4, 8;
 * 0 for any other length); pg_field_float8: a double precision's (len 8; NaN for any other). */
struct pg_field {
    const char *data;
    int len;
};
int64_t pg_field_int(const struct pg_field *f);
double pg_field_float8(const struct pg_field *f);
/* Takes one row's fields; 0 to go on, else -1 after a message (the rest is read and dropped). */
typedef int pg_row_fn(void *ctx, const struct pg_field *f);
/* Runs COPY (select) TO STDOUT (FORMAT binary) and gives each row's nfields fields to row: far
 * less to parse than each value's text, a float8 exact as stored, and no PGresult a row as
 * single-row mode makes. 0, or -1 after "WHO: error: WHAT: ..." (or row's message). */
int pg_copy_out(PGconn *c, const char *select, size_t nfields, pg_row_fn *row, void *ctx,
                const char *who, const char *what, struct diag *d);

#endif
