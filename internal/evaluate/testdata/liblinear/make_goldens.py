#!/usr/bin/python3
"""LIBLINEAR's own answers for the classifier "svm" (LIBLINEAR's -s 3), written to
small.json, yeast.json, scene.json and song.json beside this script.

Every SVM here is trained by Debian's liblinear-tools 2.3.0, the command
line programs, one process per problem:

    liblinear-train -s 3 -c 1 -B 1 -e 0.0001 -q train.txt model.txt
    liblinear-predict test.txt model.txt predictions.txt

(-s 3: L2-regularised L1-loss SVC, dual; -B 1: the bias feature 1 appended
to every row; -e 0.0001: the stopping tolerance of the product's default).
The data files are written in LIBLINEAR's sparse format with every feature
written (zeros too, so that LIBLINEAR sees all D features), floats as Python
repr (exact). Each file records, per problem, LIBLINEAR's labels in its
own order (first appearance in the training data; for the two classes −1
and +1 the +1 first), its weights as the model file prints them (%.17g:
exact), the sweeps it reports (#iter) and whether it stopped at its limit
of 1000 sweeps, and LIBLINEAR's predicted label of every test row as
liblinear-predict writes it. Decision values are not stored: the test
computes them from these weights.

For yeast and scene the checks also hold LIBLINEAR against itself with the
training rows in reverse order (rows_reversed): many of these problems stop
at 1000 sweeps before the tolerance, where the weights then change by up to
2.3 % of the largest and 4 scene predictions change. That is why the
product follows LIBLINEAR's sweeps (its order of the rows, glibc's rand()
from seed 1 in every process) rather than its own, and why the goldens are
made one liblinear-train process per problem: python3-liblinear, which
trains every problem in one process, continues rand() from one problem to
the next and so gives other weights from its second problem on (tried on
yeast's labels 0, 4, 6, 5 in one process: the first equal to the last bit,
then 1.3e-4, 4.7e-4 and 8.3e-3 of the largest weight apart).
The output is byte-for-byte reproducible (no timings in the files).

Multi-label data: binary relevance, one problem per label with the label
present as +1 and absent as −1 (LIBLINEAR puts +1 first, so its weights
are those of "present"). Multi-dimensional data: one multi-class problem
per class variable with the class indices 0…K−1 as LIBLINEAR's labels, so
LIBLINEAR's own one-vs-rest (one SVM per class, the largest decision value;
one SVM for a two-class variable, the first-seen class as +1).

Data: yeast and scene on their Mulan training/test parts; song on each of
its 10 predefined folds (song-folds.csv; rows 0-based, ascending); small
synthetic sets (seeded numpy) with a label constant on the training rows,
a two-class variable, a four-class variable and a variable whose class 2 is
missing from the training rows.

    /usr/bin/python3 internal/evaluate/testdata/liblinear/make_goldens.py

Needs liblinear-tools (apt-get install liblinear-tools) and numpy; reads
../shared/datasets like the scripts in ../ref.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ref"))
import common  # noqa: E402  (the shared CSV reader and data location)
from mdc import read_folds  # noqa: E402  (fold,split,row files)

GENERATOR = "internal/evaluate/testdata/liblinear/make_goldens.py"
C, EPS = 1.0, 0.0001
TRAIN = ["liblinear-train", "-s", "3", "-c", f"{C:g}", "-B", "1", "-e", f"{EPS:g}", "-q"]


def software():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "liblinear-tools"], capture_output=True, text=True)
    return {"liblinear-tools": out.stdout.strip(), "numpy": np.__version__, "python": common.SOFTWARE["python"]}


def write_problem(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            f.write(str(int(yi)) + " " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(xi)) + "\n")


def read_model(path, d):
    """LIBLINEAR's model file: its labels and weights, (d+1)×nr_w (the bias
    weight last), transposed here to nr_w rows of d+1."""
    with open(path) as f:
        lines = f.read().split("\n")
    head = {}
    i = 0
    while lines[i] != "w":
        k, _, v = lines[i].partition(" ")
        head[k] = v
        i += 1
    labels = [int(v) for v in head.get("label", "").split()] if "label" in head else []
    assert int(head["nr_feature"]) == d, (head, d)
    assert float(head["bias"]) == 1.0
    rows = [[float(v) for v in line.split()] for line in lines[i + 1:i + 1 + d + 1]]
    w = np.array(rows).T  # nr_w × (d+1)
    return labels, w


def sweeps(stdout):
    """#iter of each solver run in LIBLINEAR's log (one per SVM)."""
    out = []
    for line in stdout.splitlines():
        if "#iter" in line:
            out.append(int(line.split("=")[1]))
    return out


