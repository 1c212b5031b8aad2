"""stats_ref.py: the comparison verdict computed independently of benchdb, from the runs, written
out here from the formulas (scipy only for the t distribution):

- the delta-method 95 % interval of the ratio of means on the log scale (ratio_interval);
- the two-sided t-test of 'the ratio of means is 1' on the same scale: t = |ln(mb/ma)| / se,
  se^2 = sd_a^2/(n_a ma^2) + sd_b^2/(n_b mb^2), Welch-Satterthwaite df of those two terms
  (ratio_p);
- Holm's step-down adjustment over one family of p-values (holm);
- the verdict: equivalent when the whole interval lies within [1/1.05, 1.05]; else
  significant when the adjusted p < 0.05 and the interval excludes 1; else inconclusive
  (verdict, equivalent, family);
- the runs per side an inconclusive verdict asks for (runs_needed): the smallest n >= 2 with
  n >= 2 (t(0.975, 2n-2) + t(0.8, 2n-2))^2 cv^2 / ln(1.1)^2, cv^2 the two sides' squared
  coefficients of variation averaged (docs/methods.md, "Too few runs");
- a percentile's spread is taken as no less than fio's bin resolution, 1/64 of the mean
  (resolution): fio reports the middle of the bin a percentile falls in, and repeats in one bin
  show no spread that only the binning removed (docs/methods.md, "Comparing two sides")."""
import math
import statistics

from scipy import stats

ALPHA = 0.05
MARGIN = 0.05  # equivalence: the whole interval within [1/(1+MARGIN), 1+MARGIN]
# fio's latency bins: 64 per power of two (FIO_IO_U_PLAT_BITS 6 in fio's stat.h)
BIN_RESOLUTION = 1 / 64
PERCENTILE_METRICS = ("p99 latency", "fsync p99 latency")


def resolution(key):
    """The relative resolution of a test's values, by its metric label (the key, or a tuple
    holding it): fio's bin resolution for percentiles, else none."""
    labels = key if isinstance(key, tuple) else (key,)
    return BIN_RESOLUTION if any(label in PERCENTILE_METRICS for label in labels) else 0.0


def _sd(x, res):
    """The sample standard deviation of x, no less than res times its mean."""
    return max(statistics.stdev(x), res * statistics.mean(x))


def _log_terms(a, b, res=0.0):
    """(mean(b)/mean(a), the two variance terms of ln of it, df) of two samples of n >= 2."""
    ma, mb = statistics.mean(a), statistics.mean(b)
    va = _sd(a, res) ** 2 / (len(a) * ma * ma)
    vb = _sd(b, res) ** 2 / (len(b) * mb * mb)
    if va + vb == 0:
        return mb / ma, va, vb, math.nan
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return mb / ma, va, vb, df


def ratio_interval(a, b, res=0.0):
    """95 % interval of mean(b)/mean(a): exp(log r +- t * se), Welch-Satterthwaite df."""
    r, va, vb, df = _log_terms(a, b, res)
    if va + vb == 0:
        return r, r
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    return r * math.exp(-half), r * math.exp(half)


def mean_ci(x):
    """95 % t interval of the mean of a sample of n >= 2: mean +- t(0.975, n-1) sd / sqrt(n)."""
    half = stats.t.ppf(0.975, len(x) - 1) * statistics.stdev(x) / math.sqrt(len(x))
    return statistics.mean(x) - half, statistics.mean(x) + half


def ratio_p(a, b, res=0.0):
    """Two-sided p-value of 'mean(b)/mean(a) = 1', tested on the log ratio; None when either
    side has fewer than two values. With no spread at all: 0 for different means, 1 else."""
    if len(a) < 2 or len(b) < 2:
        return None
    r, va, vb, df = _log_terms(a, b, res)
    if va + vb == 0:
        return 1.0 if r == 1 else 0.0
    t = abs(math.log(r)) / math.sqrt(va + vb)
    return min(1.0, 2 * stats.t.sf(t, df))


