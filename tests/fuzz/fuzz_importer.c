/* fuzz_importer.c: libFuzzer target for one importer, chosen at compile time with
 * -DFUZZ_IMPORTER=importer_<name> (tests/CMakeLists.txt builds one binary per entry of
 * ingest/registry.c). One binary per importer rather than a selector byte: each corpus
 * stays that format's own, coverage feedback is not shared between unrelated parsers, and
 * a crasher replays against the importer it was found in. The input is parsed as a file
 * named "fuzz" with a sink that discards records and a diag that prints nothing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../ingest/importer.h"

#ifndef FUZZ_IMPORTER
#    error "build with -DFUZZ_IMPORTER=importer_<name>"
#endif

extern const struct importer FUZZ_IMPORTER;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Counts records and touches every metric so a dangling pointer in a record is caught here,
 * inside the parse call that produced it. */
static int discard(void *ctx, const struct bench_record *r)
{
    volatile double sink = 0;
    for (size_t i = 0; i < r->n_metrics; i++)
        sink += r->metrics[i].value + (double)strlen(r->metrics[i].name);
    for (size_t i = 0; i < r->n_tags; i++)
        sink += (double)(strlen(r->tags[i].key) + strlen(r->tags[i].value));
    (void)sink;
    (*(size_t *)ctx)++;
    return 0;
}

static void silent(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx;
    (void)level;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Importers get a NUL-terminated copy, as cli/cmd_import.c's buf_read_file gives. */
    char *copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    struct source src = {"fuzz", copy, size};
    struct diag d = DIAG_INIT;
    d.emit = silent;
    size_t count = 0;
    struct record_sink sink = {discard, &count};
    struct arena a = ARENA_INIT;
    FUZZ_IMPORTER.probe(&src);
    FUZZ_IMPORTER.parse(&src, &a, &sink, &d);
    arena_release(&a);
    free(copy);
    return 0;
}
