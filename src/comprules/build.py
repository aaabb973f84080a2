"""``comprules build``: the whole pipeline, from source files to a knowledge base.

Reads like the pipeline's table of contents (after mkdocs' ``commands/build.py``)::

    load sources → resolve references → graph → data/ → index/ → site/

The knowledge base directory holds ``data/`` (one JSON per edition, ``editions.json``,
the graph in ``graph/`` and as ``graph.graphml``, ``alignments/``), ``index/``
(whoosh) and ``site/`` (static HTML). Each output is written into a temporary folder
inside the knowledge base and swapped in only when complete, under an exclusive
lock, so a failed or interrupted build leaves the previous knowledge base intact and
a second concurrent build fails clearly. A folder is only written into if it is a
knowledge base (:func:`claim`).

What is up to date is not made again. The inputs of a build are the sources' bytes
(SHA-256), their ``editions.toml`` entries, the limits and comprules' own code
(:func:`source_inputs`); ``data/.inputs.json`` records those data/ was made from,
``.stamps.json`` those of index/ and site/. A build whose inputs are all unchanged
keeps the three outputs without parsing anything (about a second for the whole
corpus); one edition changed rewrites its own files and those that depend on it (its
alignments, the French documents of its era, the manifest and the GraphML), links
the rest from the previous data/, re-indexes that edition and renders the site
again. An interrupted build (SIGINT, SIGTERM) keeps a finished data/ or site/ it had
not swapped in yet as ``.data.pending`` / ``.site.pending``, which the next build
with the same inputs takes instead of making them again.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import export, graph
from .align.history import link_previous as _link
from .corpus.load import DEFAULT_LIMITS, Limits, expand_sources, load_items
from .corpus.restore import LOSSY, lost_example, lost_marks, restore_editions
from .errors import BuildFailed, Interrupted, SourceError, said
from .kb import default_kb  # noqa: F401  (the build's default knowledge base; kept importable from here)
from .locking import exclusive
from .model import Edition, restored_words

STAGES = ("data", "index", "site")


@dataclass
class BuildReport:
    """What a build did: editions built, bad files, timings in seconds.

    ``kept``: the stages left as they were, their inputs unchanged; ``reused``: those
    taken from an interrupted build (``.data.pending``, ``.site.pending``);
    ``written``: the files of data/ written anew (relative paths; the others were
    linked from the previous data/). ``manifest``: the rows of ``data/editions.json``,
    which say what the knowledge base holds when nothing was parsed (all kept).
    """

    kb: Path
    editions: list[Edition] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    dangling: dict[str, int] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    manifest: list[dict] = field(default_factory=list)
    #: Files of the user's found in data/ or site/, moved into the new ones (:func:`carry_over`).
    kept_files: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """The editions of the knowledge base, in name order."""
        return [e.name for e in self.editions] if self.editions else [m["name"] for m in self.manifest]

    @property
    def rules(self) -> int:
        """How many rules and subrules they hold."""
        if self.editions:
            return sum(len(e.numbered()) for e in self.editions)
        return sum(m["rules"] for m in self.manifest)


#: The file that makes a folder a knowledge base: written by the first build into it.
MARKER = ".comprules-kb"
#: The folder of the last build's parsed sources (:class:`comprules.corpus.cache.ParseCache`).
PARSED = ".parsed"
_MARKER_TEXT = (
    "comprules knowledge base: data/, index/ and site/ here are written by `comprules build`\n"
    "and replaced whole by the next build. Do not keep files of your own in them.\n"
)
_OWN_NAMES = frozenset({MARKER, ".lock", "data", "index", "site", PARSED})
_OWN_PREFIXES = (".build-", ".data.", ".site.", ".index.", ".stamps", MARKER + ".")


def _is_own(name: str) -> bool:
    return name in _OWN_NAMES or name.startswith(_OWN_PREFIXES)


def claim(kb: Path) -> list[str]:
    """Make sure ``kb`` is a folder comprules may write into; what was done.

    A new or empty folder gets the :data:`MARKER` file; a folder with the marker is
    a knowledge base. A folder built before the marker existed is recognised only when
    it holds nothing but ``data/``, ``index/``, ``site/`` and comprules' dot-files, and
    every file of each is a build's: ``data/`` by its manifests
    (:func:`unexpected_data_file`), ``site/`` by its record of the files it wrote
    (``site/.written``), ``index/`` a link to an index generation holding an index's
    files only (:func:`unexpected_index_file`); it gets the marker too. A folder holding
    only comprules-like dot-files (a user's ``.stamps.json``) and no output is not one.
    Anything else is refused with :class:`~comprules.errors.UsageError` naming the
    folder and the first file comprules did not write, before anything is written,
    moved or deleted.
    """
    from .errors import UsageError

    kb = Path(kb)
    if kb.exists() and not kb.is_dir():
        raise UsageError(f"--kb {kb}: is a file, not a knowledge base folder")
    if kb.is_symlink() and not kb.exists():
        raise UsageError(f"--kb {kb}: is a symbolic link to {os.readlink(kb)}, which does not exist")
    if (kb / MARKER).is_file():
        return []
    if kb.is_dir():
        names = sorted(p.name for p in kb.iterdir())
        if MARKER in names and (kb / MARKER).is_file():
            return []  # a build started at the same moment marked it between the two looks
        outputs = [n for n in names if n in ("data", "index", "site")]
        empty = [n for n in outputs if (kb / n).is_dir() and not (kb / n).is_symlink() and not any((kb / n).iterdir())]
        if empty and len(empty) == len(outputs) and len(names) == len(outputs):
            for n in empty:  # empty data/, index/, site/ folders: nothing to keep or lose
                os.rmdir(kb / n)
            names, outputs = [], []
        foreign = next((n for n in names if not _is_own(n)), None)
        if foreign is None and outputs:
            foreign = (
                unexpected_data_file(kb / "data")
                or unexpected_site_file(kb / "site")
                or unexpected_index_file(kb, kb / "index")
            )
        # a build that starts this moment: its lock, its marker being written
        others = [n for n in names if n not in (".lock", ".index.lock") and not n.startswith(MARKER + ".")]
        if foreign is None and others and not outputs:
            foreign = others[0]  # comprules' names, but no output beside them: a user's files
        if foreign is not None:
            raise UsageError(
                f"{kb} is not a comprules knowledge base (no {MARKER} file) and holds {foreign}, "
                "which comprules did not write: nothing in it was changed; give --kb an empty or new folder"
            )
        done = ["marked an existing knowledge base"] if outputs else []
    else:
        kb.mkdir(parents=True, exist_ok=True)  # a build started at the same moment may make it too
        done = []
    part = kb / f"{MARKER}.{os.getpid()}"
    part.write_text(_MARKER_TEXT, encoding="utf-8")
    os.replace(part, kb / MARKER)  # whole or absent, to a build looking at the same moment
    return done


def data_files(data: Path) -> set[str] | None:
    """The files a build writes into ``data``, relative to it, as its own manifests name
    them (:func:`write_data`, :func:`~comprules.align.history.write_alignments`);
    ``None`` when ``data/editions.json`` is not a manifest comprules writes (not JSON,
    no ``editions``, an empty list, a row without its keys).

    ``editions.json``, ``.inputs.json``, ``graph.graphml`` and the record of its parts; per manifest row its export
    (``en/2026-08-07.json``) and graph part (``graph/en/2026-08-07.json``);
    ``alignments/index.json``, ``alignments/lexicon.json`` and every alignment that
    index lists.
    """
    from .store.exports import graphml_parts_path

    rows = _read_json(data / "editions.json").get("editions")
    keys = {"name", "lang", "kind", "title", "effective", "path"}
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and keys <= r.keys() for r in rows):
        return None
    own = {
        "editions.json",
        INPUTS,
        GRAPHML,
        graphml_parts_path(Path(GRAPHML)).as_posix(),
        "alignments/index.json",
        "alignments/lexicon.json",
        "comprules.sqlite",
        CARDS_DB,
    }
    # what SQLite keeps beside a database that a reader (sqlite3, Datasette) opened: the
    # database's, replaced with it (beside a new one, a stale log would be replayed on it)
    own |= {f"{db}{suffix}" for db in ("comprules.sqlite", CARDS_DB) for suffix in SQLITE_SIDE_FILES}
    for row in rows:
        own.add(str(row["path"]))
        own.add(graph.graph_path(Path(), str(row["name"])).as_posix())
    index = _read_json(data / "alignments" / "index.json")
    for part in ("pairs", "crosslang"):
        for row in index.get(part, ()) if isinstance(index.get(part), list) else ():
            if isinstance(row, dict) and isinstance(row.get("path"), str):
                own.add(row["path"])
    return own


def unexpected_data_file(data: Path) -> str | None:
    """The first file of ``data`` (as ``data/…``) a build would not have written (any
    file but ``editions.json`` when that is not a comprules manifest), else
    ``data/editions.json`` when it is not one; ``None`` when every file is one of
    :func:`data_files`. A symbolic link is never comprules'."""
    if not data.exists() and not data.is_symlink():
        return None
    if data.is_symlink() or not data.is_dir():
        return "data"
    own = data_files(data)
    for path in sorted(data.rglob("*")):
        rel = path.relative_to(data).as_posix()
        if path.is_symlink() or (not path.is_dir() and rel not in (own or {"editions.json"})):
            return f"data/{rel}"
    return "data/editions.json (not a comprules manifest)" if own is None else None


def unexpected_site_file(site: Path) -> str | None:
    """The first file of ``site`` (as ``site/…``) its record (``site/.written``) does not
    list, or ``site/`` itself when it has no record; ``None`` when there is no ``site``
    or every file is the render's."""
    from .site.cache import written

    if not site.exists() and not site.is_symlink():
        return None
    if site.is_symlink() or not site.is_dir():
        return "site"
    own = written(site)
    if own is None:
        return "site/ (no record of the files comprules wrote there)"
    return next((f"site/{rel}" for rel in export.files_under(site) if rel not in own), None)


#: The files of an index generation (whoosh's segments, table of contents and lock;
#: comprules' own tables, the site's search data): anything else in one is a user's.
_INDEX_FILE = re.compile(r"^(?:MAIN_WRITELOCK|MAIN_\w+\.seg|_MAIN_\d+\.toc|[\w-]+\.(?:pkl|json|bin|idx|js))$")


def unexpected_index_file(kb: Path, index: Path) -> str | None:
    """``index`` when it is not a link to an index generation of ``kb``
    (``.index.gen-…``), or the first file of that generation an index does not hold;
    ``None`` when there is no ``index`` or it is comprules'."""
    if not index.exists() and not index.is_symlink():
        return None
    if not index.is_symlink():
        return "index/ (not a link to an index generation)"
    target = Path(os.readlink(index))
    if target.parent != Path(".") or not target.name.startswith(".index.gen-") or not (kb / target).is_dir():
        return "index/ (not a link to an index generation)"
    for path in sorted((kb / target).rglob("*")):
        if path.is_dir() or not _INDEX_FILE.match(path.name):
            return f"index/{path.relative_to(kb / target).as_posix()}"
    return None


def carry_over(old: Path, new: Path, stage: str) -> list[str]:
    """Move the files of the user's in ``old`` (the ``data/`` or ``site/`` about to be
    replaced) into ``new`` (the one replacing it), at the same place; their names as
    ``{stage}/…``. A file is the build's when ``old``'s own record lists it
    (:func:`data_files`, ``site/.written``); without a record nothing is moved (an
    output of an older comprules). Where ``new`` holds a file of that name, the user's
    goes beside it as ``NAME.yours``: nothing of the user's is replaced or deleted."""
    from .site.cache import written

    if not old.is_dir() or old.is_symlink():
        return []
    own = data_files(old) if stage == "data" else written(old)
    if own is None:
        return []
    plan: list[tuple[Path, Path]] = []
    kept: list[str] = []
    for rel in export.files_under(old):
        if rel in own:
            continue
        path = old / rel
        dest = _free_place(new, rel, path)
        if dest is None:  # already there (a kept site's hard links)
            kept.append(f"{stage}/{rel}")
            continue
        plan.append((path, dest))
    done: list[tuple[Path, Path]] = []
    try:
        for path, dest in plan:
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, dest)
            done.append((path, dest))
    except OSError:
        for path, dest in reversed(done):  # all of them back where they were, or none moved
            os.replace(dest, path)
        raise
    return kept + [f"{stage}/{dest.relative_to(new).as_posix()}" for _, dest in plan]


