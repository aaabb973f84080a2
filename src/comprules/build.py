"""``comprules build``: the whole pipeline, from source files to a knowledge base.

Reads like the pipeline's table of contents (after mkdocs' ``commands/build.py``)::

    load sources → resolve references → graph → data/ → index/ → site/

The knowledge base directory holds ``data/`` (one JSON per edition, ``editions.json``,
``graph.graphml``), ``index/`` (whoosh) and ``site/`` (static HTML). Each output is
written into a temporary folder inside the knowledge base and swapped in only when
complete, under an exclusive lock, so a failed or interrupted build leaves the
previous knowledge base intact and a second concurrent build fails clearly.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import export, graph, references
from .corpus import load_sources
from .align.history import write_alignments
from .errors import SourceError
from .locking import exclusive
from .kb import default_kb  # noqa: F401  (the build's default knowledge base; kept importable from here)
from .model import Edition

STAGES = ("data", "index", "site")


@dataclass
class BuildReport:
    """What a build did: editions built, bad files, timings in seconds."""

    kb: Path
    editions: list[Edition] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    dangling: dict[str, int] = field(default_factory=dict)


@contextmanager
def kb_lock(kb: Path) -> Iterator[None]:
    """Hold the knowledge base's build lock; :class:`BuildLocked` if another build has it."""
    kb.mkdir(parents=True, exist_ok=True)
    with exclusive(kb / ".lock", lambda holder: f"another build is running on {kb} ({holder}); "
                                                "wait for it to finish"):
        yield


def swap_dir(new: Path, dest: Path) -> None:
    """Replace ``dest`` by the complete folder ``new``; the old one is removed.

    On Linux the two are exchanged in one atomic step (``renameat2`` with
    ``RENAME_EXCHANGE``): a reader sees the whole old folder or the whole new one, and a
    build killed at any moment leaves one of them in place. Elsewhere the old folder is
    renamed aside, then the new one in (:func:`recover` puts the old one back if a build
    dies between the two renames).
    """
    if (dest.exists() or dest.is_symlink()) and _exchange(new, dest):
        _remove(new)  # holds the old folder now
        return
    old = None
    if dest.exists() or dest.is_symlink():
        old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
        if old.exists():
            shutil.rmtree(old)
        os.replace(dest, old)
    os.replace(new, dest)
    if old is not None:
        _remove(old)


def _remove(path: Path) -> None:
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux ``renameat2``); False where that is not available."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


def recover(kb: Path) -> list[str]:
    """Clean what a killed build left in ``kb`` (call with the lock held); what was done.

    An output renamed aside (``.data.old-…``) and not replaced is put back; the
    temporary folders of unfinished builds (``.build-…``, ``.site.new-…``) are removed.
    """
    done = []
    for name in ("data", "site"):
        dest = kb / name
        olds = sorted(kb.glob(f".{name}.old-*"), key=lambda p: p.stat().st_mtime)
        if olds and not (dest.exists() or dest.is_symlink()):
            os.replace(olds.pop(), dest)
            done.append(f"restored {name}/ from an interrupted build")
        for path in [*olds, *kb.glob(f".{name}.new-*")]:
            _remove(path)
    for path in kb.glob(".build-*"):
        _remove(path)
        done.append(f"removed {path.name} left by an interrupted build")
    return done


def write_data(editions: list[Edition], resolutions: dict, kb_graph, out: Path) -> None:
    """Write ``out/{lang}/{name}.json`` per edition, ``out/editions.json`` and ``out/graph.graphml``."""
    manifest = []
    for ed in editions:
        res = resolutions[ed.name]
        path = export.edition_path(out, ed.name)
        export.write_atomic(path, export.dumps(export.edition_to_dict(ed, res)))
        manifest.append({
            "name": ed.name, "lang": ed.lang, "kind": ed.kind, "title": ed.title,
            "effective": ed.effective.isoformat() if ed.effective else None,
            "rules": len(ed.numbered()), "glossary": len(ed.glossary), "sha256": ed.sha256,
            "path": str(path.relative_to(out)), "dangling": len(res.dangling),
        })
    export.write_atomic(out / "editions.json", export.dumps({"editions": manifest}))
    graph.write_graphml(kb_graph, out / "graph.graphml")


def build(
    sources: list[str | os.PathLike],
    kb: Path | None = None,
    *,
    only: tuple[str, ...] = STAGES,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build the knowledge base at ``kb`` from ``sources`` (files or folders).

    Bad source files are reported in ``BuildReport.errors`` and skipped. Raises
    :class:`BuildLocked` when another build holds the lock, and
    :class:`~comprules.errors.UsageError` when no source could be read at all.
    """
    from .errors import UsageError

    kb = Path(kb or default_kb())
    say = progress or (lambda _msg: None)
    report = BuildReport(kb=kb)
    with kb_lock(kb):
        for note in recover(kb):
            say(note)
        t = time.perf_counter()
        loaded = load_sources(list(sources), jobs=jobs)
        report.editions, report.errors, report.notices = loaded.editions, loaded.errors, loaded.notices
        report.timings["parse"] = time.perf_counter() - t
        say(f"parsed {len(report.editions)} editions ({report.timings['parse']:.1f} s)")
        if not report.editions:
            first = f": {report.errors[0]}" if report.errors else ""
            more = f" (and {len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
            raise UsageError(f"no edition could be built from the sources given{first}{more}")

        t = time.perf_counter()
        resolutions = {ed.name: references.resolve(ed) for ed in report.editions}
        report.dangling = {name: len(r.dangling) for name, r in resolutions.items()}
        kb_graph = graph.kb_graph(report.editions, resolutions)
        report.timings["references"] = time.perf_counter() - t
        say(f"resolved references and built the graph ({report.timings['references']:.1f} s)")

        work = Path(tempfile.mkdtemp(prefix=".build-", dir=kb))
        try:
            # Everything is written into `work` first; the index swaps itself in when complete,
            # then data/ and site/ are swapped in: a build stopped before leaves the old ones.
            data_dir = kb / "data"
            if "data" in only:
                t = time.perf_counter()
                write_data(report.editions, resolutions, kb_graph, work / "data")
                write_alignments(report.editions, work / "data")  # data/alignments/: where each rule went
                data_dir = work / "data"
                report.timings["data"] = time.perf_counter() - t
                say(f"wrote data/ ({report.timings['data']:.1f} s)")
            generation = None
            if "index" in only:
                from .indexer import build_index

                t = time.perf_counter()
                # re-indexes only the editions whose sha256 changed; swapped in with data/ and site/
                generation = build_index(report.editions, kb / "index", alignments=data_dir / "alignments",
                                         swap=False).generation
                report.timings["index"] = time.perf_counter() - t
                say(f"wrote index/ ({report.timings['index']:.1f} s)")
            if "site" in only:
                from .site import render_site

                t = time.perf_counter()
                # the site's search data comes from the index (same ranking as comprules search)
                index = generation or (kb / "index" if (kb / "index").exists() else None)
                render_site(report.editions, work / "site", graph=kb_graph, data_dir=data_dir,
                            reuse=kb / "site", index=index)  # kept as is when nothing changed
                report.timings["site"] = time.perf_counter() - t
                say(f"wrote site/ ({report.timings['site']:.1f} s)")
            if generation is not None:
                from .indexer.build import swap_index

                swap_index(kb / "index", generation)  # one atomic rename of the index link
            for stage in ("data", "site"):
                if stage in only:
                    swap_dir(work / stage, kb / stage)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return report
