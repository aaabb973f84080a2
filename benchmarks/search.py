"""Time the search index: full build, incremental re-index, query latency, against SQLite FTS5.

Usage: ``python benchmarks/search.py [--quick]`` (editions from ``$COMPRULES_CORPUS/en``,
seeds from ``$COMPRULES_SEEDS``, as the tests read them; ``--quick`` indexes the
latest edition and the seeds only).

Prints: parse time (not the indexer's); index build time for one edition + seeds and
for all editions + seeds (target ≤ 45 s); re-index after one edition changed (target
≤ 5 s); then the queries of the relevance set (``tests/relevance.toml``) with their
options: first run of each, p50/p95 over repeated runs (targets p50 ≤ 2 ms, p95 ≤
10 ms), MRR and top-5 hit rate; and the same queries answered by SQLite FTS5
(``porter unicode61 remove_diacritics 2``, ``bm25()``, titles weighted 4, rule numbers
looked up first) over the same units: latency, MRR and top-5, and the ratios.
Wall-clock and CPU time: the machine may be shared.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, en_files, seeds_dir

from comprules.indexer import build_index
from comprules.indexer.evaluate import DEPTH, Outcome, Report, evaluate, load_cases, run_case

REPEATS = 20
CASES = load_cases(ROOT / "tests" / "relevance.toml")


def load_editions(files: list[Path]):
    from comprules.corpus import load_sources

    result = load_sources(files)
    for error in result.errors:
        print(f"  error: {error}")
    return result.editions


def timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def latencies(run, cases) -> tuple[list[float], list[float]]:
    """First-run and repeated-run latencies (ms) of ``run(case)``."""
    first = []
    for case in cases:
        t = time.perf_counter()
        run(case)
        first.append((time.perf_counter() - t) * 1000)
    repeated = []
    for _ in range(REPEATS):
        for case in cases:
            t = time.perf_counter()
            run(case)
            repeated.append((time.perf_counter() - t) * 1000)
    return first, repeated


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def one_changed(editions, name: str):
    """``editions`` with one rule of ``name`` edited (a corrected edition: another sha256)."""
    out = list(editions)
    i = next(k for k, e in enumerate(out) if e.name == name)
    rules = list(out[i].rules)
    k = next(j for j, r in enumerate(rules) if r.kind == "subrule")
    rules[k] = dataclasses.replace(rules[k], text=rules[k].text + " (corrected)")
    out[i] = dataclasses.replace(out[i], rules=tuple(rules), sha256=out[i].sha256 + "-corrected")
    return out


# --- SQLite FTS5 baseline -----------------------------------------------------------------


def fts5_build(editions, path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.execute(
        "CREATE VIRTUAL TABLE units USING fts5(edition UNINDEXED, lang UNINDEXED, number UNINDEXED, title, body,"
        " tokenize='porter unicode61 remove_diacritics 2')"
    )
    rows = []
    for e in editions:
        rows += [(e.name, e.lang, r.number, r.title or "", "\n".join((r.text, *r.examples))) for r in e.rules]
        rows += [(e.name, e.lang, g.slug, g.term, g.text) for g in e.glossary]
    db.executemany("INSERT INTO units VALUES (?, ?, ?, ?, ?)", rows)
    db.execute("CREATE TABLE numbers AS SELECT rowid AS id, edition, lang, number FROM units")
    db.execute("CREATE INDEX numbers_number ON numbers(number)")
    db.commit()
    return db


_NUMBER = re.compile(r"^(?:rule\s+)?(\d{3}(?:\.\d+[a-z]*)?)$|^R(\d{3})(\d+)([a-z]*)$", re.I)


def fts5_query(db: sqlite3.Connection, scope: list[str], case) -> list[str]:
    """Top 10 units (result keys, as the relevance set names them): the rule number
    first, then bm25 (title × 4); FTS5's own syntax for phrases, AND/OR/NOT and prefix*."""
    options = case.options
    names = scope if "edition" not in options and not options.get("all_editions") else (
        [options["edition"]] if "edition" in options else None)
    where, args = "", []
    if names is not None:
        where += f" AND edition IN ({','.join('?' * len(names))})"
        args += names
    if "lang" in options:
        where += " AND lang = ?"
        args.append(options["lang"])
    keys = []
    if m := _NUMBER.match(case.query):
        number = m.group(1) or f"{m.group(2)}.{m.group(3)}{m.group(4)}"
        keys += [_key(lang, n) for lang, n in db.execute(
            f"SELECT lang, number FROM numbers WHERE number = ?{where}", [number, *args])]
    words = re.findall(r'"[^"]*"|\bAND\b|\bOR\b|\bNOT\b|[^\W_]+\*?', case.query.replace("~1", ""))
    match = " ".join(w if w.startswith('"') or w in ("AND", "OR", "NOT") or w.endswith("*") else f'"{w}"'
                     for w in words)
    try:
        keys += [_key(lang, n) for lang, n in db.execute(
            f"SELECT lang, number FROM units WHERE units MATCH ?{where} ORDER BY bm25(units, 0, 0, 0, 4.0, 1.0)"
            f" LIMIT {DEPTH}", [match, *args])]
    except sqlite3.OperationalError:
        pass
    return list(dict.fromkeys(keys))[:DEPTH]


