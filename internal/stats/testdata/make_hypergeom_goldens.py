#!/usr/bin/python3
"""Goldens for stats.HypergeomSF and stats.BenjaminiHochberg.

Rerun from the repository root with Debian's python (numpy 1.24, scipy 1.10.1,
mpmath 1.2.1), not a pyenv python:

    /usr/bin/python3 internal/stats/testdata/make_hypergeom_goldens.py

It rewrites internal/stats/testdata/hypergeom.json.

hypergeom: P(X >= k) for X ~ Hypergeom(population N, K successes, n draws),
which is scipy's hypergeom.sf(k - 1, N, K, n) (scipy's sf is P(X > k)). Each
case holds scipy's sf and logsf and "want", the same tail summed with mpmath
at 60 significant digits (log pmf from loggamma, then the exact ratio of
consecutive terms) and rounded to a double; "log_want" is its natural log,
finite also where the double underflows to 0. mpmath is the reference because
scipy 1.10.1's sf (Boost's hypergeometric) is off by up to about 2e-10
relative at N = 1e6 (the script checks it is within 1e-9 and records the
worst error); mpmath's sum is itself checked against exact rational
arithmetic (fractions, math.comb) for every case with N <= 2000.

bh: the Benjamini-Hochberg step-up adjustment written in numpy the way
statsmodels' multipletests(p, method='fdr_bh') does it (scipy 1.10 has no
false_discovery_control); NaN entries are left out of m and stay NaN.
"""
import json
import math
import os
import sys
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import scipy
from scipy import stats

warnings.simplefilter("ignore")
rng = np.random.default_rng(20140014)
mpmath.mp.dps = 60


