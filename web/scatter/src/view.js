// One method's interactive scatter: a focusable wrapper around a canvas
// drawn by regl-scatterplot, fed with every row of the method's projection.

import createScatterplot from "regl-scatterplot";
import { createAxes, fitRange } from "./axes.js";
import { createDensity } from "./density.js";
import { viewOptions } from "./gl.js";

// pointSize grows as rows get fewer, so that density shows at any size.
function pointSize(n) {
  if (n <= 2000) { return 5; }
  if (n <= 20000) { return 3; }
  if (n <= 200000) { return 2; }
  return 1;
}

// normalise maps the points into [-1, 1] (the library draws normalised
// device coordinates), each axis from the range the static figure gives it
// (its extent padded by 4 % each side), so that the view starts where the
// figure's axes do; rows without coordinates (NaN: mds leaves rows it did
// not embed) go to the centre and are reported in missing, to be filtered
// out. xr and yr are the data ranges drawn at -1 and 1.
function normalise(xy, n) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xy[2 * i], y = xy[2 * i + 1];
    if (!Number.isFinite(x) || !Number.isFinite(y)) { continue; }
    if (x < x0) { x0 = x; } if (x > x1) { x1 = x; }
    if (y < y0) { y0 = y; } if (y > y1) { y1 = y; }
  }
  if (x0 > x1) { x0 = x1 = y0 = y1 = 0; }
  const xr = fitRange(x0, x1), yr = fitRange(y0, y1);
  const sx = 2 / (xr[1] - xr[0]), sy = 2 / (yr[1] - yr[0]);
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
    x[i] = (px - xr[0]) * sx - 1;
    y[i] = (py - yr[0]) * sy - 1;
    shown.push(i);
  }
  return { x, y, missing, shown: missing ? shown : null, extent: [x0, x1, y0, y1], xr, yr };
}

