/* comprules: any two editions of a language compared in the browser (issue 13).

   The page diff/{lang}/compare.html?old=DATE&new=DATE loads the two editions' texts
   (diff/data/{lang}/{date}.js, scripts: they load from disk; compressed, see texts()). Two consecutive
   editions (either way) show the alignment the build stored, which each script carries
   from its previous edition (the rows of the bulletin and of `comprules diff`); other
   pairs pair the units that share a lineage key, as comprules.align.lineage.Lineage.join
   does; each pair gets the facets of comprules.align.alignment (moved; words: edited,
   rewritten, typography, references), its words compared as the aligner compares them
   (quotes and dashes folded, a cited number that followed the renumbering no change). Served by
   `comprules serve`, the rows come from /api/v1/diff when the server answers it (the
   same shape, Alignment.to_json()); the texts still come from the scripts. Then the
   rows are shown as a bulletin is: new, edited, moved and edited, rewritten, split and
   merged, typography, removed, then the pure moves as a table. No dependencies. */
(function () {
  "use strict";

  var FOLD = {};
  "“”„«»″\"‘’‚′`´".split("").forEach(function (c) { FOLD[c] = "'"; });
  "‐‑‒–—―−".split("").forEach(function (c) { FOLD[c] = "-"; });
  var FOLD_RE = /[“”„«»″"‘’‚′`´‐‑‒–—―−]/g;
  /* as comprules.align.alignment._TOKEN: a Han character is a token of its own */
  var TOKEN = /\(TM\)|™|\p{Nd}+(?:\.\p{Nd}+[a-z]{0,2})?|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\P{L}\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+(?:['’](?=\p{L}))?|[^\p{L}\p{N}_\s]/gu;
  var PRINTED = /\(TM\)|™|\p{Nd}+(?:\.\p{Nd}+[a-z]{0,2})?|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\P{L}\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+(?:['’](?=\p{L}))?|[^\p{L}\p{N}_\s]|_/gu;
  var IGNORED = {"(TM)": 1, "™": 1, "'": 1, "-": 1};
  var RULE_ID = /^\d{3}(?:\.\d+[a-z]{0,2})?$/;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c];
    });
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src; s.onload = resolve;
      s.onerror = function () { reject(new Error("cannot load " + src)); };
      document.head.appendChild(s);
    });
  }

  /* An edition's data as its script holds it: JSON deflated (zlib) in base64, which the
     browser's DecompressionStream inflates (comprules.site.changes.texts_script). */
  function texts(name) {
    var raw = window.CR_TEXTS && window.CR_TEXTS[name];
    if (typeof raw !== "string") return Promise.reject(new Error("no texts of " + name));
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("This browser cannot inflate the editions' texts (no DecompressionStream): " +
                                      "open the page in a browser of 2023 or later."));
    }
    var bin = atob(raw), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }

  /* An edition's texts: units by id, lineage keys, order. */
  function prepare(data) {
    var ed = {name: data.name, date: data.date, units: {}, order: {}, at: new Map(), own: {}, sections: {}, ids: {}, qmarks: false};
    var n = 0, q = 0;
    function place(row, isSection) {
      var id = row[0], keys = row.length > 2 ? row.slice(2) : [id];
      ed.order[id] = n++;
      ed.ids[id] = 1;
      ed.own[id] = keys[0];  /* the rule's own lineage key comes first */
      if (isSection) ed.sections[id] = row[1]; else ed.units[id] = row[1];
      keys.forEach(function (k) { if (!ed.at.has(k)) ed.at.set(k, id); });
    }
    data.s.forEach(function (r) { place(r, true); });
    data.r.forEach(function (r) {
      place(r, false);
      if (q <= 20) { var m = r[1].match(/[a-z]\?[a-z]/g); if (m) q += m.length; }
    });
    /* the lineage keys in the knowledge base's order (Store.joined pairs in that order) */
    ed.keys = data.o || Array.from(ed.at.keys());
    ed.qmarks = q > 20;  /* 2008-05-01 and 2009-05-01 printed quotes as "?" */
    ed.rewritten = data.w || {};
    ed.step = data.p || null;  /* the stored alignment from the previous edition */
    return ed;
  }

  var MIRROR = {added: "removed", removed: "added", split: "merged", merged: "split"};

  /* A consecutive pair, either way: the stored alignment's rows (as `comprules diff`
     and the bulletin give them), the rules kept under their number restored. */
  function storedPair(A, B) {
    if (later(A, B)) {
      var back = storedPair(B, A);
      return back && mirrored(back);
    }
    if (!(B.step && B.step.old === A.name)) return null;
    var named = {};
    var rows = B.step.rules.map(function (r) {
      if (r[1] !== null) named[r[1]] = 1;
      return {old: r[0], new: r[1], kind: r[2], words: r[3], similarity: r[4],
              moved: r[0] !== null && r[1] !== null && r[0] !== r[1]};
    });
    Object.keys(B.units).forEach(function (id) {
      if (!named[id] && id in A.units) rows.push({old: id, new: id, kind: "kept", words: null, similarity: 1, moved: false});
    });
    return {old: A.name, new: B.name, rules: rows, source: "stored"};
  }

  function sectionOf(id) {
    var head = id.split("~")[0].split(/[.¶]/)[0];
    return /^\d{3}$/.test(head) ? head : null;
  }

  /* Tokens of a text with their spans; references (rule numbers of the edition) as
     "\u0000" + number; printed: quotes, dashes and underscores kept. */
  function tokens(text, ed, printed) {
    var src = printed ? text : text.replace(FOLD_RE, function (c) { return FOLD[c]; });
    if (!printed && ed.qmarks) src = src.replace(/\?/g, "'");
    var re = printed ? PRINTED : TOKEN, out = [], spans = [], m, prev2 = "", lastRef = null, lastEnd = 0;
    re.lastIndex = 0;
    while ((m = re.exec(src))) {
      var t = m[0], start = m.index, end = start + t.length;
      if (!printed && IGNORED[t]) continue;
      if (out.length && out[out.length - 1] === "{" && t[0] === "o" && t.length <= 3) {
        if (t === "o") continue;
        t = t.slice(1); start += 1;
      }
      if (t === "(TM)") t = "™";
      if (RULE_ID.test(t) && ed.ids[t]) { t = "\u0000" + t; lastRef = t.slice(1); lastEnd = end; }
      else if (/^\d$/.test(t) && /^sections?$|^chapters?$/i.test(prev2)) t = "\u0000" + t;
      else if (lastRef && /^[a-z]{1,2}$/.test(t) && /^[–—-]$/.test(text.slice(lastEnd, start))) {
        var member = lastRef.replace(/[a-z]+$/, "") + t;  /* "601.2f–h": the "h" is 601.2h */
        if (ed.ids[member]) t = "\u0000" + member;
        lastRef = null;
      } else if (!(printed && /^[–—-]$/.test(t))) lastRef = null;
      prev2 = m[0];
      out.push(t); spans.push([start, end]);
    }
    return {t: out, s: spans};
  }

  function mapped(toks, map) {
    return toks.map(function (t) {
      if (t.charCodeAt(0) !== 0) return t;
      var n = t.slice(1);
      return "\u0000" + (map[n] || n);
    });
  }

  /* Runs of changed tokens (i1, i2, j1, j2) from the longest common subsequence. */
  function blocks(a, b) {
    var lo = 0, ha = a.length, hb = b.length;
    while (lo < ha && lo < hb && a[lo] === b[lo]) lo++;
    while (ha > lo && hb > lo && a[ha - 1] === b[hb - 1]) { ha--; hb--; }
    var n = ha - lo, m = hb - lo, L = new Array((n + 1) * (m + 1)).fill(0), w = m + 1;
    for (var i = n - 1; i >= 0; i--)
      for (var j = m - 1; j >= 0; j--)
        L[i * w + j] = a[lo + i] === b[lo + j] ? L[(i + 1) * w + j + 1] + 1
          : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    var runs = [], x = 0, y = 0, cur = null;
    function extend(di, dj) {
      if (!cur) cur = [lo + x, lo + x, lo + y, lo + y];
      cur[1] += di; cur[3] += dj;
    }
    while (x < n || y < m) {
      if (x < n && y < m && a[lo + x] === b[lo + y]) {
        if (cur) { runs.push(cur); cur = null; }
        x++; y++;
      } else if (y >= m || (x < n && L[(x + 1) * w + y] >= L[x * w + y + 1])) { extend(1, 0); x++; }
      else { extend(0, 1); y++; }
    }
    if (cur) runs.push(cur);
    return {runs: runs, common: lo + L[0] + (a.length - ha)};
  }

  function equal(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /* One pair's facets and changed spans, as comprules.align.alignment._rule_change. */
  function compareTexts(ta, tb, A, B, map, rewritten) {
    if (ta === tb) return {words: null, similarity: 1, marks: []};
    var a = tokens(ta, A, false), b = tokens(tb, B, false), ma = mapped(a.t, map);
    if (!equal(ma, b.t)) {
      var d = blocks(ma, b.t), total = ma.length + b.t.length;
      return {words: rewritten ? "rewritten" : "edited", similarity: total ? 2 * d.common / total : 1,
              marks: spansOf(d.runs, a.s, b.s)};
    }
    var pa = tokens(ta, A, true), pb = tokens(tb, B, true), mpa = mapped(pa.t, map);
    if (!equal(mpa, pb.t)) return {words: "typography", similarity: 1, marks: spansOf(blocks(mpa, pb.t).runs, pa.s, pb.s)};
    /* as _printed_change: the cited numbers as printed ("409.1a-409.1h" → "409.1a-h"),
       then the spacing, then the symbol font and the trademark sign */
    var cited = function (p, text) {
      return p.t.map(function (t, k) { return t.charCodeAt(0) === 0 ? text.slice(p.s[k][0], p.s[k][1]) : null; })
        .filter(function (x) { return x !== null; }).join("\u0001");
    };
    if (cited(pa, ta) !== cited(pb, tb)) return {words: "references", similarity: 1, marks: []};
    var sign = function (s) { return s.replace(/\{o([^}\s]{1,2})\}/g, "{$1}").replace(/\(TM\)/g, "™"); };
    var spaced = function (s) { return s.split(/\s+/).filter(Boolean).join(" "); };
    var lines = function (s) { return s.split("\n").length; };
    if (spaced(ta) !== spaced(tb) || lines(ta) !== lines(tb))
      return {words: sign(ta) === sign(tb) ? null : "typography", similarity: 1, marks: []};
    return {words: "typography", similarity: 1, marks: []};  /* spacing */
  }

  function spansOf(runs, as, bs) {
    return runs.map(function (r) {
      return [r[1] > r[0] ? [as[r[0]][0], as[r[1] - 1][1]] : null,
              r[3] > r[2] ? [bs[r[2]][0], bs[r[3] - 1][1]] : null];
    });
  }

  function later(A, B) {  /* as comprules.align.alignment._order_key */
    return A.date > B.date || (A.date === B.date && A.name > B.name);
  }

  function mirrored(result) {
    result.rules.forEach(function (r) {
      var o = r.old; r.old = r.new; r.new = o;
      r.kind = MIRROR[r.kind] || r.kind;
      if (r.marks) r.marks = r.marks.map(function (m) { return [m[1], m[0]]; });
    });
    var name = result.old; result.old = result.new; result.new = name;
    delete result.mapping;  /* show() maps the cited numbers from the rows */
    return result;
  }

  /* The rows of Alignment.to_json() from the lineage keys both editions share, step by
     step as comprules.align.alignment.align_joined: the earlier edition first (the
     later first is its mirror image), the pairs in the later edition's order of keys
     (Store.joined), numbers mapped as _mapping maps them. */
  function alignInBrowser(A, B) {
    if (later(A, B)) return mirrored(alignInBrowser(B, A));
    var pairs = [], perOld = {}, perNew = {}, seen = {};
    B.keys.forEach(function (k) {  /* a pair met twice is one (a rule holding the keys of two later rules) */
      var a = A.at.get(k), b = B.at.get(k);
      if (a !== undefined && b !== undefined && !seen[a + "\u0001" + b]) { seen[a + "\u0001" + b] = 1; pairs.push([a, b]); }
    });
    var unitPairs = pairs.filter(function (p) { return p[0] in A.units && p[1] in B.units; });
    var map = {}, taken = {}, sectionMap = {}, chapters = {};
    unitPairs.forEach(function (p) {  /* a unit is paired once, either side */
      if (!(p[0] in map) && !taken[p[1]]) { map[p[0]] = p[1]; taken[p[1]] = 1; }
    });
    pairs.forEach(function (p) {  /* a section: the last pair */
      if (A.sections[p[0]] !== undefined && B.sections[p[1]] !== undefined) sectionMap[p[0]] = p[1];
    });
    Object.keys(sectionMap).forEach(function (so) {
      var sn = sectionMap[so], c = chapters[so[0]] = chapters[so[0]] || {};
      map[so] = sn;
      c[sn[0]] = (c[sn[0]] || 0) + 1;
    });
    Object.keys(chapters).forEach(function (co) {
      var best = co, top = -1;
      Object.keys(chapters[co]).sort().forEach(function (cn) {
        var v = chapters[co][cn];
        if (v > top || (v === top && cn === co)) { best = cn; top = v; }
      });
      map[co] = best;
    });
    unitPairs.forEach(function (p) { perOld[p[0]] = (perOld[p[0]] || 0) + 1; perNew[p[1]] = (perNew[p[1]] || 0) + 1; });
    var rows = unitPairs.map(function (p) {
      var dates = B.rewritten[B.own[p[1]]] || [];
      var rewritten = dates.some(function (d) { return d > A.date && d <= B.date; });
      var c = compareTexts(A.units[p[0]], B.units[p[1]], A, B, map, rewritten);
      var kind = perOld[p[0]] > 1 ? "split" : perNew[p[1]] > 1 ? "merged"
        : p[0] !== p[1] ? "renumbered" : (/^(edited|rewritten|typography)$/.test(c.words || "") ? "edited" : "kept");
      return {old: p[0], new: p[1], kind: kind, similarity: c.similarity, moved: p[0] !== p[1], words: c.words,
              marks: c.marks};
    });
    Object.keys(A.units).forEach(function (id) {
      if (!perOld[id]) rows.push({old: id, new: null, kind: "removed", similarity: 0, moved: false, words: null});
    });
    Object.keys(B.units).forEach(function (id) {
      if (!perNew[id]) rows.push({old: null, new: id, kind: "added", similarity: 0, moved: false, words: null});
    });
    return {old: A.name, new: B.name, rules: rows, mapping: map};
  }

  function facet(r) {
    if (r.old === null) return "added";
    if (r.new === null) return "removed";
    var words = r.words === "references" ? null : r.words;
    if (r.kind === "split" || r.kind === "merged") return words ? r.kind + " + " + words : r.kind;
    var parts = [];
    if (r.old !== r.new) parts.push("moved");
    if (words) parts.push(words);
    return parts.join(" + ") || "unchanged";
  }

  function groupOf(f) {
    if (f === "added" || f === "removed" || f === "edited" || f === "moved + edited") return f;
    if (f === "moved") return "moves";
    if (/^(split|merged)/.test(f)) return "split";
    if (f.indexOf("rewritten") >= 0) return "rewritten";
    if (f.indexOf("typography") >= 0) return "typography";
    return null;
  }

  /* Text as printed: escaped, changed runs marked, the edition's rule numbers linked,
     underscores as emphasis, URLs as links, the 2003-04 symbol font read. */
  function render(text, marks, tag, ed, link) {
    var events = [];
    (marks || []).forEach(function (m) { if (m) events.push([m[0], 0, "<" + tag + ">"], [m[1], 3, "</" + tag + ">"]); });
    var re = /\d{3}\.\d+[a-z]{0,2}|\b\d{3}\b/g, m;
    while ((m = re.exec(text))) {
      if (ed.ids[m[0]] && !/\d|\./.test(text[m.index - 1] || "")) {
        events.push([m.index, 1, '<a href="' + esc(link(ed, m[0])) + '">'], [m.index + m[0].length, 2, "</a>"]);
      }
    }
    events.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    var out = "", last = 0;
    events.forEach(function (e) {
      if (e[0] > last) { out += plain(text.slice(last, e[0])); last = e[0]; }
      out += e[2];
    });
    return out + plain(text.slice(last));
  }

  function plain(s) {
    return esc(s).replace(/\{o([^}\s<]{1,2})\}/g, "{$1}")
      .replace(/&lt;(https?:\/\/[^\s&]+)&gt;/g, '<a class="url" rel="external" href="$1">$1</a>')
      .replace(/(^|[\s(])((?:https?:\/\/|www\.)[^\s<]*[^\s<.,;:)])/g, function (all, pre, url) {
        return pre + '<a class="url" rel="external" href="' + (url[0] === "w" ? "http://" : "") + url + '">' + url + "</a>";
      })
      .replace(/(^|[^\p{L}\p{N}_])_([^\s_](?:[^_]*?[^\s_])?)_(?![\p{L}\p{N}_])/gu, "$1<em>$2</em>");
  }

  function show(result, A, B, cfg, started) {
    var root = cfg.root, lang = cfg.lang;
    var link = function (ed, id) {
      var sec = sectionOf(id);
      return root + lang + "/" + ed.date + "/" + (sec ? sec + ".html#" + id : "index.html#" + id);
    };
    var kinds = cfg.kinds, labels = cfg.labels;
    var label = function (f) { return f.split(" + ").map(function (p) { return kinds[p] || p; }).join(" + "); };
    var groups = {}, counts = {}, moves = [];
    result.rules.forEach(function (r) {
      var f = facet(r), g = groupOf(f);
      if (!g) return;
      counts[f] = (counts[f] || 0) + 1;
      if (g === "moves") moves.push(r); else (groups[g] = groups[g] || []).push(r);
    });
    var pos = function (r) { return r.new !== null ? B.order[r.new] : A.order[r.old] + 0.5; };
    var num = function (ed, id) { return '<a href="' + esc(link(ed, id)) + '">' + esc(id) + "</a>"; };
    var html = ["<h2>" + esc(A.name) + " → " + esc(B.name) + "</h2>"];
    var release = cfg.releases[A.date + ".." + B.date];
    if (release) html.push('<p class="meta"><a href="' + esc(release) + '">' + esc(A.date) + " → " + esc(B.date) + "</a></p>");
    var rank = function (f) { var g = cfg.groups.indexOf(groupOf(f)); return g < 0 ? cfg.groups.length : g; };
    var facets = Object.keys(counts).sort(function (x, y) { return rank(x) - rank(y) || (x < y ? -1 : 1); });
    if (facets.length) html.push('<ul class="counts">' + facets.map(function (f) {
      return '<li><span class="k k-' + f.replace(/ \+ /g, "-").replace(/ /g, "-") + '">' + esc(label(f)) + "</span> " + counts[f] + "</li>";
    }).join("") + "</ul>");
    else html.push('<p class="meta no-change">' + esc(labels.no_change.replace("{n}", String(result.rules.length))) + "</p>");
    cfg.groups.forEach(function (g) {
      var rows = groups[g];
      if (!rows) return;
      rows.sort(function (x, y) { return pos(x) - pos(y); });
      html.push("<h2>" + esc(labels[g]) + ' <span class="muted">(' + rows.length + ")</span></h2>");
      rows.forEach(function (r) {
        var f = facet(r), head = [];
        if (r.old !== null) head.push(num(A, r.old));
        if (r.old !== null && r.new !== null && r.old !== r.new) head.push("→");
        if (r.new !== null && (r.old === null || r.old !== r.new)) head.push(num(B, r.new));
        else if (r.new !== null) head.push('<a class="also" href="' + esc(link(B, r.new)) + '">→ ' + esc(B.date) + "</a>");
        head.push('<span class="k k-' + f.replace(/ \+ /g, "-").replace(/ /g, "-") + '">' + esc(label(f)) + "</span>");
        if ((r.words === "edited" || r.words === "rewritten") && r.similarity < 1)
          head.push('<span class="muted">' + Math.round(100 * r.similarity) + " % " + esc(labels.words_kept) + "</span>");
        var body;
        if (r.old !== null && r.new !== null && A.units[r.old] !== B.units[r.new]) {
          var marks = r.marks || compareTexts(A.units[r.old], B.units[r.new], A, B, result.mapping || {}, false).marks;
          body = '<div class="sbs"><p class="old">' + render(A.units[r.old], marks.map(function (m) { return m[0]; }), "del", A, link)
            + '</p><p class="new">' + render(B.units[r.new], marks.map(function (m) { return m[1]; }), "ins", B, link) + "</p></div>";
        } else if (r.new !== null) body = '<p class="' + (r.old === null ? "new" : "same") + '">' + render(B.units[r.new], [], "ins", B, link) + "</p>";
        else body = '<p class="old">' + render(A.units[r.old], [], "del", A, link) + "</p>";
        html.push('<section class="change k-' + r.kind + '" data-facet="' + esc(f) + '"><h3 class="move">' + head.join(" ") + "</h3>" + body + "</section>");
      });
    });
    if (moves.length) {
      moves.sort(function (x, y) { return pos(x) - pos(y); });
      html.push('<h2 id="moves">' + esc(labels.moves) + ' <span class="muted">(' + moves.length + ')</span></h2><table class="moves"><tbody>'
        + moves.map(function (r) { return "<tr><td>" + num(A, r.old) + "</td><td>→</td><td>" + num(B, r.new) + "</td></tr>"; }).join("")
        + "</tbody></table>");
    }
    var outEl = document.getElementById("diff-out");
    outEl.innerHTML = html.join("\n");
    window.CR_COMPARED = result;  /* for tests and the curious: Alignment.to_json()'s rows */
    outEl.setAttribute("data-rows", String(result.rules.length));
    outEl.setAttribute("data-counts", JSON.stringify(counts));
    outEl.setAttribute("data-source", result.source || "browser");
    outEl.setAttribute("data-ms", String(Math.round(performance.now() - started)));
    /* site.js widens its links under 24 px, as on the pages written whole */
    outEl.dispatchEvent(new CustomEvent("cr:content", {bubbles: true}));
  }

  function fromServer(lang, oldDate, newDate) {
    if (!/^https?:$/.test(window.location.protocol) || !window.fetch) return Promise.resolve(null);
    var url = "/api/v1/diff?old=" + encodeURIComponent(lang + "/" + oldDate) + "&new=" + encodeURIComponent(lang + "/" + newDate);
    return fetch(url).then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
      if (!data || !data.rules) return null;
      data.source = "server";
      return data;
    }).catch(function () { return null; });
  }

  /* The date of the edition ``typed`` in the address: a date of the menus, or the set name one
     of them prints after it, case aside; null for none (a trial: ?old=bogus said "cannot load
     ../data/en/bogus.js", ?old=Bloomburrow the same). */
  function editionDate(form, typed, lang) {
    var options = form.querySelector("[name=old]").options, want = String(typed).trim().toLowerCase();
    /* the name the CLI and the API give ("en/2026-08-07"), of this page's language */
    if (want.indexOf(lang + "/") === 0) typed = want = want.slice(lang.length + 1);
    if (want === "latest" && options.length) return options[0].value;  /* the menus list the newest first */
    for (var i = 0; i < options.length; i++) {
      var o = options[i], set = (o.textContent.split(" — ")[1] || "").trim().toLowerCase();
      var code = (o.getAttribute("data-code") || "").toLowerCase();  /* "BLB", as the CLI takes it */
      if (o.value === typed || (set && set === want) || (code && code === want)) return o.value;
    }
    return null;
  }

  function start() {
    var cfgEl = document.getElementById("compare-config");
    if (!cfgEl) return;
    var cfg = JSON.parse(cfgEl.textContent);
    var params = new URLSearchParams(window.location.search);
    var oldDate = params.get("old"), newDate = params.get("new");
    var form = document.querySelector("form.compare"), unknown = null;
    /* an edition by its date, or by its set as the menus print it ("Bloomburrow") */
    var dated = function (field, typed) {
      if (!form || !typed) return typed;
      var date = editionDate(form, typed, cfg.lang);
      if (date === null) unknown = unknown === null ? typed : unknown;
      else form.querySelector("[name=" + field + "]").value = date;
      return date;
    };
    oldDate = dated("old", oldDate);
    newDate = dated("new", newDate);
    if (unknown !== null) {
      var outEl = document.getElementById("diff-out");
      outEl.textContent = cfg.labels.no_edition.replace("{q}", unknown);
      outEl.setAttribute("data-error", "1");
      return;
    }
    if (!oldDate || !newDate) {  /* the page opened bare (a trial: nothing under the menus) */
      var bare = document.getElementById("diff-out");
      bare.textContent = cfg.labels.choose_two;
      bare.className = (bare.className + " meta").trim();
      return;
    }
    var started = performance.now();
    var src = function (d) { return cfg.data.replace("DATE", d); };
    var names = [cfg.lang + "/" + oldDate, cfg.lang + "/" + newDate];
    Promise.all([loadScript(src(oldDate)), newDate === oldDate ? null : loadScript(src(newDate)),
                 fromServer(cfg.lang, oldDate, newDate)]).then(function (got) {
      return Promise.all([texts(names[0]), texts(names[1]), got[2]]);
    }).then(function (got) {
      var A = prepare(got[0]), B = prepare(got[1]);
      var result = got[2] || storedPair(A, B) || alignInBrowser(A, B);
      if (!result.mapping) {  /* the server's rows: cited numbers follow its pairs */
        result.mapping = {};
        result.rules.forEach(function (r) { if (r.old && r.new && !(r.old in result.mapping)) result.mapping[r.old] = r.new; });
      }
      show(result, A, B, cfg, started);
    }).catch(function (err) {
      var outEl = document.getElementById("diff-out");
      outEl.textContent = String(err.message || err);
      outEl.setAttribute("data-error", "1");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
