#!/usr/bin/python3
"""Independent reference values for the label-space baselines of
internal/analysis/lsbase.go (lsbase_test.go): mlcssp, faie, rembrandt and
leml on the shared data sets yeast, enron (not leml) and emotions (leml
only).

Written from the papers' equations with numpy/scipy only, without reading
the Go code, and by other routes than the Go code takes (N×N matrices
where Go avoids them, lstsq and pinv where it uses QR, scipy's Sylvester
solver where it uses eigenbases). Labels are coded as the product codes
them (docs/METHODS.md, label-space methods): Z = (2Y − 1) − column means.

Run with Debian's interpreter (numpy 1.24, scipy 1.10):

    /usr/bin/python3 internal/analysis/testdata/ref/lsbase.py

It writes lsbase.json next to itself (compact JSON, floats as repr) and
prints its own cross-checks; about a minute on two cores (faie's N×N
eigen-decompositions and leml's sweeps take most of it).
"""

import csv
import hashlib
import json
import os
import platform
import time

import numpy as np
import scipy
import scipy.linalg as sla

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "..", "shared", "datasets"))
GENERATOR = "internal/analysis/testdata/ref/lsbase.py"
SOFTWARE = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__}

M = 5  # directions compared


def load(name):
    """shared/datasets/<name>/<name>.csv: "label:…" columns are the 0/1
    labels, the rest the features (as golden.py reads them)."""
    rel = f"{name}/{name}.csv"
    with open(os.path.join(DATASETS, rel), "rb") as f:
        raw = f.read()
    rows = list(csv.reader(raw.decode("utf-8").splitlines()))
    header, body = rows[0], rows[1:]
    lab = [j for j, h in enumerate(header) if h.startswith("label:")]
    feat = [j for j, h in enumerate(header) if not h.startswith("label:")]
    X = np.array([[float(r[j]) for j in feat] for r in body])
    Y = np.array([[float(r[j]) for j in lab] for r in body])
    assert set(np.unique(Y)) <= {0.0, 1.0}
    info = {"dataset": name, "file": rel, "sha256": hashlib.sha256(raw).hexdigest(),
            "n": X.shape[0], "d": X.shape[1], "q": Y.shape[1]}
    return X, Y, info


def coded(Y):
    P = 2 * Y - 1
    return P - P.mean(axis=0)


def fix_signs(v, *others):
    """Largest-magnitude entry of each column of v positive; the same
    flips applied to the columns of others."""
    v = np.array(v, dtype=float)
    others = [np.array(o, dtype=float) for o in others]
    for k in range(v.shape[1]):
        i = int(np.argmax(np.abs(v[:, k])))
        if v[i, k] < 0:
            v[:, k] = -v[:, k]
            for o in others:
                o[:, k] = -o[:, k]
    return (v, *others) if others else v


def cols(a):
    return [list(map(float, a[:, k])) for k in range(a.shape[1])]


def ridge_hat(X, lam):
    """Ĥ = X (XᵀX + λI)⁻¹ Xᵀ, N×N, X as given."""
    return X @ np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T)


# ------------------------------------------------------------ rembrandt

def rembrandt(X, Y):
    """Rembrandt (Mineiro & Karampatziakis 2015): the top right singular
    vectors of Π_X Z. (a) With the ridge λ = 0.1 that Go's rembrandt
    shares with cplst, the top eigenvectors of Zᵀ Ĥ Z with the N×N Ĥ.
    (b) λ → 0: the exact SVD of Π_X Z = Q Qᵀ Z, Q from the QR of X
    (scipy, pivoting none), checked against lstsq's projection."""
    Z = coded(Y)
    H = ridge_hat(X, 0.1)
    w, v = np.linalg.eigh(Z.T @ H @ Z)
    w, v = w[::-1], fix_signs(v[:, ::-1])
    out = {"lambda": 0.1, "eigenvalues": list(map(float, w[:M + 1])), "directions": cols(v[:, :M])}
    if np.linalg.matrix_rank(X) < X.shape[1]:
        return out  # Π_X needs X of full column rank for the QR route
    Q, _ = np.linalg.qr(X)
    PZ = Q @ (Q.T @ Z)
    coef, *_ = np.linalg.lstsq(X, Z, rcond=None)
    check = float(np.max(np.abs(PZ - X @ coef)) / np.max(np.abs(PZ)))
    assert check < 1e-10, check
    _, s, vt = np.linalg.svd(PZ, full_matrices=False)
    vp = fix_signs(vt.T)
    # the eigen route of (b), Zᵀ Π_X Z, as a second check
    w2 = np.linalg.eigvalsh(Z.T @ PZ)[::-1]
    check2 = float(np.max(np.abs(w2[:M] - s[:M] ** 2)) / s[0] ** 2)
    assert check2 < 1e-12, check2
    out["projection"] = {"eigenvalues": list(map(float, s[:M + 1] ** 2)), "directions": cols(vp[:, :M])}
    out["checks"] = {"pi_x_qr_vs_lstsq": check, "svd_vs_eigh": check2}
    return out


# ------------------------------------------------------------ mlcssp

