// Verification job page: while the job runs, poll its status and reload once it changes state
// or finishes a run (the page then shows the new log, re-runs and charts).
(function () {
  "use strict";
  var box = document.getElementById("job-status");
  if (!box || box.dataset.state === "finished") { return; }
  var seen = null;
  function poll() {
    fetch(box.dataset.statusUrl, { credentials: "same-origin" }).then(function (response) {
      return response.json();
    }).then(function (status) {
      var key = status.state + "/" + status.runs_done;
      if (seen !== null && key !== seen) { window.location.reload(); return; }
      seen = key;
      document.getElementById("stage").textContent = status.stage;
      document.getElementById("runs-done").textContent = status.runs_done;
      document.getElementById("progress").value = status.runs_done;
      window.setTimeout(poll, 1000);
    }).catch(function () { window.setTimeout(poll, 5000); });
  }
  poll();
})();