def _free_place(new: Path, rel: str, source: Path) -> Path | None:
    """Where the user's file ``source``, at ``rel``, goes in ``new``: the same place, or,
    where the build put a file there or on the way (its page ``en/2009-05-01/100.html``
    where the user had a folder ``100.html/``), beside it with ``.yours``; ``None`` when
    that very file is there already (a kept site's hard links)."""
    parts = rel.split("/")
    at = new
    for part in parts[:-1]:
        nxt = at / part
        if (nxt.exists() or nxt.is_symlink()) and not nxt.is_dir():
            nxt = at / (part + ".yours")  # a file of the build where the user had a folder
        at = nxt
    dest = at / parts[-1]
    if dest.exists() or dest.is_symlink():
        try:
            if not source.is_symlink() and dest.exists() and os.path.samefile(source, dest):
                return None
        except OSError:
            pass
        dest = at / (parts[-1] + ".yours")
    return dest


@contextmanager
def kb_lock(kb: Path) -> Iterator[None]:
    """Hold the knowledge base's build lock; :class:`BuildLocked` if another build has it."""
    kb.mkdir(parents=True, exist_ok=True)
    with exclusive(kb / ".lock", lambda holder: f"another build is running on {kb} ({holder}); wait for it to finish"):
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
    done += _remove_unswapped_index(kb)
    return done


