// WebGL for the scatter: one regl instance and one regl-scatterplot
// renderer shared by every view of the page (browsers allow a page few
// WebGL contexts), and the options every view is created with.
//
// regl compiles each draw command by generating JavaScript and running it
// with new Function, which the pages' Content-Security-Policy forbids
// (script-src 'self', no 'unsafe-eval'). The bundle therefore uses
// plotly's fork of regl (@plotly/regl, aliased for "regl" by cmd/bundle),
// which looks each generated function up in a table first: regl-cache.js,
// made by `go run ./cmd/bundle -regl-cache` from the same options. A
// command missing from the table would need new Function and fail; the
// page then keeps its static figures and says why.

import createRegl from "regl";
import { createRenderer } from "regl-scatterplot";

// The extensions regl-scatterplot asks for (its GL_EXTENSIONS).
const extensions = ["OES_texture_float", "OES_element_index_uint", "WEBGL_color_buffer_float", "EXT_float_blend"];

// hasWebGL says whether the browser gives a WebGL context.
export function hasWebGL() {
  try {
    const c = document.createElement("canvas");
    return !!(window.WebGLRenderingContext && c.getContext("webgl"));
  } catch (e) {
    return false;
  }
}

// createSharedRenderer makes the regl instance (taking generated code from
// cache, an object that regl fills when code generation is allowed) and
// the renderer the views share.
export function createSharedRenderer(cache) {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl", { antialias: true, preserveDrawingBuffer: true });
  if (!gl) { throw new Error("this browser has no WebGL"); }
  const have = extensions.filter((e) => gl.getExtension(e));
  const regl = createRegl({ gl, extensions: have, cachedCode: cache });
  const renderer = createRenderer({ regl, canvas });
  // Given its canvas, the renderer leaves sizing it to us. Each view copies
  // its part from the middle of it, so it must be as large as the largest
  // view, and no larger: every frame clears and copies all of it.
  const views = new Set();
  let size = [0, 0];
  renderer.fit = (el, on) => {
    if (el) { if (on) { views.add(el); } else { views.delete(el); } }
    let w = 1, h = 1;
    for (const v of views) { w = Math.max(w, v.clientWidth); h = Math.max(h, v.clientHeight); }
    if (w !== size[0] || h !== size[1]) { size = [w, h]; renderer.resize(w, h); }
  };
  renderer.fit();
  return renderer;
}

// viewOptions are the options every view is created with; regl-cache.js
// holds the code of exactly these (a change here needs -regl-cache).
export function viewOptions(renderer, canvas, width, height) {
  return {
    renderer,
    canvas,
    width,
    height,
    backgroundColor: "#ffffff",
    pointColorActive: "#0072B2",
    pointColorHover: "#D55E00",
    pointOutlineWidth: 2,
    pointSizeSelected: 1,
    opacityInactiveScale: 0.35,
    opacityBy: "density",
    lassoColor: "#0072B2",
    lassoMinDelay: 10,
    lassoMinDist: 2,
    reticleColor: [0.2, 0.2, 0.2, 0.5],
    spatialIndexUseWorker: false, // a worker from a blob: URL is against the page's policy
    deselectOnDblClick: false,
    deselectOnEscape: false,
    syncEvents: true,
  };
}
