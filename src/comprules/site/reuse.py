"""Pages kept from the previous site: a render redoes only the tasks whose inputs changed.

Each task of a render (:meth:`~comprules.site.render.SiteRenderer.tasks`: one edition's
pages, one bulletin, a slice of history pages) gets a **key**, the hash of everything it
reads once the renderer is prepared: the site-wide facts every page shows (the editions
and their labels, the lineage keys, the latest editions, set names, documents, the code
and templates), and then what that task reads of particular editions —

* an edition's pages: its units, glossary, "cited by" lists and layout (which page holds
  each unit), where each of its renumbered or removed rules is now
  (:func:`~comprules.site.render.now_target`), the layout of a document's English
  edition, and the stored alignment from the edition before it (its compare script);
* a bulletin: both editions (units, layout) and their stored alignment;
* history pages: for each rule, every step of its lineage (the step itself, the words it
  had before and after, the layouts its links go into, the renumbering its reference
  spans follow).

The render records each task's key and the files it wrote (with their sizes and what
they counted) in ``site/.tasks.json``. The next render, given the previous site, hard
links a task's files instead of rendering them when the key is the same and every file is
still there, unmodified (same size, not changed after the record was written). A task
whose inputs cannot be hashed (alignments given in memory rather than read from the data
exports, the compare pages) has no key and is always rendered. The result is the same
site, byte for byte, as a render from scratch (tests/test_integrity.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

RECORD = ".tasks.json"
#: The record's own format: a record of another format is not read.
FORMAT = 1


#: ``json.dumps(part, sort_keys=True, default=repr)`` without making an encoder for each
#: of the 40,000 parts of the history pages' keys.
_ENCODER = json.JSONEncoder(sort_keys=True, default=repr)


def _hash(*parts: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else _ENCODER.encode(part).encode())
        h.update(b"\x1f")
    return h.hexdigest()


def _fields(*fields: str | None) -> str:
    """Fields as one string to hash: each marked as missing or as a text, and apart."""
    return "\x1e".join("\x15" if f is None else "\x02" + f for f in fields)


def task_id(task: tuple) -> str:
    """``("history", "en", 0, 200)`` → ``history/en/0/200``."""
    return "/".join(str(part) for part in task)


class Keys:
    """The keys of a prepared renderer's tasks (``site``: a
    :class:`~comprules.site.render.SiteRenderer` after ``prepare``), each part computed
    once; ``digests`` maps ``(old, new)`` to the hash of that alignment's stored file
    (:func:`~comprules.site.lineage.load_alignments`); ``now_target`` is
    :func:`~comprules.site.render.now_target` (what an edition's pages say of where its
    rules are now)."""

    def __init__(self, site: Any, digests: dict[tuple[str, str], str], now_target: Callable[..., Any]):
        self.site = site
        self.digests = digests
        self.now_target = now_target
        self._placements: dict[str, str] = {}
        self._editions: dict[str, str] = {}
        self._mappings: dict[tuple[str, str], str] = {}
        self._now: dict[tuple[str, str], Any] = {}
        self.common = self._common()

    def _common(self) -> str:
        from ..codehash import code_hash

        site = self.site
        lineage = site.lineage
        return _hash(
            code_hash(),
            {
                "budget": site.page_budget,
                "search": site.search is not None,
                "extract": [getattr(site.extract, "__module__", None), getattr(site.extract, "__qualname__", None)],
            },
            [
                [
                    e.name,
                    e.kind,
                    e.lang,
                    e.effective.isoformat() if e.effective else "",
                    e.title or "",
                    Path(e.source).name if e.source else "",
                ]
                for e in site.editions
            ],
            {lang: e.name for lang, e in site.latest.items()},
            site.sets,
            site.data_hrefs,
            {name: repr(view) for name, view in site.documents.items()},
            {name: e.name for name, e in site.english_of.items()},
            lineage.key,
            lineage.at,
            lineage.previous,
            lineage.latest,
            lineage.rewritten(),
            site.next_edition,
            {lang: sorted(keys) for lang, keys in site.history_keys.items()},
            [[old.name, new.name] for old, new in site.pairs],
        )

    def placement(self, name: str) -> str:
        """Hash of where each unit of an edition lives (its layout)."""
        found = self._placements.get(name)
        if found is None:
            layout = self.site.layout(self.site.by_name[name])[0]
            found = self._placements[name] = _hash(
                layout.fragment,
                layout.pages,
                layout.sections,
                layout.glossary,
                layout.single,
                [list(part) for part in layout.glossary_parts],
            )
        return found

    def edition(self, name: str) -> str:
        """Hash of an edition's own content, its "cited by" lists and its layout."""
        found = self._editions.get(name)
        if found is None:
            from .cache import edition_hash

            e = self.site.by_name[name]
            found = self._editions[name] = _hash(
                edition_hash(e),
                [repr(r) for r in e.restored],
                self.site.cited.get(name, {}),
                self.placement(name),
            )
        return found

    def mapping(self, old: str | None, new: str) -> str:
        """Hash of the renumbering of a stored alignment (``{}`` when there is none)."""
        key = (old or "", new)
        found = self._mappings.get(key)
        if found is None:
            alignment = self.site.alignments.get((old, new)) if old else None
            pairs = sorted(alignment.mapping.items()) if alignment is not None else []
            # its pairs as text, not JSON: 3,000 a pair of editions, 96 pairs (0.36 s as JSON)
            found = self._mappings[key] = _hash("\x1e".join(f"{a}\x1f{b}" for a, b in pairs))
        return found

    def alignment(self, old: str | None, new: str) -> str | None:
        """Hash of the stored alignment ``old`` → ``new`` ("" when there is none), or
        ``None`` when it was given in memory (no key can be made)."""
        if old is None or (old, new) not in self.site.alignments:
            return ""
        return self.digests.get((old, new))

    def of(self, task: tuple) -> str | None:
        """The key of one task, or ``None`` (always rendered)."""
        kind = task[0]
        if kind == "edition":
            return self._edition_task(task[1])
        if kind == "diff":
            stored = self.alignment(task[1], task[2])
            if stored is None:
                return None
            return _hash(self.common, task_id(task), self.edition(task[1]), self.edition(task[2]), stored)
        if kind == "history":
            return self._history_task(*task[1:])
        return None

    def _edition_task(self, name: str) -> str | None:
        from . import urls as U

        site = self.site
        e = site.by_name[name]
        previous = site.lineage.previous.get(name)
        stored = self.alignment(previous, name)
        if stored is None:
            return None
        now: list = []
        latest = site.latest.get(e.lang)
        if not U.is_fragment(e) and latest is not None and latest.name != name:
            keys = site.lineage.key.get(name, {})
            # a rule whose lineage key is its own number is where it was (now_target: None)
            now = [
                [r.id, self._now_of(e, r, key)]
                for r in e.rules
                if (key := keys.get(r.id, r.id)) != r.id and r.kind != "chapter"
            ]
        english = site.english_of.get(name)
        return _hash(
            self.common,
            "edition/" + name,
            self.edition(name),
            now,
            self.placement(english.name) if english is not None else "",
            stored,
        )

    def _now_of(self, edition: Any, rule: Any, key: str) -> Any:
        """``now_target`` of a rule that is not where its lineage key says (not a
        chapter), once a lineage: what it says depends on the language and the key
        alone (the latest edition's rule of that key, or the bulletin that dropped it),
        and the 73 older English editions share them (61,000 rules, 2,700 keys)."""
        found = self._now.get((edition.lang, key), self)
        if found is self:
            found = self._now[(edition.lang, key)] = self.now_target(self.site, edition, rule, key)
        return found

    def _history_task(self, lang: str, start: int, end: int) -> str:
        from .changes import content

        site = self.site
        latest = site.latest[lang]
        keys = site.history_keys[lang]
        ids = [r.id for r in latest.rules if r.id in keys][start:end]
        parts: list = [self.common, f"history/{lang}/{start}/{end}", self.placement(latest.name)]
        # each part a string of fields apart (no JSON: 40,000 parts for the whole corpus)
        for rule_id in ids:
            rule = latest.by_id[rule_id]
            parent = latest.by_id.get(rule.parent) if rule.parent else None
            parts.append(_fields(rule_id, rule.title, parent.title if parent is not None else None))
            for step in site.lineage.steps(latest.name, rule_id):
                edition = site.by_name[step.edition]
                before = site.by_name.get(step.previous_edition) if step.previous_edition else None
                parts.append(
                    _fields(
                        repr(step),
                        content(edition.get(step.number), lang),
                        content(before.get(step.previous), lang) if before is not None and step.previous else "",
                        self.placement(edition.name),
                        self.placement(before.name) if before is not None else "",
                        self.mapping(step.previous_edition, step.edition),
                    )
                )
        return _hash(*parts)


