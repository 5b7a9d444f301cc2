// The row panel: one row's part, fold and labels and its nearest rows in
// the projection and in the original features, from
// GET /api/jobs/{id}/rows/{row}?method=M&k=10. A neighbour's button
// highlights that row in every view.

import { getJSON } from "./api.js";
import { el, labelText, num } from "./dom.js";

// neighbours is how many nearest rows the panel asks for.
export const neighbours = 10;

// createRowPanel makes the panel. api is the job's API address; signal
// ends its requests; highlight(number) lights a row up in every view;
// closed(opener) is told when the panel closes (opener: what opened it);
// prefix starts its elements' ids.
export function createRowPanel(api, signal, highlight, closed, prefix = "explore-") {
  const heading = el("h3", { id: prefix + "row-h", tabindex: "-1", "data-testid": "row-heading", text: "Row" });
  const closeBtn = el("button", { type: "button", class: "secondary", "data-testid": "row-close", "aria-label": "Close the row's panel", text: "Close" });
  const status = el("p", { role: "status", "data-testid": "row-facts" });
  const body = el("div", { class: "row-neighbours" });
  const lit = el("p", { class: "hint", role: "status", "data-testid": "row-highlight" });
  const section = el("section", { class: "card row-panel", "aria-labelledby": prefix + "row-h", "data-testid": "row-panel", hidden: true },
    el("div", { class: "row-panel-head" }, heading, closeBtn), status, body, lit);
  let pending = null;
  let opener = null;
  const panel = { element: section, answer: null, open: false };

  function table(title, rows, testid) {
    const t = el("table", { class: "selection-labels", "data-testid": testid });
    t.append(el("caption", { text: title }));
    const head = el("tr");
    for (const h of ["row", "distance", "labels"]) { head.append(el("th", { scope: "col", text: h })); }
    t.append(el("thead", {}, head));
    const tb = el("tbody");
    for (const n of rows) {
      const b = el("button", { type: "button", class: "link", "data-row": n.row, "aria-label": "Highlight row " + n.row + " in every view", text: String(n.row) });
      b.addEventListener("click", () => {
        highlight(n.row);
        lit.textContent = "Row " + n.row + " (" + labelText(n.labels) + ") is highlighted in every view that has it.";
      });
      tb.append(el("tr", { "data-row": n.row }, el("th", { scope: "row" }, b), el("td", { class: "num", text: num(n.distance, 3) }), el("td", { text: labelText(n.labels) })));
    }
    t.append(tb);
    return el("div", { class: "table-wrap" }, t);
  }

  // show opens the panel on row number n of view (a method's view), asked
  // by from (the element to give the focus back to on closing).
  panel.show = async (view, n, from) => {
    if (pending) { pending.abort(); }
    const ctl = pending = new AbortController();
    signal.addEventListener("abort", () => ctl.abort());
    opener = from || null;
    section.hidden = false;
    panel.open = true;
    heading.textContent = "Row " + n;
    status.textContent = "Loading row " + n + "…";
    section.setAttribute("aria-busy", "true");
    body.replaceChildren();
    lit.textContent = "";
    try {
      const a = await getJSON(api + "/rows/" + encodeURIComponent(n) + "?method=" + encodeURIComponent(view.id) + "&k=" + neighbours, "reading row " + n, ctl.signal);
      if (ctl !== pending) { return; }
      panel.answer = a;
      const where = a.part + " row" + (a.fold ? ", test fold " + a.fold : "");
      status.textContent = "Row " + a.row + ": " + where + "; labels: " + labelText(a.labels) + ".";
      const parts = [table(a.projection.length + " nearest rows in " + view.state.name + "'s projection (all " + view.d + " components)", a.projection, "row-projection")];
      if (a.original) {
        parts.push(table(a.original.length + " nearest rows in the original features", a.original, "row-original"));
      } else if (a.note) {
        parts.push(el("p", { class: "hint", "data-testid": "row-original-note", text: "Nearest rows in the original features: " + a.note + "." }));
      }
      body.replaceChildren(...parts);
    } catch (e) {
      if (e.name === "AbortError") { return; }
      panel.answer = null;
      status.textContent = "";
      body.replaceChildren(el("p", { class: "error", role: "alert", "data-testid": "row-error", text: e.message + "." }));
    } finally {
      if (ctl === pending) { section.removeAttribute("aria-busy"); pending = null; }
    }
  };

  // close hides the panel; the focus goes back to what opened it when it
  // was inside the panel.
  panel.close = () => {
    if (!panel.open) { return false; }
    if (pending) { pending.abort(); pending = null; }
    const inside = section.contains(document.activeElement);
    section.hidden = true;
    panel.open = false;
    panel.answer = null;
    if (inside && opener) { opener.focus(); }
    closed(opener);
    return true;
  };

  closeBtn.addEventListener("click", () => panel.close());
  section.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { ev.preventDefault(); panel.close(); }
  });
  return panel;
}