def num(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def exact_sf(k, N, K, n):
    """P(X >= k) as an mpf, summed from the smaller side."""
    lo, hi = max(0, n - (N - K)), min(K, n)
    if k <= lo:
        return mpmath.mpf(1)
    if k > hi:
        return mpmath.mpf(0)

    def logpmf(x):
        lg = mpmath.loggamma
        return (lg(K + 1) - lg(x + 1) - lg(K - x + 1)
                + lg(N - K + 1) - lg(n - x + 1) - lg(N - K - n + x + 1)
                - lg(N + 1) + lg(n + 1) + lg(N - n + 1))

    tiny = mpmath.mpf(10) ** -45
    if k * N > n * K:  # upper tail from k
        t = mpmath.mpf(1)
        s = mpmath.mpf(1)
        for x in range(k, hi):
            t *= mpmath.mpf((K - x) * (n - x)) / ((x + 1) * (N - K - n + x + 1))
            s += t
            if t < tiny * s:
                break
        return mpmath.exp(logpmf(k)) * s
    x0 = k - 1  # 1 - P(X <= k - 1)
    t = mpmath.mpf(1)
    s = mpmath.mpf(1)
    for x in range(x0, lo, -1):
        t *= mpmath.mpf(x * (N - K - n + x)) / ((K - x + 1) * (n - x + 1))
        s += t
        if t < tiny * s:
            break
    return 1 - mpmath.exp(logpmf(x0)) * s


cases = set()


def add(k, N, K, n):
    cases.add((int(k), int(N), int(K), int(n)))


def around(N, K, n):
    """k across the support of Hypergeom(N, K, n) and just outside it."""
    lo, hi = max(0, n - (N - K)), min(K, n)
    mean = n * K / N if N else 0
    var = n * K * (N - K) * (N - n) / (N * N * (N - 1)) if N > 1 else 0
    sd = math.sqrt(var)
    ks = {0, -1, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi + 5, int(mean), int(mean) + 1}
    for z in (0.5, 1, 2, 3, 5, 8, 12, 20, 40, 80, 200):
        ks.add(int(round(mean + z * sd)))
        ks.add(int(round(mean - z * sd)))
    for k in ks:
        add(k, N, K, n)


# degenerate populations: K = 0, K = N, n = 0, n = N, N = 0 and 1
for N in (0, 1, 2, 7, 1000, 1000000):
    for K in sorted({0, 1, N // 2, N - 1, N}):
        for n in sorted({0, 1, N // 3, N - 1, N}):
            if 0 <= K <= N and 0 <= n <= N:
                around(N, K, n)
# small and middle populations on a grid
for N in (3, 10, 25, 100, 1000, 12345):
    for K in sorted({1, 2, N // 10, N // 4, N // 2, N - 2}):
        for n in sorted({1, 3, N // 7, N // 2, N - 3}):
            if 0 < K < N and 0 < n < N:
                around(N, K, n)
# the selection endpoint's size: N = 1e6 rows, labels of every frequency,
# selections of 10 to 500 000 rows
for K in (1, 3, 50, 300, 4000, 40000, 250000, 700000):
    for n in (10, 1000, 100000, 500000):
        around(1000000, K, n)
# far tails near and below the smallest double: every draw a success
for K in (100, 300, 305, 307, 310, 315, 320, 322, 323, 330, 400, 2000):
    add(K, 1000000, K, 100000)
    add(K - 1, 1000000, K, 100000)
add(1000, 1000000, 1000, 1000)
add(30, 1000000, 40000, 40)
add(300, 10000, 5000, 300)
add(333, 10000, 5000, 333)
# random cases
for _ in range(300):
    N = int(rng.integers(1, 200000))
    K = int(rng.integers(0, N + 1))
    n = int(rng.integers(0, N + 1))
    lo, hi = max(0, n - (N - K)), min(K, n)
    add(int(rng.integers(lo - 1, hi + 2)), N, K, n)

def fraction_sf(k, N, K, n):
    """P(X >= k) in exact rational arithmetic, for small N."""
    lo, hi = max(0, n - (N - K)), min(K, n)
    num_ = sum(math.comb(K, x) * math.comb(N - K, n - x) for x in range(max(k, lo), hi + 1))
    return Fraction(num_, math.comb(N, n))


hyper = []
worst = 0.0  # scipy's sf against mpmath, where the double is normal
worst_log = 0.0  # scipy's logsf against mpmath's log where finite, relative above 1
for k, N, K, n in sorted(cases):
    if N == 0:
        sf, logsf = (1.0, 0.0) if k <= 0 else (0.0, -math.inf)  # scipy refuses M = 0
    else:
        sf = float(stats.hypergeom.sf(k - 1, N, K, n))
        logsf = float(stats.hypergeom.logsf(k - 1, N, K, n))
    ex = exact_sf(k, N, K, n)
    want = float(ex)
    log_want = float(mpmath.log(ex)) if ex > 0 else -math.inf
    if N <= 2000:
        fr = fraction_sf(k, N, K, n)
        assert abs(mpmath.mpf(fr.numerator) / fr.denominator - ex) <= mpmath.mpf(10) ** -40 * ex, (k, N, K, n)
    if want >= sys.float_info.min:
        worst = max(worst, abs(sf - want) / want)
    if math.isfinite(log_want) and math.isfinite(logsf):
        worst_log = max(worst_log, abs(logsf - log_want) / max(1.0, abs(log_want)))
    hyper.append({"k": k, "N": N, "K": K, "n": n, "want": num(want), "log_want": num(log_want),
                  "scipy_sf": num(sf), "scipy_logsf": num(logsf)})
# scipy 1.10.1's sf (Boost's hypergeometric) is good to about 2e-10 at N = 1e6;
# the Go test holds HypergeomSF to mpmath at 1e-12 and to scipy at 1e-9.
assert worst < 1e-9, worst


def bh(p):
    """statsmodels multipletests(p, method='fdr_bh')[1], NaN left out."""
    p = np.asarray(p, dtype=float)
    out = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    if len(q) == 0:
        return out
    order = np.argsort(q)
    s = q[order]
    ecdf = np.arange(1, len(s) + 1) / float(len(s))
    raw = s / ecdf
    adj = np.minimum.accumulate(raw[::-1])[::-1]
    adj[adj > 1] = 1
    res = np.empty_like(adj)
    res[order] = adj
    out[ok] = res
    return out


bhs = []
for m in (0, 1, 2, 3, 5, 10, 12, 28, 100, 1000):
    p = rng.uniform(0, 0.2, m)
    bhs.append({"p": [num(v) for v in p], "want": [num(v) for v in bh(p)]})
    p = np.round(rng.uniform(0, 0.5, m), 1)  # ties
    bhs.append({"p": [num(v) for v in p], "want": [num(v) for v in bh(p)]})
    p = 10.0 ** -rng.uniform(0, 320, m)  # far tails, some subnormal
    bhs.append({"p": [num(v) for v in p], "want": [num(v) for v in bh(p)]})
for p in ([0.01, 0.04, 0.03, 0.005], [0.9, 0.8, 0.7], [0.0, 1.0, 0.0, 0.5], [1.0, 1.0],
          [0.01, math.nan, 0.04, 0.02], [math.nan, math.nan], [0.0, 0.0, 0.0]):
    bhs.append({"p": [num(v) for v in p], "want": [num(v) for v in bh(p)]})

out = {"scipy": scipy.__version__, "numpy": np.__version__, "mpmath": mpmath.__version__,
       "scipy_worst_rel": worst, "scipy_logsf_worst_rel": worst_log, "hypergeom": hyper, "bh": bhs}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hypergeom.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"), allow_nan=False)
    f.write("\n")
print("wrote", path, len(hyper), "hypergeom cases,", len(bhs), "bh cases; scipy's worst relative error:", worst,
      "(sf),", worst_log, "(logsf)")
