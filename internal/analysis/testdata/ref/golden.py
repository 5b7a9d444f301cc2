#!/usr/bin/python3
"""Independent reference values for internal/analysis (golden_test.go).

Computes, with numpy/scipy only and without reading any Go code, the
eigenvalues and leading directions of the feature-space reductions pca,
mddmp, mddmf, mlsi, cca, lda, lpp and mds on the shared data sets, and
writes one JSON file per method next to this script (mds.json.gz, which
holds N×3 embeddings, gzipped). The definitions are those of
shared/METHODS.md as made precise in README.md (same folder); each
function below quotes the matrix it decomposes.

Run with Debian's interpreter (numpy 1.24, scipy 1.10, sklearn 1.2):

    /usr/bin/python3 internal/analysis/testdata/ref/golden.py

Every result is also recomputed by a second, different route (SVD instead
of eigh, QZ instead of the Cholesky-reduced symmetric solver, Gram-trick
distances, PCA for MDS, sklearn for PCA) and the script stops if the two
disagree beyond what rounding explains. The agreement found is printed
and stored under "checks" in each file.
"""

import csv
import gzip
import hashlib
import json
import os
import platform
import sys
import time

import numpy as np
import scipy
import scipy.linalg as sla
import sklearn
from sklearn.decomposition import PCA

HERE = os.path.dirname(os.path.abspath(__file__))
# internal/analysis/testdata/ref → the folder holding the repository and shared/.
DATASETS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "..", "shared", "datasets"))

MULTILABEL = ["yeast", "emotions"]
MULTIDIM = ["edm", "song"]

N_EIG = 10  # leading eigenvalues stored
N_DIR = 5  # leading directions stored
N_EMB = 3  # mds embedding columns stored

SOFTWARE = {
    "python": platform.python_version(),
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "sklearn": sklearn.__version__,
}
GENERATOR = "internal/analysis/testdata/ref/golden.py"


# ---------------------------------------------------------------- data

def load(name):
    """Reads shared/datasets/<name>/<name>.csv: columns named "label:…" are
    labels, the rest features. Multi-label labels are 0/1; multi-dimensional
    class codes are mapped to 0…K−1 in the order of the sorted distinct
    values. Python's float() is correctly rounded, as is Go's ParseFloat, so
    X is bit-for-bit what the Go loader reads."""
    rel = f"{name}/{name}.csv"
    path = os.path.join(DATASETS, rel)
    with open(path, "rb") as f:
        raw = f.read()
    sha = hashlib.sha256(raw).hexdigest()
    rows = list(csv.reader(raw.decode("utf-8").splitlines()))
    header, body = rows[0], rows[1:]
    lab = [j for j, h in enumerate(header) if h.startswith("label:")]
    feat = [j for j, h in enumerate(header) if not h.startswith("label:")]
    X = np.array([[float(r[j]) for j in feat] for r in body])
    Yraw = np.array([[float(r[j]) for j in lab] for r in body])
    if name in MULTIDIM:
        Y = np.zeros(Yraw.shape, dtype=int)
        classes = []
        for j in range(Yraw.shape[1]):
            vals = np.unique(Yraw[:, j])  # sorted distinct values
            Y[:, j] = np.searchsorted(vals, Yraw[:, j])
            classes.append(len(vals))
    else:
        assert set(np.unique(Yraw)) <= {0.0, 1.0}, name
        Y, classes = Yraw, None
    info = {"dataset": name, "file": rel, "sha256": sha,
            "n": X.shape[0], "d": X.shape[1], "q": Y.shape[1]}
    if classes is not None:
        info["classes"] = classes
    return X, Y, info


# ------------------------------------------------------------ helpers

def sym(a):
    return (a + a.T) / 2


def fix_signs(v):
    """The entry of largest magnitude of every column is made positive
    (the first such entry on a tie, as np.argmax gives)."""
    v = np.array(v, dtype=float)
    for k in range(v.shape[1]):
        i = int(np.argmax(np.abs(v[:, k])))
        if v[i, k] < 0:
            v[:, k] = -v[:, k]
    return v


def sign_margin(v):
    """Per column: (largest − second largest |entry|) / largest, i.e. how
    clearly the sign rule picks its entry."""
    out = []
    for k in range(v.shape[1]):
        a = np.sort(np.abs(v[:, k]))[::-1]
        out.append(float((a[0] - a[1]) / a[0]))
    return out


