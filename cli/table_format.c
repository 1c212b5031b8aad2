#include "table_format.h"

#include <string.h>

int parse_table_format(const char *s, enum table_format *fmt)
{
    static const struct {
        const char *name;
        enum table_format fmt;
    } map[] = {{"table", TABLE_TEXT}, {"csv", TABLE_CSV}, {"json", TABLE_JSON}, {"md", TABLE_MD}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (!strcmp(s, map[i].name)) {
            *fmt = map[i].fmt;
            return 0;
        }
    }
    return -1;
}
