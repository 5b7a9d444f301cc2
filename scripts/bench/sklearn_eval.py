#!/usr/bin/python3
"""The numpy + scikit-learn side of `go run ./cmd/benchcmp -sizes eval,mlknn`
(see README.md here).

`eval` runs the product's evaluation protocol (docs/EVALUATION.md) on a data
file, as a numpy and scikit-learn user would write it: for each fold of the
given k-fold split, ML-kNN on the original features (`ori`), then each method
fitted on the fold's training rows, the training and test rows projected with
the training means and directions, and at every d of the grid ML-kNN (k, s)
on the first d columns; cplst brings its own regressor (ridge with a bias
column, λ on every weight) and round-based decoding, as the product's does.
Every metric of the job's metrics.json is computed for every fold (those of
extreme classification with the default propensities, A = 0.55, B = 1.5), and the
mean over the folds (over those where it is defined) is printed per method
and d.

`mlknn` times ML-kNN alone: fitted on the first --train-rows rows of the
.npy files, predicting the rest; the test rows' metrics are computed after
the timed runs.

ML-kNN here is `sklearn.neighbors.NearestNeighbors` with its automatic
algorithm (a k-d tree up to 15 columns, brute force above) and the counting
of Zhang & Zhou (2007) in numpy. The product's neighbours are exact with ties
to the lower row index (internal/knn); so that the same neighbours are used,
each row's candidates (a few more than k) are measured again with the
product's distance, Σ_t (a_t − b_t)² summed in column order, and sorted by
(distance, index); a row whose k-th candidate could tie with a row not
fetched is asked again for every row within that distance. The projections
are computed once per distinct row, so that duplicate rows stay exactly
tied, as the product keeps them.

The reductions (each function names the Go function it mirrors) use numpy's
eigh, svd and cholesky, and scipy.linalg.solve_triangular (scikit-learn
needs scipy) for the triangular solves. Where the product takes the N×N side
of a problem with fewer rows than features (pca, cplst and the ridge
regressor), so does this script.

    python3 sklearn_eval.py info
    python3 sklearn_eval.py eval --data scene.csv --folds folds.txt --methods pca,mddmp,mddmf,cca,cplst --dims 1,2,3,4,5 --reps 3
    python3 sklearn_eval.py eval --data medical.arff --xml medical.xml --folds folds.txt ...
    python3 sklearn_eval.py mlknn --x X.npy --y Y.npy --train-rows 8000 --reps 3

--folds is a text file with each row's fold (1…k), one a line, in the data
file's order: cmd/benchcmp reads it from the job's projected.csv, so that
both sides evaluate on the same split. A CSV file's label columns are those
named `label:…`; an ARFF file's are those the Mulan XML file names.

Both commands load the data untimed, then time the work as numpy_ref.py
does (its time_runs: a first run under --warmup-under seconds is an untimed
warm-up) and print JSON: {"times": [...], "warmup": s or null, "load": s,
"rows": [{"method", "d", "metrics": {...}}]} for eval (the mean rows, a
metric undefined on every fold is null), {"times", "warmup", "load",
"metrics": {...}} for mlknn.
"""

import argparse
import csv
import json
import math
import platform
import re
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np
import scipy
import scipy.linalg
import sklearn
from sklearn.neighbors import NearestNeighbors

import numpy_ref as ref

# Defaults of internal/analysis and internal/evaluate.
BETA = ref.BETA  # mddmf
CCA_RIDGE = ref.CCA_RIDGE  # r_x
CCA_LABEL_RIDGE = ref.CCA_LABEL_RIDGE  # r_y = this × mean diag(YcᵀYc)
LAMBDA = ref.LAMBDA  # cplst, and the ridge of its regressor


# ---------------------------------------------------------------- data files

def load_csv(path):
    """Features and 0/1 labels of a CSV file whose label columns are named
    `label:…` (the upload's default prefix)."""
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    is_label = np.array([h.strip().startswith("label:") for h in header])
    return data[:, ~is_label], data[:, is_label]


