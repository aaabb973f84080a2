"""The knowledge base a server answers from: one consistent generation, swapped on rebuild.

A build (:func:`comprules.build.build`) swaps ``index/`` (a symbolic link to a
generation), then ``data/``, then ``site/``, under the lock ``.lock``; in between, the
folders on disk are of two builds. :class:`Holder` keeps a :class:`Snapshot` whose
folders are opened by file descriptor (``/proc/self/fd/N`` on Linux: the folder the
server opened, wherever the build renames it), and takes a new snapshot only once the
three folders changed *and* the build let go of its lock. So a request is answered
wholly from the old knowledge base or wholly from the new one, never half of each; a
file the build already deleted from the old one gives 503 (retry) until the build ends.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import OrderedDict
from pathlib import Path

from ..errors import UsageError
from ..kb import KnowledgeBase, no_knowledge_base
from ..model import Edition
from ..store import DB_NAME

_PROC_FD = Path("/proc/self/fd")


class _SnapshotKB(KnowledgeBase):
    """A knowledge base read through opened folders; never a source file path for an
    edition (the database keeps the last editions asked for, rebuilt from its rows). An
    error about an edition's name points at the route that lists them (a trial: an HTTP
    answer told to run `comprules editions`)."""

    EDITIONS_LISTED_BY = "GET /api/v1/editions"

    def __init__(self, root: Path, data: Path, index: Path):
        super().__init__(root, data=data, index=index)
        self.files = False

    def load(self, spec, *, lang=None) -> Edition:
        return self.store.edition(self.resolve_name(spec, lang=lang))


def _read_ahead(path: Path) -> None:
    """Ask the operating system to read ``path`` (the database, each file of the index)
    into its page cache now, in the background (``posix_fadvise(WILLNEED)``: no wait, no
    memory of ours): the first diff
    or lineage of two far editions reads stored alignments all over the database, and
    from a disk each page read costs more than the diff itself (a diff of 2011-02-04 and
    2014-09-25 right after the page cache was dropped: 744 ms, 283 ms of it computing; 300
    ms once the file was read ahead). Nothing where the call is not available."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # (a folder, a file gone)
        return
    try:
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


class Snapshot:
    """One generation of a knowledge base: ``kb`` (data and index), ``site`` (a folder or
    ``None`` when the build wrote none), ``key`` (what identifies the generation), and a
    small cache of computed answers (``memo``)."""

    def __init__(self, root: Path):
        self.root = root
        self._fds: list[int] = []
        data = self._open_dir(root / "data")
        if data is None:
            raise no_knowledge_base(root)
        index = Path(os.path.realpath(root / "index"))
        site = self._open_dir(root / "site")
        self.key = _key(root)
        self.kb = _SnapshotKB(root, data, index)
        for path in [data / DB_NAME, *(sorted(index.iterdir()) if index.is_dir() else ())]:
            _read_ahead(path)
        self.site = site if site is not None and (site / "index.html").is_file() else None
        #: ``(root, data, index)`` as another process opens them: the folders this one
        #: opened, through ``/proc/<pid>/fd/N`` (the worker processes, :mod:`.work`).
        self.where = (str(root), str(data).replace("/proc/self/", f"/proc/{os.getpid()}/", 1), str(index))
        self.memo: OrderedDict = OrderedDict()
        self._memo_lock = threading.Lock()
        #: worker jobs under way (key → their future), for the requests that ask the same meanwhile
        self._running: dict = {}
        self.generation = _generation(self.key)

    def _open_dir(self, path: Path) -> Path | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None
        self._fds.append(fd)
        proc = _PROC_FD / str(fd)
        return proc if proc.is_dir() else path

    def remember(self, key, compute, keep: int = 64):
        """``compute()`` once per ``key`` for this generation; of each kind of key (its
        first item) the last ``keep`` are kept (none when ``keep`` is 0)."""
        if keep <= 0:
            return compute()
        kind = key[0]
        with self._memo_lock:
            shelf = self.memo.setdefault(kind, OrderedDict())
            if key in shelf:
                shelf.move_to_end(key)
                return shelf[key]
        value = compute()
        self._keep(key, value, keep)
        return value

    def _keep(self, key, value, keep: int) -> None:
        with self._memo_lock:
            shelf = self.memo.setdefault(key[0], OrderedDict())
            shelf[key] = value
            while len(shelf) > keep:
                shelf.popitem(last=False)

    def recall(self, key):
        """The answer kept for ``key`` (:meth:`remember`), or ``None``."""
        with self._memo_lock:
            shelf = self.memo.get(key[0])
            if shelf is None or key not in shelf:
                return None
            shelf.move_to_end(key)
            return shelf[key]

    async def answer(self, key, compute, keep: int = 64):
        """:meth:`remember` for a route: an answer already kept is given here, on the
        event loop (no thread to wait for: a retry after a 503 is answered at once); the
        work, in the thread pool."""
        found = self.recall(key) if keep > 0 else None
        if found is not None:
            return found
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(self.remember, key, compute, keep)

    async def job(self, key, workers, name: str, *args, keep: int = 64) -> bytes:
        """The bytes of the worker job ``name`` (:mod:`.work`) for ``args``, kept as
        :meth:`remember` keeps answers: an answer kept is given at once; else the job is
        handed to a worker process and awaited on the event loop (no thread waits for it).
        A request for a job already under way waits for it (four clients asking one cold
        diff, or one old edition's zip, compute it once); runs on the event loop only."""
        found = self.recall(key) if keep > 0 else None
        if found is not None:
            return found
        running = self._running.get(key)
        if running is not None:  # asked again while a worker computes it: the same answer, once
            return await asyncio.shield(running)
        future = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            value = await workers.call(self, name, *args)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when none waited
            raise
        finally:
            del self._running[key]
        future.set_result(value)
        if keep > 0:
            self._keep(key, value, keep)
        return value

    def close(self) -> None:
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []


