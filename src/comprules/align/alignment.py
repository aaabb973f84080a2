"""Align two editions: where did every rule go, and what changed in its words?

Matching rules by number fails exactly when it matters: the 2009-07-11 edition moved
402 "Abilities" to 112, 406 "Mana Abilities" to 605, every keyword ability 502.x to
702.y (502.26 Morph → 702.34) and 504 "Face-Down Spells and Permanents" to 707. So
:func:`align` matches rules on their *text*, in stages, each taking what the previous
one left::

    identical   same normalised words (hash); a text printed more than once is left
                to the later stages, where structure breaks the tie
    gaps        between two identical rules kept in order ("anchors"), the rules left
                on each side are compared with each other (most edits of consecutive
                editions: a few words changed in place)
    similar     the rest, every old rule against every new one (rapidfuzz, on words)
    structure   a subrule whose parent is aligned is compared with the children of the
                parent's counterpart; a keyword heading goes where its subrules went
    split/merge a new rule made of words that left an old rule (or the reverse)

Words are compared after normalisation, *for matching only*: quotes and dashes
ignored (their typography changed from edition to edition), "(TM)"/"™" and the
``_italics_`` underscores of 2008–2014 dropped, the symbol font's ``{o3}`` of
2003–2004 read ``{3}``, spaces ignored, case ignored (case counts again when deciding whether a rule was edited),
and every rule number a reference prints replaced by the number it cites *after*
alignment, so that "See rule 502.26" → "See rule 702.34" is a *renumbered reference*,
not an edit. Displayed words always come from the original text.

A rule of the old edition is ``kept`` (same id, same words), ``edited`` (same id,
other words), ``renumbered`` (another id; ``changes`` tells whether its words also
changed), ``removed``, or ``split`` (one row per new rule it became); a rule of the
new edition is ``added`` or ``merged`` (one row per old rule it came from).

Beside that ``kind`` (kept for compatibility), each row has two *facets* (DESIGN.md,
"diff facets"): :attr:`RuleChange.moved` (its number changed) and
:attr:`RuleChange.words`, how its printed words changed: ``None`` (not at all),
``edited`` (wording), ``rewritten`` (an edit that left little text in common, found by
position and structure: the one rule left between the same two aligned neighbours,
under the same parent; 100.7 in 2022-10-07), ``typography`` (only quotes, dashes,
hyphens, apostrophes, underscores or spacing: 702.124g gained quotes in 2022-10-07,
708.2b lost a hyphen in 2026-06-19) or ``references`` (only the numbers it cites,
each following the renumbering). Quotes and dashes stay folded for *matching*; the
facet looks at the printed text.

The alignment is symmetric: :func:`align` always aligns the earlier edition with the
later one (by effective date, then name) and gives the other direction as its
:meth:`Alignment.mirror`, so ``align(b, a)`` is the mirror image of ``align(a, b)``. Sections
are classified from where their rules went (402 → 112 is ``renumbered`` although
its subrules were rewritten too): ``kept``, ``edited`` (same number, title or rules
changed), ``renumbered``, ``added``, ``removed``, ``split`` or ``merged``.

Both editions may be fragments (forum posts): seed 000 quotes 402.1–402.10 and seed 001
gives the same section as unnumbered paragraphs, ``402.1`` → ``602¶1``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Indel, LCSseq

from ..model import Edition, Rule, memo_while_alive, read_symbol_font, sort_key
from .changes import (
    RULE_KINDS,
    SECTION_KINDS,
    WORD_FACETS,
    Alignment,
    RuleChange,
    SectionChange,
    WordChange,
    _best,
    _ordered,
)

__all__ = [
    "RULE_KINDS",
    "SECTION_KINDS",
    "ALIGNED_KINDS",
    "WORD_FACETS",
    "WordChange",
    "RuleChange",
    "SectionChange",
    "Alignment",
    "align",
    "align_joined",
    "GlossaryChange",
    "glossary_changes",
    "change_spans",
    "word_changes",
    "tokens",
]

#: The units aligned as rules: not chapters and sections (aligned apart), nor the
#: notes of a fragment (forum chatter, quote headers: not rule text).
ALIGNED_KINDS = ("rule", "subrule", "passage")

# ---------------------------------------------------------------------------
# Words

#: One token: a removed "(TM)"/"™", a reference placeholder, a number (``702.34a``
#: stays one token), a word (a French elision keeps its apostrophe: ``n’`` ``est``),
#: or one punctuation mark. ``_`` is in no class, so ``_Magic_`` reads ``Magic``.
#: Chinese is written without spaces: each Han character is a token of its own, so that a
#: changed word is a changed character or two, not a whole changed clause.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A token: a word (with its apostrophe: "can't"), a number ("702.19b"), a Han character, a
#: trademark, any other mark. The word comes first, the most frequent: the alternatives
#: cannot start at the same character but "(TM)" and "™" before any other mark (12 % faster
#: than the numbers first, the same tokens on every text of the corpus).
_TOKEN = re.compile(rf"[^\W\d_{_HAN}]+(?:['’](?=[^\W\d_]))?|\d+(?:\.\d+[a-z]{{0,2}})?|\(TM\)|™|[{_HAN}]|[^\w\s]")
#: Tokens left out of the comparison: the trademark sign, and (after folding) quotes
#: and dashes, whose typography changed from edition to edition ("Choose one --" /
#: "Choose one —"; the 2009-05-01 edition even printed its dashes as "?").
_IGNORED = frozenset({"(TM)", "™", "'", "-"})
#: Quotes fold to one mark, single or double, and dashes to "-": the 2008-05-01
#: edition even printed every curly quote and apostrophe as "?" (a wrong code page),
#: folded too in such editions (:func:`_prints_quotes_as_qmarks`).
_FOLD = str.maketrans(
    {
        "“": "'",
        "”": "'",
        "„": "'",
        "«": "'",
        "»": "'",
        "″": "'",
        '"': "'",
        "‘": "'",
        "’": "'",
        "‚": "'",
        "′": "'",
        "`": "'",
        "´": "'",
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "–": "-",
        "—": "-",
        "―": "-",
        "−": "-",
    }
)
_FOLD_RE = re.compile("[" + "".join(map(chr, _FOLD)) + "]")
_FOLD_CHARS = {chr(k): v for k, v in _FOLD.items()}
_REF = "\x00"  # prefix of a reference token: "\x00702.34a" cites 702.34a
_EXAMPLE_MARK = {"fr": "Exemple :"}


def _content(rule: Rule, lang: str) -> str:
    """The words of a rule as compared: its text, then its examples."""
    if not rule.examples:
        return rule.text
    mark = _EXAMPLE_MARK.get(lang, "Example:")
    return rule.text + "".join(f"\n{mark} {ex}" for ex in rule.examples)


def _segments(text: str, parts: list[tuple[int, int, str]]):
    """Yield ``(start, end, None)`` for plain text and ``(start, end, number)`` for each
    reference's printed number, in order."""
    pos = 0
    for start, end, target in parts:
        if start < pos:
            continue
        if start > pos:
            yield pos, start, None
        yield start, end, target
        pos = end
    if pos < len(text):
        yield pos, len(text), None


def _token_list(text: str, parts: list[tuple[int, int, str]], qmarks: bool = False) -> list[str]:
    """The normalised words of ``text`` (case kept); references as ``"\\x00" + number``.

    ``parts`` are the printed numbers of the references in ``text`` (spans and the
    rule each cites), as :attr:`Reference.parts` gives them. ``qmarks``: the edition
    prints quotes as "?" (:func:`_prints_quotes_as_qmarks`).
    """
    folded = _fold(text, qmarks)
    if not parts:
        out = _TOKEN.findall(folded)
    else:
        out = []
        for start, end, target in _segments(text, parts):
            if target is None:
                out.extend(_TOKEN.findall(folded, start, end))
            else:
                out.append(_REF + target)
    out = [t for t in out if t not in _IGNORED]
    if "{o" in text:  # the symbol font of 2003–2004: "{o3}" is "{3}", "{oT}" is "{T}"
        out = _symbol_font(out)
    return out


def _symbol_font(toks: list[str]) -> list[str]:
    """``{``, ``o``, ``3`` → ``{``, ``3``; ``{``, ``oW`` → ``{``, ``W`` (the 2003–04 font)."""
    out: list[str] = []
    for t in toks:
        if out and out[-1] == "{" and t[0] == "o" and len(t) <= 3:
            if t == "o":
                continue
            t = t[1:]
        out.append(t)
    return out


