/* Spades with friends: the service worker. It keeps the static files for the app on a
   phone's home screen, shows the notices the site pushes ("Your turn at …") and opens the
   right table when one is tapped.

   /sw.js is this file with a first line that sets self.SPADES: the static files' URLs and
   a version made from their contents. A new version fetches them all into a new cache and
   drops the old ones.

   Pages go to the network first; when it cannot be reached, the last copy of a page that
   may be kept (not one marked no-store: those carry a person's cards or account) is shown,
   or a short note. Static files come from the cache first. Everything else (moves, htmx
   fragments, the socket) is left to the network. */
"use strict";

const SPADES = self.SPADES || { version: "dev", files: [] };
const STATIC_CACHE = "spades-static-" + SPADES.version;
const PAGE_CACHE = "spades-pages-" + SPADES.version;
const OFFLINE = "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
  "<title>Offline · Spades</title><body style='font-family:system-ui;padding:2rem'>" +
  "<h1>No connection</h1><p>This page needs the network. Check the connection and try again.</p>";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(STATIC_CACHE).then((cache) => cache.addAll(SPADES.files))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(names
    .filter((name) => name.startsWith("spades-") && name !== STATIC_CACHE && name !== PAGE_CACHE)
    .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

function keepable(response) {
  return response.ok && response.type === "basic" &&
    !/no-store/i.test(response.headers.get("Cache-Control") || "");
}

async function fromCacheFirst(request) {
  const cache = await caches.open(STATIC_CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  const response = await fetch(request);
  if (keepable(response)) cache.put(request, response.clone());
  return response;
}

async function fromNetworkFirst(request) {
  const cache = await caches.open(PAGE_CACHE);
  try {
    const response = await fetch(request);
    if (keepable(response)) cache.put(request, response.clone());
    return response;
  } catch (err) {
    const hit = await cache.match(request);
    return hit || new Response(OFFLINE, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(fromCacheFirst(request));
  } else if (request.mode === "navigate") {
    event.respondWith(fromNetworkFirst(request));
  }
});

/* A notice: {"title", "body", "url"}. Its tag is the link, so a second "your turn" at the
   same table replaces the first instead of piling up. */
self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch (err) {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const url = sameSite(notice.url);
  event.waitUntil(self.registration.showNotification(notice.title || "Spades", {
    body: notice.body || "",
    icon: "/static/icon-192.png",
    badge: "/static/icon-192.png",
    tag: url,
    renotify: true,
    data: { url },
  }));
});

/* Only a link on this site is opened; anything else opens the home page. */
function sameSite(link) {
  try {
    const url = new URL(link || "/", self.location.origin);
    return url.origin === self.location.origin ? url.href : self.location.origin + "/";
  } catch (err) {
    return self.location.origin + "/";
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameSite(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((w) => w.url.split("#")[0] === url);
    if (open) return open.focus();
    return self.clients.openWindow(url);
  }));
});
