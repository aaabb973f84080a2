"""JSON answers and the one error shape of each API."""

from __future__ import annotations

from starlette.responses import Response

from ..export import encoded


class JSON(Response):
    """``application/json`` in UTF-8 with real typography (no ``\\u2019`` escapes), the
    same encoding as the command line's ``--json``, compact: :func:`comprules.export.encoded`."""

    media_type = "application/json"

    def render(self, content) -> bytes:
        return encoded(content)


def raw_json(body: bytes, status: int = 200, headers: dict | None = None) -> Response:
    """An already encoded JSON body."""
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def error(status: int, detail, **extra) -> JSON:
    """``{"detail": ..., **extra}`` with ``status``."""
    return JSON({"detail": detail, **extra}, status_code=status)
