// Charts on a narrow screen (a phone): a chart drawn wider than the column it sits in is drawn
// again, laid out for the column: what stood side by side (hconcat, a column facet) wrapped to
// as many panels to a row as fit (side-by-side blocks stacked),
// a plot wider than the column narrowed, and the legends beneath the plots,
// one entry a line. The same data and
// marks; only the layout changes, so nothing has to scroll sideways. Loaded after
// vega-embed, it wraps the page's vegaEmbed (which every chart's own script calls).
(function () {
  "use strict";
  const embed = window.vegaEmbed;
  if (typeof embed !== "function") return;

  // the same spec laid out for a column ``room`` px wide; data are kept by reference
  function narrow(spec, room) {
    if (Array.isArray(spec)) return spec.map(function (s) { return narrow(s, room); });
    if (!spec || typeof spec !== "object") return spec;
    const out = {};
    Object.keys(spec).forEach(function (k) {
      out[k] = (k === "datasets" || k === "data" || k === "values") ? spec[k] : narrow(spec[k], room);
    });
    if (typeof out.width === "number" && (out.mark || out.layer) && out.width > room - 110) {
      out.width = Math.max(120, room - 110);  // a plot narrowed to leave room for its axes
    }
    if (out.legend && typeof out.legend === "object") {  // a legend beneath, one entry a line
      out.legend = Object.assign({}, out.legend, {orient: "bottom", columns: 1});
    }
    if (out.hconcat) { out.vconcat = out.hconcat; delete out.hconcat; }
    if (out.concat) out.columns = 1;
    if (out.facet && (out.facet.column || out.facet.row) && !out.facet.field) wrap(out, room);
    return out;
  }

  // a row and/or column facet as one facet that wraps: as many panels to a row as fit the
  // column; a row × column grid becomes one panel per pair, titled by both, in the grid's order
  function wrap(out, room) {
    const f = out.facet;
    let field = f.column || f.row;
    if (f.column && f.row) {
      const get = function (c) { return "datum[" + JSON.stringify(c.field) + "]"; };
      const rank = function (c) {
        return "indexof(" + JSON.stringify(Array.isArray(c.sort) ? c.sort : []) + ", " + get(c) + ")";
      };
      out.transform = (out.transform || []).concat([
        {calculate: get(f.row) + " + ', ' + " + get(f.column), as: "panel"},
        {calculate: rank(f.row) + " * 1000 + " + rank(f.column), as: "panel_order"}]);
      field = {field: "panel", type: "nominal", title: null, sort: {field: "panel_order", op: "min"}};
    }
    const width = out.spec && typeof out.spec.width === "number" ? out.spec.width : 200;
    out.facet = field;
    out.columns = Math.max(1, Math.floor((room - 60) / (width + 20)));
  }

  function beneath(spec) {  // every legend below the plots, one entry a line
    const config = Object.assign({}, spec.config);
    config.legend = Object.assign({}, config.legend, {orient: "bottom", columns: 1});
    return Object.assign({}, spec, {config: config});
  }

  function room(target) {  // the width the chart may take: its output area's
    return target.parentElement ? target.parentElement.clientWidth : target.clientWidth;
  }

  function drawn(target) {  // the width the chart was drawn at
    const d = target.querySelector("svg, canvas");
    return d ? d.getBoundingClientRect().width : 0;
  }

  function wider(target) {
    return room(target) > 0 && drawn(target) > room(target) + 1;
  }

  function responsive(el, spec, opt) {
    const target = typeof el === "string" ? document.querySelector(el) : el;
    const done = function (result) {  // the chart's final layout is drawn (tests wait for it)
      if (target) target.setAttribute("data-laid-out", "");
      return result;
    };
    return embed(el, spec, opt).then(function (result) {
      if (typeof spec !== "object" || !target || !wider(target)) return done(result);
      result.finalize();
      target.classList.add("chart-narrow");
      const laid = beneath(narrow(spec, room(target)));
      const excess = drawn(target) - room(target);
      if (typeof laid.width === "number" && (laid.mark || laid.layer)) {
        laid.width = Math.max(100, laid.width - excess - 10);  // one plot: narrower by the excess
      }
      return embed(el, laid, opt).then(done);
    });
  }
  Object.keys(embed).forEach(function (k) { responsive[k] = embed[k]; });
  window.vegaEmbed = responsive;
})();
