#include "importer.h"

#include <string.h>

extern const struct importer importer_fio_json;
extern const struct importer importer_fio_terse;
extern const struct importer importer_fio_log;
extern const struct importer importer_fio_text;
extern const struct importer importer_iperf3_json;
extern const struct importer importer_iperf_text;
extern const struct importer importer_iperf2_csv;
extern const struct importer importer_dd;
extern const struct importer importer_bonnie;
extern const struct importer importer_notes;

const struct importer *const importers[] = {
    &importer_fio_json,
    &importer_fio_terse,
    &importer_fio_log,
    &importer_fio_text,
    &importer_iperf3_json,
    &importer_iperf_text,
    &importer_iperf2_csv,
    &importer_dd,
    &importer_bonnie,
    &importer_notes,
    NULL,
};

const struct importer *importer_find(const char *name)
{
    for (size_t i = 0; importers[i]; i++)
        if (!strcmp(importers[i]->name, name))
            return importers[i];
    return NULL;
}

const struct importer *importer_detect(const struct source *src, struct buf *tried)
{
    const struct importer *best = NULL;
    int best_score = 0;
    for (size_t i = 0; importers[i]; i++) {
        int score = importers[i]->probe(src);
        if (score > best_score) {
            best = importers[i];
            best_score = score;
        }
        if (tried)
            buf_addf(tried, "%s%s", i ? ", " : "", importers[i]->name);
        if (score >= PROBE_CERTAIN)
            break; /* no other importer can claim it: skip the remaining scans */
    }
    return best;
}
