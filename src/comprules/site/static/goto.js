/* comprules: links of other CR sites, and (later) the go-to resolver.
   Yawgatog (https://yawgatog.com/resources/magic-rules/#R70237a, glossary
   #active_player_nonactive_player_order) and mtg.wtf (/help/rules#section-702-37a,
   #section-glossary) as the site's own pages: the home page and go.html take such a
   fragment, or a whole pasted link, and land on the rule in the latest edition.
   Works opened from disk; no data needed. */
(function () {
  "use strict";

  /* "702.37a", "R70237a", "702.37.", "section-702-37a" -> "702.37a"; "R4" -> "4"; else null. */
  function number(text) {
    var s = String(text || "").trim();
    var m = /^section-(\d{1,3})(?:-(\d+)([a-z]{0,2}))?$/i.exec(s);
    if (m) return m[1] + (m[2] ? "." + m[2] + m[3].toLowerCase() : "");
    m = /^R(\d)(\d\d)?(\d+)?([a-z]{0,2})$/.exec(s);
    if (m) {
      if (!m[2]) return m[3] || m[4] ? null : m[1];
      if (!m[3]) return m[4] ? null : m[1] + m[2];
      return m[1] + m[2] + "." + m[3] + m[4];
    }
    s = s.replace(/\.$/, "").toLowerCase();
    return /^\d(?:\d\d(?:\.\d+[a-z]{0,2})?)?$/.test(s) ? s : null;
  }

  /* The page of a rule number inside an edition folder: 702.37a -> 702.html#702.37a. */
  function pageOf(n) {
    if (n.length === 1) return "index.html#" + n;
    var section = n.slice(0, 3);
    return n.length === 3 ? section + ".html" : section + ".html#" + n;
  }

  var NAMED = {introduction: "all.html#section-introduction", contents: "index.html",
               glossary: "glossary.html", credits: "all.html"};

  /* Where a Yawgatog or mtg.wtf link (or its fragment alone) lands, relative to an
     edition folder ("en/latest/"); null when it names nothing. */
  function citation(text) {
    var s = String(text || "").trim(), at = s.indexOf("#");
    var hash = at >= 0 ? s.slice(at + 1) : s;
    try { hash = decodeURIComponent(hash); } catch (e) { return null; }
    if (!hash) return null;
    var m = /^section-([a-z]+)$/.exec(hash);
    if (m) return NAMED[m[1]] || null;
    var n = number(hash);
    if (n) return pageOf(n);
    if (/^[a-z0-9][a-z0-9_-]*$/.test(hash)) return "all.html#" + hash;  /* a glossary anchor */
    return null;
  }

  function redirect() {
    var body = document.body, base = body.getAttribute("data-latest");
    if (base === null) return;
    var params = new URLSearchParams(window.location.search);
    var given = params.get("u") || window.location.hash;
    var id = window.location.hash.slice(1);
    if (!given || (id && !params.get("u") && document.getElementById(decodeURIComponent(id)))) return;
    var to = citation(given);
    var status = document.getElementById("go-status");
    if (to) window.location.replace(base + to);
    else if (status) status.textContent = "Not a Yawgatog or mtg.wtf rule link: " + given;
  }

  function wireLink(form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = form.querySelector("input"), to = citation(input.value);
      var status = document.getElementById("go-status");
      if (to) window.location.href = document.body.getAttribute("data-latest") + to;
      else if (status) status.textContent = "Not a Yawgatog or mtg.wtf rule link: " + input.value;
    });
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = {number: number, citation: citation, pageOf: pageOf};
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form.link");
    for (var i = 0; i < forms.length; i++) wireLink(forms[i]);
    redirect();
  });
})();
