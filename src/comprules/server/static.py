"""The static site over HTTP: compression, validators, caching, no listings, a 404 page.

* ``GET``/``HEAD`` only (any other method: 405 with ``Allow: GET, HEAD``); a folder is
  answered by its ``index.html`` (a folder without one is 404: no listings; a
  language's folder, ``/en/``, redirects to its latest edition, ``/en/latest/``),
  ``/en/latest`` redirects to ``/en/latest/``; every answer names its generation
  (``X-Comprules-Generation``).
* ``ETag`` (inode, size, modification time: a rebuilt file gets a new one) and
  ``Last-Modified``; ``If-None-Match`` / ``If-Modified-Since`` give 304.
* gzip for text (HTML, CSS, JS, JSON, XML, SVG) above 1 KB when the client accepts it
  (:func:`accepts_gzip`: q values read),
  compressed once per file version and kept (``Vary: Accept-Encoding``).
* ``Cache-Control``: a year, ``immutable``, for content-hashed files (a name carrying a
  hex hash of 8 digits or more, in ``static/``: ``site.1f3a9c0e2b.css``, the names pages
  link to, :func:`comprules.site.urls.static_names`); ``no-cache`` (revalidate, then 304) for the rest, so a rebuild shows at
  once.
* Paths (decoded, as the request's scope has them) are checked before the file system
  sees them: NUL bytes, backslashes, control characters and ``..`` are refused (400),
  overlong paths too (414), and the resolved file must lie inside the site; a name
  starting with a dot (``.fingerprint``, ``.stats.json``: the build's own records) is 404.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import re
import threading
from collections import OrderedDict
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from ..errors import UsageError, echo

#: Longest URL path served (bytes); longer is 414.
MAX_PATH = 1024
#: Files above this are sent as they are, streamed, without compression.
STREAM_ABOVE = 8 * 1024 * 1024
#: Compressed bodies kept in memory, in bytes.
GZIP_CACHE_BYTES = 64 * 1024 * 1024
_COMPRESSIBLE = ("text/", "application/json", "application/javascript", "application/xml", "image/svg+xml")
_HASHED = re.compile(r"[._-][0-9a-f]{8,}\.[a-z0-9_]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".graphml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",  # the web app manifest (comprules.site.offline)
}

NOT_FOUND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · comprules</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em}</style></head>
<body><h1>Not found</h1><p>There is no page at <code>{path}</code>.</p>
<p><a href="/index.html">Editions</a> · <a href="/search.html">Search</a> · <a href="/api/v1/docs">API</a></p>
</body></html>
"""


class _GzipCache:
    def __init__(self, budget: int):
        self.budget, self.used = budget, 0
        self.items: OrderedDict[tuple, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple, make) -> bytes:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        body = make()
        with self.lock:
            if key not in self.items and len(body) < self.budget // 4:
                self.items[key] = body
                self.used += len(body)
                while self.used > self.budget:
                    self.used -= len(self.items.popitem(last=False)[1])
        return body


_gzip = _GzipCache(GZIP_CACHE_BYTES)


def _home_page(site: Path) -> str:
    """The text of the site's home page ('' when it has none)."""
    try:
        return (site / "index.html").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def html_error(status: int, message: str, path: str = "", headers: dict | None = None) -> HTMLResponse:
    """An HTML error page (404 uses the site's ``404.html`` look when there is none)."""
    from html import escape

    if status == 404:
        return HTMLResponse(NOT_FOUND_PAGE.replace("{path}", escape(echo(path))), status_code=404, headers=headers)
    body = f"<!doctype html><meta charset=utf-8><title>{status}</title><h1>{status}</h1><p>{escape(message)}</p>\n"
    return HTMLResponse(body, status_code=status, headers=headers)


#: The methods the site answers; any other is 405 with this ``Allow`` (RFC 9110 §15.5.6).
ALLOW = "GET, HEAD"


