/* rawstore_train.c: the dictionaries stored bytes are compressed against (rawstore.c packs
 * with them). When an import ends: a format with enough files stored whole without one gets a
 * dictionary trained on them, and its files are repacked against it where that makes them
 * smaller; the files of a format another import trained meanwhile are packed late; and a
 * format whose files are stored against the dictionary benchdb ships gets one trained on them
 * once there are RETRAIN_FILES, for the files that follow. vacuum trains and repacks the rest
 * (db_raw_vacuum). */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>
#include <zdict.h>

#include "../core/buf.h"
#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "sql.h"

/* Training: a format gets a dictionary once this many of its files are stored whole without
 * one; it is trained on at most DICT_SAMPLES of them, spread over their ids, each cut to
 * DICT_SAMPLE_BYTES, and holds at most DICT_BYTES (a sixteenth of the samples when they are
 * fewer: zstd's guide wants samples of about 100 times the dictionary). On bench/gen.py's
 * varied fio JSON files, 32 KiB left 421 bytes a file (1,352 without a dictionary), 16, 64 and
 * 110 KiB 437-445, and 256 samples 448 in a quarter of the training time (bench/RESULTS.md). */
enum {
    DICT_MIN_FILES = 256,
    DICT_SAMPLES = 1024,
    DICT_SAMPLE_BYTES = 64 << 10,
    DICT_BYTES = 32 << 10,
    DICT_BYTES_MIN = 1 << 10,
    /* A shipped dictionary was trained on the repository's fixtures, not on this warehouse's
     * files (on bench/gen.py's files, 873 bytes a file against 433 with one trained on them):
     * an import replaces it once this many files are stored against it, ten times the
     * samples the new one is trained on, so that training (0.2-0.7 s) is paid once per ten
     * thousand files, not by a user's first import. The files before stay as they are until
     * vacuum repacks them. */
    RETRAIN_FILES = 10 * DICT_SAMPLES,
};

/* A format's files stored whole without a dictionary (ids ascending), and training samples. */
struct training {
    int64_t *ids;
    size_t n, alloc;
    struct buf samples;
    size_t *sizes;
    size_t n_samples;
};

static int add_sample(void *ctx, const void *data, size_t len)
{
    struct training *t = ctx;
    size_t n = len < DICT_SAMPLE_BYTES ? len : DICT_SAMPLE_BYTES;
    buf_add(&t->samples, data, n);
    t->sizes[t->n_samples++] = n;
    return 0;
}

/* Which of a format's files stored whole a pass reads (ids ascending): those stored without a
 * dictionary, those stored against dictionary id (the index 0008 keeps), or all but those. */
enum files_of { UNDICTIONARIED, AGAINST, NOT_AGAINST };

static const char *const files_sql[] = {
    [UNDICTIONARIED] = "SELECT id FROM source_file INDEXED BY source_undictionaried WHERE format "
                       "= ?1 AND raw_dict IS NULL AND raw IS NOT NULL ORDER BY id",
    [AGAINST] = "SELECT id FROM source_file INDEXED BY source_by_dict WHERE raw_dict = ?2 AND "
                "format = ?1 ORDER BY id",
    [NOT_AGAINST] = "SELECT id FROM source_file WHERE format = ?1 AND raw IS NOT NULL AND "
                    "raw_dict IS NOT ?2 ORDER BY id",
};

/* The ids of format's files that which names (dict: the dictionary's id), in t->ids; 0, or -1
 * (SQLite's message). */
