"""Search and exact lookup over a built index.

A query's hits come in three tiers, each in its own order:

1. **the rule it numbers**: ``702.36a`` exactly; ``702.36`` the rule, then its
   subrules in order; ``702`` the section, then its rules (``R70236a`` too);
2. **the headword it names**: a query that is a glossary headword (or alias) or a
   rule's title, as typed or through the lexicon, lists the glossary entry first (its
   definition: what a judge wants), then the rule or section with that title;
3. **BM25F** over titles (keyword headings, headwords, ×4), exact title words of the
   unit and its ancestors (×4), text and examples (×0.5): "phasing" then ranks 702.26's
   subrules, which never repeat their rule's title, before the rules that mention
   phasing.

With every edition in scope (``--all-editions``), the versions of one rule (its
lineage, :mod:`.lineage`) collapse into one hit, the best-ranked version, that lists
every edition holding one of them.

An open index (whoosh searcher, side table, impacts) is cached per thread and per
generation, so repeated queries cost only the search itself; a rebuild swaps the
index directory and the next query opens the new one.
"""

from __future__ import annotations

import json
import os
import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from whoosh.index import EmptyIndexError, open_dir
from whoosh.query import And
from whoosh.scoring import BM25F

from .. import languages
from ..errors import UsageError
from ..model import sort_key
from .analysis import LANGS, TOKEN_PATTERN, field_lang, fold, heading_key, term_of
from .build import META_FILE, VOCAB_FILE
from .documents import EXACT_FIELD, FORMAT, GLOSSARY, KINDS
from .impacts import Impacts
from .lexicon import LEXICON_FILE, Lexicon
from .query import check_query, has_syntax, keyword_query, parse_query, query_langs, rule_number
from .scoring import top_documents
from .snippets import make_snippet, mark
from .suggest import Vocabulary
from .table import DocTable, stem_key

#: Every edition, old ones included (the CLI's ``--all-editions``).
ALL_EDITIONS = "*"

#: A query with fewer hits than this gets a spelling suggestion ("did you mean").
FEW_HITS = 3
#: A word in fewer documents of a language than this is not a word of that language
#: (a French forum post that mentions "morph" once), for the lexicon.
KNOWN_IN = 3
#: With every edition in scope, this many candidates per hit are collapsed by lineage.
COLLAPSE_POOL = 8

_OPEN_PER_THREAD = 4
#: Order of headword matches: the glossary definition first, then the titled units.
_HEAD_ORDER = {GLOSSARY: 0, "rule": 1, "section": 2, "passage": 3, "chapter": 4}


