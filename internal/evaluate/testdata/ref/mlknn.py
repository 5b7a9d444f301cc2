#!/usr/bin/python3
"""Reference ML-kNN (Zhang & Zhou 2007; spec B of README.md, as the
authors' MATLAB package MLKNN_train.m / MLKNN_test.m) on yeast-train (1500
rows) → yeast-test (917 rows), written to mlknn_yeast.json.

Own numpy implementation, k = 10, s = 1, Euclidean distance on the features
as given (computed as sqrt(Σ (a − b)²) by explicit differences, as the
MATLAB code does). A training instance's neighbours are the k nearest OTHER
training instances; ties in distance go to the lower row index (stable
sort). The neighbour search is cross-checked against
sklearn.neighbors.NearestNeighbors(algorithm="brute").

    /usr/bin/python3 internal/evaluate/testdata/ref/mlknn.py
"""

import sys
import time

import numpy as np
from sklearn.neighbors import NearestNeighbors

import common

GENERATOR = "internal/evaluate/testdata/ref/mlknn.py"
K, S = 10, 1
N_POST = 5  # test rows whose posteriors are stored


def distances(A, B):
    """|A|×|B| Euclidean distances by explicit differences."""
    out = np.empty((A.shape[0], B.shape[0]))
    for i, a in enumerate(A):
        d = B - a
        out[i] = np.sqrt(np.einsum("ij,ij->i", d, d))
    return out


def neighbours(dist, k):
    """The k nearest columns of every row (ties: lower index, stable sort),
    and per row the relative gap between the k-th and (k+1)-th distance."""
    order = np.argsort(dist, axis=1, kind="stable")
    nb = order[:, :k]
    dk = np.take_along_axis(dist, order[:, k - 1:k], axis=1)[:, 0]
    dk1 = np.take_along_axis(dist, order[:, k:k + 1], axis=1)[:, 0]
    gap = (dk1 - dk) / np.maximum(dk, np.finfo(float).tiny)
    return nb, gap


def fit(Xtr, Ytr, k, s):
    m, q = Ytr.shape
    dist = distances(Xtr, Xtr)
    np.fill_diagonal(dist, np.inf)  # never its own neighbour
    nb, gap = neighbours(dist, k)
    prior = (s + Ytr.sum(axis=0)) / (2 * s + m)
    counts = Ytr[nb].sum(axis=1)  # m×q: neighbours having each label
    c1 = np.zeros((q, k + 1), dtype=int)
    c0 = np.zeros((q, k + 1), dtype=int)
    for i in range(m):
        for l in range(q):
            if Ytr[i, l] == 1:
                c1[l, counts[i, l]] += 1
            else:
                c0[l, counts[i, l]] += 1
    cond1 = (s + c1) / (s * (k + 1) + c1.sum(axis=1, keepdims=True))
    cond0 = (s + c0) / (s * (k + 1) + c0.sum(axis=1, keepdims=True))
    return dict(prior=prior, c1=c1, c0=c0, cond1=cond1, cond0=cond0, nb=nb, gap=gap)


def predict(model, Xtr, Ytr, Xte, k):
    dist = distances(Xte, Xtr)
    nb, gap = neighbours(dist, k)
    counts = Ytr[nb].sum(axis=1)  # n×q
    q = Ytr.shape[1]
    cols = np.arange(q)
    p1 = model["prior"][None, :] * model["cond1"][cols[None, :], counts]
    p0 = (1 - model["prior"])[None, :] * model["cond0"][cols[None, :], counts]
    post = p1 / (p1 + p0)
    pred = (post >= 0.5).astype(int)
    return pred, post, nb, gap


def sklearn_check(Xtr, Xte, nb_tr, gap_tr, nb_te, gap_te, k):
    """Neighbour sets against scikit-learn's brute-force search (Gram-trick
    distances), on every row whose k-th and (k+1)-th distances are apart
    by more than 1e-9 (relative); asserts they agree."""
    nn = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(Xtr)
    sk_tr = nn.kneighbors(return_distance=False)  # X=None: self excluded
    sk_te = nn.kneighbors(Xte, return_distance=False)
    checked = 0
    for mine, sk, gap in ((nb_tr, sk_tr, gap_tr), (nb_te, sk_te, gap_te)):
        for i in range(mine.shape[0]):
            if gap[i] > 1e-9:
                assert set(mine[i]) == set(sk[i]), i
                checked += 1
    return checked, mine.shape[0] + nb_tr.shape[0]


