"""Cross-references inside rule text: ``rule 702.36``, ``rules 601.2f–h``, ``section 8``…

The Comprehensive Rules cite themselves constantly, in a handful of printed forms
that changed little from 1999 to today (French documents follow the same habits)::

    (See rule 104.3a.)                      rule        → 104.3a
    See rule 105, “Colors.”                 section     → 105, title "Colors"
    See section 8, “Multiplayer Rules.”     chapter     → 8
    rules 601.2f–h / 601.2g-h / 510.1 c-d   range       → 601.2f, 601.2g, 601.2h
    rules 701.27a–f, 712.9–10, and 712.18.  list        → three references
    as described in 608.2b                  bare number → 608.2b
    See 718, “Prototype Cards.”             bare section with its title
    Voir règle 411, "…" et 408.2, "…"       French list, second member without "règle"
    See also Dependency, Timestamp Order.   glossary    → two glossary headwords
    参见规则510，“战斗伤害步骤”              Chinese     → 510, title "战斗伤害步骤"
    规则702.19b所述 / 规则601.2f-h中        Chinese     → a number glued to the next word
    规则613.7和613.8 / 规则403.3，603.6a    Chinese list (和 及 与 以及 或 、 ，)
    参见第8章，“多人游戏规则”                Chinese     → chapter 8 ("第510节": section 510)
    另参见X。 / 参见守军。                   Chinese     → a glossary headword

:func:`extract` finds them with an ordered chain of *families* (:data:`FAMILIES`),
one per family of printed forms, in the style of markdown-it-py's rule chains, where
a rule is only tried at the characters registered as its terminators. Here each
family registers *anchors*: the citing word ("rule", "section", "règle", "See") or,
for bare numbers, the dot of ``608.2b``, as regular expressions that lead with a
literal so that the scan skips through the text at C speed. The anchors' matches are
visited in text order (the earlier family first where two start together); a family
reads the whole citation list that follows and the scan resumes after it, or it
declines and the next candidate is tried. Nothing here raises on odd input.

Bare numbers need care: ``100 cards``, ``PO Box 707``, ``999,999`` and years are not
citations. A dotted number (``702.36a``) is a citation anywhere (the CR writes "as
described in 608.2b", "proceed to 616.1e"); a bare three-digit number counts only
after a citing word (``rule``, ``section``, ``règle``…), as a later member of a list
(``rules 614 and 615``), or after "See"/"Voir" when its quoted title follows.

:func:`resolve` checks every reference of one :class:`~comprules.model.Edition`
against the rules and glossary it holds and reports the dangling ones (in a fragment,
the *external* ones: a forum post cites rules it does not quote), and checks every
quoted title against the target's (:func:`titles_agree`: "rule 727, “Day and
Night”" when 727 is "Merging with Permanents" is reported). It also lists every
printed target as a :class:`Citation` (``Resolution.cites``), with its status:
``internal``, ``dangling`` (missing from a complete edition) or ``external``
(outside a fragment); :func:`resolve_external` resolves a fragment's external
citations in another edition (the English edition of its era, chosen by the
caller: this stage does not align editions).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Callable, NamedTuple, Sequence

from . import languages
from .model import DROP_QUOTES, Edition, glossary_key, letters_value, sort_key
from .model import clean_term as _clean_term

__all__ = [
    "KINDS",
    "SUBRULE_LETTERS",
    "Reference",
    "Family",
    "FAMILIES",
    "reset_chains",
    "extract",
    "extract_many",
    "expand_range",
    "Dangling",
    "TitleMismatch",
    "Citation",
    "STATUSES",
    "Resolution",
    "titles_agree",
    "resolve",
    "resolve_external",
    "glossary_key",
]

#: Reference kinds: a rule or subrule, a three-digit section, a one-digit chapter, or
#: a glossary headword.
KINDS = ("rule", "section", "chapter", "glossary")


@dataclass(frozen=True, slots=True)
class Reference:
    """One printed citation: a single number, a range, or a glossary headword.

    ``start``/``end`` span the printed number part only (``601.2f–h``, not the word
    "rules"); a list such as ``rules 701.27a–f, 712.9–10, and 712.18`` yields three
    references. ``targets`` holds the numbers the citation names, ranges expanded
    (``("601.2f", "601.2g", "601.2h")``; ``("8",)`` for ``section 8``). ``parts`` holds
    each printed member's own span and the number it names, so that the site can link
    each: ``601.2f–h`` at offset s gives ``((s, s+6, "601.2f"), (s+7, s+8, "601.2h"))``.
    ``title`` is the quoted title printed after the number, without its quotes and
    trailing punctuation: ``rule 509, “Declare Blockers Step.”`` → ``Declare Blockers
    Step``. For ``kind == "glossary"`` the target is the headword as printed.
    """

    start: int
    end: int
    kind: str
    targets: tuple[str, ...]
    parts: tuple[tuple[int, int, str], ...]
    title: str | None = None


# ---------------------------------------------------------------------------
# Numbers and ranges

#: Letters a subrule may carry, in order: the CR skips "l" and "o" (see its
#: introduction: "subrule 704.5k is followed by 704.5m").
SUBRULE_LETTERS = "abcdefghijkmnpqrstuvwxyz"
_SKIPPED = frozenset("lo")
_MAX_EXPANSION = 400
_PARSE_NUMBER = re.compile(r"([1-9][0-9]{2})(?:\.([0-9]+)([a-z]{0,2}))?|([0-9])")  # fullmatch


def _letters_of(value: int) -> str:
    """Inverse of :func:`comprules.model.letters_value` (bijective base 26)."""
    out = []
    while value > 0:
        value, rem = divmod(value - 1, 26)
        out.append(chr(97 + rem))
    return "".join(reversed(out))


def expand_range(first: str, last: str) -> list[str]:
    """Every number from ``first`` to ``last`` inclusive, as the CR means its ranges.

    - letters, skipping l and o: ``601.2f``–``601.2h`` → f, g, h; ``205.3k``–``205.3m``
      → k, m; ``704.5z``–``704.5ab`` → z, aa, ab;
    - rules of one section: ``712.9``–``712.10`` → 712.9, 712.10;
      ``903.6``–``903.11`` → six rules;
    - sections (``rules 212-215``, 1999) and chapters (``sections 2-5``).

    Endpoints the CR would never print in one range (two different rules with
    letters, a rule and a section, a backwards or huge range) come back as
    ``[first, last]``, both kept, nothing invented. Raises ``ValueError`` if either
    is not a rule number at all.
    """
    a, b = _PARSE_NUMBER.fullmatch(first), _PARSE_NUMBER.fullmatch(last)
    if not a or not b:
        raise ValueError(f"not a rule number range: {first!r}–{last!r}")
    if first == last:
        return [first]
    sa, ra, la, ca = a.groups()
    sb, rb, lb, cb = b.groups()
    if ca is not None or cb is not None:  # chapters
        lo, hi = int(ca or -1), int(cb or -1)
        if ca is None or cb is None or hi < lo:
            return [first, last]
        return [str(n) for n in range(lo, hi + 1)]
    if ra is None or rb is None:  # sections
        lo, hi = int(sa), int(sb)
        if ra is not None or rb is not None or hi < lo or hi - lo > _MAX_EXPANSION:
            return [first, last]
        return [str(n) for n in range(lo, hi + 1)]
    if sa != sb:
        return [first, last]
    if la or lb:  # subrules of one rule
        lo, hi = letters_value(la), letters_value(lb)
        if ra != rb or not la or not lb or hi < lo or hi - lo > _MAX_EXPANSION:
            return [first, last]
        out = [first]
        for v in range(lo + 1, hi):
            letters = _letters_of(v)
            if not _SKIPPED.intersection(letters):
                out.append(f"{sa}.{ra}{letters}")
        out.append(last)
        return out
    lo, hi = int(ra), int(rb)
    if hi < lo or hi - lo > _MAX_EXPANSION:
        return [first, last]
    return [f"{sa}.{n}" for n in range(lo, hi + 1)]


# ---------------------------------------------------------------------------
# The citation-list reader shared by the numeric families

_SP = "[ \\t\\u00a0\\u202f]"
_SPACES = frozenset(" \t\u00a0\u202f")
#: Han characters (CJK ideographs): Chinese text glues a number to the next word
#: ("规则702.19b所述"), so a number ends before a word character that is not Han.
_HAN = "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff"
_W = f"[^\\W{_HAN}]"
_IS_HAN = re.compile(f"[{_HAN}]")
#: A rule, subrule or section number, not glued to a longer word or number.
_NUMBER = re.compile(rf"([1-9][0-9]{{2}})(?:\.([0-9]+)([a-z]{{0,2}}))?(?!{_W}|\.[0-9])")
_CHAPTER = re.compile(rf"([0-9])(?!{_W}|\.[0-9])")
#: After a range dash: a full number (``903.11``), the rule part (``712.9–10``) or
#: letters (``601.2f–h``). A lone "?" between two numbers is a dash lost to a wrong
#: code page in the 2008-05-01 and 2009-05-01 files ("rules 306?311").
_RANGE_END = re.compile(
    rf"(?:({_SP}?)[-–—]({_SP}?)|\?)"
    rf"(?:([1-9][0-9]{{2}}(?:\.[0-9]+[a-z]{{0,2}})?)|([0-9]{{1,3}})|([a-z]{{1,2}}))(?!{_W}|\.[0-9])"
)
#: French "Cf. règles 510.1 c-d": the letters printed apart from the rule number.
_SPACED_LETTERS = re.compile(rf"{_SP}([a-z]{{1,2}}){_SP}?[-–]{_SP}?([a-z]{{1,2}})(?!\w)")
_TITLE = re.compile(rf"[,，]?{_SP}*(?:“([^”\n]{{1,120}})”|\"([^\"\n]{{1,120}})\"|«{_SP}*([^»\n]{{1,120}}?){_SP}*»)")
_SEPARATORS = {
    "en": re.compile(rf"{_SP}*,{_SP}*(?:(?:and/or|and|or){_SP}+)?|{_SP}+(?:and/or|and|or){_SP}+"),
    "fr": re.compile(rf"{_SP}*,{_SP}*(?:(?:et|ou){_SP}+)?|{_SP}+(?:et|ou){_SP}+"),
}


def _unspaced_separators(words: Sequence[str]) -> re.Pattern[str]:
    """A list separator of a language written without spaces (Chinese): a comma or
    an enumeration comma, or one of ``words`` ("和", "及", "以及"…), each optionally
    followed by the citing word again ("规则601.2b与规则601.2f-h" is read by the
    anchor of the second "规则")."""
    alts = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True) if w not in "，、,")
    return re.compile(rf"{_SP}*(?:[,，、]{_SP}*(?:(?:{alts}){_SP}*)?|(?:{alts}){_SP}*)")


_AFTER_TITLE = re.compile(f"{_SP}+")
_SEPARATOR_STARTS = frozenset(", \t\u00a0\u202f，、和及以与或")
#: A three-digit number later in a list must end there ("rules 614 and 615."),
#: so that "rule 903.5a and 100 cards" stays one reference.
_SECTION_END = re.compile(rf"{_SP}*(?:[,.;:)\]\n“\"«\-–—?，。；：）、]|\Z|(?:and|or|et|ou)\b|[和及与或中所的之])")
#: A lone letter continuing a subrule ("rules 608.3a and b"), never a word of its own.
_LONE_LETTER = re.compile(rf"([b-hj-km-np-xz])(?!{_W}|[’'])")


class _Member(NamedTuple):
    start: int
    end: int
    first: str
    last: str | None
    parts: tuple[tuple[int, int, str], ...]


_DASHES = frozenset("-–—?")
_TITLE_OPENERS = frozenset(',“"«，')


def _read_number(text: str, pos: int, *, chapters: bool) -> _Member | None:
    """One printed number at ``pos``, with its range end if one follows."""
    m = _NUMBER.match(text, pos)
    if m is None:
        if chapters and (c := _CHAPTER.match(text, pos)):
            first = c.group(1)
            r = _RANGE_END.match(text, c.end())
            if r and r.group(4) and len(r.group(4)) == 1 and not (r.group(1) or r.group(2)):
                last = r.group(4)
                if int(last) > int(first):
                    return _Member(pos, r.end(), first, last, ((pos, c.end(), first), (r.start(4), r.end(), last)))
            return _Member(pos, c.end(), first, None, ((pos, c.end(), first),))
        return None
    first = m.group(0)
    end = m.end()
    # Cheap look at what follows before any further regex: most citations end here.
    nxt = text[end : end + 2]
    if nxt[:1] in _DASHES or (nxt[:1] in _SPACES and len(nxt) == 2 and nxt[1] in _DASHES):
        section, rule, letters = m.groups()
        r = _RANGE_END.match(text, end)
        if r is not None:
            last = _range_last(section, rule, letters, r)
            if last is not None:
                span = (r.start(r.lastindex or 0), r.end())
                return _Member(pos, r.end(), first, last, ((pos, end, first), (*span, last)))
    elif nxt[:1] in _SPACES and nxt[1:].islower() and m.group(2) and not m.group(3):
        s = _SPACED_LETTERS.match(text, end)
        if s and letters_value(s.group(2)) > letters_value(s.group(1)):
            lo, hi = f"{first}{s.group(1)}", f"{first}{s.group(2)}"
            return _Member(pos, s.end(), lo, hi, ((pos, s.end(1), lo), (s.start(2), s.end(), hi)))
    return _Member(pos, end, first, None, ((pos, end, first),))


def _range_last(section: str, rule: str | None, letters: str, r: re.Match[str]) -> str | None:
    """The number a range end names, or ``None`` if it is no range end for this start."""
    spaced = bool(r.group(1) or r.group(2))
    full, digits, tail = r.group(3), r.group(4), r.group(5)
    if full is not None and ("." in full) == (rule is not None):
        last = full
    elif full is not None and rule is not None and not letters and not spaced:
        last = f"{section}.{full}"  # "702.99–100"
    elif digits is not None and rule is not None and not letters and not spaced:
        last = f"{section}.{digits}"
    elif tail is not None and letters:
        last = f"{section}.{rule}{tail}"
    else:
        return None
    first = f"{section}.{rule}{letters}" if rule is not None else section
    return last if sort_key(last) > sort_key(first) else None


def _read_title(text: str, pos: int) -> tuple[str, int] | None:
    """The quoted title printed after a number: ``, “Declare Blockers Step.”``."""
    nxt = text[pos : pos + 2]
    if not nxt or (nxt[0] not in _TITLE_OPENERS and nxt[-1] not in _TITLE_OPENERS):
        return None
    m = _TITLE.match(text, pos)
    if m is None:
        return None
    title = _clean_title(m.group(1) or m.group(2) or m.group(3))
    return None if title is None else (title, m.end())


#: The common case in one match: a number with no range after it, and its title.
_PLAIN = re.compile(
    rf"([1-9][0-9]{{2}}(?:\.[0-9]+[a-z]{{0,2}})?)(?!{_W}|\.[0-9])"
    rf"(?!{_SP}?[-–—]|\?[0-9a-z]|{_SP}[a-z]{{1,2}}{_SP}?[-–])"
    rf"(?:[,，]?{_SP}*(?:“([^”\n]{{1,120}})”|\"([^\"\n]{{1,120}})\"|«{_SP}*([^»\n]{{1,120}}?){_SP}*»))?"
)


def _clean_title(raw: str) -> str | None:
    title = raw.strip().rstrip(".,;:。，；：").strip()
    if not title or not (title[0].isupper() or title[0].isdigit() or _IS_HAN.match(title[0])):
        return None
    return title


def _read_list(
    text: str, pos: int, lang: str, *, chapters: bool = False, first_needs_title: bool = False
) -> tuple[list[Reference], int] | None:
    """Read ``NUM[–END] [, “Title”] (SEP NUM[–END] [, “Title”])*`` from ``pos``.

    Returns the references and where the list ends, or ``None`` if no number starts
    at ``pos`` (or, with ``first_needs_title``, if the first has no quoted title).
    """
    sep = _SEPARATORS.get(lang) or _separators(lang)
    refs: list[Reference] = []
    prev: _Member | None = None
    list_end = pos
    while True:
        member = title = None
        end = pos
        m = _PLAIN.match(text, pos)
        if m is not None:  # fast path: one number, maybe a title
            first = m.group(1)
            end = m.end(1)
            raw = m.group(2) or m.group(3) or m.group(4)
            if raw is not None:
                title = _clean_title(raw)
                if title is not None:
                    end = m.end()
            if prev is not None and len(first) == 3 and not _SECTION_END.match(text, m.end(1)):
                break
            member = _Member(pos, m.end(1), first, None, ((pos, m.end(1), first),))
        else:  # ranges, chapters, lone letters
            if prev is None:
                member = _read_number(text, pos, chapters=chapters)
            else:
                member = _read_continuation(text, pos, prev, chapters=chapters)
            if member is None:
                break
            end = member.end
            titled = _read_title(text, end)
            if titled is not None:
                title, end = titled
        if prev is None and first_needs_title and title is None:
            return None
        first = member.first
        targets = tuple(expand_range(first, member.last)) if member.last else (first,)
        kind = "rule" if len(first) > 3 else ("section" if len(first) == 3 else "chapter")
        refs.append(Reference(member.start, member.end, kind, targets, member.parts, title))
        prev, pos, list_end = member, end, end
        if text[pos : pos + 1] not in _SEPARATOR_STARTS:
            break
        s = sep.match(text, pos) or (title is not None and _AFTER_TITLE.match(text, pos))
        if not s:
            break
        pos = s.end()
    if not refs:
        return None
    return refs, list_end


def _read_continuation(text: str, pos: int, prev: _Member, *, chapters: bool) -> _Member | None:
    """A later member of a list, read more strictly than the first."""
    m = _NUMBER.match(text, pos)
    if m is not None:
        if m.group(2) is None and not _SECTION_END.match(text, m.end()):
            return None
        return _read_number(text, pos, chapters=False)
    if chapters and prev.first.isdigit() and len(prev.first) == 1:
        c = _CHAPTER.match(text, pos)
        if c and _SECTION_END.match(text, c.end()):
            return _read_number(text, pos, chapters=True)
    base = prev.last or prev.first
    b = _PARSE_NUMBER.fullmatch(base)
    if b and b.group(3) and len(b.group(3)) == 1 and (lone := _LONE_LETTER.match(text, pos)):
        letter = lone.group(1)
        if letter > b.group(3):
            number = f"{b.group(1)}.{b.group(2)}{letter}"
            return _Member(pos, lone.end(), number, None, ((pos, lone.end(), number),))
    return None


# ---------------------------------------------------------------------------
# The families, in order

#: What a family's parse function returns: the references read and where reading stopped, or ``None``.
_Found = tuple[list[Reference], int] | None


@dataclass(frozen=True, slots=True)
class Family:
    """One family of printed reference forms in the chain.

    The family is tried wherever one of its ``anchors`` matches: regular
    expressions that lead with a literal, so that the engine skips to it fast, and
    check the rest behind and ahead (``ule(?<=[Rr]ule)s?…(?=[0-9])`` for "rule 702.36",
    ``\\.(?<=[1-9][0-9]{2}\\.)`` for a bare ``608.2b``). ``hints`` are plain
    substrings, a cheap first test: a text holding none of them is not scanned for
    the anchors (no hints: always scanned).

    ``parse(text, start, end, lang)`` gets the span of the anchor's match; it reads
    the citations that follow and returns ``(references, end)``, where the scan
    resumes, or ``None`` to decline. ``langs``: the languages whose text it reads.
    """

    name: str
    parse: Callable[[str, int, int, str], _Found]
    anchors: tuple[str, ...]
    hints: tuple[str, ...] = ()
    langs: frozenset[str] = frozenset({"en", "fr"})


def _after_word(text: str, start: int, end: int, lang: str) -> _Found:
    """``rule 702.36``, ``rules 601.2f–h``, ``règles 502``: a list after a citing word."""
    return _read_list(text, end, lang)


def _after_section_word(text: str, start: int, end: int, lang: str) -> _Found:
    """``section 8`` (a chapter), ``section 410`` (a section, in 1999–2008 editions).

    Anchored on the word, since one digit alone is too common to scan for. A section
    of an appendix is no chapter: "(See Appendix B, "Older Rules," section 5.)"
    (1999-11-01) is declined.
    """
    before = text[max(0, start - 40) : start]
    if "Appendix" in before or "Annexe" in before:
        return None
    return _read_list(text, end, lang, chapters=True)


def _after_see(text: str, start: int, end: int, lang: str) -> _Found:
    """After "See", "See also", "Voir", "Cf.": a titled section or glossary headwords.

    ``See 718, “Prototype Cards.”``: a bare section number, vouched for by its title
    (without one, "see 601.3d" is left to the bare-number family); ``See Cast.``,
    ``See also Dependency, Timestamp Order.``: see :func:`_glossary_see`.
    """
    if text[end : end + 1].isdigit():
        return _read_list(text, end, lang, first_needs_title=True)
    return _glossary_see(text, start, end, lang)


def _bare_number(text: str, start: int, end: int, lang: str) -> _Found:
    """``as described in 608.2b``, ``steps 601.2a–h``: a dotted number on its own.

    Not glued to what precedes it (``$1.50``, ``1-800.5``, ``v2.301.5``), never a
    bare three-digit number (``100 cards``, ``PO Box 707``).
    """
    at = start - 3  # the anchor is the number's dot
    if at and (text[at - 1] in _GLUED or (text[at - 1].isalpha() and not _IS_HAN.match(text[at - 1]))):
        return None
    return _read_list(text, at, lang)


_GLUED = frozenset(".$/-–,_0123456789")


_GLOSSARY_STOP = frozenset(
    "Rule Rules Section Sections Appendix Glossary Example Examples Règle Règles "
    "Chapitre Annexe Glossaire Exemple Also".split()
)
_CONNECTORS = {
    "en": frozenset("of the a an from to in on with by for as".split()),
    "fr": frozenset("de du des la le les à d’ d' l’ l' en au aux par".split()),
}
_TERM_WORD = re.compile(r"(?:[“\"‘][^”\"’\n]{1,40}[”\"’]|[“\"‘]?[A-Z0-9À-Ý][\w’'\-/]*[”\"’]?)")
_TERM_GAP = re.compile(f"{_SP}+")
_TERM_SEP = {
    "en": re.compile(rf",{_SP}+(?:and{_SP}+)?|{_SP}+and{_SP}+"),
    "fr": re.compile(rf",{_SP}+(?:et{_SP}+)?|{_SP}+et{_SP}+"),
}
_WORD = re.compile(r"[\w’']+")


def _read_term(text: str, pos: int, lang: str) -> tuple[int, int] | None:
    """A headword: capitalised words, small connecting words between them."""
    m = _TERM_WORD.match(text, pos)
    if m is None:
        return None
    end = m.end()
    connectors = _CONNECTORS.get(lang, _CONNECTORS["en"])
    while True:
        gap = _TERM_GAP.match(text, end)
        if gap is None:
            break
        p = gap.end()
        while (w := _WORD.match(text, p)) and w.group(0) in connectors:
            g = _TERM_GAP.match(text, w.end())
            if g is None:
                break
            p = g.end()
        nxt = _TERM_WORD.match(text, p)
        if nxt is None:
            break
        end = nxt.end()
    return pos, end


def _glossary_see(text: str, start: int, end: int, lang: str) -> _Found:
    """``See Cast.``, ``See also Dependency, Timestamp Order.``: glossary headwords.

    Each comma- or "and"-separated headword becomes one reference of kind
    ``glossary``; :func:`resolve` matches them against the glossary, trying the
    whole list first ("See Active Player, Nonactive Player Order." is one entry).
    """
    sep = _TERM_SEP.get(lang, _TERM_SEP["en"])
    refs: list[Reference] = []
    pos = end
    while True:
        span = _read_term(text, pos, lang)
        if span is None:
            break
        raw = text[span[0] : span[1]]
        term = _clean_term(raw)
        first = _WORD.match(term)
        if not term or (first and first.group(0) in _GLOSSARY_STOP):
            break
        # trailing sentence punctuation is not part of the printed headword's span
        s, e = span
        while e > s and text[e - 1] in ".,;:":
            e -= 1
        refs.append(Reference(s, e, "glossary", (term,), ((s, e, term),)))
        pos = span[1]
        m = sep.match(text, pos)
        if not m:
            break
        pos = m.end()
    if not refs or not _GLOSSARY_TAIL.match(text, refs[-1].end):
        return None
    return refs, refs[-1].end


#: What may follow a "See …" headword list: the end of the sentence or of the text,
#: or the sentence going on in lower case ("See Creature Types and rule 205.3m").
_GLOSSARY_TAIL = re.compile(rf"(?:[.);,:”\"’]|{_SP}+[a-zà-ÿ(]|{_SP}*(?:\n|\Z))")


# ---------------------------------------------------------------------------
# Languages written without spaces (Chinese): families made from the language table


def _separators(lang: str) -> re.Pattern[str]:
    """The list separators of ``lang``: English's, or for a language written without
    spaces, its ``list_words`` (:func:`_unspaced_separators`), built once."""
    row = languages.get(lang)
    if row.code != lang or row.spaced:
        return _SEPARATORS["en"]
    pattern = _SEPARATORS[lang] = _unspaced_separators(row.list_words)
    return pattern


_DIVISION = re.compile(rf"([0-9]{{1,3}}){_SP}*([章节条])")


def _division(text: str, start: int, end: int, lang: str) -> _Found:
    """``第8章`` (chapter 8), ``第510节`` (section 510), with the title that may follow:
    ``参见第8章，“多人游戏规则”``. A number that does not fit its unit is declined."""
    m = _DIVISION.match(text, end)
    if m is None:
        return None
    number, unit = m.groups()
    if (unit == "章" and len(number) != 1) or (unit in "节条" and len(number) != 3) or number[0] == "0":
        return None
    kind = "chapter" if unit == "章" else "section"
    title = None
    stop = m.end()
    titled = _read_title(text, stop)
    if titled is not None:
        title, stop = titled
    return [Reference(m.start(1), m.end(1), kind, (number,), ((m.start(1), m.end(1), number),), title)], stop


#: Where a Chinese glossary headword after "参见" ends; what it may not contain (a
#: sentence about rules or a web site, not a headword).
_HAN_TERM_END = re.compile(r"[。，；：、）)\n]|以获取|查看|中的|$")
_HAN_TERM_MAX = 12


def _han_glossary_see(text: str, start: int, end: int, lang: str) -> _Found:
    """``参见守军。``, ``另参见X。``, ``参见X。``: glossary headwords.

    A headword runs to the next punctuation mark; it is at most
    :data:`_HAN_TERM_MAX` characters, of Han characters (a single capital letter:
    ``X``), and holds no citing word (``参见…的规则（规则613.7…）`` is left to the
    rule family). A list with "和"/"及" is resolved whole first, then by
    its parts (:func:`resolve`).
    """
    row = languages.get(lang)
    m = _HAN_TERM_END.search(text, end)
    stop = m.start() if m else len(text)
    term = text[end:stop]
    if not term or len(term) > _HAN_TERM_MAX:
        return None
    if not (all(_IS_HAN.match(ch) or ch in "“”‘’/～" for ch in term) or re.fullmatch(r"[A-Z]", term)):
        return None
    if any(w in term for w in row.rule_words) or term.startswith(tuple(row.section_words)):
        return None
    return [Reference(end, stop, "glossary", (term,), ((end, stop, term),))], stop


def _script_families() -> list[Family]:
    """The families of every language of the table written without spaces, from its
    citing words: ``rule_words`` ("规则") before a number, ``section_words`` ("第")
    before "N章"/"N节", ``see_words`` ("参见") before a glossary headword."""
    out: list[Family] = []
    for row in languages.all_languages():
        if row.spaced:
            continue
        langs = frozenset({row.code})

        def alt(words: Sequence[str]) -> str:
            return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))

        if row.rule_words:
            out.append(
                Family(
                    f"rule-{row.code}",
                    _after_word,
                    anchors=(rf"(?:{alt(row.rule_words)}){_SP}*(?=[0-9])",),
                    hints=tuple(row.rule_words),
                    langs=langs,
                )
            )
        if row.section_words:
            out.append(
                Family(
                    f"division-{row.code}",
                    _division,
                    anchors=(rf"(?:{alt(row.section_words)}){_SP}*(?=[0-9])",),
                    hints=tuple(row.section_words),
                    langs=langs,
                )
            )
        if row.see_words:
            out.append(
                Family(
                    f"see-{row.code}",
                    _han_glossary_see,
                    anchors=(rf"(?:{alt(row.see_words)}){_SP}*(?![0-9]|{alt(row.rule_words + row.section_words)})",),
                    hints=tuple(row.see_words),
                    langs=langs,
                )
            )
    return out


#: The chain, in order: where two anchors match at one place, the earlier family is
#: tried first. Anchors lead with a literal so that the regex engine skips fast.
FAMILIES: list[Family] = [
    Family(
        "rule", _after_word, anchors=(rf"ule(?<=[Rr]ule)s?{_SP}*(?=[0-9])",), hints=("ule",), langs=frozenset({"en"})
    ),
    Family(
        "section",
        _after_section_word,
        anchors=(rf"ection(?<=\b[Ss]ection)s?{_SP}+(?=[0-9])",),
        hints=("ection",),
        langs=frozenset({"en"}),
    ),
    Family(
        "regle",
        _after_word,
        anchors=(
            rf"gle(?<=[Rr][èe]gle)s?{_SP}*(?=[0-9])",
            rf"aphe(?<=[Pp]aragraphe)s?{_SP}*(?=[0-9])",
            rf"icle(?<=[Aa]rticle)s?{_SP}*(?=[0-9])",
        ),
        hints=("gle", "aphe", "icle"),
        langs=frozenset({"fr"}),
    ),
    Family(
        "section-fr",
        _after_section_word,
        anchors=(rf"ection(?<=\b[Ss]ection)s?{_SP}+(?=[0-9])", rf"hapitre(?<=\b[Cc]hapitre)s?{_SP}+(?=[0-9])"),
        hints=("ection", "hapitre"),
        langs=frozenset({"fr"}),
    ),
    Family(
        "bare-number", _bare_number, anchors=(r"\.(?<=[1-9][0-9]{2}\.)(?=[0-9])",), langs=frozenset(languages.codes())
    ),
    Family(
        "see",
        _after_see,
        anchors=(rf"ee(?<=\b[Ss]ee)(?:{_SP}+also)?{_SP}+(?=[“\"A-Z1-9])",),
        hints=("See ", "see "),
        langs=frozenset({"en"}),
    ),
    Family(
        "voir",
        _after_see,
        anchors=(rf"oir(?<=\b[Vv]oir)(?:{_SP}+aussi)?{_SP}+(?=[“\"«A-ZÀ-Ý1-9])", rf"f\.(?<=\b[Cc]f\.){_SP}+(?=[1-9])"),
        hints=("Voir ", "voir ", "f. "),
        langs=frozenset({"fr"}),
    ),
    *_script_families(),
]

#: Per language: (family, compiled anchor, hints) in chain order.
_CHAINS: dict[str, tuple[tuple[Family, re.Pattern[str], tuple[str, ...]], ...]] = {}


def _chain(lang: str) -> tuple[tuple[Family, re.Pattern[str], tuple[str, ...]], ...]:
    """The chain for one language, built once (call :func:`reset_chains` after
    changing :data:`FAMILIES`). A language no family names reads as English."""
    chain = _CHAINS.get(lang)
    if chain is None:
        chosen = [f for f in FAMILIES if lang in f.langs] or [f for f in FAMILIES if "en" in f.langs]
        chain = _CHAINS[lang] = tuple((f, re.compile(a), f.hints) for f in chosen for a in f.anchors)
    return chain


def reset_chains() -> None:
    """Forget the chains built from :data:`FAMILIES` (after adding or removing one)."""
    _CHAINS.clear()


def extract(text: str, lang: str = "en") -> list[Reference]:
    """Every reference printed in ``text`` (one paragraph: a rule, an example, a
    glossary definition), in text order.

    ``lang`` is ``"en"`` or ``"fr"`` (another value reads as English). Citing words
    are not crossed over a line break (``Multiplayer Rules\\n800. General`` is a
    heading, not a citation). Never raises.

    >>> [r.targets for r in extract("This follows rules 701.27a–c, 712.9–10, and 712.18.")]
    [('701.27a', '701.27b', '701.27c'), ('712.9', '712.10'), ('712.18',)]
    """
    if not text:
        return []
    return _scan([text], text, [0], lang)[0]


def extract_many(texts: Sequence[str], lang: str = "en") -> list[list[Reference]]:
    """``[extract(t, lang) for t in texts]``, faster for many short texts.

    The anchors are searched once in the texts joined by line breaks (which no
    citation crosses); each match is then read in its own text, so offsets stay
    relative to it.
    """
    if not texts:
        return []
    bases = [b + i for i, b in enumerate(accumulate(map(len, texts[:-1]), initial=0))]
    return _scan(texts, "\n".join(texts), bases, lang)


def _scan(texts: Sequence[str], joined: str, bases: list[int], lang: str) -> list[list[Reference]]:
    """Visit the anchors' matches in ``joined`` in text order, and let each family
    read its citations in the text the match falls in (``bases``: where each starts)."""
    chain = _CHAINS.get(lang) or _chain(lang)
    candidates: list[tuple[int, int, int, Family]] = []
    for order, (family, anchor, hints) in enumerate(chain):
        if hints:
            for hint in hints:
                if hint in joined:
                    break
            else:
                continue
        candidates.extend((m.start(), order, m.end(), family) for m in anchor.finditer(joined))
    out: list[list[Reference]] = [[] for _ in texts]
    if not candidates:
        return out
    candidates.sort(key=_by_place)
    k, base, pos = 0, 0, 0  # current text, where it starts, how far it is consumed
    next_base = bases[1] if len(bases) > 1 else len(joined) + 1
    text = texts[0]
    for at, _, end, family in candidates:
        if at >= next_base:
            k = bisect_right(bases, at) - 1
            base, pos, text = bases[k], 0, texts[k]
            next_base = bases[k + 1] if k + 1 < len(bases) else len(joined) + 1
        if at - base < pos:
            continue
        found = family.parse(text, at - base, end - base, lang)
        if found is not None:
            out[k].extend(found[0])
            pos = found[1]
    return out


def _by_place(candidate: tuple[int, int, int, Family]) -> tuple[int, int]:
    return candidate[0], candidate[1]


# ---------------------------------------------------------------------------
# Resolution against one edition


class Dangling(NamedTuple):
    """A reference whose target the edition does not hold.

    ``source`` is the citing rule's id, or ``glossary/{slug}`` for a glossary entry;
    ``line`` is where that unit starts in the source file; ``citation`` is the
    printed text of the citation (``601.2f–h``).
    """

    source: str
    target: str
    line: int
    kind: str
    citation: str


class TitleMismatch(NamedTuple):
    """A reference whose quoted title is not the title of the rule it names.

    ``rule 727, “Day and Night”`` when 727 is "Merging with Permanents" (2024-07-30):
    ``quoted`` is what the citation prints, ``actual`` the target's title (for an
    untitled rule, the title of its nearest titled parent, or ``None``).
    """

    source: str
    target: str
    line: int
    quoted: str
    actual: str | None
    citation: str


#: A citation's status: its target is in the document, missing from a complete
#: edition (a defect of the CR), or outside a fragment (a forum post cites rules it
#: does not quote).
STATUSES = ("internal", "dangling", "external")


class Citation(NamedTuple):
    """One printed target of a reference, in printed order (a range gives one per member).

    ``target`` is the number as printed (``416``, ``409.1g``) or the glossary headword
    (``Cast``); ``kind`` one of :data:`KINDS`; ``status`` one of :data:`STATUSES`;
    ``resolved`` the id of the node it names across the knowledge base,
    ``{edition}/{rule id}`` or ``{edition}/glossary/{slug}`` (``en/2002-10-07/416``),
    or ``None`` when it resolves nowhere; ``title`` the quoted title printed with it
    (``Effets``) and ``title_agrees`` whether it names the resolved target's title
    (``None`` when no title is printed, the target is not resolved, or a range
    carries it). The export shape is :meth:`as_json`.
    """

    target: str
    kind: str
    status: str
    resolved: str | None = None
    title: str | None = None
    title_agrees: bool | None = None

    def as_json(self) -> dict[str, str | bool | None]:
        """``{"target", "kind", "status", "resolved", "title", "title_agrees"}`` (DESIGN.md)."""
        return {
            "target": self.target,
            "kind": self.kind,
            "status": self.status,
            "resolved": self.resolved,
            "title": self.title,
            "title_agrees": self.title_agrees,
        }


@dataclass(frozen=True)
class Resolution:
    """Every reference of one edition, resolved.

    ``refs``: rule id → ids of the rules, sections and chapters it cites (text and
    examples), in printed order, without repeats, dangling targets left out.
    ``glossary_refs``: glossary slug → rule ids its definition cites.
    ``glossary_links``: rule id or ``glossary/{slug}`` → slugs of the glossary
    entries it points to ("See Cast.").
    ``dangling``: the targets the edition does not hold, one per missing number (a
    range "112.5a-j" citing ten missing subrules gives ten).
    ``external``: in a *fragment* (a forum post quoting two rules) a missing target is
    not a defect but a rule outside the extract: those go here, and ``dangling`` stays
    empty. A complete edition has none.
    ``titles``: references whose quoted title disagrees with the target's
    (:func:`titles_agree`).
    ``count``: how many references were printed (a range or a list member counts
    once); ``unresolved``: how many of them name at least one missing target.
    ``cites``: rule id or ``glossary/{slug}`` → every printed target, in printed order,
    as :class:`Citation` (dangling and external ones included: ``refs`` leaves them out).
    ``spans``: rule id or ``glossary/{slug}`` → its paragraphs' references where they
    stand, ``(paragraph, reference)`` pairs (paragraph 0: the text; k: the k-th example),
    what the site links without reading the texts again.
    """

    edition: str
    refs: dict[str, tuple[str, ...]]
    glossary_refs: dict[str, tuple[str, ...]]
    glossary_links: dict[str, tuple[str, ...]]
    dangling: list[Dangling]
    count: int = 0
    external: list[Dangling] = field(default_factory=list)
    titles: list[TitleMismatch] = field(default_factory=list)
    unresolved: int = 0
    cites: dict[str, tuple[Citation, ...]] = field(default_factory=dict)
    spans: dict[str, tuple[tuple[int, Reference], ...]] = field(default_factory=dict)

    @property
    def resolved(self) -> int:
        """Printed references whose every target exists in the edition."""
        return self.count - self.unresolved

    @property
    def share(self) -> float:
        """``resolved / count`` (1.0 for a document citing nothing)."""
        return self.resolved / self.count if self.count else 1.0

    def cited_by(self) -> dict[str, list[str]]:
        """Backlinks: rule id → ids of the rules citing it, in rule order."""
        out: dict[str, list[str]] = {}
        for source, targets in self.refs.items():
            for t in targets:
                out.setdefault(t, []).append(source)
        for t in out:
            out[t].sort(key=sort_key)
        return out


# ---------------------------------------------------------------------------
# Quoted titles

_TITLE_WORD = re.compile(r"[^\W_]+")
_TITLE_STOP = frozenset(
    "of the a an and or to in on for with from by as de du des la le les l d et ou à au aux en sur par pour".split()
)


@lru_cache(maxsize=8192)
def _title_words(title: str) -> tuple[str, ...]:
    """Folded words, singular: "Playing Spells and Abilities" → (playing, spell, and, ability)."""
    return tuple(map(_singular, _TITLE_WORD.findall(title.translate(DROP_QUOTES).casefold())))


def _singular(word: str) -> str:
    """ "abilities" → "ability", "lands" → "land"; "loss", "its" and short words unchanged."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _subsequence(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    it = iter(long)
    return all(w in it for w in short)