def top_eigh(a, b=None):
    """Descending eigenvalues and eigenvectors of a (symmetric) or of the
    symmetric-definite pencil (a, b): scipy.linalg.eigh, whose vectors are
    orthonormal, or b-orthonormal (WᵀbW = I)."""
    w, v = sla.eigh(sym(a), None if b is None else sym(b))
    return w[::-1], fix_signs(v[:, ::-1])


def qz_top(a, b, k):
    """The top-k generalized eigenpairs by the QZ algorithm (scipy eig),
    a route independent of the Cholesky reduction eigh uses."""
    w, v = sla.eig(a, b)
    w = w.real
    order = np.argsort(-w)[:k]
    return w[order], v[:, order].real


def min_cos(u, v):
    """Smallest cosine of the principal angles between span(u) and span(v)."""
    qu, _ = np.linalg.qr(u)
    qv, _ = np.linalg.qr(v)
    return float(np.linalg.svd(qu.T @ qv, compute_uv=False).min())


def rel_err(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b) / np.abs(b)))


def cols(v):
    """Columns as lists (the JSON layout: a list of directions)."""
    return [[float(x) for x in v[:, k]] for k in range(v.shape[1])]


def floats(a):
    return [float(x) for x in a]


def stats(X):
    Xc = X - X.mean(axis=0)
    return Xc, sym(Xc.T @ Xc)


def check(cond, what):
    if not cond:
        sys.exit(f"golden.py: cross-check failed: {what}")


def sqdist(X):
    """Squared Euclidean distances of the rows, by explicit differences
    (no ‖a‖²+‖b‖²−2aᵀb cancellation), N×N."""
    n = X.shape[0]
    d2 = np.empty((n, n))
    for i0 in range(0, n, 64):
        diff = X[i0:i0 + 64, None, :] - X[None, :, :]
        d2[i0:i0 + 64] = np.einsum("ijk,ijk->ij", diff, diff)
    return d2


# ------------------------------------------------------------ methods

def ref_pca(X, Y, info):
    """pca: eigen-decomposition of C = XcᵀXc (not divided by N−1)."""
    Xc, C = stats(X)
    w, V = top_eigh(C)
    k = min(N_DIR, X.shape[1])
    # Route 2: SVD of Xc. Route 3: sklearn PCA(svd_solver="full").
    s = np.linalg.svd(Xc, compute_uv=False)
    skl = PCA(svd_solver="full").fit(X)
    sk_vals = skl.explained_variance_ * (X.shape[0] - 1)
    chk = {
        "svd_max_rel_eigenvalue_diff": rel_err(s[:N_EIG] ** 2, w[:N_EIG]),
        "sklearn_max_rel_eigenvalue_diff": rel_err(sk_vals[:N_EIG], w[:N_EIG]),
        "sklearn_subspace_1_minus_min_cos": 1 - min_cos(skl.components_[:k].T, V[:, :k]),
    }
    check(chk["sklearn_max_rel_eigenvalue_diff"] < 1e-10, f"pca {info['dataset']}: sklearn explained_variance_·(N−1) ≠ eigenvalues")
    check(chk["sklearn_subspace_1_minus_min_cos"] < 1e-10, f"pca {info['dataset']}: sklearn components span another subspace")
    check(chk["svd_max_rel_eigenvalue_diff"] < 1e-10, f"pca {info['dataset']}: svd of Xc")
    return {"eigenvalues": floats(w[:N_EIG]), "directions": cols(V[:, :k]),
            "sign_margin": sign_margin(V[:, :k]), "checks": chk}


def ref_mddmp(X, Y, info):
    """mddmp, linear label kernel: S = XcᵀY YᵀXc (XcᵀY = XcᵀYc); the q
    non-zero eigenvalues."""
    Xc, _ = stats(X)
    B = Xc.T @ Y
    w, V = top_eigh(B @ B.T)
    q = Y.shape[1]
    k = min(N_DIR, q)
    U, s, _ = np.linalg.svd(B, full_matrices=False)
    Yc = Y - Y.mean(axis=0)
    chk = {
        "svd_max_rel_eigenvalue_diff": rel_err(s ** 2, w[:q]),
        "svd_subspace_1_minus_min_cos": 1 - min_cos(U[:, :k], V[:, :k]),
        "xcty_vs_xctyc_max_abs_diff": float(np.abs(B - Xc.T @ Yc).max() / np.abs(B).max()),
        "eigenvalue_q_plus_1_over_1": float(w[q] / w[0]) if q < len(w) else 0.0,
    }
    check(chk["svd_max_rel_eigenvalue_diff"] < 1e-10, f"mddmp {info['dataset']}: svd of B")
    return {"eigenvalues": floats(w[:q]), "rest_zero": True, "directions": cols(V[:, :k]),
            "sign_margin": sign_margin(V[:, :k]), "checks": chk}


