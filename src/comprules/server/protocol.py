"""uvicorn's HTTP protocols, answering a request they cannot parse in the server's shape.

A request uvicorn's parser refuses before any application sees it (a method such as
``FOO``, a raw space or byte 0xFF in the target, a URL of 65 KB) is answered by uvicorn
with ``text/plain`` "Invalid HTTP request received."; here it is the error shape of the
server's APIs, ``{"detail": "…"}`` in JSON, still 400 and closing the connection.
``comprules serve`` names these classes in uvicorn's ``http`` setting
(:data:`HTTPTOOLS`, :data:`H11`).
"""

from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol as _H11
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpTools

from .responses import encoded

#: The body of the 400 answer to a request that is not HTTP.
INVALID = encoded({"detail": "invalid HTTP request: the request line or headers could not be read"})

HTTPTOOLS = "comprules.server.protocol:HttpToolsProtocol"
H11 = "comprules.server.protocol:H11Protocol"


def _answer(default_headers: list) -> bytes:
    head = [b"HTTP/1.1 400 Bad Request\r\n"]
    for name, value in default_headers:
        head += [name, b": ", value, b"\r\n"]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(INVALID)).encode("ascii") + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + INVALID


class HttpToolsProtocol(_HttpTools):
    """uvicorn's httptools protocol with :data:`INVALID` as its 400 answer."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(_answer(self.server_state.default_headers))
        self.transport.close()


class H11Protocol(_H11):
    """uvicorn's h11 protocol with :data:`INVALID` as its 400 answer."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(_answer(self.server_state.default_headers))
        self.transport.close()
