// The page `go run ./cmd/bundle -regl-cache` runs in headless Chromium,
// without a Content-Security-Policy: it builds views exactly as the job
// page does (gl.js, view.js), uses every drawing path the page uses, and
// hands regl's generated code to the Go side as window.reglCode, which
// writes it to src/regl-cache.js. Not part of the served bundle.

import { createSharedRenderer } from "./src/gl.js";
import { createView } from "./src/view.js";

async function run() {
  const cache = {};
  const renderer = createSharedRenderer(cache);
  const hooks = { select() {}, deselect() {}, over() {}, out() {}, frame() {} };
  const n = 500;
  const xy = new Float32Array(2 * n);
  for (let i = 0; i < 2 * n; i++) { xy[i] = Math.sin(i * 12.9898) * 43758.5453 % 1; }
  xy[0] = NaN; // a row without coordinates, as mds leaves them
  const views = [];
  for (const id of ["a", "b"]) {
    const slot = document.createElement("div");
    document.body.appendChild(slot);
    const v = createView(slot, { id, name: id, d: 2 }, renderer, hooks);
    await v.setPoints({ values: xy, rows: n, bytes: xy.byteLength }, 1, 2);
    const idx = new Float32Array(n).map((_, i) => i % 9);
    await v.setColours(idx, ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000", "#999999"], "test");
    views.push(v);
  }
  const wait = () => new Promise((r) => setTimeout(r, 100));
  for (const v of views) {
    v.select([1, 2, 3]);
    v.hover(4);
    await wait();
    v.filter([1, 2, 3, 4, 5]);
    await wait();
    v.filter(null);
    v.plot.lassoSelect([[-1, -1], [1, -1], [1, 1]], { isGl: true });
    for (const m of ["lasso", "box", "pan"]) { v.setMode(m); }
    v.plot.zoomToLocation([0.1, 0.1], 0.5);
    await wait();
    v.plot.reset();
    v.hover(null);
    v.select([]);
    await v.setPoints({ values: xy.map((x) => x * 2), rows: n, bytes: xy.byteLength }, 2, 1);
    await wait();
  }
  const out = {};
  for (const [k, fn] of Object.entries(cache)) { out[k] = fn.toString(); }
  window.reglCode = out;
}

run().catch((e) => { window.reglError = String(e && e.stack || e); });
