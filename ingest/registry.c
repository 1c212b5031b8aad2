#include "importer.h"

#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

extern const struct importer importer_fio_json;
extern const struct importer importer_fio_terse;
extern const struct importer importer_fio_log;
extern const struct importer importer_fio_text;
extern const struct importer importer_iperf3_json;
extern const struct importer importer_iperf_text;
extern const struct importer importer_iperf2_csv;
extern const struct importer importer_dd;
extern const struct importer importer_bonnie;
extern const struct importer importer_sysbench;
extern const struct importer importer_iozone;
extern const struct importer importer_dlio;
extern const struct importer importer_ior;
extern const struct importer importer_ior_json;
extern const struct importer importer_mdtest;
extern const struct importer importer_warp;
extern const struct importer importer_notes;

const struct importer *const importers[] = {
    &importer_fio_json,   &importer_fio_terse,   &importer_fio_log,
    &importer_fio_text,   &importer_iperf3_json, &importer_iperf_text,
    &importer_iperf2_csv, &importer_dd,          &importer_bonnie,
    &importer_sysbench,   &importer_iozone,      &importer_dlio,
    &importer_ior,        &importer_ior_json,    &importer_mdtest,
    &importer_warp,       &importer_notes,       NULL,
};

const struct importer *importer_find(const char *name)
{
    for (size_t i = 0; importers[i]; i++)
        if (!strcmp(importers[i]->name, name))
            return importers[i];
    return NULL;
}

/* What a probe sees of src: src itself up to PROBE_BYTES, else a NUL-terminated copy of its
 * first PROBE_BYTES in *copy (the caller frees it). A copy rather than a shorter length, so
 * that a probe reading past the view is an out-of-bounds read that the sanitizers report. */
static struct source probe_view(const struct source *src, char **copy)
{
    *copy = NULL;
    if (src->len <= PROBE_BYTES)
        return *src;
    *copy = xmalloc(PROBE_BYTES + 1);
    memcpy(*copy, src->data, PROBE_BYTES);
    (*copy)[PROBE_BYTES] = '\0';
    return (struct source){src->path, *copy, PROBE_BYTES};
}

static const struct importer *detect(const struct source *src, const struct importer *skip,
                                     int *best_score, struct buf *tried)
{
    char *copy;
    struct source view = probe_view(src, &copy);
    const struct importer *best = NULL;
    *best_score = 0;
    for (size_t i = 0; importers[i]; i++) {
        if (importers[i] == skip)
            continue;
        int score = importers[i]->probe(&view);
        if (score > *best_score) {
            best = importers[i];
            *best_score = score;
        }
        if (tried)
            buf_addf(tried, "%s%s", i ? ", " : "", importers[i]->name);
        if (score >= PROBE_CERTAIN)
            break; /* no other importer can claim it: skip the remaining scans */
    }
    free(copy);
    return best;
}

const struct importer *importer_detect(const struct source *src, struct buf *tried)
{
    int score;
    return detect(src, NULL, &score, tried);
}

const struct importer *importer_detect_other(const struct source *src, const struct importer *skip,
                                             int *score)
{
    return detect(src, skip, score, NULL);
}
