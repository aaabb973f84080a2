"""The per-edition JSON export (DESIGN.md "Export shape") and its reader.

One file per edition, ``data/{lang}/{date or stem}.json``::

    {"edition": {"name", "lang", "effective", "kind", "title", "source", "sources", "sha256", "description"},
     "rules": [{"id", "number", "kind", "parent", "section", "chapter", "title", "text",
                "examples", "refs", "cites", "line"}],
     "glossary": [{"term", "aliases", "obsolete", "senses", "refs", "cites", "slug", "line"}],
     "warnings": [{"kind", "message", "number", "line"}],
     "restored": [{"unit", "part", "raw", "chars", "sources"}]}

``restored`` lists what a lossy source printed where characters were put back from the
editions around it (:mod:`comprules.corpus.restore`); the rules hold the restored text.

``refs`` lists the targets inside the document; ``cites`` every printed target in
printed order, ``{"target", "kind", "status", "resolved", "title", "title_agrees"}``
(:class:`comprules.references.Citation`; ``docs/json.md``).

Keys are stable; output is deterministic (sorted keys, edition order kept) so two
builds from the same sources give byte-identical files.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import date
from pathlib import Path

import orjson

from .model import Edition, GlossaryEntry, ParseWarning, Restoration, Rule


def edition_to_dict(edition: Edition, resolution=None) -> dict:
    """The export shape of one edition, with the references of a
    :class:`~comprules.references.Resolution` (rule id → targets, glossary slug → targets)."""
    refs = resolution.refs if resolution is not None else {}
    glossary_refs = resolution.glossary_refs if resolution is not None else {}
    cites = resolution.cites if resolution is not None else {}

    def cited(source: str) -> list[dict]:
        return [c.as_json() for c in cites.get(source, ())]

    return {
        "edition": {
            "name": edition.name,
            "lang": edition.lang,
            "effective": edition.effective.isoformat() if edition.effective else None,
            "kind": edition.kind,
            "title": edition.title,
            "source": Path(edition.source).name,
            "sources": [Path(s).name for s in edition.sources],
            "sha256": edition.sha256,
            "description": edition.description,
        },
        "rules": [
            {
                "id": r.id,
                "number": r.number,
                "kind": r.kind,
                "parent": r.parent,
                "section": r.section,
                "chapter": r.chapter,
                "title": r.title,
                "text": r.text,
                "examples": list(r.examples),
                "refs": list(refs.get(r.id, ())),
                "cites": cited(r.id),
                "line": r.line,
            }
            for r in edition.rules
        ],
        "glossary": [
            {
                "term": g.term,
                "aliases": list(g.aliases),
                "obsolete": g.obsolete,
                "senses": list(g.senses),
                "text": g.text,
                "refs": list(glossary_refs.get(g.slug, ())),
                "cites": cited(f"glossary/{g.slug}"),
                "slug": g.slug,
                "line": g.line,
            }
            for g in edition.glossary
        ],
        "warnings": [
            {"kind": w.kind, "message": w.message, "number": w.number, "line": w.line} for w in edition.warnings
        ],
        "restored": [r.as_json() for r in edition.restored],
    }


def edition_from_dict(data: dict) -> Edition:
    """Rebuild an :class:`Edition` from its export (the inverse of :func:`edition_to_dict`)."""
    meta = data["edition"]
    rules = tuple(
        Rule(
            id=r["id"],
            number=r["number"],
            kind=r["kind"],
            text=r["text"],
            line=r["line"],
            title=r["title"],
            examples=tuple(r["examples"]),
            parent=r["parent"],
            section=r["section"],
            chapter=r["chapter"],
        )
        for r in data["rules"]
    )
    glossary = tuple(
        GlossaryEntry(
            term=g["term"],
            aliases=tuple(g["aliases"]),
            obsolete=g["obsolete"],
            senses=tuple(g["senses"]),
            text=g["text"],
            line=g["line"],
            slug=g["slug"],
        )
        for g in data["glossary"]
    )
    warnings = tuple(ParseWarning(w["kind"], w["message"], w["line"], w["number"]) for w in data["warnings"])
    effective = date.fromisoformat(meta["effective"]) if meta["effective"] else None
    return Edition(
        name=meta["name"],
        lang=meta["lang"],
        effective=effective,
        kind=meta["kind"],
        source=meta["source"],
        sha256=meta["sha256"],
        title=meta["title"],
        rules=rules,
        glossary=glossary,
        warnings=warnings,
        sources=tuple(meta.get("sources", ())),
        description=meta.get("description", ""),
        restored=tuple(
            Restoration(r["unit"], r["part"], r["raw"], r["chars"], tuple(r["sources"]))
            for r in data.get("restored", ())
        ),
    )


def dumps(data: dict) -> str:
    """Deterministic JSON text (UTF-8, sorted keys, one trailing newline)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def dumps_compact(data: dict) -> str:
    """Deterministic compact JSON text (UTF-8, sorted keys, no spaces, one trailing
    newline): the knowledge base's own files, written by the C encoder."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def encoded(content) -> bytes:
    """``content`` as the server sends it and the build stores a rule's view: compact UTF-8
    JSON, the bytes of ``json.dumps(content, ensure_ascii=False, separators=(",", ":"))``
    for strings, integers, lists and dicts (keys that are not strings written as strings,
    as ``json`` writes them), written by orjson (a rule of the CR 1.6 µs instead of 9 µs; a
    diff of 600 KB 2 ms instead of 13). Raises ``TypeError`` for a value JSON cannot hold."""
    return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def _write_fd(fd: int, text: str | bytes) -> None:
    """Write ``text`` (UTF-8, LF line ends; bytes as they are) to the open descriptor ``fd``, closing it."""
    if isinstance(text, bytes):
        with os.fdopen(fd, "wb") as fh:
            fh.write(text)
    else:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write a file (text as UTF-8, bytes as they are) through a temporary sibling and
    ``os.replace``: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: a command that only reads does not import it

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        _write_fd(fd, text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_NOT_A_FILE = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def files_under(root: Path) -> list[str]:
    """Every file below the folder ``root``, as paths relative to it (``/``-separated),
    sorted; a symbolic link, to a file or to a folder, is listed as a file and not
    followed. One :func:`os.walk` (``scandir``: no ``stat`` a file): 20 ms for the 15,000
    files of a site, where ``Path.rglob`` and ``is_dir`` take 350 ms. Empty when ``root``
    cannot be read."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        out += [prefix + d for d in dirs if os.path.islink(os.path.join(folder, d))]
        out += [prefix + f for f in files]
    out.sort()
    return out