def _generation_stamp(name: str) -> int:
    tail = name.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0


def _remove_unswapped_index(kb: Path) -> list[str]:
    """Remove the finished index generations an interrupted build left beside index/
    without swapping them in (``.index.gen-…`` newer than the one index/ points to, or
    any when there is no index/); what was done. The generation index/ points to and
    the older one kept for readers stay (``comprules.indexer.build``)."""
    index = kb / "index"
    if index.is_symlink():
        current = os.readlink(index)
        newest = _generation_stamp(current)
    elif index.exists():
        return []  # a renamed-in index (no symbolic links): no generations beside it
    else:
        current, newest = "", -1
    done = []
    for path in sorted(kb.glob(".index.gen-*")):
        if path.name != current and _generation_stamp(path.name) > newest:
            _remove(path)
            done.append(f"removed {path.name}, an index an interrupted build did not swap in")
    return done


INPUTS = ".inputs.json"  # in data/: the inputs it was made from
GRAPHML = "graph.graphml"  # in data/: the whole graph (its parts recorded beside it)
#: The files SQLite makes beside a database (its log, shared memory, rollback journal).
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
CARDS_DB = "cards.sqlite"  # in data/: the card tables, when the build was given a card file (comprules.cards)
STAMPS = ".stamps.json"  # in the knowledge base: the inputs of index/ and site/
PENDING = ".pending"  # ".data.pending", ".site.pending": finished, not swapped in (interrupted)


def _digest(value) -> str:
    return hashlib.blake2b(json.dumps(value, sort_keys=True, default=str).encode(), digest_size=16).hexdigest()


def source_inputs(items: list[tuple[Path, dict]], limits: Limits) -> list[dict]:
    """What each source contributes to a build's inputs: its path, the SHA-256 of its
    bytes and its ``editions.toml`` entry. A file over the size limit is not read
    (its size stands for it: the parse refuses it anyway)."""
    out = []
    for path, meta in items:
        try:
            size = path.stat().st_size
            if size > limits.max_source_bytes:
                digest = f"size:{size}"
            else:
                h = hashlib.sha256()
                with open(path, "rb") as fh:
                    while chunk := fh.read(1 << 20):
                        h.update(chunk)
                digest = h.hexdigest()
        except OSError as exc:
            digest = f"unreadable:{exc.errno}"
        out.append({"path": str(path), "sha256": digest, "meta": _digest(meta)})
    return out


def _read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _index_identity(kb: Path) -> str | None:
    """Which index generation ``kb/index`` is (it points to one), or ``None``."""
    index = kb / "index"
    try:
        if index.is_symlink():
            return os.readlink(index)
        st = index.stat()
    except OSError:
        return None
    return f"{st.st_ino}:{st.st_mtime_ns}"


def _index_whole(kb: Path) -> bool:
    """Whether every file of ``kb/index`` has the size its build wrote
    (:func:`comprules.indexer.documents.damaged`): a damaged index is built again, not kept."""
    from .indexer.documents import damaged

    return damaged(kb / "index") is None


def _edition_keys(editions: list[Edition], sources: list[dict], common: str) -> dict[str, str]:
    """Per edition, the hash of what its data files depend on: its sources, the code and
    limits (``common``), and for a document in another language than English, every
    English edition (the era its citations resolve in is chosen among them)."""
    by_path = {row["path"]: row for row in sources}
    own = {e.name: _digest([common, e.name, [by_path.get(str(p)) for p in e.sources], e.content_key]) for e in editions}
    english = _digest(sorted(v for k, v in own.items() if k.startswith("en/")))
    return {name: (key if name.startswith("en/") else _digest([key, english])) for name, key in own.items()}


def _stored_counts(data: Path) -> dict[str, tuple[str, int]]:
    """Edition name → (its input key, its dangling citations) in the database of the
    knowledge base's ``data`` (the last build's); empty when there is none readable."""
    from .store import DB_NAME, Store, StoreError

    try:
        store = Store(data / DB_NAME)
    except StoreError:
        return {}
    try:
        return {r["name"]: (r["input_key"], r["dangling"]) for r in store.rows}
    finally:
        store.close()


