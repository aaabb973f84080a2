"""``comprules serve``: the built site over HTTP on 127.0.0.1, for the search page.

Every page works from disk except search: Pagefind loads its index with ``fetch``,
which browsers refuse to pages opened from ``file://``. This small server (the
standard library's, bound to the loopback address only) serves the site folder with
the content types Pagefind needs and no caching, so a rebuild shows at once.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

from ..errors import UsageError

HOST = "127.0.0.1"


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json",
        ".wasm": "application/wasm", ".pagefind": "application/octet-stream",
        ".pf_meta": "application/octet-stream", ".pf_index": "application/octet-stream",
        ".pf_fragment": "application/octet-stream", ".pf_filter": "application/octet-stream",
        ".graphml": "application/xml", ".html": "text/html; charset=utf-8",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the stdlib's name
        if self.server.verbose:  # type: ignore[attr-defined]
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server of one site folder on 127.0.0.1."""

    daemon_threads = True
    verbose = False


def make_server(site_dir: Path, port: int = 8000, *, verbose: bool = False) -> SiteServer:
    """A server of ``site_dir`` on ``127.0.0.1:port`` (``port`` 0: any free port).

    Raises :class:`UsageError` when the folder holds no site or the port is taken.
    """
    site_dir = Path(site_dir)
    if not (site_dir / "index.html").is_file():
        raise UsageError(f"no site at {site_dir} (run: comprules build SOURCE... first)")
    handler = functools.partial(_Handler, directory=str(site_dir))
    try:
        server = SiteServer((HOST, port), handler)
    except OSError as exc:
        raise UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None
    server.verbose = verbose
    return server


def serve_in_thread(site_dir: Path, port: int = 0) -> tuple[SiteServer, str]:
    """Start a server in a background thread (tests); returns it and its base URL."""
    server = make_server(site_dir, port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://{HOST}:{server.server_address[1]}/"
