"""The command line on a built knowledge base: each command's wall time as a new process.

Usage: ``python benchmarks/cli.py [--kb DIR] [--repeat N]``

Without ``--kb`` the 74 English editions are built into a temporary folder first (not
timed). Each command runs ``--repeat`` times (default 5) as its own process, as a user
types it, and its first and median wall times are printed beside the baseline of the same
run, ``python -c pass`` (what any Python command costs before it does anything). The
commands run with their bytecode kept, as an installed comprules (``_common.command_env``):
the first run of the first command compiles the modules, the medians do not. Target
(issue 20): ``show``, ``diff`` and ``history`` each answer in ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import command_env, corpus_dir  # noqa: E402

COMMANDS = [
    ["show", "702.19b"],
    ["show", "702", "--edition", "2009-07-11"],
    ["history", "702.37a"],
    ["diff", "2009-05-01", "2009-07-11"],
    ["diff", "2009-05-01", "2009-07-11", "--section", "702"],
    ["diff", "1999-04-23", "2026-08-07"],
    ["search", "trample deathtouch"],
]
TARGET = 0.300


def wall(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=command_env())
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=Path, help="a built knowledge base (default: build the 74 English editions)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    tmp = None
    kb = args.kb
    if kb is None:
        tmp = Path(tempfile.mkdtemp(prefix="comprules-bench-cli-"))
        kb = tmp / "kb"
        print(f"building {kb} from {corpus_dir() / 'en'} …", flush=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "comprules.cli",
                "build",
                str(corpus_dir() / "en"),
                "--kb",
                str(kb),
                "--only",
                "data",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    comprules = [str(Path(sys.executable).parent / "comprules")]
    try:
        base = [wall([sys.executable, "-c", "pass"]) for _ in range(args.repeat)]
        print(f"baseline python -c pass: first {base[0] * 1000:.0f} ms, median {statistics.median(base) * 1000:.0f} ms")
        met = True
        for cmd in COMMANDS:
            times = [wall([*comprules, *cmd, "--kb", str(kb)]) for _ in range(args.repeat)]
            median = statistics.median(times)
            judged = cmd[0] in ("show", "diff", "history")
            ok = median <= TARGET
            met &= ok or not judged
            print(
                f"comprules {' '.join(cmd):<45} first {times[0] * 1000:4.0f} ms  median {median * 1000:4.0f} ms"
                f"  ×{median / statistics.median(base):.1f} python -c pass"
                + (f"  ({'met' if ok else 'NOT met'}: ≤ {TARGET * 1000:.0f} ms)" if judged else "")
            )
        print(f"target (show, diff, history ≤ {TARGET * 1000:.0f} ms): {'met' if met else 'NOT met'}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
