// trainfit — offline cache. App files: cache first (they change only with a new build, which changes this
// file's CACHE name: cmake/stamp_sw.cmake writes a digest of the app files in place of the placeholder). The snapshot
// (its JSON, its lean binary form and that form's text sidecar): network first, so a fresh one is used when online, the cached one offline.
// A published update (updates/: its manifest and files, web/update.js) is never cached: offline the page keeps the bundled one.
// The JS API's module: cached on first use (below).
'use strict';
const CACHE = 'trainfit-@CACHE_VERSION@';
const APP = ['./', 'index.html', 'app.js', 'update.js', 'style.css', 'trainfit.js', 'trainfit.wasm', 'data/snapshot.bin', 'data/snapshot-text.json', 'data/snapshot.json', 'icon.svg'];
self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(APP)).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin || /\/updates\//.test(url.pathname)) return;
  if (/\/data\/snapshot(\.json|\.bin|-text\.json)$/.test(url.pathname)) {
    e.respondWith(fetch(e.request).then((res) => {
      const copy = res.clone();
      if (res.ok) caches.open(CACHE).then((c) => c.put(e.request, copy));
      return res;
    }).catch(() => caches.match(e.request)));
    return;
  }
  // The JS API's module (trainfit-api.js / .wasm) is not pre-cached (a visit that only uses the page never loads it):
  // it is kept the first time a script loads it, then served like the app files.
  if (/\/trainfit-api\.(js|wasm)$/.test(url.pathname)) {
    e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((hit) => hit || fetch(e.request).then((res) => {
      const copy = res.clone();
      if (res.ok) caches.open(CACHE).then((c) => c.put(e.request, copy));
      return res;
    })));
    return;
  }
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((hit) => hit || fetch(e.request)));
});
