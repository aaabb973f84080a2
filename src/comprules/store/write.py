"""Write the knowledge-base database: everything the readers need, once per build.

:func:`write_store` writes a new database file beside the old one and renames it into
place, so that a reader sees the whole old file or the whole new one. Given the
previous database, it starts from a copy of it and, in one transaction, replaces the
rows of the editions that changed (their rules, examples, glossary entries,
citations, reference spans, warnings), the alignments that involve them and the
lineages, keeping every other row as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..model import Edition
from . import schema


def _json(value: Any) -> str:
    """A JSON column's text: compact, keys sorted, written by orjson (264,452 values in a
    build of the 74 English editions: 0.79 s with the standard library's encoder, 0.10 s;
    a float is in orjson's shortest form, read back as the same number), or by ``json``
    for what orjson does not take (a key that is not a string)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class AlignmentRow:
    """One alignment to store: the :class:`~comprules.align.alignment.Alignment` and what
    kind of pair it is (``editions``, ``fragments`` or ``translation``), with the details of a
    translation or a French document's era (score, era, same_date…)."""

    alignment: Any
    kind: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class StoreReport:
    """What :func:`write_store` did: editions written anew and kept, alignments written, seconds."""

    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    alignments: int = 0
    seconds: float = 0.0


def write_store(
    path: Path,
    editions: Sequence[Edition],
    resolutions: Mapping[str, Any],
    *,
    keys: Mapping[str, str],
    alignments: Iterable[AlignmentRow] = (),
    kept_alignments: Iterable[tuple[str, str]] = (),
    chains: Sequence[tuple[str, Sequence[str]]] = (),
    lineage: Any = None,
    lexicon: Mapping[str, Any] | None = None,
    facts: Mapping[str, Mapping[str, Any]] | None = None,
    checks: Mapping[str, Any] | None = None,
    previous: Path | None = None,
    meta: Mapping[str, str] | None = None,
) -> StoreReport:
    """Write the database at ``path`` (atomically: a temporary file, then a rename).

    ``editions`` are all the editions of the knowledge base and ``resolutions`` their
    :class:`~comprules.references.Resolution` (edition name → resolution); ``keys``
    the input key of each (what its rows depend on). An edition whose key equals the
    one stored in ``previous`` (the last build's database) keeps its rows, and needs
    no resolution. ``alignments`` are the alignments computed by this build;
    ``kept_alignments``, the ``(old, new)`` pairs kept from ``previous`` as they were.
    ``chains`` lists ``(chain name, edition names in order)``; ``lineage`` is the
    :class:`~comprules.align.lineage.Lineage` of every chain (each edition's rows written
    where they differ from ``previous``'s);
    ``lexicon`` the term pairs (``{"lexicon", "aligned", "translations", "table", "latest"}``); ``facts``
    the published facts of each edition (``{"set_name", "set_code", "file_date"}``);
    ``checks`` the :class:`~comprules.check.EditionReport` of each edition written anew.
    Raises :class:`OSError` (the previous file is left as it was) or
    :class:`sqlite3.Error`.
    """
    import time

    started = time.perf_counter()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    report = StoreReport()
    try:
        stored_keys = _stored_keys(previous)
        if stored_keys is not None:
            shutil.copyfile(previous, tmp)  # type: ignore[arg-type]
        else:
            tmp.unlink()
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA temp_store=MEMORY")
            if stored_keys is None:
                schema.create(conn)  # (executescript commits by itself)
                stored_keys = {}
            conn.execute("BEGIN")
            names = {e.name for e in editions}
            fresh = [e for e in editions if stored_keys.get(e.name) != keys.get(e.name)]
            gone = [n for n in stored_keys if n not in names]
            for name in [*gone, *(e.name for e in fresh)]:
                _delete_edition(conn, name)
            for e in fresh:
                _insert_edition(
                    conn,
                    e,
                    resolutions[e.name],
                    keys.get(e.name, ""),
                    (facts or {}).get(e.name, {}),
                    (checks or {}).get(e.name),
                )
            report.written = [e.name for e in fresh]
            report.kept = sorted(names - set(report.written))
            keep = set(kept_alignments)
            for old, new, ident in conn.execute("SELECT old, new, id FROM alignments").fetchall():
                if (old, new) not in keep:
                    conn.execute("DELETE FROM rule_changes WHERE alignment = ?", (ident,))
                    conn.execute("DELETE FROM section_changes WHERE alignment = ?", (ident,))
                    conn.execute("DELETE FROM alignments WHERE id = ?", (ident,))
            for row in alignments:
                _insert_alignment(conn, row)
                report.alignments += 1
            conn.execute("DELETE FROM chains")
            conn.executemany(
                "INSERT INTO chains (chain, position, edition) VALUES (?, ?, ?)",
                [(chain, k, name) for chain, members in chains for k, name in enumerate(members)],
            )
            if lineage is None:
                conn.execute("DELETE FROM lineages")
            else:
                _write_lineages(conn, editions, chains, lineage)
            conn.execute("DELETE FROM lexicon")
            conn.executemany(
                "INSERT INTO lexicon (name, value) VALUES (?, ?)", [(k, _json(v)) for k, v in (lexicon or {}).items()]
            )
            conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", sorted((meta or {}).items()))
            conn.execute("COMMIT")
            conn.execute("PRAGMA analysis_limit=1000")
            conn.execute("ANALYZE")  # the statistics the planner needs to pick the indexes above
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        raise
    report.seconds = time.perf_counter() - started
    return report