def write_data(
    editions: list[Edition],
    out: Path,
    *,
    previous: Path | None = None,
    keys: dict[str, str] | None = None,
    previous_keys: dict[str, str] | None = None,
) -> list[str]:
    """Write the exports of the database ``out/comprules.sqlite`` (:func:`write_knowledge`):
    ``out/{lang}/{name}.json`` per edition, its graph part (``out/graph/{lang}/{name}.json``),
    ``out/editions.json`` and ``out/graph.graphml`` (:mod:`comprules.store.exports`).

    An edition whose key (``keys``) equals the one it had in ``previous_keys`` has its
    two files linked from ``previous`` (the last build's data/) instead of written.
    Returns the files written, relative to ``out``.
    """
    from .store import DB_NAME, Store
    from .store.exports import edition_export, graph_part, graphml_parts_path, write_graphml

    keys, previous_keys = keys or {}, previous_keys or {}
    manifest, written, fresh = [], [], []
    store = Store(out / DB_NAME)
    try:
        rows = {r["name"]: r for r in store.rows}
        for ed in editions:
            path = export.edition_path(out, ed.name)
            gpath = graph.graph_path(out, ed.name)
            same = previous is not None and ed.name in keys and previous_keys.get(ed.name) == keys[ed.name]
            if not (
                same
                and _link(export.edition_path(previous, ed.name), path)
                and _link(graph.graph_path(previous, ed.name), gpath)
            ):
                export.write_atomic(path, export.dumps_compact(edition_export(store, ed.name)))
                export.write_atomic(gpath, export.dumps_compact(graph_part(store, ed.name)))
                written += [str(path.relative_to(out)), str(gpath.relative_to(out))]
                fresh.append(ed.name)
            row = rows[ed.name]
            manifest.append(
                {
                    "name": ed.name,
                    "lang": row["lang"],
                    "kind": row["kind"],
                    "title": row["title"],
                    "effective": row["effective"],
                    "rules": row["rules"],
                    "glossary": row["glossary"],
                    "sha256": row["sha256"],
                    "path": str(path.relative_to(out)),
                    "dangling": row["dangling"],
                }
            )
        export.write_atomic(out / "editions.json", export.dumps({"editions": manifest}))
        old_names = sorted(previous_keys) if previous is not None else None
        graphml, parts = out / GRAPHML, graphml_parts_path(out / GRAPHML)
        if (
            fresh
            or old_names != sorted(e.name for e in editions)
            or not _link(previous / GRAPHML, graphml)
            or not _link(graphml_parts_path(previous / GRAPHML), parts)
        ):
            # the parts of the editions whose key is the same are copied from the last one
            last = previous / GRAPHML if previous is not None else None
            write_graphml(store, graphml, [e.name for e in editions], keys=keys, previous=last)
            written.append(GRAPHML)
    finally:
        store.close()
    return written


def write_knowledge(
    editions: list[Edition],
    resolutions: dict,
    eras: dict,
    keys: dict[str, str],
    out: Path,
    *,
    previous: Path | None = None,
) -> tuple[dict[tuple[str, str], Any], Any]:
    """Align what the knowledge base stores and write the database ``out/comprules.sqlite``
    (:mod:`comprules.store`) and the alignments' exports (``out/alignments/``). Returns
    the alignments of the editions' and fragments' chains stored, by ``(old, new)`` name,
    and the :class:`~comprules.align.lineage.Lineage` made of them (for the index and the
    site: what they would read back, or make again from it).

    ``previous`` is the last build's data/: the editions whose key (``keys``) is the
    one its database stored keep their rows, and the alignments of two such editions
    are taken from it instead of computed again.
    """
    from .align.history import compute_alignments, write_alignments
    from .align.lineage import Lineage
    from .kb import published
    from .store import DB_NAME, AlignmentRow, Store, StoreError, write_store

    old_store = None
    if previous is not None:
        try:
            old_store = Store(previous / DB_NAME)
        except StoreError:
            old_store = None
    try:
        stored = {r["name"]: r["input_key"] for r in old_store.rows} if old_store is not None else {}
        unchanged = {n for n, k in keys.items() if stored.get(n) == k}
        computed = compute_alignments(editions, eras=eras, previous=old_store, unchanged=unchanged)
        # data/alignments/: where each rule went (the kept pairs' files linked from the last build)
        write_alignments(editions, out, computed=computed, previous_dir=previous if old_store is not None else None)
        lineage = Lineage.build(editions, computed.consecutive())
        kept = set(computed.kept)
        facts = {}
        by_date = {p.date: p for p in published()}
        for e in editions:
            fact = by_date.get(e.effective.isoformat()) if e.effective else None
            if fact is not None:
                facts[e.name] = {"set_name": fact.set_name, "set_code": fact.code, "file_date": fact.file_date}
        chain_rows = [
            (c["lang"] if c["kind"] != "fragment" else f"{c['lang']}/fragments", c["editions"]) for c in computed.chains
        ]
        from .check import check_edition

        checks = {e.name: check_edition(e, resolutions[e.name]) for e in editions if e.name not in unchanged}
        write_store(
            out / DB_NAME,
            editions,
            resolutions,
            keys=keys,
            alignments=[AlignmentRow(a, kind, d) for a, kind, d in computed.rows if (a.old, a.new) not in kept],
            kept_alignments=kept,
            chains=chain_rows,
            lineage=lineage,
            lexicon=computed.lexicon,
            facts=facts,
            checks=checks,
            previous=previous / DB_NAME if old_store is not None and previous is not None else None,
        )
        return computed.consecutive(), lineage
    finally:
        if old_store is not None:
            old_store.close()