static int files_of(sqlite3 *h, const char *format, enum files_of which, int64_t dict,
                    struct training *t)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, files_sql[which]);
    if (st)
        sqlite3_bind_text(st, 1, format, -1, SQLITE_STATIC);
    if (st && which != UNDICTIONARIED)
        sqlite3_bind_int64(st, 2, dict);
    while (sql_step(st, &rc)) {
        ALLOC_GROW(t->ids, t->n + 1, t->alloc);
        t->ids[t->n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Reads a sample of t's files into t's samples; 0, or -1 (SQLite's message). */
static int gather(sqlite3 *h, struct training *t)
{
    int rc = SQLITE_OK;
    size_t want = t->n < DICT_SAMPLES ? t->n : DICT_SAMPLES;
    t->sizes = xcalloc(want ? want : 1, sizeof(*t->sizes));
    struct raw_reader *reader = rc == SQLITE_OK ? raw_reader_open(h, "main") : NULL;
    if (!reader)
        rc = SQLITE_ERROR;
    /* spread over the ids: a warehouse's first files need not be like its later ones */
    for (size_t k = 0; rc == SQLITE_OK && k < want; k++)
        if (raw_read(reader, t->ids[k * t->n / want], add_sample, t) < 0)
            rc = SQLITE_ERROR;
    raw_reader_close(reader);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The dictionary trained on t's samples in *dict (caller frees); 0 when they give none. */
static size_t train(const struct training *t, void **dict)
{
    size_t cap = t->samples.len / 16 < DICT_BYTES ? t->samples.len / 16 : DICT_BYTES;
    if (cap < DICT_BYTES_MIN || t->n_samples > UINT32_MAX)
        return 0;
    *dict = xmalloc(cap);
    size_t n = ZDICT_trainFromBuffer(*dict, cap, t->samples.data, t->sizes, (unsigned)t->n_samples);
    if (ZDICT_isError(n)) {
        free(*dict);
        *dict = NULL;
        return 0;
    }
    return n;
}

/* Stores the dictionary of format; its id, or 0 (SQLite's message). */
static int64_t store_dict(sqlite3 *h, const char *format, const void *dict, size_t len)
{
    char sha[65];
    sha256_hex(dict, len, sha);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(
        h, &rc, "INSERT INTO raw_dict(sha256, format, bytes) VALUES (?1, ?2, ?3) RETURNING id");
    if (st) {
        sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, dict, (int)len, SQLITE_STATIC);
    }
    int64_t id = sql_int_result(st, &rc); /* finalizes st */
    return rc == SQLITE_OK ? id : 0;
}

/* What training did for a format: its dictionary's size (0: none), the files it was
 * trained on, and the files repacked with their stored bytes before and after. */
struct repack {
    size_t dict_len, samples, files, before, after;
};

/* Repacking one file: the dictionary, the statement that rewrites the file, and the file's id
 * and stored length; failed: a rewrite failed (raw_read takes any stop for bytes that do not
 * decode). */
struct repacking {
    const struct raw_dict *dict;
    struct raw_packer *packer;
    sqlite3_stmt *update;
    int64_t id;
    size_t stored;
    struct repack *r;
    int failed;
};

static int repack_one(void *ctx, const void *data, size_t len)
{
    struct repacking *p = ctx;
    struct raw_blob b = raw_pack(&p->packer, p->dict, data, len);
    int smaller = b.dict && b.len < p->stored;
    p->r->before += p->stored;
    p->r->after += smaller ? b.len : p->stored;
    if (!smaller)
        return 0;
    sqlite3_bind_blob(p->update, 1, b.data, (int)b.len, SQLITE_STATIC);
    sqlite3_bind_int64(p->update, 2, raw_dict_id(b.dict));
    sqlite3_bind_int64(p->update, 3, p->id);
    p->failed = sqlite3_step(p->update) != SQLITE_DONE;
    sqlite3_reset(p->update);
    return p->failed ? -1 : 0;
}

/* Rewrites each of t's files against dict where that makes it smaller; 0, or -1 (SQLite's
 * message; a file whose stored bytes do not decode is left as it is: reparse reports it). */
static int repack(sqlite3 *h, const struct raw_dict *dict, const struct training *t,
                  struct repack *r)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *len = sql_prepare(h, &rc, "SELECT length(raw) FROM source_file WHERE id = ?");
    struct repacking p = {
        .dict = dict,
        .update = sql_prepare(h, &rc,
                              "UPDATE source_file SET raw = ?1, raw_codec = 'zstd', raw_dict = ?2 "
                              "WHERE id = ?3"),
        .r = r};
    struct raw_reader *reader = rc == SQLITE_OK ? raw_reader_open(h, "main") : NULL;
    if (!reader)
        rc = SQLITE_ERROR;
    for (size_t k = 0; rc == SQLITE_OK && k < t->n; k++) {
        p.id = t->ids[k];
        sqlite3_bind_int64(len, 1, p.id);
        p.stored = sql_step(len, &rc) ? (size_t)sqlite3_column_int64(len, 0) : 0;
        sqlite3_reset(len);
        if (rc == SQLITE_OK && (raw_read(reader, p.id, repack_one, &p) < 0 || p.failed))
            rc = SQLITE_ERROR;
    }
    raw_reader_close(reader);
    sqlite3_finalize(len);
    sqlite3_finalize(p.update);
    raw_packer_free(p.packer);
    return rc == SQLITE_OK ? 0 : -1;
}

static void training_release(struct training *t)
{
    free(t->ids);
    free(t->sizes);
    buf_release(&t->samples);
}

/* Finds format's files that which names (dict: as files_of) and, when there are min_files,
 * trains a dictionary on a sample of them and stores it, inside the caller's transaction: the
 * format's dictionary from now on (the newest). r gets its size (0: none trained), its samples
 * and the files; t keeps the files (the caller releases it). 0, or -1 (SQLite's message). */
static int train_on(struct db *db, const char *format, enum files_of which, int64_t dict,
                    size_t min_files, struct training *t, struct repack *r)
{
    void *bytes = NULL;
    int rc = files_of(db->h, format, which, dict, t);
    if (rc == 0 && t->n >= min_files && (rc = gather(db->h, t)) == 0 &&
        (r->dict_len = train(t, &bytes)) > 0) {
        db_raw_dicts_release(db);
        int64_t id = store_dict(db->h, format, bytes, r->dict_len);
        const struct raw_dict *got = id ? raw_dict_find(db_raw_dicts(db), format) : NULL;
        rc = got && raw_dict_id(got) == id ? 0 : -1;
        r->samples = t->n_samples;
        r->files = t->n;
    }
    free(bytes);
    return rc;
}

/* Trains format's dictionary on its files stored without one and repacks them, inside the
 * caller's transaction; *r says what it did. */
static int train_format(struct db *db, const char *format, struct repack *r)
{
    struct training t = {.samples = BUF_INIT};
    int rc = train_on(db, format, UNDICTIONARIED, 0, 0, &t, r);
    if (rc == 0 && r->dict_len)
        rc = repack(db->h, raw_dict_find(db_raw_dicts(db), format), &t, r);
    training_release(&t);
    return rc;
}

/* The number of files stored against dictionary id; -1 when SQLite fails. */
static int64_t files_against(sqlite3 *h, int64_t id)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc,
                                   "SELECT count(*) FROM source_file INDEXED BY source_by_dict "
                                   "WHERE raw_dict = ?1");
    if (st)
        sqlite3_bind_int64(st, 1, id);
    int64_t n = sql_int_result(st, &rc); /* finalizes st */
    return rc == SQLITE_OK ? n : -1;
}

