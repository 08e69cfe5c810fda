// "Copy link to this view": every filter, sort and column choice is in the page's URL, so the
// address is the view. The button stays hidden without JavaScript (the address bar still works).
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy-link]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var done = function (text) { button.textContent = text; };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(window.location.href).then(
          function () { done("Link copied"); }, function () { done("Copy failed: use the address bar"); });
      } else {
        done("Copy the address bar");
      }
    });
  });
})();
