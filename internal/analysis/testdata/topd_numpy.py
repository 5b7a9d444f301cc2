"""numpy's full route for pca at N = 20 000, D = 2 000, d = 10, the
reference of BenchmarkTopD (topd_bench_test.go): centre, X.T @ X, the full
eigh, keep the 10 leading pairs, project. Data as benchSpiked makes them
(a rank-20 signal of decaying strengths plus unit noise, column means).

Rerun with Debian's interpreter (numpy 1.24 on OpenBLAS), the machine
otherwise as idle as for the Go run:

    /usr/bin/python3 internal/analysis/testdata/topd_numpy.py
"""
import time

import numpy as np

n, d, r = 20_000, 2_000, 20
rng = np.random.default_rng(20)
w = rng.standard_normal((r, d))
z = rng.standard_normal((n, r)) * (10 / np.sqrt(np.arange(1, r + 1)))
x = z @ w + rng.standard_normal((n, d)) + (np.arange(d) % 10)

times = []
for _ in range(4):
    t0 = time.perf_counter()
    mu = x.mean(axis=0)
    xc = x - mu
    c = xc.T @ xc
    vals, vecs = np.linalg.eigh(c)
    p = vecs[:, ::-1][:, :10]
    proj = x @ p - mu @ p
    times.append(time.perf_counter() - t0)
print("numpy pca N=20000 D=2000 d=10 (centre, X.T @ X, eigh, project): "
      "warm-up %.3f s, then %s s; median %.3f s" % (times[0], ", ".join("%.3f" % t for t in times[1:]), float(np.median(times[1:]))))
