"""Tests of mldr.py against a running server, checked with numpy.

The Go test internal/e2e/python_client_test.go starts the real binary and
runs this script twice: once as it is and once with
MLDR_CLIENT_NO_NUMPY=1, when the client must answer lists (its own .npy
reader) that equal what numpy reads. The script checks with numpy in both
runs. Environment:

- MLDR_TEST_URL: the server's address (without it only the tests that need
  no server run);
- MLDR_TEST_TOKEN: its access token;
- MLDR_TEST_EMOTIONS: the directory of the emotions data set
  (emotions-train.csv, emotions-test.csv, emotions-test.arff,
  emotions.xml).

    /usr/bin/python3 clients/python/test_mldr.py -v
"""

import csv
import io
import json
import os
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mldr  # noqa: E402

URL = os.environ.get("MLDR_TEST_URL", "")
TOKEN = os.environ.get("MLDR_TEST_TOKEN", "")
EMOTIONS = os.environ.get("MLDR_TEST_EMOTIONS", "")
PURE = os.environ.get("MLDR_CLIENT_NO_NUMPY") == "1"


def raw(method, path, body=None, content_type=None, token=TOKEN):
    """One request without the client: (status, body bytes)."""
    req = urllib.request.Request(URL + path, data=body, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def read_columns(path, names):
    """The named columns of a CSV file as a float matrix, one row a line."""
    with open(path, newline="") as f:
        recs = list(csv.reader(f))
    at = {h: i for i, h in enumerate(recs[0])}
    return np.array([[float(r[at[n]]) for n in names] for r in recs[1:]])


def assert_projected(tc, got, x, means, p, what):
    """got equals (x - means)·p to 1e-12 of the sum of the absolute terms,
    which bounds the rounding of either sum."""
    c = x - means
    want = c @ p
    scale = np.abs(c) @ np.abs(p)
    got = np.asarray(got, dtype=float)
    tc.assertEqual(got.shape, want.shape, what)
    bad = np.abs(got - want) > 1e-12 * np.maximum(1, scale)
    tc.assertFalse(bad.any(), "%s: %d values differ from (x - means)·P, the first at %s: got %r, want %r" % (
        what, bad.sum(), np.argwhere(bad)[:1].tolist(), got[bad][:1], want[bad][:1]))


class NpyTest(unittest.TestCase):
    """The pure-Python .npy reader against numpy's own files."""

    def test_read_npy_without_numpy(self):
        cases = {
            "2-D float64": np.arange(6.0).reshape(2, 3) / 7,
            "3-D Fortran order": np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)),
            "big-endian int32": np.arange(-2, 3, dtype=">i4"),
            "0-d": np.array(3.5),
            "no rows": np.zeros((0, 3)),
            "bool": np.array([[True, False], [False, True]]),
            "float32": (np.arange(6, dtype=np.float32) / 3).reshape(3, 2),
        }
        for what, a in cases.items():
            with self.subTest(what):
                b = io.BytesIO()
                np.save(b, a)
                got = mldr.read_npy(b.getvalue(), use_numpy=False)
                self.assertEqual(got, a.tolist())

    def test_read_npy_refuses(self):
        b = io.BytesIO()
        np.save(b, np.array(["a", "b"]))
        for what, data in {"no magic": b"not a npy file", "strings": b.getvalue(),
                           "short data": b.getvalue()[:-4]}.items():
            with self.subTest(what), self.assertRaises(ValueError):
                mldr.read_npy(data, use_numpy=False)

    def test_numpy_switch(self):
        self.assertIsNone(mldr.numpy_or_none(False))
        self.assertIs(mldr.numpy_or_none(True), np)
        self.assertEqual(mldr.numpy_or_none() is None, PURE)


class FakeJobs(mldr.Client):
    """A client whose job reads come from a list, for wait's outcomes."""

    def __init__(self, seen):
        super().__init__("http://unused.invalid", token="")
        self.seen = list(seen)

    def job(self, job_id):
        j = self.seen.pop(0) if len(self.seen) > 1 else self.seen[0]
        if isinstance(j, Exception):
            raise j
        return j


