// MLDR Explorer: the small script the pages load. Every page works without
// it; with it, a job's page follows the job live and shows the results
// when they are there, plot controls redraw without a reload, plots answer
// the pointer, the upload takes a dropped file and says how much it has
// sent, and the analysis form shows only the parameters the ticked methods
// take. No library, no network request but to this server.
"use strict";

(function () {
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  // ---- Progressive enhancement markers ---------------------------------
  function enhance(root) {
    $$(".js-only", root).forEach(function (el) { el.hidden = false; });
    $$(".js-hide", root).forEach(function (el) { el.hidden = true; });
  }

  // ---- Durations --------------------------------------------------------
  function formatDuration(ms) {
    if (ms < 1000) { return Math.max(0, Math.round(ms)) + " ms"; }
    var s = ms / 1000;
    if (s < 60) { return s.toFixed(1) + " s"; }
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = Math.round(s % 60);
    return (h ? h + "h" : "") + (h || m ? m + "m" : "") + r + "s";
  }

  // ---- A job's live status ---------------------------------------------
  var terminal = { succeeded: true, failed: true, canceled: true };

  function followJob(panel) {
    var status = panel.getAttribute("data-status");
    var started = panel.getAttribute("data-started");
    var finished = panel.getAttribute("data-finished");
    var elapsed = $("[data-elapsed]", panel);
    var timer = null;

    function tick() {
      if (!started) { elapsed.textContent = "not started yet"; return; }
      var end = finished ? Date.parse(finished) : Date.now();
      elapsed.textContent = formatDuration(end - Date.parse(started));
    }
    function startTicker() {
      if (timer === null && !finished) { timer = window.setInterval(tick, 250); }
    }
    function stopTicker() {
      if (timer !== null) { window.clearInterval(timer); timer = null; }
      tick();
    }
    if (terminal[status]) { return; }
    if (started) { startTicker(); }

    var source = new EventSource(panel.getAttribute("data-events"));
    source.onmessage = function (ev) {
      var job;
      try { job = JSON.parse(ev.data); } catch (e) { return; }
      update(job);
    };
    source.onerror = function () {
      // The server closes the stream once the job ends; the browser would
      // reconnect, so stop it when the job is over.
      if (terminal[panel.getAttribute("data-status")]) { source.close(); }
    };

    function update(job) {
      panel.setAttribute("data-status", job.status);
      var badge = $("[data-status-text]", panel);
      badge.textContent = job.status;
      badge.className = "badge status-" + job.status;
      var bar = $("[data-progress]", panel);
      bar.value = job.progress || 0;
      bar.textContent = Math.round(100 * (job.progress || 0)) + "%";
      $("[data-phase]", panel).textContent = job.phase || "";
      $("[data-message]", panel).textContent = job.message || "";
      if (job.started_at && !started) { started = job.started_at; startTicker(); }
      if (!terminal[job.status]) { return; }
      source.close();
      $$("p.notice").forEach(function (n) { n.hidden = true; });
      finished = job.finished_at || new Date().toISOString();
      stopTicker();
      var cancel = $("[data-cancel]", panel);
      if (cancel) { cancel.remove(); }
      // A finished job can be run again: the page offers it after a reload.
      if (job.error) {
        var err = $("[data-error]", panel);
        if (err) { err.textContent = job.error; err.hidden = false; }
      }
      if (job.status === "succeeded") {
        loadResults(panel.getAttribute("data-results") + window.location.search);
      }
    }
  }

  // ---- Results: load, and redraw on control changes ---------------------
  var pending = null; // the results request in flight; a newer one aborts it

  function loadResults(url, focusId) {
    var box = $("#results");
    if (!box) { return; }
    if (pending) { pending.abort(); }
    var ctl = pending = new AbortController();
    box.setAttribute("aria-busy", "true");
    fetch(url, { headers: { Accept: "text/html" }, signal: ctl.signal }).then(function (resp) {
      if (!resp.ok) { throw new Error("the results could not be loaded (" + resp.status + ")"); }
      return resp.text();
    }).then(function (html) {
      if (ctl !== pending) { return; }
      pending = null;
      box.innerHTML = html;
      box.removeAttribute("aria-busy");
      initResults(box);
      if (focusId) {
        var el = document.getElementById(focusId);
        if (el) { el.focus(); }
      }
    }).catch(function (e) {
      if (e.name === "AbortError") { return; }
      box.removeAttribute("aria-busy");
      var p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      p.textContent = e.message + ". Reload the page to try again.";
      box.prepend(p);
    });
  }

  function initResults(root) {
    enhance(root);
    $$("[data-figure]", root).forEach(hoverFigure);
    $$("form[data-plot-controls]", root).forEach(function (form) {
      form.addEventListener("change", function (ev) {
        var panel = $("[data-results]");
        var base = panel ? panel.getAttribute("data-results") : null;
        if (!base) { form.submit(); return; }
        var qs = new URLSearchParams(new FormData(form)).toString();
        window.history.replaceState(null, "", window.location.pathname + "?" + qs);
        loadResults(base + "?" + qs, ev.target && ev.target.id);
      });
    });
  }

  // ---- Hover on plots -------------------------------------------------
  function hoverFigure(fig) {
    var meta;
    try { meta = JSON.parse(fig.getAttribute("data-meta") || "null"); } catch (e) { return; }
    var svg = $("svg", fig);
    var tip = $(".tooltip", fig);
    if (!meta || !svg || !tip) { return; }

    function toData(px, py) {
      var fx = (px - meta.x0) / (meta.x1 - meta.x0);
      var fy = (meta.y1 - py) / (meta.y1 - meta.y0);
      var x = meta.xlog ? meta.xmin * Math.pow(meta.xmax / meta.xmin, fx) : meta.xmin + fx * (meta.xmax - meta.xmin);
      var y = meta.ylog ? meta.ymin * Math.pow(meta.ymax / meta.ymin, fy) : meta.ymin + fy * (meta.ymax - meta.ymin);
      return { x: x, y: y, inside: fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1 };
    }
    function toPixel(x, y) {
      var fx = meta.xlog ? Math.log(x / meta.xmin) / Math.log(meta.xmax / meta.xmin) : (x - meta.xmin) / (meta.xmax - meta.xmin);
      var fy = meta.ylog ? Math.log(y / meta.ymin) / Math.log(meta.ymax / meta.ymin) : (y - meta.ymin) / (meta.ymax - meta.ymin);
      return { x: meta.x0 + fx * (meta.x1 - meta.x0), y: meta.y1 - fy * (meta.y1 - meta.y0) };
    }
    function num(v, digits) { return Number(v).toPrecision(digits || 3).replace(/\.?0+$/, ""); }
    function pct(v) { return (100 * v).toFixed(1) + "%"; }

    function describe(px, py) {
      var p = toData(px, py);
      if (!p.inside) { return null; }
      var i, j, n;
      switch (meta.kind) {
        case "frequency":
          n = meta.rows.length;
          i = n - 1 - Math.round(p.y);
          if (i < 0 || i >= n) { return null; }
          return meta.rows[i] + ": " + pct(meta.values[i][0]) + " of rows" + (meta.constant && meta.constant[i] ? " (constant)" : "");
        case "heatmap":
          n = meta.rows.length;
          i = n - 1 - Math.round(p.y);
          j = Math.round(p.x);
          if (i < 0 || i >= n || j < 0 || j >= meta.cols.length) { return null; }
          var c = meta.constant && (meta.constant[i] || meta.constant[j]) ? " (constant label)" : "";
          return meta.rows[i] + " × " + meta.cols[j] + ": NMI " + num(meta.values[i][j]) + c;
        case "spectrum":
          var k = Math.round(p.x);
          var lines = [];
          (meta.series || []).forEach(function (s) {
            var at = s.x.indexOf(k);
            if (at >= 0) { lines.push(s.name + " " + pct(s.y[at])); }
          });
          return lines.length ? "component " + k + ": " + lines.join(", ") : null;
        case "curves":
          var best = null;
          (meta.series || []).forEach(function (s) {
            s.x.forEach(function (x, at) {
              var q = toPixel(x, s.y[at]);
              var dist = Math.abs(q.x - px) + 0.25 * Math.abs(q.y - py);
              if (best === null || dist < best.dist) { best = { dist: dist, s: s, at: at }; }
            });
          });
          if (best === null || best.dist > 30) { return null; }
          var e = best.s.err && best.s.err.length ? " ± " + num(best.s.err[best.at]) : "";
          return best.s.name + (best.s.baseline ? "" : ", d = " + best.s.x[best.at]) + ": " + num(best.s.y[best.at], 4) + e;
        case "dots":
          var rows = (meta.series || []).filter(function (s) { return !s.baseline; });
          i = rows.length - 1 - Math.round(p.y);
          if (i < 0 || i >= rows.length) { return null; }
          var r0 = rows[i];
          var e0 = r0.err && r0.err.length ? " ± " + num(r0.err[0]) : "";
          return r0.name + (r0.x && r0.x.length ? ", d = " + r0.x[0] : "") + ": " + num(r0.y[0], 4) + e0;
        case "cd":
          var nearest = null;
          (meta.cols || []).forEach(function (m, at) {
            var dist = Math.abs(toPixel(meta.values[0][at], meta.ymin).x - px);
            if (nearest === null || dist < nearest.dist) { nearest = { dist: dist, m: m, r: meta.values[0][at] }; }
          });
          if (nearest === null || nearest.dist > 12) { return null; }
          return nearest.m + ": average rank " + num(nearest.r, 3) + (meta.note ? " (" + meta.note + ")" : "");
        case "ranks":
          j = Math.round(p.x);
          if (j < 0 || j >= (meta.cols || []).length) { return null; }
          if (p.y >= -1.75 && p.y <= -0.75) {
            return meta.avg && meta.avg[j] ? meta.cols[j] + ": average rank " + num(meta.avg[j], 3) : null;
          }
          n = meta.rows.length;
          i = n - 1 - Math.round(p.y);
          if (i < 0 || i >= n) { return null; }
          var r = meta.values[i][j];
          return meta.rows[i] + ", " + meta.cols[j] + ": " + (r ? "rank " + num(r, 3) : "no result");
        case "scatter":
          var near = null;
          (meta.points || []).forEach(function (pt) {
            var q = toPixel(pt.x, pt.y);
            var dist = (q.x - px) * (q.x - px) + (q.y - py) * (q.y - py);
            if (near === null || dist < near.dist) { near = { dist: dist, pt: pt }; }
          });
          if (near === null || near.dist > 64) { return null; }
          var group = near.pt.g >= 0 && meta.cols ? meta.cols[near.pt.g] : "other";
          return (near.pt.l ? near.pt.l + ": " : "") + group + " (" + num(near.pt.x) + ", " + num(near.pt.y) + ")";
      }
      return null;
    }

    svg.addEventListener("mousemove", function (ev) {
      var rect = svg.getBoundingClientRect();
      var scale = rect.width / meta.w;
      var text = describe((ev.clientX - rect.left) / scale, (ev.clientY - rect.top) / scale);
      if (!text) { tip.hidden = true; return; }
      tip.textContent = text;
      tip.hidden = false;
      var box = fig.getBoundingClientRect();
      var left = ev.clientX - box.left + 14;
      if (left + tip.offsetWidth > box.width) { left = ev.clientX - box.left - tip.offsetWidth - 14; }
      tip.style.left = Math.max(0, left) + "px";
      tip.style.top = (ev.clientY - box.top + 14) + "px";
    });
    svg.addEventListener("mouseleave", function () { tip.hidden = true; });
  }

  // ---- Upload: drop a file ----------------------------------------------
  function dropzone(zone) {
    var input = $("input[type=file]", zone);
    if (!input) { return; }
    ["dragenter", "dragover"].forEach(function (t) {
      zone.addEventListener(t, function (ev) { ev.preventDefault(); zone.classList.add("dragging"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      zone.addEventListener(t, function () { zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (ev) {
      ev.preventDefault();
      if (ev.dataTransfer && ev.dataTransfer.files.length) {
        input.files = ev.dataTransfer.files;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
    });
    input.addEventListener("change", function () {
      var note = $("[data-file-name]", zone);
      if (!note) {
        note = document.createElement("p");
        note.className = "hint";
        note.setAttribute("data-file-name", "");
        note.setAttribute("aria-live", "polite");
        zone.appendChild(note);
      }
      note.textContent = input.files.length ? "Chosen: " + input.files[0].name : "";
    });
  }

  // ---- Upload: send with progress ----------------------------------------
  // Without the script the form posts as any form does. With it, the form
  // is sent by XMLHttpRequest, the same multipart body to the same
  // address, so that the page can say how much of a large file has gone
  // (the browser's own indicator is easy to miss) and offer to cancel; a
  // stored file leads to its page, and a refused one replaces the upload
  // card with the one the server rendered, its error first.
  function megabytes(n) {
    return n < 1e6 ? Math.max(1, Math.round(n / 1e3)) + " kB" : (n / 1e6).toFixed(n < 1e8 ? 1 : 0) + " MB";
  }

  function uploadForm(form) {
    if (!window.XMLHttpRequest || !window.FormData || !window.DOMParser) { return; }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      if (form.getAttribute("data-sending")) { return; }
      var card = form.closest("section");
      var submit = $("[type=submit]", form);
      var box = $("[data-upload-progress]", form);
      if (!box) {
        box = document.createElement("div");
        box.className = "upload-progress";
        box.setAttribute("data-upload-progress", "");
        box.setAttribute("data-testid", "upload-progress");
        box.innerHTML = '<progress max="1" value="0" aria-labelledby="upload-note"></progress> ' +
          '<span id="upload-note" data-upload-note></span> ' +
          '<span class="sr-only" role="status" aria-live="polite" data-upload-said></span> ' +
          '<button type="button" class="secondary" data-upload-cancel>Cancel</button>';
        submit.insertAdjacentElement("afterend", box);
      }
      var bar = $("progress", box), cancel = $("[data-upload-cancel]", box);
      var shown = $("[data-upload-note]", box), spoken = $("[data-upload-said]", box);
      var xhr = new XMLHttpRequest();
      var said = -1;
      // say shows text and has it spoken; while the file goes, the live
      // region speaks at every tenth and the page shows every percent.
      function say(text) { shown.textContent = text; spoken.textContent = text; }

      function sending(on) {
        box.hidden = false;
        cancel.hidden = !on;
        submit.disabled = on;
        if (on) { form.setAttribute("data-sending", "1"); } else { form.removeAttribute("data-sending"); }
      }
      function stopped(text) {
        sending(false);
        bar.value = 0;
        say(text);
      }

      xhr.upload.addEventListener("progress", function (e) {
        if (!e.lengthComputable || !e.total) { return; }
        bar.max = e.total;
        bar.value = e.loaded;
        var text = "Sending: " + Math.floor(100 * e.loaded / e.total) + " % (" +
          megabytes(e.loaded) + " of " + megabytes(e.total) + ")";
        var tenth = Math.floor(10 * e.loaded / e.total);
        if (tenth !== said) {
          said = tenth;
          say(text);
        } else {
          shown.textContent = text;
        }
      });
      xhr.upload.addEventListener("load", function () {
        bar.removeAttribute("value"); // indeterminate: the server has the file
        cancel.hidden = true;
        say("Sent. The server is checking and storing the file…");
      });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 200 && xhr.status < 300 && xhr.responseURL) {
          say("Stored. Opening its page…");
          window.location.assign(xhr.responseURL);
          return;
        }
        var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
        var fresh = doc.querySelector("section[aria-labelledby=upload-h]");
        if (fresh && card) {
          var mine = document.importNode(fresh, true);
          card.replaceWith(mine);
          bindUpload(mine);
          var err = $("[data-testid=form-error]", mine);
          if (err) { err.setAttribute("tabindex", "-1"); err.focus(); }
          return;
        }
        var why = doc.querySelector("main .error") || doc.querySelector("main") || doc.body;
        stopped("Not stored (HTTP " + xhr.status + "): " + ((why && why.textContent) || "").trim().slice(0, 300));
      });
      xhr.addEventListener("error", function () {
        stopped("The connection broke off before the upload ended; nothing was stored. Upload again.");
      });
      xhr.addEventListener("abort", function () { stopped("Cancelled; nothing was stored."); });
      cancel.onclick = function () { xhr.abort(); };

      sending(true);
      say("Sending…");
      xhr.open("POST", form.action);
      xhr.setRequestHeader("Accept", "text/html");
      xhr.send(new FormData(form));
    });
  }

  // bindUpload enhances an upload card: the drop zone and the sending.
  function bindUpload(root) {
    enhance(root);
    $$("[data-dropzone]", root).forEach(dropzone);
    $$("form[data-testid=upload-form]", root).forEach(uploadForm);
  }

  // ---- The analysis form ------------------------------------------------
  function analyzeForm(form) {
    var boxes = $$("input[name=methods]", form);
    var beta = $("#beta", form), betaOut = $("[data-beta-out]", form);
    var split = $("#split", form), classifier = $("#classifier", form);
    var limits = $("[data-dlimits]", form);

    function refresh() {
      var takes = {};
      var lim = [];
      boxes.forEach(function (b) {
        if (!b.checked) { return; }
        (b.getAttribute("data-takes") || "").split(" ").forEach(function (t) { if (t) { takes[t] = true; } });
        var m = parseInt(b.getAttribute("data-maxdim"), 10);
        if (m > 0) { lim.push(b.value + " " + m); }
      });
      var mode = ($("input[name=dim_mode]:checked", form) || {}).value || "thr";
      $$("[data-param]", form).forEach(function (el) {
        var shown = el.getAttribute("data-param").split(" ").some(function (p) { return takes[p]; });
        var dim = el.getAttribute("data-dim");
        if (dim && takes.thr && dim !== mode) { shown = false; }
        if (dim === "d" && !takes.thr && takes.d) { shown = true; }
        el.hidden = !shown;
      });
      // data-when="select=v1,v2": a field that applies only when the
      // select holds one of those values (mds's starts and seed: metric
      // and nonmetric only); hidden, its inputs are not sent.
      $$("[data-when]", form).forEach(function (el) {
        var w = el.getAttribute("data-when").split("="), sel = $("#" + w[0], form);
        if (sel && w[1].split(",").indexOf(sel.value) < 0) { el.hidden = true; }
        $$("input, select", el).forEach(function (i) { i.disabled = el.hidden; });
      });
      if (limits) { limits.textContent = lim.length ? "At most: " + lim.join(", ") + "." : "Tick a method."; }
      var evaluating = classifier && classifier.value !== "none";
      $$("[data-eval]", form).forEach(function (el) {
        var only = el.getAttribute("data-classifier");
        el.hidden = !evaluating || (only !== null && classifier.value !== only);
      });
      var kind = split ? split.value : "";
      var tf = $("[data-split=holdout]", form), fo = $("[data-split=kfold]", form);
      if (tf) { tf.hidden = !evaluating || kind !== "holdout"; }
      if (fo) { fo.hidden = !evaluating || kind !== "kfold"; }
    }
    form.addEventListener("change", refresh);
    if (beta && betaOut) {
      beta.addEventListener("input", function () { betaOut.textContent = beta.value; });
    }
    refresh();
  }

  // ---- The compare page's job picker -------------------------------------
  // pickFilter hides the jobs that do not match the filter's text, data
  // set, method and age, and the data sets left with none; ticked jobs
  // stay shown, so that what is compared is always in sight.
  function pickFilter(bar) {
    var form = bar.closest("form");
    var q = $("[data-pick=q]", bar), ds = $("[data-pick=dataset]", bar);
    var me = $("[data-pick=method]", bar), since = $("[data-pick=since]", bar);
    var count = $("#pick-count", bar);
    function refresh() {
      var text = q.value.trim().toLowerCase();
      var now = Date.now() / 1000, age = parseInt(since.value, 10);
      var shown = 0, all = 0;
      $$("[data-pick-group]", form).forEach(function (g) {
        var left = 0;
        $$("[data-pick-job]", g).forEach(function (job) {
          all++;
          var box = $("input", job);
          var ok = (!ds.value || job.getAttribute("data-dataset") === ds.value) &&
            (!me.value || (" " + job.getAttribute("data-methods") + " ").indexOf(" " + me.value + " ") >= 0) &&
            (!age || now - parseInt(job.getAttribute("data-created"), 10) <= age) &&
            (!text || job.textContent.toLowerCase().indexOf(text) >= 0 || job.getAttribute("data-dataset").toLowerCase().indexOf(text) >= 0);
          job.hidden = !ok && !box.checked;
          if (!job.hidden) { left++; shown++; }
        });
        g.hidden = left === 0;
      });
      count.textContent = shown === all ? all + " jobs" : shown + " of " + all + " jobs shown";
    }
    bar.addEventListener("input", refresh);
    bar.addEventListener("change", refresh);
    // Enter in the filter's text filters; it does not submit the form.
    q.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); refresh(); } });
    refresh();
  }

  function init() {
    enhance(document);
    $$("[data-pick-filter]").forEach(pickFilter);
    $$("[data-events]").forEach(followJob);
    var results = $("#results");
    if (results) { initResults(results); } else { $$("[data-figure]").forEach(hoverFigure); }
    $$("[data-dropzone]").forEach(dropzone);
    $$("form[data-testid=upload-form]").forEach(uploadForm);
    $$("form[data-analyze]").forEach(analyzeForm);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
