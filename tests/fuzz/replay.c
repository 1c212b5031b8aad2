/* replay.c: a main() for the fuzz targets when libFuzzer is absent (any compiler), after
 * fio's t/fuzz/onefile.c. Each argument is a file, or a directory whose regular files are
 * all fed, in name order, to LLVMFuzzerTestOneInput. Exit 0 when every input ran; a crash or
 * sanitizer report is the failure. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../core/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    struct buf data = BUF_INIT;
    int rc = buf_read_file(&data, f);
    fclose(f);
    if (rc == 0)
        LLVMFuzzerTestOneInput((const uint8_t *)data.data, data.len);
    else
        fprintf(stderr, "replay: cannot read '%s'\n", path);
    buf_release(&data);
    return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir, unsigned *n)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, by_name);
    if (count < 0) {
        fprintf(stderr, "replay: cannot list '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < count; i++) {
        struct buf path = BUF_INIT;
        struct stat st;
        buf_addf(&path, "%s/%s", dir, names[i]->d_name);
        if (stat(path.data, &st) == 0 && S_ISREG(st.st_mode)) {
            rc |= replay_file(path.data);
            (*n)++;
        }
        buf_release(&path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned n = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &n);
        } else {
            rc |= replay_file(argv[i]);
            n++;
        }
    }
    printf("replayed %u input%s\n", n, n == 1 ? "" : "s");
    return rc ? 1 : 0;
}
