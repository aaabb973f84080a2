"""The served site as an installable web app that keeps working without a network (issue 24).

Served over http(s) (``comprules serve``), every page links a web app manifest
(``manifest.webmanifest``: the site's name and colours, two icons drawn here, starting
at the latest English edition) and registers a service worker (``sw.js``, at the root,
so that its scope is the whole site; ``static/app.js`` registers it, and does nothing
opened from disk). After one visit the worker keeps the *offline set* (:func:`offline_set`):
the latest edition of each language (every page of its folder, its lineage and go-to data),
the documents without a date, the search data, the static files and the pages about the
whole site that they need (home, search, go, data). Those open with the network off;
any other page of the site is kept once visited.

Never stale, never half-updated: the worker's cache is named by the content hash of the
offline set (:func:`build_info`: the hash of every file of the site, the zips aside, and each
kept file's own hash, which the worker checks on download), so a new build has a new
``sw.js``, which the browser downloads in the background: the whole set is taken into a new
cache, checked file by file, and only then swapped in; the old caches are deleted after the
swap and the open pages say "Rules of 2026-08-07 now available — reload". A download that
fails (the network, a file of another build) deletes the new cache and keeps the old one.

The icons are PNG files drawn from the favicon's shapes (:func:`icon_png`: numpy for the
shapes, zlib and struct for the file), the same bytes at every build: the build writes the
copies the package keeps in ``icons/`` (:func:`icon_file_bytes`), which a test draws again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..export import files_under
from . import urls as U

#: The web app's icon sizes, in pixels (the installability criteria ask for 192 and 512).
ICON_SIZES = (192, 512)
#: The site's colours: the favicon's blue (the browser's title bar), the page's background.
THEME_COLOR = "#1f3a5f"
BACKGROUND_COLOR = "#fdfcf9"
PAPER_COLOR = "#f4f1e8"
#: Names the site's pages use for the app (the manifest's ``name`` and ``short_name``).
APP_NAME = "Magic: The Gathering Comprehensive Rules"
SHORT_NAME = "CR rules"
#: The prefix of every cache the service worker makes (its own: it never touches others).
CACHE_PREFIX = "comprules-"
#: Digits of a file's SHA-256 the worker checks (hex), and of the build's hash.
FILE_DIGITS = 16
BUILD_DIGITS = 16
#: Pages about the whole site kept with the latest editions.
SHARED_PAGES = (U.HOME, U.search_page(), U.redirect_page(), U.data_page())
#: Files never kept offline: the worker itself, the zips of the Data page.
_NEVER = re.compile(r"^(?:sw\.js|download/.*|static/sw\.[^/]*)$")
_HASHED_STATIC = re.compile(r"^static/[^/]+[._-][0-9a-f]{8,}\.[a-z0-9_]+$")


# -- the icons -----------------------------------------------------------------


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _segment_distance(x: np.ndarray, y: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    t = np.clip(((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    return np.hypot(x - (ax + t * dx), y - (ay + t * dy))


def icon_pixels(size: int, samples: int = 4) -> np.ndarray:
    """The icon as RGBA bytes, shape ``(size, size, 4)``: the favicon's drawing (on a
    32-unit square: a blue rounded square, a sheet of paper with a folded corner, three
    lines of text), ``samples``² samples per pixel for smooth edges."""
    n = size * samples
    unit = 32.0 / n
    coords = (np.arange(n, dtype=np.float32) + 0.5) * unit
    x, y = np.meshgrid(coords, coords)
    r = 6.0  # the rounded square's corners
    cx, cy = np.clip(x, r, 32 - r), np.clip(y, r, 32 - r)
    square = np.hypot(x - cx, y - cy) <= r
    paper = (x >= 9) & (x <= 24) & (y >= 7) & (y <= 25) & (x - y <= 13)
    lines = np.zeros_like(square)
    for a, b in (((12, 14), (21, 14)), ((12, 18), (21, 18)), ((12, 22), (18, 22))):
        lines |= _segment_distance(x, y, a, b) <= 1.0
    blue, sheet = np.array(_rgb(THEME_COLOR), np.float32), np.array(_rgb(PAPER_COLOR), np.float32)
    color = np.where((paper & ~lines)[..., None], sheet, blue)
    alpha = square.astype(np.float32)

    def down(a: np.ndarray) -> np.ndarray:
        return a.reshape(size, samples, size, samples, *a.shape[2:]).mean(axis=(1, 3))

    coverage = down(alpha)
    premultiplied = down(color * alpha[..., None])
    rgb = np.where(coverage[..., None] > 0, premultiplied / np.maximum(coverage[..., None], 1e-6), 0.0)
    out = np.concatenate([rgb, coverage[..., None] * 255.0], axis=2)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def png_bytes(pixels: np.ndarray) -> bytes:
    """An RGBA image (``(height, width, 4)`` uint8) as a PNG file: 8-bit RGBA, no filter,
    zlib level 9, no time or text chunks (the same bytes for the same pixels)."""
    height, width, _ = pixels.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, width * 4)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
        + chunk(b"IEND", b"")
    )


@functools.lru_cache(maxsize=None)
def icon_png(size: int) -> bytes:
    """The web app's icon of ``size`` × ``size`` pixels, as PNG bytes, drawn (0.3 s for
    the two sizes: the build writes the copies kept in ``icons/``, :func:`icon_file_bytes`)."""
    return png_bytes(icon_pixels(size, samples=max(2, 1024 // size)))


def icon_file_bytes(size: int) -> bytes:
    """The icon :func:`icon_png` draws, as kept in the package (``icons/icon-{size}.png``;
    tests/test_offline_parts.py checks that the two are the same bytes). Raises
    :class:`FileNotFoundError` for a size not kept."""
    return resources.files("comprules.site").joinpath(f"icons/icon-{size}.png").read_bytes()


# -- the manifest ----------------------------------------------------------------


def manifest(start: str) -> dict[str, Any]:
    """The web app manifest (W3C Web Application Manifest), every link relative to the
    manifest at the site's root; ``start``: the site path the app opens at (the latest
    English edition's contents, ``en/latest/index.html``)."""
    return {
        "name": APP_NAME,
        "short_name": SHORT_NAME,
        "description": "Every edition of the Comprehensive Rules, searchable, readable without a network.",
        "id": "./",
        "start_url": start,
        "scope": "./",
        "display": "standalone",
        "lang": "en",
        "dir": "ltr",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "icons": [
            {"src": U.icon_file(size), "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
            for size in ICON_SIZES
        ],
    }


# -- what the worker keeps ---------------------------------------------------------


def _files_under(out: Path, folder: str) -> list[str]:
    return [f"{folder}/{rel}" for rel in files_under(out / folder)]


def offline_set(
    out: Path, latest: Mapping[str, str], documents: Iterable[str] = (), eras: Iterable[str] = ()
) -> list[str]:
    """The site paths the service worker keeps at install, sorted: for each language's
    latest edition (``latest``: language → edition name) every file of its folder, its
    lineage table and go-to words, the language's go-to numbers; each document without a
    date (``documents``: names) its folder and go-to words, and those of the English
    editions of their eras (``eras``: names; a French page's go-to box reads them); the
    search data, the content-hashed static files and the icons; the pages of
    :data:`SHARED_PAGES` and the editions list. Only files that exist in ``out``."""
    out = Path(out)
    paths: set[str] = set()
    for lang, name in latest.items():
        paths.update(_files_under(out, U.edition_dir(name)))
        paths.add(U.lineage_script(name))
        paths.add(f"goto/{name}.js")
        paths.update(p for p in _files_under(out, f"goto/{lang}") if re.search(r"/n\d\.js$", p))
    for name in documents:
        paths.update(_files_under(out, U.edition_dir(name)))
        paths.add(f"goto/{name}.js")
    paths.update(f"goto/{name}.js" for name in eras)
    paths.update(_files_under(out, "search"))
    paths.update(p for p in _files_under(out, U.STATIC) if _HASHED_STATIC.match(p))
    paths.update(U.icon_file(size) for size in ICON_SIZES)
    paths.update((*SHARED_PAGES, U.editions_script(), U.manifest_file()))
    return sorted(p for p in paths if (out / p).is_file() and not _NEVER.match(p))


def _digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def build_info(
    out: Path,
    latest: Mapping[str, str],
    documents: Iterable[str] = (),
    known: Mapping[str, tuple[int, str]] | None = None,
    eras: Iterable[str] = (),
) -> dict[str, Any]:
    """What ``sw.js`` is told about the build in ``out``: ``hash`` (the content hash of the
    whole site, zips and the worker aside, :data:`BUILD_DIGITS` hex digits), ``files``
    (:func:`offline_set` of ``latest``, ``documents`` and ``eras``, each ``[site path,
    first FILE_DIGITS hex digits of its SHA-256]``),
    ``aliases`` (``{"en/latest/": "en/2026-08-07/"}``: a latest copy is kept once, under
    its dated folder), ``editions`` (language → the latest edition's date, the update notice's
    words) and ``bytes`` (the offline set's size). ``known``: site path → (size, SHA-256) of
    the files the render already hashed (its tasks' records, :mod:`.reuse`), read again
    only when their size is not that one."""
    out = Path(out)
    known = known or {}

    def digest(rel: str, path: Path) -> str:
        found = known.get(rel)
        if found is not None:
            try:
                if path.stat().st_size == found[0]:
                    return found[1]
            except OSError:
                pass
        return _digest(path)

    kept = offline_set(out, latest, documents, eras)
    digests = {p: digest(p, out / p) for p in kept}
    whole = hashlib.blake2b(digest_size=16)
    for root, dirs, files in os.walk(out):
        dirs.sort()
        rel_root = Path(root).relative_to(out).as_posix()
        for name in sorted(files):
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            if _NEVER.match(rel) or rel.startswith("."):
                continue
            whole.update(rel.encode() + b"\0")
            whole.update((digests.get(rel) or digest(rel, Path(root) / name)).encode())
    return {
        "hash": whole.hexdigest()[:BUILD_DIGITS],
        "files": [[p, digests[p][:FILE_DIGITS]] for p in kept],
        "aliases": {U.latest_dir(lang) + "/": U.edition_dir(name) + "/" for lang, name in sorted(latest.items())},
        "editions": {lang: name.partition("/")[2] for lang, name in sorted(latest.items())},
        "bytes": sum((out / p).stat().st_size for p in kept),
    }


def worker_script(info: Mapping[str, Any]) -> str:
    """``sw.js``: the build's :func:`build_info` as ``self.CR_BUILD``, then the worker's
    code (``static/sw.js``)."""
    code = resources.files("comprules.site").joinpath("static/sw.js").read_text(encoding="utf-8")
    data = json.dumps(info, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return f"self.CR_BUILD={data};\n{code}"


def write_offline(
    out: Path,
    latest: Mapping[str, str],
    documents: Sequence[str] = (),
    known: Mapping[str, tuple[int, str]] | None = None,
    eras: Sequence[str] = (),
) -> dict[str, Any]:
    """Write the manifest, the icons and, last (it hashes what the site holds), the service
    worker into the site at ``out``; ``latest``: language → its latest edition's name,
    ``documents``: the names of the documents without a date, ``known``: the files already
    hashed, ``eras``: the English editions of the documents' eras (:func:`build_info`).
    Returns what the worker keeps: ``{"cache": name, "files": count, "bytes": size}``."""
    out = Path(out)
    for size in ICON_SIZES:
        target = out / U.icon_file(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(icon_file_bytes(size))
    lang = "en" if "en" in latest else next(iter(sorted(latest)), None)
    start = U.edition_index(U.latest_dir(lang)) if lang else U.HOME
    text = json.dumps(manifest(start), ensure_ascii=False, indent=1) + "\n"
    (out / U.manifest_file()).write_text(text, encoding="utf-8")
    info = build_info(out, latest, documents, known, eras)
    tmp = out / (U.service_worker() + ".tmp")
    tmp.write_text(worker_script(info), encoding="utf-8")
    os.replace(tmp, out / U.service_worker())
    return {"cache": CACHE_PREFIX + info["hash"], "files": len(info["files"]), "bytes": info["bytes"]}


# -- the renderer's hooks ----------------------------------------------------------


class AppHead:
    """What every page's head links (``base.html``'s ``app``): the manifest, the theme
    colour, and the feeds of the page's language (:func:`comprules.site.feed.links`)."""

    manifest = U.manifest_file()
    theme = THEME_COLOR

    def __init__(self, feed_langs: Iterable[str]):
        self.feed_langs = tuple(sorted(feed_langs))

    def feeds(self, lang: str | None) -> list[dict[str, str]]:
        from .feed import links

        return links(lang, self.feed_langs)


def template_globals(editions: Iterable[Any]) -> dict[str, Any]:
    """The templates' globals for the app's head links, from the site's editions."""
    return {"app": AppHead({e.lang for e in editions if not U.is_fragment(e)})}


def releases(site: Any) -> list[Any]:
    """Every dated edition of a :class:`~comprules.site.render.SiteRenderer` as a feed
    :class:`~comprules.site.feed.Release`: its set, the edition before it in its chain
    (its chain's), the counts of the release's alignment and its bulletin."""
    from .feed import Release, release_counts

    previous_of = {new.name: old.name for old, new in site.pairs}
    out = []
    for e in site.editions:
        if U.is_fragment(e) or e.effective is None:
            continue
        date = e.effective.isoformat()
        previous = previous_of.get(e.name)
        alignment = site.alignments.get((previous, e.name)) if previous else None
        out.append(
            Release(
                edition=e.name,
                date=date,
                set=site.sets.get(date, ""),
                previous=previous,
                counts=release_counts(alignment.rules) if alignment is not None else {},
                bulletin=U.diff_page(previous, e.name) if previous else None,
            )
        )
    return out


def finish(site: Any, out: Path) -> dict[str, Any]:
    """The last step of a render: the feeds, then the manifest, icons and service worker
    (which hash what the site holds). Returns :func:`write_offline`'s summary."""
    import time

    from .feed import write_feeds

    started = time.perf_counter()
    write_feeds(out, releases(site))
    documents = [e.name for e in site.editions if U.is_fragment(e)]
    latest = {lang: e.name for lang, e in site.latest.items()}
    from .reuse import recorded_digests

    eras = sorted({site.english_of[name].name for name in documents if name in site.english_of})
    summary = write_offline(out, latest, documents, recorded_digests(site.records), eras)
    site.timings["offline"] = time.perf_counter() - started
    return summary
