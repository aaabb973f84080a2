/* comprules: the "go to rule" box, anchors of sections split over several pages, the
   edition switcher (same rule, other edition, by lineage) and the search page.
   No network beyond the site itself, no dependencies: all but search work opened
   from disk (file://). */
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

  function wire(form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = form.querySelector("input");
      var ref = parse(input.value);
      if (!ref) { form.classList.add("bad"); input.focus(); return; }
      form.classList.remove("bad");
      window.location.href = href(form.getAttribute("data-base") || "",
                                  form.hasAttribute("data-fragment"), ref);
    });
  }

  /* A permalink 702.html#702.150a whose rule lives on a later part of the section. */
  function followSplit() {
    var body = document.body;
    var parts = body.getAttribute("data-parts");
    var id = decodeURIComponent(window.location.hash.slice(1));
    var found = id && document.getElementById(id);
    if (found && found.hasAttribute("data-go")) {  /* an entry of the contents of later parts */
      window.location.replace(found.getAttribute("data-go"));
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
      if (e[0] === here) o.selected = true;
      select.appendChild(o);
    });
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
        var id = land(tables[target], key);
        window.location.href = folder + (id ? rulePage(id) : "index.html");
      };
      if (window.CR_LINEAGE && window.CR_LINEAGE[target]) go();
      else loadScript(root + "lineage/" + target + ".js", go);
    });
  }

  /* Search (Pagefind). */
  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  function wireSearch(form) {
    var status = document.getElementById("status"), list = document.getElementById("results");
    var q = form.querySelector("#q"), lang = form.querySelector("#lang"), ed = form.querySelector("#edition");
    var root = form.getAttribute("data-root") || "";
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) q.value = params.get("q");
    if (params.has("lang")) lang.value = params.get("lang");
    if (params.has("edition")) ed.value = params.get("edition");
    if (window.location.protocol === "file:") {
      document.getElementById("offline").hidden = false;
      status.textContent = "Search is not available on a page opened from disk.";
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      return;
    }
    var pagefind = null, seq = 0;
    function load() {
      if (pagefind) return Promise.resolve(pagefind);
      return import(new URL(form.getAttribute("data-bundle"), window.location.href).href).then(function (pf) {
        pagefind = pf;
        return pf.options({ excerptLength: 24 }).then(function () { return pf; });
      });
    }
    function run() {
      var text = q.value.trim(), mine = ++seq;
      var query = new URLSearchParams({ q: text, lang: lang.value, edition: ed.value });
      window.history.replaceState(null, "", "?" + query.toString());
      if (!text) { list.innerHTML = ""; status.textContent = ""; return; }
      var filters = {};
      if (lang.value) filters.language = lang.value;
      if (ed.value === "latest") filters.scope = "latest";
      else if (ed.value) filters.edition = ed.value;
      status.textContent = "Searching…";
      load().then(function (pf) {
        return pf.search(text, { filters: filters });
      }).then(function (found) {
        if (mine !== seq) return null;
        status.textContent = found.results.length + " result" + (found.results.length === 1 ? "" : "s");
        return Promise.all(found.results.slice(0, 30).map(function (r) { return r.data(); }));
      }).then(function (items) {
        if (!items || mine !== seq) return;
        list.innerHTML = items.map(function (d) {
          var url = d.meta.url || "", chosen = ed.value;
          if (chosen && chosen !== "latest" && d.filters.edition && d.filters.edition.indexOf(chosen) >= 0) {
            url = url.replace(/^[a-z]{2}\/[^/]+\//, chosen + "/");
          }
          var excerpt = String(d.excerpt || "").replace(/<(?!\/?mark>)[^>]*>/g, "");
          return '<li><a href="' + esc(root + url) + '">' + esc(d.meta.title || url) + "</a> " +
            '<span class="muted">' + esc(d.meta.where || "") + "</span><p>" + excerpt + "</p></li>";
        }).join("");
      }).catch(function (err) {
        status.textContent = "The search index could not be loaded (" + err + "). Rebuild the site with pagefind installed.";
      });
    }
    var timer = null;
    form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 250); });
    lang.addEventListener("change", run);
    ed.addEventListener("change", run);
    if (q.value) run();
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = { parse: parse, href: href, rulePage: rulePage, land: land };
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form.goto");
    for (var i = 0; i < forms.length; i++) wire(forms[i]);
    var switches = document.querySelectorAll("form.switch");
    for (var j = 0; j < switches.length; j++) wireSwitch(switches[j]);
    var search = document.getElementById("search");
    if (search) wireSearch(search);
    followSplit();
  });
  window.addEventListener("hashchange", followSplit);
})();