def main():
    Xtr, Ytr, _, info_tr = common.load_csv("yeast/yeast-train.csv")
    Xte, Yte, _, info_te = common.load_csv("yeast/yeast-test.csv")
    assert Xtr.shape == (1500, 103) and Xte.shape == (917, 103)

    t0 = time.perf_counter()
    model = fit(Xtr, Ytr, K, S)
    t1 = time.perf_counter()
    pred, post, nb_te, gap_te = predict(model, Xtr, Ytr, Xte, K)
    t2 = time.perf_counter()
    metrics, kept = common.multilabel_metrics(Yte, pred, post)
    t3 = time.perf_counter()
    checked, total = sklearn_check(Xtr, Xte, model["nb"], model["gap"], nb_te, gap_te, K)
    t4 = time.perf_counter()

    # How robust the reference is to rounding in another implementation.
    q = Yte.shape[1]
    ties = near = 0
    for row in post:
        srt = np.sort(row)
        d = np.diff(srt)
        ties += int(np.sum(d == 0))
        near += int(np.sum((d > 0) & (d < 1e-12 * srt[1:])))
    # Sqrt collapses distances that differ in the last bits: check that the
    # neighbour sets are the same by squared distance.
    for A, nb in ((Xtr, model["nb"]), (Xte, nb_te)):
        d2 = np.array([np.einsum("ij,ij->i", Xtr - a, Xtr - a) for a in A])
        if A is Xtr:
            np.fill_diagonal(d2, np.inf)
        nb2 = np.argsort(d2, axis=1, kind="stable")[:, :K]
        assert all(set(x) == set(y) for x, y in zip(nb, nb2))

    checks = {
        "min_relative_gap_kth_to_next_distance_train": float(model["gap"].min()),
        "min_relative_gap_kth_to_next_distance_test": float(gap_te.min()),
        "rows_neighbour_sets_equal_to_sklearn_brute": checked,
        "rows_total": total,
        "neighbour_sets_same_by_squared_distance": True,
        "closest_posterior_to_half": float(post.flat[np.argmin(np.abs(post - 0.5))]),
        "min_abs_posterior_minus_half": float(np.min(np.abs(post - 0.5))),
        "tied_posterior_pairs_within_rows": ties,
        "near_tied_posterior_pairs_within_rows_below_1e-12_relative": near,
        "ranking_instances_kept": kept,
    }
    doc = {
        "generator": GENERATOR,
        "software": common.SOFTWARE,
        "definition": "ML-kNN, spec B of README.md (MLKNN_train.m / MLKNN_test.m): k nearest "
                      "other training rows by Euclidean distance, ties to the lower row index; "
                      "prior (s + Σy)/(2s + m); P(E_j|H) = (s + c[j])/(s(k+1) + Σc); "
                      "posterior ≥ 0.5 predicts the label; metrics by spec A",
        "params": {"k": K, "s": S},
        "train": info_tr,
        "test": info_te,
        "metrics": metrics,
        "prior": model["prior"].tolist(),
        "c1": model["c1"].tolist(),
        "c0": model["c0"].tolist(),
        "first_posteriors": post[:N_POST].tolist(),
        "first_predictions": pred[:N_POST].tolist(),
        "first_neighbours": nb_te[:N_POST].tolist(),
        "posterior_column_sums": post.sum(axis=0).tolist(),
        "predicted_ones_per_label": pred.sum(axis=0).tolist(),
        "checks": checks,
    }
    path = common.write_json("mlknn_yeast.json", doc)
    print("ML-kNN yeast-train → yeast-test, k = 10, s = 1")
    for k in common.ML_KEYS:
        print(f"  {k:18s} {metrics[k]!r}")
    print(f"  prior {np.round(model['prior'], 4).tolist()}")
    for k, v in checks.items():
        print(f"  {k}: {v}")
    print(f"  timing: fit {t1 - t0:.2f} s, predict {t2 - t1:.2f} s, metrics {t3 - t2:.2f} s, "
          f"sklearn check {t4 - t3:.2f} s (numbers at {q} labels)")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
