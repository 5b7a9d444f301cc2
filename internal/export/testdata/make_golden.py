#!/usr/bin/python3
"""Golden .npy files for internal/export (export_test.go), written by numpy.

Run from the repository root with Debian's interpreter (numpy 1.24.2; the
pyenv python3 on PATH has no numpy):

    /usr/bin/python3 internal/export/testdata/make_golden.py

It writes, next to itself, with np.save unless said otherwise:

  small_3x2.npy      the 3x2 array SMALL below (known values, including -0,
                     the smallest denormal and 1e308)
  seeded_103x5.npy   np.random.default_rng(20240601).standard_normal((103, 5))
  seeded_103x5.txt   the same values as Python repr (exact round trip), one
                     row per line, separated by spaces: an independent
                     statement of the values for the Go test
  empty_0x3.npy      np.zeros((0, 3))
  vector_4.npy       a 1-D array of shape (4,) (read as 4x1)
  v2_3x2.npy         SMALL with format.write_array(version=(2, 0))
  v3_3x2.npy         SMALL with format.write_array(version=(3, 0)) (refused)
  fortran_3x2.npy    np.asfortranarray(SMALL): fortran_order True (refused)
  f4_3x2.npy         np.arange(6, dtype='<f4').reshape(3, 2) (refused)
  be_3x2.npy         SMALL as '>f8' (refused)
  u1_3x2.npy         np.arange(6, dtype='|u1').reshape(3, 2) (refused)
  zeros_2x2x2.npy    np.zeros((2, 2, 2)) (refused: 3-D)

and the seed corpus of FuzzReadNPY under fuzz/FuzzReadNPY/ in the
"go test fuzz v1" format: some of the files above, truncations of them,
and headers in the spellings other writers use (double quotes, other key
order, no trailing comma, Python 2 'L' suffixes). The output is
byte-for-byte reproducible.
"""

import io
import os
import sys

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.join(HERE, "fuzz", "FuzzReadNPY")

SMALL = np.array([[1.0, -2.5], [0.1, 1e308], [-0.0, 5e-324]])


def saved(arr, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, arr)
    else:
        npformat.write_array(buf, arr, version=version)
    return buf.getvalue()


def go_bytes(b):
    """A Go interpreted string literal holding the bytes b."""
    out = []
    for c in b:
        if c == 0x22:
            out.append('\\"')
        elif c == 0x5C:
            out.append("\\\\")
        elif c == 0x0A:
            out.append("\\n")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return '[]byte("' + "".join(out) + '")'


def handmade(header, data):
    """A version 1.0 file with the header as given (no padding)."""
    h = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    seeded = np.random.default_rng(20240601).standard_normal((103, 5))
    files = {
        "small_3x2.npy": saved(SMALL),
        "seeded_103x5.npy": saved(seeded),
        "empty_0x3.npy": saved(np.zeros((0, 3))),
        "vector_4.npy": saved(np.array([1.0, -2.0, 3.5, 1e-310])),
        "v2_3x2.npy": saved(SMALL, (2, 0)),
        "v3_3x2.npy": saved(SMALL, (3, 0)),
        "fortran_3x2.npy": saved(np.asfortranarray(SMALL)),
        "f4_3x2.npy": saved(np.arange(6, dtype="<f4").reshape(3, 2)),
        "be_3x2.npy": saved(SMALL.astype(">f8")),
        "u1_3x2.npy": saved(np.arange(6, dtype="|u1").reshape(3, 2)),
        "zeros_2x2x2.npy": saved(np.zeros((2, 2, 2))),
    }
    for name, data in files.items():
        write(name, data)
    with open(os.path.join(HERE, "seeded_103x5.txt"), "w") as f:
        for row in seeded:
            f.write(" ".join(repr(float(v)) for v in row) + "\n")

    two = np.array([0.5, -1.0]).tobytes()  # '<f8' on this little-endian host
    small = files["small_3x2.npy"]
    corpus = {
        "numpy-small-3x2": small,
        "numpy-empty-0x3": files["empty_0x3.npy"],
        "numpy-vector-4": files["vector_4.npy"],
        "numpy-v2-3x2": files["v2_3x2.npy"],
        "numpy-fortran-3x2": files["fortran_3x2.npy"],
        "numpy-f4-3x2": files["f4_3x2.npy"],
        "numpy-small-truncated-data": small[:len(small) - 5],
        "numpy-small-truncated-header": small[:70],
        "handmade-double-quotes-no-trailing-comma": handmade(
            '{"shape": (1, 2), "fortran_order": False, "descr": "<f8"}\n', two),
        "handmade-python2-long-ints": handmade(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 1L), }\n", two),
        "handmade-one-tuple-no-comma": handmade(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2), }\n", two),
        "handmade-huge-shape": handmade(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824, 1), }\n", two),
    }
    os.makedirs(FUZZ, exist_ok=True)
    for name, data in corpus.items():
        with open(os.path.join(FUZZ, name), "w") as f:
            f.write("go test fuzz v1\n" + go_bytes(data) + "\n")

    print("numpy", np.__version__, "python", sys.version.split()[0])
    print("small_3x2.npy header:", small[:128])
    print("wrote %d files and %d fuzz seeds" % (len(files) + 1, len(corpus)))


if __name__ == "__main__":
    main()
