#!/usr/bin/python3
"""Independent reference values for kpca and kmddm (kernel_golden_test.go).

Computes, with numpy, scipy and scikit-learn only and without reading any
Go code, on a small generated data set stored in the output itself:

  * kpca: sklearn.decomposition.KernelPCA(eigen_solver="dense") for the
    rbf, poly and linear kernels: eigenvalues_ (those of the centred kernel
    HKH), fit_transform of the training rows and transform of test rows.
    Cross-checked against numpy's eigh of HKH.
  * kmddm: the dual of MDDM (seed 000, eq. 3-4) written from its equations:
    with P = Phi^T alpha, maximise tr(alpha^T K H L H K alpha) subject to
    alpha^T K alpha = I, i.e. K H L H K alpha = lambda K alpha. Solved on
    the numerically non-zero spectrum of the *uncentred* K = U Lam U^T
    (eigenvalues above 1e-10 times the largest): alpha = U Lam^{-1/2} beta,
    beta the eigenvectors of Lam^{1/2} U^T H L H U Lam^{1/2}. L = Y Y^T
    (linear label kernel) or (Y Y^T + 1)^2 (quadratic). A row x projects
    to (phi(x) - mean phi)^T P = (k(x) - kbar)^T alpha, kbar the column
    means of K. Cross-checked: the residual of K H L H K alpha = lambda K
    alpha and alpha^T K alpha = I are asserted.

Run with Debian's interpreter (numpy 1.24, scipy 1.10, sklearn 1.2):

    /usr/bin/python3 internal/analysis/testdata/ref/kernel.py

It writes kernel.json next to itself (byte-for-byte reproducible: compact
JSON, floats as Python repr) and prints its cross-checks.
"""

import json
import os
import platform

import numpy as np
import scipy
import sklearn
from sklearn.decomposition import KernelPCA
from sklearn.metrics.pairwise import pairwise_kernels

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "kernel.json")

N_TRAIN, N_TEST, D, Q = 120, 40, 5, 4
N_COMP = 6  # kpca components stored (4 for the linear kernel: rank D = 5)

KERNELS = [
    {"kernel": "rbf", "gamma": 0.3},
    {"kernel": "poly", "gamma": 0.2, "degree": 3, "coef0": 1.0},
    {"kernel": "linear"},
]


def data():
    """A generated multi-label set: labels depend non-linearly on the
    features (distance to centres, a product), so the kernels matter."""
    rng = np.random.default_rng(20081)
    n = N_TRAIN + N_TEST
    x = rng.normal(size=(n, D)) + np.array([1.0, -0.5, 0.0, 2.0, 0.3])
    y = np.zeros((n, Q))
    y[:, 0] = np.sum((x[:, :2] - [1.0, -0.5]) ** 2, axis=1) < 1.5
    y[:, 1] = x[:, 2] * x[:, 3] > 0.5
    y[:, 2] = np.sin(2 * x[:, 4]) + 0.3 * rng.normal(size=n) > 0
    y[:, 3] = (y[:, 0] + y[:, 2] + (x[:, 0] > 1.2)) >= 2
    return x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:]


def kern(spec, a, b):
    kw = {k: v for k, v in spec.items() if k != "kernel"}
    return pairwise_kernels(a, b, metric=spec["kernel"], **kw)


def kpca(spec, x, xte):
    """sklearn's KernelPCA, and numpy's eigh of HKH as the second route."""
    kw = {k: v for k, v in spec.items() if k != "kernel"}
    nc = 4 if spec["kernel"] == "linear" else N_COMP
    m = KernelPCA(n_components=nc, kernel=spec["kernel"], eigen_solver="dense", **kw)
    ztr = m.fit_transform(x)
    zte = m.transform(xte)
    vals = m.eigenvalues_
    n = len(x)
    h = np.eye(n) - np.ones((n, n)) / n
    kc = h @ kern(spec, x, x) @ h
    w, u = np.linalg.eigh(kc)
    w, u = w[::-1], u[:, ::-1]
    rel = np.max(np.abs(w[:nc] - vals) / vals)
    assert rel < 1e-10, rel
    # The second route's training projections, sqrt(lambda) u, up to sign.
    z2 = u[:, :nc] * np.sqrt(w[:nc])
    dev = max(min(np.max(np.abs(z2[:, j] - s * ztr[:, j])) for s in (1, -1)) for j in range(nc))
    assert dev < 1e-8 * np.max(np.abs(ztr)), dev
    return {
        "eigenvalues": vals.tolist(),
        "train": ztr.T.tolist(),
        "test": zte.T.tolist(),
        "checks": {"eigh_eigenvalues_rel": float(rel), "eigh_train_abs": float(dev)},
    }


def kmddm(spec, label_kernel, x, y, xte):
    """The dual problem K H L H K alpha = lambda K alpha, from seed 000's
    eq. 3-4 with P = Phi^T alpha (see the module docstring)."""
    n = len(x)
    k = kern(spec, x, x)
    k = (k + k.T) / 2
    h = np.eye(n) - np.ones((n, n)) / n
    l = y @ y.T
    if label_kernel == "quadratic":
        l = (l + 1) ** 2
    lam, u = np.linalg.eigh(k)
    keep = lam > 1e-10 * lam[-1]
    lam, u = lam[keep], u[:, keep]
    phi = u * np.sqrt(lam)  # K = Phi Phi^T on the kept spectrum
    s = phi.T @ h @ l @ h @ phi
    s = (s + s.T) / 2
    vals, beta = np.linalg.eigh(s)
    vals, beta = vals[::-1], beta[:, ::-1]
    r = int(np.sum(vals > 1e-10 * vals[0]))
    vals, beta = vals[:r], beta[:, :r]
    alpha = (u / np.sqrt(lam)) @ beta
    # Cross-checks of the dual equations themselves.
    a = k @ h @ l @ h @ k
    res = np.linalg.norm(a @ alpha - (k @ alpha) * vals) / (np.linalg.norm(a) * np.linalg.norm(alpha))
    orth = np.max(np.abs(alpha.T @ k @ alpha - np.eye(r)))
    assert res < 1e-9, res
    assert orth < 1e-8, orth
    kbar = k.mean(axis=0)
    ztr = (k - kbar) @ alpha
    zte = (kern(spec, xte, x) - kbar) @ alpha
    return {
        "label_kernel": label_kernel,
        "eigenvalues": vals.tolist(),
        "train": ztr.T.tolist(),
        "test": zte.T.tolist(),
        "kernel_rank": int(keep.sum()),
        "checks": {"dual_residual": float(res), "alpha_K_alpha_minus_I": float(orth)},
    }


def main():
    x, y, xte = data()
    out = {
        "generator": "internal/analysis/testdata/ref/kernel.py",
        "software": {"python": platform.python_version(), "numpy": np.__version__,
                     "scipy": scipy.__version__, "sklearn": sklearn.__version__},
        "x_train": x.tolist(), "y_train": y.tolist(), "x_test": xte.tolist(),
        "kpca": [], "kmddm": [],
    }
    for spec in KERNELS:
        c = kpca(spec, x, xte)
        c["params"] = spec
        out["kpca"].append(c)
        print("kpca", spec, c["checks"])
    for spec, lk in [(s, "linear") for s in KERNELS] + [(KERNELS[0], "quadratic")]:
        c = kmddm(spec, lk, x, y, xte)
        c["params"] = spec
        out["kmddm"].append(c)
        print("kmddm", spec, lk, c["checks"], "eigenvalues", len(c["eigenvalues"]))
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
