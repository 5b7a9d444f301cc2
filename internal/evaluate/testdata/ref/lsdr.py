#!/usr/bin/python3
"""Reference PLST and CPLST with a linear ridge regressor (spec C of
README.md, the CPLST authors' code) on yeast-train (1500 rows) →
yeast-test (917 rows) for M = 1…14, written to lsdr_yeast.json.

* Labels coded ±1: Ypm = 2Y − 1; ȳ = column means of Ypm over the training
  rows; Z = Ypm − ȳ (test rows shifted by the training ȳ).
* PLST: V_M = top-M eigenvectors of Z_trᵀZ_tr. CPLST: top-M eigenvectors
  of Z_trᵀ X_tr (X_trᵀX_tr + λI)⁻¹ X_trᵀ Z_tr, X as given (no centring, no
  bias column).
* Codes T = Z_tr V_M; regressor W = (X̃ᵀX̃ + λI)⁻¹ X̃ᵀ T with X̃ = [X_tr, 1],
  λ on every weight including the bias; t̂ = [X_te, 1] W.
* Decoding ŷ = 1 where t̂ V_Mᵀ + ȳ > 0 (0 counts as −1).
* encoding_error = ‖Z_te − Z_te V_M V_Mᵀ‖²_F / N_te,
  prediction_error = ‖t̂ − Z_te V_M‖²_F / N_te.
* Plain ridge binary relevance: ŷ = 1 where [X_te, 1] W_Z + ȳ > 0 with
  W_Z = (X̃ᵀX̃ + λI)⁻¹ X̃ᵀ Z_tr. At M = q PLST and CPLST must give exactly
  its predictions (V_M is then a rotation): asserted.

λ = 0.1. Eigenvectors by numpy.linalg.eigh, checked against
scipy.linalg.svd (PLST: right singular vectors of Z_tr) and against the
explicit N×N ridge hat matrix (CPLST); the whole pipeline is run a second
time with those eigenvectors and scipy's Cholesky solver, and must give
identical predictions and errors equal to rounding.

    /usr/bin/python3 internal/evaluate/testdata/ref/lsdr.py
"""

import sys
import time

import numpy as np
import scipy.linalg as sla

import common

GENERATOR = "internal/evaluate/testdata/ref/lsdr.py"
LAMBDA = 0.1


def top_eigvecs(A):
    """Eigenvalues descending and the matching unit eigenvectors (columns)
    of the symmetric A."""
    w, v = np.linalg.eigh((A + A.T) / 2)
    order = np.argsort(w)[::-1]
    return w[order], v[:, order]


def ridge(Xt, T, lam):
    """(X̃ᵀX̃ + λI)⁻¹ X̃ᵀ T with X̃ = [Xt, 1] (λ on the bias too)."""
    Xb = np.hstack([Xt, np.ones((Xt.shape[0], 1))])
    A = Xb.T @ Xb + lam * np.eye(Xb.shape[1])
    return np.linalg.solve(A, Xb.T @ T)


