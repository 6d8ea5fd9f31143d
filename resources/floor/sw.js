/* The floor page's service worker: keeps the page's own files so a reload still opens
 * the page when the LAN is down (the offline check then uses the keys and the signed
 * void list kept in localStorage). It never keeps an /api/ answer: those carry names
 * and are no-store. Files are answered from the cache at once and refreshed behind. */
"use strict";

var CACHE = "floor-page-v2"; // a new name when the list of files changes
var FILES = [
  "/",
  "/static/adm2.js",
  "/static/camera.js",
  "/static/app.js",
  "/static/style.css",
  "/static/i18n.json",
  "/static/icon.svg",
  "/static/vendor/jsQR.js"
];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) { return cache.addAll(FILES); }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) { return n !== CACHE; }).map(function (n) {
        return caches.delete(n);
      }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var req = event.request;
  if (req.method !== "GET") return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  var path = url.pathname;
  if (path !== "/" && path.indexOf("/static/") !== 0) return; // the API goes to the network
  event.respondWith(
    caches.open(CACHE).then(function (cache) {
      return cache.match(path).then(function (hit) {
        var fresh = fetch(req).then(function (res) {
          if (res.ok) cache.put(path, res.clone());
          return res;
        });
        if (hit) {
          fresh.catch(function () {});
          return hit;
        }
        return fresh;
      });
    })
  );
});
