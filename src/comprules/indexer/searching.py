"""Search and exact lookup over a built index.

comprules' own ranking (:mod:`.rank`) over whoosh's stored documents. A query's hits
come in three tiers, each in its own order:

1. **the rule it numbers**: ``702.36a`` exactly; ``702.36`` the rule, then its
   subrules in order; ``702`` the section, then its rules (``R70236a`` too); then the
   rules citing it;
2. **the headword it is**: a query that *is* a glossary headword or alias (folded;
   without leading question and stop words; or by terms: "mana abilities" is Mana
   Ability), or a rule's title, or a keyword with its parameter as a card prints it
   ("ward 2", "protection from blue": :func:`_keyword_heads`), lists the glossary entry
   first (its definition), the rules it cites, then the rules and sections with that
   title;
3. **the words**, ranked by :mod:`.rank` (BM25F, coordination, proximity); at most one
   glossary entry in the top 5 (none forced first).

**Languages.** The query's language is detected from its words (:mod:`.suggest`), or
is the ``lang`` option when its words are that language's. Its hits come first; a
hit of another language comes through the lexicon (:mod:`.lexicon`: "morph" → "Mue"),
marked ``translation``, or by a word as typed that it prints (a French note's "morph"),
not marked; its score is scaled below the last hit of the query's language, so scores are
always in order.

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
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from whoosh.index import EmptyIndexError, open_dir

from .. import languages, segment
from ..errors import UsageError
from ..model import section_filter, sort_key
from . import text as T
from .documents import FORMAT, GLOSSARY, KINDS, META_FILE, VOCAB_FILE, damaged
from .expand import EXPANSIONS_FILE, KEYWORDS_MET, Expansions
from .impacts import ALL, Impacts
from .inflect import query_term
from .languages import LANGS, LANGUAGES, field_lang
from .lexicon import LEXICON_FILE, Lexicon
from .query import MUST, Clause, check_query, names, parse, rule_number
from .rank import Ranker
from .renumbered import Renumbered, renumbered
from .snippets import make_snippet, mark
from .suggest import Vocabulary
from .table import HAN_PLACEHOLDER, KEYWORD_SECTIONS, DocTable

#: Every edition, old ones included (the CLI's ``--all-editions``).
ALL_EDITIONS = "*"

#: A query with fewer hits than this gets a spelling suggestion ("did you mean").
FEW_HITS = 3
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
    #: Found through the lexicon: the hit's language is not the query's, and the hit prints
    #: no word of the query as typed.
    translation: bool = False
    #: The title of the section the rule is in, as ``edition`` printed it (2009-05-01's 502
    #: is "Keyword Abilities", today's "Untap Step"); ``None`` for a glossary entry, a
    #: section itself, or a document without that section.
    section_title: str | None = None
    #: The number typed is this rule's in other editions (502.26a → 702.37a): which, where.
    renumbered: Renumbered | None = None

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
            "id": self.id,
            "lang": self.lang,
            "translation": self.translation,
            "section_title": self.section_title,
            "renumbered": self.renumbered.as_json() if self.renumbered else None,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query, best first, and a spelling suggestion for unknown words.

    ``lang`` is the query's language (detected, or the ``lang`` option); ``relaxed``
    is true when no hit has every word of the query; ``collapsed`` when versions of a
    rule across editions were collapsed into one hit.
    """

    query: str
    hits: list[Hit]
    suggestion: str | None = None
    relaxed: bool = False
    collapsed: bool = False
    lang: str = "en"
    #: The cards the query names, shown before the hits (:mod:`comprules.cards.search`).
    cards: tuple[dict, ...] = ()

    def as_json(self) -> dict:
        return {
            "query": self.query,
            "cards": list(self.cards),
            "hits": [h.as_json() for h in self.hits],
            "suggestion": self.suggestion,
            "lang": self.lang,
        }


@dataclass
class _Scope:
    """Which editions a query covers: ``ids`` (``None`` for all) and the one to report."""

    ids: frozenset[int] | None
    explicit: str | None = None


