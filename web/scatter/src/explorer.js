// The explorer of a job's results: the controls, one linked scatter per
// method, the legend and the selection panel. Built from
// GET /api/jobs/{id}/explore; points, colours and row numbers come as
// float32 from /points and /values, the selection's statistics from
// POST /selection (docs/API.md).

import { getFloats, getJSON, postJSON } from "./api.js";
import { encode } from "./colours.js";
import { createView } from "./view.js";

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) { continue; }
    if (k === "text") { e.textContent = v; } else { e.setAttribute(k, v === true ? "" : v); }
  }
  for (const c of children) { if (c) { e.append(c); } }
  return e;
}

function num(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) { return "–"; }
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) { return v.toExponential((digits || 3) - 1); }
  return Number(v.toPrecision(digits || 3)).toString();
}

function pct(k, n) { return n > 0 ? " (" + (100 * k / n).toFixed(1) + "%)" : ""; }

// readHash reads the explorer's state from the address's fragment:
// #sx=1&sy=2&scolour=label:a.
function readHash() {
  const h = new URLSearchParams(window.location.hash.slice(1));
  return { x: parseInt(h.get("sx"), 10) || 0, y: parseInt(h.get("sy"), 10) || 0, colour: h.get("scolour") || "" };
}

function writeHash(s) {
  const h = new URLSearchParams(window.location.hash.slice(1));
  h.set("sx", s.x);
  h.set("sy", s.y);
  h.set("scolour", s.colour);
  window.history.replaceState(null, "", window.location.pathname + window.location.search + "#" + h.toString());
}

