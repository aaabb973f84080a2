"""The knowledge base's exports, written from the database: the per-edition JSON, the
graph's per-edition parts and the GraphML of the whole graph.

The shapes are those of ``docs/json.md`` (per-edition JSON, DESIGN.md's "Export
shape") and of :mod:`comprules.graph` (nodes ``{edition}/{rule id}`` and
``{edition}/glossary/{slug}``; ``contains``, ``cites`` and ``defines`` edges), read
from the rows of :mod:`.schema` rather than from objects in memory, so that
``comprules export``, the build and any reader of the database give the same answer.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

from .read import Store


def edition_export(store: Store, name: str) -> dict[str, Any]:
    """The export shape of edition ``name``: ``{"edition", "rules", "glossary", "warnings", "restored"}``
    (``comprules export``; each rule's and glossary entry's ``refs`` and ``cites``).
    Raises :class:`KeyError` for an unknown edition."""
    meta = store.one("SELECT * FROM editions WHERE name = ?", (name,))
    if meta is None:
        raise KeyError(name)
    cites = store.citations(name)
    examples: dict[str, list[str]] = {}
    for rule, text in store.conn.execute(
        "SELECT rule, text FROM examples WHERE edition = ? ORDER BY rule, seq", (name,)
    ):
        examples.setdefault(rule, []).append(text)

    def refs(source: str) -> list[str]:
        seen: dict[str, None] = {}
        for c in cites.get(source, ()):
            if c["status"] == "internal" and c["kind"] != "glossary":
                seen.setdefault(c["target"], None)
        return list(seen)

    rules = [
        {
            "id": r["id"],
            "number": r["number"],
            "kind": r["kind"],
            "parent": r["parent"],
            "section": r["section"],
            "chapter": r["chapter"],
            "title": r["title"],
            "text": r["text"],
            "examples": examples.get(r["id"], []),
            "refs": refs(r["id"]),
            "cites": cites.get(r["id"], []),
            "line": r["line"],
        }
        for r in store.iter_rules(name)
    ]
    glossary = [
        {
            "term": g["term"],
            "aliases": json.loads(g["aliases"]),
            "obsolete": bool(g["obsolete"]),
            "senses": json.loads(g["senses"]),
            "text": g["text"],
            "refs": refs(f"glossary/{g['slug']}"),
            "cites": cites.get(f"glossary/{g['slug']}", []),
            "slug": g["slug"],
            "line": g["line"],
        }
        for g in store.all("SELECT * FROM glossary_entries WHERE edition = ? ORDER BY seq", (name,))
    ]
    warnings = [
        {"kind": w["kind"], "message": w["message"], "number": w["number"], "line": w["line"]}
        for w in store.all("SELECT * FROM warnings WHERE edition = ? ORDER BY seq", (name,))
    ]
    restored = store.restorations(name)
    return {
        "edition": {
            "name": meta["name"],
            "lang": meta["lang"],
            "effective": meta["effective"],
            "kind": meta["kind"],
            "title": meta["title"],
            "source": meta["source"],
            "sources": json.loads(meta["sources"]),
            "sha256": meta["sha256"],
            "description": meta["description"],
        },
        "rules": rules,
        "glossary": glossary,
        "warnings": warnings,
        "restored": restored,
    }


# -- the graph -----------------------------------------------------------------

_NODE_KEYS = (("kind", "string"), ("number", "string"), ("edition", "string"), ("lang", "string"),
              ("line", "long"), ("title", "string"))  # fmt: skip
_EDGE_KEYS = (("kind", "string"), ("status", "string"))


def graph_nodes(store: Store, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The nodes of one edition: ``(id, attributes)``, its rules in order, then its glossary."""
    meta = store.one("SELECT lang FROM editions WHERE name = ?", (name,))
    lang = meta[0] if meta else name.partition("/")[0]
    for r in store.conn.execute(
        "SELECT id, kind, number, line, title FROM rules WHERE edition = ? ORDER BY seq", (name,)
    ):
        attrs: dict[str, Any] = {"kind": r[1], "number": r[2], "edition": name, "lang": lang, "line": r[3]}
        if r[4]:
            attrs["title"] = r[4]
        yield f"{name}/{r[0]}", attrs
    for slug, term, line in store.conn.execute(
        "SELECT slug, term, line FROM glossary_entries WHERE edition = ? ORDER BY seq", (name,)
    ):
        yield (
            f"{name}/glossary/{slug}",
            {"kind": "glossary", "title": term, "edition": name, "lang": lang, "line": line},
        )


