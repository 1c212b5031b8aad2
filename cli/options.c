/* options.c: the option values several commands share: labels (--host, --storage-class,
 * --mount, --sec) and KEY=VALUE lists (--tag, --where, --set). */
#include "cli.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../core/scan.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "../query/query.h"

int utf8_option(const char *cmd, const char *opt, const char *arg)
{
    if (utf8_invalid(arg) < 0)
        return 0;
    struct buf shown = BUF_INIT;
    utf8_escape(&shown, arg);
    fprintf(stderr, "benchdb %s: error: --%s is not UTF-8: '%s' (labels are stored as UTF-8)\n",
            cmd, opt, shown.data);
    buf_release(&shown);
    return -1;
}

int label_option(const char *cmd, int c, const char *arg, struct import_labels *labels)
{
    const char **slot = c == 'H'   ? &labels->host
                        : c == 'S' ? &labels->storage_class
                        : c == 'M' ? &labels->mount
                        : c == 's' ? &labels->sec
                                   : NULL;
    if (!slot)
        return 0;
    if (utf8_option(cmd,
                    c == 'H'   ? "host"
                    : c == 'S' ? "storage-class"
                    : c == 'M' ? "mount"
                               : "sec",
                    arg))
        return -1;
    *slot = arg;
    return 1;
}

void kv_list_add(struct kv_list *list, const char *key, const char *value)
{
    ALLOC_GROW(list->v, list->n, list->alloc);
    list->v[list->n++] = (struct kv){key, value};
}

int kv_option(const char *cmd, const char *opt, char *arg, struct kv_list *list)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "benchdb %s: error: expected --%s KEY=VALUE, got '%s'\n", cmd, opt, arg);
        return -1;
    }
    *eq = '\0';
    kv_list_add(list, arg, eq + 1);
    return 0;
}

/* Takes back the pair just added, whose key --OPT does not know: -1 after the message. */
static int unknown_key(const char *cmd, const char *opt, struct kv_list *list)
{
    fprintf(stderr, "benchdb %s: error: unknown key '%s' for --%s\n", cmd, list->v[list->n - 1].key,
            opt);
    list->n--;
    return -1;
}

int filter_option(const char *cmd, int set, char *arg, struct kv_list *list)
{
    const char *opt = set ? "set" : "where";
    if ((set && utf8_option(cmd, opt, arg)) || kv_option(cmd, opt, arg, list))
        return -1;
    return db_filter_key_ok(list->v[list->n - 1].key, set) ? 0 : unknown_key(cmd, opt, list);
}

int where_option(const char *cmd, char *arg, struct kv_list *list)
{
    if (kv_option(cmd, "where", arg, list))
        return -1;
    return query_key_known(list->v[list->n - 1].key) ? 0 : unknown_key(cmd, "where", list);
}

int by_option(const char *cmd, const char *arg)
{
    if (query_key_known(arg))
        return 0;
    fprintf(stderr,
            "benchdb %s: error: unknown comparison key '%s' for --by (expected storage-class, "
            "host, sec, mount:OPTION or tag:NAME)\n",
            cmd, arg);
    return -1;
}

/* "a, b or c" of a NULL-terminated list, each after prefix. */
static void add_choices(struct buf *out, const char *prefix, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        buf_addf(out, "%s%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", prefix, names[i]);
}

int count_option(const char *cmd, const char *opt, const char *arg, unsigned max, unsigned *out)
{
    const char *p = arg;
    int64_t n;
    if (!scan_int64(&p, &n) || *p || n < 1 || n > max) {
        fprintf(stderr, "benchdb %s: error: expected --%s 1..%u, got '%s'\n", cmd, opt, max, arg);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

int table_option(const char *cmd, const char *format, const char *table, const char *const *tables)
{
    if (!table)
        return 0;
    if (strcmp(format, "csv")) {
        fprintf(stderr, "benchdb %s: error: --table is for --format csv, not '%s'\n", cmd, format);
        return -1;
    }
    for (size_t i = 0; tables[i]; i++)
        if (!strcmp(table, tables[i]))
            return 0;
    struct buf known = BUF_INIT;
    add_choices(&known, "", tables);
    fprintf(stderr, "benchdb %s: error: unknown table '%s' for --table (expected %s)\n", cmd, table,
            known.data);
    buf_release(&known);
    return -1;
}

const char *output_format(const char *cmd, const char *path, const char *const *formats,
                          const char *otherwise)
{
    if (!path || !strcmp(path, "-"))
        return otherwise;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) /* ".report" is a hidden file's name */
        return otherwise;
    for (size_t i = 0; formats[i]; i++)
        if (!strcasecmp(dot + 1, formats[i]))
            return formats[i];
    struct buf known = BUF_INIT;
    add_choices(&known, ".", formats);
    fprintf(stderr, "benchdb %s: error: expected -o FILE to end in %s (or a --format), got '%s'\n",
            cmd, known.data, path);
    buf_release(&known);
    return NULL;
}

void kv_list_release(struct kv_list *list)
{
    free(list->v);
    *list = (struct kv_list){0};
}

int unexpected_argument(const char *cmd, const char *usage, const char *arg)
{
    fprintf(stderr, "benchdb %s: error: unexpected argument '%s'\n", cmd, arg);
    return usage_exit(usage, BDB_EXIT_USAGE);
}

const char *user_name(void)
{
    const char *u = getenv("USER");
    if (!u || !*u)
        u = getlogin();
    if (!u || !*u) {
        const struct passwd *pw = getpwuid(geteuid());
        u = pw ? pw->pw_name : NULL;
    }
    return u && *u ? u : "unknown";
}

void kv_list_text(const struct kv_list *list, struct buf *out)
{
    for (size_t i = 0; i < list->n; i++)
        buf_addf(out, "%s%s=%s", i ? " " : "", list->v[i].key, list->v[i].value);
}

int time_option(const char *cmd, int c, const char *arg, struct time_range *range)
{
    if (c != OPT_SINCE && c != OPT_UNTIL)
        return 0;
    const char *why;
    int upper = c == OPT_UNTIL;
    if (parse_iso_time(arg, upper ? TIME_UPPER : TIME_LOWER, upper ? &range->until : &range->since,
                       &why)) {
        fprintf(stderr,
                "benchdb %s: error: invalid date '%s' for --%s: %s; give an ISO 8601 date or "
                "timestamp such as 2026-03-01 or 2026-03-01T14:30:00+01:00\n",
                cmd, arg, upper ? "until" : "since", why);
        return -1;
    }
    return 1;
}

int help_only_options(struct app *app, int argc, char **argv, const char *usage, int *status)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        DB_LONGOPT,
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int c = next_option(app, argc, argv, "h", longopts);
    if (c == -1)
        return 0;
    *status = usage_option(c, usage);
    if (*status < 0)
        *status = BDB_EXIT_OK;
    return -1;
}
