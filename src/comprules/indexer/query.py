"""Turn what the user typed into a whoosh query, or a one-line ``UsageError``.

Three shapes of query:

* a rule number (``702.36a``, ``702.36``, ``702``, ``7``), or the citation style
  ``R70236a``: looked up in the ``number`` field first;
* plain words: every word must match (in a title or the body, in the language's
  fields), and when no document has them all, any word may;
* words with syntax (``"a phrase"``, ``AND``/``OR``/``NOT``, parentheses, ``prefix*``,
  ``fuzzy~1``): handed to whoosh's parser, restricted to those plugins (no
  ``field:value``). A ``?`` is punctuation ("what is phasing?"), not a wildcard.
"""

from __future__ import annotations

import re

from whoosh import qparser
from whoosh.query import And, MultiTerm, NullQuery, Or, Query, Term

from ..errors import UsageError
from .analysis import LANGS, TOKEN_PATTERN, exact_term_of, field_lang, term_of
from .documents import EXACT_BOOST, EXACT_FIELD, FIELD_BOOSTS
from .lexicon import Translation

#: Longest query accepted, in characters.
MAX_QUERY_CHARS = 1000

OPERATORS = ("AND", "OR", "NOT", "ANDNOT", "ANDMAYBE")

_RULE_NUMBER = re.compile(r"^(?:(?:rules?|r[èe]gles?|cr)\s+)?(\d(?:\d\d(?:\.\d+[a-z]{0,2})?)?)\.?$", re.I)
_CITATION = re.compile(r"^R(\d{3})(\d*)([a-z]{0,2})$", re.I)
_UNIT_ID = re.compile(r"^(?:\d{3}(?:\.\d+[a-z]{0,2})?(?:~\d+|¶\d+)|¶\d+)$")
_SYNTAX_TOKEN = re.compile(r'"[^"]*"|[()]|[^\s()"]+')
_FUZZY = re.compile(r"\w~\d?$")
_WILDCARD_HEAD = re.compile(r"^[^\W_]{2}")
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})


def check_query(query: str) -> str:
    """The query, stripped and with typographic quotes made plain; ``UsageError`` if malformed."""
    if not isinstance(query, str):
        raise UsageError(f"query must be text, not {type(query).__name__}")
    text = query.strip()
    if not text:
        raise UsageError("empty query")
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"query too long ({len(text)} characters, at most {MAX_QUERY_CHARS})")
    text = text.translate(_QUOTES).replace("?", " ")
    if text.count('"') % 2:
        raise UsageError('unbalanced quote (") in query')
    _check_groups(text)
    _check_operators(text)
    _check_wildcards(text)
    return text


def _check_wildcards(text: str) -> None:
    for token in _SYNTAX_TOKEN.findall(text):
        if "*" in token and not token.startswith('"') and not _WILDCARD_HEAD.match(token):
            raise UsageError(f"{token[:40]!r}: a wildcard needs two letters before the *")


def _check_groups(text: str) -> None:
    depth = 0
    for token in _SYNTAX_TOKEN.findall(text):
        depth += {"(": 1, ")": -1}.get(token, 0)
        if depth < 0:
            break
    if depth:
        raise UsageError("unbalanced parenthesis in query")


def _check_operators(text: str) -> None:
    tokens = _SYNTAX_TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if token not in OPERATORS:
            continue
        before = tokens[i - 1] if i else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        needs_before = token != "NOT"
        if after is None or after == ")" or (after in OPERATORS and after != "NOT"):
            raise UsageError(f"{token} needs a word after it")
        if needs_before and (before is None or before == "(" or before in OPERATORS):
            raise UsageError(f"{token} needs a word before it")


def has_syntax(text: str) -> bool:
    """Whether the query uses phrases, groups or operators."""
    return any(
        t in OPERATORS or t in "()" or t.startswith('"') or "*" in t or _FUZZY.search(t)
        for t in _SYNTAX_TOKEN.findall(text)
    )


def rule_number(text: str) -> str | None:
    """The rule number a query names, or ``None``.

    >>> rule_number("702.36A"), rule_number("R70236a"), rule_number("702."), rule_number("phasing")
    ('702.36a', '702.36a', '702', None)
    >>> rule_number("702.175~2"), rule_number("602¶3"), rule_number("¶6")
    ('702.175~2', '602¶3', '¶6')
    """
    text = text.strip()
    if m := _RULE_NUMBER.match(text):
        return m.group(1).lower()
    if m := _CITATION.match(text):
        section, rule, letters = m.groups()
        if rule:
            return f"{section}.{rule}{letters.lower()}"
        return None if letters else section
    if _UNIT_ID.match(text):
        return text
    return None


