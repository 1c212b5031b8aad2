/* graph.c: the warehouse's tables as one graph (graph.h): the one list that merge, push and
 * pull walk. A table added to the schema gets its entry here, after its parents. */
#include "graph.h"

#include <string.h>

#include "../core/array.h"

const struct graph_table graph_tables[] = {
    /* 0006_raw_dict.sql: compression dictionaries, known by their content */
    {.name = "raw_dict", .role = GRAPH_SHARED, .key = "sha256", .flags = GRAPH_BYTES},
    /* 0001_init.sql (and 0003_raw.sql, 0006): one row per imported file, known by its content */
    {.name = "source_file",
     .role = GRAPH_FILE,
     .key = "sha256",
     .bytes = "raw",
     .fk = {{"raw_dict", "raw_dict"}}},
    {.name = "source_chunk",
     .role = GRAPH_FILE,
     .owner = "source_id",
     .flags = GRAPH_BYTES,
     .fk = {{"source_id", "source_file"}}},
    {.name = "mount", .role = GRAPH_SHARED, .key = "options"},
    {.name = "mount_option",
     .role = GRAPH_SHARED,
     .owner = "mount_id",
     .fk = {{"mount_id", "mount"}}},
    {.name = "run",
     .role = GRAPH_FILE,
     .owner = "source_id",
     .range = "started_at",
     .flags = GRAPH_ORDINAL,
     .fk = {{"source_id", "source_file"}}},
    {.name = "result",
     .role = GRAPH_FILE,
     .owner = "run_id",
     .flags = GRAPH_ORDINAL,
     .fk = {{"run_id", "run"}, {"mount_id", "mount"}}},
    {.name = "tag", .role = GRAPH_FILE, .owner = "result_id", .fk = {{"result_id", "result"}}},
    /* 0002_wide.sql */
    {.name = "histogram",
     .role = GRAPH_FILE,
     .owner = "result_id",
     .fk = {{"result_id", "result"}}},
    {.name = "series", .role = GRAPH_FILE, .owner = "result_id", .fk = {{"result_id", "result"}}},
    /* 0001_init.sql, rebuilt without its foreign key by 0004_baseline.sql */
    {.name = "label_history",
     .role = GRAPH_FILE,
     .owner = "result_id",
     .flags = GRAPH_CHANGES,
     .fk = {{"result_id", "result", .undeclared = 1}}},
    /* 0004_baseline.sql */
    {.name = "baseline", .role = GRAPH_SAVED, .key = "name"},
    {.name = "baseline_result",
     .role = GRAPH_SAVED,
     .owner = "baseline_id",
     .fk = {{"baseline_id", "baseline"}, {"result_id", "result"}}},
};
const size_t graph_n_tables = ARRAY_SIZE(graph_tables);

const struct graph_table *graph_find(const char *name)
{
    for (size_t i = 0; i < graph_n_tables; i++)
        if (!strcmp(graph_tables[i].name, name))
            return &graph_tables[i];
    return NULL;
}

const struct graph_fk *graph_fk(const struct graph_table *t, const char *column)
{
    for (size_t i = 0; i < GRAPH_MAX_FK && t->fk[i].column; i++)
        if (!strcmp(t->fk[i].column, column))
            return &t->fk[i];
    return NULL;
}

const struct graph_table *graph_owner(const struct graph_table *t)
{
    const struct graph_fk *fk = t->owner ? graph_fk(t, t->owner) : NULL;
    return fk ? graph_find(fk->parent) : NULL;
}

int graph_is_parent(const struct graph_table *t)
{
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *u = &graph_tables[i];
        for (size_t k = 0; u->role == t->role && k < GRAPH_MAX_FK && u->fk[k].column; k++)
            if (!strcmp(u->fk[k].parent, t->name))
                return 1;
    }
    return 0;
}
