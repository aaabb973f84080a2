"""Lossy sources repaired from their neighbours: a "?" where the CR printed ’ “ ” — é (issue 22).

Some published files lost every character outside one code page on their way to us:
en/2008-05-01 prints "can?t", "?Morph [cost]?" and "Magic?" (4,755 "?" where the editions
before and after print quotes, apostrophes, dashes and marks of trade), en/2009-05-01 has
"?" for dashes. Each such "?" then shows as a typography change in every history and
bulletin crossing it.

The "?" of a rule's text, title or example, or of a glossary entry's headword, text or
numbered senses, are put back from a neighbouring edition of the same language (the one
before or the one after in effective date) that prints the same unit (same id, same
slug) with the same characters around each "?" and, in its place, a character a
one-code-page conversion loses (:func:`restorable`), a dash or a mark of trade spelt out:
the two texts are aligned character by character with rapidfuzz's Levenshtein opcodes
(:func:`restore_text`). A unit is repaired whole, from the one neighbour that explains
every "?" of it, or not at all; a "?" the neighbour prints too stays ("default.asp?x="
of a web address). What was printed is kept (:class:`~comprules.model.Restoration`):
``comprules show --raw``, the export's ``restored`` list, the database's
``restorations``. An edition left with many "?" between letters is said to be lossy
(:func:`lost_marks`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import replace

from rapidfuzz.distance import Levenshtein

from ..model import Edition, GlossaryEntry, Restoration, Rule

#: The ASCII characters a neighbour may print for what a lossy file wrote as "?": the
#: editions of 2008 around en/2008-05-01 print straight quotes and hyphens where later
#: ones print ’ “ ” —.
ASCII_STAND_INS = frozenset("'\"-")


def restorable(ch: str) -> bool:
    """Whether a neighbour's character may stand for a "?": any character outside ASCII
    (’ “ ” — ® é: what a conversion to one code page loses), or a straight quote or
    hyphen (:data:`ASCII_STAND_INS`); not a letter, digit or other ASCII mark, which
    a "?" of the source would be an edit of, not a loss.

    >>> [restorable(c) for c in ("’", "—", "é", "'", '"', ".", "?", "a")]
    [True, True, True, True, True, False, False, False]
    """
    return ord(ch) > 127 and unicodedata.category(ch)[0] in "LPS" or ch in ASCII_STAND_INS


def restore_text(raw: str, neighbours: Sequence[tuple[str, str]]) -> tuple[str, dict[str, int]]:
    """``raw`` with its "?" put back from the neighbour that explains every one of them
    and puts back the most (``(name, text)`` pairs; the first of equals), and how many
    came from it; ``raw`` unchanged when none does. A neighbour explains a "?" that it
    prints too (a question mark), or where it prints, at the same place between the same
    characters, one
    :func:`restorable` character, a dash (" -- ", "—") or a mark of trade ("(TM)"). A
    unit is repaired whole, from one edition, or not at all: no text mixes the quotes of
    two editions or keeps half of its "?".

    >>> restore_text("it can?t be ?blocked?", [("en/a", "it can’t be “blocked”")])
    ('it can’t be “blocked”', {'en/a': 3})
    >>> restore_text('says ?Untap it??a cost', [("en/a", 'says "Untap it" -- a cost')])
    ('says "Untap it" -- a cost', {'en/a': 3})
    >>> restore_text("what? now", [("en/a", "what? now")])
    ('what? now', {})
    >>> restore_text("?a? and ?b?", [("en/a", "“a” and ?b?"), ("en/b", "“a” and “b”")])
    ('“a” and “b”', {'en/b': 4})
    """
    if "?" not in raw:
        return raw, {}
    best: tuple[str, dict[int, str]] | None = None
    for name, text in neighbours:
        if not text or text == raw:
            continue
        # every "?" is in a run both print (kept) or in a block where they differ, which
        # _explained reads whole or refuses: a reading explains every "?" of the unit
        put = _explained(raw, text)
        if put and (best is None or len(put) > len(best[1])):
            best = (name, put)
    if best is None:
        return raw, {}
    chars = list(raw)
    for i, piece in best[1].items():
        chars[i] = piece
    return "".join(chars), {best[0]: len(best[1])}


#: What a neighbour may print for one "?" beside its single characters: a dash as the
#: editions of 2008–2009 write it, a mark of trade spelt out.
_PIECES = re.compile(r" ?-- ?| ?— ?|\(TM\)|\(R\)|\(tm\)|\(r\)|.", re.S)
#: How the editions around a lossy one write a dash the lossy file wrote as one "?".
DASHES = frozenset({"--", "-", "—", "–"})


def _explained(raw: str, text: str) -> dict[int, str] | None:
    """Position of a "?" of ``raw`` → what ``text`` prints in its place, for every block
    where the two differ only by "?" standing for such pieces; ``None`` when a block
    holding a "?" cannot be read so (the neighbour says something else there)."""
    put: dict[int, str] = {}
    for i1, i2, j1, j2 in _differences(raw, text):
        mine, theirs = raw[i1:i2], text[j1:j2]
        if "?" not in mine:
            continue
        if set(mine) != {"?"}:
            return None
        pieces = _PIECES.findall(theirs.replace("_", ""))  # 2008-07-15 marks italics "_Odyssey_(TM)"
        if len(pieces) != len(mine) or not all(_fits(p) for p in pieces):
            return None
        for i, piece in zip(range(i1, i2), pieces):
            put[i] = piece
    return put


def _fits(piece: str) -> bool:
    return (len(piece) == 1 and restorable(piece)) or piece.strip() in DASHES or piece.lower() in ("(tm)", "(r)")


def _differences(a: str, b: str) -> list[tuple[int, int, int, int]]:
    """The blocks where ``a`` and ``b`` differ, between two runs of equal characters:
    (start, end in ``a``, start, end in ``b``)."""
    out: list[tuple[int, int, int, int]] = []
    block: list[int] | None = None
    for op in Levenshtein.opcodes(a, b):
        if op.tag == "equal":
            if block:
                out.append((block[0], block[1], block[2], block[3]))
            block = None
        elif block is None:
            block = [op.src_start, op.src_end, op.dest_start, op.dest_end]
        else:
            block[1], block[3] = op.src_end, op.dest_end
    if block:
        out.append((block[0], block[1], block[2], block[3]))
    return out


def restore_editions(editions: Iterable[Edition]) -> list[Edition]:
    """The editions, each lossy one replaced by its repaired copy (same order); an edition
    without a "?" to put back is returned as it was. Neighbours are the editions of the
    same language next to it by effective date (documents without a date have none)."""
    editions = list(editions)
    by_lang: dict[str, list[Edition]] = {}
    for e in editions:
        if e.effective is not None and e.kind == "edition":
            by_lang.setdefault(e.lang, []).append(e)
    around: dict[str, list[Edition]] = {}
    for group in by_lang.values():
        group.sort(key=lambda e: e.effective)  # type: ignore[arg-type, return-value]
        for i, e in enumerate(group):
            around[e.name] = [
                x for x in (group[i - 1] if i else None, group[i + 1] if i + 1 < len(group) else None) if x
            ]
    return [_restored(e, around.get(e.name, [])) for e in editions]


def _restored(edition: Edition, neighbours: list[Edition]) -> Edition:
    if not neighbours:
        return edition
    done: list[Restoration] = []

    def fix(unit: str, part: str, raw: str, texts: list[tuple[str, str]], record: bool = True) -> str:
        text, counts = restore_text(raw, texts)
        if counts and record:
            done.append(Restoration(unit, part, raw, sum(counts.values()), tuple(sorted(counts))))
        return text

    rules: list[Rule] = []
    for rule in edition.rules:
        if "?" not in rule.text and "?" not in (rule.title or "") and not any("?" in x for x in rule.examples):
            rules.append(rule)
            continue
        others = [(n.name, n.by_id.get(rule.id)) for n in neighbours]
        mine = [(name, r) for name, r in others if r is not None and r.kind == rule.kind]
        text = fix(rule.id, "text", rule.text, [(name, r.text) for name, r in mine])
        title = rule.title
        if title and "?" in title:
            title = fix(rule.id, "title", title, [(name, r.title or "") for name, r in mine])
        examples = tuple(
            fix(rule.id, f"example {k}", x, [(name, r.examples[k - 1]) for name, r in mine if len(r.examples) >= k])
            if "?" in x
            else x
            for k, x in enumerate(rule.examples, 1)
        )
        rules.append(replace(rule, text=text, title=title, examples=examples))
    glossary: list[GlossaryEntry] = []
    for entry in edition.glossary:
        if "?" not in entry.text and "?" not in entry.term and not any("?" in x for x in entry.senses):
            glossary.append(entry)
            continue
        unit = f"glossary:{entry.slug}"
        entries = [(n.name, n.glossary_by_slug.get(entry.slug)) for n in neighbours]
        found = [(name, g) for name, g in entries if g is not None]
        text = fix(unit, "text", entry.text, [(name, g.text) for name, g in found]) if "?" in entry.text else entry.text
        term = entry.term
        if "?" in term:
            term = fix(unit, "term", term, [(name, g.term) for name, g in found])
        senses = tuple(  # the text holds them too: the characters are counted there once
            fix(unit, "sense", x, [(name, g.senses[k - 1]) for name, g in found if len(g.senses) >= k], False)
            if "?" in x
            else x
            for k, x in enumerate(entry.senses, 1)
        )
        glossary.append(replace(entry, text=text, term=term, senses=senses))
    if not done:
        return edition
    return replace(edition, rules=tuple(rules), glossary=tuple(glossary), restored=tuple(done))


#: A "?" between two letters ("can?t"), the mark of a lossy source, found from the "?"
#: itself (the look-behind runs only there: the 74 English editions in 0.02 s, where a
#: pattern starting with a letter took 0.9 s).
_LOST = re.compile(r"\?(?<=[^\W\d_]\?)(?=[^\W\d_])")
#: From this many such marks left, the build says the source looks lossy.
LOSSY = 20


def lost_marks(edition: Edition) -> int:
    """How many "?" between two letters the edition still prints (after any repair):
    "can?t", "Odyssey?s"; a web address's "default.asp?x=" counts too (a handful)."""
    # one search over the texts joined by line feeds (no letter: no match spans two texts)
    texts = [t for rule in edition.rules for t in (rule.text, rule.title or "", *rule.examples)]
    texts += [entry.text for entry in edition.glossary]
    joined = "\n".join(texts)
    return len(_LOST.findall(joined)) if "?" in joined else 0


def lost_example(edition: Edition) -> str:
    """The first "?" between letters the edition prints outside a web address, with the
    word around it as printed ("can?t" in 2008-05-01, a lost apostrophe; "cards?even" in 2009-05-01, a lost
    dash); ``""`` when there is none."""
    for rule in edition.rules:
        for text in (rule.text, rule.title or "", *rule.examples):
            if "?" not in text:
                continue
            for m in _LOST.finditer(text):  # the run of characters around it, up to spaces
                start = text.rfind(" ", 0, m.start()) + 1
                end = text.find(" ", m.end())
                run = text[start : end if end >= 0 else len(text)]
                if "=" not in run and "/" not in run:  # not a web address's "default.asp?x="
                    return run.strip('.,;:()"“”')
    return ""
