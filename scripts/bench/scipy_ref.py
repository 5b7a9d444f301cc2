#!/usr/bin/python3
"""The scipy sparse side of `go run ./cmd/benchcmp`'s wide rows (see README.md here).

Times, on the CSR arrays the command generated (indptr, indices, data as
.npy files), the algebra of the Go methods of internal/analysis the way a
scipy user would write it for sparse features, never making X dense:
`X.T @ X` on the CSR matrix minus N·μμᵀ for XcᵀXc, `X.T @ Y` minus
μ·(1ᵀY) for XcᵀY, `scipy.sparse.linalg.eigsh(k=d)` for the d leading
eigenpairs, `scipy.sparse.linalg.svds(k=d)` where the method is a
low-rank SVD (mddmp), and the projection X·P − 1·μᵀP. eigsh and svds run
with their default tolerance (tol=0: machine precision). Each function says
which Go function and which numpy_ref.py function it mirrors.

    python3 scipy_ref.py info
    python3 scipy_ref.py run --work pca --csr indptr.npy,indices.npy,data.npy --cols 5000 --y Y.npy --d 20 --reps 3

`run` loads the data (untimed), then times the work as numpy_ref.py does
(its time_runs) and prints the same JSON: {"times": [...], "warmup": s or
null, "eig": [the --top leading eigenvalues of the last run]}; `info`
prints numpy_ref.py's info and scipy's version.
"""

import argparse
import json
import platform
import sys

import numpy as np
import scipy
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

import numpy_ref as ref


def load_csr(paths, cols):
    """The CSR matrix stored as three .npy files (indptr, indices, data)."""
    indptr, indices, data = (np.load(p) for p in paths.split(","))
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, cols))


def column_means(X):
    """μ, the column means of sparse X, as a flat array."""
    return np.asarray(X.mean(axis=0)).ravel()


def centred_gram(X, mu):
    """XcᵀXc = XᵀX − N·μμᵀ, XᵀX from the sparse product (dense D×D)."""
    return (X.T @ X).toarray() - X.shape[0] * np.outer(mu, mu)


def centred_cross(X, mu, Y):
    """XcᵀY = XᵀY − μ·(1ᵀY), XᵀY from the sparse rows (dense D×q)."""
    return X.T @ Y - np.outer(mu, Y.sum(axis=0))


def top_eigh(A, d):
    """The d leading eigenpairs of symmetric A by eigsh, largest first."""
    w, V = scipy.sparse.linalg.eigsh(A, k=d)
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


def project(X, mu, P):
    """Xc·P = X·P − 1·μᵀP, without centring X."""
    return X @ P - mu @ P


def pca(X, Y, d):
    """fitPCA (numpy_ref.pca): eigenvectors of C = XcᵀXc; scores Xc·P."""
    mu = column_means(X)
    w, V = top_eigh(centred_gram(X, mu), d)
    _ = project(X, mu, V)
    return w


def mddmp(X, Y, d):
    """fitMDDMp, linear label kernel (numpy_ref.mddmp): the d leading
    left singular vectors of B = XcᵀY by svds, eigenvalues σ²."""
    mu = column_means(X)
    U, s, _ = scipy.sparse.linalg.svds(centred_cross(X, mu, Y), k=d)
    order = np.argsort(s)[::-1]
    _ = project(X, mu, U[:, order])
    return s[order] ** 2


def mvmd(X, Y, d):
    """fitMVMD (numpy_ref.mvmd): G = (1−β)C + β·BBᵀ with B = Xcᵀ(2Y − 1)
    = 2·XcᵀY."""
    mu = column_means(X)
    B = 2 * centred_cross(X, mu, Y)
    w, V = top_eigh((1 - ref.BETA) * centred_gram(X, mu) + ref.BETA * (B @ B.T), d)
    _ = project(X, mu, V)
    return w


def cplst(X, Y, d):
    """fitCPLST (numpy_ref.cplst): eigenvectors of
    (XᵀZ)ᵀ(XᵀX + λI)⁻¹(XᵀZ), Z the centred ±1 labels, X as given; XᵀX from
    the sparse product, the solve by Cholesky (scipy.linalg.solve,
    assume_a="pos"); the codes Z·V."""
    Z = 2 * Y - 1
    Z -= Z.mean(axis=0)
    XtZ = X.T @ Z
    K = (X.T @ X).toarray() + ref.LAMBDA * np.eye(X.shape[1])
    H = XtZ.T @ scipy.linalg.solve(K, XtZ, assume_a="pos")
    w, V = top_eigh((H + H.T) / 2, d)
    _ = Z @ V
    return w


METHODS = {f.__name__: f for f in (pca, mddmp, mvmd, cplst)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info", help="print the numpy, BLAS and scipy in use as JSON")
    r = sub.add_parser("run", help="time one work and print JSON")
    r.add_argument("--work", required=True, choices=sorted(METHODS))
    r.add_argument("--csr", required=True, help="the CSR arrays indptr,indices,data (.npy, comma-separated)")
    r.add_argument("--cols", required=True, type=int, help="the number of features D")
    r.add_argument("--y", required=True, help="labels, N×q .npy of 0/1")
    r.add_argument("--d", type=int, default=20, help="target dimension: the eigenpairs computed (default 20)")
    r.add_argument("--reps", type=int, default=3, help="timed runs (default 3)")
    r.add_argument("--warmup-under", type=float, default=5.0,
                   help="seconds: a shorter first run is an untimed warm-up (default 5)")
    r.add_argument("--top", type=int, default=20, help="leading eigenvalues to print (default 20)")
    args = parser.parse_args()

    if args.cmd == "info":
        np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS is loaded
        json.dump({"numpy": np.__version__, "python": platform.python_version(), "blas": ref.blas_info(),
                   "scipy": scipy.__version__}, sys.stdout)
        print()
        return

    X, Y = load_csr(args.csr, args.cols), np.load(args.y)
    method = METHODS[args.work]
    out = {}

    def run():
        out["eig"] = method(X, Y, args.d)

    times, warmup = ref.time_runs(args.reps, args.warmup_under, run)
    json.dump({"times": times, "warmup": warmup, "eig": [float(v) for v in out["eig"][:args.top]]}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
