"""A client for the MLDR Explorer's JSON API, in one file.

It needs only Python's standard library (3.8 or newer). When numpy can be
imported, matrices come back as numpy arrays; without it (or with the
environment variable ``MLDR_CLIENT_NO_NUMPY=1``, or ``Client(...,
use_numpy=False)``) they come back as lists of rows, lists of floats. The
API it speaks is docs/API.md; the client is documented in docs/CLIENTS.md.

In a notebook::

    import mldr
    c = mldr.Client("http://127.0.0.1:8080")     # the token: MLDR_TOKEN, if any
    train = c.upload("emotions-train.csv")       # label columns: label:...
    test = c.upload("emotions-test.arff", xml="emotions.xml")
    job = c.run({"dataset": train["id"], "methods": ["pca", "mddmp"],
                 "params": {"d": 3}, "evaluate": {"classifier": "mlknn"}})
    m = c.metrics(job["id"])                     # metrics.json as a dict
    P = c.projection(job["id"], method="mddmp")  # 72 x 3, from projection.npy
    pr = c.projected(job["id"], method="mddmp")  # pr.rows, pr.split, pr.components
    Z = c.transform(job["id"], file="emotions-test.csv", method="mddmp")
    study = c.run({"datasets": [train["id"], test["id"]],
                   "methods": ["pca", "mddmp"], "params": {"d": 3},
                   "evaluate": {"classifier": "ridge"}})
    cmp = c.comparison(study["id"])              # comparison.json as a dict

A refusal raises :class:`APIError` with the server's sentence; a job that
fails or is canceled raises :class:`JobFailed` with the job's error.
"""

import csv
import io
import json
import math
import os
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Union

__all__ = [
    "APIError",
    "Client",
    "JobFailed",
    "Projected",
    "WaitTimeout",
    "read_npy",
    "numpy_or_none",
]

#: Statuses after which a job never changes again.
TERMINAL = ("succeeded", "failed", "canceled")

_CHUNK = 1 << 20


def numpy_or_none(use_numpy: Optional[bool] = None):
    """Return the numpy module, or None when the client works without it.

    ``use_numpy`` False never imports numpy; True requires it (ImportError
    when it is missing); None imports it when it is installed, unless the
    environment variable ``MLDR_CLIENT_NO_NUMPY`` is ``1``.
    """
    if use_numpy is False:
        return None
    if use_numpy is None and os.environ.get("MLDR_CLIENT_NO_NUMPY") == "1":
        return None
    try:
        import numpy  # noqa: PLC0415 (optional, imported on demand)
    except ImportError:
        if use_numpy:
            raise
        return None
    return numpy


class APIError(Exception):
    """The server refused a request or failed (HTTP 4xx or 5xx).

    ``status`` is the HTTP status and ``message`` the server's sentence
    (the ``error`` of its JSON answer, or the body's text when it is not
    JSON). ``field``, ``line``, ``column`` and ``request_id`` are the
    answer's fields of those names, or None; ``retry_after`` is the
    ``Retry-After`` header in seconds (429, 503), or None; ``body`` is the
    decoded JSON answer (a dict), or None.
    """

    def __init__(self, status: int, message: str, method: str = "", url: str = "",
                 body: Optional[dict] = None, retry_after: Optional[float] = None):
        self.status = status
        self.message = message
        self.method = method
        self.url = url
        self.body = body
        b = body if isinstance(body, dict) else {}
        self.field = b.get("field")
        self.line = b.get("line")
        self.column = b.get("column")
        self.request_id = b.get("request_id")
        self.retry_after = retry_after
        super().__init__(str(self))

    def __str__(self) -> str:
        where = " (field %s)" % self.field if self.field else ""
        return "%s %s: HTTP %d: %s%s" % (self.method, self.url, self.status, self.message, where)


class JobFailed(Exception):
    """A job (or study) ended ``failed`` or ``canceled``.

    ``job`` is the job object as the server last showed it, ``status`` its
    status and ``message`` its ``error`` (why it failed).
    """

    def __init__(self, job: dict):
        self.job = job
        self.status = job.get("status", "")
        self.message = job.get("error") or ""
        super().__init__("job %s %s: %s" % (job.get("id"), self.status, self.message or "(no error given)"))


