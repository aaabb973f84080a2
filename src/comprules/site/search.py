"""The site's search: the index's own data for the JavaScript ranker, loaded by ``<script>``.

No second engine: for each analyzed language, the documents of the default scope (the
latest edition and the undated documents) are exported by the index stage, into the
index generation (:func:`comprules.indexer.export.write_site_scripts`: ``site-en.js``);
the site copies them as ``search/{lang}.js``, which sets ``window.CR_SEARCH[lang]``, and
``static/search.js`` ranks them exactly as ``comprules search`` does, so the search page
works opened from disk (``file://``). Served by ``comprules serve``, the page asks the
JSON endpoint (``/api/v1/search``) instead, over every edition, and falls back to the
local data when the endpoint is not there.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = "search"
#: The index generation's files of the site's search data (``site-en.js``, ``site-segment.js``),
#: named as :mod:`comprules.indexer.export` writes them.
INDEX_PREFIX = "site-"


def data_path(lang: str) -> str:
    """Site path of a language's search data (``segment``: the Chinese vocabulary)."""
    return f"{DATA_DIR}/{lang}.js"


def write_search_data(index_dir: Path, out: Path) -> dict[str, int]:
    """Copy the index's search data into the site: ``search/{lang}.js`` for every language
    with documents in the default scope, and ``search/segment.js`` when the index has
    Chinese documents (the vocabulary the index cut its words with, ``window.CR_SEGMENT``:
    :mod:`comprules.segment`), loaded before the languages' data (key ``segment``); the
    bytes written per key. Nothing when the index holds no search data (an index built
    without the build: ``comprules build`` writes them)."""
    written = {}
    folder = Path(out) / DATA_DIR
    for path in sorted(Path(index_dir).glob(f"{INDEX_PREFIX}*.js")):
        key = path.name[len(INDEX_PREFIX) : -len(".js")]
        raw = path.read_bytes()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{key}.js").write_bytes(raw)
        written[key] = len(raw)
    if "segment" in written:
        written = {"segment": written.pop("segment"), **written}
    return written
