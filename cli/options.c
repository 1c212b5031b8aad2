/* options.c: the option values several commands share: the keys of --where, --set and --by,
 * --table, -o FILE's extension, and who makes a change. */
#include "cli.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../query/query.h"

const char *const by_keys[] = {"storage-class", "host", "sec", "mount:OPTION", "tag:NAME", NULL};

/* Takes back the pair just added, whose key --OPT does not know: -1 after the message, which
 * names the nearest of known (NULL: none) when one is close. */
static int unknown_key(const struct opt *opt, const char *cmd, const char *const *known)
{
    struct kv_list *list = opt->value;
    const char *key = list->v[list->n - 1].key;
    cli_error_near(cmd, key, "", known, "unknown key '%s' for --%s", key, opt->long_name);
    list->n--;
    return -1;
}

int opt_where(const struct opt *opt, char *arg, const char *cmd)
{
    if (opt_kv(opt, arg, cmd, 0))
        return -1;
    const struct kv_list *list = opt->value;
    return query_key_known(list->v[list->n - 1].key) ? 0 : unknown_key(opt, cmd, by_keys);
}

/* --where (set 0) or --set (set 1) of the commands that change stored results. */
static int filter(const struct opt *opt, char *arg, const char *cmd, int set)
{
    if (opt_kv(opt, arg, cmd, set))
        return -1;
    const struct kv_list *list = opt->value;
    return db_filter_key_ok(list->v[list->n - 1].key, set) ? 0 : unknown_key(opt, cmd, NULL);
}

int opt_filter(const struct opt *opt, char *arg, const char *cmd)
{
    return filter(opt, arg, cmd, 0);
}

int filters_empty_ok(const char *cmd, const struct kv_list *where, int empty)
{
    for (size_t i = 0; i < where->n && !empty; i++)
        if (!*where->v[i].value)
            return usage_error(cmd,
                               "--where %s= is empty: it matches every result without a %s "
                               "(an unset shell variable?); add --empty if that is meant",
                               where->v[i].key, where->v[i].key);
    return BDB_EXIT_OK;
}

int filters_matched_nothing(struct db *db, const char *cmd, const char *what,
                            const struct kv_list *where)
{
    struct buf hint = BUF_INIT;
    db_filters_hint(db, where->v, where->n, &hint);
    cli_error(cmd, "no result matches the filters: nothing %s (%s)", what,
              hint.len ? hint.data : "see 'benchdb labels'");
    buf_release(&hint);
    return BDB_EXIT_INPUT;
}

/* A value the schema would refuse is a mistake on the command line, refused before the
 * database is touched; an empty value removes the label. */
int opt_set(const struct opt *opt, char *arg, const char *cmd)
{
    if (filter(opt, arg, cmd, 1))
        return -1;
    const struct kv_list *list = opt->value;
    const struct kv *kv = &list->v[list->n - 1];
    if (strcmp(kv->key, "sec") || !*kv->value || db_sec_valid(kv->value))
        return 0;
    cli_error(cmd, "unknown NFS security flavor '%s' for --set sec (expected " DB_SEC_FLAVORS ")",
              kv->value);
    return -1;
}

int opt_by(const struct opt *opt, char *arg, const char *cmd)
{
    if (query_key_known(arg)) {
        *(const char **)opt->value = arg;
        return 0;
    }
    cli_unknown_value(cmd, "comparison key", arg, "by", by_keys);
    return -1;
}

int table_option(const char *cmd, const char *format, const char *table)
{
    if (!table || !strcmp(format, "csv"))
        return 0;
    cli_error(cmd, "--table is for --format csv, not '%s'", format);
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
    cli_error(cmd, "expected -o FILE to end in %s (or a --format), got '%s'", known.data, path);
    buf_release(&known);
    return NULL;
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
