"""Analyzers: one composed chain per language, folding accents before stemming.

Every chain is ``tokenizer | lowercase | fold | stop words | stem`` (whoosh's
``analyzers.py`` style). Folding first means "créature bloquée" and "creature
bloquee" give the same terms; stop words are matched after folding, against one
folded list of English and French stop words shared by both languages. The
tokenizer keeps rule numbers such as ``702.37a`` as one token, and the stemmer
leaves them alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from whoosh.analysis import (
    Analyzer,
    CharsetFilter,
    LowercaseFilter,
    RegexTokenizer,
    StemFilter,
    StopFilter,
)
from whoosh.analysis.analyzers import STOP_WORDS
from whoosh.lang import stopwords_for_language
from whoosh.support.charset import accent_map

#: Languages with an analyzer of their own; any other language is analyzed as English.
LANGS = ("en", "fr")

#: The tokenizer's pattern (whoosh's default): words, and dotted numbers as one token.
TOKEN_PATTERN = re.compile(r"\w+(?:\.?\w+)*")

#: ``accent_map`` plus the ligatures it leaves alone (Æther, cœur).
FOLD_MAP: dict[int, str] = {
    **accent_map,
    **{ord(k): v for k, v in {"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss"}.items()},
}


def fold(text: str) -> str:
    """Lowercase ``text`` and fold its accents and ligatures.

    >>> fold("Créature bloquée, Æther, cœur")
    'creature bloquee, aether, coeur'
    """
    return text.lower().translate(FOLD_MAP)


#: Question words, so "what is phasing?" searches for "phasing".
QUESTION_WORDS = frozenset(
    "what how why which who whom whose does do did happen happens "
    "quoi comment pourquoi quel quelle quels quelles quand".split()
)


#: Stop words of a language that are game terms of the other: "Aura" (a French form
#: of *avoir*) is an enchantment subtype and a glossary headword.
GAME_TERMS = frozenset({"aura", "auras"})


@lru_cache(maxsize=None)
def stop_words() -> frozenset[str]:
    """The stop words of every analyzer: English, French and question words, folded.

    One list for both languages, so a query word is searched in both or in neither;
    game terms (:data:`GAME_TERMS`) are never stop words.

    >>> "the" in stop_words(), "aura" in stop_words()
    (True, False)
    """
    words = set(STOP_WORDS) | set(stopwords_for_language("fr")) | QUESTION_WORDS
    return frozenset(fold(w) for w in words) - GAME_TERMS


def english_analyzer() -> Analyzer:
    """Compose the English chain: tokenize, lowercase, fold, drop stop words, stem (Porter2).

    >>> ana = english_analyzer()
    >>> [t.text for t in ana("Phased-out permanents phase in; see rule 702.26b.")]
    ['phase', 'out', 'perman', 'phase', 'see', 'rule', '702.26b']
    >>> [t.text for t in ana("Æther Dandân")]
    ['aether', 'dandan']
    """
    return _chain("en")


def french_analyzer() -> Analyzer:
    """Compose the French chain: tokenize, lowercase, fold, drop stop words, stem (Snowball).

    Accents are folded before stemming, so a query typed without accents matches:

    >>> ana = french_analyzer()
    >>> [t.text for t in ana("Une créature volante bloquée")]
    ['creatur', 'vol', 'bloque']
    >>> [t.text for t in ana("une creature volante bloquee")]
    ['creatur', 'vol', 'bloque']
    >>> [t.text for t in ana("l’étape d’attribution des blessures")]
    ['etap', 'attribu', 'blessur']
    """
    return _chain("fr")


def _chain(lang: str) -> Analyzer:
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | LowercaseFilter()
        | CharsetFilter(FOLD_MAP)
        | StopFilter(stoplist=stop_words())
        | StemFilter(lang=lang, cachesize=-1)
    )


def exact_analyzer() -> Analyzer:
    """Compose the exact-word chain, for every language: tokenize, lowercase, fold, drop stop words.

    Words are not stemmed, so "phasing" and "phase" stay apart:

    >>> [t.text for t in exact_analyzer()("Phasing; Beginning Phase; Célérité")]
    ['phasing', 'beginning', 'phase', 'celerite']
    """
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | LowercaseFilter()
        | CharsetFilter(FOLD_MAP)
        | StopFilter(stoplist=stop_words())
    )


@lru_cache(maxsize=None)
def analyzer_for(lang: str) -> Analyzer:
    """The analyzer of ``lang`` (English for a language without one of its own)."""
    return french_analyzer() if field_lang(lang) == "fr" else english_analyzer()


def field_lang(lang: str | None) -> str:
    """The analyzed language whose fields hold documents in ``lang``."""
    return lang if lang in LANGS else "en"


@lru_cache(maxsize=200_000)
def exact_term_of(word: str) -> str | None:
    """The exact-field term of one surface word, or ``None`` for a stop word."""
    for token in _EXACT(word):
        return token.text
    return None


@lru_cache(maxsize=200_000)
def term_of(word: str, lang: str) -> str | None:
    """The indexed term of one surface word in ``lang``, or ``None`` for a stop word.

    >>> term_of("Phasing", "en"), term_of("volantes", "fr"), term_of("the", "en")
    ('phase', 'vol', None)
    """
    for token in analyzer_for(lang)(word):
        return token.text
    return None


_EXACT = exact_analyzer()
_WORDS = re.compile(r"[^\W_]+")


def heading_key(text: str) -> str:
    """How a heading or a whole query is compared with headwords: folded words, one
    space apart (stop words kept: "At End of Turn", "If").

    >>> heading_key("  State-based   ACTIONS? "), heading_key("Piétinement")
    ('state based actions', 'pietinement')
    """
    return " ".join(_WORDS.findall(fold(text)))
