// The site as an app: register the service worker on every page, and on the profile page
// let a person allow notices in this browser (or turn them off). Without JavaScript, or
// in a browser without Web Push, none of this shows and the site works as before.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;

  var ready = new Promise(function (resolve) {
    function register() {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(resolve, function () { resolve(null); });
    }
    if (document.readyState === "complete") register();
    else window.addEventListener("load", register);
  });

  function csrf() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }

  function post(url, data) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(data),
    }).then(function (response) {
      if (response.ok) return;
      return response.json().catch(function () { return {}; }).then(function (body) {
        var err = new Error(body.error || "The site did not take that. Reload the page and try again.");
        err.fromSite = true;
        throw err;
      });
    });
  }

  function keyBytes(text) {
    var b64 = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function setUpNotices(box) {
    if (!("PushManager" in window) || !("Notification" in window)) return;
    var button = box.querySelector("button"), note = box.querySelector(".push-note");
    var busy = false;

    function show(on, message) {
      box.hidden = false;
      box.dataset.state = on ? "on" : "off";
      button.textContent = on ? "Turn off notices in this browser" : "Allow notices in this browser";
      note.textContent = message || (on ? "Notices are on in this browser: you hear when it is your turn."
        : Notification.permission === "denied" ? "Notices are blocked for this site in this browser's settings."
        : "Get a notice in this browser when it is your turn, even with the site closed.");
      button.disabled = !on && Notification.permission === "denied";
    }

    function current(reg) { return reg ? reg.pushManager.getSubscription() : Promise.resolve(null); }

    function turnOn(reg) {
      return Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") return show(false);
        return fetch("/push/key", { credentials: "same-origin" }).then(function (r) { return r.json(); })
          .then(function (body) {
            return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(body.key) });
          })
          .then(function (sub) { return post("/push/subscribe", sub.toJSON()); })
          .then(function () { show(true); });
      });
    }

    function turnOff(reg) {
      return current(reg).then(function (sub) {
        if (!sub) return show(false);
        var endpoint = sub.endpoint;
        return sub.unsubscribe().then(function () { return post("/push/unsubscribe", { endpoint: endpoint }); })
          .then(function () { show(false); });
      });
    }

    ready.then(function (reg) {
      if (!reg) return;
      return navigator.serviceWorker.ready.then(function (reg) {
        current(reg).then(function (sub) { show(!!sub && Notification.permission === "granted"); });
        button.addEventListener("click", function () {
          if (busy) return;
          busy = true;
          button.disabled = true;
          var on = box.dataset.state === "on";
          (on ? turnOff(reg) : turnOn(reg)).catch(function (err) {
            show(on, err && err.fromSite ? err.message : "This browser could not change its notices. Try again later.");
          }).then(function () {
            busy = false;
            button.disabled = box.dataset.state === "off" && Notification.permission === "denied";
          });
        });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("push-notices");
    if (box) setUpNotices(box);
  });

  // Signing out turns this browser's notices off first: the next person at a shared
  // computer must not see whose turn it is at the account's tables. Two seconds at most,
  // then the form goes on regardless.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!/\/signout(\/everywhere)?$/.test(new URL(form.action, location.href).pathname)) return;
    if (form.dataset.noticesOff || !("PushManager" in window)) return;
    e.preventDefault();
    var off = navigator.serviceWorker.getRegistration("/").then(function (reg) {
      return reg ? reg.pushManager.getSubscription() : null;
    }).then(function (sub) {
      if (!sub) return;
      return post("/push/unsubscribe", { endpoint: sub.endpoint }).then(function () { return sub.unsubscribe(); });
    }).catch(function () {});
    Promise.race([off, new Promise(function (r) { setTimeout(r, 2000); })]).then(function () {
      form.dataset.noticesOff = "1";
      form.submit();
    });
  }, true);
})();