def graph_edges(store: Store, name: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The edges leaving the nodes of one edition: ``(source, target, attributes)``.

    ``contains`` (a rule's parent → the rule, when the edition holds the parent),
    ``cites`` (one per cited node, the status of its last citation; no self-citation,
    none for a citation that resolves nowhere), ``defines`` (a glossary entry → each rule
    its definition cites)."""
    for rule, parent in store.conn.execute(
        "SELECT r.id, r.parent FROM rules r JOIN rules p ON p.edition = r.edition AND p.id = r.parent"
        " WHERE r.edition = ? ORDER BY r.seq",
        (name,),
    ):
        yield f"{name}/{parent}", f"{name}/{rule}", {"kind": "contains"}
    cites: dict[tuple[str, str], str] = {}
    defines: list[tuple[str, str]] = []
    for source, resolved, status, kind, target in store.conn.execute(
        "SELECT source, resolved, status, kind, target FROM citations WHERE edition = ? AND resolved IS NOT NULL"
        " ORDER BY source, seq",
        (name,),
    ):
        origin = f"{name}/{source}"
        if resolved != origin:
            cites[(origin, resolved)] = status
        if source.startswith("glossary/") and status == "internal" and kind != "glossary":
            defines.append((origin, f"{name}/{target}"))
    for (origin, resolved), status in cites.items():
        yield origin, resolved, {"kind": "cites", "status": status}
    for origin, target in dict.fromkeys(defines):
        yield origin, target, {"kind": "defines"}


def graph_part(store: Store, name: str) -> dict[str, Any]:
    """The stored part of the graph of one edition, ``{"edition", "nodes": [{"id", …}],
    "edges": [{"source", "target", "kind", …}]}`` (``data/graph/{lang}/{name}.json``)."""
    return {
        "edition": name,
        "nodes": [{"id": node, **attrs} for node, attrs in graph_nodes(store, name)],
        "edges": [{"source": u, "target": v, **attrs} for u, v, attrs in graph_edges(store, name)],
    }


def write_graphml(store: Store, path: str | os.PathLike, editions: list[str] | None = None) -> None:
    """The GraphML of the whole graph (every edition, or those named) at ``path``, written
    atomically and streamed from the database (the nodes, then the edges; edge ids are
    their kinds, as networkx writes a multigraph's keys): ``networkx.read_graphml(path,
    force_multigraph=True)`` reads it back."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    names = editions if editions is not None else [r["name"] for r in store.rows]
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            _graphml(store, names, out)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _graphml(store: Store, names: list[str], out: IO[str]) -> None:
    node_key = {k: f"d{i}" for i, (k, _) in enumerate(_NODE_KEYS)}
    edge_key = {k: f"d{i + len(_NODE_KEYS)}" for i, (k, _) in enumerate(_EDGE_KEYS)}
    out.write(
        "<?xml version='1.0' encoding='utf-8'?>\n"
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
    )
    for keys, where, ids in ((_NODE_KEYS, "node", node_key), (_EDGE_KEYS, "edge", edge_key)):
        for k, kind in keys:
            out.write(f'<key id="{ids[k]}" for="{where}" attr.name="{k}" attr.type="{kind}"/>\n')
    out.write('<graph edgedefault="directed">\n')
    for name in names:
        chunk = []
        for node, attrs in graph_nodes(store, name):
            data = "".join(f'  <data key="{node_key[k]}">{escape(str(v))}</data>\n' for k, v in attrs.items())
            chunk.append(f"<node id={quoteattr(node)}>\n{data}</node>\n")
        out.write("".join(chunk))
    for name in names:
        chunk = []
        for u, v, attrs in graph_edges(store, name):
            data = "".join(f'  <data key="{edge_key[k]}">{escape(str(x))}</data>\n' for k, x in attrs.items())
            chunk.append(f'<edge source={quoteattr(u)} target={quoteattr(v)} id="{attrs["kind"]}">\n{data}</edge>\n')
        out.write("".join(chunk))
    out.write("</graph>\n</graphml>\n")
