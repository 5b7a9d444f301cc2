#!/usr/bin/python3
"""Reference values for evaluate.InversePropensities and evaluate.XCMetrics
(xcmetrics_test.go), written to xcmetrics.json.

Written from the formulas alone (README.md, spec X), not from the Go code:

* inverse propensities (Jain, Prabhu & Varma, KDD 2016, section 4):
  1/p_l = 1 + C (N_l + B)^-A, C = (ln N - 1)(B + 1)^A, N the training
  rows, N_l those with label l; none when N < 3.
* order of a row's labels: a stable ascending sort of its scores read from
  the end (the ranking order of spec A: among equal scores the higher label
  index first).
* P@k = (1/k) sum of y over the first k; DCG@k = sum_{r<=k} y_(r)/log2(r+1);
  nDCG@k = DCG@k / sum_{r<=min(k,|y|)} 1/log2(r+1), 0 for a row without
  labels; both averaged over all rows.
* PSP@k = mean_i (1/k) sum_{r<=k} y_(r) w_(r) / mean_i best_i, best_i the
  same sum over the row's true labels sorted by w descending; PSnDCG@k the
  same with each row's DCG terms divided by its nDCG ideal. Ratios of
  means, as pyxclib's psprecision and psndcg; null (undefined) when the
  denominator is 0 or there are no propensities.

Cross-check: on the cases without tied scores, nDCG@k equals scikit-learn's
ndcg_score(y, s, k=k) (the script stops otherwise).

    /usr/bin/python3 internal/evaluate/testdata/ref/xcmetrics.py
"""

import math
import platform

import numpy as np
import sklearn
from sklearn.metrics import ndcg_score

from common import write_json

KS = (1, 3, 5)


def inverse_propensities(ytr, a, b):
    n = ytr.shape[0]
    if n < 3:
        return None
    nl = ytr.sum(axis=0).astype(float)
    c = (math.log(n) - 1) * (b + 1) ** a
    return 1 + c * (nl + b) ** (-a)


def order(s):
    return np.argsort(s, kind="stable")[::-1]


def xc_metrics(y, s, w):
    n, q = y.shape
    out = {}
    for k in KS:
        prec = ndcg = psp = pspb = psn = psnb = 0.0
        for i in range(n):
            yi = y[i]
            top = order(s[i])[:k]
            ny = int(yi.sum())
            ideal = sum(1 / math.log2(r + 1) for r in range(1, min(k, ny) + 1))
            prec += yi[top].sum() / k
            if ny == 0:
                continue
            disc = np.array([1 / math.log2(r + 1) for r in range(1, len(top) + 1)])
            ndcg += (yi[top] * disc).sum() / ideal
            if w is None:
                continue
            psp += (yi[top] * w[top]).sum() / k
            psn += (yi[top] * w[top] * disc).sum() / ideal
            best = np.sort(w[yi == 1])[::-1][:k]
            bdisc = np.array([1 / math.log2(r + 1) for r in range(1, len(best) + 1)])
            pspb += best.sum() / k
            psnb += (best * bdisc).sum() / ideal
        out["precision_at_%d" % k] = prec / n
        out["ndcg_at_%d" % k] = ndcg / n
        ok = w is not None and pspb > 0
        out["psprecision_at_%d" % k] = psp / pspb if ok else None
        out["psndcg_at_%d" % k] = psn / psnb if ok else None
    return out


def labels(rng, n, q, rates):
    return (rng.random((n, q)) < rates).astype(int)


def case(name, rng, ntr, n, q, a, b, ties, absent=(), empty_rows=0, rate=None):
    rates = rate if rate is not None else rng.uniform(0.05, 0.5, q)
    ytr = labels(rng, ntr, q, rates)
    for l in absent:  # labels no training row has, present in the test rows
        ytr[:, l] = 0
    y = labels(rng, n, q, rates)
    for l in absent:
        y[rng.integers(0, n, 3), l] = 1
    y[:empty_rows] = 0
    s = rng.random((n, q))
    if ties:
        s = np.round(s * 4) / 4  # five values: many ties, within and across rows
    w = inverse_propensities(ytr, a, b)
    m = xc_metrics(y, s, w)
    if not ties:
        assert len(set(s.ravel())) == s.size
        for k in KS:
            sk = ndcg_score(y, s, k=k) if y.sum() else 0.0
            assert abs(sk - m["ndcg_at_%d" % k]) < 1e-12, (name, k, sk, m["ndcg_at_%d" % k])
    return {"name": name, "a": a, "b": b, "ytrain": ytr.tolist(), "y": y.tolist(), "scores": s.tolist(),
            "inv_propensities": None if w is None else w.tolist(), "metrics": m,
            "rows_without_labels": int((y.sum(axis=1) == 0).sum()),
            "rows_with_fewer_than_5_labels": int((y.sum(axis=1) < 5).sum())}


def main():
    rng = np.random.default_rng(20161)
    cases = [
        case("ties-absent-empty-40x12", rng, 60, 40, 12, 0.55, 1.5, True, absent=(10, 11), empty_rows=4),
        case("continuous-50x20", rng, 80, 50, 20, 0.55, 1.5, False, empty_rows=3),
        case("continuous-sparse-60x30", rng, 100, 60, 30, 0.55, 1.5, False, rate=np.full(30, 0.06)),
        case("ties-wikipedia-ab-30x9", rng, 45, 30, 9, 0.5, 0.4, True, absent=(0,)),
        case("ties-amazon-ab-30x9", rng, 45, 30, 9, 0.6, 2.6, True, empty_rows=2),
        case("q3-below-k-20x3", rng, 25, 20, 3, 0.55, 1.5, True, empty_rows=2),
        case("no-labelled-test-row-10x6", rng, 20, 10, 6, 0.55, 1.5, True, empty_rows=10),
        case("two-training-rows-10x6", rng, 2, 10, 6, 0.55, 1.5, False),
    ]
    doc = {"generator": "internal/evaluate/testdata/ref/xcmetrics.py",
           "software": {"python": platform.python_version(), "numpy": np.__version__, "sklearn": sklearn.__version__},
           "definition": "P@k, nDCG@k, PSP@k, PSnDCG@k at k = 1, 3, 5 with Jain et al.'s propensities; README spec X",
           "checks": "nDCG@k equals sklearn ndcg_score on the cases without ties",
           "cases": cases}
    path = write_json("xcmetrics.json", doc)
    for c in cases:
        print(c["name"], {k: (round(v, 6) if v is not None else None) for k, v in c["metrics"].items()})
    print("wrote", path)


if __name__ == "__main__":
    main()
