"""A complete translated edition ⇄ the English edition it translates.

A full translation (the Simplified Chinese CR, 18 editions) keeps the English
numbering, so it is paired and aligned by *date and number*, not by the structural
guesswork a fragment needs (:mod:`.crosslang`):

* :func:`english_twin`: the English edition of the same effective date, or failing
  that the nearest earlier one (a translation never predates its original), with the
  rule numbers that differ (:func:`number_differences`);
* :func:`align_translation`: each numbered unit with the English unit of the same
  number (``kept``), the translation's rules the English lacks (``removed``), the
  English rules the translation lacks (``added``); ``similarity`` is the agreement of
  what a translation keeps — the rules cited, numbers and symbols (``{T}``, ``2/2``);
* :func:`glossary_pairs`: the glossary entries paired in order (the Chinese glossary
  keeps the English alphabetical order) by the rules each definition cites;
* :func:`translation_terms`: the term pairs of keyword headings (``702.19`` 践踏 ⇄
  Trample), section titles and glossary headwords, for the lexicon
  (:func:`lexicon_of`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from .. import references
from ..model import Edition, GlossaryEntry, Rule, TermPair, is_translation
from .alignment import Alignment, RuleChange, SectionChange

__all__ = [
    "TwinChoice",
    "is_translation",
    "english_twin",
    "number_differences",
    "align_translation",
    "glossary_pairs",
    "translation_terms",
    "lexicon_of",
    "rule_similarity",
]


@dataclass(frozen=True)
class TwinChoice:
    """The English edition a translated edition is paired with.

    ``same_date`` is true for a twin of the same effective date; otherwise
    ``english`` is the nearest earlier English edition. ``only_translation`` and
    ``only_english`` are the rule and subrule numbers found on one side only.
    ``score`` is the share of the translation's numbered rules that the English
    edition holds (1.0 for every twin of the corpus).
    """

    french: str  # the translated edition (the field name is shared with EraChoice)
    english: str
    score: float
    era: tuple[str, str]
    same_date: bool
    only_translation: tuple[str, ...]
    only_english: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "translation": self.french,
            "english": self.english,
            "same_date": self.same_date,
            "score": self.score,
            "only_translation": list(self.only_translation),
            "only_english": list(self.only_english),
        }


def number_differences(doc: Edition, en: Edition) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(numbers only in ``doc``, numbers only in ``en``), rules and subrules, in order."""
    mine = [r.id for r in doc.numbered()]
    theirs = [r.id for r in en.numbered()]
    a, b = set(mine), set(theirs)
    return tuple(n for n in mine if n not in b), tuple(n for n in theirs if n not in a)


def english_twin(doc: Edition, english: Sequence[Edition]) -> TwinChoice:
    """The English edition of ``doc``'s date among ``english``, else the nearest earlier.

    Raises ``ValueError`` when no English edition is as old as ``doc``.
    """
    dated = sorted(
        (e for e in english if e.lang == "en" and e.kind != "fragment" and e.effective), key=lambda e: e.effective
    )
    earlier = [e for e in dated if e.effective <= doc.effective]
    if not earlier:
        raise ValueError(f"no English edition on or before {doc.effective} for {doc.name}")
    en = earlier[-1]
    only_doc, only_en = number_differences(doc, en)
    total = len(doc.numbered()) or 1
    score = round(1 - len(only_doc) / total, 4)
    return TwinChoice(doc.name, en.name, score, (en.name, en.name), en.effective == doc.effective, only_doc, only_en)


_SYMBOL = re.compile(r"\{[^}\s]{1,4}\}|[+-]?\d+/[+-]?\d+|(?<![\d.])\d+(?![\d.]*\d)")


@lru_cache(maxsize=100_000)
def _signature(text: str, lang: str) -> tuple[frozenset, frozenset]:
    cited = references.extract(text, lang)
    refs = frozenset(t for r in cited if r.kind != "glossary" for t in r.targets)
    spans = [(s, e) for r in cited for s, e, _ in r.parts]
    symbols = frozenset(m.group() for m in _SYMBOL.finditer(text) if not any(s <= m.start() < e for s, e in spans))
    return refs, symbols


