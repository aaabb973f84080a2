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
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from xml.sax.saxutils import escape as _sax_escape
from xml.sax.saxutils import quoteattr as _sax_quoteattr

from ..export import write_atomic
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


#: Beside a GraphML written with edition keys: where each edition's nodes and edges are
#: in it (``{"size": bytes, "parts": {name: [key, node start, node end, edge start,
#: edge end]}}``), so that the next build copies the parts of the editions whose key is the same.
GRAPHML_PARTS_SUFFIX = ".parts.json"


def graphml_parts_path(path: str | os.PathLike) -> Path:
    """``data/graph.graphml`` → ``data/.graph.graphml.parts.json`` (hidden beside it)."""
    path = Path(path)
    return path.with_name(f".{path.name}{GRAPHML_PARTS_SUFFIX}")


def write_graphml(
    store: Store,
    path: str | os.PathLike,
    editions: list[str] | None = None,
    *,
    keys: dict[str, str] | None = None,
    previous: str | os.PathLike | None = None,
) -> int:
    """The GraphML of the whole graph (every edition, or those named) at ``path``, written
    atomically and streamed from the database (the nodes, then the edges; edge ids are
    their kinds, as networkx writes a multigraph's keys): ``networkx.read_graphml(path,
    force_multigraph=True)`` reads it back.

    ``keys``: each edition's key (its rows are the same when its key is): the parts of
    each edition are recorded beside the file (:func:`graphml_parts_path`), and those of
    ``previous`` (an earlier GraphML written with keys) whose key is the same are copied
    from it instead of written again (the bytes are those of a file written whole; a
    previous file whose size is not the one recorded is not read). Returns how many
    editions' parts were copied."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    names = editions if editions is not None else [r["name"] for r in store.rows]
    reuse = _previous_parts(previous, keys) if keys is not None and previous is not None else {}
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            if reuse:
                with open(previous, "rb") as old:  # type: ignore[arg-type]
                    parts = _graphml(store, names, out, reuse, old)
            else:
                parts = _graphml(store, names, out, {}, None)
        os.chmod(tmp, 0o644)
        if keys is not None:
            record = {
                "size": os.path.getsize(tmp),
                "parts": {n: [keys.get(n, ""), *parts[n]] for n in names},
            }
            write_atomic(graphml_parts_path(target), json.dumps(record, separators=(",", ":")))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return sum(1 for n in names if n in reuse)


def _previous_parts(previous: str | os.PathLike, keys: dict[str, str]) -> dict[str, list[int]]:
    """The parts of the earlier GraphML ``previous`` whose edition key is in ``keys``:
    name → [node start, node end, edge start, edge end]; none when its record is missing,
    unreadable or not of that file."""
    try:
        record = json.loads(graphml_parts_path(previous).read_text(encoding="utf-8"))
        if record["size"] != os.path.getsize(previous):
            return {}
        out = {}
        for name, (key, *span) in record["parts"].items():
            if key and keys.get(name) == key and len(span) == 4 and all(isinstance(x, int) for x in span):
                out[name] = span
        return out
    except (OSError, ValueError, KeyError, TypeError):
        return {}


_TEXT_SPECIAL = re.compile(r"[&<>]")
_ATTR_SPECIAL = re.compile(r'[&<>"\n\r\t]')


def escape(text: str) -> str:
    """:func:`xml.sax.saxutils.escape`, the same text, sooner for the most common case:
    nothing to escape (one regular-expression search instead of three ``replace``; 2
    million values in the GraphML of the whole corpus)."""
    return _sax_escape(text) if _TEXT_SPECIAL.search(text) else text


def quoteattr(text: str) -> str:
    """:func:`xml.sax.saxutils.quoteattr`, the same text, sooner when nothing is escaped."""
    return _sax_quoteattr(text) if _ATTR_SPECIAL.search(text) else f'"{text}"'


def _graphml(
    store: Store, names: list[str], out: IO[bytes], reuse: dict[str, list[int]], old: IO[bytes] | None
) -> dict[str, list[int]]:
    """Write the GraphML of ``names``; each name → [node start, node end, edge start,
    edge end] (byte offsets in ``out``). The parts of ``reuse`` are read from ``old``."""
    node_key = {k: f"d{i}" for i, (k, _) in enumerate(_NODE_KEYS)}
    edge_key = {k: f"d{i + len(_NODE_KEYS)}" for i, (k, _) in enumerate(_EDGE_KEYS)}
    head = [
        "<?xml version='1.0' encoding='utf-8'?>\n"
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
    ]
    for keys, where, ids in ((_NODE_KEYS, "node", node_key), (_EDGE_KEYS, "edge", edge_key)):
        for k, kind in keys:
            head.append(f'<key id="{ids[k]}" for="{where}" attr.name="{k}" attr.type="{kind}"/>\n')
    head.append('<graph edgedefault="directed">\n')
    pos = out.write("".join(head).encode("utf-8"))
    parts: dict[str, list[int]] = {}

    def copied(start: int, end: int) -> bytes:
        assert old is not None
        old.seek(start)
        return old.read(end - start)

    for name in names:
        if name in reuse:
            data = copied(*reuse[name][:2])
        else:
            chunk = []
            for node, attrs in graph_nodes(store, name):
                text = "".join(f'  <data key="{node_key[k]}">{escape(str(v))}</data>\n' for k, v in attrs.items())
                chunk.append(f"<node id={quoteattr(node)}>\n{text}</node>\n")
            data = "".join(chunk).encode("utf-8")
        parts[name] = [pos, pos + len(data)]
        pos += out.write(data)
    for name in names:
        if name in reuse:
            data = copied(*reuse[name][2:])
        else:
            chunk = []
            for u, v, attrs in graph_edges(store, name):
                text = "".join(f'  <data key="{edge_key[k]}">{escape(str(x))}</data>\n' for k, x in attrs.items())
                chunk.append(
                    f'<edge source={quoteattr(u)} target={quoteattr(v)} id="{attrs["kind"]}">\n{text}</edge>\n'
                )
            data = "".join(chunk).encode("utf-8")
        parts[name] += [pos, pos + len(data)]
        pos += out.write(data)
    out.write(b"</graph>\n</graphml>\n")
    return parts
