"""Read the knowledge-base database: the queries every reader asks.

A :class:`Store` opens ``data/comprules.sqlite`` read-only and immutable (a build never
changes a database in place: it writes a new file and renames it), one connection per
thread and per process, so that the server's threads and the site's rendering
processes read it at once. Each method is one or two indexed queries; a whole edition
(:meth:`Store.edition`) is rebuilt from its rows in a few milliseconds and kept.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from ..model import Edition, GlossaryEntry, ParseWarning, Restoration, Rule, sort_key
from . import schema


class _ChangeRows:
    """The rows of one stored alignment by old or new rule id, each read when asked."""

    def __init__(self, store: "Store", ident: int, column: str):
        self.store, self.ident, self.column = store, ident, column
        self.cache: dict[str, list[Any]] = {}

    def get(self, rule_id: str, default: Any = None) -> Any:
        if rule_id not in self.cache:
            from ..align.changes import RuleChange, WordChange

            self.cache[rule_id] = [
                RuleChange(
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    tuple(WordChange.from_json(w) for w in json.loads(r[5])) if r[5] else (),
                    r[4],
                )
                for r in self.store.conn.execute(
                    "SELECT old, new, kind, similarity, words, changes FROM rule_changes"
                    f" WHERE alignment = ? AND {self.column} = ? ORDER BY seq",
                    (self.ident, rule_id),
                )
            ]
        rows = self.cache[rule_id]
        return rows if rows else default


class StoredPair:
    """A stored alignment read row by row (what a lineage walk asks): ``forward.get(old
    id)`` and ``backward.get(new id)`` give the rows of a rule, as
    :class:`~comprules.align.alignment.Alignment` does."""

    def __init__(self, store: "Store", ident: int, old: str, new: str):
        self.old, self.new = old, new
        self.forward = _ChangeRows(store, ident, "old")
        self.backward = _ChangeRows(store, ident, "new")


class StoredRules:
    """One edition of the database read rule by rule, for answers that need a few rules
    (``/ar/cr/{rule}``, its examples, ``find_definition``) without rebuilding the whole
    edition: ``get(id)`` and ``children.get(parent, default)`` as
    :class:`~comprules.model.Edition` has them, each one indexed query."""

    def __init__(self, store: "Store", name: str):
        self.store, self.name = store, name
        self.children = _Children(store, name)

    def get(self, rule_id: str) -> Rule | None:
        """The rule with this id (``702.37a``, ``702.175~2``), or ``None``."""
        return self.store.rule(self.name, rule_id)


class _SpanRows:
    """One edition's stored reference spans by unit, each unit's parsed when asked:
    ``get(rule id)`` → ``[(paragraph, [[start, end, number], …]), …]`` or ``None``."""

    def __init__(self, raw: dict[str, list[tuple[int, str]]]):
        self.raw = raw
        self.cache: dict[str, list[tuple[int, list]]] = {}

    def get(self, source: str, default: Any = None) -> Any:
        found = self.cache.get(source)
        if found is None:
            raw = self.raw.get(source)
            if raw is None:
                return default
            found = self.cache[source] = [(paragraph, json.loads(parts)) for paragraph, parts in raw]
        return found


class _Children:
    def __init__(self, store: "Store", name: str):
        self.store, self.name = store, name

    def get(self, parent: str, default: Any = None) -> Any:
        found = self.store.children(self.name, parent)
        return found if found else default


class StoreError(Exception):
    """The database is missing, damaged or of another format (one line: which file, what)."""


_RULE_COLUMNS = "id, number, kind, text, line, title, parent, section, chapter"
_FAMILY_COLUMNS = ", ".join(f"r.{c}" for c in _RULE_COLUMNS.split(", "))
#: Bytes of the database each connection maps into memory (the whole file, up to 1 GB).
MMAP_BYTES = 1 << 30


def _in_parts(ids: list[str], size: int = 500) -> Iterator[tuple[list[str], str]]:
    """``ids`` in parts of at most ``size`` (under SQLite's bound on a query's parameters),
    each with the ``?,?,…`` of its ``IN (…)``."""
    for k in range(0, len(ids), size):
        part = ids[k : k + size]
        yield part, ",".join("?" * len(part))


class Store:
    """The knowledge-base database at ``path``, read-only.

    Raises :class:`StoreError` when the file is missing, is not a database or holds
    another :data:`~comprules.store.schema.FORMAT`.
    """

    #: Whole editions kept rebuilt (each is a few MB of objects).
    EDITIONS_KEPT = 16

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise StoreError(f"{self.path}: no knowledge-base database")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._editions: OrderedDict[str, Edition] = OrderedDict()
        try:
            found = self.one("SELECT value FROM meta WHERE key = 'format'")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a knowledge-base database ({exc})") from None
        if found is None or found[0] != str(schema.FORMAT):
            raise StoreError(
                f"{self.path}: a database of another version of comprules (format {found[0] if found else '?'}, "
                f"this one reads {schema.FORMAT}): rebuild the knowledge base"
            )
        self.rows = [dict(r) for r in self.all("SELECT * FROM editions")]
        #: The editions whose source was repaired (the others need no look at restorations).
        self.repaired = frozenset(r[0] for r in self.all("SELECT DISTINCT edition FROM restorations"))

    # -- connections ---------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork)."""
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is None or getattr(local, "pid", None) != os.getpid():
            uri = f"file:{self.path}?mode=ro&immutable=1"
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            # read through the operating system's page cache (one copy for every thread
            # and process) rather than each connection's own cache
            conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            local.conn, local.pid = conn, os.getpid()
        return conn

    def all(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        """Every row a query gives."""
        return self.conn.execute(sql, args).fetchall()

    def one(self, sql: str, args: tuple = ()) -> sqlite3.Row | None:
        """The first row a query gives, or ``None``."""
        return self.conn.execute(sql, args).fetchone()

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table (``format``, ``inputs``…)."""
        row = self.one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    # -- editions and rules --------------------------------------------------

    def edition(self, name: str) -> Edition:
        """The whole edition ``name``, rebuilt from its rows (kept: the last
        :attr:`EDITIONS_KEPT`). Raises :class:`KeyError` for an unknown name."""
        with self._lock:
            if name in self._editions:
                self._editions.move_to_end(name)
                return self._editions[name]
        meta = self.one("SELECT * FROM editions WHERE name = ?", (name,))
        if meta is None:
            raise KeyError(name)
        rules = tuple(_rules_of(self, name).values())
        glossary = tuple(
            GlossaryEntry(
                term=g["term"],
                aliases=tuple(json.loads(g["aliases"])),
                obsolete=bool(g["obsolete"]),
                senses=tuple(json.loads(g["senses"])),
                text=g["text"],
                line=g["line"],
                slug=g["slug"],
                note=g["note"],
            )
            for g in self.all("SELECT * FROM glossary_entries WHERE edition = ? ORDER BY seq", (name,))
        )
        warnings = tuple(
            ParseWarning(w["kind"], w["message"], w["line"], w["number"])
            for w in self.all("SELECT * FROM warnings WHERE edition = ? ORDER BY seq", (name,))
        )
        restored = tuple(Restoration(**dict(r, sources=tuple(r["sources"]))) for r in self.restorations(name))
        edition = Edition(
            name=meta["name"],
            lang=meta["lang"],
            effective=date.fromisoformat(meta["effective"]) if meta["effective"] else None,
            kind=meta["kind"],
            source=meta["source"],
            sha256=meta["sha256"],
            title=meta["title"],
            rules=rules,
            glossary=glossary,
            warnings=warnings,
            sources=tuple(json.loads(meta["sources"])),
            description=meta["description"],
            restored=restored,
        )
        with self._lock:
            self._editions[name] = edition
            while len(self._editions) > self.EDITIONS_KEPT:
                self._editions.popitem(last=False)
        return edition

    def restorations(self, edition: str, units: list[str] | None = None) -> list[dict]:
        """The restorations of ``units`` (rule ids, ``glossary:{slug}``; ``None``: every
        one) in ``edition``, in order, in the export's shape: ``{"unit", "part", "raw",
        "chars", "sources"}`` (:mod:`comprules.corpus.restore`)."""
        if units == [] or edition not in self.repaired:
            return []
        query = "SELECT unit, part, raw, chars, sources FROM restorations WHERE edition = ?"
        if units is not None:
            query += f" AND unit IN ({', '.join('?' * len(units))})"
        rows = self.all(query + " ORDER BY seq", (edition, *(units or ())))
        return [dict(r, sources=json.loads(r["sources"])) for r in rows]

    def rule(self, edition: str, rule_id: str) -> Rule | None:
        """One rule with its examples, or ``None``."""
        r = self.one(f"SELECT {_RULE_COLUMNS} FROM rules WHERE edition = ? AND id = ?", (edition, rule_id))
        if r is None:
            return None
        examples = tuple(
            t
            for (t,) in self.conn.execute(
                "SELECT text FROM examples WHERE edition = ? AND rule = ? ORDER BY seq", (edition, rule_id)
            )
        )
        return Rule(r[0], r[1], r[2], r[3], r[4], r[5], examples, r[6], r[7], r[8])

    def children(self, edition: str, rule_id: str) -> list[Rule]:
        """The units whose parent is ``rule_id`` (a section's rules, a rule's subrules), in order."""
        rows = self.conn.execute(
            f"SELECT {_RULE_COLUMNS} FROM rules WHERE edition = ? AND parent = ? ORDER BY seq", (edition, rule_id)
        ).fetchall()
        examples = self._examples(edition, [r[0] for r in rows])
        return [Rule(r[0], r[1], r[2], r[3], r[4], r[5], examples.get(r[0], ()), r[6], r[7], r[8]) for r in rows]

    def family(self, edition: str, rule_id: str) -> tuple[Rule | None, list[Rule]]:
        """A rule and its children (a section's rules, a rule's subrules), with their
        examples, in one query: ``(rule or None, children in order)``."""
        rows = self.conn.execute(
            f"SELECT {_FAMILY_COLUMNS}, r.parent = ? AS child, x.text FROM rules r"
            " LEFT JOIN examples x ON x.edition = r.edition AND x.rule = r.id"
            " WHERE r.edition = ? AND (r.id = ? OR r.parent = ?) ORDER BY r.seq, x.seq",
            (rule_id, edition, rule_id, rule_id),
        ).fetchall()
        rule, children = None, []
        k, n = 0, len(rows)
        while k < n:  # a unit's rows, one per example (one with a NULL example when it has none)
            r = rows[k]
            end = k + 1
            while end < n and rows[end][0] == r[0]:
                end += 1
            examples = tuple(row[10] for row in rows[k:end]) if r[10] is not None else ()
            made = Rule(r[0], r[1], r[2], r[3], r[4], r[5], examples, r[6], r[7], r[8])
            if r[0] == rule_id:
                rule = made
            elif r[9]:
                children.append(made)
            k = end
        return rule, children

    def citing(self, edition: str, rule_id: str) -> tuple[list[str], list[tuple[str, str]]]:
        """``(cited_by, cited_by_glossary)`` of one rule in one query: the rules of the
        edition citing it (itself left out, rule order), and ``(slug, headword)`` of the
        glossary entries citing it (glossary order)."""
        rules, slugs = _citing_split(
            rule_id,
            self.conn.execute(
                "SELECT DISTINCT source, kind FROM citations WHERE resolved = ? AND edition = ?",
                (f"{edition}/{rule_id}", edition),
            ),
        )
        found = []
        if slugs:
            marks = ",".join("?" * len(slugs))
            found = self.conn.execute(
                f"SELECT slug, term FROM glossary_entries WHERE edition = ? AND slug IN ({marks}) ORDER BY seq",
                (edition, *slugs),
            ).fetchall()
        return sorted(rules, key=sort_key), [(slug, term) for slug, term in found]

    def rule_view(self, edition: str, rule_id: str) -> bytes | None:
        """What ``comprules show --json`` answers for rule or subrule ``rule_id`` of
        ``edition``, as the build stored it (:func:`comprules.kb.write_rule_views`): the
        JSON's bytes, or ``None`` (a section, a chapter, a database without views)."""
        row = self.conn.execute(
            "SELECT body FROM rule_views WHERE edition = ? AND id = ?", (edition, rule_id)
        ).fetchone()
        return schema.unpack_view(row[0]) if row is not None else None

    def _examples(self, edition: str, ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Rule id → its examples, for the rules ``ids`` of an edition."""
        out: dict[str, list[str]] = {}
        for part, marks in _in_parts(ids):
            for rule, text in self.conn.execute(
                f"SELECT rule, text FROM examples WHERE edition = ? AND rule IN ({marks}) ORDER BY rule, seq",
                (edition, *part),
            ):
                out.setdefault(rule, []).append(text)
        return {k: tuple(v) for k, v in out.items()}

    def order(self, edition: str) -> dict[str, int]:
        """Every unit of an edition (rules, sections, chapters…) → its position in it."""
        return {
            rule_id: seq
            for rule_id, seq in self.conn.execute("SELECT id, seq FROM rules WHERE edition = ?", (edition,))
        }

    def holding(self, rule_id: str, editions: list[str]) -> set[str]:
        """The editions of ``editions`` that hold a rule ``rule_id`` (a query for each 500 editions)."""
        out: set[str] = set()
        for part, marks in _in_parts(editions):
            out.update(
                e
                for (e,) in self.conn.execute(
                    f"SELECT edition FROM rules WHERE id = ? AND edition IN ({marks})", (rule_id, *part)
                )
            )
        return out

    def has_rule(self, edition: str, rule_id: str) -> bool:
        return self.one("SELECT 1 FROM rules WHERE edition = ? AND id = ?", (edition, rule_id)) is not None

    def titles(self, nodes: list[str]) -> dict[str, str]:
        """Node id → the title of the rule it names (``en/2002-10-07/416`` → ``Effects``),
        for the ``nodes`` whose rule exists and has a title: one query an edition."""
        by_edition: dict[str, list[str]] = {}
        for node in dict.fromkeys(nodes):
            edition, _, rule_id = node.rpartition("/")
            if edition:
                by_edition.setdefault(edition, []).append(rule_id)
        out: dict[str, str] = {}
        for edition, ids in by_edition.items():
            for part, marks in _in_parts(ids):
                for rule_id, title in self.conn.execute(
                    f"SELECT id, title FROM rules WHERE edition = ? AND id IN ({marks})", (edition, *part)
                ):
                    if title:
                        out[f"{edition}/{rule_id}"] = title
        return out

    # -- citations -----------------------------------------------------------

    def citations(self, edition: str, source: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """The stored citations of a unit (``source``: a rule id or ``glossary/{slug}``) or of
        every unit of the edition: source → ``[{"target", "kind", "status", "resolved",
        "title", "title_agrees"}]`` (the export's ``cites``), printed order."""
        sql = "SELECT source, target, kind, status, resolved, title, title_agrees FROM citations WHERE edition = ?"
        args: tuple = (edition,)
        if source is not None:
            sql += " AND source = ?"
            args += (source,)
        out: dict[str, list[dict[str, Any]]] = {}
        for row in self.conn.execute(sql + " ORDER BY source, seq", args):
            out.setdefault(row[0], []).append(
                {
                    "target": row[1],
                    "kind": row[2],
                    "status": row[3],
                    "resolved": row[4],
                    "title": row[5],
                    "title_agrees": None if row[6] is None else bool(row[6]),
                }
            )
        return out

    def refs(self, edition: str, source: str) -> list[str]:
        """The rules, sections and chapters of the edition a unit cites (text and
        examples), printed order, no repeats (the export's ``refs``)."""
        seen: dict[str, None] = {}
        for (target,) in self.conn.execute(
            "SELECT target FROM citations WHERE edition = ? AND source = ? AND status = 'internal'"
            " AND kind != 'glossary' ORDER BY seq",
            (edition, source),
        ):
            seen.setdefault(target, None)
        return list(seen)

    def reference_parts(self, edition: str) -> _SpanRows:
        """Where the rules of ``edition`` print the numbers they cite (the
        ``reference_spans`` table, glossary references left out): ``get(rule id)`` →
        ``[(paragraph, [[start, end, number], …]), …]``, paragraph 0 the text and k the
        k-th example, offsets in characters of that paragraph; ``None`` for a rule
        that cites nothing. What :func:`~comprules.align.alignment.align_joined` reads
        instead of the words (3 ms for the newest edition)."""
        raw: dict[str, list[tuple[int, str]]] = {}
        for source, paragraph, parts in self.conn.execute(
            "SELECT source, paragraph, parts FROM reference_spans WHERE edition = ? AND kind != 'glossary'"
            " ORDER BY source, paragraph, seq",
            (edition,),
        ):
            raw.setdefault(source, []).append((paragraph, parts))
        return _SpanRows(raw)

    def cited_by(self, edition: str, rule_id: str) -> list[str]:
        """The rules of the edition citing ``rule_id`` (itself left out), in rule order."""
        rows = self.conn.execute(
            "SELECT DISTINCT source FROM citations WHERE resolved = ? AND edition = ? AND kind != 'glossary'",
            (f"{edition}/{rule_id}", edition),
        ).fetchall()
        sources = {s for (s,) in rows if s != rule_id and not s.startswith("glossary/")}
        return sorted(sources, key=sort_key)

    def cited_by_glossary(self, edition: str, rule_id: str) -> list[tuple[str, str]]:
        """``(slug, headword)`` of the glossary entries of the edition citing ``rule_id``,
        glossary order."""
        sources = [
            s
            for (s,) in self.conn.execute(
                "SELECT DISTINCT source FROM citations WHERE resolved = ? AND edition = ?",
                (f"{edition}/{rule_id}", edition),
            )
            if s.startswith("glossary/")
        ]
        found = []
        for source in sources:
            row = self.one(
                "SELECT seq, slug, term FROM glossary_entries WHERE edition = ? AND slug = ?",
                (edition, source[len("glossary/") :]),
            )
            if row is not None:
                found.append((row[0], row[1], row[2]))
        return [(slug, term) for _, slug, term in sorted(found)]

    def cited_by_index(self, edition: str) -> dict[str, list[str]]:
        """Every unit of the edition cited from within it → the ids citing it (rules and
        ``glossary/{slug}``; itself left out), in :func:`~comprules.model.sort_key` order."""
        prefix = f"{edition}/"
        out: dict[str, set[str]] = {}
        for source, resolved in self.conn.execute(
            "SELECT source, resolved FROM citations WHERE edition = ? AND resolved >= ? AND resolved < ?",
            (edition, prefix, edition + "0"),
        ):
            target = resolved[len(prefix) :]
            if target != source:
                out.setdefault(target, set()).add(source)
        return {k: sorted(v, key=sort_key) for k, v in out.items()}

    def glossary_refs(self, edition: str) -> dict[str, list[str]]:
        """Glossary slug → the rules its definition cites (``refs`` of a glossary entry)."""
        out: dict[str, dict[str, None]] = {}
        for source, target in self.conn.execute(
            "SELECT source, target FROM citations WHERE edition = ? AND source LIKE 'glossary/%'"
            " AND status = 'internal' AND kind != 'glossary' ORDER BY source, seq",
            (edition,),
        ):
            out.setdefault(source[len("glossary/") :], {})[target] = None
        return {k: list(v) for k, v in out.items()}

    def check(self, edition: str) -> Any:
        """What ``comprules check`` reports of a stored edition, as the build found it:
        a :class:`~comprules.check.EditionReport`. Raises :class:`KeyError`."""
        from ..check import EditionReport, Finding

        meta = self.one("SELECT * FROM editions WHERE name = ?", (edition,))
        if meta is None:
            raise KeyError(edition)
        found: dict[str, list[Finding]] = {"problem": [], "notice": []}
        for r in self.all("SELECT * FROM findings WHERE edition = ? ORDER BY seq", (edition,)):
            found[r["severity"]].append(Finding(r["kind"], r["line"], r["rule"], r["message"], r["target"]))
        return EditionReport(
            edition,
            meta["kind"],
            meta["source"],
            meta["printed_references"],
            meta["resolved_references"],
            tuple(found["problem"]),
            tuple(found["notice"]),
        )

    def glossary(self, edition: str) -> list[dict[str, Any]]:
        """Every glossary entry of an edition, ``{"term", "aliases", "obsolete", "senses",
        "text", "slug", "refs"}`` (``refs``: the rules its definition cites), glossary order."""
        refs = self.glossary_refs(edition)
        return [
            {
                "term": g["term"],
                "aliases": json.loads(g["aliases"]),
                "obsolete": bool(g["obsolete"]),
                "senses": json.loads(g["senses"]),
                "text": g["text"],
                "slug": g["slug"],
                "refs": refs.get(g["slug"], []),
            }
            for g in self.all("SELECT * FROM glossary_entries WHERE edition = ? ORDER BY seq", (edition,))
        ]

    # -- alignments ----------------------------------------------------------

    def twin_number(self, name: str, english: str, number: str) -> str | None:
        """The number of the rule of ``english`` that the build paired rule ``number`` of
        the translated edition ``name`` with (:func:`comprules.align.translation.align_translation`):
        ``None`` when it has none, ``number`` itself when the alignment lists no such rule."""
        row = self.conn.execute(
            "SELECT rc.new FROM alignments a JOIN rule_changes rc ON rc.alignment = a.id"
            " WHERE a.old = ? AND a.new = ? AND rc.old = ? ORDER BY rc.seq LIMIT 1",
            (name, english, number),
        ).fetchone()
        return number if row is None else row[0]

    def alignment_info(self, old: str, new: str) -> sqlite3.Row | None:
        """The ``alignments`` row of a pair stored this way round, or ``None``."""
        return self.one("SELECT * FROM alignments WHERE old = ? AND new = ?", (old, new))

    def translations(self) -> list[tuple[str, str, dict[str, Any]]]:
        """``(document, English edition, details)`` of every alignment across languages
        (``kind`` ``translation``), the details as ``alignments/index.json`` prints them
        (``aligned``, ``score``, ``era``: the first and last English edition its text
        agrees with best), by document name."""
        return [
            (old, new, json.loads(details) if details else {})
            for old, new, details in self.conn.execute(
                "SELECT old, new, details FROM alignments WHERE kind = 'translation' ORDER BY old, new"
            )
        ]

    def documents(self) -> dict[str, dict[str, Any]]:
        """Each fragment's facts, by name, as the corpus stage described it
        (:func:`comprules.corpus.describe.describe`): ``kind`` (``rulebook``, ``forum``,
        ``rules``), ``title``, ``quotes`` (``[number, title]`` of each section and rule it
        prints), ``terms`` (rulebook headings), ``dates`` (ISO, in order of appearance)."""
        return {r["name"]: json.loads(r["document"]) for r in self.rows if r.get("document")}

    def aligned_into(self, old: str, lang: str) -> list[str]:
        """The editions of language ``lang`` that ``old`` is stored aligned with (a French
        document with the English edition of its era), by name."""
        return [
            n
            for (n,) in self.conn.execute(
                "SELECT new FROM alignments WHERE old = ? AND new LIKE ? ORDER BY new", (old, f"{lang}/%")
            )
        ]

    def alignment(self, old: str, new: str, either_way: bool = False) -> Any:
        """The stored :class:`~comprules.align.alignment.Alignment` of ``old`` → ``new``, or
        ``None``; with ``either_way``, the one stored the other way round mirrored when
        this way is not (``comprules diff`` and the site alike: the fragments of a chain
        are stored in the chain's order, 002 → 001, and the site pairs them by name)."""
        from ..align.changes import Alignment, RuleChange, SectionChange, WordChange

        info = self.alignment_info(old, new)
        if info is None:
            if either_way:
                back = self.alignment(new, old)
                if back is not None:
                    return back.mirror(self.order(new), self.order(old))
            return None
        ident = info["id"]
        plain = self.conn.cursor()  # tuples, not sqlite3.Row: 133 k rows for the 73 English pairs
        plain.row_factory = None
        rules = tuple(
            RuleChange(
                old_id,
                new_id,
                kind,
                similarity,
                tuple(WordChange.from_json(w) for w in json.loads(changes)) if changes else (),
                words,
            )
            for old_id, new_id, kind, similarity, words, changes in plain.execute(
                "SELECT old, new, kind, similarity, words, changes FROM rule_changes WHERE alignment = ? ORDER BY seq",
                (ident,),
            )
        )
        sections = tuple(
            SectionChange(*r)
            for r in self.conn.execute(
                "SELECT old, new, kind, old_title, new_title FROM section_changes WHERE alignment = ? ORDER BY seq",
                (ident,),
            )
        )
        return Alignment(old, new, rules, sections)

    def pair(self, old: str, new: str) -> "StoredPair | None":
        """The stored alignment of ``old`` → ``new`` read row by row as asked
        (:class:`StoredPair`: ``forward.get(old id)``, ``backward.get(new id)``), or ``None``."""
        info = self.alignment_info(old, new)
        return StoredPair(self, info["id"], old, new) if info is not None else None

    def rewritten_between(self, old: str, new: str) -> set[tuple[str, str]]:
        """The ``(old id, new id)`` pairs of :meth:`joined` whose rule (by the later
        edition's rule's own key, whichever way the pair is asked: ``B A`` is the mirror
        image of ``A B``) was rewritten in place on the way: after the earlier edition, up
        to the later."""
        lo, hi = sorted((old, new))
        found = self.chain_of(new)
        if found is None:
            return set()
        chain, names = found
        between = [e for e in names if lo < e <= hi]
        if not between:
            return set()
        # the keys rewritten on the way (the partial index lineages_rewritten), then the
        # later edition's rules whose own key is one of them
        rewritten = {
            k
            for (k, e) in self.conn.execute(
                "SELECT key, edition FROM lineages WHERE chain = ? AND words = 'rewritten' AND own = 1", (chain,)
            )
            if lo < e <= hi
        }
        if not rewritten:
            return set()
        rules = {
            r
            for r, k in self.conn.execute("SELECT rule, key FROM lineages WHERE edition = ? AND own = 1", (hi,))
            if k in rewritten
        }
        return {(a, b) for a, b in self.joined(old, new) if (b if new == hi else a) in rules}

    def text(self, edition: str, rule_id: str) -> str | None:
        """The text of one rule, or ``None``."""
        row = self.one("SELECT text FROM rules WHERE edition = ? AND id = ?", (edition, rule_id))
        return row[0] if row else None

    def alignments(self, kind: str | None = None) -> list[sqlite3.Row]:
        """Every ``alignments`` row (of one ``kind``: ``editions``, ``fragments``, ``translation``)."""
        if kind is None:
            return self.all("SELECT * FROM alignments ORDER BY old, new")
        return self.all("SELECT * FROM alignments WHERE kind = ? ORDER BY old, new", (kind,))

    # -- chains and lineages -------------------------------------------------

    def chains(self) -> dict[str, list[str]]:
        """Chain name (``en``, ``fr/fragments``) → its editions, in order."""
        out: dict[str, list[str]] = {}
        for chain, edition in self.conn.execute("SELECT chain, edition FROM chains ORDER BY chain, position"):
            out.setdefault(chain, []).append(edition)
        return out

    def chain_of(self, edition: str) -> tuple[str, list[str]] | None:
        """``(chain name, its editions)`` of the chain holding ``edition``, or ``None``."""
        row = self.one("SELECT chain FROM chains WHERE edition = ?", (edition,))
        if row is None:
            return None
        names = [n for (n,) in self.conn.execute("SELECT edition FROM chains WHERE chain = ? ORDER BY position", row)]
        return row[0], names

    def lineage_key(self, edition: str, rule_id: str) -> tuple[str, str] | None:
        """``(chain, key)`` of a rule (its own key), or ``None``."""
        row = self.one("SELECT chain, key FROM lineages WHERE edition = ? AND rule = ? AND own = 1", (edition, rule_id))
        return (row[0], row[1]) if row else None

    def lineage(self, chain: str, key: str) -> list[sqlite3.Row]:
        """Every edition's row of one lineage, in chain order: ``edition``, ``rule``,
        ``previous``, ``kind``, ``similarity``, ``words``, ``changes`` (JSON), ``position``."""
        return self.all(
            "SELECT l.*, c.position FROM lineages l JOIN chains c ON c.chain = l.chain AND c.edition = l.edition"
            " WHERE l.chain = ? AND l.key = ? ORDER BY c.position",
            (chain, key),
        )

    def joined(self, old: str, new: str) -> list[tuple[str, str]]:
        """``(old id, new id)`` of the rules that share a lineage key in two editions of
        one chain, in the new edition's order of keys (a rule split on the way is in
        several pairs)."""
        return [
            (a, b)
            for a, b in self.conn.execute(
                "SELECT o.rule, n.rule FROM lineages n JOIN lineages o ON o.edition = ? AND o.key = n.key"
                " AND o.chain = n.chain WHERE n.edition = ? ORDER BY n.seq",
                (old, new),
            )
        ]

    def lexicon(self, name: str) -> Any:
        """A lexicon document (``lexicon``, ``aligned``, ``translations``, ``table``,
        ``latest``: docs/database.md), or ``None``."""
        row = self.one("SELECT value FROM lexicon WHERE name = ?", (name,))
        return json.loads(row[0]) if row else None

    def iter_rules(self, edition: str) -> Iterator[sqlite3.Row]:
        """The rows of the ``rules`` table of one edition, in order."""
        return iter(self.conn.execute("SELECT * FROM rules WHERE edition = ? ORDER BY seq", (edition,)))

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


class EditionRows:
    """One edition's rows read at once (a query a table), answering for its rules what
    :meth:`comprules.kb.KnowledgeBase.show` asks of a :class:`Store` — :meth:`family`,
    :meth:`citations`, :meth:`citing`, :meth:`titles`, :meth:`restorations`,
    :meth:`twin_number`, with the same arguments and answers — from memory: the build's
    rule views read an edition once instead of a few queries a rule. What concerns another
    edition (a citation's title there, a translation's English twin) is asked of the store."""

    def __init__(self, store: Store, name: str):
        self.store, self.name = store, name
        conn = store.conn
        self.rules: dict[str, Rule] = _rules_of(store, name)
        self.children: dict[str, list[Rule]] = {}
        #: The rules and subrules, in order (the units that have a view).
        self.units: list[str] = []
        for made in self.rules.values():
            if made.parent is not None:
                self.children.setdefault(made.parent, []).append(made)
            if made.kind in ("rule", "subrule"):
                self.units.append(made.id)
        self.restored: dict[str, list[tuple[int, dict]]] = {}
        for k, row in enumerate(store.restorations(name)):
            self.restored.setdefault(row["unit"], []).append((k, row))
        self.others: dict[str, dict[str, Rule]] = {}  # another edition's rules, read at once when asked
        self.cites: dict[str, list[dict[str, Any]]] = store.citations(name)
        self.cited: dict[str, set[tuple[str, str]]] = {}
        for source, kind, resolved in conn.execute(
            "SELECT source, kind, resolved FROM citations WHERE edition = ? AND resolved IS NOT NULL", (name,)
        ):
            self.cited.setdefault(resolved, set()).add((source, kind))
        self.entries = {
            slug: (seq, term)
            for seq, slug, term in conn.execute(
                "SELECT seq, slug, term FROM glossary_entries WHERE edition = ?", (name,)
            )
        }
        self.twins: dict[tuple[str, str], dict[str, str]] = {}

    def family(self, edition: str, rule_id: str) -> tuple[Rule | None, list[Rule]]:
        if edition != self.name:
            return self.store.family(edition, rule_id)
        return self.rules.get(rule_id), list(self.children.get(rule_id, ()))

    def citations(self, edition: str, source: str | None = None) -> dict[str, list[dict[str, Any]]]:
        if edition != self.name or source is None:
            return self.store.citations(edition, source)
        found = self.cites.get(source)
        return {source: found} if found else {}

    def citing(self, edition: str, rule_id: str) -> tuple[list[str], list[tuple[str, str]]]:
        if edition != self.name:
            return self.store.citing(edition, rule_id)
        rules, slugs = _citing_split(rule_id, self.cited.get(f"{edition}/{rule_id}", ()))
        found = sorted((self.entries[slug][0], slug, self.entries[slug][1]) for slug in slugs if slug in self.entries)
        return sorted(rules, key=sort_key), [(slug, term) for _, slug, term in found]

    def titles(self, nodes: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        elsewhere = []
        for node in nodes:
            edition, _, rule_id = node.rpartition("/")
            if edition != self.name:
                elsewhere.append(node)
                continue
            rule = self.rules.get(rule_id)
            if rule is not None and rule.title:
                out[node] = rule.title
        if elsewhere:
            out.update(self.store.titles(elsewhere))
        return out

    def restorations(self, edition: str, units: list[str] | None = None) -> list[dict]:
        if edition != self.name or units is None:
            return self.store.restorations(edition, units)
        found = sorted(item for unit in dict.fromkeys(units) for item in self.restored.get(unit, ()))
        return [row for _, row in found]

    def twin_number(self, name: str, english: str, number: str) -> str | None:
        pairs = self.twins.get((name, english))
        if pairs is None:  # the first row of each old rule, as Store.twin_number reads it
            pairs = self.twins[(name, english)] = {}
            for old, new in self.store.conn.execute(
                "SELECT rc.old, rc.new FROM alignments a JOIN rule_changes rc ON rc.alignment = a.id"
                " WHERE a.old = ? AND a.new = ? AND rc.old IS NOT NULL ORDER BY rc.seq",
                (name, english),
            ):
                pairs.setdefault(old, new)
        return pairs.get(number, number)

    def rule(self, edition: str, rule_id: str) -> Rule | None:
        if edition == self.name:
            return self.rules.get(rule_id)
        if edition not in self.others:  # a translation's English twin: each of its rules is asked
            self.others[edition] = _rules_of(self.store, edition)
        return self.others[edition].get(rule_id)


def _citing_split(rule_id: str, rows) -> tuple[set[str], list[str]]:
    """Of the ``(source, kind)`` citations leading to ``rule_id``: the rules citing it
    (itself and glossary references left out), and the slugs of the glossary entries
    citing it, in the rows' order, once each."""
    rules: set[str] = set()
    slugs: list[str] = []
    for source, kind in rows:
        if source.startswith("glossary/"):
            if source[9:] not in slugs:
                slugs.append(source[9:])
        elif kind != "glossary" and source != rule_id:
            rules.add(source)
    return rules, slugs


def _rules_of(store: Store, name: str) -> dict[str, Rule]:
    """Every unit of edition ``name`` with its examples, by id, in order (two queries)."""
    examples: dict[str, list[str]] = {}
    for rule, text in store.conn.execute(
        "SELECT rule, text FROM examples WHERE edition = ? ORDER BY rule, seq", (name,)
    ):
        examples.setdefault(rule, []).append(text)
    return {
        r[0]: Rule(r[0], r[1], r[2], r[3], r[4], r[5], tuple(examples.get(r[0], ())), r[6], r[7], r[8])
        for r in store.conn.execute(f"SELECT {_RULE_COLUMNS} FROM rules WHERE edition = ? ORDER BY seq", (name,))
    }
