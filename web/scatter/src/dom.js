// Small helpers the explorer's modules share to build the page.

// el makes an element with attributes (text: its text; false, null and
// undefined leave the attribute out; true sets it empty) and children.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) { continue; }
    if (k === "text") { e.textContent = v; } else { e.setAttribute(k, v === true ? "" : v); }
  }
  for (const c of children) { if (c !== null && c !== undefined && c !== false) { e.append(c); } }
  return e;
}

// num writes a number with digits significant digits (3 by default),
// exponential when very small or large, "–" for none.
export function num(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) { return "–"; }
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) { return v.toExponential((digits || 3) - 1); }
  return Number(v.toPrecision(digits || 3)).toString();
}

// pct is " (12.5%)", k of n, or nothing when n is 0.
export function pct(k, n) { return n > 0 ? " (" + (100 * k / n).toFixed(1) + "%)" : ""; }

// labelText names a label set: "a, b", or "no label" when it is empty.
export function labelText(labels) { return labels && labels.length ? labels.join(", ") : "no label"; }
