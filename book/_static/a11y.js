// Accessible names the pages need (what axe-core's serious rules ask for; tests/acceptance/test_book.py
// runs the audit). Charts: vega draws each chart as an SVG whose marks are graphics symbols
// without names; the chart is one image, named by the caption under it (every chart has one,
// tested), and its marks are hidden from assistive technology. Toggles: a <summary> with no text
// (a code cell's or a dropdown's) is named by what it opens. Buttons whose aria-label leaves out
// their visible text (the theme's search and colour-mode buttons, the notebook's output toggles)
// are named by that text, or else by their title (the tooltip they show). The theme's sidebar is
// marked as the site's navigation (its title sat outside every landmark).
(function () {
  "use strict";
  function text(e) { return (e && e.textContent || "").replace(/\s+/g, " ").trim(); }

  function captionOf(embed) {
    const cell = embed.closest(".cell") || embed.closest(".output");
    const next = cell && cell.nextElementSibling;
    const cap = next && (next.matches(".figure-caption") ? next : next.querySelector(".figure-caption"));
    return text(cap) || "A chart (its caption is below it)";
  }

  function nameCharts() {
    document.querySelectorAll(".vega-embed svg").forEach(function (svg) {
      if (!svg.getAttribute("aria-label")) {
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", captionOf(svg.closest(".vega-embed")));
      }
      // every child, also those a re-render (a resize) adds later
      Array.from(svg.children).forEach(function (c) {
        if (!c.hasAttribute("aria-hidden")) c.setAttribute("aria-hidden", "true");
      });
    });
  }

  function nameToggles() {
    document.querySelectorAll("summary").forEach(function (s) {
      const label = s.getAttribute("aria-label");
      const shown = Array.from(s.children).filter(function (c) {
        return c.offsetParent !== null;
      }).map(text).join(" ") || text(s);
      if (!shown && !label) {
        const code = s.closest(".cell, .tag_hide-input, .hide-input, .toggle-details");
        s.setAttribute("aria-label", code ? "Show or hide the code" : "Show more");
      } else if (label && shown && label.indexOf(shown) < 0) {
        s.removeAttribute("aria-label");  // its visible text names it
      }
    });
    document.querySelectorAll("button[aria-label]").forEach(function (b) {
      // a name from the button's own text, else from its title (what its tooltip shows)
      const label = b.getAttribute("aria-label");
      if (label === (b.innerText || "").replace(/\s+/g, " ").trim()) return;
      if (!b.getAttribute("title")) b.setAttribute("title", label);
      b.removeAttribute("aria-label");
    });
  }

  function landmarks() {
    // the theme's primary sidebar (the book's title and its contents) holds content outside any
    // landmark: it is the site's navigation
    const side = document.querySelector(".bd-sidebar-primary");
    if (side && !side.getAttribute("role") && side.tagName !== "NAV") {
      side.setAttribute("role", "navigation");
      side.setAttribute("aria-label", "The book");
    }
  }

  function run() { nameCharts(); nameToggles(); landmarks(); }
  // once per frame however many nodes a chart's drawing adds (not once per mutation)
  let queued = false;
  function soon() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; run(); });
  }
  new MutationObserver(soon).observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener("DOMContentLoaded", run);
})();
