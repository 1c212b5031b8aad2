/* labels.c: which label a result gets when several places give one (db_labels_overlay); a
 * re-import's labels against the stored ones are reimport_hint.c's. */
#include "db_private.h"

#include <string.h>

#include "../core/xalloc.h"

/* The i-th tag of under's then over's. */
static const struct kv *tag_at(const struct import_labels *over, const struct import_labels *under,
                               size_t i)
{
    return i < under->n_tags ? &under->tags[i] : &over->tags[i - under->n_tags];
}

/* 1 when a later tag of the list has the key of the i-th. */
static int replaced_later(const struct import_labels *over, const struct import_labels *under,
                          size_t i)
{
    const char *key = tag_at(over, under, i)->key;
    for (size_t j = i + 1; j < under->n_tags + over->n_tags; j++)
        if (!strcmp(tag_at(over, under, j)->key, key))
            return 1;
    return 0;
}

void db_labels_overlay(const struct import_labels *over, const struct import_labels *under,
                       struct import_labels *out, struct kv **tags)
{
    size_t n = under->n_tags + over->n_tags;
    out->host = over->host ? over->host : under->host;
    out->storage_class = over->storage_class ? over->storage_class : under->storage_class;
    out->sec = over->sec ? over->sec : under->sec;
    out->mount = over->mount ? over->mount : under->mount;
    *tags = n ? xmalloc(n * sizeof(**tags)) : NULL;
    out->n_tags = 0;
    for (size_t i = 0; i < n; i++)
        if (!replaced_later(over, under, i))
            (*tags)[out->n_tags++] = *tag_at(over, under, i);
    out->tags = *tags;
}
