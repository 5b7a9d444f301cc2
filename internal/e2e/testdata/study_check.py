#!/usr/bin/python3
"""Recompute a study's comparison.json from its metrics.json with scipy.

Usage (TestStudyEndToEnd runs it; Debian's python3-scipy 1.10.1, numpy 1.24):

    /usr/bin/python3 internal/e2e/testdata/study_check.py metrics.json comparison.json

For every comparison at each method's own d it takes, from metrics.json
alone, each data set's mean row of each method (ori included), and
recomputes: the ranks (scipy.stats.rankdata, negated scores when higher is
better), the average ranks, scipy.stats.friedmanchisquare, Iman and
Davenport's F with scipy.stats.f.sf, Nemenyi's critical difference with
scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2), and for each
pair wins/ties/losses, scipy.stats.wilcoxon (its defaults) and Holm's
adjustment; and, from the fold rows, scipy.stats.ttest_rel per data set and
pair. Exits 1 listing the differences, else prints "checked N comparisons".
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import stats

warnings.simplefilter("ignore")
errors = []


def close(what, got, want, rel=1e-9):
    if got is None or want is None or (isinstance(want, float) and math.isnan(want)):
        if not (got is None and (want is None or math.isnan(want))):
            errors.append(f"{what}: got {got}, want {want}")
        return
    if not math.isclose(got, want, rel_tol=rel, abs_tol=1e-12):
        errors.append(f"{what}: got {got!r}, want {want!r}")


def holm(p):
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1)), 1)
    out = np.empty_like(adj)
    out[order] = adj
    return out


metrics = json.load(open(sys.argv[1]))
comparison = json.load(open(sys.argv[2]))
means, folds = {}, {}
for r in metrics["rows"]:
    key = (r["dataset"], r["method"])
    if r["fold"] is None:
        means[key] = r["metrics"]
    else:
        folds.setdefault(key, []).append(r["metrics"])

checked = 0
for c in comparison["comparisons"]:
    if c["d"] is not None or c.get("percent") is not None:
        continue
    metric, methods, datasets = c["metric"], c["methods"], c["datasets"]
    sign = 1 if c["better"] == "lower" else -1
    what = f"{metric}"
    scores = np.array([[means[(d, m)].get(metric) for m in methods] for d in datasets], dtype=float)
    if np.isnan(scores).any():
        continue  # a metric of some methods only (encoding_error); the product says so in notes
    for i, d in enumerate(datasets):
        for j, m in enumerate(methods):
            close(f"{what} score {d} {m}", c["scores"][i][j], scores[i][j], 0)
    ranks = np.array([stats.rankdata(sign * row) for row in scores])
    for j, m in enumerate(methods):
        close(f"{what} average rank {m}", c["average_ranks"][m], ranks[:, j].mean())
    n, k = scores.shape
    chi2, p = stats.friedmanchisquare(*(sign * scores).T)
    close(f"{what} friedman chi2", c["friedman"]["chi2"], chi2)
    close(f"{what} friedman p", c["friedman"]["p"], p)
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    close(f"{what} iman-davenport p", c["iman_davenport"]["p"], stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    for alpha in ("0.05", "0.10"):
        q = stats.studentized_range.ppf(1 - float(alpha), k, np.inf) / math.sqrt(2)
        close(f"{what} CD {alpha}", c["nemenyi_cd"][alpha], q * math.sqrt(k * (k + 1) / (6 * n)), 1e-8)
    ps, got = [], []
    for pair in c["pairs"]:
        a, b = methods.index(pair["a"]), methods.index(pair["b"])
        diff = sign * (scores[:, b] - scores[:, a])  # > 0: a is better
        wins, ties = int((diff > 0).sum()), int((diff == 0).sum())
        if (pair["wins"], pair["ties"], pair["losses"]) != (wins, ties, n - wins - ties):
            errors.append(f"{what} {pair['a']} vs {pair['b']}: w/t/l {pair['wins']}/{pair['ties']}/{pair['losses']}, want {wins}/{ties}/{n - wins - ties}")
        if np.all(scores[:, a] == scores[:, b]):
            close(f"{what} wilcoxon {pair['a']} vs {pair['b']}", pair["wilcoxon_p"], None)
            continue
        p = stats.wilcoxon(scores[:, a], scores[:, b]).pvalue
        close(f"{what} wilcoxon {pair['a']} vs {pair['b']}", pair["wilcoxon_p"], p)
        ps.append(p)
        got.append(pair["holm_p"])
    for g, w in zip(got, holm(ps)):
        close(f"{what} holm", g, w)
    for block in c["paired_t"]:
        d = block["dataset"]
        for pair in block["pairs"]:
            x = [f[metric] for f in folds[(d, pair["a"])]]
            y = [f[metric] for f in folds[(d, pair["b"])]]
            t, p = stats.ttest_rel(x, y)
            if math.isnan(p):
                close(f"{what} t-test {d} {pair['a']} vs {pair['b']}", pair["p"], None)
            else:
                close(f"{what} t-test p {d} {pair['a']} vs {pair['b']}", pair["p"], p)
    checked += 1

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"checked {checked} comparisons")
