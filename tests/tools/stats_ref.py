"""stats_ref.py: the comparison verdict computed independently of benchdb, from the runs:
Welch's t-test (scipy) and the delta-method 95 % interval of the ratio of means on the log
scale, written out here from the formula. Significant only when both exclude 'no difference'."""
import math
import statistics

from scipy import stats


def ratio_interval(a, b):
    """95 % interval of mean(b)/mean(a): exp(log r +- t * se), Welch-Satterthwaite df."""
    ma, mb = statistics.mean(a), statistics.mean(b)
    va = statistics.variance(a) / (len(a) * ma * ma)
    vb = statistics.variance(b) / (len(b) * mb * mb)
    r = mb / ma
    if va + vb == 0:
        return r, r
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    return r * math.exp(-half), r * math.exp(half)


def significant(a, b):
    p = stats.ttest_ind(b, a, equal_var=False).pvalue
    lo, hi = ratio_interval(a, b)
    return bool(p < 0.05 and not (lo <= 1 <= hi)), p
