"""French ⇄ English: which English edition a French document translates, rule by
rule, and the bilingual lexicon of the rules' terms.

Words cannot be compared across languages, so the French document is aligned with
the English edition of its era by *structure*:

* the same numbers first (``502.26`` Mue ⇄ ``502.26`` Morph), confirmed by what a
  translation keeps: the rules it cites (``voir règle 504`` ⇄ ``See rule 504``),
  numbers and symbols (``{T}``, ``2/2``), length (French runs about 15 % longer), the
  game terms of the lexicon (``capacité`` ⇄ ``ability``), and for a heading, its
  subrules;
* then unnumbered paragraphs (seed 001 gives section 602 "Capacités" as ``602¶1…``)
  in order against the rules of the English section of the same title (402
  "Abilities" before 2009-07-11), and headings of a rulebook extract (seed 003: Peur,
  Vol…) against the English keyword headings, through the lexicon.

The era is chosen automatically (:func:`choose_english`): the English edition whose
structure agrees best with the French document, the earliest among equals (a
translation never predates its original).

The lexicon (:func:`lexicon`, :func:`lexicon_fr`) is the table checked into
``comprules/data/lexicon_fr.toml`` (official French names of keyword abilities,
keyword actions and game terms), completed by the heading pairs an alignment finds
(:func:`aligned_terms`): Mue ⇄ Morph comes out of 502.26 by structure alone.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterable, MutableMapping, Sequence

from .. import references
from ..model import Edition, Rule
from . import translation
from .alignment import Alignment, RuleChange, SectionChange
from .translation import TermPair

__all__ = [
    "lexicon",
    "lexicon_fr",
    "lexicon_entries",
    "TermPair",
    "EraChoice",
    "choose_english",
    "title_translates",
    "align_languages",
    "aligned_terms",
    "cross_similarity",
]

LEXICON_FILE = "lexicon_fr.toml"


def _key(term: str) -> str:
    """How terms are compared: case folded, words only (``Protection contre`` →
    ``protection contre``)."""
    return " ".join(re.findall(r"[^\W_]+", term.casefold()))


@lru_cache(maxsize=1)
def lexicon_entries() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The checked-in table: ``(category, english, (french, …))`` with category
    ``keywords``, ``actions`` or ``terms``."""
    with resources.files("comprules").joinpath("data", LEXICON_FILE).open("rb") as fh:
        data = tomllib.load(fh)
    out = []
    for category, entries in data.items():
        for en, fr in entries.items():
            out.append((category, en, tuple([fr] if isinstance(fr, str) else fr)))
    return tuple(out)


def lexicon(extra: Iterable["TermPair"] = ()) -> dict[str, list[str]]:
    """English term → its French names: the table, plus the pairs in ``extra``
    (aligned headings, :func:`aligned_terms`).

    >>> lexicon()["Morph"]
    ['Mue']
    """
    out: dict[str, list[str]] = {}
    for _cat, en, frs in lexicon_entries():
        out.setdefault(en, []).extend(f for f in frs if f not in out.get(en, []))
    by_key = {_key(en): en for en in out}
    for pair in extra:
        if pair.lang != "fr":  # the pairs of other languages make their own lexicon (translation.lexicon_of)
            continue
        en = by_key.get(_key(pair.en), pair.en)
        names = out.setdefault(en, [])
        if all(_key(f) != _key(pair.fr) for f in names):
            names.append(pair.fr)
        by_key.setdefault(_key(en), en)
    return out


def lexicon_fr(extra: Iterable["TermPair"] = ()) -> dict[str, list[str]]:
    """French term → its English terms (the reverse of :func:`lexicon`).

    >>> lexicon_fr()["Mue"]
    ['Morph']
    """
    out: dict[str, list[str]] = {}
    for en, frs in lexicon(extra).items():
        for fr in frs:
            if en not in out.setdefault(fr, []):
                out[fr].append(en)
    return out


@lru_cache(maxsize=1)
def _fr_to_en_keys() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for _cat, en, frs in lexicon_entries():
        for fr in frs:
            out.setdefault(_key(fr), set()).add(_key(en))
    return {k: frozenset(v) for k, v in out.items()}