def _fold(text: str, qmarks: bool = False) -> str:
    """Quotes and dashes folded, one character for one (spans are unchanged)."""
    text = _FOLD_RE.sub(_fold_char, text)
    return text.replace("?", "'") if qmarks else text


_QMARK_APOSTROPHE = re.compile(r"[a-z]\?[a-z]")


def _prints_quotes_as_qmarks(contents: list[str]) -> bool:
    """True for an edition whose apostrophes or dashes became "?" ("it?s" in 2008-05-01,
    "Choose one ?," in 2009-05-01)."""
    n = 0
    for text in contents:
        if "?" in text:  # most rules print none: the search is 8 ms for an edition
            n += len(_QMARK_APOSTROPHE.findall(text))
        if n > 20:
            return True
    return False


def _fold_char(m: re.Match) -> str:
    return _FOLD_CHARS[m.group()]


def _token_spans(
    text: str,
    toks: list[str] | tuple[str, ...],
    parts: list[tuple[int, int, str]],
    qmarks: bool = False,
    upto: int | None = None,
) -> list[tuple[int, int]]:
    """The span in ``text`` of each token of ``toks`` (:func:`_token_list` of ``text``);
    with ``upto``, of the first ``upto`` tokens at least (each is found from the end of
    the one before: a change near the start reads no further)."""
    folded = _fold(text, qmarks)
    if "(TM)" in text:  # a "(" could be found inside an ignored "(TM)"
        out: list[tuple[int, int]] = []
        for start, end, target in _segments(text, parts):
            if target is None:
                out.extend(m.span() for m in _TOKEN.finditer(folded, start, end) if m.group() not in _IGNORED)
            else:
                out.append((start, end))
        return out
    spans = iter([(s, e) for s, e, t in _segments(text, parts) if t is not None])
    out = []
    pos = 0
    find = folded.find
    for t in toks if upto is None else toks[:upto]:
        if t[0] == _REF:
            start, pos = next(spans)
            out.append((start, pos))
        else:
            start = find(t, pos)
            pos = start + len(t)
            out.append((start, pos))
    return out


def tokens(text: str, lang: str = "en") -> list[str]:
    """The normalised words of ``text`` as :func:`align` compares them (case kept).

    References print as ``§`` + the number they cite.

    >>> tokens("See rule 702.34a, “Morph.”")
    ['See', 'rule', '§702.34a', ',', '"', 'Morph', '.', '"']
    """
    from .. import references

    refs = references.extract(text, lang)
    parts = sorted(p for r in refs if r.kind != "glossary" for p in r.parts)
    return [t.replace(_REF, "§") for t in _token_list(text, parts)]


class _Vocabulary:
    """One character per distinct token, so that a rule's words become a string that
    rapidfuzz compares word by word (its scorers are fastest on strings)."""

    def __init__(self) -> None:
        self.codes: dict[str, str] = {}
        self.keycodes: dict[str, str] = {}  # token as printed → code of its matching form
        self._next = 0x100

    def key(self, toks: tuple[str, ...]) -> str:
        """The matching key of a token list: case folded, references masked."""
        kc = self.keycodes
        try:
            return "".join([kc[t] for t in toks])
        except KeyError:
            for t in toks:
                if t not in kc:
                    kc[t] = self.code(_MASK if t[0] == _REF else t.casefold())
            return "".join([kc[t] for t in toks])

    def code(self, token: str) -> str:
        c = self.codes.get(token)
        if c is None:
            if self._next == 0xD800:  # no surrogates
                self._next = 0xE000
            c = self.codes[token] = chr(self._next)
            self._next += 1
        return c


_VOCAB = _Vocabulary()
_MASK = "§"


# ---------------------------------------------------------------------------
# Prepared editions (tokenised once, cached while the edition lives)


class _Lazy:
    """A list whose items are computed on first use (most rules of two consecutive
    editions are identical as printed and never need their words)."""

    __slots__ = ("_values", "_make")

    def __init__(self, n: int, make):
        self._values: list = [None] * n
        self._make = make

    def __getitem__(self, i: int):
        v = self._values[i]
        if v is None:
            v = self._values[i] = self._make(i)
        return v

    def __len__(self) -> int:
        return len(self._values)

    def fill(self, make_all) -> None:
        """Every item at once from ``make_all()`` (a list), unless all are known."""
        if any(v is None for v in self._values):
            self._values = make_all()


class _Prepared:
    """An edition's alignable units, tokenised: ``keys`` (for matching: case folded,
    references masked, one character per word), ``toks`` (normalised words, case kept,
    references as ``\\x00number``) and ``parts`` (reference spans, for display)."""

    def __init__(self, edition: Edition, spans: Mapping[str, list] | None = None):
        # No reference to the edition itself is kept: the cache below holds this object
        # only while the edition lives (a strong one would keep every edition ever aligned).
        self.units: list[Rule] = [r for r in edition.rules if r.kind in ALIGNED_KINDS]
        self.pos = {r.id: i for i, r in enumerate(self.units)}
        self.sections = {r.id: r for r in edition.rules if r.kind == "section"}
        #: the section of each unit, when the edition holds that section
        self.section_of = [r.section if r.section in self.sections else None for r in self.units]
        self.contents = [_content(r, edition.lang) for r in self.units]
        self.lang = edition.lang
        n = len(self.units)
        # the references of a unit when its words are first needed (a join of two far
        # editions compares a few hundred units); all at once by :meth:`read_all`
        self.spans = spans
        self.parts = _Lazy(n, self._read_parts)
        self.qmarks = _prints_quotes_as_qmarks(self.contents)
        self.toks = _Lazy(n, lambda i: tuple(_token_list(self.contents[i], self.parts[i], self.qmarks)))
        self.keys = _Lazy(n, lambda i: _VOCAB.key(self.toks[i]))
        self.children: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(self.units):
            if r.parent is not None:
                self.children[r.parent].append(i)

    def _read_parts(self, i: int) -> list:
        """The reference spans of unit ``i`` over its :func:`_content`: from the stored
        spans when the edition came with them, else read from its words."""
        if self.spans is None:
            from .. import references

            return _parts(references.extract(self.contents[i], self.lang))
        unit = self.units[i]
        found = self.spans.get(unit.id)
        if not found:
            return []
        # a paragraph's offset in _content: the text, then "\n{mark} {example}" for each example
        offsets = [0]
        pos = len(unit.text)
        gap = len(_EXAMPLE_MARK.get(self.lang, "Example:")) + 2
        for ex in unit.examples:
            pos += gap
            offsets.append(pos)
            pos += len(ex)
        return sorted((offsets[p] + a, offsets[p] + b, n) for p, parts in found for a, b, n in parts)

    def read_all(self) -> "_Prepared":
        """Every unit's references read at once (faster than one by one, for an alignment
        that compares every unit)."""
        if self.spans is None:
            from .. import references

            self.parts.fill(lambda: [_parts(refs) for refs in references.extract_many(self.contents, self.lang)])
        return self


def _parts(refs) -> list:
    return sorted(p for ref in refs if ref.kind != "glossary" for p in ref.parts)


_CACHE: dict[int, tuple[Any, _Prepared]] = {}


def _prepare(edition: Edition, spans: Mapping[str, list] | None = None) -> _Prepared:
    """The prepared ``edition`` (cached while it lives); ``spans``: its stored
    reference spans (:meth:`comprules.store.Store.reference_parts`), read instead of
    its words for the units whose references are not read yet."""
    prep = memo_while_alive(_CACHE, edition, lambda e: _Prepared(e, spans))
    if spans is not None and prep.spans is None:
        prep.spans = spans
    return prep


# ---------------------------------------------------------------------------
# Results


# ---------------------------------------------------------------------------
# Matching

