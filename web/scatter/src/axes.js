// The axes of a view: tick marks and their values along the bottom and
// left edges and the components' names, an SVG over the canvas that
// follows pan and zoom.
//
// regl-scatterplot keeps D3-style scales in step with its camera (its
// xScale and yScale options: whatever domain a scale has when it is given
// is taken for the data range of WebGL's [-1, 1], and the library sets the
// scale's domain to the window in view at every change of the camera or
// size). The views give it the minimal linear scales below, so no d3
// package is needed, and read the window back from them.

const svgNS = "http://www.w3.org/2000/svg";

// linearScale is the part of D3's scaleLinear that regl-scatterplot uses:
// a function of a value with domain() and range() getters and setters.
export function linearScale(domain, range) {
  let d = [domain[0], domain[1]];
  let r = range ? [range[0], range[1]] : [0, 1];
  const s = (v) => r[0] + ((v - d[0]) / (d[1] - d[0])) * (r[1] - r[0]);
  s.domain = (x) => {
    if (x === undefined) { return d.slice(); }
    d = [+x[0], +x[1]];
    return s;
  };
  s.range = (x) => {
    if (x === undefined) { return r.slice(); }
    r = [+x[0], +x[1]];
    return s;
  };
  return s;
}

// fitRange is the range the static figure gives an axis (internal/plots'
// fitRange): the values' extent padded by 4 % each side, or ±1 around a
// single value.
export function fitRange(lo, hi) {
  if (!(hi > lo)) { return [lo - 1, hi + 1]; }
  const pad = 0.04 * (hi - lo);
  return [lo - pad, hi + pad];
}

// ticks are the round values (steps of 1, 2 or 5 times a power of ten)
// in [lo, hi], about n of them (the step nearest span / n on a log scale,
// as D3's ticks choose it): {values, step, decimals}, the decimals being
// those internal/plots' niceTicks writes for that step.
export function ticks(lo, hi, n) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span) || n < 1) { return { values: [], step: 0, decimals: 0 }; }
  const raw = span / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const err = raw / mag;
  const step = mag * (err >= Math.sqrt(50) ? 10 : err >= Math.sqrt(10) ? 5 : err >= Math.sqrt(2) ? 2 : 1);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const values = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
    values.push(k * step);
  }
  return { values, step, decimals };
}

// format writes v with the given decimals, never "-0".
export function format(v, decimals) {
  const s = v.toFixed(decimals);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

// The layout, in CSS pixels: tick length, the font's size, the gap
// between tick labels, and the bands the names take.
const tickLen = 5;
const fontSize = 11;
const gap = 12;
const edge = 4;

let measurer = null;

// textWidth is the width of s in the axes' font.
function textWidth(s, family) {
  if (!measurer) { measurer = document.createElement("canvas").getContext("2d"); }
  if (!measurer) { return s.length * fontSize * 0.6; }
  measurer.font = fontSize + "px " + family;
  return measurer.measureText(s).width;
}

function node(tag, attrs, text) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) { e.setAttribute(k, String(v)); }
  if (text !== undefined) { e.textContent = text; }
  return e;
}

// layoutX chooses the x axis's ticks for a window [lo, hi] drawn w pixels
// wide: as many as fit with their labels gap pixels apart, about one
// every 50 pixels and ten at most.
function layoutX(lo, hi, w, family) {
  for (let n = Math.max(2, Math.min(10, Math.floor(w / 50))); n >= 1; n--) {
    const t = ticks(lo, hi, n);
    const widest = Math.max(0, ...t.values.map((v) => textWidth(format(v, t.decimals), family)));
    if (n === 1 || (t.step / (hi - lo)) * w >= widest + gap) { return t; }
  }
  return ticks(lo, hi, 1);
}

// layoutY is the same for the y axis, h pixels tall: about one every 40
// pixels.
function layoutY(lo, hi, h) {
  for (let n = Math.max(2, Math.min(10, Math.floor(h / 40))); n >= 1; n--) {
    const t = ticks(lo, hi, n);
    if (n === 1 || (t.step / (hi - lo)) * h >= fontSize + gap) { return t; }
  }
  return ticks(lo, hi, 1);
}

