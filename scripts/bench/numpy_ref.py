#!/usr/bin/python3
"""The numpy side of `go run ./cmd/benchcmp` (see README.md here).

Times, on the .npy files the command generated, the same algebra as the Go
methods of internal/analysis, written as a numpy user would write it: numpy
only (no scipy), `Xc.T @ Xc`, `np.linalg.eigh`, `np.linalg.svd(...,
full_matrices=False)`, `np.linalg.cholesky` and `np.linalg.solve`. Each
function below says which Go function it mirrors. Every method also computes
what analysis.Fit returns besides the eigenvalues: the directions and the
training rows projected on the first d of them (the codes, for cplst).

    python3 numpy_ref.py info
    python3 numpy_ref.py run --work pca --x X.npy --y Y.npy --d 10 --reps 3
    python3 numpy_ref.py run --work pca --csr indptr.npy,indices.npy,data.npy --cols 5000 --y Y.npy --d 20

With --csr (cmd/benchcmp's wide rows) the features are a CSR matrix's three
arrays, as scipy names them; they are made dense at load, untimed, with
numpy alone, and the same dense algebra runs on them. scipy_ref.py is the
sparse route on the same files.

`info` prints the numpy and BLAS in use as JSON. `run` loads the data
(untimed), then runs the work until --reps runs are timed: a first run
shorter than --warmup-under seconds is an untimed warm-up, a longer one
counts (cmd/benchcmp's timeRuns does the same). gc.collect() runs, untimed,
before each run. It prints JSON: {"times": [s, ...], "warmup": s or null,
"eig": [the --top leading eigenvalues of the last run]}.
"""

import argparse
import ctypes
import gc
import json
import platform
import sys
import time

import numpy as np

# Defaults of internal/analysis (params.go, mlsi.go, cca.go).
BETA = 0.5  # DefaultBeta: mddmf, mvmd, mlsi
MLSI_RIDGE = 1.0  # DefaultMLSIRidge
CCA_RIDGE = 1.0  # DefaultCCARidge (r_x)
CCA_LABEL_RIDGE = 1e-6  # ccaLabelRidge: r_y = this × mean diag(YcᵀYc)
LAMBDA = 0.1  # DefaultLambda: cplst


def descending(w, v):
    """eigh's ascending pairs, largest first (analysis.descending)."""
    return w[::-1], v[:, ::-1]


def pca(X, Y, d, classes):
    """fitPCA: eigenvectors of C = XcᵀXc; scores Xc·P."""
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc
    w, V = descending(*np.linalg.eigh(C))
    _ = Xc @ V[:, :d]
    return w


def mddmp(X, Y, d, classes):
    """fitMDDMp, linear label kernel: left singular vectors of B = XcᵀY
    (0/1 labels), eigenvalues σ²."""
    Xc = X - X.mean(axis=0)
    B = Xc.T @ Y
    U, s, _ = np.linalg.svd(B, full_matrices=False)
    _ = Xc @ U[:, :d]
    return s**2


def one_hot(Y, classes):
    """The one-hot Z (N×ΣK_j) of class variables (analysis.oneHotRows)."""
    offsets = np.concatenate(([0], np.cumsum(classes)[:-1]))
    Z = np.zeros((Y.shape[0], int(np.sum(classes))))
    Z[np.arange(Y.shape[0])[:, None], Y.astype(np.intp) + offsets] = 1
    return Z


def sdem(X, Y, d, classes):
    """fitSDeM: left singular vectors of B = XcᵀZ, Z one-hot."""
    Z = one_hot(Y, classes)
    Xc = X - X.mean(axis=0)
    B = Xc.T @ Z
    U, s, _ = np.linalg.svd(B, full_matrices=False)
    _ = Xc @ U[:, :d]
    return s**2


def mddmf(X, Y, d, classes):
    """fitMDDMf: S p = λ(βC + (1−β)I)p, S = BBᵀ, B = XcᵀY. With
    βC + (1−β)I = LLᵀ, the left singular vectors U of L⁻¹B give P = L⁻ᵀU
    (lowRankGenEig)."""
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc
    B = Xc.T @ Y
    L = np.linalg.cholesky(BETA * C + (1 - BETA) * np.eye(C.shape[0]))
    U, s, _ = np.linalg.svd(np.linalg.solve(L, B), full_matrices=False)
    P = np.linalg.solve(L.T, U)
    _ = Xc @ P[:, :d]
    return s**2


def mvmd(X, Y, d, classes):
    """fitMVMD: G = (1−β)C + β·BBᵀ with B = XcᵀZ for the ±1 labels
    Z = 2Y − 1 (= 2·XcᵀY, as Xc has zero column means)."""
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc
    B = Xc.T @ (2 * Y - 1)
    G = (1 - BETA) * C + BETA * (B @ B.T)
    w, V = descending(*np.linalg.eigh(G))
    _ = Xc @ V[:, :d]
    return w


def mlsi(X, Y, d, classes):
    """fitMLSI: ((1−β)C² + βBBᵀ) w = λ (C + εI) w, B = XcᵀY. With
    C + εI = LLᵀ: eigh of L⁻¹ A L⁻ᵀ, P = L⁻ᵀU (genEig)."""
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc
    B = Xc.T @ Y
    A = (1 - BETA) * (C @ C) + BETA * (B @ B.T)
    L = np.linalg.cholesky(C + MLSI_RIDGE * np.eye(C.shape[0]))
    Li = np.linalg.inv(L)
    M = Li @ A @ Li.T
    w, U = descending(*np.linalg.eigh((M + M.T) / 2))
    P = Li.T @ U
    _ = Xc @ P[:, :d]
    return w


