"""Lineages: which indexed documents are versions of one rule, for ``--all-editions``.

Two documents are versions of one rule when

* they have the same language, kind, number and title under the same ancestor
  titles (702.36a under "Fear" in 2014 and in 2026, words edited or not; 702.36a
  under "Morph" in 2012 is another rule), or
* they have the same words under the same ancestor titles with another number (a
  rule renumbered unchanged: Morph's 702.36a → 702.37a), or
* an alignment of two editions of one language (``data/alignments/``, written by
  the build, see :mod:`comprules.align.history`) says one rule or section became the other
  (kept, edited or renumbered; a split or merge joins nothing, and a French rule is
  never a version of its English original).

The first two hold where no alignment speaks: a rule, subrule or section of editions
that alignments pair is linked by the alignments alone (:func:`assign`). The groups are
the connected components of those links (union–find).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from .analysis import heading_key
from .documents import GLOSSARY
from .table import DocTable

#: Alignment rows that continue a lineage.
CONTINUES = frozenset({"kept", "edited", "renumbered"})
#: The kinds of documents an alignment pairs (its rules and sections).
ALIGNED_KINDS = frozenset({"rule", "subrule", "section"})
#: Shorter texts ("See rule 702.9.") are too common to say two rules are one.
MIN_SHARED_TEXT = 30
_ALIGNMENTS_INDEX = "index.json"


def fallback_keys(doc: dict) -> tuple[bytes, bytes | None]:
    """The two keys that link versions of a rule without an alignment (see module doc).

    Titles are compared by their folded words (“Player’s” = "Player's"); a glossary
    entry is one lineage per slug.
    """
    title, context = heading_key(doc["title"]), heading_key(doc["context"])
    if doc["kind"] == GLOSSARY:
        return _digest(doc["lang"], doc["kind"], doc["number"]), None
    same_number = _digest(doc["lang"], doc["kind"], doc["number"], title, context)
    same_text = None
    if doc["kind"] not in ("chapter", "section") and (len(doc["text"]) >= MIN_SHARED_TEXT or title):
        same_text = _digest(doc["lang"], doc["kind"], title, heading_key(doc["text"]), context)
    return same_number, same_text


def _digest(*parts: str) -> bytes:
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=12).digest()


def assign(
    table: DocTable,
    keys: list[tuple[bytes, bytes | None]],
    links: Iterable[tuple[int, int]] = (),
    aligned: frozenset[int] = frozenset(),
) -> int:
    """Set ``table.lineage`` for every document; the number of lineages among live documents.

    A rule, subrule or section held only by editions in ``aligned`` (editions of which an
    alignment is stored: :func:`aligned_editions`) is linked by ``links`` alone, not by its
    ``keys`` (a glossary entry, a chapter or a French note keeps them: no alignment links those):
    the same number under the same titles is not the same rule when the alignment says
    otherwise (702.19c was a blocked trampler's rule until 2021, then Trample over
    planeswalkers, and the old one became 702.19e: by number, every subrule of 702.19 was
    one lineage, "in 73 editions")."""
    parent = list(range(len(table)))

    def find(d: int) -> int:
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first: dict[bytes, int] = {}
    for d, (same_number, same_text) in enumerate(keys):
        if not table.members[d]:
            continue
        if table.kind[d] in ALIGNED_KINDS and aligned and aligned.issuperset(table.members[d]):
            continue
        for key in (same_number, same_text):
            if key is not None:
                union(d, first.setdefault(key, d))
    for a, b in links:
        if table.members[a] and table.members[b]:
            union(a, b)
    table.lineage = [find(d) for d in range(len(table))]
    table.__dict__.pop("lineage_editions", None)
    return len({table.lineage[d] for d in range(len(table)) if table.members[d]})


def aligned_editions(alignments_dir: Path | None, table: DocTable) -> frozenset[int]:
    """The editions of ``table`` (their ids) that a pair of ``alignments_dir`` aligns
    with another: their documents' lineages come from the alignments (:func:`assign`)."""
    ids = {name: i for i, name in enumerate(table.editions)}
    return frozenset(
        ids[name]
        for pair in _stored_pairs(alignments_dir)
        for name in (pair.get("old"), pair.get("new"))
        if name in ids
    )


def _stored_pairs(alignments_dir: Path | None) -> list[dict]:
    """The pairs ``alignments_dir``'s index lists (``{"old", "new", "path", …}``); none when
    the folder, its index or its list is absent or unreadable."""
    if alignments_dir is None:
        return []
    try:
        index = json.loads((Path(alignments_dir) / _ALIGNMENTS_INDEX).read_text(encoding="utf-8"))
        return [pair for pair in index.get("pairs", []) if isinstance(pair, dict)]
    except (OSError, ValueError, AttributeError, TypeError):
        return []


def alignment_links(
    alignments_dir: Path | None, table: DocTable, stored: Mapping[tuple[str, str], Any] | None = None
) -> Iterator[tuple[int, int]]:
    """Pairs of documents an alignment stored in ``alignments_dir`` links (kept, edited,
    renumbered), for the editions in ``table``; nothing when the folder is absent.
    ``stored`` holds those alignments in memory (``(old, new)`` →
    :class:`~comprules.align.changes.Alignment`, as the build's data stage wrote them):
    a pair found there is not read from its JSON (0.7 s for the 83 pairs of the English
    editions and the seeds)."""
    pairs = _stored_pairs(alignments_dir)
    if alignments_dir is None or not pairs:
        return
    ids = {name: i for i, name in enumerate(table.editions)}
    node: dict[tuple[int, str], int] = {}
    for d, members in enumerate(table.members):
        for e in members:
            node[(e, table.rid[d])] = d
    data_dir = Path(alignments_dir).parent
    for pair in pairs:
        old, new = ids.get(pair.get("old", "")), ids.get(pair.get("new", ""))
        if old is None or new is None:
            continue
        held = stored.get((pair["old"], pair["new"])) if stored is not None else None
        if held is not None:
            steps = [(r.kind, r.old, r.new) for r in (*held.rules, *held.sections)]
        else:
            try:
                data = json.loads((data_dir / pair["path"]).read_text(encoding="utf-8"))
                steps = [
                    (r.get("kind"), r.get("old"), r.get("new")) for r in (*data["rules"], *data.get("sections", ()))
                ]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue
        for kind, was, now in steps:
            if kind in CONTINUES:
                a, b = node.get((old, was)), node.get((new, now))
                if a is not None and b is not None and table.lang[a] == table.lang[b]:
                    yield a, b
