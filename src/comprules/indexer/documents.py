"""The index schema, and the documents made from editions.

One document per distinct unit *text*: a rule (every kind, chapters included) or a
glossary entry whose language, id, title and text are the same in several editions
is indexed once, with the list of those editions in its ``editions`` field. Most
rules are unchanged from one edition to the next, so 74 English editions hold about
7 times fewer distinct texts than units; filtering on ``editions`` still gives
exactly the units of one edition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from whoosh.fields import ID, KEYWORD, STORED, Schema

from ..errors import UsageError
from ..model import Edition, GlossaryEntry, Rule
from .analysis import LANGS, analyzer_for, exact_analyzer, field_lang
from .fields import CachedText

#: Bumped whenever the schema or the meta file changes; an older index must be rebuilt.
FORMAT = 1

#: Query-time weight of each analyzed field (one per language: ``title_en``, ``title_fr``…):
#: ``title`` holds keyword headings ("702.26. Phasing") and glossary headwords (with
#: aliases), ``body`` the rule text, ``examples`` its examples (weighted lower, so a long
#: example does not drown the rule it illustrates).
FIELD_BOOSTS = {"title": 4.0, "body": 1.0, "examples": 0.5}

#: Field of the exact (folded, unstemmed) words of a unit's title and of its ancestors'
#: titles, and its weight: 702.26b is about "Phasing" (its rule's title), and the query
#: "phasing" ranks the phasing rules above the turn's phases, which stem alike.
EXACT_FIELD = "names"
EXACT_BOOST = 4.0

GLOSSARY = "glossary"


def make_schema() -> Schema:
    """The whoosh schema: filter fields, stored display fields, and text per language.

    ``editions`` lists the editions holding the unit (space-separated names);
    ``effective`` is the latest of their dates (sortable; empty for fragments);
    ``unit`` stores what a hit shows (number, id, title, text).

    ``number`` holds the printed number and, when it differs, the unit's id
    (``702.175 702.175~2``, ``¶3``), so both look-ups hit.
    """
    schema = Schema(
        editions=KEYWORD(stored=True, scorable=False),
        lang=ID(stored=True),
        effective=ID(stored=True, sortable=True),
        number=KEYWORD(scorable=False),
        section=ID(stored=True),
        chapter=STORED,
        kind=STORED,
        unit=STORED,
    )
    for lang in LANGS:
        for name in FIELD_BOOSTS:
            schema.add(f"{name}_{lang}", CachedText(analyzer=analyzer_for(lang), phrase=True))
    schema.add(EXACT_FIELD, CachedText(analyzer=exact_analyzer(), phrase=True))
    return schema


def text_fields(lang: str | None) -> list[str]:
    """The analyzed fields to query for ``lang`` (both languages when ``None``)."""
    langs = LANGS if lang is None else (field_lang(lang),)
    return [f"{name}_{code}" for code in langs for name in FIELD_BOOSTS] + [EXACT_FIELD]


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


@dataclass
class Corpus:
    """Every distinct unit of a set of editions, ready to write."""

    docs: dict[tuple, dict] = field(default_factory=dict)
    editions: dict[str, EditionInfo] = field(default_factory=dict)
    units: int = 0

    def current(self) -> list[str]:
        """The latest dated edition of each language, and every undated document."""
        latest: dict[str, EditionInfo] = {}
        for info in self.editions.values():
            if info.dated and (info.lang not in latest or info.effective > latest[info.lang].effective):
                latest[info.lang] = info
        chosen = {info.name for info in latest.values()}
        return [n for n, info in self.editions.items() if n in chosen or not info.dated]


def in_order(corpus: Corpus) -> tuple[list[dict], int]:
    """The documents, those of the default scope first, and how many those are."""
    current = set(corpus.current())
    first = [d for d in corpus.docs.values() if any(e in current for e in d["editions"])]
    rest = [d for d in corpus.docs.values() if not any(e in current for e in d["editions"])]
    return first + rest, len(first)


def analyzed_texts(doc: dict) -> dict[str, str]:
    """The text of each analyzed field of one document."""
    code = field_lang(doc["lang"])
    return {
        f"title_{code}": doc["heading"],
        f"body_{code}": doc["rule_text"],
        f"examples_{code}": doc["examples"],
        EXACT_FIELD: doc["heading"] + "\n" + doc["context"],
    }


def collect(editions: Iterable[Edition]) -> Corpus:
    """Gather the distinct units of ``editions`` (read once, in any order)."""
    corpus = Corpus()
    for edition in editions:
        known = corpus.editions.get(edition.name)
        if known is not None:
            if known.sha256 == edition.sha256:
                continue
            raise UsageError(f"two different documents are named {edition.name} ({edition.source})")
        effective = edition.effective.isoformat() if edition.effective else None
        units = 0
        for unit in _units(edition):
            units += 1
            _add(corpus, unit, edition.name, effective)
        corpus.editions[edition.name] = EditionInfo(
            edition.name, edition.lang, effective, edition.kind, units, edition.sha256
        )
        corpus.units += units
    return corpus


def _units(edition: Edition) -> Iterable[dict]:
    for rule in edition.rules:
        doc = _rule_doc(rule, edition.lang, _context(edition, rule))
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


def _rule_doc(rule: Rule, lang: str, context: str) -> dict | None:
    text = rule.text.strip()
    text = text if text != rule.title else ""
    examples = "\n".join(e for e in rule.examples if e)
    body = "\n".join(part for part in (text, examples) if part)
    if not body and not rule.title:
        return None
    return {
        "lang": lang,
        "number": rule.number,
        "rid": rule.id,
        "section": rule.section or "",
        "chapter": rule.chapter or "",
        "kind": rule.kind,
        "title": rule.title or "",
        "text": body,
        "rule_text": text,
        "examples": examples,
        "heading": rule.title or "",
        "context": context,
    }


def _glossary_doc(entry: GlossaryEntry, lang: str) -> dict:
    names = [entry.term, *(a for a in entry.aliases if a != entry.term)]
    return {
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
        "context": "",
    }


def _add(corpus: Corpus, unit: dict, edition: str, effective: str | None) -> None:
    key = (unit["lang"], unit["kind"], unit["rid"], unit["number"], unit["title"], unit["text"], unit["context"])
    doc = corpus.docs.get(key)
    if doc is None:
        doc = corpus.docs[key] = {**unit, "editions": [], "effective": ""}
    if edition not in doc["editions"]:
        doc["editions"].append(edition)
    if effective and effective > doc["effective"]:
        doc["effective"] = effective


def whoosh_document(doc: dict) -> dict:
    """The fields handed to ``writer.add_document`` for one distinct unit."""
    number = doc["number"] if doc["rid"] == doc["number"] else f"{doc['number']} {doc['rid']}"
    return {
        "editions": " ".join(doc["editions"]),
        "lang": doc["lang"],
        "effective": doc["effective"],
        "number": number,
        "section": doc["section"],
        "chapter": doc["chapter"],
        "kind": doc["kind"],
        "unit": {"number": doc["number"], "id": doc["rid"], "title": doc["title"] or None, "text": doc["text"]},
        **analyzed_texts(doc),
    }


def vocabulary(schema: Schema) -> dict[str, list[str]]:
    """The words indexed in each language's fields (for spelling suggestions).

    Read from the words ``CachedText`` analyzed while indexing: no second pass.
    """
    out: dict[str, list[str]] = {}
    for lang in LANGS:
        words: set[str] = set()
        for name in FIELD_BOOSTS:
            words.update(schema[f"{name}_{lang}"].words())
        out[lang] = sorted(words)
    return out
