"""What a card can call on, and which rules of an edition each concept is.

A *concept* is something of the rules a card's text or type line can name, keyed the same
way in every edition:

* ``keyword:flash``: a keyword ability, a rule of the edition's "Keyword Abilities"
  section (702 since 2009, 502 before), found by the section's title and the rules'
  headings, never from a list of numbers;
* ``action:destroy``: a keyword action ("Keyword Actions", 701 / 501);
* ``glossary:dies``: a glossary entry (its headword and aliases), for the rules its
  definition cites;
* ``type:creature``, ``supertype:legendary``, ``subtype:aura``: a card type (the section
  of chapter 3 titled with it), a supertype (the rule for "the supertype X"), a subtype
  (its list rule, 205.3g…, and the rules the list points to: Aura → 303.4, Saga → 714;
  the basic land types → the rule that names them, 305.6);
* ``wording:instead``: a wording that has rules of its own, a row of
  ``data/card_wordings.toml`` (its rules are numbered as in the latest English edition
  and found in an older one through the lineage of each rule).

:func:`edition_concepts` gives, for one edition, every concept it defines with its rules
and label; :func:`detectors` turns the labels into the patterns
:mod:`comprules.cards.analyse` looks for.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

from ..model import Edition, Rule
from ..model import fold_name as fold

#: How much a concept kind says about a rules question (search weighs the rules of a card by it).
KIND_WEIGHT = {
    "wording": 1.0,
    "keyword": 1.0,
    "action": 0.6,
    "subtype": 0.6,
    "supertype": 0.6,
    "type": 0.3,
    "glossary": 0.3,
}

WORDINGS_FILE = "card_wordings.toml"


@dataclass(frozen=True)
class Wording:
    """One row of ``card_wordings.toml``: a wording with rules of its own."""

    id: str
    label: str
    patterns: tuple[str, ...]
    rules: tuple[str, ...]
    note: str = ""
    weight: float = 1.0


@dataclass(frozen=True)
class Form:
    """Extra patterns for a keyword or action whose printed form is not its heading
    (``swampwalk`` for Landwalk, ``counter target`` for Counter)."""

    concept: str
    patterns: tuple[str, ...]
    only: bool = False


@dataclass(frozen=True)
class Table:
    """The wordings and forms of ``card_wordings.toml``, and the edition their rule numbers
    are written in."""

    numbered_in: str
    wordings: tuple[Wording, ...]
    forms: tuple[Form, ...]


@functools.lru_cache(maxsize=1)
def wordings_table() -> Table:
    """``comprules/data/card_wordings.toml``, read once. Raises ``ValueError`` naming the
    file and the row for a row without its keys or with a pattern that does not compile."""
    text = resources.files("comprules").joinpath("data", WORDINGS_FILE).read_text(encoding="utf-8")
    return parse_table(text, WORDINGS_FILE)


def parse_table(text: str, where: str = WORDINGS_FILE) -> Table:
    """The :class:`Table` of a wordings file's text (``where`` names it in errors)."""
    raw = tomllib.loads(text)
    wordings = []
    for i, row in enumerate(raw.get("wording", ()), 1):
        try:
            pats = tuple(row["patterns"])
            for p in pats:
                re.compile(p)
            wordings.append(
                Wording(
                    row["id"],
                    row.get("label", row["id"]),
                    pats,
                    tuple(row["rules"]),
                    row.get("note", ""),
                    float(row.get("weight", 1.0)),
                )
            )
        except (KeyError, TypeError, re.error) as exc:
            raise ValueError(f"{where}: wording {i} ({row.get('id', '?')}): {exc}") from None
    forms = []
    for i, row in enumerate(raw.get("form", ()), 1):
        try:
            pats = tuple(row["patterns"])
            for p in pats:
                re.compile(p)
            forms.append(Form(row["concept"], pats, bool(row.get("only", False))))
        except (KeyError, TypeError, re.error) as exc:
            raise ValueError(f"{where}: form {i} ({row.get('concept', '?')}): {exc}") from None
    return Table(str(raw.get("numbered_in", "")), tuple(wordings), tuple(forms))


def slug(label: str) -> str:
    """``first-strike`` of ``First Strike``; ``urza's`` → ``urza-s``."""
    return re.sub(r"[^a-z0-9]+", "-", fold(label)).strip("-")


# --- the concepts of an edition ----------------------------------------------------------


@dataclass(frozen=True)
class EditionConcepts:
    """One edition's concepts: key → the rule ids it calls on (in that edition), and key →
    its label (as the edition prints it)."""

    edition: str
    rules: Mapping[str, tuple[str, ...]]
    labels: Mapping[str, str]