def _generation(key: tuple) -> str:
    """The name of a generation (``X-Comprules-Generation``): the inodes of ``data/``
    and ``site/`` and the index generation's folder name."""
    return f"{key[0]}-{key[2]}-{os.path.basename(key[1])}"


def _key(root: Path) -> tuple:
    """What changes when a build swaps a folder in: the folders' inodes and the index's target."""

    def ino(p: Path):
        try:
            return os.stat(p).st_ino
        except OSError:
            return None

    try:  # index/ is a symbolic link to its generation (.index.gen-N): its target names it
        index = os.readlink(root / "index")
    except OSError:
        index = os.path.realpath(root / "index")
    return (ino(root / "data"), index, ino(root / "site"))


def building(root: Path) -> bool:
    """Whether a build holds ``root/.lock`` (it writes ``pid N`` there while it does; the
    lock itself is not touched, so a build starting now is never turned away)."""
    try:
        holder = (root / ".lock").read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return False
    if not holder.startswith("pid "):
        return False
    try:
        os.kill(int(holder[4:]), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


class Holder:
    """The current :class:`Snapshot` of the knowledge base at ``root``, renewed after a
    rebuild. Raises :class:`UsageError` when ``root`` is not a knowledge base."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.current = Snapshot(self.root)
        self._previous: list[Snapshot] = []
        self._lock = threading.Lock()

    def get(self) -> Snapshot:
        """The snapshot to answer one request from (checked on every request: two stats
        and a readlink)."""
        snap = self.current
        if _key(self.root) == snap.key or building(self.root):
            return snap
        with self._lock:
            if self.current is not snap:
                return self.current
            try:
                fresh = Snapshot(self.root)
            except UsageError:
                return snap
            self.current = fresh
            self._previous.append(snap)
            while len(self._previous) > 2:  # requests still reading an old one finish first
                self._previous.pop(0).close()
            return fresh

    def building(self) -> bool:
        return building(self.root)

    def swapped_site(self, snap: Snapshot) -> tuple[Path | None, str] | None:
        """``(site folder, generation)`` of the knowledge base on disk when its ``site/``
        is no longer the one ``snap`` opened (a build swapped a new one in, and is
        deleting the old one, which ``snap`` still reads), else ``None``."""
        key = _key(self.root)
        if key[2] is None or key[2] == snap.key[2]:
            return None
        site = self.root / "site"
        return (site if (site / "index.html").is_file() else None), _generation(key)
