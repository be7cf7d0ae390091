// Small progressive enhancements for the table page; everything works without them.
(function () {
  "use strict";

  // A dropped socket tries again soon: after half a second, doubling, never more than 5 s
  // apart (htmx's own backoff grows to a minute), each wait between half and all of that,
  // so that the pages coming back from one restart spread out.
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (tries) {
      var most = Math.min(5000, 500 * Math.pow(2, tries));
      return most / 2 + Math.random() * most / 2;
    };
  }

  // − / + beside the bid box, within the bids this seat may make (its min and max: whiz,
  // mirror, suicide and a minimum bid leave fewer)
  document.addEventListener("click", function (e) {
    var step = e.target.closest("[data-step]");
    if (!step) return;
    var input = document.getElementById("bid-value");
    if (!input) return;
    var low = parseInt(input.min || "1", 10), high = parseInt(input.max || "13", 10), v = parseInt(input.value, 10);
    v = (isNaN(v) ? low : v) + parseInt(step.dataset.step, 10);
    input.value = Math.max(low, Math.min(high, v));
  });

  // A dimmed card tapped on this seat's turn: the page says why at once, in the news line,
  // and sends nothing (the site checks every card it gets; without JavaScript the post is
  // refused with the same words).
  document.addEventListener("click", function (e) {
    var card = e.target.closest && e.target.closest("#hand .fan.playable .card.dim");
    var fan = card && card.closest(".fan"), told = document.getElementById("told");
    if (!card || !fan.dataset.refusal || !told) return;
    var news = told.querySelector(".news");  // over the public news line, in its place
    if (!news) { news = document.createElement("div"); news.className = "news"; told.appendChild(news); }
    e.preventDefault();
    e.stopPropagation();
    var told = document.createElement("p");
    told.className = "message";
    told.setAttribute("role", "alert");
    told.textContent = fan.dataset.refusal;
    news.replaceChildren(told);
  }, true);

  // The hand in an update is the same whoever is to play: on this seat's turn the page
  // marks the cards it may play from #told (its playable suits, and why the others are
  // not), as the page drawn by the site does.
  var NOT_NOW = ", not playable now";
  function markHand() {
    var told = document.getElementById("told"), fan = document.querySelector("#hand .fan");
    if (!told || !fan) return;
    var suits = told.dataset.legal, playing = suits !== undefined && suits !== "", strict = told.hasAttribute("data-strict");
    fan.classList.toggle("playable", playing);
    if (playing) fan.dataset.refusal = told.dataset.refusal || ""; else delete fan.dataset.refusal;
    fan.querySelectorAll(".card[data-card]").forEach(function (c) {
      // a joker (and the jjdd 2D) is played as a spade: its data-suit says so
      var legal = playing && suits.indexOf(c.dataset.suit || c.dataset.card.charAt(1)) !== -1, dim = playing && !legal;
      c.classList.toggle("legal", legal);
      c.classList.toggle("dim", dim);
      c.disabled = dim && strict;
      var words = c.querySelector(".sr-only");  // "king of spades, not playable now"
      if (words) words.textContent = words.textContent.replace(NOT_NOW, "") + (dim ? NOT_NOW : "");
    });
  }
  document.addEventListener("htmx:oobAfterSwap", function (e) {
    var id = e.detail && e.detail.target && e.detail.target.id;
    if (id === "told" || id === "hand") markHand();
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

  // Undo at a practice table: a match with a takeback is not rated. The first Undo of a
  // match says so (the form's data-unrated) and takes nothing back; pressed again, it does.
  // Once a takeback is asked for, this tab knows for the rest of that match (the match is
  // its stamp's: render.STAMP_MATCH stamps a match).
  var STAMP_MATCH = 100000, warnedFor = null;
  function undoKey(form) {
    return "undo-told:" + window.location.pathname + ":" + Math.floor(parseInt(form.dataset.v, 10) / STAMP_MATCH);
  }
  function undoTold(key) { try { return sessionStorage.getItem(key) === "1"; } catch (e) { return warnedFor === key; } }
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("form.undo[data-unrated] button[name=undo]");
    if (!button) return;
    var form = button.form, key = undoKey(form);
    if (undoTold(key)) return;
    if (warnedFor === key) {  // the second press: the takeback goes
      try { sessionStorage.setItem(key, "1"); } catch (err) { /* private mode: this page remembers */ }
      return;
    }
    e.preventDefault();
    warnedFor = key;
    var said = form.querySelector(".muted");
    said.textContent = form.dataset.unrated;
    said.setAttribute("role", "alert");
  }, true);

  // Never let an older picture of the table replace a newer one: the answer to a POST can
  // arrive after a WebSocket push of a later move. Each fragment carries its stamp (match,
  // version); an update older than what is shown is skipped.
  // The live region is told each move once: the answer to a click and the socket's push
  // of the same move carry the same stamp, and a second telling would be read out twice.
  // A push may tell several moves (a socket that skipped changes), one span each, oldest
  // first: only the spans newer than what was told stay.
  var announced = null;
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, incoming = d.fragment && (d.fragment.firstElementChild || d.fragment);
    if (!incoming || !incoming.getAttribute || !d.target || !d.target.dataset) return;
    var next = parseInt(incoming.getAttribute("data-v"), 10);
    if (d.target.id === "announce") {
      if (announced === null) {
        var shownSpans = d.target.querySelectorAll("[data-v]");
        announced = shownSpans.length ? parseInt(shownSpans[shownSpans.length - 1].getAttribute("data-v"), 10) : -1;
      }
      var told = announced;
      Array.prototype.slice.call(d.fragment.querySelectorAll("[data-v]")).forEach(function (span) {
        var at = parseInt(span.getAttribute("data-v"), 10);
        if (at <= told) span.remove();
        else announced = Math.max(announced, at);
      });
      if (!d.fragment.querySelector("[data-v]")) d.shouldSwap = false;
      return;
    }
    var shown = parseInt(d.target.dataset.v, 10);
    if (next < shown) d.shouldSwap = false;
  });

  // Only the fragments that changed come with each update, so a form shown for a while
  // may carry an older version than the table's: each form sent from a table page
  // carries the version of the last update applied (#turn; the page's own without script).
  document.addEventListener("htmx:configRequest", function (e) {
    var turn = document.getElementById("turn"), params = e.detail && e.detail.parameters;
    if (!turn || !params || !turn.dataset.version) return;
    if (params instanceof FormData) { if (params.has("version")) params.set("version", turn.dataset.version); }
    else if ("version" in params) params.version = turn.dataset.version;
  });

  // A socket back from a drop asks for the changes after the last one this page applied
  // (#turn): the site answers with what changed since, or with the whole table.
  var open = htmx.createWebSocket;
  htmx.createWebSocket = function (url) {
    var turn = document.getElementById("turn");
    if (turn && turn.dataset.seq && /\/g\/[A-Za-z0-9]+\/ws$/.test(url)) url += "?since=" + encodeURIComponent(turn.dataset.seq);
    if (open) return open(url);
    var socket = new WebSocket(url, []);
    socket.binaryType = htmx.config.wsBinaryType;
    return socket;
  };

  // When this seat's turn begins, the focus goes to the bid box or the first playable card
  // (once per turn: the player may move it elsewhere).
  var turnFocused = null;
  function focusTurn() {
    var status = document.getElementById("told");
    if (!status || !status.classList.contains("my-turn")) { turnFocused = null; return; }
    var stamp = status.dataset.v;
    // once per turn; again only if the focus fell to the page (its element was replaced)
    if (turnFocused === stamp && document.activeElement && document.activeElement !== document.body) return;
    turnFocused = stamp;
    var target = document.getElementById("bid-value") || document.querySelector("#hand .bidbox button[value=nil]") ||
      document.querySelector("#hand .fan.playable .card.legal") || document.querySelector("#hand .choice button");
    if (target) target.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:wsAfterMessage", focusTurn);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(focusTurn, 0); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", focusTurn);
  else focusTurn();

  // The hint's bid is chosen, never sent: its number stands selected in the bid box (type
  // over it, or press Bid), or the focus is on Nil. Once per hint (each comes in a new #hand).
  var hinted = null;
  function selectHint() {
    var chosen = document.querySelector("#hand [data-hinted]");
    if (!chosen || chosen === hinted) return;
    hinted = chosen;
    chosen.focus({ preventScroll: true });
    if (chosen.select) chosen.select();
  }
  document.addEventListener("htmx:oobAfterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "hand") selectHint();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", selectHint);
  else selectHint();

  // The table's top bar on a narrow screen: Menu opens the rest of the bar (the rules line,
  // Tourney, Watch link, Record, Sound) under it, and Escape, a second press or a click
  // elsewhere closes it. The bar's height is kept in --topbar-h: the between-hands box
  // starts under it.
  var menu = document.querySelector(".topbar .menu-toggle"), extras = document.getElementById("table-extras");
  function openMenu(open) {
    menu.setAttribute("aria-expanded", open ? "true" : "false");
    extras.classList.toggle("open", open);
  }
  if (menu && extras) {
    menu.hidden = false;
    menu.addEventListener("click", function () { openMenu(!extras.classList.contains("open")); });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape" || !extras.classList.contains("open")) return;
      openMenu(false);
      menu.focus();
    });
    document.addEventListener("click", function (e) {
      if (extras.classList.contains("open") && !menu.contains(e.target) && !extras.contains(e.target)) openMenu(false);
    });
  }
  var bar = document.querySelector(".table-page .topbar");
  function measureBar() { document.documentElement.style.setProperty("--topbar-h", bar.offsetHeight + "px"); }
  if (bar) {
    measureBar();
    if (window.ResizeObserver) new ResizeObserver(measureBar).observe(bar);
  }

  // The room: when the host starts the game, every page in the room moves to the table,
  // once. A room page that hears the table itself (connected just after the start) goes
  // there without swapping the table's pieces into the room.
  var leaving = false;
  function goTo(url) {
    if (leaving) return;
    leaving = true;
    window.location.assign(url);
  }
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var msg = e.detail && e.detail.message;
    if (!document.querySelector(".room-main")) return;
    if (leaving || (typeof msg === "string" && msg.indexOf('id="turn"') !== -1)) {
      e.preventDefault();
      goTo(window.location.pathname);
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var room = document.querySelector("#room[data-go]");
    if (room) goTo(room.dataset.go);
  });
  // the room's forms are plain posts: once one is sent (Start, say) the page is on its way,
  // and a move of its own would cut that load short
  document.addEventListener("submit", function (e) {
    if (!e.defaultPrevented && document.querySelector(".room-main")) leaving = true;
  });

  // The clock ring: count down to the server's deadline. The turn fragment (#turn) says
  // whose turn it is, the deadline and the server's "now" (epoch ms); their difference from
  // this browser's clock when it arrives corrects for a wrong clock here. The ring is put
  // round that seat's avatar (one at a time) as a CSS animation started part-way through;
  // the number in it is rewritten a few times a second.
  var running = null;  // {deadline, skew, clock}
  var RING = '<svg class="ring" viewBox="0 0 44 44" aria-hidden="true"><circle class="ring-track" cx="22" cy="22" r="20" pathLength="100"/>' +
    '<circle class="ring-left" cx="22" cy="22" r="20" pathLength="100"/></svg><span class="clock" role="timer" title="Seconds left"></span>';
  function startClocks() {
    var turn = document.getElementById("turn");
    var deadline = turn && turn.dataset.deadline, plate = deadline && document.querySelector("#felt .plate.seat-" + turn.dataset.seat);
    var box = plate && plate.querySelector(".avatar-box");
    document.querySelectorAll("#felt .avatar-box").forEach(function (b) {
      if (b !== box) b.querySelectorAll(".ring, .clock").forEach(function (el) { el.remove(); });
    });
    if (!box) { running = null; return; }
    var clock = box.querySelector(".clock");
    if (running && running.deadline === deadline && running.clock === clock) return;
    if (!clock) { box.insertAdjacentHTML("beforeend", RING); clock = box.querySelector(".clock"); }
    var ring = box.querySelector(".ring-left");
    var skew = parseInt(turn.dataset.now, 10) - Date.now(), total = parseInt(turn.dataset.seconds, 10) || 1;
    running = { deadline: deadline, skew: skew, clock: clock };
    var left = (parseInt(deadline, 10) - (Date.now() + skew)) / 1000;
    ring.style.animation = "none";
    void ring.getBoundingClientRect();  // the next turn's ring starts again from full
    ring.style.animation = "";
    ring.style.animationDuration = total + "s";
    ring.style.animationDelay = -Math.max(0, Math.min(total, total - left)) + "s";
    tickClocks();
  }
  function tickClocks() {
    if (!running || !running.clock) return;
    var c = running.clock;
    var left = Math.max(0, Math.ceil((parseInt(running.deadline, 10) - (Date.now() + running.skew)) / 1000));
    if (c.textContent !== String(left)) c.textContent = left;
    c.classList.toggle("low", left <= 5);
  }

  // Your turn: the tab's title says so, and a short beep plays when the sound is on.
  var baseTitle = document.title, wasMine = null, audio = null;
  var soundKey = "spades-sound";
  function soundOn() { try { return localStorage.getItem(soundKey) === "on"; } catch (e) { return false; } }
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var osc = audio.createOscillator(), gain = audio.createGain(), t = audio.currentTime;
      osc.frequency.value = 660;
      gain.gain.setValueAtTime(0.15, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + 0.3);
      osc.connect(gain); gain.connect(audio.destination);
      osc.start(t); osc.stop(t + 0.3);
    } catch (e) { /* no sound here: the title still says it */ }
  }
  function turnChanged() {
    var mine = !!document.querySelector("#told.my-turn");
    document.title = mine ? "\u25CF Your turn \u2014 " + baseTitle : baseTitle;
    if (mine && wasMine === false && soundOn()) beep();
    wasMine = mine;
  }
  var toggle = document.getElementById("sound-toggle");
  function showSound() {
    toggle.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    toggle.textContent = soundOn() ? "Sound: on" : "Sound: off";
  }
  if (toggle) {
    toggle.hidden = false;
    showSound();
    toggle.addEventListener("click", function () {
      try { localStorage.setItem(soundKey, soundOn() ? "off" : "on"); } catch (e) { return; }
      showSound();
      if (soundOn()) beep();  // a click lets the page make sounds from now on
    });
  }
  function refresh() { startClocks(); tickClocks(); turnChanged(); }
  document.addEventListener("htmx:oobAfterSwap", refresh);
  document.addEventListener("htmx:afterSwap", refresh);
  if (document.querySelector(".table-main")) {
    refresh();
    setInterval(tickClocks, 250);
  }

  // L opens or closes the last trick, S the score sheet (not while typing).
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || (e.target.closest && e.target.closest("input, textarea, select"))) return;
    var box = { l: "last-trick-box", s: "sheet-box" }[e.key && e.key.toLowerCase()];
    var el = box && document.getElementById(box);
    if (!el) return;
    e.preventDefault();
    el.open = !el.open;
    if (el.open) el.querySelector("summary").focus({ preventScroll: true });
  });

  // Closing the page on purpose: tell the table, so the seat is held 10 s, not 60 s.
  // sendBeacon cannot set headers: the CSRF token goes in the body as a form field.
  window.addEventListener("pagehide", function () {
    var main = document.querySelector("main[data-closing]");
    if (main && navigator.sendBeacon) navigator.sendBeacon(main.dataset.closing, new URLSearchParams({ csrf: main.dataset.csrf }));
  });

  // The live connection: a dot when all is well; when it is lost, a plain banner that says
  // so, and that a click made meanwhile did not count. The socket reconnects by itself (the
  // ws extension retries) and the table it sends on return replaces what is shown.
  var POLLING = "Live updates are off: checking the table every few seconds.";
  var polling = false, heard = false, refused = false, lost = false, downSince = Date.now(), asking = false;
  function banner(text) {
    var box = document.getElementById("offline");
    if (!box || box.dataset.final) return;  // the site closed the connection and said why: that stays
    if (text) { box.textContent = text; box.hidden = false; } else { box.hidden = true; }
  }
  function down() {  // what the banner says while the socket is down (or checking instead)
    var words = polling ? POLLING : "Reconnecting…";
    if (lost) words += " That click did not reach the table, so it did not count. Try again" + (polling ? "." : " once the connection is back.");
    else if (!polling) words += " The table is not up to date until the connection is back.";
    banner(words);
  }
  document.addEventListener("htmx:wsOpen", function () {
    document.body.classList.add("live"); document.body.classList.remove("offline");
    heard = false;
    if (!polling) banner(null);  // a socket that opens and says nothing is not live yet: the checks go on
  });
  document.addEventListener("htmx:wsClose", function (e) {
    document.body.classList.remove("live"); document.body.classList.add("offline");
    heard = false;
    if (downSince === null) downSince = Date.now();
    var box = document.getElementById("offline"), closed = e.detail && e.detail.event;
    if (box && box.dataset.final) { refused = true; return; }  // the site said why it closed
    if (closed && closed.code === 1008) { refused = true; banner(closed.reason || "The live connection was closed."); return; }
    down();
  });
  document.addEventListener("htmx:sendError", function () {
    document.body.classList.add("offline");
    lost = true;
    down();
  });
  // Back without the socket having dropped: the network returned, fresh news came, or a
  // later click went through.
  function back() {
    if (!document.body.classList.contains("live") || !heard) { if (polling) down(); return; }
    document.body.classList.remove("offline");
    banner(null);
  }
  window.addEventListener("online", back);
  document.addEventListener("htmx:wsAfterMessage", function () {
    heard = true;  // the socket is live: the page stops checking the table itself
    polling = lost = false;
    downSince = null;
    back();
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail;
    if (!d || !d.successful) return;
    if (d.requestConfig && d.requestConfig.verb !== "get") lost = false;  // a later click went through
    back();
  });

  // Without the live connection (a network that drops WebSockets, or one down for a while)
  // the table page checks the table itself every few seconds, so that play goes on: its
  // seat view (view.json, the seat's own) says the table's version, and when that is not the
  // one shown, the page is fetched again and its fragments replace those shown, stamp-checked
  // as a push's are (htmx's select-oob). The banner says so. Once the socket is back and
  // has said something, the checks stop. Not when the site closed the socket and said why.
  var CHECK_MS = 3000, table = document.querySelector("#table-main[ws-connect]");
  function check() {
    var turn = document.getElementById("turn"), here = window.location.pathname.replace(/\/watch$/, "");
    if (asking || !turn || document.hidden) return;
    asking = true;
    fetch(here + "/view.json", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (view) {
        if (!view || String(view.version) === turn.dataset.version || polling === false) return null;
        var ids = Array.prototype.map.call(table.querySelectorAll("[id][data-v]"), function (el) { return "#" + el.id; });
        checking = true;
        return htmx.ajax("GET", here, { source: table, swap: "none ignoreTitle:true",
          selectOOB: ids.concat("#announce:innerHTML").join(",") });
      })
      .catch(function () { /* not reached either: the next check */ })
      .then(function () { asking = checking = false; });
  }
  // A check shows the table, not what else the socket tells (the chat's lines): the socket
  // back asks for the changes after the last one it applied, as it would have without the
  // checks (#turn's data-seq stays; the table's own changes come again, and are no news).
  var checking = false;
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, incoming = d && d.fragment && (d.fragment.firstElementChild || d.fragment);
    if (checking && d.target && d.target.id === "turn" && incoming && incoming.setAttribute) {
      incoming.setAttribute("data-seq", d.target.dataset.seq || "");
    }
  });
  var checked = 0;
  if (table) {
    setInterval(function () {
      var now = Date.now();
      if (heard || refused) return;
      if (downSince === null) downSince = now;
      if (now - downSince < CHECK_MS || now - checked < CHECK_MS) return;  // a socket on its way, or just checked
      if (!polling) { polling = true; down(); }
      checked = now;
      check();
    }, 500);
  }
})();

