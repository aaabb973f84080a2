"""The search analyzers, one per analyzed language: stop words, filler words, stemmer.

The project's language table (``data/languages.toml``, :mod:`comprules.languages`)
names each language's ``analyzer`` and ``stem``; :data:`ANALYZERS` here holds what
each analyzer is. A third language is a row of that table plus an entry of
:data:`ANALYZERS` (with its own ``tokenize`` when its words are not separated by
spaces); a language whose analyzer is not here is searched with the main language's.
What comes from whoosh: the stop-word lists it ships (``whoosh.analysis.STOP_WORDS``,
``whoosh.lang.stopwords_for_language``) and its Snowball stemmers
(``whoosh.lang.stemmer_for_language``); the rest is comprules' own.

* **stop words** are dropped at index and query time;
* **filler words** (question words, auxiliaries, pronouns, "happen", "work") are
  indexed like any word, but a query weighs them :data:`FILLER_WEIGHT` of a content
  word and they do not count for coordination: "Can tokens be returned to their
  owner's hand?" is about *tokens*, *returned*, *owner*, *hand*;
* words (not numbers or symbols) are stemmed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

from whoosh.analysis import STOP_WORDS
from whoosh.lang import stemmer_for_language, stopwords_for_language

from . import text as T

#: Query weight of a filler word, relative to a content word.
FILLER_WEIGHT = 0.1

_EN_STOP = set(STOP_WORDS) | set("s t d ll re ve m".split())
_EN_FILLER = set(
    """
what whats how why which who whom whose where does do did doing done happen happens happened happening
work works working would could should shall might must get gets got i im ive me my mine myself he she him
her his hers they them their theirs themselves there here then than so just also still really actually
possible exactly way thing things something anything someone anyone question mean means say says said
know think want wants try tries trying able am was were been being has had having isn cant dont doesn
didn wont its it's mtg magic card cards play playing
""".split()
)
#: French stop words that are game terms: "aura" (a form of *avoir*) is an enchantment subtype.
_FR_GAME_TERMS = {"aura", "auras"}
_FR_STOP = (set(stopwords_for_language("fr")) - _FR_GAME_TERMS) | set("c d j l m n qu s t y".split())
_FR_FILLER = set(
    """
quoi comment pourquoi quel quelle quels quelles quand est-ce peut peux peuvent pouvez faire fait arrive
arrivent passe passer cela ceci ca alors donc
""".split()
)

#: Chinese (words cut by :mod:`comprules.segment`): particles and conjunctions as stop
#: words, question words as fillers. Words are not stemmed.
_ZH_STOP = set("的 了 之 其 和 与 及 或 也 而 并 且 着".split())
_ZH_FILLER = set(
    """
什么 怎么 怎样 如何 为什么 为何 吗 呢 吧 是否 能否 可否 可以 能 会 是 哪些 哪个 多少 请问 有没有 情况 时候 发生
""".split()
)


def _unchanged(word: str) -> str:
    return word


@dataclass(frozen=True)
class Language:
    """One analyzed language: its code, name, word lists (folded) and stemmer."""

    code: str
    name: str
    stop: frozenset[str]
    filler: frozenset[str]
    stemmer: Callable[[str], str]
    tokenize: Callable[[str], list[str]] = field(default=T.tokens)
    #: The language writes its words in Han characters only (Chinese): its stop words
    #: say nothing of a Latin token ("the" is a stop word everywhere it can be written).
    han: bool = False

    def writes(self, token: str) -> bool:
        """Whether a token could be a word of this language (any, or Han for Chinese)."""
        return not self.han or T.is_han(token)

    def term(self, token: str) -> str | None:
        """The index term of one token (folded), or ``None`` for a stop word.

        >>> LANGUAGES["en"].term("phasing"), LANGUAGES["fr"].term("volantes"), LANGUAGES["en"].term("the")
        ('phase', 'vol', None)
        >>> LANGUAGES["en"].term("{t}"), LANGUAGES["en"].term("613.1g")
        ('{t}', '613.1g')
        """
        return _term(self.code, token)


def _folded(words) -> frozenset[str]:
    return frozenset(T.fold(w) for w in words)


#: What each analyzer of the language table is: (stop words, filler words).
ANALYZERS = {
    "english": (_EN_STOP, _EN_FILLER),
    "french": (_FR_STOP, _FR_FILLER),
    "chinese": (_ZH_STOP, _ZH_FILLER),
}


def _languages() -> dict[str, Language]:
    from .. import languages as table

    out = {}
    for row in table.all_languages():
        if row.analyzer in ANALYZERS:
            stop, filler = ANALYZERS[row.analyzer]
            stemmer = stemmer_for_language(row.stem) if row.stem else _unchanged
            out[row.code] = Language(
                row.code, row.name, _folded(stop), _folded(filler) - _folded(stop), stemmer, han=not row.spaced
            )
    return out


#: The analyzed languages, in the language table's order (the main language first).
LANGUAGES: dict[str, Language] = _languages()

#: The language codes, the main language first (a tie in language detection goes to it).
LANGS: tuple[str, ...] = tuple(LANGUAGES)


def field_lang(lang: str | None) -> str:
    """The analyzed language whose fields hold documents in ``lang`` (English for others)."""
    return lang if lang in LANGUAGES else LANGS[0]


#: ``data/word_senses.toml``: forms that stemming would join with another word's.
WORD_SENSES = Path(__file__).resolve().parent.parent / "data" / "word_senses.toml"


def load_senses(path: Path = WORD_SENSES) -> dict[str, dict[str, str]]:
    """Per language, folded form → its own index term (``data/word_senses.toml``);
    ``ValueError`` names the file and the entry for a malformed one.

    >>> load_senses()["en"]["died"]
    'dies'
    """
    with open(path, "rb") as f:
        rows = tomllib.load(f).get("sense", [])
    out: dict[str, dict[str, str]] = {}
    for n, row in enumerate(rows, 1):
        forms, term, lang = row.get("forms"), row.get("term"), row.get("lang")
        if (
            not isinstance(forms, list)
            or not forms
            or not all(isinstance(f, str) and f == T.fold(f) for f in forms)
            or not isinstance(term, str)
            or not term
            or lang not in LANGUAGES
        ):
            raise ValueError(f"{path}: sense {n}: needs lang (an analyzed language), folded forms and a term")
        for form in forms:
            out.setdefault(lang, {})[form] = term
    return out


SENSES: dict[str, dict[str, str]] = load_senses()


@lru_cache(maxsize=500_000)
def _term(code: str, token: str) -> str | None:
    language = LANGUAGES[code]
    if not T.is_word(token):
        return token
    if token in language.stop:
        return None
    own = SENSES.get(code)
    if own and token in own:
        return own[token]
    return language.stemmer(token)


def analyze(text: str, lang: str) -> list[tuple[str, str]]:
    """The (token, term) pairs of ``text`` in ``lang``, stop words left out."""
    code = field_lang(lang)
    out = []
    for token in LANGUAGES[code].tokenize(text):
        term = _term(code, token)
        if term is not None:
            out.append((token, term))
    return out
