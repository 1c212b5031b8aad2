/* push.c: benchdb push: the sources of a local warehouse that the server lacks, with every
 * row that hangs off them, in batches sent by workers. A source is known by its sha256. A push
 * holds a lock that pushes take in turn for its whole length, so what it finds missing at its
 * start stays missing. The missing sources go in batches of whole files, one server
 * transaction each, sent by several workers at once (each with its own connections to the
 * warehouse and the server: the server stores one batch while the next is read); the batches
 * reserve the server's ids in their order (push_rekey.c), so the server keeps the local order.
 * A push killed midway leaves whole files behind it. */
#include "push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../schema/sql.h"

/* A batch is this many files, or fewer files holding this many results or stored bytes (a
 * transaction stays of a bounded size, and a killed push loses little). */
enum { BATCH_FILES = 1000, BATCH_RESULTS = 50000 };
#define BATCH_BYTES (64 << 20)

int local_error(struct push *p, const char *what)
{
    return diag_error_path(p->d, WHO, "%s: %s", what, sqlite3_errmsg(p->h));
}

int local_exec(struct push *p, const char *sql)
{
    int rc = SQLITE_OK;
    sql_exec(p->h, &rc, sql);
    return rc == SQLITE_OK ? 0 : local_error(p, "cannot read the warehouse");
}