class WaitTest(unittest.TestCase):
    """wait's outcomes, on job objects as the server shows them."""

    def test_failed_job_raises_its_error(self):
        c = FakeJobs([{"id": "j", "status": "running", "progress": 0.5},
                      {"id": "j", "status": "failed", "progress": 0.5, "error": "d = 12 exceeds the rank 10"}])
        with self.assertRaises(mldr.JobFailed) as cm:
            c.wait("j", poll=0, progress=False)
        self.assertEqual(cm.exception.message, "d = 12 exceeds the rank 10")
        self.assertEqual(cm.exception.status, "failed")
        self.assertIn("d = 12 exceeds the rank 10", str(cm.exception))

    def test_unavailable_is_read_again(self):
        unavailable = mldr.APIError(503, "the database is unreachable", "GET", "/api/jobs/j", retry_after=0)
        c = FakeJobs([unavailable, {"id": "j", "status": "succeeded", "progress": 1}])
        self.assertEqual(c.wait("j", poll=0, progress=False)["status"], "succeeded")
        c = FakeJobs([mldr.APIError(404, "no such job", "GET", "/api/jobs/j")])
        with self.assertRaises(mldr.APIError) as cm:
            c.wait("j", poll=0, progress=False)
        self.assertEqual(cm.exception.message, "no such job")

    def test_unfinished_job_times_out(self):
        c = FakeJobs([{"id": "j", "status": "running", "progress": 0.25}])
        with self.assertRaises(mldr.WaitTimeout) as cm:
            c.wait("j", timeout=0, poll=0, progress=False)
        self.assertEqual(cm.exception.job["status"], "running")

    def test_progress_lines(self):
        c = FakeJobs([{"id": "j", "status": "queued", "progress": 0},
                      {"id": "j", "status": "running", "progress": 0.5, "phase": "fit"},
                      {"id": "j", "status": "running", "progress": 0.5, "phase": "fit"},
                      {"id": "j", "status": "succeeded", "progress": 1}])
        err, sys.stderr = sys.stderr, io.StringIO()
        try:
            j = c.wait("j", poll=0)
            lines = sys.stderr.getvalue().splitlines()
        finally:
            sys.stderr = err
        self.assertEqual(j["status"], "succeeded")
        self.assertEqual(lines, ["job j: queued   0 %", "job j: running  50 %, fit", "job j: succeeded 100 %"])


