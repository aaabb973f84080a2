"""The card routes of ``/api/v1`` (issue 25): ``comprules card --json`` over HTTP, and card
names for the site's search page and go-to box.

``GET /api/v1/cards/{name}?edition=E`` (or ``lang=L``: its latest edition) answers the shape of ``comprules card NAME --json``
(docs/json.md); ``GET /api/v1/cards?q=TEXT&limit=N`` (``edition`` and ``lang`` are checked, as on every
route, and change nothing: names are the same in every edition) the cards nearest to
TEXT: ``{"query", "cards": [{"name", "type_line", "match", "score"}]}``. A knowledge base
built without ``--cards`` answers 404 with the one line that says how to build it.
"""

from __future__ import annotations

from pathlib import PurePath

from fastapi import FastAPI, Path, Query

from ..errors import NotFound, UsageError
from .responses import JSON, encoded, raw_json


def register(app: FastAPI, holder, edition_query, lang_query) -> None:
    """Add the card routes to the ``/api/v1`` application ``app``."""

    def index(snap):
        from ..cards.view import index_of

        try:
            return index_of(snap.kb.data)
        except UsageError as exc:  # no path of the server's (its data folder is pinned as /proc/self/fd/N)
            said = str(exc).replace(f" in {PurePath(snap.kb.data).parent}", "").replace(f" in {holder.root}", "")
            raise NotFound(said) from None

    # {name:path}: a split, flip or double-faced card is asked by its whole name, "Fire // Ice"
    @app.get("/cards/{name:path}", summary="A card, the spans of its text that call on rules, and those rules")
    def card(name: str = Path(..., max_length=200), edition: str | None = edition_query, lang: str | None = lang_query):
        from ..cards import store
        from ..cards.view import card_json

        snap = holder.get()
        if edition is None and lang is not None:
            snap.kb.check_language(lang)  # an unknown language is 400, as on every route
        found = index(snap)
        match = found.find(name)
        if edition is None:  # the latest edition of the language asked (English by default)
            want = lang or "en"
            held = [e for e in store.editions(found.db) if e.startswith(f"{want}/")]
            if not held:
                raise UsageError(f"the card data holds no rules of language {want!r}; give edition")
            name_ed = held[-1]
        else:
            name_ed = snap.kb.resolve_name(edition, lang=lang)
        return raw_json(
            snap.remember(
                ("card", match.card, name_ed, match.how), lambda: encoded(card_json(found, match, name_ed)), keep=256
            )
        )

    @app.get("/cards", summary="The cards whose names are nearest to q (for the search page and the go-to box)")
    def cards(
        q: str = Query(..., min_length=1, max_length=200, description="a card name, or part of one"),
        limit: int = Query(10, ge=1, le=50),
        edition: str | None = edition_query,
        lang: str | None = lang_query,
    ):
        snap = holder.get()
        if edition is not None:  # names are the same in every edition: the edition is only checked
            snap.kb.resolve_name(edition, lang=lang)
        elif lang is not None:
            snap.kb.check_language(lang)
        found = index(snap)
        return JSON({"query": q, "cards": found.nearest(q, limit)})
