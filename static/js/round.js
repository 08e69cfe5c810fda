// Training and HPC round and benchmark pages: the filter form works without JavaScript (GET);
// with it, a changed select of a form marked data-apply-on-change applies at once.
(function () {
  "use strict";
  document.querySelectorAll("form.filters[data-apply-on-change]").forEach(function (form) {
    form.querySelectorAll("select").forEach(function (select) {
      select.addEventListener("change", function () { form.submit(); });
    });
  });
})();