def holm(ps):
    """Holm's step-down adjusted p-values, in the order of ps: sorted ascending, the i-th
    smallest (i from 0) becomes max over j <= i of min(1, (m - j) p_(j))."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    out, running = [0.0] * m, 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * ps[i]))
        out[i] = running
    return out


def verdict(p_adj, lo, hi):
    """'equivalent' when the interval [lo, hi] lies within +-5 % (a difference too small to
    matter, real or not); else 'significant' when the adjusted p < 0.05 and [lo, hi] excludes
    1; else 'inconclusive'."""
    if equivalent(lo, hi):
        return "equivalent"
    return "significant" if p_adj < ALPHA and not (lo <= 1 <= hi) else "inconclusive"


DETECT = 0.10  # the difference an inconclusive verdict's run count is for


def runs_needed(a, b, res=0.0):
    """Runs per side to detect a 10 % difference at alpha 0.05 with power 0.8, at the spread of
    samples a and b; None beyond a million."""
    cv2 = ((_sd(a, res) / statistics.mean(a)) ** 2 + (_sd(b, res) / statistics.mean(b)) ** 2) / 2
    need = lambda n: 2 * (stats.t.ppf(0.975, 2 * n - 2) + stats.t.ppf(0.8, 2 * n - 2)) ** 2 * cv2 \
        / math.log1p(DETECT) ** 2
    if need(1000000) > 1000000:
        return None
    lo, hi = 2, 1000000  # need(n) - n falls as n grows: the first n that suffices
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if need(mid) > mid else (lo, mid)
    return lo


def equivalent(lo, hi):
    """The whole interval of the factor within +-5 %."""
    return lo >= 1 / (1 + MARGIN) and hi <= 1 + MARGIN


def family(tests):
    """tests: {key: (a, b)}, every test of one report. Returns {key: (verdict, adjusted p, raw
    p, lo, hi)}, with lo/hi the interval of mean(b)/mean(a); a test with n < 2 on a side is
    'single run' and not part of the family."""
    raw = {k: ratio_p(a, b, resolution(k)) for k, (a, b) in tests.items()}
    keys = [k for k, p in raw.items() if p is not None]
    adj = dict(zip(keys, holm([raw[k] for k in keys])))
    out = {}
    for k, (a, b) in tests.items():
        if raw[k] is None:
            out[k] = ("single run", None, None, math.nan, math.nan)
            continue
        lo, hi = ratio_interval(a, b, resolution(k))
        out[k] = (verdict(adj[k], lo, hi), adj[k], raw[k], lo, hi)
    return out


def sig3(v):
    """A factor as the report's phrases write it: three significant digits (1.42, 39.8, 1146)."""
    return "%.*f" % (0 if v >= 100 else 1 if v >= 10 else 2, v)


def phrase(factor, lo, hi, verdict_, better, worse, a=None, b=None, res=0.0):
    """The factor's wording: factor, lo, hi direction-aware (> 1 is better), verdict_ from
    family(); better/worse the metric's words ('faster', 'slower'); a and b the two samples
    (needed for an inconclusive verdict: its run counts) and res their resolution."""
    if verdict_ == "equivalent":
        return "equivalent within \u00b15 %% (%sx)" % sig3(factor)
    if verdict_ == "inconclusive":
        n = runs_needed(a, b, res)
        if n is None:
            need = "the runs vary too much to detect a 10 % difference"
        elif n <= min(len(a), len(b)):  # these runs could have shown it: the interval says more
            need = ("enough runs to detect a 10 %% difference, and none found; the 95%% CI "
                    "%s-%s is too wide to call it equivalent within \u00b15 %%" % (sig3(lo), sig3(hi)))
        else:
            need = "about %d runs per side would detect a 10 %% difference" % n
        return "inconclusive (%sx, n=%d vs %d): %s" % (sig3(factor), len(a), len(b), need)
    up = factor >= 1
    f = factor if up else 1 / factor
    # a factor that rounds to 1.00 has no direction to name
    head = "no difference (1.00x)" if f < 1.005 else "%sx %s" % (sig3(f), better if up else worse)
    if verdict_ == "single run":
        return head + " (single run)"
    lo_, hi_ = (lo, hi) if up else (1 / hi, 1 / lo)
    return "%s (95%% CI %s-%s)" % (head, sig3(lo_), sig3(hi_))


