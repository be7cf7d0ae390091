// Small progressive enhancements for the table page; everything works without them.
(function () {
  "use strict";

  // − / + beside the bid box
  document.addEventListener("click", function (e) {
    var step = e.target.closest("[data-step]");
    if (!step) return;
    var input = document.getElementById("bid-value");
    if (!input) return;
    var v = parseInt(input.value || "3", 10) + parseInt(step.dataset.step, 10);
    input.value = Math.max(1, Math.min(13, v));
  });

  // Keyboard play: arrow keys move over the hand, Enter (native on buttons) plays.
  var focusIndex = null;
  function cards() { return Array.prototype.slice.call(document.querySelectorAll("#hand .card")); }
  document.addEventListener("keydown", function (e) {
    var card = e.target.closest && e.target.closest("#hand .card");
    if (!card) return;
    var all = cards(), i = all.indexOf(card), next = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") next = all[Math.min(all.length - 1, i + 1)];
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") next = all[Math.max(0, i - 1)];
    else if (e.key === "Home") next = all[0];
    else if (e.key === "End") next = all[all.length - 1];
    if (next) { e.preventDefault(); next.focus(); }
  });
  document.addEventListener("focusin", function (e) {
    var all = cards(), i = all.indexOf(e.target);
    focusIndex = i >= 0 ? i : null;
  });
  // The hand is replaced after every move: put the focus back where the player was.
  function restoreFocus() {
    if (focusIndex === null || document.activeElement && document.activeElement.closest && document.activeElement.closest("#hand")) return;
    var all = cards();
    if (!all.length) return;
    var legal = all.filter(function (c) { return c.classList.contains("legal"); });
    var target = all[Math.min(focusIndex, all.length - 1)];
    if (legal.length && !target.classList.contains("legal")) target = legal[0];
    target.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "hand") restoreFocus();
  });

  // Never let an older picture of the table replace a newer one: the answer to a POST can
  // arrive after a WebSocket push of a later move. Each fragment carries its stamp (match,
  // version); an update older than what is shown is skipped.
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, incoming = d.fragment && (d.fragment.firstElementChild || d.fragment);
    if (!incoming || !incoming.getAttribute || !d.target || !d.target.dataset) return;
    var next = parseInt(incoming.getAttribute("data-v"), 10), shown = parseInt(d.target.dataset.v, 10);
    if (next < shown) d.shouldSwap = false;
  });

  // The room: when the host starts the game, every page in the room moves to the table.
  document.addEventListener("htmx:wsAfterMessage", function (e) {
    var room = document.querySelector("#room[data-go]");
    if (room) { window.location.assign(room.dataset.go); return; }
    // connected just after the start: the socket speaks of the table, so show it
    var msg = e.detail && e.detail.message;
    if (document.querySelector(".room-main") && typeof msg === "string" && msg.indexOf('id="felt"') !== -1) {
      window.location.reload();
    }
  });

  // Live connection indicator
  document.addEventListener("htmx:wsOpen", function () { document.body.classList.add("live"); document.body.classList.remove("offline"); });
  document.addEventListener("htmx:wsClose", function () { document.body.classList.remove("live"); document.body.classList.add("offline"); });
})();
