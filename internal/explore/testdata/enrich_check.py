#!/usr/bin/python3
"""Goldens for explore.Enrich: the whole answer of a selection, from scipy.

Rerun from the repository root with Debian's python (numpy 1.24, scipy 1.10.1),
not a pyenv python:

    /usr/bin/python3 internal/explore/testdata/enrich_check.py

It rewrites internal/explore/testdata/enrich.json: a random 2 000-row,
12-label data set (label frequencies from 0.5 % to 60 %, one label on no row,
one on every row but rows 10 to 19, which have no label at all), and selections of it, each with
the answer Enrich must give: per label k, K, lift = (k/n)/(K/N) (0 when K = 0
or n = 0), p = scipy.stats.hypergeom.sf(k - 1, N, K, n) = P(X >= k), q = the
Benjamini-Hochberg adjustment of the p's over the labels (statsmodels'
multipletests(method='fdr_bh') in numpy), sorted by p, then q, then name;
the label sets of the selected rows by count, ties by their label indices.
"""
import json
import os
from collections import Counter

import numpy as np
import scipy
from scipy import stats

rng = np.random.default_rng(14)
N, Q = 2000, 12
names = ["amazed-surprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely",
         "angry-aggresive", "never", "usual", "mood=up", "mood=down", "tempo=fast", "rare"]
freq = np.array([0.30, 0.45, 0.20, 0.15, 0.10, 0.05, 0.0, 1.0, 0.60, 0.35, 0.25, 0.005])
Y = rng.uniform(size=(N, Q)) < freq
Y[10:20] = False
rows = [[int(j) for j in np.flatnonzero(Y[i])] for i in range(N)]


def bh(p):
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    s = p[order]
    raw = s / (np.arange(1, len(s) + 1) / float(len(s)))
    adj = np.minimum.accumulate(raw[::-1])[::-1]
    adj[adj > 1] = 1
    out = np.empty_like(adj)
    out[order] = adj
    return out


def answer(sel, max_sets):
    n = len(sel)
    K = Y.sum(axis=0)
    k = Y[sel].sum(axis=0) if n else np.zeros(Q, dtype=int)
    p = [float(stats.hypergeom.sf(int(k[j]) - 1, N, int(K[j]), n)) for j in range(Q)]
    q = bh(p)
    labels = []
    for j in range(Q):
        lift = (k[j] / n) / (K[j] / N) if K[j] > 0 and n > 0 else 0.0
        labels.append({"label": names[j], "in_selection": int(k[j]), "overall": int(K[j]),
                       "lift": float(lift), "p": p[j], "q": float(q[j])})
    labels.sort(key=lambda e: (e["p"], e["q"], e["label"]))
    sets = Counter(tuple(rows[i]) for i in sel)
    ordered = sorted(sets.items(), key=lambda kv: (-kv[1], kv[0]))
    if max_sets >= 0:
        ordered = ordered[:max_sets]
    return {"count": n, "labels": labels,
            "label_sets": [{"labels": [names[j] for j in s], "count": c} for s, c in ordered]}


selections = []
# rows carrying "sad-lonely" or "quiet-still" three times as often as the rest
w = np.where(Y[:, 4] | Y[:, 3], 3.0, 1.0)
sel = rng.choice(N, size=300, replace=False, p=w / w.sum())
selections.append({"note": "300 rows biased to sad-lonely and quiet-still", "rows": [int(i) for i in sel], "max_sets": 10})
# a tight cluster: nearly every row with "rare"
sel = list(np.flatnonzero(Y[:, 11])) + list(rng.choice(np.flatnonzero(~Y[:, 11]), size=3, replace=False))
selections.append({"note": "the rare label's rows and three others", "rows": [int(i) for i in sel], "max_sets": -1})
selections.append({"note": "1 000 rows at random", "rows": [int(i) for i in rng.choice(N, 1000, replace=False)], "max_sets": 25})
selections.append({"note": "every row", "rows": list(range(N)), "max_sets": 5})
selections.append({"note": "five rows", "rows": [3, 1999, 0, 700, 12], "max_sets": 0})
selections.append({"note": "rows with no label and others", "rows": [15, 10, 11, 5, 19, 6], "max_sets": 3})
for s in selections:
    s["want"] = answer(s["rows"], s["max_sets"])

out = {"scipy": scipy.__version__, "numpy": np.__version__, "names": names, "rows": rows, "selections": selections}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "enrich.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"), allow_nan=False)
    f.write("\n")
print("wrote", path)
