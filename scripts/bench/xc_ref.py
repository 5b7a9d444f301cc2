#!/usr/bin/python3
"""The scipy and scikit-learn side of `go run ./cmd/benchcmp`'s XC rows (see README.md here).

Times pca at d on the training file of a generated data set in the
Extreme Classification Repository's format the way a scipy or
scikit-learn user would when the features are too wide for a Gram matrix
(AmazonCat-13K's 203 882 columns): the centred features as a
LinearOperator (Xc·v = X·v − 1·(μᵀv), Xcᵀu = Xᵀu − μ·(1ᵀu); Xc is never
formed), its d leading singular triplets, then the projection
Xc·V = X·V − 1·(μᵀV). The eigenvalues printed are σ², those of XcᵀXc, as
the Go pca's (internal/analysis, the matrix-free route of METHODS.md).

    --solver svds        scipy.sparse.linalg.svds (ARPACK, tol=0: to
                         machine precision, as the Go route's residuals)
    --solver randomized  randomized_svd's algorithm with its defaults:
                         sklearn.utils.extmath.randomized_range_finder
                         (Halko, Martinsson and Tropp's, with power
                         iterations) for d + 10 columns, n_iter 7 when
                         d < 0.1·min(N, D), else 4; then B = QᵀXc and
                         the SVD of B (randomized_svd itself cannot take
                         a LinearOperator: it computes Q.T @ M)

    python3 xc_ref.py info
    python3 xc_ref.py run --work pca --xc train.txt --solver svds --d 100 --reps 1 --top 100

`run` reads the file (untimed: sklearn's load_svmlight_file on the lines
after the "N D q" header, labels as comma-separated lists), then times the
work as numpy_ref.py does (its time_runs) and prints the same JSON:
{"times": [...], "warmup": s or null, "eig": [the --top leading
eigenvalues of the last run]}; `info` prints numpy_ref.py's info and
scipy's and scikit-learn's versions.
"""

import argparse
import io
import json
import platform
import sys

import numpy as np
import scipy
import scipy.linalg
import scipy.sparse.linalg
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.utils.extmath import randomized_range_finder

import numpy_ref as ref


def load_xc(path):
    """The features of an XC file as CSR (float64), and their column count."""
    with open(path, "rb") as f:
        n, d, _ = (int(v) for v in f.readline().split())
        X, _ = load_svmlight_file(io.BytesIO(f.read()), n_features=d, multilabel=True, zero_based=True)
    if X.shape[0] != n:
        raise SystemExit("%s: the header says %d rows, the file has %d" % (path, n, X.shape[0]))
    return X.tocsr(), d


def centred(X, mu):
    """Xc = X − 1·μᵀ as a LinearOperator, by the sparse products."""
    n, d = X.shape

    def matmat(V):
        V = V.reshape(d, -1)
        return X @ V - (mu @ V)[None, :]

    def rmatmat(U):
        U = U.reshape(n, -1)
        return X.T @ U - np.outer(mu, U.sum(axis=0))

    return scipy.sparse.linalg.LinearOperator(
        (n, d), matvec=lambda v: matmat(v).ravel(), rmatvec=lambda u: rmatmat(u).ravel(),
        matmat=matmat, rmatmat=rmatmat, dtype=np.float64)


def pca(X, d, solver):
    """The d leading right singular vectors V of Xc and σ², then Xc·V."""
    mu = np.asarray(X.mean(axis=0)).ravel()
    A = centred(X, mu)
    if solver == "svds":
        _, s, Vt = scipy.sparse.linalg.svds(A, k=d)
    else:
        size = d + 10
        n_iter = 7 if d < 0.1 * min(X.shape) else 4
        Q = randomized_range_finder(A, size=size, n_iter=n_iter, power_iteration_normalizer="auto", random_state=1)
        B = A.rmatmat(Q).T  # QᵀXc, size × D
        _, s, Vt = scipy.linalg.svd(B, full_matrices=False)
        s, Vt = s[:d], Vt[:d]
    order = np.argsort(s)[::-1]
    V = Vt[order].T
    _ = X @ V - (mu @ V)[None, :]
    return s[order] ** 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info", help="print the numpy, BLAS, scipy and scikit-learn in use as JSON")
    r = sub.add_parser("run", help="time one work and print JSON")
    r.add_argument("--work", required=True, choices=["pca"])
    r.add_argument("--xc", required=True, help="the training file, in the repository's text format")
    r.add_argument("--solver", required=True, choices=["svds", "randomized"])
    r.add_argument("--d", type=int, default=100, help="target dimension: the singular triplets computed (default 100)")
    r.add_argument("--reps", type=int, default=1, help="timed runs (default 1)")
    r.add_argument("--warmup-under", type=float, default=5.0,
                   help="seconds: a shorter first run is an untimed warm-up (default 5)")
    r.add_argument("--top", type=int, default=100, help="leading eigenvalues to print (default 100)")
    args = parser.parse_args()

    if args.cmd == "info":
        np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS is loaded
        json.dump({"numpy": np.__version__, "python": platform.python_version(), "blas": ref.blas_info(),
                   "scipy": scipy.__version__, "sklearn": sklearn.__version__}, sys.stdout)
        print()
        return

    X, _ = load_xc(args.xc)
    out = {}

    def run():
        out["eig"] = pca(X, args.d, args.solver)

    times, warmup = ref.time_runs(args.reps, args.warmup_under, run)
    json.dump({"times": times, "warmup": warmup, "eig": [float(v) for v in out["eig"][:args.top]]}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
