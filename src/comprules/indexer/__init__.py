"""Search index of the knowledge base: build it from editions, then search and look up.

* ``build_index(editions, index_dir, *, alignments, lexicon) -> IndexStats``: atomic
  swap, incremental (only the editions whose sha256 changed are re-indexed), one
  build at a time (see ``build``)
* ``search(index_dir, query, *, edition, lang, section, kind, limit) -> SearchResult``:
  rule numbers, headwords (the glossary definition first), then the words;
  ``edition="*"`` collapses the versions of a rule (its lineage) into one hit
* ``lookup(index_dir, number, edition) -> list[Hit]``
* ``english_analyzer()`` / ``french_analyzer()``, the analyzers of each language.

**What is whoosh, what is comprules'.** whoosh (whoosh-reloaded 2.7.5) is the document
store: the schema, the stored units a hit shows, its segment files and their atomic
generations, the analyzer plumbing (``Tokenizer | Filter`` chains, :mod:`.analysis`),
and its stop-word lists and Snowball stemmers (:mod:`.languages`). Everything that
decides a hit or its order is comprules' own, written once as a specification and
ported to ``site/static/search.js``: folding and tokens (:mod:`.text`), the token →
term tables (:mod:`.suggest`), the integer BM25F impacts (:mod:`.impacts`), the query
parser (:mod:`.query`), the ranker (:mod:`.rank`: coordination, proximity, titles),
the tiers, languages, lexicon and glossary rules (:mod:`.searching`, :mod:`.lexicon`),
snippets (:mod:`.snippets`) and the site's data (:mod:`.export`). No whoosh matcher,
scorer or query parser is used.

A side table (``table``) holds each document's editions, kind and lineage. Malformed
queries and a missing index raise :class:`comprules.errors.UsageError`; a build that
cannot get the index's lock raises :class:`comprules.errors.BuildLocked`.
"""

from .analysis import english_analyzer, french_analyzer
from .searching import ALL_EDITIONS, Hit, SearchResult, lookup, search


def __getattr__(name: str):
    # the build (whoosh's writer, lineages, alignments) is imported only by a build, so that
    # `comprules search` starts fast
    if name in ("IndexStats", "build_index"):
        from . import build

        return getattr(build, name)
    raise AttributeError(name)


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
