#!/usr/bin/python3
"""Reference values for metric and nonmetric mds (internal/analysis/smacof.go,
smacof_test.go), from scikit-learn's MDS and smacof.

Run with Debian's interpreter (scikit-learn 1.2.1, numpy 1.24):

    /usr/bin/python3 internal/analysis/testdata/ref/smacof.py

It writes smacof.json next to itself (floats as repr), in a second.

Each case is a small data set drawn here (rows X), an initial
configuration Z0 and:

* metric: sklearn.manifold.smacof(metric=True, init=Z0, n_init=1,
  max_iter=300, eps=1e-3) — the configuration, its n_iter and stress_ —
  which the Go iteration from the same Z0 must follow; and MDS(n_init=4)
  from sklearn's random starts, whose stress the Go random starts must
  come near.
* nonmetric: scikit-learn 1.2.1's non-metric iteration keeps the
  distances themselves as the disparities of the lower triangle (its
  `disparities = dis_flat.copy()` fills only the upper triangle with the
  monotone regression), so its Guttman matrix is not symmetric; Go's is
  the textbook one (Borg & Groenen 2005, ch. 9). So the configuration
  from Z0 is compared with `nonmetric_textbook` below, which is
  scikit-learn's loop with symmetric disparities (sklearn's
  IsotonicRegression for the monotone step); sklearn's own MDS(metric=False)
  gives a stress-1 the Go random starts must reach within a tolerance.

Stress of a configuration Z, as smacof.go reports it: d_ij = ‖z_i − z_j‖,
d̂_ij = δ_ij (metric) or the isotonic regression of d_ij on δ_ij
(nonmetric, unscaled), raw = Σ_{i<j} (d_ij − d̂_ij)², stress_1 =
√(raw / Σ_{i<j} d_ij²) (Kruskal 1964).
"""

import json
import os
import platform

import numpy as np
import sklearn
from sklearn.isotonic import IsotonicRegression
from sklearn.manifold import MDS, smacof
from sklearn.metrics import euclidean_distances

HERE = os.path.dirname(os.path.abspath(__file__))
SOFTWARE = {"python": platform.python_version(), "numpy": np.__version__, "sklearn": sklearn.__version__}


def upper(m):
    return m[np.triu_indices(m.shape[0], 1)]


def stress(Z, delta, metric):
    d = upper(euclidean_distances(Z))
    dl = upper(delta)
    if metric:
        hat = dl
    else:
        hat = IsotonicRegression().fit_transform(dl, d)
    raw = float(((d - hat) ** 2).sum())
    return raw, float(np.sqrt(raw / (d ** 2).sum()))


def nonmetric_textbook(delta, Z, max_iter=300, eps=1e-3):
    """scikit-learn 1.2.1's _smacof_single(metric=False) with the monotone
    regression in both triangles (symmetric disparities), scaled so that
    Σ_{i<j} d̂² = N(N−1)/2."""
    n = delta.shape[0]
    iu = np.triu_indices(n, 1)
    dl = delta[iu]
    old = None
    for it in range(max_iter):
        dis = euclidean_distances(Z)
        hat_u = IsotonicRegression().fit_transform(dl, dis[iu])
        hat_u *= np.sqrt(len(hat_u) / (hat_u ** 2).sum())
        hat = np.zeros((n, n))
        hat[iu] = hat_u
        hat = hat + hat.T
        s = ((dis[iu] - hat_u) ** 2).sum()
        dis[dis == 0] = 1e-5
        ratio = hat / dis
        np.fill_diagonal(ratio, 0)
        B = -ratio
        B[np.arange(n), np.arange(n)] += ratio.sum(axis=1)
        Z = B @ Z / n
        norms = np.sqrt((Z ** 2).sum(axis=1)).sum()
        if old is not None and old - s / norms < eps:
            break
        old = s / norms
    return Z, it + 1


def case(name, X, d, seed):
    rng = np.random.RandomState(seed)
    delta = euclidean_distances(X)
    Z0 = rng.uniform(size=(X.shape[0], d))
    Zm, sm, itm = smacof(delta, metric=True, n_components=d, init=Z0.copy(), n_init=1, max_iter=300, eps=1e-3,
                         return_n_iter=True, normalized_stress=False)
    Zn, itn = nonmetric_textbook(delta, Z0.copy())
    mm = MDS(n_components=d, metric=True, n_init=4, max_iter=300, eps=1e-3, random_state=seed,
             dissimilarity="euclidean", normalized_stress=False).fit(X)
    mn = MDS(n_components=d, metric=False, n_init=4, max_iter=300, eps=1e-3, random_state=seed,
             dissimilarity="euclidean", normalized_stress=False).fit(X)
    return {
        "name": name, "x": X.tolist(), "d": d, "init": Z0.tolist(),
        "metric_from_init": {"z": Zm.tolist(), "n_iter": int(itm), "sklearn_stress": float(sm),
                             "stress": stress(Zm, delta, True)},
        "nonmetric_from_init": {"z": Zn.tolist(), "n_iter": int(itn), "stress": stress(Zn, delta, False)},
        "metric_sklearn_mds": {"stress": stress(mm.embedding_, delta, True), "n_init": 4, "z": mm.embedding_.tolist()},
        "nonmetric_sklearn_mds": {"stress": stress(mn.embedding_, delta, False), "n_init": 4},
    }


def main():
    rng = np.random.RandomState(7)
    # three clusters in 5 dimensions, 36 rows
    centres = rng.normal(scale=3, size=(3, 5))
    blobs = np.vstack([c + rng.normal(size=(12, 5)) for c in centres])
    # a curve in 4 dimensions, 30 rows: nonmetric has an order to keep
    t = np.sort(rng.uniform(0, 3, size=30))
    curve = np.column_stack([np.cos(t), np.sin(t), t ** 2 / 3, np.exp(t / 3)]) + rng.normal(scale=0.05, size=(30, 4))
    cases = [case("blobs d=2", blobs, 2, 1), case("blobs d=3", blobs, 3, 2), case("curve d=2", curve, 2, 3)]
    out = {"generator": "internal/analysis/testdata/ref/smacof.py", "software": SOFTWARE, "cases": cases}
    with open(os.path.join(HERE, "smacof.json"), "w") as f:
        json.dump(out, f)
    for c in cases:
        print(c["name"], "metric n_iter", c["metric_from_init"]["n_iter"], "stress", c["metric_from_init"]["stress"],
              "| nonmetric n_iter", c["nonmetric_from_init"]["n_iter"], c["nonmetric_from_init"]["stress"],
              "| sklearn MDS", c["metric_sklearn_mds"]["stress"], c["nonmetric_sklearn_mds"]["stress"])


if __name__ == "__main__":
    main()