#: Similarity (0–1, on words) a pair needs, without and with structural evidence
#: (the parents are aligned), and for texts of at most three words (headings).
ACCEPT = 0.6
ACCEPT_STRUCTURED = 0.42
ACCEPT_SHORT = 0.99
ACCEPT_SHORT_STRUCTURED = 0.66
#: A subrule with the same letter under aligned parents (2009: 502.68a → 702.13a,
#: lifelink rewritten from a triggered to a static ability).
ACCEPT_LETTER = 0.3
#: Below this, a pair is not even a candidate.
CANDIDATE = 0.3
#: A new rule (at least ``SPLIT_MIN_WORDS`` long) whose words are this much inside an
#: old rule, and no longer in the old rule's counterpart, was split from it.
SPLIT_INSIDE = 0.75
SPLIT_LEFT = 0.5
SPLIT_MIN_WORDS = 10
#: Gaps between anchors larger than this (old × new) are left to the global stage.
GAP_LIMIT = 250_000
#: How much more alike (similarity on words) an unpaired rule must be to take a paired
#: rule's partner (:meth:`_Matcher.better_partners`).
BETTER_BY = 0.2


class _Matcher:
    """The state of one alignment: pairs found so far and the evidence they give."""

    def __init__(self, old: _Prepared, new: _Prepared):
        self.o, self.n = old, new
        self.pairs: dict[int, int] = {}  # old index → new index
        self.rev: dict[int, int] = {}
        self.section_map: dict[str, str] = {}
        self.stats: dict[str, int] = {}
        self.rewritten: set[tuple[int, int]] = set()  # (old, new) pairs made by :meth:`rewrites`

    # -- bookkeeping ------------------------------------------------------
    def pair(self, i: int, j: int) -> None:
        self.pairs[i] = j
        self.rev[j] = i

    def free_old(self) -> list[int]:
        return [i for i in range(len(self.o.units)) if i not in self.pairs]

    def free_new(self) -> list[int]:
        return [j for j in range(len(self.n.units)) if j not in self.rev]

    def map_parent(self, parent: str | None) -> str | None:
        """The counterpart of an old parent (rule id or section number), if known."""
        if parent is None:
            return None
        i = self.o.pos.get(parent)
        if i is not None:
            j = self.pairs.get(i)
            return self.n.units[j].id if j is not None else None
        return self.section_map.get(parent)

    def parent_ok(self, i: int, j: int) -> bool:
        po, pn = self.o.units[i].parent, self.n.units[j].parent
        if po is None and pn is None:
            return True
        return pn is not None and self.map_parent(po) == pn

    def bonus(self, i: int, j: int) -> tuple[float, bool, bool]:
        """Structural evidence for pairing ``i`` with ``j``: (bonus, parents aligned,
        same subrule letter under aligned parents)."""
        ro, rn = self.o.units[i], self.n.units[j]
        ok = self.parent_ok(i, j)
        b = 0.15 if ok else 0.0
        if ro.id == rn.id:
            b += 0.05
        letter = ok and ro.kind == rn.kind == "subrule" and _letters(ro.number) == _letters(rn.number)
        if letter:
            b += 0.05
        return b, ok, letter

    def acceptable(self, sim: float, i: int, j: int, ok: bool, letter: bool) -> bool:
        short = min(len(self.o.keys[i]), len(self.n.keys[j])) <= 3
        if short:
            return sim >= (ACCEPT_SHORT_STRUCTURED if ok else ACCEPT_SHORT)
        if letter:
            return sim >= ACCEPT_LETTER
        return sim >= (ACCEPT_STRUCTURED if ok else ACCEPT)

    def greedy(self, candidates: list[tuple[float, int, int]], stage: str) -> int:
        """Accept candidate pairs, best first (similarity plus structural bonus)."""
        scored = []
        for sim, i, j in candidates:
            b, ok, letter = self.bonus(i, j)
            if self.acceptable(sim, i, j, ok, letter):
                scored.append((sim + b, -i, -j, sim))
        scored.sort(reverse=True)
        n = 0
        for _score, mi, mj, _sim in scored:
            i, j = -mi, -mj
            if i in self.pairs or j in self.rev:
                continue
            self.pair(i, j)
            n += 1
        self.stats[stage] = self.stats.get(stage, 0) + n
        return n

    # -- stages -----------------------------------------------------------
    def identical(self) -> None:
        """Pair the texts printed exactly once on each side: as printed first, then
        with normalised words."""
        n = self._unique_pairs(
            range(len(self.o.units)), range(len(self.n.units)), self.o.contents.__getitem__, self.n.contents.__getitem__
        )
        n += self._unique_pairs(self.free_old(), self.free_new(), self.o.keys.__getitem__, self.n.keys.__getitem__)
        self.stats["identical"] = n

    def _unique_pairs(self, olds, news, old_key, new_key) -> int:
        old_by_key: dict[str, list[int]] = defaultdict(list)
        for i in olds:
            old_by_key[old_key(i)].append(i)
        new_by_key: dict[str, list[int]] = defaultdict(list)
        for j in news:
            new_by_key[new_key(j)].append(j)
        n = 0
        for k, found in old_by_key.items():
            other = new_by_key.get(k)
            if other and len(found) == 1 and len(other) == 1 and k:
                self.pair(found[0], other[0])
                n += 1
        return n

    def anchors(self) -> list[tuple[int, int]]:
        """The longest chain of pairs in the same order on both sides."""
        seq = sorted(self.pairs.items())
        tails: list[int] = []  # new index ending the best chain of each length
        tail_at: list[int] = []
        prev: list[int] = [-1] * len(seq)
        for k, (_i, j) in enumerate(seq):
            p = bisect_left(tails, j)
            if p == len(tails):
                tails.append(j)
                tail_at.append(k)
            else:
                tails[p] = j
                tail_at[p] = k
            prev[k] = tail_at[p - 1] if p else -1
        chain: list[tuple[int, int]] = []
        k = tail_at[-1] if tail_at else -1
        while k >= 0:
            chain.append(seq[k])
            k = prev[k]
        return chain[::-1]

    def gaps(self) -> None:
        """Compare the rules left between consecutive anchors with each other."""
        chain = [(-1, -1), *self.anchors(), (len(self.o.units), len(self.n.units))]
        candidates: list[tuple[float, int, int]] = []
        for (a_i, a_j), (b_i, b_j) in zip(chain, chain[1:]):
            olds = [i for i in range(a_i + 1, b_i) if i not in self.pairs]
            news = [j for j in range(a_j + 1, b_j) if j not in self.rev]
            if not olds or not news or len(olds) * len(news) > GAP_LIMIT:
                continue
            candidates.extend(self._compare(olds, news))
        self.greedy(candidates, "gaps")

    def _compare(self, olds: list[int], news: list[int]) -> list[tuple[float, int, int]]:
        """Candidate pairs (similarity ≥ :data:`CANDIDATE`) among ``olds`` × ``news``."""
        okeys, nkeys = self.o.keys, self.n.keys
        choices = [nkeys[j] for j in news]
        out = []
        for i in olds:
            for _key, score, k in process.extract(
                okeys[i],
                choices,
                scorer=Indel.normalized_similarity,
                processor=None,
                score_cutoff=CANDIDATE,
                limit=None,
            ):
                out.append((score, i, news[k]))
        return out

    def similar(self) -> None:
        """Every rule left against every rule left."""
        olds, news = self.free_old(), self.free_new()
        if olds and news:
            self.stats["compared"] = self.stats.get("compared", 0) + len(olds) * len(news)
            self.greedy(self._compare(olds, news), "similar")

    def better_partners(self) -> int:
        """Move a pair to a partner far more like it: an old rule paired with a new rule
        whose words are further from its own, by :data:`BETTER_BY` or more, than those of
        a new rule still unpaired is paired with that one instead (and the same from the
        new side), unless the pair has the same subrule letter under aligned parents (a
        rule rewritten in place: 502.63a → 702.2a, deathtouch) or the partner's words lie
        inside the rule's (a split or a merge: 420.5a of 2001-09-24 is half of 1999's);
        the partner it leaves is free for the stages after. The gaps between
        anchors only see the rules between two kept ones: in 2009-07-11, 419.1d
        ("prevent") took 613.1a ("instead", 0.64), the only free place there, while
        614.1a, its own words (0.89), lay past the next anchor."""
        moved = 0
        for forward in (True, False):
            here, there = (self.o.keys, self.n.keys) if forward else (self.n.keys, self.o.keys)
            texts, others = (self.o.contents, self.n.contents) if forward else (self.n.contents, self.o.contents)
            pairs = self.pairs if forward else self.rev
            free = self.free_new() if forward else self.free_old()
            free = [x for x in free if len(there[x]) > 3]
            if not free:
                continue
            choices = [there[x] for x in free]
            found = []
            for a, b in pairs.items():
                if texts[a] == others[b]:
                    continue  # printed alike (most pairs): their words are not even read
                key = here[a]
                if len(key) <= 3:
                    continue
                own = Indel.normalized_similarity(key, there[b])
                if own > 1 - BETTER_BY:
                    continue
                if self.bonus(a, b)[2] if forward else self.bonus(b, a)[2]:
                    continue  # the same subrule letter under aligned parents: rewritten in place
                if LCSseq.similarity(there[b], key) >= SPLIT_INSIDE * len(there[b]):
                    continue  # the partner's words lie inside this rule's: split or merged, not moved
                best = process.extractOne(
                    key,
                    choices,
                    scorer=Indel.normalized_similarity,
                    processor=None,
                    score_cutoff=max(own + BETTER_BY, ACCEPT),
                )
                if best is not None:
                    found.append((best[1] - own, a, b, free[best[2]]))
            taken: set[int] = set()
            for _gain, a, b, c in sorted(found, reverse=True):
                if c in taken or pairs.get(a) != b:
                    continue
                (i, j), (was_i, was_j) = ((a, c), (a, b)) if forward else ((c, a), (b, a))
                del self.pairs[was_i], self.rev[was_j]
                self.pair(i, j)
                taken.add(c)
                moved += 1
        self.stats["better partners"] = moved
        return moved

    def structure(self) -> None:
        """Children of aligned parents with each other; parents where their children went."""
        for _ in range(3):
            found = self._top_down() + self._bottom_up()
            if not found:
                break

    def _top_down(self) -> int:
        candidates = []
        by_parent: dict[str, list[int]] = defaultdict(list)
        for j in self.free_new():
            p = self.n.units[j].parent
            if p is not None:
                by_parent[p].append(j)
        groups: dict[str, list[int]] = defaultdict(list)
        for i in self.free_old():
            target = self.map_parent(self.o.units[i].parent)
            if target is not None and target in by_parent:
                groups[target].append(i)
        for target, olds in groups.items():
            news = by_parent[target]
            for i in olds:
                for j in news:
                    sim = Indel.normalized_similarity(self.o.keys[i], self.n.keys[j])
                    if sim >= CANDIDATE:
                        candidates.append((sim, i, j))
        return self.greedy(candidates, "structure")

    def _bottom_up(self) -> int:
        """A heading goes where most of its subrules went (a renamed keyword)."""
        n = 0
        free_new = set(self.free_new())
        for i in self.free_old():
            kids = self.o.children.get(self.o.units[i].id)
            if not kids:
                continue
            votes = Counter(self.n.units[self.pairs[k]].parent for k in kids if k in self.pairs)
            if not votes:
                continue
            parent, count = votes.most_common(1)[0]
            j = self.n.pos.get(parent)
            if j is None or j not in free_new or count * 2 <= len(kids):
                continue
            if not self.parent_ok(i, j) and self.o.units[i].kind != self.n.units[j].kind:
                continue
            self.pair(i, j)
            free_new.discard(j)
            n += 1
        self.stats["headings"] = self.stats.get("headings", 0) + n
        return n

    def splits(self) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
        """Split (old rule → the extra new rules made of its words) and merged (new rule
        → the extra old rules whose words it took), among the rules left unpaired."""
        split = self._parts_of(self.n, self.o, self.free_new(), self.pairs, self.section_map)
        back = {sn: so for so, sn in self.section_map.items()}
        merged = self._parts_of(self.o, self.n, self.free_old(), self.rev, back)
        # an unpaired rule with a single part is that part, shortened or lengthened
        for w, ps in list(split.items()):
            if w not in self.pairs and len(ps) == 1 and ps[0] not in self.rev:
                self.pair(w, ps[0])
                del split[w]
        for w, ps in list(merged.items()):
            if w not in self.rev and len(ps) == 1 and ps[0] not in self.pairs:
                self.pair(ps[0], w)
                del merged[w]
        return split, merged

    def _parts_of(
        self, side: _Prepared, other: _Prepared, parts: list[int], pairs: dict[int, int], to_side: dict[str, str]
    ) -> dict[int, list[int]]:
        """For each unpaired unit of ``side`` whose words lie inside one unit ``w`` of
        ``other`` (same or aligned section) and no longer inside ``w``'s counterpart."""
        # only a rule whose words changed can have lost some to another rule
        by_section: dict[str | None, list[int]] = defaultdict(list)
        for w, r in enumerate(other.units):
            counterpart = pairs.get(w)
            if counterpart is not None and other.contents[w] == side.contents[counterpart]:
                continue
            by_section[to_side.get(r.section, r.section) if r.section else None].append(w)
        out: dict[int, list[int]] = defaultdict(list)
        for p in parts:
            key = side.keys[p]
            if len(key) < SPLIT_MIN_WORDS:
                continue
            cands = [w for w in by_section.get(side.units[p].section, ()) if len(other.keys[w]) >= len(key)]
            if not cands:
                continue
            best = process.extractOne(
                key,
                [other.keys[w] for w in cands],
                scorer=LCSseq.similarity,
                processor=None,
                score_cutoff=SPLIT_INSIDE * len(key),
            )
            if best is None:
                continue
            w = cands[best[2]]
            counterpart = pairs.get(w)
            if counterpart is not None:
                left = LCSseq.similarity(key, side.keys[counterpart])
                # still in the counterpart, unless all its words are in w and not all in the
                # counterpart: 613.1a ("instead") is the first sentence of 419.1a, whose
                # counterpart 613.1b ("skip") shares its wording but not its words
                if left > SPLIT_LEFT * len(key) and not (best[1] == len(key) > left):
                    continue
            out[w].append(p)
        return out

    def rewrites(self, split: dict[int, list[int]], merged: dict[int, list[int]]) -> int:
        """Pair a rule rewritten in place: the only old rule left between two aligned
        neighbours, and the only new rule left between their counterparts, of the same
        kind under the same (aligned) parent, a heading keeping its title. 100.7
        (2022-10-07, "silver-bordered" → "intended for casual play") has few words in
        common with its old text; it is an edit, not a removal and an addition."""
        o, n = self.o, self.n
        used_old = set(self.pairs) | set(split) | {p for ps in merged.values() for p in ps}
        used_new = set(self.rev) | set(merged) | {p for ps in split.values() for p in ps}
        paired = sorted(self.pairs)
        found = 0
        for i in range(len(o.units)):
            if i in used_old:
                continue
            k = bisect_left(paired, i)
            before = paired[k - 1] if k else -1
            after = paired[k] if k < len(paired) else len(o.units)
            lo = self.pairs[before] if before >= 0 else -1
            hi = self.pairs[after] if after < len(o.units) else len(n.units)
            if lo >= hi:
                continue  # the neighbours crossed: no place to speak of
            olds = [x for x in range(before + 1, after) if x not in used_old]
            news = [x for x in range(lo + 1, hi) if x not in used_new]
            if len(olds) != 1 or len(news) != 1:
                continue
            j = news[0]
            ro, rn = o.units[i], n.units[j]
            if ro.kind != rn.kind or self.map_parent(ro.parent) != rn.parent:
                continue
            if (ro.title or rn.title) and _title_key(ro.title) != _title_key(rn.title):
                continue  # 502.14 Snow-Covered → Vigilance (2004-10-01): another keyword
            self.pair(i, j)
            self.rewritten.add((i, j))
            used_old.add(i)
            used_new.add(j)
            found += 1
        self.stats["rewritten"] = found
        return found

    def sections(self) -> dict[str, str]:
        """Provisional section map from the rules paired so far (:func:`_pair_sections`)."""
        self.section_map = _pair_sections(self, *_flows(self))
        return self.section_map