# The report's short-run threshold (runtime_ms) and its caution words, in the report's order.
MIN_RUNTIME_MS = 5000


def fio_suspects(job, direction):
    """Why the report cautions about a fio job (its JSON object) in one direction: a list of
    'cached' (buffered random I/O, or buffered sequential writes that no fsync/fdatasync/O_SYNC
    makes durable) and 'short runs' (under MIN_RUNTIME_MS)."""
    o = job["job options"]
    rw = o.get("rw", "read")
    on = lambda k: o.get(k, "0") not in ("0", "none", "false")
    buffered = not on("direct")
    sync_write = direction == "write" and (on("sync") or on("fsync") or on("fdatasync"))
    seq_write = rw == "write" or (rw in ("rw", "readwrite") and direction == "write")
    words = []
    if buffered and not sync_write and (rw.startswith("rand") or seq_write):
        words.append("cached")
    if job[direction]["runtime"] < MIN_RUNTIME_MS:
        words.append("short runs")
    return words


def caution(sides):
    """The '; caution: ...' the report appends to a factor: sides is [(name, [word lists of its
    results])] for the baseline and the candidate ('both' when their words agree); '' when no
    result is suspect."""
    words = [[w for w in ("cached", "short runs", "breaks Little's law", "not steady")
              if any(w in l for l in lists)] for _, lists in sides]
    if words[0] == words[1]:
        parts = ["both " + ", ".join(words[0])] if words[0] else []
    else:
        parts = ["%s %s" % (name, ", ".join(w)) for (name, _), w in zip(sides, words) if w]
    return "; caution: " + "; ".join(parts) if parts else ""


def significant(p_adj, lo, hi):
    """The gate's 'significant' (compare_significant): the adjusted p below 0.05 and the
    interval excluding 1, whatever the equivalence."""
    return p_adj is not None and p_adj < ALPHA and not (lo <= 1 <= hi)


def gate_outcome(fam_entry, higher, floor, a, b):
    """benchdb check's outcome of one factor (docs/methods.md, "Gates: limits and three
    outcomes"): fam_entry from family(), higher whether the metric is better higher, floor the
    factor below which the candidate is worse than its limit allows (0.95 for 'bw:-5%',
    1/1.05 for --threshold 5). 'fail' when significant and below the floor, 'pass' when the
    whole direction-aware interval is at or above it, else 'inconclusive' (a single run
    too)."""
    _, p_adj, _, lo, hi = fam_entry
    r = statistics.mean(b) / statistics.mean(a)
    f, flo = (r, lo) if higher else (1 / r, 1 / hi)
    if significant(p_adj, lo, hi) and f < floor:
        return "fail"
    return "pass" if flo >= floor else "inconclusive"


def sd_log(a, b, res=0.0):
    """The pooled sample standard deviation of ln of both samples (degrees of freedom as
    weights), each side's no less than res: the spread a t-test on the log scale sees."""
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ss = (len(a) - 1) * max(statistics.stdev(la), res) ** 2 + \
        (len(b) - 1) * max(statistics.stdev(lb), res) ** 2
    return math.sqrt(ss / (len(a) + len(b) - 2))


def runs_to_detect(a, b, floor, res=0.0):
    """Runs per side statsmodels' TTestIndPower finds for detecting the floor's change on the
    log scale, effect ln(1/floor) / sd_log, at alpha 0.05 with power 0.8, rounded up (at
    least 2, the fewest a t-test takes)."""
    from statsmodels.stats.power import TTestIndPower
    effect = -math.log(floor) / sd_log(a, b, res)
    n = TTestIndPower().solve_power(effect_size=effect, alpha=0.05, power=0.8, ratio=1,
                                    alternative="two-sided")
    return max(2, math.ceil(n))