def site_response(request: Request, holder) -> Response:
    """The answer of the static site to ``request`` (any method, any path), from the
    generation ``holder`` (:class:`~comprules.server.state.Holder`) holds, with its
    ``X-Comprules-Generation``.

    While a build removes the old generation's site (it swapped the new one in and is
    deleting the old folder), a file gone from the old one is answered from the new
    one, with the new generation's name; missing from both while the build runs, 503
    with ``Retry-After: 1``.
    """
    path = request.scope["path"]  # decoded: a tab, a line feed or a backslash as they are
    snap = holder.get()
    if request.method not in ("GET", "HEAD"):
        response: Response = html_error(405, "Only GET and HEAD.", headers={"Allow": ALLOW})
    else:
        response = serve_file(request, snap.site, path)
        if response.status_code == 404:
            swapped = holder.swapped_site(snap)
            if swapped is not None:
                fresh, generation = swapped
                again = serve_file(request, fresh, path)
                if again.status_code != 404:
                    again.headers["X-Comprules-Generation"] = generation
                    return again
                if holder.building():
                    response = html_error(
                        503, "The site is being rebuilt; try again in a moment.", headers={"Retry-After": "1"}
                    )
    response.headers["X-Comprules-Generation"] = snap.generation
    return response


#: The zip of one edition (``comprules.site.urls.download_file``).
_ZIP_PATH = re.compile(r"/download/([a-z]{2,3})/(\d{4}-\d\d-\d\d)\.zip")


async def edition_zip(request: Request, holder) -> Response | None:
    """``/download/{lang}/{date}.zip`` that the site does not hold: the zip of that edition,
    made by a worker process as ``comprules export EDITION --site`` makes it (the same
    bytes; the build writes only the latest edition's, :func:`comprules.site.bundle.site_downloads`),
    kept for the last 4 asked. ``None`` when the path is no such zip or the knowledge base
    has no such edition (the caller's 404 stands)."""
    m = _ZIP_PATH.fullmatch(request.scope["path"])
    snap = holder.get()
    if m is None or snap.site is None or request.method not in ("GET", "HEAD"):
        return None
    name = f"{m[1]}/{m[2]}"
    site = str(snap.site).replace("/proc/self/", f"/proc/{os.getpid()}/", 1)  # as the worker opens it
    try:
        snap.kb.info(name)  # an edition of this knowledge base
        data = await snap.job(("zip", name), holder.workers, "edition_zip", site, name, keep=4)
    except UsageError:  # no such edition, or the site or the index does not hold it
        return None
    headers = {
        "Content-Disposition": f'attachment; filename="comprules-{m[1]}-{m[2]}.zip"',
        "Cache-Control": "no-cache",
        "ETag": '"' + hashlib.sha256(data).hexdigest()[:32] + '"',  # the same bytes from any worker
        "X-Content-Type-Options": "nosniff",
        "X-Comprules-Generation": snap.generation,
    }
    if request.headers.get("if-none-match") == headers["ETag"]:
        return Response(status_code=304, headers=headers)
    return Response(
        b"" if request.method == "HEAD" else data,
        media_type="application/zip",
        headers=headers | {"Content-Length": str(len(data))},
    )


def accepts_gzip(header: str | None) -> bool:
    """Whether ``Accept-Encoding`` ``header`` accepts gzip: ``gzip`` (or ``x-gzip``) with
    a q value above 0, or else ``*`` with one (RFC 9110 §12.5.3: ``q=0`` is "not
    acceptable"; a coding not listed is not acceptable unless ``*`` is)."""
    if not header:
        return False
    found: dict[str, float] = {}
    for item in header.split(","):
        coding, *params = [part.strip() for part in item.split(";")]
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        coding = coding.lower()
        if coding:
            found[coding] = max(q, found.get(coding, -1.0))
    for name in ("gzip", "x-gzip"):
        if name in found:
            return found[name] > 0
    return found.get("*", 0.0) > 0


def safe_relative(path: str) -> str | None:
    """The site-relative path of URL path ``path``, or ``None`` when it is not acceptable
    (NUL, backslash, ``..``, a control character)."""
    if "\x00" in path or "\\" in path or any(ord(c) < 32 for c in path):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def _content_type(name: str) -> str:
    if os.path.basename(name) == "feed.xml":  # the site's Atom feeds (comprules.site.feed)
        return "application/atom+xml"
    ext = os.path.splitext(name)[1].lower()
    return TYPES.get(ext) or mimetypes.guess_type(name)[0] or "application/octet-stream"


