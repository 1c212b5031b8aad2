/* fleet_private.h: what the files of fleet/ share: a connection and its errors. */
#ifndef BDB_FLEET_PRIVATE_H
#define BDB_FLEET_PRIVATE_H

#include <libpq-fe.h>
#include <stdint.h>

#include "../core/buf.h"
#include "fleet.h"

/* Connects to url (libpq reads the password from PGPASSWORD or ~/.pgpass) and checks, or with
 * migrate creates or upgrades, the warehouse schema; NULL after "WHO: error: ..." (who: the
 * command, "benchdb push"). */
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

#endif
