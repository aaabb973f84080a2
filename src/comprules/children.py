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

#: Seconds between two looks at the parent.
POLL = 0.25


def die_with_parent(parent: int | None = None) -> None:
    """End this process (SIGKILL: nothing of an orphan's is worth finishing) when its
    parent (``parent``, default the current one) is gone, looked at every
    :data:`POLL` seconds; at once when it is gone already."""
    expected = os.getppid() if parent is None else parent
    if os.getppid() != expected:  # died before this call
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_watch, args=(expected,), daemon=True, name="parent-watch").start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    os.kill(os.getpid(), signal.SIGKILL)


def pool_initializer() -> None:
    """For ``ProcessPoolExecutor(initializer=...)`` and ``multiprocessing.Pool``: each
    worker ends with the process that started it."""
    die_with_parent()
