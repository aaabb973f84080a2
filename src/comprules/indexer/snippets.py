"""Snippets: a window of a unit's text around the words that matched, with their offsets.

comprules' own code, ported as is to ``site/static/search.js``. A token is
highlighted when its term in the text's language is one of the terms the query
matched, so "phased-out" is highlighted for the query "phasing" and "creature" for
"créature"; offsets are in the original text (:func:`.text.token_spans`).
"""

from __future__ import annotations

from array import array
from functools import lru_cache

from .languages import LANGUAGES, field_lang
from .text import token_spans

#: The texts whose tokens' terms are kept (:func:`term_spans`): the hits of a search are
#: mostly rules asked for before; about 1 KB a text. 16,384 hold the default scope's
#: documents (4,096 did not: a quarter of the hits of unique searches tokenized their text
#: again, 2026-12-07).
TEXTS_KEPT = 16_384
#: Characters of text a snippet shows at most (plus ellipses).
SNIPPET_CHARS = 220
#: Characters kept before the first highlighted word of the window.
LEAD_CHARS = 40
ELLIPSIS = "…"


def matched_spans(text: str, terms: frozenset[str], lang: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the tokens of ``text`` whose term is one of ``terms``.

    >>> matched_spans("A phased-out permanent phases in.", frozenset({"phase"}), "en")
    [(2, 8), (23, 29)]
    """
    if not terms:
        return []
    starts, ends, found = term_spans(text, lang)
    return [(starts[i], ends[i]) for i, t in enumerate(found) if t in terms]


@lru_cache(maxsize=TEXTS_KEPT)
def term_spans(text: str, lang: str) -> tuple[array, array, tuple[str | None, ...]]:
    """The tokens of ``text``: their start and end offsets, and each one's term in
    ``lang`` (``None`` for a stop word); kept for the last :data:`TEXTS_KEPT` texts."""
    term = LANGUAGES[field_lang(lang)].term
    spans = token_spans(text)
    return (
        array("l", [s for s, _, _ in spans]),
        array("l", [e for _, e, _ in spans]),
        tuple(term(t) for _, _, t in spans),
    )


def make_snippet(text: str, terms: frozenset[str], lang: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line snippet of ``text`` and the offsets of its highlighted words in it.

    >>> make_snippet("702.26b If a permanent phases out,\\nits status changes.", frozenset({"phase"}), "en")
    ('702.26b If a permanent phases out, its status changes.', ((23, 29),))
    """
    flat = text.replace("\n", " ")
    spans = matched_spans(flat, terms, lang)
    if len(flat) <= SNIPPET_CHARS:
        return flat, tuple(spans)
    start = _window_start(flat, spans)
    end = _word_end(flat, start + SNIPPET_CHARS)
    head = ELLIPSIS if start > 0 else ""
    tail = ELLIPSIS if end < len(flat) else ""
    shift = len(head) - start
    inside = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return head + flat[start:end] + tail, inside


def _window_start(text: str, spans: list[tuple[int, int]]) -> int:
    """Start of the window that shows the most highlighted words (the earliest on a tie)."""
    if not spans:
        return 0
    best, best_count = spans[0][0], 0
    for i, (s, _) in enumerate(spans):
        count = sum(1 for s2, e2 in spans[i:] if e2 <= s + SNIPPET_CHARS - LEAD_CHARS)
        if count > best_count:
            best, best_count = s, count
    if best <= LEAD_CHARS:
        return 0
    return _word_start(text, best - LEAD_CHARS)


def _word_start(text: str, i: int) -> int:
    """The start of the word after position ``i`` (so the window never cuts a word)."""
    space = text.find(" ", i)
    return i if space == -1 else space + 1


def _word_end(text: str, i: int) -> int:
    if i >= len(text):
        return len(text)
    space = text.rfind(" ", 0, i)
    return i if space <= 0 else space


def mark(plain: str, spans: tuple[tuple[int, int], ...], start: str = "**", end: str = "**") -> str:
    """``plain`` with each span wrapped in ``start`` … ``end``.

    >>> mark("a phased-out permanent", ((2, 8),))
    'a **phased**-out permanent'
    """
    out, last = [], 0
    for s, e in spans:
        out += [plain[last:s], start, plain[s:e], end]
        last = e
    out.append(plain[last:])
    return "".join(out)