def gen_case(A, Bm, n_eig, k, what, rest_zero=False, tol=1e-9):
    """Generalized symmetric-definite A w = λ Bm w by eigh, checked by QZ."""
    w, V = top_eigh(A, Bm)
    wq, Vq = qz_top(A, Bm, n_eig)
    chk = {
        "qz_max_rel_eigenvalue_diff": rel_err(wq, w[:n_eig]),
        "qz_subspace_1_minus_min_cos": 1 - min_cos(Vq[:, :k], V[:, :k]),
        "b_orthonormality_max_abs": float(np.abs(V[:, :k].T @ Bm @ V[:, :k] - np.eye(k)).max()),
    }
    check(chk["qz_max_rel_eigenvalue_diff"] < tol, f"{what}: QZ eigenvalues {chk['qz_max_rel_eigenvalue_diff']}")
    check(chk["b_orthonormality_max_abs"] < 1e-10, f"{what}: WᵀBW ≠ I")
    out = {"eigenvalues": floats(w[:n_eig]), "directions": cols(V[:, :k]),
           "sign_margin": sign_margin(V[:, :k]), "checks": chk}
    if rest_zero:
        out["rest_zero"] = True
    else:
        out["next_eigenvalue"] = float(w[n_eig])
    return out


def ref_mddmf(X, Y, info, beta=0.5):
    """mddmf: S p = λ (β·C + (1−β)·I) p, S = BBᵀ, B = XcᵀY; the q non-zero
    eigenvalues."""
    Xc, C = stats(X)
    B = Xc.T @ Y
    q = Y.shape[1]
    return gen_case(B @ B.T, beta * C + (1 - beta) * np.eye(C.shape[0]), q, min(N_DIR, q),
                    f"mddmf {info['dataset']}", rest_zero=True)


def ref_mlsi(X, Y, info, beta=0.5, eps=1.0):
    """mlsi: ((1−β)·C·C + β·BBᵀ) w = λ (C + εI) w, B = XcᵀYc."""
    Xc, C = stats(X)
    B = Xc.T @ (Y - Y.mean(axis=0))
    A = (1 - beta) * (C @ C) + beta * (B @ B.T)
    return gen_case(A, C + eps * np.eye(C.shape[0]), N_EIG, N_DIR, f"mlsi {info['dataset']}")


def ref_cca(X, Y, info, rx=1.0):
    """cca: B (YcᵀYc + r_y I)⁻¹ Bᵀ w = λ (C + r_x I) w, B = XcᵀYc over the
    non-constant labels, r_y = 1e-6 · mean diag(YcᵀYc) (of those labels);
    the first q' eigenvalues."""
    Xc, C = stats(X)
    keep = Y.std(axis=0) > 0
    Yc = Y[:, keep] - Y[:, keep].mean(axis=0)
    q1 = Yc.shape[1]
    Cyy = sym(Yc.T @ Yc)
    ry = 1e-6 * np.mean(np.diag(Cyy))
    B = Xc.T @ Yc
    left = B @ np.linalg.solve(Cyy + ry * np.eye(q1), B.T)
    out = gen_case(left, C + rx * np.eye(C.shape[0]), q1, min(N_DIR, q1),
                   f"cca {info['dataset']}", rest_zero=True)
    out["r_y"] = float(ry)
    out["labels_kept"] = int(q1)
    return out


def ref_lda(X, Y, info):
    """lda: one block per class variable (or binary label). Sb = Σ_c N_c
    (m_c − m)(m_c − m)ᵀ over the classes that occur, Sw = XcᵀXc − Sb,
    ε = 1e-4 · trace(Sw)/D; Sb w = λ (Sw + εI) w, top (classes − 1)."""
    Xc, C = stats(X)
    m = X.mean(axis=0)
    D = X.shape[1]
    blocks = []
    for j in range(Y.shape[1]):
        classes = np.unique(Y[:, j])
        Sb = np.zeros((D, D))
        for c in classes:
            rows = X[Y[:, j] == c]
            dm = rows.mean(axis=0) - m
            Sb += rows.shape[0] * np.outer(dm, dm)
        Sw = C - Sb
        eps = 1e-4 * np.trace(Sw) / D
        r = len(classes) - 1
        b = gen_case(Sb, Sw + eps * np.eye(D), r, r, f"lda {info['dataset']} variable {j}", rest_zero=True)
        b.update({"variable": j, "classes": int(len(classes)), "ridge": float(eps)})
        blocks.append(b)
    return {"blocks": blocks}


