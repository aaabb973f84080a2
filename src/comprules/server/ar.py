"""The Academy Ruins routes under ``/ar`` (``../shared/reference/academyruins-api.md``).

Every route, parameter, status code and error body of the contract's CR part; a client
given the base URL ``http://HOST:PORT/ar`` works unchanged. Beyond it, every route takes
``edition`` (any name ``comprules editions`` lists; default the latest) and ``lang``
(default ``en``). The answers are computed by :mod:`comprules.academy`; this module only
routes, validates and shapes errors:

* validation → 422 ``{"detail": "<message>"}`` (a string, as Academy Ruins);
* unknown path → 404 ``{"detail": "Not Found"}``; ``/`` → 400;
* an unexpected error → 500 ``{"detail", "error_id"}``, never a traceback.
"""

from __future__ import annotations

import logging
import uuid
from typing import Literal

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse, Response

from .. import academy
from ..errors import ECHO_LIMIT, NotFound, UsageError, echo
from ..store.read import StoredRules
from .responses import JSON, error, raw_json

log = logging.getLogger("comprules.server")

#: The root's body, word for word as Academy Ruins answers it (``src/main.py``): a client
#: may compare it. What comprules adds is in the header :data:`ROOT_NOTE`.
ROOT_MESSAGE = (
    "This is the root of the Academy Ruins API. You can find the documentation at https://api.academyruins.com/docs"
)
ROOT_NOTE = "served by comprules; this server's routes: /ar/openapi.json and /api/v1/docs"

EditionQ = Query(
    None,
    description="edition (any name `comprules editions` lists: date, set name or code); default the latest",
    max_length=200,
)
#: A rule number as a path segment (``702.19b``; ``R702019b`` and the like are longer).
RuleP = PathParam(..., max_length=40)
LangQ = Query(None, description="language of the edition (en, fr, zh…); default en", max_length=16)


class _Unprocessable(Exception):
    def __init__(self, message: str):
        self.message = message


