// Draws every Plotly figure embedded on the page with json_script (results/charts.py builds them).
// A click on a point that carries a result id opens that result.
(function () {
  "use strict";
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  var NARROW = 600; // px of chart width below which the legend goes under the plot

  // On a narrow screen a legend at the right would eat most of the plot area: put it below.
  function fitToWidth(div, layout) {
    if (div.clientWidth >= NARROW) { return layout; }
    var margin = Object.assign({}, layout.margin || {}, { l: 50, r: 10 });
    var title = Object.assign({}, layout.title || {}, { font: { size: 12 } });
    return Object.assign({}, layout, {
      margin: margin, title: title,
      // Anchored to the bottom of the whole figure (not the plot area), so it never covers the x-axis title.
      legend: { orientation: "h", x: 0, xanchor: "left", y: 0, yref: "container", yanchor: "bottom" }
    });
  }

  document.querySelectorAll(".plot[data-figure]").forEach(function (div) {
    var source = document.getElementById(div.dataset.figure);
    if (!source || typeof Plotly === "undefined") { return; }
    var figure = JSON.parse(source.textContent);
    Plotly.newPlot(div, figure.data, fitToWidth(div, figure.layout), config).then(function () {
      div.dataset.drawn = "true";
    });
    div.on("plotly_click", function (event) {
      var point = event.points && event.points[0];
      var id = point && point.customdata;
      if (typeof id === "string" && /^\d+\.\d+-\d+$/.test(id)) {
        window.location.href = "/results/" + encodeURIComponent(id) + "/";
      }
    });
  });
})();