def _flows(m: "_Matcher") -> tuple[dict[str, Counter], dict[str, Counter]]:
    """How many paired rules went from each old section to each new one, both ways."""
    flow: dict[str, Counter] = defaultdict(Counter)
    back: dict[str, Counter] = defaultdict(Counter)
    osec, nsec = m.o.section_of, m.n.section_of
    counts = Counter((osec[i], nsec[j]) for i, j in m.pairs.items())
    for (so, sn), k in counts.items():
        if so is not None and sn is not None:
            flow[so][sn] += k
            back[sn][so] += k
    return flow, back


def _pair_sections(m: "_Matcher", flow: dict[str, Counter], back: dict[str, Counter]) -> dict[str, str]:
    """Pair sections: first those with the same title that exchanged rules (406 "Mana
    Abilities" → 605, although more of its rules went to 106 "Mana"), then the mutual
    best flows."""
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    titled = sorted(
        (
            (k, so, sn)
            for so, c in flow.items()
            for sn, k in c.items()
            if _title_key(m.o.sections[so].title) == _title_key(m.n.sections[sn].title)
        ),
        key=lambda x: (-x[0], sort_key(x[1])),
    )
    for k, so, sn in titled:
        if so not in pairs and sn not in taken and k * 4 >= max(flow[so].values()):
            pairs[so] = sn
            taken.add(sn)
    for so, c in flow.items():
        if so in pairs:
            continue
        free = Counter({sn: k for sn, k in c.items() if sn not in taken})
        sn, _k = _best(free, so)
        if sn is None:
            continue
        rivals = Counter({s: k for s, k in back[sn].items() if s not in pairs})
        if _best(rivals, sn)[0] == so:
            pairs[so] = sn
            taken.add(sn)
    return pairs


