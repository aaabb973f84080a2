"""Rule texts of two editions on one page, the changed words marked.

The alignment stage decides *whether* and *how* a rule changed (its facets) and
*where*: :func:`comprules.align.alignment.change_spans` gives the runs of changed
words as the aligner compares them (quotes and dashes folded, a reference that
followed its target's renumbering no change), or, for a ``typography`` change, the
printed marks that changed. This module only renders: each text goes through the
site's one text renderer (:func:`.markdown.render_text`: references linked into *its*
edition, ``_italics_``, URLs, the 2003–04 symbol font), with the changed runs wrapped
in ``<del>`` (old text) and ``<ins>`` (new text).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from html import unescape
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..align.alignment import PHRASE_MARKS, change_spans
from ..model import Edition
from . import urls as U
from .markdown import render_text

if TYPE_CHECKING:
    from .render import SiteRenderer

#: Where a deleted run goes in the new text (:meth:`DiffText.inline`).
_POINT = "\ue004"

#: The names of the marks a punctuation-only edit changes (issue 22: a red comma alone is
#: missed; "comma → full stop" is not).
MARK_NAMES = {
    ",": "comma",
    ".": "full stop",
    ";": "semicolon",
    ":": "colon",
    "?": "question mark",
    "!": "exclamation mark",
    "'": "straight apostrophe",
    "’": "apostrophe",
    "‘": "opening single quote",
    '"': "straight quote",
    "“": "opening quote",
    "”": "closing quote",
    "-": "hyphen",
    "–": "en dash",
    "—": "em dash",
    "(": "opening parenthesis",
    ")": "closing parenthesis",
    "…": "ellipsis",
}
#: A rule with more marks replaced than this gets them set apart, not named one by one.
NAMED_AT_MOST = 3
_MARK = re.compile(r"<(del|ins)>([^<]{1,8})</\1>")
_PAIR = re.compile(r'<del class="p">([^<]*)</del>\s?<ins class="p">([^<]*)</ins>')


def _mark_name(marks: str) -> str | None:
    names = [MARK_NAMES.get(ch) for ch in marks]
    return " and ".join(n for n in names if n) if all(names) else None


def _replaced(old_text: str, new_text: str, o, n) -> str | None:
    """ "comma → full stop" when the run ``o`` of the old text (a span, or ``None``) and the
    run ``n`` of the new one are both punctuation marks; else ``None``."""
    if o is None or n is None:
        return None
    before, after = _mark_name(old_text[o[0] : o[1]]), _mark_name(new_text[n[0] : n[1]])
    return f"{before} → {after}" if before and after else None


def name_marks(html: str) -> str:
    """Each changed run that is one or two punctuation marks gets the class ``p`` (set
    apart, :file:`site.css`); the marks replaced by others are named after the text, at
    most :data:`NAMED_AT_MOST` of them: ``…<del class="p">,</del><ins class="p">.</ins>
    … <span class="named">comma → full stop</span>``."""

    html = _MARK.sub(_set_apart, html)
    names = [f"{_mark_name(unescape(a))} → {_mark_name(unescape(b))}" for a, b in _PAIR.findall(html)]
    return _with_names(html, names)


def _set_apart(m: re.Match[str]) -> str:
    """A ``<del>``/``<ins>`` of one or two punctuation marks, with the class ``p``."""
    if _mark_name(unescape(m.group(2))) is None:
        return m.group(0)
    return f'<{m.group(1)} class="p">{m.group(2)}</{m.group(1)}>'


def _with_names(html: str, names: Sequence[str | None]) -> str:
    """``html`` and, after it, the names of the marks replaced (none when there are more
    than :data:`NAMED_AT_MOST`: a rule whose quotes all changed is seen changed)."""
    given = [n for n in names if n]
    if not given or len(given) > NAMED_AT_MOST:
        return html
    return f'{html} <span class="named">{"; ".join(given)}</span>'


class DiffText:
    """Texts of editions ``old`` and ``new`` rendered for the page ``path``.

    ``mapping`` (old number → new number, :attr:`Alignment.mapping`) lets a reference
    that only followed the renumbering count as unchanged.
    """

    def __init__(
        self, site: "SiteRenderer", path: str, old: Edition, new: Edition, mapping: dict[str, str] | None = None
    ):
        self.site, self.path, self.old, self.new = site, path, old, new
        self.mapping = mapping or {}
        self._envs: dict[str, dict[str, Any]] = {}

    def env(self, edition: Edition) -> dict[str, Any]:
        if edition.name not in self._envs:
            self._envs[edition.name] = {
                "extract": self.site.extract,
                "lang": edition.lang,
                "known": self.site.known(edition),
                "edition": edition.name,
                "urls": U.Urls(self.path, self.site.layout(edition)[0]),
                "stats": {},
            }
        return self._envs[edition.name]

    def text(self, edition: Edition, text: str, marks=()) -> Markup:
        """One text of ``edition``, its references linked into that edition."""
        return Markup(render_text(self.site.md, text, self.env(edition), marks)) if text else Markup("")

    def spans(self, old_text: str, new_text: str, typography: bool = False):
        return change_spans(old_text, new_text, self.new.lang, self.mapping, typography)

    def side_by_side(self, old_text: str, new_text: str, typography: bool = False) -> tuple[Markup, Markup]:
        """``(old, new)`` as HTML, deleted words in ``<del>``, inserted ones in ``<ins>``."""
        runs = self.spans(old_text, new_text, typography)
        # the marks replaced by others: their names after the new text ("comma → full stop")
        replaced = [_replaced(old_text, new_text, o, n) for o, n, _p in runs if n]
        new_html = _MARK.sub(_set_apart, str(self.text(self.new, new_text, [(*n, "ins") for _o, n, _p in runs if n])))
        new_html = _with_names(new_html, replaced)
        old_html = _MARK.sub(_set_apart, str(self.text(self.old, old_text, [(*o, "del") for o, _n, _p in runs if o])))
        return Markup(old_html), Markup(new_html)

    def inline(self, old_text: str, new_text: str, typography: bool = False) -> Markup:
        """The new text with each change in place: ``<del>old</del> <ins>new</ins>``,
        each deleted run rendered as the old edition prints it (its references linked
        there)."""
        runs = self.spans(old_text, new_text, typography)
        if not runs:
            return self.text(self.new, new_text)
        deleted = [(point, old_text[o[0] : o[1]], old_text[o[1] : o[1] + 1]) for o, _n, point in runs if o is not None]
        # each deleted run is a point placed before the character it stands at (in order:
        # never before an earlier run's point; past the end, at the end)
        at: list[int] = []
        for point, _words, _next in deleted:
            point = min(max(point, 0), len(new_text))
            at.append(max(point, at[-1]) if at else point)
        pieces, last = [], 0
        for pos in at:
            pieces += [new_text[last:pos], _POINT]
            last = pos
        pieces.append(new_text[last:])

        def index(k: int) -> int:  # where character k of the new text stands, points placed
            return k + bisect_right(at, k)

        marks = [(index(n[0]), index(n[1] - 1) + 1, "ins") for _o, n, _p in runs if n is not None]
        parts = str(self.text(self.new, "".join(pieces), marks)).split(_POINT)
        out = [parts[0]]
        for k, (_point, words, next_char) in enumerate(deleted):
            before, after = unescape(_TAGS.sub("", out[-1]))[-1:], unescape(_TAGS.sub("", parts[k + 1]))[:1]
            gap = " " if before.isalnum() and words[:1].isalnum() else ""
            # a space where the old text had one before a mark that follows (“Morph”)
            spaced = next_char.isspace() and after in PHRASE_MARKS
            tail = " " if after.isalnum() and words[-1:].isalnum() or after in ("<",) or spaced else ""
            out.append(f"{gap}<del>{self.text(self.old, words)}</del>{tail}")
            out.append(parts[k + 1])
        return Markup(name_marks("".join(out)))


_TAGS = re.compile(r"<[^>]*>")
