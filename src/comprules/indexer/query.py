"""What the user typed, as clauses to score, or a one-line ``UsageError``.

comprules' own parser (whoosh's is not used, so that the site's JavaScript ranker
can parse alike). Three shapes of query:

* a rule number (``702.36a``, ``702.36``, ``702``, ``7``), the citation style
  ``R70236a``, ``rule 613.7``: looked up first (:func:`rule_number`);
* plain words: every word is an optional clause (``should``); more distinct words
  matched rank higher (coordination, :mod:`.rank`);
* words with syntax: ``"a phrase"``, ``AND`` (the words on both sides must match),
  ``NOT`` (the next clause must not), ``OR`` (the default), ``( … )`` groups,
  ``prefix*``, ``fuzzy~1`` (``~2`` at most). A ``?`` is punctuation ("what is
  phasing?"), not a wildcard.

Clauses hold folded tokens (:mod:`.text`); each language turns them into its terms
when scoring.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..errors import UsageError
from ..model import normalize_number
from . import text as T

#: Longest query accepted, in characters.
MAX_QUERY_CHARS = 1000
#: Largest edit distance of a ``fuzzy~N`` word.
MAX_FUZZY = 2

OPERATORS = ("AND", "OR", "NOT")
SHOULD, MUST, NOT = "should", "must", "not"

#: A number in the CR's form: a chapter, a section, a rule or a subrule (chapters are 1–9:
#: "0" is a word, as in "{0}").
_RULE_NUMBER = re.compile(r"^[1-9](?:\d\d(?:\.\d+[a-z]{0,2})?)?$", re.I)
_UNIT_ID = re.compile(r"^(?:\d{3}(?:\.\d+[a-z]{0,2})?(?:~\d+|¶\d+)|¶\d+)$")
_SYNTAX_TOKEN = re.compile(r'"[^"]*"|[()]|[^\s()"]+')
_FUZZY = re.compile(r"^(.*\w)~(\d?)$")
_WILDCARD_HEAD = re.compile(r"^[^\W_]{2}")
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})


@dataclass(frozen=True)
class Clause:
    """One scored part of a query.

    ``kind`` is ``term`` (one token), ``phrase`` (tokens next to each other), ``prefix``
    (index terms starting with the token), ``fuzzy`` (index terms within ``distance``
    edits) or ``group`` (``children``, scored as a query of their own); ``occur`` is
    ``should``, ``must`` or ``not``.
    """

    kind: str
    tokens: tuple[str, ...] = ()
    occur: str = SHOULD
    distance: int = 0
    children: tuple["Clause", ...] = ()
    #: ``True`` for a word capitalized inside a sentence ("Notion Thief"): a card's name
    #: more often than a rule's word (:data:`.rank.NAME_WEIGHT`).
    name: bool = False

    def with_occur(self, occur: str) -> "Clause":
        return Clause(self.kind, self.tokens, occur, self.distance, self.children, self.name)


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
        if after is None or after == ")" or (after in OPERATORS and after != "NOT"):
            raise UsageError(f"{token} needs a word after it")
        if token != "NOT" and (before is None or before == "(" or before in OPERATORS):
            raise UsageError(f"{token} needs a word before it")


def has_syntax(text: str) -> bool:
    """Whether the query uses phrases, groups, operators, prefixes or fuzzy words."""
    return any(
        t in OPERATORS or t in "()" or t.startswith('"') or "*" in t or _FUZZY.match(t)
        for t in _SYNTAX_TOKEN.findall(text)
    )


def rule_number(text: str) -> str | None:
    """The rule number a query names, or ``None``.

    >>> rule_number("702.36A"), rule_number("R70236a"), rule_number("702."), rule_number("phasing")
    ('702.36a', '702.36a', '702', None)
    >>> rule_number("702.175~2"), rule_number("602¶3"), rule_number("¶6")
    ('702.175~2', '602¶3', '¶6')
    >>> rule_number("５０２．２６ａ"), rule_number("Ｒ７０２３７ａ"), rule_number("(502.26a)")  # full width; brackets
    ('502.26a', '702.37a', '502.26a')
    >>> rule_number("§702.19b"), rule_number("CR 702.19b"), rule_number("section-702-19b"), rule_number("2024")
    ('702.19b', '702.19b', '702.19b', None)
    """
    text = unicodedata.normalize("NFKC", text).strip()
    if text[:1] in "([" and text[-1:] in ")]":  # "(see 702.37a)" pasted with its brackets
        text = text[1:-1].strip()
    if _UNIT_ID.match(text):
        return text
    try:  # the forms `comprules show` and the go-to box take: §702.37a, CR 702.37a, section-702-37a…
        number = normalize_number(text)
    except UsageError:  # (a year, "2024", too: not 202.4 written as a citation)
        return None
    return number.lower() if _RULE_NUMBER.match(number) else None


def parse(text: str) -> list[Clause]:
    """The clauses of a checked query (:func:`check_query`).

    >>> [(c.kind, c.tokens, c.occur) for c in parse('Flying NOT reach')]
    [('term', ('flying',), 'should'), ('term', ('reach',), 'not')]
    >>> [(c.kind, c.tokens, c.occur) for c in parse('"phased out" AND ench*')]
    [('phrase', ('phased', 'out'), 'must'), ('prefix', ('ench',), 'must')]
    >>> [(c.kind, c.tokens, c.distance) for c in parse('deathtuch~1 {T}')]
    [('fuzzy', ('deathtuch',), 1), ('term', ('{t}',), 0)]
    """
    clauses, _ = _parse(_SYNTAX_TOKEN.findall(text), 0)
    return clauses


def names(text: str) -> list[bool]:
    """For each token of ``text``, whether it is capitalized inside a sentence (not its
    first word, nor the word after ``.``, ``!``, ``?``, ``:``) and not in capitals only
    (the pronoun "I", a variable "X", an abbreviation "ETB": card names are not).

    >>> names("My opponent controls Notion Thief. Who draws?")
    [False, False, False, True, True, False, False]
    >>> names("Does the ETB of Thragtusk copy X?")
    [False, False, False, False, True, False, False]
    """
    out, start = [], True
    spans = T.token_spans(text)
    for k, (s, e, _token) in enumerate(spans):
        raw = text[s:e]
        before = text[spans[k - 1][1] : s] if k else ""
        if k and any(c in before for c in ".!?:"):
            start = True
        out.append(not start and raw[:1].isupper() and not raw.isupper())
        start = False
    return out


def _parse(pieces: list[str], i: int) -> tuple[list[Clause], int]:
    out: list[Clause] = []
    pending: str | None = None  # NOT before the next clause
    join = False  # AND before the next clause
    while i < len(pieces):
        piece = pieces[i]
        i += 1
        if piece == ")":
            break
        if piece in OPERATORS:
            if piece == "NOT":
                pending = NOT
            elif piece == "AND":
                join = True
                if out and out[-1].occur == SHOULD:
                    out[-1] = out[-1].with_occur(MUST)
            continue
        if piece == "(":
            children, i = _parse(pieces, i)
            made = [Clause("group", children=tuple(children))] if children else []
        else:
            made = _clauses(piece)
        for k, clause in enumerate(made):
            if k == 0 and pending:
                clause = clause.with_occur(NOT)
            elif k == 0 and join:
                clause = clause.with_occur(MUST)
            out.append(clause)
        if made:
            pending, join = None, False
    return out, i


def _clauses(piece: str) -> list[Clause]:
    if piece.startswith('"'):
        words = tuple(T.tokens(piece.strip('"')))
        if not words:
            return []
        return [Clause("term", words)] if len(words) == 1 else [Clause("phrase", words)]
    if piece.endswith("*"):
        words = T.tokens(piece.rstrip("*"))
        if not words:
            return []
        return [Clause("term", (w,)) for w in words[:-1]] + [Clause("prefix", (words[-1],))]
    if m := _FUZZY.match(piece):
        words = T.tokens(m.group(1))
        if not words:
            return []
        distance = min(MAX_FUZZY, int(m.group(2) or 1))
        return [Clause("term", (w,)) for w in words[:-1]] + [Clause("fuzzy", (words[-1],), distance=distance)]
    return [Clause("term", (w,)) for w in T.tokens(piece)]