def arff_name(rest):
    """The attribute name at the start of rest (quoted or not) and the rest."""
    rest = rest.strip()
    if rest[:1] in "'\"":
        q = rest[0]
        end = rest.index(q, 1)
        return rest[1:end], rest[end + 1:]
    m = re.match(r"(\S+)\s*(.*)", rest)
    return m.group(1), m.group(2)


def arff_zero(kind):
    """The value an omitted cell of a sparse ARFF row stands for: 0 for a
    numeric attribute, the first declared value for a nominal one."""
    kind = kind.strip()
    if kind.startswith("{"):
        return float(kind[1:].split(",")[0].strip().strip("'\""))
    return 0.0


def load_arff(path, xml_path):
    """Features and 0/1 labels of an ARFF file, dense or sparse rows, the
    labels being the attributes the Mulan XML file names. Values are read
    as numbers (nominal {0,1} ones too)."""
    labels = {el.get("name") for el in ET.parse(xml_path).getroot().iter() if el.tag.endswith("label")}
    names, zeros, rows = [], [], []
    with open(path) as f:
        in_data = False
        for line in f:
            s = line.strip()
            if not s or s.startswith("%"):
                continue
            if not in_data:
                low = s.lower()
                if low.startswith("@attribute"):
                    name, kind = arff_name(s[len("@attribute"):])
                    names.append(name)
                    zeros.append(arff_zero(kind))
                elif low.startswith("@data"):
                    in_data = True
                continue
            rows.append(s)
    X = np.tile(np.array(zeros), (len(rows), 1))
    for i, s in enumerate(rows):
        if s.startswith("{"):
            for cell in s[1:-1].split(","):
                if cell.strip():
                    j, v = cell.split()
                    X[i, int(j)] = float(v.strip("'\""))
        else:
            X[i] = [float(v.strip("'\"")) for v in s.split(",")]
    is_label = np.array([n in labels for n in names])
    if is_label.sum() != len(labels):
        raise SystemExit("%s: %d of the %d labels of %s are attributes" % (path, is_label.sum(), len(labels), xml_path))
    return X[:, ~is_label], X[:, is_label]


def load_data(path, xml_path=None):
    """Features and labels of a CSV file, or of an ARFF file with its XML."""
    if path.lower().endswith(".arff"):
        if not xml_path:
            raise SystemExit("an ARFF file needs --xml, the Mulan XML file of its labels")
        return load_arff(path, xml_path)
    return load_csv(path)


# ---------------------------------------------------------------- ML-kNN

def sq_dist(Q, R, ind):
    """The product's squared distance (knn.Dist) of each query row Q[i] to the
    reference rows R[ind[i]]: Σ_t (a_t − b_t)², each square rounded, summed
    in column order."""
    s = np.zeros(ind.shape)
    for t in range(Q.shape[1]):
        diff = Q[:, t:t + 1] - R[ind, t]
        s += diff * diff
    return s


def neighbours(nn, R, Q, k, self_query):
    """The k nearest rows of R (fitted in nn) to each row of Q, by the
    product's distance, ties to the lower index; with self_query, Q is R and
    each row's own index is left out (its duplicates are not).

    The k + 3 nearest by scikit-learn are measured again (sq_dist) and
    sorted by (distance, index). A row whose k-th could tie with a row not
    fetched (one at least as far as the last fetched by scikit-learn's
    distance, which errs by far less than the margin) is asked again for
    every row within its k-th distance (radius_neighbors), and those are
    sorted the same way."""
    nr = R.shape[0]
    m = min(k + 3 + (1 if self_query else 0), nr)
    dist, ind = nn.kneighbors(Q, n_neighbors=m)
    exact = sq_dist(Q, R, ind)
    rows = np.arange(Q.shape[0])
    if self_query:
        exact[ind == rows[:, None]] = np.inf
    order = np.lexsort((ind, exact), axis=-1)
    ind = np.take_along_axis(ind, order, axis=-1)
    exact = np.take_along_axis(exact, order, axis=-1)
    out = ind[:, :k].copy()
    if m == nr:
        return out
    scale = np.einsum("ij,ij->i", R, R).max()
    margin = 1e-9 * (dist[:, -1] ** 2 + scale + np.einsum("ij,ij->i", Q, Q))
    bad = np.flatnonzero(exact[:, k - 1] >= dist[:, -1] ** 2 - margin)
    if bad.size:
        reach = exact[bad, k - 1] + margin[bad]
        dist, near = nn.radius_neighbors(Q[bad], radius=math.sqrt(reach.max()))
        near = [c[d * d <= r] for c, d, r in zip(near, dist, reach)]
        sizes = np.array([len(c) for c in near])
        cand = np.zeros((bad.size, sizes.max()), dtype=np.intp)
        for j, c in enumerate(near):
            cand[j, :len(c)] = c
        ex = np.where(np.arange(cand.shape[1]) < sizes[:, None], sq_dist(Q[bad], R, cand), np.inf)
        if self_query:
            ex[cand == bad[:, None]] = np.inf
        order = np.lexsort((cand, ex), axis=-1)
        out[bad] = np.take_along_axis(cand, order, axis=-1)[:, :k]
    return out


