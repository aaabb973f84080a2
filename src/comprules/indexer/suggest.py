"""The query side's words: token → term tables, language detection, "did you mean".

comprules' own code. The build writes, per language, every token its texts hold with
its term (``vocabulary.json``, from :class:`.fields.CachedText`), plus the tokens of
the lexicon's terms. A query token is looked up there, not stemmed again, so the
site's JavaScript ranker (which has the same tables and no stemmer) turns the same
tokens into the same terms; a token the index never saw matches nothing and may get a
suggestion.

**Language of a query**: the language in which more of its word tokens are *seen*
(a stop word of the language, or a token of its texts) and not seen in the other
language; on a tie the main language (:data:`.languages.LANGS` order). With ``--lang
L``, a query whose words are all *known* in L (a stop word, or a token whose term is
in at least :data:`KNOWN_IN` documents of L) is in L.

**Did you mean**: each unknown word token (three letters or more) of the query's
language is replaced by the known token of that language with the same first letter
nearest in Levenshtein distance (at most 1 for words of up to 5 letters, else 2), the
one whose term is in the most documents on a tie, then the first alphabetically.
The search offers it only when more units hold every content word of the correction
than of the query typed. In Chinese (an analyzer of Han words) a mistyped word is cut
into characters the index never saw ("践蹋" → 践, 蹋): each run of unknown Han tokens is
corrected as one word, against the known words of its length ± 1, whatever their first
character ("践蹋" → "践踏"); a Han token is evidence of Chinese when detecting the language.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rapidfuzz.distance import Levenshtein

from . import text as T
from .languages import LANGS, LANGUAGES

#: A token whose term is in fewer documents of a language than this is not a word of
#: that language (a French forum post that mentions "morph" once).
KNOWN_IN = 3
#: Shortest unknown word that gets a suggestion.
MIN_SUGGEST = 3


def max_distance(token: str) -> int:
    return 1 if len(token) <= 5 else 2


@dataclass
class Vocabulary:
    """Per language: token → term; ``df(lang, term)`` tells in how many documents a term is."""

    tables: dict[str, dict[str, str]]
    df: Callable[[str, str], int] = lambda lang, term: 0
    _sorted: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, df: Callable[[str, str], int] | None = None) -> "Vocabulary":
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = {}
        tables = {lang: dict(raw.get(lang, {})) for lang in LANGS}
        return cls(tables, df or (lambda lang, term: 0))

    def table(self, lang: str) -> dict[str, str]:
        return self.tables.get(lang, {})

    def known(self, token: str, lang: str) -> bool:
        """Whether ``token`` is a word of ``lang`` (see the module doc)."""
        if token in LANGUAGES[lang].stop:
            return True
        term = self.tables.get(lang, {}).get(token)
        return term is not None and self.df(lang, term) >= KNOWN_IN

    def detect(self, tokens: list[str], lang: str | None = None) -> str:
        """The language of a query's tokens (numbers and symbols are no evidence)."""
        words = list(dict.fromkeys(t for t in tokens if T.is_word(t)))
        if lang in LANGUAGES and words and all(self.known(t, lang) for t in words):
            return lang
        best, best_count = LANGS[0], -1
        for code in LANGS:
            count = sum(
                1
                for t in words
                if self.seen(t, code) and not any(self.seen(t, other) for other in LANGS if other != code)
            )
            if count > best_count:
                best, best_count = code, count
        return best

    def seen(self, token: str, lang: str) -> bool:
        """Whether ``token`` is a stop word of ``lang`` or in its texts at all (or, for
        Chinese, any Han token)."""
        return (
            token in LANGUAGES[lang].stop
            or token in self.tables.get(lang, {})
            or (LANGUAGES[lang].han and T.is_han(token))
        )

    def unknown(self, token: str, lang: str) -> bool:
        """Whether a word token gets a suggestion in ``lang``: not a stop word, not in its texts
        (and three letters or more, but for a Han token)."""
        han = LANGUAGES[lang].han and T.is_han(token)
        return (
            T.is_word(token)
            and (han or len(token) >= MIN_SUGGEST)
            and token not in LANGUAGES[lang].stop
            and token not in self.tables.get(lang, {})
        )

    def closest(self, token: str, lang: str) -> str | None:
        """The known token of ``lang`` nearest to ``token`` (see the module doc), or ``None``."""
        words = self._words(lang)
        start = bisect_left(words, token[:1])
        end = bisect_left(words, token[:1] + "\uffff", start)
        if LANGUAGES[lang].han and T.is_han(token):  # any first character
            if len(token) == 1:  # every other character is one edit away ("迅" was "在", the most frequent)
                return None
            start, end = 0, len(words)
        limit = max_distance(token)
        best = None
        table = self.tables[lang]
        for word in words[start:end]:
            if abs(len(word) - len(token)) > limit:
                continue
            dist = Levenshtein.distance(token, word, score_cutoff=limit)
            if dist > limit:
                continue
            key = (dist, -self.df(lang, table[word]), word)
            if best is None or key < best:
                best = key
        return best[2] if best else None

    def suggest(self, tokens: list[str], lang: str) -> list[str] | None:
        """``tokens`` with each unknown word replaced by its closest known token, or ``None``."""
        out, changed = [], False
        han = LANGUAGES[lang].han
        i = 0
        while i < len(tokens):
            token, j = tokens[i], i + 1
            if han and T.is_han(token) and self.unknown(token, lang):
                while j < len(tokens) and T.is_han(tokens[j]) and self.unknown(tokens[j], lang):
                    j += 1
                token = "".join(tokens[i:j])  # a mistyped word, cut into characters
            better = self.closest(token, lang) if self.unknown(token, lang) else None
            if better and better != token:
                out.append(better)
                changed = True
            else:
                out.extend(tokens[i:j])
            i = j
        return out if changed else None

    def _words(self, lang: str) -> list[str]:
        if lang not in self._sorted:
            self._sorted[lang] = sorted(w for w in self.tables.get(lang, {}) if T.is_word(w))
        return self._sorted[lang]