def rule_similarity(a: Rule, b: Rule, lang_a: str, lang_b: str) -> float:
    """Agreement (0–1) of two rules in two languages on what a translation keeps: the
    rules they cite, their numbers and symbols, their number of examples. Two rules
    with none of these (a keyword heading, a short definition) agree (1.0)."""
    ra, sa = _signature(" ".join((a.text, *a.examples)), lang_a)
    rb, sb = _signature(" ".join((b.text, *b.examples)), lang_b)
    parts = []
    for x, y, w in ((ra, rb, 3.0), (sa, sb, 1.0)):
        if x or y:
            parts.append((w, len(x & y) / len(x | y)))
    parts.append((0.5, 1.0 if len(a.examples) == len(b.examples) else 0.0))
    return round(sum(w * v for w, v in parts) / sum(w for w, _ in parts), 4)


def align_translation(doc: Edition, en: Edition, via: Mapping[str, str | None] | None = None) -> Alignment:
    """Align a translated edition (``old``) with an English edition (``new``) by number,
    or through ``via`` (its rule and section numbers → the English ones, ``None`` for
    none: :func:`comprules.align.history.translation_routes`, for a translation of an
    English edition the corpus lacks).

    Rows in the translation's order: ``kept`` (the same number on both sides,
    ``similarity`` from :func:`rule_similarity`), ``renumbered`` (paired through ``via``
    with another number), ``removed`` (no English counterpart: the translation is of
    another date); then ``added`` for the English rules the translation lacks. Sections
    likewise, with both titles.
    """

    def twin(number: str) -> str | None:
        return number if via is None else via.get(number)

    rows: list[RuleChange] = []
    paired: set[str] = set()
    for r in doc.rules:
        if r.kind not in ("rule", "subrule"):
            continue
        n = twin(r.id)
        e = en.by_id.get(n) if n is not None and n not in paired else None
        if e is None or e.kind not in ("rule", "subrule"):
            rows.append(RuleChange(r.id, None, "removed", 0.0))
        else:
            paired.add(e.id)
            kind = "kept" if e.id == r.id else "renumbered"
            rows.append(RuleChange(r.id, e.id, kind, rule_similarity(r, e, doc.lang, en.lang)))
    rows.extend(RuleChange(None, e.id, "added", 0.0) for e in en.numbered() if e.id not in paired)
    sections = []
    theirs = {s.number: s for s in en.sections()}
    taken: set[str] = set()
    for s in doc.sections():
        n = twin(s.number)
        e = theirs.get(n) if n is not None and n not in taken else None
        if e is not None:
            taken.add(e.number)
        kind = "removed" if e is None else "kept" if e.number == s.number else "renumbered"
        sections.append(SectionChange(s.number, e.number if e else None, kind, s.title, e.title if e else None))
    sections.extend(SectionChange(None, n, "added", None, s.title) for n, s in theirs.items() if n not in taken)
    return Alignment(doc.name, en.name, tuple(rows), tuple(sections))


def _cited(entry: GlossaryEntry, lang: str) -> str:
    refs = [t for r in references.extract(entry.text, lang) if r.kind != "glossary" for t in r.targets]
    return " ".join(refs)


