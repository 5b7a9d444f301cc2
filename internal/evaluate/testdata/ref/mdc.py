#!/usr/bin/python3
"""Reference multi-dimensional k-NN vote (spec D of README.md) on edm with
its 10 predefined folds, written to mdc_edm.json.

One classifier per class variable: the k = 10 nearest training rows by
Euclidean distance (explicit differences), ties in distance to the lower
row index, and the class with most votes among them, ties between classes
to the LOWEST class index. edm.csv's class codes 1..3 become the category
index of their position among the sorted distinct values (0-based).
edm-folds.csv lines are fold,split,row with row 1-based into edm.csv.

Row order: each fold's training and test rows are taken in ascending row
order, so "lower row index" means the same in the data set and within the
training part. The script also runs with the fold file's own order
(position in that list breaking ties) and reports whether that changes
anything.

    /usr/bin/python3 internal/evaluate/testdata/ref/mdc.py
"""

import csv
import os
import sys
import time

import numpy as np

import common

GENERATOR = "internal/evaluate/testdata/ref/mdc.py"
K = 10


def read_folds(rel):
    """{fold: {"train": [0-based rows], "test": [...]}} in file order."""
    folds = {}
    with open(os.path.join(common.DATASETS, rel), newline="") as f:
        r = csv.reader(f)
        assert next(r) == ["fold", "split", "row"]
        for fold, split, row in r:
            folds.setdefault(int(fold), {"train": [], "test": []})[split].append(int(row) - 1)
    return folds


def knn_vote(Xtr, Ytr, Xte, classes, k):
    """Predictions (n_te×q), and diagnostics: exact distance ties across the
    k-th/(k+1)-th boundary, the smallest non-zero relative gap there, and
    the number of (row, variable) votes decided by the class tie rule."""
    n_te, q = Xte.shape[0], Ytr.shape[1]
    pred = np.zeros((n_te, q), dtype=int)
    boundary_ties = vote_ties = 0
    min_gap = np.inf
    for i, x in enumerate(Xte):
        d = Xtr - x
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        order = np.argsort(dist, kind="stable")
        nb = order[:k]
        dk, dk1 = dist[order[k - 1]], dist[order[k]]
        if dk1 == dk:
            boundary_ties += 1
        elif dk > 0:
            min_gap = min(min_gap, (dk1 - dk) / dk)
        for j in range(q):
            votes = np.bincount(Ytr[nb, j], minlength=classes[j])
            pred[i, j] = int(np.argmax(votes))  # first maximum: lowest class
            if np.sum(votes == votes.max()) > 1:
                vote_ties += 1
    return pred, boundary_ties, float(min_gap), vote_ties


def main():
    X, Y, classes, info = common.load_csv("edm/edm.csv", multidim=True)
    folds = read_folds("edm/edm-folds.csv")
    assert sorted(folds) == list(range(1, 11))
    assert classes == [3, 3]
    t0 = time.perf_counter()
    out = []
    file_order_changes = higher_index_changes = highest_class_changes = 0
    for f in sorted(folds):
        tr, te = sorted(folds[f]["train"]), sorted(folds[f]["test"])
        assert not set(tr) & set(te) and len(tr) + len(te) == X.shape[0]
        pred, bties, gap, vties = knn_vote(X[tr], Y[tr], X[te], classes, K)
        m = common.multidim_metrics(Y[te], pred)
        # The fold file's order: ties broken by position in that list.
        tr_f, te_f = folds[f]["train"], folds[f]["test"]
        pred_f, _, _, _ = knn_vote(X[tr_f], Y[tr_f], X[te_f], classes, K)
        back = pred_f[np.argsort(te_f, kind="stable")]  # into ascending row order
        changed = int(np.sum(np.any(back != pred, axis=1)))
        file_order_changes += changed
        # How discriminating the data are: the opposite tie rules.
        rev = tr[::-1]  # distance ties to the HIGHER row index
        pred_r, _, _, _ = knn_vote(X[rev], Y[rev], X[te], classes, K)
        higher_index_changes += int(np.sum(np.any(pred_r != pred, axis=1)))
        flip = np.array(classes)[None, :] - 1 - Y  # vote ties to the HIGHEST class
        pred_h, _, _, _ = knn_vote(X[tr], flip[tr], X[te], classes, K)
        pred_h = np.array(classes)[None, :] - 1 - pred_h
        highest_class_changes += int(np.sum(np.any(pred_h != pred, axis=1)))
        out.append({"fold": f, "n_train": len(tr), "n_test": len(te), "metrics": m,
                    "predictions": pred.tolist(),
                    "checks": {"test_rows_with_exact_distance_tie_at_kth_neighbour": bties,
                               "min_nonzero_relative_gap_kth_to_next": gap,
                               "votes_decided_by_lowest_class_rule": vties,
                               "test_rows_changed_by_fold_file_row_order": changed}})
    keys = common.MD_KEYS
    vals = {k: np.array([o["metrics"][k] for o in out]) for k in keys}
    mean = {k: float(np.mean(vals[k])) for k in keys}
    std1 = {k: float(np.std(vals[k], ddof=1)) for k in keys}
    std0 = {k: float(np.std(vals[k], ddof=0)) for k in keys}
    t1 = time.perf_counter()
    doc = {
        "generator": GENERATOR,
        "software": common.SOFTWARE,
        "definition": "spec D of README.md: per class variable the majority class among the "
                      "k nearest training rows (Euclidean; distance ties to the lower row "
                      "index; vote ties to the lowest class index); fold rows in ascending "
                      "order; metrics by spec A (multi-dimensional)",
        "params": {"k": K},
        "data": info,
        "folds_file": {"file": "edm/edm-folds.csv", "sha256": common.sha256("edm/edm-folds.csv")},
        "folds": out,
        "mean": mean,
        "std_sample": std1,
        "std_population": std0,
        "checks": {"test_rows_changed_by_fold_file_row_order": file_order_changes,
                   "test_rows_changed_if_distance_ties_went_to_higher_index": higher_index_changes,
                   "test_rows_changed_if_vote_ties_went_to_highest_class": highest_class_changes},
    }
    path = common.write_json("mdc_edm.json", doc)
    print("k-NN vote (k = 10) on edm, 10 predefined folds")
    for o in out:
        print(f"  fold {o['fold']:2d} ({o['n_train']}/{o['n_test']}): "
              + " ".join(f"{k}={o['metrics'][k]:.6f}" for k in keys) + f"  {o['checks']}")
    print("  mean " + " ".join(f"{k}={mean[k]!r}" for k in keys))
    print("  std (ddof=1) " + " ".join(f"{k}={std1[k]:.6f}" for k in keys))
    print(f"  test rows changed when ties follow the fold file's row order: {file_order_changes}")
    print(f"  test rows changed if distance ties went to the higher row index: {higher_index_changes}")
    print(f"  test rows changed if vote ties went to the highest class: {highest_class_changes}")
    print(f"  timing {t1 - t0:.2f} s")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
