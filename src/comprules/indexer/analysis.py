"""whoosh analyzers made of comprules' text specification (:mod:`.text`, :mod:`.languages`).

whoosh part: the ``Tokenizer`` / ``Filter`` classes and their composition with ``|``
(whoosh's ``analyzers.py`` style), which the whoosh schema's fields hold. What the
tokens and terms are is comprules' own: fold, tokenize (:mod:`.text`), drop the
language's stop words and stem its words (:mod:`.languages`). The fields index
through :class:`.fields.CachedText`, which applies the same steps without whoosh's
per-token objects.
"""

from __future__ import annotations

from functools import lru_cache

from whoosh.analysis import Analyzer, Filter, Token, Tokenizer

from . import text as T
from .languages import LANGS, LANGUAGES, field_lang

__all__ = [
    "LANGS",
    "analyzer_for",
    "english_analyzer",
    "field_lang",
    "fold",
    "french_analyzer",
    "heading_key",
    "index_term",
]

fold = T.fold
heading_key = T.heading_key


class SpecTokenizer(Tokenizer):
    """Fold and tokenize (:func:`.text.tokens`); positions count every token."""

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        **kwargs,
    ):
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for pos, (start, end, token) in enumerate(T.token_spans(value)):
            t.text = t.original = token
            t.boost = 1.0
            t.stopped = False
            if positions:
                t.pos = start_pos + pos
            if chars:
                t.startchar, t.endchar = start_char + start, start_char + end
            yield t


class LanguageFilter(Filter):
    """Drop the stop words of one language and stem its words (:meth:`.languages.Language.term`)."""

    def __init__(self, lang: str):
        self.lang = field_lang(lang)

    def __eq__(self, other):
        return isinstance(other, LanguageFilter) and other.lang == self.lang

    def __call__(self, tokens):
        language = LANGUAGES[self.lang]
        for t in tokens:
            term = language.term(t.text)
            if term is None:
                continue
            t.text = term
            yield t


@lru_cache(maxsize=None)
def analyzer_for(lang: str) -> Analyzer:
    """The analyzer of ``lang`` (English for a language without one of its own).

    >>> [t.text for t in analyzer_for("en")("Phased-out permanents phase in; see rule 702.26b, {T}.")]
    ['phase', 'out', 'perman', 'phase', 'see', 'rule', '702.26b', '{t}']
    >>> [t.text for t in analyzer_for("fr")("Une créature volante bloquée")]
    ['creatur', 'vol', 'bloque']
    """
    return SpecTokenizer() | LanguageFilter(lang)


def english_analyzer() -> Analyzer:
    """The English chain: fold, tokenize, drop stop words, stem (Snowball English).

    >>> [t.text for t in english_analyzer()("Æther Dandân, ﬂying")]
    ['aether', 'dandan', 'fli']
    """
    return analyzer_for("en")


def french_analyzer() -> Analyzer:
    """The French chain: fold, tokenize, drop stop words, stem (Snowball French).

    Accents are folded before stemming, so a query typed without accents matches:

    >>> [t.text for t in french_analyzer()("une creature volante bloquee")]
    ['creatur', 'vol', 'bloque']
    """
    return analyzer_for("fr")


def index_term(token: str, lang: str) -> str | None:
    """The index term of one folded token in ``lang`` (``None`` for a stop word)."""
    return LANGUAGES[field_lang(lang)].term(token)