def titles_agree(quoted: str, actual: str) -> bool:
    """True when a quoted title names the same thing as the target's title.

    Compared as folded words, singular or plural alike, quotes ignored (straight,
    curly, or the "?" of a wrong code page); they agree when the words are the same
    (in any order: "Prevention and Replacement Effects" is 419, "Replacement and
    Prevention Effects", 1999), or when one title's words are a part of the other's,
    in order ("Free-for-All" for 806 "Free-for-All Variant", "Continuous Effects" for
    613 "Interaction of Continuous Effects"). "Day and Night" for 727 "Merging with
    Permanents" disagrees.

    >>> titles_agree("Lands", "Land"), titles_agree("Exert", "Goad")
    (True, False)
    """
    q, a = _title_words(quoted), _title_words(actual)
    if not q or not a:
        return False
    if q == a or set(q) == set(a):
        return True
    return _subsequence(q, a) if len(q) < len(a) else _subsequence(a, q)


def _untitled_agrees(quoted: str, text: str) -> bool:
    """A quoted title for a rule without one ("rule 609.7, “Sources of Damage”"): it
    agrees when its words (small words aside) are all words of the rule's text; a
    Chinese one ("规则609.7，“伤害的来源”") when its characters are."""
    if _IS_HAN.search(quoted):  # Chinese: no spaces between words, its characters then
        chars = [c for c in quoted if _IS_HAN.match(c) and c not in _HAN_STOP]
        return bool(chars) and all(c in text for c in chars)
    wanted = [w for w in _title_words(quoted) if w not in _TITLE_STOP]
    if not wanted:
        return False
    words = set(_title_words(text))
    return all(w in words for w in wanted)


