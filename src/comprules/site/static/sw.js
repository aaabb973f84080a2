/* comprules: the service worker of the served site (comprules/site/offline.py writes
   sw.js at the site's root: self.CR_BUILD, then this code).

   Install: every file of the offline set (the latest edition of each language, the
   search and go-to data, the static files) is downloaded into a new cache named by the
   build's content hash, each file checked against its SHA-256; anything wrong (the
   network, a file of another build) deletes the new cache and the install fails, so the
   old worker and its cache stay. Activate: the new cache is used at once, the caches of
   older builds are deleted, and the open pages are told ("Rules of … now available").
   Fetch: a file of the offline set from the cache (a {lang}/latest/ page from its dated
   folder); any other page of the site from the network, kept for later, and from what was
   kept when the network is off; the server's APIs (api/, ar/) are never answered here. */
"use strict";

var BUILD = self.CR_BUILD;
var PREFIX = "comprules-";
var CACHE = PREFIX + BUILD.hash;
var SEEN = PREFIX + "seen-" + BUILD.hash;
var INFO = "comprules-build.json";
var SCOPE = new URL(self.registration.scope);
var KEPT = {};
BUILD.files.forEach(function (f) { KEPT[f[0]] = f[1]; });

function hex(buffer) {
  var bytes = new Uint8Array(buffer), out = "";
  for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
  return out;
}

/* Download one file of the set and check it: a 200 whose bytes have the build's hash. */
function take(cache, entry) {
  var url = new URL(entry[0], SCOPE).href;
  return fetch(new Request(url, {cache: "no-cache", credentials: "same-origin"})).then(function (response) {
    if (!response.ok) throw new Error(entry[0] + ": HTTP " + response.status);
    return response.clone().arrayBuffer().then(function (body) {
      return crypto.subtle.digest("SHA-256", body);
    }).then(function (digest) {
      if (hex(digest).slice(0, entry[1].length) !== entry[1]) throw new Error(entry[0] + ": not of this build");
      return cache.put(url, response);
    });
  });
}

/* Every file, a few at a time; the first failure fails the whole download. */
function takeAll(cache, files) {
  var next = 0, WORKERS = 6;
  function one() {
    if (next >= files.length) return Promise.resolve();
    var entry = files[next++];
    return take(cache, entry).then(one);
  }
  var runs = [];
  for (var i = 0; i < WORKERS; i++) runs.push(one());
  return Promise.all(runs);
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.delete(CACHE).then(function () {
    return caches.open(CACHE);
  }).then(function (cache) {
    return takeAll(cache, BUILD.files).then(function () {
      var info = JSON.stringify({hash: BUILD.hash, editions: BUILD.editions});
      return cache.put(new URL(INFO, SCOPE).href, new Response(info, {headers: {"Content-Type": "application/json"}}));
    });
  }).then(function () {
    return self.skipWaiting();
  }, function (error) {
    return caches.delete(CACHE).then(function () { throw error; });
  }));
});

/* The editions of an older build, read from its cache (null when it has none). */
function previousEditions(names) {
  var older = names.filter(function (n) { return n.indexOf(PREFIX + "seen-") !== 0; });
  if (!older.length) return Promise.resolve(null);
  return caches.open(older[0]).then(function (cache) {
    return cache.match(new URL(INFO, SCOPE).href);
  }).then(function (r) { return r ? r.json() : {}; }).then(function (info) {
    return info.editions || {};
  }, function () { return {}; });
}

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    var old = names.filter(function (n) { return n.indexOf(PREFIX) === 0 && n !== CACHE && n !== SEEN; });
    return previousEditions(old).then(function (before) {
      return Promise.all(old.map(function (n) { return caches.delete(n); })).then(function () {
        return self.clients.claim();
      }).then(function () {
        if (before === null) return;  /* the first install: nothing to announce */
        var fresh = Object.keys(BUILD.editions).sort().filter(function (lang) {
          return before[lang] !== BUILD.editions[lang];
        }).map(function (lang) { return {lang: lang, date: BUILD.editions[lang]}; });
        var info = JSON.stringify({hash: BUILD.hash, editions: BUILD.editions, fresh: fresh});
        return caches.open(CACHE).then(function (cache) {  /* for a page that asks later */
          return cache.put(new URL(INFO, SCOPE).href, new Response(info, {headers: {"Content-Type": "application/json"}}));
        }).then(function () {
          return self.clients.matchAll({type: "window", includeUncontrolled: true});
        }).then(function (pages) {
          pages.forEach(function (page) { page.postMessage(announcement(fresh)); });
        });
      });
    });
  }));
});

