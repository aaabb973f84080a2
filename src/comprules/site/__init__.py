"""The static site: one folder of HTML that works from disk, built from editions.

``render_site(editions, out_dir)`` writes the home page, each edition's table of
contents, section pages (one anchor per rule, the citation alias ``R70237a`` too),
glossary, ``{lang}/latest/`` aliases and fragment pages, with every reference in
rule text a relative link (see :mod:`.markdown`). URLs come from :mod:`.urls` only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..model import Edition
from .markdown import Extract
from .render import SiteRenderer, SiteStats

__all__ = ["render_site", "SiteStats", "SiteRenderer"]


def render_site(
    editions: Sequence[Edition],
    out_dir: Path,
    *,
    graph: Any = None,
    data_dir: Path | None = None,
    extract: Extract | None = None,
) -> SiteStats:
    """Render ``editions`` into ``out_dir``, replacing it only once the render succeeded.

    The site is written into a temporary folder beside ``out_dir`` and swapped in
    (old folder renamed away, new one renamed in, old one removed), so a failed render
    leaves the previous site untouched. ``graph`` (networkx, citations between rule
    ids ``{lang}/{date}/{id}``) adds "cited by" lists; ``data_dir`` holds the data
    exports (``{lang}/{date}.json``, ``graph.graphml``) to publish under ``data/``;
    ``extract`` replaces ``comprules.references.extract`` (tests).
    """
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    try:
        renderer = SiteRenderer(editions, graph=graph, data_dir=data_dir, extract=extract)
        stats = renderer.render(tmp)
        os.chmod(tmp, 0o755)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap_in(tmp, out_dir)
    return stats


def _swap_in(new: Path, out_dir: Path) -> None:
    """Replace ``out_dir`` by ``new``: rename the old away, the new in, remove the old."""
    old = None
    if out_dir.exists() or out_dir.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.rmdir(old)
        os.replace(out_dir, old)
    try:
        os.replace(new, out_dir)
    except BaseException:
        if old is not None:
            os.replace(old, out_dir)
        shutil.rmtree(new, ignore_errors=True)
        raise
    if old is not None and old.is_symlink():
        old.unlink()
    elif old is not None:
        shutil.rmtree(old, ignore_errors=True)