/* Replaces format's shipped dictionary by one trained on the files stored against it, for the
 * files that follow, inside the caller's transaction (those files are left as they are:
 * vacuum repacks them); *r says what it did. */
static int retrain_format(struct db *db, const char *format, struct repack *r)
{
    struct training t = {.samples = BUF_INIT};
    /* its row's id: the dictionaries were read before this import stored it */
    int64_t shipped = db_raw_dict_stored(db, raw_dict_find(db_raw_dicts(db), format));
    int rc = shipped < 0 ? -1 : shipped ? train_on(db, format, AGAINST, shipped, 0, &t, r) : 0;
    training_release(&t);
    return rc;
}

/* vacuum's pass over format, inside the caller's transaction: a format stored against the
 * dictionary benchdb ships (or none) with DICT_MIN_FILES files stored whole gets one trained on
 * them; then its files stored against another than its newest, or none, are repacked against
 * that where it makes them smaller. *r says what it did. */
static int vacuum_format(struct db *db, const char *format, struct repack *r)
{
    struct training t = {.samples = BUF_INIT};
    const struct raw_dict *dict = raw_dict_find(db_raw_dicts(db), format);
    int rc = !dict || raw_dict_is_shipped(dict)
                 ? train_on(db, format, NOT_AGAINST, 0, DICT_MIN_FILES, &t, r)
                 : 0;
    training_release(&t);
    t = (struct training){.samples = BUF_INIT};
    dict = rc == 0 ? raw_dict_find(db_raw_dicts(db), format) : NULL;
    if (dict && raw_dict_id(dict)) {
        rc = files_of(db->h, format, NOT_AGAINST, raw_dict_id(dict), &t);
        if (rc == 0 && t.n)
            rc = repack(db->h, dict, &t, r);
        r->files = t.n;
    }
    training_release(&t);
    return rc;
}