def _not_modified(request: Request, etag: str, mtime: float) -> bool:
    match = request.headers.get("if-none-match")
    if match is not None:
        tags = [t.strip().removeprefix("W/") for t in match.split(",")]
        return "*" in tags or etag in tags
    since = request.headers.get("if-modified-since")
    if since:
        try:
            return int(mtime) <= parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
    return False


def serve_file(request: Request, site: Path | None, url_path: str) -> Response:
    """The response for ``url_path`` (the request's decoded path, with its leading ``/``)
    from ``site``."""
    if len(url_path.encode("utf-8", "surrogatepass")) > MAX_PATH:
        return html_error(414, "The address is too long.")
    rel = safe_relative(url_path)
    if rel is None:
        return html_error(400, "Bad path.")
    if site is None or any(part.startswith(".") for part in rel.split("/")):
        return html_error(404, "", url_path)  # no dotfile: the build's own records (.fingerprint…)
    target = site / rel if rel else site
    try:
        st = os.stat(target)
    except (OSError, ValueError):
        return html_error(404, "", url_path)
    if os.path.isdir(target):
        query = f"?{request.url.query}" if request.url.query else ""
        index = target / "index.html"
        if not os.path.isfile(index):
            # a language's folder (/en/) holds its editions: its latest one, else nothing to show
            if rel and os.path.isfile(target / "latest" / "index.html"):
                return RedirectResponse("/" + quote(rel.rstrip("/")) + "/latest/" + query, status_code=307)
            # a language of undated documents (/fr/): the home page's list of them
            anchor = f"{rel.strip('/')}-documents"
            if rel and "/" not in rel.strip("/") and f'id="{anchor}"' in _home_page(site):
                return RedirectResponse("/#" + quote(anchor), status_code=307)
            return html_error(404, "", url_path)
        if rel and not url_path.endswith("/"):
            # from the site's own path, never the request's: "//en" is "/en/", not the host "en"
            return RedirectResponse("/" + quote(rel) + "/" + query, status_code=307)
        target = index
        try:
            st = os.stat(target)
        except OSError:
            return html_error(404, "", url_path)
    real, base = os.path.realpath(target), os.path.realpath(site)
    if not real.startswith(base + os.sep) or not os.path.isfile(real):
        return html_error(404, "", url_path)
    ctype = _content_type(real)
    etag = f'"{st.st_ino:x}-{st.st_size:x}-{st.st_mtime_ns:x}"'
    headers = {
        "Last-Modified": formatdate(st.st_mtime, usegmt=True),
        "Cache-Control": IMMUTABLE if rel.startswith("static/") and _HASHED.search(rel) else "no-cache",
        "X-Content-Type-Options": "nosniff",
    }
    zipped = _ZIP_PATH.fullmatch(url_path) if url_path.endswith(".zip") else None
    if zipped:  # an edition's zip: named as the ones made when asked (:func:`edition_zip`)
        headers["Content-Disposition"] = f'attachment; filename="comprules-{zipped[1]}-{zipped[2]}.zip"'
    compressible = ctype.startswith(_COMPRESSIBLE) and 1024 <= st.st_size <= STREAM_ABOVE
    if compressible:
        headers["Vary"] = "Accept-Encoding"
    gz = compressible and accepts_gzip(request.headers.get("accept-encoding"))
    if gz:
        etag = etag[:-1] + '-gz"'
    headers["ETag"] = etag
    if _not_modified(request, etag, st.st_mtime):
        return Response(status_code=304, headers=headers)
    if st.st_size > STREAM_ABOVE:
        return FileResponse(real, media_type=ctype, headers=headers, stat_result=st)
    try:
        if gz:

            def make() -> bytes:
                with open(real, "rb") as fh:
                    return gzip.compress(fh.read(), compresslevel=6, mtime=0)

            body = _gzip.get((real, etag), make)
            headers["Content-Encoding"] = "gzip"
        else:
            with open(real, "rb") as fh:
                body = fh.read()
    except OSError:
        return html_error(404, "", url_path)
    if request.method == "HEAD":
        headers["Content-Length"] = str(len(body))
        return Response(status_code=200, headers=headers, media_type=ctype)
    return Response(body, headers=headers, media_type=ctype)
