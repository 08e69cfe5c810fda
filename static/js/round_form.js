// A round's ruleset select follows its suite select (review/forms.py): only the chosen suite's
// rulesets are offered, and the empty choice names the ruleset the version typed picks. Without
// JavaScript every suite's rulesets are listed by group and the server refuses another suite's.
(function () {
  "use strict";
  document.querySelectorAll("select[data-ruleset-select]").forEach(function (rulesets) {
    var form = rulesets.form;
    var suite = form && form.querySelector("select[name=suite]");
    var version = form && form.querySelector("input[name=version]");
    if (!suite) {
      return; // the round exists: its suite is fixed and the select lists its rulesets only
    }
    var empty = rulesets.querySelector("option[value='']");
    var emptyText = empty ? empty.textContent : "";

    function update() {
      var chosen = suite.value;
      var typed = version ? version.value.trim().replace(/^v/, "") : "";
      var match = null;
      Array.prototype.forEach.call(rulesets.querySelectorAll("option[data-suite]"), function (option) {
        var other = option.dataset.suite !== chosen;
        option.hidden = other;
        option.disabled = other;
        if (!other && option.dataset.round === typed && match === null) {
          match = option.value;
        }
      });
      Array.prototype.forEach.call(rulesets.querySelectorAll("optgroup"), function (group) {
        group.hidden = group.querySelector("option:not([hidden])") === null;
      });
      if (rulesets.selectedOptions.length && rulesets.selectedOptions[0].disabled) {
        rulesets.value = "";
      }
      if (empty) {
        var label = suite.selectedOptions.length ? suite.selectedOptions[0].textContent : chosen;
        empty.textContent = !typed ? emptyText
          : match ? "The rules of " + label + " " + typed + ": " + match
          : "No " + label + " rules for " + typed + ": choose a ruleset";
      }
    }

    suite.addEventListener("change", update);
    if (version) {
      version.addEventListener("input", update);
    }
    update();
  });
})();
