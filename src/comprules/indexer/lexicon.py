"""Cross-language queries: the lexicon of game terms, English ⇄ French and English ⇄ Chinese.

The build stores term pairs in the index (``lexicon.json``): (English, French) pairs, by
default :func:`comprules.align.crosslang.lexicon`, the checked-in table of official French
names plus the pairs alignment finds; and (English, term, language) triples of the other
languages, the lexicon the build found by aligning each complete translation with its
English twin (``data/alignments/lexicon.json``, ``translations``: Trample ⇄ 践踏). A query's tokens are matched against both
sides by their terms ("mana ability" matches "Mana Abilities"; the terms of a query
token come from the index's tables, :mod:`.suggest`), longest terms first, and a
matched term also searches its translation in the other language's fields: "morph"
finds the French "Mue", "piétinement" the English "Trample".

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

from . import text as T
from .languages import LANGS, LANGUAGES

LEXICON_FILE = "lexicon.json"
#: Longest term, in words (stop words left out), looked up in a query.
MAX_WORDS = 5


def lexicon_pairs(
    lexicon: Mapping[str, Iterable[str]] | Iterable[tuple[str, ...]] | None, alignments: Path | None = None
) -> list[tuple[str, ...]]:
    """(English, French) pairs and (English, term, language) triples, sorted: from
    ``lexicon`` (a mapping English → French names, or pairs and triples), or by default
    from :func:`comprules.align.crosslang.lexicon` and the ``translations`` of
    ``alignments/lexicon.json`` (the build's, when ``alignments`` is given)."""
    extra: list[tuple[str, str, str]] = []
    if lexicon is None:
        try:
            from ..align.crosslang import lexicon as table

            lexicon = table()
        except (ImportError, OSError, ValueError):  # no alignment stage, or no table: no translations
            lexicon = {}
        extra = _translations(alignments)
    if isinstance(lexicon, Mapping):
        pairs: list[tuple[str, ...]] = [
            (en, fr) for en, frs in lexicon.items() for fr in ([frs] if isinstance(frs, str) else frs)
        ]
    else:
        pairs = [tuple(p) for p in lexicon]
    pairs += extra
    return sorted(
        {tuple(str(x) for x in p) for p in pairs if len(p) in (2, 3) and str(p[0]).strip() and str(p[1]).strip()}
    )


def _translations(alignments: Path | None) -> list[tuple[str, str, str]]:
    """(English, term, language) of the other languages' lexicons stored by the build."""
    if alignments is None:
        return []
    try:
        data = json.loads((Path(alignments) / "lexicon.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out: list[tuple[str, str, str]] = []
    for lang, table in (data.get("translations") or {}).items():
        if lang in LANGUAGES and lang != "fr":
            out.extend((en, term, lang) for en, terms in table.items() for term in terms)
    return out


def _sides(pair: tuple[str, ...]) -> tuple[str, str, str]:
    """(English, term, language) of a pair (French) or a triple."""
    return (pair[0], pair[1], pair[2]) if len(pair) == 3 else (pair[0], pair[1], "fr")


@dataclass(frozen=True, slots=True)
class Translation:
    """Query words ``start``…``end`` (indexes into the query's words) name a term whose
    ``text`` in language ``lang`` is searched too."""

    start: int
    end: int
    lang: str
    text: str


class Lexicon:
    """The term pairs of one index, keyed by their terms in each language."""

    def __init__(self, pairs: Iterable[tuple[str, str]]):
        self.pairs = list(pairs)
        self.entries: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
        for pair in self.pairs:
            en, term, lang = _sides(pair)
            if lang not in LANGUAGES:
                continue
            self._add("en", en, lang, term)
            self._add(lang, term, "en", en)

    def _add(self, lang: str, term: str, other: str, translation: str) -> None:
        stems = _stems(T.tokens(term), lang)
        if stems and len(stems) <= MAX_WORDS:
            targets = self.entries.setdefault((lang, stems), [])
            if (other, translation) not in targets:
                targets.append((other, translation))

    def tokens(self) -> dict[str, set[str]]:
        """Per language, the tokens of its terms (added to the index's token tables)."""
        out: dict[str, set[str]] = {lang: set() for lang in LANGS}
        for pair in self.pairs:
            en, term, lang = _sides(pair)
            if lang in out:
                out["en"].update(T.tokens(en))
                out[lang].update(T.tokens(term))
        return out

    @classmethod
    def load(cls, path: Path) -> "Lexicon":
        try:
            return cls(tuple(p) for p in json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return cls(())

    def translations(self, tokens: list[str], targets: tuple[str, ...], known, stem) -> list[Translation]:
        """The terms among ``tokens`` (a query's folded tokens, in order) to search in one of
        ``targets`` too. ``known(token, lang)`` tells whether a language has a word;
        ``stem(token, lang)`` gives a token's term (``None``: a token the index never saw).

        >>> lex = Lexicon([("Morph", "Mue"), ("Deathtouch", "Contact mortel")])
        >>> nowhere = lambda token, lang: False
        >>> stem = lambda token, lang: LANGUAGES[lang].term(token)
        >>> lex.translations(["morph"], ("fr",), nowhere, stem)
        [Translation(start=0, end=1, lang='fr', text='Mue')]
        >>> lex.translations(["le", "contact", "mortel"], ("en",), nowhere, stem)
        [Translation(start=0, end=3, lang='en', text='Deathtouch')]
        """
        out: list[Translation] = []
        i = 0
        while i < len(tokens):
            found = self._longest(tokens, i, targets, known, stem)
            if found:
                out.extend(found)
                i = found[0].end
            else:
                i += 1
        return out

    def _longest(self, tokens: list[str], i: int, targets, known, stem) -> list[Translation]:
        if _stop_everywhere(tokens[i]):
            return []  # a term never starts with a stop word
        for end in range(min(len(tokens), i + MAX_WORDS * 2), i, -1):
            found = []
            for source in LANGS:
                stems = _query_stems(tokens[i:end], source, stem)
                if not stems:
                    continue
                for target, text in self.entries.get((source, stems), ()):
                    if (
                        target in targets
                        and target != source
                        and not all(known(t, target) for t in tokens[i:end] if t not in LANGUAGES[source].stop)
                    ):
                        found.append(Translation(_start(tokens, i), end, target, text))
            if found:
                return found
        return []

    def whole(self, tokens: list[str], targets: tuple[str, ...], known, stem) -> list[tuple[str, str]]:
        """The (language, term) translations of the whole query, if it is one term."""
        found = self.translations(tokens, targets, known, stem) if tokens else []
        return [(t.lang, t.text) for t in found if t.start == 0 and t.end == len(tokens)]


def _stop_everywhere(token: str) -> bool:
    return all(token in LANGUAGES[lang].stop for lang in LANGS if LANGUAGES[lang].writes(token))


def _start(tokens: list[str], i: int) -> int:
    """Leading stop words belong to the term ("le contact mortel" is one term)."""
    while i > 0 and _stop_everywhere(tokens[i - 1]):
        i -= 1
    return i


def _stems(tokens: list[str], lang: str) -> tuple[str, ...]:
    return tuple(t for t in (LANGUAGES[lang].term(w) for w in tokens) if t)


def _query_stems(tokens: list[str], lang: str, stem) -> tuple[str, ...] | None:
    """The terms of a span of query tokens in ``lang``, stop words left out; ``None`` when
    one of them is unknown there."""
    out = []
    for token in tokens:
        if token in LANGUAGES[lang].stop:
            continue
        term = stem(token, lang)
        if term is None:
            return None
        out.append(term)
    return tuple(out)