function announcement(fresh) {
  return {type: "comprules-updated", build: BUILD.hash, editions: fresh};
}

/* A page that saw its worker change asks what changed (the message may have gone out
   while it was loading): the answer only after an update, never after the first install. */
self.addEventListener("message", function (event) {
  if (!event.data || event.data.type !== "comprules-which" || !event.source) return;
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return cache.match(new URL(INFO, SCOPE).href);
  }).then(function (r) { return r ? r.json() : {}; }).then(function (info) {
    if (info.fresh) event.source.postMessage(announcement(info.fresh));
  }));
});

/* The site path a request names, as kept: "" and "…/" are their index.html, a latest
   copy its dated folder; null for what is not the site's (another origin, the APIs). */
function sitePath(url) {
  if (url.origin !== SCOPE.origin || url.pathname.indexOf(SCOPE.pathname) !== 0) return null;
  var path;
  try { path = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length)); } catch (e) { return null; }
  if (/^(api|ar)(\/|$)/.test(path) || path === "sw.js") return null;
  if (path === "" || path.slice(-1) === "/") path += "index.html";
  Object.keys(BUILD.aliases).forEach(function (alias) {
    if (path.indexOf(alias) === 0) path = BUILD.aliases[alias] + path.slice(alias.length);
  });
  return path;
}

/* A kept response, as a new one (a page answered from another address keeps its own). */
function fresh(response) {
  return new Response(response.body, {status: response.status, statusText: response.statusText,
                                      headers: response.headers});
}

/* What a page not kept says offline, in its language (the first or second folder of its
   path: zh/…, history/zh/…), styled by the kept site.css, with the way back to what is kept. */
var OFFLINE = {
  en: {lang: "en", title: "Offline", text: "This page was not kept for reading without a network: the latest " +
       "edition of each language is, and every page once visited.", latest: "Latest rules", home: "Editions",
       search: "Search"},
  fr: {lang: "fr", title: "Hors ligne", text: "Cette page n\u2019a pas été gardée pour la lecture sans réseau\u00a0: " +
       "la dernière édition de chaque langue l\u2019est, et toute page déjà visitée.", latest: null,
       home: "Éditions", search: "Recherche"},
  zh: {lang: "zh-Hans", title: "离线", text: "此页面未保存，无法离线阅读。每种语言的最新版本和访问过的页面均可离线阅读。",
       latest: "最新规则", home: "所有版本", search: "搜索"}
};

function offlinePage(path) {
  var parts = path.split("/"), code = parts[0] in OFFLINE ? parts[0] : parts[1] in OFFLINE ? parts[1] : "en";
  var say = OFFLINE[code], up = new Array(parts.length).join("../");
  var css = Object.keys(KEPT).filter(function (p) { return /^static\/site\.[0-9a-f]+\.css$/.test(p); })[0];
  var links = [[say.home, "index.html"], [say.search, "search.html"]];
  if (say.latest) links.unshift([say.latest, code + "/latest/index.html"]);
  var body = "<!doctype html><html lang=\"" + say.lang + "\"><meta charset=utf-8>" +
    "<meta name=viewport content=\"width=device-width, initial-scale=1\">" +
    (css ? "<link rel=stylesheet href=\"" + up + css + "\">" : "") +
    "<title>" + say.title + "</title><main><h1>" + say.title + "</h1><p>" + say.text + "</p><nav class=\"links\"><p>" +
    links.map(function (l) { return "<a href=\"" + up + l[1] + "\">" + l[0] + "</a>"; }).join(" · ") +
    "</p></nav></main></html>";
  return new Response(body, {status: 503, headers: {"Content-Type": "text/html; charset=utf-8"}});
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var path = sitePath(new URL(request.url));
  if (path === null) return;
  var key = new URL(path, SCOPE).href;
  if (Object.prototype.hasOwnProperty.call(KEPT, path)) {
    event.respondWith(caches.open(CACHE).then(function (cache) {
      return cache.match(key);
    }).then(function (hit) {
      return hit ? fresh(hit) : fetch(request);
    }));
    return;
  }
  event.respondWith(fetch(request).then(function (response) {
    if (response.ok && response.type === "basic") {
      var copy = response.clone();
      event.waitUntil(caches.open(SEEN).then(function (cache) { return cache.put(key, copy); }));
    }
    return response;
  }, function (error) {
    return caches.open(SEEN).then(function (cache) { return cache.match(key); }).then(function (hit) {
      if (hit) return fresh(hit);
      if (request.mode === "navigate") return offlinePage(path);
      throw error;
    });
  }));
});
