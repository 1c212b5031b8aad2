/* cmd_formats.c: benchdb formats. */
#include "cli.h"

#include <stdio.h>

#include "../ingest/importer.h"

int cmd_formats(int argc, char **argv, struct app *app)
{
    static const char usage[] =
        "usage: benchdb formats\n\nList the importers; their names are --format values.\n";
    static const struct opt opts[] = {OPT_END()};
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    for (size_t i = 0; importers[i]; i++)
        printf("%-12s  %s\n", importers[i]->name, importers[i]->summary);
    return BDB_EXIT_OK;
}