def _letters(number: str) -> str:
    """The letters of a subrule number: ``702.34b`` → ``b``."""
    return number[len(number.rstrip("abcdefghijklmnopqrstuvwxyz")) :]


# ---------------------------------------------------------------------------
# Sections


def _align_sections(m: _Matcher) -> tuple[list[tuple[str | None, str | None, str]], dict]:
    """Section rows and the section map: pairs from the flow of their rules
    (:func:`_pair_sections`), then equal titles among the sections left; a section whose
    rules went mostly to a paired one is ``split`` (or ``merged``); the rest is
    ``added`` or ``removed``."""
    o, n = m.o, m.n
    flow, back = _flows(m)
    pairs = _pair_sections(m, flow, back)
    paired_new = set(pairs.values())
    # equal titles among the sections left (sections whose rules all changed, or empty)
    titles: dict[str, list[str]] = defaultdict(list)
    for sn, r in n.sections.items():
        if sn not in paired_new:
            titles[_title_key(r.title)].append(sn)
    for so, r in o.sections.items():
        if so in pairs:
            continue
        cands = titles.get(_title_key(r.title), [])
        if len(cands) == 1:
            pairs[so] = cands[0]
            paired_new.add(cands[0])
            cands.clear()
    rows: list[tuple[str | None, str | None, str]] = []
    split_of: dict[str, list[str]] = defaultdict(list)
    merged_into: dict[str, list[str]] = defaultdict(list)
    for sn in n.sections:
        if sn in paired_new or not back.get(sn):
            continue
        so, k = _best(back[sn], sn)
        total = sum(back[sn].values())
        if so in pairs and k * 2 >= total and k >= 2:
            split_of[so].append(sn)
    for so in o.sections:
        if so in pairs or not flow.get(so):
            continue
        sn, k = _best(flow[so], so)
        total = sum(flow[so].values())
        if sn in paired_new and k * 2 >= total and k >= 2:
            merged_into[sn].append(so)
    section_map = dict(pairs)
    kinds = {}
    for so, sn in pairs.items():
        if split_of.get(so):
            kinds[(so, sn)] = "split"
        elif merged_into.get(sn):
            kinds[(so, sn)] = "merged"
        elif so != sn:
            kinds[(so, sn)] = "renumbered"
        else:
            same_title = _title_key(o.sections[so].title) == _title_key(n.sections[sn].title)
            kinds[(so, sn)] = "kept" if same_title else "edited"
    by_new = {sn: so for so, sn in pairs.items()}
    extra_new = {sn: so for so, sns in split_of.items() for sn in sns}
    extra_old = {so: sn for sn, sos in merged_into.items() for so in sos}
    emitted_old: set[str] = set()
    old_order = list(o.sections)
    for sn in n.sections:
        if sn in by_new:
            so = by_new[sn]
            _flush_removed(rows, old_order, so, emitted_old, pairs, extra_old)
            rows.append((so, sn, kinds[(so, sn)]))
            emitted_old.add(so)
            for extra in merged_into.get(sn, []):
                rows.append((extra, sn, "merged"))
                emitted_old.add(extra)
        elif sn in extra_new:
            rows.append((extra_new[sn], sn, "split"))
        else:
            rows.append((None, sn, "added"))
    for so in old_order:
        if so not in emitted_old and so not in pairs and so not in extra_old:
            rows.append((so, None, "removed"))
            emitted_old.add(so)
    return rows, section_map


def _flush_removed(rows, old_order, upto, emitted, pairs, extra_old) -> None:
    """Emit the removed old sections that come before ``upto`` in the old order."""
    for so in old_order:
        if so == upto:
            return
        if so not in emitted and so not in pairs and so not in extra_old:
            rows.append((so, None, "removed"))
            emitted.add(so)


def _title_key(title: str | None) -> str:
    return " ".join(re.findall(r"[^\W_]+", (title or "").casefold()))


# ---------------------------------------------------------------------------
# Classification and word changes


def _mapping(m: _Matcher, section_map: dict[str, str]) -> dict[str, str]:
    """Old number → new number, for rules, sections and chapters (references)."""
    out = {m.o.units[i].id: m.n.units[j].id for i, j in m.pairs.items()}
    out.update(section_map)
    chapters: dict[str, Counter] = defaultdict(Counter)
    for so, sn in section_map.items():
        chapters[so[0]][sn[0]] += 1
    for co, c in chapters.items():
        out[co] = _best(c, co)[0]
    return out


def _compare_tokens(toks: tuple[str, ...], mapping: dict[str, str] | None) -> list[str]:
    if mapping is None:
        return list(toks)
    return [_REF + mapping.get(t[1:], t[1:]) if t[0] == _REF else t for t in toks]


def word_changes(
    old_text: str,
    new_text: str,
    old_parts=(),
    new_parts=(),
    mapping: dict[str, str] | None = None,
) -> tuple[float, tuple[WordChange, ...]]:
    """Similarity (0–1) and word-level changes from ``old_text`` to ``new_text``.

    ``*_parts`` are the reference spans of each text (``Reference.parts``) and
    ``mapping`` maps the old numbers to the new ones: a reference that only followed
    its target's renumbering is not a change. Words are compared normalised (quotes,
    dashes, "(TM)", underscores, spacing); the changes print the original words.

    >>> word_changes("is not an ability of the card", "is an ability of the card")[1]
    (WordChange(op='delete', old='not', new='', at=1),)
    """
    old_parts, new_parts = sorted(old_parts), sorted(new_parts)
    return _changes(
        old_text,
        tuple(_token_list(old_text, old_parts)),
        old_parts,
        new_text,
        tuple(_token_list(new_text, new_parts)),
        new_parts,
        mapping,
    )


def _changes(old_text, old_toks, old_parts, new_text, new_toks, new_parts, mapping, qmarks=(False, False)):
    a = _compare_tokens(old_toks, mapping)
    b = list(new_toks)
    if a == b:
        return 1.0, ()
    sim = Indel.normalized_similarity(a, b)
    blocks = _change_blocks(a, b)
    old_upto, new_upto = _reach(blocks)
    os_ = _token_spans(old_text, old_toks, old_parts, qmarks[0], upto=old_upto)
    ns = _token_spans(new_text, new_toks, new_parts, qmarks[1], upto=new_upto)
    return sim, _block_changes(blocks, old_text, os_, new_text, ns)


def _reach(blocks: list[tuple[int, int, int, int]]) -> tuple[int, int]:
    """How many tokens of each side the changed runs ``blocks`` reach (the spans to read)."""
    return max(i2 for _, i2, _, _ in blocks), max(j2 for _, _, _, j2 in blocks)


def _block_changes(blocks, old_text: str, old_spans, new_text: str, new_spans) -> tuple[WordChange, ...]:
    """The :class:`WordChange` of each changed run ``(i1, i2, j1, j2)`` of tokens, its
    words as printed between the spans of its first and last tokens."""
    out = []
    for i1, i2, j1, j2 in blocks:
        old = old_text[old_spans[i1][0] : old_spans[i2 - 1][1]] if i2 > i1 else ""
        new = new_text[new_spans[j1][0] : new_spans[j2 - 1][1]] if j2 > j1 else ""
        op = "replace" if old and new else ("delete" if old else "insert")
        out.append(WordChange(op, old, new, i1, j1))
    return tuple(out)


