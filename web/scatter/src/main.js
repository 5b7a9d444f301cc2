// MLDR Explorer's interactive scatter: the entry point of the bundle
// web/static/scatter.js (go run ./cmd/bundle). It enhances each results
// block that has a [data-explore] element: without WebGL it says so and
// the static figures stay; with it, every method's projection becomes a
// linked, zoomable, selectable scatter of every row. Results that the
// page's other script loads later (a job finishing while watched, a
// changed plot option) are enhanced when they appear.
//
// window.mldrExplore is the page's state, for scripts and tests: ready,
// rows, controls {x, y, colour}, selected (row numbers), selectedIndices(),
// selectedFrom, selection (the server's statistics), legend, views {id:
// {state, camera, selected, filtered, hovered}}, error.

import { createExplorer } from "./explorer.js";
import { createSharedRenderer, hasWebGL } from "./gl.js";
import cache from "./regl-cache.js";

const unavailable = "Interactive view unavailable: ";

function start() {
  const page = (window.mldrExplore = { ready: false, views: {}, selected: [] });
  let renderer = null;
  let current = null; // {root, stop}

  function say(root, text) {
    const p = document.createElement("p");
    p.className = "hint";
    p.setAttribute("role", "status");
    p.setAttribute("data-testid", "explore-status");
    p.textContent = text;
    root.replaceChildren(p);
    root.hidden = false;
    page.error = text;
  }

  // scan runs one at a time: results re-rendered quickly in a row must not
  // start two explorers.
  let queue = Promise.resolve();
  function scan() { queue = queue.then(scanOnce, scanOnce); }

  async function scanOnce() {
    const root = document.querySelector("[data-explore]");
    if (current && current.root === root) { return; }
    if (current) { (await current.stop)(); current = null; }
    if (!root) { return; }
    if (!hasWebGL()) { say(root, unavailable + "this browser has no WebGL"); return; }
    if (!renderer) {
      try {
        renderer = createSharedRenderer(cache);
      } catch (e) {
        say(root, unavailable + "the scatter could not start (" + e.message + ")");
        return;
      }
    }
    current = { root, stop: createExplorer(root, renderer, page) };
  }

  scan();
  const results = document.getElementById("results");
  if (results) {
    new MutationObserver(() => { scan(); }).observe(results, { childList: true });
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
