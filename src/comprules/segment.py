"""Word segmentation of Chinese text, the same in Python and in the site's JavaScript.

Chinese is written without spaces, so search needs words cut out of each run of Han
characters. The method is jieba's (https://github.com/fxsjy/jieba, no HMM): every
dictionary word starting at each character forms a graph; the path whose words have
the highest summed log-probability wins (ties: the longer word). Two things make it
reproducible by the site's search, which runs in a browser without jieba:

* the **vocabulary** is made at build time by the index stage from the knowledge
  base's own Chinese editions (:func:`vocabulary_of`), and stored with the index
  (:data:`FILE`) and in the site's search data (``search/segment.js``), so that the
  indexed texts, the Python queries and the JavaScript queries are cut alike. It is
  jieba's dictionary restricted to the words that occur in the editions (every
  dictionary word that is a substring of a Han run: exactly the graph jieba builds on
  those texts), plus the CR's own terms that jieba would cut into single characters
  (:func:`cr_terms`: keyword headings of 701 and 702 and glossary headwords, of at
  most :data:`MAX_TERM` Han characters: 死触, 先攻, 鹏洛客), each given the frequency
  jieba's ``suggest_freq`` finds to keep it whole; a compound of known words
  (战斗伤害步骤 = 战斗 伤害 步骤, 践踏鹏洛客 = 践踏 鹏洛客) is left to its words, so
  that 践踏 finds it. Nothing of it is committed: jieba's dictionary is jieba's, the
  words come from the editions the build is given. A knowledge base with no Chinese
  edition has the empty vocabulary (:data:`EMPTY`), which cuts every Han character
  apart (a query in Chinese still runs);
* the scores are **integers** (log-probability × 10⁶, rounded), so that the sums and
  comparisons are exact in any language; the JavaScript port walks the same graph.

The tokenizer (:mod:`comprules.indexer.text`) cuts with the **active** vocabulary of
the current thread or task (:func:`active`, a context variable): the index build
activates the one it makes (:func:`using`), opening an index for search activates the
index's own (:func:`activate`).

On the texts it was built from, :meth:`Segmenter.words` gives jieba's own segmentation
(tested on every rule of the Chinese editions). For indexing, :meth:`Segmenter.terms`
also gives the dictionary words inside a longer word (jieba's ``cut_for_search``): the
rule that says 践踏鹏洛客 is found by 践踏.

>>> seg = Segmenter.from_texts(["具有践踏的攻击生物"], terms=["践踏"])
>>> seg.words("具有践踏的攻击生物")
['具有', '践踏', '的', '攻击', '生物']
"""

from __future__ import annotations

import contextvars
import json
import logging
import math
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

__all__ = [
    "EMPTY",
    "FILE",
    "HAN_RUN",
    "MAX_TERM",
    "Segmenter",
    "activate",
    "active",
    "cr_terms",
    "han_runs",
    "split_han",
    "using",
    "vocabulary_of",
]

#: The vocabulary's file in an index folder (``{"scale", "unknown", "words"}``).
FILE = "segment.json"
#: A CR term longer than this many Han characters is left to jieba's words (the
#: glossary's and 702's terms are shorter; a longer "heading" is a parsed sentence).
MAX_TERM = 8

#: A run of Han characters (CJK ideographs): what is segmented; anything else is left
#: to the language's ordinary tokenizer (numbers such as 702.19b, Latin words).
HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Scores are log-probabilities times this, rounded to integers.
SCALE = 1_000_000


