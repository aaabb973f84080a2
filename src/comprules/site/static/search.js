/* comprules search in the browser: the same ranking as the Python engine
   (src/comprules/indexer/: text.py, query.py, rank.py, searching.py, suggest.py,
   lexicon.py, snippets.py), step by step, on the data the build exports
   (indexer/export.py, search/{lang}.js: window.CR_SEARCH[lang]).
   Only +, ×, ÷ and comparisons on doubles, in the Python engine's order, so both give
   the same scores to the bit; tests/test_search_site.py checks it in chromium on
   every query of both relevance sets. No dependencies, works from disk (file://). */
(function (root) {
  "use strict";

  /* --- text.py: fold, tokenize ------------------------------------------------------ */
  var SPELLED = {"æ": "ae", "œ": "oe", "ß": "ss", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"};
  var MARK = /\p{M}/u;
  var TOKEN = /\{[^{}\s]{1,6}\}|[\p{L}\p{N}]+(?:\.[\p{L}\p{N}]+)*/gu;
  var DIGIT = /[0-9]/;
  var foldCache = new Map();

  function foldChar(ch) {
    var out = foldCache.get(ch);
    if (out !== undefined) return out;
    out = "";
    for (var c of ch.toLowerCase().normalize("NFKD")) {
      if (MARK.test(c)) continue;
      out += Object.prototype.hasOwnProperty.call(SPELLED, c) ? SPELLED[c] : c;
    }
    foldCache.set(ch, out);
    return out;
  }

  function fold(text) {
    var out = "";
    for (var ch of text) out += foldChar(ch);
    return out;
  }

  /* Chinese: each run of Han characters of a token is cut into words against the
     vocabulary the index was cut with (comprules.segment, made by the build from the
     knowledge base's Chinese editions: search/segment.js, window.CR_SEGMENT; none: a
     character a word, as in Python), by jieba's method on integer scores, exactly
     as text.py's _pieces does. */
  var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var HAN_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var SEG = null;

  function segmenter() {
    if (SEG) return SEG;
    var raw = root.CR_SEGMENT || {words: {}, unknown: 0}, words = new Map(), longest = 1;
    for (var w in raw.words) { words.set(w, raw.words[w]); longest = Math.max(longest, w.length); }
    SEG = {words: words, unknown: raw.unknown, longest: longest};
    return SEG;
  }

  function spans(run) {  /* [start, end] of each word of a Han run (UTF-16 = code points here) */
    var S = segmenter(), n = run.length, best = new Array(n + 1), end = new Array(n), i, j;
    best[n] = 0;
    for (i = n - 1; i >= 0; i--) {
      var top = null, topEnd = 0;
      for (j = i + 1; j <= Math.min(n, i + S.longest); j++) {
        var sc = S.words.get(run.slice(i, j));
        if (sc !== undefined && (top === null || sc + best[j] >= top)) { top = sc + best[j]; topEnd = j; }
      }
      if (top === null) { top = S.unknown + best[i + 1]; topEnd = i + 1; }
      best[i] = top; end[i] = topEnd;
    }
    var out = [];
    for (i = 0; i < n; i = end[i]) out.push([i, end[i]]);
    return out;
  }

  function matches(folded) {  /* [start, end, token] of folded text, Han runs cut */
    var out = [], m;
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(folded)) !== null) {
      var token = m[0], at = m.index;
      if (!HAN.test(token)) { out.push([at, at + token.length, token]); continue; }
      var pos = 0, h, t, sub = new RegExp(TOKEN.source, "gu");
      HAN_RUN.lastIndex = 0;
      while ((h = HAN_RUN.exec(token)) !== null) {
        if (h.index > pos) {
          var part = token.slice(pos, h.index);
          sub.lastIndex = 0;
          while ((t = sub.exec(part)) !== null) out.push([at + pos + t.index, at + pos + t.index + t[0].length, t[0]]);
        }
        spans(h[0]).forEach(function (w) { out.push([at + h.index + w[0], at + h.index + w[1], h[0].slice(w[0], w[1])]); });
        pos = h.index + h[0].length;
      }
      if (pos < token.length) {
        var rest = token.slice(pos);
        sub.lastIndex = 0;
        while ((t = sub.exec(rest)) !== null) out.push([at + pos + t.index, at + pos + t.index + t[0].length, t[0]]);
      }
    }
    return out;
  }

  function tokens(text) {
    var folded = fold(text);
    if (!HAN.test(folded)) return folded.match(TOKEN) || [];
    return matches(folded).map(function (x) { return x[2]; });
  }
  function isHan(token) { return HAN.test(token); }

  /* [start, end, token] with offsets (UTF-16 units) in the original text. */
  function tokenSpans(text) {
    var folded = "", startOf = [], endOf = [], i = 0;
    for (var ch of text) {
      var piece = foldChar(ch);
      for (var k = 0; k < piece.length; k++) { startOf.push(i); endOf.push(i + ch.length); }
      folded += piece;
      i += ch.length;
    }
    return matches(folded).map(function (x) { return [startOf[x[0]], endOf[x[1] - 1], x[2]]; });
  }

  function isWord(token) { return token[0] !== "{" && !DIGIT.test(token); }
  function headingKey(text) { return tokens(text).join(" "); }

  /* --- the loaded data ---------------------------------------------------------------- */
  var DATA = null, LANGS = [], C = null;

  function Lang(raw) {
    this.code = raw.lang;
    this.raw = raw;
    this.stop = new Set(raw.stop);
    this.filler = new Set(raw.filler);
    this.vocab = raw.vocab;
    this.docs = raw.docs;
    this.n = raw.docs.length;
    this.lists = {};
    for (var kind in raw.terms) {
      var table = raw.terms[kind], lists = this.lists[kind] = new Map();
      for (var term in table) lists.set(term, table[term]);
    }
    this.sorted = {};
    this.heads = raw.heads;
    this.stemmed = raw.stemmed;
    this.cites = raw.cites;
    this.forms = new Set(raw.forms || []);  /* "protection from": table.DocTable.keyword_forms */
    this.renumbered = raw.renumbered || {editions: [], numbers: {}};
    this.seq = new Map();
    this.titles = new Map();
    this.expansions = new Map();  /* expand.py: typed keys → {rules: [rules' token lists], kind} */
    (raw.expansions || []).forEach(function (e) { this.expansions.set(e[0].join(" "), {rules: e[1], kind: e[2] || "player"}); }, this);
  }
  Lang.prototype.term = function (token) {  /* the index term of a token, or null */
    var t = this.vocab[token];
    if (t === undefined) return null;
    return t === "" ? token : t;
  };
  Lang.prototype.docTerm = function (token) {  /* a document token: stop words out */
    if (this.stop.has(token)) return null;
    return this.term(token);
  };
  Lang.prototype.entry = function (kind, term) { return this.lists[kind].get(term) || null; };
  Lang.prototype.idf = function (kind, term) { var e = this.entry(kind, term); return e ? e[0] : 0; };
  Lang.prototype.df = function (term) { var e = this.entry("all", term); return e ? e[1] : 0; };
  Lang.prototype.postings = function (kind, term) {
    var e = this.entry(kind, term);
    if (!e) return null;
    if (!e.docs) {
      var docs = new Int32Array(e[2].length), last = 0;
      for (var i = 0; i < e[2].length; i++) { last += e[2][i]; docs[i] = last; }
      e.docs = docs;
    }
    return [e.docs, e[3]];
  };
  Lang.prototype.sortedTerms = function (kind) {
    if (!this.sorted[kind]) this.sorted[kind] = Array.from(this.lists[kind].keys()).sort(codePointCompare);
    return this.sorted[kind];
  };
  Lang.prototype.withPrefix = function (kind, prefix) {
    var terms = this.sortedTerms(kind), lo = lowerBound(terms, prefix), out = [];
    for (var i = lo; i < terms.length && terms[i].startsWith(prefix); i++) out.push(terms[i]);
    return out;
  };
  Lang.prototype.sequence = function (d) {  /* terms of the title, null, terms of the text */
    var seq = this.seq.get(d);
    if (seq) return seq;
    seq = [];
    var doc = this.docs[d], self = this;
    tokens(doc[3]).forEach(function (t) { var x = self.docTerm(t); if (x !== null) seq.push(x); });
    seq.push(null);
    tokens(doc[4]).forEach(function (t) { var x = self.docTerm(t); if (x !== null) seq.push(x); });
    this.seq.set(d, seq);
    return seq;
  };
  Lang.prototype.titleTokens = function (d) {
    var t = this.titles.get(d);
    if (t) return t;
    var self = this;
    t = tokens(this.docs[d][3]).filter(function (x) { return !self.stop.has(x); });
    this.titles.set(d, t);
    return t;
  };
  Lang.prototype.known = function (token) {
    if (this.stop.has(token)) return true;
    var term = this.term(token);
    return term !== null && this.df(term) >= C.KNOWN_IN;
  };
  Lang.prototype.seen = function (token) {  /* for Chinese, any Han token too */
    return this.stop.has(token) || this.vocab[token] !== undefined || (this.raw.han && isHan(token));
  };

  function codePointCompare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function lowerBound(list, x) {
    var lo = 0, hi = list.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function load(data) {
    DATA = {};
    LANGS = [];
    var order = null;
    for (var code in data) {
      DATA[code] = new Lang(data[code]);
      order = order || data[code].langs;
      C = C || data[code].constants;
    }
    (order || Object.keys(DATA)).forEach(function (code) { if (DATA[code]) LANGS.push(code); });
    LEXICON = null;
  }

  /* --- query.py ------------------------------------------------------------------------ */
  var OPERATORS = ["AND", "OR", "NOT"];
  var SYNTAX = /"[^"]*"|[()]|[^\s()"]+/g;
  var FUZZY = /^(.*[\p{L}\p{N}_])~(\d?)$/u;
  var WILDCARD_HEAD = /^[\p{L}\p{N}]{2}/u;
  var MAX_QUERY_CHARS = 1000, MAX_FUZZY = 2;

  function UsageError(message) { this.message = message; }

  function pieces(text) { return text.match(SYNTAX) || []; }

  function checkQuery(query) {
    var text = String(query).trim();
    if (!text) throw new UsageError("empty query");
    if (Array.from(text).length > MAX_QUERY_CHARS) {
      throw new UsageError("query too long (" + Array.from(text).length + " characters, at most " + MAX_QUERY_CHARS + ")");
    }
    text = text.replace(/[“”„«»]/g, '"').replace(/\?/g, " ");
    if ((text.match(/"/g) || []).length % 2) throw new UsageError('unbalanced quote (") in query');
    var ps = pieces(text), depth = 0;
    for (var i = 0; i < ps.length; i++) {
      depth += ps[i] === "(" ? 1 : ps[i] === ")" ? -1 : 0;
      if (depth < 0) break;
    }
    if (depth) throw new UsageError("unbalanced parenthesis in query");
    for (i = 0; i < ps.length; i++) {
      var t = ps[i];
      if (OPERATORS.indexOf(t) < 0) continue;
      var before = i ? ps[i - 1] : null, after = i + 1 < ps.length ? ps[i + 1] : null;
      if (after === null || after === ")" || (OPERATORS.indexOf(after) >= 0 && after !== "NOT")) {
        throw new UsageError(t + " needs a word after it");
      }
      if (t !== "NOT" && (before === null || before === "(" || OPERATORS.indexOf(before) >= 0)) {
        throw new UsageError(t + " needs a word before it");
      }
    }
    for (i = 0; i < ps.length; i++) {
      if (ps[i].indexOf("*") >= 0 && ps[i][0] !== '"' && !WILDCARD_HEAD.test(ps[i])) {
        throw new UsageError("'" + ps[i].slice(0, 40) + "': a wildcard needs two letters before the *");
      }
    }
    return text;
  }

  function hasSyntax(text) {
    return pieces(text).some(function (t) {
      return OPERATORS.indexOf(t) >= 0 || t === "(" || t === ")" || t[0] === '"' || t.indexOf("*") >= 0 || FUZZY.test(t);
    });
  }

  /* query.rule_number: goto.js's, loaded before this file on every page */
  var ruleNumber = root.CRGoto.ruleNumber;

  function Clause(kind, toks, occur, distance, children, name) {
    this.kind = kind; this.tokens = toks || []; this.occur = occur || "should";
    this.distance = distance || 0; this.children = children || []; this.name = !!name;
  }
  Clause.prototype.withOccur = function (occur) {
    return new Clause(this.kind, this.tokens, occur, this.distance, this.children, this.name);
  };

  function parse(text) { return parseFrom(pieces(text), 0)[0]; }

  function parseFrom(ps, i) {
    var out = [], pending = null, join = false;
    while (i < ps.length) {
      var piece = ps[i++];
      if (piece === ")") break;
      if (OPERATORS.indexOf(piece) >= 0) {
        if (piece === "NOT") pending = "not";
        else if (piece === "AND") {
          join = true;
          if (out.length && out[out.length - 1].occur === "should") out[out.length - 1] = out[out.length - 1].withOccur("must");
        }
        continue;
      }
      var made;
      if (piece === "(") {
        var sub = parseFrom(ps, i);
        i = sub[1];
        made = sub[0].length ? [new Clause("group", [], "should", 0, sub[0])] : [];
      } else made = clausesOf(piece);
      for (var k = 0; k < made.length; k++) {
        var c = made[k];
        if (k === 0 && pending) c = c.withOccur("not");
        else if (k === 0 && join) c = c.withOccur("must");
        out.push(c);
      }
      if (made.length) { pending = null; join = false; }
    }
    return [out, i];
  }

  function clausesOf(piece) {
    var words, m;
    if (piece[0] === '"') {
      words = tokens(piece.replace(/^"+|"+$/g, ""));
      if (!words.length) return [];
      return words.length === 1 ? [new Clause("term", words)] : [new Clause("phrase", words)];
    }
    if (piece[piece.length - 1] === "*") {
      words = tokens(piece.replace(/\*+$/, ""));
      if (!words.length) return [];
      return words.slice(0, -1).map(function (w) { return new Clause("term", [w]); })
        .concat([new Clause("prefix", [words[words.length - 1]])]);
    }
    if ((m = FUZZY.exec(piece))) {
      words = tokens(m[1]);
      if (!words.length) return [];
      var distance = Math.min(MAX_FUZZY, parseInt(m[2] || "1", 10));
      return words.slice(0, -1).map(function (w) { return new Clause("term", [w]); })
        .concat([new Clause("fuzzy", [words[words.length - 1]], "should", distance)]);
    }
    return tokens(piece).map(function (w) { return new Clause("term", [w]); });
  }

  function names(text) {
    var out = [], start = true, spans = tokenSpans(text);
    for (var k = 0; k < spans.length; k++) {
      var raw = text.slice(spans[k][0], spans[k][1]);
      var before = k ? text.slice(spans[k - 1][1], spans[k][0]) : "";
      if (k && /[.!?:]/.test(before)) start = true;
      var first = Array.from(raw)[0] || "";
      out.push(!start && /\p{Lu}/u.test(first) && !(raw.toUpperCase() === raw && raw.toLowerCase() !== raw));
      start = false;
    }
    return out;
  }

  /* --- rank.py ------------------------------------------------------------------------- */
  function Context(L, kind) {
    this.L = L;
    this.key = kind;
    this.names = kind === "all" ? "names" : null;
    this.used = new Set();
    this.pairs = [];
    this.content = 0;
    this.words = [];
    this.long = false;
  }
  Context.prototype.term = function (token) { return queryTerm(this.L, token, this.key); };

  /* inflect.py query_term: the index term of a query token, or of its first inflection
     that the token table or the terms of list `kind` know. */
  function queryTerm(L, token, kind) {
    var found = L.term(token);
    if (found !== null) return found;
    var cands = inflections(token, L.code), lists = L.lists[kind];
    for (var i = 0; i < cands.length; i++) {
      found = L.term(cands[i]);
      if (found === null && lists.has(cands[i])) found = cands[i];
      if (found !== null) return found;
    }
    return null;
  }
  Context.prototype.weight = function (token) {
    if (this.L.stop.has(token)) return 0;
    return this.L.filler.has(token) ? C.FILLER_WEIGHT : 1;
  };
  Context.prototype.dense = function (term) {
    var out = new Float64Array(this.L.n), p = this.L.postings(this.key, term);
    if (p && p[0].length) {
      for (var i = 0; i < p[0].length; i++) out[p[0][i]] = p[1][i];
      this.used.add(term);
    }
    return out;
  };
  Context.prototype.clause = function (c) {
    var L = this.L, n = L.n, i;
    if (c.kind === "term") {
      var token = c.tokens[0], w = this.weight(token);
      if (w === 0) return null;
      if (c.name) w = w * C.NAME_WEIGHT;
      var term = this.term(token);
      var idf = term !== null ? L.idf(this.key, term) : 0;
      if (idf < C.COMMON_IDF) w = w * (idf / C.COMMON_IDF) * (idf / C.COMMON_IDF);
      if (this.long && idf > C.RARE_IDF) w = w * (C.RARE_IDF / idf) * (C.RARE_IDF / idf);
      if (term === null) return [new Float64Array(n), 0, w, null];
      var scores = this.dense(term);
      if (this.names !== null) {
        var p = L.postings(this.names, token);
        if (p && p[0].length) {
          for (i = 0; i < p[0].length; i++) scores[p[0][i]] = scores[p[0][i]] + C.NAMES_WEIGHT * p[1][i];
        }
      }
      return [scores, w * L.idf(this.key, term), w, term];
    }
    if (c.kind === "phrase") return this.phrase(c);
    if (c.kind === "prefix" || c.kind === "fuzzy") {
      var terms = this.expand(c), total = new Float64Array(n), best = 0;
      for (var k = 0; k < terms.length; k++) {
        var part = this.dense(terms[k]);
        for (i = 0; i < n; i++) total[i] = total[i] + part[i];
        best = Math.max(best, L.idf(this.key, terms[k]));
      }
      return [total, best, 1, null];
    }
    if (c.kind === "group") {
      var scored = this.score(c.children, false);
      if (scored === null) return null;
      var sub = scored[0], ok = scored[1], out = new Float64Array(n);
      for (i = 0; i < n; i++) out[i] = ok[i] ? sub[i] : 0;
      return [out, scored[2], 1, null];
    }
    if (c.kind === "alt") return this.alternatives(c);
    throw new Error(c.kind);
  };
  /* rank.py alternatives: the best of the typed clause and EXPANSION_WEIGHT × each group. */
  Context.prototype.alternatives = function (c) {
    var n = this.L.n, i, typed = this.clause(c.children[0]), term = null, best, v;
    if (typed === null) { best = new Float64Array(n); v = 0; } else {
      best = new Float64Array(n);
      for (i = 0; i < n; i++) best[i] = typed[2] * typed[0][i];
      v = typed[1]; term = typed[3];
    }
    for (var k = 1; k < c.children.length; k++) {
      var made = this.clause(c.children[k]);
      if (made === null) continue;
      for (i = 0; i < n; i++) best[i] = Math.max(best[i], C.EXPANSION_WEIGHT * (made[2] * made[0][i]));
      v = Math.max(v, C.EXPANSION_WEIGHT * made[1]);
    }
    return [best, v, 1, term];
  };
  Context.prototype.phrase = function (c) {
    var L = this.L, n = L.n, terms = [], i, k;
    for (k = 0; k < c.tokens.length; k++) if (!L.stop.has(c.tokens[k])) terms.push(this.term(c.tokens[k]));
    if (!terms.length) return null;
    if (terms.some(function (t) { return t === null; })) return [new Float64Array(n), 0, 1, null];
    var total = new Float64Array(n), every = new Uint8Array(n).fill(1), idf = 0;
    for (k = 0; k < terms.length; k++) {
      var part = new Float64Array(n), p = L.postings(this.key, terms[k]);
      if (p) for (i = 0; i < p[0].length; i++) part[p[0][i]] = p[1][i];
      for (i = 0; i < n; i++) { total[i] = total[i] + part[i]; if (!(part[i] > 0)) every[i] = 0; }
      idf += L.idf(this.key, terms[k]);
    }
    var any = false;
    for (i = 0; i < n; i++) {
      if (every[i] && !hasRun(L.sequence(i), terms)) every[i] = 0;
      if (every[i]) any = true;
    }
    if (any) for (k = 0; k < terms.length; k++) this.used.add(terms[k]);
    var out = new Float64Array(n);
    for (i = 0; i < n; i++) out[i] = every[i] ? total[i] : 0;
    return [out, idf, 1, null];
  };
  Context.prototype.expand = function (c) {
    var token = c.tokens[0];
    if (c.kind === "prefix") return this.L.withPrefix(this.key, token).slice(0, C.MAX_EXPANSION);
    var candidates = this.L.withPrefix(this.key, token.slice(0, 1)), close = [];
    for (var i = 0; i < candidates.length; i++) {
      var t = candidates[i];
      if (Math.abs(t.length - token.length) > c.distance) continue;
      var dist = levenshtein(token, t);
      if (dist <= c.distance) close.push([dist, t]);
    }
    close.sort(function (a, b) { return a[0] - b[0] || codePointCompare(a[1], b[1]); });
    return close.slice(0, C.MAX_EXPANSION).map(function (x) { return x[1]; });
  };
  Context.prototype.score = function (clauses, top) {
    var n = this.L.n, i;
    var total = new Float64Array(n), covered = new Float64Array(n);
    var must = new Uint8Array(n).fill(1), excluded = new Uint8Array(n);
    var weightSum = 0, positive = 0, seen = new Set(), contentTerms = [], words = [];
    for (var k = 0; k < clauses.length; k++) {
      var c = clauses[k], made = this.clause(c);
      if (made === null) continue;
      var scores = made[0], v = made[1], w = made[2], term = made[3];
      if (term !== null) {
        if (seen.has(term)) continue;
        seen.add(term);
      }
      if (c.occur === "not") {
        for (i = 0; i < n; i++) if (scores[i] > 0) excluded[i] = 1;
        continue;
      }
      positive += 1;
      for (i = 0; i < n; i++) {
        var matched = scores[i] > 0;
        if (c.occur === "must" && !matched) must[i] = 0;
        total[i] = total[i] + w * scores[i];
        covered[i] = covered[i] + (matched ? v : 0);
      }
      weightSum += v;
      if (term !== null && w >= C.NAME_WEIGHT) { contentTerms.push(term); words.push(c.tokens[0]); }
    }
    if (!positive) return null;
    var base = total, power = this.long ? C.LONG_COORD_POWER : C.COORD_POWER;
    if (weightSum > 0) {
      base = new Float64Array(n);
      for (i = 0; i < n; i++) {
        var cover = covered[i] / weightSum, b = total[i];
        for (var p = 0; p < power; p++) b = b * cover;
        base[i] = b;
      }
    }
    var ok = new Uint8Array(n);
    for (i = 0; i < n; i++) ok[i] = must[i] && !excluded[i] ? 1 : 0;
    if (top) {
      this.pairs = [];
      for (i = 0; i + 1 < contentTerms.length; i++) this.pairs.push([contentTerms[i], contentTerms[i + 1]]);
      this.content = positive;
      this.words = words.length === positive ? words : [];
      return [base, ok];
    }
    return [base, ok, weightSum];
  };

  function hasRun(seq, terms) {
    var n = terms.length;
    outer: for (var i = 0; i + n <= seq.length; i++) {
      for (var k = 0; k < n; k++) if (seq[i + k] !== terms[k]) continue outer;
      return true;
    }
    return false;
  }

  function levenshtein(a, b) {
    a = Array.from(a); b = Array.from(b);
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev.push(j);
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      for (j = 1; j <= b.length; j++) {
        cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
      }
      prev = cur;
    }
    return prev[b.length];
  }

  function kindWeight(doc, content) {
    var kind = doc[2];
    if (kind === "glossary" && content <= 1) return 1;
    if (content > 1 && (kind === "rule" || kind === "subrule") && doc[4] === "") return C.HEADING_WEIGHT;
    var w = C.KIND_WEIGHT[kind];
    return w === undefined ? 1 : w;
  }

  /* inflect.py: the forms to try for a token the index never saw. */
  function inflections(t, lang) {
    if (lang !== "en" || t.length < 4 || !/^[a-z]+$/.test(t)) return [];
    var out = [];
    function ends(x) { return t.slice(-x.length) === x; }
    if (ends("ies")) out.push(t.slice(0, -3) + "y");
    if (ends("es")) out.push(t.slice(0, -2));
    if (ends("s") && !ends("ss")) out.push(t.slice(0, -1));
    if (ends("ed")) {
      out.push(t.slice(0, -2));
      if (!(t.length === 4 && ends("eed"))) out.push(t.slice(0, -1));  /* "died" is die, "seed" not see */
      if (t[t.length - 3] === t[t.length - 4]) out.push(t.slice(0, -3));
    }
    if (ends("ing")) {
      out.push(t.slice(0, -3), t.slice(0, -3) + "e");
      if (t.length > 5 && t[t.length - 4] === t[t.length - 5]) out.push(t.slice(0, -4));
    }
    if (ends("ers")) out.push(t.slice(0, -3), t.slice(0, -2));
    if (ends("er")) out.push(t.slice(0, -2), t.slice(0, -1));
    return out.filter(function (x) { return x.length >= 3; });
  }

  /* rank(): [[score, doc], …] best first, count, used terms. */
  function rank(clauses, L, allowed, examples, pool) {
    var ctx = new Context(L, examples ? "examples" : "all"), words = 0;
    clauses.forEach(function (c) { if (c.kind !== "term" || (ctx.weight(c.tokens[0]) === 1 && !c.name)) words += 1; });
    ctx.long = words >= C.LONG_QUERY;
    var scored = ctx.score(clauses, true);
    if (scored === null) return {order: [], count: 0, used: new Set()};
    var base = scored[0], ok = scored[1], docs = [], i;
    for (i = 0; i < L.n; i++) {
      var s = base[i] * kindWeight(L.docs[i], ctx.content) / C.SCALE;
      if (ok[i] && allowed(i) && s > 0) docs.push([s, i]);
    }
    if (!docs.length) return {order: [], count: 0, used: ctx.used};
    if (ctx.content >= 2 && !ctx.long) ruleEvidence(L, docs);
    docs.sort(byScore);
    var head = Math.min(docs.length, Math.max(C.PROXIMITY_POOL, pool));
    var nearPool = Math.min(docs.length, C.PROXIMITY_POOL), fin = [];
    for (i = 0; i < nearPool; i++) {
      var d = docs[i][1], score = docs[i][0];
      if (ctx.pairs.length) score = score * (1 + C.PROXIMITY * near(L, d, ctx.pairs) / ctx.pairs.length);
      if (ctx.words.length && titled(L, d, ctx.words)) score = score * (1 + C.TITLE_BOOST);
      fin.push([score, d]);
    }
    fin.sort(byScore);
    for (i = nearPool; i < head; i++) fin.push(docs[i]);
    return {order: fin.slice(0, pool), count: docs.length, used: ctx.used};
  }

  /* rank.py _rule_evidence: each [score, doc] × 1 + RULE_EVIDENCE × (the sum of the two best
     scores of its rule's documents) ÷ (the largest such sum). */
  function ruleEvidence(L, docs) {
    if (!L.ruleKeys) L.ruleKeys = L.docs.map(function (doc) { return ruleKey(doc[0], doc[2]); });
    var best = new Map(), i, top = 0;
    for (i = 0; i < docs.length; i++) {
      var key = L.ruleKeys[docs[i][1]], x = docs[i][0], b = best.get(key);
      if (!b) best.set(key, [x, 0]);
      else if (x > b[0]) { b[1] = b[0]; b[0] = x; } else if (x > b[1]) b[1] = x;
    }
    var total = new Map();
    best.forEach(function (b, key) { var t = b[0] + b[1]; total.set(key, t); if (t > top) top = t; });
    for (i = 0; i < docs.length; i++) {
      docs[i][0] = docs[i][0] * (1 + C.RULE_EVIDENCE * total.get(L.ruleKeys[docs[i][1]]) / top);
    }
  }

  function ruleKey(number, kind) {
    if (kind === "glossary") return "glossary:" + number;
    return number.indexOf(".") >= 0 ? number.replace(/[a-z]+$/, "") : number;
  }

  /* The analyzed language whose terms a language's texts are compared in (Python's field_lang). */
  function fieldLang(code) { return LANGS.indexOf(code) >= 0 ? code : LANGS[0]; }

  function byScore(a, b) { return b[0] - a[0] || a[1] - b[1]; }

  function near(L, d, pairs) {
    var seq = L.sequence(d), where = new Map(), found = 0;
    for (var i = 0; i < seq.length; i++) {
      if (seq[i] === null) continue;
      if (!where.has(seq[i])) where.set(seq[i], []);
      where.get(seq[i]).push(i);
    }
    for (var k = 0; k < pairs.length; k++) {
      var pa = where.get(pairs[k][0]), pb = where.get(pairs[k][1]);
      if (pa && pb && close(seq, pa, pb)) found += 1;
    }
    return found;
  }

  function close(seq, pa, pb) {
    for (var x = 0; x < pa.length; x++) {
      for (var y = 0; y < pb.length; y++) {
        var i = pa[x], j = pb[y];
        if (i === j || Math.abs(i - j) > C.PROXIMITY_WINDOW) continue;
        var gap = false;
        for (var k = Math.min(i, j); k <= Math.max(i, j); k++) if (seq[k] === null) gap = true;
        if (!gap) return true;
      }
    }
    return false;
  }

  function titled(L, d, words) {
    var title = L.titleTokens(d);
    if (title.length < words.length) return false;
    for (var i = 0; i < words.length; i++) if (title[i] !== words[i]) return false;
    return true;
  }

  /* --- lexicon.py ------------------------------------------------------------------- */
  var LEXICON = null;

  function lexicon() {
    if (LEXICON) return LEXICON;
    LEXICON = new Map();
    var seen = new Set();
    LANGS.forEach(function (code) {
      DATA[code].raw.lexicon.forEach(function (row) {
        var key = row[0] + "\t" + row[1], id = key + "\t" + row[2] + "\t" + row[3];
        if (seen.has(id)) return;
        seen.add(id);
        if (!LEXICON.has(key)) LEXICON.set(key, []);
        LEXICON.get(key).push([row[2], row[3]]);
      });
    });
    return LEXICON;
  }

  function stopEverywhere(token) {  /* a Chinese analyzer says nothing of a Latin token */
    return LANGS.every(function (code) { return (DATA[code].raw.han && !isHan(token)) || DATA[code].stop.has(token); });
  }

  function queryStems(span, code) {
    var L = DATA[code], out = [];
    for (var i = 0; i < span.length; i++) {
      if (L.stop.has(span[i])) continue;
      var term = L.term(span[i]);
      if (term === null) return null;
      out.push(term);
    }
    return out;
  }

  function translations(toks, targets) {
    var out = [], i = 0, lex = lexicon();
    while (i < toks.length) {
      var found = longest(lex, toks, i, targets);
      if (found.length) { out = out.concat(found); i = found[0].end; } else i += 1;
    }
    return out;
  }

  function longest(lex, toks, i, targets) {
    if (stopEverywhere(toks[i])) return [];
    for (var end = Math.min(toks.length, i + C.MAX_WORDS * 2); end > i; end--) {
      var found = [], span = toks.slice(i, end);
      for (var s = 0; s < LANGS.length; s++) {
        var source = LANGS[s], stems = queryStems(span, source);
        if (!stems || !stems.length) continue;
        var rows = lex.get(source + "\t" + stems.join(" ")) || [];
        for (var r = 0; r < rows.length; r++) {
          var target = rows[r][0];
          if (targets.indexOf(target) < 0 || target === source || !DATA[target]) continue;
          var all = span.every(function (t) { return DATA[source].stop.has(t) || DATA[target].known(t); });
          if (!all) found.push({start: startOf(toks, i), end: end, lang: target, text: rows[r][1]});
        }
      }
      if (found.length) return found;
    }
    return [];
  }

  function startOf(toks, i) {
    while (i > 0 && stopEverywhere(toks[i - 1])) i -= 1;
    return i;
  }

  function whole(toks, targets) {
    var found = toks.length ? translations(toks, targets) : [];
    return found.filter(function (t) { return t.start === 0 && t.end === toks.length; });
  }

  /* --- suggest.py: language detection, did you mean ---------------------------------- */
  function detect(toks, lang) {
    var words = [], set = new Set();
    toks.forEach(function (t) { if (isWord(t) && !set.has(t)) { set.add(t); words.push(t); } });
    if (lang && DATA[lang] && words.length && words.every(function (t) { return DATA[lang].known(t); })) return lang;
    var best = LANGS[0], bestCount = -1;
    LANGS.forEach(function (code) {
      var count = words.filter(function (t) {
        return DATA[code].seen(t) && !LANGS.some(function (o) { return o !== code && DATA[o].seen(t); });
      }).length;
      if (count > bestCount) { best = code; bestCount = count; }
    });
    return best;
  }

  function unknown(token, L) {
    var han = L.raw.han && isHan(token);
    return isWord(token) && (han || Array.from(token).length >= 3) && !L.stop.has(token) && L.vocab[token] === undefined;
  }

  function closest(token, L) {
    var limit = Array.from(token).length <= 5 ? 1 : 2, best = null, first = token[0];
    var anyFirst = L.raw.han && isHan(token);  /* Chinese: a mistyped first character too */
    if (anyFirst && Array.from(token).length === 1) return null;  /* any other character is one edit away */
    for (var word in L.vocab) {
      if ((!anyFirst && word[0] !== first) || !isWord(word) || Math.abs(word.length - token.length) > limit) continue;
      var dist = levenshtein(token, word);
      if (dist > limit) continue;
      var key = [dist, -L.df(L.term(word)), word];
      if (best === null || key[0] < best[0] || (key[0] === best[0] && (key[1] < best[1] ||
          (key[1] === best[1] && key[2] < best[2])))) best = key;
    }
    return best ? best[2] : null;
  }

  /* --- searching.py ------------------------------------------------------------------ */
  var HEAD_ORDER = {glossary: 0, rule: 1, section: 2, passage: 3, chapter: 4};
  var KINDS = {
    rule: ["chapter", "section", "rule", "subrule", "passage"], example: ["chapter", "section", "rule", "subrule", "passage"],
    glossary: ["glossary"], note: ["note"]
  };

  function filter(L, section, kind) {
    var kinds = kind ? KINDS[kind] : null;
    return function (d) {
      var doc = L.docs[d];
      if (section && !(section.length === 3 ? doc[5] === section : doc[5].slice(0, 1) === section)) return false;
      if (kinds && kinds.indexOf(doc[2]) < 0) return false;
      if (kind === "example" && !doc[6]) return false;
      return true;
    };
  }

  /* A ranked item: [score, lang, doc, translation]. */
  /* searching.QUESTION_WORDS, searching.common_words_only: a query of nothing else finds nothing ("what is the")
     unless it is a headword ("You") */
  var QUESTION_WORDS = new Set(("what whats how why which who whom whose where when does do did is are was were can could " +
    "would should quoi comment pourquoi quel quelle quels quelles quand est-ce " +
    "什么 怎么 怎样 如何 为什么 为何 吗 呢 吧 是否 是 哪些 哪个 多少 请问").split(" "));
  var HAN_QUESTION_WORDS = Array.from(QUESTION_WORDS).filter(isHan).sort(function (a, b) {
    return b.length - a.length || (a < b ? -1 : a > b ? 1 : 0);
  });
  function commonWordsOnly(text) {
    if (/["*~():]/.test(text) || !tokens(text).length) return false;
    var rest = text;
    HAN_QUESTION_WORDS.forEach(function (w) { rest = rest.split(w).join(" "); });  /* 为什么 is cut as 为, 什么 */
    return tokens(rest).every(function (t) {
      return isWord(t) && (QUESTION_WORDS.has(t) || LANGS.some(function (code) { return DATA[code].stop.has(t); }));
    });
  }

  function search(query, options) {
    options = options || {};
    var text = checkQuery(query), lang = options.lang || null, section = options.section || null;
    var kind = options.kind || null, limit = options.limit || 10;
    if (lang && !DATA[lang]) lang = null;
    if (commonWordsOnly(text) && !LANGS.some(function (code) {  /* "You", "What is Y?" are headwords */
      var L = DATA[code], bare = withoutLeadingFiller(tokens(text), L);
      return L.heads[headingKey(text)] || (bare && L.heads[bare]);
    })) {
      return {query: query, hits: [], suggestion: null, lang: lang || "en"};  /* "You" is a headword */
    }
    var number = ruleNumber(text), toks = tokens(text);
    var queryLang = number ? "en" : detect(toks, lang);
    var ranked = number ? numberRanked(number, lang, section, kind, limit)
      : wordsRanked(text, toks, queryLang, lang, section, kind, limit);
    var hits = ranked.items.slice(0, limit).map(function (item) {
      return hit(item, ranked.used, kind);
    });
    var suggestion = null;
    if (!number && !hasSyntax(text)) suggestion = suggest(toks, queryLang, lang || queryLang, section, kind);
    return {query: query, hits: hits, suggestion: suggestion, lang: queryLang};
  }

  function wordsRanked(text, toks, queryLang, lang, section, kind, pool) {
    var clauses = parse(text);
    if (clauses.length && clauses.every(function (c) { return c.occur === "not"; })) {
      throw new UsageError("NOT only excludes from the words before it, as in: flying NOT reach");
    }
    var plain = !hasSyntax(text);
    if (plain) {
      var flags = names(text);
      clauses = clauses.map(function (c, i) { return new Clause(c.kind, c.tokens, c.occur, c.distance, c.children, flags[i]); });
    }
    /* a query that excludes words (NOT): its own language only, and the ranker's alone (searching.py) */
    var negated = clauses.some(function (c) { return c.occur === "not"; });
    var langs = lang ? [lang] : negated ? [queryLang] : [queryLang].concat(LANGS.filter(function (c) { return c !== queryLang; }));
    var used = {}, out = [];
    for (var g = 0; g < langs.length; g++) {
      var code = langs[g], L = DATA[code];
      if (!L) continue;
      var allowed = filter(L, section, kind), own = code === queryLang;
      var mine = own ? (plain ? expanded(clauses, L) : clauses) : translatedClauses(toks, code).concat(clauses);  /* the words as typed too, as searching.py */
      var head = kind !== "example" && !negated ? headDocs(text, toks, code, queryLang, allowed) : [];
      if (!mine.length && !head.length) continue;
      var result = mine.length ? rank(mine, L, allowed, kind === "example", pool + head.length + C.GLOSSARY_TOP) : null;
      var inHead = new Set(head);
      var scored = result ? result.order.filter(function (x) { return !inHead.has(x[1]); }) : [];
      used[code] = used[code] || new Set();
      if (result) result.used.forEach(function (t) { used[code].add(t); });
      var top = scored.length ? scored[0][0] : 0;
      var items = head.map(function (d, i) { return [top + 1 + (head.length - i) * 1e-3, d]; }).concat(scored);
      if (!items.length) continue;
      var typed = own ? null : typedDocs(toks, L);  /* a word as typed: not a translation (searching.py) */
      if (out.length) {
        var floor = out[out.length - 1][0], topHere = items[0][0];
        var factor = topHere >= floor ? 0.999 * floor / topHere : 1;
        items = items.map(function (x) { return [x[0] * factor, x[1]]; });
      }
      items.forEach(function (x) { out.push([x[0], code, x[1], !own && !typed.has(x[1])]); });
      if (out.length >= pool + C.GLOSSARY_TOP) break;
    }
    if (!kind) out = oneGlossaryInTop(out);
    return {items: out.slice(0, pool), used: used};
  }

  /* searching.py _expanded / expand.py matches: each run of words that is a typed form of an
     expansion becomes one alt clause (the words typed, then the groups of the rules' words);
     a keyword's effect only when the query names exactly KEYWORDS_MET keywords, and only
     where the other keyword is (its words a must clause of each group). */
  function expanded(clauses, L) {
    if (!L.expansions.size) return clauses;
    var keys = clauses.map(function (c) {
      if (c.kind !== "term") return null;
      if (L.stop.has(c.tokens[0])) return "";
      var t = queryTerm(L, c.tokens[0], "all");
      return t === null ? c.tokens[0] : t;
    });
    var found = [], i = 0;
    while (i < keys.length) {
      var hit = null;
      if (keys[i]) {
        for (var end = Math.min(keys.length, i + C.MAX_KEYS * 2); end > i; end--) {
          var span = keys.slice(i, end).filter(function (k) { return k !== ""; });
          if (span.indexOf(null) >= 0 || keys[end - 1] === "" || keys[end - 1] === null) continue;
          var e = L.expansions.get(span.join(" "));
          if (e) { hit = [i, end, e]; break; }
        }
      }
      if (hit) { found.push(hit); i = hit[1]; } else i += 1;
    }
    var met = found.filter(function (m) { return m[2].kind === "keyword"; });
    if (met.length !== C.KEYWORDS_MET) found = found.filter(function (m) { return m[2].kind !== "keyword"; });
    if (!found.length) return clauses;
    function wordsOf(a, b) {
      return clauses.slice(a, b).filter(function (c) { return !L.stop.has(c.tokens[0]); });
    }
    function typedOf(words) {
      return words.length === 1 ? words[0] : new Clause("group", [], "should", 0, words);
    }
    var out = [], at = 0;
    found.forEach(function (m) {
      for (var k = at; k < m[0]; k++) out.push(clauses[k]);
      var words = wordsOf(m[0], m[1]);
      var extra = m[2].kind !== "keyword" ? [] : met.filter(function (o) { return o[0] !== m[0] || o[1] !== m[1]; })
        .map(function (o) { return typedOf(wordsOf(o[0], o[1])).withOccur("must"); });
      var groups = m[2].rules.map(function (rule) {
        return new Clause("group", [], "should", 0, rule.map(function (w) { return new Clause("term", [w]); }).concat(extra));
      });
      out.push(new Clause("alt", words.map(function (c) { return c.tokens[0]; }), "should", 0, [typedOf(words)].concat(groups)));
      at = m[1];
    });
    for (var k = at; k < clauses.length; k++) out.push(clauses[k]);
    return out;
  }

  function oneGlossaryInTop(ranked) {
    var out = [], waiting = [], seen = 0, cap;
    for (var i = 0; i < ranked.length; i++) {
      var item = ranked[i];
      if (out.length < C.GLOSSARY_TOP && DATA[item[1]].docs[item[2]][2] === "glossary") {
        if (seen) { waiting.push(item); continue; }
        seen += 1;
      }
      out.push(item);
      if (out.length === C.GLOSSARY_TOP && waiting.length) {
        cap = out[out.length - 1][0];
        waiting.forEach(function (w) { out.push([Math.min(w[0], cap), w[1], w[2], w[3]]); });
        waiting = [];
      }
    }
    if (waiting.length) {
      cap = out.length ? out[out.length - 1][0] : null;
      waiting.forEach(function (w) { out.push([cap === null ? w[0] : Math.min(w[0], cap), w[1], w[2], w[3]]); });
    }
    return out;
  }

  /* searching._typed_docs: the documents of L holding one of the query's words as typed (its
     index term there; not a stop word of L) */
  function typedDocs(toks, L) {
    var out = new Set();
    toks.forEach(function (token) {
      var term = L.stop.has(token) ? null : queryTerm(L, token, "all");
      var p = term === null ? null : L.postings("all", term);
      if (p) for (var i = 0; i < p[0].length; i++) out.add(p[0][i]);
    });
    return out;
  }

  function translatedClauses(toks, code) {
    return translations(toks, [code]).map(function (t) {
      var words = tokens(t.text);
      return new Clause("group", [], "should", 0, words.map(function (w) { return new Clause("term", [w], "must"); }));
    }).filter(function (c) { return c.children.length; });
  }

  /* The rules whose numbers the query's words hold ("702.19b trample"), the latest version first
     (searching._head_docs). */
  var NAMED_NUMBER = /^\d{3}\.\d+[a-z]{0,2}$/;
  function namedDocs(toks, L, allowed) {
    var out = [];
    var numbers = [];
    toks.forEach(function (t) {
      var n = ruleNumber(t);
      if (n && NAMED_NUMBER.test(n) && numbers.indexOf(n) < 0) numbers.push(n);
    });
    numbers.forEach(function (t) {
      var mine = [];
      for (var d = 0; d < L.n; d++) {
        var doc = L.docs[d];
        if (doc[2] !== "glossary" && (doc[0] === t || doc[1] === t) && allowed(d)) mine.push(d);
      }
      mine.sort(function (a, b) { return L.docs[b][9] - L.docs[a][9] || L.docs[a][10] - L.docs[b][10]; });
      mine.forEach(function (d) { if (out.indexOf(d) < 0) out.push(d); });
    });
    return out;
  }

  function headDocs(text, toks, code, queryLang, allowed) {
    var L = DATA[code], found = [], seen = new Set();
    function add(list, test) {
      (list || []).forEach(function (d) {
        if (!seen.has(d) && allowed(d) && (!test || test(d))) { seen.add(d); found.push(d); }
      });
    }
    var named = namedDocs(toks, L, allowed);  /* in every language */
    if (code === queryLang) {
      var keys = [], k1 = headingKey(text), k2 = withoutLeadingFiller(toks, L);
      [k1, k2].forEach(function (k) { if (k && keys.indexOf(k) < 0) keys.push(k); });
      if (!keys.length) return named;
      keys.forEach(function (key) { add(L.heads[key]); });
      var glossaryFound = found.some(function (d) { return L.docs[d][2] === "glossary"; });
      if (!glossaryFound) {
        var empty = found.length === 0;
        keys.forEach(function (key) {
          var stems = queryStems(key.split(" "), code);
          if (stems === null || !stems.length) return;
          add(L.stemmed[stems.join(" ")], function (d) { return L.docs[d][2] === "glossary" || empty; });
        });
      }
      if (!found.length) add(keywordHeads(text, toks, L, allowed));  /* "ward 2", "protection from blue" */
    } else {
      whole(toks, [code]).forEach(function (t) { add(L.heads[headingKey(t.text)]); });
    }
    var glossary = found.filter(function (d) { return L.docs[d][2] === "glossary"; })
      .sort(function (a, b) { return L.docs[b][9] - L.docs[a][9] || L.docs[a][10] - L.docs[b][10]; });
    var titledDocs = found.filter(function (d) { return L.docs[d][2] !== "glossary"; }).sort(function (a, b) {
      var ka = HEAD_ORDER[L.docs[a][2]], kb = HEAD_ORDER[L.docs[b][2]];
      ka = ka === undefined ? 5 : ka; kb = kb === undefined ? 5 : kb;
      return ka - kb || L.docs[b][9] - L.docs[a][9] || L.docs[a][11] - L.docs[b][11] || L.docs[a][10] - L.docs[b][10];
    });
    var out = [], lineages = new Set(), inOut = new Set(), headed = new Set(titledDocs);
    glossary.forEach(function (g) {
      out.push(g); inOut.add(g);
      if (!lineages.has(L.docs[g][13])) {
        lineages.add(L.docs[g][13]);
        var cited = (L.cites[String(g)] || []).filter(allowed);  /* the rule titled with the headword first */
        cited.filter(function (d) { return headed.has(d); }).concat(cited.filter(function (d) { return !headed.has(d); }))
          .forEach(function (d) { if (!inOut.has(d)) { out.push(d); inOut.add(d); } });
      }
    });
    titledDocs.forEach(function (d) { if (!inOut.has(d)) { out.push(d); inOut.add(d); } });
    return named.concat(out.filter(function (d) { return named.indexOf(d) < 0; }));
  }

  /* searching._keyword_heads (keyword sections: table.KEYWORD_SECTIONS): the keywords a query names with their parameters, as a
     card prints them ("ward 2", "scry 1 ward 2", "ward—pay 3 life", "protection from blue"). */
  var KEYWORD_PREPOSITIONS = new Set(["from", "for", "onto", "with"]);
  var KEYWORD_PARAMETER = /^(?:\d+|x|\{[^}]*\})$/;
  var KEYWORD_DASH = /^\s*(\p{L}[^\u2014\u2013]*?)\s*(?:\u2014|\u2013| - )\s*[\p{L}\p{N}_]/u;  /* searching._KEYWORD_DASH */
  function keywordHeads(text, toks, L, allowed) {
    var keys = keywordKeys(text, toks, L), found = [];
    for (var w = 0; w < keys.length; w++) {
      var docs = (L.heads[keys[w]] || []).filter(function (d) { return allowed(d); });
      var keyword = docs.some(function (d) { return L.docs[d][2] !== "glossary" && /^(?:70[12]|502)\./.test(L.docs[d][1]); });
      if (!keyword) return [];
      docs.forEach(function (d) { if (found.indexOf(d) < 0) found.push(d); });
    }
    return found;
  }
  var HAN_PLACEHOLDER = "[]", HAN_PARAMETER = 6, HAN_CHARS = /^[\u3400-\u9fff]+$/;  /* table.HAN_PLACEHOLDER, searching._HAN_PARAMETER */
  /* searching._keyword_keys: each keyword's heading key, [] for another query */
  function keywordKeys(text, toks, L) {
    var key = headingKey(text), forms = Array.from(L.forms).filter(function (f) { return f.indexOf(HAN_PLACEHOLDER) >= 0; }).sort(), i;
    for (i = 0; i < forms.length; i++) {  /* 反[]保护: 保护 */
      var sides = forms[i].split(HAN_PLACEHOLDER), before = headingKey(sides[0]), keyword = headingKey(sides[1]);
      if (key.startsWith(before) && key.endsWith(keyword) && key.length > before.length + keyword.length) {
        var middle = key.slice(before.length, key.length - keyword.length).replace(/ /g, "");
        if (middle.length <= HAN_PARAMETER && HAN_CHARS.test(middle)) return [keyword];
      }
    }
    var dash = KEYWORD_DASH.exec(text);
    if (dash) {
      var word = tokens(dash[1]);
      return word.length > 0 && word.length <= 3 ? [word.join(" ")] : [];
    }
    var at = 0;
    for (i = 0; i < toks.length; i++) if (KEYWORD_PREPOSITIONS.has(toks[i])) { at = i; break; }
    if (at > 0 && at <= 3 && toks.length > at + 1) {
      return L.forms.has(toks.slice(0, at).join(" ") + " " + toks[at]) ? [toks.slice(0, at).join(" ")] : [];
    }
    var out = [];
    i = 0;
    while (i < toks.length) {  /* words, then their numbers or costs, and again */
      var j = i, k;
      while (j < toks.length && !KEYWORD_PARAMETER.test(toks[j])) j++;
      k = j;
      while (k < toks.length && KEYWORD_PARAMETER.test(toks[k])) k++;
      if (!(j - i > 0 && j - i <= 3) || k === j) return [];
      out.push(toks.slice(i, j).join(" "));
      i = k;
    }
    return out;
  }

  function withoutLeadingFiller(toks, L) {
    var words = toks.slice();
    while (words.length && (L.stop.has(words[0]) || L.filler.has(words[0]))) words.shift();
    return words.join(" ");
  }

  function numberRanked(number, lang, section, kind, pool) {
    var codes = lang ? [lang] : Object.keys(DATA), exact = [], below = [];  /* every language's numbers */
    codes.forEach(function (code) {
      var L = DATA[code], allowed = filter(L, section, kind);
      for (var d = 0; d < L.n; d++) {
        var doc = L.docs[d];
        if (doc[2] === "glossary" || !allowed(d)) continue;
        if (doc[0] === number || doc[1] === number) exact.push([code, d]);
        else if (doc[12] === number) below.push([code, d]);
      }
    });
    function order(a, b) {  /* a community translation after Wizards' texts, then by number */
      var da = DATA[a[0]].docs[a[1]], db = DATA[b[0]].docs[b[1]];
      return (DATA[a[0]].raw.community ? 1 : 0) - (DATA[b[0]].raw.community ? 1 : 0) || da[11] - db[11] ||
        (a[0] !== "en") - (b[0] !== "en") || db[9] - da[9] || da[10] - db[10];
    }
    var first = exact.sort(order).concat(below.sort(order));
    var scored = [], used = {};
    if (number.indexOf("~") < 0 && number.indexOf("¶") < 0) {
      (lang ? [lang] : LANGS).forEach(function (code) {
        var L = DATA[code], result = rank([new Clause("term", [number])], L, filter(L, section, kind),
          kind === "example", pool + first.length);
        result.order.forEach(function (x) { scored.push([x[0], code, x[1], false]); });
        used[code] = result.used;
      });
    }
    scored.sort(function (a, b) {
      return b[0] - a[0] || DATA[a[1]].docs[a[2]][10] - DATA[b[1]].docs[b[2]][10];
    });
    var top = scored.length ? scored[0][0] : 0, seen = new Set(), items = [];
    first.forEach(function (x, i) {
      seen.add(x[0] + x[1]);
      items.push([top + 1 + (first.length - i) * 1e-3, x[0], x[1], false]);
    });
    scored.forEach(function (x) { if (!seen.has(x[1] + x[2])) items.push(x); });
    return {items: renumberedFirst(number, codes, section, kind, items.slice(0, pool)), used: used};
  }

  /* The versions of a number of other editions first (502.26a -> 702.37a), each with its
     subrules: the table the index wrote (indexer/renumbered.py), read, not computed. An
     item carries its [number typed, later, first edition, last edition] as x[4]. */
  function renumberedFirst(number, codes, section, kind, items) {
    var lead = [], how = {};
    codes.forEach(function (code) {
      var L = DATA[code], allowed = filter(L, section, kind);
      var R = L.renumbered;
      (R.numbers[number] || []).forEach(function (row) {
        if (!allowed(row[0])) return;
        lead.push([code, row[0]]);
        how[code + row[0]] = [number, row[1], R.editions[row[2]], R.editions[row[3]]];
      });
    });
    if (!lead.length) return items;
    function order(a, b) {
      var da = DATA[a[0]].docs[a[1]], db = DATA[b[0]].docs[b[1]];
      return da[11] - db[11] || da[10] - db[10];
    }
    /* Wizards' texts before a community translation, then the number's last edition, the
       newest first, then in rule order (renumbered.order) */
    function newest(x) { return String(how[x[0] + x[1]][3]).split("/").pop(); }
    function community(x) { return DATA[x[0]].raw.community ? 1 : 0; }
    lead.sort(function (a, b) {
      var na = newest(a), nb = newest(b);
      return community(a) - community(b) || (na < nb ? 1 : na > nb ? -1 : order(a, b));
    });
    /* each one's subrules, in its own language (the Chinese 702.37a was never 502.26a) */
    var numbers = new Set(lead.map(function (x) { return x[0] + "\t" + DATA[x[0]].docs[x[1]][0]; })), below = [];
    codes.forEach(function (code) {
      var L = DATA[code], allowed = filter(L, section, kind);
      for (var d = 0; d < L.n; d++) {
        var doc = L.docs[d];
        if (doc[2] !== "glossary" && numbers.has(code + "\t" + doc[12]) && allowed(d) && !how[code + d]) below.push([code, d]);
      }
    });
    lead = lead.concat(below.sort(order));
    var top = items.reduce(function (m, x) { return Math.max(m, x[0]); }, 0), first = new Set(), out = [];
    lead.forEach(function (x, i) {
      first.add(x[0] + x[1]);
      out.push([top + 1 + (lead.length - i) * 1e-3, x[0], x[1], false, how[x[0] + x[1]] || null]);
    });
    items.forEach(function (x) { if (!first.has(x[1] + x[2])) out.push(x); });
    return out;
  }

  function suggest(toks, queryLang, code, section, kind) {
    var Q = DATA[queryLang], L = DATA[code];
    if (!Q || !L || !toks.some(function (t) { return unknown(t, Q) && !Q.expansions.has(t); })) return null;  /* "cmc" */
    var better = [], changed = false, i = 0;
    while (i < toks.length) {  /* Chinese: a run of unknown Han tokens is one mistyped word */
      var t = toks[i], j = i + 1;
      if (Q.raw.han && isHan(t) && unknown(t, Q)) {
        while (j < toks.length && isHan(toks[j]) && unknown(toks[j], Q)) j++;
        t = toks.slice(i, j).join("");
      }
      var b = unknown(t, Q) ? closest(t, Q) : null;
      if (b && b !== t) { better.push(b); changed = true; } else better = better.concat(toks.slice(i, j));
      i = j;
    }
    if (!changed) return null;
    var allowed = filter(L, section, kind);
    var terms = function (list) {
      return list.map(function (t) { return new Clause("term", [t], L.filler.has(t) ? "should" : "must"); });
    };
    var before = rank(terms(toks), L, allowed, false, 1).count, after = rank(terms(better), L, allowed, false, 1).count;
    return after > before ? better.join(" ") : null;
  }

  /* --- snippets.py ------------------------------------------------------------------- */
  var SNIPPET_CHARS = 220, LEAD_CHARS = 40, ELLIPSIS = "…";

  function snippet(text, terms, L) {
    var flat = text.replace(/\n/g, " ");
    var spans = terms.size ? tokenSpans(flat).filter(function (s) { return terms.has(L.docTerm(s[2])); })
      .map(function (s) { return [s[0], s[1]]; }) : [];
    if (flat.length <= SNIPPET_CHARS) return [flat, spans];
    var start = windowStart(flat, spans), end = wordEnd(flat, start + SNIPPET_CHARS);
    var head = start > 0 ? ELLIPSIS : "", tail = end < flat.length ? ELLIPSIS : "", shift = head.length - start;
    var inside = spans.filter(function (s) { return s[0] >= start && s[1] <= end; })
      .map(function (s) { return [s[0] + shift, s[1] + shift]; });
    return [head + flat.slice(start, end) + tail, inside];
  }

  function windowStart(text, spans) {
    if (!spans.length) return 0;
    var best = spans[0][0], bestCount = 0;
    for (var i = 0; i < spans.length; i++) {
      var s = spans[i][0], count = 0;
      for (var j = i; j < spans.length; j++) if (spans[j][1] <= s + SNIPPET_CHARS - LEAD_CHARS) count++;
      if (count > bestCount) { best = s; bestCount = count; }
    }
    if (best <= LEAD_CHARS) return 0;
    var space = text.indexOf(" ", best - LEAD_CHARS);
    return space === -1 ? best - LEAD_CHARS : space + 1;
  }

  function wordEnd(text, i) {
    if (i >= text.length) return text.length;
    var space = text.lastIndexOf(" ", i - 1);
    return space <= 0 ? i : space;
  }

  function hit(item, used, kind) {
    var L = DATA[item[1]], doc = L.docs[item[2]], F = DATA[fieldLang(item[1])];
    var example = kind === "example" && doc[6];
    var source = example ? doc[6] : (doc[4] || doc[3] || "");
    var snip = snippet(source, used[fieldLang(item[1])] || new Set(), F);
    return {
      edition: doc[7], number: doc[0], title: doc[3] || null, kind: example ? "example" : doc[2],
      score: Math.round(item[0] * 10000) / 10000, snippet: snip[0], highlights: snip[1], also_in: Math.max(0, doc[8] - 1),
      id: doc[1], lang: item[1], translation: item[3], raw: item[0],
      renumbered: item[4] ? {number: item[4][0], editions: [item[4][2], item[4][3]], later: !!item[4][1]} : null
    };
  }

  /* The page of a hit, from the site's root: a section page anchor, the glossary, or the
     index of an undated document (followSplit in site.js finds a split section's part). */
  function url(edition, id, kind) {
    var dated = /\/\d{4}-\d\d-\d\d$/.test(edition), section = (/^(\d{3})(?![\d])/.exec(id) || [])[1];
    if (kind === "glossary") return edition + "/" + (dated ? "glossary.html" : "index.html") + "#" + id;
    if (!dated || !/^\d{3}$/.test(section || "")) return edition + "/index.html#" + id;
    if (kind === "section") return edition + "/" + section + ".html";
    return edition + "/" + section + ".html#" + id;
  }

  /* The title of the section a unit is in (from the latest edition's data). */
  function sectionTitle(lang, id) {
    var L = DATA && DATA[lang], m = /^(\d{3})/.exec(id || "");
    if (!L || !m) return "";
    if (!L.sections) {
      L.sections = {};
      L.docs.forEach(function (doc) { if (doc[2] === "section") L.sections[doc[0]] = doc[3]; });
    }
    return L.sections[m[1]] || "";
  }

  var api = {
    url: url, sectionTitle: sectionTitle,
    fold: fold, tokens: tokens, tokenSpans: tokenSpans, parse: parse, ruleNumber: ruleNumber, names: names,
    checkQuery: checkQuery, search: search, load: load, UsageError: UsageError,
    loaded: function () { return DATA !== null; }, detect: detect,
    term: function (lang, token) { return DATA[lang] ? DATA[lang].term(token) : null; }
  };
  root.CRSearch = api;
  if (root.CR_SEARCH) load(root.CR_SEARCH);
})(typeof window !== "undefined" ? window : this);
