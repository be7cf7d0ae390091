// The table in motion, client side only: a played card slides from its seat to the trick,
// a finished trick goes to its winner's plate when the next card is led (or the next hand
// is dealt), and a new hand fans in.
//
// FLIP with the Web Animations API: just before htmx swaps the first fragment of an update
// (htmx:oobBeforeSwap, fired for the answer to a click and for each WebSocket push alike)
// the cards' boxes are read by data-card; once the update's swaps are done (a microtask:
// htmx swaps an update's fragments in one go) each card is animated from where it was to
// where it now is. Nothing waits for an animation, and nothing is left behind: animations
// never fill forwards on the page's cards, each update stops the running ones and resumes
// the flights still under way on the new elements from where each one's own animation had
// drawn its card (not from the time since the flight was planned: on a busy machine an
// animation starts late and the card would jump ahead, or land at once), and the clones of
// a trick fly in a layer at the back of the felt (moved into each new felt, under its
// plates and cards) that goes as soon as they land or the next trick is swept. Under
// prefers-reduced-motion: reduce nothing moves.
(function () {
  "use strict";

  var SLIDE = 300, SWEEP = 360, FAN = 280, STAGGER = 20, CLOSE = 220;
  var EASE_OUT = "cubic-bezier(.2,.7,.3,1)", EASE_IN = "cubic-bezier(.55,0,.75,.45)";
  var quiet = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
  if (!document.body || !document.body.animate) return;

  var before = null;        // the table as it was shown before the update being swapped in
  var flights = new Map();  // "f:QS" (a face on the felt) or "h:QS" (a card in the hand) -> its flight (plan and animation)
  var moving = new Set();   // running animations on the page's own cards
  var ghosts = new Set();   // running animations on clones of a finished trick
  var layer = null;         // where those clones fly, while they do

  function box(el) {
    var r = el.getBoundingClientRect();
    return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };
  }

  function seatOf(el) {  // a plate or a trick's slot: the seat it is for
    var m = / seat-(\d)/.exec(" " + el.className);
    return m ? m[1] : null;
  }

  function stop(set) {
    set.forEach(function (a) { a.cancel(); });
    set.clear();
  }

  function land() {  // a clone goes as soon as it stops, never back to where it started
    ghosts.forEach(function (a) { a.cancel(); });
    ghosts.clear();
    if (layer) layer.remove();
    layer = null;
  }

  function stopAll() {
    stop(moving);
    land();
    flights.clear();
  }

  // --- before the swap: where every card is seen now (mid-flight ones included) ---

  function cardsAt(selector, faded) {
    var out = new Map();
    document.querySelectorAll(selector).forEach(function (el) {
      var seen = { el: el, box: box(el), opacity: 1 };
      if (faded) seen.opacity = parseFloat(getComputedStyle(el.parentNode).opacity) || 1;  // the last trick's losers are dimmed
      out.set(el.dataset.card, seen);
    });
    return out;
  }

  function picture() {
    var trick = document.querySelector("#felt .trick"), won = trick && trick.querySelector(".slot.won");
    return {
      faces: cardsAt("#felt .trick .face[data-card]", true),
      hand: cardsAt("#hand .card[data-card]"),
      winner: trick && won && trick.classList.contains("last") ? seatOf(won) : null,
    };
  }

  // --- after the swap: plan each card's flight, then start them all ---

  function flight(from, duration, more) {  // ``at``: how far into it (ms) the card is drawn
    var f = { from: from, duration: duration, delay: 0, easing: EASE_OUT, turn: 0, fade: null, at: 0, anim: null };
    for (var k in more) f[k] = more[k];
    return f;
  }

  function shrunk(around, size, factor) {
    var w = size.w * factor, h = size.h * factor;
    return { x: around.x + around.w / 2 - w / 2, y: around.y + around.h / 2 - h / 2, w: w, h: h };
  }

  function planTrick(old, plans) {
    document.querySelectorAll("#felt .trick .face[data-card]").forEach(function (el) {
      var card = el.dataset.card, key = "f:" + card, f = flights.get(key);
      if (!old.faces.has(card)) {
        var to = box(el), mine = old.hand.get(card), plate = document.querySelector("#felt .plate.seat-" + seatOf(el.parentNode));
        if (mine) f = flight(mine.box, SLIDE);
        else if (plate) f = flight(shrunk(box(plate), to, 0.5), SLIDE, { fade: 0.2 });
        else return;
      }
      if (f) plans.push({ el: el, key: key, f: f });
    });
  }

  function fan(els, plans) {
    var row = box(els[0].parentNode), mid = (els.length - 1) / 2;
    els.forEach(function (el, i) {
      var key = "h:" + el.dataset.card, to = box(el);
      var f = flight(shrunk(row, to, 0.7), FAN, { delay: i * STAGGER, turn: (i - mid) * 5, fade: 0 });
      plans.push({ el: el, key: key, f: f });
    });
  }

  function planHand(old, plans) {
    var els = Array.prototype.slice.call(document.querySelectorAll("#hand .card[data-card]"));
    if (!els.length) return;
    if (els.every(function (el) { return !old.hand.has(el.dataset.card); })) { fan(els, plans); return; }
    var closing = old.hand.size > els.length;  // a card left: the others close the gap
    els.forEach(function (el) {
      var key = "h:" + el.dataset.card, f = flights.get(key), was = old.hand.get(el.dataset.card);
      if (!f && closing && was) f = flight(was.box, CLOSE);
      if (f) plans.push({ el: el, key: key, f: f });
    });
  }

  function keyframes(f, to) {
    var dx = f.from.x + f.from.w / 2 - (to.x + to.w / 2), dy = f.from.y + f.from.h / 2 - (to.y + to.h / 2);
    var sx = to.w ? f.from.w / to.w : 1, sy = to.h ? f.from.h / to.h : 1;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5 && Math.abs(sx - 1) < 0.01 && Math.abs(sy - 1) < 0.01 && !f.turn && f.fade === null) return null;
    var first = { transform: "translate(" + dx + "px," + dy + "px) scale(" + sx + "," + sy + ") rotate(" + f.turn + "deg)" };
    var last = { transform: "none" };
    if (f.fade !== null) { first.opacity = f.fade; last.opacity = 1; }
    return [first, last];
  }

  function fly(plan) {
    var frames = keyframes(plan.f, plan.to);
    if (!frames) { flights.delete(plan.key); return; }
    var f = plan.f, a = plan.el.animate(frames, { duration: f.duration, delay: f.delay, easing: f.easing, fill: "backwards" });
    a.currentTime = f.at;  // a flight already under way goes on from where it was drawn
    f.anim = a;
    moving.add(a);
    a.onfinish = function () { moving.delete(a); if (flights.get(plan.key) === f) flights.delete(plan.key); };
  }

  // --- a finished trick goes to its winner: clones of its faces fly to the plate ---

  function openLayer(felt) {
    layer = document.createElement("div");
    layer.className = "motion-layer";
    layer.setAttribute("aria-hidden", "true");
    felt.insertBefore(layer, felt.firstChild);
    return layer;
  }

  function keepLayer() {  // the felt was swapped: the clones in flight go on in the new one
    var felt = document.getElementById("felt");
    if (!layer || layer.parentNode === felt) return;
    if (felt) felt.insertBefore(layer, felt.firstChild);
    else land();
  }

  function ghost(seen, base) {
    var g = seen.el.cloneNode(true);
    ["data-card", "role", "aria-label"].forEach(function (name) { g.removeAttribute(name); });
    g.classList.add("motion-ghost");
    g.setAttribute("aria-hidden", "true");  // a picture in flight, not a card to read out
    if (seen.el.parentNode && seen.el.parentNode.classList.contains("won")) g.classList.add("won");
    g.style.left = seen.box.x - base.x + "px";
    g.style.top = seen.box.y - base.y + "px";
    g.style.width = seen.box.w + "px";
    g.style.height = seen.box.h + "px";
    return g;
  }

  function sweep(old) {
    if (!old.winner) return;
    var plate = document.querySelector("#felt .plate.seat-" + old.winner);
    var gone = [];
    old.faces.forEach(function (seen, card) {
      if (!document.querySelector('#felt .trick .face[data-card="' + card + '"]')) gone.push(seen);
    });
    if (!plate || !gone.length) return;
    land();
    var l = openLayer(document.getElementById("felt")), base = box(l), target = box(plate);
    gone.forEach(function (seen) {
      var g = ghost(seen, base);
      l.appendChild(g);
      var dx = target.x + target.w / 2 - (seen.box.x + seen.box.w / 2), dy = target.y + target.h / 2 - (seen.box.y + seen.box.h / 2);
      var a = g.animate({ transform: ["none", "translate(" + dx + "px," + dy + "px) scale(.4)"], opacity: [seen.opacity, seen.opacity, 0] },
                        { duration: SWEEP, easing: EASE_IN, fill: "forwards" });
      ghosts.add(a);
      a.onfinish = function () {
        ghosts.delete(a);
        g.remove();
        if (!ghosts.size) land();
      };
    });
  }

  // --- one update: before its first swap, and once its swaps are done ---

  function drawnAt() {  // each flight's progress by its own animation (the old elements' ones run on)
    flights.forEach(function (f, key) {
      var t = f.anim ? f.anim.currentTime : null;
      if (t === null || t >= f.delay + f.duration) flights.delete(key);
      else f.at = t;
    });
  }

  function settle() {
    var old = before;
    before = null;
    drawnAt();
    stop(moving);
    keepLayer();
    if (quiet.matches || document.hidden) { stopAll(); return; }
    var plans = [];
    sweep(old);
    planTrick(old, plans);
    planHand(old, plans);
    flights = new Map();  // only the cards shown now are in flight
    plans.forEach(function (p) { flights.set(p.key, p.f); p.to = box(p.el); });  // every box read before any card moves
    plans.forEach(function (p) { fly(p); });
  }

  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    if (before || (e.detail && e.detail.shouldSwap === false) || quiet.matches) return;
    before = picture();
    Promise.resolve().then(settle);
  });

  function calm() { if (quiet.matches || document.hidden) stopAll(); }
  if (quiet.addEventListener) quiet.addEventListener("change", calm);
  document.addEventListener("visibilitychange", calm);
})();
