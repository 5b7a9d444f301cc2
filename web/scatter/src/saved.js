// Named selections kept with the job: save the current selection under a
// name (POST /api/jobs/{id}/selections), list the job's selections (GET),
// load one (its CSV of row numbers), download it, delete it (DELETE).

import { getJSON, postJSON } from "./api.js";
import { el } from "./dom.js";

// segment encodes a selection's name as one path segment, escaping the
// characters encodeURIComponent leaves ("(", ")" and the like): the
// router matches the escaped path when it is not in its usual encoding.
export function segment(name) {
  return encodeURIComponent(name).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

// createSaved makes the panel. api is the job's API address; signal ends
// its requests; current() is the selection to save, {method, rows} or
// null; load(name, rows) selects a saved selection's row numbers; prefix
// starts its elements' ids (one panel a job on the compare page).
export function createSaved(api, signal, current, load, prefix = "explore-") {
  const nameInput = el("input", {
    type: "text", id: prefix + "save-name", maxlength: "64", autocomplete: "off", "data-testid": "save-name",
    "aria-describedby": prefix + "save-hint " + prefix + "save-error", placeholder: "e.g. cluster of sad rows",
  });
  const saveBtn = el("button", { type: "submit", "data-testid": "save-selection", disabled: true, text: "Save the selection" });
  const hint = el("p", { class: "hint", id: prefix + "save-hint", text: "Names: 1–64 letters, digits, spaces and - _ . ( )." });
  const error = el("p", { class: "error", id: prefix + "save-error", role: "alert", "data-testid": "save-error" });
  const form = el("form", { class: "explore-save", "data-testid": "save-form" },
    el("label", { for: prefix + "save-name", text: "Name" }), nameInput, saveBtn);
  const status = el("p", { class: "hint", role: "status", "data-testid": "saved-status" });
  const list = el("ul", { class: "saved-list", "data-testid": "saved-list" });
  const section = el("section", { class: "card saved-panel", "aria-labelledby": prefix + "saved-h", "data-testid": "saved-panel" },
    el("h3", { id: prefix + "saved-h", text: "Saved selections" }), form, hint, error, status, list);
  const saved = { element: section, items: [] };

  function fail(e) {
    if (e.name === "AbortError") { return; }
    error.textContent = e.message + ".";
    nameInput.setAttribute("aria-invalid", "true");
  }

  function draw() {
    list.replaceChildren();
    if (!saved.items.length) {
      list.append(el("li", { class: "hint", "data-testid": "saved-none", text: "None yet: select rows, name them and save them." }));
      return;
    }
    for (const s of saved.items) {
      const loadBtn = el("button", { type: "button", class: "secondary", "data-testid": "saved-load", "aria-label": "Load the selection " + s.name, text: "Load" });
      const delBtn = el("button", { type: "button", class: "secondary", "data-testid": "saved-delete", "aria-label": "Delete the selection " + s.name, text: "Delete" });
      const csv = el("a", { href: api + "/selections/" + segment(s.name) + ".csv", download: true, "data-testid": "saved-csv", "aria-label": "Download the selection " + s.name + " as CSV", text: "CSV" });
      loadBtn.addEventListener("click", () => open(s.name).catch(fail));
      delBtn.addEventListener("click", () => remove(s.name).catch(fail));
      list.append(el("li", { "data-name": s.name, "data-testid": "saved-item" },
        el("span", { class: "saved-name", text: s.name }), " ",
        el("span", { class: "muted", text: s.rows + (s.rows === 1 ? " row" : " rows") }), " ", loadBtn, " ", csv, " ", delBtn));
    }
  }

  // refresh reads the job's selections.
  saved.refresh = async () => {
    const a = await getJSON(api + "/selections", "listing the saved selections", signal);
    saved.items = a.selections || [];
    draw();
  };

  async function open(name) {
    error.textContent = "";
    const resp = await fetch(api + "/selections/" + segment(name) + ".csv", { signal });
    if (!resp.ok) {
      let detail = "";
      try { const b = await resp.json(); if (b && b.error) { detail = ": " + b.error; } } catch (e) { /* the status says enough */ }
      throw new Error("loading the selection " + name + " failed (" + resp.status + ")" + detail);
    }
    const rows = (await resp.text()).split(/\r?\n/).slice(1).filter((l) => l !== "").map((l) => parseInt(l, 10)).filter((n) => Number.isFinite(n));
    status.textContent = "Loaded “" + name + "”: " + rows.length + (rows.length === 1 ? " row." : " rows.");
    load(name, rows);
  }

  async function remove(name) {
    error.textContent = "";
    const resp = await fetch(api + "/selections/" + segment(name), { method: "DELETE", signal });
    if (resp.status !== 204) {
      let detail = "";
      try { const b = await resp.json(); if (b && b.error) { detail = ": " + b.error; } } catch (e) { /* the status says enough */ }
      throw new Error("deleting the selection " + name + " failed (" + resp.status + ")" + detail);
    }
    status.textContent = "Deleted “" + name + "”.";
    await saved.refresh();
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const cur = current();
    const name = nameInput.value.trim();
    error.textContent = "";
    nameInput.removeAttribute("aria-invalid");
    if (!cur || !cur.rows.length) { fail(new Error("Nothing is selected: select rows first")); return; }
    if (!name) { fail(new Error("Give the selection a name")); nameInput.focus(); return; }
    postJSON(api + "/selections", { name, method: cur.method, rows: cur.rows }, "saving the selection " + name, signal)
      .then((a) => {
        status.textContent = "Saved “" + a.name + "”: " + a.rows + (a.rows === 1 ? " row." : " rows.");
        nameInput.value = "";
        return saved.refresh();
      })
      .catch((e) => { fail(e); nameInput.focus(); });
  });

  // enable says whether there is a selection to save.
  saved.enable = (on) => { saveBtn.disabled = !on; };
  draw();
  return saved;
}
