"""Cards meet the rules (issue 25): card files in, what rules each card calls on, stored.

The stage between the graph and the index: :func:`build_cards` (the build's data stage
calls it when given ``--cards FILE``) reads Scryfall's or MTGJSON's card file streamed,
finds in each card's Oracle text and type line the spans that call on rules (keyword
abilities and actions, glossary terms, card types, supertypes, subtypes, and the
wordings of ``data/card_wordings.toml``), and stores them with, for every edition, the
rules each concept is. :mod:`.lookup` finds a card by name (fuzzy, plurals) and the cards
a search query names; :func:`card_view` is what ``comprules card`` and
``/api/v1/cards/{name}`` show.
"""

from __future__ import annotations

from .model import Call, Card, CardRule, Face

__all__ = ["Call", "Card", "CardReport", "CardRule", "Face", "build_cards", "read_cards"]


def __getattr__(name: str):
    """``build_cards``, ``CardReport``, ``read_cards``: imported when first asked for, so
    that ``comprules card`` loads neither the build's code nor ijson."""
    if name in ("build_cards", "CardReport"):
        from . import build

        return getattr(build, name)
    if name == "read_cards":
        from .read import read_cards

        return read_cards
    raise AttributeError(name)