// createExplorer enhances root (the [data-explore] element of a results
// block) with renderer, the regl-scatterplot renderer every view shares.
// page is the page's state (window.mldrExplore), kept across re-renders
// of the results. It returns a function that takes the explorer down.
export async function createExplorer(root, renderer, page) {
  const api = root.getAttribute("data-explore");
  const aborter = new AbortController();
  const signal = aborter.signal;
  const views = [];
  let rowNumbers = null; // Float32Array: each row's number, fetched on the first selection
  let selected = []; // indices into the rows
  let selectedFrom = null;
  let pendingSelection = null;
  let colourToken = 0;

  const notice = el("p", { class: "hint", role: "status", "data-testid": "explore-status", text: "Loading the interactive view…" });
  root.replaceChildren(notice);
  root.hidden = false;

  let meta;
  try {
    meta = await getJSON(api + "/explore", "loading what the job's rows can be coloured by", signal);
  } catch (e) {
    if (e.name !== "AbortError") { notice.textContent = "Interactive view unavailable: " + e.message + "."; }
    return () => aborter.abort();
  }
  const slots = new Map();
  root.closest("section, #results, body").querySelectorAll("[data-scatter]").forEach((s) => slots.set(s.getAttribute("data-scatter"), s));
  const methods = meta.methods.filter((m) => slots.has(m.id));
  if (!methods.length) {
    notice.textContent = "Interactive view unavailable: no method of this job has a projection to draw.";
    return () => aborter.abort();
  }
  const maxD = Math.max(...methods.map((m) => m.d));
  const hash = readHash();
  const st = {
    x: hash.x >= 1 && hash.x <= maxD ? hash.x : 1,
    y: hash.y >= 1 && hash.y <= maxD ? hash.y : Math.min(2, maxD),
    colour: hash.colour || (meta.colours[0] && meta.colours[0].key) || "",
  };

  // ---- Controls ----------------------------------------------------------
  const id = (s) => "explore-" + s;
  const axis = (name, text, value) => {
    const sel = el("select", { id: id(name), "data-testid": "explore-" + name });
    for (let i = 1; i <= maxD; i++) { sel.append(el("option", { value: i, selected: i === value, text: "component " + i })); }
    return [el("label", { for: id(name), text }), sel];
  };
  const [xLabel, xSel] = axis("x", "Horizontal", st.x);
  const [yLabel, ySel] = axis("y", "Vertical", st.y);
  const colourSel = el("select", { id: id("colour"), "data-testid": "explore-colour" });
  for (const c of meta.colours) { colourSel.append(el("option", { value: c.key, text: c.text })); }
  if (meta.features && meta.features.length) { colourSel.append(el("option", { value: "feature:", text: "a feature…" })); }
  const featureList = el("datalist", { id: id("features") });
  for (const f of meta.features || []) { featureList.append(el("option", { value: f })); }
  const featureInput = el("input", { id: id("feature"), type: "search", list: id("features"), "data-testid": "explore-feature", placeholder: "feature name", autocomplete: "off" });
  const featureLabel = el("label", { for: id("feature"), text: "Feature" });
  const featureBox = el("span", { class: "explore-feature" }, featureLabel, featureInput, featureList);
  const modes = el("fieldset", { class: "explore-modes", "data-testid": "explore-mode" }, el("legend", { text: "Mouse" }));
  for (const [v, t] of [["pan", "pan and zoom"], ["lasso", "lasso"], ["box", "box"]]) {
    const r = el("input", { type: "radio", name: "explore-mode", id: id("mode-" + v), value: v, checked: v === "pan" });
    modes.append(el("label", { class: "inline", for: id("mode-" + v) }, r, " " + t));
  }
  const onlySel = el("input", { type: "checkbox", id: id("only"), "data-testid": "explore-only" });
  const clearBtn = el("button", { type: "button", class: "secondary", "data-testid": "explore-clear", disabled: true, text: "Clear the selection" });
  const controls = el("div", { class: "controls explore-controls", role: "group", "aria-label": "Interactive view" },
    xLabel, xSel, yLabel, ySel, el("label", { for: id("colour"), text: "Colour by" }), colourSel, featureBox, modes,
    el("label", { class: "inline", for: id("only") }, onlySel, " show only the selection"), clearBtn);
  const legend = el("div", { class: "explore-legend", "data-testid": "explore-legend" });
  const hoverLine = el("p", { class: "hint explore-hover", "aria-hidden": "true", "data-testid": "explore-hover" });
  const panel = el("section", { class: "card selection-panel", "aria-live": "polite", "aria-labelledby": id("sel-h"), "data-testid": "selection-panel" },
    el("h3", { id: id("sel-h"), text: "Selection" }),
    el("p", { class: "hint", "data-testid": "selection-count", text: "Lasso rows in any view (hold Shift and drag, or choose lasso or box above) to see which labels they are enriched in." }));
  notice.textContent = "";
  root.replaceChildren(controls, legend, hoverLine, notice, panel);

  // ---- Page state for scripts and tests ---------------------------------
  Object.assign(page, { ready: false, rows: meta.rows, selectedFrom: null, selected: [], selection: null, error: null, hovered: null });
  page.controls = st; // x, y and colour, live
  page.selectedIndices = () => selected.slice();
  page.views = {};
  page.legend = null;

  // ---- Views ---------------------------------------------------------------
  const hooks = {
    select(view, indices) { setSelection(Array.from(indices), view); },
    deselect(view) { setSelection([], view); },
    over(view, i) {
      for (const v of views) { if (v !== view) { v.hover(i); } }
      page.hovered = i;
      hoverLine.textContent = "Row " + (rowNumbers ? rowNumbers[i] : i + 1) + " (" + view.state.name + ")";
    },
    out(view) {
      for (const v of views) { if (v !== view) { v.hover(null); } }
      page.hovered = null;
      hoverLine.textContent = "";
    },
    frame() {},
  };
  // The static figures' axis and colour controls steer only the static
  // figures, now behind the views (their PNG and SVG downloads follow the
  // address): the explorer's own controls take their place.
  const staticForm = root.ownerDocument.querySelector('[data-testid="projection-controls"]');
  if (staticForm) {
    for (const name of ["x", "y", "colour"]) {
      const c = staticForm.querySelector("#" + name);
      const l = staticForm.querySelector('label[for="' + name + '"]');
      if (c) { c.hidden = true; }
      if (l) { l.hidden = true; }
    }
  }
  for (const m of methods) {
    const slot = slots.get(m.id);
    slot.hidden = false;
    const v = createView(slot, m, renderer, hooks);
    views.push(v);
    page.views[m.id] = {
      get state() { return v.state; },
      get camera() { return v.camera(); },
      get selected() { return Array.from(v.plot.get("selectedPoints") || []); },
      get filtered() { return (v.plot.get("filteredPoints") || []).length; },
      get hovered() { return v.plot.get("hoveredPoint") ?? null; },
      // position is where row index i is drawn, in the page's CSS pixels.
      position(i) {
        const [x, y] = v.plot.getScreenPosition(i);
        const r = v.element.getBoundingClientRect();
        return [r.left + x, r.top + y];
      },
    };
    const fig = root.ownerDocument.getElementById("projection-" + m.id);
    if (fig) {
      fig.querySelectorAll(".plot-svg, .tooltip").forEach((e) => { e.hidden = true; });
      fig.classList.add("static-behind");
    }
  }

  // loadPoints draws the chosen components; a method with fewer
  // components shows its last ones instead.
  async function loadPoints() {
    await Promise.all(views.map(async (v, i) => {
      const d = methods[i].d, x = Math.min(st.x, d), y = Math.min(st.y, d);
      const data = await getFloats(api + "/points?method=" + encodeURIComponent(v.id) + "&x=" + x + "&y=" + y, 2, v.state.name + "'s points", signal);
      await v.setPoints(data, x, y);
    }));
  }

  async function loadColour() {
    const token = ++colourToken;
    let key = st.colour;
    let c = meta.colours.find((o) => o.key === key);
    if (!c && key.startsWith("feature:") && (meta.features || []).includes(key.slice(8))) {
      c = { key, text: "feature " + key.slice(8), type: "continuous" };
    }
    if (!c) { c = meta.colours[0]; key = c.key; st.colour = key; }
    colourSel.value = key.startsWith("feature:") ? "feature:" : key;
    featureBox.hidden = !key.startsWith("feature:");
    const owner = key.startsWith("error:") ? key.split(":")[2] : views[0].id;
    const data = await getFloats(api + "/values?of=" + encodeURIComponent(key) + "&method=" + encodeURIComponent(owner), 1, "the colours (" + c.text + ")", signal);
    if (token !== colourToken) { return; }
    const enc = encode(c, data);
    await Promise.all(views.map((v) => v.setColours(enc.index, enc.colours, c.text)));
    drawLegend(enc.legend);
    page.legend = enc.legend;
    writeHash(st);
  }

  function drawLegend(l) {
    const title = el("p", { class: "explore-legend-title", text: l.text });
    if (l.type === "continuous") {
      const ramp = el("canvas", { width: 200, height: 12, class: "explore-ramp", "aria-hidden": "true" });
      const ctx = ramp.getContext("2d");
      const g = ctx.createLinearGradient(0, 0, 200, 0);
      ["#440154", "#482878", "#3E4A89", "#31688E", "#26828E", "#1F9E89", "#35B779", "#6DCD59", "#B4DE2C", "#FDE725"].forEach((c, i) => g.addColorStop(i / 9, c));
      ctx.fillStyle = g;
      ctx.fillRect(0, 0, 200, 12);
      const row = el("p", { class: "explore-ramp-row", "data-testid": "legend-continuous" },
        el("span", { "data-testid": "legend-min", text: num(l.min, 3) }), ramp, el("span", { "data-testid": "legend-max", text: num(l.max, 3) }));
      legend.replaceChildren(title, row);
      if (l.none) { legend.append(el("p", { class: "hint" }, swatch("#999999"), " no value: " + l.none + " rows")); }
      return;
    }
    const search = el("input", { type: "search", id: id("legend-search"), placeholder: "find a category", "data-testid": "legend-search", autocomplete: "off" });
    const list = el("ul", { class: "explore-legend-list", "data-testid": "legend-list" });
    for (const e of l.entries) {
      list.append(el("li", { "data-name": e.name, "data-testid": "legend-entry" }, swatch(e.colour), " " + e.name + " ", el("span", { class: "muted", text: String(e.count) })));
    }
    const parts = [title];
    if (l.entries.length > 10) {
      parts.push(el("label", { for: id("legend-search"), class: "sr-only", text: "Find a category" }), search);
      search.addEventListener("input", () => {
        const q = search.value.toLowerCase();
        list.querySelectorAll("li").forEach((li) => { li.hidden = q !== "" && !li.getAttribute("data-name").toLowerCase().includes(q); });
      });
    }
    parts.push(list);
    if (l.other && l.entries.some((e) => e.grey)) { parts.push(el("p", { class: "hint" }, swatch("#999999"), " other (grey): " + l.other + " rows")); }
    legend.replaceChildren(...parts);
  }

  function swatch(c) {
    const s = el("span", { class: "legend-swatch", "aria-hidden": "true" });
    s.style.background = c;
    return s;
  }

  // ---- Selection -----------------------------------------------------------
  function setSelection(indices, from) {
    selected = indices;
    selectedFrom = indices.length ? from : null;
    for (const v of views) { if (v !== from) { v.select(indices); } }
    if (onlySel.checked) { applyFilter(); }
    clearBtn.disabled = !indices.length;
    page.selectedFrom = selectedFrom ? selectedFrom.id : null;
    if (!indices.length) {
      page.selected = [];
      page.selection = null;
      panel.replaceChildren(panel.firstChild, el("p", { class: "hint", "data-testid": "selection-count", text: "Nothing selected." }));
      return;
    }
    askSelection(indices, from);
  }

  async function askSelection(indices, from) {
    if (pendingSelection) { pendingSelection.abort(); }
    const ctl = pendingSelection = new AbortController();
    signal.addEventListener("abort", () => ctl.abort());
    panel.setAttribute("aria-busy", "true");
    try {
      if (!rowNumbers) { rowNumbers = (await getFloats(api + "/values?of=row", 1, "the row numbers", ctl.signal)).values; }
      const rows = indices.map((i) => rowNumbers[i]);
      page.selected = rows;
      const ans = await postJSON(api + "/selection", { method: from.id, rows }, "the selection's statistics", ctl.signal);
      if (ctl !== pendingSelection) { return; }
      page.selection = ans;
      drawPanel(ans, from);
    } catch (e) {
      if (e.name === "AbortError") { return; }
      page.error = e.message;
      panel.replaceChildren(panel.firstChild, el("p", { class: "error", role: "alert", "data-testid": "selection-error", text: e.message + "." }));
    } finally {
      if (ctl === pendingSelection) { panel.removeAttribute("aria-busy"); pendingSelection = null; }
    }
  }

  function drawPanel(ans, from) {
    const parts = [panel.firstChild,
      el("p", { "data-testid": "selection-count", text: ans.count + " of " + meta.rows + " rows selected in " + from.state.name + "." })];
    if (ans.label_sets && ans.label_sets.length) {
      const sets = el("ol", { class: "selection-sets", "data-testid": "selection-sets" });
      for (const s of ans.label_sets.slice(0, 5)) {
        sets.append(el("li", { text: (s.labels.length ? s.labels.join(", ") : "no label") + ": " + s.count + pct(s.count, ans.count) }));
      }
      parts.push(el("p", { class: "hint", text: "Most frequent label sets in the selection:" }), sets);
    }
    const table = el("table", { class: "selection-labels", "data-testid": "selection-labels" });
    table.append(el("caption", { text: "Labels by enrichment in the selection (hypergeometric upper tail p; q: Benjamini–Hochberg over the labels)" }));
    const head = el("tr");
    for (const h of ["label", "in the selection", "overall", "lift", "p", "q"]) { head.append(el("th", { scope: "col", text: h })); }
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const l of ans.labels || []) {
      body.append(el("tr", { "data-label": l.label },
        el("th", { scope: "row", text: l.label }),
        el("td", { class: "num", text: l.in_selection + pct(l.in_selection, ans.count) }),
        el("td", { class: "num", text: l.overall + pct(l.overall, meta.rows) }),
        el("td", { class: "num", text: num(l.lift, 3) }),
        el("td", { class: "num", "data-p": l.p, text: num(l.p, 3) }),
        el("td", { class: "num", text: num(l.q, 3) })));
    }
    table.append(body);
    parts.push(el("div", { class: "table-wrap" }, table));
    panel.replaceChildren(...parts);
  }

  function applyFilter() {
    for (const v of views) { v.filter(onlySel.checked && selected.length ? selected : null); }
  }

  // ---- Wiring ----------------------------------------------------------------
  const fail = (e) => {
    if (e.name === "AbortError") { return; }
    page.error = e.message;
    notice.textContent = "Interactive view unavailable: " + e.message + ".";
    notice.setAttribute("role", "alert");
  };
  xSel.addEventListener("change", () => { st.x = +xSel.value; writeHash(st); loadPoints().catch(fail); });
  ySel.addEventListener("change", () => { st.y = +ySel.value; writeHash(st); loadPoints().catch(fail); });
  colourSel.addEventListener("change", () => {
    if (colourSel.value === "feature:") {
      featureBox.hidden = false;
      featureInput.focus();
      return;
    }
    st.colour = colourSel.value;
    loadColour().catch(fail);
  });
  featureInput.addEventListener("change", () => {
    if (!(meta.features || []).includes(featureInput.value)) { return; }
    st.colour = "feature:" + featureInput.value;
    loadColour().catch(fail);
  });
  modes.addEventListener("change", () => {
    const m = modes.querySelector("input:checked").value;
    for (const v of views) { v.setMode(m); }
  });
  onlySel.addEventListener("change", applyFilter);
  clearBtn.addEventListener("click", () => {
    for (const v of views) { v.select([]); }
    setSelection([], null);
  });
  if (st.colour.startsWith("feature:")) { featureInput.value = st.colour.slice(8); }
  featureBox.hidden = true;

  try {
    const t0 = performance.now();
    views.forEach((v) => v.restart());
    await loadPoints();
    await loadColour();
    page.loadMs = performance.now() - t0;
    if (page.keep && page.keep.length && page.keep.every((i) => i < meta.rows)) {
      const keep = page.keep;
      for (const v of views) { v.select(keep); }
      setSelection(keep, views[0]);
    }
    page.ready = true;
  } catch (e) {
    fail(e);
  }
  return () => {
    page.keep = selected.slice();
    aborter.abort();
    for (const v of views) { v.destroy(); }
  };
}
