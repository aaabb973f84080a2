"""Cards meet the rules (issue 25): search with cards against the same search without them
and against SQLite FTS5, the import of the card file, and ``comprules card`` cold.

Usage: ``python benchmarks/cards.py [--index DIR] [--cards FILE] [--db FILE] [--quick]``
(``--index``: an index built from all editions, default one built here; ``--db``: a card
database already built, default one built here from ``--cards``, default
``../shared/cards/oracle-cards.json``; ``--quick``: skip the import and command timings).

Quality: question-form MRR@10 (``indexer/evaluate.py``) in en/2026-08-07 on

* the questions of ``tests/questions.toml`` that name cards (a card name found in the
  question as typed, :func:`comprules.cards.lookup.names_in`): the set ranking with cards
  was tuned on;
* the other questions of that file (they must not get worse);
* ``tests/card_questions.toml``: real card questions gathered from other sources before
  any was searched, never tuned on;

each with cards (the names dropped from the words, the rules the cards call on as a
prior), without (the same engine, no card data) and with SQLite FTS5 (an OR query of the
same words, ``bm25()``, titles weighted 4: ``benchmarks/search.py``'s baseline), and the
ratios. Then the keyword form, for the record. Speed: the import of the card file (read,
analyse, write) beside reading it alone in the same run; ``comprules card`` as a new
process beside ``comprules --version`` in the same run (the interpreter and the CLI's
imports), wall clock and CPU, p50 of several runs.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_env, en_files, seeds_dir
from search import fts5_build, fts5_or, load_editions

from comprules.cards.build import build_cards
from comprules.cards.lookup import names_in
from comprules.cards.read import read_cards
from comprules.cards.search import about
from comprules.cards.view import index_of
from comprules.indexer import build_index, search
from comprules.indexer.evaluate import (
    DEPTH,
    FORMS,
    QUESTIONS_EDITION,
    Question,
    evaluate_questions,
    load_questions,
    result_key,
)

TUNED = ROOT / "tests" / "questions.toml"
HELD = ROOT / "tests" / "card_questions.toml"


def _arg(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def with_cards(index_dir: Path, data: Path):
    def run(text: str) -> list[str]:
        asked = about(data, text, QUESTIONS_EDITION)
        result = search(
            index_dir,
            text,
            edition=QUESTIONS_EDITION,
            limit=DEPTH,
            prior=asked.prior or None,
            drop=asked.drop,
            context=asked.context or None,
        )
        return [result_key(h) for h in result.hits]

    return run


def without_cards(index_dir: Path):
    def run(text: str) -> list[str]:
        return [result_key(h) for h in search(index_dir, text, edition=QUESTIONS_EDITION, limit=DEPTH).hits]

    return run


def report(label: str, questions: list[Question], runs: dict) -> None:
    if not questions:
        print(f"{label}: no questions")
        return
    reports = {name: evaluate_questions(run, questions) for name, run in runs.items()}
    cards, plain, fts = reports["cards"], reports["plain"], reports["fts5"]
    print(f"{label} ({len(questions)} questions):")
    for form in FORMS:
        a, b, c = cards.mrr(form), plain.mrr(form), fts.mrr(form)
        print(
            f"  {form:9} MRR@10 with cards {a:.3f}, without {b:.3f} ({a / max(b, 1e-9):.2f}×), "
            f"SQLite FTS5 {c:.3f} ({a / max(c, 1e-9):.2f}×); first answer in top 10: "
            f"{cards.hits_at(form, 10):.2f} / {plain.hits_at(form, 10):.2f} / {fts.hits_at(form, 10):.2f}"
        )
    worse = [q.id for q in questions if 0 < plain.ranks[(q.id, "question")] < (cards.ranks[(q.id, "question")] or 99)]
    better = [
        q.id for q in questions if 0 < (cards.ranks[(q.id, "question")] or 99) < (plain.ranks[(q.id, "question")] or 99)
    ]
    print(f"  question form: better with cards {len(better)}, worse {len(worse)}: {', '.join(worse) or '-'}")


def time_import(card_file: Path, edition) -> None:
    t, c = time.perf_counter(), time.process_time()
    n = sum(1 for _ in read_cards(card_file))
    read_wall, read_cpu = time.perf_counter() - t, time.process_time() - c
    with tempfile.TemporaryDirectory() as tmp:
        t, c = time.perf_counter(), time.process_time()
        rep = build_cards(card_file, [edition], Path(tmp) / "cards.sqlite")
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    print(
        f"import of {rep.cards} cards ({card_file.name}, {card_file.stat().st_size / 1e6:.1f} MB) for "
        f"{edition.name}: {wall:.2f} s (cpu {cpu:.2f} s; target ≤ 10 s), {rep.calls} spans; baseline, reading "
        f"the {n} cards alone: {read_wall:.2f} s (cpu {read_cpu:.2f} s); stages {dict((k, round(v, 2)) for k, v in rep.timings.items())}"
    )


def time_command(kb: Path, runs: int = 7) -> None:
    def timed(args: list[str]) -> tuple[float, float]:
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "comprules.cli", *args], capture_output=True, check=False, env=command_env()
            )
            walls.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return sorted(walls)[runs // 2], sorted(cpus)[runs // 2]

    base = timed(["--version"])
    exact = timed(["card", "Notion Thief", "--kb", str(kb)])
    fuzzy = timed(["card", "notoin thief", "--kb", str(kb)])
    print(
        f"comprules card as a new process (p50 of {runs}): exact name {exact[0] * 1000:.0f} ms (cpu {exact[1] * 1000:.0f} ms), "
        f"misspelt {fuzzy[0] * 1000:.0f} ms (cpu {fuzzy[1] * 1000:.0f} ms); target ≤ 300 ms; baseline "
        f"comprules --version {base[0] * 1000:.0f} ms (cpu {base[1] * 1000:.0f} ms)"
    )


def main(argv: list[str]) -> int:
    card_file = Path(_arg(argv, "--cards") or ROOT / "../shared/cards/oracle-cards.json").resolve()
    given_index, given_db = _arg(argv, "--index"), _arg(argv, "--db")
    files = en_files()
    latest = next(f for f in files if f.stem == QUESTIONS_EDITION.partition("/")[2])
    seeds = sorted(seeds_dir().glob("*.txt")) if seeds_dir().is_dir() else []
    with tempfile.TemporaryDirectory() as tmp:
        editions = load_editions([latest])
        if given_index:
            index_dir = Path(given_index)
        else:
            everything = [*load_editions(files), *load_editions(seeds)]
            index_dir = Path(tmp, "index")
            build_index(everything, index_dir)
        if given_db:
            data = Path(given_db).parent
        else:
            data = Path(tmp, "data")
            build_cards(card_file, editions, data / "cards.sqlite")
        db = fts5_build(editions, Path(tmp, "fts5.db"))
        runs = {
            "cards": with_cards(index_dir, data),
            "plain": without_cards(index_dir),
            "fts5": lambda text: fts5_or(db, text),
        }
        index = index_of(data)
        tuned = load_questions(TUNED)
        naming = [q for q in tuned if names_in(index, q.question)]
        others = [q for q in tuned if q not in naming]
        print(f"index {index_dir}, card data {data}, questions searched in {QUESTIONS_EDITION}")
        report(f"{TUNED.name}, questions that name cards (tuned on)", naming, runs)
        report(f"{TUNED.name}, the other questions", others, runs)
        report(f"{HELD.name} (held out, never tuned on)", load_questions(HELD), runs)
        if "--quick" not in argv:
            time_import(card_file, editions[0])
            if given_db:
                time_command(Path(given_db).parent.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
