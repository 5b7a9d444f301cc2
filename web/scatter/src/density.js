// The density layer of a view: a hexagonal binning of the rows drawn in
// the view's current window, on a 2-D canvas over the WebGL one, redrawn
// (once an animation frame at most) whenever the camera, the size, the
// points or the filter change, so it follows pan and zoom.

// radius is the hexagons' circumradius in CSS pixels.
export const radius = 10;

// hexbin counts the points (sx, sy: CSS pixels, n of them, only those
// inside w × h) in hexagons of radius r, as d3-hexbin lays them out. It
// returns the non-empty bins {cx, cy, count}, the largest count and the
// points counted.
export function hexbin(sx, sy, n, w, h, r) {
  const dx = r * 2 * Math.sin(Math.PI / 3), dy = r * 1.5;
  const cols = Math.ceil(w / dx) + 3, rows = Math.ceil(h / dy) + 3;
  const counts = new Uint32Array(cols * rows);
  let total = 0;
  for (let k = 0; k < n; k++) {
    const x = sx[k], y = sy[k];
    if (!(x >= 0 && y >= 0 && x <= w && y <= h)) { continue; }
    let py = y / dy, pj = Math.round(py);
    let px = x / dx - (pj & 1) / 2, pi = Math.round(px);
    const py1 = py - pj;
    if (Math.abs(py1) * 3 > 1) {
      const px1 = px - pi;
      const pi2 = pi + (px < pi ? -1 : 1) / 2, pj2 = pj + (py < pj ? -1 : 1);
      const px2 = px - pi2, py2 = py - pj2;
      if (px1 * px1 + py1 * py1 > px2 * px2 + py2 * py2) { pi = pi2 + (pj & 1 ? 1 : -1) / 2; pj = pj2; }
    }
    const c = pi + 1, rr = pj + 1;
    if (c < 0 || rr < 0 || c >= cols || rr >= rows) { continue; }
    counts[rr * cols + c]++;
    total++;
  }
  const bins = [];
  let max = 0;
  for (let rr = 0; rr < rows; rr++) {
    for (let c = 0; c < cols; c++) {
      const v = counts[rr * cols + c];
      if (!v) { continue; }
      const pj = rr - 1, pi = c - 1;
      bins.push({ cx: (pi + (pj & 1) / 2) * dx, cy: pj * dy, count: v });
      if (v > max) { max = v; }
    }
  }
  return { bins, max, total };
}

// createDensity makes the layer inside wrap for plot (a regl-scatterplot
// instance); data() gives {x, y, idx, n}: the drawn coordinates (the
// library's normalised ones) and the indices drawn (null: all n).
export function createDensity(wrap, plot, data) {
  const canvas = document.createElement("canvas");
  canvas.className = "density-layer";
  canvas.setAttribute("aria-hidden", "true");
  canvas.hidden = true;
  wrap.appendChild(canvas);
  let on = false;
  let pending = 0;
  const layer = { state: null };

  // projector maps the library's coordinates to CSS pixels of the view,
  // as its getScreenPosition does: projection · view · model.
  function projector() {
    const w = plot.get("width"), h = plot.get("height");
    const v = plot.get("cameraView");
    const a = plot.get("aspectRatio") || 1;
    const ar = w / h;
    return (x, y) => {
      const cx = (v[0] * a * x + v[4] * y + v[12]) / ar;
      const cy = v[1] * a * x + v[5] * y + v[13];
      return [(w * (cx + 1)) / 2, h * (0.5 - cy / 2)];
    };
  }

  function draw() {
    pending = 0;
    if (!on) { return; }
    const d = data();
    const w = plot.get("width"), h = plot.get("height");
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (!d) { layer.state = { radius, bins: 0, max: 0, total: 0 }; return; }
    const n = d.idx ? d.idx.length : d.n;
    const sx = new Float32Array(n), sy = new Float32Array(n);
    const toScreen = projector();
    for (let k = 0; k < n; k++) {
      const i = d.idx ? d.idx[k] : k;
      const p = toScreen(d.x[i], d.y[i]);
      sx[k] = p[0];
      sy[k] = p[1];
    }
    const hb = hexbin(sx, sy, n, w, h, radius);
    const lmax = Math.log1p(hb.max || 1);
    const corners = [];
    for (let k = 0; k < 6; k++) {
      const t = Math.PI / 6 + (k * Math.PI) / 3;
      corners.push([radius * Math.cos(t), radius * Math.sin(t)]);
    }
    for (const b of hb.bins) {
      const f = Math.log1p(b.count) / lmax;
      ctx.fillStyle = "rgba(0, 46, 102, " + (0.05 + 0.35 * f).toFixed(3) + ")";
      ctx.beginPath();
      corners.forEach(([ox, oy], k) => { if (k) { ctx.lineTo(b.cx + ox, b.cy + oy); } else { ctx.moveTo(b.cx + ox, b.cy + oy); } });
      ctx.closePath();
      ctx.fill();
    }
    layer.state = { radius, bins: hb.bins.length, max: hb.max, total: hb.total };
  }

  layer.projector = projector;
  // schedule redraws the layer at the next animation frame (when shown).
  layer.schedule = () => {
    if (on && !pending) { pending = requestAnimationFrame(draw); }
  };
  // show switches the layer on or off.
  layer.show = (v) => {
    on = !!v;
    canvas.hidden = !on;
    if (!on) { layer.state = null; if (pending) { cancelAnimationFrame(pending); pending = 0; } return; }
    layer.schedule();
  };
  layer.destroy = () => { if (pending) { cancelAnimationFrame(pending); } canvas.remove(); };
  return layer;
}