def _translates(fr_title: str | None, en_title: str | None) -> bool:
    """True when the table gives ``en_title`` as a translation of ``fr_title``."""
    if not fr_title or not en_title:
        return False
    return _key(en_title) in _fr_to_en_keys().get(_key(fr_title), ())


def title_translates(fr_title: str, en_title: str) -> bool:
    """True when a French quoted title names an English title: through the lexicon
    (``Effets`` ⇄ ``Effects``, ``Sorts et permanents face cachée`` ⇄ ``Face-Down
    Spells and Permanents``), or word for word (``Bushido``). For
    :func:`comprules.references.resolve_external`."""
    return _translates(fr_title, en_title) or references.titles_agree(fr_title, en_title)


@lru_cache(maxsize=1)
def _term_patterns() -> tuple[tuple[re.Pattern, re.Pattern], ...]:
    """(French, English) word patterns of every term of the table, singular or plural
    (``capacité``/``capacités`` ⇄ ``ability``/``abilities``)."""
    out = []
    for _cat, en, frs in lexicon_entries():
        fr_alt = "|".join(re.escape(_singular_fr(f.casefold())) for f in frs)
        fr = re.compile(rf"\b(?:{fr_alt})[sx]?\b")
        out.append((fr, re.compile(rf"\b{_english_forms(en.casefold())}\b")))
    return tuple(out)


def _singular_fr(term: str) -> str:
    return term[:-1] if term.endswith(("s", "x")) and len(term) > 3 else term


def _english_forms(term: str) -> str:
    if term.endswith("ies"):
        return re.escape(term[:-3]) + "(?:y|ies)"
    if term.endswith("y"):
        return re.escape(term[:-1]) + "(?:y|ies)"
    if term.endswith("s") and not term.endswith("ss"):
        return re.escape(term[:-1]) + "s?"
    return re.escape(term) + "(?:s|es)?"


# ---------------------------------------------------------------------------
# Structural similarity


_SYMBOLS = re.compile(r"\{[^}\s]{1,4}\}|[+-]?\d+/[+-]?\d+|\b\d+\b")


@dataclass(frozen=True)
class _Sig:
    refs: frozenset[str]
    symbols: frozenset[str]
    terms: frozenset[int]  # indices of the lexicon's game terms found
    length: int
    examples: int


@lru_cache(maxsize=200_000)
def _sig_of(text: str, examples: int, lang: str) -> _Sig:
    refs = frozenset(t for r in references.extract(text, lang) if r.kind != "glossary" for t in r.targets)
    symbols = frozenset(m.group() for m in _SYMBOLS.finditer(text)) - refs
    lowered = text.casefold()
    side = 0 if lang == "fr" else 1
    terms = frozenset(k for k, pats in enumerate(_term_patterns()) if pats[side].search(lowered))
    return _Sig(refs, symbols, terms, len(text), examples)


def _sig(rule: Rule, lang: str) -> _Sig:
    return _sig_of(" ".join((rule.text, *rule.examples)), len(rule.examples), lang)


def _jaccard(a: frozenset, b: frozenset) -> float | None:
    if not a and not b:
        return None
    return len(a & b) / len(a | b)


def _similar(f: _Sig, e: _Sig) -> float:
    """Structural similarity of a French and an English text, in [0, 1].

    Without any evidence (no reference, symbol or game term on the French side) the
    score is scaled down: length alone pairs forum chatter with anything.
    """
    parts: list[tuple[float, float]] = []
    refs = _jaccard(f.refs, e.refs)
    if refs is not None:
        parts.append((3.0, refs))
    symbols = _jaccard(f.symbols, e.symbols)
    if symbols is not None:
        parts.append((1.0, symbols))
    if f.terms:
        parts.append((2.0, len(f.terms & e.terms) / len(f.terms)))
    evidence = bool(parts)
    if f.length and e.length:
        ratio = f.length / e.length
        parts.append((2.0, max(0.0, 1 - abs(math.log(ratio / 1.15)) / math.log(2))))
    parts.append((0.5, 1.0 if f.examples == e.examples else 0.0))
    total = sum(w for w, _ in parts)
    score = sum(w * v for w, v in parts) / total if total else 0.0
    return score if evidence else 0.3 * score


