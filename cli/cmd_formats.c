/* cmd_formats.c: benchdb formats. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "../ingest/importer.h"

int cmd_formats(int argc, char **argv, struct app *app)
{
    (void)app;
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        puts("usage: benchdb formats\n\nList the importers; their names are --format values.");
        return BDB_EXIT_OK;
    }
    for (size_t i = 0; importers[i]; i++)
        printf("%-12s  %s\n", importers[i]->name, importers[i]->summary);
    return BDB_EXIT_OK;
}
