// The replay's keyboard: Left and Right arrow keys follow the Previous and Next links.
// Everything works without it: every step is a page of its own with plain links.
(function () {
  "use strict";

  var RELS = { ArrowLeft: "prev", ArrowRight: "next" };

  function busy() {
    return !!document.querySelector("#replay .htmx-request, #replay.htmx-request");
  }

  document.addEventListener("keydown", function (e) {
    var rel = RELS[e.key];
    if (!rel || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    var target = e.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    var link = document.querySelector("#replay a[rel=" + rel + "]");
    if (!link) return;
    e.preventDefault();
    if (!busy()) link.click();  // htmx boosts the link; without htmx the browser follows it
  });

  function showKeys() {
    var hint = document.querySelector("#replay .keys");
    if (hint) hint.hidden = false;
  }
  document.addEventListener("DOMContentLoaded", showKeys);
  document.addEventListener("htmx:afterSettle", showKeys);
})();
