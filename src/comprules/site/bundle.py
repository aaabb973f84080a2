"""One edition as a download: a zip of its own pages, search data and static files (issue 24).

The zip of ``en/2026-08-07`` holds one folder, ``comprules-en-2026-08-07/``, laid out as
the site is: the edition's pages (``en/2026-08-07/…``), the static files its pages link
(content-hashed names), its search page and search data (``search/en.js``: the edition's
own documents, exported from the search index as the site's is, so the page ranks as
``comprules search --edition en/2026-08-07`` does), its go-to data and lineage table, and
an ``index.html`` that opens its contents. Unpacked anywhere, every page opens from disk.

Links stay relative; a link to a page the zip does not hold (another edition, a diff, a
history page, the Data page) loses its address and reads as plain text, a script or a head
link to such a file is left out, and the ``{lang}/latest/`` links of the go-to box point
at the edition itself. The zip is a pure function of the built site and index: entries
sorted, dated by the edition's effective date, the same permissions, so the build's zip
and ``comprules export EDITION --site -o FILE.zip`` are the same bytes. The search data
comes last and the zip's comment digests what the rest is made of
(:func:`inputs_comment`), so that a build copies the rest from the previous zip
(:func:`zip_reusing`).
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..children import fork_pool
from ..codehash import code_hash
from ..errors import UsageError
from . import urls as U

#: The compression level of the zips (zlib's default: a tenth of the time of level 9, 2 % larger).
LEVEL = 6
_HASHED_STATIC = re.compile(r"^static/[^/]+[._-][0-9a-f]{8,}\.[a-z0-9_]+$")
_ATTR = re.compile(r'(\s)(href|src|action|data-latest|data-base)="([^"]*)"')
_TAG = re.compile(r"<(a|link|script|form)\b[^>]*>")
_SCRIPT = re.compile(r'<script\b[^>]*\bsrc="([^"]*)"[^>]*></script>\n?')
_LINK = re.compile(r"<link\b[^>]*>\n?")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def folder_name(name: str) -> str:
    """``en/2026-08-07`` → ``comprules-en-2026-08-07``, the zip's one folder."""
    return "comprules-" + name.replace("/", "-")


def _resolve(page: str, link: str) -> tuple[str, str] | None:
    """The site path a relative link of ``page`` names, and what follows it (``#…``,
    ``?…``); ``None`` for a link that is not a relative path (a scheme, ``#x``, ``/x``)."""
    if not link or link.startswith(("#", "/", "?")) or _SCHEME.match(link):
        return None
    cut = min((i for i in (link.find("#"), link.find("?")) if i >= 0), default=len(link))
    path, rest = link[:cut], link[cut:]
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if joined.startswith("..") or joined == ".":
        return None
    if path.endswith("/"):
        joined += "/"
    return joined, rest


class _Fixer:
    """Rewrites the links of the zip's pages (see the module's docstring)."""

    def __init__(self, name: str, members: set[str]):
        self.name = name
        self.lang = name.partition("/")[0]
        self.members = members
        self.seen: dict[tuple[str, str], str | None] = {}

    def target(self, page: str, link: str) -> str | None:
        """The link as the zip prints it, or ``None`` when it names nothing the zip holds."""
        key = (posixpath.dirname(page), link)
        if key not in self.seen:
            self.seen[key] = self._target(page, link)
        return self.seen[key]

    def _target(self, page: str, link: str) -> str | None:
        found = _resolve(page, link)
        if found is None:
            return link
        path, rest = found
        latest = U.latest_dir(self.lang) + "/"
        if path.startswith(latest) or path + "/" == latest:
            path = U.edition_dir(self.name) + "/" + path[len(latest) :]
        probe = path + "index.html" if path.endswith("/") else path
        if probe not in self.members:
            return None
        if path.endswith("/"):  # a folder (data-latest: a prefix the scripts add page names to)
            rel = posixpath.relpath(path.rstrip("/"), posixpath.dirname(page) or ".")
            return ("" if rel == "." else rel + "/") + rest
        return U.relative(page, path) + rest

    def page(self, page: str, html: str) -> str:
        html = _SCRIPT.sub(lambda m: m.group(0) if self.target(page, m.group(1)) is not None else "", html)
        html = _LINK.sub(lambda m: self._link(page, m.group(0)), html)
        return _TAG.sub(lambda m: self._tag(page, m.group(0)), html)

    def _link(self, page: str, tag: str) -> str:
        m = re.search(r'\shref="([^"]*)"', tag)
        return tag if m is None or self.target(page, m.group(1)) is not None else ""

    def _tag(self, page: str, tag: str) -> str:
        def attr(m: re.Match) -> str:
            space, name, value = m.groups()
            if name in ("data-latest", "data-base") and not value:
                return m.group(0)
            new = self.target(page, value)
            if new is None:
                return "" if name == "href" else m.group(0)
            return f'{space}{name}="{new}"'

        return _ATTR.sub(attr, tag)


