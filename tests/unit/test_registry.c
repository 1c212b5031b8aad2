/* test_registry.c: ingest/registry.c lists every importer the ingest folder defines, once, with
 * its members set; importer_find and importer_detect find them; detection picks the right
 * importer for one real fixture per format; probes see at most PROBE_BYTES. */
#include "../../core/array.h"
#include "../../ingest/importer.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static size_t registered(void)
{
    size_t n = 0;
    while (importers[n])
        n++;
    return n;
}

/* How many `const struct importer importer_<name> = {` definitions the .c files of ingest/
 * hold. */
static size_t defined_in_sources(const char *ingest_dir)
{
    DIR *dir = opendir(ingest_dir);
    OK(dir != NULL, "the ingest folder opens");
    if (!dir)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t k = strlen(e->d_name);
        if (k < 3 || strcmp(e->d_name + k - 2, ".c"))
            continue;
        char path[4096], line[4096];
        if (snprintf(path, sizeof(path), "%s/%s", ingest_dir, e->d_name) >= (int)sizeof(path))
            continue;
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof(line), f))
            n += !strncmp(line, "const struct importer importer_", 31) && strstr(line, " = {");
        if (f)
            fclose(f);
    }
    closedir(dir);
    return n;
}

static void test_table(const char *ingest_dir)
{
    size_t n = registered();
    INT_EQ(n, defined_in_sources(ingest_dir), "every importer defined in ingest/ is registered");
    for (size_t i = 0; i < n; i++) {
        const struct importer *imp = importers[i];
        OK(imp->name && *imp->name, "a name");
        OK(imp->summary && *imp->summary, imp->name);
        OK(imp->probe && imp->parse, imp->name);
        OK(importer_find(imp->name) == imp, imp->name);
        for (size_t k = 0; k < i; k++)
            OK(strcmp(importers[k]->name, imp->name), "names are unique");
    }
    OK(importer_find("no-such-format") == NULL, "an unknown name");
    OK(importer_find("fio-log")->parse_stream != NULL, "fio-log parses streams");
    OK(importer_find("fio-json")->parse_stream == NULL, "fio-json needs the whole input");
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct buf b = BUF_INIT;
    OK(f && !buf_read_file(&b, f), path);
    if (f)
        fclose(f);
    return buf_detach(&b, len);
}

static void test_detection(const char *fixtures)
{
    static const struct {
        const char *file, *format;
    } cases[] = {
        {"fio_json/jsonplus_randrw.json", "fio-json"},
        {"fio_terse/terse2_randrw.out", "fio-terse"},
        {"fio_log/avg_bw.1.log", "fio-log"},
        {"fio_text/devfull_write.txt", "fio-text"},
        {"iperf/iperf3_tcp.json", "iperf3-json"},
        {"iperf/iperf3_tcp.txt", "iperf-text"},
        {"iperf/iperf2_tcp.csv", "iperf2-csv"},
        {"dd/busybox-default.txt", "dd"},
        {"bonnie/disk-x2.csv", "bonnie++"},
        {"sysbench/rndrw-t2.txt", "sysbench"},
        {"iozone/auto-excel.txt", "iozone"},
        {"dlio/juicefs-cosmoflow-1acc.json", "dlio"},
        {"ior/posix-ssf-np2-shm.txt", "ior"},
        {"ior/posix-ssf-np2-shm.json", "ior-json"},
        {"mdtest/files-dirs-np2-i3-shm.txt", "mdtest"},
        {"warp/seaweedfs-get-1mib-in-cluster.txt", "warp"},
        {"notes/composed.md", "notes"},
    };
    size_t n = ARRAY_SIZE(cases);
    INT_EQ(n, registered(), "one fixture per registered format");
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", fixtures, cases[i].file);
        size_t len;
        char *data = slurp(path, &len);
        struct source src = {path, data, len};
        struct buf tried = BUF_INIT;
        const struct importer *imp = importer_detect(&src, &tried);
        STR_EQ(imp ? imp->name : NULL, cases[i].format, cases[i].file);
        int score = -1;
        const struct importer *other = importer_detect_other(&src, imp, &score);
        OK(other != imp && score >= 0 && score <= 100, "detection without the winner");
        buf_release(&tried);
        free(data);
    }
}

/* A terse line after a blank line of PROBE_BYTES is out of the probes' sight; a blank line
 * that leaves it ending at the cap and it is in. */
static void test_probe_cap(const char *fixtures)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/fio_terse/terse2_randrw.out", fixtures);
    size_t len;
    char *terse = slurp(path, &len);
    const char *first_nl = memchr(terse, '\n', len);
    size_t line = first_nl ? (size_t)(first_nl - terse) + 1 : len;
    for (int inside = 0; inside < 2; inside++) {
        size_t blanks = inside ? PROBE_BYTES - line : PROBE_BYTES;
        char *data = malloc(blanks + len + 1);
        memset(data, ' ', blanks - 1);
        data[blanks - 1] = '\n';
        memcpy(data + blanks, terse, len + 1);
        struct source src = {"capped", data, blanks + len};
        const struct importer *imp = importer_detect(&src, NULL);
        if (inside)
            STR_EQ(imp ? imp->name : NULL, "fio-terse", "a terse line ending at the cap");
        else
            OK(imp == NULL || strcmp(imp->name, "fio-terse"), "a terse line past the cap");
        free(data);
    }
    free(terse);
}

int main(void)
{
    const char *fixtures = getenv("FIXTURES");
    if (!fixtures) {
        fprintf(stderr, "FIXTURES is not set\n");
        return 1;
    }
    char ingest_dir[4096];
    snprintf(ingest_dir, sizeof(ingest_dir), "%s/../../ingest", fixtures);
    test_table(ingest_dir);
    test_detection(fixtures);
    test_probe_cap(fixtures);
    return TEST_DONE();
}