static void formats_release(char **formats, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(formats[i]);
    free(formats);
}

/* The formats in the first column of st's rows (prepared with rc), in *formats (the caller
 * frees it: formats_release); their count, or -1 when SQLite fails (nothing to free). keep:
 * NULL, or which rows to keep (1), pass over (0) or fail on (-1), given ctx. */
typedef int format_filter(struct db *db, sqlite3_stmt *row, const void *ctx);
static long formats_of(struct db *db, sqlite3_stmt *st, int rc, format_filter *keep,
                       const void *ctx, char ***formats)
{
    size_t n = 0, alloc = 0;
    *formats = NULL;
    while (sql_step(st, &rc)) {
        int k = keep ? keep(db, st, ctx) : 1;
        if (k < 0)
            rc = SQLITE_ERROR;
        if (k <= 0)
            continue;
        ALLOC_GROW(*formats, n + 1, alloc);
        (*formats)[n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        return (long)n;
    formats_release(*formats, n);
    *formats = NULL;
    return -1;
}

/* A row (format, sha256) of a format's newest dictionary: 1 unless it is the one of the
 * dictionaries known (ctx) for that format. */
static int not_known(struct db *db, sqlite3_stmt *row, const void *known)
{
    (void)db;
    const struct raw_dict *k = raw_dict_find(known, (const char *)sqlite3_column_text(row, 0));
    return !k || strcmp(raw_dict_sha256(k), (const char *)sqlite3_column_text(row, 1));
}

/* The formats whose dictionary this import did not know: trained by another import while this
 * one ran (each packs against the dictionaries it read when it began), so that this import's
 * files of those formats were stored without it, and no training will look at them again (a
 * format is trained once). *formats set (the caller frees it: formats_release), their count
 * returned; -1 when SQLite fails (nothing to free). known: the dictionaries this import packed
 * against (NULL: none read, nothing packed). */
static long unknown_dicts(struct db *db, const struct raw_dicts *known, char ***formats)
{
    int rc = SQLITE_OK;
    *formats = NULL;
    if (!known)
        return 0;
    /* each format's newest, the one used; known by its hash, as the import may have stored
     * the shipped one it packed against meanwhile */
    sqlite3_stmt *st = sql_prepare(
        db->h, &rc,
        "SELECT d.format, d.sha256 FROM raw_dict d WHERE d.format IN (SELECT format FROM "
        "source_file INDEXED BY source_undictionaried WHERE raw_dict IS NULL AND raw IS NOT "
        "NULL) AND d.id = (SELECT max(id) FROM raw_dict WHERE format = d.format) ORDER BY "
        "d.format");
    return formats_of(db, st, rc, not_known, known, formats);
}

/* Repacks format's files stored whole without a dictionary against the warehouse's (read
 * again, checked as any is), inside the caller's transaction; *r says what it did (nothing
 * when the dictionary does not load). */
static int pack_late(struct db *db, const char *format, struct repack *r)
{
    struct training t = {.samples = BUF_INIT};
    const struct raw_dict *dict = raw_dict_find(db_raw_dicts(db), format);
    int rc = dict ? files_of(db->h, format, UNDICTIONARIED, 0, &t) : 0;
    if (rc == 0 && dict && t.n)
        rc = repack(db->h, dict, &t, r);
    r->files = t.n;
    free(t.ids);
    return rc;
}

/* After an import that another import's training overtook (unknown_dicts): its files packed
 * against the dictionaries trained meanwhile, in one transaction. */
/* One format's part of a repack (train_format, pack_late), counted in r. */
typedef int format_pass(struct db *db, const char *format, struct repack *r);

/* Runs pass over each of formats[0..n) in one transaction, filling done[i]: 0, or -1 after a
 * message. A pass that fails without one (SQLite's own error mid-pass) is said as "database
 * 'PATH': cannot WHAT: ERROR", with the error taken before the ROLLBACK replaces it ("no
 * transaction is active" when SQLite rolled back already); the dictionaries read are dropped
 * after any failure. */
static int repack_formats(struct db *db, char **formats, size_t n, format_pass *pass,
                          struct repack *done, const char *what, struct diag *d)
{
    if (!n)
        return 0;
    int failed = db_begin(db, d) != 0;
    if (!failed) {
        for (size_t i = 0; !failed && i < n; i++)
            failed = pass(db, formats[i], &done[i]) != 0;
        if (failed) {
            char *first = xstrdup(sqlite3_errmsg(db->h));
            db_rollback(db);
            diag_error(d, "database '%s': cannot %s: %s", db->path, what, first);
            free(first);
        } else {
            failed = db_commit(db, d) != 0;
        }
    }
    if (failed)
        db_raw_dicts_release(db);
    return failed ? -1 : 0;
}

static int train_late(struct db *db, struct diag *d)
{
    char **formats;
    long n = unknown_dicts(db, db->dicts, &formats);
    if (n < 0) {
        db_raw_dicts_release(db);
        return diag_error(d, "database '%s': cannot compress stored bytes against a dictionary: %s",
                          db->path, sqlite3_errmsg(db->h));
    }
    struct repack *done = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*done));
    if (n > 0)
        db_raw_dicts_release(db); /* the ones trained meanwhile read */
    int failed = repack_formats(db, formats, (size_t)n, pack_late, done,
                                "compress stored bytes against a dictionary", d);
    for (long i = 0; !failed && i < n; i++)
        if (done[i].files)
            diag_note(d,
                      "%s: %zu stored files compressed against the dictionary another import "
                      "trained meanwhile: %zu bytes, from %zu",
                      formats[i], done[i].files, done[i].after, done[i].before);
    formats_release(formats, (size_t)n);
    free(done);
    return failed;
}