def with_bias(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def subspace_dist(U, V):
    """1 − smallest cosine of the principal angles between span U and V."""
    s = np.linalg.svd(U.T @ V, compute_uv=False)
    return float(1 - s.min())


def main():
    Xtr, Ytr, _, info_tr = common.load_csv("yeast/yeast-train.csv")
    Xte, Yte, _, info_te = common.load_csv("yeast/yeast-test.csv")
    n_te, q = Yte.shape
    t0 = time.perf_counter()

    ybar = (2 * Ytr - 1).mean(axis=0)
    Ztr = (2 * Ytr - 1) - ybar
    Zte = (2 * Yte - 1) - ybar

    # PLST and CPLST matrices (q×q).
    XtZ = Xtr.T @ Ztr
    G = Xtr.T @ Xtr + LAMBDA * np.eye(Xtr.shape[1])
    mats = {"plst": Ztr.T @ Ztr, "cplst": XtZ.T @ np.linalg.solve(G, XtZ)}
    eig = {name: top_eigvecs(A) for name, A in mats.items()}

    # Second routes: SVD of Z_tr; the explicit ridge hat matrix.
    _, sv, vt = sla.svd(Ztr, full_matrices=False)
    H = Xtr @ np.linalg.solve(G, Xtr.T)
    w_h, v_h = top_eigvecs(Ztr.T @ H @ Ztr)
    checks = {
        "plst_eigenvalues_vs_svd_rel": float(np.max(np.abs(eig["plst"][0] - sv ** 2)) / sv[0] ** 2),
        "cplst_eigenvalues_vs_hat_matrix_rel": float(np.max(np.abs(eig["cplst"][0] - w_h)) / w_h[0]),
    }
    worst_plst = worst_cplst = 0.0
    for m in range(1, q):
        worst_plst = max(worst_plst, subspace_dist(eig["plst"][1][:, :m], vt[:m].T))
        worst_cplst = max(worst_cplst, subspace_dist(eig["cplst"][1][:, :m], v_h[:, :m]))
    checks["plst_subspaces_vs_svd_max_1_minus_cos"] = worst_plst
    checks["cplst_subspaces_vs_hat_matrix_max_1_minus_cos"] = worst_cplst
    assert checks["plst_eigenvalues_vs_svd_rel"] < 1e-12
    assert checks["cplst_eigenvalues_vs_hat_matrix_rel"] < 1e-10
    assert worst_plst < 1e-12 and worst_cplst < 1e-10, checks
    for name in mats:
        w = eig[name][0]
        checks[f"{name}_min_relative_eigengap"] = float(np.min(-np.diff(w)) / w[0])
        assert checks[f"{name}_min_relative_eigengap"] > 1e-6, name

    # Plain ridge binary relevance under the same ±1, ȳ-shifted convention.
    W_br = ridge(Xtr, Ztr, LAMBDA)
    out_br = with_bias(Xte) @ W_br + ybar
    pred_br = (out_br > 0).astype(int)
    br_hl = int(np.sum(pred_br != Yte)) / (n_te * q)

    # A second route for every M (eigenvectors from the SVD of Z_tr / the
    # explicit hat matrix, regression by scipy's Cholesky solver): the
    # predictions must be identical and the errors agree to rounding.
    second = {"plst": vt.T, "cplst": v_h}

    def second_route(name, m):
        V = second[name][:, :m]
        Xb = with_bias(Xtr)
        A = Xb.T @ Xb + LAMBDA * np.eye(Xb.shape[1])
        W = sla.solve(A, Xb.T @ (Ztr @ V), assume_a="pos")
        that = with_bias(Xte) @ W
        pred = (that @ V.T + ybar > 0).astype(int)
        enc = float(np.sum((Zte - Zte @ V @ V.T) ** 2)) / n_te
        prd = float(np.sum((that - Zte @ V) ** 2)) / n_te
        return pred, enc, prd

    rows = []
    min_margin = {name: np.inf for name in mats}
    worst_rel = 0.0
    for m in range(1, q + 1):
        row = {"m": m}
        for name in mats:
            V = eig[name][1][:, :m]  # q×M, directions as columns
            T = Ztr @ V
            W = ridge(Xtr, T, LAMBDA)
            that = with_bias(Xte) @ W
            out = that @ V.T + ybar
            pred = (out > 0).astype(int)
            min_margin[name] = min(min_margin[name], float(np.min(np.abs(out))))
            enc = float(np.sum((Zte - Zte @ V @ V.T) ** 2)) / n_te
            prd = float(np.sum((that - Zte @ V) ** 2)) / n_te
            hl = int(np.sum(pred != Yte)) / (n_te * q)
            row[name] = {"hamming_loss": hl, "encoding_error": enc, "prediction_error": prd,
                         "wrong_labels": int(np.sum(pred != Yte))}
            pred2, enc2, prd2 = second_route(name, m)
            assert np.array_equal(pred, pred2), (name, m)
            scale = float(np.sum(Zte ** 2)) / n_te
            worst_rel = max(worst_rel, abs(enc - enc2) / max(enc, 1e-12 * scale),
                            abs(prd - prd2) / prd)
            if m == q:
                assert np.array_equal(pred, pred_br), (name, int(np.sum(pred != pred_br)))
                assert hl == br_hl
        rows.append(row)
    assert rows[-1]["plst"]["hamming_loss"] == rows[-1]["cplst"]["hamming_loss"] == br_hl
    checks["min_abs_decision_value_plst"] = min_margin["plst"]
    checks["min_abs_decision_value_cplst"] = min_margin["cplst"]
    checks["min_abs_decision_value_br"] = float(np.min(np.abs(out_br)))
    checks["m14_predictions_equal_br"] = True
    checks["second_route_predictions_identical"] = True
    checks["second_route_errors_max_rel_diff"] = worst_rel
    assert worst_rel < 1e-9, worst_rel

    # For information only (not spec C): the feature-space convention of
    # shared/METHODS.md for ridge binary relevance on unreduced features
    # (X and Y centred with training means, [Xc, 1], λ = 0.1 on every
    # weight, 0/1 targets, predicted where ≥ 0.5) — what an "ori" ridge row
    # would give under that convention.
    mx = Xtr.mean(axis=0)
    my = Ytr.mean(axis=0)
    W_c = ridge(Xtr - mx, Ytr - my, LAMBDA)
    out_c = with_bias(Xte - mx) @ W_c + my
    ori_centred = int(np.sum((out_c >= 0.5).astype(int) != Yte)) / (n_te * q)
    t1 = time.perf_counter()

    doc = {
        "generator": GENERATOR,
        "software": common.SOFTWARE,
        "definition": "spec C of README.md (the CPLST authors' code): ±1 labels shifted by the "
                      "training means; PLST eig(ZᵀZ), CPLST eig(ZᵀX(XᵀX+λI)⁻¹XᵀZ) on raw X; "
                      "ridge [X,1] with λ on every weight; decode sign(t̂Vᵀ + ȳ), 0 → −1; "
                      "errors divided by N_test",
        "params": {"lambda": LAMBDA},
        "train": info_tr,
        "test": info_te,
        "eigenvalues": {name: eig[name][0].tolist() for name in mats},
        "rows": rows,
        "br_hamming_loss": br_hl,
        "info_ori_ridge_centred_01_hamming_loss": ori_centred,
        "encoding_error_m0": float(np.sum(Zte ** 2)) / n_te,
        "checks": checks,
    }
    path = common.write_json("lsdr_yeast.json", doc)
    print("PLST / CPLST + ridge (λ = 0.1), yeast-train → yeast-test")
    print(f"  {'M':>2s}  {'plst HL':>10s} {'enc':>9s} {'pred':>9s}   {'cplst HL':>10s} {'enc':>9s} {'pred':>9s}")
    for r in rows:
        p, c = r["plst"], r["cplst"]
        print(f"  {r['m']:2d}  {p['hamming_loss']:10.6f} {p['encoding_error']:9.5f} {p['prediction_error']:9.5f}"
              f"   {c['hamming_loss']:10.6f} {c['encoding_error']:9.5f} {c['prediction_error']:9.5f}")
    print(f"  plain ridge BR hamming loss {br_hl!r} (= PLST = CPLST at M = {q}, asserted)")
    print(f"  for information, ridge BR under the centred 0/1 convention: {ori_centred!r}")
    for k, v in checks.items():
        print(f"  {k}: {v}")
    print(f"  timing {t1 - t0:.2f} s")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
