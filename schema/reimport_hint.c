/* reimport_hint.c: a re-import's labels against the stored ones: when the labels given to a file
 * whose content is stored already differ from its results', the note that says what is stored
 * and the command that would change it (db_reimport_hint, db.h). */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/mount.h"
#include "../core/xalloc.h"
#include "sql.h"

#define RESULTS_OF_SHA                                                                             \
    " FROM result r JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id "
#define WHERE_SHA "WHERE s.sha256 = :sha256 ORDER BY 1"

/* A label relabel can set: its --set key, how the note names it, and the distinct values the
 * results of content :sha256 hold (NULL first). */
struct settable {
    const char *key, *name, *sql;
};
static const struct settable storage_class_label = {
    "storage_class", "storage class", "SELECT DISTINCT r.storage_class" RESULTS_OF_SHA WHERE_SHA};
static const struct settable host_label = {"host", "host",
                                           "SELECT DISTINCT r.host" RESULTS_OF_SHA WHERE_SHA};
static const struct settable sec_label = {"sec", "sec",
                                          "SELECT DISTINCT r.sec" RESULTS_OF_SHA WHERE_SHA};
static const char tag_sql[] = "SELECT DISTINCT t.value" RESULTS_OF_SHA
                              "LEFT JOIN tag t ON t.result_id = r.id AND t.key = :tag " WHERE_SHA;
static const char mount_sql[] =
    "SELECT DISTINCT m.options" RESULTS_OF_SHA "LEFT JOIN mount m ON m.id = r.mount_id " WHERE_SHA;

/* The note being written: what is stored that differs, and the --set options that would
 * change it. */
struct hint {
    struct db *db;
    const char *sha256;
    struct buf stored, sets;
    struct buf path; /* the stored file's, as the note names it */
    int rc;          /* SQLite's */
};

/* Appends the distinct values sql gives for the hint's content (and tag, when set) to
 * stored, each quoted or "none", joined with '/'. 1 when one of them is not want. */
static int stored_values(struct hint *h, const char *sql, const char *tag, const char *want,
                         struct buf *stored)
{
    int differ = 0;
    sqlite3_stmt *st = sql_cached(h->db, &h->rc, sql);
    sql_bind_text(st, &h->rc, ":sha256", h->sha256);
    if (tag)
        sql_bind_text(st, &h->rc, ":tag", tag);
    while (sql_step(st, &h->rc)) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        differ |= !v || strcmp(v, want);
        buf_adds(stored, stored->len ? "/" : "");
        buf_addf(stored, v ? "'%s'" : "%s", v ? v : "none");
    }
    sql_release(st);
    return h->rc == SQLITE_OK && differ;
}

/* When the given value (NULL: not given) differs from the stored ones, says what is stored
 * and adds the --set that would change it. key: relabel's ("tag:NAME"), name: the note's. */
static void compare_label(struct hint *h, const char *sql, const char *tag, const char *key,
                          const char *name, const char *given)
{
    struct buf values = BUF_INIT, set = BUF_INIT;
    if (given && stored_values(h, sql, tag, given, &values)) {
        buf_addf(&h->stored, "%s%s %s", h->stored.len ? ", " : "", name, values.data);
        buf_addf(&set, "%s=%s", key, given);
        buf_adds(&h->sets, " --set ");
        buf_add_shell_word(&h->sets, set.data);
    }
    buf_release(&values);
    buf_release(&set);
}

static void compare_settable(struct hint *h, const struct settable *l, const char *given)
{
    compare_label(h, l->sql, NULL, l->key, l->name, given);
}

static void compare_tags(struct hint *h, const struct import_labels *given)
{
    struct buf key = BUF_INIT, name = BUF_INIT;
    for (size_t i = 0; i < given->n_tags; i++) {
        buf_reset(&key);
        buf_reset(&name);
        buf_addf(&key, "tag:%s", given->tags[i].key);
        buf_addf(&name, "tag %s", given->tags[i].key);
        compare_label(h, tag_sql, given->tags[i].key, key.data, name.data, given->tags[i].value);
    }
    buf_release(&key);
    buf_release(&name);
}

