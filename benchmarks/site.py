"""Benchmark the static site: one edition, then all 74 English editions and the seeds.

Run: ``.venv/bin/python benchmarks/site.py`` (reads ``COMPRULES_CORPUS``, default
``../shared/corpus``, and ``COMPRULES_SEEDS``, default ``../shared/seeds``). Prints the
render time of one edition and of the whole site (with "cited by" lists from
the knowledge-base graph), the largest section page and the
site's total size. Writes into a temporary folder, removed at the end.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from comprules.corpus import parse_file
from comprules.graph import kb_graph
from comprules.site import render_site

ROOT = Path(__file__).resolve().parent.parent


def _folder(var: str, default: str) -> Path:
    path = Path(os.environ.get(var, ROOT / default)).resolve()
    if not path.is_dir():
        sys.exit(f"{var}={path} not found")
    return path


def _size(folder: Path) -> int:
    """Bytes on disk as a copy of the site would take (hard links counted each time)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    corpus = _folder("COMPRULES_CORPUS", "../shared/corpus")
    seeds = _folder("COMPRULES_SEEDS", "../shared/seeds")
    files = sorted((corpus / "en").glob("*.txt")) + sorted(seeds.glob("*.txt"))
    t = time.perf_counter()
    editions = [parse_file(f) for f in files]
    graph = kb_graph(editions)
    print(f"parsed {len(editions)} documents and built their graph in "
          f"{time.perf_counter() - t:.1f} s (not counted below)")
    latest = max((e for e in editions if e.effective), key=lambda e: e.effective)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        one = render_site([latest], Path(tmp) / "one", graph=graph)
        print(f"one edition ({latest.name}): {time.perf_counter() - t:.2f} s, "
              f"{one.pages} pages, {one.links} links, {one.dangling} dangling")
        t = time.perf_counter()
        stats = render_site(editions, Path(tmp) / "all", graph=graph)
        elapsed = time.perf_counter() - t
        print(f"all {len(editions)} documents: {elapsed:.1f} s "
              f"({elapsed / len(editions):.2f} s per document), {stats.pages} pages, "
              f"{stats.links} links, {stats.dangling} dangling")
        print(f"largest section page: {stats.largest_section_page} "
              f"{stats.largest_section_page_bytes / 1024:.1f} KB")
        print(f"largest page: {stats.largest_page} {stats.largest_page_bytes / 1024:.1f} KB")
        print(f"site total: {_size(Path(tmp) / 'all') / 2**20:.1f} MB "
              f"({stats.bytes / 2**20:.1f} MB counted by the renderer)")


if __name__ == "__main__":
    main()
