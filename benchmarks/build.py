"""Benchmark the whole build: full, nothing changed, one edition changed, peak memory.

Run: ``.venv/bin/python benchmarks/build.py`` (reads ``COMPRULES_CORPUS``, default
``../shared/corpus``, and ``COMPRULES_SEEDS``, default ``../shared/seeds``).

Each build is a real ``comprules build`` process on copies of the 74 English
editions and the 5 seeds, in a temporary folder removed at the end; its memory is
sampled every 0.1 s as the proportional set size (PSS, ``/proc/PID/smaps_rollup``)
summed over the process and its children (the site's page-rendering workers), so that
pages the forked workers share are counted once. Against the targets of issue 12:

* no-op rebuild (same sources again) ≤ 3 s and ≤ 5 % of the full build;
* one edition changed (a word of 2026-08-07): printed, with what it rewrote;
* a folder of 1,000 one-line undated files (issue 23, 7): ≤ 30 s, ≤ 5,000 files written;
* peak memory of the full build ≤ 1 GB (1,000,000,000 bytes), printed two ways: all
  the processes of the build at once (comprules and its page-rendering workers), and
  the largest single process (what ``/usr/bin/time -v`` reports as "Maximum resident
  set size").

And those of issue 21 (the site as a view of the knowledge base), each marked: the full
build ≤ 60 s and ≤ 15× parsing alone; one edition changed ≤ 15 s and ≤ 15 % of the full
build; nothing changed ≤ 1 s; a knowledge base of two editions (the two latest English)
≤ 8 s; the site's size on disk ≤ 300 MB with its file count (each file once however many
names it has, and not the files it shares with ``data/`` by hard links).

The baseline, run in the same process: a process that only parses the same sources
(``comprules check``-like: decode and parse, nothing written), for time and memory.
Timings are upper bounds on a shared machine: the load average is printed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import corpus_dir, seeds_dir  # noqa: E402

TARGET_NOOP, TARGET_NOOP_SHARE, TARGET_MEMORY = 3.0, 0.05, 1_000_000_000
#: Issue 21: full build (s, × parsing alone), one edition changed (s, share), nothing changed
#: (s), two editions (s), the site on disk (bytes).
TARGET_FULL, TARGET_FULL_RATIO, TARGET_ONE, TARGET_ONE_SHARE = 60.0, 15.0, 15.0, 0.15
TARGET_NOOP_21, TARGET_TWO, TARGET_SITE = 1.0, 8.0, 300_000_000
COMPRULES = [sys.executable, "-m", "comprules.cli"]
PARSE_ONLY = (
    "import sys; from comprules.corpus import load_sources; r = load_sources(sys.argv[1:]); print(len(r.editions))"
)


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            out.setdefault(parent, []).append(int(entry))
    return out


def _tree_pss(pid: int) -> tuple[int, dict[str, int]]:
    """PSS in bytes of ``pid`` and all its descendants: the sum, and the largest per command name."""
    kids, stack, total, largest = _children(), [pid], 0, {}
    while stack:
        p = stack.pop()
        stack.extend(kids.get(p, ()))
        try:
            with open(f"/proc/{p}/comm") as fh:
                name = fh.read().strip()
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        pss = int(line.split()[1]) * 1024
                        total += pss
                        largest[name] = max(largest.get(name, 0), pss)
                        break
        except OSError:
            pass
    return total, largest


def measured(args: list[str]) -> tuple[float, int, dict[str, int], str]:
    """(wall seconds, peak PSS bytes of the process tree, peak of its largest process per
    command name, stderr and stdout) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, largest = 0, {}
    while proc.poll() is None:
        total, each = _tree_pss(proc.pid)
        peak = max(peak, total)
        for name, value in each.items():
            largest[name] = max(largest.get(name, 0), value)
        time.sleep(0.1)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{err}")
    return seconds, peak, largest, err + out


def _mark(ok: bool) -> str:
    return "ok" if ok else "OVER TARGET"


