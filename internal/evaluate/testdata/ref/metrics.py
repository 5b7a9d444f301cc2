#!/usr/bin/python3
"""Reference values for evaluate.MultiLabelMetrics and
evaluate.MultiDimMetrics (reference_test.go), written to metrics.json.

Multi-label cases of two kinds:

* "sklearn" cases: seeded random Y, continuous scores S (no ties, with
  probability 1, asserted) and P = (S ≥ 0.5); every row has at least one
  and fewer than q labels, so the skip rules of spec A never apply. The
  stored values are scikit-learn's: hamming_loss, label_ranking_loss,
  label_ranking_average_precision_score, coverage_error − 1, f1_score
  (micro, macro, samples; zero_division=1), accuracy_score (subset
  accuracy), jaccard_score(average="samples", zero_division=1)
  (example accuracy), precision_score and recall_score
  (average="samples", zero_division=1: example_precision and
  example_recall); one_error, which scikit-learn lacks, comes from the
  numpy implementation in common.py. The script stops unless that numpy
  implementation of spec A agrees with scikit-learn on every metric.
* "numpy-spec-A" cases: ties in the scores, rows with no label and with all
  labels, a label nobody has or predicts, and data where no instance
  qualifies for the ranking metrics. Only the numpy implementation of spec A
  (common.multilabel_metrics, the ML-kNN MATLAB conventions) computes them:
  scikit-learn's conventions differ on exactly these points. Their
  example_precision and example_recall, which have no tie convention, are
  cross-checked with scikit-learn (zero_division=1): equal on every case.

Multi-dimensional cases: seeded random class indices and predictions;
numpy (common.multidim_metrics), cross-checked with sklearn's
accuracy_score per variable and on whole rows.

    /usr/bin/python3 internal/evaluate/testdata/ref/metrics.py
"""

import sys
import time

import numpy as np
from sklearn.metrics import (accuracy_score, coverage_error, f1_score, hamming_loss,
                             jaccard_score, label_ranking_average_precision_score,
                             label_ranking_loss, precision_score, recall_score)

import common

GENERATOR = "internal/evaluate/testdata/ref/metrics.py"


def random_labels(rng, n, q, p):
    """n×q Bernoulli(p) rows, each redrawn until it has 1…q−1 labels."""
    Y = np.zeros((n, q), dtype=int)
    for i in range(n):
        while True:
            y = (rng.random(q) < p).astype(int)
            if 0 < y.sum() < q:
                Y[i] = y
                break
    return Y


def sklearn_case(name, seed, n, q, unused_label=False):
    """unused_label: the last label is neither present nor predicted
    (TP = FP = FN = 0: it counts 1 in macro_f1)."""
    rng = np.random.default_rng(seed)
    Y = random_labels(rng, n, q, 0.35)
    if unused_label:
        Y[:, :q - 1] = random_labels(rng, n, q - 1, 0.35)
        Y[:, q - 1] = 0
    # Continuous scores, shifted up on relevant labels so that the metrics
    # are neither trivial nor random: still continuous, so no ties.
    S = (rng.random((n, q)) + 0.5 * Y) / 1.5
    if unused_label:
        S[:, q - 1] *= 0.49 / 1.5  # below 0.5: never predicted
    for i in range(n):
        assert len(np.unique(S[i])) == q, "tied scores"
    P = (S >= 0.5).astype(int)
    m = {
        "hamming_loss": float(hamming_loss(Y, P)),
        "coverage": float(coverage_error(Y, S)) - 1,
        "ranking_loss": float(label_ranking_loss(Y, S)),
        "average_precision": float(label_ranking_average_precision_score(Y, S)),
        "subset_accuracy": float(accuracy_score(Y, P)),
        "example_accuracy": float(jaccard_score(Y, P, average="samples", zero_division=1)),
        "example_f1": float(f1_score(Y, P, average="samples", zero_division=1)),
        "micro_f1": float(f1_score(Y, P, average="micro", zero_division=1)),
        "macro_f1": float(f1_score(Y, P, average="macro", zero_division=1)),
        "example_precision": float(precision_score(Y, P, average="samples", zero_division=1)),
        "example_recall": float(recall_score(Y, P, average="samples", zero_division=1)),
    }
    own, kept = common.multilabel_metrics(Y, P, S)
    own.update(common.example_precision_recall(Y, P))
    assert kept == n
    m["one_error"] = own["one_error"]
    diff = common.max_abs_diff(m, own, common.ML_KEYS + common.PR_KEYS)
    assert diff < 1e-14, (name, diff, m, own)
    m = {k: m[k] for k in common.ML_KEYS + common.PR_KEYS}
    return {
        "name": name,
        "source": "scikit-learn " + common.SOFTWARE["sklearn"] + " (one_error: numpy, spec A; "
                  "sklearn has none); coverage = coverage_error − 1",
        "seed": seed, "n": n, "q": q,
        "y": Y.tolist(), "pred": P.tolist(), "scores": S.tolist(),
        "metrics": m,
        "checks": {"numpy_spec_a_vs_sklearn_max_abs_diff": diff},
    }


