"""scipy's sparse routes on the issue's wide set, for BenchmarkWideSparse.

20 000 × 5 000 sparse features at 2 % (values uniform in [0, 1), as
scipy.sparse.random), q = 400 labels with about 4 ones a row, d = 20.
Each method runs in a child process; it prints the wall time of the
algebra (the data built beforehand) and the growth of the peak resident
set over the data's (ru_maxrss).

Rerun with Debian's python (numpy 1.24, scipy 1.10):

    /usr/bin/python3 internal/analysis/testdata/wide_scipy.py [method ...]
"""
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh, svds

N, D, Q, DENS, K = 20000, 5000, 400, 0.02, 20


def data():
    rng = np.random.default_rng(1)
    x = sp.random(N, D, density=DENS, format="csr", random_state=rng)
    rows = np.repeat(np.arange(N), 4)
    cols = rng.integers(0, Q, size=4 * N)
    y = sp.csr_matrix((np.ones(4 * N), (rows, cols)), shape=(N, Q))
    y.data[:] = 1
    y.sum_duplicates()
    y.data[:] = 1
    return x, y


def gram(x):
    mu = np.asarray(x.mean(axis=0)).ravel()
    g = (x.T @ x).toarray()
    g -= N * np.outer(mu, mu)
    return g, mu


def cross(x, y, mu):
    ybar = np.asarray(y.mean(axis=0)).ravel()
    return np.asarray((x.T @ y).todense()) - N * np.outer(mu, ybar)


def pca(x, y):
    g, _ = gram(x)
    return eigsh(g, k=K, which="LA")


def pca_free(x, y):
    mu = np.asarray(x.mean(axis=0)).ravel()

    def mv(v):
        u = x @ v - mu @ v
        return x.T @ u - mu * u.sum(axis=0)

    op = LinearOperator((D, D), matvec=mv, matmat=mv, dtype=float)
    return eigsh(op, k=K, which="LA")


def mddmp(x, y):
    mu = np.asarray(x.mean(axis=0)).ravel()
    f = cross(x, y, mu)
    return svds(f, k=K)


def mvmd(x, y):
    g, mu = gram(x)
    b = 2 * cross(x, y, mu)
    g = 0.5 * g + 0.5 * (b @ b.T)
    return eigsh(g, k=K, which="LA")


def cplst(x, y):
    g, mu = gram(x)
    f = cross(x, y, mu)
    g[np.diag_indices(D)] += 0.1 * np.trace(g) / D
    w = np.linalg.solve(g, f)  # (XcᵀXc + λI)⁻¹ XcᵀYc
    m = f.T @ w  # q×q
    vals, vecs = np.linalg.eigh(m)
    return vals[-K:], w @ vecs[:, -K:]


METHODS = {"pca": pca, "pca-free": pca_free, "mddmp": mddmp, "mvmd": mvmd, "cplst": cplst}


def child(name):
    x, y = data()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    METHODS[name](x, y)
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = (x.data.nbytes + x.indices.nbytes + x.indptr.nbytes) / 1e6
    print(f"{name:9s} {dt:7.2f} s   peak +{(peak - base) / 1e3:7.1f} MB   (sparse X {size:.1f} MB)", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        for name in sys.argv[1:] or list(METHODS):
            subprocess.run([sys.executable, __file__, "--child", name], check=True)