// createAxes makes the axes of a view inside wrap for plot (a
// regl-scatterplot instance). setRange gives the data range of WebGL's
// [-1, 1] on each axis and the components' numbers; schedule redraws at
// the next animation frame; state is what is drawn: {x, y: {component,
// domain, values, labels}}.
export function createAxes(wrap, plot) {
  const svg = node("svg", { class: "scatter-axes", "aria-hidden": "true", "data-testid": "scatter-axes" });
  wrap.appendChild(svg);
  let scales = null;
  let components = [1, 2];
  let pending = 0;
  const axes = { state: null };

  function draw() {
    pending = 0;
    if (!scales) { return; }
    const w = plot.get("width"), h = plot.get("height");
    const [x0, x1] = scales.x.domain(), [y0, y1] = scales.y.domain();
    if (!(x1 > x0) || !(y1 > y0) || !(w > 0) || !(h > 0)) { return; }
    const family = getComputedStyle(wrap).fontFamily || "sans-serif";
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.replaceChildren();
    const xName = "component " + components[0], yName = "component " + components[1];

    // The y axis: marks on the left edge, each value sitting on its mark
    // (beside it, a mark would read as a minus sign), none in the top
    // band (the axis's name) or the bottom one (the x axis's values).
    const ty = layoutY(y0, y1, h);
    const yLabels = [];
    let yWidest = 0;
    for (const v of ty.values) {
      const py = h - ((v - y0) / (y1 - y0)) * h;
      if (py < fontSize + 2 * edge) { continue; } // under the axis's name
      svg.appendChild(node("line", { class: "tick-mark", x1: 0, x2: tickLen, y1: py, y2: py }));
      if (py - 3 - fontSize < fontSize + 2 * edge || py - 3 > h - tickLen - 3 - fontSize - 2) { continue; }
      const s = format(v, ty.decimals);
      yWidest = Math.max(yWidest, textWidth(s, family));
      svg.appendChild(node("text", { class: "tick-label", x: 2, y: py - 3, "data-axis": "y", "data-value": v }, s));
      yLabels.push(s);
    }

    // The x axis: marks on the bottom edge, values above them, none over
    // the y axis's values or past the edges.
    const tx = layoutX(x0, x1, w, family);
    const xLabels = [];
    const left = yLabels.length ? 2 + yWidest + gap / 2 : 0;
    for (const v of tx.values) {
      const px = ((v - x0) / (x1 - x0)) * w;
      svg.appendChild(node("line", { class: "tick-mark", x1: px, x2: px, y1: h, y2: h - tickLen }));
      const s = format(v, tx.decimals);
      const half = textWidth(s, family) / 2;
      if (px - half < Math.max(edge, left) || px + half > w - edge) { continue; }
      svg.appendChild(node("text", { class: "tick-label", x: px, y: h - tickLen - 3, "text-anchor": "middle", "data-axis": "x", "data-value": v }, s));
      xLabels.push(s);
    }

    svg.appendChild(node("text", { class: "axis-name", x: w - edge, y: h - tickLen - 3 - fontSize - 5, "text-anchor": "end", "data-testid": "axis-name-x" }, xName + " →"));
    svg.appendChild(node("text", { class: "axis-name", x: edge, y: edge + fontSize, "data-testid": "axis-name-y" }, "↑ " + yName));

    axes.state = {
      x: { component: components[0], domain: [x0, x1], values: tx.values, step: tx.step, labels: xLabels },
      y: { component: components[1], domain: [y0, y1], values: ty.values, step: ty.step, labels: yLabels },
    };
  }

  // setRange takes the data ranges xr, yr ([lo, hi]) drawn at WebGL's
  // [-1, 1] and the components shown (cx, cy), and hands the library new
  // scales to keep in step with the camera.
  axes.setRange = (xr, yr, cx, cy) => {
    components = [cx, cy];
    scales = { x: linearScale(xr), y: linearScale(yr) };
    plot.set({ xScale: scales.x, yScale: scales.y });
    axes.schedule();
  };
  axes.schedule = () => {
    if (!pending) { pending = requestAnimationFrame(draw); }
  };
  axes.destroy = () => { if (pending) { cancelAnimationFrame(pending); } svg.remove(); };
  return axes;
}
