// One method's interactive scatter: a focusable wrapper around a canvas
// drawn by regl-scatterplot, fed with every row of the method's projection.

import createScatterplot from "regl-scatterplot";
import { viewOptions } from "./gl.js";

// pointSize grows as rows get fewer, so that density shows at any size.
function pointSize(n) {
  if (n <= 2000) { return 5; }
  if (n <= 20000) { return 3; }
  if (n <= 200000) { return 2; }
  return 1;
}

// normalise maps the points into [-1, 1] keeping their aspect ratio (the
// library draws normalised device coordinates); rows without coordinates
// (NaN: mds leaves rows it did not embed) go to the centre and are
// reported in missing, to be filtered out.
function normalise(xy, n) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xy[2 * i], y = xy[2 * i + 1];
    if (!Number.isFinite(x) || !Number.isFinite(y)) { continue; }
    if (x < x0) { x0 = x; } if (x > x1) { x1 = x; }
    if (y < y0) { y0 = y; } if (y > y1) { y1 = y; }
  }
  if (x0 > x1) { x0 = x1 = y0 = y1 = 0; }
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const half = Math.max(x1 - x0, y1 - y0) / 2 || 1;
  const s = 0.95 / half;
  const x = new Float32Array(n), y = new Float32Array(n);
  const shown = [];
  let missing = null;
  for (let i = 0; i < n; i++) {
    const px = xy[2 * i], py = xy[2 * i + 1];
    if (!Number.isFinite(px) || !Number.isFinite(py)) {
      if (!missing) { missing = new Uint8Array(n); }
      missing[i] = 1;
      continue;
    }
    x[i] = (px - cx) * s;
    y[i] = (py - cy) * s;
    shown.push(i);
  }
  return { x, y, missing, shown: missing ? shown : null, extent: [x0, x1, y0, y1] };
}

