// Verification job page: while the job runs, poll its status and reload once it changes state
// or finishes a run (the page then shows the new log, re-runs and charts).
(function () {
  "use strict";
  var box = document.getElementById("job-status");
  if (!box || box.dataset.state === "finished") { return; }
  // What the page shows now: a job that moved on before the first poll (a short run) still reloads.
  var seen = box.dataset.state + "/" + document.getElementById("runs-done").textContent;
  function poll() {
    fetch(box.dataset.statusUrl, { credentials: "same-origin" }).then(function (response) {
      return response.json();
    }).then(function (status) {
      var key = status.state + "/" + status.runs_done;
      if (key !== seen) { window.location.reload(); return; }
      document.getElementById("stage").textContent = status.stage;
      document.getElementById("runs-done").textContent = status.runs_done;
      document.getElementById("progress").value = status.runs_done;
      window.setTimeout(poll, 1000);
    }).catch(function () { window.setTimeout(poll, 5000); });
  }
  poll();
})();
