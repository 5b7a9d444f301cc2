// The explorer of a job's results: the controls, one linked scatter per
// method, the legend and the selection panel. Built from
// GET /api/jobs/{id}/explore; points, colours and row numbers come as
// float32 from /points and /values, the selection's statistics from
// POST /selection (docs/API.md). Views are linked by row number (mds
// leaves out rows the other methods have): a selection, a hover, a search
// or a saved selection lights up the same rows in every view. A click (or
// Enter) opens a row's panel with its nearest rows (rowpanel.js);
// selections can be named and kept with the job (saved.js); a view can
// fill the window, and a density layer can be drawn over each view
// (density.js). On the compare page explorers of several jobs join one
// link (link.js) when the jobs use the same data: a selection, a hover or
// a colour made in one is shown by the others, by row number. There
// one control bar steers every view (bar.js's roles): the first job's
// explorer shows the controls, and what is chosen there is sent to the
// others over the page's bar.

import { getFloats, getJSON, postJSON } from "./api.js";
import { encode } from "./colours.js";
import { el, labelText, num, pct } from "./dom.js";
import { radius as hexRadius } from "./density.js";
import { createRowPanel } from "./rowpanel.js";
import { createSaved } from "./saved.js";
import { createView } from "./view.js";

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
// of the results. opts, all optional: meta, the job's /explore answer
// (else fetched); link, the link to join; prefix, what starts the ids of
// its elements ("explore-"); job, the job's short id, for the texts;
// slots, the [data-scatter] elements of its views (else those in root's
// section); role, what root shows: "lead" (the default: the controls,
// the search, the legend, the selection and saved selections), "panel"
// (the legend, the selection and saved selections, under title: a job
// whose data no lead's link reaches) or "quiet" (only a row's panel and
// the notices; its selections are shown by its link's panel); title,
// what names the job in the panels; bar, the link over which the lead's
// controls reach every other explorer of the page. It returns a function
// that takes the explorer down.
export async function createExplorer(root, renderer, page, opts = {}) {
  const api = root.getAttribute("data-explore");
  const aborter = new AbortController();
  const signal = aborter.signal;
  const doc = root.ownerDocument;
  const views = [];
  // The selection, as row numbers; from is the view it was made in (null:
  // a search or a saved selection), text what the panel says of it.
  let sel = { numbers: [], from: null, method: null, text: "" };
  let pendingSelection = null;
  let colourToken = 0;
  let setValues = null; // the default method's label set index of each row
  let setView = null;
  let fullView = null; // the view shown full screen
  const cleanups = [];
  const link = opts.link || null;
  const prefix = opts.prefix || "explore-";
  const ofJob = opts.job ? " of job " + opts.job : "";
  const role = opts.role || "lead";
  const bar = opts.bar || null;

  const notice = el("p", { class: "hint", role: "status", "data-testid": "explore-status", text: "Loading the interactive view…" });
  root.replaceChildren(notice);
  root.hidden = false;

  let meta = opts.meta;
  try {
    meta = meta || await getJSON(api + "/explore", "loading what the job's rows can be coloured by", signal);
  } catch (e) {
    if (e.name !== "AbortError") { notice.textContent = "Interactive view unavailable: " + e.message + "."; }
    return () => aborter.abort();
  }
  const slots = new Map();
  const figures = new Map();
  (opts.slots || root.closest("section, #results, body").querySelectorAll("[data-scatter]")).forEach((s) => {
    slots.set(s.getAttribute("data-scatter"), s);
    if (s.hasAttribute("data-figure")) { figures.set(s.getAttribute("data-scatter"), s.getAttribute("data-figure")); }
  });
  const methods = meta.methods.filter((m) => slots.has(m.id));
  if (!methods.length) {
    notice.textContent = "Interactive view unavailable: no method of this job has a projection to draw.";
    return () => aborter.abort();
  }
  const maxD = Math.max(...methods.map((m) => m.d), opts.maxD || 0);
  const hash = readHash();
  const st = {
    x: hash.x >= 1 && hash.x <= maxD ? hash.x : 1,
    y: hash.y >= 1 && hash.y <= maxD ? hash.y : Math.min(2, maxD),
    colour: hash.colour || (meta.colours[0] && meta.colours[0].key) || "",
  };

  // ---- Controls ----------------------------------------------------------
  const id = (s) => prefix + s;
  const axis = (name, text, value) => {
    const s = el("select", { id: id(name), "data-testid": "explore-" + name });
    for (let i = 1; i <= maxD; i++) { s.append(el("option", { value: i, selected: i === value, text: "component " + i })); }
    return [el("label", { for: id(name), text }), s];
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
    const r = el("input", { type: "radio", name: id("mode"), id: id("mode-" + v), value: v, checked: v === "pan" });
    modes.append(el("label", { class: "inline", for: id("mode-" + v) }, r, " " + t));
  }
  const onlySel = el("input", { type: "checkbox", id: id("only"), "data-testid": "explore-only" });
  const densityBox = el("input", { type: "checkbox", id: id("density"), "data-testid": "explore-density" });
  const clearBtn = el("button", { type: "button", class: "secondary", "data-testid": "explore-clear", disabled: true, text: "Clear the selection" });
  const controls = el("div", { class: "controls explore-controls", role: "group", "aria-label": "Interactive view" },
    xLabel, xSel, yLabel, ySel, el("label", { for: id("colour"), text: "Colour by" }), colourSel, featureBox, modes,
    el("label", { class: "inline", for: id("only") }, onlySel, " show only the selection"),
    el("label", { class: "inline", for: id("density") }, densityBox, " density layer"), clearBtn);

  // Search: row numbers and ranges, or labels (GET /search).
  const searchInput = el("input", {
    type: "search", id: id("search"), "data-testid": "explore-search", autocomplete: "off",
    "aria-describedby": id("search-hint") + " " + id("search-error"), placeholder: "row numbers, 40-45, or labels: a and b but not c",
  });
  const searchBtn = el("button", { type: "submit", class: "secondary", "data-testid": "explore-search-go", text: "Find" });
  const searchHint = el("span", { class: "hint", id: id("search-hint"), text: "Row numbers (12, 40-45) or labels joined by and, but and not: “a and b but not c”." });
  const searchError = el("p", { class: "error", id: id("search-error"), role: "alert", "data-testid": "explore-search-error" });
  const searchForm = el("form", { class: "controls explore-search", role: "search", "aria-label": "Find rows", "data-testid": "explore-search-form" },
    el("label", { for: id("search"), text: "Find rows" }), searchInput, searchBtn, searchHint);

  const legend = el("div", { class: "explore-legend", "data-testid": "explore-legend" });
  const densityNote = el("p", { class: "hint", "data-testid": "density-note", hidden: true,
    text: "Density layer: hexagons of " + hexRadius + " px over the rows in each view's window, darker where there are more rows (log scale); it follows pan and zoom." });
  const hoverLine = el("p", { class: "hint explore-hover", "aria-hidden": "true", "data-testid": "explore-hover" });
  const panel = el("section", { class: "card selection-panel", "aria-live": "polite", "aria-labelledby": id("sel-h"), "data-testid": "selection-panel" },
    el("h3", { id: id("sel-h"), text: "Selection" }),
    el("p", { class: "hint", "data-testid": "selection-count", text: "Lasso rows in any view (hold Shift and drag, or choose lasso or box above) to see which labels they are enriched in." }));
  const leaveBtn = el("button", { type: "button", class: "secondary explore-leave", "data-testid": "explore-leave", hidden: true, text: "Leave full screen (Esc)" });
  notice.textContent = "";
  const rowPanel = createRowPanel(api, signal, (n) => highlight(n), () => { page.rowOpen = false; page.row = null; }, prefix);
  const saved = createSaved(api, signal,
    () => (sel.numbers.length ? { method: sel.method, rows: sel.numbers } : null),
    (name, rows) => selectNumbers(rows, null, (n, all) => n + " of " + all + " rows in the saved selection “" + name + "”."), prefix);
  if (opts.title) {
    panel.firstChild.textContent = "Selection: " + opts.title;
    saved.element.querySelector("h3").textContent = "Saved selections of " + opts.title;
  }
  if (role === "lead") {
    root.replaceChildren(leaveBtn, controls, searchForm, searchError, legend, densityNote, hoverLine, notice, panel, rowPanel.element, saved.element);
  } else if (role === "panel") {
    root.replaceChildren(leaveBtn, legend, notice, panel, rowPanel.element, saved.element);
  } else {
    root.replaceChildren(leaveBtn, notice, rowPanel.element);
  }
  // The panels of the lead and of a "panel" explorer give the statistics
  // of a selection made in another job's view of their link.
  const ownStats = role !== "quiet" && !!opts.role;

  // ---- Page state for scripts and tests ---------------------------------
  Object.assign(page, {
    ready: false, rows: meta.rows, selectedFrom: null, selected: [], selection: null, error: null, hovered: null,
    hoveredRow: null, highlighted: null, row: null, rowOpen: false, search: null, fullscreen: null, density: false,
  });
  Object.defineProperty(page, "saved", { get: () => saved.items, configurable: true, enumerable: true });
  page.controls = st; // x, y and colour, live
  page.selectedIndices = () => (sel.from ? sel.from.indicesOf(sel.numbers) : []);
  page.views = {};
  page.legend = null;

  // ---- The link to other jobs' explorers (the compare page) ------------
  let live = false; // the views are loaded: a colour from the link can be drawn
  const member = {
    select(numbers, where) { remoteSelect(numbers, where); },
    hover(n) { hoverAll(n, null); },
    colour(key) {
      if (!live || key === st.colour) { return; }
      st.colour = key;
      if (key.startsWith("feature:")) { featureInput.value = key.slice(8); }
      loadColour().catch(fail);
    },
  };
  if (link) { cleanups.push(link.join(member)); }
  // What the lead's controls send to every other explorer of the page: a
  // search or a clearing only to those its link does not reach (the link
  // brings them the selection).
  const barMember = {
    axes(x, y) { if (live) { setAxes(x, y); } },
    colour(key) { member.colour(key); },
    mode(m) { setMode(m); },
    density(on) { setDensity(on); },
    only(on) { onlySel.checked = on; applyFilter(); },
    search(q, from) { if (live && (!link || link !== from)) { search(q); } },
    clear(from) { if (!link || link !== from) { clearAll(); } },
  };
  if (bar) { cleanups.push(bar.join(barMember)); }
  const tell = (type, ...args) => { if (bar && role === "lead") { bar.send(barMember, type, ...args); } };

  // ---- Views ---------------------------------------------------------------
  const byId = (m) => views.find((v) => v.id === m) || null;
  const widest = () => views.reduce((a, b) => (b.state.rows > a.state.rows ? b : a), views[0]);

  function labelsOf(n) {
    if (!setValues || !setView) { return null; }
    const j = setView.indexOf(n);
    const k = j >= 0 ? setValues[j] : NaN;
    const s = meta.label_sets && meta.label_sets[k];
    return s ? s.labels : null;
  }

  function describeRow(n) {
    const l = labelsOf(n);
    return "Row " + n + (l ? ": " + labelText(l) : "");
  }

  // hoverAll hovers row number n (null: none) in every view but except.
  function hoverAll(n, except) {
    for (const v of views) {
      if (v === except) { continue; }
      const i = n === null ? -1 : v.indexOf(n);
      v.hover(i >= 0 ? i : null);
    }
  }

  // highlight lights row number n up in every view (a neighbour in the
  // row panel).
  function highlight(n) {
    hoverAll(n, null);
    if (link) { link.send(member, "hover", n); }
    page.highlighted = n;
    hoverLine.textContent = describeRow(n) + " (highlighted in every view)";
  }

  async function openRow(view, i, from) {
    const n = view.number(i);
    if (n === null) { return; }
    page.rowOpen = true;
    await rowPanel.show(view, n, from || view.element);
    page.row = rowPanel.answer;
  }

  const hooks = {
    select(view, indices) { selectNumbers(view.numbersOf(Array.from(indices)), view); },
    deselect(view) { selectNumbers([], view); },
    over(view, i) {
      const n = view.number(i);
      hoverAll(n, view);
      if (link) { link.send(member, "hover", n); }
      page.hovered = i;
      page.hoveredRow = n;
      hoverLine.textContent = (n === null ? "Row " + (i + 1) : describeRow(n)) + " (" + view.state.name + ")";
    },
    out(view) {
      hoverAll(null, view);
      if (link) { link.send(member, "hover", null); }
      page.hovered = null;
      page.hoveredRow = null;
      hoverLine.textContent = "";
    },
    click(view, i) { openRow(view, i).catch(fail); },
    open(view, i) { openRow(view, i).catch(fail); },
    escape() {
      if (rowPanel.close()) { return true; }
      if (fullView) { setFullscreen(null); return true; }
      return false;
    },
    fullscreen(view) { setFullscreen(fullView === view ? null : view); },
    frame() {},
  };
  // The static figures' axis and colour controls steer only the static
  // figures, now behind the views (their PNG and SVG downloads follow the
  // address): the explorer's own controls take their place.
  const staticForm = doc.querySelector('[data-testid="projection-controls"]');
  if (staticForm) {
    for (const name of ["x", "y", "colour"]) {
      const c = staticForm.querySelector("#" + name);
      const l = staticForm.querySelector('label[for="' + name + '"]');
      if (c) { c.hidden = true; }
      if (l) { l.hidden = true; }
    }
  }
  const fullBtns = new Map();
  for (const m of methods) {
    const slot = slots.get(m.id);
    slot.hidden = false;
    const v = createView(slot, m, renderer, hooks);
    views.push(v);
    const fb = el("button", { type: "button", class: "secondary scatter-full", "aria-pressed": "false", "data-testid": "fullscreen-" + m.id,
      "aria-label": "Show " + m.name + "'s view full screen", text: "Full screen" });
    fb.addEventListener("click", () => setFullscreen(fullView === v ? null : v));
    const tools = el("div", { class: "scatter-tools" }, fb);
    slot.insertBefore(tools, slot.firstChild);
    fullBtns.set(v, fb);
    cleanups.push(() => tools.remove());
    page.views[m.id] = {
      get state() { return v.state; },
      get camera() { return v.camera(); },
      get selected() { return Array.from(v.plot.get("selectedPoints") || []); },
      get selectedRows() { return v.numbersOf(Array.from(v.plot.get("selectedPoints") || [])); },
      get filtered() { return (v.plot.get("filteredPoints") || []).length; },
      get hovered() { return v.plot.get("hoveredPoint") ?? null; },
      get hoveredRow() { const h = v.plot.get("hoveredPoint"); return h === undefined || h === null || h < 0 ? null : v.number(h); },
      get density() { return v.density; },
      get axes() { return v.axes; },
      get size() { return [v.plot.get("width"), v.plot.get("height")]; },
      number(i) { return v.number(i); },
      indexOf(n) { return v.indexOf(n); },
      // position is where row index i is drawn, in the page's CSS pixels.
      position(i) {
        const [x, y] = v.plot.getScreenPosition(i);
        const r = v.element.getBoundingClientRect();
        return [r.left + x, r.top + y];
      },
      // densityPosition is the same as the density layer computes it.
      densityPosition(i) {
        const [x, y] = v.toScreen(i);
        const r = v.element.getBoundingClientRect();
        return [r.left + x, r.top + y];
      },
    };
    const fig = doc.getElementById(figures.get(m.id) || "projection-" + m.id);
    if (fig) {
      fig.querySelectorAll(".plot-svg, .tooltip").forEach((e) => { e.hidden = true; });
      fig.classList.add("static-behind");
    }
  }

  // ---- Full screen -----------------------------------------------------------
  // setFullscreen shows view filling the window (null: back to the page),
  // with the controls and panels in a column beside it.
  function setFullscreen(view) {
    if (fullView === view) { return; }
    if (fullView) {
      fullView.element.parentElement.classList.remove("fullscreen");
      fullBtns.get(fullView).setAttribute("aria-pressed", "false");
      fullBtns.get(fullView).textContent = "Full screen";
    }
    const left = fullView;
    fullView = view;
    doc.body.classList.toggle("explore-fullscreen", !!view);
    root.classList.toggle("explore-side", !!view);
    leaveBtn.hidden = !view;
    page.fullscreen = view ? view.id : null;
    if (view) {
      view.element.parentElement.classList.add("fullscreen");
      const b = fullBtns.get(view);
      b.setAttribute("aria-pressed", "true");
      b.textContent = "Leave full screen";
      view.element.focus();
    } else if (left) {
      fullBtns.get(left).focus();
    }
  }
  leaveBtn.addEventListener("click", () => setFullscreen(null));
  const onDocKey = (ev) => {
    if (ev.key === "Escape" && fullView && !ev.defaultPrevented) { ev.preventDefault(); setFullscreen(null); }
  };
  doc.addEventListener("keydown", onDocKey);
  cleanups.push(() => { doc.removeEventListener("keydown", onDocKey); setFullscreen(null); });

  // ---- Loading -------------------------------------------------------------
  // loadPoints draws the chosen components; a method with fewer
  // components shows its last ones instead.
  async function loadPoints() {
    await Promise.all(views.map(async (v, i) => {
      const d = methods[i].d, x = Math.min(st.x, d), y = Math.min(st.y, d);
      const data = await getFloats(api + "/points?method=" + encodeURIComponent(v.id) + "&x=" + x + "&y=" + y, 2, v.state.name + "'s points", signal);
      await v.setPoints(data, x, y);
    }));
  }

  // loadNumbers reads each view's row numbers, which link the views, and
  // the label set of each row (for the hover text).
  async function loadNumbers() {
    await Promise.all(views.map(async (v) => {
      const data = await getFloats(api + "/values?of=row&method=" + encodeURIComponent(v.id), 1, v.state.name + "'s row numbers", signal);
      v.setNumbers(data.values);
    }));
    setView = byId(meta.methods[0].id);
    if (setView && meta.colours.some((c) => c.key === "set")) {
      setValues = (await getFloats(api + "/values?of=set&method=" + encodeURIComponent(setView.id), 1, "the rows' label sets", signal)).values;
    }
  }

  // ownerOf is the view whose rows a key's values are asked in: the
  // per-row errors are in the evaluated rows' order (the widest view);
  // categories come from the job's first method, as /explore lists them.
  function ownerOf(key) {
    if (key.startsWith("error:")) { return widest(); }
    return byId(meta.methods[0].id) || widest();
  }

  // colourIndex maps the owner's colour indices onto view's rows by row
  // number; rows the owner lacks get the last colour (grey).
  function colourIndex(view, owner, index, other) {
    if (view === owner) { return index; }
    const out = new Float32Array(view.state.rows);
    for (let i = 0; i < out.length; i++) {
      const j = owner.indexOf(view.number(i));
      out[i] = j >= 0 ? index[j] : other;
    }
    return out;
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
    const owner = ownerOf(key);
    const data = await getFloats(api + "/values?of=" + encodeURIComponent(key) + "&method=" + encodeURIComponent(owner.id), 1, "the colours (" + c.text + ")", signal);
    if (token !== colourToken) { return; }
    const enc = encode(c, data);
    const other = enc.colours.length - 1;
    await Promise.all(views.map((v) => v.setColours(colourIndex(v, owner, enc.index, other), enc.colours, c.text)));
    drawLegend(enc.legend);
    page.legend = enc.legend;
    writeHash(st);
    if (link) { link.send(member, "colour", key); }
    tell("colour", key);
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
      // A category no row has (0 labels on data where every row has one)
      // names nothing on the plot.
      if (e.count === 0) { continue; }
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
  // selectNumbers makes row numbers the selection in every view: from is
  // the view it was made in (it shows it already), null for a search or a
  // saved selection; say(count, rows) is the panel's sentence for those.
  function selectNumbers(numbers, from, say) {
    const owner = from || widest();
    sel = { numbers, from, method: owner.id, say };
    for (const v of views) { if (v !== from) { v.select(v.indicesOf(numbers)); } }
    if (onlySel.checked) { applyFilter(); }
    clearBtn.disabled = !numbers.length;
    saved.enable(numbers.length > 0);
    page.selectedFrom = from ? from.id : null;
    page.selected = numbers;
    if (link) { link.send(member, "select", numbers, (from ? from.state.name : "a search or a saved selection") + ofJob); }
    if (!numbers.length) {
      page.selection = null;
      if (pendingSelection) { pendingSelection.abort(); }
      panel.removeAttribute("aria-busy");
      panel.replaceChildren(panel.firstChild, el("p", { class: "hint", "data-testid": "selection-count", text: say ? say(0, owner.state.rows) : "Nothing selected." }));
      return;
    }
    askSelection(numbers, owner, from, say);
  }

  async function askSelection(rows, owner, from, say) {
    if (pendingSelection) { pendingSelection.abort(); }
    const ctl = pendingSelection = new AbortController();
    signal.addEventListener("abort", () => ctl.abort());
    page.selection = null; // the statistics of the selection before are no longer the selection's
    panel.setAttribute("aria-busy", "true");
    try {
      const ans = await postJSON(api + "/selection", { method: owner.id, rows }, "the selection's statistics", ctl.signal);
      if (ctl !== pendingSelection) { return; }
      page.selection = ans;
      const text = say ? say(ans.count, owner.state.rows) : ans.count + " of " + owner.state.rows + " rows selected in " + from.state.name + ofJob + ".";
      drawPanel(ans, text);
    } catch (e) {
      if (e.name === "AbortError") { return; }
      page.error = e.message;
      panel.replaceChildren(panel.firstChild, el("p", { class: "error", role: "alert", "data-testid": "selection-error", text: e.message + "." }));
    } finally {
      if (ctl === pendingSelection) { panel.removeAttribute("aria-busy"); pendingSelection = null; }
    }
  }

  // bars draws a label's share of the selection over its share of all
  // rows, two horizontal bars (the numbers are in the table beside them).
  function bars(inSel, overall) {
    const bar = (cls, share, testid) => {
      const b = el("span", { class: "freq-bar " + cls, "data-share": share, "data-testid": testid });
      b.style.width = (100 * share).toFixed(2) + "%";
      return b;
    };
    return el("span", { class: "freq-bars", "aria-hidden": "true", "data-testid": "freq-bars" },
      bar("freq-sel", inSel, "bar-selection"), bar("freq-all", overall, "bar-overall"));
  }

  function drawPanel(ans, text) {
    const parts = [panel.firstChild, el("p", { "data-testid": "selection-count", text })];
    if (ans.label_sets && ans.label_sets.length) {
      const sets = el("ol", { class: "selection-sets", "data-testid": "selection-sets" });
      for (const s of ans.label_sets.slice(0, 5)) {
        sets.append(el("li", { text: labelText(s.labels) + ": " + s.count + pct(s.count, ans.count) }));
      }
      parts.push(el("p", { class: "hint", text: "Most frequent label sets in the selection:" }), sets);
    }
    const table = el("table", { class: "selection-labels", "data-testid": "selection-labels" });
    table.append(el("caption", { text: "Labels by enrichment in the selection (hypergeometric upper tail p; q: Benjamini–Hochberg over the labels; bars: the label’s share of the selection, dark, over its share of all rows, light)" }));
    const head = el("tr");
    for (const h of ["label", "in the selection", "overall", "lift", "p", "q"]) { head.append(el("th", { scope: "col", text: h })); }
    head.append(el("th", { scope: "col", text: "share: selection / all rows" }));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    const all = sel.from ? sel.from.state.rows : widest().state.rows;
    for (const l of ans.labels || []) {
      body.append(el("tr", { "data-label": l.label },
        el("th", { scope: "row", text: l.label }),
        el("td", { class: "num", text: l.in_selection + pct(l.in_selection, ans.count) }),
        el("td", { class: "num", text: l.overall + pct(l.overall, all) }),
        el("td", { class: "num", text: num(l.lift, 3) }),
        el("td", { class: "num", "data-p": l.p, text: num(l.p, 3) }),
        el("td", { class: "num", text: num(l.q, 3) }),
        el("td", {}, bars(ans.count > 0 ? l.in_selection / ans.count : 0, all > 0 ? l.overall / all : 0))));
    }
    table.append(body);
    parts.push(el("div", { class: "table-wrap" }, table));
    panel.replaceChildren(...parts);
  }

  // remoteSelect shows a selection made in another job's view (where names
  // it): the same row numbers light up here; that job's panel has the
  // statistics.
  function remoteSelect(numbers, where) {
    if (ownStats && numbers.length) {
      sel = { numbers, from: null, method: widest().id, say: null };
      for (const v of views) { v.select(v.indicesOf(numbers)); }
      if (onlySel.checked) { applyFilter(); }
      clearBtn.disabled = false;
      saved.enable(true);
      page.selectedFrom = null;
      page.selected = numbers;
      askSelection(numbers, widest(), null, (n, all) => n + " of " + all + " rows selected in " + where + ".");
      return;
    }
    sel = { numbers, from: null, method: widest().id, say: null };
    for (const v of views) { v.select(v.indicesOf(numbers)); }
    if (onlySel.checked) { applyFilter(); }
    clearBtn.disabled = !numbers.length;
    saved.enable(numbers.length > 0);
    page.selectedFrom = null;
    page.selected = numbers;
    page.selection = null;
    if (pendingSelection) { pendingSelection.abort(); }
    panel.removeAttribute("aria-busy");
    const text = numbers.length
      ? numbers.length + " rows selected in " + where + "; they are highlighted here, and that job's selection panel shows the labels they are enriched in."
      : "Nothing selected.";
    panel.replaceChildren(panel.firstChild, el("p", { class: "hint", "data-testid": "selection-count", text }));
  }

  function applyFilter() {
    for (const v of views) { v.filter(onlySel.checked && sel.numbers.length ? v.indicesOf(sel.numbers) : null); }
  }

  // ---- Search ------------------------------------------------------------------
  async function search(q) {
    const owner = widest();
    searchError.textContent = "";
    searchInput.removeAttribute("aria-invalid");
    try {
      const a = await getJSON(api + "/search?q=" + encodeURIComponent(q) + "&method=" + encodeURIComponent(owner.id), "the search", signal);
      page.search = { q, count: a.count, error: null };
      selectNumbers(a.rows, null, (n, all) => (n ? n + " of " + all + " rows match “" + q + "”." : "No row matches “" + q + "”."));
    } catch (e) {
      if (e.name === "AbortError") { return; }
      page.search = { q, count: null, error: e.message };
      searchError.textContent = e.message + ".";
      searchInput.setAttribute("aria-invalid", "true");
    }
  }
  searchForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = searchInput.value.trim();
    if (!q) {
      searchError.textContent = "Type row numbers (12, 40-45) or labels (a and b but not c) to find rows.";
      searchInput.setAttribute("aria-invalid", "true");
      return;
    }
    search(q);
    tell("search", q, link);
  });

  // ---- Wiring ----------------------------------------------------------------
  function fail(e) {
    if (e.name === "AbortError") { return; }
    page.error = e.message;
    notice.textContent = "Interactive view unavailable: " + e.message + ".";
    notice.setAttribute("role", "alert");
  }
  function setAxes(x, y) {
    st.x = Math.min(x, maxD);
    st.y = Math.min(y, maxD);
    xSel.value = st.x;
    ySel.value = st.y;
    writeHash(st);
    loadPoints().catch(fail);
  }
  function setMode(m) {
    const r = modes.querySelector('input[value="' + m + '"]');
    if (r) { r.checked = true; }
    for (const v of views) { v.setMode(m); }
  }
  function setDensity(on) {
    densityBox.checked = on;
    page.density = on;
    densityNote.hidden = !on;
    for (const v of views) { v.setDensity(on); }
  }
  function clearAll() {
    for (const v of views) { v.select([]); }
    selectNumbers([], null);
  }
  xSel.addEventListener("change", () => { setAxes(+xSel.value, +ySel.value); tell("axes", st.x, st.y); });
  ySel.addEventListener("change", () => { setAxes(+xSel.value, +ySel.value); tell("axes", st.x, st.y); });
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
    setMode(m);
    tell("mode", m);
  });
  onlySel.addEventListener("change", () => { applyFilter(); tell("only", onlySel.checked); });
  densityBox.addEventListener("change", () => { setDensity(densityBox.checked); tell("density", densityBox.checked); });
  clearBtn.addEventListener("click", () => { clearAll(); tell("clear", link); });
  if (st.colour.startsWith("feature:")) { featureInput.value = st.colour.slice(8); }
  featureBox.hidden = true;

  try {
    const t0 = performance.now();
    views.forEach((v) => v.restart());
    await loadPoints();
    await loadNumbers();
    await loadColour();
    page.loadMs = performance.now() - t0;
    live = true;
    if (page.keep && page.keep.length) {
      const keep = page.keep;
      for (const v of views) { v.select(v.indicesOf(keep)); }
      selectNumbers(keep, null, (n, all) => n + " of " + all + " rows selected.");
    }
    await saved.refresh().catch((e) => { if (e.name !== "AbortError") { saved.element.append(el("p", { class: "error", role: "alert", text: e.message + "." })); } });
    page.ready = true;
  } catch (e) {
    fail(e);
  }
  return () => {
    page.keep = sel.numbers.slice();
    aborter.abort();
    for (const c of cleanups) { c(); }
    for (const v of views) { v.destroy(); }
  };
}
