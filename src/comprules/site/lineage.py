"""Lineage for the site: the alignments of every consecutive pair, read or computed.

Alignments come, in this order, from the ``alignments`` given (tests, benchmarks),
the knowledge base's ``data/alignments/{lang}/{old}..{new}.json`` (DESIGN.md's diff
JSON, written by the build), or :func:`comprules.align.alignment.align` run here.
Without any (alignment unavailable), same-number matching stands in. The keys
themselves are built by :class:`comprules.align.lineage.Lineage`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..align.history import alignment_path as alignment_file
from ..align.lineage import SHOWN, Lineage, Step, chains, pairs
from ..children import fork_pool
from ..model import Edition

__all__ = ["SHOWN", "Lineage", "Step", "chains", "pairs", "alignment_file", "load_alignments", "compute_alignments"]


def load_alignments(
    editions: Sequence[Edition],
    *,
    given: Mapping[tuple[str, str], Any] | None = None,
    data_dir: Path | None = None,
    compute: bool = True,
    jobs: int = 1,
) -> dict[tuple[str, str], Any]:
    """The alignment of every consecutive pair, by ``(old name, new name)``.

    Taken from ``given``, else read from ``data_dir``, else computed (in ``jobs``
    processes), else left out (the lineage then matches same numbers).
    """
    from_json = _alignment_class()
    out: dict[tuple[str, str], Any] = {}
    missing = []
    for old, new in pairs(editions):
        key = (old.name, new.name)
        if given is not None and key in given:
            out[key] = given[key]
            continue
        path = alignment_file(data_dir, old.name, new.name) if data_dir is not None else None
        if path is not None and path.is_file() and from_json is not None:
            with open(path, encoding="utf-8") as fh:
                out[key] = from_json(json.load(fh))
        else:
            missing.append((old, new))
    if missing and compute and from_json is not None:
        out.update(compute_alignments(missing, jobs=jobs))
    return out


def _alignment_class() -> Callable[[dict], Any] | None:
    try:
        from ..align.changes import Alignment
    except ImportError:  # pragma: no cover - alignment not installed
        return None
    return Alignment.from_json


_PAIRS: list[tuple[Edition, Edition]] = []


def _align_one(k: int):
    from ..align.alignment import align

    old, new = _PAIRS[k]
    return (old.name, new.name), align(old, new)


def compute_alignments(todo: Sequence[tuple[Edition, Edition]], *, jobs: int = 1) -> dict:
    """``comprules.align.alignment.align`` on each pair (forked workers when ``jobs`` > 1)."""
    global _PAIRS
    from ..align.alignment import align

    if jobs <= 1 or len(todo) < 4:
        return {(o.name, n.name): align(o, n) for o, n in todo}

    _PAIRS = list(todo)
    try:
        with fork_pool(jobs) as pool:
            return dict(pool.imap_unordered(_align_one, range(len(_PAIRS))))
    finally:
        _PAIRS = []
