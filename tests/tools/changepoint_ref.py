"""changepoint_ref.py: a reference of benchdb's change-point detection (query/changepoint.c),
written from the method's description, not from the C: E-divisive means (Matteson & James,
JASA 2014) with a Student t-test for significance in Hunter/Otava's split and merge steps
(Fleming et al., ICPE 2023; apache/otava otava/analysis.py). Q is computed by brute force
from its definition and the t-test is scipy's ttest_ind_from_stats(equal_var=True) on the values' sample
means and standard deviations.
benchdb's documented departures from Otava 0.6 are followed: sample variances, both
neighbours of a dropped point re-tested, Q maximized over valid splits only."""
import itertools

import numpy as np
from scipy import stats

MAX_P, MIN_MAGNITUDE, WINDOW = 0.001, 0.05, 50


def qhat(xs, ys):
    """Matteson & James' divergence of X and Y scaled by mn/(m+n)."""
    n, m = len(xs), len(ys)
    cross = sum(abs(a - b) for a in xs for b in ys)
    within_x = sum(abs(a - b) for a, b in itertools.combinations(xs, 2))
    within_y = sum(abs(a - b) for a, b in itertools.combinations(ys, 2))
    e = 2.0 * cross / (m * n)
    if n > 1:
        e -= within_x / (n * (n - 1) / 2.0)
    if m > 1:
        e -= within_y / (m * (m - 1) / 2.0)
    return m * n / (m + n) * e


def best_split(x, start, stop):
    """(Q, tau) maximizing Q(x[start:tau], x[tau:kappa]); first (smallest tau, kappa) on ties."""
    best = None
    for tau in range(start + 1, stop):
        for kappa in range(tau + 1, stop + 1):
            q = qhat(x[start:tau], x[tau:kappa])
            if best is None or q > best[0]:
                best = (q, tau)
    return best


def ttest(x, start, split, stop):
    left, right = np.asarray(x[start:split]), np.asarray(x[split:stop])
    if len(left) + len(right) - 2 <= 0:
        return 1.0
    if np.var(left) == 0 and np.var(right) == 0:  # scipy answers NaN: benchdb's convention
        return 1.0 if left.mean() == right.mean() else 0.0
    # from the stats, so that a one-value side (no variance of its own) still counts
    sd = [float(np.std(s, ddof=1)) if len(s) > 1 else 0.0 for s in (left, right)]
    return float(stats.ttest_ind_from_stats(left.mean(), sd[0], len(left), right.mean(), sd[1],
                                            len(right), equal_var=True).pvalue)


def magnitude(before, after):
    if before == 0 or after == 0:
        return 0.0
    return max(abs(after / before - 1), abs(before / after - 1))


def first_pass(max_p):
    return max_p * 10 if max_p < 0.05 else (max_p * 2 if max_p < 0.5 else max_p)


def split_window(x, lo, hi, max_p):
    found = []
    while True:
        bounds = [lo] + found + [hi]
        cands = [(best_split(x, a, b), a, b) for a, b in zip(bounds, bounds[1:]) if b - a > 1]
        if not cands:
            return found
        (q, tau), a, b = max(cands, key=lambda c: c[0][0])
        if ttest(x, a, tau, b) > max_p:
            return found
        found = sorted(found + [tau])


def weak_points(x, window, max_p):
    weak, start, step = set(), 0, window // 2
    while start < len(x):
        found = split_window(x, start, min(start + window, len(x)), first_pass(max_p))
        weak.update(found)
        start = max(found[-1] if found else 0, start + step)
    return sorted(weak)


MIN_SEGMENT_RUNS = 3  # a side of a change point with fewer runs is not tested (docs/methods.md)


def measure(x, idx, k):
    lo = idx[k - 1] if k else 0
    hi = idx[k + 1] if k + 1 < len(idx) else len(x)
    i = idx[k]
    testable = i - lo >= MIN_SEGMENT_RUNS and hi - i >= MIN_SEGMENT_RUNS
    return {"index": i, "before": float(np.mean(x[lo:i])), "after": float(np.mean(x[i:hi])),
            "p": ttest(x, lo, i, hi) if testable else 1.0}


def change_points(x, max_p=MAX_P, min_magnitude=MIN_MAGNITUDE, window=WINDOW):
    """[{index, before, after, p}] ascending by index."""
    x = [float(v) for v in x]
    idx = weak_points(x, window, max_p)
    cps = [measure(x, idx, k) for k in range(len(idx))]
    while cps:
        w = max(range(len(cps)), key=lambda k: cps[k]["p"])
        if cps[w]["p"] < max_p:
            w = min(range(len(cps)), key=lambda k: magnitude(cps[k]["before"], cps[k]["after"]))
            if magnitude(cps[w]["before"], cps[w]["after"]) > min_magnitude:
                break
        del cps[w]
        idx = [c["index"] for c in cps]
        for k in (w - 1, w):
            if 0 <= k < len(cps):
                cps[k] = measure(x, idx, k)
    return cps
