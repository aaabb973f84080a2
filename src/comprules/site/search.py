"""The site's search: the index's own data for the JavaScript ranker, loaded by ``<script>``.

No second engine: for each analyzed language, the documents of the default scope (the
latest edition and the undated documents) are exported from the built search index
(:func:`comprules.indexer.export.site_data`) into ``search/{lang}.js``, which sets
``window.CR_SEARCH[lang]``; ``static/search.js`` ranks them exactly as ``comprules
search`` does, so the search page works opened from disk (``file://``). Served by
``comprules serve``, the page asks the JSON endpoint (``/api/v1/search``) instead, over
every edition, and falls back to the local data when the endpoint is not there.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA_DIR = "search"


def data_path(lang: str) -> str:
    """Site path of a language's search data (``segment``: the Chinese vocabulary)."""
    return f"{DATA_DIR}/{lang}.js"


def write_search_data(index_dir: Path, out: Path) -> dict[str, int]:
    """Write ``search/{lang}.js`` for every language with documents in the default scope;
    the bytes written per language. Deterministic for a given index. When a language
    written without spaces (Chinese) has documents, ``search/segment.js`` too: the
    vocabulary the index cut its words with (its ``segment.json``, made from the
    knowledge base's Chinese editions: :mod:`comprules.segment`; ``window.CR_SEGMENT``),
    loaded before the languages' data (key ``segment``)."""
    from .. import segment
    from ..indexer.export import site_data
    from ..languages import codes, get

    written = {}
    folder = Path(out) / DATA_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for lang in codes():
        data = site_data(index_dir, lang)
        if not data["docs"]:
            continue
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        script = f"window.CR_SEARCH=window.CR_SEARCH||{{}};window.CR_SEARCH[{json.dumps(lang)}]={text};\n"
        raw = script.encode("utf-8")
        (folder / f"{lang}.js").write_bytes(raw)
        written[lang] = len(raw)
    if any(not get(lang).spaced for lang in written):
        vocabulary = segment.load(Path(index_dir) / segment.FILE)
        text = json.dumps(vocabulary.to_json(), ensure_ascii=False, separators=(",", ":"))
        raw = f"window.CR_SEGMENT={text};\n".encode("utf-8")
        (folder / "segment.js").write_bytes(raw)
        written = {"segment": len(raw), **written}
    return written