def cross_similarity(fr_rule: Rule, en_rule: Rule) -> float:
    """Structural similarity (0–1) of a French rule and an English rule (references,
    symbols, game terms, length, examples); the words themselves are not compared."""
    return _similar(_sig(fr_rule, "fr"), _sig(en_rule, "en"))


class _Side:
    """An edition and its rules' signatures (cached by text across editions)."""

    def __init__(self, edition: Edition):
        self.edition = edition
        self.lang = edition.lang

    def sig(self, rule: Rule) -> _Sig:
        return _sig(rule, self.lang)


def _pair_score(fr: _Side, en: _Side, f: Rule, e: Rule) -> float:
    """A heading is as good as its subrules paired by letter; another rule, its text."""
    if f.title and e.title:
        kids_f = [k for k in fr.edition.children.get(f.number, []) if k.kind == "subrule"]
        kids_e = {k.number[len(e.number) :]: k for k in en.edition.children.get(e.number, []) if k.kind == "subrule"}
        scores = [
            _similar(fr.sig(k), en.sig(kids_e[k.number[len(f.number) :]]))
            for k in kids_f
            if k.number[len(f.number) :] in kids_e
        ]
        if scores:
            return sum(scores) / len(kids_f) * (1.0 if len(kids_f) == len(kids_e) else 0.8)
        return 1.0 if _translates(f.title, e.title) else 0.0
    return _similar(fr.sig(f), en.sig(e))


# ---------------------------------------------------------------------------
# Choosing the English edition


@dataclass(frozen=True)
class EraChoice:
    """The English edition chosen for a French document, its score (0–1), and the
    first and last English editions scoring as well (the era)."""

    french: str
    english: str
    score: float
    era: tuple[str, str]


#: Scores closer than this are equal (the earliest edition wins).
ERA_TOLERANCE = 0.005
#: The least score of an era: below it no English edition given shares the document's
#: numbering. On the real seeds the edition of the era scores 0.92–1.0, an edition of the
#: same numbering some years off 0.40–0.88 (seed 000's 402 against 2009-05-01: 0.40, still
#: rule for rule), one after the 2009 renumbering 0.0–0.27 for the extracts that quote
#: numbered rules (000, 002, 004 against 2026-06-19), so that nothing is paired by chance.
ERA_MIN = 0.35


def choose_english(
    fr: Edition, english: Sequence[Edition], scores: MutableMapping[tuple[str, str], float] | None = None
) -> EraChoice:
    """The English edition of ``fr``'s era among ``english`` (complete editions).

    Each edition scores the mean agreement of the French units with it: a numbered
    rule with the English rule of the same number (:func:`cross_similarity`; a heading
    by its subrules), a section by its title through the lexicon, unnumbered paragraphs
    with the rules of the English section of the same title, a rulebook heading with a
    keyword heading of the same meaning. The best edition wins; among editions within
    :data:`ERA_TOLERANCE` of it, the earliest. Raises ``ValueError`` without English
    editions, or when the best scores under :data:`ERA_MIN` (the knowledge base holds no
    English edition of the document's era: a 2002 extract beside the 2026 editions only).
    ``scores`` keeps each score by the two editions' ``content_key``: a score found there
    is not computed again, one computed is put there (a build keeps them from one build to
    the next: one English edition changed, each document is scored against it alone).
    """
    dated = sorted(
        (e for e in english if e.lang == "en" and e.kind != "fragment"),
        key=lambda e: (e.effective is None, e.effective, e.name),
    )
    if not dated:
        raise ValueError("no English edition to compare with")
    side: _Side | None = None
    scored = []
    for i, e in enumerate(dated):
        key = (fr.content_key, e.content_key)
        score = scores.get(key) if scores is not None else None
        if score is None:
            side = side or _Side(fr)
            score = _era_score(side, _Side(e))
            if scores is not None:
                scores[key] = score
        scored.append((score, i))
    best = max(s for s, _ in scored)
    if best < ERA_MIN:
        raise ValueError(f"no English edition of its era (the best, {dated[max(scored)[1]].name}, agrees {best:.2f})")
    ties = [i for s, i in scored if s >= best - ERA_TOLERANCE]
    # the era: the run of consecutive editions around the first tie
    first = ties[0]
    last = first
    while last + 1 < len(dated) and scored[last + 1][0] >= best - ERA_TOLERANCE:
        last += 1
    return EraChoice(fr.name, dated[first].name, round(best, 4), (dated[first].name, dated[last].name))