def _change_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """Maximal runs of changed words ``(i1, i2, j1, j2)``: a deletion next to an
    insertion is one replacement (the longest common subsequence of words is kept)."""
    blocks: list[list[int]] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            continue
        if blocks and blocks[-1][1] == op.src_start and blocks[-1][3] == op.dest_start:
            blocks[-1][1], blocks[-1][3] = op.src_end, op.dest_end
        else:
            blocks.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    return [tuple(x) for x in blocks]


def _rule_change(m: _Matcher, i: int, j: int, mapping: dict[str, str], kind: str | None = None) -> RuleChange:
    o, n = m.o, m.n
    words = None
    if o.contents[i] == n.contents[j]:  # printed alike (a stale reference is not a word change)
        sim, changes = 1.0, ()
    elif _same_words(o.contents[i], o.parts[i], o.qmarks, n.contents[j], n.parts[j], n.qmarks, mapping):
        sim = 1.0  # only quotes or dashes differ (the 2014 and 2019 typography): no words to compare
        changes = _marks_changed(o.contents[i], o.parts[i], n.contents[j], n.parts[j])
        if changes:
            words = "typography"
        else:
            words, changes = _printed_change(o.contents[i], o.parts[i], n.contents[j], n.parts[j], mapping)
    else:
        sim, changes = _changes(
            o.contents[i], o.toks[i], o.parts[i], n.contents[j], n.toks[j], n.parts[j], mapping, (o.qmarks, n.qmarks)
        )
        if changes:
            words = "rewritten" if (i, j) in m.rewritten else "edited"
        else:
            words, changes = _printed_change(o.contents[i], o.parts[i], n.contents[j], n.parts[j], mapping)
    ro, rn = o.units[i], n.units[j]
    if kind is None:
        if ro.id == rn.id:
            kind = "edited" if words in ("edited", "rewritten", "typography") else "kept"
        else:
            kind = "renumbered"
    return RuleChange(ro.id, rn.id, kind, sim, changes, words)


def _same_words(
    old_text: str, old_parts, old_qmarks: bool, new_text: str, new_parts, new_qmarks: bool, mapping
) -> bool:
    """Whether two texts have the same words as :func:`_changes` compares them, told
    without reading them: the same text once quotes and dashes are folded (one character
    for one, so the references keep their places) and the same references, the old ones
    through ``mapping``. ``False`` says nothing: the words are then compared."""
    if len(old_text) != len(new_text) or len(old_parts) != len(new_parts):
        return False
    mapping = mapping or {}
    if any(s != t or e != f or mapping.get(a, a) != b for (s, e, a), (t, f, b) in zip(old_parts, new_parts)):
        return False
    return _fold(old_text, old_qmarks) == _fold(new_text, new_qmarks)


#: The marks :func:`_fold` folds, and the "?" it folds in some editions: where two texts
#: that fold alike differ, one of these stands on each side.
_MARKS = re.compile("[?" + "".join(map(chr, _FOLD)) + "]")


def _marks_changed(old_text: str, old_parts, new_text: str, new_parts) -> tuple[WordChange, ...]:
    """The ``typography`` changes of two texts :func:`_same_words` found alike (same
    length, same references, equal once folded), read in place: where each changed mark
    is of the same kind on both sides (an apostrophe for an apostrophe, another mark
    for another mark), both texts cut into the same :func:`_printed_words`, each
    changed word holds one changed mark as its last character, and a changed run is a
    run of such words, at the same index on both sides. ``()`` when that is not so
    ("can?t" is three words, "can’t" two; the symbol font; ``(TM)``; only a cited
    number differs): ask :func:`_printed_change` then, which compares every printed word
    (half as much again: 65 ms against 42 for the 810 such rows of 2011-02-04 →
    2014-09-25)."""
    moved = sorted({m.start() for m in _MARKS.finditer(old_text)}.union(m.start() for m in _MARKS.finditer(new_text)))
    moved = [k for k in moved if old_text[k] != new_text[k]]
    if old_parts:
        moved = [k for k in moved if not any(s <= k < e for s, e, _ in old_parts)]
    if not moved or any((old_text[k] in "'’") != (new_text[k] in "'’") for k in moved):
        return ()
    a, b = _printed_words(old_text, old_parts), _printed_words(new_text, new_parts)
    if a is None or b is None or len(a) != len(b):
        return ()
    changed = [i for i, (x, y) in enumerate(zip(a, b)) if x != y and x[0] != _REF]
    if len(changed) != len(moved):
        return ()
    runs: list[list[int]] = []  # [first word, its start, last word, its end]
    for i, k in zip(changed, moved):
        if runs and runs[-1][2] == i - 1:
            runs[-1][2:] = [i, k + 1]
        else:
            runs.append([i, k + 1 - len(a[i]), i, k + 1])
    return tuple(WordChange("replace", old_text[s:e], new_text[s:e], i, i) for i, s, _, e in runs)


#: A printed token: as :data:`_TOKEN`, and the underscore of ``_italics_``.
_PRINTED = re.compile(rf"[^\W\d_{_HAN}]+(?:['’](?=[^\W\d_]))?|\d+(?:\.\d+[a-z]{{0,2}})?|\(TM\)|™|[{_HAN}]|[^\w\s]|_")


#: A "{" followed by an "o" word (spaces between or not): the symbol font of 2003–04
#: may be printed (:func:`_printed_tokens` reads it past the "o").
_SYMBOL_FONT_START = re.compile(r"\{\s*o")


def _printed_words(text: str, parts) -> list[str] | None:
    """The tokens of :func:`_printed_tokens` without their spans (``findall``: a third
    of its time), or ``None`` for a text whose tokens are not all printed as they are
    (a trademark ``(TM)``, the symbol font): ask :func:`_printed_tokens` then."""
    if "(TM)" in text or ("{" in text and _SYMBOL_FONT_START.search(text)):
        return None
    if not parts:
        return _PRINTED.findall(text)
    toks: list[str] = []
    for start, end, target in _segments(text, parts):
        if target is None:
            toks.extend(_PRINTED.findall(text, start, end))
        else:
            toks.append(_REF + target)
    return toks


def _printed_spans(text: str, toks: list[str], parts, upto: int | None = None) -> list[tuple[int, int]]:
    """The span of each token of :func:`_printed_words` (not ``None``) of ``text``: every
    character but spaces is in a token, each printed as it is, so each is found from the
    end of the one before; a reference's span is its printed member's. With ``upto``, of
    the first ``upto`` tokens at least."""
    refs = iter([(s, e) for s, e, t in _segments(text, parts) if t is not None])
    spans: list[tuple[int, int]] = []
    pos = 0
    find = text.find
    for t in toks if upto is None else toks[:upto]:
        if t[0] == _REF:
            start, pos = next(refs)
        else:
            start = find(t, pos)
            pos = start + len(t)
        spans.append((start, pos))
    return spans


def _printed_tokens(text: str, parts) -> tuple[list[str], list[tuple[int, int]]]:
    """Every printed mark of ``text`` as a token, with its span: quotes, dashes and
    underscores too; references as ``"\\x00" + number``; the trademark sign and the
    2003–04 symbol font read as the signs they print (``(TM)`` is ``™``, ``{o3}`` is
    ``{3}``)."""
    words = _printed_words(text, parts)
    if words is not None:
        return words, _printed_spans(text, words, parts)
    return _printed_tokens_read(text, parts)


def _printed_tokens_read(text: str, parts) -> tuple[list[str], list[tuple[int, int]]]:
    """:func:`_printed_tokens` match by match, reading ``(TM)`` and the symbol font."""
    toks: list[str] = []
    spans: list[tuple[int, int]] = []
    for start, end, target in _segments(text, parts):
        if target is not None:
            toks.append(_REF + target)
            spans.append((start, end))
            continue
        for mt in _PRINTED.finditer(text, start, end):
            t = mt.group()
            span = mt.span()
            if toks and toks[-1] == "{" and t[0] == "o" and len(t) <= 3:  # the symbol font
                if t == "o":
                    continue
                t, span = t[1:], (span[0] + 1, span[1])
            toks.append("™" if t == "(TM)" else t)
            spans.append(span)
    return toks, spans


