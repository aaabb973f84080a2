"""JSON answers and the one error shape of each API."""

from __future__ import annotations

import orjson
from starlette.responses import Response

#: Keys that are not strings (an int) are written as strings, as the standard library's
#: ``json`` writes them.
_OPTIONS = orjson.OPT_NON_STR_KEYS


class JSON(Response):
    """``application/json`` in UTF-8 with real typography (no ``\\u2019`` escapes), the
    same encoding as the command line's ``--json``, compact: :func:`encoded`."""

    media_type = "application/json"

    def render(self, content) -> bytes:
        return encoded(content)


def encoded(content) -> bytes:
    """The bytes :class:`JSON` sends for ``content`` (for answers worth keeping): compact
    UTF-8 JSON, the bytes of ``json.dumps(content, ensure_ascii=False, separators=(",",
    ":"))`` for the answers' strings, integers, lists and dicts, written by orjson (a rule
    of the CR 1.6 µs instead of 9 µs; a diff of 600 KB 2 ms instead of 13). Raises
    ``TypeError`` for a value JSON cannot hold."""
    return orjson.dumps(content, option=_OPTIONS)


def raw_json(body: bytes, status: int = 200, headers: dict | None = None) -> Response:
    """An already encoded JSON body."""
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def error(status: int, detail, **extra) -> JSON:
    """``{"detail": ..., **extra}`` with ``status``."""
    return JSON({"detail": detail, **extra}, status_code=status)
