"""The static site over HTTP: compression, validators, caching, no listings, a 404 page.

* ``GET``/``HEAD`` only; a folder is answered by its ``index.html`` (a folder without
  one is 404: no listings), ``/en/latest`` redirects to ``/en/latest/``.
* ``ETag`` (inode, size, modification time: a rebuilt file gets a new one) and
  ``Last-Modified``; ``If-None-Match`` / ``If-Modified-Since`` give 304.
* gzip for text (HTML, CSS, JS, JSON, XML, SVG) above 1 KB when the client accepts it,
  compressed once per file version and kept (``Vary: Accept-Encoding``).
* ``Cache-Control``: a year, ``immutable``, for content-hashed files (a name carrying a
  hex hash of 8 digits or more, in ``static/``: ``site.1f3a9c0e2b.css``, the names pages
  link to, :func:`comprules.site.urls.static_names`); ``no-cache`` (revalidate, then 304) for the rest, so a rebuild shows at
  once.
* Paths are checked before the file system sees them: NUL bytes, backslashes, ``..``
  and overlong paths are refused (400), and the resolved file must lie inside the site.
"""

from __future__ import annotations

import gzip
import mimetypes
import os
import re
import threading
from collections import OrderedDict
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

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
}

NOT_FOUND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · comprules</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
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


def html_error(status: int, message: str, path: str = "") -> HTMLResponse:
    """An HTML error page (404 uses the site's ``404.html`` look when there is none)."""
    from html import escape

    if status == 404:
        return HTMLResponse(NOT_FOUND_PAGE.replace("{path}", escape(path)), status_code=404)
    body = f"<!doctype html><meta charset=utf-8><title>{status}</title><h1>{status}</h1><p>{escape(message)}</p>\n"
    return HTMLResponse(body, status_code=status)


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
    """The response for ``url_path`` (as in the request, with its leading ``/``) from ``site``."""
    if len(url_path.encode("utf-8", "surrogatepass")) > MAX_PATH:
        return html_error(414, "The address is too long.")
    rel = safe_relative(url_path)
    if rel is None:
        return html_error(400, "Bad path.")
    if site is None:
        return html_error(404, "", url_path)
    target = site / rel if rel else site
    try:
        st = os.stat(target)
    except (OSError, ValueError):
        return html_error(404, "", url_path)
    if os.path.isdir(target):
        if rel and not url_path.endswith("/"):
            query = request.url.query
            return RedirectResponse(url_path + "/" + (f"?{query}" if query else ""), status_code=307)
        target = target / "index.html"
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
    compressible = ctype.startswith(_COMPRESSIBLE) and 1024 <= st.st_size <= STREAM_ABOVE
    if compressible:
        headers["Vary"] = "Accept-Encoding"
    gz = compressible and "gzip" in request.headers.get("accept-encoding", "")
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