@dataclass(frozen=True)
class _Filter:
    """The documents a query may return: ``mask`` (``None``: all); ``current`` when the
    scope is inside the default one (read the first part of each posting list)."""

    mask: np.ndarray | None
    current: bool

    def __contains__(self, docnum: int) -> bool:
        return self.mask is None or bool(self.mask[docnum])


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
    _expansions: Expansions | None = None
    _ranker: Ranker | None = None
    _units: dict[int, dict] = field(default_factory=dict)
    _sequences: dict[int, list] = field(default_factory=dict)
    _edition_names: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _section_titles: dict[tuple[str, str], str | None] = field(default_factory=dict)
    #: The edition a hit names in the default scope, per document (:func:`_reported_edition`).
    _reported: dict[int, str] = field(default_factory=dict)
    _titles: dict[int, list[str]] = field(default_factory=dict)
    #: The vocabulary its Chinese texts were cut with (activated by :func:`_open`).
    segmenter: segment.Segmenter = field(default_factory=lambda: segment.EMPTY)

    @property
    def vocab(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = Vocabulary.load(self.path / VOCAB_FILE, self.df)
        return self._vocab

    @property
    def expansions(self) -> Expansions:
        if self._expansions is None:
            self._expansions = Expansions.load(self.path / EXPANSIONS_FILE)
        return self._expansions

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = Lexicon.load(self.path / LEXICON_FILE)
        return self._lexicon

    @property
    def ranker(self) -> Ranker:
        if self._ranker is None:
            self._ranker = Ranker(
                self.impacts,
                self.vocab.table,
                self.sequence,
                self.table.kind,
                len(self.table),
                self.title_tokens,
                self.table.heading,
                self.table.number,
            )
        return self._ranker

    def df(self, lang: str, term: str) -> int:
        """In how many live documents of ``lang`` (every edition) ``term`` is."""
        entry = self.impacts.terms.get(f"{lang}:{ALL}", {}).get(term)
        return entry[2] if entry else 0

    def known(self, token: str, lang: str) -> bool:
        return self.vocab.known(token, lang)

    def stem(self, token: str, lang: str) -> str | None:
        return self.vocab.table(lang).get(token)

    def unit(self, docnum: int) -> dict:
        """The stored ``unit`` of a document (number, id, title, text, examples)."""
        unit = self._units.get(docnum)
        if unit is None:
            unit = self._units[docnum] = self.searcher.stored_fields(docnum)["unit"]
        return unit

    def edition_names(self, docnum: int) -> tuple[str, ...]:
        """The editions holding a document, by name, oldest first (kept per document)."""
        names = self._edition_names.get(docnum)
        if names is None:
            effective = self.effective
            members = sorted(self.table.members[docnum], key=lambda e: (effective[e] or "9", e))
            names = self._edition_names[docnum] = tuple(self.table.editions[e] for e in members)
        return names

    def sequence(self, docnum: int) -> list:
        """The terms of a document's title, ``None``, then the terms of its text."""
        seq = self._sequences.get(docnum)
        if seq is None:
            unit = self.unit(docnum)
            language = LANGUAGES[field_lang(self.table.lang[docnum])]
            seq = [t for t in map(language.term, T.tokens(unit["title"] or "")) if t is not None]
            seq.append(None)
            seq += [t for t in map(language.term, T.tokens(unit["text"] or "")) if t is not None]
            self._sequences[docnum] = seq
        return seq

    def columns(self) -> dict[str, np.ndarray]:
        """The side table's columns as arrays (for filters)."""
        cached = self.__dict__.get("_columns")
        if cached is None:
            t = self.table
            cached = self.__dict__["_columns"] = {
                "lang": np.array(t.lang, dtype=object),
                "kind": np.array(t.kind, dtype=object),
                "section": np.array(t.section, dtype=object),
                "chapter": np.array([x[:1] for x in t.section], dtype=object),
                "examples": np.array(t.examples, dtype=bool),
            }
        return cached

    def scope_mask(self, ids: frozenset[int] | None) -> np.ndarray:
        """The live documents held by one of the editions ``ids`` (every edition: ``None``)."""
        masks = self.__dict__.setdefault("_scopes", {})
        if ids not in masks:
            members = self.table.members
            if ids is None:
                masks[ids] = np.fromiter((bool(m) for m in members), dtype=bool, count=len(members))
            else:
                masks[ids] = np.fromiter((not ids.isdisjoint(m) for m in members), dtype=bool, count=len(members))
        return masks[ids]

    def title_tokens(self, docnum: int) -> list[str]:
        """The tokens of a document's title, stop words of its language left out."""
        found = self._titles.get(docnum)
        if found is None:
            stop = LANGUAGES[field_lang(self.table.lang[docnum])].stop
            found = self._titles[docnum] = [t for t in T.tokens(self.unit(docnum)["title"] or "") if t not in stop]
        return found

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
    """The open index of ``index_dir`` (cached per thread); its vocabulary becomes the
    active one (:func:`comprules.segment.activate`), so queries are cut as its texts were."""
    # the folder as named and its meta file's identity: a build swaps in a new generation
    # (a new meta file) under the same name; the real path is looked for only on a miss
    # (its lstat of each part of the path was a tenth of a search's system time)
    try:
        st = os.stat(os.path.join(index_dir, META_FILE))
    except OSError:
        raise UsageError(f"no search index in {index_dir} (build one with `comprules build`)") from None
    key = (str(index_dir), st.st_dev, st.st_ino, st.st_mtime_ns)
    cache: OrderedDict = _local.__dict__.setdefault("cache", OrderedDict())
    if key in cache:
        cache.move_to_end(key)
        segment.activate(cache[key].segmenter)
        return cache[key]
    real = os.path.realpath(index_dir)
    handle = _load(Path(real), Path(real) / META_FILE)
    segment.activate(handle.segmenter)
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
    wrong = damaged(path)
    if wrong is not None:
        raise UsageError(f"the search index in {path} is damaged: {wrong} (build it again: `comprules build`)")
    try:
        ix = open_dir(str(path))
    except (OSError, ValueError, EmptyIndexError) as error:
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    try:
        impacts = Impacts(path)
        table = DocTable.load(path)
        segmenter = segment.load(path / segment.FILE)
    except (OSError, ValueError, pickle.UnpicklingError, KeyError, TypeError, EOFError) as error:
        ix.close()
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    handle = _OpenIndex(
        ix=ix, searcher=ix.searcher(), impacts=impacts, table=table, meta=meta, path=path, segmenter=segmenter
    )
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
        candidates = [
            max((e for e in dated if e["lang"] == code), key=lambda e: e["effective"])["name"]
            for code in sorted({e["lang"] for e in dated})
        ]
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
        columns = handle.columns()
        mask = handle.scope_mask(scope.ids).copy()
        if lang is not None:
            mask &= columns["lang"] == lang
        if section is not None:
            mask &= (columns["section"] == section) if len(section) == 3 else (columns["chapter"] == section)
        if kind is not None:
            mask &= np.isin(columns["kind"], sorted(KINDS[kind]))
            if kind == "example":
                mask &= columns["examples"]
        del table
        handle.filters[key] = _Filter(mask, current)
    return handle.filters[key]


def _in_section(doc_section: str, section: str) -> bool:
    return doc_section == section if len(section) == 3 else doc_section[:1] == section


def _check_options(lang, section, kind, limit) -> tuple[str | None, str | None, str | None]:
    if lang in (None, "any"):
        lang = None
    elif lang not in LANGS:
        raise UsageError(f"unknown language {lang!r} (use {', '.join(LANGS)} or any)")
    if section is not None:
        try:
            section = section_filter(section)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
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
    prior: Mapping[str, float] | None = None,
    drop: Sequence[tuple[int, int]] = (),
    context: str | None = None,
) -> SearchResult:
    """Search the index: the rule a number names, the headword a query is, then the words.

    ``edition`` ``None`` covers the latest edition of each language and every undated
    document (fragments); ``"*"`` covers every edition, one hit per rule (lineage).
    ``lang`` keeps one language's documents; ``kind`` is ``rule``, ``example``,
    ``glossary`` or ``note``. Raises :class:`UsageError` for a malformed query or option.

    ``prior``: rule id → weight (0–1) of the rules the question is known to be about (the
    rules the cards it names call on, :mod:`comprules.cards`): a hit that is such a rule,
    inside one, or beside one is scored up (:func:`_with_prior`), and a question that is
    nothing but card names gets those rules. ``drop``: (start, end) character spans of
    ``query`` that are not searched for (the cards' names). ``context``: words the question
    is about without saying them (the cards' Oracle text), searched on their own and added
    at :data:`CONTEXT_WEIGHT` of the question's own scores.
    """
    if drop:
        query_words = "".join(" " if any(a <= i < b for a, b in drop) else ch for i, ch in enumerate(query))
        if not query_words.strip() or common_only(query_words):
            if prior:
                return _prior_only(index_dir, query, prior, edition=edition, lang=lang, limit=limit)
        else:
            result = search(
                index_dir,
                query_words,
                edition=edition,
                lang=lang,
                section=section,
                kind=kind,
                limit=limit,
                prior=prior,
                context=context,
            )
            return SearchResult(
                query=query,
                hits=result.hits,
                suggestion=None,
                relaxed=result.relaxed,
                collapsed=result.collapsed,
                lang=result.lang,
            )
    text = check_query(query)
    lang, section, kind = _check_options(lang, section, kind, limit)
    handle = _open(index_dir)
    scope = _resolve(handle, edition)
    if common_words_only(text) and not _a_head(handle, text, _filter(handle, scope, lang, None, None)):
        # "what is the": nothing to look for ("You", a glossary headword, is)
        return SearchResult(query=query, hits=[], collapsed=scope.ids is None, lang=lang or "en")
    if lang is None and scope.explicit:  # one edition: its language
        lang = field_lang(scope.explicit.partition("/")[0])
    collapse = scope.ids is None
    number = rule_number(text)
    tokens = T.tokens(text)
    query_lang = "en" if number else handle.vocab.detect(tokens, lang)
    pool = limit * COLLAPSE_POOL if collapse else limit
    if prior and not number:
        pool = max(pool, PRIOR_POOL)
    for size in (pool, pool * 8) if collapse else (pool,):
        ranked, used, relaxed = _ranked(handle, text, number, query_lang, scope, lang, section, kind, size)
        if not collapse or len({handle.table.lineage[d] for _, d, _ in ranked}) >= limit:
            break
    if prior and not number:
        around = None
        if context and CONTEXT_WEIGHT > 0:
            try:
                ctx = check_query(context[:MAX_CONTEXT])
                around, _u, _r = _ranked(handle, ctx, None, query_lang, scope, lang, section, kind, PRIOR_POOL)
            except UsageError:
                around = None
        ranked = _with_prior(handle, ranked, prior, _filter(handle, scope, lang or query_lang, section, kind), around)
    moved = renumbered(handle, number, _filter(handle, scope, lang, None, None).mask) if number else {}
    if moved:
        flt = _filter(handle, scope, lang, section, kind)
        moved = {d: how for d, how in moved.items() if d in flt}
        ranked = _renumbered_first(handle, ranked, moved, flt)
    if collapse:
        groups = _collapse(handle, [(s, d) for s, d, _ in ranked], limit)
    else:
        groups = [(s, d, None) for s, d, _ in ranked[:limit]]
    translated = {d for _, d, t in ranked if t}
    hits = [_hit(handle, d, s, scope, used, kind, editions, d in translated, moved.get(d)) for s, d, editions in groups]
    suggestion = None
    if not number and not has_operators(text):
        suggestion = _suggestion(handle, tokens, query_lang, lang or query_lang, scope, section, kind)
    return SearchResult(
        query=query, hits=hits, suggestion=suggestion, relaxed=relaxed, collapsed=collapse, lang=query_lang
    )