def _stored_keys(previous: Path | None) -> dict[str, str] | None:
    """The input key of every edition of the database ``previous``, or ``None`` when
    there is none or it is of another format (then everything is written anew)."""
    if previous is None or not Path(previous).is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{previous}?mode=ro&immutable=1", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if row is None or row[0] != str(schema.FORMAT):
                return None
            return dict(conn.execute("SELECT name, input_key FROM editions").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return None


_EDITION_TABLES = (
    "rules",
    "examples",
    "glossary_entries",
    "citations",
    "reference_spans",
    "warnings",
    "restorations",
    "findings",
    "rule_views",
    "rule_view_keys",
)


def _delete_edition(conn: sqlite3.Connection, name: str) -> None:
    for table in _EDITION_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE edition = ?", (name,))
    conn.execute("DELETE FROM editions WHERE name = ?", (name,))


def _document(e: Edition) -> dict[str, Any]:
    """What a fragment is (:func:`comprules.corpus.describe.describe`), as the
    ``document`` column holds it: ``kind``, ``title``, ``quotes`` (``[number, title]``),
    ``terms``, ``dates`` (ISO)."""
    from ..corpus.describe import describe

    facts = describe(e.rules, e.glossary, e.lang, e.name.partition("/")[2])
    return {
        "kind": facts.kind,
        "title": facts.title,
        "quotes": [list(q) for q in facts.quotes],
        "terms": list(facts.terms),
        "dates": [d.isoformat() for d in facts.dates],
    }


def _insert_edition(
    conn: sqlite3.Connection, e: Edition, resolution: Any, input_key: str, facts: Mapping[str, Any], check: Any
) -> None:
    name = e.name
    dangling = len(resolution.dangling) if resolution is not None else 0
    conn.execute(
        "INSERT INTO editions (name, lang, kind, effective, title, description, source, sources, sha256,"
        " rules, glossary, dangling, printed_references, resolved_references, set_name, set_code, file_date,"
        " document, input_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            name,
            e.lang,
            e.kind,
            e.effective.isoformat() if e.effective else None,
            e.title,
            e.description,
            Path(e.source).name,
            _json([Path(s).name for s in e.sources]),
            e.sha256,
            len(e.numbered()),
            len(e.glossary),
            dangling,
            resolution.count if resolution is not None else 0,
            resolution.resolved if resolution is not None else 0,
            facts.get("set_name") or None,
            facts.get("set_code"),
            facts.get("file_date"),
            _json(_document(e)) if e.kind == "fragment" else None,
            input_key,
        ),
    )
    conn.executemany(
        "INSERT INTO rules (edition, id, seq, number, kind, title, text, parent, section, chapter, line)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (name, r.id, k, r.number, r.kind, r.title, r.text, r.parent, r.section, r.chapter, r.line)
            for k, r in enumerate(e.rules)
        ],
    )
    conn.executemany(
        "INSERT INTO examples (edition, rule, seq, text) VALUES (?, ?, ?, ?)",
        [(name, r.id, k, t) for r in e.rules for k, t in enumerate(r.examples, 1)],
    )
    conn.executemany(
        "INSERT INTO glossary_entries (edition, slug, seq, term, aliases, obsolete, senses, text, line, note)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                name,
                g.slug,
                k,
                g.term,
                _json(list(g.aliases)),
                int(g.obsolete),
                _json(list(g.senses)),
                g.text,
                g.line,
                g.note,
            )
            for k, g in enumerate(e.glossary)
        ],
    )
    conn.executemany(
        "INSERT INTO warnings (edition, seq, kind, message, line, number) VALUES (?, ?, ?, ?, ?, ?)",
        [(name, k, w.kind, w.message, w.line, w.number) for k, w in enumerate(e.warnings)],
    )
    conn.executemany(
        "INSERT INTO restorations (edition, seq, unit, part, raw, chars, sources) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(name, k, r.unit, r.part, r.raw, r.chars, json.dumps(list(r.sources))) for k, r in enumerate(e.restored)],
    )
    if check is not None:
        conn.executemany(
            "INSERT INTO findings (edition, seq, severity, kind, line, rule, message, target)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (name, k, severity, f.kind, f.line, f.rule, f.message, f.target)
                for k, (severity, f) in enumerate(
                    [*(("problem", f) for f in check.problems), *(("notice", f) for f in check.notices)]
                )
            ],
        )
    if resolution is None:
        return
    conn.executemany(
        "INSERT INTO citations (edition, source, seq, target, kind, status, resolved, title, title_agrees)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                name,
                source,
                k,
                c.target,
                c.kind,
                c.status,
                c.resolved,
                c.title,
                None if c.title_agrees is None else int(c.title_agrees),
            )
            for source, cites in resolution.cites.items()
            for k, c in enumerate(cites)
        ],
    )
    conn.executemany(
        'INSERT INTO reference_spans (edition, source, paragraph, seq, start, "end", kind, title, targets, parts)'
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                name,
                source,
                paragraph,
                k,
                ref.start,
                ref.end,
                ref.kind,
                ref.title,
                _json(list(ref.targets)),
                _json([list(p) for p in ref.parts]),
            )
            for source, found in getattr(resolution, "spans", {}).items()
            for k, (paragraph, ref) in enumerate(found)
        ],
    )