def glossary_pairs(doc: Edition, en: Edition) -> list[tuple[GlossaryEntry, GlossaryEntry]]:
    """The translation's glossary entries paired with the English ones, in the
    translation's order.

    Both glossaries are nearly in the English alphabetical order; they are matched in
    order (:class:`difflib.SequenceMatcher` on the rules each definition cites). Inside a
    run that differs, entries citing the same rules pair first; then an entry still alone
    pairs with the one English entry still alone that cites the same rules, wherever it
    stands (zh/2026-04-17's 过量伤害 and 竭绝 are not in the order of Excess Damage and
    Exhaust: in order, 过量伤害 was paired with Exhaust); last, what is left of a run pairs
    in order when as many are left on each side (a translator's slip in a cited number,
    "Y: see X").
    """
    a = [_cited(g, doc.lang) for g in doc.glossary]
    b = [_cited(g, en.lang) for g in en.glossary]
    pairs: dict[int, int] = {}
    runs: list[tuple[range, range]] = []  # the runs that differ, for the last step
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs.update(zip(range(i1, i2), range(j1, j2)))
        elif tag == "replace":
            runs.append((range(i1, i2), range(j1, j2)))
            free = list(range(j1, j2))
            for i in range(i1, i2):
                j = next((j for j in free if a[i] and b[j] == a[i]), None)
                if j is not None:
                    pairs[i] = j
                    free.remove(j)
    # an entry alone and the one English entry alone that cite the same rules, anywhere
    taken = set(pairs.values())
    alone_a: dict[str, list[int]] = {}
    alone_b: dict[str, list[int]] = {}
    for i, cited in enumerate(a):
        if i not in pairs and cited:
            alone_a.setdefault(cited, []).append(i)
    for j, cited in enumerate(b):
        if j not in taken and cited:
            alone_b.setdefault(cited, []).append(j)
    for cited, ii in alone_a.items():
        jj = alone_b.get(cited, [])
        if len(ii) == 1 and len(jj) == 1:
            pairs[ii[0]] = jj[0]
            taken.add(jj[0])
    # what is left of a run that differs, in order, when as many are left on each side (a
    # translator's slip in a number, "Y: see X")
    for ii, jj in runs:
        left = [i for i in ii if i not in pairs]
        free = [j for j in jj if j not in taken]
        if left and len(left) == len(free):
            pairs.update(zip(left, free))
            taken.update(free)
    return [(doc.glossary[i], en.glossary[pairs[i]]) for i in sorted(pairs)]


@dataclass(frozen=True)
class _Pair:
    term: str
    en: str
    edition: str
    unit: str
    en_edition: str
    en_unit: str
    similarity: float


def translation_terms(doc: Edition, en: Edition, alignment: Alignment | None = None):
    """Term pairs (:class:`TermPair`, ``lang`` the
    translation's): keyword headings and other titled rules of the same number
    (践踏 ⇄ Trample), section titles (战斗伤害步骤 ⇄ Combat Damage Step), glossary
    headwords paired by :func:`glossary_pairs` (死触 ⇄ Deathtouch)."""
    a = alignment or align_translation(doc, en)
    out = []
    for c in a.rules:
        if c.kind != "kept":
            continue
        f, e = doc.by_id.get(c.old), en.by_id.get(c.new)
        if f is not None and e is not None and f.title and e.title:
            out.append(TermPair(f.title, e.title, doc.name, f.id, en.name, e.id, c.similarity, lang=doc.lang))
    for s in a.sections:
        if s.old and s.new and s.old_title and s.new_title:
            out.append(TermPair(s.old_title, s.new_title, doc.name, s.old, en.name, s.new, 1.0, lang=doc.lang))
    for g, e in glossary_pairs(doc, en):
        for name, en_name in zip((g.term, *g.aliases), (e.term, *e.aliases)):
            out.append(
                TermPair(
                    name, en_name, doc.name, f"glossary/{g.slug}", en.name, f"glossary/{e.slug}", 1.0, lang=doc.lang
                )
            )
    return out


def lexicon_of(lang: str, pairs: Iterable) -> dict[str, list[str]]:
    """English term → its names in ``lang``, from term pairs, each name once, in the
    order found (the latest edition's pairs should come first for the current name)."""
    out: dict[str, list[str]] = {}
    for p in pairs:
        if p.lang != lang:
            continue
        names = out.setdefault(p.en, [])
        if p.fr not in names:
            names.append(p.fr)
    return out
