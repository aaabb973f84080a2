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
   :mod:`comprules.align.evaluate` (all pairs, and the 2009 renumbering alone).

Wall-clock and CPU seconds are both printed: the machine may be shared.
"""

from __future__ import annotations

import difflib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import en_files  # noqa: E402

from comprules.align import alignment, evaluate as align_eval  # noqa: E402
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
        print(f"word similarity on the rules left ({label}): {n:,} pairs: rapidfuzz {rf:.3f} s, "
              f"difflib {dl:.3f} s CPU ({dl / rf if rf else float('inf'):.0f}× slower)")

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
            print(f"  {kind:9} {s.truth:6} {s.precision:.4f} {s.recall:.4f} | {m.truth:5} {m.precision:.4f} "
                  f"{m.recall:.4f} | {r.truth:4} {r.precision:.4f} {r.recall:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
