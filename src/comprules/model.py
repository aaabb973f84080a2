"""The knowledge base's model: immutable dataclasses handed from stage to stage.

Vocabulary follows the Comprehensive Rules (CR) themselves and ``DESIGN.md``: an
*edition* is one published version of the CR in one language; a *document* is one
source file (an edition, or a fragment such as a forum post); an edition holds
*rules* (chapters, sections, rules, subrules, and positional passages of fragments)
and *glossary entries*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property, lru_cache
from typing import Any

from .errors import UsageError, echo

#: Kinds of numbered or positional units, from the coarsest to the finest.
#: ``passage`` is an unnumbered paragraph of a fragment document (``602¶1``).
#: ``note`` is fragment text that is not rule text (forum chatter, quote headers).
RULE_KINDS = ("chapter", "section", "rule", "subrule", "passage", "note")

_NUMBER = re.compile(r"^(\d)(?:(\d\d)(?:\.(\d+)([a-z]{0,2}))?)?$")


def number_kind(number: str) -> str:
    """Return ``chapter``, ``section``, ``rule`` or ``subrule`` for a printed number.

    ``"7"`` → chapter, ``"702"`` → section, ``"702.37"`` → rule, ``"704.5aa"`` → subrule.
    Raises ``ValueError`` for anything else (``"702.37~2"`` must be split first).
    """
    m = _NUMBER.match(number)
    if not m:
        raise ValueError(f"not a rule number: {number!r}")
    if m.group(2) is None:
        return "chapter"
    if m.group(3) is None:
        return "section"
    return "subrule" if m.group(4) else "rule"


def section_filter(section: object) -> str:
    """The section (``702``) or chapter (``7``) a search or diff is restricted to, from
    ``section`` as a user wrote it (``702.`` too; full-width digits ``７０２`` as the ASCII
    ones, NFKC, as :func:`normalize_number` reads them). Raises :class:`ValueError` with
    the one-line message for anything else (``abc``, ``70``, ``702.1``, digits of another
    script).

    >>> section_filter(" 702. "), section_filter("７０２"), section_filter("7")
    ('702', '702', '7')
    """
    import unicodedata

    text = unicodedata.normalize("NFKC", str(section)).strip().rstrip(".")
    if not (text.isascii() and text.isdigit() and len(text) in (1, 3)):
        raise ValueError(f"bad section {text!r} (a section such as 702, or a chapter such as 7)")
    return text


def parent_number(number: str) -> str | None:
    """The number one level up: ``704.5aa`` → ``704.5`` → ``704`` → ``7`` → ``None``."""
    if "¶" in number:
        return number.split("¶", 1)[0]
    m = _NUMBER.match(number.split("~", 1)[0])
    if not m:
        return None
    chapter, section, rule, letters = m.groups()
    if letters:
        return f"{chapter}{section}.{rule}"
    if rule is not None:
        return f"{chapter}{section}"
    if section is not None:
        return chapter
    return None


#: Underscore italics of the 2008–2014 text editions: ``_Magic_``, ``__Magic: The
#: Gathering__`` (2010-07-16), ``_Odyssey_TM`` (2009-07-11, the mark glued on). Not a
#: blank to fill (``Wolf in ________ Clothing``) nor a name inside a URL (``UTR_MTG``).
EMPHASIS = re.compile(r"(?<![\w])(__?)([^\s_](?:[^_\n]*?[^\s_])?)\1(?=TM\b|\(|[^\w]|$)")
#: A symbol of the 2003–04 symbol font: ``{o3}``, ``{oT}`` (``{3}``, ``{T}`` in later editions).
SYMBOL_FONT = re.compile(r"\{o([^}\s]{1,2})\}")
#: The closing underscore alone before a mark: ``the Oracle_(TM) card reference`` (2008–2013).
_MARK_UNDERSCORE = re.compile(r"(?<=\w)_(?=\((?:TM|R)\))")


def read_symbol_font(text: str) -> str:
    """The 2003–04 symbol font read as the symbols it stands for: ``{o3}`` → ``{3}``,
    ``{oT}`` → ``{T}``, as every later edition prints them."""
    return SYMBOL_FONT.sub(r"{\1}", text) if "{o" in text else text


def plain_text(text: str) -> str:
    """The text without the underscore italics of 2008–2014: what search and alignment see.

    The parser keeps every text as printed (``These _Magic_ rules``); the site renders
    the underscores as emphasis; whatever compares or indexes words calls this first.
    Blanks (``Wolf in ________ Clothing``) and underscores inside words or URLs
    (``UTR_MTG.asp``) are kept; a lone underscore glued before a mark goes
    (``Oracle_(TM)`` → ``Oracle(TM)``). "(TM)", "™" and quotes are left as printed.

    The 2003–04 symbol font is read as the symbols it stands for (``{o3}`` → ``{3}``,
    as every later edition prints it; the site renders it so too).

    >>> plain_text("These _Magic_ rules; the __Magic: The Gathering__ rules; _Odyssey_TM cards")
    'These Magic rules; the Magic: The Gathering rules; OdysseyTM cards'
    >>> plain_text("Add {oG} for {o2}{oT}")
    'Add {G} for {2}{T}'
    """
    text = read_symbol_font(text)
    if "_" not in text:
        return text
    return _MARK_UNDERSCORE.sub("", EMPHASIS.sub(r"\2", text))


def letters_value(letters: str) -> int:
    """Order of subrule letters: ``a`` < … < ``z`` < ``aa`` < ``ab`` (bijective base 26)."""
    value = 0
    for ch in letters:
        value = value * 26 + (ord(ch) - 96)
    return value


def sort_key(number: str) -> tuple[int | str, ...]:
    """Sort key for printed numbers and ids.

    ``702.9`` < ``702.10``; ``704.5z`` < ``704.5aa``; ``702.175`` < ``702.175~2``;
    positional ids ``602¶2`` < ``602¶10`` sort after the section's numbered rules.
    Unknown shapes sort last, by their text.
    """
    base, _, dup = number.partition("~")
    dup_n = int(dup) if dup.isdigit() else (1 if not dup else 0)
    if "¶" in base:
        sec, _, pos = base.partition("¶")
        head = sort_key(sec)
        return (*head[:-2], 10**9, int(pos) if pos.isdigit() else 0, dup_n)
    m = _NUMBER.match(base)
    if not m:
        return (10, 0, 0, 0, base, dup_n)
    chapter, section, rule, letters = m.groups()
    return (
        int(chapter),
        int(section) if section else -1,
        int(rule) if rule else -1,
        letters_value(letters or ""),
        "",
        dup_n,
    )


@dataclass(frozen=True, slots=True)
class Rule:
    """One numbered unit of an edition: chapter, section, rule, subrule or passage.

    ``id`` is unique inside the edition: the printed ``number``, or ``number~2``… for
    the later copies of a duplicated number (kept, both, with a warning), or a
    positional id ``602¶3`` for unnumbered paragraphs of a fragment document.
    ``line`` is the 1-based line in the decoded source where the unit starts.
    """

    id: str
    number: str
    kind: str
    text: str
    line: int
    title: str | None = None
    examples: tuple[str, ...] = ()
    parent: str | None = None
    section: str | None = None
    chapter: str | None = None

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # pickled as a call with the fields in order: 4× faster to load than the
        # dataclass's own __setstate__ (a Python loop a rule; 133 k rules cross the
        # parse's processes and its cache, comprules.corpus.cache)
        return (
            Rule,
            (
                self.id,
                self.number,
                self.kind,
                self.text,
                self.line,
                self.title,
                self.examples,
                self.parent,
                self.section,
                self.chapter,
            ),
        )


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """One glossary entry: headword, aliases ("Control, Controller"), senses.

    ``senses`` holds the numbered senses ("1. …", "2. …") or a single sense; ``text`` is
    the definition as printed (senses joined by newlines). ``obsolete`` is true for
    entries marked "(Obsolete)" / "（已废止）", which the CR keeps for older cards'
    wording. ``note`` is a translator's note printed after a translated headword
    ("译注：…", after 反击/指示物), kept apart from the headword.
    """

    term: str
    aliases: tuple[str, ...]
    obsolete: bool
    senses: tuple[str, ...]
    text: str
    line: int
    slug: str
    note: str | None = None

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # as Rule's: a call, not the dataclass's __setstate__
        return (
            GlossaryEntry,
            (self.term, self.aliases, self.obsolete, self.senses, self.text, self.line, self.slug, self.note),
        )


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """Something the parser noticed and kept going past (data, not a log line)."""

    kind: str
    message: str
    line: int | None = None
    number: str | None = None


def latest_editions(editions: Iterable[Edition]) -> dict[str, Edition]:
    """The latest dated edition (not a fragment, and with an effective date) of each
    language, by language code: the first of two of the same date."""
    latest: dict[str, Edition] = {}
    for e in editions:
        if e.kind == "fragment" or e.effective is None:
            continue
        if e.lang not in latest or e.effective > (latest[e.lang].effective or date.min):
            latest[e.lang] = e
    return latest


def memo_while_alive(table: dict[int, tuple[Any, Any]], obj: Any, make: Any) -> Any:
    """``make(obj)``, computed once while ``obj`` lives: kept in ``table`` (the caller's
    own dict) by ``id(obj)`` beside a weak reference that drops the entry when ``obj``
    goes. For editions, whose generated ``__hash__`` would hash every rule on each
    lookup (a ``WeakKeyDictionary`` hashes its keys)."""
    import weakref

    key = id(obj)
    hit = table.get(key)
    if hit is not None and hit[0]() is obj:
        return hit[1]
    value = make(obj)
    table[key] = (weakref.ref(obj, lambda _ref: table.pop(key, None)), value)
    return value


def restored_words(count: int, sources: tuple[str, ...]) -> str:
    """How many characters of a lossy source were put back, from where.

    >>> restored_words(4709, ("en/2008-02-01", "en/2008-07-15"))
    '4,709 characters restored from en/2008-02-01 and en/2008-07-15'
    """
    where = " and ".join(sources) if len(sources) <= 2 else ", ".join(sources[:-1]) + f" and {sources[-1]}"
    return f"{count:,} character{'s' if count != 1 else ''} restored from {where}"


@dataclass(frozen=True)
class Restoration:
    """Characters of a lossy source put back from the neighbouring editions
    (:mod:`comprules.corpus.restore`): in ``unit`` (a rule id, or ``glossary:{slug}``),
    its ``part`` (``text``, ``title``, ``example 2``, ``term``) as the source printed
    it (``raw``), ``chars`` characters taken from the editions ``sources``."""

    unit: str
    part: str
    raw: str
    chars: int
    sources: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "unit": self.unit,
            "part": self.part,
            "raw": self.raw,
            "chars": self.chars,
            "sources": list(self.sources),
        }


@dataclass(frozen=True)
class Edition:
    """One parsed document: a published edition, or a fragment (forum post, excerpt).

    ``name`` is the edition's identifier, ``{lang}/{effective date}`` (``en/2026-08-07``)
    or ``{lang}/{file stem}`` for a document without an effective date.
    ``rules`` holds every unit in document order (chapters and sections included;
    in a fragment, its passages and notes too); ``kind`` is ``edition`` (a complete
    CR) or ``fragment``. A fragment's ``glossary`` holds the keyword entries of a
    rulebook extract ("Peur", "Vol"). ``description`` is what an ``editions.toml`` says
    the document is (empty when it says nothing: the site derives one).
    """

    name: str
    lang: str
    effective: date | None
    kind: str
    source: str
    sha256: str
    title: str
    rules: tuple[Rule, ...]
    glossary: tuple[GlossaryEntry, ...] = ()
    warnings: tuple[ParseWarning, ...] = ()
    sources: tuple[str, ...] = field(default=())
    description: str = ""
    #: What a lossy source printed where the neighbouring editions' characters were put back.
    restored: tuple[Restoration, ...] = ()

    @cached_property
    def content_key(self) -> str:
        """What identifies the edition's texts: its source's ``sha256``, followed for a
        repaired edition by a hash of the characters put back (they come from other
        editions: a change there changes this edition)."""
        if not self.restored:
            return self.sha256
        import hashlib

        h = hashlib.blake2b(digest_size=8)
        for r in self.rules:
            h.update(f"{r.id}\0{r.title or ''}\0{r.text}\0{chr(1).join(r.examples)}\0".encode())
        for g in self.glossary:
            h.update(f"{g.slug}\0{g.term}\0{g.text}\0".encode())
        return f"{self.sha256}+{h.hexdigest()}"

    def restored_summary(self) -> tuple[int, tuple[str, ...]]:
        """How many characters were put back, and from which editions (name order)."""
        return sum(r.chars for r in self.restored), tuple(sorted({s for r in self.restored for s in r.sources}))

    @cached_property
    def by_id(self) -> dict[str, Rule]:
        """Rules by id (``702.37a``, ``702.175~2``, ``602¶1``)."""
        return {r.id: r for r in self.rules}

    @cached_property
    def glossary_by_slug(self) -> dict[str, GlossaryEntry]:
        """Glossary entries by slug (``trample``)."""
        return {g.slug: g for g in self.glossary}

    @cached_property
    def children(self) -> dict[str | None, list[Rule]]:
        """Rules grouped by their parent's number, in document order."""
        out: dict[str | None, list[Rule]] = {}
        for r in self.rules:
            out.setdefault(r.parent, []).append(r)
        return out

    def numbered(self) -> list[Rule]:
        """The rules and subrules (not chapters, sections, passages or notes)."""
        return [r for r in self.rules if r.kind in ("rule", "subrule")]

    def sections(self) -> list[Rule]:
        """The sections, in document order."""
        return [r for r in self.rules if r.kind == "section"]

    def get(self, number: str) -> Rule | None:
        """The rule with this id or printed number, or ``None``."""
        return self.by_id.get(number)


