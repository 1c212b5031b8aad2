/* dump_records [--format NAME] FILE: parse one file with the importers alone (no database)
 * and print its records; the development harness for importers. */
#include <stdio.h>
#include <string.h>

#include "../../ingest/importer.h"

static int print_record(void *ctx, const struct bench_record *r)
{
    struct buf b = BUF_INIT;
    record_dump(&b, r);
    fputs(b.data, ctx);
    buf_release(&b);
    return 0;
}

int main(int argc, char **argv)
{
    const char *format = NULL;
    int i = 1;
    if (argc > 3 && !strcmp(argv[1], "--format")) {
        format = argv[2];
        i = 3;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: dump_records [--format NAME] FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
        perror(argv[i]);
        return 3;
    }
    struct buf data = BUF_INIT;
    buf_read_file(&data, f);
    fclose(f);
    struct source src = {argv[i], data.data, data.len};
    struct diag d = DIAG_INIT;
    struct buf tried = BUF_INIT;
    const struct importer *imp = format ? importer_find(format) : importer_detect(&src, &tried);
    if (!imp) {
        fprintf(stderr, "%s: error: unrecognized format (tried %s)\n", argv[i], tried.data);
        buf_release(&data);
        buf_release(&tried);
        return 1;
    }
    printf("format %s\n", imp->name);
    struct arena a = ARENA_INIT;
    struct record_sink sink = {print_record, stdout};
    int rc = imp->parse(&src, &a, &sink, &d);
    arena_release(&a);
    buf_release(&data);
    buf_release(&tried);
    return rc ? 1 : 0;
}