#: With a prior, this many hits are ranked by the words before the prior re-orders them.
PRIOR_POOL = 200
#: A hit's score becomes score × (1 + PRIOR_BOOST × p) + PRIOR_ADD × p × (the best score),
#: p its prior (:func:`prior_of`): the rules a question's cards call on come up, and one
#: they call on strongly is a hit even where the question's words miss it.
PRIOR_BOOST = 2.0
PRIOR_ADD = 0.5
#: A rule of the prior weighing at least this is a hit even when no word of the question is
#: in it (its score then is the PRIOR_ADD part alone).
PRIOR_INJECT = 0.5
#: The weight of the context's own ranking (the cards' text), against the question's (1).
CONTEXT_WEIGHT = 0.3
#: The longest context searched, in characters.
MAX_CONTEXT = 900
#: The share of a rule's prior a neighbour gets: its subrules, its parent rule, a sibling
#: subrule (the same rule), the same section.
PRIOR_SPREAD = {"same": 1.0, "inside": 0.8, "parent": 0.6, "sibling": 0.5, "section": 0.25}


def prior_of(number: str, prior: Mapping[str, float]) -> float:
    """A unit's prior: the largest weight of a prior rule it is, is inside, holds, is a
    sibling of, or shares a section with, times :data:`PRIOR_SPREAD` of that relation.

    >>> prior_of("614.5", {"614.1a": 1.0}), prior_of("614.1", {"614.1a": 1.0}), prior_of("702.8b", {"702.8": 1.0})
    (0.25, 0.6, 0.8)
    """
    if not number[:1].isdigit():
        return 0.0
    best = 0.0
    mine = number.rstrip("abcdefghijklmnopqrstuvwxyz")
    for rule, weight in prior.items():
        if number == rule:
            share = PRIOR_SPREAD["same"]
        elif (
            number.startswith(rule)
            and len(number) > len(rule)
            and (number[len(rule)] in ".abcdefghijklmnopqrstuvwxyz" and (number[len(rule)] != "." or "." not in rule))
        ):
            share = PRIOR_SPREAD["inside"]
        elif rule.startswith(number) and "." in number and rule[len(number) :].isalpha():
            share = PRIOR_SPREAD["parent"]
        elif "." in rule and mine == rule.rstrip("abcdefghijklmnopqrstuvwxyz") and "." in number:
            share = PRIOR_SPREAD["sibling"]
        elif number[:3] == rule[:3] and "." in number:
            share = PRIOR_SPREAD["section"]
        else:
            continue
        best = max(best, weight * share)
    return best