def mlcssp(X, Y):
    """ML-CSSP (Bi & Kwok 2013): leverage probabilities p_i = ‖(V_k)_i‖²/k
    of the top-k right singular vectors of Z (eq. 6), k = M, from numpy's
    SVD of Z; then, for a fixed column set (the M largest p_i, ties to the
    lower index, in that order), the least-squares decoding
    B = Z_C⁺ Z (pinv) and, for each m ≤ M, the encoding error
    ‖Z − Z_{C_m} Z_{C_m}⁺ Z‖²_F of the first m columns (lstsq)."""
    Z = coded(Y)
    _, s, vt = np.linalg.svd(Z, full_matrices=False)
    Vk = vt[:M].T
    p = np.sum(Vk ** 2, axis=1) / M
    assert abs(p.sum() - 1) < 1e-12
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))[:M]
    ZC = Z[:, order]
    B = np.linalg.pinv(ZC) @ Z
    errs = []
    for m in range(1, M + 1):
        coef, *_ = np.linalg.lstsq(Z[:, order[:m]], Z, rcond=None)
        errs.append(float(np.sum((Z - Z[:, order[:m]] @ coef) ** 2)))
    check = float(np.max(np.abs(ZC @ B - Z[:, order] @ np.linalg.lstsq(ZC, Z, rcond=None)[0])))
    return {"k": M, "probabilities": list(map(float, p)), "columns": order,
            "decoder": [list(map(float, r)) for r in B], "encoding_error": errs,
            "checks": {"pinv_vs_lstsq": check}}


# ------------------------------------------------------------ faie

def faie(X, Y, alpha, lam):
    """FaIE (Lin, Ding, Hu & Wang, ICML 2014): V = top eigenvectors of the
    N×N Ω = ZZᵀ + α X(XᵀX + λI)⁻¹Xᵀ (eq. 9 with the linear ridge
    predictability term), formed and decomposed as it is; the decoder
    D = VᵀZ (eq. 4), stored as Dᵀ = ZᵀV (q×M) with the sign rule on its
    columns (and the same flips on V)."""
    Z = coded(Y)
    Om = Z @ Z.T + alpha * ridge_hat(X, lam)
    w, v = sla.eigh((Om + Om.T) / 2, subset_by_index=[Om.shape[0] - 12, Om.shape[0] - 1])
    w, v = w[::-1], v[:, ::-1]
    V = v[:, :M]
    Dt = Z.T @ V
    Dt, V = fix_signs(Dt, V)
    # check: VᵀΩV = diag(w)
    check = float(np.max(np.abs(V.T @ Om @ V - np.diag(w[:M]))) / w[0])
    assert check < 1e-10, check
    return {"alpha": alpha, "lambda": lam, "eigenvalues": list(map(float, w[:M + 1])),
            "decoder": cols(Dt), "codes_head": cols(V[:20]), "checks": {"vt_omega_v": check}}


# ------------------------------------------------------------ leml

def leml(X, Y, lam, seed):
    """LEML (Yu, Jain, Kar & Dhillon, ICML 2014) with the squared loss:
    J(U, V) = ‖Z − Xc U Vᵀ‖²_F + (λ/2)(‖U‖²_F + ‖V‖²_F), rank M, by
    alternating exact minimisation from numpy's own Gaussian start: U by
    scipy's Sylvester solver on G U + U (λ/2)(VᵀV)⁻¹ = C V (VᵀV)⁻¹
    (G = XcᵀXc, C = XcᵀZ), V = ZᵀXcU (UᵀXcᵀXcU + (λ/2)I)⁻¹ by solve, J
    from the explicit residual. Until J falls by less than 1e-15·J (or
    20 000 sweeps); J must never rise. Stores J, W = UVᵀ (D×q)."""
    Z = coded(Y)
    Xc = X - X.mean(axis=0)
    G, C = Xc.T @ Xc, Xc.T @ Z
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((Z.shape[1], M))
    h = lam / 2
    Js = []
    for it in range(20000):
        VtV = V.T @ V
        Vi = np.linalg.inv(VtV)
        U = sla.solve_sylvester(G, h * Vi, C @ V @ Vi)
        A = Xc @ U
        V = np.linalg.solve(A.T @ A + h * np.eye(M), A.T @ Z).T
        R = Z - A @ V.T
        J = float(np.sum(R ** 2) + h * (np.sum(U ** 2) + np.sum(V ** 2)))
        if Js:
            assert J <= Js[-1] * (1 + 1e-12), (J, Js[-1])
        Js.append(J)
        if len(Js) > 1 and Js[-2] - J <= 1e-15 * J:
            break
    W = U @ V.T
    return {"lambda": lam, "m": M, "objective": Js[-1], "sweeps": len(Js), "w": cols(W)}


def main():
    out = {"generator": GENERATOR, "software": SOFTWARE, "m": M, "cases": []}
    # leml's Sylvester sweeps cost D³ each: on yeast and emotions (D ≤ 103),
    # the others on yeast and enron (q = 53 labels, D = 1001 features).
    for name, alpha, methods in (("yeast", 200.0, "rmfl"), ("enron", 50.0, "rmf"), ("emotions", 0, "l")):
        t0 = time.time()
        X, Y, info = load(name)
        case = dict(info)
        if "r" in methods:
            case["rembrandt"] = rembrandt(X, Y)
        if "m" in methods:
            case["mlcssp"] = mlcssp(X, Y)
        if "f" in methods:
            case["faie"] = faie(X, Y, alpha, 0.1)
        if "l" in methods:
            case["leml"] = leml(X, Y, 1.0, 7)
            # a second start must reach the same optimum
            other = leml(X, Y, 1.0, 8)
            dw = float(np.max(np.abs(np.array(other["w"]) - np.array(case["leml"]["w"]))) / np.max(np.abs(case["leml"]["w"])))
            case["leml"]["checks"] = {"second_start_w": dw, "second_start_objective": abs(other["objective"] - case["leml"]["objective"]) / case["leml"]["objective"],
                                      "second_start_sweeps": other["sweeps"]}
        print(name, "%.1f s" % (time.time() - t0), json.dumps({k: case[k].get("checks") for k in ("rembrandt", "mlcssp", "faie", "leml") if k in case}))
        out["cases"].append(case)
    with open(os.path.join(HERE, "lsbase.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
