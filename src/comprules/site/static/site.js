/* comprules: (the go-to box is static/goto.js) anchors of sections split over several pages, the
   edition switcher (same rule, other edition, by lineage), the search box of every
   page ("/" focuses it) and the search page. No network beyond the site itself, no
   dependencies: everything works opened from disk (file://). */
(function () {
  "use strict";

  /* "702.37a", "R70237a", "rule 702.37a", "702.37." -> {number, section, rule}; else null. */
  function parse(text) {
    var s = String(text || "").trim().replace(/^(rules?|r[èe]gles?)\s+/i, "").replace(/\.$/, "");
    var m = /^R(\d)(\d\d)?(\d+)?([a-z]{0,2})$/.exec(s);
    if (m) {
      if (!m[2]) { if (m[3] || m[4]) return null; s = m[1]; }
      else if (!m[3]) { if (m[4]) return null; s = m[1] + m[2]; }
      else s = m[1] + m[2] + "." + m[3] + m[4];
    }
    m = /^(\d)(\d\d)?(?:\.(\d+)([a-z]{0,2}))?$/.exec(s.toLowerCase());
    if (!m) return null;
    return {
      number: s.toLowerCase(),
      chapter: m[1],
      section: m[2] ? m[1] + m[2] : null,
      rule: m[3] ? parseInt(m[3], 10) : null
    };
  }

  function href(base, fragment, ref) {
    if (fragment || !ref.section) return base + "index.html#" + ref.number;
    if (ref.rule === null) return base + ref.section + ".html";
    return base + ref.section + ".html#" + ref.number;
  }

  /* A permalink 702.html#702.150a whose rule lives on a later part of the section. */
  function followSplit() {
    var body = document.body;
    var parts = body.getAttribute("data-parts");
    var id = decodeURIComponent(window.location.hash.slice(1));
    var found = id && document.getElementById(id);
    if (found && found.hasAttribute("data-go")) {  /* an entry of the contents of later parts */
      var go = found.getAttribute("data-go");
      window.location.replace(go.indexOf("#") < 0 ? go + "#" + encodeURIComponent(id) : go);
      return;
    }
    if (!id || found) return;
    var ref = parse(id);
    if (!ref) return;
    if (!parts || ref.section !== body.getAttribute("data-section") || ref.rule === null) {
      if (ref.number !== id && document.getElementById(ref.number)) window.location.hash = ref.number;
      return;
    }
    var starts = parts.split(" ").map(Number), k = 0;
    for (var i = 0; i < starts.length; i++) if (ref.rule >= starts[i]) k = i;
    var page = ref.section + (k ? "-" + (k + 1) : "") + ".html";
    var here = window.location.pathname.split("/").pop();
    if (page !== here) window.location.replace(page + "#" + ref.number);
  }

  /* The page of a rule id in an edition folder: 702.34a -> 702.html#702.34a. */
  function rulePage(id) {
    var head = id.split("~")[0], sec = head.split(/[.¶]/)[0];
    if (/^\d{3}$/.test(sec)) return sec + ".html#" + id;
    return "index.html#" + id;
  }

  /* Where a lineage key lands in an edition's table {s: "ids with key = id", m: {key: id}}. */
  function land(table, key) {
    if (!table) return null;
    if (Object.prototype.hasOwnProperty.call(table.m, key)) return table.m[key];
    if (!table.set) table.set = new Set(table.s.split(" "));
    return table.set.has(key) ? key : null;
  }

  /* The rule the reader is on: the #target, else the first rule visible. */
  function currentRule() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "A") el = el.parentElement;
    if (!el || !/^(P|H1|H3)$/.test(el.tagName)) {
      el = null;
      var all = document.querySelectorAll("main [id]");
      for (var i = 0; i < all.length; i++) {
        if (!/^(P|H1|H3)$/.test(all[i].tagName)) continue;
        if (all[i].getBoundingClientRect().bottom > 0) { el = all[i]; break; }
      }
    }
    return el;
  }

  function loadScript(src, done) {
    var s = document.createElement("script");
    s.src = src; s.onload = function () { done(true); }; s.onerror = function () { done(false); };
    document.head.appendChild(s);
  }

  function wireSwitch(form) {
    var editions = window.CR_EDITIONS, name = form.getAttribute("data-edition");
    var lang = name.split("/")[0], here = name.split("/")[1];
    var list = editions && editions[lang];
    if (!list) return;
    var select = form.querySelector("select");
    list.forEach(function (e) {
      var o = document.createElement("option");
      o.value = e[0]; o.textContent = e[0] + (e[1] ? " — " + e[1] : "");
      o.setAttribute("data-full", o.textContent);
      if (e[0] === here) o.selected = true;
      select.appendChild(o);
    });
    /* on a phone the closed menu shows the chosen edition's date alone, the list every
       label whole (a phone trial: "2026-08-07 — The H" in a 166 px menu) */
    var narrow = window.matchMedia ? window.matchMedia("(max-width: 30rem)") : null;
    function fit() {
      for (var i = 0; i < select.options.length; i++) {
        var o = select.options[i];
        o.textContent = narrow && narrow.matches && o.selected ? o.value : o.getAttribute("data-full");
      }
    }
    fit();
    select.addEventListener("change", fit);
    if (narrow && narrow.addEventListener) narrow.addEventListener("change", fit);
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var date = select.value, root = form.getAttribute("data-root") || "";
      var el = currentRule();
      var key = el ? (el.getAttribute("data-l") || el.id) : null;
      var folder = root + lang + "/" + date + "/";
      if (!key || date === here) { if (date !== here) window.location.href = folder + "index.html"; return; }
      var target = lang + "/" + date;
      var go = function () {
        var tables = window.CR_LINEAGE || {};
        var id = land(tables[target], key), href = folder + (id ? rulePage(id) : "index.html");
        var G = window.CRGoto;
        if (!G || !G.switchNote) { window.location.href = href; return; }
        /* where it took the reader and why, said on arrival (goto.js shows the note) */
        G.switchNote({edition: target, root: root}, key, el.id, name, id).then(function (note) {
          G.go(href, note);
        }, function () { window.location.href = href; });
      };
      if (window.CR_LINEAGE && window.CR_LINEAGE[target]) go();
      else loadScript(root + "lineage/" + target + ".js", go);
    });
  }

  /* Search: the ranker of search.js on the data of search/{lang}.js (from disk), or the
     JSON endpoint of comprules serve (every edition); the same hits in the same order. */
  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"];
  var LANG_NAMES = {en: "English", fr: "French", zh: "Chinese"};
  /* Hits shown on the search page (comprules search -n 20). */
  var LIMIT = 20;

  /* "en/2026-08-07" -> "English, 7 August 2026"; an undated document by its name. */
  /* A document's title, as the search page's edition menu lists it ("Offrande, Ninjutsu…"). */
  function documentTitle(name) {
    var option = document.querySelector('#edition option[value="' + name.replace(/"/g, "") + '"]');
    return option ? option.textContent.trim() : "";
  }

  /* The edition of a hit in words, and how many others print the same text: "earlier" ones
     for the latest edition of its language (`latest`), "other" ones for an older edition,
     whose may be later (a trial: 2009-07-11's Morph said "5 earlier editions", 2009-09-04 to
     2011-02-04), also in the zip of an older edition (its search data says "older"). */
  function editionWords(name, alsoIn, latest) {
    var parts = name.split("/"), lang = LANG_NAMES[parts[0]] || parts[0], m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(parts[1] || "");
    var words = m ? lang + ", " + parseInt(m[3], 10) + " " + MONTHS[parseInt(m[2], 10) - 1] + " " + m[1]
      : lang + " document " + (documentTitle(name) || parts[1] || name);
    if (alsoIn) words += " (also in " + alsoIn + (latest ? " earlier" : " other") + " edition" + (alsoIn === 1 ? "" : "s") + ")";
    return words;
  }

  /* The number typed is the hit's in other editions (issue 22): "was 502.26a in
     2002-10-07 to 2009-05-01", "numbered 702.19b later, from 2009-07-11". */
  function renumberedWords(r) {
    var eds = (r.editions || []).map(function (e) { return String(e).split("/").pop(); });
    var first = eds[0] || "", last = eds[eds.length - 1] || "";
    if (r.later) return "numbered " + r.number + " later, from " + first;
    return "was " + r.number + " in " + (first === last ? first : first + " to " + last);
  }

  function marked(text, spans) {
    var out = "", last = 0;
    (spans || []).forEach(function (s) {
      out += esc(text.slice(last, s[0])) + "<mark>" + esc(text.slice(s[0], s[1])) + "</mark>";
      last = s[1];
    });
    return out + esc(text.slice(last));
  }

  /* "Hide typography-only changes" (history pages, bulletins): kept in the address
     (?typography=hidden), so that a link or a reload shows the page the same way. */
  function wireHide(box) {
    var kind = box.getAttribute("data-hide"), cls = "hide-" + kind;
    var params = new URLSearchParams(window.location.search);
    box.checked = params.get(kind) === "hidden";
    document.body.classList.toggle(cls, box.checked);
    box.addEventListener("change", function () {
      document.body.classList.toggle(cls, box.checked);
      if (!box.checked) widenNarrowLinks(document);  /* the changes shown again */
      var now = new URLSearchParams(window.location.search);
      if (box.checked) now.set(kind, "hidden"); else now.delete(kind);
      var query = now.toString();
      try {
        history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
      } catch (e) { /* file:// in some browsers: the page still hides them */ }
    });
  }

  /* The command that serves this site, for the search page's hint: opened from disk as
     KB/site/search.html (where a build writes it), the knowledge base is KB, named as a
     shell takes it; elsewhere (a copy, an edition's zip) the hint keeps its words. */
  /* The knowledge base of a page of the site's root opened from disk (the folder holding
     site/), quoted for a shell; null when served or outside a site/ folder. */
  function kbOf(location) {
    if (location.protocol !== "file:") return null;
    var m = /^(.*)\/site\/[^\/]+\.html$/.exec(decodeURIComponent(location.pathname));
    if (!m || !m[1]) return null;
    var kb = /^\/[A-Za-z]:\//.test(m[1]) ? m[1].slice(1) : m[1];  /* file:///C:/… on Windows */
    if (!/^[\w@%+=:,.\/-]+$/.test(kb)) kb = "'" + kb.replace(/'/g, "'\\''") + "'";
    return kb;
  }

  function serveCommand(location) {
    var kb = kbOf(location);
    return kb ? "comprules serve --kb " + kb : null;
  }

  /* The Data page from disk: a zip that the server makes when asked (a link to nothing
     here) becomes the command that makes it. */
  function servedZips(location) {
    if (location.protocol !== "file:") return;
    var kb = kbOf(location), links = document.querySelectorAll("a[data-served]");
    for (var i = 0; i < links.length; i++) {
      var a = links[i], code = document.createElement("code");
      var name = a.getAttribute("data-served");  /* en/2009-05-01: comprules-en-2009-05-01.zip, as served */
      code.textContent = "comprules export " + name + " --site" + (kb ? " --kb " + kb : "") +
        " -o comprules-" + name.replace("/", "-") + ".zip";
      if (a.nextElementSibling) a.nextElementSibling.textContent = "";
      a.parentNode.replaceChild(code, a);
    }
  }

  function wireSearch(form) {
    var status = document.getElementById("status"), list = document.getElementById("results");
    var suggestion = document.getElementById("suggestion"), offline = document.getElementById("offline");
    var q = form.querySelector("#q"), lang = form.querySelector("#lang"), ed = form.querySelector("#edition");
    var kind = form.querySelector("#kind");
    var serve = document.getElementById("serve"), command = serveCommand(window.location);
    if (serve && command) serve.textContent = command;
    var root = form.getAttribute("data-root") || "";
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) q.value = params.get("q");
    if (params.has("lang")) lang.value = params.get("lang");
    if (params.has("edition")) ed.value = params.get("edition");
    if (params.has("kind")) kind.value = params.get("kind");
    var served = /^https?:$/.test(window.location.protocol), api = served ? null : false, seq = 0, timer = null;
    /* Typing waits this long (ms) before it asks: the server once a word is typed, not on
       every key (the page's own data answers at once, so it waits less). */
    var WAIT_SERVER = 150, WAIT_LOCAL = 30, pending = null;
    var engine = window.CRSearch;

    function show(result, mine, source) {
      if (mine !== seq) return;
      var hits = result.hits || [];
      status.textContent = hits.length + " result" + (hits.length === 1 ? "" : "s") +
        (result.lang ? " · query in " + (LANG_NAMES[result.lang] || result.lang) : "");
      status.setAttribute("data-source", source);
      if (result.suggestion) {
        suggestion.hidden = false;
        suggestion.innerHTML = 'Did you mean <a href="?q=' + encodeURIComponent(result.suggestion) + '">' +
          esc(result.suggestion) + "</a>?";
      } else suggestion.hidden = true;
      /* The cards the question names (served site: /api/v1/search), before the hits. */
      var cards = (result.cards || []).map(function (c) {
        var rules = (c.rules || []).slice(0, 12).map(function (r) {
          var kind = r.number.indexOf(".") < 0 ? "section" : "rule";
          return '<a href="' + esc(root + engine.url(c.edition, r.number, kind)) + '" title="' + esc(r.label) + '">' +
            esc(r.number) + "</a>";
        }).join(", ");
        return '<li class="card" data-card="' + esc(c.name) + '"><b>' + esc(c.name) + "</b>" +
          (c.type_line ? ' <span class="sec">' + esc(c.type_line) + "</span>" : "") +
          (rules ? "<p>calls on " + rules + "</p>" : "") + "</li>";
      }).join("");
      list.innerHTML = cards + hits.map(function (h) {
        /* the section's title as the hit's own edition printed it (the server says it; the
           page's own data is the latest edition's, which is all it searches from disk) */
        var section = h.section_title !== undefined ? (h.section_title || "")
          : engine && engine.sectionTitle ? engine.sectionTitle(h.lang, h.id) : "";
        var label = h.kind === "glossary" ? (h.title || h.number) + " (glossary)" : h.number + (h.title ? " · " + h.title : "");
        var info = (window.CR_SEARCH || {})[h.lang] || {};  /* the language table's row, as exported */
        /* the score is for tests and the curious (data-score), not a figure shown to readers */
        return '<li data-number="' + esc(h.number) + '" data-lang="' + esc(h.lang) + '"' +
          ' data-score="' + esc(Number(h.score).toFixed(2)) + '"' +
          (info.html ? ' lang="' + esc(info.html) + '"' : "") + '><a href="' +
          esc(root + engine.url(h.edition, h.id, h.kind)) + '">' + esc(label) + "</a>" +
          (section && h.kind !== "section" && h.kind !== "glossary" ? ' <span class="sec">' + esc(section) + "</span>" : "") +
          ' <span class="ed">' + esc(editionWords(h.edition, h.also_in, !!localEditions()[h.edition] &&
            !((window.CR_SEARCH || {})[h.lang] || {}).older)) + "</span>" +
          (h.translation ? ' <span class="tr">translation</span>' : "") +
          (h.renumbered ? ' <span class="was">' + esc(renumberedWords(h.renumbered)) + "</span>" : "") +
          (info.community ? ' <span class="tr" lang="en">community translation, not Wizards\u2019</span>' : "") +
          "<p>" + marked(h.snippet, h.highlights) + "</p></li>";
      }).join("");
      widenNarrowLinks(list);
    }

    /* The editions the page's own search data holds (the latest of each language, the
       documents): one of them asked is answered here, any other needs the server. */
    var held = null;
    function localEditions() {
      if (held) return held;
      held = {};
      var all = window.CR_SEARCH || {};
      Object.keys(all).forEach(function (l) {
        (all[l].docs || []).forEach(function (d) { held[d[7]] = true; });
      });
      return held;
    }

    function local(text, mine) {
      var asked = ed.value, here = asked !== "" && asked !== "*" && localEditions()[asked] === true;
      offline.hidden = asked === "" || here;
      /* served but not answered (the network is off): the note says that, not "from disk" */
      var net = /^https?:$/.test(window.location.protocol);
      offline.querySelectorAll("[data-disk]").forEach(function (el) { el.hidden = net; });
      offline.querySelectorAll("[data-net]").forEach(function (el) { el.hidden = !net; });
      if (!engine || !engine.loaded()) {
        status.textContent = "The search data could not be loaded (search/*.js). Rebuild the site with its index.";
        return;
      }
      try {
        var options = {lang: lang.value || (here ? asked.split("/")[0] : null), kind: kind.value || null};
        var found = engine.search(text, Object.assign(options, {limit: here ? 10 * LIMIT : LIMIT}));
        if (here) found.hits = (found.hits || []).filter(function (h) { return h.edition === asked; }).slice(0, LIMIT);
        show(found, mine, "local");
        if (!offline.hidden && mine === seq) {
          status.textContent += " · in the latest editions: the one asked is not searched here";
        }
        /* an edition's zip holds one language's search data: words of another find nothing
           there (a phone trial: "trample" in the Chinese zip, "0 results · query in Chinese") */
        var langs = Object.keys(window.CR_SEARCH || {});
        if (mine === seq && !(found.hits || []).length && langs.length === 1) {
          status.textContent += " · only the " + (LANG_NAMES[langs[0]] || langs[0]) + " edition is searched here";
        }
      } catch (e) {
        list.innerHTML = "";
        status.textContent = e && e.message ? e.message : String(e);
      }
    }

    function run() {
      var text = q.value.trim(), mine = ++seq;
      var query = new URLSearchParams({q: text});
      if (lang.value) query.set("lang", lang.value);
      if (ed.value) query.set("edition", ed.value);
      if (kind.value) query.set("kind", kind.value);
      window.history.replaceState(null, "", "?" + query.toString());
      if (!text) { list.innerHTML = ""; status.textContent = ""; return; }
      if (api === false) { local(text, mine); return; }
      var p = new URLSearchParams({q: text, limit: String(LIMIT)});
      if (lang.value) p.set("lang", lang.value);
      if (kind.value) p.set("kind", kind.value);
      if (ed.value === "*") p.set("all_editions", "true"); else if (ed.value) p.set("edition", ed.value);
      if (pending) pending.abort();  /* a stale question is dropped, not answered late */
      pending = window.AbortController ? new AbortController() : null;
      var ask = {headers: {Accept: "application/json"}};
      if (pending) ask.signal = pending.signal;
      fetch(root + "api/v1/search?" + p.toString(), ask).then(function (r) {
        if (r.status === 404 || r.status === 405 || r.status === 501) { api = false; throw null; }
        return r.json().then(function (data) {
          if (!r.ok) { list.innerHTML = ""; status.textContent = (data && (data.error || data.detail)) || ("error " + r.status); return; }
          api = true;
          offline.hidden = true;
          show(data, mine, "server");
        });
      }).catch(function (e) {
        if (mine !== seq || (e && e.name === "AbortError")) return;  /* a newer question is on its way */
        api = false;
        local(text, mine);
      });
    }
    form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    q.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, api === false ? WAIT_LOCAL : WAIT_SERVER);
    });
    [lang, ed, kind].forEach(function (s) { s.addEventListener("change", run); });
    if (q.value) run();
  }

  /* A link narrower than a finger (24 px: the "i" of "601.2b–i", a part "2", a word of a
     script the font draws narrow) stands 24 px wide (class "s", site.css): measured, not
     guessed, since its width is the font's (issue 22, 7). Links shown later (an opened
     details, the search page's hits) are measured when they show. */
  function widenNarrowLinks(root) {
    var links = (root || document).querySelectorAll("a[href]:not(.s)"), narrow = [], i, w;
    for (i = 0; i < links.length; i++) {
      w = links[i].getBoundingClientRect().width;
      if (w > 0 && w < 24) narrow.push(links[i]);
    }
    for (i = 0; i < narrow.length; i++) narrow[i].classList.add("s");
  }

  /* "/" anywhere but in a field focuses the search box. */
  function slashFocus(event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    var box = document.getElementById("q") || document.querySelector("form.find input");
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = { parse: parse, href: href, rulePage: rulePage, land: land, serveCommand: serveCommand };
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var switches = document.querySelectorAll("form.switch");
    for (var j = 0; j < switches.length; j++) wireSwitch(switches[j]);
    var hides = document.querySelectorAll("input[data-hide]");
    for (var h = 0; h < hides.length; h++) wireHide(hides[h]);
    var search = document.querySelector("form#search");  /* not the glossary entry "Search" (id="search") */
    if (search) wireSearch(search);
    servedZips(window.location);
    document.addEventListener("keydown", slashFocus);
    widenNarrowLinks(document);
    document.addEventListener("toggle", function (e) { widenNarrowLinks(e.target); }, true);
    /* content a page's own script drew (compare.js: "cr:content" on what it filled) */
    document.addEventListener("cr:content", function (e) { widenNarrowLinks(e.target); }, true);
    followSplit();
  });
  window.addEventListener("hashchange", followSplit);
})();
