"""What an alignment says: the rows of two editions' rules and sections, and what changed.

The results of :func:`comprules.align.alignment.align`, as the knowledge base stores them
and every reader reads them (``comprules diff``, ``history``, the server, the site): light
dataclasses that import none of the matching machinery, so that reading a stored
alignment or walking a lineage costs no more than the rows themselves.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property

from ..model import Edition, sort_key

__all__ = ["RULE_KINDS", "SECTION_KINDS", "WORD_FACETS", "WordChange", "RuleChange", "SectionChange", "Alignment"]

#: What can happen to a rule between two editions (DESIGN.md, ``diff`` JSON).
RULE_KINDS = ("kept", "edited", "renumbered", "added", "removed", "split", "merged")
#: How a rule's printed words changed (:attr:`RuleChange.words`; ``None``: not at all).
WORD_FACETS = ("edited", "rewritten", "typography", "references")
#: What can happen to a section: the same kinds.
SECTION_KINDS = RULE_KINDS


@dataclass(frozen=True, slots=True)
class WordChange:
    """One word-level change of an edited rule.

    ``op`` is ``insert``, ``delete`` or ``replace``; ``old`` and ``new`` are the words
    as printed (``""`` for the missing side); ``at`` and ``new_at`` are the indexes of
    the first word concerned in the old and the new rule's word lists (:func:`tokens`;
    for a ``typography`` change, the printed marks counted as words too).
    """

    op: str
    old: str
    new: str
    at: int
    new_at: int = 0

    def to_json(self) -> dict:
        return {"op": self.op, "old": self.old, "new": self.new, "at": self.at, "new_at": self.new_at}

    @classmethod
    def from_json(cls, data: dict) -> "WordChange":
        return cls(data["op"], data["old"], data["new"], data.get("at", 0), data.get("new_at", 0))

    def mirror(self) -> "WordChange":
        """The same change seen from the new text: an insertion becomes a deletion."""
        op = {"insert": "delete", "delete": "insert"}.get(self.op, self.op)
        return WordChange(op, self.new, self.old, self.new_at, self.at)


@dataclass(frozen=True, slots=True)
class RuleChange:
    """What happened to one rule: ``old`` and ``new`` are rule ids (``None`` for an
    added or removed rule), ``kind`` one of :data:`RULE_KINDS`, ``similarity`` the
    word similarity in [0, 1] after normalisation (1.0: no word changed; renumbered
    references do not count), ``changes`` the word-level changes."""

    old: str | None
    new: str | None
    kind: str
    similarity: float = 1.0
    changes: tuple[WordChange, ...] = ()
    words: str | None = None

    def __post_init__(self) -> None:
        # four decimals, as stored (JSON, database): a row read back equals the row computed
        # (most rows are unchanged, 1.0: round() is a tenth of reading an alignment back)
        if self.similarity != 1.0:
            object.__setattr__(self, "similarity", round(self.similarity, 4))

    @property
    def moved(self) -> bool:
        """True when the rule's number changed (both sides present, other ids)."""
        return self.old is not None and self.new is not None and self.old != self.new

    @property
    def edited(self) -> bool:
        """True when the wording changed: ``words`` is ``edited`` or ``rewritten``."""
        return self.words in ("edited", "rewritten")

    @property
    def facet(self) -> str:
        """The change as a reader names it: ``added``, ``removed``, ``moved``, ``edited``,
        ``moved + edited``, ``rewritten``, ``typography``, ``moved + typography``,
        ``split``, ``merged``, ``unchanged``… (a moved rule whose cited numbers only
        followed the renumbering is ``moved``; such a rule in place is ``unchanged``)."""
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        words = self.words if self.words != "references" else None
        parts = [p for p in ("moved" if self.moved else None, words) if p]
        if self.kind in ("split", "merged"):
            return self.kind if not words else f"{self.kind} + {words}"
        return " + ".join(parts) or "unchanged"

    def to_json(self) -> dict:
        return {
            "old": self.old,
            "new": self.new,
            "kind": self.kind,
            "similarity": round(self.similarity, 4),
            "moved": self.moved,
            "words": self.words,
            "edited": self.edited,
            "changes": [c.to_json() for c in self.changes],
        }

    @classmethod
    def from_json(cls, data: dict) -> "RuleChange":
        changes = tuple(WordChange.from_json(c) for c in data.get("changes", ()))
        words = data.get("words")
        if "words" not in data and changes:  # stored before the facets: a change of words
            words = "edited"
        return cls(data["old"], data["new"], data["kind"], data.get("similarity", 1.0), changes, words)

    def mirror(self) -> "RuleChange":
        """The same row from the new edition's side (added ⇄ removed, split ⇄ merged)."""
        return RuleChange(
            self.new,
            self.old,
            _MIRROR_KIND.get(self.kind, self.kind),
            self.similarity,
            tuple(c.mirror() for c in self.changes),
            self.words,
        )


