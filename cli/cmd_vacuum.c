/* cmd_vacuum.c: benchdb vacuum. */
#include "cli.h"

#include <stdio.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: benchdb vacuum\n"
    "\n"
    "Give the space of removed results back to the file system: the warehouse is rewritten\n"
    "(SQLite VACUUM), which takes as long as copying it, needs as much free space and locks\n"
    "out writers meanwhile; 'benchdb rm' does not do it, as its cost is that of the whole\n"
    "warehouse, not of what was removed (without it, later imports reuse the space). Prints the\n"
    "file's size before and after.\n"
    "\n"
    "First the stored files are compressed anew: a format stored against the dictionary benchdb\n"
    "ships (256 files or more) gets one trained on its own files, and each format's files stored\n"
    "against an older dictionary are rewritten against its newest where that makes them smaller\n"
    "(benchdb(1) and the schema guide, Dictionaries).\n";

/* The warehouse file's size (its -wal is checkpointed when the database is closed). */
static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

int cmd_vacuum(int argc, char **argv, struct app *app)
{
    static const struct opt opts[] = {OPT_END()};
    int status = parse_options(app, &argc, argv, usage, opts, PARSE_NO_OPERANDS);
    if (status != BDB_EXIT_OK)
        return status < 0 ? BDB_EXIT_OK : status;
    struct db *db;
    if (open_db(app, DB_READ_WRITE, &db))
        return BDB_EXIT_ENV;
    long long before = file_size(app->db_path);
    int bad = db_vacuum(db, &app->diag);
    db_close(db);
    if (bad)
        return BDB_EXIT_ENV;
    printf("vacuum: '%s': %lld bytes before, %lld after\n", app->db_path, before,
           file_size(app->db_path));
    return BDB_EXIT_OK;
}
