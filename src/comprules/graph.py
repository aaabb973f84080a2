"""The knowledge base as a graph (networkx): what contains what, and what cites what.

Nodes are named ``{edition}/{rule id}`` (``en/2026-08-07/702.37a``) and
``{edition}/glossary/{slug}`` (``en/2026-08-07/glossary/morph``); every node carries
``kind`` (chapter, section, rule, subrule, passage, note, glossary), ``edition``,
``lang`` and ``line``, and ``number`` and ``title`` when it has them (a glossary
node's ``title`` is its headword). Edges carry ``kind``:

- ``contains``: chapter → section → rule → subrule, as printed
  (``en/2026-08-07/7`` → ``en/2026-08-07/702`` → ``…/702.37`` → ``…/702.37a``);
- ``cites``: a rule or glossary entry → the rule, section, chapter or glossary
  entry each of its citations resolves to (:class:`references.Citation`), with
  ``status`` ``internal`` (``…/702.37a`` → ``…/708``) or ``external``: a fragment's
  citation of a rule it does not quote, resolved in the English edition of its era
  (``fr/000_…/402.1`` → ``en/2002-10-07/416``, :func:`resolve_all`). A citation that
  resolves nowhere (``dangling`` in a complete edition, or missing from the English
  edition too) has no edge: it is in the export's ``cites`` only;
- ``defines``: a glossary entry → each rule, section or chapter its definition
  refers to, the rules governing the term it defines (``…/glossary/morph`` →
  ``…/702.37``). The same pairs are ``cites`` edges too, so that "cited by" lists
  the glossary entries; ``defines`` alone gives the glossary layer without the
  glossary's cross-links ("See Cast.").

Fragments (forum posts, rulebook extracts) are in the graph like editions: their
passages and notes are nodes (kinds ``passage``, ``note``), their keyword entries
glossary nodes. Edge keys are the kinds, so one pair is never linked twice the same
way. :data:`EDGE_KINDS` lists them.

Stored form (:func:`write_graph`, :func:`read_graph`): one JSON file per edition,
``data/graph/{lang}/{date or stem}.json``, ``{"edition", "nodes": [{"id", …attributes}],
"edges": [{"source", "target", "kind", …attributes}]}`` holding the edition's nodes
and the edges leaving them, so that a build rewrites only the editions that changed
and a reader loads the whole graph in about a second; :func:`write_graphml` writes
the GraphML export (``data/graph.graphml``) of the same graph.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import networkx as nx

from .model import Edition, sort_key
from .references import Resolution, resolve, resolve_external

__all__ = [
    "EDGE_KINDS",
    "edition_graph",
    "kb_graph",
    "cited_by",
    "defined_by",
    "write_graphml",
    "node_id",
    "resolve_all",
    "Resolutions",
    "write_graph",
    "read_graph",
    "graph_path",
    "GRAPH_DIR",
]

#: The stored graph's folder inside ``data/``: one file per edition.
GRAPH_DIR = "graph"

#: The kinds of edges, each also the edge's key.
EDGE_KINDS = ("contains", "cites", "defines")


def node_id(edition: str, rule_id: str) -> str:
    """``node_id("en/2026-08-07", "702.37a")`` → ``"en/2026-08-07/702.37a"``."""
    return f"{edition}/{rule_id}"


def _glossary_node(edition: str, slug: str) -> str:
    return f"{edition}/glossary/{slug}"


def _add_edition(graph: nx.MultiDiGraph, edition: Edition, resolution: Resolution | None) -> None:
    name = edition.name
    if resolution is None:
        resolution = resolve(edition)
    lang = edition.lang

    def rule_attrs(rule):
        attrs = {"kind": rule.kind, "number": rule.number, "edition": name, "lang": lang, "line": rule.line}
        if rule.title:
            attrs["title"] = rule.title
        return attrs

    graph.add_nodes_from((f"{name}/{rule.id}", rule_attrs(rule)) for rule in edition.rules)
    graph.add_nodes_from(
        (
            _glossary_node(name, e.slug),
            {"kind": "glossary", "title": e.term, "edition": name, "lang": lang, "line": e.line},
        )
        for e in edition.glossary
    )
    by_id = edition.by_id
    contains = {"kind": "contains"}
    graph.add_edges_from(
        (f"{name}/{rule.parent}", f"{name}/{rule.id}", "contains", contains)
        for rule in edition.rules
        if rule.parent is not None and rule.parent in by_id
    )
    edges = []
    for source, citations in resolution.cites.items():
        origin = f"{name}/{source}"
        for c in citations:
            # "602.2a 602.2a Any rule…" (2005) is a misprint, no self-citation
            if c.resolved is not None and c.resolved != origin:
                edges.append((origin, c.resolved, "cites", {"kind": "cites", "status": c.status}))
    graph.add_edges_from(edges)
    defines = {"kind": "defines"}
    graph.add_edges_from(
        (_glossary_node(name, slug), f"{name}/{target}", "defines", defines)
        for slug, targets in resolution.glossary_refs.items()
        for target in targets
    )


def resolve_all(
    editions: Iterable[Edition],
    resolutions: Mapping[str, Resolution] | None = None,
    eras: Mapping[str, str] | None = None,
) -> "Resolutions":
    """Every edition's :class:`~comprules.references.Resolution`, its external
    citations resolved across the knowledge base: a mapping edition name → resolution,
    each resolved when first read (:class:`Resolutions`).

    A non-English document's external citations resolve in the English edition of its
    era: ``eras`` (name → English edition name), by default
    :func:`comprules.align.history.english_eras`, the choice the alignments and the
    site's links make (seed 000 → ``en/2002-10-07``); a French quoted title is checked
    through the lexicon (:func:`comprules.align.crosslang.title_translates`). An
    English fragment's external citations stay unresolved. ``resolutions`` holds
    precomputed in-document resolutions.
    """
    editions = list(editions)
    if eras is None:
        from .align.history import english_eras

        eras = {k: v.english for k, v in english_eras(editions).items()}
    return Resolutions(editions, eras, resolutions)


class Resolutions(Mapping[str, Resolution]):
    """Edition name → its :class:`~comprules.references.Resolution`, computed when first
    read and kept: a build whose database keeps an unchanged edition's rows never reads
    its resolution (73 of the 74 English editions when one changed: 2.3 s of 2.5 s).
    Raises :class:`KeyError` for a name that is not one of the editions."""

    def __init__(
        self,
        editions: Iterable[Edition],
        eras: Mapping[str, str],
        given: Mapping[str, Resolution] | None = None,
    ):
        self._by_name = {e.name: e for e in editions}
        self._eras = dict(eras)
        self._done: dict[str, Resolution] = {}
        self._given = dict(given or {})

    def __getitem__(self, name: str) -> Resolution:
        found = self._done.get(name)
        if found is not None:
            return found
        edition = self._by_name[name]
        found = self._given.get(name) or resolve(edition)
        english = self._by_name.get(self._eras.get(name, ""))
        if english is not None and found.external:
            from .align.crosslang import title_translates

            found = resolve_external(found, english, title_translates)
        self._done[name] = found
        return found

    def __iter__(self):
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def resolved(self) -> list[str]:
        """The names of the editions resolved so far, in edition order."""
        return [n for n in self._by_name if n in self._done]


def edition_graph(edition: Edition, resolution: Resolution | None = None) -> nx.MultiDiGraph:
    """The graph of one edition; ``resolution`` is computed if not given."""
    graph = nx.MultiDiGraph()
    _add_edition(graph, edition, resolution)
    return graph


def kb_graph(editions: Iterable[Edition], resolutions: dict[str, Resolution] | None = None) -> nx.MultiDiGraph:
    """The union of the editions' graphs (node names never collide: they start with
    the edition's name). ``resolutions`` maps edition names to precomputed ones."""
    graph = nx.MultiDiGraph()
    for edition in editions:
        _add_edition(graph, edition, (resolutions or {}).get(edition.name))
    return graph


