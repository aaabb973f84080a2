"""Time the search index: build, then query latency, against an SQLite FTS5 baseline.

Usage: ``python benchmarks/search.py [--quick]`` (editions from ``$COMPRULES_CORPUS/en``,
seeds from ``$COMPRULES_SEEDS``, as the tests read them; ``--quick`` indexes the
latest edition and the seeds only).

Prints: parse time (not the indexer's), index build time for one edition (+ seeds)
and for all editions (+ seeds), then the latency of ~40 queries in the default scope
(latest edition of each language + fragments): the first run of each query, and
p50/p95 over repeated runs, for ``comprules.indexer.search`` and for SQLite FTS5
(``porter unicode61 remove_diacritics 2``, ``bm25()``, titles weighted 4) over the
same units. Wall-clock and CPU time: the machine may be shared.
Targets: all editions + seeds in ≤ 45 s (parse included), query p50 ≤ 2 ms.
"""

from __future__ import annotations

import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import en_files, seeds_dir

from comprules.indexer import build_index, search

QUERIES = [
    "phasing", "flying", "deathtouch", "legend rule", "combat damage", "mulligan", "first strike",
    "trample", "state-based actions", "cleanup step", "casting spells", "morph", "commander", "copy",
    "interaction of continuous effects", "protection", "hexproof", "priority", "mana abilities", "tokens",
    "702.26b", "702.36", "R70236a", "créature volante", "creature bloquee", "phased out permanent",
    '"phased out"', "damage AND prevention", "replacement effects", "planeswalker loyalty", "vigilance",
    "cascade", "ward", "face-down", "dies", "the stack", "split second", "double strike", "indestructible",
    "lifelink",
]
REPEATS = 20


def load_editions(files: list[Path]):
    """Parse with the corpus stage when it exists, else a throwaway numbered-line splitter."""
    try:
        from comprules.corpus import parse_file
    except ImportError:
        return [_throwaway(f) for f in files]
    return [parse_file(f) for f in files]


def _throwaway(path: Path):
    from datetime import date

    from comprules.model import Edition, Rule, number_kind, parent_number

    line_re = re.compile(r"^(\d{3}\.\d+[a-z]*)\.? (.*)")
    rules = []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if m := line_re.match(line.strip()):
            number, text = m.groups()
            rules.append(Rule(id=number, number=number, kind=number_kind(number), text=text, line=n,
                              parent=parent_number(number), section=number[:3], chapter=number[0]))
    y, mth, d = map(int, path.stem.split("-"))
    return Edition(name=f"en/{path.stem}", lang="en", effective=date(y, mth, d), kind="edition",
                   source=str(path), sha256=path.stem, title=path.stem, rules=tuple(rules))


def timed_build(editions, index_dir: Path) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    stats = build_index(editions, index_dir)
    return time.perf_counter() - wall, time.process_time() - cpu, stats


def latencies(run, queries: list[str]) -> tuple[list[float], list[float]]:
    """First-run and repeated-run latencies (ms) of ``run(query)``."""
    first = []
    for q in queries:
        t = time.perf_counter()
        run(q)
        first.append((time.perf_counter() - t) * 1000)
    repeated = []
    for _ in range(REPEATS):
        for q in queries:
            t = time.perf_counter()
            run(q)
            repeated.append((time.perf_counter() - t) * 1000)
    return first, repeated


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


# --- SQLite FTS5 baseline -----------------------------------------------------------------


