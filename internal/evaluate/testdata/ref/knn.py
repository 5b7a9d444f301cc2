#!/usr/bin/python3
"""Reference values for evaluate.KNN, the multi-label k-NN vote (classifier
"knn"; spec K of README.md), written to knn.json.

Written from the specification alone, not from the Go code: a test row's
neighbours are its k nearest training rows by Euclidean distance, found by
scikit-learn's NearestNeighbors (algorithm="brute"); the score of label l is
the number of those neighbours having l (the sum of their label rows,
unweighted); the predicted labels are those with score > k/2.

The data are random, seeded, and have no ties in distance at the k-th
neighbour (the script stops otherwise), so the neighbours do not depend on
a tie rule; an own numpy search by explicit differences must find the same
ones. Cases: Gaussian features (dense), mostly zero features (the Go test
also gives them in CSR form), k = 1, 4 (even: k/2 votes are not enough) and
5.

    /usr/bin/python3 internal/evaluate/testdata/ref/knn.py
"""

import numpy as np
from sklearn.neighbors import NearestNeighbors

from common import SOFTWARE, write_json

GENERATOR = "internal/evaluate/testdata/ref/knn.py"


def data(rng, ntr, nte, d, q, density):
    x = rng.standard_normal((ntr + nte, d))
    if density < 1:
        x *= rng.random((ntr + nte, d)) < density
    y = (rng.random((ntr, q)) < 0.35).astype(int)
    return x[:ntr], y, x[ntr:]


def own_neighbours(xtr, xte, k):
    """k nearest by explicit differences, and the smallest relative gap
    between the k-th and (k+1)-th distance."""
    out, gap = [], np.inf
    for a in xte:
        diff = xtr - a
        dist = np.einsum("ij,ij->i", diff, diff)
        order = np.argsort(dist, kind="stable")
        out.append(order[:k])
        dk, dk1 = dist[order[k - 1]], dist[order[k]]
        gap = min(gap, (dk1 - dk) / max(dk, np.finfo(float).tiny))
    return np.array(out), gap


def case(name, seed, ntr, nte, d, q, density, k):
    rng = np.random.default_rng(seed)
    xtr, ytr, xte = data(rng, ntr, nte, d, q, density)
    nn = NearestNeighbors(n_neighbors=k, algorithm="brute", metric="euclidean").fit(xtr)
    _, nb = nn.kneighbors(xte)
    own, gap = own_neighbours(xtr, xte, k)
    if not (own == nb).all():
        raise SystemExit(f"{name}: NearestNeighbors and the own search disagree")
    if not gap > 1e-9:
        raise SystemExit(f"{name}: a tie in distance at the k-th neighbour (gap {gap}); choose another seed")
    scores = ytr[nb].sum(axis=1)
    pred = (2 * scores > k).astype(int)
    print(f"{name}: k = {k}, {ntr} → {nte} rows, d = {d}, q = {q}, smallest k-th gap {gap:.3g}, "
          f"{int(pred.sum())} labels predicted, {int((pred.sum(axis=1) == 0).sum())} rows predict none")
    return {
        "name": name, "k": k,
        "xtrain": xtr.tolist(), "ytrain": ytr.tolist(), "xtest": xte.tolist(),
        "neighbours": nb.tolist(), "scores": scores.tolist(), "pred": pred.tolist(),
    }


def main():
    cases = [
        case("gaussian k=1", 1, 40, 12, 4, 6, 1, 1),
        case("gaussian k=4", 2, 60, 15, 5, 7, 1, 4),
        case("gaussian k=5", 3, 60, 15, 3, 7, 1, 5),
        case("mostly zeros k=5", 4, 80, 20, 12, 5, 0.3, 5),
    ]
    path = write_json("knn.json", {"generator": GENERATOR, "software": SOFTWARE, "cases": cases})
    print("wrote", path)


if __name__ == "__main__":
    main()