def _with_prior(
    handle: _OpenIndex, ranked: list, prior: Mapping[str, float], flt: _Filter, around: list | None = None
) -> list:
    """``ranked`` (score, document, translation) re-scored by the prior, best first; the
    strong rules of the prior that the words missed are added (with no word score), and the
    context's ranking ``around`` is added at :data:`CONTEXT_WEIGHT`."""
    table = handle.table
    numbers = table.number
    top = ranked[0][0] if ranked else 1.0
    have = {d for _, d, _ in ranked}
    extra = []
    if around:
        scale = CONTEXT_WEIGHT * top / (around[0][0] or 1.0)
        bonus = {d: sc * scale for sc, d, _ in around}
        ranked = [(sc + bonus.get(d, 0.0), d, t) for sc, d, t in ranked]
        for _sc, d, t in around:
            if d not in have:
                have.add(d)
                ranked.append((bonus[d], d, t))
    for rule, weight in prior.items():
        if weight < PRIOR_INJECT:
            continue
        for d in table.by_number.get(rule, ()):
            if d not in have and d in flt:
                have.add(d)
                extra.append((0.0, d, False))
    out = []
    for s, d, t in [*ranked, *extra]:
        p = prior_of(numbers[d], prior)
        out.append((s * (1.0 + PRIOR_BOOST * p) + PRIOR_ADD * p * top, d, t))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out


def _prior_only(index_dir: Path, query: str, prior: Mapping[str, float], *, edition, lang, limit: int) -> SearchResult:
    """The hits of a question that is only card names: the rules they call on, by weight."""
    handle = _open(index_dir)
    scope = _resolve(handle, edition)
    flt = _filter(handle, scope, lang or "en", None, None)
    table = handle.table
    ranked = []
    for rule, weight in sorted(prior.items(), key=lambda kv: (-kv[1], sort_key(kv[0]))):
        docs = [d for d in table.by_number.get(rule, ()) if d in flt]
        if docs:
            best = max(docs, key=lambda d: _latest(handle, d))
            ranked.append((weight, best))
        if len(ranked) >= limit:
            break
    hits = [_hit(handle, d, s, scope, {}) for s, d in ranked]
    return SearchResult(query=query, hits=hits, collapsed=scope.ids is None, lang=lang or "en")


#: Question words and auxiliaries (beside the analyzers' stop words) that alone ask for
#: nothing: "what is the" finds nothing, as "the of and" does (their stop words are
#: dropped, and a question word is only a filler, :mod:`comprules.indexer.languages`).
#: ``search.js`` has the same list (``QUESTION_WORDS``, a parity test).
QUESTION_WORDS = frozenset(
    """
what whats how why which who whom whose where when does do did is are was were can could would should
quoi comment pourquoi quel quelle quels quelles quand est-ce
什么 怎么 怎样 如何 为什么 为何 吗 呢 吧 是否 是 哪些 哪个 多少 请问
""".split()
)


def common_words_only(query: str) -> bool:
    """Whether every word of ``query`` is a stop word of a search analyzer or one of
    :data:`QUESTION_WORDS` (and it holds no number, phrase or operator): such a query
    finds nothing, whichever of those words it holds."""
    if any(ch in query for ch in '"*~():') or not T.tokens(query):
        return False
    rest = query
    for word in _HAN_QUESTION_WORDS:  # cut in pieces by the vocabulary: 为什么 is 为 and 什么
        rest = rest.replace(word, " ")
    return all(T.is_word(t) and t in _COMMON_WORDS for t in T.tokens(rest))


#: The Chinese question words, the longest first.
_HAN_QUESTION_WORDS = sorted((w for w in QUESTION_WORDS if T.is_han(w)), key=lambda w: (-len(w), w))
#: The question words and every analyzer's stop words (made once, not for each search).
_COMMON_WORDS = QUESTION_WORDS.union(*(lang.stop for lang in LANGUAGES.values()))


def _a_head(handle: _OpenIndex, text: str, flt: _Filter) -> bool:
    """Whether ``text`` is the headword of a glossary entry or titled unit in ``flt``, as
    typed or without its leading question words ("What is Y?")."""
    tokens = T.tokens(text)
    keys = {T.heading_key(text), *(_without_leading_filler(tokens, code) for code in LANGUAGES)}
    return any(d in flt for key in keys if key for d in handle.table.heads.get(key, ()))


