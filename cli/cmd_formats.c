/* cmd_formats.c: benchdb formats. */
#include "cli.h"

#include <stdio.h>
#include <unistd.h> /* optind */

#include "../ingest/importer.h"

int cmd_formats(int argc, char **argv, struct app *app)
{
    static const char usage[] =
        "usage: benchdb formats\n\nList the importers; their names are --format values.\n";
    int status;
    if (help_only_options(app, argc, argv, usage, &status))
        return status;
    if (optind != argc)
        return unexpected_argument("formats", usage, argv[optind]);
    for (size_t i = 0; importers[i]; i++)
        printf("%-12s  %s\n", importers[i]->name, importers[i]->summary);
    return BDB_EXIT_OK;
}
