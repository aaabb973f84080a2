"""The index schema, and the documents made from editions.

One document per distinct unit *text*: a rule (every kind, chapters included) or a
glossary entry whose language, id, title and text are the same in several editions
is indexed once, and the side table (:mod:`.table`) lists the editions holding it.
Most rules are unchanged from one edition to the next, so 74 English editions hold
about 8 times fewer distinct texts than units. whoosh holds only what never changes
for a document (its analyzed text and what a hit shows); which editions hold it
lives beside, so that a changed edition re-indexes only its own new texts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from whoosh.fields import STORED, Schema

from ..errors import UsageError
from ..model import Edition, GlossaryEntry, Rule, plain_text
from .analysis import LANGS, analyzer_for, field_lang
from .fields import CachedText
from .languages import SENSES

#: Bumped whenever the schema, the side files or the meta file change; an older
#: index is rebuilt in full.
FORMAT = 6
#: The index's meta file and its token → term tables (:mod:`.suggest`).
META_FILE = "comprules-index.json"
VOCAB_FILE = "vocabulary.json"
#: The size of every file of a generation, written last (:func:`damaged`).
SIZES_FILE = "sizes.json"


def record_sizes(directory: Path) -> None:
    """Write :data:`SIZES_FILE`: ``{file name: bytes}`` of every file of the finished
    generation ``directory`` (whoosh's lock file aside)."""
    sizes = {
        entry.name: entry.stat().st_size
        for entry in os.scandir(directory)
        if entry.is_file() and not entry.name.endswith("WRITELOCK") and entry.name != SIZES_FILE
    }
    (directory / SIZES_FILE).write_text(json.dumps(sizes, sort_keys=True, indent=0), encoding="utf-8")


def damaged(directory: Path) -> str | None:
    """What is wrong with the files of the index generation ``directory`` (``kb/index``
    or the generation it points to): a file missing or not of the size the build wrote
    (a copy cut short, a disk that filled up, a truncated file), as one phrase naming
    the file; ``None`` when every file is whole, or for an index written before sizes
    were recorded. Reads no file but :data:`SIZES_FILE` (a stat each, well under a
    millisecond)."""
    try:
        sizes = json.loads((Path(directory) / SIZES_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        return f"{SIZES_FILE} cannot be read ({error})"
    if not isinstance(sizes, dict):
        return f"{SIZES_FILE} is not a table of sizes"
    for name, size in sorted(sizes.items()):
        try:
            found = os.stat(Path(directory) / name).st_size
        except OSError:
            return f"{name} is missing"
        if found != size:
            return f"{name} has {found:,} bytes, {size:,} when it was written"
    return None


#: The analyzed fields, one set per language (``title_en``, ``body_fr``…): ``title``
#: holds keyword headings ("702.26. Phasing"), section titles and glossary headwords
#: (with aliases), ``body`` the rule text, ``examples`` its examples, ``context`` the
#: titles of its ancestors (702.26b never says "phasing", its rule does). Their
#: weights in the BM25F impacts are in :data:`.impacts.FIELD_WEIGHTS`.
#: ``gloss`` holds the headwords and definitions of the glossary entries that cite the
#: rule ("Tap Symbol: The tap symbol {T} … See rule 107.5." for 107.5).
FIELDS = ("title", "body", "examples", "context", "gloss")

GLOSSARY = "glossary"

#: "See rule 702.26", "See rules 613.7 and 702.37", "voir règle 504": what a glossary
#: definition points to (shown right after it when its headword is searched).
_CITES = re.compile(
    r"\b(?:rules?|sections?|r[èe]gles?)\s+((?:\d{3}(?:\.\d+[a-z]{0,2})?(?:[–-][a-z])?(?:,\s*|,?\s+(?:and|or|et|ou)\s+)?)+)",
    re.I,
)
_CITED_NUMBER = re.compile(r"\d{3}(?:\.\d+[a-z]{0,2})?")


def cited_rules(text: str) -> tuple[str, ...]:
    """The rule and section numbers a glossary definition cites, in order, once each.

    >>> cited_rules("A status. See rule 110.5 and rule 702.37, “Morph.” See rules 613.7 and 708.")
    ('110.5', '702.37', '613.7', '708')
    """
    found = [n for m in _CITES.finditer(text) for n in _CITED_NUMBER.findall(m.group(1))]
    return tuple(dict.fromkeys(found))


#: The ``--kind`` choices and the unit kinds each one selects (``example``: the rules
#: whose examples match, searched in their examples only).
KINDS = {
    "rule": frozenset({"chapter", "section", "rule", "subrule", "passage"}),
    "example": frozenset({"chapter", "section", "rule", "subrule", "passage"}),
    "glossary": frozenset({GLOSSARY}),
    "note": frozenset({"note"}),
}


def make_schema() -> Schema:
    """The whoosh schema: what a hit shows (``unit``, stored) and the text per language.

    ``unit`` stores the number, id, title, text and examples of the unit.
    """
    schema = Schema(unit=STORED)
    for lang in LANGS:
        for name in FIELDS:
            schema.add(f"{name}_{lang}", CachedText(analyzer=analyzer_for(lang), lang=lang, phrase=False))
    return schema


def text_fields(lang: str | None) -> list[str]:
    """The analyzed fields of ``lang`` (every language's when ``None``)."""
    langs = LANGS if lang is None else (field_lang(lang),)
    return [f"{name}_{code}" for code in langs for name in (*FIELDS, "names")]


@dataclass(frozen=True, slots=True)
class EditionInfo:
    """What the index remembers of one edition (for resolving names and scopes)."""

    name: str
    lang: str
    effective: str | None
    kind: str
    units: int
    sha256: str = ""

    @property
    def dated(self) -> bool:
        return self.effective is not None

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "lang": self.lang,
            "effective": self.effective,
            "kind": self.kind,
            "units": self.units,
            "sha256": self.sha256,
        }


def current_editions(editions: Iterable[EditionInfo]) -> list[str]:
    """The latest dated edition of each language, and every undated document."""
    editions = list(editions)
    latest: dict[str, EditionInfo] = {}
    for info in editions:
        if info.dated and (info.lang not in latest or info.effective > latest[info.lang].effective):
            latest[info.lang] = info
    chosen = {info.name for info in latest.values()}
    return [info.name for info in editions if info.name in chosen or not info.dated]


@dataclass
class Corpus:
    """Every distinct unit of a set of editions, ready to write."""

    docs: dict[bytes, dict] = field(default_factory=dict)
    editions: dict[str, EditionInfo] = field(default_factory=dict)
    units: int = 0

    def current(self) -> list[str]:
        """The latest dated edition of each language, and every undated document."""
        return current_editions(self.editions.values())


def edition_info(edition: Edition, units: int) -> EditionInfo:
    effective = edition.effective.isoformat() if edition.effective else None
    return EditionInfo(edition.name, edition.lang, effective, edition.kind, units, edition.content_key)


def collect(editions: Iterable[Edition]) -> Corpus:
    """Gather the distinct units of ``editions`` (read once, in any order)."""
    corpus = Corpus()
    for edition in unique(editions):
        units = 0
        for unit in units_of(edition):
            units += 1
            doc = corpus.docs.get(unit["key"])
            if doc is None:
                doc = corpus.docs[unit["key"]] = {**unit, "editions": []}
            if doc["editions"][-1:] != [edition.name]:  # a text printed twice in one edition
                doc["editions"].append(edition.name)
        corpus.editions[edition.name] = edition_info(edition, units)
        corpus.units += units
    return corpus


def unique(editions: Iterable[Edition]) -> Iterable[Edition]:
    """``editions`` without repeats; ``UsageError`` for two different documents of one name."""
    seen: dict[str, Edition] = {}
    for edition in editions:
        known = seen.get(edition.name)
        if known is not None:
            if known.sha256 == edition.sha256:
                continue
            raise UsageError(f"two different documents are named {edition.name} ({edition.source})")
        seen[edition.name] = edition
        yield edition


def units_of(edition: Edition) -> Iterable[dict]:
    """The indexed units of one edition (rules of every kind, glossary entries), each
    with its ``key``: the digest of what makes two units the same document."""
    glossed: dict[str, list[str]] = {}
    for entry in edition.glossary:
        for number in cited_rules(entry.text):
            glossed.setdefault(number, []).append(plain_text(f"{entry.term}\n{entry.text}"))
    for rule in edition.rules:
        doc = _rule_doc(rule, edition.lang, _context(edition, rule), "\n".join(glossed.get(rule.number, ())))
        if doc is not None:
            yield doc
    for entry in edition.glossary:
        yield _glossary_doc(entry, edition.lang)


def _context(edition: Edition, rule: Rule) -> str:
    """The titles of the rule's ancestors, nearest first, up to its section."""
    titles, parent = [], edition.get(rule.parent) if rule.parent else None
    while parent is not None and parent.kind != "chapter":
        if parent.title:
            titles.append(parent.title)
        parent = edition.get(parent.parent) if parent.parent else None
    return "\n".join(titles)


def _rule_doc(rule: Rule, lang: str, context: str, gloss: str = "") -> dict | None:
    text = plain_text(rule.text.strip())
    title = plain_text(rule.title or "")
    text = text if text != title else ""
    examples = "\n".join(plain_text(e) for e in rule.examples if e)
    body = "\n".join(part for part in (text, examples) if part)
    if not body and not title:
        return None
    return _keyed(
        {
            "lang": lang,
            "number": rule.number,
            "rid": rule.id,
            "section": rule.section or "",
            "chapter": rule.chapter or "",
            "kind": rule.kind,
            "title": title,
            "text": body,
            "rule_text": text,
            "examples": examples,
            "heading": title,
            "names": [title] if title else [],
            "context": context,
            "gloss": gloss,
            "cites": (),
        }
    )


def _glossary_doc(entry: GlossaryEntry, lang: str) -> dict:
    names = [entry.term, *(a for a in entry.aliases if a != entry.term)]
    return _keyed(
        {
            "lang": lang,
            "number": entry.slug,
            "rid": entry.slug,
            "section": "",
            "chapter": "",
            "kind": GLOSSARY,
            "title": entry.term,
            "text": entry.text,
            "rule_text": entry.text,
            "examples": "",
            "heading": "\n".join(names),
            "names": names,
            "context": "",
            "gloss": "",
            "cites": cited_rules(entry.text),
        }
    )


def _keyed(doc: dict) -> dict:
    parts = (
        doc["lang"],
        doc["kind"],
        doc["rid"],
        doc["number"],
        doc["title"],
        doc["text"],
        doc["context"],
        doc["gloss"],
    )
    doc["key"] = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=16).digest()
    return doc


def analyzed_texts(doc: dict) -> dict[str, str]:
    """The text of each analyzed field of one document (none for a language without an
    analyzer of its own, :data:`.languages.ANALYZERS`: its units are found by number)."""
    if doc["lang"] not in LANGS:  # a language without an analyzer: found by its numbers only
        return {}
    code = field_lang(doc["lang"])
    return {
        f"title_{code}": doc["heading"],
        f"body_{code}": doc["rule_text"],
        f"examples_{code}": doc["examples"],
        f"context_{code}": doc["context"],
        f"gloss_{code}": doc["gloss"],
    }


def exact_texts(doc: dict) -> dict[str, str]:
    """The text of the exact-word list of one document: its heading and its ancestors'
    titles, whose tokens are indexed unstemmed ("phasing" is not "phase")."""
    if doc["lang"] not in LANGS:
        return {}
    return {f"names_{field_lang(doc['lang'])}": doc["heading"] + "\n" + doc["context"]}


def whoosh_document(doc: dict) -> dict:
    """The fields handed to ``writer.add_document`` for one distinct unit."""
    unit = {"number": doc["number"], "id": doc["rid"], "title": doc["title"] or None, "text": doc["text"]}
    if doc["examples"]:
        unit["examples"] = doc["examples"]
    return {"unit": unit, **analyzed_texts(doc)}


def vocabulary(schema: Schema) -> dict[str, dict[str, str]]:
    """Per language, every token its fields indexed → its term (the query side's table).

    Read from what ``CachedText`` analyzed while indexing: no second pass. The forms of
    a word sense (``data/word_senses.toml``) whose term the index holds are listed even
    when no document prints them ("died", "dying" → "dies"), so that the query side,
    which looks a token up in this table, gives them their sense's term, not the
    term of an inflection of theirs ("died" → "die", the die rolled).
    """
    out: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        seen: dict[str, str] = {}
        for name in FIELDS:
            seen.update(schema[f"{name}_{lang}"].seen())
        terms = set(seen.values())
        for form, term in SENSES.get(lang, {}).items():
            if term in terms:
                seen.setdefault(form, term)
        out[lang] = seen
    return out