def names_a_file(spec: str | os.PathLike[str] | None) -> bool:
    """Whether ``spec`` (an edition's name or a path, as the user gave it) is a regular
    file: ``False`` for a name too long to be a path (``ENAMETOOLONG``) or any other
    error of the system, where :meth:`Path.is_file` raises."""
    if not spec:
        return False
    try:
        return os.path.isfile(spec)
    except (OSError, ValueError):
        return False


def write_output(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (UTF-8; bytes as they are: ``export --site``'s zip) to the user's
    file ``path`` (``export -o``), atomically.

    Only a regular file is ever replaced, through a temporary file in the same folder
    and :func:`os.replace` (its permission bits are kept; a new file gets 0666 less
    the umask). Raises :class:`~comprules.errors.UsageError`, writing nothing, when
    ``path`` is a symbolic link, a folder, a FIFO, a device or a socket, or when its
    folder does not exist (it is not created); :class:`OSError` when writing fails
    (the temporary file is removed, the old file stays), naming ``path`` ("cannot write
    there") when its folder takes no new file (``-o /proc/version``).
    """
    from .errors import UsageError

    target = Path(path)
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        for test, what in _NOT_A_FILE:
            if test(mode):
                hint = "; give a file name" if what == "a folder" else "; comprules only replaces regular files"
                raise UsageError(f"-o {target}: is {what}{hint}")
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"-o {target}: folder {folder} does not exist (it is not created)")
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        perms = 0o666 & ~umask
    else:
        perms = stat.S_IMODE(mode)
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:  # /proc, a read-only folder: name the user's path, not the temporary one
        raise OSError(exc.errno, f"cannot write there ({exc.strerror})", str(target)) from None
    try:
        _write_fd(fd, text)
        os.chmod(tmp, perms)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename in (None, tmp):
            raise
        raise OSError(exc.errno, f"cannot write there ({exc.strerror})", str(target)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def edition_path(data_dir: Path, name: str) -> Path:
    """``data/en/2026-08-07.json`` for edition ``en/2026-08-07``."""
    lang, _, rest = name.partition("/")
    return Path(data_dir) / lang / f"{rest}.json"


def read_edition(path: Path) -> Edition:
    """Load one exported edition file."""
    with open(path, encoding="utf-8") as fh:
        return edition_from_dict(json.load(fh))


def citations_from_dict(data: dict) -> dict[str, list[dict]]:
    """The ``cites`` of an export: rule id or ``glossary/{slug}`` → its citations (JSON
    shape), for the units that cite anything."""
    out = {r["id"]: r["cites"] for r in data["rules"] if r.get("cites")}
    out.update((f"glossary/{g['slug']}", g["cites"]) for g in data["glossary"] if g.get("cites"))
    return out