/* A row (format, sha256, id) of a format's newest dictionary: 1 when it is the one benchdb
 * ships, with RETRAIN_FILES files stored against it; 0 when not; -1 when SQLite fails. The
 * shipped one is known by its hash: this import may have stored it after reading the
 * dictionaries. */
static int due_for_retraining(struct db *db, sqlite3_stmt *row, const void *ctx)
{
    (void)ctx;
    const struct raw_dict *dict =
        raw_dict_find(db_raw_dicts(db), (const char *)sqlite3_column_text(row, 0));
    if (!dict || !raw_dict_is_shipped(dict) ||
        strcmp(raw_dict_sha256(dict), (const char *)sqlite3_column_text(row, 1)))
        return 0;
    int64_t n = files_against(db->h, sqlite3_column_int64(row, 2));
    return n < 0 ? -1 : n >= RETRAIN_FILES;
}

/* The formats with DICT_MIN_FILES stored whole without a dictionary and none stored, trained
 * and repacked; then the formats due_for_retraining, trained. 0, or -1 after a message. */
static int train_new(struct db *db, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(
        db->h, &rc,
        "SELECT format FROM source_file INDEXED BY source_undictionaried WHERE raw_dict IS NULL "
        "AND raw IS NOT NULL GROUP BY format HAVING count(*) >= ?1 AND format NOT IN (SELECT "
        "format FROM raw_dict) ORDER BY format");
    if (st)
        sqlite3_bind_int(st, 1, DICT_MIN_FILES);
    char **formats, **due = NULL;
    long n = formats_of(db, st, rc, NULL, NULL, &formats), n_due = 0;
    if (n >= 0) {
        rc = SQLITE_OK;
        n_due = formats_of(db,
                           sql_prepare(db->h, &rc,
                                       "SELECT d.format, d.sha256, d.id FROM raw_dict d WHERE "
                                       "d.id = (SELECT max(id) FROM raw_dict WHERE format = "
                                       "d.format) ORDER BY d.format"),
                           rc, due_for_retraining, NULL, &due);
    }
    if (n < 0 || n_due < 0) {
        db_raw_dicts_release(db);
        formats_release(formats, n < 0 ? 0 : (size_t)n);
        return diag_error(d, "database '%s': cannot train a dictionary for stored bytes: %s",
                          db->path, sqlite3_errmsg(db->h));
    }
    struct repack *done = xcalloc((size_t)n + (size_t)n_due + 1, sizeof(*done));
    int failed = repack_formats(db, formats, (size_t)n, train_format, done,
                                "train a dictionary for stored bytes", d) ||
                 repack_formats(db, due, (size_t)n_due, retrain_format, done + n,
                                "train a dictionary for stored bytes", d);
    /* once per format and warehouse, and it makes this import take longer: said */
    for (long i = 0; !failed && i < n; i++)
        if (done[i].dict_len)
            diag_note(d,
                      "%s: %zu stored files compressed against a dictionary trained on %zu of "
                      "them: %zu bytes, from %zu",
                      formats[i], done[i].files, done[i].samples, done[i].after, done[i].before);
    for (long i = 0; !failed && i < n_due; i++)
        if (done[n + i].dict_len)
            diag_note(d,
                      "%s: the files that follow are compressed against a dictionary trained on "
                      "%zu of the %zu stored against the one benchdb ships ('benchdb vacuum' "
                      "repacks those)",
                      due[i], done[n + i].samples, done[n + i].files);
    formats_release(formats, (size_t)n);
    formats_release(due, (size_t)n_due);
    free(done);
    return failed ? -1 : 0;
}

