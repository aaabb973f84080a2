"""What a fragment document holds besides rules: forum noise, rulebook headings, PDF debris.

Real users paste rules from forums and rulebooks (the seeds). :mod:`.parse` reads
their numbered rules; this module tells it what the other lines are:

* :func:`noise_kind`: a line that is forum furniture, never rule text: a quote header
  ("Le 18/08/2006, Joueur42 avait écrit ...", "Bob wrote:"), an edit stamp
  ("[ Edité par Sacha Le 21 mai 2005 ]"), an author line ("Auteur : Mr Manchot");
* :func:`is_signature_rule`: the phpBB signature separator "_________________" (what
  follows it is a signature);
* :func:`is_heading`: a rulebook keyword heading ("Peur", "Protection contre"): short,
  capitalised, no sentence punctuation;
* :func:`repair_line`: PDF artefacts inside text. The symbol font of Wizards' PDF
  rulebooks comes out as "o" + the symbol's letter ("oT" for the tap symbol {T});
  a page number lands in the middle of a sentence ("ses capacités 20 activées").
  Unambiguous cases are repaired, doubtful ones only flagged.

Each function is pure and cheap; nothing here raises.
"""

from __future__ import annotations

import re

__all__ = ["noise_kind", "is_signature_rule", "is_heading", "is_chatter", "repair_line", "Repair"]

_NOISE = (
    # "Le 18/08/2006, Joueur42 avait écrit ...", "Le 18/08/2006 à 12:03, X a écrit :"
    ("quote-header", re.compile(r"^Le \d{1,2}/\d{1,2}/\d{2,4}\b.{0,80}?\b(?:a|avait) écrit\b", re.I)),
    ("quote-header", re.compile(r"^\S.{0,60}?\b(?:a|avait) écrit ?(?::|\.\.\.|…)\s*$", re.I)),
    ("quote-header", re.compile(r"^(?:On .{1,60}?, )?\S.{0,60}?\bwrote ?(?::|\.\.\.|…)\s*$", re.I)),
    ("quote-header", re.compile(r"^(?:Citation|Quote)(?: de| from)?[^:]{0,60}:?\s*$", re.I)),
    # "[ Edité par Sacha Le 21 mai 2005 ]", "Last edited by X on …"
    ("edit-stamp", re.compile(r"^\[\s*(?:[ÉE]dit[ée]|Modifi[ée]|Edited|Last edited) (?:par|by)\b.*\]\s*$", re.I)),
    ("edit-stamp", re.compile(r"^(?:Derni[èe]re (?:[ée]dition|modification)|Last edited|Edited) (?:par|by)\b", re.I)),
    # "Auteur : Mr Manchot", "Posté par …", "Author: …"
    ("author", re.compile(r"^(?:Auteur|Author|Post[ée] par|Posted by|Message de)\s*:?\s+\S.{0,60}$", re.I)),
)
_SIGNATURE = re.compile(r"^\s*(?:_{5,}|--)\s*$")
_HEADING_END = frozenset('.:;!?,)»”"')


def noise_kind(line: str) -> str | None:
    """``"quote-header"``, ``"edit-stamp"``, ``"author"``, or ``None`` for other text.

    >>> noise_kind("Le 18/08/2006, Joueur42 avait écrit ..."), noise_kind("[ Edité par Sacha Le 21 mai 2005 ]")
    ('quote-header', 'edit-stamp')
    """
    s = line.strip()
    if not s or len(s) > 160:
        return None
    for kind, pattern in _NOISE:
        if pattern.search(s):
            return kind
    return None


def is_signature_rule(line: str) -> bool:
    """True for a signature separator: a line of five or more underscores, or "--"."""
    return _SIGNATURE.match(line) is not None


def is_heading(line: str) -> bool:
    """A rulebook keyword heading: one to four words, capitalised, no sentence punctuation.

    "Peur", "Double initiative", "Protection contre" are; "Les exceptions sont les
    suivantes :" and "pour l'offrande :" are not.
    """
    s = line.strip()
    if not s or not s[0].isupper() or s[-1] in _HEADING_END or any(c.isdigit() for c in s):
        return False
    return len(s.split()) <= 4 and len(s) <= 40


def is_chatter(text: str) -> bool:
    """Forum talk rather than quoted rule text: starts in lower case or asks a question.

    Rule paragraphs (of the CR or of a rulebook) start with a capital or a quote and
    never end with a question mark.
    """
    s = text.strip().lstrip("\"«“'(")
    return bool(s) and (s[0].islower() or text.rstrip().endswith("?"))


