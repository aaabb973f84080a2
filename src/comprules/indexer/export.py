"""The search data of the site's JavaScript ranker: one language's default scope, as JSON.

comprules' own format, read by ``site/static/search.js``. For the documents of one
language in the default scope (the latest edition and the undated documents), it holds
what :mod:`.searching` and :mod:`.rank` read: each document's number, id, kind, title,
text, section, editions, the integer impacts of its terms (``all``, ``examples`` and
the exact ``names`` lists), every term's idf and document frequency (of the whole
index, as the Python engine weighs them), the token → term table, the headword keys,
the glossary citations, the lexicon and the constants of the ranking. Documents are
in whoosh's document order, so that ties break alike.

Shape (``format`` 1)::

    {"format": 1, "lang": "en", "constants": {...}, "stop": [...], "filler": [...],
     "docs": [[number, id, kind, title, text, section, examples, edition, editions, latest,
               docnum, order, parent, lineage], ...],
     "vocab": {token: term, or "" when the term is the token},
     "terms": {"all" | "examples" | "names": {term: [idf, df, [doc deltas], [impacts]]}},
     "heads": {key: [doc]}, "stemmed": {"term term": [doc]}, "cites": {doc: [doc]},
     "forms": ["protection from", ...] (keywords printed with a word before their placeholder),
     "lexicon": [[lang, "term term", target lang, text], ...],
     "renumbered": {"editions": [name, ...], "numbers": {number of other editions:
                    [[doc, later (0/1), first edition, last edition (indexes of "editions")], ...]}},
     "expansions": [[[typed key, ...], [[rules' token, ...], ...], kind], ...]}
(``kind``: ``keyword`` for a keyword's effect, sought only beside one other keyword;
``player`` or ``obsolete`` otherwise.)
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .. import segment
from ..children import fork_pool
from ..errors import UsageError, said
from ..languages import codes
from ..languages import get as table_language
from ..model import parent_number, sort_key
from . import expand, rank, searching
from .documents import GLOSSARY
from .impacts import ALL, EXAMPLES, NAMES
from .languages import FILLER_WEIGHT, LANGS, LANGUAGES
from .lexicon import MAX_WORDS, _stems
from .renumbered import every_renumbering
from .suggest import KNOWN_IN

FORMAT = 1


def site_data(index_dir: Path, lang: str, edition: str | None = None) -> dict:
    """The search data of ``lang``'s documents in the default scope of ``index_dir`` (for a
    language without an analyzer, the documents only: they are found by number); of one
    edition's documents when ``edition`` names one (``en/2009-07-11``: the zip of an
    edition, :mod:`comprules.site.bundle`). Raises ``ValueError`` for an edition the index
    does not hold."""
    handle = searching._open(index_dir)
    table = handle.table
    if edition is None:
        scope = searching._Scope(handle.current)
    else:
        if edition not in table.editions:
            raise ValueError(f"{edition} is not in the index {index_dir}")
        scope = searching._Scope(frozenset({table.editions.index(edition)}), edition)
    current_only = scope.ids is not None and scope.ids <= handle.current
    flt = searching._filter(handle, scope, lang, None, None)
    docnums = [d for d in range(len(table)) if flt.mask[d]]
    position = {d: i for i, d in enumerate(docnums)}
    everyone = searching._filter(handle, scope, None, None, None)
    comparable = handle.__dict__.setdefault("_comparable_of", {})  # document → its sort key, kept
    in_scope = np.flatnonzero(everyone.mask).tolist()
    for d in in_scope:
        if d not in comparable:
            comparable[d] = _comparable(sort_key(table.rid[d]))
    keys = sorted({comparable[d] for d in in_scope})
    rank_of = {k: i for i, k in enumerate(keys)}  # sort_key order over every language's documents, ties equal
    order = {d: rank_of[comparable[d]] for d in in_scope}
    docs = []
    for d in docnums:
        unit = handle.unit(d)
        members = table.members[d]
        shown = searching._reported_edition(handle, d, scope)
        parent = parent_number(table.number[d]) if table.kind[d] != GLOSSARY and "¶" not in table.number[d] else None
        docs.append(
            [
                unit["number"],
                unit["id"],
                table.kind[d],
                unit["title"] or "",
                unit["text"] or "",
                table.section[d],
                unit.get("examples") or "",
                shown,
                len(members),
                searching._latest(handle, d),
                d,
                order[d],
                parent or "",
                table.lineage[d],
            ]
        )
    # document number → its position in ``docs`` (-1: not in them), to map whole posting
    # lists at once (a document is once in a list: its positions are distinct)
    where = np.full(len(table), -1, dtype=np.int64)
    where[np.asarray(docnums, dtype=np.int64)] = np.arange(len(docnums), dtype=np.int64)
    terms: dict[str, dict] = {}
    for kind in (ALL, EXAMPLES, NAMES):
        out = terms[kind] = {}
        for term, (_start, _current, count, idf) in handle.impacts.terms.get(f"{lang}:{kind}", {}).items():
            found, imps = handle.impacts.postings(f"{lang}:{kind}", term, current_only=current_only)
            at = where[found]
            kept = at >= 0
            at, scores = at[kept], imps[kept]
            order = at.argsort()  # distinct positions: any sort gives the same order
            at, scores = at[order], scores[order]
            if kind != NAMES or len(at):
                deltas = at.copy()
                deltas[1:] -= at[:-1]
                out[term] = [idf, count, deltas.tolist(), scores.tolist()]
    vocab = {token: ("" if term == token else term) for token, term in sorted(handle.vocab.table(lang).items())}
    if lang not in LANGUAGES:  # found by number only: no words, headwords or lexicon
        terms, vocab = {ALL: {}, EXAMPLES: {}, NAMES: {}}, {}
    heads = {}
    for key, found in table.heads.items() if lang in LANGUAGES else ():
        mine = [position[d] for d in found if d in position]
        if mine:
            heads[key] = mine
    stemmed = {}
    for key, found in table.stemmed_heads.items() if lang in LANGUAGES else ():
        mine = [position[d] for d in found if d in position]
        if mine:
            stemmed[" ".join(key)] = mine
    cites = {}
    for d in docnums:
        if table.kind[d] == GLOSSARY:
            cited = [position[c] for c in searching._cited(handle, d, flt) if c in position]
            if cited:
                cites[str(position[d])] = cited
    lexicon = []
    for (source, stems), targets in sorted(handle.lexicon.entries.items()):
        for target, text in targets:
            if lang in (source, target) and lang in LANGUAGES:
                lexicon.append([source, " ".join(stems), target, text])
    # the numbers of other editions (issue 22), as searching answers them; editions by index
    moved: dict[str, list] = {}
    named: dict[str, int] = {}
    for number, found in every_renumbering(handle, lang, flt.mask).items():
        moved[number] = [
            [
                position[d],
                int(how.later),
                named.setdefault(how.editions[0], len(named)),
                named.setdefault(how.editions[-1], len(named)),
            ]
            for d, how in found.items()  # in the order searching gives them
        ]
    language = LANGUAGES.get(lang)
    return {
        "format": FORMAT,
        "lang": lang,
        "langs": list(LANGS),
        "community": table_language(lang).community,
        # an older edition's zip: its texts' other editions may be later ones ("also in 5
        # other editions", not "earlier")
        "older": not current_only,
        "html": table_language(lang).html,
        "han": bool(language and language.han),
        "constants": constants(),
        "stop": sorted(language.stop) if language else [],
        "filler": sorted(language.filler) if language else [],
        "docs": docs,
        "vocab": vocab,
        "terms": terms,
        "heads": heads,
        "stemmed": stemmed,
        "cites": cites,
        "forms": sorted(handle.table.keyword_forms.get(lang, ())),
        "lexicon": lexicon,
        "renumbered": {"editions": list(named), "numbers": moved},
        "expansions": [
            [list(e.keys), [list(r) for r in e.rules], e.kind] for e in handle.expansions.by_lang.get(lang, {}).values()
        ]
        if lang in LANGUAGES
        else [],
    }


#: The site's search data of a language, in the index generation (``site-en.js``).
SITE_PREFIX = "site-"
#: The vocabulary Chinese is cut with, as the site's script (``window.CR_SEGMENT``).
SEGMENT_SCRIPT = "site-segment.js"
#: The search data of one edition, for its zip (``edition-en-2026-08-07.js``).
EDITION_PREFIX = "edition-"


def script_file(lang: str) -> str:
    """``en`` → ``site-en.js``: the file of the index generation holding the site's
    search data of ``lang`` (the default scope), as the site loads it."""
    return f"{SITE_PREFIX}{lang}.js"


def edition_script_file(name: str) -> str:
    """``en/2026-08-07`` → ``edition-en-2026-08-07.js``: the file of the index generation
    holding the search data of that edition alone (its zip's ``search/en.js``)."""
    return EDITION_PREFIX + name.replace("/", "-") + ".js"


def edition_search(index_dir: Path, name: str) -> dict[str, bytes]:
    """The search data of edition ``name`` alone (its zip's ``search/{lang}.js``), key →
    bytes: the lang code → :func:`edition_script_file`'s bytes, as the index stage wrote
    them for the latest edition of each language, else computed from the index (about
    0.3 s: the zip of an older edition, made when asked for); with ``segment`` →
    :data:`SEGMENT_SCRIPT` for a language written without spaces. Raises
    :class:`~comprules.errors.UsageError` (one line naming ``index_dir``) when the index
    does not hold that edition or cannot be read."""
    index_dir = Path(index_dir)
    lang = name.partition("/")[0]
    try:
        try:
            raw = (index_dir / edition_script_file(name)).read_bytes()
        except FileNotFoundError:
            raw = search_script(site_data(index_dir, lang, edition=name))
        out = {lang: raw}
        if not table_language(lang).spaced:
            out["segment"] = (index_dir / SEGMENT_SCRIPT).read_bytes()
    except ValueError as exc:  # site_data: an edition the index does not hold
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(
            f"{index_dir}: no search data of {name} in the index ({said(exc)}; build the knowledge base again)"
        ) from None
    return out


def search_script(data: dict) -> bytes:
    """:func:`site_data`'s dict as the script the site loads (sets ``window.CR_SEARCH[lang]``)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    lang = json.dumps(data["lang"])
    return f"window.CR_SEARCH=window.CR_SEARCH||{{}};window.CR_SEARCH[{lang}]={text};\n".encode("utf-8")


_SCRIPTS_DIR: Path | None = None


def _write_script(task: tuple[str, str]) -> tuple[str, int]:
    """One file of :func:`write_site_scripts` (run in a forked worker): its name and size,
    size 0 for a language without documents in the default scope (no file)."""
    assert _SCRIPTS_DIR is not None
    kind, key = task
    if kind == "lang":
        data, name = site_data(_SCRIPTS_DIR, key), script_file(key)
        if not data["docs"]:
            return name, 0
    else:
        data, name = site_data(_SCRIPTS_DIR, key.partition("/")[0], edition=key), edition_script_file(key)
    raw = search_script(data)
    (_SCRIPTS_DIR / name).write_bytes(raw)
    return name, len(raw)


def write_site_scripts(directory: Path, editions: Iterable[str], jobs: int = 1) -> dict[str, int]:
    """Write the site's search data into the index generation ``directory`` (issue 21: the
    site copies these files, it computes nothing of the index): :func:`script_file` of each
    language with documents in the default scope, :data:`SEGMENT_SCRIPT` when the index
    has Chinese documents, and :func:`edition_script_file` of each of ``editions`` (edition
    names: the latest dated edition of each language, whose zip the site writes; an older
    edition's is computed when its zip is asked for, :func:`edition_search`). The work runs in ``jobs``
    forked workers (at least one: the open index stays out of the caller's memory); file
    name → bytes written."""
    global _SCRIPTS_DIR
    directory = Path(directory)
    written: dict[str, int] = {}
    tasks = [("lang", lang) for lang in codes()] + [("edition", name) for name in sorted(editions)]
    _SCRIPTS_DIR = directory
    # The caller's objects are left out of the workers' garbage collections: a collection
    # writes to every object it visits, which copies the parent's pages into each worker
    # (the build's parsed editions: three times the work without it).
    gc.freeze()
    try:
        with fork_pool(max(1, min(jobs, len(tasks)))) as pool:
            for name, size in pool.imap_unordered(_write_script, tasks):
                if size:
                    written[name] = size
    finally:
        gc.unfreeze()
        _SCRIPTS_DIR = None
    if any(not table_language(lang).spaced for kind, lang in tasks if kind == "lang" and script_file(lang) in written):
        vocabulary = segment.load(directory / segment.FILE)
        words = json.dumps(vocabulary.to_json(), ensure_ascii=False, separators=(",", ":"))
        raw = f"window.CR_SEGMENT={words};\n".encode("utf-8")
        (directory / SEGMENT_SCRIPT).write_bytes(raw)
        written[SEGMENT_SCRIPT] = len(raw)
    return dict(sorted(written.items()))


def _comparable(key: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, int) else (1, str(x)) for x in key)


def constants() -> dict:
    """The ranking's constants, so that both engines read the same numbers."""
    return {
        "FILLER_WEIGHT": FILLER_WEIGHT,
        "NAME_WEIGHT": rank.NAME_WEIGHT,
        "COMMON_IDF": rank.COMMON_IDF,
        "COORD_POWER": rank.COORD_POWER,
        "KIND_WEIGHT": rank.KIND_WEIGHT,
        "PROXIMITY_POOL": rank.PROXIMITY_POOL,
        "PROXIMITY_WINDOW": rank.PROXIMITY_WINDOW,
        "PROXIMITY": rank.PROXIMITY,
        "NAMES_WEIGHT": rank.NAMES_WEIGHT,
        "TITLE_BOOST": rank.TITLE_BOOST,
        "MAX_EXPANSION": rank.MAX_EXPANSION,
        "SCALE": rank.SCALE,
        "EXPANSION_WEIGHT": expand.WEIGHT,
        "MAX_KEYS": expand.MAX_KEYS,
        "KEYWORDS_MET": expand.KEYWORDS_MET,
        "RARE_IDF": rank.RARE_IDF,
        "LONG_QUERY": rank.LONG_QUERY,
        "LONG_COORD_POWER": rank.LONG_COORD_POWER,
        "HEADING_WEIGHT": rank.HEADING_WEIGHT,
        "RULE_EVIDENCE": rank.RULE_EVIDENCE,
        "GLOSSARY_TOP": searching.GLOSSARY_TOP,
        "KNOWN_IN": KNOWN_IN,
        "MAX_WORDS": MAX_WORDS,
    }


def lexicon_stems(text: str, lang: str) -> list[str]:
    """The terms of a lexicon entry (for tests)."""
    return list(_stems(text.split(), lang))