def knn(d2, k):
    """The k nearest rows of each row by d2, itself excluded, ties to the
    lower row index (a stable sort of each row in index order)."""
    n = d2.shape[0]
    nb = np.empty((n, k), dtype=int)
    gaps = np.empty(n)
    for i in range(n):
        di = d2[i].copy()
        di[i] = np.inf
        order = np.argsort(di, kind="stable")
        nb[i] = order[:k]
        gaps[i] = (di[order[k]] - di[order[k - 1]]) / di[order[k]]
    return nb, gaps


def ref_lpp(X, Y, info, k=10):
    """lpp: k-NN graph (Euclidean, self excluded, ties to the lower index),
    W_ij = exp(−γ‖x_i − x_j‖²) if j ∈ kNN(i) or i ∈ kNN(j), γ = 1 / mean of
    ‖x_i − x_j‖² over the N·k pairs (i, j ∈ kNN(i)); D_W = diag(W1);
    Xcᵀ W Xc a = μ (Xcᵀ D_W Xc + εI) a, ε = 1e-4 · trace(Xcᵀ D_W Xc)/D."""
    n, D = X.shape
    d2 = sqdist(X)
    nb, gaps = knn(d2, k)
    mask = np.zeros((n, n), dtype=bool)
    mask[np.repeat(np.arange(n), k), nb.ravel()] = True
    mask |= mask.T
    gamma = 1.0 / d2[np.repeat(np.arange(n), k), nb.ravel()].mean()
    W = np.where(mask, np.exp(-gamma * d2), 0.0)
    dw = W.sum(axis=1)
    Xc = X - X.mean(axis=0)
    A = Xc.T @ W @ Xc
    Bw = sym(Xc.T @ (dw[:, None] * Xc))
    eps = 1e-4 * np.trace(Bw) / D
    out = gen_case(A, Bw + eps * np.eye(D), N_EIG, N_DIR, f"lpp {info['dataset']}")
    # Route 2 for the graph: distances by the Gram trick, as a BLAS-based
    # implementation might compute them. The neighbour sets must agree.
    sq = (X * X).sum(axis=1)
    g2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0)
    nb2, _ = knn(g2, k)
    same = sum(set(nb[i]) == set(nb2[i]) for i in range(n))
    out["checks"].update({
        "gram_trick_rows_with_same_neighbours": int(same),
        "smallest_relative_gap_kth_to_next_neighbour": float(gaps.min()),
        "rows_with_gap_below_1e-9": int((gaps < 1e-9).sum()),
        "graph_edges_symmetrized": int(mask.sum()),
    })
    check(same == n, f"lpp {info['dataset']}: Gram-trick distances change {n - same} neighbour sets")
    out.update({"gamma": float(gamma), "ridge": float(eps), "k": k})
    return out


def ref_mds(X, Y, info, pca_case):
    """mds: B = −½ H D² H (N×N), top eigenvalues, embedding E = V·diag(√λ)
    with the sign rule on E's columns."""
    n = X.shape[0]
    d2 = sqdist(X)
    # H D² H without forming H: subtract row and column means, add the grand mean.
    rm = d2.mean(axis=1)
    Bm = -0.5 * (d2 - rm[:, None] - rm[None, :] + d2.mean())
    w, V = sla.eigh(sym(Bm), subset_by_index=[n - N_EIG, n - 1])
    w, V = w[::-1], V[:, ::-1]
    E = fix_signs(V[:, :N_EMB] * np.sqrt(w[:N_EMB]))
    # Route 2: the non-zero eigenvalues of XcXcᵀ are those of XcᵀXc, and the
    # embedding is Xc·V_pca.
    Xc = X - X.mean(axis=0)
    Vp = np.array(pca_case["directions"]).T[:, :N_EMB]
    Ep = fix_signs(Xc @ Vp)
    chk = {
        "pca_max_rel_eigenvalue_diff": rel_err(w, pca_case["eigenvalues"][:N_EIG]),
        "pca_embedding_max_abs_diff_over_max": float(np.abs(E - Ep).max() / np.abs(E).max()),
    }
    check(chk["pca_max_rel_eigenvalue_diff"] < 1e-9, f"mds {info['dataset']}: eigenvalues ≠ pca's")
    check(chk["pca_embedding_max_abs_diff_over_max"] < 1e-8, f"mds {info['dataset']}: embedding ≠ Xc·V_pca")
    return {"eigenvalues": floats(w), "embedding": cols(E), "sign_margin": sign_margin(E), "checks": chk}


