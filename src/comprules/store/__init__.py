"""The knowledge-base database (``data/comprules.sqlite``): written once by a build, read by all.

Every reader — ``comprules show``, ``diff``, ``history``, ``export``, the server's
``/api/v1`` and ``/ar`` routes, the site's build — queries this one SQLite file
instead of parsing edition JSON: a rule of any edition, its subrules, its citations
both ways, a rule's whole lineage and the rows of a stored alignment are indexed
queries. The tables are named with the CR's vocabulary (:mod:`.schema`,
``docs/database.md``).

* :func:`write_store` — the build's writer (:mod:`.write`): a new file, swapped in;
  one changed edition replaces its own rows and what depends on it;
* :class:`Store` — the readers' view (:mod:`.read`): read-only, immutable, one
  connection per thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .read import Store, StoreError
from .schema import DB_NAME, FORMAT

if TYPE_CHECKING:
    from .write import AlignmentRow, StoreReport, write_store


def __getattr__(name: str):
    """The writer's names, imported when first asked: a reader never loads the writer
    (nor tempfile, which it imports)."""
    if name in ("AlignmentRow", "StoreReport", "write_store"):
        from . import write

        return getattr(write, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DB_NAME", "FORMAT", "Store", "StoreError", "write_store", "AlignmentRow", "StoreReport"]
