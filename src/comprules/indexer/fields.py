"""A whoosh ``TEXT`` field that indexes several times faster, with the same terms.

Every step after tokenizing works on one token at a time (stop word, stem:
:mod:`.languages`), so the term of a token never depends on its neighbours.
``CachedText`` (a whoosh field) tokenizes with :func:`.text.tokens`, finds each
distinct token's term once, remembers it (the build writes these token → term tables
for the query side, :mod:`.vocab`), and builds whoosh's postings itself.
"""

from __future__ import annotations

from whoosh.fields import TEXT
from whoosh.formats import Frequency, Positions
from whoosh.system import pack_uint

from . import text as T
from .languages import LANGUAGES, field_lang

_UNSEEN = object()


class CachedText(TEXT):
    """``TEXT`` whose ``index()`` analyzes each distinct word once.

    Positions are numbered without the stop words, as whoosh's ``StopFilter`` does.

    >>> from comprules.indexer.analysis import english_analyzer
    >>> field = CachedText(analyzer=english_analyzer(), lang="en")
    >>> [(t, n) for t, n, _, _ in field.index("The phased-out permanent phases in")]
    [(b'phase', 2), (b'out', 1), (b'perman', 1)]
    """

    def __init__(self, *args, lang: str = "en", **kwargs):
        super().__init__(*args, **kwargs)
        self.lang = field_lang(lang)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_terms", None)
        return state

    def term(self, token: str) -> str | None:
        """The term of one folded token, or ``None`` for a stop word."""
        terms = self.__dict__.setdefault("_terms", {})
        term = terms.get(token, _UNSEEN)
        if term is _UNSEEN:
            term = terms[token] = LANGUAGES[self.lang].term(token)
        return term

    def seen(self) -> dict[str, str]:
        """Every token this field has indexed (stop words left out) → its term."""
        return {w: t for w, t in self.__dict__.get("_terms", {}).items() if t is not None}

    def index(self, value, **kwargs):
        fmt = self.format
        if not isinstance(value, str) or type(fmt) not in (Positions, Frequency):
            yield from super().index(value, **kwargs)
            return
        positions: dict[str, list[int]] = {}
        pos = 0
        term_of = self.term
        for word in T.tokens(value):
            term = term_of(word)
            if term is not None:
                positions.setdefault(term, []).append(pos)
                pos += 1
        boost = fmt.field_boost
        with_positions = type(fmt) is Positions
        for term, poslist in positions.items():
            freq = len(poslist)
            yield (
                term.encode("utf-8"),
                freq,
                freq * boost,
                fmt.encode(poslist) if with_positions else pack_uint(freq),
            )
