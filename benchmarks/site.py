"""Benchmark the static site: 74 editions + seeds + 73 diffs + history pages + search.

Run: ``.venv/bin/python benchmarks/site.py [--jobs N]`` (reads ``COMPRULES_CORPUS``,
default ``../shared/corpus``, and ``COMPRULES_SEEDS``, default ``../shared/seeds``).

Parsing, the graph and the alignments of consecutive editions are earlier stages of
the pipeline: they are timed and printed but not counted. Then, against the targets
of issue 6:

* the full site (every edition and seed, the 73 diffs, a history page per rule of
  the latest edition, French ⇄ English pages, the Pagefind index) ≤ 120 s;
* a rebuild with nothing changed ≤ 3 s (content hashes: the site is kept);
* the largest section page ≤ 150 KB;

and the site's total size. Writes into a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from comprules.corpus import load_sources
from comprules.graph import kb_graph
from comprules.site import render_site
from comprules.site.lineage import compute_alignments, pairs

ROOT = Path(__file__).resolve().parent.parent
TARGET_FULL, TARGET_NOOP, TARGET_PAGE = 120.0, 3.0, 150 * 1024


def _folder(var: str, default: str) -> Path:
    path = Path(os.environ.get(var, ROOT / default)).resolve()
    if not path.is_dir():
        sys.exit(f"{var}={path} not found")
    return path


def _size(folder: Path) -> tuple[int, int]:
    """Bytes and files as a copy of the site would take (hard links counted each time)."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _mark(ok: bool) -> str:
    return "ok" if ok else "OVER TARGET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPUs, at most 4)")
    args = parser.parse_args()
    corpus = _folder("COMPRULES_CORPUS", "../shared/corpus")
    seeds = _folder("COMPRULES_SEEDS", "../shared/seeds")
    t = time.perf_counter()
    editions = load_sources([corpus / "en", seeds]).editions
    graph = kb_graph(editions)
    print(f"parsed {len(editions)} documents and built their graph: {time.perf_counter() - t:.1f} s (not counted)")
    t = time.perf_counter()
    todo = pairs(editions)
    alignments = compute_alignments(todo, jobs=args.jobs or min(4, os.cpu_count() or 1))
    print(f"aligned {len(alignments)} pairs of consecutive editions: {time.perf_counter() - t:.1f} s (not counted)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        t = time.perf_counter()
        stats = render_site(editions, out, graph=graph, alignments=alignments, jobs=args.jobs)
        full = time.perf_counter() - t
        timings = ", ".join(f"{k} {v:.1f} s" for k, v in stats.timings.items())
        print(
            f"full site: {full:.1f} s [{_mark(full <= TARGET_FULL)}: ≤ {TARGET_FULL:.0f} s] "
            f"({timings}; search runs beside the pages)"
        )
        print(f"  {stats.pages} pages, {stats.links} reference links, {stats.dangling} dangling")
        diffs = sum(1 for _ in (out / "diff").glob("*/*/index.html"))
        histories = sum(1 for _ in (out / "history").glob("*/*.html"))
        print(
            f"  {diffs} diffs, {histories} history pages, "
            f"{sum(1 for _ in (out / 'compare').glob('*/index.html'))} French ⇄ English documents"
        )
        t = time.perf_counter()
        again = render_site(editions, out, graph=graph, alignments=alignments, jobs=args.jobs)
        noop = time.perf_counter() - t
        print(
            f"rebuild with nothing changed: {noop:.2f} s [{_mark(noop <= TARGET_NOOP)}: ≤ {TARGET_NOOP:.0f} s] "
            f"(skipped: {again.skipped})"
        )
        page = stats.largest_section_page_bytes
        print(
            f"largest section page: {stats.largest_section_page} {page / 1024:.1f} KB "
            f"[{_mark(page <= TARGET_PAGE)}: ≤ 150 KB]"
        )
        print(f"largest page: {stats.largest_page} {stats.largest_page_bytes / 1024:.1f} KB")
        size, files = _size(out)
        bundle, bundle_files = _size(out / "pagefind") if (out / "pagefind").is_dir() else (0, 0)
        print(
            f"site total: {size / 2**20:.1f} MB in {files} files "
            f"(search index {bundle / 2**20:.1f} MB in {bundle_files} files)"
        )


if __name__ == "__main__":
    main()
