/* test_labels.c: the one rule of which label wins (db_labels_overlay, schema/labels.c): a
 * flag over a sidecar over what a run recorded or the content says, field by field; tags
 * concatenated with the later of two with one key kept. */
#include <stdlib.h>

#include "../../schema/db.h"
#include "harness.h"

/* The tags as "k=v;k=v" in their order. */
static void tags_text(char *out, size_t cap, const struct import_labels *l)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < l->n_tags && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%s=%s", i ? ";" : "", l->tags[i].key,
                               l->tags[i].value);
}

static void fields_fall_through(void)
{
    const struct import_labels flags = {.host = "flag-host", .sec = "krb5p"};
    const struct import_labels sidecar = {
        .host = "meta-host", .storage_class = "nfs-csi", .mount = "rw,vers=4.2"};
    struct import_labels out;
    struct kv *tags;
    db_labels_overlay(&flags, &sidecar, &out, &tags);
    STR_EQ(out.host, "flag-host", "a flag wins over the sidecar");
    STR_EQ(out.storage_class, "nfs-csi", "the sidecar's where no flag is given");
    STR_EQ(out.sec, "krb5p", "a flag where the sidecar has none");
    STR_EQ(out.mount, "rw,vers=4.2", "the sidecar's mount");
    OK(tags == NULL && out.n_tags == 0, "no tags: nothing allocated");

    /* three layers: the result of one overlay is the lower layer of the next */
    const struct import_labels content = {.host = "content-host", .sec = "sys"};
    struct import_labels all;
    struct kv *tags2;
    db_labels_overlay(&out, &content, &all, &tags2);
    STR_EQ(all.host, "flag-host", "flag over sidecar over content");
    STR_EQ(all.sec, "krb5p", "flag's sec over the content's");
    free(tags2);
}

static void later_tags_replace(void)
{
    const struct kv under_tags[] = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
    const struct kv over_tags[] = {{"b", "9"}, {"c", "4"}};
    const struct import_labels over = {.tags = over_tags, .n_tags = 2};
    const struct import_labels under = {.tags = under_tags, .n_tags = 3};
    struct import_labels out;
    struct kv *tags;
    char text[128];
    db_labels_overlay(&over, &under, &out, &tags);
    tags_text(text, sizeof(text), &out);
    /* a=1 gives way to the later a=3, the sidecar's b=2 to the flag's b=9 */
    STR_EQ(text, "a=3;b=9;c=4", "each key once, the later value, in list order");
    OK(out.tags == tags, "out's tags are the ones the caller frees");
    free(tags);

    db_labels_overlay(&under, &over, &out, &tags);
    tags_text(text, sizeof(text), &out);
    STR_EQ(text, "c=4;b=2;a=3", "the other way round the other wins");
    free(tags);
}

int main(void)
{
    fields_fall_through();
    later_tags_replace();
    return TEST_DONE();
}