def liblinear(tmp, Xtr, ytr, Xte):
    """Trains one LIBLINEAR problem and predicts Xte: labels, weights,
    sweeps per SVM, predictions."""
    tr, te, model, pred = (os.path.join(tmp, n) for n in ("train.txt", "test.txt", "model.txt", "pred.txt"))
    write_problem(tr, Xtr, ytr)
    write_problem(te, Xte, np.zeros(len(Xte)))
    # Without -q, to read the sweeps of each SVM from the log.
    run = subprocess.run([a for a in TRAIN if a != "-q"] + [tr, model], capture_output=True, text=True, check=True)
    labels, w = read_model(model, Xtr.shape[1])
    subprocess.run(["liblinear-predict", te, model, pred], capture_output=True, text=True, check=True)
    with open(pred) as f:
        p = [int(float(v)) for v in f.read().split()]
    it = sweeps(run.stdout)
    return {"labels": labels, "weights": w.tolist(), "sweeps": it,
            "max_iter_reached": [n >= 1000 for n in it]}, p


def multilabel(tmp, Xtr, Ytr, Xte):
    """Binary relevance: one LIBLINEAR problem per label (+1 present)."""
    problems, pred = [], np.zeros((len(Xte), Ytr.shape[1]), dtype=int)
    for l in range(Ytr.shape[1]):
        prob, p = liblinear(tmp, Xtr, np.where(Ytr[:, l] == 1, 1, -1), Xte)
        prob["label"] = l
        problems.append(prob)
        pred[:, l] = (np.array(p) == 1).astype(int)
    return problems, pred


def multidim(tmp, Xtr, Ytr, Xte):
    """One multi-class LIBLINEAR problem per class variable."""
    problems, pred = [], np.zeros((len(Xte), Ytr.shape[1]), dtype=int)
    for j in range(Ytr.shape[1]):
        prob, p = liblinear(tmp, Xtr, Ytr[:, j], Xte)
        prob["variable"] = j
        problems.append(prob)
        pred[:, j] = p
    return problems, pred


def decisions(problem, X):
    w = np.array(problem["weights"])
    return X @ w[:, :-1].T + w[:, -1]


def margin_summary(problems, X):
    """The smallest |decision value| (binary) or gap between the two largest
    (multi-class) over the test rows: how near LIBLINEAR's predictions come
    to a tie."""
    least = np.inf
    for prob in problems:
        dv = decisions(prob, X)
        if dv.shape[1] == 1:
            least = min(least, float(np.min(np.abs(dv))))
        else:
            s = np.sort(dv, axis=1)
            least = min(least, float(np.min(s[:, -1] - s[:, -2])))
    return least


def rows_text(P):
    return ["".join(str(int(v)) for v in r) for r in P]


def write(name, doc):
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")
    return path


def base(definition):
    return {"generator": GENERATOR, "software": software(), "command": " ".join(TRAIN[:-1]),
            "params": {"c": C, "eps": EPS, "bias": 1}, "definition": definition}


def order_dependence(tmp, Xtr, Ytr, Xte, problems, pred):
    """LIBLINEAR against itself: the same problems with the training rows
    in reverse order (so its sweeps visit them in another order). Where it
    stops at 1000 sweeps before the tolerance, the weights and some
    predictions change: the reason the product follows LIBLINEAR's order
    of the rows and its rand() instead of its own."""
    rev = slice(None, None, -1)
    other, opred = multilabel(tmp, Xtr[rev], Ytr[rev], Xte)
    wdiff = 0.0
    for a, b in zip(problems, other):
        wa, wb = np.array(a["weights"]), np.array(b["weights"])
        wdiff = max(wdiff, float(np.max(np.abs(wa - wb))) / max(1.0, float(np.max(np.abs(wa)))))
    changed = int(np.sum(opred != pred))
    capped = [p["label"] for p in problems if p["max_iter_reached"][0]]
    return {"what": "LIBLINEAR on the training rows in reverse order", "largest_relative_weight_change": wdiff,
            "test_predictions_changed": changed, "labels_at_max_iter": capped}


def mulan(tmp, name):
    Xtr, Ytr, _, itr = common.load_csv(f"{name}/{name}-train.csv")
    Xte, Yte, _, ite = common.load_csv(f"{name}/{name}-test.csv")
    t0 = time.perf_counter()
    problems, pred = multilabel(tmp, Xtr, Ytr, Xte)
    dt = time.perf_counter() - t0
    reordered = order_dependence(tmp, Xtr, Ytr, Xte, problems, pred)
    scores = np.column_stack([decisions(p, Xte)[:, 0] for p in problems])
    m, _ = common.multilabel_metrics(Yte, pred, scores)
    m.update(common.example_precision_recall(Yte, pred))
    doc = base("binary relevance on the original features: one LIBLINEAR problem per label, +1 = present")
    doc.update({"kind": "multi-label", "train": itr, "test": ite, "problems": problems,
                "predictions": rows_text(pred), "metrics": m,
                "checks": {"least_abs_decision": margin_summary(problems, Xte),
                           "problems_at_max_iter": sum(p["max_iter_reached"][0] for p in problems),
                           "rows_reversed": reordered}})
    print(f"{name}: {len(problems)} labels, sweeps {[p['sweeps'][0] for p in problems]}, "
          f"hamming_loss {m['hamming_loss']:.6f}, least |decision| {doc['checks']['least_abs_decision']:.3g}, {dt:.1f} s; "
          f"rows reversed: {reordered}")
    return write(f"{name}.json", doc)