def _kept_message(
    only: tuple[str, ...], new: list[str], pending: list[str], *, first: bool = False, head: str = "interrupted"
) -> str:
    """The line an interrupted (or stopped: ``head``) build ends with: what of the
    knowledge base is new (``first``: there was no knowledge base before this build)."""

    def names(stages):
        text = " and ".join(f"{s}/" for s in stages)
        return text, len(stages) > 1

    wanted = [s for s in STAGES if s in only]
    old = [s for s in wanted if s not in new]
    if not new:
        line = f"{head}: no knowledge base was written" if first else f"{head}: the previous knowledge base is intact"
    elif not old:
        line = f"{head} after the new knowledge base was in place"
    else:
        (n, many_n), (o, many_o) = names([s for s in wanted if s in new]), names(old)
        line = (
            f"{head}: {n} {'are' if many_n else 'is'} new, "
            f"{o} {'are the previous ones' if many_o else 'is the previous one'}"
        )
    if pending:
        text, many = names(pending)
        line += f" (the finished {text} {'are' if many else 'is'} kept for the next build)"
    return line


def build(
    sources: list[str | os.PathLike],
    kb: Path | None = None,
    *,
    only: tuple[str, ...] = STAGES,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
    limits: Limits | None = None,
    cards: str | os.PathLike | None = None,
) -> BuildReport:
    """Build the knowledge base at ``kb`` from ``sources`` (files or folders).

    Bad source files are reported in ``BuildReport.errors`` and skipped; ``limits``
    bounds a source's size and line length (:class:`~comprules.corpus.load.Limits`).
    Stages whose inputs are unchanged are kept (``BuildReport.kept``). Raises
    :class:`BuildLocked` when another build holds the lock,
    :class:`~comprules.errors.UsageError` when ``kb`` is not a knowledge base, ``only``
    names no stage or an unknown one, or no source could be read at all, and
    :class:`~comprules.errors.Interrupted` (with the line saying what was kept) on SIGINT
    or SIGTERM. ``cards``: a Scryfall or MTGJSON
    card file, whose cards and the rules they call on the data stage stores in
    ``data/cards.sqlite`` (:mod:`comprules.cards`).
    """
    from .errors import UsageError

    if not only or any(s not in STAGES for s in only):
        raise UsageError(f"stages to build: {', '.join(only) or 'none'} (choose one or more of {', '.join(STAGES)})")
    kb = Path(kb or default_kb())
    say = progress or (lambda _msg: None)
    limits = limits or DEFAULT_LIMITS
    new = not kb.exists() and not kb.is_symlink()
    try:
        for note in claim(kb):
            say(note)
    except OSError as exc:  # a full disk, a folder that takes no file: nothing was changed
        raise BuildFailed(f"starting the build: {said(exc)}; nothing was changed") from None
    try:
        with kb_lock(kb):
            for note in recover(kb):
                say(note)
            return _Build(kb, only, jobs, say, limits, cards).run(sources)
    except OSError as exc:  # the lock or the clean-up of an interrupted build, before any work
        raise BuildFailed(
            f"starting the build: {said(exc)}; "
            + ("no knowledge base was written" if new else "the previous knowledge base is intact")
        ) from None
    except UsageError:
        if new:  # nothing built into a folder this build made: it goes again (marker and lock only)
            left = {p.name for p in kb.iterdir()} if kb.is_dir() else set()
            if left <= {MARKER, ".lock", ".index.lock"}:
                shutil.rmtree(kb, ignore_errors=True)
        raise