def common_only(text: str) -> bool:
    """Whether ``text`` holds no word but stop words and filler (nothing to look for)."""
    return all(any(t in lang.stop or t in lang.filler for lang in LANGUAGES.values()) for t in T.tokens(text))


def has_operators(text: str) -> bool:
    from .query import has_syntax

    return has_syntax(text)


def _ranked(
    handle: _OpenIndex, text: str, number: str | None, query_lang: str, scope: _Scope, lang, section, kind, pool: int
):
    """The ranked (score, document, translation) list, the terms matched per language,
    and whether no hit has every word."""
    if number:
        return _number_ranked(handle, number, scope, lang, section, kind, pool)
    clauses = parse(text)
    if clauses and all(c.occur == "not" for c in clauses):
        raise UsageError("NOT only excludes from the words before it, as in: flying NOT reach")
    plain = not has_operators(text)
    if plain:
        clauses = [
            Clause(c.kind, c.tokens, c.occur, c.distance, c.children, flag) for c, flag in zip(clauses, names(text))
        ]
    tokens = T.tokens(text)
    # a query that excludes words (NOT) is searched in its own language only: through the
    # lexicon, "702.19b NOT trample" became 践踏 and Piétinement, the words excluded
    negated = any(c.occur == "not" for c in clauses)
    langs = (lang,) if lang else (query_lang,) if negated else (query_lang, *(c for c in LANGS if c != query_lang))
    used: dict[str, set[str]] = {}
    out: list[tuple[float, int, bool]] = []
    relaxed = False
    for code in langs:
        flt = _filter(handle, scope, code, section, kind)
        own = code == query_lang
        if own:
            mine = _expanded(handle, clauses, code) if plain else clauses
        else:
            # the words as typed too: a French note prints "morph" (a trial: --lang fr found it,
            # the default language "any" did not)
            mine = _translated(handle, tokens, code) + clauses
        # and the ranker's alone: a rule number or headword put first could hold the words
        # excluded ("702.19b NOT trample" gave 702.19b first)
        head = _head_docs(handle, text, tokens, code, query_lang, flt) if kind != "example" and not negated else []
        if not mine and not head:
            continue
        result = (
            handle.ranker.rank(
                mine,
                code,
                allowed=flt.mask,
                current_only=flt.current,
                examples=kind == "example",
                pool=pool + len(head) + GLOSSARY_TOP,
            )
            if mine
            else None
        )
        scored = [(s, d) for s, d in (result.order if result else []) if d not in head]
        used.setdefault(code, set()).update(result.used if result else ())
        if own and result is not None:
            relaxed = _relaxed(handle, mine, code, result)
        top = scored[0][0] if scored else 0.0
        items = [(top + 1.0 + (len(head) - i) * 1e-3, d) for i, d in enumerate(head)] + scored
        if not items:
            continue
        # another language's hit is a translation unless it holds a word as typed ("morph"
        # in a French note: a trial saw it marked as found through the lexicon)
        typed = _typed_docs(handle, tokens, code) if not own else frozenset()
        if out:  # a later language: below the last hit of the earlier ones
            floor, top_here = out[-1][0], items[0][0]
            factor = 0.999 * floor / top_here if top_here >= floor else 1.0
            items = [(s * factor, d) for s, d in items]
        out += [(s, d, not own and d not in typed) for s, d in items]
        if len(out) >= pool + GLOSSARY_TOP:  # enough to fill the top 5 when glossary entries wait
            break
    if kind is None:
        out = _one_glossary_in_top(handle, out)
    return out[:pool], used, relaxed


def _expanded(handle: _OpenIndex, clauses: list[Clause], code: str) -> list[Clause]:
    """The clauses with each run of words that is a typed form of an expansion
    (:mod:`.expand`) made one ``alt`` clause: the words typed, then the rules' words
    (a keyword's effect only beside the other keyword: :data:`KEYWORDS_MET`)."""
    table, terms = handle.vocab.table(code), handle.impacts.terms.get(f"{code}:{ALL}", {})
    stop = LANGUAGES[code].stop
    keys = [
        ("" if c.tokens[0] in stop else query_term(c.tokens[0], code, table, terms) or c.tokens[0])
        if c.kind == "term"
        else None
        for c in clauses
    ]
    found = handle.expansions.matches(code, keys)
    met = [m for m in found if m[2].kind == "keyword"]
    if len(met) != KEYWORDS_MET:
        found = [m for m in found if m[2].kind != "keyword"]
    if not found:
        return clauses

    def words_of(start: int, end: int) -> list[Clause]:
        return [c for c in clauses[start:end] if c.tokens[0] not in stop]

    def typed_of(words: list[Clause]) -> Clause:
        return words[0] if len(words) == 1 else Clause("group", children=tuple(words))

    out, i = [], 0
    for start, end, expansion in found:
        out += clauses[i:start]
        words = words_of(start, end)
        typed = typed_of(words)
        # a keyword's effect counts where the other keyword is: the rule where they meet
        other = [typed_of(words_of(s, e)).with_occur(MUST) for s, e, _x in met if (s, e) != (start, end)]
        extra = tuple(other) if expansion.kind == "keyword" else ()
        groups = tuple(
            Clause("group", children=tuple(Clause("term", (w,)) for w in rule) + extra) for rule in expansion.rules
        )
        out.append(Clause("alt", tuple(w.tokens[0] for w in words), children=(typed, *groups)))
        i = end
    return out + clauses[i:]