def label_counts(Y, idx):
    """How many of each row's neighbours idx have each label (rows × q)."""
    c = np.zeros((idx.shape[0], Y.shape[1]), dtype=np.int64)
    for j in range(idx.shape[1]):
        c += Y[idx[:, j]]
    return c


def mlknn(Xtr, Ytr, Xte, k, s):
    """evaluate.MLkNN's Fit and Predict: the predictions (posterior ≥ ½) and
    the posteriors of the test rows."""
    n, q = Ytr.shape
    Yi = (Ytr != 0).astype(np.int64)
    nn = NearestNeighbors(n_neighbors=k).fit(Xtr)
    ctr = label_counts(Yi, neighbours(nn, Xtr, Xtr, k, True))
    has = Yi.sum(axis=0)
    prior = (s + has) / (2 * s + n)
    cell = np.arange(q) * (k + 1) + ctr
    c1 = np.bincount(cell[Yi == 1], minlength=q * (k + 1)).reshape(q, k + 1).astype(float)
    c0 = np.bincount(cell[Yi == 0], minlength=q * (k + 1)).reshape(q, k + 1).astype(float)
    sum1, sum0 = has.astype(float), (n - has).astype(float)
    cte = label_counts(Yi, neighbours(nn, Xtr, Xte, k, False))
    lab = np.arange(q)
    kk = s * (k + 1)
    p_in = prior * (s + c1[lab, cte]) / (kk + sum1)
    p_out = (1 - prior) * (s + c0[lab, cte]) / (kk + sum0)
    post = p_in / (p_in + p_out)
    return (post >= 0.5).astype(float), post


# ---------------------------------------------------------------- metrics

def f1_of(tp, fp, fn):
    d = 2 * tp + fp + fn
    return np.where(d > 0, 2 * tp / np.where(d > 0, d, 1), 1.0)


def ranks(S):
    """evaluate's rankOf for every label: q − its place in a stable ascending
    sort of the row's scores (1 for the highest; of tied scores the later
    label ranks first)."""
    q = S.shape[1]
    later = np.triu(np.ones((q, q), dtype=bool))  # [l, m]: m ≥ l
    out = np.empty(S.shape, dtype=np.int64)
    for a in range(0, S.shape[0], 512):
        s = S[a:a + 512]
        gt = s[:, None, :] > s[:, :, None]
        eq = (s[:, None, :] == s[:, :, None]) & later
        out[a:a + 512] = gt.sum(axis=2) + eq.sum(axis=2)
    return out