def _era_score(fr: _Side, en: _Side) -> float:
    scores = [s for _f, _e, s in _matches(fr, en, era=True)]
    units = [
        r
        for r in fr.edition.rules
        if r.kind in ("section", "rule", "subrule") or (r.kind == "passage" and (r.title or r.section))
    ] + _glossary_units(fr.edition)
    return sum(scores) / len(units) if units else 0.0


def _matches(fr: _Side, en: _Side, era: bool = False):
    """``(french rule, english rule or None, score)`` for every French unit that can be
    matched: numbered units by number, paragraphs by section, headings by lexicon."""
    ed_f, ed_e = fr.edition, en.edition
    sections_e = {r.number: r for r in ed_e.rules if r.kind == "section"}
    titles_e = {}
    for r in ed_e.rules:
        if r.kind == "section":
            titles_e.setdefault(_key(r.title or ""), r)
    section_map: dict[str, Rule] = {}
    for r in ed_f.rules:
        if r.kind != "section":
            continue
        same = sections_e.get(r.number)
        if same is not None and _translates(r.title, same.title):
            section_map[r.number] = same
            yield r, same, 1.0
            continue
        by_title = next((titles_e[k] for k in _fr_to_en_keys().get(_key(r.title or ""), ()) if k in titles_e), None)
        if by_title is not None:
            section_map[r.number] = by_title
            yield r, by_title, 1.0 if not era else 0.5
        else:
            yield r, None, 0.0
    numbered = set()
    for r in ed_f.rules:
        if r.kind in ("rule", "subrule"):
            e = ed_e.get(r.number)
            score = _pair_score(fr, en, r, e) if e is not None else 0.0
            if e is not None and score >= NUMBERED_MIN:
                numbered.add(e.id)
            yield r, e, score
    # unnumbered paragraphs of a section, in order, against the English section's rules
    passages: dict[str, list[Rule]] = {}
    for r in ed_f.rules:
        if r.kind == "passage" and r.section and r.section in section_map:
            passages.setdefault(r.section, []).append(r)
    for sec, paras in passages.items():
        target = section_map[sec]
        rules_e = [
            r
            for r in ed_e.rules
            if r.section == target.number and r.kind in ("rule", "subrule") and not r.title and r.id not in numbered
        ]
        for f, e, s in _monotone(fr, en, paras, rules_e):
            yield f, e, s
    # rulebook headings (seed 003: Peur, Vol…, read as glossary entries) against the
    # keyword headings, through the table
    headings_e: dict[str, Rule] = {}
    for r in ed_e.rules:
        if r.kind == "rule" and r.title:
            headings_e.setdefault(_key(r.title), r)
    for r in [*_glossary_units(ed_f), *(r for r in ed_f.rules if r.kind == "passage" and r.title and not r.section)]:
        e = next((headings_e[k] for k in _fr_to_en_keys().get(_key(r.title), ()) if k in headings_e), None)
        yield r, e, 1.0 if e is not None else 0.0


def _glossary_units(ed: Edition) -> list[Rule]:
    """Glossary entries as units (id ``glossary/{slug}``, title the headword)."""
    return [
        Rule(
            id=f"glossary/{g.slug}",
            number=f"glossary/{g.slug}",
            kind="glossary",
            text=g.text,
            line=g.line,
            title=g.term,
        )
        for g in ed.glossary
    ]


#: A paragraph pairs with a rule when their structures agree at least this much.
PASSAGE_MIN = 0.45


