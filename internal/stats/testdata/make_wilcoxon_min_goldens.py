#!/usr/bin/python3
"""Goldens for stats.WilcoxonMinP, written with Debian's python3-scipy.

Rerun from the repository root with Debian's python (numpy 1.24, scipy 1.10.1):

    /usr/bin/python3 internal/stats/testdata/make_wilcoxon_min_goldens.py

It rewrites internal/stats/testdata/wilcoxon_min_p.json: for n = 1…60 pairs,
the smallest two-sided p-value scipy.stats.wilcoxon gives with its defaults
(method 'auto': exact up to 50 pairs, the normal approximation beyond) over
differences without zeros or ties. For n <= 14 every attainable positive
rank sum r+ = 0…n(n+1)/2 is tried (a sign pattern of the ranks 1…n with that
sum), so the minimum is scipy's over all outcomes, not only the extreme one;
beyond, the extreme pattern (every difference of one sign) is asked, with the
check that its neighbour r+ = 1 gives a larger p.
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy import stats

warnings.simplefilter("ignore")


def pattern(n, r):
    """Differences +-1…+-n whose positive ranks sum to r (greedy subset sum)."""
    d = -np.arange(1.0, n + 1)
    for k in range(n, 0, -1):
        if r >= k:
            d[k - 1] = k
            r -= k
    assert r == 0
    return d


def p(d):
    return float(stats.wilcoxon(d).pvalue)


cases = []
for n in range(1, 61):
    if n <= 14:
        ps = [p(pattern(n, r)) for r in range(n * (n + 1) // 2 + 1)]
        least, tried = min(ps), len(ps)
    else:
        least, tried = p(pattern(n, 0)), 1
        assert p(pattern(n, 1)) > least or n == 1
    cases.append({"n": n, "min_p": least, "outcomes_tried": tried})

out = {"scipy": scipy.__version__, "numpy": np.__version__, "wilcoxon_min_p": cases}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wilcoxon_min_p.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, allow_nan=False)
    f.write("\n")
print("wrote", path)
