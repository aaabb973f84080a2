"""A whole build with and without the 18 Chinese editions, in one run (issue 15).

Target: building the 74 English editions, the 18 Chinese ones and the 5 seeds takes at
most 1.5× the time of the 74 English editions and the seeds alone (the build of
``make site`` before the Chinese editions), both measured here, in fresh knowledge
bases, alternately (base, full, base, full, … ``--rounds`` times): on a shared machine
the load changes from minute to minute, so the fastest build of each kind is compared.
Also prints the parse time of the Chinese editions alone.

    python benchmarks/chinese.py             # 2 rounds of both builds (~10 min on the 2-core machine)
    python benchmarks/chinese.py --rounds 1  # one of each
    python benchmarks/chinese.py --parse     # the Chinese editions' parse time only
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import corpus_dir, seeds_dir

TARGET = 1.5


def build_time(sources: list[Path], kb: Path) -> tuple[float, dict]:
    from comprules.build import build

    start = time.perf_counter()
    report = build(sources, kb)
    seconds = time.perf_counter() - start
    if report.errors:
        raise SystemExit(f"build failed: {report.errors[0]}")
    return seconds, report.timings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parse", action="store_true", help="only parse the Chinese editions")
    ap.add_argument("--rounds", type=int, default=2, help="builds of each kind, alternately (default 2)")
    args = ap.parse_args()
    zh = corpus_dir() / "zh"
    from comprules.corpus import load_sources

    start = time.perf_counter()
    result = load_sources([zh])
    parse = time.perf_counter() - start
    rules = sum(len(e.numbered()) for e in result.editions)
    print(f"parse: {len(result.editions)} Chinese editions, {rules:,} rules and subrules in {parse:.2f} s")
    if args.parse:
        return 0
    runs: dict[str, list[tuple[float, dict]]] = {"base": [], "full": []}
    for k in range(args.rounds):
        for kind, sources in (
            ("base", [corpus_dir() / "en", seeds_dir()]),
            ("full", [corpus_dir() / "en", zh, seeds_dir()]),
        ):
            tmp = Path(tempfile.mkdtemp(prefix="comprules-bench-zh-"))
            try:
                runs[kind].append(build_time(sources, tmp / "kb"))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            print(f"round {k + 1}: {kind} {runs[kind][-1][0]:.1f} s", flush=True)
    base, base_t = min(runs["base"], key=lambda r: r[0])
    full, full_t = min(runs["full"], key=lambda r: r[0])
    stages = sorted(set(base_t) | set(full_t))
    print(f"{'stage':<12}{'en + seeds':>12}{'+ zh':>10}{'ratio':>8}")
    for s in stages:
        a, b = base_t.get(s, 0.0), full_t.get(s, 0.0)
        print(f"{s:<12}{a:>11.1f}s{b:>9.1f}s{(b / a if a else 0):>7.2f}×")
    ratio = full / base
    print(f"{'whole':<12}{base:>11.1f}s{full:>9.1f}s{ratio:>7.2f}×  (target ≤ {TARGET}×)")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