def read_record(sites: Iterable[Path | None]) -> tuple[Path, int, dict[str, Any]] | None:
    """The first readable task record among the previous ``sites``: ``(site folder, the
    record's modification time in ns, {"tasks": task id → {"key", "files", "tally",
    "stats"}})``."""
    for folder in sites:
        if folder is None:
            continue
        path = Path(folder) / RECORD
        try:
            stamp = path.stat().st_mtime_ns
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("tasks"), dict):
            return Path(folder), stamp, data
    return None


def link_or_copy(source: str | Path, dest: str | Path) -> None:
    """``dest`` a hard link to ``source`` (a copy where links cannot be made)."""
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def unchanged(folder: Path, files: dict[str, int], stamp: int) -> bool:
    """Every file of ``files`` (path in ``folder`` → size) is there with that size and
    was not modified after ``stamp`` (ns)."""
    for path, size in files.items():
        try:
            st = os.stat(folder / path)
        except OSError:
            return False
        if st.st_size != size or st.st_mtime_ns > stamp:
            return False
    return True


def take(previous: tuple[Path, int, dict[str, Any]], task: tuple, key: str | None, out: Path) -> dict | None:
    """Hard link the files the previous site recorded for ``task`` into ``out`` when its
    key is ``key`` and every file is there as written (:func:`unchanged`); the record, or
    ``None`` (nothing linked: render it)."""
    if key is None:
        return None
    folder, stamp, data = previous
    record = data["tasks"].get(task_id(task))
    if not isinstance(record, dict) or record.get("key") != key or not isinstance(record.get("files"), dict):
        return None
    files: dict[str, int] = record["files"]
    if not unchanged(folder, files, stamp):
        return None
    for path in files:
        link_or_copy(folder / path, out / path)
    return record


def recorded_digests(records: dict[str, dict]) -> dict[str, tuple[int, str]]:
    """Site path → (size, SHA-256) of every file the tasks' ``records`` name with its
    digest (:meth:`~comprules.site.render.SiteRenderer.run_task`: hashed as it was
    written, or by the build that wrote it when the task was kept)."""
    return {
        path: (size, digests[path])
        for record in records.values()
        if isinstance(digests := record.get("digests"), dict)
        for path, size in record["files"].items()
        if isinstance(digests.get(path), str)
    }


def write_record(out: Path, records: dict[str, dict]) -> None:
    """``site/.tasks.json``: every keyed task's key, files and counts (sorted: two renders
    of the same inputs write the same bytes)."""
    text = json.dumps({"format": FORMAT, "tasks": records}, sort_keys=True, separators=(",", ":"))
    (out / RECORD).write_text(text + "\n", encoding="utf-8")


def previous_sites(reuse: Path | Sequence[Path] | None) -> list[Path]:
    if reuse is None:
        return []
    if isinstance(reuse, (str, os.PathLike)):
        return [Path(reuse)]
    return [Path(p) for p in reuse if p is not None]