def song(tmp):
    X, Y, classes, info = common.load_csv("song/song.csv", multidim=True)
    folds = read_folds("song/song-folds.csv")
    out = []
    t0 = time.perf_counter()
    for f in sorted(folds):
        tr, te = sorted(folds[f]["train"]), sorted(folds[f]["test"])
        problems, pred = multidim(tmp, X[tr], Y[tr], X[te])
        m = common.multidim_metrics(Y[te], pred)
        out.append({"fold": f, "train": len(tr), "test": len(te), "problems": problems,
                    "predictions": rows_text(pred), "metrics": m,
                    "checks": {"least_decision_gap": margin_summary(problems, X[te])}})
    dt = time.perf_counter() - t0
    mean = {k: float(np.mean([o["metrics"][k] for o in out])) for k in common.MD_KEYS}
    doc = base("per class variable LIBLINEAR's one-vs-rest on the original features, class indices 0…K−1 "
               "(position among the sorted codes) as its labels")
    doc.update({"kind": "multi-dimensional", "data": info,
                "folds_file": {"file": "song/song-folds.csv", "sha256": common.sha256("song/song-folds.csv")},
                "folds": out, "mean": mean})
    print(f"song: 10 folds × 3 variables, mean {mean}, sweeps {[p['sweeps'] for p in out[0]['problems']]} (fold 1), {dt:.1f} s")
    return write("song.json", doc)


def small(tmp):
    """Synthetic sets small enough to read: multi-label with a label absent
    from the training rows and one present in all of them; multi-dimensional
    with a two-class, a four-class variable and one whose class 2 the
    training rows lack."""
    rng = np.random.default_rng(17)
    n, nte, d = 60, 25, 3
    X = rng.normal(size=(n + nte, d)) * [1.0, 2.0, 0.5] + [0.5, -1.0, 2.0]
    score = X @ np.array([[1.0, -0.5, 0.2, 0.0, 0.0], [0.3, 0.8, -0.4, 0.0, 0.0], [-0.2, 0.1, 0.9, 0.0, 0.0]])
    Yml = (score + rng.normal(scale=0.7, size=score.shape) > [0.5, -0.8, 1.5, 0, 0]).astype(int)
    Yml[:n, 3] = 0  # never present in training
    Yml[:n, 4] = 1  # always present in training
    lin = X @ np.array([1.0, 0.7, -0.3]) + rng.normal(scale=0.8, size=n + nte)
    two = (lin > 1.0).astype(int)
    four = np.digitize(X[:, 0] - 0.5 * X[:, 2] + rng.normal(scale=0.5, size=n + nte), [-1.5, -0.5, 0.3])
    gap = np.digitize(X[:, 1] + rng.normal(scale=0.5, size=n + nte), [-2.0, -0.5])  # 0, 1, 2
    gap[:n][gap[:n] == 2] = 1  # class 2 only among the test rows
    Ymd = np.column_stack([two, four, gap])
    Xtr, Xte = X[:n], X[n:]
    mlp, mlpred = multilabel(tmp, Xtr, Yml[:n], Xte)
    mdp, mdpred = multidim(tmp, Xtr, Ymd[:n], Xte)
    doc = base("seeded synthetic rows: binary relevance on 5 labels (label 3 absent from every training row, "
               "label 4 present in every one) and LIBLINEAR's one-vs-rest on 3 class variables (2 classes; 4 "
               "classes; 3 classes of which class 2 is absent from the training rows)")
    doc.update({"kind": "small", "seed": 17, "x_train": Xtr.tolist(), "x_test": Xte.tolist(),
                "multilabel": {"y_train": Yml[:n].tolist(), "y_test": Yml[n:].tolist(), "problems": mlp,
                               "predictions": rows_text(mlpred)},
                "multidim": {"classes": [2, 4, 3], "y_train": Ymd[:n].tolist(), "y_test": Ymd[n:].tolist(),
                             "problems": mdp, "predictions": rows_text(mdpred)}})
    print(f"small: multi-label labels {[p['labels'] for p in mlp]}, multi-dimensional labels {[p['labels'] for p in mdp]}")
    return write("small.json", doc)


def main():
    if shutil.which("liblinear-train") is None:
        sys.exit("liblinear-train is missing: apt-get install liblinear-tools")
    with tempfile.TemporaryDirectory() as tmp:
        for path in (small(tmp), mulan(tmp, "yeast"), mulan(tmp, "scene"), song(tmp)):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