class WaitTimeout(TimeoutError):
    """A job was still unfinished when :meth:`Client.wait` gave up.

    ``job`` is the job object as last read. The job goes on running on the
    server: wait again, or cancel it.
    """

    def __init__(self, job: dict, timeout: float):
        self.job = job
        super().__init__("job %s is still %s at %.0f %% after %g s" % (
            job.get("id"), job.get("status"), 100 * (job.get("progress") or 0), timeout))


@dataclass
class Projected:
    """A method's projected rows (projected.csv).

    ``rows`` are the 1-based row numbers in their data set, ``split`` each
    row's part (``train``, ``test`` or ``all``), ``fold`` each row's fold
    (k-fold and predefined folds; None where the file has no fold column,
    and None for a row that no fold tests), and ``components`` the rows'
    coordinates, len(rows) x d (a numpy array, or lists without numpy).
    """

    rows: List[int]
    split: List[str]
    fold: Optional[List[Optional[int]]]
    components: Any = field(repr=False)


def read_npy(data: bytes, use_numpy: Optional[bool] = None):
    """Read a .npy file's bytes (NumPy format 1.0, 2.0 or 3.0).

    With numpy this is ``numpy.load`` (pickles refused). Without it the
    array must be of little- or big-endian floats or integers (``f4``,
    ``f8``, ``i1``...``i8``, ``u1``...``u8``) or booleans, of any number of
    dimensions, in C or Fortran order; it comes back as nested lists (a
    0-d array as its number). Raises ValueError for anything else.
    """
    np = numpy_or_none(use_numpy)
    if np is not None:
        return np.load(io.BytesIO(data), allow_pickle=False)
    if len(data) < 10 or data[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file: no \\x93NUMPY magic")
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    elif major in (2, 3):
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    else:
        raise ValueError(".npy version %d.%d is not read" % (major, data[7]))
    header = data[start:start + hlen].decode("latin1" if major < 3 else "utf8")
    try:
        import ast  # noqa: PLC0415 (only the pure-Python path needs it)
        h = ast.literal_eval(header)
        descr, fortran, shape = h["descr"], h["fortran_order"], tuple(h["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError) as e:
        raise ValueError(".npy header %r is not a dict with descr, fortran_order and shape" % header) from e
    if not isinstance(descr, str) or len(descr) < 3:
        raise ValueError(".npy dtype %r is not read without numpy" % (descr,))
    order = {"<": "<", ">": ">", "|": "<", "=": "<"}.get(descr[0])
    code = {"f4": "f", "f8": "d", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
            "u1": "B", "u2": "H", "u4": "I", "u8": "Q", "b1": "?"}.get(descr[1:])
    if order is None or code is None:
        raise ValueError(".npy dtype %r is not read without numpy" % (descr,))
    count = 1
    for n in shape:
        count *= n
    body = data[start + hlen:]
    size = struct.calcsize(code)
    if len(body) != size * count:
        raise ValueError(".npy holds %d data bytes, not the %d of shape %r" % (len(body), size * count, shape))
    flat = list(struct.unpack("%s%d%s" % (order, count, code), body)) if count else []
    if not shape:
        return flat[0]
    if fortran:
        flat = _fortran_to_c(flat, shape)
    return _nest(flat, shape)


def _fortran_to_c(flat: list, shape: tuple) -> list:
    """Reorder a column-major flat list into row-major order."""
    strides, s = [], 1
    for n in shape:
        strides.append(s)
        s *= n
    out = []
    idx = [0] * len(shape)
    for _ in range(len(flat)):
        out.append(flat[sum(i * st for i, st in zip(idx, strides))])
        for k in range(len(shape) - 1, -1, -1):
            idx[k] += 1
            if idx[k] < shape[k]:
                break
            idx[k] = 0
    return out


def _nest(flat: list, shape: tuple) -> list:
    """Cut a row-major flat list into nested lists of the given shape."""
    if len(shape) == 1:
        return flat
    inner = 1
    for n in shape[1:]:
        inner *= n
    return [_nest(flat[i * inner:(i + 1) * inner], shape[1:]) for i in range(shape[0])]


class _Multipart:
    """A multipart/form-data body streamed from its parts.

    Text fields are sent first, then the files, as the server reads an
    upload fastest that way; the length is known in advance, so the request
    declares it. Iterating yields the body in chunks.
    """

    def __init__(self, fields: Dict[str, str], files: Dict[str, tuple]):
        self.boundary = "mldr-" + uuid.uuid4().hex
        self._pieces: list = []
        for name, value in fields.items():
            self._pieces.append(self._head(name) + b"\r\n" + str(value).encode("utf-8") + b"\r\n")
        for name, (filename, source) in files.items():
            self._pieces.append(self._head(name, filename) + b"Content-Type: application/octet-stream\r\n\r\n")
            self._pieces.append(source)
            self._pieces.append(b"\r\n")
        self._pieces.append(("--%s--\r\n" % self.boundary).encode("ascii"))

    @property
    def content_type(self) -> str:
        return "multipart/form-data; boundary=" + self.boundary

    def _head(self, name: str, filename: Optional[str] = None) -> bytes:
        def q(s: str) -> str:
            return s.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")
        disp = 'form-data; name="%s"' % q(name)
        if filename is not None:
            disp += '; filename="%s"' % q(filename)
        return ("--%s\r\nContent-Disposition: %s\r\n" % (self.boundary, disp)).encode("utf-8")

    def __len__(self) -> int:
        total = 0
        for p in self._pieces:
            total += len(p) if isinstance(p, bytes) else os.path.getsize(p)
        return total

    def __iter__(self):
        for p in self._pieces:
            if isinstance(p, bytes):
                yield p
                continue
            with open(p, "rb") as f:
                while True:
                    chunk = f.read(_CHUNK)
                    if not chunk:
                        break
                    yield chunk


FileArg = Union[str, "os.PathLike[str]", bytes, bytearray, Any]


def _file_part(source: FileArg, filename: Optional[str], default: str) -> tuple:
    """(file name, path or bytes) for a file given as a path, bytes or a
    readable binary file object."""
    if isinstance(source, (bytes, bytearray)):
        return filename or default, bytes(source)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return filename or os.path.basename(path), path
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = filename or os.path.basename(getattr(source, "name", "") or "") or default
        return name, data
    raise TypeError("a file is a path, bytes or a binary file object, not %s" % type(source).__name__)


class Client:
    """A connection to one MLDR Explorer server.

    ``base_url`` is the server's address (``http://127.0.0.1:8080``).
    ``token`` is its access token, sent as ``Authorization: Bearer TOKEN``;
    None takes the environment variable ``MLDR_TOKEN``, and with neither no
    token is sent (a server started without one listens on loopback only
    and asks for none). ``timeout`` is the seconds one HTTP request may take
    (waiting for a job is :meth:`wait`'s own ``timeout``). ``use_numpy``:
    see :func:`numpy_or_none`.
    """

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 300,
                 use_numpy: Optional[bool] = None):
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else (os.environ.get("MLDR_TOKEN") or None)
        self.timeout = timeout
        self.np = numpy_or_none(use_numpy)

    def __repr__(self) -> str:
        return "Client(%r, token=%s)" % (self.base_url, "set" if self.token else "none")

    # -- HTTP ---------------------------------------------------------------

    def request(self, method: str, path: str, query: Optional[dict] = None, body: Any = None,
                content_type: Optional[str] = None, length: Optional[int] = None) -> tuple:
        """Send one request and read the whole answer.

        ``path`` starts with ``/`` (``/api/jobs``); ``query`` values that are
        None are left out; ``body`` is bytes or an iterable of bytes (then
        give ``length``). Returns ``(status, headers, body bytes)`` for a
        2xx answer; raises :class:`APIError` for 4xx and 5xx, and
        ``urllib.error.URLError`` when the server cannot be reached.
        """
        url = self.base_url + path
        q = {k: v for k, v in (query or {}).items() if v is not None}
        if q:
            url += "?" + urllib.parse.urlencode(q, doseq=True)
        req = urllib.request.Request(url, data=body, method=method)
        req.add_header("Accept", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        if content_type:
            req.add_header("Content-Type", content_type)
        if length is not None:
            req.add_header("Content-Length", str(length))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            raise self._api_error(method, path, e) from None

    @staticmethod
    def _api_error(method: str, path: str, e: "urllib.error.HTTPError") -> APIError:
        raw = e.read() or b""
        e.close()
        body, message = None, raw.decode("utf-8", "replace").strip() or e.reason
        try:
            decoded = json.loads(raw)
            if isinstance(decoded, dict):
                body = decoded
                message = decoded.get("error") or message
        except ValueError:
            pass
        retry = None
        if e.headers.get("Retry-After"):
            try:
                retry = float(e.headers["Retry-After"])
            except ValueError:
                pass
        return APIError(e.code, str(message), method, path, body, retry)

    def get_json(self, path: str, **query) -> Any:
        """GET ``path`` and decode its JSON answer."""
        return json.loads(self.request("GET", path, query)[2])

    def _send_json(self, method: str, path: str, payload: Any) -> Any:
        data = json.dumps(payload).encode("utf-8")
        _, _, b = self.request(method, path, body=data, content_type="application/json")
        return json.loads(b) if b else None

    def download(self, job: str, file: str, method: Optional[str] = None,
                 path: Optional[str] = None) -> Optional[bytes]:
        """A result file of a succeeded job (``projection.npy``,
        ``metrics.json``, ``comparison.tex``...), as bytes; with ``path``,
        written there instead (atomically: a partial file is never left) and
        None is returned. ``method`` chooses among several methods' files.
        409 (:class:`APIError`) while the job has not succeeded."""
        _, _, b = self.request("GET", "/api/jobs/%s/%s" % (_seg(job), file), {"method": method})
        if path is None:
            return b
        tmp = "%s.part-%s" % (path, uuid.uuid4().hex[:8])
        with open(tmp, "wb") as f:
            f.write(b)
        os.replace(tmp, path)
        return None

    # -- server -------------------------------------------------------------

    def health(self) -> dict:
        """``GET /healthz``: ``{"status": "ok"}`` when the server answers."""
        return self.get_json("/healthz")

    # -- data sets ----------------------------------------------------------

    def upload(self, file: FileArg, name: Optional[str] = None, filename: Optional[str] = None, *,
               labels: Optional[Union[str, List[str]]] = None, label_prefix: Optional[str] = None,
               label_count: Optional[int] = None, xml: Optional[FileArg] = None,
               folds: Optional[FileArg] = None, kind: Optional[str] = None,
               missing: Optional[str] = None, nominal: Optional[str] = None,
               drop: Optional[Union[str, List[str]]] = None, format: Optional[str] = None) -> dict:
        """Upload a data set (``POST /api/datasets``) and return its object.

        ``file`` is a CSV, ARFF or libsvm/XMC file: a path (streamed from
        disk), bytes, or a binary file object; ``filename`` names it for
        the server when it is not a path (by default ``data.csv``). Which
        columns are labels: the ``label:`` prefix by default, or
        ``label_prefix``, ``labels`` (names, a list or comma-separated),
        ``label_count`` (MEKA: n > 0 the first n columns, n < 0 the last)
        or ``xml`` (a Mulan XML label file, for ARFF); give at most one of
        ``labels``, ``label_count`` and ``xml``. ``folds`` is a CSV of
        predefined folds (``fold,split,row``). ``kind`` (``multilabel``,
        ``multidim``), ``missing`` (``reject``, ``drop-rows``, ``mean``),
        ``nominal`` (``reject``, ``drop``, ``onehot``), ``drop`` (columns to
        leave out) and ``format`` (``csv``, ``arff``, ``libsvm``) are the
        upload form's fields of those names (docs/API.md). Raises
        :class:`APIError` when the server refuses the file, with the
        sentence and its ``line`` and ``column``.
        """
        fields: Dict[str, str] = {}
        for key, value in (("name", name), ("labels", labels), ("label_prefix", label_prefix),
                           ("label_count", label_count), ("kind", kind), ("missing", missing),
                           ("nominal", nominal), ("drop", drop), ("format", format)):
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                value = ",".join(value)
            fields[key] = str(value)
        files = {}
        if xml is not None:
            files["xml"] = _file_part(xml, None, "labels.xml")
        if folds is not None:
            files["folds"] = _file_part(folds, None, "folds.csv")
        files["file"] = _file_part(file, filename, "data.csv")
        body = _Multipart(fields, files)
        _, _, b = self.request("POST", "/api/datasets", body=iter(body), content_type=body.content_type,
                               length=len(body))
        return json.loads(b)

    def upload_arrays(self, x: Any, y: Any, name: str, feature_names: Optional[List[str]] = None,
                      label_names: Optional[List[str]] = None, **options) -> dict:
        """Upload a data set from a feature matrix and a label matrix.

        ``x`` is rows x features (numbers), ``y`` rows x labels (0/1 for
        multi-label data, class values for multi-dimensional data), as numpy
        arrays or lists of rows. They are written as a CSV with ``label:``
        columns (numbers in their shortest exact form) and uploaded with
        :meth:`upload`, which ``options`` go to. Names default to ``x1``...
        and ``y1``....
        """
        x, y = _rows(x), _rows(y)
        if len(x) != len(y):
            raise ValueError("x has %d rows and y %d" % (len(x), len(y)))
        nf = len(x[0]) if x else 0
        nl = len(y[0]) if y else 0
        feature_names = list(feature_names or ["x%d" % (i + 1) for i in range(nf)])
        label_names = list(label_names or ["y%d" % (i + 1) for i in range(nl)])
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(feature_names + ["label:" + n for n in label_names])
        for xr, yr in zip(x, y):
            w.writerow([_num(v) for v in xr] + [_num(v) for v in yr])
        return self.upload(buf.getvalue().encode("utf-8"), name=name, filename=name + ".csv", **options)

    def demo(self, kind: str = "multilabel") -> dict:
        """Make a demo data set on the server (``multilabel`` or
        ``multidim``) and return its object."""
        _, _, b = self.request("POST", "/api/datasets/demo", {"demo": kind})
        return json.loads(b)

    def datasets(self) -> List[dict]:
        """Every data set, newest first (each without its lists)."""
        return self.get_json("/api/datasets")

    def dataset(self, dataset_id: str) -> dict:
        """One data set's object, with its labels and columns."""
        return self.get_json("/api/datasets/" + _seg(dataset_id))

    def relabel(self, dataset_id: str, labels: List[str], kind: str = "") -> dict:
        """Choose other label columns (names as in the file); returns the
        data set's new object."""
        return self._send_json("PUT", "/api/datasets/%s/labels" % _seg(dataset_id),
                               {"labels": list(labels), "kind": kind})

    def delete_dataset(self, dataset_id: str, with_jobs: bool = False) -> None:
        """Delete a data set. While jobs use it the server refuses (409,
        naming them) unless ``with_jobs`` is true: then those jobs go with
        it, their results and the studies over it included
        (``?with_jobs=1``); a job still running on it is refused (409)
        and nothing is deleted."""
        path = "/api/datasets/" + _seg(dataset_id)
        if with_jobs:
            path += "?with_jobs=1"
        self.request("DELETE", path)

    # -- jobs and studies ---------------------------------------------------

    def submit(self, request: dict) -> dict:
        """Queue a job or a study (``POST /api/jobs``); returns
        ``{"id", "status": "queued"}``.

        ``request`` is the API's job request as a dict, e.g. ``{"dataset":
        ID, "methods": ["pca", "mddmp"], "params": {"d": 5}, "evaluate":
        {"classifier": "mlknn"}}``; a study gives ``"datasets": [ID, ...]``
        instead of ``"dataset"``. The whole request is checked before
        anything is queued: a refusal raises :class:`APIError` (400, 413,
        422, 429) with the server's sentence and ``field``.
        """
        return self._send_json("POST", "/api/jobs", request)

    def job(self, job_id: str) -> dict:
        """The job object: ``status``, ``progress`` (0...1), ``phase``,
        ``error``, ``request``, ``notes``..."""
        return self.get_json("/api/jobs/" + _seg(job_id))

    def jobs(self) -> List[dict]:
        """Every job, newest first."""
        return self.get_json("/api/jobs")

    def wait(self, job_id: str, timeout: Optional[float] = None, poll: float = 1.0,
             progress: Union[bool, Callable[[dict], None]] = True) -> dict:
        """Wait for a job to finish by reading it every ``poll`` seconds.

        ``progress`` True prints a line on stderr whenever the status, phase
        or whole percent changes; a callable is called with the job object
        at every read instead; False is silent. A read answered 429 or 503
        (a busy server, the shared mode's database briefly unreachable) is
        tried again after its ``Retry-After``. Returns the job object once
        it has succeeded. Raises :class:`JobFailed` when it fails or is
        canceled, :class:`WaitTimeout` after ``timeout`` seconds (None: no
        limit) with the job still unfinished (it goes on running), and
        :class:`APIError` for any other refusal (404: no such job).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        last, j = None, {"id": job_id, "status": "unknown"}
        while True:
            try:
                j = self.job(job_id)
            except APIError as e:
                if e.status not in (429, 503):
                    raise
                # The server is busy or its database briefly unreachable:
                # the job goes on, so read it again when the server says.
                pause = poll if e.retry_after is None else e.retry_after
                if deadline is not None and time.monotonic() + pause > deadline:
                    raise WaitTimeout(j, timeout) from e
                time.sleep(pause)
                continue
            if callable(progress):
                progress(j)
            elif progress:
                line = "job %s: %s %3d %%%s" % (j.get("id"), j.get("status"), int(100 * (j.get("progress") or 0)),
                                                ", " + j["phase"] if j.get("phase") else "")
                if line != last:
                    print(line, file=sys.stderr, flush=True)
                    last = line
            status = j.get("status")
            if status == "succeeded":
                return j
            if status in TERMINAL:
                raise JobFailed(j)
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeout(j, timeout)
                time.sleep(min(poll, left))
            else:
                time.sleep(poll)

    def run(self, request: dict, timeout: Optional[float] = None, poll: float = 1.0,
            progress: Union[bool, Callable[[dict], None]] = True) -> dict:
        """:meth:`submit` a job or study, then :meth:`wait` for it; returns
        the succeeded job object."""
        return self.wait(self.submit(request)["id"], timeout=timeout, poll=poll, progress=progress)

    def cancel(self, job_id: str) -> dict:
        """Cancel a queued or running job; returns the job (409 once it
        has finished)."""
        return json.loads(self.request("POST", "/api/jobs/%s/cancel" % _seg(job_id))[2])

    def rerun(self, job_id: str) -> dict:
        """Queue a new job with a finished job's request; returns ``{"id",
        "status"}`` of the new job."""
        return json.loads(self.request("POST", "/api/jobs/%s/rerun" % _seg(job_id))[2])

    def delete_job(self, job_id: str) -> None:
        """Delete a finished job and its results (409 while it runs)."""
        self.request("DELETE", "/api/jobs/" + _seg(job_id))

    # -- results ------------------------------------------------------------

    def metrics(self, job_id: str) -> dict:
        """``metrics.json``: the classifier, split and a row per method, d
        and fold (``fold`` None on the mean rows) with its ``metrics``."""
        return json.loads(self.download(job_id, "metrics.json"))

    def comparison(self, job_id: str) -> dict:
        """A study's ``comparison.json``: per metric and d the scores,
        ranks, Friedman and Iman-Davenport tests, pairs and paired t-tests."""
        return json.loads(self.download(job_id, "comparison.json"))

    def model(self, job_id: str, method: Optional[str] = None) -> dict:
        """A method's ``model.json``: parameters, d, the feature names, the
        centring ``means``, the ``projection``, ``preprocess``..."""
        return json.loads(self.download(job_id, "model.json", method))

    def eigenvalues(self, job_id: str, method: Optional[str] = None) -> dict:
        """A method's ``eigenvalues.json``."""
        return json.loads(self.download(job_id, "eigenvalues.json", method))

    def projection(self, job_id: str, method: Optional[str] = None):
        """A method's projection matrix P from ``projection.npy``: features
        (or labels, for label-space methods) x d, float64; for the kernel
        methods kpca and kmddm their dual coefficients, basis rows x d (see
        ``model()["kernel_rows"]``); a numpy array, or lists of rows
        without numpy."""
        return read_npy(self.download(job_id, "projection.npy", method), use_numpy=self.np is not None)

    def projected(self, job_id: str, method: Optional[str] = None) -> Projected:
        """A method's projected rows (``projected.csv``) as a
        :class:`Projected`: row numbers, parts, folds and the components."""
        text = self.download(job_id, "projected.csv", method).decode("utf-8")
        recs = list(csv.reader(io.StringIO(text)))
        head, body = recs[0], recs[1:]
        first = 3 if len(head) > 2 and head[2] == "fold" else 2
        rows = [int(r[0]) for r in body]
        split = [r[1] for r in body]
        fold = [int(r[2]) if r[2] else None for r in body] if first == 3 else None
        comps = [[float(v) for v in r[first:]] for r in body]
        return Projected(rows, split, fold, self._matrix(comps, len(head) - first))

    def label_results(self, job_id: str) -> List[dict]:
        """``label_results.csv`` of an evaluated multi-label job: a dict per
        label, its cells as strings (empty where 0/0)."""
        text = self.download(job_id, "label_results.csv").decode("utf-8")
        return list(csv.DictReader(io.StringIO(text)))

    def transform(self, job_id: str, rows: Any = None, method: Optional[str] = None, *,
                  file: Optional[FileArg] = None, feature_names: Optional[List[str]] = None):
        """Project new rows with a job's fitted model
        (``POST /api/jobs/{id}/transform``); returns rows x d (a numpy
        array, or lists without numpy).

        Give either ``rows``, a matrix of rows x features in the model's
        feature order (numpy array or lists; sent as CSV with the model's
        feature names, read from model.json unless ``feature_names`` gives
        them), or ``file``, a CSV or ARFF file (path, bytes or file object)
        with at least the model's feature columns. The server answers
        (x - means) . P with the model's preprocessing applied first (for
        kpca and kmddm, (k(x) - means) . alpha, k(x) the kernel with the
        model's basis rows). 422
        (:class:`APIError`) for methods without a projection of the
        features.
        """
        if (rows is None) == (file is None):
            raise ValueError("give either rows or file")
        if file is None:
            rows = _rows(rows)
            names = feature_names or self.model(job_id, method)["features"]
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(names)
            for r in rows:
                if len(r) != len(names):
                    raise ValueError("a row of %d values for a model of %d features" % (len(r), len(names)))
                w.writerow([_num(v) for v in r])
            part = ("rows.csv", buf.getvalue().encode("utf-8"))
        else:
            part = _file_part(file, None, "rows.csv")
        body = _Multipart({}, {"file": part})
        _, _, b = self.request("POST", "/api/jobs/%s/transform" % _seg(job_id), {"method": method},
                               body=iter(body), content_type=body.content_type, length=len(body))
        recs = list(csv.reader(io.StringIO(b.decode("utf-8"))))
        return self._matrix([[float(v) for v in r] for r in recs[1:]], len(recs[0]) if recs else 0)

    def _matrix(self, rows: List[List[float]], cols: int):
        if self.np is None:
            return rows
        return self.np.array(rows, dtype=float).reshape(len(rows), cols)


def _seg(s: str) -> str:
    """A path segment, escaped."""
    return urllib.parse.quote(str(s), safe="")


def _rows(m: Any) -> List[list]:
    """A matrix (numpy array or sequence of rows) as a list of rows."""
    if hasattr(m, "tolist"):
        m = m.tolist()
    out = [list(r) for r in m]
    return out


def _num(v: Any) -> str:
    """A cell as text: floats in their shortest exact decimal form."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return float.__repr__(float(v))
    return str(v)
