// Provably fair deals (docs/fairness.md): a form that starts a deal (Practice, Start,
// Continue, Deal now) carries a hidden "contribution" field; as it is submitted, this
// fills it with 16 fresh random bytes as hex, which the server mixes into that deal.
// Without JavaScript the field stays empty and the deal is made without a contribution.
(function () {
  "use strict";
  if (!window.crypto || !window.crypto.getRandomValues) return;
  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }
  // capture: runs before htmx reads the form's values for its request
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form || !form.querySelectorAll) return;
    Array.prototype.forEach.call(form.querySelectorAll("input[data-contribution]"), function (input) {
      input.value = hex(window.crypto.getRandomValues(new Uint8Array(16)));
    });
  }, true);
})();