# ---------------------------------------------------------------------------
# Glossary headwords as they are compared (references, the site's links, look-ups)

#: Deletes quote marks (straight, curly, and the "?" a wrong code page left) from a headword
#: or a quoted title, for comparing them.
DROP_QUOTES = str.maketrans("", "", "“”‘’\"'?")
_QUALIFIER = re.compile(r"\s*\((?:informal|obsolete|officieux|obsolète)\)\s*$", re.I)


def is_translation(doc: Edition) -> bool:
    """True for a complete edition (not a fragment) in a language other than English: the
    Chinese CR, aligned with its English twin by number (``comprules.align.translation``)."""
    return doc.lang != "en" and doc.kind == "edition" and doc.effective is not None


@dataclass(frozen=True)
class TermPair:
    """One bilingual pair found by alignment (``comprules.align.crosslang`` and
    ``translation``): French (or translated) and English headings (or section titles) of
    two aligned units, and where (``fr_id`` in ``fr_edition``). Stored in the database's
    ``lexicon`` table (``aligned``, ``latest``), read back by the site with :meth:`from_json`."""

    fr: str
    en: str
    fr_edition: str
    fr_id: str
    en_edition: str
    en_id: str
    similarity: float
    #: The language of ``fr`` (the translated term): ``fr``, or ``zh`` for a pair of a
    #: Chinese edition (``comprules.align.translation``).
    lang: str = "fr"

    def to_json(self) -> dict[str, object]:
        return {
            "fr": self.fr,
            "en": self.en,
            "fr_edition": self.fr_edition,
            "fr_id": self.fr_id,
            "en_edition": self.en_edition,
            "en_id": self.en_id,
            "similarity": round(self.similarity, 4),
            "lang": self.lang,
        }

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "TermPair":
        """The pair :meth:`to_json` gave. Raises :class:`KeyError` for a missing field."""
        return cls(
            row["fr"],
            row["en"],
            row["fr_edition"],
            row["fr_id"],
            row["en_edition"],
            row["en_id"],
            row["similarity"],
            row.get("lang", "fr"),
        )


