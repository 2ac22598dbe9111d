// Appended to a copy of a report page by scripts/browser_test.sh: drives the page's
// interactive figures as a user would (a hover over a plotted point, a click on a legend
// entry) and records what they did in <body data-probe-*> for check_report_dom.py.
(function () {
  var fig = document.querySelector("figure[data-interactive=ready] .readout");
  fig = fig && fig.parentNode;
  if (!fig) { document.body.setAttribute("data-probe-hover", "no interactive figure"); return; }
  var svg = fig.querySelector("svg");
  var dot = svg.querySelector("circle");
  var r = dot.getBoundingClientRect();
  svg.dispatchEvent(new MouseEvent("mousemove", { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true }));
  document.body.setAttribute("data-probe-hover", fig.querySelector(".readout").textContent);
  var entry = svg.querySelector("text[text-anchor=start]");
  var before = svg.querySelectorAll("[style*='display: none']").length;
  if (entry) entry.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  var after = svg.querySelectorAll("[style*='display: none']").length;
  document.body.setAttribute("data-probe-toggle", (entry ? entry.textContent.trim() : "no legend") + ": " + before + " -> " + after + " hidden");
})();
