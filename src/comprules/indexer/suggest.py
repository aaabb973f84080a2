"""Spelling suggestions: unknown query words replaced by the closest indexed word.

The build writes the words of each language's indexed text (``vocabulary.json``); a
query word is known when its folded spelling is there, so "creature" is known
through "créature". An unknown word is compared with the known words that start with
the same letter; among the most similar, the one in the most documents wins.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .analysis import fold, term_of

_WORD = re.compile(r"[^\W\d_]{3,}")
#: Least similarity (``difflib`` ratio) of a suggested word to the typed one.
CUTOFF = 0.75


@dataclass
class Vocabulary:
    """Known words per analyzed language, by folded spelling → a surface spelling.

    ``frequency(word, lang)`` tells in how many documents a word is (ties between
    equally similar words go to the more frequent).
    """

    words: dict[str, dict[str, str]]
    frequency: Callable[[str, str], int] = lambda word, lang: 0
    _buckets: dict[tuple, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, frequency: Callable[[str, str], int] | None = None) -> "Vocabulary":
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = {}
        # sorted: "protection" wins over "Protection", "créature" over "creature"
        words = {lang: {fold(w): w for w in sorted(ws)} for lang, ws in raw.items()}
        return cls(words, frequency or (lambda word, lang: 0))

    def known(self, word: str, langs: tuple[str, ...]) -> bool:
        """Whether ``word`` is indexed, or a stop word, in one of ``langs``."""
        key = fold(word)
        return any(key in self.words.get(lang, {}) or term_of(word, lang) is None for lang in langs)

    def closest(self, word: str, langs: tuple[str, ...]) -> str | None:
        """The known word most similar to ``word`` (the most frequent on a tie), or ``None``."""
        key = fold(word)
        candidates = difflib.get_close_matches(key, self._bucket(key[0], langs), n=5, cutoff=CUTOFF)
        if not candidates:
            return None
        surfaces = {c: self._surface(c, langs, prefer_accents=not word.isascii()) for c in candidates}

        def rank(folded: str) -> tuple[float, int]:
            ratio = difflib.SequenceMatcher(None, key, folded).ratio()
            return round(ratio, 2), max(self.frequency(surfaces[folded], lang) for lang in langs)

        surface = surfaces[max(candidates, key=rank)]
        return surface.lower() if word[:1].islower() else surface[:1].upper() + surface[1:]

    def suggest(self, query: str, langs: tuple[str, ...]) -> str | None:
        """``query`` with each unknown word corrected, or ``None`` when nothing changes."""
        out, changed = query, False
        for match in reversed(list(_WORD.finditer(query))):
            word = match.group(0)
            if word.isupper() or self.known(word, langs) or query[match.end():match.end() + 1] in ("*", "~"):
                continue  # an operator, a known word, or a prefix* / fuzzy~ the user typed on purpose
            better = self.closest(word, langs)
            if better and fold(better) != fold(word):
                out = out[: match.start()] + better + out[match.end():]
                changed = True
        return out if changed else None

    def _surface(self, folded: str, langs: tuple[str, ...], prefer_accents: bool) -> str:
        spellings = [self.words[lang][folded] for lang in langs if folded in self.words.get(lang, {})]
        if prefer_accents:
            spellings.sort(key=str.isascii)
        return spellings[0]

    def _bucket(self, initial: str, langs: tuple[str, ...]) -> list[str]:
        key = (initial, langs)
        if key not in self._buckets:
            self._buckets[key] = sorted(
                {w for lang in langs for w in self.words.get(lang, {}) if w[:1] == initial}
            )
        return self._buckets[key]