def clean_term(term: str) -> str:
    """A headword as printed in a "See …" list, without its quotes and final punctuation."""
    return term.strip().strip('“”"‘’').rstrip(".,;:。，；：").strip().strip('“”"‘’').strip()


def fold_name(text: str) -> str:
    """How a name typed is compared with a name printed (a card, a set, an edition's set
    name, a glossary headword asked for): case-folded, typographic apostrophes and quotes
    as the ASCII ones, spacing collapsed (``“Urza’s  Saga”`` → ``"urza's saga"``)."""
    return " ".join(text.translate(_PLAIN_QUOTES).casefold().split())


_PLAIN_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@lru_cache(maxsize=16384)
def glossary_key(term: str) -> str:
    """How headwords are compared: case-folded, without quotes (straight, curly, or
    the "?" a wrong code page left: ``Intervening ?If? Clause``), punctuation, or a
    trailing qualifier ("Hidden Information (Informal)")."""
    term = _QUALIFIER.sub("", clean_term(term)).translate(DROP_QUOTES).casefold()
    return " ".join(term.split())


_CITATION = re.compile(r"^R?([0-9])([0-9][0-9])(?:\.?([0-9]+)([a-z]{0,2}))?$")
_SECTION_ANCHOR = re.compile(r"^#?section-([0-9]{1,3})(?:-([0-9]+)([a-z]{0,2}))?$", re.IGNORECASE)
#: "CR", "rule", "§"…, after the "see" of a citation pasted whole ("See rule 702.19b.")
_NUMBER_PREFIX = re.compile(
    r"^(?:(?:see(?:\s+also)?|voir(?:\s+aussi)?|另?参见)\s*)?(?:cr|comprehensive rules?|rules?|r[èe]gles?|规则|§)?\s*",
    re.IGNORECASE,
)
#: The title a citation prints after the number (“See rule 702.19, “Trample.””).
_CITED_TITLE = re.compile(r"\s*,\s*[“\"«][^“”\"«»]*[”\"»]?\s*[.,;:)]*\s*$")
_PLAIN_NUMBER = re.compile(r"(?:[0-9]{1,3}|[0-9]{3}\.[0-9]+[a-z]{0,2})\Z")
_LETTERS_IN_BRACKETS = re.compile(r"\s*\(([a-z]{1,2})\)$", re.IGNORECASE)
_DOTTED = re.compile(r"^([0-9]{3})[.,]([0-9]+)\s*([a-z]{0,2})$", re.IGNORECASE)


