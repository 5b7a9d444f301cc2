// The explorer's requests to this server (docs/API.md, "Exploring a
// job"). Every failure becomes an Error whose message says what failed
// and the server's own sentence, for the page to show.

async function failure(what, resp) {
  let detail = "";
  try {
    const body = await resp.json();
    if (body && body.error) { detail = ": " + body.error; }
  } catch (e) { /* not JSON: the status says enough */ }
  return new Error(what + " failed (" + resp.status + ")" + detail);
}

// getJSON fetches url and parses its JSON answer.
export async function getJSON(url, what, signal) {
  const resp = await fetch(url, { headers: { Accept: "application/json" }, signal });
  if (!resp.ok) { throw await failure(what, resp); }
  return resp.json();
}

// postJSON sends body as JSON and parses the JSON answer.
export async function postJSON(url, body, what, signal) {
  const resp = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!resp.ok) { throw await failure(what, resp); }
  return resp.json();
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// getFloats fetches a float32 little-endian answer: {values, rows, min,
// max, bytes}, rows from X-Rows (checked against the length, per is how
// many floats a row has), min and max from X-Min and X-Max when sent.
export async function getFloats(url, per, what, signal) {
  const resp = await fetch(url, { headers: { Accept: "application/octet-stream" }, signal });
  if (!resp.ok) { throw await failure(what, resp); }
  const buf = await resp.arrayBuffer();
  if (buf.byteLength % 4 !== 0) {
    throw new Error(what + ": the answer has " + buf.byteLength + " bytes, not a whole number of float32");
  }
  let values;
  if (littleEndian) {
    values = new Float32Array(buf);
  } else {
    const dv = new DataView(buf);
    values = new Float32Array(buf.byteLength / 4);
    for (let i = 0; i < values.length; i++) { values[i] = dv.getFloat32(4 * i, true); }
  }
  const rows = parseInt(resp.headers.get("X-Rows"), 10);
  if (!(rows >= 0) || rows * per !== values.length) {
    throw new Error(what + ": X-Rows says " + resp.headers.get("X-Rows") + " rows but the answer holds " + values.length + " floats (" + per + " a row)");
  }
  const num = (h) => { const v = parseFloat(resp.headers.get(h)); return Number.isFinite(v) ? v : null; };
  return { values, rows, min: num("X-Min"), max: num("X-Max"), bytes: buf.byteLength };
}