_SEE_RULE = re.compile(r"\(see rules? ([0-9][0-9.a-z]*(?:(?:, | and |, and |–)[0-9][0-9.a-z]*)*)")
_NUMBER = re.compile(r"\d{3}(?:\.\d+[a-z]{0,2})?")
_QUOTED = re.compile(r"[“\"]([^”\"]+)[”\"]")


def _section_by_title(edition: Edition, *titles: str) -> Rule | None:
    want = {fold(t) for t in titles}
    for r in edition.rules:
        if r.kind == "section" and r.title and fold(r.title) in want:
            return r
    return None


def _headed_rules(edition: Edition, section: Rule) -> list[Rule]:
    """The rules of a section that are headings (``702.8. Flash``): a title and no text of
    their own beyond it."""
    return [r for r in edition.children.get(section.number, []) if r.kind == "rule" and r.title]


def _cited(text: str) -> list[str]:
    out = []
    for m in _SEE_RULE.finditer(text):
        out += _NUMBER.findall(m.group(1))
    return out


def _list_items(text: str) -> list[tuple[str, list[str]]]:
    """The names of the list sentences of a rule ("The artifact types are Attraction (see
    rule 717), Blood, … and Vehicle (see rule 301.7)."; "All other creature types are one
    word long: Advisor, …") with the rules each name points to."""
    items = []
    for m in re.finditer(r"(?:types? (?:are|is)|long:)\s+(?=[A-Z])", text):
        body = text[m.end() :]
        depth, end = 0, len(body)  # the list ends at a period outside parentheses
        for i, ch in enumerate(body):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "." and depth == 0 and (i + 1 == len(body) or body[i + 1] == " "):
                end = i
                break
        for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", body[:end]):
            part = part.strip()
            name = re.sub(r"\s*\(.*\)\s*$", "", part).strip()
            if name and name[:1].isupper() and len(name.split()) <= 4:
                items.append((name, _cited(part)))
    return items


def edition_concepts(
    edition: Edition,
    *,
    glossary_refs: Mapping[str, Iterable[str]] | None = None,
    table: Table | None = None,
    at: Callable[[str], str | None] | None = None,
) -> EditionConcepts:
    """Every concept ``edition`` defines, with its rule ids and labels.

    ``glossary_refs``: slug → the rule ids a glossary entry's definition cites (from
    :func:`comprules.references.resolve`; computed when not given). ``at(key)``: the id
    in this edition of the rule whose lineage key (its number in the latest English
    edition) is ``key``, ``None`` when the edition has none; without it, a wording's rule
    is taken when the edition has a rule of that number.
    """
    table = table or wordings_table()
    rules: dict[str, list[str]] = {}
    labels: dict[str, str] = {}

    def add(key: str, label: str, ids: Iterable[str]) -> None:
        labels.setdefault(key, label)
        bucket = rules.setdefault(key, [])
        for rid in ids:
            if rid and rid not in bucket and edition.get(rid) is not None:
                bucket.append(rid)

    for kind, titles in (
        ("keyword", ("Keyword Abilities",)),
        ("action", ("Keyword Actions",)),
    ):
        section = _section_by_title(edition, *titles)
        if section is None:
            continue
        for r in _headed_rules(edition, section):
            add(f"{kind}:{slug(r.title or '')}", r.title or "", [r.id])

    chapter3 = [r for r in edition.rules if r.kind == "section" and r.number.startswith("3") and r.title]
    # where a card type's rules are: a section of chapter 3, or before 2009 a titled rule of
    # chapter 2 ("212.3. Creatures")
    type_rules = chapter3 + [r for r in edition.rules if r.kind == "rule" and r.number.startswith("2") and r.title]
    listed = False
    for r in edition.rules:
        if r.number[:1] not in "23":  # the type lists and supertypes are in chapters 2 and 3
            continue
        text = r.text or ""
        if re.search(r"\bThe card types are\b", text):
            listed = True
            for word in re.findall(r"[a-z]+", text.split("card types are", 1)[1].split(".")[0]):
                if word == "and":
                    continue
                section = _plural_section(type_rules, word)
                add(f"type:{slug(word)}", word.capitalize(), [section.id] if section else [r.id])
        if re.search(r"\b(?:[A-Za-z]+ )?types are\b|\btypes? (?:is|are) one word long\b|\blong:", text) and (
            "subtype" in text or "types are" in text
        ):
            if "card types are" in text or "supertypes are" in text:
                continue
            for name, cited in _list_items(text):
                add(f"subtype:{slug(name)}", name, [r.id, *cited])
        m = re.search(r"The basic land types are ([^.]+)\.", text)
        if m:
            for name in re.findall(r"[A-Z][a-z]+", m.group(1)):
                add(f"subtype:{slug(name)}", name, [r.id])
        for sup in re.findall(r"with the supertype [“\"]([a-z]+)[”\"]", text):
            add(f"supertype:{slug(sup)}", sup.capitalize(), [r.id, *_cited(text)])
    if not listed:  # no list of the card types (1999–2005): their titled rules
        for word in CARD_TYPES:
            found = _plural_section(type_rules, word)
            if found is not None:
                add(f"type:{slug(word)}", word.capitalize(), [found.id])
    refs = glossary_refs
    if refs is None:
        from .. import references

        refs = references.resolve(edition).glossary_refs
    for g in edition.glossary:
        if g.obsolete and not refs.get(g.slug):
            continue
        names = [n.strip() for n in re.split(r",\s+", g.term) if n.strip()]
        names += [a.strip('“”" ') for a in g.aliases if a.strip('“”" ')]
        key_name = re.sub(r"\s*\(obsolete\)\s*$", "", names[0], flags=re.I) if names else g.term
        covered = any(f"{k}:{slug(key_name)}" in labels for k in ("keyword", "action", "type", "supertype", "subtype"))
        if covered:
            continue
        add(f"glossary:{g.slug}", key_name, list(refs.get(g.slug, ())))
        for alias in names[1:]:
            labels.setdefault(f"glossary:{g.slug}|{slug(alias)}", alias)
    for w in table.wordings:
        ids = []
        for number in w.rules:
            rid = at(number) if at is not None else number
            if rid is not None:
                ids.append(rid)
        add(f"wording:{w.id}", w.label, ids)
    return EditionConcepts(
        edition.name,
        {k: tuple(v) for k, v in rules.items() if v},
        {k: v for k, v in labels.items() if "|" in k or rules.get(k)},
    )


#: The card types of every edition (205.2a of 2026-08-07 and the "tribal" of 2007–2023),
#: looked for by their rules' titles in an edition that prints no list of them (a trial:
#: `card "Blood Moon" -e 1999-04-23` listed no rule, though 214.8 is "Enchantments").
CARD_TYPES = (
    *("creature", "artifact", "enchantment", "land", "planeswalker", "battle"),  # permanents
    *("instant", "sorcery", "kindred", "tribal"),
    *("plane", "phenomenon", "scheme", "vanguard", "conspiracy", "dungeon"),  # casual variants' cards
)


def _plural_section(sections: list[Rule], word: str) -> Rule | None:
    forms = {word + "s", word + "es", word[:-1] + "ies", word[:-2] + "a", word}
    for s in sections:
        if fold(s.title or "") in forms:
            return s
    return None


# --- patterns ------------------------------------------------------------------------------


def inflections(word: str) -> list[str]:
    """The forms a rules word takes in card text: ``destroy`` → destroys, destroyed,
    destroying; ``tap`` → taps, tapped, tapping; ``scry`` → scries, scried."""
    w = word.lower()
    out = {w, w + "s", w + "es", w + "ed", w + "d", w + "ing"}
    if w.endswith("e"):
        out |= {w[:-1] + "ing", w + "d"}
    if w.endswith("y"):
        out |= {w[:-1] + "ies", w[:-1] + "ied"}
    if len(w) >= 3 and w[-1] not in "aeiouwxy" and w[-2] in "aeiou" and w[-3] not in "aeiou":
        out |= {w + w[-1] + "ed", w + w[-1] + "ing"}
    if w.endswith("ies"):
        out.add(w[:-3] + "y")
    if w.endswith("s"):
        out.add(w[:-1])
    return sorted(out, key=len, reverse=True)


def _needle(pattern: str) -> str | None:
    """A literal a text (lower case) must hold for ``pattern`` to match: the longest run of
    plain letters it requires (``cycling`` of ``\\b[a-z]*cycling\\b``), or, when the pattern
    has alternatives, its leading word (``instead`` of ``\\binstead\\b``; ``get`` of
    ``\\bgets?``); ``~`` for one about the card's own name; ``None`` when there is none."""
    m = re.match(r"(?:\\b)?([~a-z][a-z]*)(\??)", pattern)
    lead = None
    if m:
        word = m.group(1)[:-1] if m.group(2) else m.group(1)  # "gets?": "get"
        lead = word[:6] or None
    if "|" in pattern or "(?" in pattern.replace("(?:", "") or lead == "~":
        return lead
    plain = re.sub(r"\\[a-zA-Z]|\[[^\]]*\]|\{[^}]*\}", " ", pattern)  # escapes, classes, counts
    runs = [r for r in re.split(r"[^a-z]+", re.sub(r"[a-z][?*]", " ", plain)) if len(r) >= 3]
    best = max(runs, key=len, default=None)
    return best if best and (lead is None or len(best) > len(lead)) else lead


def label_pattern(label: str, *, inflect: bool, plural: bool = True) -> str:
    """The regular expression of a label: its words with flexible spacing, the first word
    inflected (``inflect``) or the last one pluralised."""
    words = fold(label).replace("'", "['’]").split()
    if not words:
        return r"(?!x)x"
    if inflect:
        head = "(?:" + "|".join(re.escape(f) for f in inflections(words[0])) + ")"
        body = [head, *map(re.escape, words[1:])]
    elif plural:
        w = words[-1]
        forms = {w, w + "s", w + "es", w[:-1] + "ies" if w.endswith("y") else w, w[:-1] if w.endswith("s") else w}
        last = "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + ")"
        body = [*map(re.escape, words[:-1]), last]
    else:
        body = list(map(re.escape, words))
    return LEFT + r"\s+".join(body).replace(r"\['’\]", "['’]") + r"(?![\w])"


#: What precedes a label's first word: not a letter, digit, slash, plus or minus.
LEFT = r"(?<![\w/+-])"


@dataclass(frozen=True)
class Detector:
    """A concept and the compiled pattern that finds it in card text (case-insensitive)."""

    concept: str
    kind: str
    pattern: re.Pattern[str]
    places: tuple[str, ...]
    #: The words one of which a text must hold for the pattern to match (``None``: try it
    #: on every text).
    anchors: frozenset[str] | None = None
    #: Substrings (lower case) one of which a text must hold (``None``: no such test).
    needles: tuple[str, ...] | None = None
    #: The pattern without its left boundary, matched where an anchor word starts.
    at: re.Pattern[str] | None = None


def detectors(labels: Mapping[str, str], table: Table | None = None, *, rich: Iterable[str] = ()) -> list[Detector]:
    """The detectors of ``labels`` (concept key → label, the union over the editions
    built; a key ``glossary:slug|alias`` adds an alias of ``glossary:slug``), most specific
    first: wordings, keywords, actions, types, glossary terms. A subtype is looked for in
    rules text only when it is in ``rich`` (a subtype with rules of its own beyond its
    type list: Aura, Equipment, the basic land types); every subtype is in type lines."""
    rich = set(rich)
    table = table or wordings_table()
    forms: dict[str, list[Form]] = {}
    for f in table.forms:
        forms.setdefault(f.concept, []).append(f)
    order = {"wording": 0, "keyword": 1, "action": 2, "supertype": 3, "type": 3, "subtype": 3, "glossary": 4}
    out = []
    wordings = {f"wording:{w.id}": w for w in table.wordings}
    for key, label in sorted(labels.items(), key=lambda kv: (order.get(kv[0].split(":")[0], 9), kv[0])):
        kind = key.split(":", 1)[0]
        concept = key.split("|", 1)[0]
        anchors: frozenset[str] | None = None
        own = ""
        if kind == "wording":
            w = wordings.get(key)
            pats = list(w.patterns) if w else []
        else:
            extra = forms.get(concept, [])
            own = label_pattern(label, inflect=kind == "action", plural=kind != "keyword")
            pats = [] if any(f.only for f in extra) else [own]
            pats += [p for f in extra for p in f.patterns]
            words = fold(label).split()
            if not extra and words:
                first = words[0].replace("'", "")
                one = kind == "action" or (len(words) == 1 and kind == "glossary")
                anchors = frozenset(inflections(first) if one else [first, first + "s"])
        if not pats:
            continue
        if kind in ("type", "supertype") or (kind == "subtype" and concept not in rich):
            places: tuple[str, ...] = ("type",)
        else:
            places = ("text", "type") if kind == "subtype" else ("text",)
        joined = "|".join(f"(?:{p})" for p in pats).replace("~", "~+")
        found = [_needle(p) if kind == "wording" or p != own else _needle(p[len(LEFT) :]) for p in pats]
        needles = tuple(n for n in found if n) if all(found) else None
        at = re.compile(own[len(LEFT) :], re.I) if anchors is not None else None
        out.append(Detector(concept, kind, re.compile(joined, re.I), places, anchors, needles, at))
    return out
