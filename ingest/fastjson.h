/* fastjson.h: the common case of cJSON_ParseWithLengthOpts, faster, in an arena. */
#ifndef BDB_FASTJSON_H
#define BDB_FASTJSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "../core/arena.h"

/* The JSON object at s[0] (a '{') parsed into the tree cJSON_ParseWithLengthOpts(s, len, end,
 * 0) makes (the same nodes, links and values), allocated from a, with *end just after it; or
 * NULL, having allocated some of a, for anything it leaves to cJSON: any error, a string with
 * an escape, a number of 63 characters or more, nesting deeper than 64. The caller then parses
 * with cJSON, whose tree and error position stay the reference. */
cJSON *fastjson_parse(struct arena *a, const char *s, size_t len, const char **end);

#endif
