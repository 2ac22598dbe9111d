// Interactive figures for spikelab's report pages, inline (nothing is fetched).
// The figures are the SVG files the run wrote (plotters' output, unchanged). From their
// own tick labels this script recovers each axis's scale, then:
//  * hover: a readout gives the cursor's position in the data's units, and the value of
//    the nearest plotted point within 8 px;
//  * toggle: a click on a legend entry hides or shows every mark of that colour.
// Each figure gets data-interactive="ready" once set up (the browser test checks it).
(function () {
  "use strict";
  function num(t) {
    var s = (t.textContent || "").trim();
    return /^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(s) ? parseFloat(s) : null;
  }
  function fit(pairs) { // [[px, value]...] -> px -> value, from the two extreme ticks
    if (pairs.length < 2) return null;
    pairs.sort(function (a, b) { return a[0] - b[0]; });
    var a = pairs[0], b = pairs[pairs.length - 1];
    if (a[0] === b[0]) return null;
    var k = (b[1] - a[1]) / (b[0] - a[0]);
    return function (px) { return a[1] + (px - a[0]) * k; };
  }
  function scales(svg) {
    var xs = [], ys = [];
    svg.querySelectorAll("text").forEach(function (t) {
      var v = num(t), anchor = t.getAttribute("text-anchor");
      if (v === null || t.getAttribute("transform")) return;
      var x = +t.getAttribute("x"), y = +t.getAttribute("y");
      if (anchor === "end") ys.push([y, v]);
      else if (anchor === "middle") xs.push([x, v]);
    });
    return { x: fit(xs), y: fit(ys) };
  }
  function colour(el) {
    var f = el.getAttribute("fill"), s = el.getAttribute("stroke");
    if (f && f !== "none" && f !== "#FFFFFF") return f;
    if (s && s !== "none" && s !== "#FFFFFF") return s;
    return null;
  }
  function fmt(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
  }
  function legend(svg) { // [{text, colour}] from the entries drawn with text-anchor=start
    var marks = Array.prototype.slice.call(svg.querySelectorAll("circle,rect,polygon,polyline,line"));
    var out = [];
    svg.querySelectorAll("text[text-anchor=start]").forEach(function (t) {
      var tx = +t.getAttribute("x"), ty = +t.getAttribute("y") + 6;
      var best = null, bestD = 1e9;
      marks.forEach(function (m) {
        var bb = m.getBBox(), cx = bb.x + bb.width / 2, cy = bb.y + bb.height / 2;
        if (bb.width > 40 || bb.height > 30) return;
        var d = Math.abs(cy - ty) + Math.max(0, cx - tx);
        if (cx < tx && tx - cx < 40 && Math.abs(cy - ty) < 9 && d < bestD && colour(m)) {
          best = m; bestD = d;
        }
      });
      if (best) out.push({ text: t, colour: colour(best), swatch: best });
    });
    return out;
  }
  function setup(fig) {
    var svg = fig.querySelector("svg");
    if (!svg) return "none";
    var sc = scales(svg);
    var entries = legend(svg);
    var swatches = entries.map(function (e) { return e.swatch; });
    entries.forEach(function (e) {
      e.text.style.cursor = "pointer";
      e.text.addEventListener("click", function () {
        var off = e.text.getAttribute("data-off") !== "1";
        e.text.setAttribute("data-off", off ? "1" : "0");
        e.text.style.textDecoration = off ? "line-through" : "";
        svg.querySelectorAll("circle,rect,polygon,polyline,line").forEach(function (m) {
          if (swatches.indexOf(m) < 0 && colour(m) === e.colour) m.style.display = off ? "none" : "";
        });
      });
    });
    if (!sc.x || !sc.y) return entries.length ? "ready" : "none";
    var out = document.createElement("div");
    out.className = "readout";
    out.textContent = "hover over the plot for values" + (entries.length ? "; click a legend entry to hide or show it" : "");
    fig.insertBefore(out, svg.nextSibling);
    var points = Array.prototype.slice.call(svg.querySelectorAll("circle"));
    svg.addEventListener("mousemove", function (ev) {
      var m = svg.getScreenCTM();
      if (!m) return;
      var p = svg.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      p = p.matrixTransform(m.inverse());
      var near = null, nd = 64;
      points.forEach(function (c) {
        if (c.style.display === "none") return;
        var dx = +c.getAttribute("cx") - p.x, dy = +c.getAttribute("cy") - p.y, d = dx * dx + dy * dy;
        if (d < nd) { nd = d; near = c; }
      });
      var s = "x " + fmt(sc.x(p.x)) + ", y " + fmt(sc.y(p.y));
      if (near) s += "  |  point: x " + fmt(sc.x(+near.getAttribute("cx"))) + ", y " + fmt(sc.y(+near.getAttribute("cy")));
      out.textContent = s;
    });
    return "ready";
  }
  document.querySelectorAll("figure").forEach(function (fig) {
    var state;
    try { state = setup(fig); } catch (e) { state = "error: " + e; }
    fig.setAttribute("data-interactive", state);
  });
})();