@dataclass(frozen=True, slots=True)
class SectionChange:
    """What happened to one section (``702``): numbers, titles, kind."""

    old: str | None
    new: str | None
    kind: str
    old_title: str | None = None
    new_title: str | None = None

    def to_json(self) -> dict:
        return {
            "old": self.old,
            "new": self.new,
            "kind": self.kind,
            "old_title": self.old_title,
            "new_title": self.new_title,
        }

    @classmethod
    def from_json(cls, data: dict) -> "SectionChange":
        return cls(data["old"], data["new"], data["kind"], data.get("old_title"), data.get("new_title"))

    def mirror(self) -> "SectionChange":
        return SectionChange(self.new, self.old, _MIRROR_KIND.get(self.kind, self.kind), self.new_title, self.old_title)


_MIRROR_KIND = {"added": "removed", "removed": "added", "split": "merged", "merged": "split"}


@dataclass(frozen=True)
class Alignment:
    """The alignment of two editions (``old`` and ``new`` are edition names).

    ``rules`` lists every rule (and passage) of both editions exactly once on its side,
    in the new edition's order, the removed rules after the rule that preceded them;
    ``sections`` likewise for sections.
    """

    old: str
    new: str
    rules: tuple[RuleChange, ...]
    sections: tuple[SectionChange, ...]
    stats: dict = field(default_factory=dict, compare=False)

    @cached_property
    def forward(self) -> dict[str, list[RuleChange]]:
        """Old rule id → its rows (one, or several for a split)."""
        out: dict[str, list[RuleChange]] = {}
        for c in self.rules:
            if c.old is not None:
                out.setdefault(c.old, []).append(c)
        return out

    @cached_property
    def backward(self) -> dict[str, list[RuleChange]]:
        """New rule id → its rows (one, or several for a merge)."""
        out: dict[str, list[RuleChange]] = {}
        for c in self.rules:
            if c.new is not None:
                out.setdefault(c.new, []).append(c)
        return out

    def counts(self) -> dict[str, int]:
        """How many rows of each kind (rules)."""
        return dict(Counter(c.kind for c in self.rules))

    def facet_counts(self) -> dict[str, int]:
        """How many rows of each :attr:`RuleChange.facet` (``moved + edited``: 5), the
        unchanged rows left out."""
        return dict(Counter(c.facet for c in self.rules if c.facet != "unchanged"))

    @cached_property
    def mapping(self) -> dict[str, str]:
        """Old number → new number: rules (a split rule: its first row), sections, and
        chapters (the number most of their sections went to)."""
        out: dict[str, str] = {}
        for c in self.rules:
            if c.old is not None and c.new is not None:
                out.setdefault(c.old, c.new)
        chapters: dict[str, Counter] = defaultdict(Counter)
        for sec in self.sections:
            if sec.old is not None and sec.new is not None:
                out.setdefault(sec.old, sec.new)
                chapters[sec.old[0]][sec.new[0]] += 1
        for co, went in chapters.items():
            best = _best(went, co)[0]
            if best is not None:
                out.setdefault(co, best)
        return out

    def mirror(
        self, old: Edition | dict[str, int] | None = None, new: Edition | dict[str, int] | None = None
    ) -> "Alignment":
        """The alignment seen from the other side: ``new`` → ``old``, every row mirrored
        (:meth:`RuleChange.mirror`), in the order of the edition that is now the new one.

        ``old`` and ``new`` are *this* alignment's editions, or their order of rules
        (rule id → position, :meth:`comprules.store.Store.order`); without them, rule
        numbers give the order (:func:`~comprules.model.sort_key`).
        """

        def positions(edition: Edition | dict[str, int] | None, ids) -> dict[str, int]:
            if isinstance(edition, dict):
                return edition
            if edition is not None:
                return {r.id: k for k, r in enumerate(edition.rules)}
            return {x: k for k, x in enumerate(sorted(set(ids), key=sort_key))}

        pos_old = positions(old, [c.old for c in self.rules if c.old] + [s.old for s in self.sections if s.old])
        pos_new = positions(new, [c.new for c in self.rules if c.new] + [s.new for s in self.sections if s.new])
        rules = _ordered([c.mirror() for c in self.rules], pos_new, pos_old)
        sections = _ordered([s.mirror() for s in self.sections], pos_new, pos_old)
        return Alignment(self.new, self.old, tuple(rules), tuple(sections), dict(self.stats, mirrored=1))

    def changed(self) -> list[RuleChange]:
        """The rows that are not ``kept``."""
        return [c for c in self.rules if c.kind != "kept"]

    def in_section(self, section: str) -> "Alignment":
        """Only the rules and sections of section (or chapter) ``section`` on either side
        (``702`` also selects what came from 502 in 2009)."""

        def inside(number: str | None) -> bool:
            return number is not None and (
                number == section
                or number.startswith(section)
                and (len(section) == 1 or number[len(section) : len(section) + 1] in (".", "¶", "~"))
            )

        rules = tuple(c for c in self.rules if inside(c.old) or inside(c.new))
        sections = tuple(s for s in self.sections if inside(s.old) or inside(s.new))
        return Alignment(self.old, self.new, rules, sections, self.stats)

    def to_json(self) -> dict:
        """The DESIGN.md ``diff`` shape: ``{"old", "new", "sections": [{"old", "new",
        "kind", …}], "rules": [{"old", "new", "kind", "similarity", "changes", …}]}``."""
        return {
            "old": self.old,
            "new": self.new,
            "sections": [s.to_json() for s in self.sections],
            "rules": [c.to_json() for c in self.rules],
        }

    @classmethod
    def from_json(cls, data: dict) -> "Alignment":
        """The inverse of :meth:`to_json` (a stored alignment of the knowledge base)."""
        return cls(
            data["old"],
            data["new"],
            tuple(RuleChange.from_json(r) for r in data["rules"]),
            tuple(SectionChange.from_json(s) for s in data["sections"]),
        )