def multilabel_metrics(Y, P, S):
    """evaluate.MultiLabelMetrics: the same definitions and edge cases; a
    metric no row defines is NaN."""
    n, q = Y.shape
    Yb, Pb = Y != 0, P != 0
    inter = (Yb & Pb).sum(axis=1).astype(float)
    nY, nP = Yb.sum(axis=1).astype(float), Pb.sum(axis=1).astype(float)
    diff = (Yb != Pb).sum(axis=1)
    union = nY + nP - inter
    m = {
        "hamming_loss": float(diff.sum()) / (n * q),
        "subset_accuracy": float((diff == 0).sum()) / n,
        "example_accuracy": float(np.where(union == 0, 1.0, inter / np.where(union == 0, 1, union)).sum()) / n,
        "example_f1": float(np.where(union == 0, 1.0, 2 * inter / np.where(union == 0, 1, nY + nP)).sum()) / n,
        "example_precision": float(np.where(nP == 0, 1.0, inter / np.where(nP == 0, 1, nP)).sum()) / n,
        "example_recall": float(np.where(nY == 0, 1.0, inter / np.where(nY == 0, 1, nY)).sum()) / n,
    }
    R = ranks(S)
    worst = np.where(Yb, R, 0).max(axis=1)
    labelled = nY > 0
    m["coverage"] = float(worst.sum()) / labelled.sum() - 1 if labelled.any() else math.nan
    rk = (nY > 0) & (nY < q)
    if rk.any():
        Yr, Sr, Rr, nYr = Yb[rk], S[rk], R[rk], nY[rk]
        top = Sr.argmax(axis=1)
        m["one_error"] = float((~Yr[np.arange(len(top)), top]).sum()) / rk.sum()
        pairs = (Yr[:, :, None] & ~Yr[:, None, :] & (Sr[:, :, None] <= Sr[:, None, :])).sum(axis=(1, 2))
        m["ranking_loss"] = float((pairs / (nYr * (q - nYr))).sum()) / rk.sum()
        better = (Yr[:, None, :] & (Rr[:, None, :] <= Rr[:, :, None])).sum(axis=2)
        prec = np.where(Yr, better / Rr, 0).sum(axis=1)
        m["average_precision"] = float((prec / nYr).sum()) / rk.sum()
    else:
        m["one_error"] = m["ranking_loss"] = m["average_precision"] = math.nan
    tp = (Yb & Pb).sum(axis=0).astype(float)
    fp = (~Yb & Pb).sum(axis=0).astype(float)
    fn = (Yb & ~Pb).sum(axis=0).astype(float)
    m["micro_f1"] = float(f1_of(tp.sum(), fp.sum(), fn.sum()))
    m["macro_f1"] = float(f1_of(tp, fp, fn).sum()) / q
    return m


XC_KS = (1, 3, 5)


def xc_metrics(Y, S, Ytr, a=0.55, b=1.5):
    """evaluate.XCMetrics with evaluate.InversePropensities of the training
    labels Ytr (Jain et al. 2016; the product's default A and B): P@k and
    nDCG@k averaged over all rows (a row without labels counts 0), PSP@k and
    PSnDCG@k as ratios of means over their best values (pyxclib's); top_k in
    the order of ranks() (of tied scores the later label first). With fewer
    than 3 training rows, or no labelled test row, the propensity-scored
    ones are NaN. Scores are never NaN here."""
    n, q = Y.shape
    Yb = Y != 0
    ntr = Ytr.shape[0]
    w = None
    if ntr >= 3:
        w = 1 + (math.log(ntr) - 1) * (b + 1) ** a * ((Ytr != 0).sum(axis=0) + b) ** (-a)
    order = np.argsort(S, axis=1, kind="stable")[:, ::-1][:, :max(XC_KS)]
    hits = np.take_along_axis(Yb, order, axis=1).astype(float)
    disc = 1 / np.log2(np.arange(2, hits.shape[1] + 2))
    cum = np.concatenate([[0.0], np.cumsum(disc)])
    nY = Yb.sum(axis=1)
    lab = nY > 0
    m = {}
    for k in XC_KS:
        kk = min(k, hits.shape[1])
        h, dk = hits[:, :kk], disc[:kk]
        ideal = np.where(lab, cum[np.minimum(k, nY)], 1.0)
        m["precision_at_%d" % k] = float(h.sum()) / k / n
        m["ndcg_at_%d" % k] = float(np.where(lab, (h * dk).sum(axis=1) / ideal, 0).sum()) / n
        psp = psn = math.nan
        if w is not None:
            ps = h * w[order[:, :kk]]
            best = -np.sort(-np.where(Yb, w, 0), axis=1)[:, :kk]  # the true labels' weights, largest first
            if best.sum() > 0:
                psp = float(ps.sum()) / float(best.sum())
                psn = float(((ps * dk).sum(axis=1) / ideal).sum()) / float(((best * dk).sum(axis=1) / ideal).sum())
        m["psprecision_at_%d" % k] = psp
        m["psndcg_at_%d" % k] = psn
    return m


