"""Golden values for internal/preprocess: scikit-learn's StandardScaler and
MinMaxScaler fitted on training rows and applied to training and test rows.

Rerun from the repository root with Debian's interpreter (numpy 1.24,
scikit-learn 1.2.1; not the pyenv python3 on PATH):

    /usr/bin/python3 internal/preprocess/testdata/scalers.py

It writes scalers.json beside itself (compact JSON, floats as repr, so the
file is byte-for-byte reproducible) and the test reads it:

    go test ./internal/preprocess/ -run Golden -v

Columns of the training part:
  0-3  random, on scales from 1e-3 to 1e4, some negative
  4    constant (2.5)
  5    values differing only in their last bits around 1e10 (constant to
       StandardScaler's rounding rule, not to MinMaxScaler's exact range)
  6    two distinct values (0 and 1)
Test rows include values outside the training range and a different value
in the constant column.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.preprocessing import MinMaxScaler, StandardScaler

rng = np.random.default_rng(13)
n_train, n_test = 20, 6
scales = np.array([1e-3, 1.0, 250.0, 1e4])
train = np.empty((n_train, 7))
train[:, 0:4] = rng.normal(size=(n_train, 4)) * scales + np.array([0.0, -3.0, 1000.0, 5e4])
train[:, 4] = 2.5
base = 1e10
train[:, 5] = base + np.spacing(base) * rng.integers(0, 3, size=n_train)
train[:, 6] = rng.integers(0, 2, size=n_train)
test = np.empty((n_test, 7))
test[:, 0:4] = rng.normal(size=(n_test, 4)) * scales * 3 + np.array([0.0, -3.0, 1000.0, 5e4])
test[:, 4] = [2.5, 7.0, -1.0, 2.5, 0.0, 2.5]
test[:, 5] = base
test[:, 6] = [0, 1, 2, -1, 1, 0]

out = {
    "sklearn": sklearn.__version__,
    "numpy": np.__version__,
    "train": train.tolist(),
    "test": test.tolist(),
}
std = StandardScaler().fit(train)
out["standardize"] = {
    "mean": std.mean_.tolist(),
    "scale": std.scale_.tolist(),  # sklearn's std, 1 where it deems the column constant
    "constant": [int(j) for j in np.where(std.scale_ == 1.0)[0]],  # where sklearn deems the column constant
    "train": std.transform(train).tolist(),
    "test": std.transform(test).tolist(),
}
mm = MinMaxScaler().fit(train)
out["minmax"] = {
    "min": mm.data_min_.tolist(),
    "max": mm.data_max_.tolist(),
    "constant": [int(j) for j in np.where(mm.data_max_ == mm.data_min_)[0]],
    "train": mm.transform(train).tolist(),
    "test": mm.transform(test).tolist(),
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scalers.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print("wrote", path)
print("standardize constant columns:", out["standardize"]["constant"])
print("minmax constant columns:", out["minmax"]["constant"])