PGresult *server_rows(struct push *p, const char *sql, const char *what)
{
    PGresult *r = PQexec(p->c, sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        return r;
    pg_result_error(p->c, r, WHO, what, p->d);
    PQclear(r);
    return NULL;
}

size_t next_column(const char **list)
{
    const char *c = *list;
    size_t n = strcspn(c, ",");
    *list = c + n + (c[n] == ',' ? 2 : 0);
    return n;
}

/* The lock a push holds from before it compares the hashes to its end: two pushes (two hosts)
 * take turns, and the second finds the files of the first stored. */
#define PUSH_LOCK "7461626863686463"

/* Fills temp.fleet_batch with the batch's sources, and empties the maps of the batch before. */
static int fill_batch(struct push *p)
{
    const struct push_plan *plan = p->plan;
    if (local_exec(p, plan->clear_batch.data))
        return -1;
    int rc = SQLITE_OK;
    sqlite3_stmt *ins = sql_cached(p->db, &rc, "INSERT INTO temp.fleet_batch VALUES (:id)");
    for (size_t i = p->first; rc == SQLITE_OK && i < p->end; i++) {
        sql_bind_int(ins, &rc, ":id", plan->sources[i]);
        sql_step_done(ins, &rc);
    }
    return rc == SQLITE_OK ? 0 : local_error(p, "cannot read the warehouse");
}

/* Waits until the batches before batch k have their ids (batches reserve theirs in order, so
 * that the server's ids keep the local order); -1 when a worker failed meanwhile (it said
 * why). */
static int wait_turn(struct push_plan *plan, size_t k)
{
    pthread_mutex_lock(&plan->mutex);
    while (plan->reserved != k && !plan->failed)
        pthread_cond_wait(&plan->turn, &plan->mutex);
    int failed = plan->failed;
    pthread_mutex_unlock(&plan->mutex);
    return failed ? -1 : 0;
}

static void end_turn(struct push_plan *plan)
{
    pthread_mutex_lock(&plan->mutex);
    plan->reserved++;
    pthread_cond_broadcast(&plan->turn);
    pthread_mutex_unlock(&plan->mutex);
}

/* Stops the other workers after a failure. */
static void fail(struct push_plan *plan)
{
    pthread_mutex_lock(&plan->mutex);
    plan->failed = 1;
    pthread_cond_broadcast(&plan->turn);
    pthread_mutex_unlock(&plan->mutex);
}

/* The row counts of the tables of that name in reserved (rekey_reserve's). */
static size_t count_of(const struct push_plan *plan, const size_t *reserved, const char *table)
{
    for (size_t i = 0; i < plan->n_tables; i++)
        if (!strcmp(plan->tables[i].g->name, table))
            return reserved[i];
    return 0;
}

/* Adds a committed batch to the counts, and shows them. */
static void tally(struct push_plan *plan, const size_t *reserved)
{
    pthread_mutex_lock(&plan->mutex);
    plan->counts->sources += count_of(plan, reserved, "source_file");
    plan->counts->runs += count_of(plan, reserved, "run");
    plan->counts->results += count_of(plan, reserved, "result");
    if (plan->progress && plan->progress->batch)
        plan->progress->batch(plan->progress->ctx, plan->counts->sources, plan->counts->results);
    pthread_mutex_unlock(&plan->mutex);
}

/* Sends batch k in one server transaction: its ids reserved in its turn, its rows COPYed (all
 * new on the server: the push's lock keeps other pushes out). */
static int push_batch(struct push *p, size_t k)
{
    size_t *reserved = xcalloc(p->plan->n_tables, sizeof(*reserved));
    int rc = fill_batch(p) || pg_exec(p->c, "BEGIN", WHO, "cannot start a batch", p->d) ||
                     wait_turn(p->plan, k) || rekey_reserve(p, reserved)
                 ? -1
                 : 0;
    if (rc == 0)
        end_turn(p->plan);
    if (rc == 0)
        rc = rekey_send(p) || pg_exec(p->c, "COMMIT", WHO, "cannot commit a batch", p->d) ? -1 : 0;
    if (rc)
        PQclear(PQexec(p->c, "ROLLBACK"));
    else
        tally(p->plan, reserved);
    free(reserved);
    return rc;
}

/* A worker: its own connections to the warehouse and to the server, its messages kept for the
 * push to say (in the order of the workers). */
struct push_worker {
    struct push p;
    struct diag d;
    struct said {
        enum diag_level level;
        char *line;
    } * said;
    size_t n_said, a_said;
    pthread_t thread;
};

static void keep_said(void *ctx, enum diag_level level, const char *line)
{
    struct push_worker *w = ctx;
    ALLOC_GROW(w->said, w->n_said + 1, w->a_said);
    w->said[w->n_said++] = (struct said){level, xstrdup(line)};
}

/* Where the role may (a superuser, or one granted SET on the parameter: docs/fleet.md), the
 * server's check of each row's foreign keys is left out, as pg_restore --disable-triggers and
 * logical replication leave it: a batch's rows point only at rows of its own transaction
 * (their ids are reserved in it) or at mounts read back from the server, and nothing but
 * pushes writes those tables. The check is a third of the server's work on a batch. Without
 * the privilege every row is checked. */
static int skip_key_checks(struct push *p)
{
    PGresult *r = PQexec(p->c, "SET session_replication_role = replica");
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK || (state && !strcmp(state, "42501"))
                 ? 0
                 : pg_result_error(p->c, r, WHO, "cannot set up the push", p->d);
    PQclear(r);
    return rc;
}

/* Opens a worker's connections: the warehouse read in a transaction of its own (each file is
 * read whole in one), the server's session set for the batches. */
static int open_worker(struct push *p)
{
    if (db_open(p->plan->path, DB_READ_ONLY, &p->db, p->d))
        return -1;
    p->h = db_handle(p->db); /* push.h's struct push says why */
    p->news = xcalloc(p->plan->n_tables, sizeof(*p->news));
    if (local_exec(p, "BEGIN") || local_exec(p, p->plan->batch_tables.data))
        return -1;
    p->c = pg_connect(p->plan->url, 0, WHO, p->d);
    /* a batch lost to a server crash after its commit returned is sent again by the next
     * push (the server lacks its sha256s), so the push need not wait for each flush */
    return p->c && pg_exec(p->c, "SET synchronous_commit = off", WHO, "cannot set up the push",
                           p->d) == 0
               ? skip_key_checks(p)
               : -1;
}

/* Adds to *results and *bytes what source id weighs: its results, and its stored bytes (those
 * of a file kept in chunks counted as its size, which they do not exceed: summing the chunks'
 * lengths cost more than the rest of the weighing). */
static int weigh(struct push *p, int64_t id, int64_t *results, int64_t *bytes)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st =
        sql_cached(p->db, &rc,
                   "SELECT (SELECT count(*) FROM run JOIN result r ON r.run_id = run.id WHERE "
                   "run.source_id = s.id), coalesce(length(s.raw), s.size_bytes) FROM source_file "
                   "s WHERE s.id = :id");
    sql_bind_int(st, &rc, ":id", id);
    if (sql_step(st, &rc)) {
        *results += sqlite3_column_int64(st, 0);
        *bytes += sqlite3_column_int64(st, 1);
    }
    int failed = rc == SQLITE_OK ? 0 : local_error(p, "cannot read the warehouse");
    sql_release(st);
    return failed;
}

