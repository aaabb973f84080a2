"""The cards stage's values: a card and its faces as the card files give them, and what
rules a span of its Oracle text calls on.

Frozen dataclasses, like the rest of the pipeline's values (:mod:`comprules.model`).
Offsets are in characters of one face's Oracle text (``str`` indices, ``end``
exclusive), so that ``face.oracle_text[start:end]`` is the span.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Face:
    """One face of a card (a card with one face has one): its printed characteristics."""

    name: str
    mana_cost: str = ""
    type_line: str = ""
    oracle_text: str = ""
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None


@dataclass(frozen=True)
class Card:
    """A card: its full name (``Fire // Ice`` for a card of two faces), its layout as the
    file names it (``normal``, ``split``, ``transform``…; ``""`` when it gives none) and its
    faces, in printed order."""

    name: str
    faces: tuple[Face, ...]
    layout: str = ""

    @property
    def type_line(self) -> str:
        """The type lines of the faces, ``" // "`` between them."""
        return " // ".join(f.type_line for f in self.faces if f.type_line)


@dataclass(frozen=True)
class Call:
    """A span of a card's text (or type line) that calls on a concept of the rules.

    ``face``: the face's index; ``where``: ``"text"`` (its Oracle text) or ``"type"`` (its
    type line); ``start``/``end``: character offsets in that string; ``concept``: the
    concept's key, the same in every edition (``keyword:flash``, ``wording:instead``,
    ``subtype:aura``; :mod:`comprules.cards.concepts`).
    """

    face: int
    where: str
    start: int
    end: int
    concept: str


@dataclass(frozen=True)
class CardRule:
    """A rule of one edition that a span of a card calls on (what ``comprules card``
    lists): the rule's id and its title or first words, the concept and the span."""

    rule: str
    concept: str
    label: str
    face: int
    where: str
    start: int
    end: int
    span: str
