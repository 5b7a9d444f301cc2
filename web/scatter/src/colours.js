// Colours of the scatter: the product's palettes (internal/plots/style.go)
// turned into what regl-scatterplot takes, and the legend that says them.

// okabeIto is the Okabe–Ito palette (Okabe & Ito 2008), distinguishable
// under the common colour-vision deficiencies, in the product's order.
export const okabeIto = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"];

// otherColour is the grey of rows outside every named group (and of rows
// with no value).
export const otherColour = "#999999";

// maxGroups is how many categories get their own colour, as in the static
// figures; the rest are grey.
export const maxGroups = 7;

// viridisStops samples matplotlib's viridis at ten even steps (the
// product's continuous scale).
const viridisStops = ["#440154", "#482878", "#3E4A89", "#31688E", "#26828E", "#1F9E89", "#35B779", "#6DCD59", "#B4DE2C", "#FDE725"];

// rampSize is how many steps the continuous colour scale has.
export const rampSize = 256;

function hexRGB(h) { return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)); }
function rgbHex(c) { return "#" + c.map((v) => Math.round(v).toString(16).padStart(2, "0")).join(""); }

// viridis returns the viridis colour at t in [0, 1], interpolated.
export function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (viridisStops.length - 1);
  const i = Math.min(viridisStops.length - 2, Math.floor(x));
  const a = hexRGB(viridisStops[i]), b = hexRGB(viridisStops[i + 1]), f = x - i;
  return rgbHex(a.map((v, k) => v + f * (b[k] - v)));
}

// encode turns a key's values (one float per row: a category index, a
// value, NaN for none) into what the scatter draws: valueA, an integer
// colour index a row, and the colour list it indexes; and the legend.
//
// Categorical: the first maxGroups categories (of more than maxGroups + 1;
// "set" comes most frequent first) get the Okabe–Ito colours, the rest and
// the rows without a category are "other", grey. Continuous: rampSize
// viridis steps between min and max, and grey for rows without a value.
export function encode(colour, data) {
  const n = data.values.length;
  const index = new Float32Array(n);
  if (colour.type === "continuous") {
    const lo = colour.min ?? data.min ?? 0, hi = colour.max ?? data.max ?? 1;
    const span = hi > lo ? hi - lo : 1;
    let none = 0;
    for (let i = 0; i < n; i++) {
      const v = data.values[i];
      if (Number.isNaN(v)) { index[i] = rampSize; none++; continue; }
      index[i] = Math.min(rampSize - 1, Math.max(0, Math.floor(((v - lo) / span) * rampSize)));
    }
    const colours = [];
    for (let k = 0; k < rampSize; k++) { colours.push(viridis((k + 0.5) / rampSize)); }
    colours.push(otherColour);
    return { index, colours, legend: { type: "continuous", min: lo, max: hi, none, text: colour.text } };
  }
  const cats = colour.categories || [];
  const named = cats.length <= maxGroups + 1 ? cats.length : maxGroups;
  const counts = new Array(cats.length).fill(0);
  let other = 0;
  for (let i = 0; i < n; i++) {
    const v = data.values[i];
    if (Number.isNaN(v) || v < 0 || v >= cats.length) { index[i] = named; other++; continue; }
    counts[v]++;
    if (v < named) { index[i] = v; } else { index[i] = named; other++; }
  }
  const colours = okabeIto.slice(0, named);
  colours.push(otherColour);
  const entries = cats.map((name, k) => ({
    name, count: counts[k], colour: k < named ? okabeIto[k] : otherColour, grey: k >= named,
  }));
  return { index, colours, legend: { type: "categorical", entries, other, text: colour.text } };
}
