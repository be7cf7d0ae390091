// Moves over the table page's socket (spades/web/table/live.py). While the page's live
// connection is open, a form of the table that htmx would post to /g/<CODE>/<route>, for a
// route the site takes over the socket (#table-main's data-socket-routes: a bid, a card,
// Continue or Deal now, claim, take over, ...), is sent over that socket instead: one JSON
// object with the form's fields under their names, "route" and "ack" (a number counting
// this page's moves). htmx's post is called off. While the socket is not open (connecting,
// dropped, reconnecting), or the browser says it is offline, nothing is queued: htmx posts
// the form as it would without this script, and once the socket is back the forms go over
// it again. A move taken comes back as the table's next frame, to every page at the
// table; a refusal comes back on this socket alone as the table with the words in #told's
// message, which carries data-ack and data-status (the status the post would have had).
(function () {
  "use strict";

  var live = null;  // {socket, wrapper}: the open socket and the ws extension's wrapper of it
  var acks = 0;
  // A move sent is answered by a frame (the change, or the refusal). A socket that says
  // nothing for ANSWER_WAIT_MS after a move has died without closing (a network gone, a
  // phone asleep): the page says the click did not count, as for a post that failed
  // (site.js's banner, on htmx:sendError), and closes the socket, which the ws extension
  // then opens again; meanwhile the forms post.
  var ANSWER_WAIT_MS = 4000, waiting = null, lost = false;

  function didNotCount() {
    document.body.dispatchEvent(new CustomEvent("htmx:sendError", { bubbles: true, detail: {} }));
  }
  function noAnswer() {
    var socket = live && live.socket;
    waiting = null;
    live = null;
    lost = true;
    didNotCount();
    if (socket) socket.close();
  }

  document.addEventListener("htmx:wsOpen", function (e) {
    var d = e.detail || {}, socket = d.event && d.event.target;
    live = socket && d.socketWrapper ? { socket: socket, wrapper: d.socketWrapper } : null;
    lost = false;
  });
  document.addEventListener("htmx:wsBeforeMessage", function () {
    if (waiting !== null) { clearTimeout(waiting); waiting = null; }
  });
  document.addEventListener("htmx:wsError", function () { live = null; });

  // The route a request posts to, when the site takes it over this page's socket.
  function socketRoute(d) {
    var main = document.getElementById("table-main");
    if (!main || !main.dataset.socketRoutes || !d.elt || !main.contains(d.elt)) return null;
    if (!d.verb || d.verb.toLowerCase() !== "post") return null;
    var m = /^\/g\/([A-Za-z0-9]+)\/([a-z-]+)$/.exec(d.path || "");
    var own = /\/g\/([A-Za-z0-9]+)\/ws$/.exec(main.getAttribute("ws-connect") || "");
    if (!m || !own || m[1].toUpperCase() !== own[1].toUpperCase()) return null;
    return main.dataset.socketRoutes.split(" ").indexOf(m[2]) !== -1 ? m[2] : null;
  }

  // The form's fields as one object (each name's first value, as the site reads a form).
  function fieldsOf(params) {
    var out = {};
    if (params && typeof params.forEach === "function" && typeof params.append === "function") {
      params.forEach(function (value, name) { if (!(name in out) && typeof value === "string") out[name] = value; });
    } else if (params) {
      Object.keys(params).forEach(function (name) {
        var value = params[name];
        if (Array.isArray(value)) value = value[0];
        if (value !== undefined && value !== null) out[name] = String(value);
      });
    }
    return out;
  }

  // Registered once every script has run: after site.js's own configRequest, which puts
  // the version of the last update applied in the form.
  function listen() {
    document.addEventListener("htmx:wsClose", function () {
      live = null;
      if (waiting !== null) { clearTimeout(waiting); waiting = null; lost = true; }
      if (lost) didNotCount();  // after site.js's own words for a closed socket: the click is what matters
    });
    document.addEventListener("htmx:configRequest", function (e) {
      var d = e.detail, route = d && socketRoute(d);
      // posted as without script: the socket is not open, or the browser knows it is offline
      // (a socket can look open then, and would send the move once the network is back)
      if (!route || !live || live.socket.readyState !== WebSocket.OPEN || navigator.onLine === false) return;
      var message = fieldsOf(d.formData || d.parameters);
      delete message.route; delete message.ack;
      message.route = route;
      message.ack = ++acks;
      e.preventDefault();  // no post: the move goes over the socket
      live.wrapper.sendImmediately(JSON.stringify(message), d.elt);
      if (waiting !== null) clearTimeout(waiting);
      waiting = setTimeout(noAnswer, ANSWER_WAIT_MS);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", listen);
  else listen();
})();
