"""Which spans of a card call on which concepts (:mod:`comprules.cards.concepts`).

The card's own name (its full name, each face's name, and the short name of a legendary
card, "Urborg" of "Urborg, Tomb of Yawgmoth") is masked with ``~`` first, so that a card
named like a keyword ("Flash") does not call on it by naming itself. Each detector is
tried only on the cards holding one of its words (an index by the first word of each
label and its inflections), so that 18,000 cards and some 2,000 concepts take seconds.

A span found by a glossary term inside a span of a more specific concept (a wording, a
keyword, an action) is left out: "instead" is the wording's, not the glossary entry's too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .concepts import Detector
from .model import Call, Card

_WORD = re.compile(r"[a-z0-9']+")
_SPECIFIC = {"wording", "keyword", "action"}


def name_forms(card: Card) -> list[str]:
    """The names a card's text calls itself by, longest first."""
    names = {card.name, *(f.name for f in card.faces)}
    for n in list(names):
        if ", " in n:
            names.add(n.split(", ", 1)[0])
    return sorted((n for n in names if n), key=len, reverse=True)


def mask(text: str, names: Iterable[str]) -> str:
    """``text`` with each whole-word occurrence of a name (any case) replaced by as many
    ``~``; offsets are kept."""
    low = text.lower()
    chars = list(text)
    for n in names:
        key = n.lower()
        i = low.find(key)
        while i >= 0 and key:
            end = i + len(key)
            if (i == 0 or not low[i - 1].isalnum()) and (end == len(low) or not low[end].isalnum()):
                chars[i:end] = "~" * len(key)
            i = low.find(key, end)
    return "".join(chars)


class Analyser:
    """Finds the calls of cards with a fixed list of detectors (built once per build)."""

    def __init__(self, detectors: Sequence[Detector]):
        #: per place ("text", "type"): detectors tried over the whole text (with the
        #: substrings one of which it must hold), by the word they start with, and (wordings)
        #: by the first three letters of the word they start with
        self.always: dict[str, list[tuple[tuple[str, ...] | None, Detector]]] = {"text": [], "type": []}
        self.by_word: dict[str, dict[str, list[Detector]]] = {"text": {}, "type": {}}
        self.by_prefix: dict[str, dict[str, list[tuple[tuple[str, ...], Detector]]]] = {"text": {}, "type": {}}
        for d in detectors:
            for place in d.places:
                if (
                    d.kind == "wording"
                    and d.needles
                    and all(len(n) >= 3 and n.isalpha() for n in d.needles)
                    and _leads(d)
                ):
                    for n in set(d.needles):
                        self.by_prefix[place].setdefault(n[:3], []).append((d.needles, d))
                elif d.anchors is None or d.at is None:
                    self.always[place].append((d.needles, d))
                else:
                    for a in d.anchors:
                        self.by_word[place].setdefault(a, []).append(d)

    def calls(self, card: Card) -> list[Call]:
        """Every span of ``card`` (Oracle text and type line of each face) and its concept,
        in face, place and offset order."""
        names = name_forms(card)
        out: set[tuple[int, str, int, int, str]] = set()
        for i, face in enumerate(card.faces):
            for where, raw in (("type", face.type_line), ("text", face.oracle_text)):
                if not raw:
                    continue
                text = mask(raw, names) if where == "text" else raw
                low = text.lower().replace("’", "'")
                starts: dict[str, list[int]] = {}
                for m in _WORD.finditer(low):
                    if m.start() == 0 or low[m.start() - 1] not in "/+-":
                        starts.setdefault(m.group(0), []).append(m.start())
                found: list[tuple[int, int, Detector]] = []
                for needles, d in self.always[where]:
                    if needles is None or any(n in low for n in needles):
                        found += [(m.start(), m.end(), d) for m in d.pattern.finditer(text) if m.end() > m.start()]
                by_prefix, by_word = self.by_prefix[where], self.by_word[where]
                for w, positions in starts.items():
                    for needles, d in by_prefix.get(w[:3], ()):
                        if any(w.startswith(n) for n in needles):
                            for pos in positions:
                                hit = d.pattern.match(text, pos)
                                if hit is not None and hit.end() > hit.start():
                                    found.append((hit.start(), hit.end(), d))
                    for d in by_word.get(w, ()):
                        at = d.at
                        for pos in positions:
                            hit = at.match(text, pos)  # type: ignore[union-attr]
                            if hit is not None and hit.end() > hit.start():
                                found.append((hit.start(), hit.end(), d))
                if where == "text":  # a subtype in rules text is capitalised ("Aura", "Mountain")
                    found = [f for f in found if f[2].kind != "subtype" or raw[f[0]].isupper()]
                out.update((i, where, s, e, d.concept) for s, e, d in _prune(found))
        ordered = sorted(out, key=lambda c: (c[0], c[1] != "type", c[2], c[3], c[4]))
        return [Call(*c) for c in ordered]


def _leads(d: Detector) -> bool:
    """Whether each needle of ``d`` is where its pattern starts (then it is tried at the
    words starting with it, not over the whole text)."""
    return all(
        re.match(r"(?:\\b)?" + re.escape(n), p) for n, p in zip(d.needles or (), d.pattern.pattern.split("|(?:"))
    )


def _prune(found: list[tuple[int, int, Detector]]) -> list[tuple[int, int, Detector]]:
    """Glossary spans inside a more specific span go."""
    specific = [(s, e) for s, e, d in found if d.kind in _SPECIFIC]
    out = []
    for s, e, d in found:
        if d.kind == "glossary" and any(a <= s and e <= b for a, b in specific):
            continue
        out.append((s, e, d))
    return out
