// Draws every Plotly figure embedded on the page with json_script (results/charts.py builds them).
// A click on a point that carries a result id opens that result.
(function () {
  "use strict";
  var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  document.querySelectorAll(".plot[data-figure]").forEach(function (div) {
    var source = document.getElementById(div.dataset.figure);
    if (!source || typeof Plotly === "undefined") { return; }
    var figure = JSON.parse(source.textContent);
    Plotly.newPlot(div, figure.data, figure.layout, config).then(function () {
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