def _index_page(name: str, title: str) -> str:
    contents = f"{U.edition_index(name)}"
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        f'<meta http-equiv="refresh" content="0; url={contents}">\n'
        f'</head>\n<body>\n<p><a href="{contents}">{title}</a></p>\n</body>\n</html>\n'
    )


def _readme(name: str) -> str:
    folder = folder_name(name)
    return (
        f"The Magic: The Gathering Comprehensive Rules, {name}, as pages that open from disk.\n\n"
        f"Open {folder}/index.html in a browser: the contents, every section, the glossary, the\n"
        "whole edition on one page (all.html), the search page and the go-to box work without a\n"
        "network. Made by comprules (comprules export EDITION --site).\n"
    )


def _inputs(site_dir: Path, name: str) -> dict[str, bytes]:
    """The files of the site that the zip of ``name`` holds besides its search data, as the
    site has them (paths inside the zip's folder → bytes, links not yet mended)."""
    site = Path(site_dir)
    folder = site / U.edition_dir(name)
    if not (folder / "index.html").is_file():
        raise UsageError(f"{folder}/index.html: the site has no pages of {name} (build it with the site)")
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            files[path.relative_to(site).as_posix()] = path.read_bytes()
    for path in sorted((site / U.STATIC).iterdir()):
        rel = f"{U.STATIC}/{path.name}"
        if path.is_file() and _HASHED_STATIC.match(rel) and not path.name.startswith(("sw.", "app.")):
            files[rel] = path.read_bytes()
    lang = name.partition("/")[0]
    for rel in (U.lineage_script(name), f"goto/{name}.js", U.search_page()):
        if (site / rel).is_file():
            files[rel] = (site / rel).read_bytes()
    for path in sorted((site / "goto" / lang).glob("n*.js")):
        files[f"goto/{lang}/{path.name}"] = path.read_bytes()
    return files


def _mended(name: str, inputs: Mapping[str, bytes], search: Iterable[str]) -> dict[str, bytes]:
    """The zip's files but its search data: ``inputs`` (:func:`_inputs`) with their links
    mended for a zip that also holds ``search/{key}.js`` for each key of ``search``."""
    files = dict(inputs)
    files[U.editions_script()] = b"window.CR_EDITIONS={};\n"  # one edition: no switcher
    files[U.HOME] = _index_page(name, f"Comprehensive Rules {name}").encode("utf-8")
    fixer = _Fixer(name, set(files) | {_search_member(k) for k in search})
    for rel in sorted(files):
        if rel.endswith(".html") and rel != U.HOME:
            html = fixer.page(rel, files[rel].decode("utf-8"))
            # the go-to box of a zip: links of other sites and numbers taken in this edition,
            # no link to the editions the zip lacks (static/goto.js, ``alone``)
            files[rel] = html.replace('<form class="find goto"', '<form class="find goto" data-alone', 1).encode(
                "utf-8"
            )
    page = U.search_page()
    if page in files:
        files[page] = _search_alone(name, files[page].decode("utf-8")).encode("utf-8")
    files["README.txt"] = _readme(name).encode("utf-8")
    return files


_OTHER_EDITION = re.compile(r'<option value="(\*|[a-z]{2,3}/[^"]+)">[^<]*</option>')
_OTHER_LANGUAGE = re.compile(r'<option value="([a-z]{2,3})">[^<]*</option>')
_DEFAULT_SCOPE = re.compile(r'(<select name="edition" id="edition"><option value="">)[^<]*(</option>)')
_OFFLINE_NOTE = re.compile(r'(<div id="offline" class="notice" hidden>\n).*?(</div>)', re.S)


def _search_alone(name: str, html: str) -> str:
    """The search page of a zip: its menus offer the zip's edition and language only, and the
    note shown from disk says what the zip holds (a trial: the 2009-05-01 zip offered the
    98 editions of the site and said search covered the latest edition of each language)."""
    html = _OTHER_EDITION.sub(lambda m: m.group(0) if m.group(1) == name else "", html)
    lang = name.partition("/")[0]
    html = _OTHER_LANGUAGE.sub(lambda m: m.group(0) if m.group(1) == lang else "", html)
    # the default scope is what the zip holds (a phone trial: "latest editions and documents")
    html = _DEFAULT_SCOPE.sub(lambda m: f"{m.group(1)}{name}, this download{m.group(2)}", html)
    note = (
        f"<p>This download holds {name} alone: search covers it. The other editions are on the "
        "site it came from, or searched through the local web server that comes with comprules "
        "(<code>comprules serve</code>).</p>\n"
    )
    return _OFFLINE_NOTE.sub(lambda m: m.group(1) + note + m.group(2), html)