#: The small words a quoted Chinese title may add ("伤害的来源").
_HAN_STOP = frozenset("的之与和及或")


def _check_title(
    edition: Edition, target: str, quoted: str, agree: Callable[[str, str], bool] | None = None
) -> tuple[bool, str | None]:
    """(agrees, the title compared against) for a titled reference to ``target``.

    ``agree(quoted, actual)`` compares two titles (:func:`titles_agree`; a caller
    comparing a French quote with an English title passes one that translates); an
    untitled target's words are compared with the quote only in the same language
    (``agree`` not given).
    """
    rule = edition.by_id.get(target)
    if rule is None:
        return True, None
    same = agree or titles_agree
    if rule.title:
        return same(quoted, rule.title), rule.title
    if agree is None and _untitled_agrees(quoted, rule.text):
        return True, None
    parent = rule.parent
    while parent is not None:
        up = edition.by_id.get(parent)
        if up is None:
            break
        if up.title:
            return same(quoted, up.title), up.title
        parent = up.parent
    return False, None


def _glossary_index(edition: Edition) -> dict[str, str]:
    """Glossary key → slug, for every headword, alias and comma-separated part."""
    index: dict[str, str] = {}
    for entry in edition.glossary:
        for name in (entry.term, *entry.aliases):
            index.setdefault(glossary_key(name), entry.slug)
        if "," not in entry.term:
            continue
        parts = [p for p in re.split(r",\s*", entry.term) if p]
        if len(parts) > 1:
            for p in parts:
                index.setdefault(glossary_key(p), entry.slug)
    return index


