"""Decode + parse all English editions; baseline: only read and decode them.

Target (issue 2): parse ≤ 3 s total on the 2-core machine. Prints seconds and the
ratio of parsing to the read+decode baseline measured in the same run.
"""

from __future__ import annotations

import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))

from _common import en_files, timed  # noqa: E402

from comprules.corpus import load_sources, parse_file  # noqa: E402
from comprules.corpus.decode import decode_file  # noqa: E402


def main() -> None:
    files = en_files()
    t: dict[str, float] = {}
    with timed(t, "read+decode"):
        size = sum(len(decode_file(f).text) for f in files)
    with timed(t, "decode+parse, 1 process"):
        rules = sum(len(parse_file(f).numbered()) for f in files)
    with timed(t, "decode+parse, 2 processes"):
        result = load_sources(files, jobs=2)
    assert sum(len(e.numbered()) for e in result.editions) == rules
    print(f"{len(files)} editions, {size / 1e6:.1f} M characters, {rules} rules and subrules")
    base = t["read+decode"]
    for name, seconds in t.items():
        print(f"  {name:28s} {seconds:6.2f} s   ({seconds / base:5.1f}× read+decode)")
    best = min(t["decode+parse, 1 process"], t["decode+parse, 2 processes"])
    print(f"target ≤ 3 s: {'met' if best <= 3 else 'MISSED'} ({best:.2f} s)")


if __name__ == "__main__":
    main()