// A tourney page takes a player to their table when it is made (once per table: coming
// back to the tourney page while it plays does not send them off again).
document.addEventListener("htmx:wsAfterMessage", function () {
  var go = document.querySelector("#tourney-live [data-go]");
  if (!go) return;
  var key = "went:" + go.dataset.go;
  try { if (sessionStorage.getItem(key)) return; sessionStorage.setItem(key, "1"); } catch (e) { return; }
  window.location.assign(go.dataset.go);
});
// An analysis page that was waiting opens the analysis once the socket says it is done.
document.addEventListener("htmx:wsAfterMessage", function () {
  var done = document.querySelector("#analysis-progress[data-go]");
  if (done) window.location.assign(done.dataset.go);
});
// Being at a table counts as having been taken there.
if (/^\/g\/[A-Za-z0-9]+$/.test(window.location.pathname)) {
  try { sessionStorage.setItem("went:" + window.location.pathname, "1"); } catch (e) { /* private mode */ }
}

// The room's join link is selected whole when focused, ready to copy.
document.addEventListener("focusin", function (e) {
  if (e.target && e.target.matches && e.target.matches("input[data-select-on-focus]")) e.target.select();
});

// A Copy button (data-copy="ID", hidden until this script shows it) copies the text of
// that element and says so in the status beside it; where the clipboard is refused, the
// text is selected instead, ready to copy by hand.
function copyText(button) {
  var source = document.getElementById(button.dataset.copy);
  if (!source) return;
  var text = (source.value !== undefined ? source.value : source.textContent).trim();
  var said = button.parentNode.querySelector(".copy-said");
  function tell(words) { if (said) said.textContent = words; }
  function selectIt() {
    var range = document.createRange();
    range.selectNodeContents(source);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    tell("Selected: copy it with your device's Copy.");
  }
  if (!navigator.clipboard || !navigator.clipboard.writeText) { selectIt(); return; }
  navigator.clipboard.writeText(text).then(function () { tell("Copied."); }, selectIt);
}
document.querySelectorAll("[data-copy]").forEach(function (b) { b.hidden = false; });
document.addEventListener("click", function (e) {
  var button = e.target.closest && e.target.closest("[data-copy]");
  if (button) copyText(button);
});

