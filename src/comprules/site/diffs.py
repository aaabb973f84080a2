"""Word-level changes as HTML: deletions and insertions marked in the printed text.

The aligner (:mod:`comprules.align.alignment`) decides *whether* a rule changed; the site
shows *where*, by comparing the two printed texts word by word (rapidfuzz's Indel
opcodes, the longest common subsequence of words). Words are compared with quotes
and dashes left out, and "(TM)"/"™" too, as the aligner compares them, so a
typography change ("--" for "—") is not shown as an edit; displayed words are always the printed
ones. :func:`marked` gives both texts, deleted words in ``<del>`` and inserted ones
in ``<ins>``; :func:`inline` one text with both in place. All text is escaped.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape
from rapidfuzz.distance import Indel

#: A word: "(TM)"/"™" (not compared), a number (``702.34a``), letters (an elision
#: keeps its apostrophe: ``n’``), or one punctuation mark.
_TOKEN = re.compile(r"\(TM\)|™|\d+(?:\.\d+[a-z]{0,2})?|[^\W\d_]+['’]?|[^\w\s]")
_IGNORED = frozenset({"(TM)", "™", "-", "'", '"'})
_FOLD = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'",
                       "`": "'", "´": "'", "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-",
                       "―": "-", "−": "-", "_": " "})

Block = tuple[tuple[int, int] | None, tuple[int, int] | None, int]


def _words(text: str) -> tuple[list[tuple[int, int]], list[str]]:
    folded = text.translate(_FOLD)
    spans, keys = [], []
    for m in _TOKEN.finditer(folded):
        if m.group() not in _IGNORED:
            spans.append(m.span())
            keys.append(m.group())
    return spans, keys


def blocks(old_text: str, new_text: str) -> list[Block]:
    """The changed runs of words: per run its span in the old text, its span in the
    new text (``None`` when that side has no words) and where it happens in the new
    text.

    >>> blocks("you may play it", "you may cast it")
    [((8, 12), (8, 12), 8)]
    """
    old_spans, a = _words(old_text)
    new_spans, b = _words(new_text)
    if a == b:
        return []
    runs: list[list[int]] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            continue
        if runs and runs[-1][1] == op.src_start and runs[-1][3] == op.dest_start:
            runs[-1][1], runs[-1][3] = op.src_end, op.dest_end
        else:
            runs.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    out: list[Block] = []
    for i1, i2, j1, j2 in runs:
        old = (old_spans[i1][0], old_spans[i2 - 1][1]) if i2 > i1 else None
        new = (new_spans[j1][0], new_spans[j2 - 1][1]) if j2 > j1 else None
        point = new[0] if new else (new_spans[j1][0] if j1 < len(new_spans) else len(new_text))
        out.append((old, new, point))
    return out


def _wrap(text: str, marks: list[tuple[int, int]], tag: str) -> Markup:
    out = []
    last = 0
    for start, end in marks:
        if start < last:
            continue
        out.append(escape(text[last:start]))
        out.append(Markup(f"<{tag}>") + escape(text[start:end]) + Markup(f"</{tag}>"))
        last = end
    out.append(escape(text[last:]))
    return Markup("").join(out)


def marked(old_text: str, new_text: str) -> tuple[Markup, Markup]:
    """``(old, new)`` as HTML, deleted words in ``<del>``, inserted ones in ``<ins>``.

    >>> marked("you may play it", "you may cast it")
    (Markup('you may <del>play</del> it'), Markup('you may <ins>cast</ins> it'))
    """
    runs = blocks(old_text, new_text)
    return (_wrap(old_text, [r[0] for r in runs if r[0]], "del"),
            _wrap(new_text, [r[1] for r in runs if r[1]], "ins"))


def inline(old_text: str, new_text: str) -> Markup:
    """The new text with each change shown in place: ``<del>old</del> <ins>new</ins>``.

    >>> inline("you may play it now", "you may cast it")
    Markup('you may <del>play</del> <ins>cast</ins> it <del>now</del>')
    """
    out = []
    last = 0
    for old_span, new_span, point in blocks(old_text, new_text):
        if point < last:
            continue
        head = new_text[last:point]
        out.append(escape(head))
        if old_span is not None:
            if head and not head[-1].isspace():
                out.append(Markup(" "))
            out.append(Markup("<del>") + escape(old_text[old_span[0]:old_span[1]]) + Markup("</del>"))
            if new_span is not None or point < len(new_text):
                out.append(Markup(" "))
        last = point
        if new_span is not None:
            out.append(Markup("<ins>") + escape(new_text[new_span[0]:new_span[1]]) + Markup("</ins>"))
            last = new_span[1]
    out.append(escape(new_text[last:]))
    return Markup("").join(out)
