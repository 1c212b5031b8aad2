/* libpq.h: libpq's functions as fleet/ calls them, through pointers that libpq_load fills when a
 * command first reaches a server. benchdb does not link libpq: it and the 20 libraries it
 * brings (TLS, Kerberos, LDAP, ...) took half of every command's start (the dynamic loader's
 * symbol lookups), and only the fleet's commands use them. Include it instead of
 * <libpq-fe.h>; a function used anywhere in fleet/ must be in both lists below. */
#ifndef BDB_LIBPQ_H
#define BDB_LIBPQ_H

#include <libpq-fe.h>

#include "../core/diag.h"

/* one list, by hand: clang-format staircases it */
/* clang-format off */
#define LIBPQ_FUNCTIONS(X)                                                                         \
    X(PQclear) X(PQconnectdb) X(PQerrorMessage) X(PQescapeLiteral) X(PQexec) X(PQexecParams)      \
    X(PQfinish) X(PQfname) X(PQfreemem) X(PQftype) X(PQgetCopyData) X(PQgetisnull)                \
    X(PQgetResult) X(PQgetvalue) X(PQnfields) X(PQntuples) X(PQputCopyData) X(PQputCopyEnd)       \
    X(PQresultErrorField) X(PQresultStatus) X(PQsendQueryParams) X(PQserverVersion)               \
    X(PQsetSingleRowMode) X(PQstatus)
/* clang-format on */

struct libpq_api {
#define LIBPQ_POINTER(name) __typeof__(name) *name;
    LIBPQ_FUNCTIONS(LIBPQ_POINTER)
#undef LIBPQ_POINTER
};
extern struct libpq_api libpq;

/* Loads libpq (BENCHDB_LIBPQ_SONAME) once; 0, or -1 after "WHO: error: cannot load ...". */
int libpq_load(const char *who, struct diag *d);

#ifndef LIBPQ_LOADER
#    define PQclear            (libpq.PQclear)
#    define PQconnectdb        (libpq.PQconnectdb)
#    define PQerrorMessage     (libpq.PQerrorMessage)
#    define PQescapeLiteral    (libpq.PQescapeLiteral)
#    define PQexec             (libpq.PQexec)
#    define PQexecParams       (libpq.PQexecParams)
#    define PQfinish           (libpq.PQfinish)
#    define PQfname            (libpq.PQfname)
#    define PQfreemem          (libpq.PQfreemem)
#    define PQftype            (libpq.PQftype)
#    define PQgetCopyData      (libpq.PQgetCopyData)
#    define PQgetisnull        (libpq.PQgetisnull)
#    define PQgetResult        (libpq.PQgetResult)
#    define PQgetvalue         (libpq.PQgetvalue)
#    define PQnfields          (libpq.PQnfields)
#    define PQntuples          (libpq.PQntuples)
#    define PQputCopyData      (libpq.PQputCopyData)
#    define PQputCopyEnd       (libpq.PQputCopyEnd)
#    define PQresultErrorField (libpq.PQresultErrorField)
#    define PQresultStatus     (libpq.PQresultStatus)
#    define PQsendQueryParams  (libpq.PQsendQueryParams)
#    define PQserverVersion    (libpq.PQserverVersion)
#    define PQsetSingleRowMode (libpq.PQsetSingleRowMode)
#    define PQstatus           (libpq.PQstatus)
#endif

#endif