def _stage_line(log: str) -> str:
    """The build's own lines of its stages ("wrote site/ (100.3 s, pages 65.8 s, …)"), joined."""
    said = [line.strip() for line in log.splitlines() if line.startswith(("parsed ", "resolved ", "wrote "))]
    return "; ".join(said)


def site_size(site: Path, data: Path) -> tuple[int, int]:
    """(bytes on disk, files) of ``site``: each file once, whatever number of names it has
    (``{lang}/latest/`` is hard links to the latest edition's pages), less the files that
    are hard links to ``data/`` (the site's copies of the exports)."""
    shared = {(st.st_dev, st.st_ino) for st in (p.stat() for p in data.rglob("*") if p.is_file())}
    seen: set[tuple[int, int]] = set()
    size = files = 0
    for p in site.rglob("*"):
        if not p.is_file():
            continue
        st = p.stat()
        key = (st.st_dev, st.st_ino)
        if key in seen or key in shared:
            continue
        seen.add(key)
        files += 1
        size += st.st_blocks * 512
    return size, files


def main() -> None:
    if sys.argv[1:] == ["--many-files"]:  # that case alone
        with tempfile.TemporaryDirectory(prefix="comprules-bench-build-") as tmp:
            many_files(Path(tmp))
        return
    english = sorted((corpus_dir() / "en").glob("*.txt"))
    seeds = sorted(seeds_dir().glob("*.txt"))
    if not english or not seeds:
        raise SystemExit(f"no sources in {corpus_dir() / 'en'} or {seeds_dir()} (set COMPRULES_CORPUS)")
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {len(english)} editions, {len(seeds)} seeds"
    )
    with tempfile.TemporaryDirectory(prefix="comprules-bench-build-") as tmp:
        src = Path(tmp) / "src"
        (src / "en").mkdir(parents=True)
        (src / "seeds").mkdir()
        for f in english:
            shutil.copy(f, src / "en" / f.name)
        for f in seeds:
            shutil.copy(f, src / "seeds" / f.name)
        kb = Path(tmp) / "kb"
        build = [*COMPRULES, "build", str(src / "en"), str(src / "seeds"), "--kb", str(kb)]

        parse_s, parse_mem, _, _ = measured([sys.executable, "-c", PARSE_ONLY, str(src / "en"), str(src / "seeds")])
        full_s, full_mem, full_each, log = measured(build)
        print(f"full build:          {full_s:6.1f} s, peak {full_mem / 1e9:.2f} GB ({log.strip().splitlines()[-1]})")
        print(
            f"                     {full_s / parse_s:.0f}× parsing alone ({parse_s:.1f} s); issue 21: ≤ "
            f"{TARGET_FULL:g} s and ≤ {TARGET_FULL_RATIO:g}×: "
            f"{_mark(full_s <= TARGET_FULL and full_s / parse_s <= TARGET_FULL_RATIO)}"
        )
        print(f"                     {_stage_line(log)}")
        size, files = site_size(kb / "site", kb / "data")
        print(
            f"the site on disk:    {size / 1e6:.0f} MB in {files:,} files, less its hard links to data/ "
            f"(issue 21: ≤ {TARGET_SITE / 1e6:.0f} MB: {_mark(size <= TARGET_SITE)})"
        )
        noop_s, noop_mem, _, log = measured(build)
        share = noop_s / full_s
        print(
            f"no-op rebuild:       {noop_s:6.2f} s = {share:.1%} of the full build, peak {noop_mem / 1e6:.0f} MB"
            f"  (targets {TARGET_NOOP:g} s and {TARGET_NOOP_SHARE:.0%}: "
            f"{_mark(noop_s <= TARGET_NOOP and share <= TARGET_NOOP_SHARE)}; issue 21, ≤ {TARGET_NOOP_21:g} s: "
            f"{_mark(noop_s <= TARGET_NOOP_21)})"
        )
        # a word of 702.19a (Trample), as in the trial of issue 21: "modifies" → "changes"
        changed = src / "en" / "2026-08-07.txt"
        lines = changed.read_text(encoding="utf-8").split("\n")
        at = next(k for k, line in enumerate(lines) if line.startswith("702.19a "))
        assert " modifies " in lines[at]
        lines[at] = lines[at].replace(" modifies ", " changes ", 1)
        changed.write_text("\n".join(lines), encoding="utf-8")
        one_s, one_mem, _, log = measured([*build, "--json"])
        report = json.loads(log[log.index("{") :])
        print(
            f"one edition changed: {one_s:6.1f} s = {one_s / full_s:.0%} of the full build, peak "
            f"{one_mem / 1e9:.2f} GB (2026-08-07: a word of 702.19a; kept: {', '.join(report['kept']) or 'none'}; "
            f"timings {', '.join(f'{k} {v:.1f} s' for k, v in report['timings'].items())})"
        )
        print(f"                     data/ files rewritten: {', '.join(report['written'])}")
        print(
            f"                     issue 21: ≤ {TARGET_ONE:g} s and ≤ {TARGET_ONE_SHARE:.0%}: "
            f"{_mark(one_s <= TARGET_ONE and one_s / full_s <= TARGET_ONE_SHARE)}"
        )
        two = Path(tmp) / "two"
        two.mkdir()
        for f in english[-2:]:
            shutil.copy(f, two / f.name)
        two_s, two_mem, _, log = measured([*COMPRULES, "build", str(two), "--kb", str(Path(tmp) / "two-kb")])
        print(
            f"two editions:        {two_s:6.1f} s ({', '.join(f.stem for f in english[-2:])}), peak "
            f"{two_mem / 1e6:.0f} MB; {_stage_line(log)} (issue 21: ≤ {TARGET_TWO:g} s: {_mark(two_s <= TARGET_TWO)})"
        )
        biggest = max(full_each.values())
        each = ", ".join(f"{name} {value / 1e9:.2f} GB" for name, value in sorted(full_each.items()))
        print(
            f"peak memory:         {full_mem / 1e9:.2f} GB for the full build, all its processes at once "
            f"(target {TARGET_MEMORY / 1e9:.0f} GB: {_mark(full_mem <= TARGET_MEMORY)}); largest single process "
            f"{biggest / 1e9:.2f} GB ({_mark(biggest <= TARGET_MEMORY)}; per command: {each})"
        )
        print(
            f"baseline:            parsing alone {parse_s:.1f} s, {parse_mem / 1e9:.2f} GB "
            f"(the full build takes {full_s / parse_s:.0f}× the time, {full_mem / parse_mem:.1f}× the memory)"
        )
        many_files(Path(tmp))


