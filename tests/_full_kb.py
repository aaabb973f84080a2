"""The whole-corpus knowledge base of the ``full_kb`` fixture, built beside the tests.

Under pytest-xdist (``make test``) the first worker to collect a test that reads
``full_kb`` starts this script (:func:`start`) as soon as its collection is done, so the
build (about 100 s on two cores) runs while the workers go through the tests that do not
read it (``conftest.py`` hands those out first). The script holds the fixture's lock
while it builds and writes the fixture's summary last; the fixture waits on that lock
and reads the summary, or builds the knowledge base itself when the script failed.

Run as ``python tests/_full_kb.py SHARED PID SOURCE… [--cards FILE]``: it ends when the
process ``PID`` (the pytest run) is gone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

#: Seconds between two looks at the pytest run, and the longest wait for the script to
#: take the lock.
POLL, START_TIMEOUT = 0.5, 60.0


def build_shared(shared: Path, sources: list[Path], cards: Path | None) -> None:
    """Build the knowledge base at ``shared/kb`` and write ``shared/report.json`` (the
    report's errors, notices, timings and edition names) last. The caller holds the lock."""
    from comprules.build import build

    report = build(sources, shared / "kb", cards=cards)
    kept = {"errors": [str(e) for e in report.errors], "notices": report.notices, "timings": report.timings}
    kept["editions"] = [e.name for e in report.editions]
    part = shared / "report.json.part"
    part.write_text(json.dumps(kept), encoding="utf-8")
    os.replace(part, shared / "report.json")


def start(shared: Path, sources: list[Path], cards: Path | None) -> None:
    """Start the build in the background once per run (the first caller; the others
    find ``shared/started``), and return when it holds the lock: from then on the
    fixture waits for it. A script that cannot start, or takes no lock in
    :data:`START_TIMEOUT` seconds, is killed; the fixture then builds as before."""
    from filelock import FileLock

    with FileLock(str(shared / ".start")):
        marker = shared / "started"
        if marker.exists() or (shared / "report.json").exists():
            return
        marker.write_text(str(os.getpid()), encoding="utf-8")
        args = [sys.executable, __file__, str(shared), str(os.getppid()), *map(str, sources)]
        if cards is not None:
            args += ["--cards", str(cards)]
        log = (shared / "build.log").open("ab")
        child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        assert child.stdout is not None
        timer = threading.Timer(START_TIMEOUT, child.kill)
        timer.start()
        try:
            said = child.stdout.readline()
        finally:
            timer.cancel()
        if said.strip() != b"locked":
            child.kill()
            child.wait()


def _watch(pid: int) -> None:
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass
        time.sleep(POLL)


def main(argv: list[str]) -> int:
    from filelock import FileLock

    cards = None
    if "--cards" in argv:
        at = argv.index("--cards")
        cards, argv = Path(argv[at + 1]), argv[:at] + argv[at + 2 :]
    shared, run, sources = Path(argv[0]), int(argv[1]), [Path(a) for a in argv[2:]]
    threading.Thread(target=_watch, args=(run,), daemon=True).start()
    with FileLock(str(shared / ".lock")):
        print("locked", flush=True)
        os.dup2(2, 1)  # nobody reads the pipe any more: whatever the build prints goes to the log
        if not (shared / "report.json").exists():
            build_shared(shared, sources, cards)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