def _relaxed(handle: _OpenIndex, clauses: list[Clause], code: str, result) -> bool:
    """Whether the best hit lacks one of the query's content words (a word typed in
    players' words, an ``alt`` clause, is not counted)."""
    if not result.order:
        return False
    best = result.order[0][1]
    table, known = handle.vocab.table(code), handle.impacts.terms.get(f"{code}:{ALL}", {})
    language = LANGUAGES[code]
    terms = {
        query_term(c.tokens[0], code, table, known)
        for c in clauses
        if c.kind == "term"
        and c.occur != "not"
        and c.tokens[0] not in language.stop
        and c.tokens[0] not in language.filler
    }
    seq = set(handle.sequence(best))
    return any(t is None or t not in seq for t in terms)


#: At most this many glossary entries among the first :data:`GLOSSARY_TOP` hits.
GLOSSARY_TOP = 5


def _one_glossary_in_top(handle: _OpenIndex, ranked: list[tuple[float, int, bool]]) -> list[tuple[float, int, bool]]:
    """At most one glossary entry in the top 5: later ones wait until after the fifth hit,
    with its score (so scores stay in order)."""
    kinds = handle.table.kind
    out, waiting, seen = [], [], 0
    for item in ranked:
        if len(out) < GLOSSARY_TOP and kinds[item[1]] == GLOSSARY:
            if seen:
                waiting.append(item)
                continue
            seen += 1
        out.append(item)
        if len(out) == GLOSSARY_TOP and waiting:
            cap = out[-1][0]
            out += [(min(s, cap), d, t) for s, d, t in waiting]
            waiting = []
    if waiting:
        cap = out[-1][0] if out else None
        out += [(s if cap is None else min(s, cap), d, t) for s, d, t in waiting]
    return out


def _typed_docs(handle: _OpenIndex, tokens: list[str], code: str) -> set[int]:
    """The documents of language ``code`` that hold one of the query's words as typed
    (its index term there, :func:`.inflect.query_term`; not a stop word of ``code``):
    a hit among them was found by the words, not through the lexicon. ``search.js``
    ``typedDocs`` is the same."""
    key = f"{code}:{ALL}"
    table, terms, stop = handle.vocab.table(code), handle.impacts.terms.get(key, {}), LANGUAGES[code].stop
    out: set[int] = set()
    for token in dict.fromkeys(tokens):
        term = None if token in stop else query_term(token, code, table, terms)
        if term is not None:
            out.update(handle.impacts.postings(key, term)[0].tolist())
    return out


def _translated(handle: _OpenIndex, tokens: list[str], code: str) -> list[Clause]:
    """The clauses of the lexicon's translations into ``code`` of the query's terms: each
    translated term as a group whose words must all match."""
    out = []
    for t in handle.lexicon.translations(tokens, (code,), handle.known, handle.stem):
        words = T.tokens(t.text)
        if words:
            out.append(Clause("group", children=tuple(Clause("term", (w,), MUST) for w in words)))
    return out


def _number_ranked(handle: _OpenIndex, number: str, scope: _Scope, lang, section, kind, pool: int):
    flt = _filter(handle, scope, lang, section, kind)
    first = _number_docs(handle, number, flt, children=True)
    scored: list[tuple[float, int]] = []
    used: dict[str, set[str]] = {}
    if "~" not in number and "¶" not in number:  # "R70236a" also finds the rules citing 702.36a
        for code in (lang,) if lang else LANGS:
            f = _filter(handle, scope, code, section, kind)
            result = handle.ranker.rank(
                [Clause("term", (number,))],
                code,
                allowed=f.mask,
                current_only=f.current,
                examples=kind == "example",
                pool=pool + len(first),
            )
            scored += result.order
            used.setdefault(code, set()).update(result.used)
    scored.sort(key=lambda item: (-item[0], item[1]))
    top = scored[0][0] if scored else 0.0
    seen = set(first)
    ranked = [(top + 1.0 + (len(first) - i) * 1e-3, d, False) for i, d in enumerate(first)]
    ranked += [(s, d, False) for s, d in scored if d not in seen]
    return ranked[:pool], used, False


def _suggestion(handle: _OpenIndex, tokens: list[str], query_lang: str, code: str, scope, section, kind) -> str | None:
    """A corrected query when a word is unknown in the query's language (corrected from that
    language's words) and more units of language ``code`` hold every content word of
    the correction than of the query ("deathtuch" →
    "deathtouch"; "I love werewolf" gets no "I lose werewolf": no rule has both; a
    players' word the rules do not print is no unknown word: "CMC" got "did you mean: cm")."""
    vocab = handle.vocab
    players = handle.expansions.by_lang.get(query_lang, {})  # "cmc" is known, as a players' word
    if not any(vocab.unknown(t, query_lang) and (t,) not in players for t in tokens):
        return None
    better = vocab.suggest(tokens, query_lang)  # the words of the query's language only
    if better is None:
        return None
    flt = _filter(handle, scope, code, section, kind)
    ranker = handle.ranker
    args = dict(allowed=flt.mask, current_only=flt.current)
    language = LANGUAGES[code]

    def every(words: list[str]) -> list[Clause]:  # the content words required, the filler optional
        return [Clause("term", (t,), "should" if t in language.filler else MUST) for t in words]

    before = ranker.count(every(tokens), code, **args)
    after = ranker.count(every(better), code, **args)
    return " ".join(better) if after > before else None


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


