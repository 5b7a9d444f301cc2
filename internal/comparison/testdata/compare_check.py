#!/usr/bin/python3
"""Recompute a comparison.json with scipy and say where it differs.

Usage (TestAgainstScipy runs it; Debian's python3-scipy 1.10.1, numpy 1.24):

    /usr/bin/python3 internal/comparison/testdata/compare_check.py comparison.json folds.json

folds.json is a list of {"Dataset", "Method", "Folds": [{metric: value}]}
for the comparisons with d = 2. From each comparison's scores it recomputes the
ranks (rankdata of the scores, negated when higher is better), the average
ranks over the data sets where every method that has a score somewhere has
one, scipy.stats.friedmanchisquare (the same formula for 2 methods),
Iman-Davenport with scipy.stats.f.sf, the Nemenyi CD with
scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2), and per pair
wins/ties/losses, scipy.stats.wilcoxon and Holm's adjustment; from folds.json
scipy.stats.ttest_rel. Exits 1 with the differences, else prints "checked N
comparisons".
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import stats
from scipy.stats._stats_py import find_repeats

warnings.simplefilter("ignore")
errors = []


def check(what, got, want, rel=1e-12):
    if want is None or got is None:
        if not (want is None and got is None):
            errors.append(f"{what}: got {got}, want {want}")
        return
    if not math.isclose(got, want, rel_tol=rel, abs_tol=1e-300):
        errors.append(f"{what}: got {got!r}, want {want!r}")


def friedman(rows):
    data = np.array(rows, dtype=float)
    n, k = data.shape
    if k >= 3:
        return stats.friedmanchisquare(*data.T)
    for i in range(n):
        data[i] = stats.rankdata(data[i])
    ties = sum(t * (t * t - 1) for d in data for t in find_repeats(np.array(d))[1])
    c = 1 - ties / (k * (k * k - 1) * n)
    chi2 = (12.0 / (k * n * (k + 1)) * np.sum(data.sum(axis=0) ** 2) - 3 * n * (k + 1)) / c
    return chi2, stats.chi2.sf(chi2, k - 1)


def holm(p):
    p = np.asarray(p)
    order = np.argsort(p)
    adj = np.minimum(np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1)), 1)
    out = np.empty_like(adj)
    out[order] = adj
    return out


comparisons = json.load(open(sys.argv[1]))["comparisons"]
folds = {(f["Dataset"], f["Method"]): f["Folds"] for f in json.load(open(sys.argv[2]))}
for ci, c in enumerate(comparisons):
    where = f"comparison {ci} ({c['metric']}, d={c['d']})"
    methods, scores = c["methods"], c["scores"]
    sign = 1 if c["better"] == "lower" else -1
    ranked = [j for j in range(len(methods)) if any(row[j] is not None for row in scores)]
    rows, used = [], []
    for i, row in enumerate(scores):
        if all(row[j] is not None for j in ranked):
            rows.append([sign * row[j] for j in ranked])
            used.append(i)
    check(f"{where} ranked_datasets", c["ranked_datasets"], len(rows))
    avg = {}
    if rows:
        r = np.array([stats.rankdata(row) for row in rows])
        for ii, i in enumerate(used):
            for jj, j in enumerate(ranked):
                check(f"{where} rank [{i}][{j}]", c["ranks"][i][j], r[ii][jj])
        for jj, j in enumerate(ranked):
            avg[methods[j]] = r[:, jj].mean()
            check(f"{where} average rank of {methods[j]}", c["average_ranks"][methods[j]], avg[methods[j]])
    n, k = len(rows), len(ranked)
    if n >= 2 and k >= 2:
        chi2, p = friedman(rows)
        check(f"{where} friedman chi2", c["friedman"]["chi2"], chi2)
        check(f"{where} friedman p", c["friedman"]["p"], p)
        if chi2 < n * (k - 1):
            f = (n - 1) * chi2 / (n * (k - 1) - chi2)
            check(f"{where} iman_davenport f", c["iman_davenport"]["f"], f)
            check(f"{where} iman_davenport p", c["iman_davenport"]["p"], stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
        for key, alpha in (("0.05", 0.05), ("0.10", 0.10)):
            q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
            check(f"{where} nemenyi {key}", c["nemenyi_cd"][key], q * math.sqrt(k * (k + 1) / (6 * n)), 1e-9)
    elif c["friedman"] is not None:
        errors.append(f"{where}: friedman {c['friedman']}, want null")
    pairs, ps = [], []
    for x in range(len(ranked)):
        for y in range(x + 1, len(ranked)):
            a, b = ranked[x], ranked[y]
            if avg and avg[methods[b]] < avg[methods[a]]:
                a, b = b, a
            both = [i for i, row in enumerate(scores) if row[a] is not None and row[b] is not None]
            xs = [scores[i][a] for i in both]
            ys = [scores[i][b] for i in both]
            w = t = l = 0
            for u, v in zip(xs, ys):
                if u == v or abs(u - v) <= 1e-12 * max(abs(u), abs(v)):
                    t += 1
                elif sign * u < sign * v:
                    w += 1
                else:
                    l += 1
            try:
                p = float(stats.wilcoxon(xs, ys).pvalue)
            except ValueError:
                p = None
            pairs.append((methods[a], methods[b], len(both), w, t, l, p))
            if p is not None:
                ps.append(p)
    h = iter(holm(ps)) if ps else iter(())
    if len(pairs) != len(c["pairs"]):
        errors.append(f"{where}: {len(c['pairs'])} pairs, want {len(pairs)}")
    for want, got in zip(pairs, c["pairs"]):
        a, b, nd, w, t, l, p = want
        pw = f"{where} pair {a}-{b}"
        if (got["a"], got["b"], got["datasets"], got["wins"], got["ties"], got["losses"]) != (a, b, nd, w, t, l):
            errors.append(f"{pw}: got {got}, want a={a} b={b} datasets={nd} w/t/l={w}/{t}/{l}")
        check(f"{pw} wilcoxon_p", got["wilcoxon_p"], p)
        check(f"{pw} holm_p", got["holm_p"], None if p is None else float(next(h)))
    if c["d"] == 2:
        got_t = {(d["dataset"], p["a"], p["b"]): p for d in c["paired_t"] for p in d["pairs"]}
        for got in c["pairs"]:
            for ds in c["datasets"]:
                fa, fb = folds[(ds, got["a"])], folds[(ds, got["b"])]
                xs = [f[c["metric"]] for f in fa]
                ys = [f[c["metric"]] for f in fb]
                res = stats.ttest_rel(xs, ys)
                g = got_t.get((ds, got["a"], got["b"]))
                pw = f"{where} paired t {ds} {got['a']}-{got['b']}"
                if g is None:
                    errors.append(f"{pw}: missing")
                    continue
                tv, pv = float(res.statistic), float(res.pvalue)
                check(f"{pw} t", g["t"], None if math.isnan(tv) or math.isinf(tv) else tv)
                check(f"{pw} p", g["p"], None if math.isnan(pv) else pv, 1e-11)

if errors:
    print("\n".join(errors[:50]))
    print(f"{len(errors)} differences")
    sys.exit(1)
print(f"checked {len(comparisons)} comparisons")