@dataclass(frozen=True, slots=True)
class Hit:
    """One unit found: a rule (any kind), an example or a glossary entry of one edition.

    ``snippet`` marks highlighted words with ``**``; ``plain_snippet`` is the same
    text without marks and ``highlights`` the (start, end) offsets of those words in
    it. For a glossary entry ``number`` is its slug and ``title`` its headword.
    ``editions`` lists the editions holding this text, or with every edition in
    scope, a version of this rule (oldest first); ``also_in`` is how many besides
    ``edition``.
    """

    edition: str
    number: str
    title: str | None
    kind: str
    score: float
    snippet: str
    text: str
    plain_snippet: str = ""
    highlights: tuple[tuple[int, int], ...] = ()
    id: str = ""
    lang: str = ""
    editions: tuple[str, ...] = ()

    @property
    def also_in(self) -> int:
        return max(0, len(self.editions) - 1)

    def marked(self, start: str, end: str) -> str:
        """The snippet with each highlighted word wrapped in ``start`` … ``end`` (ANSI, HTML)."""
        return mark(self.plain_snippet, self.highlights, start, end)

    def as_json(self) -> dict:
        """The stable JSON shape: plain snippet plus highlight offsets."""
        return {
            "edition": self.edition,
            "number": self.number,
            "title": self.title,
            "kind": self.kind,
            "score": round(self.score, 4),
            "snippet": self.plain_snippet,
            "highlights": [list(span) for span in self.highlights],
            "also_in": self.also_in,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query, best first, and a spelling suggestion for unknown words.

    ``relaxed`` is true when no unit had every word and the hits have only some;
    ``collapsed`` when versions of a rule across editions were collapsed into one hit.
    """

    query: str
    hits: list[Hit]
    suggestion: str | None = None
    relaxed: bool = False
    collapsed: bool = False

    def as_json(self) -> dict:
        return {
            "query": self.query,
            "hits": [h.as_json() for h in self.hits],
            "suggestion": self.suggestion,
        }


@dataclass
class _Scope:
    """Which editions a query covers: ``ids`` (``None`` for all) and the one to report."""

    ids: frozenset[int] | None
    explicit: str | None = None


@dataclass(frozen=True)
class _Filter:
    """The documents a query may return: those in ``allowed`` (``None``: all); ``current``
    when the scope is the default one (read the first part of each posting list)."""

    allowed: frozenset[int] | None
    current: bool

    def __contains__(self, docnum: int) -> bool:
        return self.allowed is None or docnum in self.allowed


@dataclass
class _OpenIndex:
    ix: object
    searcher: object
    impacts: Impacts
    table: DocTable
    meta: dict
    path: Path
    effective: list[str] = field(default_factory=list)
    current: frozenset[int] = frozenset()
    filters: dict[tuple, _Filter] = field(default_factory=dict)
    _vocab: Vocabulary | None = None
    _lexicon: Lexicon | None = None

    @property
    def vocab(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = Vocabulary.load(self.path / VOCAB_FILE, self.frequency)
        return self._vocab

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = Lexicon.load(self.path / LEXICON_FILE)
        return self._lexicon

    def frequency(self, word: str, lang: str) -> int:
        """In how many documents ``word`` (analyzed for ``lang``) is."""
        term = term_of(word, lang)
        return self.searcher.doc_frequency(f"body_{lang}", term) if term else 0

    def known(self, word: str, lang: str) -> bool:
        """Whether ``word`` is a word of ``lang``'s texts (in a few documents at least), so
        that a lexicon term made of it is not translated into ``lang``."""
        return fold(word) in self.vocab.words.get(lang, {}) and self.frequency(word, lang) >= KNOWN_IN

    def effective_of(self, name: str) -> str:
        """The effective date of edition ``name`` (empty for an undated document)."""
        try:
            return self.effective[self.table.editions.index(name)]
        except ValueError:
            return ""

    def close(self) -> None:
        self.impacts.close()
        self.searcher.close()
        self.ix.close()


_local = threading.local()


def _open(index_dir) -> _OpenIndex:
    path = Path(index_dir)
    meta_path = path / META_FILE
    try:
        real = os.path.realpath(path)
        st = os.stat(meta_path)
    except OSError:
        raise UsageError(f"no search index in {path} (build one with `comprules build`)") from None
    key = (real, st.st_ino, st.st_mtime_ns)
    cache: OrderedDict = _local.__dict__.setdefault("cache", OrderedDict())
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    handle = _load(Path(real), Path(real) / META_FILE)
    cache[key] = handle
    while len(cache) > _OPEN_PER_THREAD:
        cache.popitem(last=False)[1].close()
    return handle


def _load(path: Path, meta_path: Path) -> _OpenIndex:
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    if meta.get("format") != FORMAT:
        raise UsageError(f"search index in {path} is from another version; rebuild it")
    try:
        ix = open_dir(str(path))
    except (OSError, ValueError, EmptyIndexError) as error:
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    try:
        impacts = Impacts(path)
        table = DocTable.load(path)
    except (OSError, ValueError, pickle.UnpicklingError, KeyError, TypeError, EOFError) as error:
        ix.close()
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    handle = _OpenIndex(ix=ix, searcher=ix.searcher(weighting=BM25F()), impacts=impacts, table=table,
                        meta=meta, path=path)
    dates = {e["name"]: e["effective"] or "" for e in meta["editions"]}
    handle.effective = [dates.get(name, "") for name in table.editions]
    ids = {name: i for i, name in enumerate(table.editions)}
    handle.current = frozenset(ids[n] for n in meta["current"] if n in ids)
    return handle


def _resolve(handle: _OpenIndex, edition: str | None) -> _Scope:
    """The scope of an edition option: a name, ``{lang}/latest``, a bare date or stem, ``*``."""
    if edition is None:
        return _Scope(handle.current)
    if edition in (ALL_EDITIONS, "all"):
        return _Scope(None)
    editions = handle.meta["editions"]
    names = [e["name"] for e in editions]
    ids = {name: i for i, name in enumerate(handle.table.editions)}
    if edition in names:
        return _Scope(frozenset([ids[edition]]), edition)
    lang, _, rest = edition.rpartition("/")
    if rest == "latest":
        dated = [e for e in editions if e["effective"] and (not lang or e["lang"] == lang)]
        candidates = [max((e for e in dated if e["lang"] == code), key=lambda e: e["effective"])["name"]
                      for code in sorted({e["lang"] for e in dated})]
    else:
        candidates = [n for n in names if n.rpartition("/")[2] == rest and (not lang or n.startswith(lang + "/"))]
    if len(candidates) == 1:
        return _Scope(frozenset([ids[candidates[0]]]), candidates[0])
    if candidates:
        raise UsageError(f"edition {edition!r} is ambiguous: {', '.join(candidates)}")
    raise UsageError(f"unknown edition {edition!r} in the index ({len(names)} editions; e.g. {', '.join(names[-3:])})")


def _filter(handle: _OpenIndex, scope: _Scope, lang: str | None, section: str | None, kind: str | None) -> _Filter:
    """The documents a query in ``scope`` (and ``lang``, ``section``, ``kind``) may return."""
    key = (scope.ids, lang, section, kind)
    if key not in handle.filters:
        table = handle.table
        # the default scope's documents come first in every posting list: any scope inside it reads only those
        current = scope.ids is not None and scope.ids <= handle.current
        kinds = KINDS[kind] if kind else None
        if scope.ids is None and not (lang or section or kind):
            allowed = None
        else:
            ids = scope.ids
            allowed = frozenset(
                d for d in range(len(table))
                if table.members[d]
                and (ids is None or not ids.isdisjoint(table.members[d]))
                and (lang is None or table.lang[d] == lang)
                and (section is None or _in_section(table.section[d], section))
                and (kinds is None or table.kind[d] in kinds)
                and (kind != "example" or table.examples[d])
            )
        handle.filters[key] = _Filter(allowed, current)
    return handle.filters[key]


def _in_section(doc_section: str, section: str) -> bool:
    return doc_section == section if len(section) == 3 else doc_section[:1] == section


def _check_options(lang, section, kind, limit) -> tuple[str | None, str | None, str | None]:
    if lang in (None, "any"):
        lang = None
    elif lang not in LANGS:
        raise UsageError(f"unknown language {lang!r} (use en, fr or any)")
    if section is not None:
        section = str(section).strip().rstrip(".")
        if not (section.isdigit() and len(section) in (1, 3)):
            raise UsageError(f"bad section {section!r} (a section such as 702, or a chapter such as 7)")
    if kind in (None, "any"):
        kind = None
    elif kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r} (use {', '.join(KINDS)} or any)")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise UsageError(f"bad limit {limit!r} (a positive number)")
    return lang, section, kind


def search(
    index_dir: Path,
    query: str,
    *,
    edition: str | None = None,
    lang: str | None = None,
    section: str | None = None,
    kind: str | None = None,
    limit: int = 10,
) -> SearchResult:
    """Search the index: the rule a number names, the headword a query names, then BM25F.

    ``edition`` ``None`` covers the latest edition of each language and every undated
    document (fragments); ``"*"`` covers every edition, one hit per rule (lineage).
    ``kind`` is ``rule``, ``example``, ``glossary`` or ``note``.
    """
    text = check_query(query)
    lang, section, kind = _check_options(lang, section, kind, limit)
    handle = _open(index_dir)
    scope = _resolve(handle, edition)
    flt = _filter(handle, scope, lang, section, kind)
    langs = query_langs(lang)
    collapse = scope.ids is None
    pool = limit * COLLAPSE_POOL if collapse else limit

    for pool in (pool, pool * 8) if collapse else (pool,):
        first, scored, used, relaxed, number = _candidates(handle, text, langs, flt, kind, pool)
        if not collapse or len({handle.table.lineage[d] for d in (*first, *(d for _, d in scored))}) >= limit:
            break
    top = max((s for s, _ in scored), default=0.0)
    seen = set(first)
    ranked = [(top + 1.0 + (len(first) - i) * 1e-3, d) for i, d in enumerate(first)]
    ranked += [(s, d) for s, d in scored if d not in seen]
    if collapse:
        groups = _collapse(handle, ranked, limit)
    else:
        groups = [(s, d, None) for s, d in ranked[:limit]]
    terms = _terms_by_code(used)
    hits = [_hit(handle, d, s, scope, terms, kind, editions) for s, d, editions in groups]
    suggestion = None
    if not number and (len(hits) < FEW_HITS or relaxed):
        suggestion = handle.vocab.suggest(text, langs)
    return SearchResult(query=query, hits=hits, suggestion=suggestion, relaxed=relaxed, collapsed=collapse)


def _candidates(handle: _OpenIndex, text: str, langs, flt: _Filter, kind, pool: int):
    """The documents ranked first (the numbered rule, the headword), the BM25F (score,
    document) list, the (field, term) pairs used, whether relaxed, and the rule number."""
    number = rule_number(text)
    if number:
        first = _number_docs(handle, number, flt, children=True)
        # "R70236a" also finds the rules citing 702.36a; a unit id (702.175~2, 602¶3) only itself
        q = keyword_query(number, langs) if "~" not in number and "¶" not in number else None
        scored, used, relaxed = *_top(handle, q, flt, pool + len(first)), False
    else:
        first, (scored, used, relaxed) = _words(handle, text, langs, flt, kind, pool)
    return first, scored, used, relaxed, number


def _words(handle: _OpenIndex, text: str, langs: tuple[str, ...], flt: _Filter, kind: str | None, pool: int):
    """The headword matches, and the BM25F (score, document) list, terms used and whether
    it was relaxed (no unit had every word: any word will do)."""
    fields = ("examples",) if kind == "example" else ("title", "body", "examples")
    if has_syntax(text):
        q = parse_query(text, handle.ix.schema, langs, fields)
        return [], (*_top(handle, q, flt, pool), False)
    first = _head_docs(handle, text, langs, flt) if kind != "example" else []
    translations = handle.lexicon.translations(TOKEN_PATTERN.findall(text), langs, handle.known)
    q = keyword_query(text, langs, translations=translations, fields=fields)
    scored, used = _top(handle, q, flt, pool + len(first))
    if len(scored) >= FEW_HITS or not isinstance(q, And):
        return first, (scored, used, False)
    # few units have every word: then those with some of them
    q = keyword_query(text, langs, every=False, translations=translations, fields=fields)
    more, used_more = _top(handle, q, flt, pool + len(first))
    have = {d for _, d in scored}
    relaxed = not scored and bool(more)
    return first, (scored + [(s, d) for s, d in more if d not in have], used | used_more, relaxed)


def lookup(index_dir: Path, number: str, edition: str | None = None) -> list[Hit]:
    """The units numbered ``number`` (``702.36a``, ``R70236a``, ``702.175~2``) in an edition's scope.

    With ``edition`` ``None``, the latest edition of each language and the undated
    documents; with ``"*"``, one hit per distinct text of that number across editions.
    """
    wanted = rule_number(str(number))
    if wanted is None:
        raise UsageError(f"not a rule number: {str(number)[:40]!r}")
    handle = _open(index_dir)
    scope = _resolve(handle, edition)
    docs = _number_docs(handle, wanted, _filter(handle, scope, None, None, None), children=False)
    hits = [_hit(handle, d, 1.0, scope, {}) for d in docs]
    return sorted(hits, key=lambda h: (h.lang, -_date_rank(handle.effective_of(h.edition))))


def _date_rank(effective: str) -> int:
    return int(effective.replace("-", "")) if effective else 0


def _number_docs(handle: _OpenIndex, number: str, flt: _Filter, *, children: bool) -> list[int]:
    """The documents numbered ``number``, then (``children``) those one level below, in
    rule order; among versions of one number (every edition), the latest first."""
    table = handle.table
    exact = [d for d in table.by_number.get(number, ()) if d in flt]
    below = [d for d in table.children.get(number, ()) if d in flt] if children else []

    def order(d: int) -> tuple:
        # a community translation (languages.toml: the Chinese CR, which holds every
        # number) comes after Wizards' own texts, which interleave by language
        community = languages.get(table.lang[d]).community
        return (community, sort_key(table.rid[d]), table.lang[d] != "en", -_latest(handle, d))

    return sorted(exact, key=order) + sorted(below, key=order)


def _latest(handle: _OpenIndex, d: int) -> int:
    return max((_date_rank(handle.effective[e]) for e in handle.table.members[d]), default=0)


def _head_docs(handle: _OpenIndex, text: str, langs: tuple[str, ...], flt: _Filter) -> list[int]:
    """The glossary entries and titled units whose headword the query is, best first.

    Matched as typed (folded), or without leading question and stop words ("what is
    phasing", "the stack"); failing a glossary entry, by stems ("mana abilities" →
    Mana Ability) or as the unique headword the query begins ("timestamp" →
    Timestamp Order); failing any match, by stems ("capacite activee" → 403
    Capacités activées), then through the lexicon ("piétinement" → Trample). Each glossary entry comes first, followed by the rules its definition
    cites (Phasing → 702.26), then the rules and sections with that title.
    """
    table = handle.table

    def usable(docs) -> list[int]:
        return list(dict.fromkeys(d for d in docs if d in flt and table.lang[d] in langs))

    keys = list(dict.fromkeys(k for k in (heading_key(text), _without_leading_stop_words(text)) if k))
    if not keys:
        return []
    found = usable(d for key in keys for d in table.heads.get(key, ()))
    if not any(table.kind[d] == GLOSSARY for d in found):
        found += [d for d in _near_glossary(handle, keys, langs, usable) if d not in found]
    if not found:
        found = usable(d for key in keys for lang in langs for d in table.stemmed_heads.get(stem_key(key, lang), ()))
    if not found:
        translated = [heading_key(t) for _, t in handle.lexicon.whole(text, langs, handle.known)]
        found = usable(d for key in translated for d in table.heads.get(key, ()))
    glossary = sorted((d for d in found if table.kind[d] == GLOSSARY),
                      key=lambda d: (table.lang[d] != "en", -_latest(handle, d), d))
    titled = sorted((d for d in found if table.kind[d] != GLOSSARY),
                    key=lambda d: (_HEAD_ORDER.get(table.kind[d], 5), -_latest(handle, d), sort_key(table.rid[d])))
    out: list[int] = []
    lineages = set()
    for g in glossary:
        out.append(g)
        if table.lineage[g] not in lineages:  # an older version's citations are older rules
            lineages.add(table.lineage[g])
            out += [d for d in _cited(handle, g, flt) if d not in out]
    return out + [d for d in titled if d not in out]


def _without_leading_stop_words(text: str) -> str:
    words = heading_key(text).split()
    while words and term_of(words[0], "en") is None and term_of(words[0], "fr") is None:
        words.pop(0)
    return " ".join(words)


def _near_glossary(handle: _OpenIndex, keys: list[str], langs: tuple[str, ...], usable) -> list[int]:
    """Glossary entries whose headword has the query's stems, or the one headword the
    query begins."""
    table = handle.table
    glossary = lambda docs: [d for d in usable(docs) if table.kind[d] == GLOSSARY]  # noqa: E731
    found = glossary(d for key in keys for lang in langs for d in table.stemmed_heads.get(stem_key(key, lang), ()))
    if found:
        return found
    key = keys[-1]
    longer = [k for k in table.heads if k.startswith(key + " ") and glossary(table.heads[k])]
    return glossary(table.heads[longer[0]]) if len(longer) == 1 else []


def _cited(handle: _OpenIndex, glossary_doc: int, flt: _Filter) -> list[int]:
    """The units a glossary definition cites, in the same language and edition."""
    table = handle.table
    members = set(table.members[glossary_doc])
    out = []
    for number in table.cites[glossary_doc]:
        out += [d for d in table.by_number.get(number, ()) if d in flt and table.lang[d] == table.lang[glossary_doc]
                and not members.isdisjoint(table.members[d])]
    return out


def _collapse(handle: _OpenIndex, ranked: list[tuple[float, int]], limit: int) -> list[tuple[float, int, tuple]]:
    """One (score, document, editions) per lineage, in the order of each lineage's best
    version; the document shown is the latest version among those found."""
    table = handle.table
    groups: dict[int, list[tuple[float, int]]] = {}
    for score, d in ranked:
        groups.setdefault(table.lineage[d], []).append((score, d))
    out = []
    for lineage, found in list(groups.items())[:limit]:
        best = found[0][0]
        shown = max(found, key=lambda item: (_latest(handle, item[1]), item[0]))[1]
        editions = table.lineage_editions.get(lineage, frozenset(table.members[shown]))
        out.append((best, shown, tuple(sorted(editions, key=lambda e: (handle.effective[e] or "9", e)))))
    return out


def _top(handle: _OpenIndex, q, flt: _Filter, limit: int) -> tuple[list[tuple[float, int]], set]:
    if q is None:
        return [], set()
    return top_documents(q, handle.impacts, handle.searcher, limit=limit, allowed=flt.allowed,
                         current_only=flt.current)


def _terms_by_code(used: set[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """The matched terms to highlight, by language code (``en``, ``fr``) or ``names``."""
    out: dict[str, set[str]] = {}
    for fieldname, term in used:
        code = fieldname if fieldname == EXACT_FIELD else fieldname.rpartition("_")[2]
        out.setdefault(code, set()).add(term)
    return {code: frozenset(terms) for code, terms in out.items()}


def _hit(handle: _OpenIndex, docnum: int, score: float, scope: _Scope, terms: dict, kind: str | None = None,
         editions: tuple[int, ...] | None = None) -> Hit:
    table = handle.table
    unit = handle.searcher.stored_fields(docnum)["unit"]
    members = table.members[docnum]
    lang = table.lang[docnum]
    example = kind == "example" and unit.get("examples")
    source = unit["examples"] if example else (unit["text"] or unit["title"] or "")
    plain, spans = make_snippet(
        source,
        terms.get(field_lang(lang), frozenset()),
        lang,
        terms.get(EXACT_FIELD, frozenset()),
    )
    names = tuple(table.editions[e] for e in (editions or sorted(members, key=lambda e: (handle.effective[e] or "9", e))))
    return Hit(
        edition=_reported_edition(handle, members, scope),
        number=unit["number"],
        title=unit["title"],
        kind="example" if example else table.kind[docnum],
        score=float(score),
        snippet=mark(plain, spans),
        text=unit["text"],
        plain_snippet=plain,
        highlights=spans,
        id=unit["id"],
        lang=lang,
        editions=names,
    )


def _reported_edition(handle: _OpenIndex, members: tuple[int, ...], scope: _Scope) -> str:
    if scope.explicit:
        return scope.explicit
    candidates = [e for e in members if scope.ids is None or e in scope.ids] or list(members)
    best = max(candidates, key=lambda e: (handle.effective[e], e))
    return handle.table.editions[best]
