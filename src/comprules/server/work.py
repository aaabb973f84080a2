"""The server's heavy answers, computed in worker processes beside it.

A diff, a lineage, a search, a whole edition's Academy Ruins answer take from a few to
a few hundred milliseconds of Python; in the server's own process they would hold the
interpreter's lock and every other client (a static page, a rule) would wait. They are
computed in worker processes instead (:class:`Workers`, one for two cores by default),
each reading the same knowledge-base generation as the server, through the folders the
server opened (``/proc/<server pid>/fd/N``), so an answer never mixes two builds. A route
awaits :meth:`Workers.call` (through :meth:`.state.Snapshot.job`, which keeps the
answers) on the event loop, which goes on answering meanwhile.

Each worker is a process of its own (multiprocessing's *spawn*) joined to the server by a
socket pair that the event loop reads and writes itself: a job is one frame out (its
number and the pickled name and arguments), its answer one frame back (the bytes, or the
pickled error). No thread of the server takes part. ``ProcessPoolExecutor`` did the same
through a queue-feeding thread and a result thread per pool, whose hand-overs cost the
server's process 150 µs of CPU a job against 50 µs so (docs/measurements.md, "Server").
A worker takes two jobs at a time (the next one waits in its socket
while it computes); the others wait in the server, where a job whose request was cut off
(:mod:`.guard`, 5 s) is dropped before it starts.

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
import collections
import os
import pickle
import signal
import socket
import struct
import threading
from collections.abc import Callable
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
def history(kb, number: str, name: str, follow: bool = False) -> bytes:
    from ..align.history import kb_history

    return encoded({"lineage": [s.to_json() for s in kb_history(kb, number, name, follow=follow)]})


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
    """Nothing: a worker started (:func:`_settle`) and its knowledge base opened (the
    server warms its pool)."""
    return b""


# -- in the worker -------------------------------------------------------------------------

_KBS: dict[tuple[str, str, str], object] = {}

#: A job's frame: its payload's size and its number; an answer's: its size, the job's
#: number and whether it is an error (1: a pickled exception) or the answer's bytes (0).
_JOB = struct.Struct("<QQ")
_ANSWER = struct.Struct("<QQB")


def _serve(channel: socket.socket, parent: int) -> None:
    """A worker's life: read a job, answer it, until the server closes its end (or dies:
    :func:`comprules.children.die_with_parent`). Ctrl-C, which a terminal gives the
    whole process group, is the server's to act on."""
    from ..children import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (ignored from its start when the main thread started it)
    die_with_parent(parent)
    _settle()
    reader = channel.makefile("rb", buffering=1 << 16)
    try:
        while True:
            head = reader.read(_JOB.size)
            if len(head) < _JOB.size:
                return  # the server is done with this worker
            size, number = _JOB.unpack(head)
            payload = reader.read(size)
            try:
                name, where, args = pickle.loads(payload)
                body, status = _run(name, where, args), 0
            except Exception as exc:  # the route raises it as it is (UsageError, NotFound…)
                body, status = _pickled(exc), 1
            channel.sendall(_ANSWER.pack(len(body), number, status))
            channel.sendall(body)
    except OSError:  # the server closed its end while this one computed (it is stopping)
        return


def _settle() -> None:
    """Import the jobs' modules now (not at the first request: alignment's is 50 ms of a
    first diff), then set every object alive aside from the cyclic garbage collector
    (``gc.freeze``): the modules' objects live as long as the worker, and a full
    collection that the many objects of a diff sets off no longer reads them each time.
    After 600 searches, 12 cold diffs took 12 % less of the worker's CPU, the slowest
    240–360 ms against 310–350 (docs/measurements.md, "Server")."""
    import gc

    from .. import academy  # noqa: F401
    from ..align import alignment, history  # noqa: F401
    from ..indexer import searching  # noqa: F401

    gc.collect()
    gc.freeze()


def _pickled(exc: Exception) -> bytes:
    try:
        return pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an error that does not pickle: its type and message
        return pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))


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


#: Jobs a worker holds at once: the one it computes and the next, waiting in its socket.
DEPTH = 2