// The fieldsets of a form that apply to one choice only (data-shown-when="format=swiss",
// or "play=team,solo") show while it is chosen; the others are hidden and disabled, so
// the browser neither checks nor sends them. Without this script they all show, and the
// server reads only those that apply.
function showChosen(form) {
  form.querySelectorAll("[data-shown-when]").forEach(function (box) {
    var rule = box.dataset.shownWhen.split("=");
    var picked = form.querySelector("input[name='" + rule[0] + "']:checked");
    var on = !!picked && rule[1].split(",").indexOf(picked.value) >= 0;
    box.hidden = !on;
    box.disabled = !on;
  });
}
document.querySelectorAll("form").forEach(function (f) { if (f.querySelector("[data-shown-when]")) showChosen(f); });
document.addEventListener("change", function (e) {
  var form = e.target.form;
  if (form && form.querySelector("[data-shown-when]")) showChosen(form);
});

// A choice of an options form that cannot go with what else is chosen (a minimum bid with
// whiz bidding, jokers at a table of three: each field's data-fences, from the server's
// rules) is disabled as the choices change, and the reason is said under its field; the
// server refuses such a table anyway. A checkbox held where it is keeps its value
// (aria-disabled: a disabled box would not be sent). Run after the preset has set the
// switches (static/house_rules.js answers the same change).
function chosenIn(form, name) {
  var inputs = form.querySelectorAll("[name='" + name + "']");
  if (!inputs.length) return null;
  if (inputs[0].tagName === "SELECT") return inputs[0].value;
  if (inputs[0].type === "checkbox") return inputs[0].checked ? "on" : "";
  var picked = form.querySelector("[name='" + name + "']:checked");
  return picked ? picked.value : null;
}
function fenceChoices(form) {
  form.querySelectorAll("[data-fences][data-option]").forEach(function (field) {
    var name = field.dataset.option, now = chosenIn(form, name), off = {};
    JSON.parse(field.dataset.fences).forEach(function (f) {  // [this choice, other field, its choice, why]
      if (f[0] !== now && !(f[0] in off) && chosenIn(form, f[1]) === f[2]) off[f[0]] = f[3];
    });
    field.querySelectorAll("[name='" + name + "']").forEach(function (input) {
      if (input.tagName === "SELECT") {
        Array.prototype.forEach.call(input.options, function (o) { o.disabled = o.value in off; o.title = off[o.value] || ""; });
      } else if (input.type === "checkbox") {
        var other = input.checked ? "" : "on";
        if (other in off) input.setAttribute("aria-disabled", "true"); else input.removeAttribute("aria-disabled");
        input.closest("label").title = off[other] || "";
      } else {
        input.disabled = input.value in off;
        input.closest("label").title = off[input.value] || "";
      }
    });
    var reasons = Object.keys(off).map(function (v) { return off[v]; }).filter(function (r, i, all) { return all.indexOf(r) === i; });
    var why = field.fenceWhy;
    if (!why) {
      why = field.fenceWhy = document.createElement("p");
      why.className = "note fence-why";
      if (field.tagName === "FIELDSET") field.appendChild(why); else field.insertAdjacentElement("afterend", why);
    }
    why.textContent = reasons.length ? "Not with what is chosen now: " + reasons.join(" ") : "";
    why.hidden = !reasons.length;
  });
}
function fenceAll() {
  document.querySelectorAll("form").forEach(function (f) { if (f.querySelector("[data-fences]")) fenceChoices(f); });
}
fenceAll();
document.addEventListener("htmx:load", fenceAll);  // a room's options, drawn again
document.addEventListener("change", function (e) {
  var form = e.target.form;
  if (form && form.querySelector("[data-fences]")) setTimeout(function () { fenceChoices(form); }, 0);
});
document.addEventListener("click", function (e) {
  if (e.target.matches && e.target.matches("input[type=checkbox][aria-disabled=true]")) e.preventDefault();
}, true);
