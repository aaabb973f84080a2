"""What a document without an effective date is: its title, its kind, the rules it quotes.

A fragment (a forum thread quoting rules, a rulebook extract, a few pasted sections)
has no title of its own in the file system: its file stem is a hash
(``004_99dc3338bd3ea994``). :func:`describe` reads one from the parsed document:

* the **title** is the document's own heading when its first unit is one (a forum
  thread's subject "Capacité=effet ?", a section "602. Capacités", a rulebook page
  "Les capacités"), else the titles of the rules it quotes ("Offrande, Ninjutsu,
  Folie, Mue"), else its first words; never the file stem, unless the document holds
  no text at all;
* the **kind**: ``rulebook`` (keyword headings of a rulebook, read as its glossary),
  ``forum`` (forum talk around the quoted rules, read as notes), ``rules`` (rules
  and paragraphs only: an extract of the Comprehensive Rules);
* the **quotes**: the sections and rules it prints, with their titles, in order;
* the **dates** printed in its forum furniture ("Le 18/08/2006, … avait écrit",
  "[ Edité par Sacha Le 21 mai 2005 ]"), months named by the language table.

An ``editions.toml`` title, when given, wins (:func:`comprules.corpus.load.parse_file`).

>>> from comprules.model import Rule
>>> def unit(id, kind, text, title=None): return Rule(id, id, kind, text, 1, title=title)
>>> d = describe([unit("¶1", "note", "pour l'offrande :"), unit("502.42", "rule", "Offrande", "Offrande"),
...               unit("¶2", "note", "[ Edité par Sacha Le 21 mai 2005 ]")], (), "fr")
>>> d.title, d.kind, d.quotes, d.dates
('Offrande', 'forum', (('502.42', 'Offrande'),), (datetime.date(2005, 5, 21),))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from .. import languages
from ..model import GlossaryEntry, Rule
from .fragment import is_chatter, noise_kind

__all__ = ["Description", "describe", "document_title"]

#: A heading is at most this long (characters) and one line.
HEADING_LENGTH = 90
#: Titles of quoted rules joined into a title: at most this many.
TITLE_RULES = 4
#: A title made of the first words: at most this many characters.
FIRST_WORDS = 60

_HEADING_END = tuple(".:;,")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_WORD_DATE = re.compile(r"\b(\d{1,2})(?:er)?\s+([^\W\d_]+)\s+(\d{4})\b")


@dataclass(frozen=True)
class Description:
    """The facts a site or a listing shows about one document.

    ``kind`` is ``rulebook``, ``forum`` or ``rules``; ``quotes`` the ``(number,
    title or "")`` of each section and rule printed, in document order (subrules
    left out); ``terms`` the rulebook headings ("Peur", "Vol"); ``dates`` the dates
    its forum furniture prints, in order of appearance.
    """

    title: str
    kind: str
    quotes: tuple[tuple[str, str], ...] = ()
    terms: tuple[str, ...] = ()
    dates: tuple[date, ...] = ()


def describe(rules: Sequence[Rule], glossary: Sequence[GlossaryEntry], lang: str, fallback: str = "") -> Description:
    """The :class:`Description` of a fragment from its units (``Edition.rules``) and
    rulebook headings (``Edition.glossary``); ``fallback`` (the file stem) is the
    title of a document with no text at all."""
    quotes = tuple((r.number, r.title or "") for r in rules if r.kind in ("section", "rule"))
    notes = [r for r in rules if r.kind == "note"]
    heading = _heading(rules)
    talk = [n for n in notes if heading is None or n.id != heading.id]
    if glossary:
        kind = "rulebook"
    elif talk:
        kind = "forum"
    else:
        kind = "rules"
    return Description(
        title=document_title(rules, glossary, fallback, heading=heading),
        kind=kind,
        quotes=quotes,
        terms=tuple(g.term for g in glossary),
        dates=tuple(_dates(notes, lang)),
    )


def document_title(
    rules: Sequence[Rule], glossary: Sequence[GlossaryEntry], fallback: str = "", *, heading: Rule | None = None
) -> str:
    """The title of a fragment (see the module's docstring for the order of choices)."""
    heading = heading if heading is not None else _heading(rules)
    if heading is not None:
        if heading.kind == "section":
            return f"{heading.number}. {heading.title or heading.text}".strip()
        return heading.text.strip()
    titled = [r.title for r in rules if r.kind in ("section", "rule") and r.title]
    if titled:
        shown = list(dict.fromkeys(titled))
        return ", ".join(shown[:TITLE_RULES]) + (", …" if len(shown) > TITLE_RULES else "")
    if glossary:
        return ", ".join(g.term for g in glossary[:TITLE_RULES]) + (", …" if len(glossary) > TITLE_RULES else "")
    for r in rules:
        if r.text.strip():
            return _first_words(r.text)
    return fallback


def _heading(rules: Sequence[Rule]) -> Rule | None:
    """The first unit when it reads as the document's heading: one short line, no
    sentence end (a question mark is a thread's subject), not forum furniture."""
    if not rules:
        return None
    first = rules[0]
    text = (first.title if first.kind == "section" and first.title else first.text).strip()
    if first.kind not in ("note", "passage", "section") or not text:
        return None
    if first.kind == "section":
        return first
    if len(text) > HEADING_LENGTH or "\n" in text or text.endswith(_HEADING_END):
        return None
    if noise_kind(text) is not None or (is_chatter(text) and not text.endswith("?")):
        return None
    return first


def _first_words(text: str) -> str:
    words = " ".join(text.split())
    if len(words) <= FIRST_WORDS:
        return words
    cut = words[:FIRST_WORDS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"


def _dates(notes: Sequence[Rule], lang: str) -> list[date]:
    """The dates printed in forum furniture (quote headers, edit stamps), in order."""
    months = languages.get(lang).months
    out: list[date] = []
    for note in notes:
        if noise_kind(note.text) is None:
            continue
        for m in _NUMERIC_DATE.finditer(note.text):
            _add(out, int(m.group(3)), int(m.group(2)), int(m.group(1)))
        for m in _WORD_DATE.finditer(note.text):
            month = months.get(m.group(2).casefold())
            if month:
                _add(out, int(m.group(3)), month, int(m.group(1)))
    return out


def _add(out: list[date], year: int, month: int, day: int) -> None:
    try:
        when = date(year, month, day)
    except ValueError:
        return
    if when not in out:
        out.append(when)