int db_raw_train(struct db *db, struct diag *d)
{
    if (train_late(db, d))
        return -1;
    if (!train_new(db, d))
        return 0;
    diag_note(d, "the files imported are stored, not compressed against a dictionary (the "
                 "next import trains it)");
    return -1;
}

int db_raw_vacuum(struct db *db, struct diag *d)
{
    int rc = SQLITE_OK;
    char **formats;
    long n = formats_of(db,
                        sql_prepare(db->h, &rc,
                                    "SELECT DISTINCT format FROM source_file WHERE raw IS NOT "
                                    "NULL ORDER BY format"),
                        rc, NULL, NULL, &formats);
    if (n < 0)
        return diag_error(d, "database '%s': cannot repack stored bytes: %s", db->path,
                          sqlite3_errmsg(db->h));
    struct repack *done = xcalloc((size_t)n + 1, sizeof(*done));
    int failed =
        repack_formats(db, formats, (size_t)n, vacuum_format, done, "repack stored bytes", d);
    for (long i = 0; !failed && i < n; i++) {
        if (done[i].dict_len)
            diag_note(d, "%s: a dictionary trained on %zu of its stored files", formats[i],
                      done[i].samples);
        if (done[i].files)
            diag_note(d,
                      "%s: %zu stored files repacked against its newest dictionary where that "
                      "made them smaller: %zu bytes, from %zu",
                      formats[i], done[i].files, done[i].after, done[i].before);
    }
    formats_release(formats, (size_t)n);
    free(done);
    db_raw_dicts_release(db);
    if (!failed)
        failed = db_exec(db,
                         "DELETE FROM raw_dict WHERE id NOT IN (SELECT raw_dict FROM source_file "
                         "INDEXED BY source_by_dict WHERE raw_dict IS NOT NULL)",
                         d);
    return failed ? -1 : 0;
}
