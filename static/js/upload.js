// Upload page: drag and drop, XHR upload with a progress bar, then live ingestion progress by
// polling the JSON status endpoint, then scores and findings grouped by severity.
// Everything from the server is inserted with textContent: findings quote hostile log content.
(function () {
  "use strict";
  var POLL_MS = 1000;
  var SEVERITIES = ["error", "warning", "info"];

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function link(text, href) {
    var a = el("a", text);
    a.href = href;
    return a;
  }

  function humanBytes(n) {
    var units = ["B", "KB", "MB", "GB", "TB"], i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return n.toFixed(i ? 1 : 0) + " " + units[i];
  }

  // --- the job panel --------------------------------------------------------------------------
  var job = document.getElementById("job");

  function renderJob(data) {
    var j = data.job;
    job.hidden = false;
    var badge = document.getElementById("job-state");
    // "done, 3 errors" is not a clean "done": it gets its own (not green) badge.
    var badgeClass = "badge state-" + (j.state === "done" && j.error_count ? "done-errors" : j.state);
    badge.textContent = j.summary;
    badge.className = badgeClass;
    var listed = document.getElementById("upload-row-state-" + data.id);
    if (listed) { listed.textContent = j.summary; listed.className = badgeClass; }
    document.getElementById("job-receipt").textContent =
      data.organization_name + " · " + data.round_label + " · version " + data.version + " · " + data.original_name +
      " (" + humanBytes(data.size) + ") · sha256 " + data.sha256 + " · uploaded by " + data.uploader;
    var pct = j.state === "done" ? 100 : (j.files_total ? Math.round(100 * j.files_done / j.files_total) : 0);
    document.getElementById("job-bar").style.width = pct + "%";
    var stage = j.state_label;
    if (j.waiting) stage = "Received: " + j.waiting;
    else if (j.stage) stage += ": " + j.stage;
    if (j.files_total) stage += " (" + j.files_done + " of " + j.files_total + " result files)";
    if (j.attempts > 1) stage += " · attempt " + j.attempts;
    var stageLine = document.getElementById("job-stage");
    stageLine.textContent = stage;
    // Nobody will check it until a worker starts: say so as a warning, not as muted progress.
    stageLine.className = j.state === "received" && !j.worker_running ? "warning" : "muted";
    var error = document.getElementById("job-error");
    error.hidden = j.state !== "failed";
    if (j.state === "failed") {
      error.textContent = (j.error_kind === "submitter" ? "The package was refused: " : "Our side failed: ") + j.error;
    }
    if (j.state === "done") renderOutcome(data);
    // A version speaking for another organization waits for a chair: say so, with what comes next.
    document.getElementById("job-held").hidden = !data.held_reason;
    document.getElementById("job-held-reason").textContent = data.held_reason || "";
  }

  function renderOutcome(data) {
    document.getElementById("job-results").hidden = false;
    var body = document.querySelector("#scores tbody");
    body.replaceChildren();
    data.results.forEach(function (r) {
      var tr = el("tr");
      // The same labels and links as the public result and system pages.
      var id = el("td");
      id.append(r.url ? link(r.result_id, r.url) : el("span", "no id while held", "muted"));
      var system = el("td"); system.append(link(r.system_name, r.system_url));
      tr.append(id, system, el("td", r.benchmark), el("td", r.division),
        el("td", r.score_minutes === null ? "n/a" : r.score_minutes.toFixed(2), "num"),
        el("td", r.rcp_label), el("td", r.score_note));
      body.append(tr);
    });
    if (!data.results.length) {
      var empty = el("tr"); var td = el("td", "No scored results.", "muted"); td.colSpan = 7;
      empty.append(td); body.append(empty);
    }
    var box = document.getElementById("findings");
    box.replaceChildren();
    // The counts leave out what a decision waived, and so do the lists; waived findings are
    // listed apart, each with the decision that waived it.
    SEVERITIES.concat(["waived"]).forEach(function (group) {
      var count = data.finding_counts[group] || 0;
      if (group === "waived" && !count) return;
      var details = el("details", null, "sev-" + group);
      details.id = "findings-" + group;
      details.open = group === "error" && count > 0;
      // Each severity's count says how many of its findings a decision waived: "0 errors (5 waived)".
      var waived = data.finding_counts["waived_" + group] || 0;
      details.append(el("summary", group === "waived" ? count + " waived by a decision"
                                                      : count + " " + group + (count === 1 ? "" : "s") +
                                                        (waived ? " (" + waived + " waived)" : "")));
      var list = el("ul", null, "findings-list");
      data.findings.filter(function (f) {
        return group === "waived" ? f.waived_by : f.severity === group && !f.waived_by;
      }).forEach(function (f) {
        var li = el("li");
        var where = f.file ? f.file + (f.line ? ":" + f.line : "") : "(package)";
        li.append(el("code", where), " ", el("b", f.code), " ", el("span", f.message));
        if (f.waived_by) {
          var w = f.waived_by;
          li.append(" ", el("span", "waived by decision " + w.id + " (" + w.label + (w.code ? " " + w.code : "") +
                                    ": " + w.reason + ")", "waived"));
        }
        list.append(li);
      });
      var shown = list.children.length;
      if (shown < count) list.append(el("li", "… and " + (count - shown) + " more", "muted"));
      details.append(list);
      box.append(details);
    });
  }

  // The new upload joins the list at once; its state badge follows the polled job.
  function listUpload(receipt) {
    var tbody = document.querySelector("#uploads tbody");
    var empty = tbody.querySelector("td.muted[colspan]");
    if (empty) empty.parentNode.remove();
    var row = document.createElement("tr");
    var when = el("a", new Date(receipt.created_at).toISOString().slice(0, 16).replace("T", " "));
    when.href = receipt.page_url;
    var cells = [when, receipt.round_label, receipt.organization_name, String(receipt.version),
                 receipt.original_name + " (" + humanBytes(receipt.size) + ")", receipt.uploader];
    cells.forEach(function (content, index) {
      var td = el("td", typeof content === "string" ? content : null, index === 3 ? "num" : null);
      if (typeof content !== "string") td.append(content);
      row.append(td);
    });
    var state = el("span", receipt.state, "badge state-" + receipt.state);
    state.id = "upload-row-state-" + receipt.id;
    var stateCell = el("td"); stateCell.append(state); row.append(stateCell);
    tbody.prepend(row);
  }

  function poll(url) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (data) {
        renderJob(data);
        if (!data.job.is_final) setTimeout(function () { poll(url); }, POLL_MS);
      })
      .catch(function (err) {
        document.getElementById("job-stage").textContent = "Cannot read the status (" + err.message + "); retrying…";
        setTimeout(function () { poll(url); }, POLL_MS * 3);
      });
  }

  if (job && job.dataset.statusUrl) poll(job.dataset.statusUrl);

  // --- the upload form ------------------------------------------------------------------------
  var form = document.getElementById("upload-form");
  if (!form) return;
  var input = document.getElementById("file");
  var zone = document.getElementById("dropzone");
  var button = document.getElementById("upload-button");
  var statusLine = document.getElementById("upload-status");
  var maxBytes = Number(form.dataset.maxBytes);
  var chosen = null;

  function choose(file) {
    chosen = file;
    document.getElementById("chosen").textContent = file ? file.name + " (" + humanBytes(file.size) + ")" : "";
    button.disabled = !file;
    statusLine.textContent = "";
    if (file && file.size > maxBytes) {
      statusLine.textContent = "This file is larger than the limit of " + humanBytes(maxBytes) + ".";
      button.disabled = true;
    }
  }

  input.addEventListener("change", function () { choose(input.files[0] || null); });
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("over"); });
  });
  zone.addEventListener("drop", function (e) {
    if (e.dataTransfer.files.length) choose(e.dataTransfer.files[0]);
  });

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (chosen) send(false);
  });

  // confirmIdentical: the user agreed to upload bytes identical to an earlier version again.
  function send(confirmIdentical) {
    var data = new FormData();
    data.append("round", form.elements.round.value);
    if (form.elements.organization) data.append("organization", form.elements.organization.value);
    if (confirmIdentical) data.append("confirm_identical", "true");
    data.append("file", chosen, chosen.name);
    // Round and organization in the URL too: the server refuses a closed round before the body.
    var query = new URLSearchParams({ round: form.elements.round.value });
    if (form.elements.organization) query.set("organization", form.elements.organization.value);
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.dataset.api + "?" + query.toString());
    xhr.setRequestHeader("X-CSRFToken", form.elements.csrfmiddlewaretoken.value);
    xhr.setRequestHeader("Accept", "application/json");
    var wrap = document.getElementById("upload-bar-wrap");
    var bar = document.getElementById("upload-bar");
    wrap.hidden = false;
    button.disabled = true;
    xhr.upload.addEventListener("progress", function (ev) {
      if (!ev.lengthComputable) return;
      bar.style.width = Math.round(100 * ev.loaded / ev.total) + "%";
      statusLine.textContent = "Uploading: " + humanBytes(ev.loaded) + " of " + humanBytes(ev.total);
    });
    xhr.addEventListener("load", function () {
      var body = {};
      try { body = JSON.parse(xhr.responseText); } catch (err) { body = {}; }
      if (xhr.status === 201) {
        bar.style.width = "100%";
        statusLine.textContent = "Uploaded as version " + body.version + " (sha256 " + body.sha256 + "). ";
        var link = el("a", "Permanent page of this upload"); link.href = body.page_url;
        statusLine.append(link);
        listUpload(body);
        poll(body.status_url);
      } else if (xhr.status === 409 && body.code === "identical" &&
                 window.confirm(body.detail + ".\n\nUpload it again as a new version?")) {
        send(true);
      } else {
        statusLine.textContent = "Refused: " + (body.detail || JSON.stringify(body) || xhr.statusText);
        button.disabled = false;
      }
    });
    xhr.addEventListener("error", function () {
      statusLine.textContent = "The upload failed: the connection was lost.";
      button.disabled = false;
    });
    xhr.send(data);
  }
})();
