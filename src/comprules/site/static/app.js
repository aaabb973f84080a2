/* comprules: the served site as a web app (comprules/site/offline.py). Served over http(s),
   registers the service worker (sw.js, beside the manifest at the site's root) and shows
   its one-line notice when a new build has been taken whole: "Rules of 2026-08-07 now
   available — reload". Opened from disk (file://) it does nothing. */
(function () {
  "use strict";

  /* The notice's words: {editions: [{lang, date}]} -> "Rules of 2026-08-07 now available". */
  function words(data) {
    var eds = (data && data.editions) || [];
    if (!eds.length) return "A new version of these pages is available";
    var many = eds.length > 1;
    return "Rules of " + eds.map(function (e) { return e.date + (many ? " (" + e.lang + ")" : ""); }).join(", ") +
      " now available";
  }

  var shown = false;

  function notify(data) {
    shown = true;
    var old = document.getElementById("cr-update");
    if (old) old.remove();
    var p = document.createElement("p"), a = document.createElement("a");
    p.id = "cr-update"; p.className = "update"; p.setAttribute("role", "status");
    p.textContent = words(data) + " \u2014 ";
    a.href = window.location.href; a.textContent = "reload";
    a.addEventListener("click", function (event) { event.preventDefault(); window.location.reload(); });
    p.appendChild(a);
    document.body.insertBefore(p, document.body.firstChild);
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = {words: words};
    return;
  }
  if (!/^https?:$/.test(window.location.protocol) || !("serviceWorker" in navigator)) return;
  var link = document.querySelector('link[rel="manifest"]');
  if (!link) return;
  var root = new URL("./", link.href);
  navigator.serviceWorker.addEventListener("message", function (event) {
    if (event.data && event.data.type === "comprules-updated") notify(event.data);
  });
  navigator.serviceWorker.addEventListener("controllerchange", function () {
    setTimeout(function () {  /* the worker's message may have gone out while this page loaded */
      var worker = navigator.serviceWorker.controller;
      if (!shown && worker) worker.postMessage({type: "comprules-which"});
    }, 300);
  });
  navigator.serviceWorker.register(new URL("sw.js", root).href, {scope: root.href, updateViaCache: "none"})
    .catch(function () { /* no worker (a private window, a server without sw.js): the pages work as they are */ });
})();