def han_runs(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each run of Han characters in ``text``."""
    for m in HAN_RUN.finditer(text):
        yield m.start(), m.end()


def split_han(token: str) -> list[tuple[int, int, bool]]:
    """A token cut into Han and other pieces: ``规则702.19b所述`` →
    ``[(0, 2, True), (2, 9, False), (9, 11, True)]``."""
    out, pos = [], 0
    for s, e in han_runs(token):
        if s > pos:
            out.append((pos, s, False))
        out.append((s, e, True))
        pos = e
    if pos < len(token):
        out.append((pos, len(token), False))
    return out


@lru_cache(maxsize=1)
def _jieba():
    """jieba's default tokenizer, initialised once (its dictionary: ~350,000 words)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


@dataclass
class Segmenter:
    """Segments Han runs against a vocabulary of ``word → score`` (integer
    log-probabilities, :data:`SCALE`); ``unknown`` is the score of a character that is
    no word (jieba's frequency 1)."""

    scores: dict[str, int]
    unknown: int

    def __post_init__(self) -> None:
        self.longest = max((len(w) for w in self.scores), default=1)

    # -- building -------------------------------------------------------------

    @classmethod
    def from_texts(cls, texts: Iterable[str], terms: Iterable[str] = ()) -> "Segmenter":
        """The vocabulary of ``texts`` (every jieba dictionary word found in their Han
        runs) and of ``terms`` (kept whole), scored as jieba scores them."""
        tok = _jieba()
        freq = dict(tok.FREQ)
        total = tok.total
        runs = {term[s:e] for term in terms for s, e in han_runs(term) if 1 < e - s <= MAX_TERM}
        words = sorted(runs, key=lambda w: (len(w), w))
        for word in words:  # shortest first: a longer term made of added ones stays cut
            pieces = _cut(word, freq, total)
            if len(pieces) == 1 or all(len(p) > 1 for p in pieces):
                continue  # a dictionary word, or a compound of words
            need = _whole_freq(pieces, freq, total)
            total += need - freq.get(word, 0)
            freq[word] = need
            for k in range(1, len(word)):
                freq.setdefault(word[:k], 0)
        found: dict[str, int] = {}
        for text in texts:
            for s, e in han_runs(text):
                run = text[s:e]
                for k in range(len(run)):
                    i = k + 1
                    frag = run[k:i]
                    while i <= len(run) and frag in freq:
                        if freq[frag]:
                            found[frag] = freq[frag]
                        i += 1
                        frag = run[k:i]
        logtotal = math.log(total)
        scores = {w: round((math.log(f) - logtotal) * SCALE) for w, f in found.items()}
        return cls(scores, round(-logtotal * SCALE))

    def to_json(self) -> dict:
        """``{"scale", "unknown", "words": {word: score}}``, sorted, for the site's search."""
        return {"scale": SCALE, "unknown": self.unknown, "words": dict(sorted(self.scores.items()))}

    @classmethod
    def from_json(cls, data: dict) -> "Segmenter":
        return cls({str(k): int(v) for k, v in data["words"].items()}, int(data["unknown"]))

    # -- segmenting -----------------------------------------------------------

    def _route(self, run: str) -> list[int]:
        """For each position, the end of the best word starting there (jieba's ``calc``)."""
        n = len(run)
        best = [0] * (n + 1)
        end = [0] * n
        scores, unknown, longest = self.scores, self.unknown, self.longest
        for i in range(n - 1, -1, -1):
            top, top_end = None, 0
            for j in range(i + 1, min(n, i + longest) + 1):
                s = scores.get(run[i:j])
                if s is not None and (top is None or s + best[j] >= top):  # a tie: the longer word
                    top, top_end = s + best[j], j
            if top is None:  # no word starts here: the character alone
                top, top_end = unknown + best[i + 1], i + 1
            best[i], end[i] = top, top_end
        return end

    def spans(self, run: str) -> list[tuple[int, int]]:
        """The (start, end) of each word of one run of Han characters."""
        end = self._route(run)
        out, i = [], 0
        while i < len(run):
            out.append((i, end[i]))
            i = end[i]
        return out

    def words(self, text: str) -> list[str]:
        """The words of the Han runs of ``text``, in order (other characters skipped)."""
        return [text[s + a : s + b] for s, e in han_runs(text) for a, b in self.spans(text[s:e])]

    def terms(self, word: str) -> list[str]:
        """A word and the vocabulary words of two or three characters inside it (for
        indexing: 践踏鹏洛客 → 践踏鹏洛客, 践踏, 鹏洛, 洛客, 鹏洛客 as the vocabulary has them)."""
        out = [word]
        if len(word) > 2:
            for n in (2, 3):
                for k in range(len(word) - n + 1):
                    piece = word[k : k + n]
                    if piece != word and piece in self.scores and piece not in out:
                        out.append(piece)
        return out


def _cut(word: str, freq: dict[str, int], total: int) -> list[str]:
    """jieba's cut (no HMM) of one Han run with the frequencies ``freq``."""
    logtotal = math.log(total)
    n = len(word)
    route = {n: (0.0, 0)}
    for i in range(n - 1, -1, -1):
        ends = [j for j in range(i + 1, n + 1) if freq.get(word[i:j])] or [i + 1]
        route[i] = max((math.log(freq.get(word[i:j]) or 1) - logtotal + route[j][0], j - 1) for j in ends)
    out, i = [], 0
    while i < n:
        j = route[i][1] + 1
        out.append(word[i:j])
        i = j
    return out


def _whole_freq(pieces: list[str], freq: dict[str, int], total: int) -> int:
    """The frequency that keeps the word of ``pieces`` whole (jieba's
    ``suggest_freq(word, tune=True)``): above the product of the pieces' probabilities."""
    p = 1.0
    for piece in pieces:
        p *= (freq.get(piece) or 1) / total
    return max(int(p * total) + 1, freq.get("".join(pieces), 0), 1)


#: The vocabulary of a knowledge base without Chinese: every Han character a word.
EMPTY = Segmenter({}, 0)

_ACTIVE: contextvars.ContextVar[Segmenter] = contextvars.ContextVar("comprules_segmenter", default=EMPTY)


def active() -> Segmenter:
    """The vocabulary the tokenizer cuts with in this thread or task (:data:`EMPTY`
    until an index is built or opened)."""
    return _ACTIVE.get()


def activate(seg: Segmenter) -> None:
    """Make ``seg`` the active vocabulary of this thread or task (opening an index)."""
    if _ACTIVE.get() is not seg:
        _ACTIVE.set(seg)


@contextmanager
def using(seg: Segmenter) -> Iterator[Segmenter]:
    """``with using(seg):`` cut with ``seg``, then with the previous vocabulary again."""
    token = _ACTIVE.set(seg)
    try:
        yield seg
    finally:
        _ACTIVE.reset(token)


#: The keyword headings: 701.N (keyword actions) and 702.N (keyword abilities).
_KEYWORD = re.compile(r"70[12]\.\d+")


def cr_terms(editions) -> list[str]:
    """The terms of editions that must stay whole: the headings of the keyword rules
    (701.N, 702.N: 践踏, 死触) and the glossary headwords and their aliases, in order,
    once each (any length: :meth:`Segmenter.from_texts` keeps the Han runs of at most
    :data:`MAX_TERM` characters)."""
    out: dict[str, None] = {}
    for e in editions:
        for r in e.rules:
            if r.title and _KEYWORD.fullmatch(r.number):
                out.setdefault(r.title)
        for g in e.glossary:
            for name in (g.term, *g.aliases):
                out.setdefault(name)
    return list(out)


def vocabulary_of(editions) -> Segmenter:
    """The vocabulary of Chinese editions (:class:`~comprules.model.Edition`): the
    jieba words of their rules, titles, examples and glossary, and their terms
    (:func:`cr_terms`). :data:`EMPTY` for no edition."""
    editions = list(editions)
    if not editions:
        return EMPTY
    texts: list[str] = []
    for e in editions:
        for r in e.rules:
            texts.append(r.text)
            texts.extend(r.examples)
            if r.title:
                texts.append(r.title)
        for g in e.glossary:
            texts.append(g.text)
            texts.extend((g.term, *g.aliases))
    return Segmenter.from_texts(texts, cr_terms(editions))


def load(path: Path) -> Segmenter:
    """The vocabulary stored in ``path`` (:data:`FILE`); :data:`EMPTY` when there is
    none (an index of a knowledge base without Chinese). Raises ``ValueError`` for a
    file that is not one."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return EMPTY
    try:
        return Segmenter.from_json(json.loads(raw))
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not a vocabulary ({error})") from None


def save(seg: Segmenter, path: Path) -> None:
    """Write ``seg`` to ``path`` as JSON (a temporary file, then renamed)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(seg.to_json(), ensure_ascii=False, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """``python -m comprules.segment SOURCE... [-o FILE]``: write the vocabulary of the
    Chinese editions among SOURCE (folders or files) as JSON (default: stdout), as the
    index stage makes it (for inspection: it is made by every build, never committed)."""
    import argparse
    import sys

    from .corpus import load_sources

    ap = argparse.ArgumentParser(prog="python -m comprules.segment", description=(main.__doc__ or "").split("\n")[0])
    ap.add_argument("sources", nargs="+")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    result = load_sources(args.sources)
    chinese = [e for e in result.editions if e.lang == "zh"]
    if not chinese:
        print("no Chinese edition among the sources", file=sys.stderr)
        return 2
    text = json.dumps(vocabulary_of(chinese).to_json(), ensure_ascii=False, sort_keys=True, indent=0) + "\n"
    if args.output:
        from pathlib import Path

        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
