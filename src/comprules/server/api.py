"""comprules' own JSON API, ``/api/v1/``: the command line's ``--json`` over HTTP.

Each route calls the library function the command calls and answers the same JSON
(``GET /api/v1/rules/702.37a?edition=BLB`` is ``comprules show 702.37a --edition BLB
--json``). Every route takes ``edition`` and ``lang``. Errors have one shape,
``{"detail": "<one line>"}``: 400 bad parameter (an unknown edition names the nearest
ones), 404 nothing found, 422 malformed parameter, 503 while a rebuild removes what an
answer needed.
"""

from __future__ import annotations

import functools
import logging
import os
from importlib import resources

from fastapi import FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import HTMLResponse, RedirectResponse

from .. import kb as kb_module
from ..errors import NotFound, UsageError
from ..kb import language_code
from .responses import JSON, encoded, error, raw_json

log = logging.getLogger("comprules.server")

EditionQ = Query(
    None,
    description="edition: en/2024-07-30, 2024-07-30, the file date 2024-08-02, BLB, "
    "Bloomburrow, a day (the edition in force), latest",
    max_length=200,
)
LangQ = Query(None, description="language (en, fr, zh, …)", max_length=16)
#: Search answers kept per knowledge base generation (a rebuild starts afresh): bots and
#: readers ask the same questions again, and an answer does not change until a rebuild.
#: ``$COMPRULES_SEARCH_CACHE`` sets the number (0: none; benchmarks/serve.py measures both).
SEARCHES_KEPT = 2048


@functools.lru_cache(maxsize=1)
def _docs_page() -> str:
    """The API's page (``docs.html``) with the site's icon inline: a browser asked for
    /favicon.ico, a 404 in its console, and a knowledge base may have no site/ to serve one."""
    from urllib.parse import quote

    page = resources.files("comprules.server").joinpath("docs.html").read_text(encoding="utf-8")
    icon = resources.files("comprules.site").joinpath("static", "favicon.svg").read_text(encoding="utf-8")
    link = f'<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,{quote(icon.strip())}">'
    return page.replace("</title>", "</title>\n" + link, 1)