def _order(graph: nx.MultiDiGraph, node: str) -> tuple:
    attrs = graph.nodes[node]
    number = attrs.get("number")
    if number is None:
        return (attrs.get("edition", ""), 1, (), attrs.get("title", node))
    return (attrs.get("edition", ""), 0, sort_key(number), "")


def cited_by(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """Backlinks: the nodes with a ``cites`` edge to ``node``, in rule order
    (:func:`~comprules.model.sort_key` on their numbers; glossary entries last, by
    headword). An unknown node has none."""
    if node not in graph:
        return []
    sources = {u for u, _, kind in graph.in_edges(node, data="kind") if kind == "cites"}
    return sorted(sources, key=lambda n: _order(graph, n))


def defined_by(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The glossary entries with a ``defines`` edge to ``node`` (a rule), by headword."""
    if node not in graph:
        return []
    sources = {u for u, _, kind in graph.in_edges(node, data="kind") if kind == "defines"}
    return sorted(sources, key=lambda n: _order(graph, n))


def write_graphml(graph: nx.MultiDiGraph, path: str | os.PathLike) -> None:
    """Write ``graph`` as GraphML at ``path`` atomically: to a temporary file beside
    it, then :func:`os.replace`, so that a reader never sees half a file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            nx.write_graphml(graph, out)
        os.chmod(tmp, mode)  # mkstemp makes it private
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def graph_path(data_dir: str | os.PathLike, edition: str) -> Path:
    """``data/graph/en/2026-08-07.json`` for edition ``en/2026-08-07``."""
    lang, _, rest = edition.partition("/")
    return Path(data_dir) / GRAPH_DIR / lang / f"{rest}.json"


def write_graph(graph: nx.MultiDiGraph, data_dir: str | os.PathLike, editions: Iterable[str]) -> list[Path]:
    """Store the part of ``graph`` of each edition in ``editions`` (its nodes and the
    edges leaving them) at :func:`graph_path`, atomically; the files written."""
    from .export import write_atomic

    wanted: dict[str, tuple[list[dict[str, object]], list[dict[str, object]]]] = {name: ([], []) for name in editions}
    for node, attrs in graph.nodes(data=True):
        part = wanted.get(attrs.get("edition"))
        if part is None:
            continue
        part[0].append({"id": node, **attrs})
        part[1].extend({"source": node, "target": v, **data} for _, v, data in graph.out_edges(node, data=True))
    written = []
    for name, (nodes, edges) in wanted.items():
        path = graph_path(data_dir, name)
        write_atomic(
            path,
            json.dumps(
                {"edition": name, "nodes": nodes, "edges": edges},
                ensure_ascii=False,
                sort_keys=True,
                separators=(",", ":"),
            )
            + "\n",
        )
        written.append(path)
    return written


def read_graph(data_dir: str | os.PathLike, editions: Iterable[str] | None = None) -> nx.MultiDiGraph:
    """The graph stored by :func:`write_graph` under ``data_dir`` (every edition found, or
    those named). Raises :class:`OSError` or :class:`ValueError` for a missing or
    damaged file."""
    folder = Path(data_dir) / GRAPH_DIR
    paths = [graph_path(data_dir, n) for n in editions] if editions is not None else sorted(folder.glob("*/*.json"))
    graph = nx.MultiDiGraph()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            part = json.load(fh)
        graph.add_nodes_from((n.pop("id"), n) for n in part["nodes"])
        graph.add_edges_from((e.pop("source"), e.pop("target"), e["kind"], e) for e in part["edges"])
    return graph