def _key(lang: str, number: str) -> str:
    return number if lang == "en" else f"{lang}:{number}"


def fts5_report(db, scope) -> Report:
    outcomes = []
    for case in CASES:
        found = fts5_query(db, scope, case)
        outcomes.append(Outcome(case, found, {e: (found.index(e) + 1 if e in found else 0) for e in case.expect}))
    return Report(outcomes)


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
    everything = [*editions, *fragments]

    with tempfile.TemporaryDirectory() as tmp:
        one_dir, all_dir = Path(tmp, "one", "index"), Path(tmp, "all", "index")
        wall, cpu, stats = timed(build_index, [editions[-1], *fragments], one_dir)
        print(f"build, 1 edition + seeds: {wall:.2f} s (cpu {cpu:.2f} s), {stats.units} units → {stats.documents} documents")
        if not quick:
            wall, cpu, stats = timed(build_index, everything, all_dir)
            print(f"build, {len(editions)} editions + seeds: {wall:.2f} s (cpu {cpu:.2f} s), "
                  f"{stats.units} units → {stats.documents} documents; with parsing {wall + parse:.1f} s (target ≤ 45 s)")
            changed = everything
            for name in (editions[-1].name, editions[len(editions) // 2].name):
                changed = one_changed(changed, name)
                wall, cpu, stats = timed(build_index, changed, all_dir)
                print(f"re-index after {name} changed: {wall:.2f} s (cpu {cpu:.2f} s), {stats.mode}, "
                      f"re-indexed {', '.join(stats.reindexed)} (target ≤ 5 s)")
            build_index(everything, all_dir)  # back to the real texts
        index_dir = one_dir if quick else all_dir
        cases = [c for c in CASES if quick is False or not (c.options.get("all_editions") or "edition" in c.options)]

        t = time.perf_counter()
        run_case(index_dir, cases[0])
        print(f"open index (first query): {(time.perf_counter() - t) * 1000:.1f} ms")
        first, repeated = latencies(lambda c: run_case(index_dir, c), cases)
        ours = evaluate(index_dir, cases)
        print(f"comprules: {len(cases)} relevance queries; first run p50 {pct(first, .5):.2f} ms, max {max(first):.2f} ms;"
              f" repeated p50 {pct(repeated, .5):.2f} ms p95 {pct(repeated, .95):.2f} ms (targets p50 ≤ 2 ms, p95 ≤ 10 ms);"
              f" MRR {ours.mrr:.3f}, top-5 {ours.top5:.3f}, expected in top 5 {ours.recall5:.3f}")

        scope = [editions[-1].name, *(f.name for f in fragments)]
        t = time.perf_counter()
        db = fts5_build(everything, Path(tmp, "fts5.db"))
        built = time.perf_counter() - t
        fts_first, fts_repeated = latencies(lambda c: fts5_query(db, scope, c), cases)
        theirs = fts5_report(db, scope)
        db.close()
        print(f"fts5 (same units, built in {built:.2f} s): first run p50 {pct(fts_first, .5):.2f} ms;"
              f" repeated p50 {pct(fts_repeated, .5):.2f} ms p95 {pct(fts_repeated, .95):.2f} ms;"
              f" MRR {theirs.mrr:.3f}, top-5 {theirs.top5:.3f}, expected in top 5 {theirs.recall5:.3f}")
        print(f"comprules / fts5: p50 {pct(repeated, .5) / pct(fts_repeated, .5):.2f}×,"
              f" p95 {pct(repeated, .95) / pct(fts_repeated, .95):.2f}×; MRR {ours.mrr / max(theirs.mrr, 1e-9):.2f}×")
        slowest = sorted(zip(first, (c.label for c in cases)), reverse=True)[:5]
        print("slowest first runs: " + ", ".join(f"{q!r} {ms:.1f} ms" for ms, q in slowest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