def _insert_alignment(conn: sqlite3.Connection, row: AlignmentRow) -> None:
    a = row.alignment
    cur = conn.execute(
        "INSERT INTO alignments (old, new, kind, counts, facets, details) VALUES (?, ?, ?, ?, ?, ?)",
        (a.old, a.new, row.kind, _json(a.counts()), _json(a.facet_counts()), _json(dict(row.details))),
    )
    ident = cur.lastrowid
    conn.executemany(
        "INSERT INTO rule_changes (alignment, seq, old, new, kind, similarity, words, changes)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                ident,
                k,
                c.old,
                c.new,
                c.kind,
                round(c.similarity, 4),
                c.words,
                _json([w.to_json() for w in c.changes]) if c.changes else None,
            )
            for k, c in enumerate(a.rules)
        ],
    )
    conn.executemany(
        "INSERT INTO section_changes (alignment, seq, old, new, kind, old_title, new_title)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(ident, k, s.old, s.new, s.kind, s.old_title, s.new_title) for k, s in enumerate(a.sections)],
    )


_LINEAGE_COLUMNS = "edition, key, rule, chain, seq, own, previous, kind, similarity, words, changes"


def _write_lineages(
    conn: sqlite3.Connection, editions: Sequence[Edition], chains: Sequence[tuple[str, Sequence[str]]], lineage: Any
) -> None:
    """The ``lineages`` rows of every edition, written where they differ from those the
    database holds (a copy of the last build's): one edition changed rewrites its own rows
    and those its change reached, not the whole table (133,189 rules' rows, 1.0 s)."""
    chain_of = {name: chain for chain, members in chains for name in members}
    names = {e.name for e in editions}
    for (name,) in conn.execute("SELECT DISTINCT edition FROM lineages").fetchall():
        if name not in names:
            conn.execute("DELETE FROM lineages WHERE edition = ?", (name,))
    for e in editions:
        rows = _lineage_rows(e.name, chain_of.get(e.name, e.name), lineage)
        held = conn.execute(f"SELECT {_LINEAGE_COLUMNS} FROM lineages WHERE edition = ? ORDER BY seq", (e.name,))
        if [tuple(r) for r in held] == rows:  # one edition's rows at a time: the build's memory stays
            continue
        conn.execute("DELETE FROM lineages WHERE edition = ?", (e.name,))
        conn.executemany(f"INSERT INTO lineages ({_LINEAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


def _lineage_rows(name: str, chain: str, lineage: Any) -> list[tuple[Any, ...]]:
    own = lineage.key.get(name, {})
    rows: list[tuple[Any, ...]] = []
    for k, (key, rule) in enumerate(lineage.at.get(name, {}).items()):
        head = (name, key, rule, chain, k, int(own.get(rule) == key))
        step = lineage.rows.get((name, rule))
        if step is None:  # the rule's first appearance: no step
            rows.append((*head, None, None, None, None, None))
            continue
        changes = tuple(getattr(step, "changes", ()) or ())
        rows.append(
            (
                *head,
                step.old,
                step.kind,
                round(float(step.similarity), 4),
                getattr(step, "words", None),
                _json([w.to_json() for w in changes]) if changes else None,
            )
        )
    return rows