def normalize_number(text: str) -> str:
    """A rule number as people write it → the CR's form, the forms the site's go-to box
    takes (``site/static/goto.js``, docs/site.md, "The header and the go-to box"):
    ``702.37a``, ``702.37A``, ``R70237a``/``r70237a`` (citation style), ``rule 702.37a``,
    ``CR 702.37a``, ``§702.37a``, ``see rule 702.37a`` (a citation pasted), ``702.37 a``,
    ``702.37(a)``, ``702,37a``, ``702.37a.``, ``section-702-37a`` (an mtg.wtf anchor),
    ``(702.37a)`` → ``702.37a``; ``702``, ``7`` as they are; full-width digits and dots as
    typed on a Chinese or Japanese keyboard (``７０２．１９``, ``702。19``) as the ASCII
    ones (NFKC, as search folds them). Another well-formed number is returned stripped
    (``999.9``: the caller says no such rule). Raises :class:`UsageError` for an
    empty number, one that holds no number at all (``rule``), a malformed one
    (``702.19..b``, ``702-19b``) or four digits or more alone (``2024``: a year, as
    search and the go-to box read it; ``R2024`` is 202.4)."""
    if _PLAIN_NUMBER.match(text):  # already the CR's form (what the API and the site send)
        return text
    import unicodedata

    t = unicodedata.normalize("NFKC", text).replace("。", ".").strip()  # 。: a Chinese keyboard's full stop
    if t[:1] in "([" and t[-1:] in ")]":  # "(702.37a)" pasted with its brackets, as search takes it
        t = t[1:-1].strip()
    if not t:
        raise UsageError("no rule number given (a number such as 702.19b)")
    m = _SECTION_ANCHOR.match(t)
    if m:
        sec, rule, letters = m.groups()
        return sec + (f".{rule}{letters.lower()}" if rule else "")
    if t.isdigit() and len(t) > 3:  # a year ("2024"), as search and the go-to box read it, not 202.4
        hint = " (a year? an edition is named by its date, such as 2024-08-02)" if len(t) == 4 else ""
        raise UsageError(f"{echo(text.strip())!r} is not a rule number{hint}: a rule is numbered such as 702.19b")
    t = _CITED_TITLE.sub("", _NUMBER_PREFIX.sub("", t))  # 'See rule 702.19, “Trample.”'
    t = _LETTERS_IN_BRACKETS.sub(r"\1", _NUMBER_PREFIX.sub("", t))  # "702.37 (a)"
    t = t.rstrip(".:,;)")  # "CR § 702.37a."
    if t[:1] == "r" and t[1:2].isdigit():
        t = "R" + t[1:]
    m = _CITATION.match(t[:1] + t[1:].lower() if t[:1] == "R" else t.lower())
    if m and (t.startswith("R") or "." not in t):
        ch, sec, rule, letters = m.groups()
        return f"{ch}{sec}" + (f".{rule}{letters}" if rule else "")
    m = _DOTTED.match(t)
    if m:
        sec, rule, letters = m.groups()
        return f"{sec}.{rule}{letters.lower()}"
    if not t[:1].isdigit() or not _NUMBER_SHAPE.match(t):  # (digits of other scripts too: ٧٠٢)
        raise UsageError(f"{echo(text.strip())!r} is not a rule number (a number such as 702.19b)")
    return t


#: What a normalized number can be: a chapter, a section, a rule or subrule (``702.19b``),
#: or a unit the site and the index name (``702.175~2``, ``602¶3``); ``702.19..b`` and
#: ``702-19b`` are not numbers (a usage error, not "no such rule").
_NUMBER_SHAPE = re.compile(r"[0-9]{1,3}(?:\.[0-9]+[a-zA-Z]{0,2})?(?:~[0-9]+|¶[0-9]+)?\Z|¶[0-9]+\Z")