def opposite_ties(Y, P, S):
    """The metrics with the opposite tie conventions (lower label index
    ranked better, last maximum as top label): spec A on the columns in
    reverse order."""
    return common.multilabel_metrics(Y[:, ::-1], P[:, ::-1], S[:, ::-1])[0]


def strict_ranking_loss(Y, S):
    """Ranking loss counting only S_a < S_b (tied pairs not counted): to
    show that a case's ties make spec A's S_a ≤ S_b matter."""
    tot, kept = 0.0, 0
    for y, s in zip(Y, S):
        rel, irr = s[y == 1], s[y == 0]
        if len(rel) and len(irr):
            kept += 1
            tot += np.sum(rel[:, None] < irr[None, :]) / (len(rel) * len(irr))
    return tot / kept if kept else 0.0


def numpy_case(name, Y, P, S, seed=None, expect_differs=()):
    Y, P, S = np.asarray(Y, dtype=int), np.asarray(P, dtype=int), np.asarray(S, dtype=float)
    m, kept = common.multilabel_metrics(Y, P, S)
    m.update(common.example_precision_recall(Y, P))
    sk = {"example_precision": float(precision_score(Y, P, average="samples", zero_division=1)),
          "example_recall": float(recall_score(Y, P, average="samples", zero_division=1))}
    pr_diff = common.max_abs_diff(m, sk, common.PR_KEYS)
    assert pr_diff < 1e-14, (name, pr_diff, sk)
    opp = opposite_ties(Y, P, S)
    differs = sorted(k for k in common.ML_KEYS if opp[k] != m[k])
    if strict_ranking_loss(Y, S) != m["ranking_loss"]:
        differs.append("ranking_loss (counting S_a < S_b only)")
    for k in expect_differs:
        assert k in differs, (name, k, "does not depend on the tie convention here")
    sizes = Y.sum(axis=1)
    return {
        "name": name,
        "source": "numpy implementation of spec A only (common.py), NOT scikit-learn: "
                  "this case exercises the ML-kNN MATLAB conventions (stable-sort ranks, "
                  "first maximum as top label, skipped rows, empty sets)",
        "seed": seed, "n": int(Y.shape[0]), "q": int(Y.shape[1]),
        "y": Y.tolist(), "pred": P.tolist(), "scores": S.tolist(),
        "metrics": m,
        "checks": {
            "ranking_instances_kept": kept,
            "rows_without_labels": int(np.sum(sizes == 0)),
            "rows_with_all_labels": int(np.sum(sizes == Y.shape[1])),
            "metrics_sensitive_to_tie_conventions": differs,
            "example_precision_recall_vs_sklearn_zero_division_1_max_abs_diff": pr_diff,
        },
    }


def ties_case():
    rng = np.random.default_rng(7)
    n, q = 40, 6
    Y = (rng.random((n, q)) < 0.4).astype(int)
    S = rng.integers(0, 5, size=(n, q)) / 4  # 0, .25, .5, .75, 1: many ties
    Y[0] = 0                      # no label
    Y[1] = 1                      # all labels
    Y[2] = 0                      # no label and (below) nothing predicted
    S[2] = [0.0, 0.25, 0.25, 0.0, 0.25, 0.0]
    S[3] = 0.75                   # all scores tied
    Y[3] = [0, 1, 0, 1, 0, 0]
    S[4] = 0.5                    # all tied at the threshold
    Y[4] = [1, 0, 0, 0, 0, 0]
    P = (S >= 0.5).astype(int)
    return numpy_case("ties-and-edge-rows", Y, P, S, seed=7,
                      expect_differs=("one_error", "coverage", "average_precision",
                                      "ranking_loss (counting S_a < S_b only)"))


