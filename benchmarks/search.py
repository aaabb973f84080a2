"""Search quality and speed against SQLite FTS5, in one run.

Usage: ``python benchmarks/search.py [--quick] [--index DIR] [--kb DIR] [--questions FILE]``
(editions from ``$COMPRULES_CORPUS/en``, seeds from ``$COMPRULES_SEEDS``, as the tests
read them; ``--quick`` indexes the latest edition and the seeds only; ``--index DIR``
uses an index already built from all editions instead of building one; ``--kb DIR``
also times ``comprules search --kb DIR`` as a new process per call, the size of its
site's search data, and in chromium the first results after typing).

Quality: the real questions of ``tests/questions.toml`` in both forms (question,
keywords), MRR@10 of the first answering hit (``indexer/evaluate.py``), overall, per
topic and for each half of the file (odd positions: the half ranking was tuned on;
even: held out), beside SQLite FTS5 (``porter unicode61 remove_diacritics 2``,
``bm25()``, titles weighted 4) over the same units of en/2026-08-07 with an OR query of
the same words; then ``tests/relevance.toml`` (MRR, top 5) beside FTS5 with its own
syntax; then the number and symbol checks of issue 10 ("layer 7", "{T}").

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

from comprules.indexer import build_index, search
from comprules.indexer.evaluate import (
    DEPTH,
    FORMS,
    QUESTIONS_EDITION,
    Outcome,
    Report,
    evaluate,
    evaluate_questions,
    load_cases,
    load_questions,
    run_case,
    run_question,
)

REPEATS = 20
CASES = load_cases(ROOT / "tests" / "relevance.toml")
QUESTIONS = ROOT / "tests" / "questions.toml"


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


#: CPU time (ms) of each repeated run of the last :func:`latencies` call: on a shared machine
#: the wall-clock figures include waiting for a core, the CPU ones do not.
CPU: list[float] = []


def latencies(run, cases) -> tuple[list[float], list[float]]:
    """First-run and repeated-run latencies (ms, wall clock) of ``run(case)``; the repeated
    runs' CPU times go to :data:`CPU`."""
    first = []
    for case in cases:
        t = time.perf_counter()
        run(case)
        first.append((time.perf_counter() - t) * 1000)
    repeated = []
    CPU.clear()
    for _ in range(REPEATS):
        for case in cases:
            t, c = time.perf_counter(), time.process_time()
            run(case)
            repeated.append((time.perf_counter() - t) * 1000)
            CPU.append((time.process_time() - c) * 1000)
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
    names = (
        scope
        if "edition" not in options and not options.get("all_editions")
        else ([options["edition"]] if "edition" in options else None)
    )
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
        keys += [
            _key(lang, n)
            for lang, n in db.execute(f"SELECT lang, number FROM numbers WHERE number = ?{where}", [number, *args])
        ]
    words = re.findall(r'"[^"]*"|\bAND\b|\bOR\b|\bNOT\b|[^\W_]+\*?', case.query.replace("~1", ""))
    match = " ".join(
        w if w.startswith('"') or w in ("AND", "OR", "NOT") or w.endswith("*") else f'"{w}"' for w in words
    )
    try:
        keys += [
            _key(lang, n)
            for lang, n in db.execute(
                f"SELECT lang, number FROM units WHERE units MATCH ?{where} ORDER BY bm25(units, 0, 0, 0, 4.0, 1.0)"
                f" LIMIT {DEPTH}",
                [match, *args],
            )
        ]
    except sqlite3.OperationalError:
        pass
    return list(dict.fromkeys(keys))[:DEPTH]


def fts5_or(db: sqlite3.Connection, text: str) -> list[str]:
    """Top 10 units of en/2026-08-07 for an OR query of the words of ``text`` (bm25, title × 4)."""
    words = re.findall(r"[^\W_]+", text)
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    rows = db.execute(
        "SELECT lang, number FROM units WHERE units MATCH ? AND edition = ? ORDER BY bm25(units, 0, 0, 0, 4.0, 1.0)"
        f" LIMIT {DEPTH}",
        [match, QUESTIONS_EDITION],
    )
    return [_key(lang, n) for lang, n in rows]


def _key(lang: str, number: str) -> str:
    return number if lang == "en" else f"{lang}:{number}"


def fts5_report(db, scope) -> Report:
    outcomes = []
    for case in CASES:
        found = fts5_query(db, scope, case)
        outcomes.append(Outcome(case, found, {e: (found.index(e) + 1 if e in found else 0) for e in case.expect}))
    return Report(outcomes)


# --- main ---------------------------------------------------------------------------------