def _start_ignoring_ctrl_c(process) -> None:
    """Start ``process`` with SIGINT ignored from its first instruction: Ctrl-C in a
    terminal goes to the whole process group, and a worker taking it while it imports
    printed a traceback beside the server's one line (a trial, in the server's first
    second). An ignored signal stays ignored through exec, and Python then installs no
    handler of its own; the server's handler is put back at once, the signal blocked
    meanwhile so that a Ctrl-C of that instant waits for it (Linux keeps a blocked signal
    pending even while it is ignored). Only the main thread may change a handler: started
    from another (a worker replaced), the worker ignores SIGINT once it runs
    (:func:`_serve`)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        process.start()  # (None: a handler set outside Python, which could not be put back)
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class _Worker:
    """One worker process and the server's end of its socket, read and written by the
    event loop of the requests (a new loop, as each of a test's clients runs, takes it
    over); every method runs on that loop's thread."""

    def __init__(self, context, parent: int):
        ours, theirs = socket.socketpair()
        self.process = context.Process(target=_serve, args=(theirs, parent), name="comprules-worker", daemon=True)
        _start_ignoring_ctrl_c(self.process)
        theirs.close()
        ours.setblocking(False)
        self.sock = ours
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiting: collections.deque[tuple[int, bytes, asyncio.Future | None]] = collections.deque()
        self.running: dict[int, asyncio.Future | None] = {}
        self.dead = False
        self._in = bytearray()
        self._out = bytearray()

    def load(self) -> int:
        return len(self.waiting) + len(self.running)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read and write the socket from ``loop`` (a no-op when it does already)."""
        if self.loop is loop or self.dead:
            return
        old, self.loop = self.loop, loop
        if old is not None and not old.is_closed():
            old.remove_reader(self.sock)
            old.remove_writer(self.sock)
        loop.add_reader(self.sock, self._readable)
        if self._out:
            loop.add_writer(self.sock, self._writable)

    def submit(self, number: int, payload: bytes, future: asyncio.Future | None) -> None:
        self.waiting.append((number, payload, future))
        self._send()

    def _send(self) -> None:
        """Hand waiting jobs to the process, up to :data:`DEPTH` at once; a job whose
        request was cut off meanwhile is dropped."""
        while self.waiting and len(self.running) < DEPTH:
            number, payload, future = self.waiting.popleft()
            if future is not None and future.done():
                continue
            self.running[number] = future
            self._write(_JOB.pack(len(payload), number) + payload)

    def _write(self, frame: bytes) -> None:
        if not self._out:
            try:
                sent = self.sock.send(frame)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.end()
                return
            if sent == len(frame):
                return
            frame = frame[sent:]
            if self.loop is not None:
                self.loop.add_writer(self.sock, self._writable)
        self._out += frame

    def _writable(self) -> None:
        try:
            sent = self.sock.send(self._out)
        except BlockingIOError:
            return
        except OSError:
            self.end()
            return
        del self._out[:sent]
        if not self._out and self.loop is not None:
            self.loop.remove_writer(self.sock)

    def _readable(self) -> None:
        try:
            data = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the process ended (killed, out of memory)
            self.end()
            return
        buf = self._in
        buf += data
        while len(buf) >= _ANSWER.size:
            size, number, status = _ANSWER.unpack_from(buf)
            end = _ANSWER.size + size
            if len(buf) < end:
                break
            body = bytes(buf[_ANSWER.size : end])
            del buf[:end]
            future = self.running.pop(number, None)
            if future is not None and not future.done():
                try:
                    if status:
                        future.set_exception(pickle.loads(body))
                    else:
                        future.set_result(body)
                except RuntimeError:  # the future of a loop closed since (a test's client)
                    pass
        self._send()

    def end(self) -> None:
        """Close the server's end (the process then ends) and fail the jobs it held with
        :class:`BrokenProcessPool` (:meth:`Workers.call` tries once more elsewhere)."""
        if self.dead:
            return
        self.dead = True
        if self.loop is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.sock)
            self.loop.remove_writer(self.sock)
        self.sock.close()
        broken = BrokenProcessPool("a worker process ended while computing")
        for future in [*self.running.values(), *(f for _, _, f in self.waiting)]:
            if future is not None and not future.done():
                try:
                    future.set_exception(broken)
                except RuntimeError:
                    pass
        self.running.clear()
        self.waiting.clear()

    def join(self, timeout: float) -> None:
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout)


class Workers:
    """:func:`processes` worker processes, started when first asked."""

    def __init__(self, count: int):
        self.count = count
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._numbers = iter(range(1, 1 << 62))

    def _started(self) -> list[_Worker]:
        """The workers, those that ended replaced (a new process: some milliseconds). A
        worker has ended when the event loop read the end of its socket (:meth:`_Worker.end`)."""
        with self._lock:
            for worker in self._workers:
                if worker.dead:
                    worker.join(1.0)
            self._workers = [w for w in self._workers if not w.dead]
            if len(self._workers) < self.count:
                import multiprocessing

                context = multiprocessing.get_context("spawn")
                while len(self._workers) < self.count:
                    self._workers.append(_Worker(context, os.getpid()))
            return list(self._workers)

    async def call(self, snap, name: str, *args) -> bytes:
        """The bytes of job ``name`` on the generation ``snap`` reads, awaited on the event
        loop (with no workers, the job runs in a thread). Workers are started, or one that
        ended replaced, from a thread (starting a process takes some milliseconds). Raises
        what the job raises; :class:`BrokenProcessPool` when a worker ended under the job
        twice."""
        if self.count <= 0:
            from starlette.concurrency import run_in_threadpool

            return await run_in_threadpool(JOBS[name], snap.kb, *args)
        loop = asyncio.get_running_loop()
        payload = pickle.dumps((name, snap.where, args), protocol=pickle.HIGHEST_PROTOCOL)
        for attempt in (1, 2):
            workers = self._workers
            if len(workers) < self.count or any(w.dead for w in workers):
                workers = await asyncio.to_thread(self._started)
            worker = min(workers, key=_Worker.load)
            worker.attach(loop)
            future = loop.create_future()
            worker.submit(next(self._numbers), payload, future)
            try:
                return await future
            except BrokenProcessPool:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def warm(self, snap) -> None:
        """Start the workers and import their modules now (not at the first request)."""
        if self.count <= 0:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        payload = pickle.dumps(("ready", snap.where, ()), protocol=pickle.HIGHEST_PROTOCOL)
        for worker in self._started():
            if loop is not None:
                worker.attach(loop)
            worker.submit(next(self._numbers), payload, None)

    def close(self) -> None:
        """End the workers and wait for them (none left defunct)."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.end()
        for worker in workers:
            worker.join(5.0)
