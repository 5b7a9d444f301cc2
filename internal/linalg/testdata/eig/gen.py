#!/usr/bin/python3
"""Reference eigen-decompositions for internal/linalg (eig_golden_test.go).

Builds small symmetric test matrices from integer formulas that Go rebuilds
bit for bit (or, for "clustered", to within rounding), decomposes them with
numpy.linalg.eigh (LAPACK dsyevd) and writes golden.json next to this
script. It reads no Go code, so the file is an independent reference.

Run with Debian's interpreter (numpy 1.24):

    /usr/bin/python3 internal/linalg/testdata/eig/gen.py

Every decomposition is checked here too (residual, orthogonality, and
eigvalsh against eigh); the script stops if a check fails.
"""

import json
import os
import platform

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
P = 10007


def h(i, j, s):
    """Symmetric integer hash in [0, P): the same formula as golden_test."""
    return ((i + 1) * (j + 1) * 7919 + (i + j + 2) * 104729 + s * 15485863) % P


def g(r, c):
    """Non-symmetric integer hash in [0, P)."""
    return ((r + 1) * 7919 + (c + 1) * 104729 + (r + 1) * (c + 1) * 31) % P


def hashed(n, s):
    return np.array([[h(i, j, s) / P - 0.5 for j in range(n)] for i in range(n)])


def unit(r, c):
    return np.array([[g(i, j) / P - 0.5 for j in range(c)] for i in range(r)])


def cases():
    yield "hash-150", "a_ij = h(i,j,1)/P - 1/2", hashed(150, 1), [0, 1, 2, 3, 4, 145, 146, 147, 148, 149]
    yield "hash-240", "a_ij = h(i,j,2)/P - 1/2", hashed(240, 2), [0, 1, 2, 3, 4, 5]
    x = unit(40, 120)
    yield "gram-120", "X^T X, x_rc = g(r,c)/P - 1/2, X 40x120 (rank 40)", x.T @ x, []
    w = unit(3, 100)
    yield "identity-rank3-100", "I + W^T W, w_rc = g(r,c)/P - 1/2, W 3x100", np.eye(100) + w.T @ w, [0, 1, 2]
    n = 80
    gr = np.array([[(h(i, j, 5) / P - 0.5) * 2.0 ** -((i + j) // 4) for j in range(n)] for i in range(n)])
    yield "graded-80", "a_ij = (h(i,j,5)/P - 1/2) 2^-floor((i+j)/4)", gr, []
    wk = np.diag([abs(10.0 - i) for i in range(21)]) + np.diag(np.ones(20), 1) + np.diag(np.ones(20), -1)
    yield "wilkinson-21", "W+_21: d_i = |10 - i|, e_i = 1", wk, []
    n = 60
    v = np.array([g(0, i) / P - 0.5 for i in range(n)])
    q = np.eye(n) - 2 * np.outer(v, v) / (v @ v)
    lam = np.array([float(1 + i % 3) + 1e-12 * (i // 3) for i in range(n)])
    a = q @ np.diag(lam) @ q.T
    yield "clustered-60", "Q diag(1 + i mod 3 + 1e-12 floor(i/3)) Q^T, Q = I - 2vv^T/v^Tv, v_i = g(0,i)/P - 1/2", (a + a.T) / 2, []


def fix_sign(v):
    """The largest-magnitude entry positive (the first on a tie)."""
    at = int(np.argmax(np.abs(v)))
    return v if v[at] >= 0 else -v


def main():
    out = {
        "generator": "internal/linalg/testdata/eig/gen.py",
        "software": {"python": platform.python_version(), "numpy": np.__version__},
        "hash": "h(i,j,s) = ((i+1)(j+1)7919 + (i+j+2)104729 + 15485863 s) mod 10007; "
                "g(r,c) = ((r+1)7919 + (c+1)104729 + 31(r+1)(c+1)) mod 10007; P = 10007",
        "cases": [],
    }
    for name, formula, a, keep in cases():
        assert np.array_equal(a, a.T), name
        w, v = np.linalg.eigh(a)
        w, v = w[::-1], v[:, ::-1]  # descending
        n = len(w)
        norm = max(abs(w[0]), abs(w[-1]))
        res = np.linalg.norm(a @ v - v * w, 2) / norm
        orth = np.linalg.norm(v.T @ v - np.eye(n), 2)
        wv = np.sort(np.linalg.eigvalsh(a))[::-1]
        dv = np.max(np.abs(wv - w)) / norm
        print(f"{name:20s} n={n:4d} residual {res:.2e} orthogonality {orth:.2e} eigvalsh-eigh {dv:.2e}")
        assert res < 1e-13 and orth < 1e-13 and dv < 1e-13, name
        out["cases"].append({
            "name": name,
            "definition": formula,
            "n": n,
            "eigenvalues": [float(x) for x in w],
            "vector_index": keep,
            "vectors": [[float(x) for x in fix_sign(v[:, j])] for j in keep],
        })
    path = os.path.join(HERE, "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
