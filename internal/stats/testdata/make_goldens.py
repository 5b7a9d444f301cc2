#!/usr/bin/python3
"""Goldens for internal/stats, written with Debian's python3-scipy.

Rerun from the repository root with Debian's python (numpy 1.24, scipy 1.10.1),
not a pyenv python:

    /usr/bin/python3 internal/stats/testdata/make_goldens.py

It rewrites internal/stats/testdata/goldens.json. Floats that JSON cannot hold
are written as the strings "nan", "inf" and "-inf"; a case whose scipy call
raises or returns NaN has "error": true.
"""
import json
import math
import os
import warnings

import numpy as np
import scipy
from scipy import stats
from scipy.stats._stats_py import find_repeats

warnings.simplefilter("ignore")
rng = np.random.default_rng(20060101)


def num(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def nums(a):
    return [num(v) for v in a]


def friedman_formula(data):
    """scipy 1.10.1 friedmanchisquare's body without its k >= 3 check."""
    n, k = data.shape
    data = data.astype(float)
    for i in range(len(data)):
        data[i] = stats.rankdata(data[i])
    ties = 0
    for d in data:
        replist, repnum = find_repeats(np.array(d))
        for t in repnum:
            ties += t * (t * t - 1)
    c = 1 - ties / (k * (k * k - 1) * n)
    ssbn = np.sum(data.sum(axis=0) ** 2)
    chisq = (12.0 / (k * n * (k + 1)) * ssbn - 3 * n * (k + 1)) / c
    return chisq, stats.distributions.chi2.sf(chisq, k - 1)


def sample(n, kind):
    if kind == "float":
        return rng.standard_normal(n)
    if kind == "ties":
        return rng.integers(0, 4, n).astype(float)
    if kind == "scores":  # metric-like numbers with 4 decimals
        return np.round(rng.uniform(0.1, 0.4, n), 4)
    raise ValueError(kind)


out = {"scipy": scipy.__version__, "numpy": np.__version__}

# rankdata
ranks = []
for n in list(range(1, 13)) + [20, 37, 60]:
    for kind in ("float", "ties"):
        x = sample(n, kind)
        ranks.append({"x": nums(x), "want": nums(stats.rankdata(x))})
# Not [inf, 1, -inf]: scipy 1.10's NaN check is np.isnan(np.sum(x)), so +inf
# and -inf together make every rank NaN; stats.Rank ranks them (see its doc).
for x in ([0.0, -0.0, 1.0], [math.inf, 1.0, -2.0, math.inf], [-math.inf, 0.5, -math.inf], [1.0, math.nan, 2.0], [3.0, 3.0, 3.0]):
    ranks.append({"x": nums(x), "want": nums(stats.rankdata(x))})
out["rank"] = ranks

# friedmanchisquare (k >= 3) and the formula for k = 2, Iman-Davenport from it
fried = []
for k in range(2, 13):
    for n in (1, 2, 3, 5, 8, 13, 21, 30):
        for kind in ("float", "ties", "scores"):
            data = np.array([sample(k, kind) for _ in range(n)])
            case = {"scores": [nums(r) for r in data], "k": k, "n": n}
            if k >= 3:
                chi2, p = stats.friedmanchisquare(*data.T)
                c2, p2 = friedman_formula(data)
                assert (math.isnan(chi2) and math.isnan(c2)) or (chi2 == c2 and p == p2), (chi2, c2)
            else:
                chi2, p = friedman_formula(data)
            if math.isnan(chi2) or math.isinf(chi2):
                case["error"] = True
            else:
                case["chi2"], case["p"] = num(chi2), num(p)
                if n >= 2:
                    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
                    case["f"] = num(f)
                    case["f_p"] = num(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
            fried.append(case)
# every row ranked the same way: chi2 = N(k-1), F infinite
for k, n in ((3, 4), (5, 10)):
    data = np.array([np.arange(k, dtype=float) for _ in range(n)])
    chi2, p = stats.friedmanchisquare(*data.T)
    fried.append({"scores": [nums(r) for r in data], "k": k, "n": n, "chi2": num(chi2), "p": num(p),
                  "f": "inf", "f_p": 0.0})
# every row all ties: scipy returns NaN
data = np.ones((4, 3))
chi2, p = stats.friedmanchisquare(*data.T)
assert math.isnan(chi2) or math.isinf(chi2)
fried.append({"scores": [nums(r) for r in data], "k": 3, "n": 4, "error": True})
out["friedman"] = fried

# wilcoxon with every default
wil = []


def wcase(x, y, note):
    case = {"x": nums(x), "y": nums(y), "note": note}
    try:
        res = stats.wilcoxon(x, y)
        if math.isnan(res.pvalue):
            case["error"] = True
        else:
            case["stat"], case["p"] = num(res.statistic), num(res.pvalue)
    except ValueError:
        case["error"] = True
    wil.append(case)


for n in range(1, 61):
    x = sample(n, "float")
    y = sample(n, "float")
    wcase(x, y, "float")
    x = sample(n, "ties")
    y = sample(n, "ties")
    wcase(x, y, "ties and zeros")
    x = sample(n, "scores")
    y = x + np.round(rng.uniform(-0.02, 0.02, n), 3)
    j = rng.integers(0, n)
    y[j] = x[j]  # one zero difference: the normal approximation
    wcase(x, y, "scores")
for n in (3, 4, 7, 10, 50, 51):
    # tied |d| and no zero: exact with r_plus ending in .5 (scipy truncates)
    d = np.array([1.0, -1.0] + [float(i) for i in range(2, n)])
    wcase(d, np.zeros(n), "ties, no zero")
wcase(np.ones(5), np.ones(5), "all zero")
wcase(np.ones(55), np.ones(55), "all zero, approx")
wcase(np.arange(6.0), np.zeros(6), "one zero")
wcase(np.arange(1.0, 51.0), np.zeros(50), "n = 50 exact, all positive")
wcase(np.arange(1.0, 52.0), np.zeros(51), "n = 51 approx, all positive")
out["wilcoxon"] = wil

# holm (statsmodels multipletests method='holm', written out in numpy)
def holm(p):
    p = np.asarray(p)
    order = np.argsort(p)
    raw = p[order] * np.arange(len(p), 0, -1)
    adj = np.minimum(np.maximum.accumulate(raw), 1)
    res = np.empty_like(adj)
    res[order] = adj
    return res


holms = []
for m in (1, 2, 3, 5, 10, 28):
    p = rng.uniform(0, 0.2, m)
    holms.append({"p": nums(p), "want": nums(holm(p))})
    p = np.round(rng.uniform(0, 0.5, m), 1)  # ties
    holms.append({"p": nums(p), "want": nums(holm(p))})
holms.append({"p": [0.01, 0.04, 0.03, 0.005], "want": nums(holm([0.01, 0.04, 0.03, 0.005]))})
holms.append({"p": [0.9, 0.8, 0.7], "want": nums(holm([0.9, 0.8, 0.7]))})
out["holm"] = holms

# ttest_rel
tts = []


def tcase(x, y, note):
    res = stats.ttest_rel(x, y)
    case = {"x": nums(x), "y": nums(y), "note": note}
    if math.isnan(res.pvalue):
        case["error"] = True
    else:
        case["t"], case["p"] = num(res.statistic), num(res.pvalue)
    tts.append(case)


for n in list(range(2, 31)) + [60, 129, 300]:
    tcase(sample(n, "float"), sample(n, "float"), "float")
    x = sample(n, "scores")
    tcase(x, x + np.round(rng.uniform(-0.01, 0.03, n), 4), "scores")
tcase(np.arange(5.0), np.arange(5.0) + 1, "constant difference -1: t = -inf")
tcase(np.arange(10.0) + 2, np.arange(10.0), "constant difference 2: t = inf")
tcase(np.full(10, 0.3), np.full(10, 0.2), "constant difference 0.1 in float64")
tcase(np.full(7, 0.3), np.full(7, 0.2), "constant difference 0.1, n = 7")
for n in (10, 24, 100):
    # numpy's pairwise sum makes the mean of ten 0.1s exactly 0.1 (t = inf);
    # for 24 and 100 the variance is tiny but not 0 (t about 3.5e16).
    tcase(np.full(n, 0.1), np.zeros(n), "0.1 repeated: numpy's summation order decides")
tcase(np.arange(4.0), np.arange(4.0), "all zero")
out["ttest_rel"] = tts

# studentized range at infinite df, divided by sqrt(2): Nemenyi's q_alpha
sr = []
for k in range(2, 51):
    for alpha in (0.05, 0.10, 0.01):
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf)
        sr.append({"k": k, "alpha": alpha, "q": num(q)})
out["studentized_range"] = sr

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"), allow_nan=False)
    f.write("\n")
print("wrote", path)
