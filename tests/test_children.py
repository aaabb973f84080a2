"""Child processes end with their parent, and a pool of them still ends when told to.

A worker's parent-watch thread (``children.py``) once took the SIGTERM that
``Pool.terminate()`` sends: the worker's main thread, waiting for its next task, never
woke, and the build waited for it forever (seen on ``comprules build`` writing the
editions' zips). Each case runs in its own process under a time limit, so that a hang
is a failure, not a stuck suite.
"""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import multiprocessing, sys, time
from comprules.children import pool_initializer

def square(x):
    return x * x

for attempt in range(int(sys.argv[1])):
    with multiprocessing.get_context("fork").Pool(2, initializer=pool_initializer) as pool:
        assert pool.map(square, range(8)) == [x * x for x in range(8)]
        time.sleep(0.05)  # the workers wait for their next task, the watcher sleeps
    # leaving the block terminates the pool: SIGTERM to each worker, then join
print("ended")
"""


def test_a_pool_of_workers_that_watch_their_parent_ends_when_terminated():
    out = subprocess.run([sys.executable, "-c", SCRIPT, "20"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ended", out.stderr[-2000:]


def test_the_watcher_thread_blocks_the_signals_of_the_main_thread():
    script = """
import signal, threading
from comprules.children import die_with_parent
die_with_parent()
watcher = next(t for t in threading.enumerate() if t.name == "parent-watch")
with open(f"/proc/self/task/{watcher.native_id}/status") as f:
    blocked = int(next(l for l in f if l.startswith("SigBlk:")).split()[1], 16)
print(all(blocked >> (s - 1) & 1 for s in (signal.SIGTERM, signal.SIGINT)))
print(signal.pthread_sigmask(signal.SIG_BLOCK, []) == set())
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_fork_pool_joins_its_workers_and_terminates_them_on_an_error():
    script = """
import os, time
from comprules.children import fork_pool

def pid(_):
    return os.getpid()

def alive(p):
    try:
        with open(f"/proc/{p}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False

with fork_pool(2, maxtasksperchild=1) as pool:
    workers = set(pool.map(pid, range(6)))
print(len(workers) >= 2, [p for p in workers if alive(p)] == [])
try:
    with fork_pool(2) as pool:
        workers = set(pool.map(pid, range(4)))
        raise RuntimeError("stop")
except RuntimeError:
    pass
time.sleep(0.5)
print([p for p in workers if alive(p)] == [])
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["True", "True", "True"], out.stderr[-2000:]


# A worker of `serve --workers N` is spawned: it imports for a second or more before it
# loads the application and starts watching. Killed in between, the supervisor had left
# it to init, and the worker watched init for ever (a flaky failure of
# tests/test_server.py's kill -9 case on a loaded machine).
LATE_WORKER = """
import os, subprocess, sys
worker = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(1.0)\\nfrom comprules.server import app_from_env\\n"
     "try:\\n    app_from_env()\\nexcept Exception:\\n    pass\\ntime.sleep(60)"],
    env={**os.environ, "COMPRULES_SERVE_KB": sys.argv[1], "COMPRULES_SERVE_SUPERVISOR": str(os.getpid())},
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print(worker.pid, flush=True)
os._exit(0)  # the supervisor gone before its worker reached the application
"""


def test_a_worker_that_loads_the_application_after_its_supervisor_died_ends_at_once(tmp_path):
    import os
    import time

    out = subprocess.run([sys.executable, "-c", LATE_WORKER, str(tmp_path)], capture_output=True, text=True, timeout=60)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    if _alive(pid):
        os.kill(pid, 9)
        raise AssertionError("the worker outlived its supervisor by 20 s")


def _alive(pid: int) -> bool:
    """Running or sleeping; not gone, not a zombie left to init."""
    from pathlib import Path

    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