def no_ranking_rows_case():
    # Every row has no label or all labels: one_error, ranking_loss and
    # average_precision are undefined (null); coverage still counts.
    Y = [[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]
    P = [[0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
    S = [[0.1, 0.9, 0.2, 0.2], [0.6, 0.7, 0.3, 0.8], [0.2, 0.2, 0.2, 0.2],
         [0.5, 0.5, 0.5, 0.5], [0.0, 0.4, 0.1, 0.3]]
    return numpy_case("no-instance-qualifies-for-ranking", Y, P, S)


def all_empty_case():
    # No labels, nothing predicted: every F1 and accuracy is 1 by the
    # empty-set rules; every ranking metric, coverage too, is undefined (null).
    Y = np.zeros((3, 5), dtype=int)
    S = [[0.1, 0.2, 0.3, 0.4, 0.45], [0.3, 0.3, 0.3, 0.1, 0.0], [0.2, 0.1, 0.0, 0.4, 0.3]]
    return numpy_case("all-empty", Y, Y, S)


def multidim_case(name, seed, n, classes, p_right):
    rng = np.random.default_rng(seed)
    q = len(classes)
    Y = np.column_stack([rng.integers(0, k, size=n) for k in classes])
    P = Y.copy()
    for j, k in enumerate(classes):
        wrong = rng.random(n) > p_right
        P[wrong, j] = rng.integers(0, k, size=int(wrong.sum()))
    m = common.multidim_metrics(Y, P)
    # Cross-checks with scikit-learn.
    hs = float(np.mean([accuracy_score(Y[:, j], P[:, j]) for j in range(q)]))
    # Whole rows as single class labels (sklearn has no multiclass-multioutput accuracy).
    em = float(accuracy_score([",".join(map(str, r)) for r in Y.tolist()],
                              [",".join(map(str, r)) for r in P.tolist()]))
    d1, d2 = abs(hs - m["hamming_score"]), abs(em - m["exact_match"])
    assert d1 < 1e-15 and d2 == 0, (name, d1, d2)
    r = np.sum(Y == P, axis=1)
    return {
        "name": name,
        "source": "numpy (spec A), hamming_score and exact_match cross-checked with "
                  "sklearn accuracy_score per variable / on whole rows",
        "seed": seed, "n": n, "q": q, "classes": list(classes),
        "y": Y.tolist(), "pred": P.tolist(),
        "metrics": m,
        "checks": {"sklearn_hamming_score_abs_diff": d1, "sklearn_exact_match_abs_diff": d2,
                   "rows_by_variables_right": np.bincount(r, minlength=q + 1).tolist()},
    }


def main():
    t0 = time.perf_counter()
    ml = [
        sklearn_case("sklearn-60x7", 1, 60, 7),
        sklearn_case("sklearn-40x3", 2, 40, 3),
        sklearn_case("sklearn-120x14", 3, 120, 14),
        sklearn_case("sklearn-30x5-unused-label", 4, 30, 5, unused_label=True),
        ties_case(),
        no_ranking_rows_case(),
        all_empty_case(),
    ]
    md = [
        multidim_case("random-50-classes-3-2-4", 11, 50, [3, 2, 4], 0.7),
        multidim_case("random-30-classes-3-3", 12, 30, [3, 3], 0.6),
        multidim_case("random-20-single-variable", 13, 20, [4], 0.5),
    ]
    doc = {
        "generator": GENERATOR,
        "software": common.SOFTWARE,
        "definition": "spec A of README.md: ML-kNN MATLAB conventions; coverage is the "
                      "Zhang & Zhou one (scikit-learn's coverage_error minus 1)",
        "multilabel_cases": ml,
        "multidim_cases": md,
    }
    path = common.write_json("metrics.json", doc)
    dt = time.perf_counter() - t0
    for c in ml + md:
        print(f"{c['name']:36s} " + " ".join(f"{k}={v:.6g}" if v is not None else f"{k}=undefined" for k, v in c["metrics"].items()))
        print(f"{'':36s} checks {c['checks'] if 'rows_by_variables_right' not in c['checks'] else {k: v for k, v in c['checks'].items() if k != 'rows_by_variables_right'}}")
    print(f"wrote {path} in {dt:.2f} s")


if __name__ == "__main__":
    sys.exit(main())
