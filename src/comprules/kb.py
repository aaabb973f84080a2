"""Read a built knowledge base: list editions, name them, load them, show one rule.

An edition is named ``en/2026-08-07``, ``2026-08-07`` (language inferred when
unique), ``en/latest``, ``fr/003_816c607ad111474a`` (a fragment, by file stem), or
by a source file path, parsed on the fly (DESIGN.md, "Command line").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import export, references
from .errors import NotFound, UsageError
from .model import Edition, Rule, sort_key

_CITATION = re.compile(r"^R?(\d)(\d\d)(?:\.?(\d+)([a-z]{0,2}))?$")


@dataclass(frozen=True)
class EditionInfo:
    """One line of ``data/editions.json``."""

    name: str
    lang: str
    kind: str
    effective: str | None
    title: str
    path: str


class KnowledgeBase:
    """A built knowledge base directory (``data/``, ``index/``, ``site/``)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.data = self.root / "data"
        manifest = self.data / "editions.json"
        if not manifest.is_file():
            raise UsageError(f"no knowledge base at {self.root} (run: comprules build SOURCE... --kb {self.root})")
        with open(manifest, encoding="utf-8") as fh:
            rows = json.load(fh)["editions"]
        self.editions = [
            EditionInfo(r["name"], r["lang"], r["kind"], r["effective"], r["title"], r["path"]) for r in rows
        ]
        self._cache: dict[str, Edition] = {}

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    def latest(self, lang: str) -> EditionInfo | None:
        """The latest dated edition of a language."""
        dated = [e for e in self.editions if e.lang == lang and e.kind == "edition" and e.effective]
        return max(dated, key=lambda e: e.effective) if dated else None

    def resolve_name(self, spec: str | None, default_lang: str = "en") -> str:
        """The full name of the edition ``spec`` names; :class:`UsageError` if none or several."""
        names = {e.name for e in self.editions}
        if spec is None or spec in ("latest", f"{default_lang}/latest"):
            info = self.latest(default_lang) or (self.editions[0] if self.editions else None)
            if info is None:
                raise UsageError("the knowledge base holds no edition")
            return info.name
        if spec in names:
            return spec
        if spec.endswith("/latest"):
            info = self.latest(spec.split("/", 1)[0])
            if info is None:
                raise UsageError(f"no dated edition in language {spec.split('/', 1)[0]!r}")
            return info.name
        matches = sorted(n for n in names if n.split("/", 1)[1] == spec)
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UsageError(f"edition {spec!r} is ambiguous: {', '.join(matches)}")
        raise UsageError(f"no edition {spec!r} in {self.root} (known: {self._some_names()})")

    def _some_names(self) -> str:
        names = [e.name for e in self.editions]
        return ", ".join(names[:3] + (["…"] if len(names) > 6 else []) + names[-3:]) if names else "none"

    def load(self, spec: str | None) -> Edition:
        """The edition named ``spec`` (a name, or a source file parsed on the fly)."""
        if spec and Path(spec).is_file() and not spec.endswith(".json"):
            from .corpus import parse_file

            return parse_file(spec)
        name = self.resolve_name(spec)
        if name not in self._cache:
            self._cache[name] = export.read_edition(export.edition_path(self.data, name))
        return self._cache[name]


def normalize_number(text: str) -> str:
    """``R70237a``/``r70237a`` (citation style) → ``702.37a``; ``rule 702.37a.`` → ``702.37a``; others unchanged."""
    t = re.sub(r"^(?:rules?|r[èe]gle|CR)\s+", "", text.strip(), flags=re.IGNORECASE).rstrip(".")
    if t[:1] == "r" and t[1:2].isdigit():
        t = "R" + t[1:]
    m = _CITATION.match(t)
    if m and (t.startswith("R") or "." not in t):
        ch, sec, rule, letters = m.groups()
        return f"{ch}{sec}" + (f".{rule}{letters}" if rule else "")
    return t


@dataclass(frozen=True)
class RuleView:
    """A rule as ``comprules show`` prints it: itself, its subrules, refs, cited by."""

    edition: str
    rule: Rule
    children: list[Rule]
    refs: list[str]
    cited_by: list[str]
    cited_by_glossary: list[str]


def show_rule(edition: Edition, number: str) -> RuleView:
    """The rule ``number`` of ``edition`` with its subrules, references and backlinks.

    Raises :class:`NotFound` when the edition has no such rule.
    """
    number = normalize_number(number)
    rule = edition.get(number)
    if rule is None:
        raise NotFound(f"no rule {number} in {edition.name}")
    resolution = references.resolve(edition)
    children = sorted(edition.children.get(rule.number, []), key=lambda r: sort_key(r.id))
    cited = [src for src in resolution.cited_by().get(rule.id, []) if src != rule.id]
    terms = {g.slug: g.term for g in edition.glossary}
    glossary = [terms[slug] for slug, targets in resolution.glossary_refs.items() if rule.id in targets]
    return RuleView(edition.name, rule, children, list(resolution.refs.get(rule.id, ())), cited, glossary)