def _renumbered_first(handle: _OpenIndex, ranked: list, moved: dict, flt: _Filter) -> list:
    """``ranked`` with the versions of the number typed (:mod:`.renumbered`) first, in
    their order, then their subrules in rule order, as a number of the edition is."""
    table = handle.table

    def order(d: int) -> tuple:
        return (sort_key(table.rid[d]), d)

    lead = list(moved)  # in renumbered's order: the number's last edition, the newest first
    below = [  # a rule's subrules in its own language (the Chinese 702.37a was never 502.26a)
        c
        for d in lead
        for c in table.children.get(table.number[d], ())
        if c in flt and c not in moved and table.lang[c] == table.lang[d]
    ]
    lead += sorted(set(below), key=order)
    top = max((s for s, _, _ in ranked), default=0.0)
    first = set(lead)
    head = [(top + 1.0 + (len(lead) - i) * 1e-3, d, False) for i, d in enumerate(lead)]
    return head + [item for item in ranked if item[1] not in first]


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
    """The rank of the newest edition document ``d`` is in (kept per open index: the site's
    search data asks it of every document of every edition)."""
    kept = handle.__dict__.setdefault("_latest_of", {})
    found = kept.get(d)
    if found is None:
        found = kept[d] = max((_date_rank(handle.effective[e]) for e in handle.table.members[d]), default=0)
    return found


def _head_docs(handle: _OpenIndex, text: str, tokens: list[str], code: str, query_lang: str, flt: _Filter) -> list[int]:
    """The glossary entries and titled units of language ``code`` whose headword the query is,
    after the rules whose numbers the query's words hold ("702.19b trample": 702.19b).

    In the query's language: matched as typed (folded), or without leading question,
    filler and stop words ("what is phasing", "the stack"), or by terms ("mana
    abilities" → Mana Ability, "capacite activee" → 403 Capacités activées). In another
    language, through the lexicon ("piétinement" → Trample). Each glossary entry comes
    first, followed by the rules its definition cites (Phasing → 702.26), then the rules
    and sections with that title.
    """
    table = handle.table

    def usable(docs) -> list[int]:
        return list(dict.fromkeys(d for d in docs if d in flt and table.lang[d] == code))

    # a rule number among the words ("702.19b trample", "702.19b piétinement"): that rule first, in
    # every language, its latest version first
    numbers = list(dict.fromkeys(n for t in tokens if (n := rule_number(t)) and _NAMED_NUMBER.match(n)))
    named = [
        d for t in numbers for d in sorted(usable(table.by_number.get(t, ())), key=lambda d: (-_latest(handle, d), d))
    ]
    if code == query_lang:
        keys = list(dict.fromkeys(k for k in (T.heading_key(text), _without_leading_filler(tokens, code)) if k))
        if not keys:
            return named
        found = usable(d for key in keys for d in table.heads.get(key, ()))
        if not any(table.kind[d] == GLOSSARY for d in found):  # "mana abilities" is Mana Ability
            stemmed = usable(d for key in keys for d in table.stemmed_heads.get(_query_stems(handle, key, code), ()))
            found += [d for d in stemmed if d not in found and (table.kind[d] == GLOSSARY or not found)]
        if not found:  # "ward 2", "flashback {R}", "protection from blue", "ward—pay 3 life"
            found = _keyword_heads(handle, text, tokens, code, usable)
    else:
        translated = [T.heading_key(t) for _, t in handle.lexicon.whole(tokens, (code,), handle.known, handle.stem)]
        found = usable(d for key in translated for d in table.heads.get(key, ()))
    glossary = sorted((d for d in found if table.kind[d] == GLOSSARY), key=lambda d: (-_latest(handle, d), d))
    titled = sorted(
        (d for d in found if table.kind[d] != GLOSSARY),
        key=lambda d: (_HEAD_ORDER.get(table.kind[d], 5), -_latest(handle, d), sort_key(table.rid[d]), d),
    )
    out: list[int] = []
    lineages = set()
    headed = set(titled)
    for g in glossary:
        out.append(g)
        if table.lineage[g] not in lineages:  # an older version's citations are older rules
            lineages.add(table.lineage[g])
            # the rule titled with the headword before the others cited (Equip: 702.6, then 301)
            cited = sorted(_cited(handle, g, flt), key=lambda d: d not in headed)
            out += [d for d in cited if d not in out]
    out += [d for d in titled if d not in out]
    return list(dict.fromkeys([*named, *out]))


def _keyword_heads(handle: _OpenIndex, text: str, tokens: list[str], code: str, usable) -> list[int]:
    """The headword units of the keywords a query names with their parameters, as a card
    prints them: a number or cost ("ward 2", "equip {1}", "flashback {R}", one after
    another: "scry 1 ward 2"), a cost after a dash ("ward—pay 3 life"), or the word the
    keyword's own rules print before its placeholder ("protection from blue": 702.16a
    prints “Protection from [quality]”; "hexproof from", "affinity for", "splice onto",
    "partner with": :attr:`.table.DocTable.keyword_forms`; in Chinese, the words around
    it: 反蓝保护, as 702.16a prints “反[特性]保护”). Each keyword is a keyword
    ability's or keyword action's (a titled rule of :data:`.table.KEYWORD_SECTIONS`: 701,
    702, or 502 before 2009); ``[]`` for any other query ("trample with deathtouch": no
    rule prints “Trample with [”)."""
    table = handle.table
    found: list[int] = []
    for key in _keyword_keys(text, tokens, table.keyword_forms.get(code, ())):
        docs = usable(table.heads.get(key, ()))
        if not any(table.kind[d] != GLOSSARY and table.rid[d][:4] in KEYWORD_SECTIONS for d in docs):
            return []
        found += [d for d in docs if d not in found]
    return found


