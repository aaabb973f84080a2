"""Time the alignment of editions (issue 4), with a difflib baseline on the same work.

Usage: ``python benchmarks/align.py [--quality]`` (corpus from ``$COMPRULES_CORPUS``,
``../shared/corpus`` beside the repository, as the tests read it).

Prints, after parsing every English edition (not timed):

1. ``align(2020-06-01, 2026-08-07)``, cold (each edition's words are read for the
   first time; target ≤ 0.5 s), best of three;
2. all 73 pairs of consecutive editions, cold (target ≤ 20 s);
3. the rules left to the similarity stages (after identical texts are paired) and
   the time of their word similarity, with rapidfuzz as :func:`align` computes it and
   with the baseline, :class:`difflib.SequenceMatcher` on the same word lists, same
   pairs (``set_seq2`` once per new rule, the standard way to reuse its index);
4. with ``--quality``, precision and recall on the truth set of
   :mod:`comprules.align.evaluate` (all pairs, and the 2009 renumbering alone);
5. with ``--browser KB`` (a knowledge base built with its site), any two editions
   compared in Debian's chromium from disk (``diff/en/compare.html``, Playwright): the
   time the page takes to load the two editions' texts, join and render them (target
   ≤ 1 s), beside the library's join of the same pair in this process
   (:func:`comprules.align.history.diff`, lineage read from the stored alignments), and
   whether both give the same rows.

Wall-clock and CPU seconds are both printed: the machine may be shared.
"""

from __future__ import annotations

import difflib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import en_files  # noqa: E402

from comprules.align import alignment  # noqa: E402
from comprules.align import evaluate as align_eval
from comprules.corpus import load_sources  # noqa: E402

BIG = ("en/2020-06-01", "en/2026-08-07")
RENUMBERING = ("en/2009-05-01", "en/2009-07-11")


class Recorder:
    """Record the blocks of rules the similarity stages compare (old × new)."""

    def __init__(self):
        self.blocks: list[tuple] = []
        self.original = alignment._Matcher._compare

    def __enter__(self):
        rec = self

        def compare(matcher, olds, news):
            rec.blocks.append((matcher.o, matcher.n, list(olds), list(news)))
            return rec.original(matcher, olds, news)

        alignment._Matcher._compare = compare
        return self

    def __exit__(self, *exc):
        alignment._Matcher._compare = self.original


