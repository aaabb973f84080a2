"""Pagefind's filter indexes put in a stable order (issue 7: byte-identical builds)."""

from __future__ import annotations

from comprules.site.pagefind_order import MAGIC, sorted_filter


def _text(value: str) -> bytes:
    raw = value.encode()
    assert len(raw) < 24
    return bytes([0x60 | len(raw)]) + raw


def _filter(name: str, entries: list[tuple[str, list[int]]]) -> bytes:
    body = b"".join(b"\x82" + _text(v) + bytes([0x80 | len(p)]) + bytes(p) for v, p in entries)
    return MAGIC + b"\x82" + _text(name) + bytes([0x80 | len(entries)]) + body


def test_filter_values_in_either_hash_map_order_give_the_same_bytes():
    one = _filter("edition", [("fr/003", [7, 9]), ("en/1999-04-23", [0, 1, 2])])
    two = _filter("edition", [("en/1999-04-23", [0, 1, 2]), ("fr/003", [7, 9])])
    assert one != two
    assert sorted_filter(one) == sorted_filter(two) == two


def test_an_unknown_layout_is_left_alone():
    assert sorted_filter(b"something else") is None
    assert sorted_filter(MAGIC + b"\x82\x63abc\x05") is None
