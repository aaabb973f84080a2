"""The static site: one folder of HTML that works from disk, built from editions.

``render_site(editions, out_dir)`` writes the home page, each edition's table of
contents, section pages (one anchor per rule, the citation alias ``R70237a`` too,
glossary terms linked, an edition switcher that follows the rule's lineage),
glossary, ``{lang}/latest/`` aliases and fragment pages, with every reference in
rule text a relative link (see :mod:`.markdown`); the diffs of consecutive editions
and each rule's history (:mod:`.changes`), French documents beside their English
edition and the lexicon (:mod:`.compare`), and the search index (:mod:`.search`).
URLs come from :mod:`.urls` only. A site whose inputs did not change is kept as it
is (:mod:`.cache`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..model import Edition
from . import cache
from .markdown import Extract
from .render import SiteRenderer, SiteStats, cited_by_index

__all__ = ["render_site", "SiteStats", "SiteRenderer"]


def render_site(
    editions: Sequence[Edition],
    out_dir: Path,
    *,
    graph: Any = None,
    cited: dict | None = None,
    data_dir: Path | None = None,
    data_key: str | None = None,
    extract: Extract | None = None,
    alignments: dict | None = None,
    alignments_stored: bool = False,
    lineage: Any = None,
    jobs: int | None = None,
    search: bool = True,
    index: Path | None = None,
    force: bool = False,
    reuse: Path | Sequence[Path] | None = None,
) -> SiteStats:
    """Render ``editions`` into ``out_dir``, replacing it only once the render succeeded.

    The site is written into a temporary folder beside ``out_dir`` and swapped in
    (old folder renamed away, new one renamed in, old one removed), so a failed render
    leaves the previous site untouched. ``graph`` (networkx, citations between rule
    ids ``{lang}/{date}/{id}``) adds "cited by" lists (or ``cited``, the
    :func:`~.render.cited_by_index` of a graph already dropped, to save its memory); ``data_dir`` holds the data
    exports (``{lang}/{date}.json``, ``graph.graphml``) to publish under ``data/``, and
    ``data_key`` what identifies them (the build's key of what made them: the site's
    fingerprint hashes it instead of their 160 MB);
    ``extract`` replaces ``comprules.references.extract`` (tests); ``alignments``
    (``(old name, new name)`` → ``comprules.align.alignment.Alignment``) stand in for those
    stored in the database ``data_dir/comprules.sqlite`` (the site aligns nothing: a pair
    with neither is matched by number); with ``alignments_stored``, they are the ones
    that database stores (the build that wrote it hands them over instead of the site
    reading them back: 0.8 s of a rebuild), and count as read from it; ``lineage``, with
    them, the :class:`~comprules.align.lineage.Lineage` that build made of them (not made
    again: 0.8 s of a build); ``jobs`` worker
    processes render (default: the CPUs, at most 4); with ``search`` and a search ``index`` (the
    knowledge base's ``index/``), the search page and its data (:mod:`.search`, the
    index's own ranking data for the JavaScript ranker) are written. When the
    inputs' fingerprint equals the one of the site in ``out_dir``, nothing is written
    (``SiteStats.skipped``) unless ``force``; equal to the one of the site in ``reuse``
    (the previous site, when rendering into a new folder), that site is copied (hard
    links) instead of rendered. Otherwise each task whose inputs did not change since
    the site in ``out_dir`` or ``reuse`` keeps that site's pages (hard links, :mod:`.reuse`).
    """
    import time

    started = time.perf_counter()
    out_dir = Path(out_dir)
    editions = list(editions)
    cited = cited_by_index(graph) if cited is None else cited
    search_index = Path(index) if search and index is not None and Path(index).exists() else None
    options = {"extract": getattr(extract, "__qualname__", None), "search": _index_stamp(search_index)}
    if extract is not None:
        options["extract_module"] = getattr(extract, "__module__", None)
    stamp = cache.fingerprint(
        editions,
        cited,
        data_dir=data_dir,
        data_key=data_key,
        alignments=None if alignments_stored else alignments,
        options=options,
    )
    candidates = [reuse] if reuse is None or isinstance(reuse, (str, os.PathLike)) else list(reuse)
    for previous_site in (out_dir, *candidates):
        if force or previous_site is None or cache.stored(previous_site) != stamp:
            continue
        previous = cache.stored_stats(previous_site) or {}
        fields = {k: previous[k] for k in SiteStats.__dataclass_fields__ if k in previous}
        fields.update(skipped=True, search_seconds=0.0, timings={})
        try:
            SiteStats(**{**fields, "seconds": 0.0})
        except TypeError:
            continue  # stats of another version: render again
        if not (Path(previous_site) / "index.html").is_file():
            continue
        if Path(previous_site) != out_dir:
            _copy_site(Path(previous_site), out_dir)
        return SiteStats(**{**fields, "seconds": time.perf_counter() - started})
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    try:
        renderer = SiteRenderer(
            editions,
            graph=None,
            data_dir=data_dir,
            extract=extract,
            alignments=alignments,
            alignments_stored=alignments_stored,
            lineage=lineage if alignments_stored else None,
            jobs=jobs,
            search=search_index,
            previous=[p for p in (out_dir, *candidates) if p is not None],  # pages kept by task (.reuse)
        )
        renderer.cited = cited
        stats = renderer.render(tmp)
        cache.store(tmp, stamp, stats.to_json())
        os.chmod(tmp, 0o755)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap_in(tmp, out_dir)
    return stats


def _copy_site(source: Path, out_dir: Path) -> None:
    """Copy a whole site (hard links when possible) into ``out_dir``, swapped in."""
    from .reuse import link_or_copy

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    try:
        os.rmdir(tmp)
        shutil.copytree(source, tmp, copy_function=link_or_copy)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _swap_in(tmp, out_dir)


def _index_stamp(index: Path | None) -> str | None:
    """What the site's search data depends on: the index's editions and format."""
    if index is None:
        return None
    try:
        meta = json.loads((index / "comprules-index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unreadable"
    return json.dumps([meta.get("format"), meta.get("editions"), meta.get("extras")], sort_keys=True)


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