@unittest.skipUnless(URL and EMOTIONS, "MLDR_TEST_URL and MLDR_TEST_EMOTIONS are not set")
class ServerTest(unittest.TestCase):
    """The client against the real server: an upload of each format, a job,
    a study, their results, transform and refusals."""

    @classmethod
    def setUpClass(cls):
        cls.c = mldr.Client(URL, token=TOKEN, timeout=120)
        cls.train_path = os.path.join(EMOTIONS, "emotions-train.csv")
        cls.test_path = os.path.join(EMOTIONS, "emotions-test.csv")
        cls.train = cls.c.upload(cls.train_path)
        with open(os.path.join(EMOTIONS, "emotions-test.arff"), "rb") as f:
            cls.test_arff = cls.c.upload(f, name="emotions-test (ARFF)", xml=os.path.join(EMOTIONS, "emotions.xml"))
        cls.seen = []
        cls.job = cls.c.run({"dataset": cls.train["id"], "methods": ["pca", "mddmp"], "params": {"d": 3},
                             "evaluate": {"classifier": "mlknn"}}, timeout=120, poll=0.1, progress=cls.seen.append)
        cls.study = cls.c.run({"datasets": [cls.train["id"], cls.test_arff["id"]], "methods": ["pca", "mddmp"],
                               "params": {"d": 3}, "evaluate": {"classifier": "ridge"}},
                              timeout=120, poll=0.1, progress=False)

    def assert_matrix_type(self, m):
        if PURE:
            self.assertIsInstance(m, list)
            self.assertIsInstance(m[0], list)
            self.assertIsInstance(m[0][0], float)
        else:
            self.assertIsInstance(m, np.ndarray)
            self.assertEqual(m.dtype, np.float64)

    def test_uploads(self):
        self.assertEqual((self.train["rows"], self.train["features"], self.train["label_count"], self.train["kind"]),
                         (391, 72, 6, "multilabel"))
        self.assertEqual((self.test_arff["rows"], self.test_arff["features"], self.test_arff["name"]),
                         (202, 72, "emotions-test (ARFF)"))
        self.assertEqual(self.test_arff["labels"], self.train["labels"])
        self.assertEqual(self.c.dataset(self.train["id"])["sha256"], self.train["sha256"])
        self.assertIn(self.train["id"], [d["id"] for d in self.c.datasets()])

        libsvm = self.c.upload(b"0,2 1:0.5 2:1\n1 1:0.25 3:2\n2 2:4\n", filename="tiny.svm", name="tiny")
        self.assertEqual((libsvm["rows"], libsvm["features"], libsvm["labels"]), (3, 3, ["l0", "l2", "l1"]))

        rng = np.random.default_rng(1)
        x = rng.normal(size=(12, 3))
        y = (rng.random(size=(12, 2)) < 0.5).astype(int)
        y[0], y[1] = [1, 1], [0, 0]  # neither label constant
        arr = self.c.upload_arrays(x, y, "arrays", feature_names=["a", "b", "c"], label_names=["p", "q"])
        self.assertEqual((arr["rows"], arr["features"], arr["labels"]), (12, 3, ["p", "q"]))
        # The values went over exactly: the server's CSV of the data holds them.
        status, body = raw("GET", "/api/datasets/%s/data.csv" % arr["id"])
        self.assertEqual(status, 200)
        recs = list(csv.reader(io.StringIO(body.decode())))
        self.assertEqual(recs[0], ["a", "b", "c", "label:p", "label:q"])
        np.testing.assert_array_equal(np.array([[float(v) for v in r[:3]] for r in recs[1:]]), x)
        np.testing.assert_array_equal(np.array([[int(v) for v in r[3:]] for r in recs[1:]]), y)

    def test_progress(self):
        self.assertEqual(self.seen[-1]["status"], "succeeded")
        progress = [j["progress"] for j in self.seen]
        self.assertEqual(progress, sorted(progress), "progress went back")
        self.assertEqual(self.job["status"], "succeeded")

    def test_projection_equals_npy(self):
        for method in ("pca", "mddmp"):
            with self.subTest(method):
                status, body = raw("GET", "/api/jobs/%s/projection.npy?method=%s" % (self.job["id"], method))
                self.assertEqual(status, 200)
                want = np.load(io.BytesIO(body), allow_pickle=False)
                got = self.c.projection(self.job["id"], method=method)
                self.assert_matrix_type(got)
                self.assertEqual(want.shape, (72, 3))
                np.testing.assert_array_equal(np.asarray(got), want)
                self.assertEqual(np.asarray(got, dtype="<f8").tobytes(), want.astype("<f8").tobytes())

    def test_metrics_equal_metrics_json(self):
        status, body = raw("GET", "/api/jobs/%s/metrics.json" % self.job["id"])
        self.assertEqual(status, 200)
        m = self.c.metrics(self.job["id"])
        self.assertEqual(m, json.loads(body))
        means = {(r["method"], r["d"]): r["metrics"] for r in m["rows"] if r["fold"] is None}
        self.assertEqual(sorted(means), [("mddmp", 3), ("ori", 72), ("pca", 3)])
        for key, metrics in means.items():
            for name in ("hamming_loss", "micro_f1", "average_precision"):
                self.assertTrue(0 <= metrics[name] <= 1, "%s %s = %r" % (key, name, metrics[name]))

    def test_projected_rows(self):
        model = self.c.model(self.job["id"], method="mddmp")
        p = np.load(io.BytesIO(raw("GET", "/api/jobs/%s/projection.npy?method=mddmp" % self.job["id"])[1]))
        pr = self.c.projected(self.job["id"], method="mddmp")
        self.assert_matrix_type(pr.components)
        self.assertEqual(sorted(pr.rows), list(range(1, 392)))
        self.assertEqual(set(pr.split), {"train", "test"})
        self.assertIsNone(pr.fold)
        x = read_columns(self.train_path, model["features"])
        assert_projected(self, pr.components, x[np.array(pr.rows) - 1], np.array(model["means"]), p, "projected.csv")

    def test_transform(self):
        job = self.job["id"]
        model = self.c.model(job, method="mddmp")
        self.assertEqual(model["preprocess"]["kind"], "none")
        p = np.load(io.BytesIO(raw("GET", "/api/jobs/%s/projection.npy?method=mddmp" % job)[1]))
        x = read_columns(self.test_path, model["features"])
        rows = x[:20] if not PURE else x[:20].tolist()
        z = self.c.transform(job, rows, method="mddmp")
        self.assert_matrix_type(z)
        assert_projected(self, z, x[:20], np.array(model["means"]), p, "transform of 20 rows")
        # The whole file: the same numbers for the same rows, as the CSV
        # and the rows written by the client parse to the same values.
        whole = self.c.transform(job, file=self.test_path, method="mddmp")
        self.assertEqual(np.asarray(whole).shape, (202, 3))
        np.testing.assert_array_equal(np.asarray(whole)[:20], np.asarray(z))

    def test_other_results(self):
        job = self.job["id"]
        status, body = raw("GET", "/api/jobs/%s/eigenvalues.json?method=pca" % job)
        self.assertEqual(status, 200)
        eig = self.c.eigenvalues(job, method="pca")
        self.assertEqual(eig, json.loads(body))
        self.assertEqual(eig["d"], 3)
        status, body = raw("GET", "/api/jobs/%s/label_results.csv" % job)
        self.assertEqual(status, 200)
        lr = self.c.label_results(job)
        self.assertEqual(lr, list(csv.DictReader(io.StringIO(body.decode()))))
        self.assertEqual([r["label"] for r in lr], self.train["labels"])
        self.assertIn("mddmp_d3_f1", lr[0])

    def test_job_lifecycle(self):
        with self.assertRaises(mldr.APIError) as cm:
            self.c.cancel(self.job["id"])
        self.assertEqual(cm.exception.status, 409)
        again = self.c.rerun(self.job["id"])
        self.assertNotEqual(again["id"], self.job["id"])
        self.assertEqual(self.c.wait(again["id"], timeout=120, poll=0.1, progress=False)["request"],
                         self.c.job(self.job["id"])["request"])
        self.assertIn(again["id"], [j["id"] for j in self.c.jobs()])
        self.c.delete_job(again["id"])
        with self.assertRaises(mldr.APIError) as cm:
            self.c.job(again["id"])
        self.assertEqual(cm.exception.status, 404)

    def test_dataset_lifecycle(self):
        ds = self.c.upload(self.train_path, name="relabelled")
        names = ds["label_columns"][:2]
        self.assertEqual(self.c.relabel(ds["id"], names)["labels"], [n[len("label:"):] for n in names])
        self.c.delete_dataset(ds["id"])
        with self.assertRaises(mldr.APIError) as cm:
            self.c.dataset(ds["id"])
        self.assertEqual(cm.exception.status, 404)
        with self.assertRaises(mldr.APIError) as cm:
            self.c.delete_dataset(self.train["id"])
        self.assertEqual(cm.exception.status, 409)
        self.assertIn("with_jobs", cm.exception.message)

    def test_delete_dataset_with_jobs(self):
        ds = self.c.upload(self.train_path, name="deleted with its jobs")
        job = self.c.run({"dataset": ds["id"], "methods": ["pca"], "params": {"d": 2}},
                         timeout=120, poll=0.1, progress=False)
        with self.assertRaises(mldr.APIError) as cm:
            self.c.delete_dataset(ds["id"])
        self.assertEqual(cm.exception.status, 409)
        self.assertEqual(self.c.job(job["id"])["status"], "succeeded")
        self.c.delete_dataset(ds["id"], with_jobs=True)
        for get in (lambda: self.c.dataset(ds["id"]), lambda: self.c.job(job["id"])):
            with self.assertRaises(mldr.APIError) as cm:
                get()
            self.assertEqual(cm.exception.status, 404)

    def test_study_comparison(self):
        status, body = raw("GET", "/api/jobs/%s/comparison.json" % self.study["id"])
        self.assertEqual(status, 200)
        cmp = self.c.comparison(self.study["id"])
        self.assertEqual(cmp, json.loads(body))
        first = cmp["comparisons"][0]
        self.assertEqual(first["methods"], ["ori", "pca", "mddmp"])
        self.assertEqual(first["datasets"], [self.train["id"], self.test_arff["id"]])
        self.assertEqual(len(first["scores"]), 2)
        m = self.c.metrics(self.study["id"])
        self.assertEqual({r["dataset"] for r in m["rows"]}, {self.train["id"], self.test_arff["id"]})
        tex = self.c.download(self.study["id"], "comparison.tex").decode()
        self.assertIn("emotions-train", tex)

    def test_refusals_carry_the_servers_message(self):
        bad = {"dataset": self.train["id"], "method": "mddmp", "params": {"d": 500}}
        status, body = raw("POST", "/api/jobs", json.dumps(bad).encode(), "application/json")
        want = json.loads(body)
        with self.assertRaises(mldr.APIError) as cm:
            self.c.submit(bad)
        e = cm.exception
        self.assertEqual((e.status, e.message, e.field), (status, want["error"], want.get("field")))
        self.assertEqual(e.status, 422)
        self.assertIn(want["error"], str(e))

        with self.assertRaises(mldr.APIError) as cm:
            self.c.upload(b"a,b,label:y\n1,2,1\n3,abc,0\n", filename="bad.csv")
        e = cm.exception
        self.assertEqual((e.status, e.line, e.column), (400, 3, "b"))
        self.assertIn('"abc" is not a number', e.message)

        with self.assertRaises(mldr.APIError) as cm:
            self.c.transform(self.study["id"], [[0.0] * 72], feature_names=["f%d" % i for i in range(72)])
        self.assertEqual(cm.exception.status, 404)
        self.assertIn("study", cm.exception.message)

    def test_python_without_numpy(self):
        # A Python where numpy cannot be imported at all (no switch):
        # the client falls back to lists by itself.
        script = "\n".join([
            "import json, sys",
            "sys.modules['numpy'] = None",
            "sys.path.insert(0, sys.argv[1])",
            "import mldr",
            "c = mldr.Client(sys.argv[2], token=sys.argv[3])",
            "assert c.np is None and mldr.numpy_or_none() is None",
            "p = c.projection(sys.argv[4], method='pca')",
            "z = c.transform(sys.argv[4], file=sys.argv[5], method='pca')",
            "print(json.dumps({'p': p, 'z': z[:5]}))",
        ])
        env = {k: v for k, v in os.environ.items() if k != "MLDR_CLIENT_NO_NUMPY"}
        out = subprocess.run([sys.executable, "-c", script, os.path.dirname(os.path.abspath(mldr.__file__)), URL,
                              TOKEN, self.job["id"], self.test_path],
                             env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        p = np.load(io.BytesIO(raw("GET", "/api/jobs/%s/projection.npy?method=pca" % self.job["id"])[1]))
        self.assertEqual(got["p"], p.tolist())
        z = self.c.transform(self.job["id"], file=self.test_path, method="pca")
        self.assertEqual(got["z"], np.asarray(z)[:5].tolist())

    @unittest.skipUnless(TOKEN, "the server has no token")
    def test_token(self):
        for token in ("", "x" * 20):
            with self.subTest(token=token), self.assertRaises(mldr.APIError) as cm:
                mldr.Client(URL, token=token).datasets()
            self.assertEqual(cm.exception.status, 401)
        self.assertEqual(mldr.Client(URL, token="").health()["status"], "ok")


if __name__ == "__main__":
    unittest.main()
