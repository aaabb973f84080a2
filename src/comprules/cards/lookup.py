"""Finding cards by name: the name asked (``comprules card``), and the names a search
query holds.

A name is compared folded (lower case, plain apostrophes, spacing collapsed); a name
asked may be a plural ("notion thieves" → Notion Thief), a possessive ("Notion Thief's"),
a face's name ("Fire" of Fire // Ice), with Æ and accents as plain letters either side
("Aether Vial", "Seance"), a part of one name alone ("Urborg Tomb", "mind sculptor"), or
misspelt (the name most like the whole of it, by rapidfuzz, imported only then); a word
many names hold ("Goblin", "Path") and a few letters found inside names ("x", "Goyf")
are no card's.

In a query (:func:`names_in`), a name counts only when it is written as one: every word
of it capitalised but its small words ("of", "the", "to"…), or asked with ``card:``
(``card:clone``, ``card:"time walk"``), or the whole query being a name of two words or
more in any case ("notion thieves", as typed in the site's go-to box). A one-word name at the start of a sentence, or
a name that is also a word of the rules ("Clone", "Fog"), needs ``card:`` or a capital
inside a sentence; "clone" in lower case stays the rule word. A name that is a word the
rules capitalise themselves (a keyword, a card type, a subtype: "Flash", "Mountain")
needs ``card:``.
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..errors import NotFound, UsageError
from . import store
from .concepts import fold

#: Words of a card name that are written in lower case ("Tomb of Yawgmoth").
SMALL_WORDS = frozenset("a an and as at by for from in into of on or the to with".split())
#: The least WRatio (0–100) for a misspelt name to be taken as a card's, and the least
#: similarity of the whole strings (rapidfuzz's ``ratio``, 0–100) beside it: WRatio scores
#: a few letters found inside a long name about 90 ("x" and Annex, "Goyf" and Lhurgoyf).
FUZZY_CUTOFF = 86
WHOLE_CUTOFF = 75
#: A name asked with fewer letters is no card's; a part of a name is taken for the one
#: card whose name holds it when its words have this many letters at least ("urborg tomb").
PART_LEAST = 4
#: The longest name :meth:`CardIndex.find` looks for, in characters (200, as the server's
#: parameters; the longest card name has 141).
LONGEST_NAME = 200


@dataclass(frozen=True)
class Match:
    """A card found for a name: its id, its name, how it was found (``exact``,
    ``plural``, ``face``, ``fuzzy``) and what was asked."""

    card: int
    name: str
    how: str
    asked: str


def singular(word: str) -> list[str]:
    """The singulars a plural word may have: thieves → thief, thieve; elves → elf;
    sphinxes → sphinx; angels → angel; fungi stays."""
    w = word
    out = []
    if w.endswith("ves"):
        out += [w[:-3] + "f", w[:-3] + "fe"]
    if w.endswith("ies"):
        out.append(w[:-3] + "y")
    if w.endswith("es"):
        out.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        out.append(w[:-1])
    if w.endswith("men"):
        out.append(w[:-3] + "man")
    return [x for x in out if x]


def _plain(folded: str) -> str:
    """``folded`` with the ligatures æ and œ written out and the accents dropped
    (``æther vial`` → ``aether vial``, ``lim-dûl`` → ``lim-dul``)."""
    text = folded.replace("æ", "ae").replace("œ", "oe")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _few_letters(folded: str) -> bool:
    """Whether a name asked has fewer than :data:`PART_LEAST` letters and digits ("x", "the")."""
    return sum(c.isalnum() for c in folded) < PART_LEAST


def _variants(folded: str) -> list[tuple[str, str]]:
    """(form, how) to try for a folded name: as asked, without a possessive, singular; each
    also with Æ and accents as plain letters ("Æther Vials" → "aether vial", as its Oracle
    name spells it today)."""
    out: list[tuple[str, str]] = []
    for name in dict.fromkeys((folded, _plain(folded))):
        out.append((name, "exact"))
        if store.loose(name) != name:
            name = store.loose(name)
            out.append((name, "exact"))
        base = re.sub(r"(?:'s|s')$", "", name)
        if base != name:
            out.append((base, "exact"))
        words = base.split()
        if words:
            for s in singular(words[-1]):
                out.append((" ".join([*words[:-1], s]), "plural"))
    return list(dict.fromkeys(out))


class CardIndex:
    """The card tables of one database, for lookups (names loaded once, when needed)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._first: dict[str, list[tuple[tuple[str, ...], int]]] | None = None
        self._names: list[tuple[str, int]] | None = None
        self._rule_words: dict[int, int] | None = None
        self._plain: dict[str, list[int]] | None = None
        self._words: list[tuple[frozenset[str], tuple[str, ...], int, int]] | None = None
        self._folded: dict[str, list[int]] | None = None

    @classmethod
    def open(cls, path: Path) -> "CardIndex":
        return cls(store.connect(path))

    def names(self) -> list[tuple[str, int]]:
        if self._names is None:
            self._names = store.all_names(self.db)
        return self._names

    def find(self, asked: str, *, fuzzy: bool = True) -> Match:
        """The card ``asked`` names (with ``fuzzy``, a misspelt name too). Raises
        :class:`~comprules.errors.NotFound`, naming the nearest names when ``fuzzy``, when
        none is near enough or the name is longer than :data:`LONGEST_NAME` (each
        character costs a look-up: the same cap as the server's), and
        :class:`~comprules.errors.UsageError` for an empty name."""
        typed = fold(asked.strip())
        # quotes around the whole name are the user's ("Notion Thief"); quotes inside it are
        # the card's (Kongming, "Sleeping Dragon": its last quote was taken off, a "face")
        folded = typed[1:-1].strip() if len(typed) > 1 and typed[0] == typed[-1] == '"' else typed
        if not folded.strip('"'):
            raise UsageError("no card name given")
        if len(folded) > LONGEST_NAME:  # the longest name printed has 141 characters
            raise NotFound(f"no card of a name of {len(folded):,} characters (at most {LONGEST_NAME})")
        for form, how in dict.fromkeys([*_variants(typed), *_variants(folded)]):
            ids = self._exact(form)
            if not ids:
                ids = self._plain_names().get(form, [])  # "seance" → Séance, "dandan" → Dandân
            if ids:
                name = store.card(self.db, ids[0]).name
                whole = _plain(fold(name)) == _plain(form)
                return Match(ids[0], name, how if whole or how == "plural" else "face", asked)
        if not fuzzy:
            raise NotFound(f"no card {asked!r}")
        if _few_letters(folded):  # "x", "the": near too many names
            raise NotFound(f"no card {asked!r} (a name or a part of one of {PART_LEAST} letters at least)")
        if "/" in folded:  # "Fire // Ice" of a file that has its halves as cards of their own
            halves = [c for h in folded.split("/") if h.strip() for c in store.by_folded(self.db, h.strip())[:1]]
            if halves:
                names = "; ".join(store.card(self.db, c).name for c in halves)
                raise NotFound(f"no card {asked!r} (nearest: {names})")
        holders = self._names_holding(folded)
        if len(holders) == 1:  # a part of one name alone ("urborg tomb", "mind sculptor")
            return Match(holders[0], store.card(self.db, holders[0]).name, "fuzzy", asked)
        if len(holders) > 1:  # "Goblin", "Path", "Fire // Ice": a part of many names is none of them
            near = [store.card(self.db, c).name for c in holders[:3]]
            more = "…" if len(holders) > len(near) else ""
            raise NotFound(f"no card {asked!r}: {len(holders)} names hold it ({'; '.join(near)}{more})")
        from rapidfuzz import fuzz, process

        choices = [n for n, _ in self.names()]
        # the names most like the whole of it (a misspelling), each also over WRatio's
        # cut-off (rapidfuzz skips what cannot reach the first)
        for name, _score, i in process.extract(folded, choices, scorer=fuzz.ratio, score_cutoff=WHOLE_CUTOFF, limit=5):
            if fuzz.WRatio(folded, name) >= FUZZY_CUTOFF:
                card = self.names()[i][1]
                return Match(card, store.card(self.db, card).name, "fuzzy", asked)
        ranked = process.extract(folded, choices, scorer=fuzz.WRatio, limit=5)
        near = []
        for _n, _score, i in ranked[:3]:
            name = store.card(self.db, self.names()[i][1]).name
            if name not in near:
                near.append(name)
        raise NotFound(f"no card {asked!r}" + (f" (nearest: {'; '.join(near)})" if near else ""))

    def _names_holding(self, folded: str) -> list[int]:
        """The cards whose names hold the words of ``folded`` in order, each whole, accents
        aside (``urborg tomb`` → Urborg, Tomb of Yawgmoth), shortest name first; none for
        words of fewer than :data:`PART_LEAST` letters."""
        words = _name_words(store.loose(_plain(folded)))
        if sum(len(w) for w in words) < PART_LEAST:
            return []
        if self._words is None:  # each name's words, accents aside, made once
            self._words = [(frozenset(ws), ws, c, len(n)) for n, c in self.names() for ws in [_name_words(_plain(n))]]
        need = set(words)
        found: dict[int, int] = {}
        for have, seq, card, length in self._words:
            if need <= have:
                it = iter(seq)
                if all(w in it for w in words):  # each word found after the one before
                    found.setdefault(card, length)
        return sorted(found, key=lambda c: (found[c], c))

    def _exact(self, folded: str) -> list[int]:
        """The ids of the cards answering to a folded name (:func:`store.by_folded`): from
        the names in memory once they are loaded (a search names cards in every query it
        is asked), else one indexed query (a command asking one name)."""
        if self._names is None:
            return store.by_folded(self.db, folded)
        if self._folded is None:
            made: dict[str, list[int]] = {}
            for name, card in self._names:
                made.setdefault(name, []).append(card)
            for ids in made.values():
                ids.sort()
            self._folded = made
        return self._folded.get(folded, [])

    def _plain_names(self) -> dict[str, list[int]]:
        """Each name without its accents and ligatures (and without its punctuation) → cards."""
        if self._plain is None:
            plain: dict[str, list[int]] = {}
            for name, card in self.names():
                for form in dict.fromkeys((_plain(name), store.loose(_plain(name)))):
                    if form != name and card not in plain.setdefault(form, []):
                        plain[form].append(card)
            self._plain = plain
        return self._plain

    def nearest(self, asked: str, limit: int = 10) -> list[dict]:
        """The cards whose names are nearest to ``asked``: the card it names first (exact,
        plural, face), then those whose names hold its words whole ("notion": Notion Thief
        and Horde of Notions before Slow Motion), each group by rapidfuzz's WRatio (0–100)
        and the shortest name first, none of these for fewer than :data:`PART_LEAST`
        letters; ``[{"name", "type_line", "match", "score"}]``."""
        out: list[dict] = []
        seen: set[int] = set()
        try:
            first = self.find(asked)
        except NotFound:
            first = None
        if first is not None and first.how != "fuzzy":
            card = store.card(self.db, first.card)
            out.append({"name": card.name, "type_line": card.type_line, "match": first.how, "score": 100.0})
            seen.add(first.card)
        if _few_letters(fold(asked)):  # "x": found inside too many names to rank
            return out
        from rapidfuzz import fuzz, process

        names = self.names()
        folded = fold(asked)
        words = folded.split()
        found = process.extract(folded, [n for n, _ in names], scorer=fuzz.WRatio, score_cutoff=60, limit=None)

        def order(item) -> tuple:  # the names holding the words whole first, then by score, the shortest first
            name, score, _i = item
            held = set(re.findall(r"\w+", name))
            whole = all(w in held or f"{w}s" in held for w in words)
            return (not whole, -round(score, 1), len(name), name)

        for _n, score, i in sorted(found, key=order):
            card_id = names[i][1]
            if card_id in seen or len(out) >= limit:
                continue
            seen.add(card_id)
            card = store.card(self.db, card_id)
            out.append(
                {"name": card.name, "type_line": card.type_line, "match": "fuzzy", "score": round(float(score), 1)}
            )
        return out

    # --- names in a query -------------------------------------------------------------

    def _by_first(self) -> dict[str, list[tuple[tuple[str, ...], int]]]:
        if self._first is None:
            first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
            for folded, card in self.names():
                words = tuple(_WORDS.findall(folded))
                if words:
                    first.setdefault(words[0], []).append((words, card))
            for v in first.values():
                v.sort(key=lambda item: -len(item[0]))
            self._first = first
        return self._first

    def rule_word(self, card: int) -> int:
        """0: the card's name is no word of the rules; 1: it is one ("Clone"); 2: it is one
        the rules capitalise (a keyword, a type, a subtype: "Flash", "Mountain")."""
        if self._rule_words is None:
            self._rule_words = store.rule_words(self.db)
        return self._rule_words.get(card, 0)


