/* checkpoint.c: a batch writer's WAL checkpoints, run on a thread of their own.
 *
 * In WAL mode a commit appends pages to the -wal file; SQLite's automatic checkpoint then
 * copies them into the database and fdatasyncs both files, in the committing thread, once the
 * WAL holds 1000 pages. Importing 10,000 small files made 13 such checkpoints, and the writer
 * (the import's one serial stage) spent a quarter of its time waiting for the disk in their
 * fdatasyncs. Here the commit only signals: a thread with a connection of its own runs the same
 * PASSIVE checkpoint while the writer goes on storing files. A checkpoint from another
 * connection is how SQLite is meant to be checkpointed by an application
 * (https://sqlite.org/wal.html#application_initiated_checkpoints); what is durable when, and
 * what a crash keeps, does not change.
 *
 * While the writer keeps appending, a checkpoint rarely catches up with the last frame, so the
 * WAL is not restarted and grows. Past WAL_PAGES_MAX the writer checkpoints itself, between
 * two transactions, as SQLite's own would: the WAL stays bounded (a 1 GiB log does not make a
 * 1 GiB -wal file). */
#include "db_private.h"

#include <pthread.h>
#include <stdlib.h>

#include "../core/xalloc.h"

enum {
    /* SQLite's default autocheckpoint: the checkpointer is woken as often as it would run */
    WAL_PAGES_CHECKPOINT = 1000,
    /* 64 MiB of 4 KiB pages: the writer checkpoints itself beyond it */
    WAL_PAGES_MAX = 16384,
};

struct checkpointer {
    sqlite3 *h; /* the checkpointer's own connection */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a checkpoint is wanted, or stop */
    pthread_cond_t idle; /* a checkpoint is over */
    int wanted, running, stop;
};

static void *run(void *arg)
{
    struct checkpointer *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->wanted && !c->stop)
            pthread_cond_wait(&c->wake, &c->lock);
        if (c->stop)
            break;
        c->wanted = 0;
        c->running = 1;
        pthread_mutex_unlock(&c->lock);
        /* a failure (SQLITE_BUSY: another process checkpoints) leaves the frames for the next
         * checkpoint, as a failed automatic one does */
        sqlite3_wal_checkpoint_v2(c->h, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->lock);
        c->running = 0;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* SQLite's WAL hook: called by the writer after each commit with the WAL's size in pages. */
static int committed(void *ctx, sqlite3 *h, const char *schema, int pages)
{
    struct checkpointer *c = ctx;
    if (pages < WAL_PAGES_CHECKPOINT)
        return SQLITE_OK;
    pthread_mutex_lock(&c->lock);
    if (pages < WAL_PAGES_MAX) {
        c->wanted = 1;
        pthread_cond_signal(&c->wake);
        pthread_mutex_unlock(&c->lock);
        return SQLITE_OK;
    }
    while (c->running)
        pthread_cond_wait(&c->idle, &c->lock);
    c->wanted = 0;
    pthread_mutex_unlock(&c->lock);
    sqlite3_wal_checkpoint_v2(h, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

static void checkpointer_free(struct checkpointer *c)
{
    pthread_cond_destroy(&c->idle);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
    sqlite3_close(c->h);
    free(c);
}

void checkpointer_start(struct db *db)
{
    if (db->checkpointer || db->wal_pending) /* no WAL yet (db_open's fill_new) */
        return;
    struct checkpointer *c = xcalloc(1, sizeof(*c));
    /* without its connection or thread, SQLite's automatic checkpoint goes on as before */
    if (sqlite3_open_v2(db->path, &c->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(c->h, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(c->h);
        free(c);
        return;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    pthread_cond_init(&c->idle, NULL);
    if (pthread_create(&c->thread, NULL, run, c)) {
        checkpointer_free(c);
        return;
    }
    sqlite3_wal_hook(db->h, committed, c);
    db->checkpointer = c;
}

void checkpointer_stop(struct db *db)
{
    struct checkpointer *c = db->checkpointer;
    if (!c)
        return;
    sqlite3_wal_autocheckpoint(db->h, WAL_PAGES_CHECKPOINT); /* SQLite's own hook again */
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    checkpointer_free(c);
    db->checkpointer = NULL;
}