def create(holder) -> FastAPI:
    """The ``/ar`` application over ``holder`` (:class:`comprules.server.state.Holder`)."""
    app = FastAPI(
        title="Academy Ruins API (comprules)",
        version="0.7.0-compatible",
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"], max_age=600)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        # Academy Ruins answers str(exc), which is the list of pydantic errors
        keys = ("type", "loc", "msg", "input", "ctx")
        errors = exc.errors()
        share = max(20, ECHO_LIMIT // max(1, len(errors)))  # at most ~200 characters of input in all
        shown = [
            {k: echo(e[k], share) if k == "input" and isinstance(e[k], str) else e[k] for k in keys if k in e}
            for e in errors
        ]
        return error(422, str(shown))

    @app.exception_handler(_Unprocessable)
    async def _unprocessable(request: Request, exc: _Unprocessable):
        return error(422, exc.message)

    @app.exception_handler(UsageError)
    async def _usage(request: Request, exc: UsageError):
        return error(422, said(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        return JSON({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        error_id = str(uuid.uuid4())
        if isinstance(exc, OSError) and holder.building():
            return JSON(
                {"detail": "the knowledge base is being rebuilt; try again in a moment", "error_id": error_id},
                status_code=503,
                headers={"Retry-After": "1"},
            )
        log.error("error %s on %s: %s: %s", error_id, request.url.path, type(exc).__name__, exc)
        return JSON({"detail": "Internal server error", "error_id": error_id}, status_code=500)

    def said(exc: Exception) -> str:
        """The library's one line, without the server's folder (no need to tell a client)."""
        return str(exc).replace(f" in {holder.root}", "").replace(str(holder.root), "the knowledge base")

    def name_of(snap, edition: str | None, lang: str | None) -> str:
        """The full name of the edition asked (default: the latest English); 422 else."""
        try:
            return snap.kb.resolve_name(edition, lang=lang or ("en" if edition is None else None))
        except UsageError as exc:
            raise _Unprocessable(said(exc)) from None

    async def whole(snap, what: str, name: str) -> bytes:
        """A whole edition's answer (``cr``, ``keywords``, ``glossary``, ``unofficial``, ``toc``, ``file``),
        computed by a worker process once per generation."""
        return await snap.job((f"ar/{what}", name), holder.workers, "ar_edition", what, name, keep=8)

    def rules_of(snap, edition: str | None, lang: str | None, number: str | None = None) -> StoredRules:
        """The edition read rule by rule from the database, for a route about one rule:
        a few indexed queries (0.1 ms), answered on the event loop."""
        return StoredRules(snap.kb.store, holding_rule(snap, edition, lang, number))

    def holding_rule(snap, edition: str | None, lang: str | None, number: str | None) -> str:
        """:func:`name_of`, but for a language of undated documents only (``lang=fr``,
        ``fr/latest``) the newest document holding rule ``number``, as ``/api/v1/rules``
        answers (docs/server.md): each French document holds a few rules."""
        if number is not None and snap.kb.undated(edition, lang) is not None:
            try:
                return snap.kb.rule_edition(edition, number, lang=lang)
            except (UsageError, NotFound):  # not a number, or held by none: the route says no such rule
                pass
        return name_of(snap, edition, lang)

    def glossary_of(snap, edition: str | None, lang: str | None, term: str | None = None) -> str:
        """:func:`name_of`, but for a language of undated documents only the newest document
        whose glossary holds ``term`` (else any glossary), as ``/api/v1/glossary`` answers."""
        if snap.kb.undated(edition, lang) is not None:
            try:
                return snap.kb.glossary_edition(edition, lang=lang, term=term, nearest=True)
            except NotFound:  # no document of the language has a glossary: an empty one
                pass
        return name_of(snap, edition, lang)

    def language_of(snap, lang: str | None, edition: str | None = None) -> str:
        """The language a route over several editions answers in: ``lang``, else that of
        ``edition``, else English; 422 for a language the knowledge base does not hold."""
        try:
            snap.kb.check_language(lang)
            if lang is None and edition is not None:
                return snap.kb.info(snap.kb.resolve_name(edition)).lang
        except UsageError as exc:
            raise _Unprocessable(said(exc)) from None
        return lang or "en"

    def rule_missing(number: str) -> JSON:
        return error(404, "Rule not found", ruleNumber=number)

    @app.get("/", include_in_schema=False)
    async def root():
        return root_response()

    @app.get("/cr", summary="Every numbered rule of an edition")
    async def all_rules(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return raw_json(await whole(snap, "cr", name_of(snap, edition, lang)))

    @app.get("/cr/keywords", summary="Keyword abilities, keyword actions, ability words")
    async def keywords(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return raw_json(await whole(snap, "keywords", name_of(snap, edition, lang)))

    @app.get("/cr/glossary", summary="The glossary")
    async def glossary(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return raw_json(await whole(snap, "glossary", glossary_of(snap, edition, lang)))

    @app.get("/cr/unofficial-glossary", summary="Entries for the ability words of 207.2c, marked [Unofficial]")
    async def unofficial_glossary(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return raw_json(await whole(snap, "unofficial", glossary_of(snap, edition, lang)))

    @app.get("/cr/glossary/{term}", summary="One glossary entry (exact, or fuzzy)")
    async def glossary_entry(
        term: str = PathParam(..., max_length=200),
        fuzzy: bool = False,
        unofficial: bool = True,
        edition: str | None = EditionQ,
        lang: str | None = LangQ,
    ):
        snap = holder.get()
        name = glossary_of(snap, edition, lang, term)  # French: the newest document holding it
        try:
            return raw_json(
                await snap.job(
                    ("ar/glossary-entry", name, term, fuzzy, unofficial),
                    holder.workers,
                    "ar_glossary_entry",
                    name,
                    term,
                    fuzzy,
                    unofficial,
                    keep=256,
                )
            )
        except NotFound:
            return error(404, "Entry not found.")

    @app.get("/cr/toc", summary="Chapters and sections")
    async def toc(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return raw_json(await whole(snap, "toc", name_of(snap, edition, lang)))

    @app.get("/cr/example/{rule_id}", summary="The examples of one rule (all of them)")
    async def example(rule_id: str = RuleP, edition: str | None = EditionQ, lang: str | None = LangQ):
        ed = rules_of(holder.get(), edition, lang, rule_id)
        try:
            return JSON(academy.examples(ed, rule_id))
        except NotFound:
            return rule_missing(rule_id)

    @app.get("/cr/trace/{rule_id}", summary="How one rule came to read as it does, newest change first")
    async def trace(
        rule_id: str = RuleP, find_definition: bool = False, edition: str | None = EditionQ, lang: str | None = LangQ
    ):
        snap = holder.get()
        name = holding_rule(snap, edition, lang, rule_id)
        try:
            return raw_json(
                await snap.job(
                    ("ar/trace", name, rule_id, find_definition),
                    holder.workers,
                    "ar_trace",
                    rule_id,
                    name,
                    find_definition,
                    keep=256,
                )
            )
        except NotFound:
            return JSON({"detail": {"detail": "Rule not found.", "ruleNumber": rule_id}}, status_code=404)

    @app.get("/cr/{rule_id}", summary="One rule (find_definition: the keyword's defining subrule)")
    async def one_rule(
        rule_id: str = RuleP, find_definition: bool = False, edition: str | None = EditionQ, lang: str | None = LangQ
    ):
        ed = rules_of(holder.get(), edition, lang, rule_id)
        try:
            return JSON(academy.rule(ed, rule_id, find_definition=find_definition))
        except NotFound:
            return rule_missing(rule_id)

    async def raw_file(snap, name: str, format: str) -> Response:
        if format == "pdf":
            return error(404, "CR for this set not available in specified format")
        return Response(await whole(snap, "file", name), media_type="text/plain; charset=utf-8")

    @app.get("/file/cr", summary="The raw text of an edition (UTF-8, LF, no BOM)")
    async def file_latest(edition: str | None = EditionQ, lang: str | None = LangQ):
        snap = holder.get()
        return await raw_file(snap, name_of(snap, edition, lang), "txt")

    @app.get("/file/cr/{set_code}", summary="The raw text of the edition of a set")
    async def file_of_set(
        set_code: str = PathParam(..., min_length=3, max_length=5),
        format: Literal["txt", "pdf", "any"] = "any",
        lang: str | None = LangQ,
    ):
        snap = holder.get()
        try:
            name = academy.edition_of_code(snap.kb, set_code, language_of(snap, lang))
        except NotFound:
            return error(404, "CR not available for this set")
        return await raw_file(snap, name, format)

    @app.get("/diff/cr", summary="The changes between two editions (by set code)")
    async def diff(
        old: str | None = Query(None, min_length=3, max_length=5),
        new: str | None = Query(None, min_length=3, max_length=5),
        nav: bool = False,
        edition: str | None = EditionQ,
        lang: str | None = LangQ,
    ):
        snap = holder.get()
        if edition is not None:
            name_of(snap, edition, lang)
        language = language_of(snap, lang, edition)  # zh/2026-04-17: the Chinese editions' diffs
        try:
            body = await snap.job(
                ("ar/diff", old and old.lower(), new and new.lower(), nav, edition, language),
                holder.workers,
                "ar_diff",
                old,
                new,
                nav,
                language,
                edition,
                keep=16,
            )
        except NotFound:
            return error(404, "No diff between these set codes found", old=old, new=new)
        return raw_json(body)

    @app.get("/metadata/cr", summary="Editions: effective date, set code, set name, newest first")
    async def metadata(lang: str | None = LangQ):
        snap = holder.get()
        return JSON(academy.metadata(snap.kb, language_of(snap, lang)))

    @app.get("/metadata/cr-diffs", summary="Diffs between consecutive editions, newest first")
    async def diff_metadata(lang: str | None = LangQ):
        snap = holder.get()
        return JSON(academy.diff_metadata(snap.kb, language_of(snap, lang)))

    return app


def root_response() -> Response:
    """``GET /ar`` and ``/ar/``: the root's 400 with Academy Ruins' own words, CORS as
    the routes have it, and comprules' note in ``X-Comprules-Note``."""
    return JSON(
        {"detail": ROOT_MESSAGE},
        status_code=400,
        headers={"access-control-allow-origin": "*", "X-Comprules-Note": ROOT_NOTE},
    )


__all__ = ["create", "root_response", "PlainTextResponse"]
