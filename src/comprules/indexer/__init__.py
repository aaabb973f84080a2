"""Search index of the knowledge base: build it from editions, then search and look up.

Wraps whoosh behind a few names, so the engine could be swapped:

* ``build_index(editions, index_dir, *, alignments, lexicon) -> IndexStats``: atomic
  swap, incremental (only the editions whose sha256 changed are re-indexed), one
  build at a time (see ``build``)
* ``search(index_dir, query, *, edition, lang, section, kind, limit) -> SearchResult``:
  rule numbers, headwords (the glossary definition first), BM25F; ``edition="*"``
  collapses the versions of a rule (its lineage) into one hit
* ``lookup(index_dir, number, edition) -> list[Hit]``
* ``english_analyzer()`` / ``french_analyzer()``, the analyzers of each language.

whoosh holds the schema, the analyzed postings (with positions, for phrases) and
the stored fields; a side table (``table``) holds each document's editions, kind and
lineage; queries are parsed by whoosh and scored from BM25F impacts precomputed at
build time (``impacts``), ~10× faster than whoosh's matchers. Malformed queries and a
missing index raise :class:`comprules.errors.UsageError`; a build that cannot get
the index's lock raises :class:`comprules.errors.BuildLocked`.
"""

from .analysis import english_analyzer, french_analyzer
from .build import IndexStats, build_index
from .searching import ALL_EDITIONS, Hit, SearchResult, lookup, search

__all__ = [
    "ALL_EDITIONS",
    "Hit",
    "IndexStats",
    "SearchResult",
    "build_index",
    "english_analyzer",
    "french_analyzer",
    "lookup",
    "search",
]
