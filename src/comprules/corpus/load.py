"""Walk source paths, parse every document, and merge sources of the same edition.

A bad file (empty, binary, a PDF renamed ``.txt``, undecodable) gives one
:class:`~comprules.errors.SourceError` naming the file and the build goes on with
the others. Two sources of the same edition (a TXT and its re-encoded twin, or a TXT
and its PDF) build one edition, the first source given winning, with a warning
naming both.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import tomllib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..children import pool_initializer
from ..errors import SourceError
from ..model import Edition, ParseWarning
from .decode import decode_bytes
from .parse import parse_text

if TYPE_CHECKING:
    from .cache import ParseCache

#: File name endings read from a source folder; a file named explicitly is always read.
SOURCE_SUFFIXES = (".txt", ".pdf", ".docx")
METADATA_FILE = "editions.toml"


#: An edition name is a relative path of two safe parts, ``{lang}/{date or stem}``: it names
#: files and folders of the knowledge base (``data/en/2026-08-07.json``, ``site/en/…``).
EDITION_NAME = re.compile(r"[a-z]{2,3}/\w[\w.-]{0,99}")
_LANG = re.compile(r"[a-z]{2,3}")
_UNSAFE = re.compile(r"[^\w.-]+")
META_KINDS = ("edition", "fragment")
#: One ``editions.toml`` entry: ``lang``, ``kind``, ``title``, ``date`` and what else the file gives.
Meta = dict[str, Any]


def is_safe_name(name: str) -> bool:
    """True for ``en/2026-08-07``, ``fr/000_f51ad62258817a66``; false for ``../x``, ``/etc``, ``en/..``."""
    return isinstance(name, str) and EDITION_NAME.fullmatch(name) is not None


def safe_stem(stem: str) -> str:
    """A file stem made fit for an edition name: ``my notes (v2)`` → ``my-notes-v2``, ``..`` → ``document``."""
    cleaned = _UNSAFE.sub("-", stem).strip(".-")[:100].rstrip(".-")
    return cleaned or "document"


def check_metadata(meta: Meta, path: str) -> Meta:
    """The ``editions.toml`` entry of ``path``, checked: :class:`SourceError` for a value that
    could name files outside the knowledge base or is not of its type."""
    lang = meta.get("lang")
    if lang is not None and (not isinstance(lang, str) or not _LANG.fullmatch(lang)):
        raise SourceError(path, f"editions.toml: bad lang {lang!r} (two or three lowercase letters, e.g. en, fr)", 1)
    kind = meta.get("kind")
    if kind is not None and kind not in META_KINDS:
        raise SourceError(path, f"editions.toml: bad kind {kind!r} (edition or fragment)", 1)
    title = meta.get("title")
    if title is not None and not isinstance(title, str):
        raise SourceError(path, f"editions.toml: bad title {title!r} (a string)", 1)
    description = meta.get("description")
    if description is not None and not isinstance(description, str):
        raise SourceError(path, f"editions.toml: bad description {description!r} (a string)", 1)
    when = meta.get("date")
    if isinstance(when, datetime) or (when is not None and not isinstance(when, (str, date))):
        raise SourceError(path, f"editions.toml: bad date {when!r} (YYYY-MM-DD)", 1)
    return meta


@dataclass(frozen=True)
class Limits:
    """How large a source may be, so that a bad file fails fast instead of filling memory.

    ``max_source_bytes``: the file's size (default 50 MB; the largest edition, PDF
    included, is under 3 MB); ``max_line_chars``: one line of decoded text (default
    1,000,000 characters; the longest line of the 74 editions has 2,151). A source over
    either is refused with one :class:`SourceError` naming the file (and the line),
    before it is parsed. One 50 MB line used to take 115 s and 8.5 GB to build.
    """

    max_source_bytes: int = 50_000_000
    max_line_chars: int = 1_000_000

    def as_json(self) -> dict[str, int]:
        return {"max_source_bytes": self.max_source_bytes, "max_line_chars": self.max_line_chars}


DEFAULT_LIMITS = Limits()


def check_size(path: Path, limits: Limits = DEFAULT_LIMITS) -> int:
    """The file's size in bytes; :class:`SourceError` if over ``limits.max_source_bytes``."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from None
    if size > limits.max_source_bytes:
        raise SourceError(
            str(path),
            f"{size:,} bytes, larger than the limit of {limits.max_source_bytes:,} (--max-source-size): not parsed",
        )
    return size


