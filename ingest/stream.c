/* stream.c: the importers that can parse an input read piece by piece. */
#include "importer.h"

#include <stddef.h>

extern const struct stream_importer stream_importer_fio_log;

static const struct stream_importer *const stream_importers[] = {
    &stream_importer_fio_log,
};

const struct stream_importer *importer_stream(const struct importer *imp)
{
    for (size_t i = 0; i < sizeof(stream_importers) / sizeof(stream_importers[0]); i++)
        if (stream_importers[i]->importer == imp)
            return stream_importers[i];
    return NULL;
}
