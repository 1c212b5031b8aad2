/* db_private.h: shared inside schema/ only. */
#ifndef BDB_DB_PRIVATE_H
#define BDB_DB_PRIVATE_H

#include <sqlite3.h>

#include "db.h"

struct db {
    sqlite3 *h;
    char *path;
};

int db_migrate(sqlite3 *h, struct diag *d);
int db_user_version(sqlite3 *h);

#endif
