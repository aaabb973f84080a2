"""A truth set for :mod:`comprules.align.alignment`, built from the corpus itself.

Four kinds of pairs (old id → new id) that the CR's own structure vouches for,
independently of the text similarity the aligner uses:

``heading``
    keyword headings (sections 502/501 before 2009-07-11, 702/701 after) with the
    same title, unique on both sides: ``502.26 Morph`` → ``702.34 Morph``.
``letter``
    the subrules of those headings, by letter, when the heading has as many subrules
    on both sides: ``502.26b`` → ``702.34b``.
``glossary``
    a glossary entry of the same term and the same definition but for its numbers,
    that cites exactly one rule in both editions ("Morph … See rule 502.26" → "See
    rule 702.34"): the citation followed the rule.
``section``
    sections with the same title, unique on both sides (not "General").

Scores: *precision* is the share of truth pairs whose old rule the aligner sent
somewhere that sent it to the truth's new rule; *recall* is the share of all truth
pairs it got right.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .. import references
from ..model import Edition
from .alignment import Alignment

KEYWORD_SECTIONS = ("501", "502", "701", "702")
_DOTTED = re.compile(r"^\d{3}\.\d+[a-z]{0,2}$")


def _title(t: str | None) -> str:
    return " ".join(re.findall(r"[^\W_]+", (t or "").casefold()))


def _headings(ed: Edition) -> dict[str, str]:
    """Keyword heading title → id, titles printed once only."""
    found = [
        (r.id, _title(r.title)) for r in ed.rules if r.kind == "rule" and r.title and r.section in KEYWORD_SECTIONS
    ]
    counts = Counter(t for _, t in found)
    return {t: i for i, t in found if counts[t] == 1}


def heading_pairs(old: Edition, new: Edition) -> dict[str, str]:
    """``heading`` truth pairs."""
    ho, hn = _headings(old), _headings(new)
    return {ho[t]: hn[t] for t in ho.keys() & hn.keys()}


def letter_pairs(old: Edition, new: Edition) -> dict[str, str]:
    """``letter`` truth pairs: subrules of equal-title headings with as many subrules."""
    out: dict[str, str] = {}
    for o, n in heading_pairs(old, new).items():
        ko = [r.id for r in old.children.get(o, []) if r.kind == "subrule"]
        kn = [r.id for r in new.children.get(n, []) if r.kind == "subrule"]
        if ko and len(ko) == len(kn):
            out.update(zip(ko, kn))
    return out


def _glossary_citations(ed: Edition) -> dict[str, tuple[str, str]]:
    """Term → (the one rule its definition cites, the definition without numbers)."""
    res = references.resolve(ed)
    out = {}
    for g in ed.glossary:
        cited = [t for t in res.glossary_refs.get(g.slug, ()) if _DOTTED.match(t)]
        if len(cited) == 1:
            out[_title(g.term)] = (cited[0], _title(re.sub(r"\d+(?:\.\d+[a-z]*)?", " ", g.text)))
    return out


def glossary_pairs(old: Edition, new: Edition) -> dict[str, str]:
    """``glossary`` truth pairs (old cited rule → new cited rule)."""
    go, gn = _glossary_citations(old), _glossary_citations(new)
    pairs: Counter[str] = Counter()
    out: dict[str, str] = {}
    for term in go.keys() & gn.keys():
        (o, text_o), (n, text_n) = go[term], gn[term]
        if text_o != text_n:
            continue
        if out.get(o, n) != n:  # two entries disagree: not evidence
            pairs[o] += 100
        out[o] = n
    return {o: n for o, n in out.items() if pairs[o] < 100}


def section_pairs(old: Edition, new: Edition) -> dict[str, str]:
    """``section`` truth pairs: equal titles, unique on both sides, "General" aside."""

    def titles(ed):
        found = [(r.id, _title(r.title)) for r in ed.sections()]
        counts = Counter(t for _, t in found)
        return {t: i for i, t in found if counts[t] == 1 and t != "general" and "intentionally" not in t}

    to, tn = titles(old), titles(new)
    return {to[t]: tn[t] for t in to.keys() & tn.keys()}


TRUTH_KINDS = ("heading", "letter", "glossary", "section")


def truth(old: Edition, new: Edition) -> dict[str, dict[str, str]]:
    """Every truth pair of one edition pair, by kind."""
    return {
        "heading": heading_pairs(old, new),
        "letter": letter_pairs(old, new),
        "glossary": glossary_pairs(old, new),
        "section": section_pairs(old, new),
    }


@dataclass
class Score:
    """Counts for precision and recall, and the pairs missed (for reading)."""

    truth: int = 0
    predicted: int = 0
    correct: int = 0
    misses: list = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.truth if self.truth else 1.0

    def add(self, other: "Score") -> None:
        self.truth += other.truth
        self.predicted += other.predicted
        self.correct += other.correct
        self.misses.extend(other.misses)


def score(alignment: Alignment, pairs: dict[str, str], sections: bool = False) -> Score:
    """Compare an alignment's rules (or sections) with truth pairs."""
    s = Score(truth=len(pairs))
    if sections:
        got: dict[str, set] = {}
        for c in alignment.sections:
            if c.old is not None and c.new is not None:
                got.setdefault(c.old, set()).add(c.new)
    else:
        got = {o: {c.new for c in rows if c.new is not None} for o, rows in alignment.forward.items()}
    for o, n in pairs.items():
        predicted = got.get(o)
        if predicted:
            s.predicted += 1
            if n in predicted:
                s.correct += 1
                continue
        s.misses.append((alignment.old, alignment.new, o, n, sorted(predicted or ())))
    return s
