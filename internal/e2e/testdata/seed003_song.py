#!/usr/bin/python3
"""Seed 003's BR rows on song (Jia & Zhang, SDeM, tables 2-4: BR-SDeM,
BR-PCA), as LIBLINEAR gives them, written to seed003_song.json for
TestSeed003Song (seed003_test.go).

Song (785 rows, 98 features, 3 class variables of 3 classes) on its 10
predefined folds (song-folds.csv; each fold's rows ascending). On each
fold's training rows, computed here with numpy from docs/METHODS.md, not
read from the product:

* ori: the features as given;
* pca: the top d′ eigenvectors P of XcᵀXc (numpy.linalg.eigh), Xc the
  training rows minus their column means;
* sdem: the top d′ left singular vectors P of XcᵀZ (numpy.linalg.svd), Z
  the one-hot class matrix of the training rows (ΣK_j = 9 columns);

with d′ = ΣK_j − q = 6, and every row (training and test) projected as
(x − training mean)·P. The signs of the vectors are numpy's: a column's
sign, like any rotation of P, changes nothing for an L2-regularised SVM
with the bias regularised too (its sums are the same to the last bit
under a sign, and equal up to rounding under a rotation).

Then one LIBLINEAR problem per class variable (its own one-vs-rest over
the classes 0…2), by Debian's liblinear-tools 2.3.0, one process each:

    liblinear-train -s 3 -c 1 -B 1 -e 0.0001 train.txt model.txt
    liblinear-predict test.txt model.txt predictions.txt

and the metrics of seed 003 (eq. 8-10) on each fold's test rows, averaged
over the 10 folds. For information, the same with LIBLINEAR's default
tolerance (-e 0.1), and the paper's Song row.

    /usr/bin/python3 internal/e2e/testdata/seed003_song.py
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.normpath(os.path.join(HERE, "..", "..", "evaluate", "testdata"))
sys.path[:0] = [os.path.join(EVAL, "ref"), os.path.join(EVAL, "liblinear")]
import common  # noqa: E402  (the CSV reader, the metrics of spec A)
from make_goldens import write_problem  # noqa: E402  (LIBLINEAR's data files)
from mdc import read_folds  # noqa: E402

GENERATOR = "internal/e2e/testdata/seed003_song.py"
PAPER = {  # seed 003, tables 2-4, Song (6/98), BR columns
    "sdem": {"hamming_score": 0.777, "exact_match": 0.461, "sub_exact_match": 0.875},
    "pca": {"hamming_score": 0.773, "exact_match": 0.458, "sub_exact_match": 0.865},
}


def projections(Xtr, Ytr, classes, d):
    mean = Xtr.mean(axis=0)
    Xc = Xtr - mean
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)
    pca = vecs[:, np.argsort(vals)[::-1][:d]]
    Z = np.zeros((len(Ytr), sum(classes)))
    off = np.cumsum([0] + classes[:-1])
    for j in range(len(classes)):
        Z[np.arange(len(Ytr)), off[j] + Ytr[:, j]] = 1
    U, s, _ = np.linalg.svd(Xc.T @ Z, full_matrices=False)
    assert np.all(np.diff(s[:d]) < 0) and s[d - 1] > 1e-8 * s[0], s  # d′ distinct non-zero values
    return mean, {"pca": pca, "sdem": U[:, :d]}


def liblinear(tmp, Xtr, ytr, Xte, eps):
    tr, te, model, pred = (os.path.join(tmp, n) for n in ("train.txt", "test.txt", "model.txt", "pred.txt"))
    write_problem(tr, Xtr, ytr)
    write_problem(te, Xte, np.zeros(len(Xte)))
    run = subprocess.run(["liblinear-train", "-s", "3", "-c", "1", "-B", "1", "-e", f"{eps:g}", tr, model],
                         capture_output=True, text=True, check=True)
    subprocess.run(["liblinear-predict", te, model, pred], capture_output=True, text=True, check=True)
    with open(pred) as f:
        p = np.array([int(float(v)) for v in f.read().split()])
    sweeps = [int(line.split("=")[1]) for line in run.stdout.splitlines() if "#iter" in line]
    return p, sweeps


def evaluate(tmp, X, Y, classes, folds, eps):
    per = {m: [] for m in ("ori", "sdem", "pca")}
    capped = {m: 0 for m in per}
    total = {m: 0 for m in per}
    for f in sorted(folds):
        tr, te = sorted(folds[f]["train"]), sorted(folds[f]["test"])
        mean, P = projections(X[tr], Y[tr], classes, sum(classes) - len(classes))
        feats = {"ori": (X[tr], X[te])}
        for m, p in P.items():
            feats[m] = ((X[tr] - mean) @ p, (X[te] - mean) @ p)
        for m, (ftr, fte) in feats.items():
            pred = np.zeros((len(te), Y.shape[1]), dtype=int)
            for j in range(Y.shape[1]):
                pred[:, j], sweeps = liblinear(tmp, ftr, Y[tr, j], fte, eps)
                capped[m] += sum(s >= 1000 for s in sweeps)
                total[m] += len(sweeps)
            per[m].append(common.multidim_metrics(Y[te], pred))
    mean = {m: {k: float(np.mean([r[k] for r in rows])) for k in common.MD_KEYS} for m, rows in per.items()}
    std = {m: {k: float(np.std([r[k] for r in rows], ddof=1)) for k in common.MD_KEYS} for m, rows in per.items()}
    return per, mean, std, {m: f"{capped[m]} of {total[m]}" for m in per}


def main():
    X, Y, classes, info = common.load_csv("song/song.csv", multidim=True)
    folds = read_folds("song/song-folds.csv")
    assert classes == [3, 3, 3] and sorted(folds) == list(range(1, 11))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        per, mean, std, capped = evaluate(tmp, X, Y, classes, folds, 0.0001)
        _, mean_default, _, capped_default = evaluate(tmp, X, Y, classes, folds, 0.1)
    dt = time.perf_counter() - t0
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "liblinear-tools"], capture_output=True, text=True).stdout
    doc = {
        "generator": GENERATOR,
        "software": {"liblinear-tools": version, "numpy": np.__version__, "python": common.SOFTWARE["python"]},
        "definition": "seed 003's BR protocol on song's 10 predefined folds: ori, and pca and sdem at d′ = ΣK_j − q = 6 "
                      "computed here with numpy (docs/METHODS.md), each class variable by liblinear-train -s 3 -c 1 -B 1 "
                      "-e 0.0001 (one process per variable); metrics of seed 003 eq. 8-10 per fold, mean and sample std "
                      "over the folds",
        "data": info,
        "folds_file": {"file": "song/song-folds.csv", "sha256": common.sha256("song/song-folds.csv")},
        "d": sum(classes) - len(classes),
        "folds": per,
        "mean": mean,
        "std": std,
        "svms_at_max_iter": capped,
        "info_liblinear_default_eps_0.1": {"mean": mean_default, "svms_at_max_iter": capped_default},
        "info_paper_song_br": PAPER,
    }
    path = os.path.join(HERE, "seed003_song.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")
    for m in ("ori", "sdem", "pca"):
        print(f"{m:5s} eps 1e-4: " + " ".join(f"{k} {mean[m][k]:.4f} ± {std[m][k]:.3f}" for k in common.MD_KEYS)
              + f"  (SVMs at 1000 sweeps: {capped[m]})")
        print(f"{'':5s} eps 0.1:  " + " ".join(f"{k} {mean_default[m][k]:.4f}" for k in common.MD_KEYS)
              + f"  (SVMs at 1000 sweeps: {capped_default[m]})")
        if m in PAPER:
            print(f"{'':5s} paper:    " + " ".join(f"{k} {PAPER[m][k]:.3f}" for k in common.MD_KEYS))
    print(f"wrote {path} in {dt:.1f} s")


if __name__ == "__main__":
    main()