def _printed_change(
    old_text: str, old_parts, new_text: str, new_parts, mapping: dict[str, str] | None
) -> tuple[str | None, tuple[WordChange, ...]]:
    """The facet and the changes of two texts whose words are the same once normalised:
    ``typography`` (some printed mark changed: a quote, a dash, a hyphen, an
    apostrophe, an underscore, spacing), ``references`` (only cited numbers, which
    followed the renumbering), or ``None`` (only the symbol font or the trademark sign
    changed its spelling)."""
    a_words, b = _printed_words(old_text, old_parts), _printed_words(new_text, new_parts)
    if a_words is None or b is None:
        a_words, a_spans = _printed_tokens(old_text, old_parts)
        b, b_spans = _printed_tokens(new_text, new_parts)
    else:  # the spans only when some mark changed
        a_spans = b_spans = None
    a = _compare_tokens(tuple(a_words), mapping)
    if a != b:
        blocks = _change_blocks(a, b)
        if a_spans is None or b_spans is None:
            old_upto, new_upto = _reach(blocks)
            a_spans = _printed_spans(old_text, a_words, old_parts, old_upto)
            b_spans = _printed_spans(new_text, b, new_parts, new_upto)
        return "typography", _block_changes(blocks, old_text, a_spans, new_text, b_spans)
    printed_old = [old_text[s:e] for (s, e, t) in _segments(old_text, old_parts) if t is not None]
    printed_new = [new_text[s:e] for (s, e, t) in _segments(new_text, new_parts) if t is not None]
    if printed_old != printed_new:
        return "references", ()
    if " ".join(old_text.split()) != " ".join(new_text.split()) or old_text.count("\n") != new_text.count("\n"):
        plain_old = read_symbol_font(old_text).replace("(TM)", "™")
        plain_new = read_symbol_font(new_text).replace("(TM)", "™")
        if plain_old != plain_new:
            return "typography", ()
        return None, ()
    return "typography", ()  # spacing


Span = tuple[int, int]


#: Marks that open or close a phrase, which a deleted run may stand before (:func:`change_spans`).
PHRASE_MARKS = "\"“”'‘’([«»「」『』"


def _gaps(text: str, spans, k1: int, k2: int) -> tuple[str, str]:
    """The text between the token before ``k1`` and token ``k1``, and between token
    ``k2 - 1`` and the token after (from the start or to the end of ``text``)."""
    start = spans[k1 - 1][1] if k1 else 0
    before = text[start : spans[k1][0]] if k1 < len(spans) else text[start:]
    if k2 > k1:
        after = text[spans[k2 - 1][1] : spans[k2][0] if k2 < len(spans) else len(text)]
    else:
        after = before
    return before, after


def _with_marks(span: tuple[int, int], mine: tuple[str, str], theirs: tuple[str, str]) -> tuple[int, int]:
    """``span`` widened over the opening marks just before it and the closing ones just
    after it that the other text does not print there ("five colors." → "five colors.
    “Multicolored” is not a color.": the quote is inserted with the words)."""
    start, end = span
    lead = len(mine[0]) - len(mine[0].rstrip(PHRASE_MARKS))
    if lead and not theirs[0].endswith(mine[0][len(mine[0]) - lead :]):
        start -= lead
    trail = len(mine[1]) - len(mine[1].lstrip(PHRASE_MARKS))
    if trail and not theirs[1].startswith(mine[1][:trail]):
        end += trail
    return start, end


def change_spans(
    old_text: str, new_text: str, lang: str = "en", mapping: dict[str, str] | None = None, typography: bool = False
) -> list[tuple[Span | None, Span | None, int]]:
    """Where two printed texts differ: one ``(old span, new span, point)`` per run of
    changed words (``None`` for the side without words; ``point``, where the run
    happens in the new text), as :func:`align` compares them.

    ``mapping`` maps old rule numbers to new ones (:attr:`Alignment.mapping`): a
    reference that followed its target's renumbering is no change. With
    ``typography``, quotes, dashes, hyphens, apostrophes and underscores count (the
    rule's ``words`` facet is ``typography``); otherwise they are folded away.

    >>> change_spans("you may play it", "you may cast it")
    [((8, 12), (8, 12), 8)]
    """

    from .. import references

    def parts(text: str):
        return sorted(p for r in references.extract(text, lang) if r.kind != "glossary" for p in r.parts)

    old_parts, new_parts = parts(old_text), parts(new_text)
    if typography:
        a, a_spans = _printed_tokens(old_text, old_parts)
        b, b_spans = _printed_tokens(new_text, new_parts)
    else:
        a = _token_list(old_text, old_parts)
        b = _token_list(new_text, new_parts)
        a_spans = _token_spans(old_text, a, old_parts)
        b_spans = _token_spans(new_text, b, new_parts)
    a = _compare_tokens(tuple(a), mapping)
    out = []
    for i1, i2, j1, j2 in _change_blocks(a, list(b)):
        new_span = (b_spans[j1][0], b_spans[j2 - 1][1]) if j2 > j1 else None
        old_span = (a_spans[i1][0], a_spans[i2 - 1][1]) if i2 > i1 else None
        if not typography:  # a quote or bracket that came or went with the words is theirs
            old_gaps = _gaps(old_text, a_spans, i1, i2)
            new_gaps = _gaps(new_text, b_spans, j1, j2)
            if new_span:
                new_span = _with_marks(new_span, new_gaps, old_gaps)
            if old_span:
                old_span = _with_marks(old_span, old_gaps, new_gaps)
        if new_span:
            point = new_span[0]
        elif j1 and old_span and not old_text[old_span[0]].isalnum():
            point = b_spans[j1 - 1][1]  # a mark goes where it was printed: "face-down" → "face down"
        else:
            point = b_spans[j1][0] if j1 < len(b_spans) else len(new_text)
            if old_span and j1 < len(b_spans) and i2 < len(a_spans):
                # the marks printed between the run and the next word go after the run, as
                # they did: "The phrase “Morph [cost]”" less "The phrase" is
                # "[The phrase] “Morph…", not "“[The phrase] Morph…"
                marks = old_text[old_span[1] : a_spans[i2][0]].strip()
                lead = new_text[b_spans[j1 - 1][1] if j1 else 0 : point]
                if marks and len(lead) >= len(marks) and not lead[len(lead) - len(marks) :].strip(PHRASE_MARKS):
                    point -= len(marks)
        out.append((old_span, new_span, point))
    return out


def align(old: Edition, new: Edition) -> Alignment:
    """Align edition ``old`` with edition ``new`` (same language; fragments too).

    Returns an :class:`Alignment` whose ``rules`` hold one row per rule of either
    edition (several for a split or merge) and whose ``sections`` hold one row per
    section. Never raises on odd input: two editions with nothing in common give
    every old rule ``removed`` and every new one ``added``.

    >>> a = align(editions["en/2009-05-01"], editions["en/2009-07-11"])  # doctest: +SKIP
    >>> a.forward["502.26"][0].new                                        # doctest: +SKIP
    '702.34'
    """
    if _order_key(old) > _order_key(new):
        return align(new, old).mirror(new, old)
    m = _Matcher(_prepare(old).read_all(), _prepare(new).read_all())
    m.identical()
    m.sections()
    m.gaps()
    m.sections()
    m.structure()
    m.similar()
    m.better_partners()
    m.sections()
    m.structure()
    split, merged = m.splits()
    m.rewrites(split, merged)
    section_rows, section_map = _align_sections(m)
    m.section_map = section_map
    mapping = _mapping(m, section_map)

    o, n = m.o, m.n
    split_kind: dict[int, str] = {}
    extra_new: dict[int, int] = {}  # new index → old index (split)
    extra_old: dict[int, int] = {}  # old index → new index (merged)
    for w, ps in split.items():
        for p in ps:
            extra_new[p] = w
        if w in m.pairs:
            split_kind[w] = "split"
    for w, ps in merged.items():
        for p in ps:
            extra_old[p] = w
        if w in m.rev:
            split_kind[m.rev[w]] = "merged"
    # split of an unpaired old rule into several new ones: rows are all "split"
    rows_by_new: dict[int, list[RuleChange]] = defaultdict(list)
    for i, j in m.pairs.items():
        rows_by_new[j].append(_rule_change(m, i, j, mapping, split_kind.get(i)))
    for p, w in extra_new.items():
        rows_by_new[p].append(_rule_change(m, w, p, mapping, "split"))
    for p, w in extra_old.items():
        rows_by_new[w].append(_rule_change(m, p, w, mapping, "merged"))
    explained_old = set(m.pairs) | set(extra_old) | {w for w in split}
    rows: list[RuleChange] = []
    # removed rules are listed after the rule that preceded them in the old edition
    removed_after: dict[int, list[int]] = defaultdict(list)  # new index (-1: start) → old indices
    last_new = -1
    for i in range(len(o.units)):
        if i in m.pairs:
            last_new = m.pairs[i]
        elif i not in explained_old:
            removed_after[last_new].append(i)
    for i in removed_after.get(-1, []):
        rows.append(RuleChange(o.units[i].id, None, "removed", 0.0))
    for j in range(len(n.units)):
        if rows_by_new.get(j):
            rows.extend(rows_by_new[j])
        else:
            rows.append(RuleChange(None, n.units[j].id, "added", 0.0))
        for i in removed_after.get(j, []):
            rows.append(RuleChange(o.units[i].id, None, "removed", 0.0))
    sections = tuple(
        SectionChange(so, sn, kind, o.sections[so].title if so else None, n.sections[sn].title if sn else None)
        for so, sn, kind in section_rows
    )
    sections = _refine_section_kinds(sections, rows)
    stats = dict(m.stats, old_units=len(o.units), new_units=len(n.units))
    return Alignment(old.name, new.name, tuple(rows), sections, stats)


