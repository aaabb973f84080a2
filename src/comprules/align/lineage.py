"""Lineage keys: which rule of one edition is which rule of another, along a chain.

The alignments of consecutive editions (:mod:`.alignment`) are chained into *lineage
keys*: every rule of every edition of a chain gets the id it has in the chain's
latest edition (``702.37a`` for Morph's first subrule in every edition from
2002-10-07, where it was ``502.26a``), or, for a rule that did not survive,
``{id}@{date}`` of the last edition that printed it. Two rules of two editions are the
same rule when they share a key: :meth:`Lineage.join` aligns any two editions of a
chain that way (``comprules diff`` of editions that are not consecutive, the site's
"any two editions" page, which joins the same keys in the browser). The edition
switcher, the history pages and the "now" lines of old editions read it too.

Without an alignment for a pair, same-number matching stands in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Edition

#: Kinds of lineage steps shown on a history page (``kept`` steps are not shown).
SHOWN = ("added", "first", "edited", "renumbered", "split", "merged")


@dataclass(frozen=True)
class Step:
    """One edition of a rule's lineage where something happened to it."""

    edition: str
    number: str
    kind: str
    previous: str | None = None
    previous_edition: str | None = None
    similarity: float = 1.0
    changes: tuple = ()
    words: str | None = None

    @property
    def facet(self) -> str:
        """``moved + edited``, ``typography``, ``added``… (``RuleChange.facet``)."""
        if self.kind in ("added", "first"):
            return self.kind
        from .changes import RuleChange

        return RuleChange(self.previous, self.number, self.kind, self.similarity, self.changes, self.words).facet


#: A language's fragments are a chain aligned pairwise up to this many; more (a folder of
#: hundreds of notes) stand each alone: nothing of one note is another's (issue 23: 1,000
#: one-line files made 499,500 alignments, and 999 bulletins that compare two notes).
MANY_FRAGMENTS = 32


def chains(editions: Iterable[Edition]) -> list[list[Edition]]:
    """The chains of editions aligned pairwise: dated editions of a language by date,
    then the fragments of a language in name order (``comprules.align.history.chain_names``),
    when they are at most :data:`MANY_FRAGMENTS`."""
    by: dict[tuple[str, bool], list[Edition]] = {}
    for e in editions:
        fragment = e.kind == "fragment" or e.effective is None
        by.setdefault((e.lang, fragment), []).append(e)
    out = []
    for (_lang, fragment), eds in sorted(by.items(), key=lambda kv: (kv[0][0] != "en", kv[0])):
        eds.sort(key=(lambda e: e.name) if fragment else (lambda e: (e.effective, e.name)))
        if len(eds) > 1 and not (fragment and len(eds) > MANY_FRAGMENTS):
            out.append(eds)
    return out


def pairs(editions: Iterable[Edition]) -> list[tuple[Edition, Edition]]:
    """Every pair of consecutive editions of every chain, oldest first."""
    return [(c[k - 1], c[k]) for c in chains(editions) for k in range(1, len(c))]