# ------------------------------------------------------------- output

def write(method, definition, params, cases, gz=False):
    doc = {"method": method, "generator": GENERATOR, "software": SOFTWARE,
           "definition": definition, "params": params, "cases": cases}
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"
    name = os.path.join(HERE, method + (".json.gz" if gz else ".json"))
    data = text.encode("utf-8")
    if gz:
        # mtime=0 and no file name in the header: the output is reproducible.
        with open(name, "wb") as f:
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as g:
                g.write(data)
    else:
        with open(name, "wb") as f:
            f.write(data)
    print(f"wrote {os.path.relpath(name, HERE)} ({os.path.getsize(name)} bytes)")


def main():
    t0 = time.time()
    data = {name: load(name) for name in MULTILABEL + MULTIDIM}
    print(f"loaded {len(data)} data sets from {DATASETS} in {time.time() - t0:.1f}s")
    timing = {}

    def run(method, fn, names, extra=None):
        t = time.time()
        out = []
        for name in names:
            X, Y, info = data[name]
            case = dict(info)
            case.update(fn(X, Y, info) if extra is None else fn(X, Y, info, extra[name]))
            out.append(case)
            print(f"  {method:6s} {name:9s} {json.dumps(case.get('checks', {}))}")
        timing[method] = time.time() - t
        return out

    pca = run("pca", ref_pca, MULTILABEL)
    write("pca", "eigh of C = XcᵀXc (not divided by N−1); cross-checked with svd(Xc) and sklearn PCA(svd_solver=\"full\"): explained_variance_·(N−1)",
          {}, pca)
    write("mddmp", "eigh of S = XcᵀY YᵀXc (linear label kernel); its q non-zero eigenvalues; cross-checked with svd(XcᵀY)",
          {"label_kernel": "linear"}, run("mddmp", ref_mddmp, MULTILABEL))
    write("mddmf", "eigh(S, β·C + (1−β)·I), S = XcᵀY YᵀXc, C = XcᵀXc; q non-zero eigenvalues; vectors B-orthonormal",
          {"beta": 0.5}, run("mddmf", ref_mddmf, MULTILABEL))
    write("mlsi", "eigh((1−β)·C·C + β·BBᵀ, C + εI), B = XcᵀYc; vectors B-orthonormal",
          {"beta": 0.5, "ridge": 1.0}, run("mlsi", ref_mlsi, MULTILABEL))
    write("cca", "eigh(B (YcᵀYc + r_y I)⁻¹ Bᵀ, C + r_x I), B = XcᵀYc over non-constant labels, r_y = 1e-6·mean diag(YcᵀYc); first q' eigenvalues",
          {"ridge": 1.0, "r_y_rule": "1e-6 * mean(diag(YcᵀYc)) over the non-constant labels"}, run("cca", ref_cca, MULTILABEL))
    write("lda", "per class variable (or binary label): eigh(Sb, Sw + εI), Sw = XcᵀXc − Sb, ε = 1e-4·trace(Sw)/D; top classes−1",
          {"ridge_rule": "1e-4 * trace(Sw) / D"}, run("lda", ref_lda, MULTIDIM + MULTILABEL))
    write("lpp", "eigh(XcᵀWXc, XcᵀD_WXc + εI), heat-kernel kNN graph (k = 10, symmetrized by OR), γ = 1/mean kNN squared distance, ε = 1e-4·trace(XcᵀD_WXc)/D",
          {"k": 10, "gamma_rule": "1 / mean of squared distance over the N·k pairs (i, j in kNN(i))",
           "ridge_rule": "1e-4 * trace(XcᵀD_WXc) / D"}, run("lpp", ref_lpp, MULTILABEL))
    pca_by_name = {c["dataset"]: c for c in pca}
    write("mds", "top eigenpairs of B = −½ H D² H (N×N); embedding E = V·diag(√λ), sign rule on E's columns; cross-checked with Xc·V_pca",
          {}, run("mds", ref_mds, MULTILABEL, pca_by_name), gz=True)
    print("timing (s): " + ", ".join(f"{m} {t:.1f}" for m, t in timing.items()) + f"; total {time.time() - t0:.1f}")


if __name__ == "__main__":
    main()