def many_files(tmp: Path, count: int = 1000) -> None:
    """Issue 23, 7: a folder of ``count`` one-line undated files (each a rule of the latest
    edition, so a document of one rule) builds in ≤ 30 s with ≤ 5,000 files written."""
    folder = tmp / "many"
    folder.mkdir()
    latest = sorted((corpus_dir() / "en").glob("*.txt"))[-1].read_text(encoding="utf-8")
    lines = [line for line in latest.splitlines() if line[:3].isdigit() and "." in line[:6] and len(line) > 40]
    for k in range(count):
        (folder / f"note-{k:04d}.txt").write_text(lines[k % len(lines)] + "\n", encoding="utf-8")
    kb = tmp / "many-kb"
    seconds, peak, _, log = measured([*COMPRULES, "build", str(folder), "--kb", str(kb)])
    files = sum(1 for p in kb.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in kb.rglob("*") if p.is_file())
    print(
        f"{count} one-line files:  {seconds:6.1f} s (target 30 s: {_mark(seconds <= 30)}), {files} files written "
        f"(target 5,000: {_mark(files <= 5000)}), {size / 1e6:.0f} MB, peak {peak / 1e6:.0f} MB "
        f"({log.strip().splitlines()[-1]})"
    )


if __name__ == "__main__":
    main()