# ---------------------------------------------------------------- methods

def top(w, V, d):
    """The d leading pairs of eigh's ascending ones, largest first."""
    return w[::-1][:d], V[:, ::-1][:, :d]


def fit_pca(X, Y, d):
    """fitPCA: the top eigenvectors of C = XcᵀXc; with fewer rows than
    features from XcXcᵀ (the product's N×N path), P = XcᵀV/√λ."""
    mu = X.mean(axis=0)
    Xc = X - mu
    if Xc.shape[0] >= Xc.shape[1]:
        _, P = top(*np.linalg.eigh(Xc.T @ Xc), d)
    else:
        w, V = top(*np.linalg.eigh(Xc @ Xc.T), d)
        P = Xc.T @ V / np.sqrt(w)
    return mu, P


def fit_mddmp(X, Y, d):
    """fitMDDMp, linear label kernel: the left singular vectors of XcᵀY."""
    mu = X.mean(axis=0)
    U, _, _ = np.linalg.svd((X - mu).T @ Y, full_matrices=False)
    return mu, U[:, :d]


def fit_mddmf(X, Y, d):
    """fitMDDMf: S p = λ(βC + (1−β)I)p, S = BBᵀ, B = XcᵀY; with
    βC + (1−β)I = LLᵀ, the left singular vectors U of L⁻¹B give the
    B-orthonormal P = L⁻ᵀU (lowRankGenEig)."""
    mu = X.mean(axis=0)
    Xc = X - mu
    L = np.linalg.cholesky(BETA * (Xc.T @ Xc) + (1 - BETA) * np.eye(X.shape[1]))
    U, _, _ = np.linalg.svd(scipy.linalg.solve_triangular(L, Xc.T @ Y, lower=True), full_matrices=False)
    return mu, scipy.linalg.solve_triangular(L.T, U[:, :d], lower=False)


def fit_cca(X, Y, d):
    """fitCCA: B(YcᵀYc + r_yI)⁻¹Bᵀ w = λ(C + r_xI)w over the labels that vary,
    as numpy_ref.cca, then each direction divided by its length (normalize
    "unit", the default)."""
    mu = X.mean(axis=0)
    Xc = X - mu
    Yc = Y - Y.mean(axis=0)
    Cyy = Yc.T @ Yc
    keep = np.diag(Cyy) > 0
    Cyy, Yc = Cyy[np.ix_(keep, keep)], Yc[:, keep]
    Ly = np.linalg.cholesky(Cyy + CCA_LABEL_RIDGE * np.mean(np.diag(Cyy)) * np.eye(Cyy.shape[0]))
    F = scipy.linalg.solve_triangular(Ly, (Xc.T @ Yc).T, lower=True).T
    L = np.linalg.cholesky(Xc.T @ Xc + CCA_RIDGE * np.eye(X.shape[1]))
    U, _, _ = np.linalg.svd(scipy.linalg.solve_triangular(L, F, lower=True), full_matrices=False)
    P = scipy.linalg.solve_triangular(L.T, U[:, :d], lower=False)
    return mu, P / np.linalg.norm(P, axis=0)


FEATURE_METHODS = {"pca": fit_pca, "mddmp": fit_mddmp, "mddmf": fit_mddmf, "cca": fit_cca}


def ridge_with_bias(X, T, lam):
    """evaluate.fitRidgeBias: W = (X̃ᵀX̃ + λI)⁻¹X̃ᵀT for X̃ = [X, 1], or with
    fewer rows than columns X̃ᵀ(X̃X̃ᵀ + λI)⁻¹T (solveRidgeDual)."""
    Xb = np.hstack([X, np.ones((X.shape[0], 1))])
    n, c = Xb.shape
    if n < c:
        L = np.linalg.cholesky(Xb @ Xb.T + lam * np.eye(n))
        return Xb.T @ scipy.linalg.cho_solve((L, True), T)
    L = np.linalg.cholesky(Xb.T @ Xb + lam * np.eye(c))
    return scipy.linalg.cho_solve((L, True), Xb.T @ T)


