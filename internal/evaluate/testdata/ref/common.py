"""Shared pieces of the evaluation reference scripts (metrics.py, mlknn.py,
lsdr.py, mdc.py): reading the shared data sets, an independent numpy
implementation of the multi-label and multi-dimensional metrics (spec A of
README.md, the conventions of the ML-kNN authors' MATLAB package), and
writing the JSON files.

Nothing here reads Go code. Run the scripts with Debian's interpreter:
/usr/bin/python3 (numpy 1.24, scipy 1.10, scikit-learn 1.2).
"""

import csv
import hashlib
import json
import os
import platform

import numpy as np
import scipy
import sklearn

HERE = os.path.dirname(os.path.abspath(__file__))
# internal/evaluate/testdata/ref → the folder holding the repository and shared/.
DATASETS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "..", "shared", "datasets"))

SOFTWARE = {
    "python": platform.python_version(),
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "sklearn": sklearn.__version__,
}

ML_KEYS = ["hamming_loss", "one_error", "coverage", "ranking_loss", "average_precision",
           "subset_accuracy", "example_accuracy", "example_f1", "micro_f1", "macro_f1"]
MD_KEYS = ["hamming_score", "exact_match", "sub_exact_match"]
# Seed 004's instance-based precision and recall, in metrics.py
# only, so that the other scripts' files stay as they were.
PR_KEYS = ["example_precision", "example_recall"]


# ---------------------------------------------------------------- data

