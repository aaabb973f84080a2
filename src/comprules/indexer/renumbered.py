"""Numbers of other editions: the rule a number names now, or named then (issue 22).

The number a judge remembers may be another edition's: Morph was 502.26a until the
2009 renumbering and is 702.37a since. Typed into a search of an edition that does not
print it, the number
answers first with the rule of that edition in the same lineage (:mod:`.lineage`: the
versions of one rule, linked by the alignments of consecutive editions), labelled with
the number typed and the editions that printed it, "was" (they are older) or "later"
(they are newer than the edition searched).

The lineage is the knowledge base's own (the database's ``lineages`` table, written by
the align stage: a rule's key is its id in its chain's latest edition; a rule split on
the way goes on as its main part, 410.2 → 603.2), the one ``comprules history`` and the
site's go-to box and edition switch follow. The index build writes each document's key
(:data:`KEYS_FILE`, :func:`write_keys`); an index built without a knowledge base has
none and renumbers nothing. A number printed for two rules in turn answers with each,
the one printed last first.

One function gives the answer to both engines: :func:`renumbered` for a query of
:mod:`.searching`, and :func:`every_renumbering`, which calls it for every number of a
language, for the site's search data (:mod:`.export`): the JavaScript ranker reads the
answer, it does not compute one.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .. import languages
from ..model import sort_key

if TYPE_CHECKING:  # pragma: no cover
    from .searching import _OpenIndex
    from .table import DocTable

#: The lineage key of each document, with its chain ("en 702.37a"; a JSON list by
#: document number; ``null``: none).
KEYS_FILE = "lineage_keys.json"
#: Bumped when the keys are made otherwise: an index with other keys is redone.
KEYS_VERSION = 2


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
    """The documents of ``mask`` (the query's scope and language; ``None``: every
    edition, where nothing is renumbered) that are the rule numbered ``number`` in other
    editions (of its language, else of another chain: see below), for each language in
    which ``mask`` holds no document numbered ``number`` → how; the rule ``number``
    named last first. Empty when the number is printed in the
    scope, is nowhere, or its rule has no version in the scope (removed, or not made
    yet), or the index has no lineage keys (built without a knowledge base).
    """
    keys = _keys(handle)
    if mask is None or keys is None or "~" in number or "¶" in number:
        return {}
    table = handle.table
    docs = [d for d in table.by_number.get(number, ()) if table.members[d]]
    printed = {table.lang[d] for d in docs if mask[d]}
    groups: dict[str, list[int]] = {}
    for d in docs:
        key = keys[d]
        if table.lang[d] not in printed and key is not None:
            groups.setdefault(key, []).append(d)
    found: dict[int, Renumbered] = {}
    versions = _by_key(handle, keys)
    for key, olds in groups.items():
        for new in versions.get(key, ()):
            if mask[new] and table.number[new] != number and new not in found:
                found[new] = _how(handle, number, olds, new)
    # A language of the scope with no answer of its own, the number another chain's
    # (Morph's 502.26a of 1999–2009, and Chinese, which begins in 2022): the rule of the
    # same key in that language's chain, when that rule's number is one the other chain's
    # lineage printed too (a translation keeps its English twin's numbers): zh 702.37a.
    # Each language answers so (the site's search data is a language's at a time).
    answered = printed | {table.lang[d] for d in found}
    for key, olds in groups.items():
        chain, _, own = key.partition(" ")
        numbers = {table.number[d] for d in versions.get(key, ())}
        for other in _chains(handle, keys):
            if other == chain:
                continue
            for new in versions.get(f"{other} {own}", ()):
                lang = table.lang[new]
                if mask[new] and lang not in answered and table.number[new] in numbers and new not in found:
                    found[new] = _how(handle, number, olds, new)
    return dict(sorted(found.items(), key=lambda item: order(handle, item[1], item[0])))


def order(handle: "_OpenIndex", how: Renumbered, docnum: int) -> tuple:
    """Where a renumbered hit stands among the others: a community translation after
    Wizards' texts, then the number's last edition, the newest first, then in rule order
    (``search.js`` sorts its rows alike)."""
    table = handle.table
    newest = how.editions[-1].rpartition("/")[2]
    community = languages.get(table.lang[docnum]).community
    return (community, tuple(-ord(c) for c in newest), sort_key(table.rid[docnum]), docnum)


def every_renumbering(handle: "_OpenIndex", lang: str, mask: np.ndarray) -> dict[str, dict[int, Renumbered]]:
    """:func:`renumbered` of every number that a document outside ``mask`` (``lang``'s
    scope) prints, in any language (zh answers English-only numbers), where it answers:
    number → document → how (the site's search data)."""
    table = handle.table
    inside = {table.number[d] for d in np.flatnonzero(mask) if table.lang[d] == lang}
    numbers = {
        table.number[d] for d in range(len(table)) if table.members[d] and not mask[d] and table.number[d] not in inside
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


def _keys(handle: "_OpenIndex") -> list[str | None] | None:
    """The documents' lineage keys (:data:`KEYS_FILE`), read once per open index."""
    if "_lineage_keys" not in handle.__dict__:
        try:
            keys = json.loads((handle.path / KEYS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            keys = None
        if keys is not None and len(keys) != len(handle.table):
            keys = None
        handle.__dict__["_lineage_keys"] = keys
    return handle.__dict__["_lineage_keys"]


def _chains(handle: "_OpenIndex", keys: list[str | None]) -> list[str]:
    """The chains the lineage keys name ("en", "zh", "fr"…), found once per open index."""
    cached = handle.__dict__.get("_chains")
    if cached is None:
        cached = handle.__dict__["_chains"] = sorted({k.partition(" ")[0] for k in _by_key(handle, keys)})
    return cached


def _by_key(handle: "_OpenIndex", keys: list[str | None]) -> dict[str, list[int]]:
    """Lineage key → its live documents (built once per open index)."""
    cached = handle.__dict__.get("_by_key")
    if cached is None:
        cached = {}
        members = handle.table.members
        for d, key in enumerate(keys):
            if key is not None and members[d]:
                cached.setdefault(key, []).append(d)
        handle.__dict__["_by_key"] = cached
    return cached


def write_keys(directory: Path, table: "DocTable", effective: Sequence[str], db: Path | None) -> int:
    """Write :data:`KEYS_FILE` into the index generation ``directory``: each document's
    lineage key, that of its rule in the latest edition holding it, read from the
    knowledge base's database ``db`` (its ``lineages``, own keys); without a database,
    no file. ``effective``: the effective date of each of ``table.editions``. Returns
    how many documents have a key."""
    path = directory / KEYS_FILE
    if path.exists():
        os.unlink(path)  # never write through a link to the previous generation's file
    if db is None or not Path(db).is_file():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)  # no -shm beside a database just written
    try:
        by_rule = {  # a key names a rule in its chain (en, zh, fr/fragments): "en 702.37a"
            (e, r): f"{c} {k}"
            for e, r, c, k in conn.execute("SELECT edition, rule, chain, key FROM lineages WHERE own = 1")
        }
    except sqlite3.DatabaseError:
        by_rule = {}
    finally:
        conn.close()
    if not by_rule:
        return 0
    keys: list[str | None] = []
    for d, members in enumerate(table.members):
        if not members:
            keys.append(None)
            continue
        latest = max(members, key=lambda e: (effective[e] or "", e))
        keys.append(by_rule.get((table.editions[latest], table.rid[d])))
    path.write_text(json.dumps(keys, separators=(",", ":")), encoding="utf-8")
    return sum(k is not None for k in keys)