// createView builds the view of one method inside slot. hooks are the
// page's: select(view, indices), deselect(view), over(view, index),
// out(view), frame(view, ms). Its methods draw and link it.
export function createView(slot, method, renderer, hooks) {
  const wrap = document.createElement("div");
  wrap.className = "scatter-view";
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "application");
  wrap.setAttribute("aria-roledescription", "interactive scatter plot");
  wrap.setAttribute("data-testid", "scatter-" + method.id);
  wrap.setAttribute("data-method", method.id);
  const canvas = document.createElement("canvas");
  canvas.setAttribute("aria-hidden", "true");
  wrap.appendChild(canvas);
  const status = document.createElement("p");
  status.className = "hint scatter-status";
  slot.appendChild(wrap);
  slot.appendChild(status);

  const width = Math.max(200, Math.floor(wrap.clientWidth || 360));
  const height = Math.max(200, Math.floor(wrap.clientHeight || width));
  const plot = createScatterplot(viewOptions(renderer, canvas, width, height));
  const state = {
    id: method.id, name: method.name, rows: 0, shown: 0, drawn: false, x: 1, y: 2,
    extent: null, bytes: 0, firstFrameMs: null, firstFrameAt: null, frames: [],
  };
  let shownIdx = null; // indices of drawable rows, null when every row is
  let colourIndex = null;
  let colours = null;
  let xy = null;
  let describe = "";
  let lastFrame = 0;
  let started = performance.now();

  plot.subscribe("select", ({ points }) => hooks.select(view, points));
  plot.subscribe("deselect", () => hooks.deselect(view));
  plot.subscribe("pointOver", (i) => hooks.over(view, i));
  plot.subscribe("pointOut", () => hooks.out(view));
  plot.subscribe("draw", () => {
    const now = performance.now();
    if (state.drawn && state.firstFrameMs === null) { state.firstFrameMs = now - started; state.firstFrameAt = now; }
    if (lastFrame) { state.frames.push(now - lastFrame); if (state.frames.length > 600) { state.frames.shift(); } }
    lastFrame = now;
    hooks.frame(view);
  });

  function label() {
    wrap.setAttribute("aria-label", method.name + ": " + state.shown + " of " + state.rows +
      " rows, component " + state.x + " against component " + state.y + describe +
      ". Arrow keys pan, plus and minus zoom, 0 resets the view; hold Shift and drag to lasso rows.");
  }

  function camera() {
    return { target: Array.from(plot.get("cameraTarget")), distance: plot.get("cameraDistance") };
  }

  wrap.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    const { target, distance } = camera();
    const step = 0.1 * distance;
    let t = target, d = distance;
    switch (ev.key) {
      case "ArrowLeft": t = [target[0] - step, target[1]]; break;
      case "ArrowRight": t = [target[0] + step, target[1]]; break;
      case "ArrowUp": t = [target[0], target[1] + step]; break;
      case "ArrowDown": t = [target[0], target[1] - step]; break;
      case "+": case "=": d = distance / 1.25; break;
      case "-": case "_": d = distance * 1.25; break;
      case "0": plot.reset(); ev.preventDefault(); return;
      case "Escape": plot.deselect(); ev.preventDefault(); return;
      default: return;
    }
    ev.preventDefault();
    plot.zoomToLocation(t, d);
  });

  renderer.fit(wrap, true);
  const resize = new ResizeObserver(() => {
    renderer.fit();
    const w = Math.floor(wrap.clientWidth), h = Math.floor(wrap.clientHeight);
    if (w > 0 && h > 0 && (w !== plot.get("width") || h !== plot.get("height"))) { plot.set({ width: w, height: h }); }
  });
  resize.observe(wrap);

  function points() {
    const n = state.rows;
    const z = colourIndex || new Float32Array(n);
    return { x: xy.x, y: xy.y, z };
  }

  const view = {
    id: method.id,
    state,
    element: wrap,
    plot,
    // setPoints draws new coordinates (x, y are the components): every row
    // of the method's projection, float32 pairs.
    async setPoints(data, x, y) {
      state.rows = data.rows;
      state.x = x;
      state.y = y;
      state.bytes = data.bytes;
      xy = normalise(data.values, data.rows);
      shownIdx = xy.shown;
      state.shown = shownIdx ? shownIdx.length : data.rows;
      state.extent = xy.extent;
      plot.set({ pointSize: pointSize(data.rows) });
      if (colourIndex && colourIndex.length !== data.rows) { colourIndex = null; }
      const opts = { zDataType: "categorical" };
      if (shownIdx) { opts.filter = shownIdx; }
      await plot.draw(points(), opts);
      state.drawn = true;
      status.textContent = state.shown < state.rows ? (state.rows - state.shown) + " rows have no coordinates here (not embedded) and are not drawn." : "";
      label();
    },
    // setColours recolours every row: index is an integer a row into
    // colours (CSS colours).
    async setColours(index, cols, text) {
      colourIndex = index;
      colours = cols;
      describe = text ? ", coloured by " + text : "";
      plot.set({ colorBy: "valueA", pointColor: colours });
      if (xy) {
        const opts = { zDataType: "categorical", preventFilterReset: true };
        const sel = plot.get("selectedPoints");
        if (sel && sel.length) { opts.select = sel; }
        await plot.draw(points(), opts);
      }
      label();
    },
    select(indices) {
      if (indices.length) { plot.select(indices, { preventEvent: true }); } else { plot.deselect({ preventEvent: true }); }
    },
    filter(indices) {
      if (indices) {
        const keep = xy.missing ? indices.filter((i) => !xy.missing[i]) : indices;
        plot.filter(keep, { preventEvent: true });
      } else if (shownIdx) {
        plot.filter(shownIdx, { preventEvent: true });
      } else {
        plot.unfilter({ preventEvent: true });
      }
    },
    hover(i) { plot.hover(i === null ? undefined : i, { preventEvent: true, showReticleOnce: i !== null }); },
    setMode(mode) {
      plot.set(mode === "pan" ? { mouseMode: "panZoom" } : { mouseMode: "lasso", lassoType: mode === "box" ? "rectangle" : "freeform" });
    },
    camera,
    restart() { started = performance.now(); state.firstFrameMs = null; state.frames = []; lastFrame = 0; },
    destroy() { resize.disconnect(); renderer.fit(wrap, false); plot.destroy(); wrap.remove(); status.remove(); },
  };
  return view;
}