// createView builds the view of one method inside slot. hooks are the
// page's: select(view, indices), deselect(view), over(view, index),
// out(view), frame(view, ms), and, when given, click(view, index) (a
// click on a point, not a lasso), open(view, index) (Enter: the hovered
// row, or the one nearest the centre), escape(view) (Esc) and
// fullscreen(view) (f). Its methods draw and link it.
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
    id: method.id, name: method.name, d: method.d, rows: 0, shown: 0, drawn: false, x: 1, y: 2,
    extent: null, bytes: 0, firstFrameMs: null, firstFrameAt: null, frames: [],
  };
  let shownIdx = null; // indices of drawable rows, null when every row is
  let colourIndex = null;
  let colours = null;
  let xy = null;
  let describe = "";
  let lastFrame = 0;
  let started = performance.now();
  let numbers = null; // Float32Array: each row's number (values?of=row)
  let lookup = null; // Int32Array: row number → index, -1 for none
  let lassoing = false;
  let pointer = null; // the row under the mouse (not one hovered from another view)
  let filterIdx = null; // the rows a filter keeps, null for none

  const density = createDensity(wrap, plot, () => {
    if (!xy) { return null; }
    return { x: xy.x, y: xy.y, idx: filterIdx || shownIdx, n: state.rows };
  });

  const axes = createAxes(wrap, plot);

  plot.subscribe("lassoStart", () => { lassoing = true; });
  plot.subscribe("select", ({ points }) => {
    const click = !lassoing && points.length === 1;
    lassoing = false;
    hooks.select(view, points);
    if (click && hooks.click) { hooks.click(view, points[0]); }
  });
  plot.subscribe("view", () => { density.schedule(); axes.schedule(); });
  plot.subscribe("deselect", () => hooks.deselect(view));
  plot.subscribe("pointOver", (i) => { pointer = i; hooks.over(view, i); });
  plot.subscribe("pointOut", () => { pointer = null; hooks.out(view); });
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
      ". Arrow keys pan, plus and minus zoom, 0 resets the view; hold Shift and drag to lasso rows;" +
      " Enter opens the row nearest the centre, Escape closes it, f shows the view full screen.");
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
      case "Escape":
        ev.preventDefault();
        if (!hooks.escape || !hooks.escape(view)) { plot.deselect(); }
        return;
      case "Enter": {
        if (!hooks.open || !xy) { return; }
        ev.preventDefault();
        const i = pointer !== null ? pointer : nearestToCentre();
        if (i !== null) { plot.hover(i, { preventEvent: true, showReticleOnce: true }); hooks.open(view, i); }
        return;
      }
      case "f": case "F":
        if (!hooks.fullscreen) { return; }
        ev.preventDefault();
        hooks.fullscreen(view);
        return;
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
    density.schedule();
    axes.schedule();
  });
  resize.observe(wrap);

  // nearestToCentre is the drawn row nearest the middle of the view (where
  // the keyboard's panning brings a row), or null when none is in view.
  function nearestToCentre() {
    const w = plot.get("width"), h = plot.get("height");
    const toScreen = density.projector();
    const idx = filterIdx || shownIdx;
    const n = idx ? idx.length : state.rows;
    let best = null, bestD = Infinity;
    for (let k = 0; k < n; k++) {
      const i = idx ? idx[k] : k;
      const [sx, sy] = toScreen(xy.x[i], xy.y[i]);
      if (sx < 0 || sy < 0 || sx > w || sy > h) { continue; }
      const d = (sx - w / 2) ** 2 + (sy - h / 2) ** 2;
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }

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
      axes.setRange(xy.xr, xy.yr, x, y);
      plot.set({ pointSize: pointSize(data.rows) });
      if (colourIndex && colourIndex.length !== data.rows) { colourIndex = null; }
      const opts = { zDataType: "categorical" };
      if (shownIdx) { opts.filter = shownIdx; }
      await plot.draw(points(), opts);
      state.drawn = true;
      status.textContent = state.shown < state.rows ? (state.rows - state.shown) + " rows have no coordinates here (not embedded) and are not drawn." : "";
      filterIdx = null;
      density.schedule();
      label();
    },
    // setNumbers takes each row's number (values?of=row), by which views of
    // different methods are linked: mds leaves out rows the others have.
    setNumbers(values) {
      numbers = values;
      let max = 0;
      for (let i = 0; i < values.length; i++) { if (values[i] > max) { max = values[i]; } }
      lookup = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < values.length; i++) { lookup[values[i]] = i; }
    },
    // number is row index i's number (null before setNumbers).
    number(i) { return numbers && i >= 0 && i < numbers.length ? numbers[i] : null; },
    // numbersOf turns row indices into row numbers.
    numbersOf(indices) { return indices.map((i) => numbers[i]); },
    // indexOf is the index of the row numbered n here, or -1.
    indexOf(n) { return lookup && n >= 0 && n < lookup.length ? lookup[n] : -1; },
    // indicesOf turns row numbers into this view's indices, leaving out
    // the rows it does not have.
    indicesOf(rowNumbers) {
      const out = [];
      for (const n of rowNumbers) { const i = this.indexOf(n); if (i >= 0) { out.push(i); } }
      return out;
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
        filterIdx = keep;
        plot.filter(keep, { preventEvent: true });
      } else if (shownIdx) {
        filterIdx = null;
        plot.filter(shownIdx, { preventEvent: true });
      } else {
        filterIdx = null;
        plot.unfilter({ preventEvent: true });
      }
      density.schedule();
    },
    // setDensity shows or hides the density layer.
    setDensity(on) { density.show(on); },
    // density is the layer's last drawing: {radius, bins, max, total}.
    get density() { return density.state; },
    // axes is what the axes show: {x, y: {component, domain, values, step,
    // labels}}, the domain being the data window in view.
    get axes() { return axes.state; },
    // toScreen maps a row's drawn coordinates to the view's CSS pixels, as
    // the density layer does.
    toScreen(i) { return xy ? density.projector()(xy.x[i], xy.y[i]) : null; },
    hover(i) { plot.hover(i === null ? undefined : i, { preventEvent: true, showReticleOnce: i !== null }); },
    setMode(mode) {
      plot.set(mode === "pan" ? { mouseMode: "panZoom" } : { mouseMode: "lasso", lassoType: mode === "box" ? "rectangle" : "freeform" });
    },
    camera,
    restart() { started = performance.now(); state.firstFrameMs = null; state.frames = []; lastFrame = 0; },
    destroy() { resize.disconnect(); density.destroy(); axes.destroy(); renderer.fit(wrap, false); plot.destroy(); wrap.remove(); status.remove(); },
  };
  return view;
}