def _inflections(key: str) -> list[str]:
    """Other numbers of a headword: "counters" → "counter"; "tap" → "taps"."""
    if key.endswith("ies"):
        return [key[:-3] + "y"]
    if key.endswith("es"):
        return [key[:-1], key[:-2]]
    if key.endswith("s"):
        return [key[:-1]]
    return [key + "s"]


def _resolve_glossary(run: list[Reference], text: str, index: dict[str, str]) -> tuple[list[str], list[Reference]]:
    """Slugs of the headwords of one "See …" list, and the headwords not found.

    The whole list may name one entry ("See Active Player, Nonactive Player Order.").
    """
    if len(run) > 1 and (slug := index.get(glossary_key(text[run[0].start : run[-1].end]))):
        return [slug], []
    found: list[str] = []
    missing: list[Reference] = []
    for ref in run:
        key = glossary_key(ref.targets[0])
        slug = index.get(key) or next((index[k] for k in _inflections(key) if k in index), None)
        if slug:
            found.append(slug)
        else:
            missing.append(ref)
    return found, missing


def resolve(edition: Edition) -> Resolution:
    """Resolve every reference of every rule (text and examples) and glossary entry.

    A reference to ``702.37`` resolves if the edition holds that rule, to ``702`` if
    it holds the section, to ``8`` if it holds chapter 8; a glossary headword
    resolves to the entry whose term or alias it names (case and quotes ignored,
    a plural or singular form accepted). The others are listed in ``dangling`` (in
    ``external`` for a fragment, which quotes a few rules and cites the rest). A
    quoted title is checked against its target's title (``titles``). Never raises.
    """
    by_id = edition.by_id
    units: list[tuple[str, int]] = []  # (source, line), one per paragraph
    paragraphs: list[int] = []  # 0: the text, k: the k-th example
    texts: list[str] = []
    for rule in edition.rules:
        if rule.text:
            units.append((rule.id, rule.line))
            paragraphs.append(0)
            texts.append(rule.text)
        for k, t in enumerate(rule.examples, 1):
            units.append((rule.id, rule.line))
            paragraphs.append(k)
            texts.append(t)
    for entry in edition.glossary:
        if entry.text:
            units.append((f"glossary/{entry.slug}", entry.line))
            paragraphs.append(0)
            texts.append(entry.text)
    found_all = extract_many(texts, edition.lang)
    spans: dict[str, list[tuple[int, Reference]]] = {}
    for (source, _line), paragraph, found in zip(units, paragraphs, found_all):
        if found:
            spans.setdefault(source, []).extend((paragraph, ref) for ref in found)

    gindex: dict[str, str] | None = None
    targets: dict[str, dict[str, None]] = {}
    slugs: dict[str, dict[str, None]] = {}
    cites: dict[str, list[Citation | Reference]] = {}  # a glossary Reference until its run is resolved
    missing_all: list[Dangling] = []
    titles: list[TitleMismatch] = []
    unresolved = 0
    count = 0
    name = edition.name
    absent = "external" if edition.kind == "fragment" else "dangling"
    for (source, line), text, found in zip(units, texts, found_all):
        if not found:
            continue
        count += len(found)
        glossary_found = False
        printed = cites.setdefault(source, [])
        for ref in found:
            if ref.kind == "glossary":
                glossary_found = True
                printed.append(ref)  # resolved below, in its "See …" run, kept in place
                continue
            ok = True
            single = len(ref.targets) == 1
            for t in ref.targets:
                if t in by_id:
                    targets.setdefault(source, {})[t] = None
                    citation = Citation(t, ref.kind, "internal", f"{name}/{t}", ref.title if single else None)
                else:
                    ok = False
                    missing_all.append(Dangling(source, t, line, ref.kind, text[ref.start : ref.end]))
                    citation = Citation(t, ref.kind, absent, None, ref.title if single else None)
                printed.append(citation)
            unresolved += not ok
            if ref.title is not None and ok and single:
                agrees, actual = _check_title(edition, ref.targets[0], ref.title)
                printed[-1] = citation._replace(title_agrees=agrees)
                if not agrees:
                    titles.append(
                        TitleMismatch(source, ref.targets[0], line, ref.title, actual, text[ref.start : ref.end])
                    )
        if not glossary_found:
            continue
        if gindex is None:
            gindex = _glossary_index(edition)
        done: dict[int, list[Citation]] = {}
        for run in _runs([r for r in found if r.kind == "glossary"], text):
            found_slugs, missing = _resolve_glossary(run, text, gindex)
            for slug in found_slugs:
                if source != f"glossary/{slug}":
                    slugs.setdefault(source, {})[slug] = None
            unresolved += len(missing)
            missing_all.extend(Dangling(source, r.targets[0], line, "glossary", text[r.start : r.end]) for r in missing)
            # one citation per entry named ("See Active Player, Nonactive Player Order." names one)
            named = [Citation(r.targets[0], "glossary", absent) for r in missing]
            if found_slugs:
                headword = text[run[0].start : run[-1].end] if len(found_slugs) == 1 and len(run) > 1 else None
                found_refs = [r for r in run if r not in missing] if headword is None else [run[0]]
                named = [
                    Citation(headword or r.targets[0], "glossary", "internal", f"{name}/glossary/{slug}")
                    for r, slug in zip(found_refs, found_slugs)
                ] + named
            done[id(run[0])] = sorted(named, key=lambda c: text.find(c.target))
        printed[:] = [
            c for item in printed for c in ((item,) if isinstance(item, Citation) else done.get(id(item), ()))
        ]

    refs = {k: tuple(v) for k, v in targets.items() if not k.startswith("glossary/")}
    glossary_refs = {k.removeprefix("glossary/"): tuple(v) for k, v in targets.items() if k.startswith("glossary/")}
    links = {k: tuple(v) for k, v in slugs.items()}
    fragment = edition.kind == "fragment"
    return Resolution(
        edition.name,
        refs,
        glossary_refs,
        links,
        dangling=[] if fragment else missing_all,
        count=count,
        external=missing_all if fragment else [],
        titles=titles,
        unresolved=unresolved,
        cites={k: tuple(c for c in v if isinstance(c, Citation)) for k, v in cites.items() if v},
        spans={k: tuple(v) for k, v in spans.items()},
    )


