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
//
// The compare page holds one [data-explore] element a job, each with
// data-job and data-link (jobs with the same data-link are linked by row
// number): there window.mldrExplore is {ready, error, linked, jobs: {id:
// the state above, one a job}}, and the colours offered are those every
// job has. There one control bar steers every view: the first job's
// explorer holds the controls (role "lead"), each other data set's first
// job its selection panel ("panel"), the rest only their row panels.

import { createExplorer } from "./explorer.js";
import { getJSON } from "./api.js";
import { createSharedRenderer, hasWebGL } from "./gl.js";
import { createLink } from "./link.js";
import cache from "./regl-cache.js";

const unavailable = "Interactive view unavailable: ";

function start() {
  const roots = document.querySelectorAll("[data-explore][data-job]");
  if (roots.length) { startJobs(Array.from(roots)); return; }
  const page = (window.mldrExplore = { ready: false, views: {}, selected: [] });
  let renderer = null;
  let current = null; // {root, stop}

  function say(root, text) {
    showStatus(root, text);
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

// shared keeps of each job's explore answer the colours and features
// every job has.
function shared(metas) {
  const keys = metas.map((m) => new Set(m.colours.map((c) => c.key)));
  const feats = metas.map((m) => new Set(m.features || []));
  return metas.map((m) => Object.assign({}, m, {
    colours: m.colours.filter((c) => keys.every((k) => k.has(c.key))),
    features: (m.features || []).filter((f) => feats.every((s) => s.has(f))),
  }));
}

// startJobs enhances the compare page: one explorer a job, linked by
// their data-link.
// showStatus puts a sentence in place of an explorer root: why the
// interactive view is not there.
function showStatus(root, text) {
  const p = document.createElement("p");
  p.className = "hint";
  p.setAttribute("role", "status");
  p.setAttribute("data-testid", "explore-status");
  p.textContent = text;
  root.replaceChildren(p);
  root.hidden = false;
}

async function startJobs(roots) {
  const page = (window.mldrExplore = { ready: false, error: null, jobs: {}, linked: false });
  const fail = (text) => {
    page.error = text;
    for (const root of roots) { showStatus(root, text); }
  };
  if (!hasWebGL()) { fail(unavailable + "this browser has no WebGL"); return; }
  let renderer;
  try {
    renderer = createSharedRenderer(cache);
  } catch (e) {
    fail(unavailable + "the scatter could not start (" + e.message + ")");
    return;
  }
  let metas;
  try {
    metas = shared(await Promise.all(roots.map((r) => getJSON(r.getAttribute("data-explore") + "/explore", "loading what the jobs' rows can be coloured by"))));
  } catch (e) {
    fail(unavailable + e.message + ".");
    return;
  }
  const links = new Map();
  roots.forEach((r) => {
    const g = r.getAttribute("data-link") || r.getAttribute("data-job");
    if (!links.has(g)) { links.set(g, createLink()); }
  });
  page.linked = links.size === 1 && roots.length > 1;
  document.querySelectorAll("[data-explore-note]").forEach((n) => { n.hidden = false; });
  // One control bar: the first job's explorer shows the controls and
  // sends what is chosen to the others; the first job of each other link
  // shows that link's selection and saved selections.
  const bar = createLink();
  const maxD = Math.max(...metas.map((m) => Math.max(0, ...m.methods.map((x) => x.d))));
  const seen = new Set();
  await Promise.all(roots.map((root, i) => {
    const job = root.getAttribute("data-job");
    const group = root.getAttribute("data-link") || job;
    const role = i === 0 ? "lead" : seen.has(group) ? "quiet" : "panel";
    seen.add(group);
    const sub = (page.jobs[job] = { ready: false, views: {}, selected: [] });
    const slots = document.querySelectorAll('[data-scatter][data-scatter-job="' + job + '"]');
    return createExplorer(root, renderer, sub, {
      meta: metas[i], link: links.get(group),
      prefix: "explore-" + job.slice(0, 8) + "-", job: job.slice(0, 8),
      slots: slots.length ? slots : null, role, bar, maxD,
      title: links.size > 1 ? root.getAttribute("data-title") : "",
    });
  }));
  const subs = Object.values(page.jobs);
  page.error = subs.map((s) => s.error).find((e) => e) || null;
  page.ready = subs.every((s) => s.ready);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