def sha256(rel):
    with open(os.path.join(DATASETS, rel), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_csv(rel, multidim=False):
    """Reads shared/datasets/<rel>: columns named "label:…" are labels, the
    rest features. Python's float() is correctly rounded, as is Go's
    strconv.ParseFloat, so X is bit for bit what the Go loader reads.
    Multi-label labels must be 0/1. Multi-dimensional class codes are mapped
    to 0…K−1 in the order of the sorted distinct values of each column.
    Returns X, Y (int), classes (None for multi-label) and a description
    {file, sha256, n, d, q}."""
    path = os.path.join(DATASETS, rel)
    with open(path, "rb") as f:
        raw = f.read()
    rows = list(csv.reader(raw.decode("utf-8").splitlines()))
    header, body = rows[0], rows[1:]
    lab = [j for j, h in enumerate(header) if h.startswith("label:")]
    feat = [j for j, h in enumerate(header) if not h.startswith("label:")]
    X = np.array([[float(r[j]) for j in feat] for r in body])
    Yraw = np.array([[float(r[j]) for j in lab] for r in body])
    classes = None
    if multidim:
        Y = np.zeros(Yraw.shape, dtype=int)
        classes = []
        for j in range(Yraw.shape[1]):
            vals = np.unique(Yraw[:, j])  # sorted distinct values
            Y[:, j] = np.searchsorted(vals, Yraw[:, j])
            classes.append(len(vals))
    else:
        assert set(np.unique(Yraw)) <= {0.0, 1.0}, rel
        Y = Yraw.astype(int)
    info = {"file": rel, "sha256": hashlib.sha256(raw).hexdigest(),
            "n": int(X.shape[0]), "d": int(X.shape[1]), "q": int(Y.shape[1])}
    if classes is not None:
        info["classes"] = classes
    return X, Y, classes, info


def write_json(name, doc):
    """Compact JSON, floats as Python repr (exact round trip), one file next
    to the scripts; returns its path."""
    path = os.path.join(HERE, name)
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


# ------------------------------------------------------ spec A: metrics

def ranks(s):
    """Rank of every label of one instance, ML-kNN MATLAB convention: with
    pos(l) the 1-based position of l in a STABLE ascending sort of the
    scores, rank(l) = q − pos(l) + 1. Among tied scores the lower label
    index gets the larger (worse) rank."""
    q = len(s)
    order = np.argsort(s, kind="stable")
    pos = np.empty(q, dtype=int)
    pos[order] = np.arange(1, q + 1)
    return q - pos + 1


def multilabel_metrics(Y, P, S):
    """The ten multi-label metrics of spec A (README.md) for true labels Y,
    predictions P (N×q, 0/1) and scores S (N×q). Plain loops: this is the
    definition, not a fast implementation. Also returns how many instances
    the ranking metrics (one_error, ranking_loss, average_precision) kept."""
    Y = np.asarray(Y, dtype=int)
    P = np.asarray(P, dtype=int)
    S = np.asarray(S, dtype=float)
    n, q = Y.shape
    out = {}
    out["hamming_loss"] = int(np.sum(Y != P)) / (n * q)

    kept = 0
    one_err = 0
    rl_sum = 0.0
    ap_sum = 0.0
    worst_sum = 0
    for i in range(n):
        y, s = Y[i], S[i]
        r = ranks(s)
        rel = np.flatnonzero(y == 1)
        irr = np.flatnonzero(y == 0)
        # coverage: every instance with a relevant label.
        worst_sum += int(r[rel].max()) if len(rel) else 0
        if len(rel) == 0 or len(rel) == q:
            continue
        kept += 1
        top = int(np.argmax(s))  # first index of the maximum
        if y[top] == 0:
            one_err += 1
        bad = 0
        for a in rel:
            for b in irr:
                if s[a] <= s[b]:
                    bad += 1
        rl_sum += bad / (len(rel) * len(irr))
        prec = 0.0
        for l in rel:
            prec += int(np.sum(r[rel] <= r[l])) / int(r[l])
        ap_sum += prec / len(rel)
    # Undefined (None, JSON null) with no instance to average over: MATLAB's
    # 0/0, never a made-up 0, 1 or a coverage of -1.
    labelled = int(np.sum(Y.sum(axis=1) > 0))
    out["one_error"] = one_err / kept if kept else None
    out["coverage"] = worst_sum / labelled - 1 if labelled else None
    out["ranking_loss"] = rl_sum / kept if kept else None
    out["average_precision"] = ap_sum / kept if kept else None

    out["subset_accuracy"] = int(np.sum(np.all(Y == P, axis=1))) / n
    acc = 0.0
    f1 = 0.0
    for i in range(n):
        inter = int(np.sum((Y[i] == 1) & (P[i] == 1)))
        union = int(np.sum((Y[i] == 1) | (P[i] == 1)))
        size = int(Y[i].sum() + P[i].sum())
        acc += inter / union if union else 1.0
        f1 += 2 * inter / size if size else 1.0
    out["example_accuracy"] = acc / n
    out["example_f1"] = f1 / n
    tp = np.sum((Y == 1) & (P == 1), axis=0)
    fp = np.sum((Y == 0) & (P == 1), axis=0)
    fn = np.sum((Y == 1) & (P == 0), axis=0)
    den = 2 * int(tp.sum()) + int(fp.sum()) + int(fn.sum())
    out["micro_f1"] = 2 * int(tp.sum()) / den if den else 1.0
    macro = 0.0
    for l in range(q):
        d = 2 * int(tp[l]) + int(fp[l]) + int(fn[l])
        macro += 2 * int(tp[l]) / d if d else 1.0
    out["macro_f1"] = macro / q
    return out, kept


def example_precision_recall(Y, P):
    """Spec A's instance-based precision and recall (seed 004): the mean
    over rows of |Y∩P|/|P| and |Y∩P|/|Y|; a row predicting nothing has
    precision 1, a row without labels recall 1 (nothing claimed, nothing to
    find: scikit-learn's zero_division=1)."""
    Y = np.asarray(Y, dtype=int)
    P = np.asarray(P, dtype=int)
    n = Y.shape[0]
    prec = rec = 0.0
    for i in range(n):
        inter = int(np.sum((Y[i] == 1) & (P[i] == 1)))
        ny, np_ = int(Y[i].sum()), int(P[i].sum())
        prec += inter / np_ if np_ else 1.0
        rec += inter / ny if ny else 1.0
    return {"example_precision": prec / n, "example_recall": rec / n}


def multidim_metrics(Y, P):
    """Spec A's multi-dimensional metrics: r_i = class variables predicted
    right; hamming_score = mean r_i/q, exact_match = mean(r_i = q),
    sub_exact_match = mean(r_i ≥ q − 1)."""
    Y = np.asarray(Y, dtype=int)
    P = np.asarray(P, dtype=int)
    n, q = Y.shape
    r = np.sum(Y == P, axis=1)
    return {
        # mean of r_i/q, written as Σr_i/(N·q): the correctly rounded value.
        "hamming_score": int(np.sum(r)) / (n * q),
        "exact_match": int(np.sum(r == q)) / n,
        "sub_exact_match": int(np.sum(r >= q - 1)) / n,
    }


def max_abs_diff(a, b, keys):
    return max(abs(a[k] - b[k]) for k in keys)