def resolve_external(
    resolution: Resolution, target: Edition, agree: Callable[[str, str], bool] | None = None
) -> Resolution:
    """``resolution`` with its ``external`` citations resolved in the edition ``target``.

    A fragment quotes a few rules and cites others: seed 000 (French, 2002) cites
    "règle 416, "Effets"", which ``en/2002-10-07`` holds as 416 "Effects". Each
    external rule, section or chapter citation whose target ``target`` holds gets
    ``resolved = "{target.name}/{number}"``, and, when a title is quoted, whether it
    names that rule's title: ``agree(quoted, title)`` (:func:`titles_agree` when not
    given; pass a comparison that translates when the languages differ). External
    glossary headwords and targets ``target`` does not hold stay unresolved; the
    status stays ``external``. Returns a new :class:`Resolution`; never raises.
    """
    by_id = target.by_id
    out: dict[str, tuple[Citation, ...]] = {}
    for source, citations in resolution.cites.items():
        changed = []
        for c in citations:
            if c.status == "external" and c.kind != "glossary" and c.target in by_id:
                agrees = None
                if c.title is not None:
                    agrees = _check_title(target, c.target, c.title, agree)[0]
                c = c._replace(resolved=f"{target.name}/{c.target}", title_agrees=agrees)
            changed.append(c)
        out[source] = tuple(changed)
    from dataclasses import replace

    return replace(resolution, cites=out)


_RUN_GAP = re.compile(r"[\s,，、]*(?:and|et|和|及|以及)?\s*")


def _runs(refs: list[Reference], text: str) -> list[list[Reference]]:
    """Group glossary references printed in one "See …" list."""
    runs: list[list[Reference]] = []
    for r in refs:
        if runs and _RUN_GAP.fullmatch(text, runs[-1][-1].end, r.start):
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs
