"""Parse decoded CR text into an :class:`~comprules.model.Edition`.

A complete edition is laid out as: header (title, effective date), introduction,
contents, the numbered rules (chapters ``1.`` … ``9.``, sections ``100.``, rules
``100.1.``, subrules ``100.1a``), the glossary, then credits (and, up to 2001, an
index). Only the rules and the glossary are parsed; the rest is recognised and kept
out of the rules.

Hard cases, each from a real edition:

* hard-wrapped text (1999-04-23, 2001-09-24, 2003-10-01 → 2004-02-01): paragraphs span
  several lines and a continuation line may even start with a number ("See rule\\n
  103.4. If a player …" in 2003-10-01), so a numbered line only starts a rule after a
  blank line or after a line that ends a sentence;
* rules without the trailing dot ("102.8 If a player …", 2001-09-24), indented
  subrules (1999-04-23), two-letter subrules (``704.5aa``), keyword headings
  (``702.37. Morph``: a rule whose text is its title);
* examples ("Example:", "EXAMPLE:", "Exemple :"), all of them attached to the rule
  above (613.6 has four), even across a line holding only a no-break space;
* duplicated numbers, kept both (``702.175`` and ``702.175~2``) with a warning;
* a number printed twice ("602.2a 602.2a Any rule …", 2005-08-01): read once, with
  a ``repeated-number`` warning;
* keyword headings ending in "!" ("702.163. For Mirrodin!", "702.179. Start Your
  Engines!") are titles too;
* fragments (forum posts, rulebook extracts) with no header, see :class:`_Parser`
  and :mod:`.fragment`: numbered rules are parsed where they are; an unnumbered
  paragraph right under a section heading is rule text, a positional *passage*
  (``602¶1``, seed 001); forum noise and chatter (quote headers, signatures, edit
  stamps, author lines, talk between the rules) becomes a positional *note*, kept
  in the document but out of the rules; keyword headings of a rulebook with no
  numbers ("Peur", "Vol", seed 003) become glossary entries; PDF artefacts ("oT"
  for {T}, a stray page number) are repaired where unambiguous, flagged otherwise.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date
from pathlib import Path

from .. import languages
from ..model import Edition, GlossaryEntry, ParseWarning, Rule
from . import fragment as frag
from .detect import detect_effective_date, detect_language

# A rule or subrule line: "100.1. Text", "100.1a Text", "102.8 Text", "  214.6a Text",
# and two misprints of real editions: "305.3.After" (no space, 1999) and "702. 37a Storm"
# (a space inside the number, 2005-08-01 "606. 8b", 2009-07-11 "702. 37a").
# Chinese text may glue the text to the number ("100.6b牌手可以…", 2022-06-10: ten lines).
RULE_LINE = re.compile(
    r"^[ \t]*(?P<number>\d{3}\.(?P<gap> (?=\d+[a-z]))?\d+(?P<letters>[a-z]{1,2})?)"
    r"(?:\.?(?=[\s\u00a0]|$)|\.(?=[A-Z])|(?P<glued>\.?(?=[\u4e00-\u9fff“（])))[\s\u00a0]*(?P<text>.*)"
)
# A section heading: "100. General", "   101. Starting the Game", "406 : Capacité de mana".
SECTION_LINE = re.compile(r"^[ \t]*(?P<number>\d{3})(?:\.|[ \t]*:)[ \t]+(?P<title>\S.{0,90}?)\s*$")
# A chapter heading: "1. Game Concepts", "4. Sorts, capacités et effets".
CHAPTER_LINE = re.compile(r"^[ \t]*(?P<number>\d)\.[ \t]+(?P<title>[^\W\d_].{0,70}?)\s*$")


def _example_line() -> re.Pattern[str]:
    """ "Example:", "EXAMPLE:", "Exemple :", "例如：": the words of every language of the table."""
    words = sorted({w for lang in languages.all_languages() for w in lang.example}, key=len, reverse=True)
    colons = sorted({c for lang in languages.all_languages() for c in lang.example_colons})
    return re.compile(
        rf"^[ \t]*(?:{'|'.join(map(re.escape, words))})s?[ \t\u00a0]*[{''.join(colons)}]"
        rf"[ \t\u00a0]*(?P<text>.*)"
    )


EXAMPLE_LINE = _example_line()
#: First characters of the example words: a line starting otherwise is plain text.
_EXAMPLE_STARTS = frozenset(w[0] for lang in languages.all_languages() for w in lang.example)
DIVIDER = re.compile(r"^[\s\-=_*~]+$")
# What ends a sentence: a numbered line after such a line starts a new rule.
SENTENCE_END = frozenset('.:!?)]"”’»')
# A line ending like this asks for a number next ("See rule\n407, …"): never a new rule.
REFERENCE_LEAD = re.compile(
    r"(?:\brules?|\bsections?|\br[èe]gles?|\bparagraphes?|\band|\bor|\bet|\bou|\bsee|\bvoir|[,–-])$",
    re.IGNORECASE,
)


def _ends_sentence(line: str) -> bool:
    return line.rstrip()[-1:] in SENTENCE_END


def _asks_for_number(line: str) -> bool:
    """True when a line ends like "See rule" or "rules 601.2f," (the number comes next)."""
    return REFERENCE_LEAD.search(line.rstrip()[-12:]) is not None


#: The glossary's heading and the headings after it (credits), in every language.
GLOSSARY_HEADINGS = {w.casefold() for lang in languages.all_languages() for w in lang.glossary}
AFTER_GLOSSARY = {w.casefold() for lang in languages.all_languages() for w in lang.credits}
_SENSE = re.compile(r"^(\d+)\.\s+(.*)$")
_OBSOLETE = re.compile(
    r"\s*[(（](?:"
    + "|".join(sorted({re.escape(w) for lang in languages.all_languages() for w in lang.obsolete}))
    + r")[)）]\s*$",
    re.IGNORECASE,
)
#: A translator's note printed after a headword: "反击/指示物（译注：…）" (the glossary of the
#: Chinese editions, headword of Counter).
_TRANSLATOR_NOTE = re.compile(r"\s*（(?:译注|译者注)[：:][^）]*）\s*$")
#: How a keyword heading never ends (a sentence, a list's lead-in "… as follows:").
_TITLE_END = (".", ";", ":", ",", "?", '"', "”", ".)", "。", "；", "：", "，", "？")


class _Unit:
    """A rule being read: its text parts and examples grow line by line."""

    __slots__ = ("number", "kind", "line", "parts", "examples", "title", "section", "chapter", "parent")

    def __init__(
        self,
        number: str,
        kind: str,
        line: int,
        parts: list[str] | None = None,
        *,
        title: str | None = None,
        section: str | None = None,
        chapter: str | None = None,
        parent: str | None = None,
    ):
        self.number, self.kind, self.line = number, kind, line
        self.parts: list[str] = parts if parts is not None else []
        self.examples: list[list[str]] = []
        self.title, self.section, self.chapter, self.parent = title, section, chapter, parent

    def add(self, text: str, joiner: str) -> None:
        target = self.examples[-1] if self.examples else self.parts
        if target and joiner == " ":
            head = target[-1].rstrip()
            # "turn-\nbased" (a compound cut at its hyphen by the wrap) joins without a space.
            sep = "" if head.endswith("-") and head[-2:-1].isalpha() else " "
            target[-1] = f"{head}{sep}{text.strip()}"
        else:
            target.append(text.strip())


def _find_body(lines: list[str]) -> int | None:
    """Index of the first line of the rules proper (the chapter heading before 100.1)."""
    for i, line in enumerate(lines):
        if RULE_LINE.match(line) and not CHAPTER_LINE.match(line):
            start = i
            j = i - 1
            while j >= 0:
                s = lines[j].strip()
                if not s or DIVIDER.match(s) or SECTION_LINE.match(lines[j]) or CHAPTER_LINE.match(lines[j]):
                    if s and not DIVIDER.match(s):
                        start = j
                    j -= 1
                    continue
                break
            return start
    return None


#: The heading of a complete edition's contents table, in every language known.
CONTENTS_HEADINGS = {"contents", "table of contents", "目录", "sommaire", "table des matières"}


def _has_contents(lines: list[str], body_start: int) -> bool:
    """Whether a contents table (its heading) stands before the rules proper."""
    found = _find_line(lines[:body_start], CONTENTS_HEADINGS, 0)
    return found is not None


def _find_line(lines: list[str], names: set[str], start: int) -> int | None:
    longest = max(len(n) for n in names) + 8
    for i in range(start, len(lines)):
        line = lines[i]
        if len(line) <= longest and line.strip().lower() in names:
            return i
    return None


def _is_hard_wrapped(lines: list[str]) -> bool:
    """True for editions whose paragraphs are wrapped over several lines.

    Counted as: lines that end mid-sentence and are followed by a plain text line,
    against the number of numbered lines. Unwrapped editions score near 0.
    """
    numbered = wrapped = 0
    prev = ""
    for line in lines:
        if RULE_LINE.match(line):
            numbered += 1
        elif prev.strip() and line.strip() and not EXAMPLE_LINE.match(line):
            if not _ends_sentence(prev):
                wrapped += 1
        prev = line
    return numbered > 0 and wrapped / numbered > 0.3


def _title_of(unit: _Unit) -> str | None:
    """A keyword heading's title: "702.37. Morph" → "Morph" (short, no sentence end)."""
    if unit.kind != "rule" or unit.examples or len(unit.parts) != 1:
        return None
    text = unit.parts[0]
    # "Morph", "For Mirrodin!", "∞ (Infinity)": short, no sentence end, no lower-case start.
    if not text or len(text) > 80 or text.endswith(_TITLE_END) or text[0].islower() or text[0].isdigit():
        return None
    if len(text.split()) > 8 or ". " in text:
        return None
    return text


def _passage_title(unit: _Unit) -> str | None:
    """A rulebook heading ("Vol", "Protection contre") on the first line of a passage."""
    if unit.kind != "passage" or len(unit.parts) < 2:
        return None
    head = unit.parts[0]
    if len(head.split()) > 4 or head[-1:] in ".:;!?,)" or not head[:1].isupper():
        return None
    return head


class _Parser:
    """Reads the body lines of one document into units (and, for a fragment, entries).

    In a *fragment* every unnumbered paragraph gets a positional id under its
    section (``602¶1``, ``¶3`` before any section), counted in document order, and a
    kind:

    - ``passage``: rule text without a number. Only right under a section heading that
      no numbered rule has followed yet (seed 001: "602. Capacités" and then its
      paragraphs), and only if it does not read as chatter (lower-case start,
      question);
    - ``note``: anything else: forum noise (quote header, edit stamp, author line,
      signature after "_________________"), talk before, between and after the
      quoted rules. Kept in the document, out of the rules;
    - a glossary-like *entry*: a keyword heading ("Peur") directly followed by its
      text, in a document part with no section (a rulebook extract, seed 003).
    """

    def __init__(self, lines: list[str], *, fragment: bool, wrapped: bool, offset: int = 0, lang: str = "en"):
        self.lines = lines
        self.fragment = fragment
        self.wrapped = wrapped
        self.offset = offset
        self.lang = lang
        self.units: list[_Unit] = []
        self.entries: list[_Unit] = []
        self.warnings: list[ParseWarning] = []
        self.chapter: str | None = None
        self.section: str | None = None
        self.current: _Unit | None = None
        self.positions: dict[str, int] = {}
        self.prose = False  # fragment: unnumbered paragraphs here are rule text
        self.signed = False  # fragment: after a signature separator
        self.idx = 0

    def warn(self, kind: str, message: str, line: int, number: str | None = None) -> None:
        self.warnings.append(ParseWarning(kind, message, line, number))

    def start(self, unit: _Unit) -> None:
        self.units.append(unit)
        self.current = unit

    def positional(self, kind: str, lineno: int, text: str) -> None:
        """A ``passage`` or ``note`` of a fragment: ``{section}¶{n}``, n counting both."""
        key = self.section or self.chapter or ""
        self.positions[key] = n = self.positions.get(key, 0) + 1
        unit = _Unit(
            f"{key}¶{n}", kind, lineno, section=self.section, chapter=self.chapter, parent=self.section or self.chapter
        )
        unit.parts.append(text.strip())
        self.start(unit)

    def heading_allowed(self, prev_blank: bool, s: str) -> bool:
        """Headings follow a blank line, except in unwrapped text (the DOCX has none)."""
        return (prev_blank or not self.wrapped) and not self.wrapped_text_line(s)

    def plausible_section(self, number: str, prev_blank: bool = True) -> bool:
        """Sections only go forward; without a blank line before, only to the next chapter's or the same."""
        if self.fragment:
            return prev_blank
        if self.section is not None and int(number) <= int(self.section):
            return False
        if self.chapter is not None and number[0] < self.chapter:
            return False
        return prev_blank or self.chapter is None or number[0] in (self.chapter, str(int(self.chapter) + 1))

    def plausible_chapter(self, number: str, prev_blank: bool = True) -> bool:
        """Chapters only go forward; without a blank line before, only to the next one."""
        if self.fragment:
            return prev_blank
        if self.chapter is None:
            return True
        return number > self.chapter if prev_blank else int(number) == int(self.chapter) + 1

    def run(self) -> None:
        if self.fragment:
            self.run_fragment()
            return
        prev = ""
        prev_blank = True
        for idx, raw in enumerate(self.lines):
            lineno = idx + 1 + self.offset
            s = raw.strip()
            if not s or DIVIDER.match(s):
                prev_blank, prev = True, ""
                continue
            after_break = prev_blank or (_ends_sentence(prev) if self.wrapped else not _asks_for_number(prev))
            self.line(raw, s, lineno, prev_blank, after_break)
            prev_blank, prev = False, raw

    def run_fragment(self) -> None:
        """The loop of :meth:`run` for fragments: signatures, PDF repairs, then lines."""
        prev = ""
        prev_blank = True
        for idx, raw in enumerate(self.lines):
            lineno = idx + 1 + self.offset
            self.idx = idx
            if frag.is_signature_rule(raw):
                self.signed, self.prose, self.current = True, False, None
                prev_blank, prev = True, ""
                continue
            raw, repairs = frag.repair_line(raw, self.lang)
            for r in repairs:
                self.warn(r.kind, r.message, lineno)
            s = raw.strip()
            if not s and repairs:
                continue  # a page number alone on its line: gone, the paragraph goes on
            if not s or DIVIDER.match(s):
                prev_blank, prev = True, ""
                continue
            after_break = prev_blank or not _asks_for_number(prev)
            self.line(raw, s, lineno, prev_blank, after_break)
            prev_blank, prev = False, raw

    def line(self, raw: str, s: str, lineno: int, prev_blank: bool, after_break: bool) -> None:
        if not (s[0].isdigit() or s[0] in _EXAMPLE_STARTS):  # fast path: plain text, no number, no example
            self.text(raw, s, lineno, prev_blank)
            return
        m = RULE_LINE.match(raw)
        if m and after_break:
            number, letters = m.group("number", "letters")
            if m.group("gap"):
                printed, number = number, number.replace(" ", "")
                self.warn("malformed-number", f"{printed!r} read as {number}", lineno, number)
            elif m.group("glued") is not None:
                self.warn("malformed-number", f"{number} printed without a space before its text", lineno, number)
            section = number[:3]
            if letters:
                unit = _Unit(
                    number, "subrule", lineno, section=section, chapter=section[0], parent=number[: -len(letters)]
                )
            else:
                unit = _Unit(number, "rule", lineno, section=section, chapter=section[0], parent=section)
            text = m.group("text").strip()
            if text.startswith(number) and text[len(number) : len(number) + 1] in (" ", "\u00a0"):
                # "602.2a 602.2a Any rule, object, …" (2005-08-01): the number printed twice
                text = text[len(number) :].strip()
                self.warn("repeated-number", f"{number} printed twice: read once", lineno, number)
            unit.parts.append(text)
            self.start(unit)
            if self.fragment:
                self.prose = self.signed = False
                if section != self.section:
                    self.section, self.chapter = section, section[0]
            return
        m = CHAPTER_LINE.match(raw)
        if m and self.heading_allowed(prev_blank, s) and self.plausible_chapter(m.group("number"), prev_blank):
            self.chapter = m.group("number")
            self.section = None
            title = m.group("title")
            self.start(_Unit(self.chapter, "chapter", lineno, [title], title=title, chapter=self.chapter))
            self.prose, self.signed = True, False
            return
        m = SECTION_LINE.match(raw)
        if m and self.heading_allowed(prev_blank, s) and self.plausible_section(m.group("number"), prev_blank):
            number = m.group("number")
            self.section, self.chapter = number, number[0]
            title = m.group("title")
            self.start(
                _Unit(
                    number, "section", lineno, [title], title=title, section=number, chapter=number[0], parent=number[0]
                )
            )
            self.prose, self.signed = True, False
            return
        m = EXAMPLE_LINE.match(raw)
        if m:
            cur = self.current
            if cur is None or cur.kind in ("chapter", "section", "entry"):
                if self.fragment:
                    self.fragment_text(s, lineno, prev_blank)
                else:
                    self.warn("orphan-example", f"example with no rule above: {s[:60]!r}", lineno)
                return
            cur.examples.append([m.group("text").strip()])
            return
        self.text(raw, s, lineno, prev_blank)

    def text(self, raw: str, s: str, lineno: int, prev_blank: bool) -> None:
        """A line with no number and no "Example:": continues the current paragraph."""
        if self.fragment:
            self.fragment_text(s, lineno, prev_blank)
            return
        if self.current is None or self.current.kind in ("chapter", "section"):
            self.warn("unparsed-line", f"text outside any rule: {s[:60]!r}", lineno)
            return
        joiner = " " if self.wrapped and not prev_blank and not raw[:1].isspace() else "\n"
        if self.wrapped and not prev_blank and raw.startswith(("  ",)) and not raw.startswith("     "):
            joiner = " "  # 1999-04-23 indents whole paragraphs by two spaces
        self.current.add(s, joiner)

    def wrapped_text_line(self, s: str) -> bool:
        """A heading never ends like a sentence; a wrapped text line often does."""
        return s.endswith((".", ",", ";")) and not s.endswith("...")

    def fragment_text(self, s: str, lineno: int, prev_blank: bool) -> None:
        """An unnumbered line of a fragment: noise, continuation, entry, passage or note."""
        if frag.noise_kind(s):
            self.positional("note", lineno, s)
            self.prose, self.current = False, None  # noise stands alone, on its line
            return
        cur = self.current
        if cur is not None and not prev_blank and cur.kind in ("passage", "note", "entry"):
            cur.add(s, "\n")
            return
        if self.signed:
            self.positional("note", lineno, s)
        elif self.section is None and self.chapter is None and frag.is_heading(s) and self.text_follows():
            entry = _Unit(s, "entry", lineno)
            self.entries.append(entry)
            self.current = entry
        elif self.prose and not frag.is_chatter(s):
            self.positional("passage", lineno, s)
        else:
            self.positional("note", lineno, s)

    def text_follows(self) -> bool:
        """True if the next line is plain text (the body of a keyword heading)."""
        nxt = self.lines[self.idx + 1].strip() if self.idx + 1 < len(self.lines) else ""
        return bool(nxt) and not DIVIDER.match(nxt) and not RULE_LINE.match(nxt) and not frag.noise_kind(nxt)

    def glossary(self) -> list[GlossaryEntry]:
        """The keyword entries of a fragment (seed 003: "Peur", "Vol", …), in order."""
        out: list[GlossaryEntry] = []
        slugs: dict[str, int] = {}
        for u in self.entries:
            obsolete = bool(_OBSOLETE.search(u.number))
            term = _OBSOLETE.sub("", u.number).strip()
            name, aliases = _split_aliases(term)
            body = [p for p in u.parts if p]
            slug = _slug(term)
            slugs[slug] = slugs.get(slug, 0) + 1
            if slugs[slug] > 1:
                slug = f"{slug}-{slugs[slug]}"
            text = "\n".join(body)
            out.append(
                GlossaryEntry(
                    term=name,
                    aliases=aliases,
                    obsolete=obsolete,
                    senses=(text,) if text else (),
                    text=text,
                    line=u.line,
                    slug=slug,
                )
            )
        return out

    def finish(self) -> list[Rule]:
        rules: list[Rule] = []
        seen: dict[str, Rule] = {}
        counts: dict[str, int] = {}
        for u in self.units:
            text = "\n".join(p for p in u.parts if p)
            examples = tuple(" ".join(e).strip() if self.wrapped else "\n".join(e).strip() for e in u.examples)
            title = u.title or _title_of(u) or _passage_title(u)
            rid = u.number
            if rid in seen:
                first = seen[rid]
                if self.fragment and first.text == text:
                    self.warn("repeated-quote", f"{rid} quoted again, identical: kept once", u.line, rid)
                    continue
                counts[rid] = counts.get(rid, 1) + 1
                rid = f"{u.number}~{counts[u.number]}"
                self.warn(
                    "duplicate-number", f"{u.number} appears again (line {first.line}): kept as {rid}", u.line, u.number
                )
            rule = Rule(
                id=rid,
                number=u.number,
                kind=u.kind,
                text=text,
                line=u.line,
                title=title,
                examples=examples,
                parent=u.parent,
                section=u.section,
                chapter=u.chapter,
            )
            seen.setdefault(u.number, rule)
            rules.append(rule)
        return rules


def _slug(term: str) -> str:
    s = re.sub(r"[^\w]+", "-", term.lower(), flags=re.UNICODE).strip("-")
    return s or "entry"


def _split_aliases(head: str) -> tuple[str, tuple[str, ...]]:
    """ "Control, Controller" → ("Control", ("Controller",)); "Active Player, Nonactive
    Player Order" stays whole (its parts do not share a stem or start with a quote)."""
    if "，" in head:  # Chinese: "操控，操控者", "生命，总生命": a full-width comma always lists names
        parts = [p.strip() for p in head.split("，") if p.strip()]
        return (parts[0], tuple(parts[1:])) if parts else (head, ())
    parts = [p.strip() for p in re.split(r",\s+(?=[^”\"]*(?:[“\"]|$))", head) if p.strip()]
    if len(parts) < 2:
        return head, ()
    first = parts[0]
    ok = all(p[:1] in '“"' or p[:3].lower() == first[:3].lower() for p in parts[1:])
    return (first, tuple(parts[1:])) if ok else (head, ())


def parse_glossary(lines: list[str], offset: int, wrapped: bool) -> tuple[list[GlossaryEntry], list[ParseWarning]]:
    """Parse glossary lines (after the "Glossary" heading) into entries.

    A headword is an unindented line after a blank line and followed by text.
    Indented lines continue the entry (1999-04-23 indents definitions, 2001–2008
    indent further paragraphs); numbered lines ("1. …") start numbered senses.
    """
    entries: list[GlossaryEntry] = []
    warnings: list[ParseWarning] = []
    slugs: dict[str, int] = {}
    head: tuple[str, int] | None = None
    body: list[str] = []

    def flush() -> None:
        nonlocal head, body
        if head is None:
            return
        raw_term, line = head
        note = _TRANSLATOR_NOTE.search(raw_term)
        if note:  # kept apart: "反击/指示物（译注：…）" is the headword 反击/指示物
            raw_term = raw_term[: note.start()]
        obsolete = bool(_OBSOLETE.search(raw_term))
        term = _OBSOLETE.sub("", raw_term).strip()
        name, aliases = _split_aliases(term)
        senses: list[str] = []
        for para in body:
            m = _SENSE.match(para)
            if m or not senses:
                senses.append(m.group(2) if m else para)
            else:
                senses[-1] = f"{senses[-1]}\n{para}"
        slug = _slug(term)
        slugs[slug] = slugs.get(slug, 0) + 1
        if slugs[slug] > 1:
            slug = f"{slug}-{slugs[slug]}"
        entries.append(
            GlossaryEntry(
                term=name,
                aliases=aliases,
                obsolete=obsolete,
                senses=tuple(senses),
                text="\n".join(body),
                line=line,
                slug=slug,
                note=note.group().strip()[1:-1] if note else None,
            )
        )
        head, body = None, []

    prev_blank = True
    n = len(lines)
    for i, raw in enumerate(lines):
        s = raw.strip()
        if not s or DIVIDER.match(s):
            prev_blank = True
            continue
        next_is_text = i + 1 < n and lines[i + 1].strip() != "" and not DIVIDER.match(lines[i + 1])
        is_head = prev_blank and not raw[:1].isspace() and next_is_text and len(s) <= 90 and not s.endswith((".", ","))
        if is_head:
            flush()
            head = (s, i + 1 + offset)
        elif head is None:
            warnings.append(
                ParseWarning("unparsed-line", f"glossary text before any headword: {s[:60]!r}", i + 1 + offset)
            )
        elif wrapped and body and not prev_blank and not raw.startswith("    ") and not _SENSE.match(s):
            body[-1] = f"{body[-1]} {s}"
        else:
            body.append(s)
        prev_blank = False
    flush()
    return entries, warnings


