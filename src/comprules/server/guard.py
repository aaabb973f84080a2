"""What every JSON answer of the server goes through: a deadline, bounds, validators, gzip.

:class:`Guard` wraps the ``/api/v1`` and ``/ar`` applications (ASGI middleware):

* **a deadline** (:data:`DEADLINE`, 5 s; ``$COMPRULES_DEADLINE`` sets another): an answer
  not ready by then is 503 ``{"detail": …}`` with ``Retry-After``; the work goes on in its
  thread and its answer is kept for the next request (the routes remember what they
  computed), so a retry is answered at once;
* **one rule for empty parameters**: ``?lang=`` is as if ``lang`` were not given, on every
  route (a form's blank field);
* **bounds**: a query string over :data:`MAX_QUERY` bytes, or one parameter over
  :data:`MAX_VALUE` characters, is refused (414, 422) before a route sees it, in the
  application's error shape, echoing none of it;
* **relative redirects**: a ``Location`` never names a host (Starlette's trailing-slash
  redirect copies the request's ``Host`` header);
* **validators**: every 200 answer carries a strong ``ETag`` (a hash of its body; the
  same answer, the same tag, from any worker) and ``Cache-Control: no-cache``; a request
  whose ``If-None-Match`` names it gets 304 without a body;
* **gzip** of JSON and text above 1 KB when the client accepts it
  (:func:`comprules.server.static.accepts_gzip`), compressed once per answer and kept;
* **HEAD** as ``GET`` without the body where the application has none of its own
  (``/api/v1``; ``/ar`` answers 405 as Academy Ruins does).

The routes' work runs in the thread pool (:func:`limit_threads` bounds it), never on the
event loop, so the static site and the other clients are answered meanwhile.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import os
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from .responses import encoded
from .static import _COMPRESSIBLE, GZIP_CACHE_BYTES, _GzipCache, accepts_gzip

#: Seconds an answer may take before it is cut off with 503 (``$COMPRULES_DEADLINE``).
DEADLINE = 5.0
#: Longest query string (bytes) and longest parameter value (characters) taken.
MAX_QUERY = 4096
MAX_VALUE = 500
#: Threads the routes' work runs on at most (the rest wait for one, within the deadline).
THREADS = 8
#: Bodies hashed and compressed in a thread rather than on the event loop above this size.
BIG = 256 * 1024

_gzip = _GzipCache(GZIP_CACHE_BYTES // 2)


def deadline() -> float:
    """:data:`DEADLINE`, or ``$COMPRULES_DEADLINE`` seconds when it is a positive number."""
    try:
        value = float(os.environ.get("COMPRULES_DEADLINE", DEADLINE))
    except ValueError:
        return DEADLINE
    return value if value > 0 else DEADLINE


def limit_threads(threads: int = THREADS) -> None:
    """Bound anyio's default thread pool (where Starlette runs the routes' work) to
    ``threads``; call from within the event loop (the application's start)."""
    import anyio.to_thread

    anyio.to_thread.current_default_thread_limiter().total_tokens = threads


def _relative(location: bytes) -> bytes:
    """A redirect's address without its scheme and host (Starlette writes the request's
    ``Host`` header there: ``Host: evil.example`` must not send a client elsewhere)."""
    parts = urlsplit(location.decode("latin-1"))
    if not parts.scheme and not parts.netloc and not parts.path.startswith("//"):
        return location
    path = "/" + parts.path.lstrip("/")  # "//host/x" would be another host's address
    return urlunsplit(("", "", path, parts.query, parts.fragment)).encode("latin-1")


def _etag(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or etag in tags


class Guard:
    """ASGI middleware over one JSON application; ``shape(message)`` is that
    application's error body (``{"detail": message}`` for both of ours)."""

    def __init__(self, app, *, shape: Callable[[str], dict] = lambda message: {"detail": message}, head: bool = False):
        self.app = app
        self.shape = shape
        self.deadline = deadline()
        #: ``HEAD`` answered as ``GET`` without its body (``/api/v1``: health checks use
        #: ``curl -I``; ``/ar`` keeps Academy Ruins' 405)
        self.head = head

    async def _answer(self, send, status: int, message: str, headers: list | None = None) -> None:
        body = encoded(self.shape(message))
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *(headers or []),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _refused(self, scope) -> tuple[int, str] | None:
        raw = scope.get("query_string", b"")
        if len(raw) > MAX_QUERY:
            return 414, f"the query string is over {MAX_QUERY} bytes"
        for name, value in parse_qsl(raw.decode("latin-1"), keep_blank_values=True):
            if len(value) > MAX_VALUE:
                shown = name if len(name) <= 40 else name[:40] + "…"
                return 422, f"{shown}: at most {MAX_VALUE} characters"
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self._refused(scope)
        if refused is not None:
            await self._answer(send, *refused)
            return
        head = self.head and scope["method"] == "HEAD"
        if head:
            scope = dict(scope, method="GET")
        raw = scope.get("query_string", b"")
        if raw:
            # an empty parameter is one not given (a form's blank field: ?lang=&q=trample)
            kept = b"&".join(p for p in raw.split(b"&") if p.partition(b"=")[2])
            if kept != raw:
                scope = dict(scope, query_string=kept)
        messages: list[dict] = []
        cut_off = False

        async def collect(message) -> None:
            if not cut_off:
                messages.append(message)

        task = asyncio.ensure_future(self.app(scope, receive, collect))
        try:
            await asyncio.wait_for(asyncio.shield(task), self.deadline)
        except asyncio.TimeoutError:
            cut_off = True
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # ends unseen
            await self._answer(
                send,
                503,
                f"the answer is taking over {self.deadline:g} s; it is kept when ready: try again in a moment",
                [(b"retry-after", b"5")],
            )
            return
        except asyncio.CancelledError:  # the client went away: the work goes on, unseen
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            raise
        error = task.exception()
        if error is not None and not any(m["type"] == "http.response.start" for m in messages):
            raise error  # not answered: the server's own 500
        # Answered (Starlette sends the application's 500 or 503, then raises again for the
        # log, which the handler already wrote): the error stops here, and the keep-alive
        # connection stays open for the client's next request.
        await self._send(scope, send, messages, head)

    async def _send(self, scope, send, messages: list[dict], head: bool = False) -> None:
        """Send the application's answer ``messages`` with the validators, gzip and a
        relative ``Location``; ``head``: a ``HEAD`` asked as ``GET``, sent without its body."""
        start = next((m for m in messages if m["type"] == "http.response.start"), None)
        if start is None:
            return
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        headers = [(k, _relative(v) if k.lower() == b"location" else v) for k, v in start.get("headers", [])]
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        names = {k.lower() for k, _ in headers}
        request = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        status = start["status"]
        ctype = next((v.decode("latin-1") for k, v in headers if k.lower() == b"content-type"), "")
        if status == 200 and scope["method"] == "GET" and b"etag" not in names:
            compress = ctype.startswith(_COMPRESSIBLE) and len(body) >= 1024 and b"content-encoding" not in names
            gz = compress and accepts_gzip(request.get("accept-encoding"))
            if len(body) > BIG:
                etag = await asyncio.to_thread(_etag, body)
            else:
                etag = _etag(body)
            if gz:
                etag = etag[:-1] + '-gz"'
            headers += [(b"etag", etag.encode()), (b"cache-control", b"no-cache")]
            if compress:
                headers.append((b"vary", b"Accept-Encoding"))
            if _matches(request.get("if-none-match"), etag):
                await send({"type": "http.response.start", "status": 304, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
            if gz:
                source = body

                def make() -> bytes:
                    return gzip.compress(source, compresslevel=6, mtime=0)

                if len(body) > BIG:
                    body = await asyncio.to_thread(_gzip.get, (etag,), make)
                else:
                    body = _gzip.get((etag,), make)
                headers.append((b"content-encoding", b"gzip"))
        if scope["method"] == "HEAD":  # the application's own length, no body
            headers = start.get("headers", [])
            body = b""
        else:
            headers.append((b"content-length", str(len(body)).encode()))
            if head:
                body = b""
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