def clock(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def cold_align(old, new):
    alignment._CACHE.clear()
    return alignment.align(old, new)


def all_pairs(eds, names):
    alignment._CACHE.clear()
    return [alignment.align(eds[a], eds[b]) for a, b in zip(names, names[1:])]


def rapidfuzz_time(blocks) -> tuple[float, int]:
    t = time.process_time()
    n = 0
    for o, nw, olds, news in blocks:
        m = alignment._Matcher(o, nw)
        m._compare(olds, news)
        n += len(olds) * len(news)
    return time.process_time() - t, n


def difflib_time(blocks) -> tuple[float, int]:
    t = time.process_time()
    n = 0
    for o, nw, olds, news in blocks:
        sm = difflib.SequenceMatcher(None, autojunk=False)
        for j in news:
            sm.set_seq2(nw.toks[j])
            for i in olds:
                sm.set_seq1(o.toks[i])
                sm.ratio()
                n += 1
    return time.process_time() - t, n


def main(argv: list[str]) -> int:
    files = en_files()
    loaded = load_sources(files)
    eds = {e.name: e for e in loaded.editions}
    names = sorted(eds)
    print(f"{len(names)} English editions parsed")

    best = None
    for _ in range(3):
        a, wall, cpu = clock(cold_align, eds[BIG[0]], eds[BIG[1]])
        best = min(best or (wall, cpu), (wall, cpu))
    print(f"align {BIG[0]} → {BIG[1]}: {best[0]:.3f} s wall, {best[1]:.3f} s CPU (target ≤ 0.5 s); {a.counts()}")

    with Recorder() as rec_all:
        pairs, wall, cpu = clock(all_pairs, eds, names)
    print(f"align all {len(pairs)} consecutive pairs: {wall:.2f} s wall, {cpu:.2f} s CPU (target ≤ 20 s)")

    with Recorder() as rec_big:
        cold_align(eds[BIG[0]], eds[BIG[1]])
    for label, blocks in ((f"{BIG[0]} → {BIG[1]}", rec_big.blocks), ("all 73 pairs", rec_all.blocks)):
        rf, n = rapidfuzz_time(blocks)
        dl, _ = difflib_time(blocks)
        print(
            f"word similarity on the rules left ({label}): {n:,} pairs: rapidfuzz {rf:.3f} s, "
            f"difflib {dl:.3f} s CPU ({dl / rf if rf else float('inf'):.0f}× slower)"
        )

    if "--browser" in argv:
        browser(Path(argv[argv.index("--browser") + 1]))

    if "--quality" in argv:
        total = {k: align_eval.Score() for k in align_eval.TRUTH_KINDS}
        moved = {k: align_eval.Score() for k in align_eval.TRUTH_KINDS}
        renumbering = {}
        for a, (o, n) in zip(pairs, zip(names, names[1:])):
            truth = align_eval.truth(eds[o], eds[n])
            for kind, truth_pairs in truth.items():
                sections = kind == "section"
                total[kind].add(align_eval.score(a, truth_pairs, sections=sections))
                moved[kind].add(align_eval.score(a, {x: y for x, y in truth_pairs.items() if x != y}, sections))
                if (o, n) == RENUMBERING:
                    renumbering[kind] = align_eval.score(a, truth_pairs, sections=sections)
        print("truth set: pairs, precision, recall — all 73 pairs | only those whose number changed | 2009 renumbering")
        for kind in align_eval.TRUTH_KINDS:
            s, m, r = total[kind], moved[kind], renumbering[kind]
            print(
                f"  {kind:9} {s.truth:6} {s.precision:.4f} {s.recall:.4f} | {m.truth:5} {m.precision:.4f} "
                f"{m.recall:.4f} | {r.truth:4} {r.precision:.4f} {r.recall:.4f}"
            )
    return 0


BROWSER_PAIRS = (
    ("2020-06-01", "2026-08-07"),
    ("2026-06-19", "2026-08-07"),
    ("1999-04-23", "2026-08-07"),
    ("2026-08-07", "2009-05-01"),
)


def browser(kb: Path) -> None:
    """Any two editions in chromium from disk, beside the library's join."""
    from playwright.sync_api import sync_playwright

    from comprules.align import history
    from comprules.kb import KnowledgeBase

    page_url = (kb / "site/diff/en/compare.html").resolve().as_uri()
    base = KnowledgeBase(kb)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        for old, new in BROWSER_PAIRS:
            history._LINEAGES.clear()
            lib, wall, cpu = clock(history.diff, base, old, new)
            again, wall2, _ = clock(history.diff, base, old, new)  # lineage kept for the process
            times = []
            for _ in range(3):
                page = chromium.new_page()
                started = time.perf_counter()
                page.goto(f"{page_url}?old={old}&new={new}")
                page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
                total = time.perf_counter() - started
                ms = int(page.locator("#diff-out").get_attribute("data-ms"))
                rows = page.evaluate("window.CR_COMPARED.rules.map(r => [r.old, r.new, r.kind, r.words])")
                times.append((ms, total))
                page.close()
            same = sorted(map(tuple, rows), key=str) == sorted(
                ((r.old, r.new, r.kind, r.words) for r in lib.rules), key=str
            )
            ms, total = min(times)
            print(
                f"compare {old} → {new} in chromium from disk: {ms} ms in the page (load, join, render; "
                f"{total:.2f} s with the page load; target ≤ 1 s), {len(rows)} rows; library join "
                f"{wall:.2f} s cold ({cpu:.2f} s CPU, reading {lib.old} … stored alignments), {wall2:.3f} s "
                f"warm; same rows: {same}"
            )
        chromium.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