def keyword_clauses(
    text: str, langs: tuple[str, ...], fields: tuple[str, ...] = tuple(FIELD_BOOSTS), exact: bool = True
) -> list[list[tuple[str, str, float]]]:
    """Per word, the (field, term, boost) it matches: title and body per language, exact name.

    A word that is a stop word in one of ``langs`` is dropped, so "the creature"
    still finds French documents; a repeated word counts once.

    >>> keyword_clauses("the Phasing", ("en",))  # doctest: +NORMALIZE_WHITESPACE
    [[('title_en', 'phase', 4.0), ('body_en', 'phase', 1.0), ('examples_en', 'phase', 0.5),
      ('names', 'phasing', 4.0)]]
    """
    words: dict[tuple, list[tuple[str, str, float]]] = {}
    for match in TOKEN_PATTERN.finditer(text):
        clauses = word_clauses(match.group(0), langs, fields, exact)
        if clauses and tuple(clauses) not in words:
            words[tuple(clauses)] = clauses
    return list(words.values())


def word_clauses(
    word: str, langs: tuple[str, ...], fields: tuple[str, ...] = tuple(FIELD_BOOSTS), exact: bool = True
) -> list[tuple[str, str, float]]:
    """The (field, term, boost) one word matches; empty for a stop word."""
    terms = [(lang, term_of(word, lang)) for lang in langs]
    if any(term is None for _, term in terms):
        return []
    boosts = FIELD_BOOSTS if len(fields) > 1 else dict.fromkeys(fields, 1.0)
    clauses = [(f"{f}_{lang}", term, boosts[f]) for lang, term in terms for f in fields]
    term = exact_term_of(word) if exact else None
    if term is not None:
        clauses.append((EXACT_FIELD, term, EXACT_BOOST))
    return clauses


def keyword_query(
    text: str,
    langs: tuple[str, ...],
    *,
    every: bool = True,
    translations: list[Translation] = (),
    fields: tuple[str, ...] = tuple(FIELD_BOOSTS),
) -> Query | None:
    """Every word (or any, ``every=False``) in the fields of ``langs``; a word span with a
    translation (:mod:`.lexicon`) matches its own words or the translated term."""
    exact = len(fields) > 1
    words = TOKEN_PATTERN.findall(text)
    by_start = {}
    for t in translations:
        by_start.setdefault(t.start, []).append(t)
    parts: list[Query] = []
    seen: set = set()
    i = 0
    while i < len(words):
        found = by_start.get(i)
        if found:
            end = found[0].end
            own = _all_words(words[i:end], langs, fields, exact)
            alternatives = [_all_words(TOKEN_PATTERN.findall(t.text), (t.lang,), fields, exact) for t in found]
            options = [q for q in (own, *alternatives) if q is not None]
            if options:
                parts.append(options[0] if len(options) == 1 else Or(options))
            i = end
            continue
        clauses = word_clauses(words[i], langs, fields, exact)
        if clauses and tuple(clauses) not in seen:
            seen.add(tuple(clauses))
            parts.append(Or([Term(f, t, boost=b) for f, t, b in clauses]))
        i += 1
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return And(parts) if every else Or(parts)


def _all_words(words: list[str], langs: tuple[str, ...], fields: tuple[str, ...], exact: bool) -> Query | None:
    groups = [word_clauses(w, langs, fields, exact) for w in words]
    parts = [Or([Term(f, t, boost=b) for f, t, b in g]) for g in groups if g]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else And(parts)


def parse_query(text: str, schema, langs: tuple[str, ...], fields: tuple[str, ...] = tuple(FIELD_BOOSTS)) -> Query | None:
    """Parse a query with phrases, groups or operators; ``UsageError`` if whoosh cannot."""
    own = dict.fromkeys(fields, 1.0) if len(fields) == 1 else FIELD_BOOSTS
    boosts = {f"{f}_{lang}": b for lang in langs for f, b in own.items()}
    if len(fields) > 1:
        boosts[EXACT_FIELD] = EXACT_BOOST
    fields = list(boosts)
    parser = qparser.QueryParser(
        None,
        schema,
        plugins=[
            qparser.PhrasePlugin(),
            qparser.GroupPlugin(),
            qparser.OperatorsPlugin(),
            qparser.WildcardPlugin(),
            qparser.FuzzyTermPlugin(),
            qparser.MultifieldPlugin(fields, fieldboosts=boosts),
        ],
    )
    try:
        query = parser.parse(text)
    except Exception as error:  # whoosh raises assorted errors on odd input
        raise UsageError(f"cannot parse query: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
    if query is NullQuery or not any(isinstance(leaf, MultiTerm) or leaf.has_terms() for leaf in query.leaves()):
        return None
    return query


def query_langs(lang: str | None) -> tuple[str, ...]:
    """The analyzed languages to query for a ``lang`` option."""
    return LANGS if lang is None else (field_lang(lang),)
