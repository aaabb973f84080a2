"""Build an index beside the old one, then swap it in atomically.

``index_dir`` is a symbolic link to a generation directory ``.{name}.gen-…`` beside
it. A build writes ``.{name}.build-…``, renames it to a new generation, and replaces
the link with ``os.replace`` (one atomic rename): a reader opens either the whole old
index or the whole new one, and a reader that already has the old one open keeps it
(the previous generation is kept until the next build). A failed build removes its
directory and leaves ``index_dir`` untouched. Where symbolic links are not available,
the old directory is renamed aside and the new one renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from whoosh.codec.whoosh3 import W3Codec
from whoosh.index import create_in

from ..model import Edition
from .analysis import TOKEN_PATTERN
from .documents import (
    FORMAT,
    Corpus,
    analyzed_texts,
    collect,
    in_order,
    make_schema,
    text_fields,
    vocabulary,
    whoosh_document,
)
from .impacts import ImpactWriter

META_FILE = "comprules-index.json"
VOCAB_FILE = "vocabulary.json"

#: A ``.build-`` directory left this long ago by a crashed build is removed.
STALE_BUILD_SECONDS = 3600


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


def build_index(editions: Iterable[Edition], index_dir: Path) -> IndexStats:
    """Index the rules and glossary entries of ``editions`` into ``index_dir``."""
    start = time.perf_counter()
    index_dir = Path(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_builds(index_dir)
    work = index_dir.parent / f".{index_dir.name}.build-{os.getpid()}-{time.time_ns()}"
    work.mkdir()
    try:
        corpus = collect(editions)
        _write(work, corpus)
        generation = work.with_name(f".{index_dir.name}.gen-{time.time_ns()}")
        os.rename(work, generation)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    _swap_in(index_dir, generation)
    return IndexStats(
        index_dir=index_dir,
        editions=len(corpus.editions),
        units=corpus.units,
        documents=len(corpus.docs),
        seconds=time.perf_counter() - start,
    )


def _write(directory: Path, corpus: Corpus) -> None:
    docs, current = in_order(corpus)
    ix = create_in(str(directory), make_schema())
    writer = ix.writer(limitmb=256, codec=W3Codec(compression=0))
    schema = writer.schema
    impacts = ImpactWriter(text_fields(None))
    try:
        for docnum, doc in enumerate(docs):
            writer.add_document(**whoosh_document(doc))
            impacts.add(docnum, _terms(schema, analyzed_texts(doc)))
    except BaseException:
        writer.cancel()
        raise
    words = vocabulary(schema)
    writer.commit()
    with ix.reader() as reader:
        if not reader.is_atomic() or reader.doc_count_all() != len(docs):
            raise RuntimeError("whoosh wrote more than one segment; impact lists would not match")
    ix.close()
    impacts.write(directory, current)
    meta = {
        "format": FORMAT,
        "built": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "units": corpus.units,
        "documents": len(corpus.docs),
        "editions": [
            {"name": i.name, "lang": i.lang, "effective": i.effective, "kind": i.kind, "units": i.units}
            for i in corpus.editions.values()
        ],
        "current": corpus.current(),
    }
    (directory / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    (directory / VOCAB_FILE).write_text(json.dumps(words), encoding="utf-8")


def _terms(schema, texts: dict[str, str]) -> dict[str, list[str]]:
    """The analyzed terms of each field, through the fields' own word caches."""
    out = {}
    for name, text in texts.items():
        term = schema[name].term
        out[name] = [t for t in map(term, TOKEN_PATTERN.findall(text)) if t is not None]
    return out


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
    now = time.time()
    for path in index_dir.parent.glob(f".{index_dir.name}.build-*"):
        try:
            if now - path.stat().st_mtime > STALE_BUILD_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass
