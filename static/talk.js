// The table's chat: keep the last 100 lines, each once, follow new ones when the reader
// is at the bottom, let a reaction's bubble go after a few seconds, and fetch the lines said while
// the socket was away. Everything works without it.
(function () {
  "use strict";
  var KEPT = 100, BUBBLE_MS = 4000;
  var atBottom = true;

  function log() { return document.getElementById("chat-log"); }
  function toBottom() { var l = log(); if (l) l.scrollTop = l.scrollHeight; }

  document.addEventListener("scroll", function (e) {
    var l = log();
    if (e.target === l) atBottom = l.scrollHeight - l.scrollTop - l.clientHeight < 24;
  }, true);

  document.addEventListener("htmx:oobAfterSwap", function (e) {
    var target = e.detail && e.detail.target;
    if (!target) return;
    if (target.id === "chat-log") {
      // the log drawn again (the match's end, the host's notice) may hold a line its
      // socket brings next: each line is shown once
      var l = log(), seen = {};
      if (!l) return;
      Array.prototype.slice.call(l.children).forEach(function (li) {
        if (li.id && seen[li.id]) l.removeChild(li);
        else seen[li.id] = true;
      });
      while (l.children.length > KEPT) l.removeChild(l.firstElementChild);
      if (atBottom) toBottom();
    } else if (target.classList && target.classList.contains("bubble")) {
      // the swap put a new bubble in the place of ``target``
      var bubble = document.getElementById(target.id);
      if (!bubble) return;
      setTimeout(function () { if (bubble.isConnected) { bubble.classList.remove("show"); bubble.textContent = ""; } }, BUBBLE_MS);
    }
  });

  // back after the socket was away: the lines said meanwhile. A line the socket brings
  // while they are on their way lands in the log being replaced: it is kept when the
  // fetched log ends before it.
  function number(li) { var m = /^line-(\d+)$/.exec(li.id || ""); return m ? Number(m[1]) : -1; }
  var opened = false;
  document.addEventListener("htmx:wsOpen", function () {
    var l = log();
    if (opened && l && window.htmx) {
      htmx.ajax("GET", l.dataset.src, { target: "#chat-log", swap: "outerHTML" }).then(function () {
        var fresh = log();
        if (fresh && fresh !== l) {
          var last = fresh.lastElementChild ? number(fresh.lastElementChild) : -1;
          Array.prototype.slice.call(l.children).forEach(function (li) {
            if (number(li) > last) fresh.appendChild(li);
          });
        }
        toBottom();
      });
    }
    opened = true;
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", toBottom);
  else toBottom();
})();
