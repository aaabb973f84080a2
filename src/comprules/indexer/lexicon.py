"""Cross-language queries: the bilingual lexicon of game terms, English ⇄ French.

The build stores (English, French) term pairs in the index (``lexicon.json``; by
default :func:`comprules.align.crosslang.lexicon`, the checked-in table of official French
names plus the pairs alignment finds). A query's words are matched against both
sides by their stems ("mana ability" matches "Mana Abilities"), longest terms first,
and a matched term also searches its translation in the other language's fields:
"morph" finds the French "Mue", "piétinement" the English "Trample".

A term is translated only when the other language does not already have its words:
"creature" is not translated into French (the French texts have "créature", which
folds to the same word), nor the French "main" (hand) into English, where "main"
is an English word (main phase).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from .analysis import LANGS, TOKEN_PATTERN, fold, heading_key, term_of

LEXICON_FILE = "lexicon.json"
#: Longest term, in words (stop words left out), looked up in a query.
MAX_WORDS = 5


def lexicon_pairs(lexicon: Mapping[str, Iterable[str]] | Iterable[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """(English, French) pairs, sorted: from ``lexicon`` (a mapping English → French
    names, or pairs), or by default from :func:`comprules.align.crosslang.lexicon`."""
    if lexicon is None:
        try:
            from ..align.crosslang import lexicon as table

            lexicon = table()
        except (ImportError, OSError, ValueError):  # no alignment stage, or no table: no translations
            return []
    if isinstance(lexicon, Mapping):
        pairs = [(en, fr) for en, frs in lexicon.items() for fr in ([frs] if isinstance(frs, str) else frs)]
    else:
        pairs = [(en, fr) for en, fr in lexicon]
    return sorted({(str(en), str(fr)) for en, fr in pairs if str(en).strip() and str(fr).strip()})


@dataclass(frozen=True, slots=True)
class Translation:
    """Query words ``start``…``end`` (indexes into the query's words) name a term whose
    ``text`` in language ``lang`` is searched too."""

    start: int
    end: int
    lang: str
    text: str


class Lexicon:
    """The term pairs of one index, keyed by their stems in each language."""

    def __init__(self, pairs: Iterable[tuple[str, str]]):
        self.pairs = list(pairs)
        self.entries: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
        for en, fr in self.pairs:
            self._add("en", en, "fr", fr)
            self._add("fr", fr, "en", en)

    def _add(self, lang: str, term: str, other: str, translation: str) -> None:
        stems = _stems(heading_key(term).split(), lang)
        if stems and len(stems) <= MAX_WORDS:
            targets = self.entries.setdefault((lang, stems), [])
            if (other, translation) not in targets:
                targets.append((other, translation))

    @classmethod
    def load(cls, path: Path) -> "Lexicon":
        try:
            return cls(tuple(p) for p in json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return cls(())

    def translations(self, words: list[str], langs: tuple[str, ...], known) -> list[Translation]:
        """The terms among ``words`` (a query's words, in order) to search in another of
        ``langs`` too; ``known(word, lang)`` tells whether a language's texts have a word.

        >>> lex = Lexicon([("Morph", "Mue"), ("Deathtouch", "Contact mortel")])
        >>> nowhere = lambda word, lang: False
        >>> lex.translations(["morph"], ("fr",), nowhere)
        [Translation(start=0, end=1, lang='fr', text='Mue')]
        >>> lex.translations(["le", "contact", "mortel"], ("en",), nowhere)
        [Translation(start=0, end=3, lang='en', text='Deathtouch')]
        """
        out: list[Translation] = []
        i = 0
        while i < len(words):
            found = self._longest(words, i, langs, known)
            if found:
                out.extend(found)
                i = found[0].end
            else:
                i += 1
        return out

    def _longest(self, words: list[str], i: int, langs, known) -> list[Translation]:
        if term_of(words[i], "en") is None and term_of(words[i], "fr") is None:
            return []  # a term never starts with a stop word
        for end in range(min(len(words), i + MAX_WORDS * 2), i, -1):
            found = []
            for source in LANGS:
                stems = _stems(words[i:end], source)
                for target, text in self.entries.get((source, stems), ()):
                    if target in langs and not all(known(w, target) for w in words[i:end] if term_of(w, source)):
                        found.append(Translation(_start(words, i), end, target, text))
            if found:
                return found
        return []

    def whole(self, query: str, langs: tuple[str, ...], known) -> list[tuple[str, str]]:
        """The (language, term) translations of the whole query, if it is one term."""
        words = TOKEN_PATTERN.findall(query)
        found = self.translations(words, langs, known) if words else []
        return [(t.lang, t.text) for t in found if t.start == 0 and t.end == len(words)]


def _start(words: list[str], i: int) -> int:
    """Leading stop words belong to the term ("le contact mortel" is one term)."""
    while i > 0 and term_of(words[i - 1], "en") is None and term_of(words[i - 1], "fr") is None:
        i -= 1
    return i


def _stems(words: list[str], lang: str) -> tuple[str, ...]:
    return tuple(t for t in (term_of(fold(w), lang) for w in words) if t)
