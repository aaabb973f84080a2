"""Child processes that end with their parent (``build -j N``, ``serve --workers N``).

A parent killed with SIGKILL runs no clean-up: its pool's workers, or uvicorn's worker
processes, would live on (their parent becomes 1), holding the knowledge base's lock or
the server's port. :func:`die_with_parent`, called first thing in each child, starts a
thread that ends the child once its parent is gone.

Linux's ``prctl(PR_SET_PDEATHSIG)`` is not used: it fires when the *thread* that started
the child ends, not the process, and pools start workers from their own threads
(``multiprocessing.Pool`` replaces a worker from its handler thread, which ends with the
pool; ``ProcessPoolExecutor`` from whichever thread submits), so it killed healthy
workers in the middle of a task, holding the pool's queue lock.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Seconds between two looks at the parent.
POLL = 0.25
#: The signals only the main thread takes (Python runs their handlers there).
_FOR_THE_MAIN_THREAD = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT})


def die_with_parent(parent: int | None = None) -> None:
    """End this process (SIGKILL: nothing of an orphan's is worth finishing) when its
    parent (``parent``, default the current one) is gone, looked at every
    :data:`POLL` seconds; at once when it is gone already. Pass ``parent`` whenever the
    child can reach this call late (a spawned process imports first): by then an
    orphan's current parent is init, and the default would watch init."""
    expected = os.getppid() if parent is None else parent
    if os.getppid() != expected:  # died before this call
        os.kill(os.getpid(), signal.SIGKILL)
    # The watcher must never take a signal meant for the process: the kernel gives a
    # process's SIGTERM to any thread that does not block it, and taken by this one it
    # would not wake the main thread from a blocking wait (a pool worker waiting for its
    # next task: Pool.terminate() then waited for it forever). A thread starts with the
    # mask of the thread that starts it: block, start, restore.
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _FOR_THE_MAIN_THREAD)
    try:
        threading.Thread(target=_watch, args=(expected,), daemon=True, name="parent-watch").start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    os.kill(os.getpid(), signal.SIGKILL)


def pool_initializer(parent: int | None = None) -> None:
    """For ``ProcessPoolExecutor(initializer=..., initargs=(os.getpid(),))`` and
    ``multiprocessing.Pool``: each worker ends with the process that started it,
    ``parent`` (taken before the worker starts: a parent killed before the worker got
    here has already left it to init, whose pid ``os.getppid()`` would give)."""
    die_with_parent(parent)


@contextmanager
def fork_pool(processes: int, **kwargs) -> Iterator:
    """A ``multiprocessing.Pool`` of forked workers that end with this process
    (:func:`pool_initializer`); ``kwargs`` go to the pool (``maxtasksperchild``).

    When the block ends, the pool is closed and joined: each worker leaves after its
    last task, and no signal is needed. Only when the block raises is it terminated
    (SIGTERM to each worker; ``Pool``'s own ``with`` does that every time, and a worker
    that missed the signal while waiting for work was waited for forever).
    """
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(
        processes, initializer=pool_initializer, initargs=(os.getpid(),), **kwargs
    )
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    pool.close()
    pool.join()