def cca(X, Y, d, classes):
    """fitCCA: B(YcᵀYc + r_yI)⁻¹Bᵀ w = λ(C + r_xI) w over the labels that
    vary; with YcᵀYc + r_yI = L_yL_yᵀ and C + r_xI = LLᵀ, the left singular
    vectors U of L⁻¹·B·L_y⁻ᵀ give P = L⁻ᵀU (lowRankGenEig)."""
    if classes is not None:
        Y = one_hot(Y, classes)
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    Cyy = Yc.T @ Yc
    keep = np.diag(Cyy) > 0
    Cyy, Yc = Cyy[np.ix_(keep, keep)], Yc[:, keep]
    C = Xc.T @ Xc
    B = Xc.T @ Yc
    Ly = np.linalg.cholesky(Cyy + CCA_LABEL_RIDGE * np.mean(np.diag(Cyy)) * np.eye(Cyy.shape[0]))
    F = np.linalg.solve(Ly, B.T).T
    L = np.linalg.cholesky(C + CCA_RIDGE * np.eye(C.shape[0]))
    U, s, _ = np.linalg.svd(np.linalg.solve(L, F), full_matrices=False)
    P = np.linalg.solve(L.T, U)
    _ = Xc @ P[:, :d]
    return s**2


def cplst(X, Y, d, classes):
    """fitCPLST: eigenvectors of ZᵀĤZ = (XᵀZ)ᵀ(XᵀX + λI)⁻¹(XᵀZ), Z the
    centred ±1 labels, X as given (not centred, no bias), as the CPLST
    authors' code; the codes Z·V of the training rows."""
    Z = 2 * Y - 1
    Z -= Z.mean(axis=0)
    XtZ = X.T @ Z
    H = XtZ.T @ np.linalg.solve(X.T @ X + LAMBDA * np.eye(X.shape[1]), XtZ)
    w, V = descending(*np.linalg.eigh((H + H.T) / 2))
    _ = Z @ V[:, :d]
    return w


METHODS = {f.__name__: f for f in (pca, mddmp, sdem, mddmf, mvmd, mlsi, cca, cplst)}


def eigen(A, k):
    """The eigen case: numpy has no top-k solver, so np.linalg.eigh of the
    whole matrix, keeping the k largest pairs."""
    w, V = descending(*np.linalg.eigh(A))
    return w[:k], V[:, :k]


def dense_from_csr(paths, cols):
    """The dense N×cols matrix of a CSR matrix stored as three .npy files
    (indptr, indices, data), with numpy alone."""
    indptr, indices, data = (np.load(p) for p in paths.split(","))
    X = np.zeros((len(indptr) - 1, cols))
    X[np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), indices] = data
    return X


def time_runs(reps, warmup_under, run):
    """cmd/benchcmp's timeRuns: until reps runs are timed; a first run
    shorter than warmup_under seconds is an untimed warm-up."""
    times, warmup = [], None
    while len(times) < reps:
        gc.collect()
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        if not times and warmup is None and took < warmup_under:
            warmup = took
            continue
        times.append(took)
    return times, warmup


def blas_info():
    """The BLAS and LAPACK libraries this process has mapped, and
    OpenBLAS's own description of itself when it is one of them."""
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps")
                   if ("blas" in line or "lapack" in line) and "/" in line})
    text = "libraries: " + (", ".join(libs) if libs else "no BLAS library mapped")
    for path in libs:
        if path.rsplit("/", 1)[-1].startswith("libopenblas"):
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return "%s, kernels for %s, %d threads; %s" % (
                lib.openblas_get_config().decode().strip(), lib.openblas_get_corename().decode(),
                lib.openblas_get_num_threads(), text)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info", help="print the numpy and BLAS in use as JSON")
    r = sub.add_parser("run", help="time one work and print JSON")
    r.add_argument("--work", required=True, choices=sorted(METHODS) + ["eigen"])
    r.add_argument("--x", help="features, N×D .npy")
    r.add_argument("--csr", help="features instead of --x: the CSR arrays indptr,indices,data (.npy, comma-separated)")
    r.add_argument("--cols", type=int, help="with --csr: the number of features D")
    r.add_argument("--y", help="labels, N×q .npy: 0/1, or class indices with --classes")
    r.add_argument("--a", help="eigen: the symmetric matrix, .npy")
    r.add_argument("--classes", help="category counts of the class variables, comma-separated")
    r.add_argument("--d", type=int, default=10, help="target dimension (default 10)")
    r.add_argument("--k", type=int, default=50, help="eigen: eigenpairs to keep (default 50)")
    r.add_argument("--reps", type=int, default=3, help="timed runs (default 3)")
    r.add_argument("--warmup-under", type=float, default=5.0,
                   help="seconds: a shorter first run is an untimed warm-up (default 5)")
    r.add_argument("--top", type=int, default=5, help="leading eigenvalues to print (default 5)")
    args = parser.parse_args()

    if args.cmd == "info":
        np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS is loaded
        json.dump({"numpy": np.__version__, "python": platform.python_version(), "blas": blas_info()}, sys.stdout)
        print()
        return

    out = {}
    if args.work == "eigen":
        A = np.load(args.a)

        def run():
            out["eig"], _ = eigen(A, args.k)
    else:
        X = dense_from_csr(args.csr, args.cols) if args.csr else np.load(args.x)
        Y = np.load(args.y)
        classes = [int(c) for c in args.classes.split(",")] if args.classes else None
        method = METHODS[args.work]

        def run():
            out["eig"] = method(X, Y, args.d, classes)

    times, warmup = time_runs(args.reps, args.warmup_under, run)
    json.dump({"times": times, "warmup": warmup, "eig": [float(v) for v in out["eig"][:args.top]]}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