def fit_cplst(X, Y, d, lam):
    """fitCPLST: the top eigenvectors V of ZᵀĤZ = (XᵀZ)ᵀ(XᵀX + λI)⁻¹(XᵀZ), Z the
    centred ±1 labels, X as given; with fewer rows than features through
    G = XXᵀ: ZᵀĤZ = ZᵀG(G + λI)⁻¹Z = ZᵀZ − λ‖L⁻¹Z‖², G + λI = LLᵀ.
    Returns the ±1 means ȳ and V."""
    Zpm = 2 * Y - 1
    ybar = Zpm.mean(axis=0)
    Z = Zpm - ybar
    n, D = X.shape
    if n < D:
        L = np.linalg.cholesky(X @ X.T + lam * np.eye(n))
        F = scipy.linalg.solve_triangular(L, Z, lower=True)
        H = Z.T @ Z - lam * (F.T @ F)
    else:
        L = np.linalg.cholesky(X.T @ X + lam * np.eye(D))
        F = scipy.linalg.solve_triangular(L, X.T @ Z, lower=True)
        H = F.T @ F
    _, V = top(*np.linalg.eigh((H + H.T) / 2), d)
    return ybar, V


def eval_cplst(Xtr, Ytr, Xte, Yte, dims, lam):
    """evaluate's labelSpace for cplst: one ridge regression (with a bias
    column) from the features to the codes of the largest d serves every d;
    round-based decoding h = [Vᵀr + ȳ > 0], the scores Vᵀr + ȳ, and the
    encoding and prediction errors per test row."""
    ybar, V = fit_cplst(Xtr, Ytr, max(dims), lam)
    codes = (2 * Ytr - 1 - ybar) @ V
    pred = np.hstack([Xte, np.ones((Xte.shape[0], 1))]) @ ridge_with_bias(Xtr, codes, lam)
    zte = 2 * Yte - 1 - ybar
    nte = Xte.shape[0]
    out = {}
    for d in dims:
        Vd, pd = V[:, :d], pred[:, :d]
        scores = pd @ Vd.T + ybar
        m = multilabel_metrics(Yte, (scores > 0).astype(float), scores)
        m.update(xc_metrics(Yte, scores, Ytr))
        tz = zte @ Vd
        enc = zte - tz @ Vd.T
        m["encoding_error"] = float((enc * enc).sum()) / nte
        m["prediction_error"] = float(((pd - tz) ** 2).sum()) / nte
        m["loss_bound"] = m["encoding_error"] + m["prediction_error"]
        out[d] = m
    return out


# ---------------------------------------------------------------- the protocol

def project(X, uniq, mu, P):
    """The rows of X projected, (x − μ)·P, each distinct row once: a matrix
    product may round two equal rows differently (by where they fall in its
    blocks), which would break the exact ties between duplicate rows that
    the product's projection keeps (it rounds every row alike) and its
    neighbour search gives to the lower index. uniq is np.unique(X, axis=0,
    return_inverse=True)."""
    rows, inverse = uniq
    return ((rows - mu) @ P)[inverse]


def evaluate(X, Y, folds, methods, dims, k, s, lam):
    """evaluate.Run on the given folds: every (method, d)'s metrics on each
    fold, then their mean over the folds where each is defined (summed in
    fold order, as the product's meanStd)."""
    cells = {}
    uniq = np.unique(X, axis=0, return_inverse=True)
    for f in sorted(set(folds.tolist())):
        te, tr = np.flatnonzero(folds == f), np.flatnonzero(folds != f)
        Xtr, Xte, Ytr, Yte = X[tr], X[te], Y[tr], Y[te]
        pred, post = mlknn(Xtr, Ytr, Xte, k, s)
        cells.setdefault(("ori", X.shape[1]), []).append(multilabel_metrics(Yte, pred, post) | xc_metrics(Yte, post, Ytr))
        for name in methods:
            if name == "cplst":
                for d, m in eval_cplst(Xtr, Ytr, Xte, Yte, dims, lam).items():
                    cells.setdefault((name, d), []).append(m)
                continue
            mu, P = FEATURE_METHODS[name](Xtr, Ytr, max(dims))
            Z = project(X, uniq, mu, P)
            Ztr, Zte = Z[tr], Z[te]
            for d in dims:
                pred, post = mlknn(Ztr[:, :d], Ytr, Zte[:, :d], k, s)
                cells.setdefault((name, d), []).append(multilabel_metrics(Yte, pred, post) | xc_metrics(Yte, post, Ytr))
    rows = []
    for (name, d), per_fold in cells.items():
        mean = {}
        for key in per_fold[0]:
            vals = [m[key] for m in per_fold if not math.isnan(m[key])]
            total = 0.0
            for v in vals:
                total += v
            mean[key] = total / len(vals) if vals else None
        rows.append({"method": name, "d": d, "metrics": mean})
    return rows