def fts5_build(editions, path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.execute(
        "CREATE VIRTUAL TABLE units USING fts5(edition UNINDEXED, number UNINDEXED, title, body,"
        " tokenize='porter unicode61 remove_diacritics 2')"
    )
    rows = []
    for e in editions:
        rows += [(e.name, r.number, r.title or "", "\n".join((r.text, *r.examples))) for r in e.rules]
        rows += [(e.name, g.slug, g.term, g.text) for g in e.glossary]
    db.executemany("INSERT INTO units VALUES (?, ?, ?, ?)", rows)
    db.execute("CREATE TABLE numbers AS SELECT rowid AS id, edition, number FROM units")
    db.execute("CREATE INDEX numbers_number ON numbers(number)")
    db.commit()
    return db


_NUMBER = re.compile(r"^(\d{3}(?:\.\d+[a-z]*)?)$|^R(\d{3})(\d+)([a-z]*)$")


def fts5_query(db: sqlite3.Connection, current: list[str], text: str) -> list:
    """Top 10 units of the current editions: the rule number first, then bm25 (title × 4)."""
    marks = ",".join("?" * len(current))
    hits = []
    if m := _NUMBER.match(text):
        number = m.group(1) or f"{m.group(2)}.{m.group(3)}{m.group(4)}"
        hits = db.execute(f"SELECT number FROM numbers WHERE number = ? AND edition IN ({marks})",
                          [number, *current]).fetchall()
    words = re.findall(r'"[^"]*"|\bAND\b|\bOR\b|\bNOT\b|[^\W_]+', text)
    match = " ".join(w if w.startswith('"') or w in ("AND", "OR", "NOT") else f'"{w}"' for w in words)
    hits += db.execute(
        f"SELECT number, title, snippet(units, 3, '**', '**', '…', 24) FROM units"
        f" WHERE units MATCH ? AND edition IN ({marks}) ORDER BY bm25(units, 0, 0, 4.0, 1.0) LIMIT 10",
        [match, *current],
    ).fetchall()
    return hits[:10]


# --- main ---------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    files = en_files()
    seeds = sorted(seeds_dir().glob("*.txt")) if seeds_dir().is_dir() else []
    t = time.perf_counter()
    editions = load_editions(files[-1:] if quick else files)
    fragments = load_editions(seeds) if seeds else []
    parse = time.perf_counter() - t
    print(f"parse: {len(editions)} editions + {len(fragments)} seeds in {parse:.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        one_dir, all_dir = Path(tmp, "one", "index"), Path(tmp, "all", "index")
        wall, cpu, stats = timed_build([editions[-1], *fragments], one_dir)
        print(f"build, 1 edition + seeds: {wall:.2f} s (cpu {cpu:.2f} s), "
              f"{stats.units} units → {stats.documents} documents")
        if not quick:
            wall, cpu, stats = timed_build([*editions, *fragments], all_dir)
            print(f"build, {len(editions)} editions + seeds: {wall:.2f} s (cpu {cpu:.2f} s), "
                  f"{stats.units} units → {stats.documents} documents; with parsing {wall + parse:.1f} s"
                  f" (target ≤ 45 s)")
        index_dir = one_dir if quick else all_dir

        t = time.perf_counter()
        search(index_dir, "warm up")
        print(f"open index (first query): {(time.perf_counter() - t) * 1000:.1f} ms")
        first, repeated = latencies(lambda q: search(index_dir, q), QUERIES)
        print(f"comprules: first run p50 {statistics.median(first):.2f} ms, max {max(first):.2f} ms; "
              f"repeated p50 {pct(repeated, .5):.2f} ms p95 {pct(repeated, .95):.2f} ms "
              f"over {len(QUERIES)} queries × {REPEATS} (target p50 ≤ 2 ms)")

        current_editions = [editions[-1], *fragments]
        current = [e.name for e in current_editions]
        for label, subset in (("all editions", [*editions, *fragments]), ("current only", current_editions)):
            t = time.perf_counter()
            db = fts5_build(subset, Path(tmp, f"fts5-{len(subset)}.db"))
            built = time.perf_counter() - t
            fts_first, fts_repeated = latencies(lambda q: fts5_query(db, current, q), QUERIES)
            db.close()
            print(f"fts5 ({label}, built in {built:.2f} s): first run p50 {statistics.median(fts_first):.2f} ms; "
                  f"repeated p50 {pct(fts_repeated, .5):.2f} ms p95 {pct(fts_repeated, .95):.2f} ms; "
                  f"comprules / fts5 p50 = {pct(repeated, .5) / pct(fts_repeated, .5):.2f}")
        slowest = sorted(zip(first, QUERIES), reverse=True)[:5]
        print("slowest first runs: " + ", ".join(f"{q!r} {ms:.1f} ms" for ms, q in slowest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