/* `benchdb [--db PATH] CMD --where source=PATH` (run=ID when other files were imported from
 * the same path), naming the warehouse unless it is the one benchdb opens by default. */
static void command_for(struct hint *h, struct buf *cmd, const char *verb)
{
    const char *env = getenv("BENCHDB_DB");
    const char *fallback = env && *env ? env : "benchdb.sqlite"; /* cli/main.c's rule */
    sqlite3_stmt *st = sql_cached(h->db, &h->rc,
                                  "SELECT s.path, (SELECT count(*) FROM source_file o WHERE "
                                  "o.path = s.path), (SELECT min(id) FROM run WHERE "
                                  "run.source_id = s.id) FROM source_file s WHERE s.sha256 = "
                                  ":sha256");
    sql_bind_text(st, &h->rc, ":sha256", h->sha256);
    if (!sql_step(st, &h->rc)) {
        sql_release(st);
        return;
    }
    buf_addf(&h->path, "%s", (const char *)sqlite3_column_text(st, 0));
    buf_adds(cmd, "benchdb ");
    if (strcmp(h->db->path, fallback)) {
        buf_adds(cmd, "--db ");
        buf_add_shell_word(cmd, h->db->path);
        buf_addc(cmd, ' ');
    }
    struct buf where = BUF_INIT;
    if (sqlite3_column_int64(st, 1) > 1)
        buf_addf(&where, "run=%lld", (long long)sqlite3_column_int64(st, 2));
    else
        buf_addf(&where, "source=%s", h->path.data);
    buf_addf(cmd, "%s --where ", verb);
    buf_add_shell_word(cmd, where.data);
    buf_release(&where);
    sql_release(st);
}

/* The note for a mount that differs, which only removing and importing again changes: 1 when
 * given's mount (when it parses) differs from the stored one. */
static int mount_note(struct hint *h, const struct mount_info *m, struct buf *note)
{
    struct buf stored = BUF_INIT, cmd = BUF_INIT;
    int differ = stored_values(h, mount_sql, NULL, m->canonical, &stored);
    if (differ) {
        command_for(h, &cmd, "rm");
        buf_addf(note, "'%s': mount options differ (%s stored, '%s' given): %s, then import again",
                 h->path.data, stored.data, m->canonical, cmd.data);
    }
    buf_release(&stored);
    buf_release(&cmd);
    return differ;
}

static void relabel_note(struct hint *h, const struct import_labels *given, const char *sec,
                         struct buf *note)
{
    compare_settable(h, &storage_class_label, given->storage_class);
    compare_settable(h, &host_label, given->host);
    compare_settable(h, &sec_label, sec);
    compare_tags(h, given);
    if (!h->sets.len)
        return;
    struct buf cmd = BUF_INIT;
    command_for(h, &cmd, "relabel");
    buf_addf(note, "'%s' is stored with %s; to change its labels: %s%s", h->path.data,
             h->stored.data, cmd.data, h->sets.data);
    buf_release(&cmd);
}

int db_reimport_hint(struct db *db, const char *sha256, const struct import_labels *given,
                     struct buf *note, struct diag *d)
{
    struct hint h = {db, sha256, BUF_INIT, BUF_INIT, BUF_INIT, SQLITE_OK};
    struct mount_info m;
    struct buf err = BUF_INIT;
    /* a mount that does not parse is not compared: the file is skipped, not imported */
    int parsed = given->mount && !mount_parse(given->mount, &m, &err);
    /* a mount's sec= counts as given with it, as when the file was stored (db.c) */
    const char *sec = given->sec ? given->sec : parsed ? m.sec : NULL;
    if (!parsed || !mount_note(&h, &m, note))
        relabel_note(&h, given, sec, note);
    if (given->mount)
        mount_info_release(&m);
    buf_release(&err);
    buf_release(&h.stored);
    buf_release(&h.sets);
    buf_release(&h.path);
    if (h.rc != SQLITE_OK) {
        buf_reset(note);
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    }
    return 0;
}
