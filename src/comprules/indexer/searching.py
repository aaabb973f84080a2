"""Search and exact lookup over a built index.

An open index (whoosh searcher, meta, scope filters) is cached per thread and per
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
from whoosh.query import And, Or, Prefix, Query, Term
from whoosh.scoring import BM25F

from ..errors import UsageError
from .analysis import field_lang, term_of
from .build import META_FILE, VOCAB_FILE
from .documents import EXACT_FIELD, FORMAT
from .impacts import Impacts
from .query import check_query, has_syntax, keyword_query, parse_query, query_langs, rule_number
from .scoring import top_documents
from .snippets import make_snippet, mark
from .suggest import Vocabulary

#: Every edition, old ones included (the CLI's ``--all-editions``).
ALL_EDITIONS = "*"

_OPEN_PER_THREAD = 4


@dataclass(frozen=True, slots=True)
class Hit:
    """One unit found: a rule (any kind) or a glossary entry of one edition.

    ``snippet`` marks highlighted words with ``**``; ``plain_snippet`` is the same
    text without marks and ``highlights`` the (start, end) offsets of those words in
    it. For a glossary entry ``number`` is its slug and ``title`` its headword.
    ``editions`` lists every indexed edition whose unit has this exact text.
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
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query, best first, and a spelling suggestion for unknown words.

    ``relaxed`` is true when no unit had every word and the hits have only some.
    """

    query: str
    hits: list[Hit]
    suggestion: str | None = None
    relaxed: bool = False

    def as_json(self) -> dict:
        return {
            "query": self.query,
            "hits": [h.as_json() for h in self.hits],
            "suggestion": self.suggestion,
        }


@dataclass
class _Scope:
    """Which editions a query covers: ``names`` (``None`` for all) and the one to report."""

    names: frozenset[str] | None
    explicit: str | None = None


@dataclass(frozen=True)
class _Filter:
    """The documents a query may return: those in ``allowed`` (``None``: all) below ``bound``."""

    allowed: frozenset[int] | None
    bound: int | None

    def __contains__(self, docnum: int) -> bool:
        return (self.bound is None or docnum < self.bound) and (self.allowed is None or docnum in self.allowed)


@dataclass
class _OpenIndex:
    ix: object
    searcher: object
    impacts: Impacts
    meta: dict
    path: Path
    effective: dict[str, str] = field(default_factory=dict)
    filters: dict[tuple, _Filter] = field(default_factory=dict)
    _vocab: Vocabulary | None = None

    @property
    def vocab(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = Vocabulary.load(self.path / VOCAB_FILE, self.frequency)
        return self._vocab

    def frequency(self, word: str, lang: str) -> int:
        """In how many documents ``word`` (analyzed for ``lang``) is."""
        term = term_of(word, lang)
        return self.searcher.doc_frequency(f"body_{lang}", term) if term else 0

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
    handle = _load(Path(real), meta_path)
    cache[key] = handle
    while len(cache) > _OPEN_PER_THREAD:
        cache.popitem(last=False)[1].close()
    return handle


def _load(path: Path, meta_path: Path) -> _OpenIndex:
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        ix = open_dir(str(path))
    except (OSError, ValueError, EmptyIndexError) as error:
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    if meta.get("format") != FORMAT:
        raise UsageError(f"search index in {path} is from another version; rebuild it")
    try:
        impacts = Impacts(path)
    except (OSError, ValueError, pickle.UnpicklingError, KeyError) as error:
        ix.close()
        raise UsageError(f"unreadable search index in {path}: {error}") from None
    handle = _OpenIndex(ix=ix, searcher=ix.searcher(weighting=BM25F()), impacts=impacts, meta=meta, path=path)
    handle.effective = {e["name"]: e["effective"] or "" for e in meta["editions"]}
    return handle


def _resolve(handle: _OpenIndex, edition: str | None) -> _Scope:
    """The scope of an edition option: a name, ``{lang}/latest``, a bare date or stem, ``*``."""
    if edition is None:
        return _Scope(frozenset(handle.meta["current"]))
    if edition in (ALL_EDITIONS, "all"):
        return _Scope(None)
    editions = handle.meta["editions"]
    names = [e["name"] for e in editions]
    if edition in names:
        return _Scope(frozenset([edition]), edition)
    lang, _, rest = edition.rpartition("/")
    if rest == "latest":
        dated = [e for e in editions if e["effective"] and (not lang or e["lang"] == lang)]
        candidates = [max((e for e in dated if e["lang"] == code), key=lambda e: e["effective"])["name"]
                      for code in sorted({e["lang"] for e in dated})]
    else:
        candidates = [n for n in names if n.rpartition("/")[2] == rest and (not lang or n.startswith(lang + "/"))]
    if len(candidates) == 1:
        return _Scope(frozenset(candidates), candidates[0])
    if candidates:
        raise UsageError(f"edition {edition!r} is ambiguous: {', '.join(candidates)}")
    raise UsageError(f"unknown edition {edition!r} in the index ({len(names)} editions; e.g. {', '.join(names[-3:])})")


def _filter(handle: _OpenIndex, scope: _Scope, lang: str | None, section: str | None) -> _Filter:
    """The documents a query in ``scope`` (and ``lang``, ``section``) may return."""
    key = (scope.names, lang, section)
    if key not in handle.filters:
        current = scope.names == frozenset(handle.meta["current"])
        clauses: list[Query] = []
        if scope.names is not None and not current:
            clauses.append(Or([Term("editions", name) for name in sorted(scope.names)]))
        if lang is not None:
            clauses.append(Term("lang", lang))
        if section is not None:
            clauses.append(Prefix("section", section) if len(section) == 1 else Term("section", section))
        allowed = frozenset(handle.searcher.docs_for_query(And(clauses))) if clauses else None
        bound = handle.impacts.current if current else (max(allowed, default=-1) + 1 if allowed is not None else None)
        handle.filters[key] = _Filter(allowed, bound)
    return handle.filters[key]


def _check_options(lang: str | None, section: str | None, limit: int) -> tuple[str | None, str | None]:
    if lang in (None, "any"):
        lang = None
    elif lang not in ("en", "fr"):
        raise UsageError(f"unknown language {lang!r} (use en, fr or any)")
    if section is not None:
        section = str(section).strip().rstrip(".")
        if not (section.isdigit() and len(section) in (1, 3)):
            raise UsageError(f"bad section {section!r} (a section such as 702, or a chapter such as 7)")
    if not isinstance(limit, int) or limit < 1:
        raise UsageError(f"bad limit {limit!r} (a positive number)")
    return lang, section


def search(
    index_dir: Path,
    query: str,
    *,
    edition: str | None = None,
    lang: str | None = None,
    section: str | None = None,
    limit: int = 10,
) -> SearchResult:
    """Search the index: a rule number is looked up first, then words are ranked with BM25F.

    ``edition`` ``None`` covers the latest edition of each language and every undated
    document (fragments); ``"*"`` covers every edition.
    """
    text = check_query(query)
    lang, section = _check_options(lang, section, limit)
    handle = _open(index_dir)
    scope = _resolve(handle, edition)
    flt = _filter(handle, scope, lang, section)
    langs = query_langs(lang)
    number = rule_number(text)
    exact = _number_docs(handle, number, flt) if number else []
    syntax = has_syntax(text)
    q = parse_query(text, handle.ix.schema, langs) if syntax else keyword_query(text, langs)
    scored, used = _top(handle, q, flt, limit + len(exact))
    relaxed = not scored and not exact and not syntax and isinstance(q, And)
    if relaxed:
        q = keyword_query(text, langs, every=False)
        scored, used = _top(handle, q, flt, limit)
    terms = _terms_by_code(used)
    top = max((s for s, _ in scored), default=0.0)
    seen = set(exact)
    ranked = [(top + 1.0, d) for d in exact] + [(s, d) for s, d in scored if d not in seen]
    hits = [_hit(handle, docnum, score, scope, terms) for score, docnum in ranked[:limit]]
    suggestion = None if number else handle.vocab.suggest(text, langs)
    return SearchResult(query=query, hits=hits, suggestion=suggestion, relaxed=relaxed)


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
    docs = _number_docs(handle, wanted, _filter(handle, scope, None, None))
    hits = [_hit(handle, d, 1.0, scope, {}) for d in docs]
    return sorted(hits, key=lambda h: (h.lang, -_date_rank(handle.effective.get(h.edition, ""))))


def _date_rank(effective: str) -> int:
    return int(effective.replace("-", "")) if effective else 0


def _number_docs(handle: _OpenIndex, number: str, flt: _Filter) -> list[int]:
    return [d for d in handle.searcher.docs_for_query(Term("number", number)) if d in flt]


def _top(handle: _OpenIndex, q: Query | None, flt: _Filter, limit: int) -> tuple[list[tuple[float, int]], set]:
    if q is None:
        return [], set()
    return top_documents(q, handle.impacts, handle.searcher, limit=limit, allowed=flt.allowed, bound=flt.bound)


def _terms_by_code(used: set[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """The matched terms to highlight, by language code (``en``, ``fr``) or ``names``."""
    out: dict[str, set[str]] = {}
    for fieldname, term in used:
        code = fieldname if fieldname == EXACT_FIELD else fieldname.rpartition("_")[2]
        out.setdefault(code, set()).add(term)
    return {code: frozenset(terms) for code, terms in out.items()}


def _hit(handle: _OpenIndex, docnum: int, score: float, scope: _Scope, terms: dict) -> Hit:
    stored = handle.searcher.stored_fields(docnum)
    unit = stored["unit"]
    editions = tuple(stored["editions"].split())
    lang = stored["lang"]
    plain, spans = make_snippet(
        unit["text"] or unit["title"] or "",
        terms.get(field_lang(lang), frozenset()),
        lang,
        terms.get(EXACT_FIELD, frozenset()),
    )
    return Hit(
        edition=_reported_edition(handle, editions, scope),
        number=unit["number"],
        title=unit["title"],
        kind=stored["kind"],
        score=float(score),
        snippet=mark(plain, spans),
        text=unit["text"],
        plain_snippet=plain,
        highlights=spans,
        id=unit["id"],
        lang=lang,
        editions=editions,
    )


def _reported_edition(handle: _OpenIndex, editions: tuple[str, ...], scope: _Scope) -> str:
    if scope.explicit:
        return scope.explicit
    candidates = [e for e in editions if scope.names is None or e in scope.names] or list(editions)
    return max(candidates, key=lambda e: handle.effective.get(e, ""))
