/* common.c: what the commands share: opening the warehouse, the time of day,
 * and output files written whole or not at all. */
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/distance.h"
#include "../core/scan.h"
#include "../core/xalloc.h"
#include "../fleet/fleet.h"

/* A --db that names no file and reads as a connection string of another form, a URL of a
 * mistyped scheme or a libpq keyword string: an error that says so (its password hidden:
 * conn_arg), -1; else 0. */
static int not_a_url(struct app *app)
{
    static const char *const schemes[] = {"postgresql", "postgres", NULL};
    const char *path = app->db_path, *sep = strstr(path, "://"), *p = path;
    struct stat st;
    if (!stat(path, &st))
        return 0;
    if (sep) {
        char *scheme = xstrndup(path, (size_t)(sep - path));
        const char *near = str_nearest(scheme, schemes, SIZE_MAX, 2);
        diag_error(&app->diag,
                   "no warehouse at '%s': a server is named by a postgresql:// URL%s%s%s", path,
                   near ? "; did you mean '" : "", near ? near : "", near ? "://'?" : "");
        free(scheme);
        return -1;
    }
    /* a keyword string starts with one of libpq's keywords (the ones a server is named by) */
    static const char *const keywords[] = {"host",    "hostaddr", "port",        "dbname",
                                           "user",    "password", "sslpassword", "service",
                                           "sslmode", "passfile", NULL};
    while (*p == ' ')
        p++;
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
    size_t k = 0;
    while (keywords[k] && (strlen(keywords[k]) != n || strncmp(p, keywords[k], n)))
        k++;
    p += n;
    while (*p == ' ')
        p++;
    if (!keywords[k] || *p != '=')
        return 0;
    diag_error(&app->diag,
               "no warehouse at '%s': a server is named by a postgresql:// URL, not a libpq "
               "keyword string",
               path);
    return -1;
}

int open_db(struct app *app, enum db_open_mode mode, struct db **db)
{
    if (!fleet_is_url(app->db_path) && not_a_url(app))
        return BDB_EXIT_ENV;
    if (!fleet_is_url(app->db_path))
        return db_open(app->db_path, mode, db, &app->diag) ? BDB_EXIT_ENV : BDB_EXIT_OK;
    /* the read commands read the fleet's warehouse as a local copy of it (fleet.h) */
    if (mode == DB_READ_ONLY)
        return fleet_open(app->db_path, app->dates, app->compared, db, &app->diag) ? BDB_EXIT_ENV
                                                                                   : BDB_EXIT_OK;
    diag_error(&app->diag, "a PostgreSQL warehouse is only read here (report, check, trend, "
                           "export, runs, query, baseline list); send results to it with "
                           "'benchdb push URL'");
    return BDB_EXIT_ENV;
}

int source_date_epoch(time_t *t, struct tm *tm)
{
    const char *value = getenv("SOURCE_DATE_EPOCH"), *p = value;
    int64_t secs;
    if (!value || !*value)
        return 0;
    if (!scan_int64(&p, &secs) || *p || secs > SOURCE_DATE_EPOCH_MAX ||
        (int64_t)(time_t)secs != secs)
        return -1;
    *t = (time_t)secs;
    return gmtime_r(t, tm) ? 1 : -1;
}

int64_t now_seconds(void)
{
    time_t t;
    struct tm tm;
    /* main() refused an invalid SOURCE_DATE_EPOCH */
    return source_date_epoch(&t, &tm) == 1 ? (int64_t)t : (int64_t)time(NULL);
}

void now_iso(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    /* main() refused an invalid SOURCE_DATE_EPOCH, and today's clock always converts */
    if (source_date_epoch(&t, &tm) != 1 && !gmtime_r(&t, &tm)) {
        cli_error(NULL, "cannot convert the clock's time %lld to a date", (long long)t);
        exit(BDB_EXIT_ENV);
    }
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int write_stdout(struct app *app, const char *data, size_t len)
{
    int bad = fwrite(data, 1, len, stdout) != len;
    bad = fflush(stdout) != 0 || bad;
    if (bad && errno == EPIPE)
        return BDB_EXIT_OK; /* the reader went away (| head): not an error */
    if (bad) {
        diag_error(&app->diag, "cannot write '<stdout>': %s", strerror(errno));
        return BDB_EXIT_ENV;
    }
    return BDB_EXIT_OK;
}

/* The mode a file created at path gets: that of the file it replaces, else what fopen gives. */
static mode_t new_file_mode(const struct stat *old)
{
    if (old)
        return old->st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int output_begin(struct app *app, struct output *out, const char *path)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    out->path = path;
    out->tmp = NULL;
    if (exists && !S_ISREG(st.st_mode))
        return BDB_EXIT_OK; /* /dev/stdout, a FIFO: written directly, nothing to replace */
    /* beside the target, so that rename() stays within one file system */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct buf tmp = BUF_INIT;
    buf_addf(&tmp, "%.*s.%s.XXXXXX", (int)(base - path), path, base);
    int fd = mkstemp(tmp.data);
    if (fd < 0 || fchmod(fd, new_file_mode(exists ? &st : NULL))) {
        diag_error(&app->diag, "cannot write '%s': %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp.data);
        }
        buf_release(&tmp);
        return BDB_EXIT_ENV;
    }
    close(fd); /* the writers open it by name (libxlsxwriter can do nothing else) */
    out->tmp = buf_detach(&tmp, NULL);
    return BDB_EXIT_OK;
}

const char *output_name(const struct output *out)
{
    return out->tmp ? out->tmp : out->path;
}

int output_end(struct app *app, struct output *out, int status)
{
    if (!out->tmp)
        return status;
    if (status == BDB_EXIT_OK && rename(out->tmp, out->path)) {
        diag_error(&app->diag, "cannot write '%s': %s", out->path, strerror(errno));
        status = BDB_EXIT_ENV;
    }
    if (status != BDB_EXIT_OK)
        unlink(out->tmp);
    free(out->tmp);
    out->tmp = NULL;
    return status;
}

int read_option_file(const char *what, const char *path, struct buf *text, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, "cannot open %s '%s': %s", what, path, strerror(errno));
        return BDB_EXIT_ENV;
    }
    int bad = buf_read_file(text, f);
    int err = errno;
    fclose(f);
    if (bad) {
        diag_error(d, "cannot read %s '%s': %s", what, path, strerror(err));
        return BDB_EXIT_ENV;
    }
    buf_adds(text, "");
    return BDB_EXIT_OK;
}

int write_output(struct app *app, const char *path, const char *data, size_t len)
{
    if (!path || !strcmp(path, "-"))
        return write_stdout(app, data, len);
    struct output out;
    int status = output_begin(app, &out, path);
    if (status != BDB_EXIT_OK)
        return status;
    FILE *f = fopen(output_name(&out), "wb");
    int bad = !f || fwrite(data, 1, len, f) != len;
    int err = errno;
    if (f && fclose(f) && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        diag_error(&app->diag, "cannot write '%s': %s", path, strerror(err));
        status = BDB_EXIT_ENV;
    }
    return output_end(app, &out, status);
}

unsigned cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
}