# --- PDF artefacts ---------------------------------------------------------------

#: "oT", "oQ", "oW", "o2", "oWoU": the rulebook symbol font read as text. A whole
#: token made only of such pairs is unambiguous.
_SYMBOLS = re.compile(r"(?<![\w{])((?:o(?:[TQWUBRGCXS]|1?[0-9]))+)(?![\w}])")
_SYMBOL_PAIR = re.compile(r"o([TQWUBRGCXS]|1?[0-9])")
#: An "o" + capital glued to a word ("comporteoT"): maybe a symbol, maybe not.
_GLUED_SYMBOL = re.compile(r"(?<=[a-zà-ÿ])o[TQ](?![\w}])|(?<![\w{])o[TQ](?=[a-zà-ÿ])")
#: A page number inside a French sentence: a bare number between two lower-case
#: words, followed by a participle or adjective with no noun for it to count
#: ("ses capacités 20 activées"). French puts a cardinal before its noun, so a number
#: directly before "activées" is no quantity.
_PAGE_NUMBER = re.compile(r"(?<=[a-zà-ÿ]) (\d{1,3}) (?=[a-zà-ÿ]+(?:ée?s?|ante?s?|ive?s?)\b)")
#: Words after which a bare number does count something ("les 2 ciblées").
_COUNTING = frozenset(
    "les des ces ses mes tes nos vos leurs aux de à a en et ou sur par pour "
    "inflige infligez perd perdez gagne gagnez piochez pioche payez paye".split()
)
_LONE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")
#: A cost or ability quoted with its symbols lost: '" : Ajoutez', '", Sacrifiez'.
_LOST_SYMBOL = re.compile(r"(?:^|(?<=[\s(]))[\"«“]\s?[:,]\s")


class Repair:
    """One artefact found in a line: ``kind`` is ``repaired-artefact`` (fixed) or
    ``suspect-artefact`` / ``lost-symbol`` (flagged only); ``message`` says what."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str):
        self.kind, self.message = kind, message

    def __repr__(self) -> str:
        return f"Repair({self.kind!r}, {self.message!r})"


def _symbols(token: str) -> str:
    return "".join(f"{{{m.group(1)}}}" for m in _SYMBOL_PAIR.finditer(token))


def repair_line(line: str, lang: str = "fr") -> tuple[str, list[Repair]]:
    """Repair the PDF artefacts of one line of a fragment; flag the doubtful ones.

    - "oT" (a whole token) → "{T}"; likewise "oQ", mana "oW"… and "o2": repaired;
    - a line holding only a number (a page number on its own line) → empty: repaired;
    - in French, a number between a noun and a participle ("capacités 20 activées")
      → removed: repaired; after a counting word ("les 2 ciblées") only flagged;
    - "oT" glued to a word, and a quoted cost whose symbols were lost
      ('" : Ajoutez …') are flagged.

    >>> repair_line("ses capacités 20 activées dont le coût comporte oT.")[0]
    'ses capacités activées dont le coût comporte {T}.'
    """
    found: list[Repair] = []
    if "o" in line and _SYMBOLS.search(line):

        def symbol(m: re.Match[str]) -> str:
            fixed = _symbols(m.group(1))
            found.append(Repair("repaired-artefact", f"{m.group(1)!r} read as {fixed}"))
            return fixed

        line = _SYMBOLS.sub(symbol, line)
    if _LONE_NUMBER.match(line):
        found.append(Repair("repaired-artefact", f"page number {line.strip()!r} removed"))
        return "", found
    if lang == "fr" and any(c.isdigit() for c in line):

        def page(m: re.Match[str]) -> str:
            before = line[: m.start()].rsplit(None, 1)
            word = before[-1].lower() if before else ""
            if word in _COUNTING:
                found.append(Repair("suspect-artefact", f"number {m.group(1)!r} after {word!r} may be a page number"))
                return m.group(0)
            found.append(Repair("repaired-artefact", f"page number {m.group(1)!r} removed from a sentence"))
            return " "

        line = _PAGE_NUMBER.sub(page, line)
    if _GLUED_SYMBOL.search(line):
        found.append(Repair("suspect-artefact", "'oT' glued to a word: a tap symbol?"))
    m = _LOST_SYMBOL.search(line)
    if m:
        found.append(Repair("lost-symbol", f"quoted text starts with {m.group(0).strip()!r}: its symbols were lost"))
    return line, found
