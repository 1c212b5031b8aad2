/* floor.c: the least an importer of fio JSON can do, as a throughput floor for bench/run.sh:
 * read each file, parse it with cJSON, and insert a few columns per job with one prepared
 * statement in one transaction. Usage: floor DB FILE... */
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    char *data = malloc((size_t)*len + 1);
    if (data && fread(data, 1, (size_t)*len, f) != (size_t)*len) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    x = b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
    return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

static void insert_jobs(sqlite3_stmt *st, const char *path, const cJSON *doc)
{
    const cJSON *job;
    cJSON_ArrayForEach(job, cJSON_GetObjectItemCaseSensitive(doc, "jobs"))
    {
        const cJSON *read = cJSON_GetObjectItemCaseSensitive(job, "read");
        const cJSON *write = cJSON_GetObjectItemCaseSensitive(job, "write");
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, cJSON_GetStringValue(cJSON_GetObjectItem(job, "jobname")), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, num(read, "bw_bytes", NULL));
        sqlite3_bind_double(st, 4, num(read, "iops", NULL));
        sqlite3_bind_double(st, 5, num(write, "bw_bytes", NULL));
        sqlite3_bind_double(st, 6, num(write, "iops", NULL));
        sqlite3_bind_double(st, 7, num(read, "clat_ns", "mean"));
        sqlite3_step(st);
        sqlite3_reset(st);
    }
}

int main(int argc, char **argv)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (argc < 2 || sqlite3_open(argv[1], &db) != SQLITE_OK)
        return 2;
    sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS r(path TEXT, job TEXT,"
                 " rbw REAL, riops REAL, wbw REAL, wiops REAL, rclat REAL); BEGIN",
                 NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?,?,?,?,?,?,?)", -1, &st, NULL);
    int status = 0;
    for (int i = 2; i < argc; i++) {
        long len;
        char *data = slurp(argv[i], &len);
        cJSON *doc = data ? cJSON_ParseWithLength(data, (size_t)len) : NULL;
        if (doc)
            insert_jobs(st, argv[i], doc);
        else
            status = 1;
        cJSON_Delete(doc);
        free(data);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    return status;
}