/* Takes the next batch, k: the next sources, up to BATCH_FILES of them or fewer holding
 * BATCH_RESULTS results or BATCH_BYTES stored bytes. Each worker weighs the sources of the
 * batches it takes, so the weighing is not a stage of its own before any is sent. 1 when there
 * is one, 0 when none is left, -1 after a message. */
static int take_batch(struct push *p, size_t *k)
{
    struct push_plan *plan = p->plan;
    pthread_mutex_lock(&plan->mutex);
    int more = !plan->failed && plan->cut < plan->n_sources;
    if (more) {
        *k = plan->taken++;
        p->first = p->end = plan->cut;
        int64_t results = 0, bytes = 0;
        while (more > 0 && p->end < plan->n_sources && p->end - p->first < BATCH_FILES &&
               results < BATCH_RESULTS && bytes < BATCH_BYTES)
            more = weigh(p, plan->sources[p->end++], &results, &bytes) ? -1 : 1;
        plan->cut = p->end;
    }
    pthread_mutex_unlock(&plan->mutex);
    return more;
}

static void *work(void *arg)
{
    struct push_worker *w = arg;
    struct push *p = &w->p;
    int rc = open_worker(p), more;
    size_t k;
    while (rc == 0 && (more = take_batch(p, &k)) != 0)
        rc = more < 0 ? -1 : push_batch(p, k);
    if (rc)
        fail(p->plan);
    PQfinish(p->c);
    db_close(p->db);
    free(p->news);
    return NULL;
}

/* 1 when a worker before worker i said line. */
static int said_before(const struct push_worker *w, size_t i, const char *line)
{
    for (size_t k = 0; k < i; k++)
        for (size_t j = 0; j < w[k].n_said; j++)
            if (!strcmp(w[k].said[j].line, line))
                return 1;
    return 0;
}

/* Sends the missing sources with up to jobs workers (no more than the batches they make at
 * least); says their messages. */
static int run_workers(struct push_plan *plan, unsigned jobs, struct diag *d)
{
    size_t batches = (plan->n_sources + BATCH_FILES - 1) / BATCH_FILES;
    size_t n = jobs < batches ? jobs : batches, started = 0;
    struct push_worker *w = xcalloc(n ? n : 1, sizeof(*w));
    for (; started < n; started++) {
        w[started].d = (struct diag){keep_said, &w[started], 0, 0, 0};
        w[started].p = (struct push){.d = &w[started].d, .plan = plan};
        int err = pthread_create(&w[started].thread, NULL, work, &w[started]);
        if (err) {
            diag_error_path(d, WHO, "cannot start a worker: %s", strerror(err));
            fail(plan);
            break;
        }
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    for (size_t i = 0; i < started; i++)
        for (size_t j = 0; j < w[i].n_said; j++)
            if (!said_before(w, i, w[i].said[j].line)) /* one lost server, said once */
                diag_replay(d, w[i].said[j].level, w[i].said[j].line);
    for (size_t i = 0; i < started; i++) {
        for (size_t j = 0; j < w[i].n_said; j++)
            free(w[i].said[j].line);
        free(w[i].said);
    }
    free(w);
    return plan->failed ? -1 : 0;
}

/* The push's session on the server: its turn among the pushes, its temporary table of the
 * local keys of the sources (no index: the comparison reads it once). */
static int setup_session(struct push *p, const struct graph_table *root)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "SELECT pg_advisory_lock(" PUSH_LOCK ");"
             "CREATE TEMP TABLE local_key (%s text, id bigint)",
             root->key);
    int rc = pg_exec(p->c, sql.data, WHO, "cannot set up the push", p->d);
    buf_release(&sql);
    return rc;
}

/* Lists the local sources the server lacks, by id, ascending: every local key (sha256) is
 * copied to the server with its local id (both read from the key's index, not from the
 * sources' rows: a push that finds little missing reads little), and the server answers with
 * the ids of those it lacks (one round trip, and no key looked up again here). */