def _keyword_keys(text: str, tokens: list[str], forms) -> list[str]:
    """The heading key of each keyword a query may name with its parameter (at most three
    words each; ``[]`` when the query is not of that shape)."""
    key = T.heading_key(text)  # Chinese characters one by one: "反 蓝 保 护"
    for form in sorted(f for f in forms if HAN_PLACEHOLDER in f):  # 反[]保护: 保护
        before, keyword = (T.heading_key(side) for side in form.split(HAN_PLACEHOLDER))
        if key.startswith(before) and key.endswith(keyword) and len(key) > len(before) + len(keyword):
            middle = key[len(before) : len(key) - len(keyword)].replace(" ", "")
            if len(middle) <= _HAN_PARAMETER and _HAN_CHARS.fullmatch(middle):
                return [keyword]
    dash = _KEYWORD_DASH.match(text)
    if dash:
        word = T.tokens(dash.group(1))
        return [" ".join(word)] if 0 < len(word) <= 3 else []
    at = next((i for i, t in enumerate(tokens) if t in _KEYWORD_PREPOSITIONS), 0)
    if 0 < at <= 3 and len(tokens) > at + 1:
        return [" ".join(tokens[:at])] if f"{' '.join(tokens[:at])} {tokens[at]}" in forms else []
    out, i = [], 0
    while i < len(tokens):  # words, then their numbers or costs, and again
        j = i
        while j < len(tokens) and not _KEYWORD_PARAMETER.fullmatch(tokens[j]):
            j += 1
        k = j
        while k < len(tokens) and _KEYWORD_PARAMETER.fullmatch(tokens[k]):
            k += 1
        if not 0 < j - i <= 3 or k == j:
            return []
        out.append(" ".join(tokens[i:j]))
        i = k
    return out


#: The words a keyword's parameter may start with ("protection from [quality]").
_KEYWORD_PREPOSITIONS = frozenset({"from", "for", "onto", "with"})
#: A token of a keyword's number or cost: "2", "x", "{1}", "{r}", "{2/w}".
_KEYWORD_PARAMETER = re.compile(r"\d+|x|\{[^}]*\}")
#: The longest parameter of a Chinese keyword form, in characters (反白与蓝保护).
_HAN_PARAMETER = 6
_HAN_CHARS = re.compile(r"[\u3400-\u9fff]+")
#: A keyword's words, then a dash and its cost as words ("Ward—Pay 3 life", 702.21a).
_KEYWORD_DASH = re.compile(r"\s*([^\W\d_][^—–]*?)\s*(?:—|–| - )\s*\w")


#: A rule or subrule number typed among a query's words (a token: folded, whole).
_NAMED_NUMBER = re.compile(r"\d{3}\.\d+[a-z]{0,2}\Z")


def _without_leading_filler(tokens: list[str], code: str) -> str:
    language = LANGUAGES[code]
    words = list(tokens)
    while words and (words[0] in language.stop or words[0] in language.filler):
        words.pop(0)
    return " ".join(words)


def _query_stems(handle: _OpenIndex, key: str, code: str) -> tuple[str, ...]:
    """The terms of a heading key's tokens through the index's table (stop words left
    out; ``()`` when a token is unknown)."""
    language = LANGUAGES[code]
    out = []
    for token in key.split():
        if token in language.stop:
            continue
        term = handle.stem(token, code)
        if term is None:
            return ()
        out.append(term)
    return tuple(out)


def _cited(handle: _OpenIndex, glossary_doc: int, flt: _Filter) -> list[int]:
    """The units a glossary definition cites, in the same language and edition."""
    table = handle.table
    members = set(table.members[glossary_doc])
    out = []
    for number in table.cites[glossary_doc]:
        out += [
            d
            for d in table.by_number.get(number, ())
            if d in flt and table.lang[d] == table.lang[glossary_doc] and not members.isdisjoint(table.members[d])
        ]
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


def _hit(
    handle: _OpenIndex,
    docnum: int,
    score: float,
    scope: _Scope,
    used: dict,
    kind: str | None = None,
    editions: tuple[int, ...] | None = None,
    translation: bool = False,
    moved: Renumbered | None = None,
) -> Hit:
    table = handle.table
    unit = handle.unit(docnum)
    lang = table.lang[docnum]
    example = kind == "example" and unit.get("examples")
    source = unit["examples"] if example else (unit["text"] or unit["title"] or "")
    plain, spans = make_snippet(source, frozenset(used.get(field_lang(lang), ())), lang)
    if editions:
        names = tuple(table.editions[e] for e in editions)
    else:
        names = handle.edition_names(docnum)
    edition = _reported_edition(handle, docnum, scope)
    return Hit(
        edition=edition,
        section_title=_section_title(handle, unit["number"], table.kind[docnum], edition),
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
        translation=translation,
        renumbered=moved,
    )


def _section_title(handle: _OpenIndex, number: str, kind: str, edition: str) -> str | None:
    """The title edition ``edition`` prints for the section of rule ``number`` (kept per
    open index: a few thousand sections and editions)."""
    section = number[:3]
    if kind in ("section", "chapter", GLOSSARY) or len(number) <= 3 or not section.isdigit():
        return None
    kept = handle._section_titles
    key = (section, edition)
    if key not in kept:
        kept[key] = _printed_section_title(handle, section, edition)
    return kept[key]


def _printed_section_title(handle: _OpenIndex, section: str, edition: str) -> str | None:
    table = handle.table
    try:
        e = table.editions.index(edition)
    except ValueError:
        return None
    for d in table.by_number.get(section, ()):
        if table.kind[d] == "section" and e in table.members[d]:
            return handle.unit(d)["title"] or None
    return None


def _reported_edition(handle: _OpenIndex, docnum: int, scope: _Scope) -> str:
    """The edition a hit names: the scope's own, else the latest of the document's
    editions in the scope (kept per document for the default scope)."""
    if scope.explicit:
        return scope.explicit
    default = scope.ids is handle.current
    if default:
        found = handle._reported.get(docnum)
        if found is not None:
            return found
    members = handle.table.members[docnum]
    candidates = [e for e in members if scope.ids is None or e in scope.ids] or list(members)
    best = max(candidates, key=lambda e: (handle.effective[e], e))
    name = handle.table.editions[best]
    if default:
        handle._reported[docnum] = name
    return name
