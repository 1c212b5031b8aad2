/* gate_cli.c: what check and run --repeat auto share of a gate: the limit options, the words
 * of a verdict on standard output, and its exit status. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "../core/scan.h"
#include "../query/gate.h"

int opt_threshold(const struct opt *opt, char *arg, const char *cmd)
{
    const char *p = arg;
    double *pct = opt->value;
    if (scan_number(&p, pct) && !*p && *pct >= 0)
        return 0;
    cli_error(cmd, "expected --threshold to be a percentage of 0 or more, got '%s'", arg);
    return -1;
}

int opt_limit(const struct opt *opt, char *arg, const char *cmd)
{
    struct buf err = BUF_INIT;
    size_t at;
    int rc = gate_limits_add(opt->value, arg, &err, &at);
    if (rc)
        cli_error(cmd, "--limit '%s': %s", arg, err.data);
    buf_release(&err);
    return rc;
}

int read_limits_file(const char *path, struct gate_limits *limits, struct buf *text, struct diag *d)
{
    int status = read_option_file("limits", path, text, d);
    if (status)
        return status;
    struct source src = {path, text->data, text->len};
    return gate_limits_read(&src, limits, d) ? BDB_EXIT_USAGE : BDB_EXIT_OK;
}

int gate_status(const struct gate *g, const char *inconclusive, const char **word)
{
    *word = !g->n                         ? "nothing compared"
            : g->count[GATE_FAIL]         ? "regression"
            : g->count[GATE_INCONCLUSIVE] ? "inconclusive"
                                          : "passed";
    if (!g->n || g->count[GATE_FAIL])
        return BDB_EXIT_INPUT;
    if (!g->count[GATE_INCONCLUSIVE])
        return BDB_EXIT_OK;
    return !inconclusive                   ? BDB_EXIT_INCONCLUSIVE
           : !strcmp(inconclusive, "pass") ? BDB_EXIT_OK
                                           : BDB_EXIT_INPUT;
}

void gate_print(const char *cmd, const struct gate *g, const struct gate_config *c)
{
    struct buf b = BUF_INIT;
    gate_limits_text(&b, c);
    printf("%s: limits: %s\n", cmd, b.data);
    for (size_t i = 0; i < g->n; i++) {
        const struct gate_row *row = &g->v[i];
        if (row->outcome == GATE_PASS && !row->waived)
            continue;
        buf_reset(&b);
        gate_outcome_text(&b, row);
        buf_adds(&b, ": ");
        gate_row_text(&b, row, c);
        printf("%s\n", b.data);
    }
    buf_reset(&b);
    if (g->n)
        gate_counts_text(&b, g);
    else
        buf_addf(&b, "%s: nothing compared, nothing vouched for",
                 c->one_value ? "no result has a metric the limits name"
                              : "no workload was run on both the baseline and a candidate");
    printf("%s: %s\n", cmd, b.data);
    buf_release(&b);
}