static int find_missing(struct push *p, const struct graph_table *root)
{
    size_t keys;
    struct buf cols = BUF_INIT, local = BUF_INIT, missing = BUF_INIT;
    buf_addf(&cols, "%s, id", root->key);
    buf_addf(&local, "SELECT %s, id FROM %s", root->key, root->name);
    buf_addf(&missing,
             "SELECT id FROM local_key l WHERE NOT EXISTS (SELECT 1 FROM %s s WHERE s.%s = l.%s) "
             "ORDER BY id",
             root->name, root->key, root->key);
    enum pg_type *types = column_types(p, "local_key", cols.data);
    int rc = SQLITE_OK, failed = types ? 0 : -1;
    sqlite3_stmt *st = failed ? NULL : sql_prepare(p->h, &rc, local.data);
    if (!failed && rc != SQLITE_OK)
        failed = local_error(p, "cannot read the warehouse");
    if (!failed)
        failed = copy_table(p, st, "local_key", cols.data, types, -1, &keys);
    sqlite3_finalize(st);
    free(types);
    PGresult *r = failed ? NULL : PQexec(p->c, missing.data);
    if (!failed && PQresultStatus(r) != PGRES_TUPLES_OK)
        failed = pg_error(p->c, WHO, "cannot compare the sources", p->d);
    if (!failed) {
        struct push_plan *plan = p->plan;
        plan->n_sources = (size_t)PQntuples(r);
        plan->sources = xmalloc((plan->n_sources ? plan->n_sources : 1) * sizeof(int64_t));
        for (size_t i = 0; i < plan->n_sources; i++)
            plan->sources[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
    }
    PQclear(r);
    buf_release(&cols);
    buf_release(&local);
    buf_release(&missing);
    return failed;
}

/* The table of an imported file's root rows, the sources. */
static const struct graph_table *file_root(void)
{
    const struct graph_table *t = graph_tables;
    while (t->role != GRAPH_FILE || t->owner)
        t++;
    return t;
}

static int push_all(struct push *p, unsigned jobs)
{
    struct push_plan *plan = p->plan;
    const struct graph_table *root = file_root();
    int left_out, bad_text;
    if (rekey_plan(p) || setup_session(p, root) || find_missing(p, root) ||
        (left_out = leave_out_bad_dicts(p)) < 0 || (bad_text = leave_out_bad_text(p)) < 0)
        return -1;
    if (plan->progress && plan->progress->start)
        plan->progress->start(plan->progress->ctx, plan->n_sources);
    /* the label changes are read after the workers' rows: a relabel made during the push is
     * not undone by the older current value of this connection's snapshot */
    return run_workers(plan, jobs, p->d) || local_exec(p, "COMMIT; BEGIN") || push_labels(p) ||
                   left_out || bad_text
               ? -1
               : 0;
}

int fleet_push(struct db *db, const char *url, unsigned jobs, const struct fleet_progress *progress,
               struct fleet_push_counts *counts, struct diag *d)
{
    memset(counts, 0, sizeof(*counts));
    struct push_plan plan = {.url = url,
                             .counts = counts,
                             .progress = progress,
                             .batch_tables = BUF_INIT,
                             .clear_batch = BUF_INIT};
    pthread_mutex_init(&plan.mutex, NULL);
    pthread_cond_init(&plan.turn, NULL);
    /* the handle: push.h's struct push says why */
    struct push p = {.db = db, .h = db_handle(db), .d = d, .plan = &plan};
    plan.path = sqlite3_db_filename(p.h, "main");
    p.c = pg_connect(url, 1, WHO, d);
    /* one local read transaction: the push reads one snapshot, and its many statements take
     * no lock each */
    int rc = p.c && local_exec(&p, "BEGIN") == 0 ? push_all(&p, jobs ? jobs : 1) : -1;
    if (rc == 0) {
        int counted = SQLITE_OK;
        struct buf sql = BUF_INIT;
        buf_addf(&sql, "SELECT count(*) FROM %s", file_root()->name);
        counts->present = (size_t)sql_int(p.h, &counted, sql.data) - plan.n_sources;
        buf_release(&sql);
    }
    int done = SQLITE_OK; /* a read transaction: nothing to keep */
    if (!sqlite3_get_autocommit(p.h))
        sql_exec(p.h, &done, "COMMIT");
    PQfinish(p.c); /* the push's lock goes with its session */
    rekey_plan_release(&plan);
    free(plan.sources);
    pthread_mutex_destroy(&plan.mutex);
    pthread_cond_destroy(&plan.turn);
    return rc;
}