def parse_text(
    text: str,
    source: str = "<text>",
    *,
    lang: str | None = None,
    effective: date | None = None,
    kind: str | None = None,
    title: str | None = None,
    sha256: str | None = None,
) -> Edition:
    """Parse decoded text (``\\n`` line endings) into an :class:`Edition`.

    ``lang``, ``effective``, ``kind`` and ``title`` override what is detected (an
    ``editions.toml`` beside the sources may give them for a fragment). A document
    with an effective date and a glossary is an ``edition``; anything else is a
    ``fragment``. Never raises on odd text: what it cannot place becomes a warning.
    """
    lang = lang or detect_language(text)
    effective = effective or detect_effective_date(text, lang)
    lines = text.split("\n")
    stem = Path(source).stem
    body_start = _find_body(lines)
    glossary_at = _find_line(lines, GLOSSARY_HEADINGS, body_start) if body_start is not None else None
    if kind is None:
        kind = "edition" if effective is not None and glossary_at is not None else "fragment"
    fragment = kind == "fragment"
    warnings: list[ParseWarning] = []
    glossary: list[GlossaryEntry] = []
    if fragment and effective is not None and body_start is not None and _has_contents(lines, body_start):
        # A Comprehensive Rules document (title, date, contents) that stops before its
        # glossary: an incomplete copy. Its contents table is not rules (it would give
        # "1" twice); its rules are read as a fragment's, from the first chapter on.
        body, offset = lines[body_start:], body_start
        wrapped = False
        last = max((i for i, line in enumerate(lines) if line.strip()), default=0)
        warnings.append(
            ParseWarning(
                "truncated",
                f"ends before its glossary: an incomplete copy of the edition of "
                f"{effective.isoformat()}, kept as a fragment",
                last + 1,
            )
        )
    elif fragment:
        body, offset = lines, 0
        wrapped = False
    else:
        if body_start is None:  # "edition" said by editions.toml of a text with no rules: none to parse
            body_start = len(lines)
        end = glossary_at if glossary_at is not None else len(lines)
        body, offset = lines[body_start:end], body_start
        wrapped = _is_hard_wrapped(body)
        if glossary_at is not None:
            g_end = _find_line(lines, AFTER_GLOSSARY, glossary_at + 1) or len(lines)
            glossary, gw = parse_glossary(lines[glossary_at + 1 : g_end], glossary_at + 1, wrapped)
            warnings.extend(gw)
    parser = _Parser(body, fragment=fragment, wrapped=wrapped, offset=offset, lang=lang)
    parser.run()
    rules = parser.finish()
    if fragment:
        glossary = parser.glossary()
    warnings = parser.warnings + warnings
    name = f"{lang}/{effective.isoformat()}" if effective and not fragment else f"{lang}/{stem}"
    if title is None and fragment:  # a document's own heading or the rules it quotes, not its file stem
        from .describe import document_title

        title = document_title(rules, glossary, stem)
    elif title is None:
        title = f"{languages.get(lang).labels['home']}, {effective.isoformat()}" if effective else stem
    digest = sha256 or hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Edition(
        name=name,
        lang=lang,
        effective=effective,
        kind=kind,
        source=str(source),
        sha256=digest,
        title=title,
        rules=tuple(rules),
        glossary=tuple(glossary),
        warnings=tuple(warnings),
        sources=(str(source),),
    )
