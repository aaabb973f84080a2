"""One exclusive lock file per writer (knowledge base, search index), shared by the stages.

A lock is an ``fcntl.flock`` on a small file that also holds ``pid N`` of its holder, so
that a second writer can say who is in the way. The lock goes with the process: a build
killed with SIGKILL leaves no stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import BuildLocked


@contextmanager
def exclusive(path: Path, busy: Callable[[str], str], wait: float = 0.0) -> Iterator[None]:
    """Hold the lock file ``path``, waiting up to ``wait`` seconds for its holder.

    Raises :class:`BuildLocked` with the message ``busy(holder)`` (holder: ``"pid N"``)
    when the lock is still held after ``wait`` seconds.
    """
    with open(path, "a+") as fh:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    fh.seek(0)
                    raise BuildLocked(busy(fh.read().strip() or "another process")) from None
                time.sleep(0.05)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fh.seek(0)
            fh.truncate()
            fh.flush()
            fcntl.flock(fh, fcntl.LOCK_UN)
