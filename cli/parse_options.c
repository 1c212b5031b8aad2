/* parse_options.c: the one option parser (parse_options.h): argv walked with a command's
 * table of options, each value checked by its kind, every mistake a usage error said the same
 * way. */
#include "parse_options.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/distance.h"
#include "../core/scan.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "../fleet/fleet.h"
#include "cli.h"

/* What git's --git-completion-helper is to git: completion asks for the tables. */
static const char completion_helper[] = "completion-helper";

/* Every command's own two, after its table: -h/--help and the global --db PATH. */
static const struct opt builtin[] = {
    OPT_FLAG('h', "help", NULL, "show this help"),
    OPT_STRING(0, "db", NULL, "PATH", "the warehouse"),
};
enum { BUILTIN_HELP, BUILTIN_DB };

static void str_list_add(struct str_list *list, const char *s)
{
    ALLOC_GROW(list->v, list->n, list->alloc);
    list->v[list->n++] = s;
}

void str_list_release(struct str_list *list)
{
    free(list->v);
    *list = (struct str_list){0};
}

void kv_list_add(struct kv_list *list, const char *key, const char *value)
{
    ALLOC_GROW(list->v, list->n, list->alloc);
    list->v[list->n++] = (struct kv){key, value};
}

void kv_list_release(struct kv_list *list)
{
    free(list->v);
    *list = (struct kv_list){0};
}

/* The connection strings of this command line that hold a password (conn_arg): every
 * message, cli_error's and the diagnostics', is shown with their passwords hidden. */
static struct {
    const char *v[8];
    size_t n;
    void (*emit)(void *ctx, enum diag_level level, const char *line); /* the diag's own */
    void *ctx;
} secrets;

/* line with the passwords of secrets hidden; free() it. */
static char *hide_secrets(const char *line)
{
    char *out = xstrdup(line);
    for (size_t i = 0; i < secrets.n; i++) {
        char *next = fleet_redact(secrets.v[i], out);
        free(out);
        out = next;
    }
    return out;
}

static void hiding_emit(void *ctx, enum diag_level level, const char *line)
{
    (void)ctx;
    char *shown = hide_secrets(line);
    if (secrets.emit)
        secrets.emit(secrets.ctx, level, shown);
    else
        fprintf(stderr, "%s\n", shown);
    free(shown);
}

const char *conn_arg(struct app *app, char *arg, int in_argv)
{
    static int warned;
    if (!arg || !fleet_has_password(arg))
        return arg;
    char *copy = xstrdup(arg); /* the command's for the whole run */
    if (secrets.n < ARRAY_SIZE(secrets.v))
        secrets.v[secrets.n++] = copy;
    if (app->diag.emit != hiding_emit) {
        secrets.emit = app->diag.emit;
        secrets.ctx = app->diag.ctx;
        app->diag.emit = hiding_emit;
        app->diag.ctx = NULL;
    }
    if (in_argv) {
        fleet_scrub(arg);
        if (!warned++)
            fputs("benchdb: warning: a password on the command line shows in ps and in the "
                  "shell's history: keep it in ~/.pgpass or PGPASSWORD instead\n",
                  stderr);
    }
    return copy;
}

