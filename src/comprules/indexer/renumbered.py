"""Numbers of other editions: the rule a number names now, or named then (issue 22).

The number a judge remembers may be another edition's: Morph was 502.26a until the
2009 renumbering and is 702.37a since. Typed into a search of an edition that does not
print it, the number
answers first with the rule of that edition in the same lineage (:mod:`.lineage`: the
versions of one rule, linked by the alignments of consecutive editions), labelled with
the number typed and the editions that printed it, "was" (they are older) or "later"
(they are newer than the edition searched).

One function gives the answer to both engines: :func:`renumbered` for a query of
:mod:`.searching`, and :func:`every_renumbering`, which calls it for every number of a
language, for the site's search data (:mod:`.export`): the JavaScript ranker reads the
answer, it does not compute one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .searching import _OpenIndex


@dataclass(frozen=True, slots=True)
class Renumbered:
    """How a hit relates to the number typed: ``number`` as ``editions`` printed it
    (names, oldest first); ``later``: those editions are newer than the hit's."""

    number: str
    editions: tuple[str, ...]
    later: bool

    def as_json(self) -> dict:
        """``{"number": "502.26a", "editions": ["en/2002-10-07", …], "later": false}``."""
        return {"number": self.number, "editions": list(self.editions), "later": self.later}

    def label(self) -> str:
        """ "was 502.26a (en/2002-10-07 … en/2009-05-01)", "later 702.19b (en/2009-07-11 …)"."""
        span = self.editions[0] if len(self.editions) == 1 else f"{self.editions[0]} … {self.editions[-1]}"
        return f"{'later' if self.later else 'was'} {self.number} ({span})"


def renumbered(handle: "_OpenIndex", number: str, mask: np.ndarray | None) -> dict[int, Renumbered]:
    """The documents of ``mask`` (the query's scope and filters; ``None``: every edition,
    where nothing is renumbered) that are versions of a rule numbered ``number`` in
    other editions, for each language in which ``mask`` holds no document numbered
    ``number`` → how. Empty when the number is printed in the scope, is nowhere, or its
    lineage has no version in the scope (the rule was removed, or not made yet). A
    number of a split or merged rule has no lineage to follow (:mod:`.lineage`).
    """
    if mask is None or "~" in number or "¶" in number:
        return {}
    table = handle.table
    docs = [d for d in table.by_number.get(number, ()) if table.members[d]]
    printed = {table.lang[d] for d in docs if mask[d]}
    groups: dict[int, list[int]] = {}
    for d in docs:
        if table.lang[d] not in printed:
            groups.setdefault(table.lineage[d], []).append(d)
    out: dict[int, Renumbered] = {}
    versions = _by_lineage(handle)
    for key, olds in groups.items():
        for new in versions.get(key, ()):
            if mask[new] and table.number[new] != number:
                out[new] = _how(handle, number, olds, new)
    return out


def every_renumbering(handle: "_OpenIndex", lang: str, mask: np.ndarray) -> dict[str, dict[int, Renumbered]]:
    """:func:`renumbered` of every number that a document of ``lang`` outside ``mask``
    prints, where it answers: number → document → how (the site's search data)."""
    table = handle.table
    inside = {table.number[d] for d in np.flatnonzero(mask) if table.lang[d] == lang}
    numbers = {
        table.number[d]
        for d in range(len(table))
        if table.lang[d] == lang and table.members[d] and not mask[d] and table.number[d] not in inside
    }
    out = {}
    for number in sorted(numbers):
        found = renumbered(handle, number, mask)
        if found:
            out[number] = found
    return out


def _how(handle: "_OpenIndex", number: str, olds: list[int], new: int) -> Renumbered:
    table, effective = handle.table, handle.effective
    printed = sorted({e for d in olds for e in table.members[d]}, key=lambda e: (effective[e] or "9", e))
    newest_here = max((effective[e] for e in table.members[new]), default="")
    later = bool(effective[printed[0]]) and effective[printed[0]] > newest_here
    return Renumbered(number, tuple(table.editions[e] for e in printed), later)


def _by_lineage(handle: "_OpenIndex") -> dict[int, list[int]]:
    """Lineage key → its live documents (built once per open index)."""
    cached = handle.__dict__.get("_by_lineage")
    if cached is None:
        cached = {}
        table = handle.table
        for d, key in enumerate(table.lineage):
            if table.members[d]:
                cached.setdefault(key, []).append(d)
        handle.__dict__["_by_lineage"] = cached
    return cached
