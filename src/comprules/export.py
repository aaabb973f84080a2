"""The per-edition JSON export (DESIGN.md "Export shape") and its reader.

One file per edition, ``data/{lang}/{date or stem}.json``::

    {"edition": {"name", "lang", "effective", "kind", "title", "source", "sources", "sha256"},
     "rules": [{"id", "number", "kind", "parent", "section", "chapter", "title", "text",
                "examples", "refs", "line"}],
     "glossary": [{"term", "aliases", "obsolete", "senses", "refs", "slug", "line"}],
     "warnings": [{"kind", "message", "number", "line"}]}

Keys are stable; output is deterministic (sorted keys, edition order kept) so two
builds from the same sources give byte-identical files.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import date
from pathlib import Path

from .model import Edition, GlossaryEntry, ParseWarning, Rule


def edition_to_dict(edition: Edition, resolution=None) -> dict:
    """The export shape of one edition, with the references of a
    :class:`~comprules.references.Resolution` (rule id → targets, glossary slug → targets)."""
    refs = resolution.refs if resolution is not None else {}
    glossary_refs = resolution.glossary_refs if resolution is not None else {}
    return {
        "edition": {
            "name": edition.name,
            "lang": edition.lang,
            "effective": edition.effective.isoformat() if edition.effective else None,
            "kind": edition.kind,
            "title": edition.title,
            "source": Path(edition.source).name,
            "sources": [Path(s).name for s in edition.sources],
            "sha256": edition.sha256,
        },
        "rules": [
            {
                "id": r.id,
                "number": r.number,
                "kind": r.kind,
                "parent": r.parent,
                "section": r.section,
                "chapter": r.chapter,
                "title": r.title,
                "text": r.text,
                "examples": list(r.examples),
                "refs": list(refs.get(r.id, ())),
                "line": r.line,
            }
            for r in edition.rules
        ],
        "glossary": [
            {
                "term": g.term,
                "aliases": list(g.aliases),
                "obsolete": g.obsolete,
                "senses": list(g.senses),
                "text": g.text,
                "refs": list(glossary_refs.get(g.slug, ())),
                "slug": g.slug,
                "line": g.line,
            }
            for g in edition.glossary
        ],
        "warnings": [
            {"kind": w.kind, "message": w.message, "number": w.number, "line": w.line} for w in edition.warnings
        ],
    }


def edition_from_dict(data: dict) -> Edition:
    """Rebuild an :class:`Edition` from its export (the inverse of :func:`edition_to_dict`)."""
    meta = data["edition"]
    rules = tuple(
        Rule(id=r["id"], number=r["number"], kind=r["kind"], text=r["text"], line=r["line"], title=r["title"],
             examples=tuple(r["examples"]), parent=r["parent"], section=r["section"], chapter=r["chapter"])
        for r in data["rules"]
    )
    glossary = tuple(
        GlossaryEntry(term=g["term"], aliases=tuple(g["aliases"]), obsolete=g["obsolete"], senses=tuple(g["senses"]),
                      text=g["text"], line=g["line"], slug=g["slug"])
        for g in data["glossary"]
    )
    warnings = tuple(ParseWarning(w["kind"], w["message"], w["line"], w["number"]) for w in data["warnings"])
    effective = date.fromisoformat(meta["effective"]) if meta["effective"] else None
    return Edition(name=meta["name"], lang=meta["lang"], effective=effective, kind=meta["kind"],
                   source=meta["source"], sha256=meta["sha256"], title=meta["title"], rules=rules,
                   glossary=glossary, warnings=warnings, sources=tuple(meta.get("sources", ())))


def dumps(data: dict) -> str:
    """Deterministic JSON text (UTF-8, sorted keys, one trailing newline)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write a file through a temporary sibling and ``os.replace``: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def edition_path(data_dir: Path, name: str) -> Path:
    """``data/en/2026-08-07.json`` for edition ``en/2026-08-07``."""
    lang, _, rest = name.partition("/")
    return Path(data_dir) / lang / f"{rest}.json"


def read_edition(path: Path) -> Edition:
    """Load one exported edition file."""
    with open(path, encoding="utf-8") as fh:
        return edition_from_dict(json.load(fh))