def create(holder) -> FastAPI:
    """The ``/api/v1`` application over ``holder`` (:class:`comprules.server.state.Holder`)."""
    try:
        searches_kept = int(os.environ.get("COMPRULES_SEARCH_CACHE", SEARCHES_KEPT))
    except ValueError:
        searches_kept = SEARCHES_KEPT
    app = FastAPI(
        title="comprules API",
        version="1",
        description="The Comprehensive Rules knowledge base: every edition and language built.",
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET"], allow_headers=["*"], max_age=600)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "query")
        return error(422, f"{where}: {first.get('msg', 'invalid')}" if where else str(exc))

    def said(exc: Exception) -> str:
        """The library's one line, without the server's folder (no need to tell a client)."""
        return str(exc).replace(f" in {holder.root}", "").replace(str(holder.root), "the knowledge base")

    @app.exception_handler(UsageError)
    async def _usage(request: Request, exc: UsageError):
        return error(400, said(exc))

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound):
        return error(404, said(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        return JSON({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        if isinstance(exc, OSError) and holder.building():
            return JSON(
                {"detail": "the knowledge base is being rebuilt; try again in a moment"},
                status_code=503,
                headers={"Retry-After": "1"},
            )
        log.error("error on %s: %s: %s", request.url.path, type(exc).__name__, exc)
        return error(500, f"internal error ({type(exc).__name__})")

    @app.get("/", include_in_schema=False)
    async def root():
        return RedirectResponse("/api/v1/docs", status_code=307)

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return HTMLResponse(_docs_page())

    @app.get("/editions", summary="The editions built (comprules editions --json)")
    async def editions(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        lang = language_code(lang)  # ZH as zh, as the routes that resolve an edition
        snap.kb.check_language(lang)
        rows = snap.kb.editions
        if edition is not None:
            name = snap.kb.resolve_name(edition, lang=lang)
            rows = [e for e in rows if e.name == name]
        elif lang is not None:
            rows = [e for e in rows if e.lang == lang]
        return JSON({"editions": [e.to_json() for e in rows]})

    @app.get(
        "/rules/{number}", summary="One rule with subrules, examples, references, cited by (comprules show --json)"
    )
    async def rule(number: str = Path(..., max_length=40), edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        kb = snap.kb
        # a language of undated documents (fr/latest, or lang=fr): kb.show picks the document holding it
        undated = kb.undated(edition, lang)
        name = undated or kb.resolve_name(edition, lang=lang)
        key = ("show", name, number)

        def compute() -> bytes:
            if not undated:  # the build stored what show answers for each rule and subrule
                stored = kb.store.rule_view(name, kb_module.normalize_number(number))
                if stored is not None:
                    return stored
            return encoded(kb.show(None if undated else name, number, lang=undated).to_json())

        # A rule or subrule is one look-up of the build's rule views (a few indexed queries
        # without them): answered here, on the event loop, where a thread's hand-over would
        # cost more. A section or a chapter (up to 200 subrules with their examples, a few
        # ms) in a thread.
        if "." in kb_module.normalize_number(number):
            return raw_json(snap.remember(key, compute, keep=256))
        return raw_json(await snap.answer(key, compute, keep=256))

    @app.get("/search", summary="Ranked search (comprules search --json)")
    async def search(
        q: str = Query(..., min_length=1, max_length=500, description="the query"),
        edition: str | None = EditionQ,
        all_editions: bool = False,
        lang: str | None = LangQ,
        section: str | None = Query(None, max_length=8),
        kind: str | None = Query(None, max_length=16),
        limit: int = Query(10, ge=1, le=200),
    ):
        snap = holder.get()
        lang = language_code(lang)  # ZH as zh, as the routes that resolve an edition
        if lang != "any":
            snap.kb.check_language(lang)
        key = ("search", q, edition, all_editions, lang, section, kind, limit)
        options = dict(edition=edition, all_editions=all_editions, lang=lang, section=section, kind=kind, limit=limit)
        return raw_json(await snap.job(key, holder.workers, "search", q, options, keep=searches_kept))

    @app.get("/diff", summary="Where every rule went between two editions (comprules diff --json)")
    async def diff(
        old: str | None = Query(None, max_length=200, description="default: the edition before `new`"),
        new: str | None = Query(None, max_length=200, description="default: `edition`, or the latest"),
        edition: str | None = EditionQ,
        lang: str | None = LangQ,
        section: str | None = Query(None, max_length=8),
    ):
        snap = holder.get()
        kb = snap.kb
        new_name = kb.resolve_name(new or edition, lang=lang)
        if old is None:
            info = kb.info(new_name)
            chain = sorted(
                (e for e in kb.editions if e.lang == info.lang and e.kind == info.kind and e.effective),
                key=lambda e: e.effective,
            )
            names = [e.name for e in chain]
            if new_name not in names or names.index(new_name) == 0:
                raise UsageError(f"no edition before {new_name} to compare with; give old")
            old_name = names[names.index(new_name) - 1]
        else:
            old_name = kb.resolve_name(old, lang=lang)
        return raw_json(
            await snap.job(
                ("diff", old_name, new_name, section), holder.workers, "diff", old_name, new_name, section, keep=16
            )
        )

    @app.get("/history/{number}", summary="One rule's lineage across every edition (comprules history --json)")
    async def history(number: str = Path(..., max_length=40), edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        number = kb_module.normalize_number(number)
        name = snap.kb.rule_edition(edition, number, lang=lang)  # fr/latest: the document holding it
        follow = edition is None  # no edition asked: 502.26a is Morph's lineage, as `comprules history 502.26a`
        return raw_json(
            await snap.job(("history", name, number, follow), holder.workers, "history", number, name, follow, keep=256)
        )

    @app.get("/glossary", summary="Every glossary entry of an edition")
    async def glossary(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        name = snap.kb.glossary_edition(edition, lang=lang)  # French: the newest document with a glossary
        return raw_json(await snap.job(("glossary", name), holder.workers, "glossary", name, keep=8))

    @app.get("/glossary/{term}", summary="One glossary entry, by headword, alias or slug")
    def glossary_entry(term: str = Path(..., max_length=200), edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        name = snap.kb.glossary_edition(edition, lang=lang, term=term)  # French: the newest document holding it
        return JSON(kb_module.glossary_entry((snap.kb, name), term))

    @app.get("/check", summary="Lint one edition (comprules check --edition E --json)")
    async def check(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        name = snap.kb.resolve_name(edition, lang=lang)
        return raw_json(await snap.job(("check", name), holder.workers, "check", name))

    from .cards import register as register_cards  # the card routes (issue 25)

    register_cards(app, holder, EditionQ, LangQ)
    return app
