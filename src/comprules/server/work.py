"""The server's heavy answers, computed in worker processes beside it.

A diff, a lineage, a search, a whole edition's Academy Ruins answer take from a few to
a few hundred milliseconds of Python; in the server's own process they would hold the
interpreter's lock and every other client (a static page, a rule) would wait. They are
computed in a pool of worker processes instead (:class:`Workers`, one for two cores by
default), each reading the same knowledge-base generation as the server, through the
folders the server opened (``/proc/<server pid>/fd/N``), so an answer never mixes two
builds. A route awaits :meth:`Workers.call` (through :meth:`.state.Snapshot.job`, which
keeps the answers) on the event loop, which goes on answering meanwhile; no thread waits
for the worker.

Each job is a function of this module named in :data:`JOBS`, given the knowledge base
(:class:`comprules.server.state._SnapshotKB`) and plain arguments, returning the
answer's bytes; the errors it raises (:class:`~comprules.errors.UsageError`,
:class:`~comprules.errors.NotFound`) reach the route as they are. The workers end with
the server, even one killed with SIGKILL (:func:`comprules.children.die_with_parent`).

``$COMPRULES_SERVE_PROCESSES`` sets the number of workers; 0 computes in the server's
own threads (a machine where processes cannot be started).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .responses import encoded

#: job name → function(kb, *args) → bytes
JOBS: dict[str, Callable[..., bytes]] = {}


def job(fn: Callable[..., bytes]) -> Callable[..., bytes]:
    JOBS[fn.__name__] = fn
    return fn


@job
def diff(kb, old: str, new: str, section: str | None) -> bytes:
    from ..align.history import diff as run_diff

    return encoded(run_diff(kb, old, new, section=section).to_json())


@job
def edition_zip(kb, site: str, name: str) -> bytes:
    """The zip of edition ``name`` from the site folder ``site`` and the index
    (:func:`comprules.site.bundle.bundle`: ``UsageError`` when they do not hold it), its
    search data computed from the index when the build did not write it."""
    from ..indexer.export import edition_search
    from ..site.bundle import bundle

    return bundle(Path(site), kb.index_dir, name, search=edition_search(kb.index_dir, name))


@job
def history(kb, number: str, name: str) -> bytes:
    from ..align.history import kb_history

    return encoded({"lineage": [s.to_json() for s in kb_history(kb, number, name)]})


@job
def search(kb, q: str, options: dict) -> bytes:
    from .. import kb as kb_module

    return encoded(kb_module.search(kb, q, **options).as_json())


@job
def glossary(kb, name: str) -> bytes:
    from .. import kb as kb_module

    return encoded(kb_module.kb_glossary(kb, name))


@job
def check(kb, name: str) -> bytes:
    from ..check import check_kb

    return encoded(check_kb(kb, name).as_json())


@job
def ar_edition(kb, what: str, name: str) -> bytes:
    """A whole edition's Academy Ruins answer: ``cr``, ``keywords``, ``glossary``,
    ``unofficial``, ``toc`` (JSON) or ``file`` (the raw text, UTF-8)."""
    from .. import academy

    ed = kb.load(name)
    if what == "file":
        return academy.raw_text(ed).encode("utf-8")
    make = {
        "cr": academy.all_rules,
        "keywords": academy.keywords,
        "glossary": academy.glossary,
        "unofficial": academy.unofficial_glossary,
        "toc": academy.toc,
    }
    return encoded(make[what](ed))


@job
def ar_glossary_entry(kb, name: str, term: str, fuzzy: bool, unofficial: bool) -> bytes:
    from .. import academy

    return encoded(academy.glossary_entry(kb.load(name), term, fuzzy=fuzzy, unofficial=unofficial))


@job
def ar_trace(kb, rule_id: str, name: str, find_definition: bool) -> bytes:
    from .. import academy

    return encoded(academy.trace(kb, rule_id, name, find_definition=find_definition))


@job
def ar_diff(kb, old: str | None, new: str | None, nav: bool, lang: str, edition: str | None) -> bytes:
    from .. import academy

    return encoded(academy.diff(kb, old, new, nav=nav, lang=lang, edition=edition))


@job
def ready(kb) -> bytes:
    """Nothing: a worker started and its modules imported (the server warms its pool)."""
    from .. import academy  # noqa: F401
    from ..align import alignment, history  # noqa: F401  (alignment: 50 ms of a first diff)
    from ..indexer import searching  # noqa: F401

    return b""


# -- in the worker -------------------------------------------------------------------------

_KBS: dict[tuple[str, str, str], object] = {}


def _start(parent: int) -> None:
    from ..children import die_with_parent

    die_with_parent(parent)


def _run(name: str, where: tuple[str, str, str], args: tuple) -> bytes:
    """One job in a worker: the knowledge base at ``where`` (root, data, index), opened
    once and kept while the server reads that generation."""
    kb = _KBS.get(where)
    if kb is None:
        from .state import _SnapshotKB

        while len(_KBS) >= 2:  # the generation before the last one is done with
            _KBS.pop(next(iter(_KBS)))
        root, data, index = where
        kb = _KBS[where] = _SnapshotKB(Path(root), Path(data), Path(index))
        kb.store.EDITIONS_KEPT = 1  # whole editions kept per worker (each some tens of MB)
    try:
        return JOBS[name](kb, *args)
    finally:
        if name in _LARGE:
            _trim()


#: Jobs that make many short-lived objects: the memory they freed is given back after them.
_LARGE = frozenset({"diff", "history", "ar_edition", "ar_diff", "check", "glossary", "edition_zip"})


def _trim() -> None:
    """Give the memory freed back to the system (glibc's ``malloc_trim``; nothing elsewhere)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


# -- in the server -------------------------------------------------------------------------


def processes(workers: int = 1) -> int:
    """The number of worker processes: ``$COMPRULES_SERVE_PROCESSES``, else half the cores
    (the other half answers the static site, the rules and the clients) shared among the
    server's ``workers`` processes, at least one each. On the 2-core machine one worker
    gave every figure of ``benchmarks/serve.py`` at least as good as two (searches 509 and
    491 req/s, a static page's p99 beside four cold diffs ×1.66 and ×3.00, 391 and 543 MB)."""
    value = os.environ.get("COMPRULES_SERVE_PROCESSES")
    if value is not None:
        try:
            return max(0, int(value))
        except ValueError:
            pass
    return max(1, (os.cpu_count() or 1) // 2 // max(1, workers))


class Workers:
    """A pool of :func:`processes` worker processes, started when first asked."""

    def __init__(self, count: int):
        self.count = count
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                import multiprocessing

                self._pool = ProcessPoolExecutor(
                    self.count,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start,
                    initargs=(os.getpid(),),
                )
            return self._pool

    async def call(self, snap, name: str, *args) -> bytes:
        """The bytes of job ``name`` on the generation ``snap`` reads, awaited on the event
        loop: the job's future is the loop's to wait for, so no thread of the server sits
        blocked while a worker computes (with no workers, the job runs in a thread). A new
        pool's first job is submitted from a thread (starting a process takes some
        milliseconds). Raises what the job raises."""
        if self.count <= 0:
            from starlette.concurrency import run_in_threadpool

            return await run_in_threadpool(JOBS[name], snap.kb, *args)
        for attempt in (1, 2):
            pool = self._pool
            try:
                if pool is None:
                    pool = await asyncio.to_thread(self._executor)
                    future = await asyncio.to_thread(pool.submit, _run, name, snap.where, args)
                else:
                    future = pool.submit(_run, name, snap.where, args)
                return await asyncio.wrap_future(future)
            except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool, once
                with self._lock:
                    if self._pool is pool:  # (not one another job made meanwhile)
                        self._pool = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def warm(self, snap) -> None:
        """Start the workers and import their modules now (not at the first request)."""
        if self.count > 0:
            pool = self._executor()
            for _ in range(self.count):
                pool.submit(_run, "ready", snap.where, ())

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)  # joined: none left defunct
                self._pool = None
