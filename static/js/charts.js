// Draws the Plotly figures embedded on the page with json_script (results/charts.py builds them), or
// fetched from their JSON download where the page says so (data-figure-src).
// A chart is drawn when it comes within a screen of the viewport, not all at page load, and Plotly
// itself (the URL in this script's data-plotly-src) is loaded only when the first chart is about to
// be drawn: a page whose charts are all further down finishes loading without evaluating it.
// Until then the chart's box keeps its height and shows a placeholder (site.css, `.plot`).
// A click on a point that carries a result id opens that result.
(function () {
  "use strict";
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  var NARROW = 600; // px of chart width below which the legend goes under the plot
  var plotlySrc = document.querySelector("script[data-plotly-src]").dataset.plotlySrc;
  var plotlyLoaded = null; // a Promise, once the first chart asked for Plotly
  var queue = []; // charts waiting to be drawn, the ones on screen first
  var drawing = false;

  // Plotly draws its toolbar (the mode bar) over the figure's top right corner, always on a touch
  // screen and on hover elsewhere: it covered a phone's titles and long ones on a laptop. The title
  // goes below a strip the toolbar has to itself, wrapped to the chart's width (Plotly does not
  // wrap a title: a long one ran under the toolbar or off the edge).
  var TOOLBAR_STRIP = 32; // px: the mode bar's height (about 26) and air; pages/charts.py reserves the same
  var TITLE_GAP = 10; // px between the title's last line and the plot area

  function placeTitle(div, layout) {
    var title = Object.assign({}, layout.title || {});
    if (typeof title.text !== "string" || !title.text) { return layout; }
    var narrow = div.clientWidth < NARROW;
    var size = narrow ? 12 : ((title.font && title.font.size) || 14);
    // A character of the sans-serif font is about 0.55 em wide: 0.6 leaves some room.
    var width = Math.max(20, Math.floor((div.clientWidth - 16) / (size * 0.6)));
    var lines = wrapWords(title.text.split("<br>").join(" "), width);
    title.text = lines.join("<br>");
    title.font = Object.assign({}, title.font || {}, { size: size });
    // Plotly lifts a title of several lines by about 0.7 em a line beyond the first: pushed down as much.
    var pad = TOOLBAR_STRIP + Math.ceil(size * 0.7) * (lines.length - 1);
    Object.assign(title, { x: 0, xref: "container", xanchor: "left", y: 1, yref: "container", yanchor: "top",
                           pad: { t: pad, l: 8 } });
    var margin = Object.assign({}, layout.margin || {});
    var top = pad + Math.ceil(size * 1.3) * lines.length + TITLE_GAP;
    var grown = Math.max(0, top - (margin.t || 0));
    margin.t = Math.max(margin.t || 0, top);
    var placed = Object.assign({}, layout, { title: title, margin: margin });
    // A chart of a set height keeps its plot area: the box grows by what the title took.
    if (layout.height) { placed.height = layout.height + grown; }
    return placed;
  }

  // On a narrow screen a legend at the right would eat most of the plot area: put it below. The
  // figure then takes its box's height, which on a phone grows with the legend's entries (site.css,
  // --legend-entries), so a long legend does not squash the plot.
  function fitToWidth(div, layout) {
    layout = placeTitle(div, layout);
    if (div.clientWidth >= NARROW) { return layout; }
    var margin = Object.assign({}, layout.margin || {}, { l: 50, r: 10 });
    return Object.assign({}, layout, {
      margin: margin, height: layout.height || div.clientHeight,
      // Anchored to the bottom of the whole figure (not the plot area), so it never covers the x-axis title.
      legend: { orientation: "h", x: 0, xanchor: "left", y: 0, yref: "container", yanchor: "bottom" }
    });
  }

  // Words into lines of at most `width` characters (a longer word keeps its own line).
  function wrapWords(text, width) {
    var lines = [];
    text.split(" ").forEach(function (word) {
      var last = lines.length - 1;
      if (last >= 0 && (lines[last] + " " + word).length <= width) {
        lines[last] += " " + word;
      } else {
        lines.push(word);
      }
    });
    return lines;
  }

  function openResult(event) {
    var point = event.points && event.points[0];
    var id = point && point.customdata;
    if (typeof id === "string" && /^[\w.:+-]+$/.test(id)) {
      var url = "/results/" + encodeURIComponent(id) + "/";
      // An embedded chart (templates/results/embed.html) sits in another site's frame, where the
      // result page refuses to be shown: it opens in a new tab instead.
      if (document.body.classList.contains("embed")) {
        window.open(url, "_blank", "noopener");
      } else {
        window.location.href = url;
      }
    }
  }

  // One <script> element, however many charts ask for Plotly.
  function loadPlotly() {
    if (!plotlyLoaded) {
      plotlyLoaded = new Promise(function (resolve, reject) {
        if (typeof Plotly !== "undefined") { resolve(); return; }
        var script = document.createElement("script");
        script.src = plotlySrc;
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return plotlyLoaded;
  }

  // The toolbar's camera saves a PNG, the button beside it an SVG, both named after the chart.
  function configFor(div) {
    var name = (div.closest("[id]") || div).id || "chart";
    return Object.assign({}, config, {
      toImageButtonOptions: { format: "png", filename: name, scale: 2 },
      modeBarButtonsToAdd: [{
        name: "Download plot as SVG",
        icon: Plotly.Icons.disk,
        click: function (gd) { Plotly.downloadImage(gd, { format: "svg", filename: name }); }
      }]
    });
  }

  // The figure: embedded in the page, or (data-figure-src, a large round's charts) fetched only now
  // from its chart's figure.json (the figure without the rows of the chart's JSON download).
  function figureOf(div) {
    if (!div.dataset.figureSrc) {
      return Promise.resolve(JSON.parse(document.getElementById(div.dataset.figure).textContent));
    }
    return fetch(div.dataset.figureSrc, { headers: { Accept: "application/json" } }).then(function (response) {
      if (!response.ok) { throw new Error(response.status); }
      return response.json();
    });
  }

  function draw(div) {
    return figureOf(div).then(function (figure) { return plot(div, figure); });
  }

  function plot(div, figure) {
    return Plotly.newPlot(div, figure.data, fitToWidth(div, figure.layout), configFor(div)).then(function () {
      div.on("plotly_click", openResult);
      div.dataset.drawn = "true";
    });
  }

  function onScreen(box) {
    return box.bottom > 0 && box.top < window.innerHeight;
  }

  // The charts on screen are drawn back to back: the reader waits for all of them, and a pause
  // between two would add a frame. Before any other chart (Plotly takes about 100 ms for one) the
  // browser gets to paint and answer input. A chart that cannot be drawn says so (site.css).
  function drawNext() {
    var div = queue.shift();
    if (!div) { drawing = false; return; }
    loadPlotly().then(function () { return draw(div); }).catch(function () {
      div.dataset.failed = "true";
    }).then(function () {
      if (queue.length && onScreen(queue[0].getBoundingClientRect())) {
        drawNext();
      } else {
        window.setTimeout(drawNext, 0);
      }
    });
  }

  function request(visible, nearby) {
    queue = visible.concat(queue, nearby);
    if (!drawing && queue.length) {
      drawing = true;
      drawNext();
    }
  }

  var charts = Array.prototype.slice.call(document.querySelectorAll(".plot[data-figure]"));
  if (!("IntersectionObserver" in window)) {
    request(charts, []);
    return;
  }
  // rootMargin "100% 0px": a chart within one screen above or below the viewport is drawn too,
  // so it is usually ready before it scrolls into view.
  var observer = new IntersectionObserver(function (entries) {
    var visible = [];
    var nearby = [];
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) { return; }
      observer.unobserve(entry.target);
      (onScreen(entry.boundingClientRect) ? visible : nearby).push(entry.target);
    });
    request(visible, nearby);
  }, { rootMargin: "100% 0px" });
  charts.forEach(function (div) { observer.observe(div); });
})();
