#!/usr/bin/python3
"""Reference MLSI and CCA followed by ridge binary relevance, as the FSDR
baselines of the papers run them, on emotions-train (391 rows) →
emotions-test (202 rows) at d = 6, written to fsdr_emotions.json.

Written from the specification below (shared METHODS.md and
docs/METHODS.md of the product, the FSDR reference protocol), without
reading any Go code.

* Xc = X_tr − x̄ (training means), C = XcᵀXc, B = XcᵀYc with 0/1 labels,
  Yc = Y_tr − ȳ.
* MLSI (Yu, Yu & Tresp 2005), β = 0.5, ε = 1:
  ((1−β)·C·C + β·BBᵀ) p = λ (C + εI) p.
* CCA, r_x = 1, r_y = 1e-6 × mean diagonal of YcᵀYc:
  B (YcᵀYc + r_yI)⁻¹ Bᵀ p = λ (C + r_xI) p.
* Both solved by scipy.linalg.eigh(A, B) (LAPACK dsygvd: B-orthonormal
  eigenvectors), eigenvalues sorted descending, the first d = 6 kept.
* normalize "unit": every eigenvector divided by its Euclidean length, as
  the FSDR reference code does before projecting; "b": eigh's
  B-orthonormal vectors as they are (PᵀBP = I).
* Projection Z = (X − x̄_tr) P for the training and the test rows.
* Ridge binary relevance (the product's "ridge" classifier, the usual
  MATLAB baseline): Z and Y centred with the training means, λ = 0.1,
  W = (ZcᵀZc + λI)⁻¹ ZcᵀYc, scores S = (Z_te − z̄) W + ȳ; a label is
  predicted where S ≥ 0.5 (round decoding); the scores rank the labels.
* The ten multi-label metrics of common.py (spec A of README.md).

Checks (stop on failure): PᵀBP = I for "b" and unit columns for "unit";
the eigen equation's residual; the smallest |S − 0.5| (so that no rounding
difference can flip a prediction); the relative gaps between the first
seven eigenvalues (so that the directions are determined up to sign);
ridge with a penalised bias column instead of centring gives the same
predictions (recorded).

    /usr/bin/python3 internal/evaluate/testdata/ref/fsdr.py
"""

import sys
import time

import numpy as np
import scipy.linalg as sla

import common

GENERATOR = "internal/evaluate/testdata/ref/fsdr.py"
D = 6
BETA = 0.5
MLSI_EPS = 1.0
CCA_RX = 1.0
CCA_RY_SCALE = 1e-6
LAMBDA = 0.1


def problems(Xtr, Ytr):
    """The (A, B) pairs of MLSI and CCA, and the training feature means."""
    mean = Xtr.mean(axis=0)
    Xc = Xtr - mean
    Yc = Ytr - Ytr.mean(axis=0)
    C = Xc.T @ Xc
    Bx = Xc.T @ Yc
    d = C.shape[0]
    mlsi = ((1 - BETA) * C @ C + BETA * Bx @ Bx.T, C + MLSI_EPS * np.eye(d))
    ky = Yc.T @ Yc
    assert np.all(np.diag(ky) > 0), "a constant label: the product would drop it"
    ky = ky + CCA_RY_SCALE * np.mean(np.diag(ky)) * np.eye(ky.shape[0])
    cca = (Bx @ np.linalg.solve(ky, Bx.T), C + CCA_RX * np.eye(d))
    sym = lambda m: (m + m.T) / 2
    return {"mlsi": tuple(map(sym, mlsi)), "cca": tuple(map(sym, cca))}, mean


def ridge_br(Ztr, Ytr, Zte, lam):
    """Centred ridge binary relevance: scores of the test rows."""
    zm, ym = Ztr.mean(axis=0), Ytr.mean(axis=0)
    Zc = Ztr - zm
    W = np.linalg.solve(Zc.T @ Zc + lam * np.eye(Zc.shape[1]), Zc.T @ (Ytr - ym))
    return (Zte - zm) @ W + ym