# ---------------------------------------------------------------- commands

def info():
    np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS is loaded
    return {"numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__,
            "python": platform.python_version(), "blas": ref.blas_info()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info", help="print the numpy, scipy, scikit-learn and BLAS in use as JSON")
    e = sub.add_parser("eval", help="time the evaluation protocol on a data file and print JSON")
    e.add_argument("--data", required=True, help="the data file: CSV (label columns named label:…) or ARFF")
    e.add_argument("--xml", help="with an ARFF file: the Mulan XML file naming its labels")
    e.add_argument("--folds", required=True, help="text file: each row's fold (1…k), one a line")
    e.add_argument("--methods", default="pca,mddmp,mddmf,cca,cplst", help="comma-separated (pca, mddmp, mddmf, cca, cplst)")
    e.add_argument("--dims", default="1,2,3,4,5", help="the grid of d, comma-separated")
    m = sub.add_parser("mlknn", help="time ML-kNN alone on .npy files and print JSON")
    m.add_argument("--x", required=True, help="features, N×D .npy")
    m.add_argument("--y", required=True, help="0/1 labels, N×q .npy")
    m.add_argument("--train-rows", type=int, required=True, help="how many rows, the first ones, to train on")
    for p in (e, m):
        p.add_argument("--k", type=int, default=10, help="ML-kNN's neighbours (default 10)")
        p.add_argument("--s", type=float, default=1.0, help="ML-kNN's smoothing (default 1)")
        p.add_argument("--reps", type=int, default=3, help="timed runs (default 3)")
        p.add_argument("--warmup-under", type=float, default=5.0,
                       help="seconds: a shorter first run is an untimed warm-up (default 5)")
    e.add_argument("--lambda", dest="lam", type=float, default=LAMBDA, help="cplst's λ and its regressor's (default 0.1)")
    args = parser.parse_args()

    if args.cmd == "info":
        json.dump(info(), sys.stdout)
        print()
        return

    start = time.perf_counter()
    out = {}
    if args.cmd == "eval":
        X, Y = load_data(args.data, args.xml)
        folds = np.loadtxt(args.folds, dtype=np.int64, ndmin=1)
        if folds.shape[0] != X.shape[0]:
            raise SystemExit("%s gives %d folds for the %d rows of %s" % (args.folds, folds.shape[0], X.shape[0], args.data))
        methods = [s for s in args.methods.split(",") if s]
        for name in methods:
            if name != "cplst" and name not in FEATURE_METHODS:
                raise SystemExit("unknown method %r" % name)
        dims = sorted({int(v) for v in args.dims.split(",") if v})

        def run():
            out["rows"] = evaluate(X, Y, folds, methods, dims, args.k, args.s, args.lam)
    else:
        X, Y = np.load(args.x), np.load(args.y)
        ntr = args.train_rows

        def run():
            out["pred"] = mlknn(X[:ntr], Y[:ntr], X[ntr:], args.k, args.s)
    load = time.perf_counter() - start
    times, warmup = ref.time_runs(args.reps, args.warmup_under, run)
    result = {"times": times, "warmup": warmup, "load": load}
    if args.cmd == "eval":
        result["rows"] = out["rows"]
    else:  # the test rows' metrics, after the clock (cmd/benchcmp's Go child does the same)
        result["metrics"] = multilabel_metrics(Y[ntr:], *out["pred"])
    json.dump(clean(result), sys.stdout, allow_nan=False)
    print()


def clean(v):
    """v with every NaN made None (null), since JSON has no NaN."""
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


if __name__ == "__main__":
    main()
