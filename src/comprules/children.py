"""Child processes that end with their parent (``build -j N``, ``serve --workers N``).

A parent killed with SIGKILL runs no clean-up: its pool's workers, or uvicorn's worker
processes, would live on (their parent becomes 1), holding the knowledge base's lock or
the server's port. :func:`die_with_parent`, called first thing in each child, asks
Linux to send the child SIGTERM when the parent dies (``prctl(PR_SET_PDEATHSIG)``);
where that call does not exist (not Linux), a thread watches the parent instead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None, sig: int = signal.SIGTERM) -> None:
    """End this process with ``sig`` when its parent (``parent``, default the current
    one) dies. When the parent is already gone (it died before this call), ends now."""
    expected = os.getppid() if parent is None else parent
    armed = False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        armed = False
    if os.getppid() != expected:  # died between the fork and the call above
        os.kill(os.getpid(), sig)
        return
    if not armed:
        threading.Thread(target=_watch, args=(expected, sig), daemon=True, name="parent-watch").start()


def _watch(parent: int, sig: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), sig)


def pool_initializer() -> None:
    """For ``ProcessPoolExecutor(initializer=...)`` and ``multiprocessing.Pool``: each
    worker ends with the process that started it."""
    die_with_parent()
