"""Lineage for the site: the alignments of every consecutive pair, read or computed.

Alignments come, in this order, from the ``alignments`` given (tests, benchmarks),
the knowledge base's ``data/alignments/{lang}/{old}..{new}.json`` (the JSON exports of
the database's ``alignments`` tables, written by the build), or
:func:`comprules.align.alignment.align` run here. The exports, not the database: read
from the database, the same alignments left the build's peak memory 10–20 MB higher (five
runs of each on the 74 editions and the seeds, 2026-12-04: 1.010–1.018 GB from the
exports, 1.021–1.032 GB from the database; the workers that render the pages share the
parent's objects, and these lay less compactly).
Without any (alignment unavailable), same-number matching stands in. The keys
themselves are built by :class:`comprules.align.lineage.Lineage`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..align.history import alignment_path
from ..align.lineage import SHOWN, Lineage, Step, chains, pairs
from ..children import fork_pool
from ..model import Edition
from ..store import DB_NAME, Store, StoreError

__all__ = ["SHOWN", "Lineage", "Step", "chains", "pairs", "open_store", "load_alignments", "compute_alignments"]


def open_store(data_dir: Path | None) -> Store | None:
    """The knowledge base's database in ``data_dir`` (``comprules.sqlite``), or ``None``
    when there is none there (a site rendered from editions alone) or it cannot be read
    (one line on standard error names it; the site then has no side-by-side pages of
    the documents, and their facts are left out)."""
    if data_dir is None or not (Path(data_dir) / DB_NAME).is_file():
        return None
    try:
        return Store(Path(data_dir) / DB_NAME)
    except StoreError as exc:
        import sys

        print(f"comprules: {exc}; the site is rendered without the documents' side-by-side pages", file=sys.stderr)
        return None


def load_alignments(
    editions: Sequence[Edition],
    *,
    given: Mapping[tuple[str, str], Any] | None = None,
    data_dir: Path | None = None,
    compute: bool = True,
    jobs: int = 1,
    digests: dict[tuple[str, str], str] | None = None,
) -> dict[tuple[str, str], Any]:
    """The alignment of every consecutive pair, by ``(old name, new name)``.

    Taken from ``given``, else read from the JSON exports in ``data_dir``, else computed
    (in ``jobs`` processes), else left out (the lineage then matches same numbers). The
    hash of each file read goes into ``digests`` (what :mod:`.reuse` keys pages on).
    """
    from ..align.changes import Alignment

    out: dict[tuple[str, str], Any] = {}
    missing = []
    for old, new in pairs(editions):
        key = (old.name, new.name)
        if given is not None and key in given:
            out[key] = given[key]
            continue
        path = alignment_path(data_dir, old.name, new.name) if data_dir is not None else None
        if path is not None and path.is_file():
            raw = path.read_bytes()
            out[key] = Alignment.from_json(json.loads(raw))
            if digests is not None:
                digests[key] = hashlib.blake2b(raw, digest_size=16).hexdigest()
        else:
            missing.append((old, new))
    if missing and compute:
        out.update(compute_alignments(missing, jobs=jobs))
    return out


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
