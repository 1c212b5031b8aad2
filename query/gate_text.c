/* gate_text.c: the words of benchdb check's verdict, written once for standard output, the
 * JUnit file and the job summary alike, so that no two of them can tell a row differently. */
#include "gate.h"

#include <math.h>
#include <stdint.h>

/* ---- the verdict's head and foot ---- */

void gate_limits_text(struct buf *out, const struct gate_config *c)
{
    for (size_t i = 0; i < c->nlimits; i++)
        buf_addf(out, "%s%.*s", i ? ", " : "", c->limits[i].text_len, c->limits[i].text);
    if (c->one_value) /* a comparison without a baseline holds only absolute limits */
        buf_adds(out, " (one value: absolute limits only)");
    else
        buf_addf(out, "%severy other metric at most %g %% worse than the baseline (--threshold)",
                 c->nlimits ? "; " : "", c->threshold_pct);
}

void gate_counts_text(struct buf *out, const struct gate *g)
{
    size_t fail = g->count[GATE_FAIL];
    buf_addf(out, "%zu regression%s, %zu inconclusive, %zu passed", fail, fail == 1 ? "" : "s",
             g->count[GATE_INCONCLUSIVE], g->count[GATE_PASS]);
    if (g->waived)
        buf_addf(out, ", %zu of them waived", g->waived);
    buf_addf(out, " (of %zu checked)", g->n);
}

/* ---- one row ---- */

static int absolute(const struct gate_row *row)
{
    return row->limit && row->limit->kind != LIMIT_RELATIVE;
}

void gate_limit_text(struct buf *b, const struct gate_row *row, const struct gate_config *c)
{
    if (row->limit)
        buf_addf(b, "%.*s", row->limit->text_len, row->limit->text);
    else
        buf_addf(b, "%g %% worse (--threshold)", c->threshold_pct);
}

/* What an inconclusive factor needs: "about 7 runs per side would detect it". */
static void add_runs(struct buf *b, const struct gate_row *row)
{
    if (b->len)
        buf_adds(b, "; ");
    if (row->runs != SIZE_MAX)
        buf_addf(b, "about %zu runs per side would detect a change of that size", row->runs);
    else if (isnan(row->cell->sd_log))
        buf_adds(b, "a single run a side shows no spread: repeat the runs");
    else
        buf_adds(b, "no feasible number of runs would detect a change of that size");
}

void gate_value_text(struct buf *out, const struct gate_row *row, int evidence)
{
    const struct cell *f = row->cell;
    if (absolute(row)) {
        /* the limit's metric: an IOPS limit is judged on the bandwidth row that carries it */
        unit_format(out, row->value, row->limit->metric.unit);
        buf_addf(out, " (%s of %d run%s)", f->n == 1 ? "value" : "mean", f->n,
                 f->n == 1 ? "" : "s");
        return;
    }
    buf_addf(out, "%.3gx", f->value);
    if (isfinite(f->lo) && isfinite(f->hi))
        buf_addf(out, " (95%% CI %.3g-%.3g)", f->lo, f->hi);
    if (!evidence)
        return;
    buf_addf(out, ", n=%d vs %d", row->base->n, row->cand->n);
    if (isfinite(f->p_holm) && f->verdict != VERDICT_SINGLE_RUN)
        buf_addf(out, ", p=%.2g (Holm-corrected)", f->p_holm);
}

void gate_outcome_text(struct buf *out, const struct gate_row *row)
{
    if (row->waived)
        buf_addf(out, "waived: %s until %s", row->waiver->ref, row->waiver->expires);
    else
        buf_adds(out, row->outcome == GATE_FAIL           ? "regression"
                      : row->outcome == GATE_INCONCLUSIVE ? "inconclusive"
                                                          : "passed");
}

/* What a regression's waiver did: allowed it, ran out, or was exceeded. */
static void add_waiver(struct buf *b, const struct gate_row *row)
{
    const struct gate_waiver *w = row->waiver;
    if (!w)
        return;
    if (b->len)
        buf_adds(b, "; ");
    if (row->waived)
        buf_addf(b, "waiver %s allows %.*s", w->ref, w->limit.text_len, w->limit.text);
    else if (row->expired)
        buf_addf(b, "waiver %s expired on %s", w->ref, w->expires);
    else
        buf_addf(b, "beyond waiver %s (%.*s)", w->ref, w->limit.text_len, w->limit.text);
    if (w->url)
        buf_addf(b, " (%s)", w->url);
}

void gate_note_text(struct buf *out, const struct gate_row *row)
{
    if (row->outcome == GATE_INCONCLUSIVE && !absolute(row))
        add_runs(out, row);
    add_waiver(out, row);
}

void gate_row_text(struct buf *out, const struct gate_row *row, const struct gate_config *c)
{
    buf_addf(out, "%s: %s: %s: ", row->workload,
             absolute(row) ? row->limit->metric.label : row->metric, row->versus);
    if (absolute(row)) {
        gate_value_text(out, row, 0);
        buf_addf(out, " %s %.*s", row->outcome == GATE_FAIL || row->waived ? "beyond" : "within",
                 row->limit->text_len, row->limit->text);
    } else if (row->outcome == GATE_INCONCLUSIVE) {
        gate_value_text(out, row, 0);
        buf_addf(out, ", n=%d vs %d: its interval reaches beyond the limit ", row->base->n,
                 row->cand->n);
        gate_limit_text(out, row, c);
    } else {
        buf_addf(out, "%s; limit ", row->cell->text); /* the factor's words hold its caution */
        gate_limit_text(out, row, c);
    }
    gate_note_text(out, row);
    if (!absolute(row) && row->outcome == GATE_INCONCLUSIVE && row->cell->caution)
        buf_addf(out, "; caution: %s", row->cell->caution); /* more runs of it would not help */
}
