"""Render editions into static HTML pages (jinja2, autoescaped, templates compiled once).

:class:`SiteRenderer` writes every page of a site into a folder; ``render_site`` (in
``__init__``) renders into a temporary folder beside the target and swaps it in.
Pages and their links follow ``DESIGN.md``'s URL scheme, built by :mod:`.urls`.

The work is cut into tasks (one edition, one diff, a slice of the history pages, one
French document beside its English edition) run by forked worker processes when
``jobs`` > 1; the search data (:mod:`.search`) is exported from the search index, in
its own process. Pages shared by the whole site (home, indexes, the lineage tables
of the edition switcher) are written last, by the parent.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from .. import languages
from ..children import fork_pool
from ..model import Edition, Rule, latest_editions, parent_number, restored_words, sort_key
from . import urls as U
from .documents import DocumentView, document_view, eras
from .labels import KIND_LABELS, LABELS, LANG_NAMES, edition_label, labels, plain  # noqa: F401 (LABELS: kept importable from here)
from .lineage import Lineage, chains, load_alignments, open_store, pairs
from .markdown import Extract, TextMemo, make_markdown, render_text
from .reuse import link_or_copy
from .terms import TermMatcher, TermScan

#: Characters of rule text per page before a long section is cut into parts; keeps
#: every section page under 150 KB (702, Keyword Abilities, is ~150 KB of text alone).
PAGE_BUDGET = 90_000
#: Markup a rule adds to its page beyond its text (estimate): glossary-term links,
#: its history link and lineage key.
RULE_MARKUP = 260
#: Markup of the "now 702.37a (2026-08-07)" line of an old edition's rule.
NOW_MARKUP = 110
#: History pages per task: a rule edited in one edition renders its slice again (a word of
#: 2026-08-07's 702.19a: 0.72 s of pages with 200, 2.16 s with 600, where the edition's own
#: pages take 1.2–1.4 s beside it; the whole site's pages alike, 36.1 against 35.3 s).
HISTORY_SLICE = 200
#: Tasks a page-rendering worker runs before a fresh one is forked in its place: what a worker
#: caches and copies from its parent grows with the pages it renders (issue 12: peak memory;
#: the full build's peak 0.99 GB with 30, 0.96 GB with 24, 0.95 GB with 20).
WORKER_TASKS = 24
#: Rules listed under a glossary entry ("Used in 23 rules: …"), the first ones.
USED_SHOWN = 4


_CLASSES = {"chapter": "ch", "section": "se", "rule": "r", "subrule": "sr", "passage": "pa", "note": "no"}


@dataclass(frozen=True)
class SiteStats:
    """What a render wrote."""

    editions: int
    pages: int
    bytes: int
    largest_page: str
    largest_page_bytes: int
    largest_section_page: str
    largest_section_page_bytes: int
    links: int
    dangling: int
    seconds: float
    skipped: bool = False
    search_seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class _Tally:
    pages: int = 0
    bytes: int = 0
    largest: tuple[int, str] = (0, "")
    largest_section: tuple[int, str] = (0, "")
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, path: str, size: int, section: bool) -> None:
        self.pages += 1
        self.bytes += size
        self.largest = max(self.largest, (size, path))
        if section:
            self.largest_section = max(self.largest_section, (size, path))

    def merge(self, other: "_Tally") -> None:
        self.pages += other.pages
        self.bytes += other.bytes
        self.largest = max(self.largest, other.largest)
        self.largest_section = max(self.largest_section, other.largest_section)


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates in files, where a fault is a miss: a file
    that cannot be read or written (a full disk, a cache cleared meanwhile) makes the
    template compiled again, never a failed build."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - anything unreadable is compiled again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def template_cache() -> jinja2.BytecodeCache | None:
    """The compiled templates kept from one site to the next (170 ms of compiling the 23
    templates, 4 ms of reading them): jinja2's own folder for them, ``_jinja2-cache-{uid}``
    in the temporary folder (``$TMPDIR``), mode 700 and checked to be the user's; a file
    there is named by the template and checked against its source, so an edited template
    is compiled again. ``None`` (no cache) when that folder cannot be made or is not safe."""
    try:
        return _TemplateCache()
    except (OSError, RuntimeError):
        return None


def default_extract() -> Extract:
    """The reference extractor of the pipeline, ``comprules.references.extract``."""
    from ..references import extract

    return extract


def cited_by_index(graph: Any) -> dict[str, dict[str, list[str]]]:
    """Citations of a knowledge-base graph: edition → cited rule id → citing rule ids.

    The graph is a networkx ``DiGraph`` whose nodes are rule ids across the knowledge
    base, ``{lang}/{date}/{id}`` (``en/2026-08-07/702.37a``), with an edge from the
    citing rule to the cited one; edges with a ``kind`` other than ``cites`` (such as
    alignments between editions) are ignored, as are citations across editions.
    """
    index: dict[str, dict[str, list[str]]] = {}
    if graph is None:
        return index
    for source, target, data in graph.edges(data=True):
        if data.get("kind", "cites") not in ("cites", "cite", "ref", "refs", "reference"):
            continue
        src_ed, _, src_id = _node_id(source)
        dst_ed, _, dst_id = _node_id(target)
        if src_ed and src_ed == dst_ed and src_id != dst_id:
            index.setdefault(dst_ed, {}).setdefault(dst_id, []).append(src_id)
    for per_edition in index.values():
        for citing in per_edition.values():
            citing[:] = sorted(set(citing), key=sort_key)
    return index


def _node_id(node: Any) -> tuple[str, str, str]:
    """``en/2026-08-07/702.37a`` → (edition, "/", rule id); a glossary node
    ``en/2026-08-07/glossary/morph`` → (edition, "/", ``glossary/morph``)."""
    if isinstance(node, tuple) and len(node) == 2:
        return str(node[0]), "/", str(node[1])
    text = str(node)
    head, sep, tail = text.rpartition("/")
    if head.endswith("/glossary"):
        return head.removesuffix("/glossary"), sep, "glossary/" + tail
    if text.count("/") < 2:
        return "", "", text
    return head, sep, tail


#: The texts whose references a render keeps (about two editions' texts).
TEXTS_KEPT = 12_000

_WORKER: tuple["SiteRenderer", Path] | None = None


def _work(task: tuple) -> tuple[tuple, "_Tally", dict[str, int], dict | None]:
    renderer, out = _WORKER
    return (task, *renderer.run_task(task, out))


class SiteRenderer:
    """Render a set of editions into a folder; templates and markdown built once."""

    def __init__(
        self,
        editions: Sequence[Edition],
        *,
        graph: Any = None,
        data_dir: Path | None = None,
        extract: Extract | None = None,
        page_budget: int = PAGE_BUDGET,
        alignments: dict | None = None,
        alignments_stored: bool = False,
        lineage: Lineage | None = None,
        jobs: int | None = None,
        search: Path | None = None,
        previous: Sequence[Path] = (),
    ):
        self.editions = list(editions)
        self.by_name = {e.name: e for e in self.editions}
        self.cited = cited_by_index(graph)
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.extract = extract if extract is not None else default_extract()
        # the references of a text, found once for all the pages and editions that print it
        self.extract_kept = functools.lru_cache(maxsize=TEXTS_KEPT)(self.extract)
        #: texts rendered once for the editions that link them alike (issue 21)
        self.text_memo = TextMemo()
        self.page_budget = page_budget
        self.given_alignments = alignments
        self.alignments_stored = alignments_stored  # the given ones are the database's (render_site)
        self.given_lineage = lineage  # the build's, made of the given alignments (render_site)
        self.jobs = max(1, jobs if jobs is not None else min(4, os.cpu_count() or 1))
        #: The search index whose data the search page ranks (``None``: no search page).
        self.search = Path(search) if search else None
        self.search_bytes: dict[str, int] = {}
        self.md = make_markdown()
        self.jinja = jinja2.Environment(
            loader=jinja2.PackageLoader("comprules.site", "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
            keep_trailing_newline=True,
            bytecode_cache=template_cache(),
        )
        # languages as data: a page's lang="…" tag, the font stacks of its languages,
        # the notice of a community translation (comprules/data/languages.toml)
        self.jinja.globals.update(L=languages.get)
        self.jinja.globals["site_search"] = self.search is not None
        self.jinja.globals["finder"] = self.finder
        from .offline import template_globals

        self.jinja.globals.update(template_globals(self.editions))  # manifest, feeds (issue 24)
        self.templates = {
            name: self.jinja.get_template(f"{name}.html")
            for name in (
                "home",
                "data",
                "all",
                "go",
                "edition",
                "section",
                "glossary",
                "fragment",
                "diff_index",
                "diff",
                "diffs",
                "history",
                "compare",
                "compare_index",
                "lexicon",
                "search",
                "compare_editions",
            )
        }
        self.latest = latest_editions(self.editions)
        self.sets = set_names()
        self.set_codes = set_codes()
        self.tally = _Tally()
        self.stats: dict[str, int] = {"links": 0, "dangling": 0}
        self.timings: dict[str, float] = {}
        self.alignments: dict = {}
        self.lineage = Lineage()
        self.next_edition: dict[str, str] = {}
        self.history_keys: dict[str, set[str]] = {}
        self.pairs: list[tuple[Edition, Edition]] = []
        self.compares: list[tuple[Edition, Edition, Any]] = []
        self.compare_facts: Any = None  # compare.CompareFacts, read by prepare()
        self.layouts: dict[str, tuple[U.Layout, dict[str, list[list[Rule]]]]] = {}
        self.data_hrefs: dict[str, str] = {}
        self.english_of: dict[str, Edition] = {}
        self.documents: dict[str, DocumentView] = {}
        self.downloads: dict[str, str] = {}
        self._known: dict[str, frozenset[str]] = {}
        self.term_scans: dict[bool, TermScan] = {}  # by the language's "spaced": prepare()
        #: The previous sites whose pages a task may keep (:mod:`.reuse`), the record
        #: found in one of them, each task's key, and the records of this render.
        self.previous_sites = [Path(p) for p in previous]
        self.previous: tuple[Path, int, dict[str, Any]] | None = None
        self.alignment_digests: dict[tuple[str, str], str] = {}
        self.keys: dict[tuple, str | None] = {}
        self.records: dict[str, dict] = {}
        self.kept_tasks = 0
        self._files: dict[str, int] | None = None
        self._digests: dict[str, str] = {}

    def known(self, edition: Edition) -> frozenset[str]:
        """The ids of ``edition``'s units, the targets its references may link to (made
        once: every step of a history page asks for its edition's)."""
        found = self._known.get(edition.name)
        if found is None:
            found = self._known[edition.name] = frozenset(edition.by_id)
        return found

    # -- whole site -----------------------------------------------------------

    def prepare(self) -> None:
        """Alignments, lineage keys, and the English edition of each French document."""
        t = time.perf_counter()
        self.pairs = pairs(self.editions)
        store = open_store(self.data_dir)  # documents and their English editions, as the build stored them
        self.alignments = load_alignments(
            self.editions,
            given=self.given_alignments,
            store=store,
            digests=self.alignment_digests,
            given_stored=self.alignments_stored,
        )
        given = self.given_lineage
        self.lineage = given if given is not None else Lineage.build(self.editions, self.alignments)
        self.next_edition = {p: n for n, p in self.lineage.previous.items()}
        for chain in chains(self.editions):
            last = chain[-1]
            if not U.is_fragment(last):
                self.history_keys[last.lang] = {r.id for r in last.rules if r.kind != "chapter"}
        from .compare import CompareFacts, compare_pairs

        self.compares = compare_pairs(self.editions, store=store, given=self.given_alignments)
        self.compare_facts = CompareFacts.read(store)
        self.english_of = {fr.name: en for fr, en, _ in self.compares}
        known_eras = eras(store)
        facts = store.documents() if store is not None else {}
        self.documents = {
            e.name: document_view(
                e,
                facts.get(e.name),
                known_eras.get(e.name) or ((self.english_of[e.name].name,) * 2 if e.name in self.english_of else None),
            )
            for e in self.editions
            if U.is_fragment(e)
        }
        if store is not None:  # its pages mapped in memory are let go before the workers fork
            store.close()
        for e in self.editions:
            self.layout(e)
        # every glossary form of the editions with pages of their own, found in a text once
        # for all of them (made before the workers fork: they share the compiled pattern)
        self.term_scans = TermScan.of(
            TermMatcher.of(e.glossary, e.lang) for e in self.editions if not U.is_fragment(e) and e.glossary
        )
        self.timings["prepare"] = time.perf_counter() - t

    def render(self, out: Path) -> SiteStats:
        """Write the whole site into ``out`` (an empty or new folder)."""
        started = time.perf_counter()
        out.mkdir(parents=True, exist_ok=True)
        self.copy_static(out)
        data = self.copy_data(out)
        self.data_hrefs = data
        self.prepare()
        tasks = self.tasks()
        t = time.perf_counter()
        from . import reuse

        keys = reuse.Keys(self, self.alignment_digests, now_target)
        self.keys = {task: keys.of(task) for task in tasks}
        self.previous = reuse.read_record(self.previous_sites)
        self.timings["keys"] = time.perf_counter() - t
        t = time.perf_counter()
        self.run_tasks(tasks, out)
        self.timings["pages"] = time.perf_counter() - t
        t = time.perf_counter()
        for lang, edition in self.latest.items():
            self.copy_latest(out, edition, lang)
        search_seconds = 0.0
        if self.search:
            from .search import write_search_data

            ts = time.perf_counter()
            self.search_bytes = write_search_data(self.search, out)
            search_seconds = self.timings["search"] = time.perf_counter() - ts
        self.render_shared(out)
        from . import bundle, offline

        self.downloads = bundle.site_downloads(self, out)  # each edition as a zip, listed by the Data page
        self.render_home(out, graph_href=data.get("graph"))
        offline.finish(self, out)  # feeds, manifest, service worker: last, it hashes the site
        reuse.write_record(out, self.records)
        # the rest: latest/ aliases, shared pages, home (downloads and offline timed apart)
        apart = search_seconds + self.timings.get("downloads", 0.0) + self.timings.get("offline", 0.0)
        self.timings["shared"] = time.perf_counter() - t - apart
        return SiteStats(
            editions=len(self.editions),
            pages=self.tally.pages,
            bytes=self.tally.bytes,
            largest_page=self.tally.largest[1],
            largest_page_bytes=self.tally.largest[0],
            largest_section_page=self.tally.largest_section[1],
            largest_section_page_bytes=self.tally.largest_section[0],
            links=self.stats["links"],
            dangling=self.stats["dangling"],
            seconds=time.perf_counter() - started,
            search_seconds=search_seconds,
            timings=dict(self.timings),
        )

    def tasks(self) -> list[tuple]:
        """Every task, the largest first (so that workers finish together)."""
        tasks: list[tuple[int, tuple]] = []
        for e in self.editions:
            tasks.append((len(e.rules) + len(e.glossary), ("edition", e.name)))
        for old, new in self.pairs:
            tasks.append((len(new.rules) // 4, ("diff", old.name, new.name)))
        for lang, keys in self.history_keys.items():
            latest = self.latest[lang]
            ids = [r.id for r in latest.rules if r.id in keys]
            for k in range(0, len(ids), HISTORY_SLICE):
                tasks.append((len(ids[k : k + HISTORY_SLICE]) * 2, ("history", lang, k, k + HISTORY_SLICE)))
        for k, _ in enumerate(self.compares):
            tasks.append((100, ("compare", k)))
        tasks.sort(key=lambda t: -t[0])
        return [t for _, t in tasks]

    def run_tasks(self, tasks: list[tuple], out: Path) -> None:
        global _WORKER
        if self.jobs <= 1 or len(tasks) < 8:
            for task in tasks:
                self._merge(task, *self.run_task(task, out))
            return
        import gc

        _WORKER = (self, out)
        # Objects made so far are left out of the workers' garbage collections: a collection
        # writes to every object it visits, which copies the parent's pages into each worker.
        gc.freeze()
        try:
            with fork_pool(self.jobs, maxtasksperchild=WORKER_TASKS) as pool:
                for result in pool.imap_unordered(_work, tasks):
                    self._merge(*result)
        finally:
            gc.unfreeze()
            _WORKER = None

    def _merge(self, task: tuple, tally: "_Tally", stats: dict[str, int], record: dict | None = None) -> None:
        if record is not None:
            from .reuse import task_id

            self.records[task_id(task)] = record
            self.kept_tasks += bool(record.pop("kept", False))
        if tally is not self.tally:
            self.tally.merge(tally)
        for k, v in stats.items():
            if stats is not self.stats:
                self.stats[k] = self.stats.get(k, 0) + v

    def run_task(self, task: tuple, out: Path) -> tuple["_Tally", dict[str, int], dict | None]:
        """Run one task, or keep its files from the previous site (:mod:`.reuse`);
        return what it wrote and, for a task with a key, its record."""
        key = self.keys.get(task)
        if self.previous is not None and key is not None:
            from .reuse import take

            kept = take(self.previous, task, key, out)
            if kept is not None:
                pages, size, largest, largest_section = kept["tally"]
                tally = _Tally(pages, size, tuple(largest), tuple(largest_section))
                return tally, dict(kept["stats"]), {**kept, "kept": True}
        saved = self.tally, self.stats, self._files, self._digests
        self.tally, self.stats = _Tally(), {"links": 0, "dangling": 0}
        self._files, self._digests = ({} if key is not None else None), {}
        try:
            self._run(task, out)
            record = None
            if key is not None:
                t = self.tally
                record = {
                    "key": key,
                    "files": dict(sorted(self._files.items())),
                    # each file's SHA-256: the service worker's list reads it (offline.build_info)
                    "digests": dict(sorted(self._digests.items())),
                    "tally": [t.pages, t.bytes, list(t.largest), list(t.largest_section)],
                    "stats": dict(self.stats),
                }
            return self.tally, self.stats, record
        finally:
            self.tally, self.stats, self._files, self._digests = saved

    def _run(self, task: tuple, out: Path) -> None:
        kind = task[0]
        if kind == "edition":
            edition = self.by_name[task[1]]
            self.render_edition(edition, out, data_href=self.data_hrefs.get(edition.name))
            from .changes import write_edition_texts

            write_edition_texts(self, out, edition)
        elif kind == "diff":
            from .changes import render_diff

            render_diff(self, out, self.by_name[task[1]], self.by_name[task[2]])
        elif kind == "history":
            from .changes import render_history

            render_history(self, out, task[1], task[2], task[3])
        elif kind == "compare":
            from .compare import render_compare

            render_compare(self, out, *self.compares[task[1]])

    def write(self, out: Path, path: str, html: str, *, section: bool = False) -> None:
        data = html.encode("utf-8")
        self._put(out, path, data)
        self.tally.add(path, len(data), section)

    def write_text(self, out: Path, path: str, text: str) -> None:
        """A file that is not a page (a script): counted in the total only."""
        data = text.encode("utf-8")
        self._put(out, path, data)
        self.tally.bytes += len(data)

    def _put(self, out: Path, path: str, data: bytes) -> None:
        """Write a file of the site, never into a file already there (it may be a hard
        link to a page of the previous site), and note it for the task's record."""
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        target.write_bytes(data)
        if self._files is not None:
            self._files[path] = len(data)
            self._digests[path] = hashlib.sha256(data).hexdigest()

    def copy_static(self, out: Path) -> None:
        dest = out / U.STATIC
        dest.mkdir(parents=True, exist_ok=True)
        hashed = U.static_names()
        for given, data in U.static_files().items():
            # the given name for links from outside, the hashed one for the pages
            for name in {given, hashed.get(given, given)}:
                (dest / name).write_bytes(data)
                self.tally.bytes += len(data)

    def copy_data(self, out: Path) -> dict[str, str]:
        """Copy the data exports of the rendered editions (hard links when possible)."""
        found: dict[str, str] = {}
        if self.data_dir is None or not self.data_dir.is_dir():
            return found
        wanted = {e.name: U.data_file(e.name) for e in self.editions}
        wanted["graph"] = "data/graph.graphml"
        for key, path in wanted.items():
            source = self.data_dir / path.removeprefix("data/")
            if source.is_file():
                link_or_copy(source, out / path)
                self.tally.bytes += source.stat().st_size
                found[key] = path
        return found

    def copy_latest(self, out: Path, edition: Edition, lang: str) -> None:
        """``{lang}/latest/`` as a copy of the latest edition's folder.

        Every link inside an edition folder is relative to that folder, and the pages
        sit at the same depth, so the copy works unchanged (hard links when possible).
        """
        source = out / U.edition_dir(edition.name)
        dest = out / U.latest_dir(lang)
        shutil.copytree(source, dest, copy_function=link_or_copy)
        for path in dest.rglob("*.html"):
            self.tally.add(path.relative_to(out).as_posix(), path.stat().st_size, False)

    # -- pages ----------------------------------------------------------------

    def edition_row(self, e: Edition, u: U.Urls) -> dict[str, Any]:
        """One edition as the home page lists it."""
        date = e.effective.isoformat()
        prev = self.lineage.previous.get(e.name)
        return {
            "href": u.edition(e.name),
            "date": date,
            "count": len(e.numbered()),
            "set": self.sets.get(date, ""),
            "diff": u(U.diff_page(prev, e.name)) if prev else None,
            "compare": next(
                (u(U.compare_page(f.name, en.name)) for f, en, _ in self.compares if f.name == e.name), None
            ),
            "data": u(self.data_hrefs[e.name]) if e.name in self.data_hrefs else None,
        }

    def document_row(self, e: Edition, u: U.Urls) -> dict[str, Any]:
        """One document (fragment) as the home page lists it: title, description, links."""
        view = self.documents.get(e.name) or document_view(e)
        return {
            "href": u.edition(e.name),
            "title": view.title,
            "summary": view.summary,
            "compare": next(
                (u(U.compare_page(f.name, en.name)) for f, en, _ in self.compares if f.name == e.name), None
            ),
        }

    def finder(self, u: U.Urls, edition: str | None = None, here: bool = False) -> dict[str, str] | None:
        """What the header's go-to box of a page needs (``static/goto.js``): the edition
        it looks in (``edition``, else the latest English one), that edition's folder
        from the page (``""`` when ``here``: the page is in it, or in its ``latest/``
        copy), the site root and the latest edition's folder (for other sites' links)."""
        lang = "en" if "en" in self.latest else next(iter(self.latest), None)
        base = None
        if edition is None or edition not in self.by_name:
            if lang is None:
                return None
            edition = self.latest[lang].name
            base = u(U.latest_dir(lang)) + "/"  # a page of no edition: the latest one, by its alias
        latest = self.latest.get(edition.partition("/")[0]) or self.latest.get(lang)
        if base is None:
            base = "" if here else u(U.edition_dir(edition)) + "/"
        return {
            "edition": edition,
            "base": base,
            "root": u.home()[: -len(U.HOME)],
            "latest": u(U.latest_dir(latest.lang)) + "/" if latest else "",
        }

    def menu(self, u: U.Urls) -> list[tuple[str, str]]:
        """The site's main menu: (label, link) of search, diffs, compare, lexicon, data."""
        t = labels("en")
        items = [
            (t["search"], U.search_page(), self.search),
            (t["diffs"], U.diff_index(), self.pairs),
            (t["compare"], U.compare_index(), self.compares),
            (t["lexicon"], U.lexicon_page(), self.compares),
            (t["data"], U.data_page(), True),
        ]
        return [(label, u(path)) for label, path, shown in items if shown]

    def render_home(self, out: Path, graph_href: str | None = None) -> None:
        u = U.Urls(U.HOME)
        groups, documents = [], []
        for lang in sorted({e.lang for e in self.editions}, key=_lang_order):
            mine = [e for e in self.editions if e.lang == lang]
            dated = sorted((e for e in mine if not U.is_fragment(e)), key=lambda e: e.effective, reverse=True)
            fragments = sorted((e for e in mine if U.is_fragment(e)), key=lambda e: e.name)
            latest = self.latest.get(lang)
            groups.append(
                {
                    "lang": lang,
                    "name": LANG_NAMES.get(lang, lang),
                    "t": labels(lang),
                    "latest": {
                        "label": latest.effective.isoformat(),
                        "set": self.sets.get(latest.effective.isoformat(), ""),
                    }
                    if latest
                    else None,
                    "editions": [self.edition_row(e, u) for e in dated],
                }
            )
            if fragments:
                documents.append(
                    {"lang": lang, "t": labels(lang), "docs": [self.document_row(e, u) for e in fragments]}
                )
        goto_lang = "en" if "en" in self.latest else next(iter(self.latest), None)
        goto = {"base": u(U.latest_dir(goto_lang)) + "/", "fragment": False} if goto_lang else None
        html = self.templates["home"].render(
            lang="en",
            title=labels("en")["site"],
            t=labels("en"),
            u=u,
            goto=goto,
            languages=groups,
            documents=documents,
            menu=self.menu(u),
            latest_base=goto["base"] if goto else None,
        )
        self.write(out, U.HOME, html)
        self.render_data_page(out, graph_href)

    def render_data_page(self, out: Path, graph_href: str | None) -> None:
        """``data.html``: every published data file (per-edition JSON, the graph), with sizes."""
        u = U.Urls(U.data_page())
        groups = []
        for lang in sorted({e.lang for e in self.editions}, key=_lang_order):
            files = []
            for e in sorted(
                (e for e in self.editions if e.lang == lang),
                key=lambda e: (U.is_fragment(e), -(e.effective.toordinal() if e.effective else 0), e.name),
            ):
                path, download = self.data_hrefs.get(e.name), self.downloads.get(e.name)
                if path is None and download is None:
                    continue
                if download is not None:
                    made = {"href": u(download), "size": _size(out / download)}
                elif e.effective is not None and not U.is_fragment(e):  # made when asked (bundle.site_downloads)
                    made = {"href": u(U.download_file(e.name)), "size": None, "edition": e.name}
                else:
                    made = None
                files.append(
                    {
                        "href": u(path) if path else None,
                        "name": e.name.partition("/")[2],
                        "label": edition_label(e),
                        "size": _size(out / path) if path else "",
                        "zip": made,
                    }
                )
            if files:
                groups.append({"lang": lang, "name": LANG_NAMES.get(lang, lang), "files": files})
        graph = {"href": u(graph_href), "size": _size(out / graph_href)} if graph_href else None
        t = labels("en")
        html = self.templates["data"].render(
            lang="en", title=f"{t['data']} — {t['site']}", t=t, u=u, goto=None, groups=groups, graph=graph
        )
        self.write(out, U.data_page(), html)

    def render_shared(self, out: Path) -> None:
        """The pages and scripts about the whole site: diff index, lineage tables,
        French ⇄ English index and lexicon, search page."""
        from .changes import render_diff_index
        from .compare import render_compare_index, render_lexicon

        if self.pairs:
            render_diff_index(self, out)
            from .changes import render_compare_editions

            render_compare_editions(self, out)
        if self.compares:
            render_compare_index(self, out)
            render_lexicon(self, out)
        self.write_lineage(out)
        self.write_goto(out)
        self.render_go(out)
        if self.search:
            u = U.Urls(U.search_page())
            from .search import data_path

            html = self.templates["search"].render(
                lang="en",
                title=f"{labels('en')['search']} — {labels('en')['site']}",
                t=labels("en"),
                u=u,
                goto=None,
                data=[u(data_path(lang)) for lang in self.search_bytes],
                # only the languages the knowledge base holds (issue 22: no 简体中文 to choose
                # where no Chinese edition was built)
                langs=[
                    (lang.code, lang.name)
                    for lang in languages.all_languages()
                    if any(e.lang == lang.code for e in self.editions)
                ],
                editions=[
                    (e.name, edition_label(e))
                    for e in sorted(
                        self.editions,
                        key=lambda e: (
                            _lang_order(e.lang),
                            U.is_fragment(e),
                            -(e.effective.toordinal() if e.effective else 0),
                            e.name,
                        ),
                    )
                ],
            )
            self.write(out, U.search_page(), html)

    def write_goto(self, out: Path) -> None:
        """The go-to box's numbers of every language (``goto/{lang}/n{digit}.js``)."""
        from .goto import chains_of, scripts

        for chain in chains_of(self.editions):
            for path, text in scripts(chain, self.lineage.key).items():
                self.write_text(out, path, text)

    def render_go(self, out: Path) -> None:
        """``go.html``: a Yawgatog or mtg.wtf link (or its fragment) opened in the latest
        English edition (``static/goto.js``)."""
        lang = "en" if "en" in self.latest else next(iter(self.latest), None)
        if lang is None:
            return
        u = U.Urls(U.redirect_page())
        t = labels("en")
        html = self.templates["go"].render(
            lang="en",
            title=f"{t['go_title']} — {t['site']}",
            t=t,
            u=u,
            goto=None,
            latest=u(U.latest_dir(lang)) + "/",
            latest_label=edition_label(self.latest[lang]),
        )
        self.write(out, U.redirect_page(), html)

    def write_lineage(self, out: Path) -> None:
        """The edition switcher's data: the editions, and per dated edition where each
        lineage key lands in it (scripts, so that they load from disk too)."""
        listing: dict[str, list[list[str]]] = {}
        for chain in chains(self.editions):
            if U.is_fragment(chain[-1]):
                continue
            listing[chain[-1].lang] = [
                [e.effective.isoformat(), self.sets.get(e.effective.isoformat(), "")] for e in reversed(chain)
            ]
            for e in chain:
                table = json.dumps(self.lineage.switch_table(e.name), ensure_ascii=False, separators=(",", ":"))
                self.write_text(
                    out,
                    U.lineage_script(e.name),
                    f"(window.CR_LINEAGE=window.CR_LINEAGE||{{}})[{json.dumps(e.name)}]={table};\n",
                )
        self.write_text(
            out,
            U.editions_script(),
            "window.CR_EDITIONS=" + json.dumps(listing, ensure_ascii=False, separators=(",", ":")) + ";\n",
        )

    def layout(self, edition: Edition) -> tuple[U.Layout, dict[str, list[list[Rule]]]]:
        """Where each unit of an edition lives (computed once, shared by all pages)."""
        if edition.name not in self.layouts:
            cited = self.cited.get(edition.name, {})
            extra = {r.id: RULE_MARKUP for r in edition.rules}
            for rule_id, citing in cited.items():
                extra[rule_id] = extra.get(rule_id, 0) + 12 + 30 * len(citing)
            keys = self.lineage.key.get(edition.name, {})
            for rule_id, key in keys.items():  # the "now …" line of a rule renumbered or removed since
                if key != rule_id and rule_id in extra:
                    extra[rule_id] += NOW_MARKUP
            self.layouts[edition.name] = U.layout(edition, self.page_budget, extra)
        return self.layouts[edition.name]

    def place(self, name: str, rule_id: str | None) -> str | None:
        """Site path (with anchor) of a unit of any edition, or ``None``."""
        if rule_id is None or name not in self.by_name:
            return None
        return self.layout(self.by_name[name])[0].rule(rule_id)

    def render_edition(self, edition: Edition, out: Path, *, data_href: str | None = None) -> None:
        """Every page of one edition (or the single page of a fragment)."""
        layout, parts_of = self.layout(edition)
        page = _EditionPages(self, edition, layout, out)
        if layout.fragment:
            from .goto import word_script, words

            # its own words ("Mue" → 502.26), tried before its English edition's; a one-line
            # note has none, and no script
            own = words(edition, self.extract, {})
            page.own_words = bool(own)
            page.fragment(data_href)
            if own:
                self.write_text(out, *word_script(edition, found=own))
            return
        page.toc(data_href, parts_of)
        page.glossary()
        page.sections(parts_of)
        page.one_page()
        from .goto import word_script

        self.write_text(out, *word_script(edition, self.extract, layout.glossary_pages))


class _EditionPages:
    """The pages of one edition: shared context, one method per page kind."""

    def __init__(self, site: SiteRenderer, edition: Edition, layout: U.Layout, out: Path):
        self.site = site
        self.edition = edition
        #: a document without a date with go-to words of its own (its header's box tries them first)
        self.own_words = False
        self.layout = layout
        self.out = out
        self.t = labels(edition.lang)
        self.known = site.known(edition)
        self.cited = site.cited.get(edition.name, {})
        self.terms = {} if layout.fragment else {g.slug: g.term for g in edition.glossary}
        # the references of a text, found once for its section page, all.html and the next editions
        self.extract = site.extract_kept
        #: Every term of the glossary (the "used in" lists), and those linked in rule text.
        scan = site.term_scans.get(languages.get(edition.lang).spaced)
        self.all_terms = None if layout.fragment else TermMatcher.of(edition.glossary, edition.lang, scan)
        self.matcher = None if layout.fragment else TermMatcher.for_edition(edition, full=self.all_terms)
        self.term_rules = self._term_rules() if self.matcher is not None else {}
        self._skipped: dict[str, frozenset[str]] = {}
        self.keys = site.lineage.key.get(edition.name, {})
        self.dated = not layout.fragment
        self.histories = site.history_keys.get(edition.lang, set()) if self.dated else set()
        latest = site.latest.get(edition.lang)
        document = site.documents.get(edition.name) if layout.fragment else None
        if layout.fragment and document is None:
            document = document_view(edition)
        self.document = document
        self.ed = {
            "name": edition.name,
            "title": document.title if document else edition.title or site_title(edition),
            "label": edition_label(edition),
            "date": edition.effective.isoformat() if edition.effective else "",
            "source": Path(edition.source).name if edition.source else "",
            "is_latest": latest is not None and latest.name == edition.name,
            # a lossy source repaired from its neighbours (issue 22): said on its contents page
            "restored": restored_words(*edition.restored_summary()) if edition.restored else "",
        }

    def _term_rules(self) -> dict[str, set[str]]:
        """Rule number → the glossary entries (slugs) that cite it: the terms not linked
        inside that rule and its subrules (Trample in 702.19a would link to itself)."""
        out: dict[str, set[str]] = {}
        for entry in self.edition.glossary:
            for ref in self.extract(entry.text, self.edition.lang) if entry.text else ():
                if ref.kind == "glossary":
                    continue
                for number in ref.targets:
                    out.setdefault(number, set()).add(entry.slug)
        return out

    def terms_skipped(self, r: Rule) -> frozenset[str]:
        """The glossary terms not linked in ``r``: those whose entry cites ``r`` or a
        rule, section or chapter above it (once per number: a rule is shown on several
        pages)."""
        found = self._skipped.get(r.number)
        if found is None:
            skip: set[str] = set()
            number: str | None = r.number
            while number:
                skip |= self.term_rules.get(number, set())
                number = parent_number(number)
            found = self._skipped[r.number] = frozenset(skip)
        return found

    def context(self, path: str, title: str, **extra: Any) -> dict[str, Any]:
        u = U.Urls(path, self.layout)
        # Valid from the dated folder and from its {lang}/latest/ copy alike.
        permalink = None if self.layout.fragment else U.permalink(path)
        switch = None
        if self.dated and self.edition.name in self.site.lineage.previous.values() | self.site.lineage.previous.keys():
            switch = {
                "edition": self.edition.name,
                "root": u.home()[: -len(U.HOME)],
                "editions": u(U.editions_script()),
            }
        if self.layout.fragment:  # a document: its own numbers and words first (on the page), then its English
            english = self.site.english_of.get(self.edition.name)
            find = self.site.finder(u, english.name if english is not None else None)
            if find is not None and self.own_words:
                find = {**find, "own": self.edition.name}
        else:
            find = self.site.finder(u, self.edition.name, here=True)
        return {
            "lang": self.edition.lang,
            "title": title,
            "t": self.t,
            "u": u,
            "ed": self.ed,
            "find": find,
            "permalink": permalink,
            "switch": switch,
            "kinds": KIND_LABELS.get(self.edition.lang, KIND_LABELS["en"]),
            **extra,
        }

    def env(self, u: U.Urls) -> dict[str, Any]:
        env = {
            "extract": self.extract,
            "lang": self.edition.lang,
            "known": self.known,
            "edition": self.edition.name,
            "urls": u,
            "stats": self.site.stats,
            "memo": self.site.text_memo,
        }
        if self.matcher is not None:
            env["terms"] = self.matcher
            env["glossary"] = u(U.glossary_page(self.edition.name))
            pages, name = self.layout.glossary_pages, self.edition.name
            env["glossary_href"] = lambda slug: u(f"{pages.get(slug) or U.glossary_page(name)}#{slug}")
        english = self.site.english_of.get(self.edition.name)
        if english is not None:
            layout = self.site.layout(english)[0]

            def fallback(kind: str, number: str, layout: U.Layout = layout) -> str | None:
                path = layout.target(kind, number) if kind != "glossary" else None
                return u(path) if path else None

            env["fallback"] = fallback
        return env

    def text(self, text: str, env: dict[str, Any]) -> Markup:
        return Markup(render_text(self.site.md, text, env)) if text else Markup("")

    def inline(self, text: str) -> Markup:
        """A title or headword: emphasis only, no reference links."""
        return Markup(render_text(self.site.md, text, {})) if text else Markup("")

    def rule_views(self, rules: Iterable[Rule], u: U.Urls) -> list[dict[str, Any]]:
        env = self.env(u)
        return [self.rule_view(r, u, env) for r in rules]

    def rule_view(self, r: Rule, u: U.Urls, env: dict[str, Any]) -> dict[str, Any]:
        text = r.text or ""
        heading = r.title
        if heading and text.startswith(heading):
            text = text[len(heading) :].lstrip()
        numbered = r.kind in ("chapter", "section", "rule", "subrule")
        if r.kind == "subrule":
            label = r.number
        elif numbered:
            label = r.number + "."
        elif r.kind == "passage" and "¶" in r.id:
            label = "¶" + r.id.partition("¶")[2]
        else:
            label = ""
        key = self.keys.get(r.id, r.id)
        if "terms" in env:  # a term is linked once per rule (text and examples), never to this rule
            env["terms_seen"] = set()
            env["terms_skip"] = self.terms_skipped(r)
        history = None
        if key in self.histories and r.kind != "chapter":
            history = u(U.history_page(self.edition.lang, key))
        return {
            "id": r.id,
            "key": key if key != r.id and self.dated else "",
            "history": history,
            "alias": U.alias_anchor(r.id) if numbered and "~" not in r.id else "",
            "label": label,
            "cls": _CLASSES.get(r.kind, r.kind),
            "heading": self.inline(heading) if heading else None,
            "html": self.text(text, env),
            "examples": [self.text(ex, env) for ex in r.examples],
            "cited_by": self.cited_by(r.id, u),
            "now": self.now(r, key, u),
        }

    def now(self, r: Rule, key: str, u: U.Urls) -> dict[str, Any] | None:
        """Where a rule of an old edition is in the latest one (:func:`now_target`), its
        links made from the page ``u``."""
        if not self.dated or self.ed["is_latest"]:
            return None
        found = now_target(self.site, self.edition, r, key)
        if found is None:
            return None
        view = dict(found)
        path = view.pop("path")
        if "removed" in view:
            view["href"] = u(path) + "#" + view.pop("anchor")
        else:
            view["href"] = u(path) if path else None
        return view

    def cited_by(self, rule_id: str, u: U.Urls) -> list[tuple[str, str]]:
        """(label, link) of each rule or glossary entry citing a rule (from the graph)."""
        cited = []
        for citing in self.cited.get(rule_id, ()):
            if citing.startswith("glossary/"):
                slug = citing.partition("/")[2]
                term = self.terms.get(slug)
                if term:
                    page = self.layout.glossary_pages.get(slug) or U.glossary_page(self.edition.name)
                    cited.append((plain(term), u(f"{page}#{slug}")))
            elif href := u.rule(citing):
                cited.append((citing, href))
        return cited

    def toc(self, data_href: str | None, parts_of: dict[str, list[list[Rule]]]) -> None:
        """The table of contents: chapters, their sections, units outside any section."""
        path = U.edition_index(self.edition.name)
        ctx = self.context(path, self.ed["title"])
        u = ctx["u"]
        chapters: dict[str, dict[str, Any]] = {}
        for r in self.edition.rules:
            if r.kind == "chapter":  # "cited by" too: 100.1b cites chapter 8
                chapters.setdefault(
                    r.number,
                    {
                        "id": r.id,
                        "number": r.number,
                        "title": self.inline(r.title or r.text),
                        "sections": [],
                        "cited_by": self.cited_by(r.id, u),
                    },
                )
        heads = self.heads()
        for number in parts_of:
            head = heads.get(number)
            ch = (head.chapter if head else None) or number[:1]
            chapter = chapters.setdefault(ch, {"id": ch, "number": ch, "title": "", "sections": []})
            title = (head.title or head.text) if head else ""
            chapter["sections"].append({"number": number, "title": self.inline(title), "href": u.section(number)})
        others = [r for r in self.edition.rules if r.kind != "chapter" and self.layout.pages.get(r.id) == path]
        self.ed["data_href"] = u(data_href) if data_href else None
        html = self.site.templates["edition"].render(
            **ctx,
            chapters=list(chapters.values()),
            rules=self.rule_views(others, u),
        )
        self.site.write(self.out, path, html)

    def glossary(self) -> None:
        """The glossary, in parts by letter when long (``glossary-2.html``…), with an
        A–Z bar and, under each entry, the rules that use its term.

        The first part keeps an anchor for every entry of the later parts
        (``<i id="trample" data-go="glossary-4.html">``), so that ``glossary.html#trample``
        still lands (site.js follows it); the site's own links go to the right part.
        """
        name = self.edition.name
        parts = self.layout.glossary_parts or (tuple(e.slug for e in self.edition.glossary),)
        by_slug = self.edition.glossary_by_slug
        uses = self.uses()
        where = {slug: k for k, part in enumerate(parts, start=1) for slug in part}
        letters: dict[str, int] = {}
        for entry in self.edition.glossary:
            key = U.letter(entry.term)
            if key:
                letters.setdefault(key, where.get(entry.slug, 1))
        anchors = self.glossary_anchors()
        for k, part in enumerate(parts, start=1):
            path = U.glossary_page(name, k)
            count = len(parts)
            label = f"({self.t['part']} {k}/{count})" if count > 1 else ""
            ctx = self.context(path, f"{self.t['glossary']}{' ' + label if label else ''} — {self.ed['label']}")
            u = ctx["u"]
            views = self.entries(u, [by_slug[s] for s in part], uses, anchors)
            groups: list[tuple[str, list]] = []  # runs of one letter, in the glossary's order
            headed: set[str] = set()
            for view in views:
                if not groups or view["letter"] != groups[-1][0].lstrip("~"):
                    # a letter met again ("The Ring Tempts You" among the Rs) gets no second heading
                    key = view["letter"] if view["letter"] not in headed else "~" + view["letter"]
                    headed.add(view["letter"])
                    groups.append((key, []))
                groups[-1][1].append(view)
            az = (
                [
                    (key, u(f"{U.glossary_page(name, page)}#{_letter_id(key)}"))
                    for key, page in sorted(letters.items(), key=lambda kv: (kv[0] != "#", kv[0]))
                ]
                if len(letters) > 1
                else []
            )
            stubs = []
            if k == 1 and count > 1:
                for later, slugs in enumerate(parts[1:], start=2):
                    page = U.glossary_page(name, later).rpartition("/")[2]
                    for slug in slugs:
                        stubs.extend((a, page) for a in (slug, *anchors.get(slug, ())))
            pager = (
                [(i, u(U.glossary_page(name, i)) if i != k else None) for i in range(1, count + 1)] if count > 1 else []
            )
            html = self.site.templates["glossary"].render(
                **ctx, groups=groups, az=az, stubs=stubs, part_label=label, parts=pager, letter_id=_letter_id
            )
            self.site.write(self.out, path, html)

    def glossary_anchors(self) -> dict[str, list[str]]:
        """Slug → the extra anchors of an entry (its aliases' slugs), unique in the edition."""
        seen: set[str] = {e.slug for e in self.edition.glossary}
        out: dict[str, list[str]] = {}
        for entry in self.edition.glossary:
            for alias in (entry.term, *entry.aliases):
                slug = U.slugify(alias)
                if slug and slug not in seen:
                    seen.add(slug)
                    out.setdefault(entry.slug, []).append(slug)
        return out

    def uses(self) -> dict[str, list[str]]:
        """Slug → the rules (ids, in order) whose text uses the term, less the rules its
        entry cites and their subrules (already its "See rule")."""
        matcher = self.all_terms or TermMatcher.of(self.edition.glossary, self.edition.lang)
        cited: dict[str, set[str]] = {}
        for number, slugs in self.term_rules.items():
            for slug in slugs:
                cited.setdefault(slug, set()).add(number)
        out: dict[str, list[str]] = {}
        for r in self.edition.rules:
            if r.kind not in ("rule", "subrule") or not r.text:
                continue
            text = " ".join((r.text, *r.examples)) if r.examples else r.text
            for slug in matcher.slugs_in(text):
                if slug in cited and (r.number in cited[slug] or self.terms_skipped(r) & {slug}):
                    continue
                out.setdefault(slug, []).append(r.id)
        return out

    def entries(
        self,
        u: U.Urls,
        entries: Sequence | None = None,
        uses: dict[str, list[str]] | None = None,
        anchors: dict[str, list[str]] | None = None,
    ) -> list[dict[str, Any]]:
        env = self.env(u)
        env.pop("terms", None)  # the glossary links its references, not every term
        views = []
        anchors = self.glossary_anchors() if anchors is None else anchors
        for entry in self.edition.glossary if entries is None else entries:
            senses = entry.senses or ((entry.text,) if entry.text else ())
            used = (uses or {}).get(entry.slug, [])
            views.append(
                {
                    "slug": entry.slug,
                    "term": self.inline(entry.term),
                    "aliases": [self.inline(a) for a in entry.aliases],
                    "obsolete": entry.obsolete,
                    "anchors": list(anchors.get(entry.slug, ())),
                    "letter": U.letter(entry.term),
                    "senses": [(i + 1 if len(senses) > 1 else None, self.text(s, env)) for i, s in enumerate(senses)],
                    "used": {
                        "count": len(used),
                        "more": len(used) > USED_SHOWN,
                        "links": [(rid, u.rule(rid)) for rid in used[:USED_SHOWN] if u.rule(rid)],
                    }
                    if used
                    else None,
                }
            )
        return views

    def heads(self) -> dict[str, Rule]:
        """Section number → its section unit (the first, if the number is duplicated)."""
        heads: dict[str, Rule] = {}
        for s in self.edition.sections():
            heads.setdefault(s.number, s)
        return heads

    def sections(self, parts_of: dict[str, list[list[Rule]]]) -> None:
        """Every section page (and part), in document order, with prev/next links.

        Sections come from the layout, so that a section whose heading the parser
        missed still gets the page its rules' links point to.
        """
        name = self.edition.name
        heads = self.heads()
        pages = [(number, i + 1, part) for number, parts in parts_of.items() for i, part in enumerate(parts)]
        for k, (number, part_no, rules) in enumerate(pages):
            head = heads.get(number)
            head_title = (head.title or head.text) if head else ""
            count = len(parts_of[number])
            path = U.section_page(name, number, part_no)
            part_label = f"({self.t['part']} {part_no}/{count})" if count > 1 else ""
            ctx = self.context(path, f"{number}. {plain(head_title)} — {self.ed['label']}")
            u = ctx["u"]
            anchor = number if part_no == 1 else f"{number}-{part_no}"
            sec = {
                "id": anchor,
                "alias": U.alias_anchor(number) if part_no == 1 else "",
                "number": number,
                "title": self.inline(head_title),
                "self_href": "#" + anchor,
                "cited_by": self.cited_by(head.id, u) if head and part_no == 1 else [],
                "key": "",
                "history": None,
                "part_label": part_label,
                "part_no": part_no,
                "parts": " ".join(str(_rule_integer(p[0].number) if p else 0) for p in parts_of[number])
                if count > 1
                else "",
            }
            if count > 1:
                sec["index"] = self._index(parts_of[number], part_no, name, number, u)
                sec["count"] = count
            if head is not None and part_no == 1:
                view = self.rule_view(head, u, {})
                sec["key"], sec["history"] = view["key"], view["history"]
            twin = self.site.english_of.get(name)
            if twin is not None and not self.layout.fragment:  # a translation: this section beside its English
                sec["twin"] = u(U.compare_page(name, twin.name, number))
            html = self.site.templates["section"].render(
                **ctx,
                sec=sec,
                rules=self.rule_views(rules, u),
                prev=self._neighbour(pages, k - 1, u),
                next=self._neighbour(pages, k + 1, u),
            )
            self.site.write(self.out, path, html, section=True)

    def _index(self, parts: list[list[Rule]], here: int, name: str, number: str, u: U.Urls) -> list[dict]:
        """The index of a split section (702's keyword abilities), at the top of every part:
        each rule with its title, linked to its part.

        On the first part, the entries of the later parts carry the ids of their rule and
        subrules, so that a permalink ``702.html#702.37a`` lands on the entry pointing to
        ``702-2.html#702.37a`` (and the page's script goes there at once).
        """
        entries: list[dict] = []
        for i, part in enumerate(parts, start=1):
            href = "" if i == here else u(U.section_page(name, number, i))
            stub = here == 1 and i > 1
            for rule in part:
                if rule.kind == "rule" or not entries:
                    entries.append(
                        {
                            "number": rule.number,
                            "title": self.inline(rule.title) if rule.title else "",
                            "href": f"{href}#{rule.id}",
                            "id": rule.id if stub else "",
                            "ids": [],
                        }
                    )
                elif stub:
                    entries[-1]["ids"].append((rule.id, f"{href}#{rule.id}"))
        return entries

    def _neighbour(self, pages: list, k: int, u: U.Urls) -> dict[str, str] | None:
        if not 0 <= k < len(pages):
            return None
        number, part_no, _ = pages[k]
        label = number if part_no == 1 else f"{number} ({part_no})"
        return {"href": u(U.section_page(self.edition.name, number, part_no)), "label": label}

    def one_page(self) -> None:
        """``all.html``: the whole edition on one page, for Ctrl+F and printing.

        Every reference links inside the page; each unit carries the anchors clients
        link to: its id (``702.123a``), Yawgatog's ``R702123a`` and mtg.wtf's
        ``section-702-123a``; each glossary entry its slug and Yawgatog's anchors
        (``active_player_nonactive_player_order``), mtg.wtf's ``section-glossary`` on the
        glossary heading. No glossary-term links, history links or "cited by" (the
        section pages have them), to keep the page light.
        """
        path = U.all_page(self.edition.name)
        ctx = self.context(path, f"{self.ed['title']} — {self.t['one_page']}")
        u = U.Urls(path, self.layout.on_one_page(path))
        ctx["u"] = u
        env = {
            "extract": self.extract,
            "lang": self.edition.lang,
            "known": self.known,
            "edition": self.edition.name,
            "urls": u,
            "stats": {},
            "memo": self.site.text_memo,
        }
        seen: set[str] = set()
        units = []
        for r in self.edition.rules:
            units.append(self._one_page_unit(r, env, seen))
        entries = self.entries(u)
        seen.update(e["slug"] for e in entries)
        for view, entry in zip(entries, self.edition.glossary):
            names = [entry.term, ", ".join((entry.term, *entry.aliases))] if entry.aliases else [entry.term]
            for name in names:
                for anchor in U.yawgatog_anchors(name):
                    if anchor not in seen:
                        seen.add(anchor)
                        view["anchors"].append(anchor)
        chapters = [
            {
                "id": r.id,
                "number": r.number,
                "title": self.inline(r.title or r.text),
                "sections": [s for s in self.edition.sections() if s.chapter == r.number],
            }
            for r in self.edition.rules
            if r.kind == "chapter"
        ]
        html = self.site.templates["all"].render(
            **ctx, units=units, entries=entries, chapters=chapters, inline=self.inline
        )
        self.site.write(self.out, path, html)

    def _one_page_unit(self, r: Rule, env: dict[str, Any], seen: set[str]) -> dict[str, Any]:
        text = r.text or ""
        heading = r.title
        if heading and text.startswith(heading):
            text = text[len(heading) :].lstrip()
        numbered = r.kind in ("chapter", "section", "rule", "subrule")
        aliases = []
        if numbered and "~" not in r.id:
            for anchor in (U.alias_anchor(r.id), U.mtgwtf_anchor(r.number)):
                if anchor not in seen and anchor != r.id:
                    seen.add(anchor)
                    aliases.append(anchor)
        level = {"chapter": 2, "section": 3}.get(r.kind, 4 if heading else 0)
        label = r.number if r.kind == "subrule" else (r.number + "." if numbered else "")
        return {
            "id": r.id,
            "level": level,
            "label": label,
            "cls": _CLASSES.get(r.kind, r.kind),
            "alias": aliases[0] if aliases else "",
            "more": aliases[1:],
            "heading": self.inline(heading) if heading else None,
            "html": self.text(text, env),
            "examples": [self.text(ex, env) for ex in r.examples],
        }

    def fragment(self, data_href: str | None) -> None:
        """The single page of a document without a date: every unit in order."""
        path = U.edition_index(self.edition.name)
        ctx = self.context(path, f"{self.ed['title']} — {self.t['site']}", description=self.document.summary)
        u = ctx["u"]
        self.ed["data_href"] = u(data_href) if data_href else None
        english = self.site.english_of.get(self.edition.name)
        compare = next(
            (u(U.compare_page(f.name, en.name)) for f, en, _ in self.site.compares if f.name == self.edition.name), None
        )
        html = self.site.templates["fragment"].render(
            **ctx,
            rules=self.rule_views(self.edition.rules, u),
            entries=self.entries(u),
            doc=self.document,
            compare=compare,
            english=edition_label(english) if english is not None else None,
        )
        self.site.write(self.out, path, html)


def now_target(site: SiteRenderer, edition: Edition, r: Rule, key: str) -> dict[str, Any] | None:
    """Where the rule ``r`` of the dated, not latest ``edition`` (lineage key ``key``) is
    in its language's latest edition: ``{"number", "path", "date"}`` when its number
    changed since (``path`` the site path of its page, or ``None``), ``{"removed": date,
    "into", "kind", "path", "anchor"}`` (the bulletin entry of the edition that dropped
    it) when it did not survive; else ``None``. Site paths, not links: the same for
    every page, so that what a page shows can be hashed before it is rendered."""
    if r.kind == "chapter" or key == r.id:
        return None
    lang = edition.lang
    latest = site.latest.get(lang)
    if latest is None:
        return None
    if "@" in key:
        last = f"{lang}/{key.rpartition('@')[2]}"
        gone = site.next_edition.get(last)
        if gone is None:
            return None
        old_id = key.rpartition("@")[0]
        alignment = site.alignments.get((last, gone))
        rows = alignment.forward.get(old_id, []) if alignment is not None else []
        row = rows[0] if rows else None
        anchor = f"{old_id}>{row.new or ''}" if row is not None else f"{old_id}>"
        from .changes import bulletin_entry

        return {
            "removed": gone.partition("/")[2],
            "into": row.new if row is not None else None,
            "kind": row.kind if row is not None else "removed",
            "path": bulletin_entry(site, last, gone, anchor),
            "anchor": anchor,
        }
    return {"number": key, "path": site.place(latest.name, key), "date": latest.name.partition("/")[2]}


def set_names() -> dict[str, str]:
    """Effective date → the set released with the edition (``comprules/data/editions.toml``)."""
    return {date: row.get("set", "") for date, row in _published_rows().items()}


def set_codes() -> dict[str, str]:
    """Effective date → the code of the set released with the edition ("BLB"), where it has one."""
    return {date: row["code"] for date, row in _published_rows().items() if row.get("code")}


@functools.lru_cache(maxsize=1)
def _published_rows() -> dict[str, dict]:
    try:
        raw = resources.files("comprules").joinpath("data/editions.toml").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    rows = tomllib.loads(raw.decode("utf-8")).get("edition", [])
    return {str(r["date"]): r for r in rows if r.get("date")}


def site_title(edition: Edition) -> str:
    return labels(edition.lang)["site"]


def _letter_id(key: str) -> str:
    """The anchor of a glossary letter heading: ``g-A``; ``g-0`` for digits and signs."""
    return "g-0" if key == "#" else f"g-{key}"


def _size(path: Path) -> str:
    """A file's size for people: ``1.2 MB``, ``830 KB``."""
    try:
        size = path.stat().st_size
    except OSError:
        return ""
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} KB"


def _rule_integer(number: str) -> int:
    """``702.37a`` → 37 (the rule part, which decides a split section's page)."""
    _, _, rest = number.partition(".")
    digits = ""
    for ch in rest:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def _lang_order(lang: str) -> tuple[int, str]:
    return (0 if lang == "en" else 1 if lang == "fr" else 2, lang)
