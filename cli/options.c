/* options.c: the option values several commands share: labels (--host, --storage-class,
 * --mount, --sec) and KEY=VALUE lists (--tag, --where, --set). */
#include "cli.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/xalloc.h"

int label_option(int c, const char *arg, struct import_labels *labels)
{
    switch (c) {
    case 'H':
        labels->host = arg;
        return 1;
    case 'S':
        labels->storage_class = arg;
        return 1;
    case 'M':
        labels->mount = arg;
        return 1;
    case 's':
        labels->sec = arg;
        return 1;
    default:
        return 0;
    }
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

int filter_option(const char *cmd, int set, char *arg, struct kv_list *list)
{
    const char *opt = set ? "set" : "where";
    if (kv_option(cmd, opt, arg, list))
        return -1;
    const char *key = list->v[list->n - 1].key;
    if (!db_filter_key_ok(key, set)) {
        fprintf(stderr, "benchdb %s: error: unknown key '%s' for --%s\n", cmd, key, opt);
        list->n--;
        return -1;
    }
    return 0;
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

int help_only_options(int argc, char **argv, const char *usage, int *status)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int c = getopt_long(argc, argv, "h", longopts, NULL);
    if (c == -1)
        return 0;
    *status = usage_exit(usage, c == 'h' ? BDB_EXIT_OK : BDB_EXIT_USAGE);
    return -1;
}