def _search_member(key: str) -> str:
    return f"search/{key}.js"


def members(site_dir: Path, name: str, search_js: Mapping[str, bytes]) -> dict[str, bytes]:
    """The zip's files (paths inside its folder → bytes) of edition ``name`` of the site at
    ``site_dir``, ``search_js`` the search data written for it (``search/{lang}.js``,
    ``search/segment.js`` → bytes). Raises :class:`UsageError` when the site has no pages
    of ``name``."""
    files = _mended(name, _inputs(site_dir, name), search_js)
    files.update({_search_member(k): v for k, v in search_js.items()})
    return files


def inputs_comment(name: str, inputs: Mapping[str, bytes], search: Iterable[str]) -> bytes:
    """The zip's comment: ``comprules`` and a digest of what its files but the search data
    are made of (the site's files :func:`_inputs`, the search data's names, the code), so
    that a later build finds, in the zip itself, whether those files would be the same."""
    h = hashlib.blake2b(digest_size=16)
    for part in (code_hash(), name, *sorted(search)):
        h.update(part.encode("utf-8") + b"\0")
    for rel in sorted(inputs):
        h.update(rel.encode("utf-8") + b"\0" + len(inputs[rel]).to_bytes(8, "little"))
        h.update(inputs[rel])
    return b"comprules " + h.hexdigest().encode("ascii")


def search_scripts(index_dir: Path, name: str) -> dict[str, bytes]:
    """The search data of one edition, as the index stage wrote it for the zip of the
    latest edition of each language (``edition-en-2026-08-07.js``, ``window.CR_SEARCH``;
    the Chinese vocabulary too, ``site-segment.js``, for a language written without
    spaces): key → bytes. Raises :class:`UsageError` when the index holds none of that
    edition."""
    from ..languages import get

    index_dir = Path(index_dir)
    lang = name.partition("/")[0]
    try:
        out = {lang: (index_dir / ("edition-" + name.replace("/", "-") + ".js")).read_bytes()}
        if not get(lang).spaced:
            out["segment"] = (index_dir / "site-segment.js").read_bytes()
    except OSError:
        raise UsageError(
            f"{index_dir}: no search data of {name} in the index (build the knowledge base again)"
        ) from None
    return out


def _zip_info(top: str, rel: str, day: tuple[int, int, int]) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{top}/{rel}", date_time=(*day, 12, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o100644 << 16
    return info


def _is_search(rel: str) -> bool:
    return rel.startswith("search/")


def zip_bytes(name: str, files: Mapping[str, bytes], day: tuple[int, int, int], comment: bytes = b"") -> bytes:
    """``files`` as a zip under :func:`folder_name`, sorted but the search data
    (``search/…``), which comes last, each dated ``day`` at noon, deflated at
    :data:`LEVEL`, mode 644: the same bytes for the same files and ``comment``."""
    buffer = io.BytesIO()
    top = folder_name(name)
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = comment
        for rel in sorted(files, key=lambda r: (_is_search(r), r)):
            archive.writestr(_zip_info(top, rel, day), files[rel], compresslevel=LEVEL)
    return buffer.getvalue()


def zip_reusing(
    previous: bytes, name: str, search: Mapping[str, bytes], day: tuple[int, int, int], comment: bytes
) -> bytes | None:
    """The zip :func:`zip_bytes` writes for the files of the zip ``previous`` (its bytes)
    but the search data, ``search`` instead (``search/{key}.js`` → bytes), or ``None``
    when ``previous`` is not a zip of ``name`` whose comment is ``comment``. Its members
    before the search data are copied as they are, compressed: only the search data is
    deflated (an edition changed changes every edition's search data, through the
    index-wide idf of its words, and nothing else of the other editions' zips)."""
    try:
        with zipfile.ZipFile(io.BytesIO(previous)) as old:
            if old.comment != comment:
                return None
            infos = old.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    top = folder_name(name) + "/"
    kept = [i for i in infos if not _is_search(i.filename.removeprefix(top))]
    if not kept or any(not i.filename.startswith(top) for i in infos) or infos[: len(kept)] != kept:
        return None
    tail = infos[len(kept) :]
    if not tail:
        return None
    cut = tail[0].header_offset
    buffer = io.BytesIO()
    buffer.write(previous[:cut])
    # zipfile writes the members it is given after the bytes already there (mode "w" starts
    # where the file object stands); those copied are listed as the old zip's directory had them
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.filelist.extend(kept)
        archive.NameToInfo.update((i.filename, i) for i in kept)
        archive.comment = comment
        for key in sorted(search):
            rel = _search_member(key)
            archive.writestr(_zip_info(folder_name(name), rel, day), search[key], compresslevel=LEVEL)
    return buffer.getvalue()


