// Table captions on a narrow screen (a phone): a wide table scrolls sideways inside its output
// area, and its <caption>, part of the table, scrolled with it: clipped at the column's edge.
// Each caption is shown again as a paragraph above the area that scrolls, as wide as the column;
// the caption itself stays in the table for screen readers (visually hidden), and the paragraph
// is hidden from them, so that it is read once.
(function () {
  "use strict";

  function scroller(table) {  // the nearest ancestor that scrolls sideways, else the table
    for (let a = table.parentElement; a && a !== document.body; a = a.parentElement) {
      if (/(auto|scroll|hidden)/.test(getComputedStyle(a).overflowX)) return a;
    }
    return table;
  }

  function lift(caption) {
    if (caption.classList.contains("lifted")) return;
    const table = caption.closest("table");
    const p = document.createElement("p");
    p.className = "table-caption";
    p.setAttribute("aria-hidden", "true");
    p.innerHTML = caption.innerHTML;
    const where = scroller(table);
    where.parentElement.insertBefore(p, where);
    caption.classList.add("lifted");
  }

  function all() {
    document.querySelectorAll("article table > caption").forEach(lift);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all);
  else all();
})();
