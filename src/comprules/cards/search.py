"""What a search question's cards say: the cards it names, and the rules they call on as a
prior for ranking the answer (:func:`comprules.indexer.search`'s ``prior``).

A rule's prior is the largest weight of the concepts that call on it in the cards named:
a wording or a keyword weighs 1, an action or a subtype with rules 0.6, a card type or a
glossary term 0.3 (:data:`comprules.cards.concepts.KIND_WEIGHT`), times the wording's
own weight (``card_wordings.toml``), times how rare the concept is among the cards
(:data:`IDF_FLOOR`); a rule two of the cards call on weighs :data:`INTERACTION` times
more (an interaction); the weights are scaled so that the largest is 1. The ranking's
parameters (``indexer/searching.py``: ``PRIOR_*``, ``CONTEXT_WEIGHT``) and these were set
on the card-naming questions of ``tests/questions.toml`` only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import store
from .lookup import ASKED, names_in, open_index
from .view import index_of

#: A concept's weight in a prior is scaled by IDF_FLOOR + (1 - IDF_FLOOR) × its idf among the
#: cards (log(N / cards calling on it) / log N): "can't lose the game" says more than "when".
IDF_FLOOR = 0.3
#: A rule called on by two or more of the cards named gets its weight × INTERACTION.
INTERACTION = 1.5


@dataclass(frozen=True)
class Asked:
    """The cards a question names (JSON rows), the prior of their rules, and the spans of
    the question that name them."""

    cards: list[dict] = field(default_factory=list)
    prior: dict[str, float] = field(default_factory=dict)
    drop: list[tuple[int, int]] = field(default_factory=list)
    #: The cards' Oracle text, their names masked: what the question is about.
    context: str = ""
    #: The question as searched: a card whose name the rules print stands there as its
    #: name ("card:Timewalk" is searched as Time Walk); ``drop`` is of it.
    query: str = ""


def about(data: Path, query: str, edition: str | None) -> Asked:
    """The cards ``query`` names and their rules in ``edition`` (default: the latest English
    edition of the card data); an empty :class:`Asked` when the knowledge base has no
    card data or the question names no card. Raises :class:`UsageError` for a name asked
    with ``card:`` that is no card's, or asked of a knowledge base without card data."""
    try:
        index = open_index(Path(data) / store.DB_NAME)  # one stat a search: the file kept open
    except FileNotFoundError:
        if ASKED.search(query):
            index_of(Path(data))  # raises: no card data, and how to build it
        return Asked()
    found = names_in(index, query)
    if not found:
        return Asked()
    editions = store.editions(index.db)
    if edition not in editions:
        english = [e for e in editions if e.startswith("en/")]
        if not english:
            return Asked()
        edition = english[-1]
    import math

    weights = {c: w for c, (_k, _l, w) in store.concepts(index.db).items()}
    df, total = store.concept_cards(index.db)
    prior: dict[str, float] = {}
    callers: dict[str, set[int]] = {}
    rows = []
    for f in found:
        rules = store.card_rules(index.db, f.card, edition)
        listed: dict[str, str] = {}
        for r in rules:
            idf = math.log((total + 1) / (df.get(r.concept, 0) + 1)) / math.log(total + 1)
            w = weights.get(r.concept, 0.3)
            w *= IDF_FLOOR + (1 - IDF_FLOOR) * idf
            prior[r.rule] = max(prior.get(r.rule, 0.0), w)
            callers.setdefault(r.rule, set()).add(f.card)
            if not r.concept.startswith("glossary:"):
                listed.setdefault(r.rule, r.label)
        card = store.card(index.db, f.card)
        rows.append(
            {
                "name": card.name,
                "type_line": card.type_line,
                "edition": edition,
                "start": f.start,
                "end": f.end,
                "rules": [{"number": n, "label": label} for n, label in listed.items()],
            }
        )
    for rule, who in callers.items():
        if len(who) > 1:
            prior[rule] = min(1.0, prior[rule] * INTERACTION)
    top = max(prior.values(), default=1.0) or 1.0
    prior = {r: w / top for r, w in prior.items()}
    from .analyse import mask, name_forms

    texts = []
    for f in found:
        card = store.card(index.db, f.card)
        names = name_forms(card)
        texts += [mask(face.oracle_text, names).replace("~", " ") for face in card.faces]
    context = " ".join(re.sub(r"[^\w\s'/+-]+", " ", " ".join(texts)).split())
    printed = store.in_rules(index.db)  # a name the rules print is searched for too ("Wall of Omens")
    searched, drop, end = [], [], 0
    for f in sorted(found, key=lambda f: f.start):
        searched.append(query[end : f.start])
        at = sum(map(len, searched))
        name = store.card(index.db, f.card).name
        if f.card in printed and (f.asked or query[f.start : f.end].casefold() != name.casefold()):
            searched.append(name.replace('"', ""))  # as the card is named, not as typed ("card:Timewalk")
        else:
            searched.append(query[f.start : f.end])
            if f.card not in printed:
                drop.append((at, at + f.end - f.start))
        end = f.end
    searched.append(query[end:])
    return Asked(rows, prior, drop, context, "".join(searched))
