/* parse_options.h: the one option parser of every command, in the style of git's
 * parse-options.h. A command declares its options as a table, each row built by one of the
 * OPT_* macros below and the table ended by OPT_END(), and parse_options() walks argv with it:
 * --opt=value and --opt value, -o value, -ovalue and grouped short flags (-nv), a unique
 * prefix of a long name (--form), "--" ending the options, -h/--help (the usage text to
 * stdout) and the global --db PATH, which every command takes after its name too. Each value
 * is checked by its kind (a number in its range, KEY=VALUE, a date, one of an enum's values, a
 * label that is UTF-8) before it is stored; a mistake (an unknown option, a value missing,
 * refused or given to a flag) is said in one line, escaped, with the nearest name or value
 * when one is close ("did you mean '--format'?"), then the hint "see 'benchdb CMD --help'":
 * a usage error, exit status 2, the same in every command.
 *
 * The tables are also what shell completion reads: the hidden option --completion-helper (as
 * git's --git-completion-helper) prints a command's long options, and an enum option's values
 * after --completion-helper=--OPT. */
#ifndef BDB_CLI_PARSE_OPTIONS_H
#define BDB_CLI_PARSE_OPTIONS_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/timerange.h"
#include "../import/import.h"

struct app;

/* A repeatable option's values in order (borrowed from argv). */
struct str_list {
    const char **v;
    size_t n, alloc;
};
void str_list_release(struct str_list *list);

/* KEY=VALUE option values (--tag, --where, --set), split in place: keys and values point into
 * argv. */
struct kv_list {
    struct kv *v;
    size_t n, alloc;
};
/* Appends a pair (borrowed). */
void kv_list_add(struct kv_list *list, const char *key, const char *value);
void kv_list_release(struct kv_list *list);

enum opt_type {
    OPT_TYPE_END,
    OPT_TYPE_FLAG,     /* int: set to 1 */
    OPT_TYPE_STRING,   /* const char *: the value as given */
    OPT_TYPE_LABEL,    /* const char *: a label to store, which must be UTF-8 (docs/schema.md) */
    OPT_TYPE_UINT,     /* unsigned: a whole number from 1 to max */
    OPT_TYPE_KV,       /* struct kv_list: KEY=VALUE with KEY not empty, appended */
    OPT_TYPE_STRINGS,  /* struct str_list: each value appended */
    OPT_TYPE_DATE,     /* struct time_range: its lower end (--since) or upper (OPT_UPPER) */
    OPT_TYPE_ENUM,     /* const char *: one of choices */
    OPT_TYPE_OPERANDS, /* struct str_list: takes no value; the operands after it are its */
    OPT_TYPE_CALLBACK, /* cb(opt, arg, cmd) checks and stores the value */
};

enum opt_flags {
    OPT_UPPER = 1, /* OPT_TYPE_DATE: the range's upper end (a bare date includes its day) */
    OPT_UTF8 = 2,  /* OPT_TYPE_KV: the pair is stored as a label, so it must be UTF-8 */
};

struct opt {
    enum opt_type type;
    int short_name; /* 0: none */
    const char *long_name;
    void *value;
    const char *argh;           /* the value's name in messages ("N", "FILE"); NULL for a flag */
    const char *help;           /* one line, shown by zsh's completion */
    const char *const *choices; /* OPT_TYPE_ENUM: its values, NULL-terminated */
    /* OPT_TYPE_ENUM: values taken too that completion does not offer (NULL: none) */
    const char *const *unoffered;
    unsigned max; /* OPT_TYPE_UINT: the largest value */
    int flags;    /* enum opt_flags */
    /* OPT_TYPE_CALLBACK: 0, or -1 after cli_error() said what is wrong with arg (the parser
     * adds the hint); arg may be changed in place. cmd is the command's name. */
    int (*cb)(const struct opt *opt, char *arg, const char *cmd);
};

#define OPT_FLAG(s, l, v, h)                                                                       \
    {                                                                                              \
        .type = OPT_TYPE_FLAG, .short_name = (s), .long_name = (l), .value = (v), .help = (h)      \
    }
#define OPT_STRING(s, l, v, a, h)                                                                  \
    {                                                                                              \
        .type = OPT_TYPE_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),   \
        .help = (h)                                                                                \
    }
#define OPT_LABEL(l, v, a, h)                                                                      \
    {                                                                                              \
        .type = OPT_TYPE_LABEL, .long_name = (l), .value = (v), .argh = (a), .help = (h)           \
    }
#define OPT_UINT(s, l, v, m, h)                                                                    \
    {                                                                                              \
        .type = OPT_TYPE_UINT, .short_name = (s), .long_name = (l), .value = (v), .argh = "N",     \
        .max = (m), .help = (h)                                                                    \
    }
#define OPT_KV(l, v, f, h)                                                                         \
    {                                                                                              \
        .type = OPT_TYPE_KV, .long_name = (l), .value = (v), .argh = "KEY=VALUE", .flags = (f),    \
        .help = (h)                                                                                \
    }
#define OPT_STRINGS(s, l, v, a, h)                                                                 \
    {                                                                                              \
        .type = OPT_TYPE_STRINGS, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),  \
        .help = (h)                                                                                \
    }
#define OPT_SINCE(v)                                                                               \
    {                                                                                              \
        .type = OPT_TYPE_DATE, .long_name = "since", .value = (v), .argh = "D",                    \
        .help = "only runs started from D (ISO 8601)"                                              \
    }