def align_joined(
    old: Edition,
    new: Edition,
    pairs: list[tuple[str, str]],
    rewritten: set[tuple[str, str]] = frozenset(),
    spans: tuple[Mapping[str, list] | None, Mapping[str, list] | None] = (None, None),
) -> Alignment:
    """An alignment of ``old`` and ``new`` from pairs found elsewhere: ``(old id, new
    id)``, such as the lineage keys they share (:meth:`.lineage.Lineage.join`, for two
    editions that are not consecutive). Rows and facets as :func:`align` gives them
    (the word changes compared between the two texts, references through the pairs); an
    old id in two pairs is ``split``, a new id in two ``merged``; ``rewritten``: the
    pairs whose words are ``rewritten`` rather than ``edited`` (a rewrite in place on
    the way); a pair given twice is one (a rule holding two lineage keys, one of each
    rule it split into later, meets itself twice in an edition before the split: not a
    split). Units in no pair are ``removed`` or ``added``; chapters and sections
    paired are the sections' rows (``kept``, ``edited`` for a new title,
    ``renumbered``). ``spans``: the two editions' stored reference spans, rule id →
    ``[(paragraph, [[start, end, number], …]), …]`` (:meth:`comprules.store.Store.reference_parts`;
    the same spans as reading the words, which a test checks on the whole corpus)."""
    pairs = list(dict.fromkeys(pairs))
    if _order_key(old) > _order_key(new):
        swapped = [(b, a) for a, b in pairs]
        return align_joined(new, old, swapped, {(b, a) for a, b in rewritten}, spans[::-1]).mirror(new, old)
    m = _Matcher(_prepare(old, spans[0]), _prepare(new, spans[1]))
    o, n = m.o, m.n
    unit_pairs = [(o.pos[a], n.pos[b]) for a, b in pairs if a in o.pos and b in n.pos]
    section_map = {a: b for a, b in pairs if a in o.sections and b in n.sections}
    for i, j in unit_pairs:
        if i not in m.pairs and j not in m.rev:
            m.pair(i, j)
    m.rewritten = {(o.pos[a], n.pos[b]) for a, b in rewritten if a in o.pos and b in n.pos}
    m.section_map = section_map
    mapping = _mapping(m, section_map)
    per_old = Counter(i for i, _ in unit_pairs)
    per_new = Counter(j for _, j in unit_pairs)
    rows = []
    for i, j in unit_pairs:
        kind = "split" if per_old[i] > 1 else "merged" if per_new[j] > 1 else None
        rows.append(_rule_change(m, i, j, mapping, kind))
    rows += [RuleChange(r.id, None, "removed", 0.0) for k, r in enumerate(o.units) if k not in per_old]
    rows += [RuleChange(None, r.id, "added", 0.0) for k, r in enumerate(n.units) if k not in per_new]
    sections = []
    for so, sn in section_map.items():
        if so != sn:
            kind = "renumbered"
        else:
            kind = "kept" if _title_key(o.sections[so].title) == _title_key(n.sections[sn].title) else "edited"
        sections.append(SectionChange(so, sn, kind, o.sections[so].title, n.sections[sn].title))
    sections += [SectionChange(x, None, "removed", r.title) for x, r in o.sections.items() if x not in section_map]
    paired_new = set(section_map.values())
    sections += [SectionChange(None, x, "added", None, r.title) for x, r in n.sections.items() if x not in paired_new]
    pos_old = {r.id: k for k, r in enumerate(old.rules)}
    pos_new = {r.id: k for k, r in enumerate(new.rules)}
    rows = _ordered(rows, pos_old, pos_new)
    sections = _refine_section_kinds(tuple(_ordered(sections, pos_old, pos_new)), rows)
    return Alignment(
        old.name,
        new.name,
        tuple(rows),
        sections,
        {"joined": len(unit_pairs), "old_units": len(o.units), "new_units": len(n.units)},
    )


@dataclass(frozen=True, slots=True)
class GlossaryChange:
    """What happened to one glossary entry: ``old`` and ``new`` are its slugs (``None``
    for an entry added or removed), ``kind`` ``kept``, ``edited``, ``added`` or
    ``removed``, ``words`` the facet of its definition (:data:`WORD_FACETS`)."""

    old: str | None
    new: str | None
    kind: str
    old_term: str | None = None
    new_term: str | None = None
    words: str | None = None


def glossary_changes(old: Edition, new: Edition, mapping: dict[str, str] | None = None) -> list[GlossaryChange]:
    """The glossary entries of ``old`` and ``new`` paired by headword (case and
    punctuation aside: "Active Player, Active Player's Turn"), in the new edition's
    order, the removed ones last; a definition whose cited numbers only followed the
    renumbering (``mapping``, :attr:`Alignment.mapping`) is not edited."""

    def key(term: str) -> str:
        return _title_key(term)

    olds = {key(g.term): g for g in old.glossary}
    seen: set[str] = set()
    out: list[GlossaryChange] = []

    from .. import references

    def parts(text: str, lang: str):
        return sorted(p for r in references.extract(text, lang) if r.kind != "glossary" for p in r.parts)

    for g in new.glossary:
        k = key(g.term)
        o = olds.get(k)
        if o is None or k in seen:
            out.append(GlossaryChange(None, g.slug, "added", None, g.term))
            continue
        seen.add(k)
        words = None
        if o.text != g.text:
            op, np_ = parts(o.text, old.lang), parts(g.text, new.lang)
            _sim, changes = word_changes(o.text, g.text, op, np_, mapping)
            words = "edited" if changes else _printed_change(o.text, op, g.text, np_, mapping)[0]
        kind = "edited" if words in ("edited", "typography") or o.term != g.term else "kept"
        out.append(GlossaryChange(o.slug, g.slug, kind, o.term, g.term, words))
    out += [GlossaryChange(g.slug, None, "removed", g.term) for k, g in olds.items() if k not in seen]
    return out


def _order_key(edition: Edition) -> tuple:
    """Editions are aligned earliest first: by effective date, then name (fragments)."""
    return (edition.effective is None, edition.effective or "", edition.name)


def _refine_section_kinds(sections: tuple[SectionChange, ...], rows: list[RuleChange]) -> tuple[SectionChange, ...]:
    """A section kept by number and title is ``edited`` when one of its rules changed."""
    touched: set[str] = set()
    for c in rows:
        if c.kind != "kept":
            for num in (c.old, c.new):
                if num and "." in num:
                    touched.add(num.split(".", 1)[0])
                elif num and "¶" in num:
                    touched.add(num.split("¶", 1)[0])
    out = []
    for s in sections:
        if s.kind == "kept" and s.old in touched:
            s = SectionChange(s.old, s.new, "edited", s.old_title, s.new_title)
        out.append(s)
    return tuple(out)
