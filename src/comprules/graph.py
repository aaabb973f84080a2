"""The knowledge base as a graph (networkx): what contains what, and what cites what.

Nodes are named ``{edition}/{rule id}`` (``en/2026-08-07/702.37a``) and
``{edition}/glossary/{slug}`` (``en/2026-08-07/glossary/morph``); every node carries
``kind`` (chapter, section, rule, subrule, passage, note, glossary), ``edition``,
``lang`` and ``line``, and ``number`` and ``title`` when it has them (a glossary
node's ``title`` is its headword). Edges carry ``kind``:

- ``contains``: chapter → section → rule → subrule, as printed
  (``en/2026-08-07/7`` → ``en/2026-08-07/702`` → ``…/702.37`` → ``…/702.37a``);
- ``cites``: a rule or glossary entry → the rule, section, chapter or glossary
  entry it refers to (``…/702.37a`` → ``…/708``), from :func:`references.resolve`;
- ``defines``: a glossary entry → each rule, section or chapter its definition
  refers to, the rules governing the term it defines (``…/glossary/morph`` →
  ``…/702.37``). The same pairs are ``cites`` edges too, so that "cited by" lists
  the glossary entries; ``defines`` alone gives the glossary layer without the
  glossary's cross-links ("See Cast.").

Fragments (forum posts, rulebook extracts) are in the graph like editions: their
passages and notes are nodes (kinds ``passage``, ``note``), their keyword entries
glossary nodes. Edge keys are the kinds, so one pair is never linked twice the same
way. :data:`EDGE_KINDS` lists them.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import networkx as nx

from .model import Edition, sort_key
from .references import Resolution, resolve

__all__ = ["EDGE_KINDS", "edition_graph", "kb_graph", "cited_by", "defined_by", "write_graphml", "node_id"]

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
        attrs = {"kind": rule.kind, "number": rule.number, "edition": name, "lang": lang,
                 "line": rule.line}
        if rule.title:
            attrs["title"] = rule.title
        return attrs

    graph.add_nodes_from((f"{name}/{rule.id}", rule_attrs(rule)) for rule in edition.rules)
    graph.add_nodes_from(
        (_glossary_node(name, e.slug),
         {"kind": "glossary", "title": e.term, "edition": name, "lang": lang, "line": e.line})
        for e in edition.glossary)
    by_id = edition.by_id
    contains = {"kind": "contains"}
    graph.add_edges_from(
        (f"{name}/{rule.parent}", f"{name}/{rule.id}", "contains", contains)
        for rule in edition.rules if rule.parent is not None and rule.parent in by_id)
    cites = {"kind": "cites"}
    graph.add_edges_from(  # "602.2a 602.2a Any rule…" (2005) is a misprint, no self-citation
        (f"{name}/{source}", f"{name}/{target}", "cites", cites)
        for source, targets in resolution.refs.items() for target in targets if target != source)
    graph.add_edges_from(
        (_glossary_node(name, slug), f"{name}/{target}", "cites", cites)
        for slug, targets in resolution.glossary_refs.items() for target in targets)
    defines = {"kind": "defines"}
    graph.add_edges_from(
        (_glossary_node(name, slug), f"{name}/{target}", "defines", defines)
        for slug, targets in resolution.glossary_refs.items() for target in targets)
    graph.add_edges_from(
        (f"{name}/{source}", _glossary_node(name, slug), "cites", cites)
        for source, slugs in resolution.glossary_links.items() for slug in slugs)


def edition_graph(edition: Edition, resolution: Resolution | None = None) -> nx.MultiDiGraph:
    """The graph of one edition; ``resolution`` is computed if not given."""
    graph = nx.MultiDiGraph()
    _add_edition(graph, edition, resolution)
    return graph


def kb_graph(editions: Iterable[Edition],
             resolutions: dict[str, Resolution] | None = None) -> nx.MultiDiGraph:
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