def _arg(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def report_questions(index_dir: Path, db, path: Path) -> list[str]:
    """Print the question set's figures; the queries (both forms), for timing."""
    if not path.is_file():
        print(f"questions: {path} not found, skipped")
        return []
    questions = load_questions(path)
    ours = evaluate_questions(lambda text: run_question(index_dir, text), questions)
    theirs = evaluate_questions(lambda text: fts5_or(db, text), questions)
    odd, even = ours.halves()
    print(f"questions ({path.name}, {len(questions)} questions, searched in {QUESTIONS_EDITION}):")
    print(
        f"  {'form':10} {'comprules':>10} {'fts5 OR':>8} {'ratio':>6}   {'top1':>5} {'top10':>6}   "
        f"{'odd (tuned)':>11} {'even (held out)':>15}"
    )
    for form in FORMS:
        a, b = ours.mrr(form), theirs.mrr(form)
        print(
            f"  {form:10} {a:10.3f} {b:8.3f} {a / max(b, 1e-9):5.2f}×   {ours.hits_at(form, 1):5.2f} "
            f"{ours.hits_at(form, 10):6.2f}   {ours.mrr(form, odd):5.3f}/{theirs.mrr(form, odd):5.3f} "
            f"{ours.mrr(form, even):9.3f}/{theirs.mrr(form, even):5.3f}"
        )
    print("  per topic (MRR@10 comprules/fts5, question form | keyword form):")
    for topic, qs in ours.topics().items():
        cells = " | ".join(f"{ours.mrr(f, qs):.2f}/{theirs.mrr(f, qs):.2f}" for f in FORMS)
        print(f"    {topic:24} {len(qs):3}  {cells}")
    misses = [(q.id, f) for q in questions for f in FORMS if ours.ranks[(q.id, f)] == 0]
    print(
        f"  no answer in the top 10: {len(misses)} of {2 * len(questions)}: "
        + ", ".join(f"{i} ({f[0]})" for i, f in misses)
    )
    return [q.text(f) for q in questions for f in FORMS]


def report_checks(index_dir: Path) -> None:
    def top(q: str, n: int = 3) -> list[str]:
        return [h.number for h in search(index_dir, q, edition=QUESTIONS_EDITION, limit=n).hits]

    seven, two, tap, mana = top("layer 7"), top("layer 2"), top("{T}"), top("{2}")
    print(
        f"checks: 'layer 7' top 3 {seven} (613.1g in: {'613.1g' in seven}); 'layer 2' top 3 {two} "
        f"(differs: {seven != two}); '{{T}}' top 3 {tap} (107.5 in: {'107.5' in tap}); '{{2}}' top 3 {mana}"
    )


def time_cli(kb: Path, queries: list[str]) -> None:
    import resource
    import subprocess

    times, cpu = [], []
    for q in queries:
        t = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "comprules.cli", "search", q, "--kb", str(kb)], capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(time.perf_counter() - t)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(
        f"comprules search as a new process ({len(times)} calls): p50 {pct(times, 0.5):.3f} s, "
        f"max {max(times):.3f} s (target ≤ 0.4 s); its CPU time p50 {pct(cpu, 0.5):.3f} s, max {max(cpu):.3f} s"
    )


