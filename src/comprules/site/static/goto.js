/* comprules: the header's go-to box, and links of other CR sites.

   The box (form.find, "/" focuses it) takes a rule number in any usual form
   ("702.37a", "R70237a", "rule 702.37a", "702.37 a", "§702.37a"), a keyword, rule
   title or glossary term ("morph" -> 702.37), a label ("layer 7" -> 613.1g), an old
   number ("502.26a" -> "renumbered: now 702.37a", by lineage), a Yawgatog or mtg.wtf
   link; anything else opens the search results (or, without search, says that
   nothing matches). It says in words when a number is not in the page's edition, and
   where it is. Data are scripts loaded when a query needs them, so it works opened
   from disk: lineage/{lang}/{date}.js (the edition's ids), goto/{lang}/{date}.js (its
   words), goto/{lang}/n{digit}.js (every number of every edition, with its lineage
   key); see comprules/site/goto.py.

   The home page and go.html also take a Yawgatog (#R70237a,
   #active_player_nonactive_player_order) or mtg.wtf (#section-702-37a) fragment or
   whole link and land on the rule in the latest edition. */
(function () {
  "use strict";

  /* model.py's normalize_number and indexer/query.py's rule_number, the forms `comprules
     show`, search and this box take (tests/test_search_site.py binds them to Python). */
  var RULE_NUMBER = /^[1-9](?:\d\d(?:\.\d+[a-z]{0,2})?)?$/i;  /* "0" is a word ("{0}") */
  var SECTION_ANCHOR = /^#?section-(\d{1,3})(?:-(\d+)([a-z]{0,2}))?$/i;
  var NUMBER_PREFIX = /^(?:(?:see(?:\s+also)?|voir(?:\s+aussi)?|另?参见)\s*)?(?:cr|comprehensive rules?|rules?|r[èe]gles?|规则|§)?\s*/i;
  var CITED_TITLE = /\s*,\s*[“"«][^“”"«»]*[”"»]?\s*[.,;:)]*\s*$/;  /* 'See rule 702.19, “Trample.”' */
  var CITATION = /^R?(\d)(\d\d)(?:\.?(\d+)([a-z]{0,2}))?$/;
  var DOTTED = /^(\d{3})[.,](\d+)\s*([a-z]{0,2})$/i;
  var UNIT_ID = /^(?:\d{3}(?:\.\d+[a-z]{0,2})?(?:~\d+|¶\d+)|¶\d+)$/;
  function normalizeNumber(t) {  /* model.normalize_number of a text NFKC'd and trimmed; null: none */
    if (!t) return null;
    var m = SECTION_ANCHOR.exec(t);
    if (m) return m[1] + (m[2] ? "." + m[2] + m[3].toLowerCase() : "");
    t = t.replace(NUMBER_PREFIX, "").replace(CITED_TITLE, "");
    t = t.replace(NUMBER_PREFIX, "").replace(/\s*\(([a-z]{1,2})\)$/i, "$1");  /* "702.37 (a)" */
    t = t.replace(/[.:,;)]+$/, "");  /* "CR § 702.37a." */
    if (t[0] === "r" && /^\d/.test(t.slice(1))) t = "R" + t.slice(1);
    m = CITATION.exec(t[0] === "R" ? "R" + t.slice(1).toLowerCase() : t.toLowerCase());
    if (m && (t[0] === "R" || t.indexOf(".") < 0)) return m[1] + m[2] + (m[3] ? "." + m[3] + m[4] : "");
    m = DOTTED.exec(t);
    if (m) return m[1] + "." + m[2] + m[3].toLowerCase();
    return /^\d/.test(t) ? t : null;
  }

  function ruleNumber(text) {  /* query.rule_number */
    text = String(text).normalize("NFKC").replace(/\u3002/g, ".").trim();  /* full-width digits; 。 */
    if (/^[(\[]/.test(text) && /[)\]]$/.test(text)) text = text.slice(1, -1).trim();  /* "(502.26a)" */
    if (UNIT_ID.test(text)) return text;
    if (/^\d{4,}$/.test(text)) return null;  /* a year ("2024"), not 202.4 written as a citation */
    var n = normalizeNumber(text);
    return n !== null && RULE_NUMBER.test(n) ? n.toLowerCase() : null;
  }

  /* What the box and a link's fragment name: a rule number in any of those forms
     ("702.37a", "R70237a", "rule 702.37a", "702.37 (a)", "section-702-37a", "#R70237a"),
     or Yawgatog's anchor of a chapter ("R4" -> "4"); else null. */
  function number(text) {
    var s = String(text || "").trim().replace(/^#(?=R\d)/, ""), m = /^R(\d)$/.exec(s);
    if (m) return m[1];
    var n = ruleNumber(s);
    return n && !UNIT_ID.test(n) ? n : null;
  }

  /* The page of a rule id inside an edition folder: 702.37a -> 702.html#702.37a
     (a split section's page script goes on to the right part). */
  function pageOf(id) {
    var head = id.split("~")[0], section = head.split(/[.¶]/)[0];
    if (!/^\d{3}$/.test(section)) return "index.html#" + id;
    return head === section ? section + ".html" : section + ".html#" + id;
  }

  var NAMED = {introduction: "all.html#section-introduction", contents: "index.html",
               glossary: "glossary.html", credits: "all.html"};

  /* A link's fragment (or the text itself when it has none), decoded; null: undecodable. */
  function fragment(text) {
    var s = String(text || "").trim(), at = s.indexOf("#");
    try { return decodeURIComponent(at >= 0 ? s.slice(at + 1) : s); } catch (e) { return null; }
  }

  /* Where a Yawgatog or mtg.wtf link (or its fragment alone) lands, relative to an
     edition folder ("en/latest/"); null when it names nothing. */
  function citation(text) {
    var hash = fragment(text);
    if (!hash) return null;
    var m = /^section-([a-z]+)$/.exec(hash);
    if (m) return NAMED[m[1]] || null;
    var n = number(hash);
    if (n) return pageOf(n);
    if (/^[a-z0-9][a-z0-9_-]*$/.test(hash)) return "all.html#" + hash;  /* a glossary anchor */
    return null;
  }

  function isLink(text) {
    return /yawgatog\.com|mtg\.wtf|^#(R\d|section-|[a-z]+_)/i.test(String(text).trim());
  }

  /* Lower case, accents, quotes and periods out (as comprules.site.goto.fold). */
  function fold(text) {
    var plain = String(text).toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "").normalize("NFC");
    return plain.replace(/["“”‘’'.]/g, "").replace(/\s+/g, " ").trim();
  }

  var loading = {};
  function load(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src; s.onload = resolve; s.onerror = function () { reject(new Error(src)); };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }

  /* The ids of an edition, from its lineage table {s: "ids", m: {key: id}}. */
  function lineage(ctx) {
    return load(ctx.root + "lineage/" + ctx.edition + ".js").then(function () {
      var table = (window.CR_LINEAGE || {})[ctx.edition];
      if (!table) return null;
      if (!table.ids) {
        table.same = new Set(table.s ? table.s.split(" ") : []);
        table.ids = new Set(table.same);
        Object.keys(table.m).forEach(function (k) { table.ids.add(table.m[k]); });
      }
      return table;
    }, function () { return null; });
  }

  function land(table, key) {
    if (!table) return null;
    if (Object.prototype.hasOwnProperty.call(table.m, key)) return table.m[key];
    return table.same.has(key) ? key : null;
  }

  function numbers(ctx, n) {
    var lang = ctx.edition.split("/")[0], name = lang + ":" + n.charAt(0);
    return load(ctx.root + "goto/" + lang + "/n" + n.charAt(0) + ".js").then(function () {
      return (window.CR_GOTO || {})[name] || null;
    }, function () { return null; });
  }

  /* The go-to words of edition or document ``name`` (goto/{lang}/{date}.js, goto/fr/{doc}.js), or null. */
  function words(ctx, name) {
    if (!name) return Promise.resolve(null);
    return load(ctx.root + "goto/" + name + ".js").then(function () {
      var data = (window.CR_GOTO || {})[name];
      return data ? data.w : null;
    }, function () { return null; });
  }

  function span(dates, run) {
    return run[1] === run[2] ? dates[run[1]] : dates[run[1]] + " – " + dates[run[2]];
  }

  /* The run of a number that a query on an edition means, as `comprules show` says where a
     number went (kb.no_rule): the number as the nearest earlier edition printed it, else as
     the latest edition that printed it (702.19b on 2002-10-07 is Trample's 502.9b, not 2009's
     "bands with other"; 722.2a on 2025-09-19 is 2025-06-06's, 723.2a). Dates are ISO. */
  function nearest(runs, dates, date) {
    var before = null, latest = null;
    runs.forEach(function (run) {
      if (dates[run[2]] < date && (!before || run[2] > before[2])) before = run;
      if (!latest || run[2] > latest[2]) latest = run;
    });
    return before || latest;
  }

  /* What a query means in ctx: {href, note} to go (note shown on arrival), or
     {message, href?} to say (with a link), or {search: true}. */
  function resolve(text, ctx) {
    var q = String(text || "").trim();
    if (!q) return Promise.resolve({message: ""});
    if (isLink(q)) {
      var cited = number(fragment(q));
      /* an edition's zip holds no latest edition: the rule today's number was in this one
         (its lineage key; a phone trial: #R70237a, today's Morph, landed on 2009's Storm) */
      if (ctx.alone && cited) return inThisEdition(cited, ctx);
      var to = citation(q);
      return Promise.resolve(to ? {href: ctx.latest + to} : {search: true, message: ctx.say.nothing.replace("{q}", q)});
    }
    var n = number(q);
    var here = ctx.page && n ? document.getElementById(n) : null;
    if (here && here.closest("main") && !here.closest("header")) return Promise.resolve({href: "#" + n});
    if (n) return resolveNumber(n, ctx);
    var key = fold(q).replace(/^(?:rule|règle|the|le|la|les)\s+/, "");
    return words(ctx, ctx.own).then(function (own) {  /* a document's own words first, on its page */
      var mine = own && (own[key] || own[key.replace(/s$/, "")]);
      if (mine) return {href: "#" + mine.split("#").pop(), query: q};
      return words(ctx, ctx.edition).then(function (w) {
        var target = w && (w[key] || w[key.replace(/s$/, "")] || keywordOf(key, w));
        if (!target) return {search: true, message: ctx.say.nothing.replace("{q}", q)};
        if (target.indexOf("#") >= 0) return {href: ctx.base + target, query: q};  /* a glossary entry */
        return resolveNumber(target, ctx).then(function (r) { r.query = q; return r; });
      });
    });
  }

  /* A keyword ability or action typed as a card prints it, with its parameter (as
     searching._keyword_keys reads it): "ward 2", "equip {1}", "ward—pay 3 life",
     "protection from red", 反蓝保护 (702.16a and 702.11d print “反[特性]保护”, “反[特性]辟邪”): the keyword's rule
     number in go-to words ``w`` (a rule of 701, 702, or 502 before 2009), else null. */
  var KEYWORD_FORMS = [
    /^(.+?)\s*(?:\u2014|\u2013| - )\s*\S/,
    /^(.+?)(?:\s+(?:\d+|x|\{[^}]*\}))+$/,
    /^(.+?)\s+(?:from|for|onto|with)\s+\S/
  ];
  function keywordOf(key, w) {
    var heads = [];
    KEYWORD_FORMS.forEach(function (form) { var m = form.exec(key); if (m) heads.push(m[1].trim()); });
    if (/^反[\u3400-\u9fff]{2,8}$/.test(key)) {  /* “反[特性]保护”: the keyword last (not any sentence ending in 保护) */
      for (var n = 2; n <= 4 && n < key.length - 1; n++) heads.push(key.slice(-n));
    }
    for (var i = 0; i < heads.length; i++) {
      var t = w[heads[i]];
      if (t && /^(?:70[12]|502)\.\d+$/.test(t)) return t;
    }
    return null;
  }

  /* Today's number ``n`` (a Yawgatog or mtg.wtf link) inside an edition's zip: the rule of
     this edition in its lineage, with a note when its number was another; else as a number
     of this edition's own (resolveNumber). */
  function inThisEdition(n, ctx) {
    return lineage(ctx).then(function (table) {
      var id = land(table, n);
      if (!id) return resolveNumber(n, ctx);
      if (id === n) return {href: ctx.go(id)};
      return numbers(ctx, n).then(function (data) {
        var today = data && data.d.length ? data.d[data.d.length - 1] : "";
        var note = ctx.say.switched.replace("{n}", n).replace("{from}", today).replace("{id}", id)
          .replace("{edition}", ctx.edition.split("/")[1]);
        return {href: ctx.go(id), note: note};
      });
    });
  }

  /* A number no edition of a translation prints, as the English editions printed it (a
     phone trial: 502.26a typed on a Chinese page "did not exist"): the rule of this
     edition under the English rule's key today (702.37a, Morph), with a note; null when
     the English editions do not print it either, or its rule is not printed today. */
  function viaEnglish(ctx, n, table) {
    return numbers({edition: "en/", root: ctx.root}, n).then(function (data) {
      var runs = data && data.n[n];
      if (!runs || !table) return null;
      var last = runs.reduce(function (a, r) { return r[2] > a[2] ? r : a; });
      var key = last[0] || n, id = key.indexOf("@") < 0 ? land(table, key) : null;
      if (!id) return null;
      var first = runs.reduce(function (a, r) { return r[1] < a[1] ? r : a; });
      var dates = span(data.d, [null, first[1], last[2]]);
      return {href: ctx.go(id), note: ctx.say.english.replace("{n}", n).replace("{dates}", dates).replace("{id}", id)};
    });
  }

  function resolveNumber(n, ctx) {
    var date = ctx.edition.split("/")[1], lang = ctx.edition.split("/")[0], say = ctx.say;
    return lineage(ctx).then(function (table) {
      if (table && table.ids.has(n)) return {href: ctx.go(n)};
      return numbers(ctx, n).then(function (data) {
        var runs = data && data.n[n];
        if (!runs) {
          if (!table && !data) return {href: ctx.go(n)};  /* no data (an old site): try the page */
          var all = data ? data.d[0] + " – " + data.d[data.d.length - 1] : "";
          var none = {message: say.none.replace("{n}", n).replace("{editions}", all)};
          if (lang === "en") return none;
          return viaEnglish(ctx, n, table).then(function (found) { return found || none; });
        }
        var run = nearest(runs, data.d, date), key = run[0] || n;
        var id = land(table, key);
        if (id) {
          /* the words follow time: a number printed after this edition "was" {id} here */
          var later = data.d[run[1]] > date, words = later ? say.was : say.now;
          return {href: ctx.go(id), note: words.replace("{n}", n).replace("{dates}", span(data.d, run)).replace("{id}", id).replace("{edition}", date)};
        }
        /* not in this edition: each run of editions that printed it, the latest first, with
           where that rule is now (its number in the latest edition, or its last edition) */
        var links = runs.slice().reverse().slice(0, 3).map(function (r) {
          var k = r[0] || n, where = data.d[r[2]], as = n;
          if (k.indexOf("@") < 0 && k !== n) { where = data.d[data.d.length - 1]; as = k; }
          return [span(data.d, r) + " → " + as + " (" + where + ")",
                  ctx.alone ? null : ctx.root + lang + "/" + where + "/" + pageOf(as)];
        });
        return {message: say.elsewhere.replace("{n}", n).replace("{edition}", ctx.edition.split("/")[1]), links: links};
      });
    });
  }

  var WORDS = {
    en: {now: "Renumbered: {n} ({dates}) is now {id}.",
         was: "Renumbered later: {n} ({dates}) was {id} in this edition ({edition}).",
         none: "{n} does not exist: no edition prints it ({editions}).",
         elsewhere: "{n} is not in this edition ({edition}). Printed:",
         nothing: "Nothing matches “{q}” in this edition.",
         search: "Search every rule for “{q}”",
         switched: "{n} of {from} is {id} in this edition ({edition}).",
         notyet: "{n} of {from} did not exist yet in {edition}: first printed {first} as {as}.",
         gone: "{n} of {from} was no longer printed in {edition}: last printed {last} as {as}.",
         missing: "{n} of {from} is not in {edition}.",
         english: "{n} of the English editions ({dates}) is {id} today."},
    fr: {now: "Renumérotée : {n} ({dates}) est maintenant {id}.",
         was: "Renumérotée plus tard : {n} ({dates}) était {id} dans cette édition ({edition}).",
         none: "{n} n’existe pas : aucune édition ne l’imprime ({editions}).",
         elsewhere: "{n} n’est pas dans cette édition ({edition}). Imprimée :",
         nothing: "Rien ne correspond à « {q} » dans cette édition.",
         search: "Chercher « {q} » dans toutes les règles",
         switched: "{n} de {from} est {id} dans cette édition ({edition}).",
         notyet: "{n} de {from} n’existait pas encore le {edition} : imprimée d’abord le {first} comme {as}.",
         gone: "{n} de {from} n’était plus imprimée le {edition} : imprimée pour la dernière fois le {last} comme {as}.",
         missing: "{n} de {from} n’est pas dans l’édition du {edition}.",
         english: "{n} des éditions anglaises ({dates}) est aujourd’hui {id}."},
    zh: {now: "已重新编号：{n}（{dates}）现为 {id}。",
         was: "后来重新编号：{n}（{dates}）在此版本（{edition}）中为 {id}。",
         none: "{n} 不存在：没有任何版本收录（{editions}）。",
         elsewhere: "{n} 不在此版本（{edition}）中。收录于：",
         nothing: "此版本中没有与“{q}”相符的内容。",
         search: "在所有规则中搜索“{q}”",
         switched: "{from} 的 {n} 在此版本（{edition}）中为 {id}。",
         notyet: "{from} 的 {n} 在 {edition} 尚不存在：首次收录于 {first}，编号 {as}。",
         gone: "{from} 的 {n} 在 {edition} 已不再收录：最后收录于 {last}，编号 {as}。",
         missing: "{from} 的 {n} 不在 {edition} 版本中。",
         english: "英文版的 {n}（{dates}）现为 {id}。"}
  };

  /* What the edition switcher says on arrival (issue 22): the rule {n} of edition {from}
     (its lineage key {key}) is {id} in edition ctx.edition, or, when that edition has no
     version of it, whether it did not exist yet or was no longer printed, with the first
     or last edition that printed it and its number there (every number's runs of editions
     and lineage keys: goto/{lang}/n{digit}.js). A promise of the note, "" when the rule
     kept its number. */
  function switchNote(ctx, key, n, from, id) {
    var lang = ctx.edition.split("/")[0], date = ctx.edition.split("/")[1], fromDate = from.split("/")[1];
    var say = WORDS[lang] || WORDS.en;
    function fill(text, more) {
      text = text.replace("{n}", n).replace("{from}", fromDate).replace("{edition}", date);
      Object.keys(more || {}).forEach(function (k) { text = text.replace("{" + k + "}", more[k]); });
      return text;
    }
    if (id) return Promise.resolve(id === n ? "" : fill(say.switched, {id: id}));
    var files = [];
    for (var digit = 1; digit <= 9; digit++) files.push(numbers(ctx, String(digit)));
    return Promise.all(files).then(function (all) {
      var first = null, last = null;
      all.forEach(function (data) {
        if (!data) return;
        Object.keys(data.n).forEach(function (number) {
          data.n[number].forEach(function (run) {
            if ((run[0] || number) !== key) return;
            var a = data.d[run[1]], b = data.d[run[2]];
            if (!first || a < first.date) first = {date: a, as: number};
            if (!last || b > last.date) last = {date: b, as: number};
          });
        });
      });
      if (first && date < first.date) return fill(say.notyet, {first: first.date, as: first.as});
      if (last && date > last.date) return fill(say.gone, {last: last.date, as: last.as});
      return fill(say.missing);
    });
  }

  /* The words of a box's page: a French document's own (its numbers are its English edition's). */
  function wordsOf(form) {
    return WORDS[(form.getAttribute("data-own") || form.getAttribute("data-edition") || "en/").split("/")[0]] || WORDS.en;
  }

  function context(form) {
    var base = form.getAttribute("data-base") || "", single = document.body.getAttribute("data-single");
    return {
      edition: form.getAttribute("data-edition"), base: base, root: form.getAttribute("data-root") || "",
      latest: form.getAttribute("data-latest") || "", page: true,
      alone: form.hasAttribute("data-alone"),  /* an edition's zip (site/bundle.py): no other edition */
      own: form.getAttribute("data-own") || "",  /* a document whose own words come first */
      say: wordsOf(form),
      go: function (id) { return single && base === "" ? "#" + id : base + pageOf(id); }
    };
  }

  var NOTE = "comprules.goto";

  function go(href, note, status, query) {
    try {
      if (note || query) sessionStorage.setItem(NOTE, JSON.stringify({note: note || "", query: query || "",
                                                                       hash: href.split("#")[1] || ""}));
    } catch (e) { /* storage refused: go without the note */ }
    if (note && status) status.textContent = note;
    window.location.href = href;
  }

  /* On arrival: the note the box left ("Renumbered: 502.26a … is now 702.37a"). */
  function showNote() {
    var saved = null;
    try { saved = JSON.parse(sessionStorage.getItem(NOTE) || "null"); } catch (e) { return; }
    if (!saved || !(saved.note || saved.query)) return;
    var hash = decodeURIComponent(window.location.hash.slice(1)), el = hash && document.getElementById(hash);
    if (saved.hash && hash === saved.hash && (!el || el.hasAttribute("data-go"))) return;  /* passing through a split section's first part */
    try { sessionStorage.removeItem(NOTE); } catch (e) { /* ignore */ }
    if (saved.hash && hash !== saved.hash) return;
    var status = document.getElementById("cr-status"), form = document.querySelector("form.find[action]");
    if (!status) return;
    status.textContent = saved.note ? saved.note + " " : "";
    if (saved.query && form) {  /* a word sent here: the search results are one link away */
      var say = wordsOf(form);
      var a = document.createElement("a");
      a.href = form.getAttribute("action") + "?q=" + encodeURIComponent(saved.query);
      a.textContent = say.search.replace("{q}", saved.query);
      status.appendChild(a);
    }
  }

  /* A message in a status line, with its links ([text, href]) after it. */
  function tell(status, message, links) {
    status.textContent = message || "";
    (links || []).forEach(function (link, i) {
      status.appendChild(document.createTextNode(i ? "; " : " "));
      if (!link[1]) { status.appendChild(document.createTextNode(link[0])); return; }  /* not here */
      var a = document.createElement("a");
      a.href = link[1]; a.textContent = link[0];
      status.appendChild(a);
    });
  }

  function wireFind(form) {
    var input = form.querySelector("input"), status = document.getElementById("cr-status");
    var searchable = form.hasAttribute("action");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var ctx = context(form), q = input.value;
      status.textContent = "";
      resolve(q, ctx).then(function (r) {
        if (r.href && !r.message) { go(r.href, r.note, status, r.query); return; }
        if (r.search && searchable) { window.location.href = form.getAttribute("action") + "?q=" + encodeURIComponent(q.trim()); return; }
        tell(status, r.message, r.links);
        input.focus();
      });
    });
    input.addEventListener("input", function () { status.textContent = ""; });
  }

  /* Follow a Yawgatog or mtg.wtf link (or its fragment) to the latest edition: a rule
     number as the go-to box takes it (resolveNumber: "Renumbered: 502.26a … is now
     702.37a" on arrival; "999.999 does not exist" said here, not a page that is not
     there), a glossary anchor to the one-page CR; anything else is said to be no link. */
  function follow(given, replace) {
    var base = document.body.getAttribute("data-latest");
    var status = document.getElementById("go-status") || document.getElementById("cr-status");
    var text = String(given || "").trim(), to = citation(text);
    function say(message, links) { if (status) tell(status, message, links); }
    if (!to || !(isLink(text) || /^#?R\d/i.test(text) || text.indexOf("#") >= 0)) {
      say("Not a Yawgatog or mtg.wtf rule link: " + text);
      return;
    }
    var n = number(fragment(text)), form = document.querySelector("form.find[data-edition]");
    if (!n || !form) {
      if (replace) window.location.replace(base + to); else window.location.href = base + to;
      return;
    }
    var ctx = context(form);
    ctx.page = false;
    resolveNumber(n, ctx).then(function (r) {
      if (r.href && !r.message) go(r.href, r.note, null);
      else say(r.message || "", r.links);
    });
  }

  function redirect() {
    var body = document.body;
    if (body.getAttribute("data-latest") === null) return;
    var params = new URLSearchParams(window.location.search);
    var given = params.get("u") || window.location.hash;
    var id = window.location.hash.slice(1);
    if (!given || (id && !params.get("u") && document.getElementById(decodeURIComponent(id)))) return;
    follow(given, true);
  }

  function wireLink(form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      follow(form.querySelector("input").value, false);
    });
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = {number: number, ruleNumber: ruleNumber, citation: citation, pageOf: pageOf, fold: fold, nearest: nearest};
    return;
  }
  window.CRGoto = {number: number, ruleNumber: ruleNumber, citation: citation, pageOf: pageOf, resolve: resolve, switchNote: switchNote, go: go};
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form.find");
    for (var i = 0; i < forms.length; i++) wireFind(forms[i]);
    var links = document.querySelectorAll("form.link");
    for (var j = 0; j < links.length; j++) wireLink(links[j]);
    redirect();
    showNote();
  });
  window.addEventListener("hashchange", showNote);  /* the box went to a rule of this very page */
})();