def _monotone(fr: _Side, en: _Side, paras: list[Rule], rules: list[Rule]):
    """Pair paragraphs with rules in order (dynamic programming on the summed
    similarity), skipping either side where nothing agrees."""
    n, m = len(paras), len(rules)
    if not n or not m:
        for p in paras:
            yield p, None, 0.0
        return
    sim = [[_similar(fr.sig(p), en.sig(r)) for r in rules] for p in paras]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [(best[i + 1][j], 1), (best[i][j + 1], 2)]
            if sim[i][j] >= PASSAGE_MIN:
                options.append((best[i + 1][j + 1] + sim[i][j], 3))
            best[i][j], move[i][j] = max(options)
    i = j = 0
    while i < n:
        if j >= m:
            yield paras[i], None, 0.0
            i += 1
        elif move[i][j] == 3:
            yield paras[i], rules[j], sim[i][j]
            i, j = i + 1, j + 1
        elif move[i][j] == 1:
            yield paras[i], None, 0.0
            i += 1
        else:
            j += 1


# ---------------------------------------------------------------------------
# Alignment and lexicon

#: A numbered French rule pairs with the English rule of the same number at this
#: structural agreement (a heading: by its subrules).
NUMBERED_MIN = 0.3


def align_languages(fr: Edition, en: Edition) -> Alignment:
    """Align a French document with an English edition (``old`` is the French one).

    Rows: ``kept`` (same number), ``renumbered`` (a paragraph or heading paired with a
    numbered rule; a glossary entry of a rulebook extract is ``glossary/{slug}``),
    ``removed`` (a French unit without English counterpart); English
    rules are not listed (the English edition is much larger). ``similarity`` is the
    structural agreement, ``changes`` is empty (words are not comparable). A complete
    translated edition (the Chinese CR) is aligned by number instead
    (:func:`comprules.align.translation.align_translation`).
    """
    if translation.is_translation(fr):
        return translation.align_translation(fr, en)
    fs, es = _Side(fr), _Side(en)
    rows: list[RuleChange] = []
    sections: list[SectionChange] = []
    seen: set[str] = set()
    for f, e, score in _matches(fs, es):
        if f.id in seen:
            continue
        seen.add(f.id)
        ok = e is not None and (
            score >= (NUMBERED_MIN if f.kind in ("rule", "subrule") else PASSAGE_MIN) or f.kind == "section"
        )
        if f.kind == "section":
            kind = ("kept" if e.number == f.number else "renumbered") if ok else "removed"
            sections.append(SectionChange(f.number, e.number if ok else None, kind, f.title, e.title if ok else None))
            continue
        if ok:
            rows.append(RuleChange(f.id, e.id, "kept" if e.id == f.id else "renumbered", score))
        else:
            rows.append(RuleChange(f.id, None, "removed", 0.0))
    order = {r.id: k for k, r in enumerate(fr.rules)}
    rows.sort(key=lambda c: order.get(c.old, len(order)))
    for r in fr.rules:
        if r.kind in ("rule", "subrule", "passage") and r.id not in seen:
            rows.append(RuleChange(r.id, None, "removed", 0.0))
    return Alignment(fr.name, en.name, tuple(rows), tuple(sections))


def aligned_terms(fr: Edition, en: Edition, alignment: Alignment | None = None) -> list[TermPair]:
    """Heading and section-title pairs of aligned units: ``Mue`` ⇄ ``Morph`` (502.26),
    ``Capacités de mana`` ⇄ ``Mana Abilities`` (406.1 of seed 000 ⇄ 406.1)."""
    if translation.is_translation(fr):
        return translation.translation_terms(fr, en, alignment)
    a = alignment or align_languages(fr, en)
    glossary = {r.id: r for r in _glossary_units(fr)}
    out = []
    for c in a.rules:
        if c.new is None:
            continue
        f, e = fr.get(c.old) or glossary.get(c.old), en.get(c.new)
        if f is not None and e is not None and f.title and e.title:
            out.append(TermPair(f.title, e.title, fr.name, f.id, en.name, e.id, c.similarity))
    for s in a.sections:
        if s.new is not None and s.old_title and s.new_title:
            out.append(TermPair(s.old_title, s.new_title, fr.name, s.old, en.name, s.new, 1.0))
    return out