static void verror(const char *cmd, const char *fmt, va_list ap)
{
    struct buf raw = BUF_INIT, valid = BUF_INIT, shown = BUF_INIT;
    buf_vaddf(&raw, fmt, ap);
    /* the values quoted are the user's bytes: neither a control character nor an ill-formed
     * sequence reaches the terminal as it is */
    utf8_escape(&valid, raw.data);
    diag_escape(&shown, valid.data);
    char *hidden = hide_secrets(shown.data);
    fprintf(stderr, "benchdb%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "", hidden);
    free(hidden);
    buf_release(&raw);
    buf_release(&valid);
    buf_release(&shown);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
}

int usage_hint(const char *cmd)
{
    fprintf(stderr, "see 'benchdb %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
    return BDB_EXIT_USAGE;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
    return usage_hint(cmd);
}

int one_operand(const char *cmd, int argc, char **argv, const char *missing)
{
    if (argc == 1)
        return usage_error(cmd, "%s", missing);
    if (argc > 2)
        return usage_error(cmd, "unexpected argument '%s'", argv[2]);
    return BDB_EXIT_OK;
}

void add_choices(struct buf *out, const char *prefix, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        buf_addf(out, "%s%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", prefix, names[i]);
}

/* ---- spelling ---------------------------------------------------------------------------- */

void cli_error_near(const char *cmd, const char *word, const char *prefix, const char *const *names,
                    const char *fmt, ...)
{
    struct buf msg = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    /* names are short: 'pdf' is no misspelling of 'md' */
    const char *near = names ? str_nearest(word, names, SIZE_MAX, 1) : NULL;
    if (near)
        buf_addf(&msg, "; did you mean '%s%s'?", prefix, near);
    cli_error(cmd, "%s", msg.data);
    buf_release(&msg);
}

void cli_unknown_value(const char *cmd, const char *what, const char *value, const char *opt,
                       const char *const *names)
{
    struct buf expected = BUF_INIT;
    add_choices(&expected, "", names);
    cli_error_near(cmd, value, "", names, "unknown %s '%s' for --%s (expected %s)", what, value,
                   opt, expected.data);
    buf_release(&expected);
}

/* ---- the walk ---------------------------------------------------------------------------- */

struct parse {
    struct app *app;
    const char *cmd, *usage; /* cmd NULL: benchdb's own options, before the command */
    const struct opt *opts;
    size_t nbuiltin;              /* of builtin[] taken: none before the command */
    struct str_list *operands_of; /* the OPT_TYPE_OPERANDS option given, if any */
};

/* A row without help is hidden: completion does not offer it, and it is taken by its whole
 * name only. */
static int hidden(const struct opt *o)
{
    return !o->help;
}

/* The long names a mistyped one is matched against, NULL-terminated; the caller frees. */
static const char **long_names(const struct parse *p)
{
    size_t n = 0, k = 0;
    while (p->opts[n].type != OPT_TYPE_END)
        n++;
    const char **names = xcalloc(n + p->nbuiltin + 1, sizeof(*names));
    for (size_t i = 0; i < n; i++)
        if (!hidden(&p->opts[i]))
            names[k++] = p->opts[i].long_name;
    for (size_t i = 0; i < p->nbuiltin; i++)
        names[k++] = builtin[i].long_name;
    return names;
}

static void unknown_option(const struct parse *p, const char *name, size_t len)
{
    struct buf word = BUF_INIT;
    const char **names = long_names(p);
    buf_add(&word, name, len);
    cli_error_near(p->cmd, word.data, "--", names, "unrecognized option '--%s'", word.data);
    free(names);
    buf_release(&word);
}

/* The row of --name (len bytes of it): an exact name, else the one it is a prefix of (as
 * getopt_long: --form for --format); NULL after the message. */
static const struct opt *find_long(const struct parse *p, const char *name, size_t len)
{
    const struct opt *found = NULL;
    int prefixes = 0;
    for (int set = 0; set < 2; set++) {
        const struct opt *o = set ? builtin : p->opts;
        size_t n = set ? p->nbuiltin : SIZE_MAX;
        for (size_t i = 0; i < n && o[i].type != OPT_TYPE_END; i++) {
            if (strncmp(o[i].long_name, name, len) || (hidden(&o[i]) && o[i].long_name[len]))
                continue;
            if (!o[i].long_name[len])
                return &o[i];
            found = &o[i];
            prefixes++;
        }
    }
    if (prefixes == 1)
        return found;
    if (prefixes > 1)
        cli_error(p->cmd, "option '--%.*s' is ambiguous", (int)len, name);
    else
        unknown_option(p, name, len);
    return NULL;
}

static const struct opt *find_short(const struct parse *p, int c)
{
    for (const struct opt *o = p->opts; o->type != OPT_TYPE_END; o++)
        if (o->short_name == c)
            return o;
    if (p->nbuiltin && c == builtin[BUILTIN_HELP].short_name)
        return &builtin[BUILTIN_HELP];
    cli_error(p->cmd, "unrecognized option '-%c'", c);
    return NULL;
}

static int takes_value(const struct opt *o)
{
    return o->argh != NULL;
}

static int uint_value(const struct parse *p, const struct opt *o, const char *arg)
{
    const char *s = arg;
    int64_t n;
    if (!scan_int64(&s, &n) || *s || n < 1 || n > o->max) {
        cli_error(p->cmd, "expected --%s 1..%u, got '%s'", o->long_name, o->max, arg);
        return -1;
    }
    *(unsigned *)o->value = (unsigned)n;
    return 0;
}

/* 0 when arg, a label to store, is UTF-8, else -1 after the message. */
static int utf8_value(const struct opt *o, const char *arg, const char *cmd)
{
    if (utf8_invalid(arg) < 0)
        return 0;
    cli_error(cmd, "--%s is not UTF-8: '%s' (labels are stored as UTF-8)", o->long_name, arg);
    return -1;
}

int opt_kv(const struct opt *o, char *arg, const char *cmd, int utf8)
{
    char *eq = strchr(arg, '=');
    if (utf8 && utf8_value(o, arg, cmd))
        return -1;
    if (!eq || eq == arg) {
        cli_error(cmd, "expected --%s KEY=VALUE, got '%s'", o->long_name, arg);
        return -1;
    }
    *eq = '\0';
    kv_list_add(o->value, arg, eq + 1);
    return 0;
}

static int date_value(const struct parse *p, const struct opt *o, const char *arg)
{
    struct time_range *range = o->value;
    int upper = o->flags & OPT_UPPER;
    const char *why;
    if (!parse_iso_time(arg, upper ? TIME_UPPER : TIME_LOWER, upper ? &range->until : &range->since,
                        &why))
        return 0;
    cli_error(p->cmd,
              "invalid date '%s' for --%s: %s; give an ISO 8601 date or timestamp such as "
              "2026-03-01 or 2026-03-01T14:30:00+01:00",
              arg, o->long_name, why);
    return -1;
}

/* An enum's values, offered or not, NULL-terminated; the caller frees. */
static const char **enum_values(const struct opt *o)
{
    size_t n = 0, k = 0;
    while (o->choices[n])
        n++;
    for (size_t i = 0; o->unoffered && o->unoffered[i]; i++)
        n++;
    const char **names = xcalloc(n + 1, sizeof(*names));
    for (size_t i = 0; o->choices[i]; i++)
        names[k++] = o->choices[i];
    for (size_t i = 0; o->unoffered && o->unoffered[i]; i++)
        names[k++] = o->unoffered[i];
    return names;
}

static int enum_value(const struct parse *p, const struct opt *o, const char *arg)
{
    const char **names = enum_values(o);
    size_t i = 0;
    while (names[i] && strcmp(arg, names[i]))
        i++;
    if (names[i])
        *(const char **)o->value = names[i];
    else
        cli_unknown_value(p->cmd, o->long_name, arg, o->long_name, names);
    int rc = names[i] ? 0 : -1;
    free(names);
    return rc;
}

/* Stores o's value (arg: NULL for an option that takes none): 0, or -1 after the message. */
static int store(struct parse *p, const struct opt *o, char *arg)
{
    switch (o->type) {
    case OPT_TYPE_FLAG:
        *(int *)o->value = 1;
        return 0;
    case OPT_TYPE_OPERANDS:
        p->operands_of = o->value;
        return 0;
    case OPT_TYPE_STRING: /* the top level's --db among them */
        *(const char **)o->value =
            o->long_name && !strcmp(o->long_name, "db") ? conn_arg(p->app, arg, 1) : arg;
        return 0;
    case OPT_TYPE_LABEL:
        if (utf8_value(o, arg, p->cmd))
            return -1;
        *(const char **)o->value = arg;
        return 0;
    case OPT_TYPE_UINT:
        return uint_value(p, o, arg);
    case OPT_TYPE_KV:
        return opt_kv(o, arg, p->cmd, o->flags & OPT_UTF8);
    case OPT_TYPE_STRINGS:
        str_list_add(o->value, arg);
        return 0;
    case OPT_TYPE_DATE:
        return date_value(p, o, arg);
    case OPT_TYPE_ENUM:
        return enum_value(p, o, arg);
    case OPT_TYPE_CALLBACK:
        return o->cb(o, arg, p->cmd);
    case OPT_TYPE_END:
        break;
    }
    return -1;
}

/* The built-in options are the parser's own: 0 to go on, PARSE_HELP after the help. */
static int builtin_option(struct parse *p, const struct opt *o, char *arg)
{
    if (o == &builtin[BUILTIN_HELP]) {
        fputs(p->usage, stdout);
        return PARSE_HELP;
    }
    if (*arg) /* an empty --db= leaves the one given before the command */
        p->app->db_path = conn_arg(p->app, arg, 1);
    return 0;
}

static int is_builtin(const struct opt *o)
{
    return o >= builtin && o < builtin + ARRAY_SIZE(builtin);
}

/* The value of o, the next argument when it was not attached; 0 or -1 after the message. */
static int take(struct parse *p, const struct opt *o, char *attached, const char *spelled, int argc,
                char **argv, int *i)
{
    char *arg = attached;
    if (takes_value(o) && !arg) {
        if (*i + 1 >= argc) {
            cli_error(p->cmd, "option '%s' requires a value", spelled);
            return -1;
        }
        arg = argv[++*i];
    }
    if (is_builtin(o))
        return builtin_option(p, o, arg);
    return store(p, o, arg);
}

/* Prints the long options (with no value: the names; with --OPT: an enum's values) for shell
 * completion. */
static int print_completion(const struct parse *p, const char *of)
{
    const char *sep = "";
    for (const struct opt *o = p->opts; o->type != OPT_TYPE_END; o++) {
        if (hidden(o))
            continue;
        if (!of) {
            printf("%s--%s", sep, o->long_name);
            sep = " ";
        } else if (!strcmp(of, o->long_name) && o->type == OPT_TYPE_ENUM) {
            for (size_t i = 0; o->choices[i]; i++, sep = " ")
                printf("%s%s", sep, o->choices[i]);
        }
    }
    printf(of ? "\n" : "%s--help\n", sep);
    return PARSE_HELP;
}

static int long_option(struct parse *p, char *arg, int argc, char **argv, int *i)
{
    char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (p->cmd && len == strlen(completion_helper) && !strncmp(name, completion_helper, len))
        return print_completion(p, eq && str_starts(eq + 1, "--") ? eq + 3 : NULL);
    const struct opt *o = find_long(p, name, len);
    if (!o)
        return -1;
    if (eq && !takes_value(o)) {
        cli_error(p->cmd, "option '--%s' takes no value", o->long_name);
        return -1;
    }
    struct buf spelled = BUF_INIT;
    buf_addf(&spelled, "--%s", o->long_name);
    int rc = take(p, o, eq ? eq + 1 : NULL, spelled.data, argc, argv, i);
    buf_release(&spelled);
    return rc;
}

/* -abc: flags grouped; the first that takes a value takes the rest of the word (-j4), else
 * the next argument. */
static int short_options(struct parse *p, char *arg, int argc, char **argv, int *i)
{
    for (char *c = arg + 1; *c; c++) {
        const struct opt *o = find_short(p, (unsigned char)*c);
        if (!o)
            return -1;
        char spelled[3] = {'-', *c, '\0'};
        int rc = take(p, o, takes_value(o) && c[1] ? c + 1 : NULL, spelled, argc, argv, i);
        if (rc || takes_value(o))
            return rc;
    }
    return 0;
}

static int walk(struct parse *p, int *argc, char **argv, int flags)
{
    int kept = 1, rc = 0, i = 1;
    for (; i < *argc && rc == 0; i++) {
        char *arg = argv[i];
        if (!strcmp(arg, "--")) {
            i++;
            break;
        }
        if (arg[0] == '-' && arg[1] == '-')
            rc = long_option(p, arg, *argc, argv, &i);
        else if (arg[0] == '-' && arg[1])
            rc = short_options(p, arg, *argc, argv, &i);
        else if (flags & PARSE_STOP_AT_OPERAND)
            break;
        else if (p->operands_of)
            str_list_add(p->operands_of, arg);
        else
            argv[kept++] = arg;
    }
    for (; rc == 0 && i < *argc; i++)
        if (p->operands_of)
            str_list_add(p->operands_of, argv[i]);
        else
            argv[kept++] = argv[i];
    *argc = kept;
    return rc;
}

int parse_options(struct app *app, int *argc, char **argv, const char *usage,
                  const struct opt *opts, int flags)
{
    int top = flags & PARSE_TOP;
    struct parse p = {app, top ? NULL : argv[0], usage, opts, top ? 0 : ARRAY_SIZE(builtin), NULL};
    int rc = walk(&p, argc, argv, flags);
    if (rc == PARSE_HELP)
        return PARSE_HELP;
    if (rc == 0 && (flags & PARSE_NO_OPERANDS) && *argc > 1) {
        cli_error(p.cmd, "unexpected argument '%s'", argv[1]);
        rc = -1;
    }
    return rc ? usage_hint(p.cmd) : BDB_EXIT_OK;
}
