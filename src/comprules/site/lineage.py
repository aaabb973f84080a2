"""Lineage for the site: the alignments of every consecutive pair, as the build stored them.

Alignments come from the ``alignments`` given (tests, benchmarks), else from the
knowledge base's database (``data/comprules.sqlite``, :meth:`comprules.store.Store.alignment`);
the site aligns nothing itself (issue 21). Without one for a pair (a site rendered from
editions alone), same-number matching stands in. The keys themselves are built by
:class:`comprules.align.lineage.Lineage`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..align.lineage import SHOWN, Lineage, Step, chains, pairs
from ..model import Edition
from ..store import DB_NAME, Store, StoreError

__all__ = ["SHOWN", "Lineage", "Step", "chains", "pairs", "open_store", "load_alignments"]


def open_store(data_dir: Path | None) -> Store | None:
    """The knowledge base's database in ``data_dir`` (``comprules.sqlite``), or ``None``
    when there is none there (a site rendered from editions alone) or it cannot be read
    (one line on standard error names it; the site then matches the rules of
    consecutive editions by number, has no side-by-side pages of the documents, and
    leaves their facts out)."""
    if data_dir is None or not (Path(data_dir) / DB_NAME).is_file():
        return None
    try:
        return Store(Path(data_dir) / DB_NAME)
    except StoreError as exc:
        import sys

        print(f"comprules: {exc}; the site is rendered without the alignments it stores", file=sys.stderr)
        return None


def load_alignments(
    editions: Sequence[Edition],
    *,
    given: Mapping[tuple[str, str], Any] | None = None,
    store: Store | None = None,
    digests: dict[tuple[str, str], str] | None = None,
    given_stored: bool = False,
) -> dict[tuple[str, str], Any]:
    """The alignment of every consecutive pair, by ``(old name, new name)``: taken from
    ``given``, else read from the database ``store`` (either way round: two fragments the
    build aligned the other way are mirrored), else left out (the lineage then
    matches same numbers). Each alignment read from the database gets a key in
    ``digests`` (what :mod:`.reuse` keys pages on): the input keys of its two editions,
    which it was made from; so does one ``given`` with ``given_stored`` (the build that
    wrote the database hands over what it stored)."""
    out: dict[tuple[str, str], Any] = {}
    inputs = {row["name"]: row["input_key"] for row in store.rows} if store is not None else {}
    for old, new in pairs(editions):
        key = (old.name, new.name)
        if given is not None and key in given:
            found, stored = given[key], given_stored and store is not None
        else:
            found = store.alignment(old.name, new.name, either_way=True) if store is not None else None
            stored = True
        if found is not None:
            out[key] = found
            if digests is not None and stored:
                digests[key] = hashlib.blake2b(
                    f"{inputs.get(old.name)} {inputs.get(new.name)}".encode(), digest_size=16
                ).hexdigest()
    return out
