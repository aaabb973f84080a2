"""Content hashes of a render's inputs: a site whose inputs did not change is kept.

:func:`fingerprint` hashes everything a render reads: the editions' content (every
unit and glossary entry, not just the source file's hash, so hand-built editions
count too), the "cited by" index taken from the graph, the alignments given or
stored in the data folder, the data files published under ``data/``, the options,
and the code of the ``comprules`` package itself (a new template or a parser fix
changes the pages). The render writes it into ``site/.fingerprint``; the next render
with the same fingerprint returns at once (``SiteStats.skipped``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..codehash import code_hash
from ..export import files_under
from ..model import Edition, memo_while_alive

FINGERPRINT = ".fingerprint"
STATS = ".stats.json"
#: Every file the render wrote, one path (relative to the site) a line: a later build
#: replaces only these, never a file of the user's (``comprules.build.carry_over``).
WRITTEN = ".written"
_SEP = "\x1f"


def _code_hash() -> str:
    """Hash of every file of the ``comprules`` package (code, templates, data)."""
    return code_hash()


#: id of an edition → (a weak reference to it, its :func:`edition_hash`): a render asks
#: twice for each (the site's fingerprint, the keys of its tasks).
_HASHES: dict[int, tuple[Any, str]] = {}


def edition_hash(edition: Edition) -> str:
    """Hash of an edition's content: its identity, every unit and glossary entry (kept
    while the edition lives)."""
    return memo_while_alive(_HASHES, edition, _edition_hash)


def _edition_hash(edition: Edition) -> str:
    h = hashlib.blake2b(digest_size=16)
    eff = edition.effective.isoformat() if edition.effective else ""
    h.update(_SEP.join((edition.name, edition.kind, eff, edition.title or "", edition.source or "")).encode())
    h.update(
        _SEP.join(
            _SEP.join(
                (
                    r.id,
                    r.kind,
                    r.text,
                    r.title or "",
                    r.parent or "",
                    r.section or "",
                    r.chapter or "",
                    "\x1e".join(r.examples),
                )
            )
            for r in edition.rules
        ).encode()
    )
    h.update(
        _SEP.join(
            _SEP.join(
                (g.term, g.slug, g.text, "1" if g.obsolete else "0", "\x1e".join(g.aliases), "\x1e".join(g.senses))
            )
            for g in edition.glossary
        ).encode()
    )
    return h.hexdigest()


def _files_hash(paths: Iterable[Path]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for path in sorted(paths):
        if path.is_file():
            h.update(str(path.name).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def fingerprint(
    editions: Iterable[Edition],
    cited: Mapping[str, Any],
    *,
    data_dir: Path | None = None,
    data_key: str | None = None,
    alignments: Mapping | None = None,
    options: Mapping[str, Any] | None = None,
) -> str:
    """The hash of everything a render reads. ``data_key``: what identifies the files of
    ``data_dir`` (the build's key of its inputs and code, which made them), hashed
    instead of their bytes."""
    h = hashlib.blake2b(digest_size=20)
    h.update(_code_hash().encode())
    for e in sorted(editions, key=lambda e: e.name):
        h.update(edition_hash(e).encode())
    h.update(json.dumps(cited, sort_keys=True).encode())
    if alignments:
        summary = sorted(
            (old, new, len(a.rules), len(getattr(a, "sections", ())), sum(len(r.changes) for r in a.rules))
            for (old, new), a in alignments.items()
        )
        h.update(json.dumps(summary).encode())
    if data_key is not None:
        h.update(f"data {data_key}".encode())
    elif data_dir is not None and Path(data_dir).is_dir():
        data = Path(data_dir)
        names = {f"{e.name}.json" for e in editions}
        h.update(_files_hash([data / n for n in names] + [data / "graph.graphml"]).encode())
        if (data / "alignments").is_dir():
            h.update(_files_hash(list((data / "alignments").rglob("*.json"))).encode())
    h.update(json.dumps(options or {}, sort_keys=True, default=str).encode())
    return h.hexdigest()


def stored(out_dir: Path) -> str | None:
    """The fingerprint of the site in ``out_dir``, if it has one."""
    try:
        return (Path(out_dir) / FINGERPRINT).read_text(encoding="utf-8").strip()
    except OSError:
        return None


#: Stats that vary from run to run, left out of the stored file so that two builds of the
#: same sources give byte-identical sites (a kept site reports its own timings anyway).
_TIMINGS = ("seconds", "search_seconds", "timings")


def store(out_dir: Path, value: str, stats: dict[str, Any]) -> None:
    """Write the site's own records: its fingerprint, its stats, the list of its files."""
    out_dir = Path(out_dir)
    (out_dir / FINGERPRINT).write_text(value + "\n", encoding="utf-8")
    kept = {k: v for k, v in stats.items() if k not in _TIMINGS}
    (out_dir / STATS).write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
    files = set(files_under(out_dir))
    (out_dir / WRITTEN).write_text("".join(f + "\n" for f in sorted(files | {WRITTEN})), encoding="utf-8")


def written(out_dir: Path) -> set[str] | None:
    """The files a render wrote into ``out_dir`` (relative paths), or ``None`` for a site
    without the record (rendered by an older comprules)."""
    try:
        return set((Path(out_dir) / WRITTEN).read_text(encoding="utf-8").splitlines())
    except OSError:
        return None


def stored_stats(out_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((Path(out_dir) / STATS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