class _Build:
    """One build under the lock: plan what is out of date, make it, swap it in."""

    def __init__(self, kb: Path, only: tuple[str, ...], jobs: int, say, limits: Limits, cards=None):
        self.kb, self.only, self.jobs, self.say, self.limits = kb, only, jobs, say, limits
        self.cards = Path(cards) if cards is not None else None
        self.report = BuildReport(kb=kb)
        self.new: list[str] = []  # stages swapped in by this build
        self.swapping: dict[str, int] = {}  # stage → inode of its new folder, swapped in
        self.index_before = _index_identity(kb)
        #: No knowledge base before this build (nothing of data/, index/, site/).
        self.first = not any((kb / s).exists() or (kb / s).is_symlink() for s in STAGES)
        #: What the build is doing (for the line of a failure): ``parsing``, ``writing data/``…
        self.stage = "reading the sources"
        #: The file being written when it is not named by the error (the database).
        self.writing: Path | None = None
        #: The documents' era scores ("{document key} {English key}" → score), kept in
        #: ``.stamps.json`` for the next build (:func:`comprules.align.crosslang.choose_english`).
        self.era_scores: dict[str, float] = {}

    def run(self, sources) -> BuildReport:
        work = self.kb / ".build-none"
        try:
            self.stage = "starting the build"
            work = Path(tempfile.mkdtemp(prefix=".build-", dir=self.kb))
            self.pipeline(sources, work)
        except KeyboardInterrupt as exc:  # Interrupted (SIGTERM) too
            self.find_new()
            pending = self.keep_pending(work)
            signum = getattr(exc, "signum", signal.SIGINT)
            raise Interrupted(signum, _kept_message(self.only, self.new, pending, first=self.first)) from None
        except (OSError, sqlite3.DatabaseError) as exc:  # a full disk, a file that cannot be written
            self.find_new()
            raise BuildFailed(self.failure(exc, work)) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return self.report

    def write_cards(self, data: Path) -> None:
        """``data/cards.sqlite``: the cards of the card file and the rules they call on in
        each edition (:mod:`comprules.cards`), the rules each glossary entry cites read from
        the database just written (the references of an edition kept from the last build
        are not resolved again); a card file that cannot be read is an error of the build,
        reported as a bad source is, and the card data of the last build is kept."""
        from .cards import build_cards
        from .store import DB_NAME, Store

        t = time.perf_counter()
        store = Store(data / DB_NAME)
        try:
            refs = {e.name: store.glossary_refs(e.name) for e in self.report.editions}
        finally:
            store.close()
        try:
            cards = build_cards(
                self.cards,
                self.report.editions,
                data / CARDS_DB,
                glossary_refs=refs,
                alignments=data / "alignments",
            )
        except SourceError as exc:
            self.report.errors.append(exc)
            before = self.kb / "data" / CARDS_DB
            if before.is_file() and not before.is_symlink():  # the user's card data stays
                shutil.copy2(before, data / CARDS_DB)
                self.report.notices.append(
                    f"data/{CARDS_DB} of the last build kept: the card file could not be read "
                    f"(its rules are those of the editions of that build)"
                )
            return
        self.report.notices += cards.notes
        self.say(
            f"wrote data/{CARDS_DB} ({cards.cards} cards, {cards.calls} spans calling on rules, "
            f"{time.perf_counter() - t:.1f} s; counted in data's time)"
        )

    def failure(self, exc: OSError | sqlite3.DatabaseError, work: Path) -> str:
        """The one line of a build the system stopped: the stage, the file, the reason,
        what of the knowledge base was kept (the temporary files are removed after)."""
        if isinstance(exc, OSError):
            what = said(exc)
        else:  # SQLite says "database or disk is full" of the database being written
            reason = "No space left on device" if "full" in str(exc) else f"database error ({exc})"
            what = f"{self.writing}: {reason}" if self.writing else reason
        state = _kept_message(self.only, self.new, [], first=self.first, head="stopped")
        return f"{self.stage}: {what}; {state}"

    def find_new(self) -> None:
        """Which outputs this build has swapped in (for an interrupted build's last line)."""
        for stage, inode in self.swapping.items():
            try:
                if (self.kb / stage).stat().st_ino == inode:
                    self.new.append(stage)
            except OSError:
                pass
        if _index_identity(self.kb) != self.index_before:
            self.new.append("index")

    def keep_pending(self, work: Path) -> list[str]:
        """Finished outputs not swapped in yet, kept for the next build with the same inputs."""
        kept = []
        for stage, done in (("data", INPUTS), ("site", ".fingerprint")):
            folder = work / stage
            if stage in self.new or not (folder / done).is_file():
                continue
            dest = self.kb / f".{stage}{PENDING}"
            _remove(dest)
            os.replace(folder, dest)
            kept.append(stage)
        return kept

    def pipeline(self, sources, work: Path) -> None:
        from .codehash import code_hash
        from .errors import UsageError

        kb, only, report, say = self.kb, self.only, self.report, self.say
        t = time.perf_counter()
        items, expand_errors = expand_sources(list(sources))
        inputs = source_inputs(items, self.limits)
        if self.cards is not None:  # the card file is an input of data/ (its bytes, as a source's)
            if not self.cards.is_file():
                raise UsageError(f"--cards {self.cards}: no such file")
            inputs += [dict(row, role="cards") for row in source_inputs([(self.cards, {})], self.limits)]
        common = _digest([code_hash(), self.limits.as_json()])
        key = _digest([common, inputs])
        previous = _read_json(kb / "data" / INPUTS)
        pending_data = kb / f".data{PENDING}"
        stamps = _read_json(kb / STAMPS)
        data_key = key if "data" in only else previous.get("key")
        fresh = {
            "data": previous.get("key") == key and _complete(kb / "data"),
            "index": stamps.get("index") == {"inputs": key, "data": data_key, "identity": _index_identity(kb)}
            and self.index_before is not None
            and _index_whole(kb),
            "site": stamps.get("site") == {"inputs": key, "data": data_key, "fingerprint": _fingerprint(kb / "site")},
        }
        if all(fresh[s] for s in only) and previous.get("key") == data_key:
            report.kept = [s for s in STAGES if s in only]
            report.errors = expand_errors + [
                SourceError(e["path"], e["reason"], e["line"]) for e in previous.get("errors", ())
            ]
            report.notices = list(previous.get("notices", ()))
            report.manifest = _read_json(kb / "data" / "editions.json").get("editions", [])
            report.dangling = {m["name"]: m["dangling"] for m in report.manifest}
            report.timings["check"] = time.perf_counter() - t
            say(f"nothing changed: kept {', '.join(s + '/' for s in report.kept)} ({report.timings['check']:.1f} s)")
            return

        self.stage = "parsing"
        from .corpus.cache import ParseCache

        cache = ParseCache(kb / PARSED)
        parse_keys = [
            (_digest([common, row]), row["sha256"]) if cache.worth(path) else None
            for (path, _), row in zip(items, inputs)
        ]
        loaded = load_items(items, expand_errors, jobs=self.jobs, limits=self.limits, cache=cache, keys=parse_keys)
        cache.keep_only(k[0] for k in parse_keys if k is not None)
        report.editions, report.errors, report.notices = loaded.editions, loaded.errors, loaded.notices
        report.notices += said_warnings(report.editions)
        report.editions = restore_editions(report.editions)
        report.notices += said_restorations(report.editions)
        gone = sorted(
            {m["name"] for m in _read_json(kb / "data" / "editions.json").get("editions", ())}
            - {e.name for e in report.editions}
        )
        shown = ", ".join(gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
        if gone and "data" in only and report.errors:
            # a source that could not be read (a mistyped path, an unreadable file) may be one
            # of those editions: nothing of the knowledge base is removed for it
            more = f" (and {len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
            raise UsageError(
                f"{report.errors[0]}{more}; {shown} of the previous build "
                f"{'are' if len(gone) != 1 else 'is'} not among the sources read, and nothing was "
                f"written: give the sources again, or leave out the one that cannot be read"
            )
        # said of this build only: the notices data/ keeps (replayed when nothing changed) are the sources'
        removal = ""
        if gone and "data" in only and report.editions:
            removal = (
                f"{len(gone)} edition{'s' if len(gone) != 1 else ''} of the previous build "
                f"{'are' if len(gone) != 1 else 'is'} not among these sources and "
                f"{'are' if len(gone) != 1 else 'is'} removed: {shown} (give their sources again to keep them)"
            )
            report.notices.append(removal)
        report.timings["parse"] = time.perf_counter() - t
        n = len(report.editions)
        say(f"parsed {n} edition{'' if n == 1 else 's'} ({report.timings['parse']:.1f} s)")
        if not report.editions:
            first = f": {report.errors[0]}" if report.errors else ""
            more = f" (and {len(report.errors) - 1} more)" if len(report.errors) > 1 else ""
            raise UsageError(f"no edition could be built from the sources given{first}{more}")

        t = time.perf_counter()
        from .align.history import english_eras

        # the documents' era scores against each English edition, kept by the two editions'
        # texts from the last build (with this code): only a changed edition is scored again
        known = stamps.get("eras") if isinstance(stamps.get("eras"), dict) else {}
        scores: dict[tuple[str, str], float] = {}
        if known.get("code") == code_hash() and isinstance(known.get("scores"), dict):
            scores = {  # a score is in [0, 1]: anything else in the file is not one
                tuple(k.split(" ", 1)): float(v)
                for k, v in known["scores"].items()
                if isinstance(v, (int, float)) and 0.0 <= v <= 1.0
            }
        eras = english_eras(report.editions, scores=scores)
        report.notices += said_twins(eras)
        keys_now = {e.content_key for e in report.editions}
        self.era_scores = {f"{a} {b}": v for (a, b), v in sorted(scores.items()) if a in keys_now and b in keys_now}
        resolutions = graph.resolve_all(report.editions, eras={k: v.english for k, v in eras.items()})
        keys = _edition_keys(report.editions, inputs, common)
        # Only the editions whose rows the database writes anew need their references
        # resolved: the others keep their rows, and their counts, from the last build.
        stored = _stored_counts(kb / "data")
        for e in report.editions:
            if e.name not in stored or stored[e.name][0] != keys[e.name]:
                resolutions[e.name]
        done = set(resolutions.resolved())
        report.dangling = {
            e.name: len(resolutions[e.name].dangling) if e.name in done else stored[e.name][1] for e in report.editions
        }
        report.timings["references"] = time.perf_counter() - t
        part = "" if len(done) == len(report.editions) else f" of {len(done)} edition{'' if len(done) == 1 else 's'}"
        say(f"resolved references{part} ({report.timings['references']:.1f} s)")

        # Everything is written into `work` first; the index swaps itself in when complete,
        # then data/ and site/ are swapped in: a build stopped before leaves the old ones.
        data_dir = kb / "data"
        stored_alignments = stored_lineage = None  # what the data stage stored, handed to the site
        if "data" in only:
            t = time.perf_counter()
            self.stage = "writing data/"
            self.writing = kb / "data" / "comprules.sqlite"  # the name it will have: the user's path
            if fresh["data"]:
                report.kept.append("data")
                say("data/ is up to date: kept")
            elif _read_json(pending_data / INPUTS).get("key") == key:
                os.replace(pending_data, work / "data")
                data_dir = work / "data"
                report.reused.append("data")
                say("data/ taken from the interrupted build")
            else:
                old = kb / "data" if previous else None
                stored_alignments, stored_lineage = write_knowledge(
                    report.editions, resolutions, eras, keys, work / "data", previous=old
                )
                report.written = write_data(
                    report.editions,
                    work / "data",
                    previous=old,
                    keys=keys,
                    previous_keys=previous.get("editions", {}),
                )
                if self.cards is not None:
                    self.write_cards(work / "data")
                from .kb import write_rule_views

                tv = time.perf_counter()
                made = write_rule_views(work / "data")  # after the exports: they read the database
                if made:
                    n, seconds = len(made), time.perf_counter() - tv
                    say(f"stored the rule views of {n} edition{'' if n == 1 else 's'} ({seconds:.1f} s)")
                errors = [
                    {"path": e.path, "reason": e.reason, "line": e.line} for e in loaded.errors[len(expand_errors) :]
                ]
                export.write_atomic(
                    work / "data" / INPUTS,
                    json.dumps(
                        {
                            "key": key,
                            "editions": keys,
                            "errors": errors,
                            "notices": [n for n in report.notices if n != removal],
                        },
                        sort_keys=True,
                        indent=1,
                    )
                    + "\n",
                )  # written last: data/ is complete
                data_dir = work / "data"
                n = len(report.written)
                say(f"wrote data/ ({n} file{'' if n == 1 else 's'}, {time.perf_counter() - t:.1f} s)")
            report.timings["data"] = time.perf_counter() - t
        del resolutions
        gc.collect()
        index_stamp = stamps.get("index") if fresh["index"] else None
        generation = None
        if "index" in only:
            t, part = time.perf_counter(), ""
            self.stage, self.writing = "writing index/", None
            if fresh["index"]:
                report.kept.append("index")
            else:
                from .indexer import build_index

                # re-indexes only the editions whose sha256 changed; swapped in with data/ and site/
                indexed = build_index(
                    report.editions,
                    kb / "index",
                    alignments=data_dir / "alignments",
                    swap=False,
                    jobs=self.jobs,
                    scripts=True,  # the site's search data, which the site copies
                    stored=stored_alignments,  # what data/alignments/ holds, without reading it back
                )
                generation = indexed.generation
                part = f", search data {indexed.search_data_seconds:.1f} s"
            report.timings["index"] = time.perf_counter() - t
            say(f"wrote index/ ({report.timings['index']:.1f} s{part})")
        site_stamp = None
        if "site" in only:
            from .site import render_site

            t = time.perf_counter()
            self.stage, self.writing = "writing site/", None
            stats = None
            if fresh["site"] and data_dir == kb / "data":
                report.kept.append("site")
            else:
                pending_site = kb / f".site{PENDING}"
                # the site's search data comes from the index (same ranking as comprules search)
                index = generation or (kb / "index" if (kb / "index").exists() else None)
                stats = render_site(
                    report.editions,
                    work / "site",
                    cited=_cited_by(data_dir),
                    data_dir=data_dir,
                    data_key=data_key,
                    alignments=stored_alignments,
                    alignments_stored=stored_alignments is not None,
                    lineage=stored_lineage,
                    index=index,
                    reuse=[pending_site, kb / "site"],
                )  # kept as is when nothing changed
                if stats.skipped and _fingerprint(pending_site) == _fingerprint(work / "site") is not None:
                    report.reused.append("site")
                site_stamp = _fingerprint(work / "site")
            stored_alignments = None
            report.timings["site"] = time.perf_counter() - t
            parts = "".join(f", {k} {v:.1f} s" for k, v in (stats.timings if stats is not None else {}).items())
            say(f"wrote site/ ({report.timings['site']:.1f} s{parts})")
        self.stage = "swapping the new outputs in"
        if generation is not None:
            from .indexer.build import swap_index

            swap_index(kb / "index", generation)  # one atomic rename of the index link
        if "index" in only and not fresh["index"]:
            index_stamp = {"inputs": key, "data": data_key, "identity": _index_identity(kb)}
        for stage in ("data", "site"):
            if stage in only and (work / stage).is_dir():
                kept = carry_over(kb / stage, work / stage, stage)
                if kept:
                    report.kept_files += kept
                    shown = ", ".join(kept[:3]) + (f" and {len(kept) - 3} more" if len(kept) > 3 else "")
                    say(f"kept {len(kept)} file{'' if len(kept) == 1 else 's'} of yours in {stage}/: {shown}")
                self.swapping[stage] = (work / stage).stat().st_ino
                swap_dir(work / stage, kb / stage)
        new_stamps = {k: v for k, v in stamps.items() if k in STAGES}
        if self.era_scores:
            new_stamps["eras"] = {"code": code_hash(), "scores": self.era_scores}
        if index_stamp is not None:
            new_stamps["index"] = index_stamp
        if site_stamp is not None:
            new_stamps["site"] = {"inputs": key, "data": data_key, "fingerprint": site_stamp}
        export.write_atomic(kb / STAMPS, json.dumps(new_stamps, sort_keys=True, indent=1) + "\n")
        for stage in ("data", "site"):
            _remove(kb / f".{stage}{PENDING}")
        report.kept = [s for s in STAGES if s in report.kept]


#: The parse warnings a build says (the others ``comprules check`` lists): a source cut
#: short, a rule number printed twice.
SAID = ("truncated", "duplicate-number")


def said_restorations(editions: list[Edition]) -> list[str]:
    """One line per edition whose lossy source was repaired (issue 22): "en/2008-05-01:
    4,721 characters restored from en/2008-02-01 and en/2008-07-15 (its source prints
    "?" for them; `comprules show --raw` shows what it prints)"."""
    out = []
    for e in editions:
        count, sources = e.restored_summary()
        if count:
            out.append(
                f"{e.name}: {restored_words(count, sources)} "
                '(its source prints "?" for them; `comprules show --raw` shows what it prints)'
            )
        left = lost_marks(e)
        if left >= LOSSY:  # no neighbour given to repair it from (issue 22, 4)
            shown = lost_example(e)
            out.append(
                f'{e.name}: its source prints "?" between letters {left:,} times ("{shown}"): a file that lost '
                "its quotes or dashes; build it with the editions before and after it to put them back"
            )
    return out


#: The share of a translation's rule numbers its English edition must hold not to be said
#: (the nearest earlier editions of the corpus hold 97.5 %: zh/2022-06-10 in en/2022-04-29).
TWIN_AGREES = 0.9


def said_twins(eras: dict) -> list[str]:
    """One line per translated edition paired, for want of the English edition of its
    date, with one that holds few of its rule numbers: its rules would stand beside other
    rules of the same number (zh/2026-04-17's 702.19 践踏, trample, beside en/2009-07-11's
    702.19 Banding, which holds 36 % of its numbers). Not said of one that a later edition
    of its language with a twin of its date numbers (:func:`~comprules.align.history.translation_routes`)."""
    out = []
    for name, choice in sorted(eras.items()):
        if getattr(choice, "same_date", True) or choice.score >= TWIN_AGREES:
            continue
        lang, _, date = name.partition("/")
        if any(
            other.startswith(f"{lang}/") and other.partition("/")[2] > date and getattr(c, "same_date", False)
            for other, c in eras.items()
        ):
            continue  # numbered through its own later editions to a twin of theirs (translation_routes)
        out.append(
            f"{name}: no English edition of its date among these sources: paired by number with "
            f"{choice.english}, which holds {choice.score:.0%} of its rule numbers (give the English "
            f"edition of {date} to pair it with its own)"
        )
    return out


def said_warnings(editions: list[Edition]) -> list[str]:
    """One line per :data:`SAID` warning of ``editions``: ``SOURCE: line N: message
    (EDITION)``, the first three duplicated numbers of an edition and how many more."""
    out = []
    for e in editions:
        duplicates = [w for w in e.warnings if w.kind == "duplicate-number"]
        for w in e.warnings:
            if w.kind == "truncated":
                out.append(f"{e.source}: line {w.line}: {w.message} ({e.name})")
        for w in duplicates[:3]:
            out.append(f"{e.source}: line {w.line}: rule {w.message} ({e.name}; comprules check lists every problem)")
        if len(duplicates) > 3:
            out.append(f"{e.source}: {len(duplicates) - 3} more rule numbers printed twice ({e.name})")
    return out


def _cited_by(data: Path) -> dict[str, dict[str, list[str]]]:
    """Edition → cited rule id → the ids citing it in that edition, from the database
    (what the site shows as "cited by")."""
    from .store import DB_NAME, Store

    store = Store(data / DB_NAME)
    try:
        return {row["name"]: store.cited_by_index(row["name"]) for row in store.rows}
    finally:
        store.close()


def _complete(data: Path) -> bool:
    """True when every file the manifest of ``data`` names is there (none was deleted by hand)."""
    rows = _read_json(data / "editions.json").get("editions")
    if not rows:
        return False
    return all((data / row["path"]).is_file() and graph.graph_path(data, row["name"]).is_file() for row in rows)


def _fingerprint(site: Path) -> str | None:
    """The fingerprint a site render stored in ``site`` (``comprules.site.cache``), read
    without importing the site stage."""
    try:
        return (site / ".fingerprint").read_text(encoding="utf-8").strip()
    except OSError:
        return None
