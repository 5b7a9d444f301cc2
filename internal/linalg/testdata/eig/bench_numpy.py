#!/usr/bin/python3
"""numpy/scipy timings to set beside eig_bench_test.go's benchmarks.

Times numpy.linalg.eigh (LAPACK dsyevd) and eigvalsh, and scipy's eigh for
the k largest pairs only (dsyevr), on the matrices of the Go benchmarks:
"random", upper triangle of independent N(0, 1) entries, and "cov", the
sample covariance of n samples whose feature j has standard deviation
(j+1)^-0.7. Prints the median of 5 runs (after one warm-up run) per case.

    /usr/bin/python3 internal/linalg/testdata/eig/bench_numpy.py
"""

import time

import numpy as np
import scipy
import scipy.linalg as sla


def random_sym(n, rng):
    a = np.triu(rng.standard_normal((n, n)))
    return a + np.triu(a, 1).T


def cov(n, rng):
    x = rng.standard_normal((n, n)) * (np.arange(1, n + 1) ** -0.7)
    return x.T @ x / n


def median_time(f, runs=5):
    f()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[runs // 2]


def main():
    print(f"numpy {np.__version__}, scipy {scipy.__version__}")
    rng = np.random.default_rng(1)
    for n in (1000, 2000):
        for kind, make in (("random", random_sym), ("cov", cov)):
            a = make(n, rng)
            print(f"{kind:6s} n={n}: eigh {median_time(lambda: np.linalg.eigh(a)):.3f} s, "
                  f"eigvalsh {median_time(lambda: np.linalg.eigvalsh(a)):.3f} s", end="")
            for k in (10, 50):
                t = median_time(lambda: sla.eigh(a, subset_by_index=[n - k, n - 1], driver="evr"))
                print(f", scipy evr top {k} {t:.3f} s", end="")
            print()


if __name__ == "__main__":
    main()