def _ordered(rows: list, old_pos: dict[str, int], new_pos: dict[str, int]) -> list:
    """Rows in the new edition's order (several rows of one new rule by old order), each
    removed rule after the row of the nearest old rule before it that went somewhere."""
    anchor: dict[str, int] = {}
    for r in rows:
        if r.old is not None and r.new is not None:
            p = new_pos.get(r.new, -1)
            anchor[r.old] = min(anchor.get(r.old, p), p)
    after: dict[str, int] = {}
    last = -1
    for oid in sorted(old_pos, key=old_pos.__getitem__):
        if oid in anchor:
            last = anchor[oid]
        else:
            after[oid] = last

    def key(r) -> tuple[int, int, int]:
        if r.new is not None:
            return new_pos.get(r.new, -1), 0, old_pos.get(r.old, -1) if r.old is not None else -1
        return after.get(r.old, -1), 1, old_pos.get(r.old, -1)

    return sorted(rows, key=key)


def _best(counter: Counter, prefer: str) -> tuple[str | None, int]:
    """The most frequent key, ties going to ``prefer`` then to the smallest number."""
    if not counter:
        return None, 0
    top = max(counter.values())
    keys = sorted((k for k, v in counter.items() if v == top), key=lambda k: (k != prefer, sort_key(k)))
    return keys[0], top