def check_lines(text: str, path: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """:class:`SourceError` naming the first line of ``text`` longer than ``limits.max_line_chars``."""
    limit = limits.max_line_chars
    if len(text) <= limit:
        return
    start, line = 0, 1
    while True:
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        if stop - start > limit:
            raise SourceError(
                path,
                f"line of {stop - start:,} characters, longer than the limit of {limit:,} "
                "(--max-line-length): not parsed",
                line,
            )
        if end < 0:
            return
        start, line = end + 1, line + 1


@lru_cache(maxsize=1)
def _lexicon_terms() -> frozenset[str]:
    """Every term of the lexicons (``data/lexicon_*.toml``), English and translated, folded."""
    terms: set[str] = set()
    for item in resources.files("comprules").joinpath("data").iterdir():
        if not (item.name.startswith("lexicon_") and item.name.endswith(".toml")):
            continue
        with item.open("rb") as fh:
            for entries in tomllib.load(fh).values():
                for en, other in entries.items():
                    for term in (en, *([other] if isinstance(other, str) else other)):
                        terms.add(term.casefold())
    return frozenset(terms)


def has_cr_shape(edition: Edition) -> bool:
    """True when a parsed document looks like Comprehensive Rules text: it holds a
    section, rule or subrule number (digits, so any language), or a heading or glossary
    term that the lexicon names (a rulebook extract without numbers: seed 003's
    "Peur", "Vol"). ``/etc/passwd`` and a shopping list do not."""
    if any(r.kind in ("section", "rule", "subrule") for r in edition.rules):
        return True
    terms = _lexicon_terms()
    return any(g.term.casefold() in terms for g in edition.glossary)


@dataclass
class LoadResult:
    """Editions parsed from the sources, in name order, and the files that failed."""

    editions: list[Edition] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def _metadata(folder: Path) -> dict[str, Meta]:
    path = folder / METADATA_FILE
    if not path.is_file():
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SourceError(str(path), f"invalid editions.toml ({exc})") from None
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def expand_sources(paths: Sequence[str | os.PathLike[str]]) -> tuple[list[tuple[Path, Meta]], list[SourceError]]:
    """Files to read, with their ``editions.toml`` metadata, in the order given.

    Folders contribute their ``*.txt``, ``*.pdf`` and ``*.docx`` files, sorted by name. A
    file given again (by another path, a folder holding it, a hard link) is read once, at
    its first place.
    """
    out: list[tuple[Path, Meta]] = []
    errors: list[SourceError] = []
    seen: set[tuple[int, int]] = set()

    def add(f: Path, meta: Meta) -> None:
        try:
            st = f.stat()
            ident = (st.st_dev, st.st_ino)
        except OSError:  # said when it is read
            out.append((f, meta))
            return
        if ident not in seen:
            seen.add(ident)
            out.append((f, meta))

    for p in paths:
        path = Path(p)
        if path.is_dir():
            try:
                meta = _metadata(path)
            except SourceError as exc:
                errors.append(exc)
                meta = {}
            found = 0
            for f in sorted(path.iterdir()):
                if f.suffix.lower() not in SOURCE_SUFFIXES or f.name.startswith("."):
                    continue
                if f.is_file():
                    add(f, meta.get(f.name, meta.get(f.stem, {})))
                    found += 1
                elif not f.is_dir():  # a link going nowhere or in a loop, a FIFO, a device: said, not skipped
                    errors.append(SourceError(str(f), _not_a_file(f)))
            if not found and not any(e.path.startswith(str(path) + os.sep) for e in errors):
                errors.append(SourceError(str(path), _no_sources(path)))
        elif path.is_file():
            try:
                meta = _metadata(path.parent)
            except SourceError:
                meta = {}
            add(path, meta.get(path.name, meta.get(path.stem, {})))
        else:
            errors.append(SourceError(str(path), _not_a_file(path)))
    return out, errors


def _not_a_file(path: Path) -> str:
    """Why ``path`` (neither a regular file nor a folder) is no source: a symbolic link in
    a loop or to nothing, a FIFO, a device, a socket, or nothing at all."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "no such file or folder"
    if stat.S_ISLNK(mode):
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "a symbolic link in a loop (it points, through other links, back to itself)"
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
        mode = os.stat(path).st_mode
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a file: sources are read whole, from regular files"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file: sources are read from regular files"
    if stat.S_ISSOCK(mode):
        return "a socket, not a file"
    return "not a regular file"


def _no_sources(folder: Path) -> str:
    """Why a source folder gives nothing: empty, or only folders (named) and other files."""
    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    if not entries:
        return "empty folder, no source file in it"
    folders = [p.name for p in entries if p.is_dir()]
    others = len(entries) - len(folders)
    what = f"no {', '.join(SOURCE_SUFFIXES[:-1])} or {SOURCE_SUFFIXES[-1]} file in this folder"
    if not folders:
        return f"{what} ({others} other file{'s' if others != 1 else ''})"
    kind = "only folders" if not others else f"{others} other file{'s' if others != 1 else ''} and the folders"
    return (
        f"{what}, {kind}: {', '.join(folders)} (sources are not looked for in subfolders: "
        f"name them, e.g. {folder / folders[0]})"
    )


def read_text(path: Path, limits: Limits = DEFAULT_LIMITS) -> tuple[str, str]:
    """The decoded text of one source file and its SHA-256 (of the bytes).

    PDF and DOCX are read through :mod:`comprules.corpus.formats`; everything else is
    decoded as text, binary content being refused with a :class:`SourceError`, and so
    is a file or a line over ``limits`` (:class:`Limits`), before anything is parsed.
    """
    check_size(path, limits)
    suffix = path.suffix.lower()
    if suffix in (".pdf", ".docx"):
        from .formats import read_document

        text, digest = read_document(path)
    else:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SourceError(str(path), exc.strerror or str(exc)) from None
        text, digest = decode_bytes(data, str(path)).text, hashlib.sha256(data).hexdigest()
    check_lines(text, str(path), limits)
    return text, digest


def parse_file(path: str | os.PathLike[str], meta: Meta | None = None, limits: Limits | None = None) -> Edition:
    """Decode and parse one source file. Raises :class:`SourceError` for bad input:
    unreadable, binary, over the :class:`Limits`, or not CR text (:func:`has_cr_shape`)."""
    path = Path(path)
    meta = check_metadata(meta or {}, str(path))
    text, digest = read_text(path, limits or DEFAULT_LIMITS)
    effective = meta.get("date")
    if isinstance(effective, str):
        try:
            effective = date.fromisoformat(effective)
        except ValueError:
            raise SourceError(str(path), f"editions.toml: bad date {effective!r}") from None
    edition = parse_text(
        text,
        str(path),
        lang=meta.get("lang"),
        effective=effective,
        kind=meta.get("kind"),
        title=meta.get("title"),
        sha256=digest,
    )
    if meta.get("description"):
        edition = replace(edition, description=meta["description"])
    if not is_safe_name(edition.name):  # a file stem such as "my notes", ".." or "~draft"
        lang, _, rest = edition.name.partition("/")
        edition = replace(edition, name=f"{lang}/{safe_stem(rest)}")
    if not is_safe_name(edition.name):  # defence in depth: lang is checked above, and detected as en or fr
        raise SourceError(str(path), f"edition name {edition.name!r} is not a safe relative path", 1)
    if not edition.numbered() and not edition.glossary and edition.kind == "edition":
        raise SourceError(str(path), "not a Comprehensive Rules text: no rule found")
    if not has_cr_shape(edition):
        raise SourceError(
            str(path),
            "not a Comprehensive Rules text: no rule number, and no heading or glossary term of the lexicon",
            1,
        )
    return edition


def _parse_one(
    item: tuple[Path, Meta],
    key: tuple[str, str] | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    cache: "ParseCache | None" = None,
) -> Edition | SourceError:
    """Parse one source; kept in ``cache`` under ``key`` when its bytes are the ones the
    key was made from (in the process that parsed it: parallel, as the parse)."""
    path, meta = item
    try:
        edition = parse_file(path, meta, limits)
    except SourceError as exc:
        return exc
    except (UnicodeError, ValueError, RecursionError, MemoryError) as exc:  # pragma: no cover - last resort
        return SourceError(str(path), f"cannot parse: {type(exc).__name__}: {exc}")
    if cache is not None and key is not None and edition.sha256 == key[1]:
        cache.put(key[0], edition)
    return edition


def load_sources(paths: Sequence[str | os.PathLike[str]], jobs: int = 1, limits: Limits | None = None) -> LoadResult:
    """Parse every source; merge duplicates of one edition; never stop on a bad file."""
    items, errors = expand_sources(paths)
    return load_items(items, errors, jobs=jobs, limits=limits)


def load_items(
    items: list[tuple[Path, Meta]],
    errors: list[SourceError] | None = None,
    *,
    jobs: int = 1,
    limits: Limits | None = None,
    cache: "ParseCache | None" = None,
    keys: Sequence[tuple[str, str] | None] | None = None,
) -> LoadResult:
    """:func:`load_sources` on the files :func:`expand_sources` found (and its errors).

    With a ``cache`` (:class:`~comprules.corpus.cache.ParseCache`) and ``keys`` (one
    ``(cache key, SHA-256 of the source's bytes)`` an item, computed by the caller from
    everything the parse depends on; ``None`` for a source not to keep), a source whose
    key is kept is not parsed again; a source parsed is kept when its edition's
    ``sha256`` is the one given (the file did not change between the caller's look and
    the parse). Sources refused are not kept."""
    result = LoadResult(errors=list(errors or ()))
    parse = partial(_parse_one, limits=limits or DEFAULT_LIMITS, cache=cache)
    if cache is not None and (keys is None or len(keys) != len(items)):
        raise ValueError("load_items: a cache needs one key an item")
    keys = keys if cache is not None and keys is not None else [None] * len(items)
    parsed: list[Edition | SourceError | None] = [
        cache.get(key[0], str(item[0]), key[1]) if cache is not None and key is not None else None
        for item, key in zip(items, keys)
    ]
    todo = [i for i, got in enumerate(parsed) if got is None]
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(todo)), initializer=pool_initializer, initargs=(os.getpid(),)
        ) as pool:
            fresh = list(pool.map(parse, [items[i] for i in todo], [keys[i] for i in todo], chunksize=1))
    else:
        fresh = [parse(items[i], keys[i]) for i in todo]
    for i, done in zip(todo, fresh):
        parsed[i] = done
    by_name: dict[str, Edition] = {}
    for item in (p for p in parsed if p is not None):
        if isinstance(item, SourceError):
            result.errors.append(item)
            continue
        first = by_name.get(item.name)
        if first is None:
            by_name[item.name] = item
            continue
        note = f"{item.name}: two sources of the same edition, {first.source} and {item.source}: using the first"
        result.notices.append(note)
        warning = ParseWarning("duplicate-source", note)
        by_name[item.name] = replace(
            first, warnings=first.warnings + (warning,), sources=first.sources + (item.source,)
        )
    result.editions = [by_name[k] for k in sorted(by_name)]
    return result