def time_site(kb: Path, queries: list[str]) -> None:
    """The from-disk search data's size, and in chromium the time from the last key typed to
    the first results shown (the page opened from disk, its data loaded)."""
    folder = kb / "site" / "search"
    sizes = {p.stem: p.stat().st_size for p in sorted(folder.glob("*.js"))}
    print(
        "site search data: "
        + ", ".join(f"{lang} {size / 1e6:.2f} MB" for lang, size in sizes.items())
        + " (target ≤ 3 MB per language)"
    )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("site timing: playwright not installed, skipped")
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page()
        t = time.perf_counter()
        page.goto((kb / "site" / "search.html").as_uri())
        page.wait_for_function("window.CRSearch && window.CRSearch.loaded()")
        loaded = time.perf_counter() - t
        shown = []
        for q in queries:
            page.fill("#q", q[:-1])
            page.evaluate("() => { document.getElementById('results').innerHTML = ''; }")
            start = page.evaluate("() => performance.now()")
            page.locator("#q").press(q[-1])
            page.wait_for_function(
                "document.querySelectorAll('#results li').length > 0 || "
                "/^0 results/.test(document.getElementById('status').textContent)"
            )
            shown.append(page.evaluate("() => performance.now()") - start)
        ranker = page.evaluate(
            "qs => qs.map(q => { const t = performance.now(); CRSearch.search(q, {limit: 10}); "
            "return performance.now() - t; })",
            queries,
        )
        browser.close()
    print(
        f"site in chromium, from disk: page and data loaded in {loaded * 1000:.0f} ms; first results after the "
        f"last key ({len(shown)} queries): p50 {pct(shown, 0.5):.0f} ms, max {max(shown):.0f} ms (target ≤ 300 ms);"
        f" the ranker alone p50 {pct(ranker, 0.5):.1f} ms, max {max(ranker):.1f} ms"
    )


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    given = _arg(argv, "--index")
    kb = _arg(argv, "--kb")
    questions_path = Path(_arg(argv, "--questions") or QUESTIONS)
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
        if given:
            all_dir = Path(given)
        else:
            wall, cpu, stats = timed(build_index, [editions[-1], *fragments], one_dir)
            print(
                f"build, 1 edition + seeds: {wall:.2f} s (cpu {cpu:.2f} s), {stats.units} units → {stats.documents} documents"
            )
        if not quick and not given:
            wall, cpu, stats = timed(build_index, everything, all_dir)
            print(
                f"build, {len(editions)} editions + seeds: {wall:.2f} s (cpu {cpu:.2f} s), "
                f"{stats.units} units → {stats.documents} documents; with parsing {wall + parse:.1f} s (target ≤ 45 s)"
            )
            changed = everything
            for name in (editions[-1].name, editions[len(editions) // 2].name):
                changed = one_changed(changed, name)
                wall, cpu, stats = timed(build_index, changed, all_dir)
                print(
                    f"re-index after {name} changed: {wall:.2f} s (cpu {cpu:.2f} s), {stats.mode}, "
                    f"re-indexed {', '.join(stats.reindexed)} (target ≤ 5 s)"
                )
            build_index(everything, all_dir)  # back to the real texts
        index_dir = one_dir if quick else all_dir
        cases = [c for c in CASES if quick is False or not (c.options.get("all_editions") or "edition" in c.options)]

        t = time.perf_counter()
        run_case(index_dir, cases[0])
        print(f"open index (first query): {(time.perf_counter() - t) * 1000:.1f} ms")

        t = time.perf_counter()
        db = fts5_build(everything, Path(tmp, "fts5.db"))
        built = time.perf_counter() - t
        print(f"fts5 baseline built in {built:.2f} s")
        texts = report_questions(index_dir, db, questions_path)

        first, repeated = latencies(lambda c: run_case(index_dir, c), cases)
        cases_cpu = list(CPU)
        ours = evaluate(index_dir, cases)
        scope = [editions[-1].name, *(f.name for f in fragments)]
        fts_first, fts_repeated = latencies(lambda c: fts5_query(db, scope, c), cases)
        theirs = fts5_report(db, scope)
        print(
            f"relevance ({len(cases)} cases): comprules MRR {ours.mrr:.3f}, top-5 {ours.top5:.3f}, expected in top 5 "
            f"{ours.recall5:.3f}; fts5 MRR {theirs.mrr:.3f}, top-5 {theirs.top5:.3f}, expected in top 5 {theirs.recall5:.3f}"
        )
        print("  not first: " + "; ".join(f"{o.case.label!r} → {o.found[:3]}" for o in ours.misses()))
        report_checks(index_dir)

        q_first, q_repeated = latencies(lambda text: run_question(index_dir, text), texts) if texts else ([], [])
        every = repeated + q_repeated
        every_cpu = cases_cpu + (list(CPU) if texts else [])
        import json as _json

        indexed = len(_json.loads((Path(index_dir) / "comprules-index.json").read_text())["editions"])
        print(
            f"latency, every query of both sets ({len(cases) + len(texts)} queries, {REPEATS} repeats, index of "
            f"{indexed} editions and documents): first run p50 {pct(first + q_first, 0.5):.2f} ms, "
            f"max {max(first + q_first):.1f} ms; repeated p50 {pct(every, 0.5):.2f} ms, p95 {pct(every, 0.95):.2f} ms "
            f"(target p95 ≤ 10 ms); CPU time p50 {pct(every_cpu, 0.5):.2f} ms, p95 {pct(every_cpu, 0.95):.2f} ms"
        )
        print(
            f"fts5, relevance queries: repeated p50 {pct(fts_repeated, 0.5):.2f} ms p95 {pct(fts_repeated, 0.95):.2f} ms;"
            f" comprules / fts5 p95 {pct(repeated, 0.95) / pct(fts_repeated, 0.95):.2f}×"
        )
        slowest = sorted(zip(first + q_first, [c.label for c in cases] + texts), reverse=True)[:5]
        print("slowest first runs: " + ", ".join(f"{q[:40]!r} {ms:.1f} ms" for ms, q in slowest))
        db.close()
        if kb:
            time_cli(Path(kb), ["phasing", "layer 7", *(texts[:8] or ["trample"])])
            if (Path(kb) / "site" / "search").is_dir():
                time_site(Path(kb), ["phasing", "layer 7", "{T}", *(texts[:20] or ["trample"])])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