def ridge_bias(Ztr, Ytr, Zte, lam):
    """Ridge with a bias column, λ on every weight (a cross-check only)."""
    a = np.hstack([Ztr, np.ones((len(Ztr), 1))])
    b = np.hstack([Zte, np.ones((len(Zte), 1))])
    W = np.linalg.solve(a.T @ a + lam * np.eye(a.shape[1]), a.T @ Ytr)
    return b @ W


def main():
    t0 = time.time()
    Xtr, Ytr, _, train = common.load_csv("emotions/emotions-train.csv")
    Xte, Yte, _, test = common.load_csv("emotions/emotions-test.csv")
    probs, mean = problems(Xtr, Ytr.astype(float))
    cases = []
    checks = {}
    for method in ["mlsi", "cca"]:
        A, Bm = probs[method]
        w, V = sla.eigh(A, Bm)
        order = np.argsort(w)[::-1]
        w, V = w[order], V[:, order]
        resid = np.linalg.norm(A @ V[:, :D] - (Bm @ V[:, :D]) * w[:D]) / np.linalg.norm(A)
        assert resid < 1e-10, (method, resid)
        gaps = [(w[i] - w[i + 1]) / w[0] for i in range(D)]
        assert min(gaps) > 1e-6, (method, gaps)
        checks[method + "_eigen_residual"] = float(resid)
        checks[method + "_smallest_relative_eigengap"] = float(min(gaps))
        for norm in ["unit", "b"]:
            P = V[:, :D].copy()
            if norm == "unit":
                P /= np.linalg.norm(P, axis=0)
                assert np.allclose(np.linalg.norm(P, axis=0), 1, rtol=0, atol=1e-14)
            else:
                g = P.T @ Bm @ P
                assert np.abs(g - np.eye(D)).max() < 1e-10, (method, np.abs(g - np.eye(D)).max())
            Ztr, Zte = (Xtr - mean) @ P, (Xte - mean) @ P
            S = ridge_br(Ztr, Ytr.astype(float), Zte, LAMBDA)
            pred = (S >= 0.5).astype(int)
            metrics, kept = common.multilabel_metrics(Yte, pred, S)
            margin = float(np.abs(S - 0.5).min())
            assert margin > 1e-6, (method, norm, margin)
            same_bias = bool(np.array_equal(pred, (ridge_bias(Ztr, Ytr.astype(float), Zte, LAMBDA) >= 0.5).astype(int)))
            cases.append({
                "method": method, "normalize": norm, "d": D,
                "eigenvalues": [float(v) for v in w[:D]],
                "column_lengths": [float(v) for v in np.linalg.norm(P, axis=0)],
                "metrics": metrics,
                "wrong_labels": int(np.sum(pred != Yte)),
                "smallest_margin": margin,
                "bias_column_same_predictions": same_bias,
            })
            print(f"{method:5} {norm:4} hamming_loss {metrics['hamming_loss']:.6f} "
                  f"({int(np.sum(pred != Yte))} wrong of {Yte.size}), smallest |S − 0.5| {margin:.2e}, "
                  f"bias column gives the same predictions: {same_bias}")
    doc = {
        "generator": GENERATOR,
        "software": common.SOFTWARE,
        "definition": "MLSI (beta 0.5, ridge 1) and CCA (ridge 1) by scipy.linalg.eigh(A, B), top 6 directions, "
                      "unit-length ('unit') or B-orthonormal ('b'), then centred ridge binary relevance (lambda 0.1, "
                      "predict where the score >= 0.5), emotions-train -> emotions-test",
        "params": {"d": D, "beta": BETA, "mlsi_ridge": MLSI_EPS, "cca_ridge": CCA_RX,
                   "cca_label_ridge_scale": CCA_RY_SCALE, "lambda": LAMBDA},
        "train": train, "test": test,
        "checks": checks,
        "cases": cases,
    }
    path = common.write_json("fsdr_emotions.json", doc)
    print(f"wrote {path} in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
