"""Build an index beside the old one, then swap it in atomically; re-index only what changed.

``index_dir`` is a symbolic link to a generation directory ``.{name}.gen-…`` beside
it. A build writes ``.{name}.build-…``, renames it to a new generation, and replaces
the link with ``os.replace`` (one atomic rename): a reader opens either the whole old
index or the whole new one, and a reader that already has the old one open keeps it
(the previous generation is kept until the next build). A failed build removes its
directory and leaves ``index_dir`` untouched. Where symbolic links are not available,
the old directory is renamed aside and the new one renamed into place.

**Incremental.** The meta file records each edition's sha256. When only a few
editions changed (or were added or removed), the new generation starts from the
previous one: whoosh's segment files are hard-linked (they are never rewritten), the
documents only the old versions held are marked deleted, the new texts go into one
new segment, and the side table, impacts and lineages are recomputed from the stored
raw postings (nothing unchanged is analyzed again). Too many changes, or too many
deleted documents piled up, and the index is rebuilt in full; so too when a change of
the Chinese editions changes the vocabulary Chinese is cut with (:mod:`comprules.segment`,
made from those editions and stored in the index as ``segment.json``): the old texts
were cut with the old one.

**One build at a time.** A build holds ``.{name}.lock`` (``flock``) beside the index;
a second build waits for it (up to ``wait`` seconds), then finds the index up to date
or updates it; past ``wait`` it raises :class:`~comprules.errors.BuildLocked`.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from whoosh.codec.whoosh3 import W3Codec
from whoosh.index import create_in, open_dir

from .. import segment
from ..languages import get as get_language
from ..locking import exclusive
from ..model import Edition, latest_editions
from ..store.schema import DB_NAME
from . import expand
from . import text as T
from .documents import (
    FORMAT,
    META_FILE,
    VOCAB_FILE,
    EditionInfo,
    analyzed_texts,
    collect,
    current_editions,
    damaged,
    edition_info,
    exact_texts,
    make_schema,
    record_sizes,
    text_fields,
    unique,
    units_of,
    vocabulary,
    whoosh_document,
)
from .expand import EXPANSIONS_FILE, KEYWORD_EFFECTS, PLAYER_TERMS, index_expansions
from .export import write_site_scripts
from .impacts import ALL, RAW_FILE, Impacts, RawPostings, write_impacts
from .languages import WORD_SENSES
from .lexicon import LEXICON_FILE, lexicon_pairs
from .lineage import aligned_editions, alignment_links, assign, fallback_keys
from .renumbered import KEYS_VERSION, write_keys
from .table import TABLE_FILE, DocTable

CACHE_FILE = "build.pkl"

#: A ``.build-`` directory left this long ago by a crashed build is removed.
STALE_BUILD_SECONDS = 3600
#: How long a build waits for another build of the same index, by default.
LOCK_WAIT = 300.0
#: Incremental builds re-index at most this many changed (added, removed) editions…
INCREMENTAL_EDITIONS = 8
#: …and only while deleted documents are at most this share of whoosh's documents.
INCREMENTAL_DELETED = 0.25
#: whoosh segments at most (one is added per incremental build).
INCREMENTAL_SEGMENTS = 12


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What one build wrote."""

    index_dir: Path
    editions: int
    #: Rules and glossary entries of all editions, as given.
    units: int
    #: Distinct units, one whoosh document each.
    documents: int
    seconds: float
    #: ``full``, ``incremental`` or ``unchanged`` (nothing to do).
    mode: str = "full"
    #: The editions whose units were (re-)indexed, and those removed.
    reindexed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: With ``swap=False``: the new generation, to hand to :func:`swap_index` (``None``
    #: when nothing changed).
    generation: Path | None = None
    #: Of ``seconds``: writing the site's search data (``scripts``).
    search_data_seconds: float = 0.0


@dataclass
class _Plan:
    editions: list[Edition]
    previous: Path | None = None
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    lexicon: list[tuple[str, ...]] = field(default_factory=list)
    alignments: Path | None = None
    #: Those alignments in memory, by ``(old, new)`` (the build's data stage hands them over).
    stored: Mapping[tuple[str, str], Any] | None = None
    #: Digests of the lexicon and of the alignments' index (a change re-computes lineages).
    extras: dict[str, str] = field(default_factory=dict)
    #: The vocabulary Chinese is cut with (:mod:`comprules.segment`), of these editions.
    segmenter: segment.Segmenter = field(default_factory=lambda: segment.EMPTY)


def build_index(
    editions: Iterable[Edition],
    index_dir: Path,
    *,
    alignments: Path | None = None,
    lexicon: Iterable[tuple[str, str]] | None = None,
    full: bool = False,
    wait: float = LOCK_WAIT,
    swap: bool = True,
    jobs: int = 1,
    scripts: bool = False,
    stored: Mapping[tuple[str, str], Any] | None = None,
) -> IndexStats:
    """Index the rules and glossary entries of ``editions`` into ``index_dir``.

    ``alignments`` is a knowledge base's ``data/alignments`` folder (lineages for
    ``--all-editions``), and ``stored`` what it holds already in memory (``(old, new)``
    → :class:`~comprules.align.changes.Alignment`: the build's data stage hands over
    what it wrote; :func:`~comprules.indexer.lineage.alignment_links`); ``lexicon``
    the (English, French) term pairs for cross-language queries (default:
    :func:`comprules.align.crosslang.lexicon`). Only the editions whose sha256 changed
    are re-indexed, unless ``full``. With ``swap=False`` the new
    generation is left beside ``index_dir`` (``IndexStats.generation``) for the caller
    to read (the site's search data) and then swap in with :func:`swap_index`. With
    ``scripts`` (the build's) the generation holds the site's search data too
    (:func:`comprules.indexer.export.write_site_scripts`, in ``jobs`` forked workers).
    """
    start = time.perf_counter()
    index_dir = Path(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    with index_lock(index_dir, wait):
        _remove_stale_builds(index_dir)
        plan = _plan(list(unique(editions)), index_dir, full, alignments, lexicon)
        plan.extras["site_scripts"] = _scripts_digest() if scripts else ""
        plan.stored = stored
        if plan.previous is not None and not plan.changed and not plan.removed and _same_extras(plan):
            meta = _read_meta(plan.previous)
            return IndexStats(
                index_dir,
                len(plan.editions),
                meta["units"],
                meta["documents"],
                time.perf_counter() - start,
                mode="unchanged",
            )
        work = index_dir.parent / f".{index_dir.name}.build-{os.getpid()}-{time.time_ns()}"
        work.mkdir()
        scripts_seconds = 0.0
        try:
            with segment.using(plan.segmenter):
                meta = _write(work, plan)
                if scripts:
                    t = time.perf_counter()
                    write_site_scripts(work, _latest_dated(plan.editions), jobs)
                    scripts_seconds = time.perf_counter() - t
            record_sizes(work)  # last: a generation whose files are not these sizes is damaged
            generation = work.with_name(f".{index_dir.name}.gen-{time.time_ns()}")
            os.rename(work, generation)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        if swap:
            _swap_in(index_dir, generation)
    return IndexStats(
        index_dir=index_dir,
        editions=len(plan.editions),
        units=meta["units"],
        documents=meta["documents"],
        seconds=time.perf_counter() - start,
        mode=meta["mode"],
        reindexed=tuple(plan.changed),
        removed=tuple(plan.removed),
        generation=None if swap else generation,
        search_data_seconds=scripts_seconds,
    )


def _latest_dated(editions: Iterable[Edition]) -> list[str]:
    """The name of the latest dated edition (not a fragment) of each language: the zips
    the site writes (:func:`comprules.site.bundle.site_downloads`), whose search data the
    index stage writes with the site's."""
    return sorted(e.name for e in latest_editions(editions).values())


def swap_index(index_dir: Path, generation: Path, wait: float = LOCK_WAIT) -> None:
    """Swap a generation built with ``build_index(..., swap=False)`` in (atomically)."""
    index_dir = Path(index_dir)
    with index_lock(index_dir, wait):
        _swap_in(index_dir, Path(generation))


@contextmanager
def index_lock(index_dir: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the build lock of ``index_dir``, waiting up to ``wait`` seconds for another build."""
    busy = f"another build of the search index {index_dir} is running ({{}}); try again when it has finished"
    with exclusive(index_dir.with_name(f".{index_dir.name}.lock"), busy.format, wait):
        yield


# --- planning -------------------------------------------------------------------------


def _plan(editions: list[Edition], index_dir: Path, full: bool, alignments, lexicon) -> _Plan:
    pairs = lexicon_pairs(lexicon, alignments)
    plan = _Plan(editions, lexicon=pairs, alignments=Path(alignments) if alignments else None)
    plan.extras = {
        "lexicon": _digest(json.dumps(pairs, ensure_ascii=False)),
        "alignments": _alignments_digest(alignments),
        # what expansions.json is made of: the tables and the code that reads them
        "expansions": _digest(
            "\x1f".join(
                path.read_text(encoding="utf-8") for path in (PLAYER_TERMS, KEYWORD_EFFECTS, Path(expand.__file__))
            )
        ),
        # the terms of every document: another table of word senses means another index
        "senses": _digest(WORD_SENSES.read_text(encoding="utf-8")),
        # the documents' lineage keys (indexer/renumbered.py): an index without them is redone
        "lineage_keys": KEYS_VERSION,
    }
    unspaced = [e for e in editions if not get_language(e.lang).spaced]
    plan.extras["segment"] = _digest(json.dumps(sorted((e.name, e.content_key) for e in unspaced)))
    plan.changed = [e.name for e in editions]
    previous = _previous(index_dir)
    if full or previous is None:
        plan.segmenter = segment.vocabulary_of(unspaced)
        return plan
    meta = _read_meta(previous)
    if meta.get("extras", {}).get("senses") != plan.extras["senses"]:
        return plan  # the old documents' words have other terms now: index them all again
    old_segmenter = _previous_segmenter(previous)
    if meta.get("extras", {}).get("segment") == plan.extras["segment"] and old_segmenter is not None:
        plan.segmenter = old_segmenter  # the same Chinese editions: the same vocabulary
    else:
        plan.segmenter = segment.vocabulary_of(unspaced)
        if plan.segmenter != old_segmenter:  # the old texts were cut otherwise: index them all again
            return plan
    known = {e["name"]: e.get("sha256") for e in meta["editions"]}
    names = {e.name for e in editions}
    changed = [e.name for e in editions if known.get(e.name) != e.content_key]
    removed = [name for name in known if name not in names]
    if len(changed) + len(removed) > INCREMENTAL_EDITIONS or not _healthy(previous, meta):
        return plan
    plan.previous, plan.changed, plan.removed = previous, changed, removed
    return plan


def _previous_segmenter(previous: Path) -> segment.Segmenter | None:
    try:
        return segment.load(previous / segment.FILE)
    except (OSError, ValueError):
        return None


def _previous(index_dir: Path) -> Path | None:
    """The generation ``index_dir`` points to, if it is an index of this format with its side files."""
    try:
        real = Path(os.path.realpath(index_dir))
        meta = _read_meta(real)
    except (OSError, ValueError):
        return None
    if meta.get("format") != FORMAT:
        return None
    if not all((real / name).is_file() for name in (TABLE_FILE, RAW_FILE, CACHE_FILE, VOCAB_FILE, segment.FILE)):
        return None
    if damaged(real) is not None:  # a file cut short: indexed again from scratch
        return None
    return real


def _healthy(previous: Path, meta: dict) -> bool:
    """Whether the previous generation is fit to start from (few deletions, few segments)."""
    total = meta.get("whoosh_documents", 0)
    return (
        total > 0
        and (total - meta["documents"]) <= INCREMENTAL_DELETED * total
        and meta.get("segments", 1) < INCREMENTAL_SEGMENTS
    )


def _read_meta(directory: Path) -> dict:
    return json.loads((directory / META_FILE).read_text(encoding="utf-8"))


def _same_extras(plan: _Plan) -> bool:
    return _read_meta(plan.previous).get("extras") == plan.extras


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _scripts_digest() -> str:
    """What the site's search data are made by: the code of the index and the tables it
    reads (another version of them writes other scripts, in a new generation)."""
    here = Path(__file__).parent
    files = sorted(here.glob("*.py")) + sorted((here.parent / "data").glob("*.toml"))
    files += [here.parent / name for name in ("languages.py", "model.py", "segment.py")]
    return _digest("\x1f".join(path.read_text(encoding="utf-8") for path in files))


def _alignments_digest(alignments) -> str:
    if alignments is None:
        return ""
    try:
        return _digest((Path(alignments) / "index.json").read_text(encoding="utf-8"))
    except OSError:
        return ""


# --- writing --------------------------------------------------------------------------


@dataclass
class _State:
    """What a build writes besides whoosh: side table, raw postings, lineage keys."""

    table: DocTable
    raw: RawPostings
    digests: dict[bytes, int]
    keys: list[tuple[bytes, bytes | None]]
    words: dict[str, dict[str, str]]


def _write(directory: Path, plan: _Plan) -> dict:
    """Write the whole index (or its update) into ``directory``; the meta written."""
    if plan.previous is None:
        state, infos, units = _write_full(directory, plan)
        mode = "full"
    else:
        state, infos, units = _write_update(directory, plan)
        mode = "incremental"
    return _finish(directory, plan, state, infos, units, mode)


def _write_full(directory: Path, plan: _Plan) -> tuple[_State, list[EditionInfo], int]:
    corpus = collect(plan.editions)
    names = list(corpus.editions)
    ids = {name: i for i, name in enumerate(names)}
    ix = create_in(str(directory), make_schema())
    writer = ix.writer(limitmb=256, codec=W3Codec(compression=0))
    schema = writer.schema
    state = _State(DocTable(editions=names), RawPostings(text_fields(None)), {}, [], {})
    try:
        for docnum, doc in enumerate(corpus.docs.values()):
            writer.add_document(**whoosh_document(doc))
            _record(state, schema, docnum, doc, tuple(ids[e] for e in doc["editions"]))
    except BaseException:
        writer.cancel()
        raise
    state.words = vocabulary(schema)
    writer.commit()
    with ix.reader() as reader:
        if not reader.is_atomic() or reader.doc_count_all() != len(state.table):
            raise RuntimeError("whoosh wrote more than one segment; document numbers would not match")
    ix.close()
    return state, list(corpus.editions.values()), corpus.units


def _record(state: _State, schema, docnum: int, doc: dict, members: tuple[int, ...]) -> None:
    state.raw.add(docnum, {**_terms(schema, analyzed_texts(doc)), **_exact_terms(exact_texts(doc))})
    state.table.append(doc, members)
    state.keys.append(fallback_keys(doc))
    state.digests[doc["key"]] = docnum


def _write_update(directory: Path, plan: _Plan) -> tuple[_State, list[EditionInfo], int]:
    previous = plan.previous
    for path in previous.iterdir():  # whoosh never rewrites a segment or a table of contents
        if path.name.startswith(("MAIN_", "_MAIN_")) and path.name != "MAIN_WRITELOCK":
            try:
                os.link(path, directory / path.name)
            except OSError:  # no hard links here: copy
                shutil.copy2(path, directory / path.name)
    state = _load_state(previous)
    table = state.table
    meta = _read_meta(previous)
    old_infos = {e["name"]: EditionInfo(**e) for e in meta["editions"]}
    names = [e.name for e in plan.editions]
    ids = {name: i for i, name in enumerate(names)}
    changed = set(plan.changed)
    keep = {i: ids[name] for i, name in enumerate(table.editions) if name in ids and name not in changed}
    table.editions = names
    was_live = [bool(m) for m in table.members]
    table.members = [tuple(sorted(keep[e] for e in m if e in keep)) for m in table.members]

    added: dict[bytes, tuple[dict, list[int]]] = {}
    infos: dict[str, EditionInfo] = {}
    for edition in plan.editions:
        if edition.name not in changed:
            infos[edition.name] = old_infos[edition.name]
            continue
        count = 0
        for unit in units_of(edition):
            count += 1
            d = state.digests.get(unit["key"])
            if d is not None and was_live[d]:
                if ids[edition.name] not in table.members[d]:
                    table.members[d] = tuple(sorted((*table.members[d], ids[edition.name])))
            else:
                entry = added.setdefault(unit["key"], (unit, []))
                if ids[edition.name] not in entry[1]:
                    entry[1].append(ids[edition.name])
        infos[edition.name] = edition_info(edition, count)

    ix = open_dir(str(directory))
    writer = ix.writer(limitmb=128, codec=W3Codec(compression=0))
    schema = writer.schema
    try:
        for d, live in enumerate(was_live):
            if live and not table.members[d]:
                writer.delete_document(d)
        base = len(table)  # whoosh numbers the new segment's documents after every old one
        for i, (unit, members) in enumerate(added.values()):
            writer.add_document(**whoosh_document(unit))
            _record(state, schema, base + i, unit, tuple(sorted(members)))
    except BaseException:
        writer.cancel()
        raise
    for lang, words in vocabulary(schema).items():
        state.words.setdefault(lang, {}).update(words)
    writer.commit(merge=False)
    with ix.reader() as reader:
        if reader.doc_count_all() != len(table):
            raise RuntimeError("whoosh document numbers do not match the side table")
    ix.close()
    dead = {d for d, live in enumerate(was_live) if live and not table.members[d]}
    state.digests = {k: d for k, d in state.digests.items() if d not in dead}
    ordered = [infos[name] for name in names]
    return state, ordered, sum(i.units for i in ordered)


def _load_state(previous: Path) -> _State:
    table = DocTable.load(previous)
    raw = RawPostings.load(previous)
    with open(previous / CACHE_FILE, "rb") as f:
        cache = pickle.load(f)
    words = json.loads((previous / VOCAB_FILE).read_text(encoding="utf-8"))
    return _State(table, raw, cache["digests"], cache["keys"], words)


def _finish(directory: Path, plan: _Plan, state: _State, infos: list[EditionInfo], units: int, mode: str) -> dict:
    table, raw = state.table, state.raw
    raw.grow(len(table))
    live = [bool(m) for m in table.members]
    current_names = current_editions(infos)
    current_ids = {table.editions.index(n) for n in current_names}
    current = [any(e in current_ids for e in m) for m in table.members]
    assign(
        table,
        state.keys,
        alignment_links(plan.alignments, table, plan.stored),
        aligned_editions(plan.alignments, table),
    )
    dates = {info.name: info.effective or "" for info in infos}
    store = Path(plan.alignments).parent / DB_NAME if plan.alignments else None
    write_keys(directory, table, [dates.get(name, "") for name in table.editions], store)
    postings = write_impacts(directory, raw, live, current)
    _add_lexicon_tokens(state.words, plan.lexicon)
    table.save(directory)
    raw.save(directory)
    with open(directory / CACHE_FILE, "wb") as out:
        pickle.dump({"digests": state.digests, "keys": state.keys}, out, protocol=pickle.HIGHEST_PROTOCOL)
    (directory / VOCAB_FILE).write_text(
        json.dumps({k: dict(sorted(v.items())) for k, v in state.words.items()}, ensure_ascii=False), encoding="utf-8"
    )
    (directory / LEXICON_FILE).write_text(json.dumps(plan.lexicon, ensure_ascii=False), encoding="utf-8")
    segment.save(plan.segmenter, directory / segment.FILE)
    impacts = Impacts(directory)
    try:  # the query side looks words up in these terms (indexer/inflect.py)
        terms = {key.partition(":")[0]: found for key, found in impacts.terms.items() if key.endswith(f":{ALL}")}
    finally:
        impacts.close()
    index_expansions(plan.editions, current_names, state.words, terms).save(directory / EXPANSIONS_FILE)
    segments = len([p for p in directory.iterdir() if p.suffix == ".seg"])
    meta = {
        "format": FORMAT,
        "built": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "units": units,
        "documents": sum(live),
        "whoosh_documents": len(table),
        "segments": segments,
        "postings": postings,
        "editions": [info.as_json() for info in infos],
        "current": current_names,
        "extras": plan.extras,
    }
    (directory / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def _add_lexicon_tokens(words: dict[str, dict[str, str]], pairs: list[tuple[str, ...]]) -> None:
    """Add the tokens of the lexicon's terms to the token tables (a query may name a
    term in a language none of whose texts use it)."""
    from .languages import LANGUAGES
    from .lexicon import Lexicon

    for lang, tokens in Lexicon(pairs).tokens().items():
        table = words.setdefault(lang, {})
        for token in tokens:
            term = LANGUAGES[lang].term(token)
            if term is not None:
                table.setdefault(token, term)


def _exact_terms(texts: dict[str, str]) -> dict[str, list[str]]:
    """The unstemmed tokens of each exact-word list, stop words left out."""
    from .languages import LANGUAGES

    out = {}
    for name, text in texts.items():
        stop = LANGUAGES[name.rpartition("_")[2]].stop
        out[name] = [t for t in T.tokens(text) if t not in stop]
    return out


def _terms(schema, texts: dict[str, str]) -> dict[str, list[str]]:
    """The analyzed terms of each field, through the fields' own word caches."""
    out = {}
    for name, text in texts.items():
        term = schema[name].term
        out[name] = [t for t in map(term, T.tokens(text)) if t is not None]
    return out


# --- swapping in ----------------------------------------------------------------------


def _swap_in(index_dir: Path, generation: Path) -> None:
    previous = os.readlink(index_dir) if index_dir.is_symlink() else None
    link = index_dir.with_name(f".{index_dir.name}.link-{os.getpid()}-{time.time_ns()}")
    try:
        os.symlink(generation.name, link, target_is_directory=True)
    except (OSError, NotImplementedError):
        _rename_in(index_dir, generation)
        return
    if index_dir.exists() and not index_dir.is_symlink():
        os.rename(index_dir, index_dir.with_name(f".{index_dir.name}.old-{time.time_ns()}"))
    os.replace(link, index_dir)
    _prune(index_dir, generation, keep={generation.name, previous})


def _rename_in(index_dir: Path, generation: Path) -> None:
    if index_dir.exists():
        os.rename(index_dir, index_dir.with_name(f".{index_dir.name}.old-{time.time_ns()}"))
    os.rename(generation, index_dir)
    _prune(index_dir, generation, keep=set())


def _prune(index_dir: Path, generation: Path, keep: set) -> None:
    """Remove the generations older than ``generation``, but the ones in ``keep`` and the
    one ``index_dir`` points to now (a concurrent build may have swapped in since)."""
    keep = keep | ({os.readlink(index_dir)} if index_dir.is_symlink() else set())
    ours = _stamp(generation)
    for kind in ("gen", "old"):
        for path in index_dir.parent.glob(f".{index_dir.name}.{kind}-*"):
            if path.name not in keep and _stamp(path) < ours:
                shutil.rmtree(path, ignore_errors=True)


def _stamp(path: Path) -> int:
    tail = path.name.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0


def _remove_stale_builds(index_dir: Path) -> None:
    """Remove the build directories of crashed builds (called with the lock held, so no
    other build is writing one; a directory younger than :data:`STALE_BUILD_SECONDS`
    may be a build of a version without the lock, and is left)."""
    now = time.time()
    for path in index_dir.parent.glob(f".{index_dir.name}.build-*"):
        try:
            pid = int(path.name.split("-")[1])
            alive = _alive(pid)
            if not alive or now - path.stat().st_mtime > STALE_BUILD_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
        except (OSError, ValueError, IndexError):
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid != os.getpid()
