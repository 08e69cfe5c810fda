// Round page: the filter form works without JavaScript (GET); with it, a changed select applies at once.
(function () {
  "use strict";
  var form = document.getElementById("round-filters");
  if (!form) { return; }
  form.querySelectorAll("select").forEach(function (select) {
    select.addEventListener("change", function () { form.submit(); });
  });
})();
