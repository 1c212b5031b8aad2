#ifndef BDB_CLI_TABLE_FORMAT_H
#define BDB_CLI_TABLE_FORMAT_H

#include "../query/query.h"

/* "table", "csv", "json", "md"; 0 or -1. */
int parse_table_format(const char *s, enum table_format *fmt);

#endif