def _day(name: str) -> tuple[int, int, int]:
    date = name.partition("/")[2]
    try:
        y, m, d = (int(x) for x in date.split("-"))
        return (max(y, 1980), m, d)
    except ValueError:
        return (1980, 1, 1)


def bundle(
    site_dir: Path,
    index_dir: Path,
    name: str,
    previous: bytes | None = None,
    search: dict[str, bytes] | None = None,
) -> bytes:
    """The zip of edition ``name`` (``en/2026-08-07``) of the knowledge base whose site and
    search index are ``site_dir`` and ``index_dir``; ``previous``, the bytes of an earlier
    zip of it, lends the members that are the same (:func:`zip_reusing`: the same bytes as
    without it). ``search``: its search data (:func:`search_scripts`' shape; by default
    read from the index, which holds the latest editions'; an older edition's is
    :func:`comprules.indexer.export.edition_search`). Raises :class:`UsageError` when the
    site has no pages of it or the index does not hold it."""
    if search is None:
        search = search_scripts(index_dir, name)
    inputs = _inputs(site_dir, name)
    comment = inputs_comment(name, inputs, search)
    if previous is not None:
        data = zip_reusing(previous, name, search, _day(name), comment)
        if data is not None:
            return data
    files = _mended(name, inputs, search)
    files.update({_search_member(k): v for k, v in search.items()})
    return zip_bytes(name, files, _day(name), comment)


def write_bundle(site_dir: Path, index_dir: Path, name: str, target: Path, previous: Path | None = None) -> int:
    """:func:`bundle` written to ``target`` (through a temporary file beside it, renamed);
    the bytes written. ``previous``, an earlier zip of the edition that nothing changed
    since the build wrote it, lends its members, and is hard linked when it is the same."""
    from ..export import write_atomic
    from .reuse import link_or_copy

    before = None
    if previous is not None:
        try:
            before = previous.read_bytes()
        except OSError:
            before = None
    data = bundle(site_dir, index_dir, name, previous=before)
    if data == before and previous is not None:
        link_or_copy(previous, target)
    else:
        write_atomic(Path(target), data)
    return len(data)


#: (the site, the index, the previous site and the time of its record, in ns) of the zips written
_JOB: tuple[Path, Path, tuple[Path, int] | None] | None = None


def _write_one(name: str) -> tuple[str, str, int]:
    assert _JOB is not None
    out, index, previous = _JOB
    path = U.download_file(name)
    before = None
    if previous is not None:  # a zip of the previous site, as its build wrote it
        folder, stamp = previous
        try:
            if (folder / path).stat().st_mtime_ns <= stamp:
                before = folder / path
        except OSError:
            pass
    return name, path, write_bundle(out, index, name, out / path, previous=before)


def write_downloads(
    out: Path, index: Path | None, names: Iterable[str], jobs: int = 1, previous: tuple[Path, int] | None = None
) -> dict[str, str]:
    """The zip of every edition of ``names`` into the site at ``out``
    (``download/{lang}/{date}.zip``), in ``jobs`` forked processes; edition name → site
    path. Nothing without a search index (``index`` ``None``). ``previous``: a previous
    site and the time (ns) its build finished it: its zips not modified since lend their
    members (:func:`zip_reusing`)."""
    global _JOB
    names = sorted(names)
    if index is None or not names:
        return {}
    _JOB = (Path(out), Path(index), previous)
    code_hash()  # once, before the workers fork
    try:
        if jobs <= 1 or len(names) < 2:  # two zips already take longer than a fork
            done = [_write_one(n) for n in names]
        else:
            with fork_pool(jobs) as pool:
                done = list(pool.imap_unordered(_write_one, names))
    finally:
        _JOB = None
    return {name: path for name, path, _size in sorted(done)}


def site_downloads(site: Any, out: Path) -> dict[str, str]:
    """The renderer's hook (:class:`~comprules.site.render.SiteRenderer`): the zip of the
    latest edition of each language. The zip of an older edition is made when asked for:
    by the server (``/download/{lang}/{date}.zip``, :func:`bundle` in a worker) or by
    ``comprules export EDITION --site``; the site holds all its pages already, and the 73
    older English zips were 87 MB of a 388 MB site and 7 s of a 68 s build (issue 21)."""
    import time

    started = time.perf_counter()
    names = [e.name for e in site.latest.values() if not U.is_fragment(e) and e.effective is not None]
    previous = site.previous[:2] if site.previous is not None else None  # reuse.read_record's site and time
    written = write_downloads(out, site.search, names, jobs=site.jobs, previous=previous)
    site.timings["downloads"] = time.perf_counter() - started
    return written
