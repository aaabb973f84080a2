"""``comprules serve``: the site, comprules' JSON API and the Academy Ruins API over HTTP.

Thin over the library (:mod:`comprules.kb`, :mod:`comprules.academy`,
:mod:`comprules.align.history`, :mod:`comprules.check`, :mod:`comprules.indexer`): routes,
validation, error shapes and caching only. ASGI (Starlette and FastAPI) under uvicorn.

* :func:`create_app` — the application of one knowledge base folder;
* :func:`run` — serve it (``comprules serve``), in one or several processes.

=================  =========================================================
``/``              the static site (``site/``), :mod:`.static`
``/api/v1/``       comprules' JSON API, :mod:`.api`; ``/api/v1/openapi.json``,
                   ``/api/v1/docs`` (works offline)
``/ar/``           the Academy Ruins routes, :mod:`.ar`
=================  =========================================================
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import socket
from pathlib import Path
from typing import Callable

from ..errors import UsageError

__all__ = ["create_app", "run", "app_from_env", "LOOPBACK"]

LOOPBACK = "127.0.0.1"
_ENV = "COMPRULES_SERVE_KB"
#: The supervisor's pid, for the worker processes of ``--workers N`` to watch.
_SUPERVISOR_ENV = "COMPRULES_SERVE_SUPERVISOR"


def create_app(kb_dir: Path, *, holder=None):
    """The ASGI application answering from the knowledge base at ``kb_dir``.

    ``/ar`` and ``/api/v1`` are routed to their applications; every other path (any
    method, any character: a tab or a line feed in a path is the site's 400, not a
    router's plain-text 404) to the static site. Raises :class:`UsageError` when
    ``kb_dir`` is not a knowledge base.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import RedirectResponse
    from starlette.routing import Mount, Route

    from . import api, ar, static
    from .guard import Guard, limit_threads
    from .state import Holder
    from .work import Workers, processes

    holder = holder or Holder(Path(kb_dir))
    holder.workers = Workers(processes())

    async def site(scope, receive, send):
        if scope["type"] != "http":  # a websocket: nothing here speaks it
            await send({"type": "websocket.close", "code": 1000})
            return
        request = Request(scope, receive)
        response = static.site_response(request, holder)
        if response.status_code == 404:  # an edition's zip, made when asked
            response = await static.edition_zip(request, holder) or response
        await response(scope, receive, send)

    async def ar_root(request: Request):
        return ar.root_response()

    async def api_root(request: Request):
        return RedirectResponse("/api/v1/docs", status_code=307)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        limit_threads()
        holder.workers.warm(holder.get())
        import gc

        # what the server holds from here on (the knowledge base's tables, the routes) is
        # left out of the garbage collections each request's objects start: 2026-12-06,
        # 50 clients, three runs each, cold rules 4,487–4,736 → 5,056–5,080 req/s, answers
        # kept 6,238–6,893 → 7,355–7,517
        gc.freeze()
        try:
            yield
        finally:
            holder.workers.close()

    app = Starlette(
        lifespan=lifespan,
        routes=[
            Route("/ar", ar_root),
            Route("/api/v1", api_root),
            Mount("/ar", app=Guard(ar.create(holder))),
            Mount("/api/v1", app=Guard(api.create(holder), head=True)),
        ],
    )
    app.router.default = site  # every other path, whatever its method or characters
    app.state.holder = holder
    return app


def app_from_env():
    """:func:`create_app` of ``$COMPRULES_SERVE_KB`` (each worker process of ``--workers N``),
    in a worker that ends with the supervisor that started it (killed with SIGKILL, the
    supervisor cannot stop it: :func:`comprules.children.die_with_parent`). The
    supervisor's pid comes from ``$COMPRULES_SERVE_SUPERVISOR``: a worker still importing
    when its supervisor was killed gets here with init as its parent, and ends at once."""
    from ..children import die_with_parent

    supervisor = os.environ.get(_SUPERVISOR_ENV, "")
    die_with_parent(int(supervisor) if supervisor.isdigit() else None)
    return create_app(Path(os.environ[_ENV]))


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def run(
    kb_dir: Path,
    *,
    host: str = LOOPBACK,
    port: int = 8000,
    workers: int = 1,
    verbose: bool = False,
    say: Callable[[str], None] = print,
) -> None:
    """Serve the knowledge base at ``kb_dir`` on ``host:port`` until interrupted.

    Anything but a loopback ``host`` gets one warning line. Raises :class:`UsageError`
    when ``kb_dir`` is not a knowledge base or the address cannot be listened on.
    """
    import uvicorn

    from .state import Snapshot

    kb_dir = Path(kb_dir).resolve()
    Snapshot(kb_dir).close()  # refuses a folder that is not a knowledge base, in one line
    if not _is_loopback(host):
        say(f"warning: listening on {host}: anyone who can reach this machine on port {port} can read the server")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    say(f"serving {kb_dir} on http://{shown}:{bound}/ (API: /api/v1/docs, Academy Ruins: /ar; Ctrl-C to stop)")
    options = dict(
        # stderr is the serving line and "interrupted" (docs/server.md): uvicorn's warnings,
        # such as one line per request it cannot read (answered in the APIs' shape), only with --verbose
        log_level="info" if verbose else "error",
        access_log=verbose,
        server_header=False,
        http=_http_impl(),
        loop=_loop_impl(),
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=16 * 1024,
    )
    from .work import processes

    os.environ.setdefault("COMPRULES_SERVE_PROCESSES", str(processes(workers)))  # cores shared among workers
    if workers > 1:
        os.environ[_ENV] = str(kb_dir)
        os.environ[_SUPERVISOR_ENV] = str(os.getpid())
        config = uvicorn.Config("comprules.server:app_from_env", factory=True, workers=workers, **options)
        _serve_workers(config, sock)
    else:
        config = uvicorn.Config(create_app(kb_dir), **options)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            _stop_resource_tracker()  # the worker pool's (comprules.server.work)
    sock.close()


def _serve_workers(config, sock: socket.socket) -> None:
    """uvicorn's supervisor of ``config.workers`` processes on ``sock``, ended as one
    process is: SIGINT or SIGTERM raise :class:`~comprules.errors.Interrupted` once the
    workers have stopped (the command line's one line, exit 130 or 143), and the
    resource tracker multiprocessing started for them is stopped and reaped (none is
    left behind, defunct)."""
    from uvicorn.supervisors import Multiprocess

    from ..errors import Interrupted

    class Supervisor(Multiprocess):
        stopped_by: int | None = None

        def handle_int(self) -> None:
            self.stopped_by = self.stopped_by or signal.SIGINT
            super().handle_int()

        def handle_term(self) -> None:
            self.stopped_by = self.stopped_by or signal.SIGTERM
            super().handle_term()

    from uvicorn.supervisors.multiprocess import SIGNALS

    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    supervisor = Supervisor(config, sockets=[sock])  # queues the signals it handles
    try:
        supervisor.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _stop_resource_tracker()
    if supervisor.stopped_by is not None:
        raise Interrupted(supervisor.stopped_by)


def _stop_resource_tracker() -> None:
    """Stop multiprocessing's resource tracker of this process and wait for it (it is
    a child of ours; left running, it ends after us and stays a zombie where nothing
    reaps orphans). Its ``_stop`` is private: where it is missing, nothing is done."""
    try:
        from multiprocessing import resource_tracker

        stop = getattr(resource_tracker._resource_tracker, "_stop", None)
        if stop is not None:
            stop()
    except Exception:  # noqa: BLE001 - a tracker that cannot be stopped ends with us
        pass


def _http_impl() -> str:
    """uvicorn's ``http`` setting: its protocol with the server's 400 answer
    (:mod:`.protocol`), over httptools where it is installed."""
    from . import protocol

    try:
        import httptools  # noqa: F401
    except ImportError:
        return protocol.H11
    return protocol.HTTPTOOLS


def _loop_impl() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"
