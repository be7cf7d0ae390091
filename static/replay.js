// The replay's keyboard: Left and Right arrow keys follow the Previous and Next links
// (a trick), with Shift the Previous card and Next card links.
// Everything works without it: every step is a page of its own with plain links.
(function () {
  "use strict";

  var RELS = { ArrowLeft: "prev", ArrowRight: "next" };
  var CARD_RELS = { ArrowLeft: "prev-card", ArrowRight: "next-card" };
  var focusRel = null;  // the step link that had the focus when its step was asked for

  function busy() {
    return !!document.querySelector("#replay .htmx-request, #replay.htmx-request");
  }

  document.addEventListener("keydown", function (e) {
    var rel = (e.shiftKey ? CARD_RELS : RELS)[e.key];
    if (!rel || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    var target = e.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    var link = document.querySelector("#replay a[rel=" + rel + "]");
    if (!link) return;
    e.preventDefault();
    if (!busy()) link.click();  // htmx boosts the link; without htmx the browser follows it
  });

  document.addEventListener("htmx:beforeRequest", function () {
    var active = document.activeElement;
    focusRel = active && active.closest && active.closest("#replay .step-nav a[rel]") ? active.getAttribute("rel") : null;
  });

  function settle() {
    var hint = document.querySelector("#replay .keys");
    if (hint) hint.hidden = false;
    if (focusRel) {
      // the new step's same button keeps the focus (the first one left, at either end)
      var again = document.querySelector('#replay .step-nav a[rel="' + focusRel + '"]') ||
        document.querySelector("#replay .step-nav a[rel]");
      if (again) again.focus({ preventScroll: true });
      focusRel = null;
    }
  }
  document.addEventListener("DOMContentLoaded", settle);
  document.addEventListener("htmx:afterSettle", settle);
})();