#define OPT_UNTIL(v)                                                                               \
    {                                                                                              \
        .type = OPT_TYPE_DATE, .long_name = "until", .value = (v), .argh = "D",                    \
        .flags = OPT_UPPER, .help = "only runs started up to D (ISO 8601)"                         \
    }
#define OPT_ENUM(s, l, v, c, h)                                                                    \
    {                                                                                              \
        .type = OPT_TYPE_ENUM, .short_name = (s), .long_name = (l), .value = (v), .argh = (l),     \
        .choices = (c), .help = (h)                                                                \
    }
#define OPT_ENUM_UNOFFERED(l, v, c, u, h)                                                          \
    {                                                                                              \
        .type = OPT_TYPE_ENUM, .long_name = (l), .value = (v), .argh = (l), .choices = (c),        \
        .unoffered = (u), .help = (h)                                                              \
    }
#define OPT_OPERANDS(l, v, h)                                                                      \
    {                                                                                              \
        .type = OPT_TYPE_OPERANDS, .long_name = (l), .value = (v), .help = (h)                     \
    }
#define OPT_CALLBACK(s, l, v, a, h, f)                                                             \
    {                                                                                              \
        .type = OPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
        .help = (h), .cb = (f)                                                                     \
    }
#define OPT_END()                                                                                  \
    {                                                                                              \
        .type = OPT_TYPE_END                                                                       \
    }

/* The labelling options import and run share: --host, --storage-class, --mount, --sec into
 * labels' fields, --tag K=V into tags. */
#define OPT_LABELS(labels, tags)                                                                   \
    OPT_LABEL("host", &(labels)->host, "H", "host the benchmark ran on"),                          \
        OPT_LABEL("storage-class", &(labels)->storage_class, "S", "storage class"),                \
        OPT_LABEL("mount", &(labels)->mount, "OPTS_OR_LINE", "mount options or a mount line"),     \
        OPT_LABEL("sec", &(labels)->sec, "FLAVOR", "NFS security flavor"),                         \
        OPT_KV("tag", (tags), OPT_UTF8, "free tag")

enum parse_flags {
    PARSE_STOP_AT_OPERAND = 1, /* the first operand and all after it are operands (run) */
    PARSE_NO_OPERANDS = 2,     /* an operand is a usage error: "unexpected argument 'X'" */
    PARSE_TOP = 4, /* benchdb's own options (main.c): no built-in ones, messages name no command */
};

/* The status parse_options gives after -h/--help (the usage printed on stdout): the command
 * ends with BDB_EXIT_OK. */
enum { PARSE_HELP = -2 }; /* negative: not an exit status; and not -1, which says a mistake */

/* Walks argv[1..*argc) (argv[0]: the command's name) with opts, storing each value, and leaves
 * the operands in argv[1..*argc). BDB_EXIT_OK; PARSE_HELP; or BDB_EXIT_USAGE after the message
 * and the hint. */
int parse_options(struct app *app, int *argc, char **argv, const char *usage,
                  const struct opt *opts, int flags);

/* Appends arg, "KEY=VALUE" with KEY not empty (and UTF-8 when utf8 is not 0), split at its
 * first '=', to o's kv_list: 0, or -1 after "expected --OPT KEY=VALUE, got 'ARG'". For the
 * callbacks of KEY=VALUE options whose keys are checked. */
int opt_kv(const struct opt *o, char *arg, const char *cmd, int utf8);

/* After parse_options, for a command of one operand: BDB_EXIT_OK when argv[1..argc) is one,
 * else a usage error, "MISSING" when there is none, "unexpected argument 'X'" after it. */
int one_operand(const char *cmd, int argc, char **argv, const char *missing);

/* A warehouse path or server URL the user gave (--db, push's URL, merge's warehouses; in_argv 0:
 * $BENCHDB_DB's): when it holds a password (fleet_has_password), every message from now on
 * (cli_error's, app's diagnostics) shows it hidden, and one of argv is overwritten there in
 * place (ps and /proc/PID/cmdline no longer show it) with a warning, once, that names
 * ~/.pgpass and PGPASSWORD. What to use: arg, or a copy of it made before it was overwritten. */
const char *conn_arg(struct app *app, char *arg, int in_argv);

/* Prints "benchdb CMD: error: MESSAGE" to stderr (cmd NULL: "benchdb: error: ..."), its
 * control characters and ill-formed UTF-8 escaped (\x1b). */
void cli_error(const char *cmd, const char *fmt, ...) BDB_PRINTF(2, 3);
/* The hint after a usage error said: "see 'benchdb CMD --help'"; BDB_EXIT_USAGE. */
int usage_hint(const char *cmd);
/* cli_error, then the hint "see 'benchdb CMD --help'": BDB_EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) BDB_PRINTF(2, 3);

/* "a, b or c" of a NULL-terminated list, each after prefix, appended to out. */
void add_choices(struct buf *out, const char *prefix, const char *const *names);
/* cli_error, with "; did you mean 'PREFIXNAME'?" after the message when one of names
 * (NULL-terminated; NULL: none) is near enough to word to be its misspelling: the nearest,
 * within max(1, length / 3) edits (core/distance.h's str_nearest). */
void cli_error_near(const char *cmd, const char *word, const char *prefix, const char *const *names,
                    const char *fmt, ...) BDB_PRINTF(5, 6);
/* cli_error_near for a value an option does not take: "unknown WHAT 'VALUE' for --OPT
 * (expected a, b or c); did you mean 'b'?", names being what it takes. */
void cli_unknown_value(const char *cmd, const char *what, const char *value, const char *opt,
                       const char *const *names);

#endif
