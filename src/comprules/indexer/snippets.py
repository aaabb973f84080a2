"""Snippets: a window of a unit's text around the words that matched, with their offsets.

A word is highlighted when the analyzer of the text's language turns it into one of
the query's terms, so "phased-out" is highlighted for the query "phasing" and
"creature" for "créature".
"""

from __future__ import annotations

from .analysis import TOKEN_PATTERN, exact_term_of, fold, term_of

#: Characters of text a snippet shows at most (plus ellipses).
SNIPPET_CHARS = 220
#: Characters kept before the first highlighted word of the window.
LEAD_CHARS = 40
ELLIPSIS = "…"


def matched_spans(text: str, terms: frozenset[str], lang: str, exact: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The (start, end) offsets of the words of ``text`` that analyze to one of ``terms``
    (stemmed terms of ``lang``) or of ``exact`` (exact-field terms).

    Stemmers only change the ends of words, so only words that begin like a term
    (first two letters, folded) are analyzed.

    >>> matched_spans("A phased-out permanent phases in.", frozenset({"phase"}), "en")
    [(2, 8), (23, 29)]
    """
    heads = {t[:2] for t in terms} | {t[:2] for t in exact}
    if not heads:
        return []
    folded = fold(text)
    if len(folded) != len(text):  # a ligature (æ → ae): offsets would drift, fold word by word
        return [m.span() for m in TOKEN_PATTERN.finditer(text)
                if fold(m.group(0)[:3])[:2] in heads and _matches(m.group(0), terms, lang, exact)]
    spans = []
    for m in TOKEN_PATTERN.finditer(folded):
        start = m.start()
        if folded[start:start + 2] in heads and _matches(text[start:m.end()], terms, lang, exact):
            spans.append(m.span())
    return spans


def _matches(word: str, terms: frozenset[str], lang: str, exact: frozenset[str]) -> bool:
    return term_of(word, lang) in terms or bool(exact) and exact_term_of(word) in exact


def make_snippet(
    text: str, terms: frozenset[str], lang: str, exact: frozenset[str] = frozenset()
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line snippet of ``text`` and the offsets of its highlighted words in it.

    >>> make_snippet("702.26b If a permanent phases out,\\nits status changes.", frozenset({"phase"}), "en")
    ('702.26b If a permanent phases out, its status changes.', ((23, 29),))
    """
    flat = text.replace("\n", " ")
    spans = matched_spans(flat, terms, lang, exact)
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