_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def _name_words(text: str) -> tuple[str, ...]:
    """The words of a folded name, a possessive as its noun ("urza's" → "urza": Urza's
    Saga holds the word Urza, as Glasses of Urza does)."""
    return tuple(w[:-2] if w.endswith("'s") else w for w in _WORDS.findall(text))


_TOKEN = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+(?:['’][A-Za-z]+)?")
#: A name asked for with ``card:`` (``card:clone``, ``card:"time walk"``, or in the curly
#: quotes of a phone's keyboard: ``card:“time walk”``).
ASKED = re.compile(r"\bcard:(?:[\"“]([^\"“”]+)[\"”]|([^\s\"“”]+))", re.I)


@dataclass(frozen=True)
class Found:
    """A card named in a query: the card, the characters of the query that name it, and
    whether it was asked with ``card:``."""

    card: int
    name: str
    start: int
    end: int
    asked: bool = False


def names_in(index: CardIndex, text: str) -> list[Found]:
    """The cards a query names, in the order they appear (each once). Raises
    :class:`UsageError` when a name asked with ``card:`` is no card's (a trial:
    ``card:xyzzy`` was dropped without a word and its query searched as rule words)."""
    out: list[Found] = []
    taken: list[tuple[int, int]] = []
    for m in ASKED.finditer(text):
        asked = m.group(1) or m.group(2)
        try:
            match = index.find(asked)
        except NotFound as err:
            raise UsageError(f"{m.group(0)}: {err}") from None
        out.append(Found(match.card, match.name, m.start(), m.end(), True))
        taken.append((m.start(), m.end()))
    tokens = [t for t in _TOKEN.finditer(text) if not any(a <= t.start() < b for a, b in taken)]
    folded = [fold(t.group(0)).replace("’", "'") for t in tokens]
    by_first = index._by_first()
    i = 0
    while i < len(tokens):
        best: tuple[int, int, str] | None = None  # (words used, card, how)
        head = folded[i]
        options = by_first.get(head, []) + (by_first.get(head[:-2], []) if head.endswith("'s") else [])
        for words, card in options:
            n = len(words)
            if i + n > len(tokens):
                continue
            got = folded[i : i + n]
            last = re.sub(r"(?:'s|s')$", "", got[-1]) if got else ""
            if list(words[:-1]) == got[:-1] and (
                words[-1] == got[-1] or words[-1] == last or words[-1] in singular(last)
            ):
                best = (n, card, "")
                break
        if best is not None:
            n, card, _ = best
            span = tokens[i : i + n]
            if _written_as_name(text, span, n, index.rule_word(card)) and not _inside_longer_name(text, tokens, i, n):
                start, end = span[0].start(), span[-1].end()
                if all(f.card != card for f in out):
                    out.append(Found(card, store.card(index.db, card).name, start, end))
                i += n
                continue
        i += 1
    if not out:  # a query that is nothing but a card's name, in any case ("notion thief")
        whole = text.strip().strip("?!. ")
        named: Match | None = None
        try:
            # exact, plural or face only: a fuzzy look-up over every name costs 25 ms a query
            named = index.find(whole, fuzzy=False) if len(whole.split()) >= 2 else None
        except NotFound:
            named = None
        if named is not None and index.rule_word(named.card) < 2:
            start = text.index(whole)
            out.append(Found(named.card, named.name, start, start + len(whole)))
    return sorted(out, key=lambda f: f.start)


def _inside_longer_name(text: str, tokens: list[re.Match[str]], i: int, n: int) -> bool:
    """Whether tokens ``i`` to ``i + n`` are the end or the middle of a longer name written
    as one: the word before them capitalised inside a sentence and joined to them by a
    space or a hyphen ("Titanic Brawl", a card the file lacks, is not the card Brawl), or
    the word after them joined by a hyphen ("Prosper, Tome-Bound" is not Bound)."""
    start, end = tokens[i].start(), tokens[i + n - 1].end()
    if i > 0:
        before = tokens[i - 1]
        gap = text[before.end() : start]
        word = before.group(0)
        if (
            gap in (" ", "-")
            and word[:1].isupper()
            and word.lower() not in SMALL_WORDS
            and len(word) > 1
            and not _sentence_start(text, before.start())
        ):
            return True
    if i + n < len(tokens):
        after = tokens[i + n]
        if text[end : after.start()] == "-" and after.group(0)[:1].isupper():
            return True
    return False


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip()
    return not before or before[-1] in '.!?:;"(“'


def _written_as_name(text: str, span: list[re.Match[str]], n: int, rule_word: int) -> bool:
    """Whether the tokens of ``span`` are written as a card's name: each significant word
    capitalised (not in capitals only, as "ETB" or "X"); a single word at a sentence's
    start or a rules word only inside a sentence; a word the rules capitalise themselves
    (a keyword, a subtype: "Flash", "Mountain") never (only with ``card:``)."""
    if rule_word >= 2:
        return False
    words = [t.group(0) for t in span]
    significant = [w for w in words if w.lower() not in SMALL_WORDS] or words
    if not all(w[:1].isupper() for w in significant):
        return False
    if all(w.isupper() and len(w) > 1 for w in significant):
        return False
    if (n == 1 or rule_word) and _sentence_start(text, span[0].start()):
        return False
    return True


@functools.lru_cache(maxsize=8)
def _open_cached(path: str, mtime: int) -> CardIndex:
    return CardIndex.open(Path(path))


@functools.lru_cache(maxsize=8)
def _real_path(path: str) -> str:
    return str(Path(path).resolve())


def open_index(path: Path) -> CardIndex:
    """The :class:`CardIndex` of a card database, kept per process while the file is the
    same (a server asks again). Raises :class:`FileNotFoundError` when it is not there."""
    st = os.stat(path)
    return _open_cached(_real_path(str(path)), st.st_mtime_ns)