@dataclass
class Lineage:
    """Lineage keys of every rule of every edition, and the rows that link them.

    ``key[edition][rule id]`` is the rule's key; ``at[edition][key]`` the rule id a key
    has in an edition (absent: the rule is not in it); ``row[(new edition, new id)]``
    the alignment row that brought the rule into ``new edition`` (from the previous
    edition of its chain), for history pages and diffs.
    """

    key: dict[str, dict[str, str]] = field(default_factory=dict)
    at: dict[str, dict[str, str]] = field(default_factory=dict)
    previous: dict[str, str] = field(default_factory=dict)
    latest: dict[str, str] = field(default_factory=dict)
    rows: dict[tuple[str, str], Any] = field(default_factory=dict)
    #: The names of each edition's chain, oldest first (:meth:`_chain_of`), made once.
    _chain_names: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _chain_at: dict[str, list[tuple[str, dict[str, str]]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def build(cls, editions: Sequence[Edition], alignments: Mapping[tuple[str, str], Any]) -> "Lineage":
        """Walk every chain from its latest edition back, through the alignments."""
        lin = cls()
        for chain in chains(editions):
            lin._chain(chain, alignments)
        for e in editions:  # editions alone in their chain: every rule is its own key
            if e.name not in lin.key:
                ids = {r.id: r.id for r in e.rules}
                lin.key[e.name] = ids
                lin.at[e.name] = dict(ids)
        return lin

    def _chain(self, chain: list[Edition], alignments: Mapping[tuple[str, str], Any]) -> None:
        names = [e.name for e in chain]
        for k in range(1, len(chain)):
            self.previous[names[k]] = names[k - 1]
        for name in names:
            self.key[name] = {}
            self.at[name] = {}
        self.latest[chain[0].lang + ("/fragments" if chain[0].effective is None else "")] = names[-1]
        back = [
            self._backward(chain[k - 1], chain[k], alignments.get((names[k - 1], names[k])))
            for k in range(1, len(chain))
        ]
        for k in range(len(chain) - 1, -1, -1):
            edition = chain[k]
            keys = self.key[edition.name]
            last = k == len(chain) - 1
            for r in edition.rules:
                if r.id in keys:
                    continue
                key = r.id if last else f"{r.id}@{edition.name.partition('/')[2]}"
                # walk back from here while the rule has a predecessor
                j, current = k, r.id
                while True:
                    self.key[names[j]].setdefault(current, key)
                    self.at[names[j]].setdefault(key, current)
                    if j == 0:
                        break
                    row = back[j - 1].get(current)
                    if row is None:
                        break
                    self.rows[(names[j], current)] = row
                    j, current = j - 1, row.old

    @staticmethod
    def _backward(old: Edition, new: Edition, alignment: Any) -> dict[str, Any]:
        """New rule id → the best row bringing it from ``old`` (none: added)."""
        out: dict[str, Any] = {}
        if alignment is None:  # same numbers stand in for the missing alignment
            from types import SimpleNamespace

            olds = old.by_id
            for r in new.rules:
                if r.id in olds:
                    kept = olds[r.id].text == r.text
                    out[r.id] = SimpleNamespace(
                        old=r.id,
                        new=r.id,
                        kind="kept" if kept else "edited",
                        similarity=1.0 if kept else 0.0,
                        changes=(),
                    )
            return out
        for row in alignment.rules:
            if row.old is None or row.new is None:
                continue
            best = out.get(row.new)
            if best is None or row.similarity > best.similarity:
                out[row.new] = row
        from types import SimpleNamespace

        for sec in getattr(alignment, "sections", ()):
            if sec.old is not None and sec.new is not None and sec.new not in out:
                out[sec.new] = SimpleNamespace(old=sec.old, new=sec.new, kind=sec.kind, similarity=1.0, changes=())
        olds = old.by_id
        for r in new.rules:  # chapters are not aligned: same number
            if r.kind == "chapter" and r.id not in out and r.id in olds:
                out[r.id] = SimpleNamespace(old=r.id, new=r.id, kind="kept", similarity=1.0, changes=())
        return out

    def join(self, old: str, new: str) -> list[tuple[str, str]]:
        """The pairs ``(old id, new id)`` of units that share a lineage key in editions
        ``old`` and ``new`` (any two editions of one chain), in ``new``'s key order. A
        unit may be in two pairs (a merge or a split along the way)."""
        at_old, at_new = self.at.get(old, {}), self.at.get(new, {})
        return [(at_old[k], rid) for k, rid in at_new.items() if k in at_old]

    def rewritten(self) -> dict[str, list[str]]:
        """Lineage key → the editions where the rule was rewritten in place (the row that
        brought it there has the ``rewritten`` facet), oldest first."""
        if getattr(self, "_rewritten", None) is None:
            out: dict[str, list[str]] = {}
            for (name, rid), row in self.rows.items():
                if getattr(row, "words", None) == "rewritten":
                    out.setdefault(self.key[name][rid], []).append(name)
            for names in out.values():
                names.sort()
            self._rewritten = out
        return self._rewritten

    def lineage(self, edition: str, rule_id: str) -> list[tuple[str, str]]:
        """``[(edition, id)]`` of the rule across its chain, oldest first."""
        key = self.key.get(edition, {}).get(rule_id)
        if key is None:
            return []
        found = self._chain_at.get(edition)
        if found is None:  # each edition of the chain with its keys' ids
            found = self._chain_at[edition] = [(name, self.at.get(name, {})) for name in self._chain_of(edition)]
        return [(name, rid) for name, at in found if (rid := at.get(key)) is not None]

    def _chain_of(self, edition: str) -> list[str]:
        """The names of ``edition``'s chain, oldest first (once an edition: a site's
        history pages ask for 3,300 rules' lineages of one edition)."""
        names = self._chain_names.get(edition)
        if names is None:
            names = [edition]
            while names[-1] in self.previous:
                names.append(self.previous[names[-1]])
            names.reverse()
            nxt = {p: n for n, p in self.previous.items()}
            name = edition
            while name in nxt:
                name = nxt[name]
                names.append(name)
            self._chain_names[edition] = names
        return names

    def steps(self, edition: str, rule_id: str) -> list[Step]:
        """The editions of a rule's lineage where it appeared or changed, oldest first."""
        out: list[Step] = []
        for name, rid in self.lineage(edition, rule_id):
            row = self.rows.get((name, rid))
            if row is None:
                kind = "added" if name in self.previous else "first"
                out.append(Step(name, rid, kind))
            elif row.kind != "kept":
                out.append(
                    Step(
                        name,
                        rid,
                        row.kind,
                        row.old,
                        self.previous.get(name),
                        row.similarity,
                        tuple(row.changes),
                        getattr(row, "words", None),
                    )
                )
        return out

    def switch_table(self, edition: str) -> dict[str, Any]:
        """What the edition switcher needs to land on a key in ``edition``:
        ``s``, the ids whose key is themselves (space-separated); ``m``, key → id for
        the others."""
        at = self.at.get(edition, {})
        same = [rid for k, rid in at.items() if k == rid]
        moved = {k: rid for k, rid in at.items() if k != rid}
        return {"s": " ".join(same), "m": moved}
