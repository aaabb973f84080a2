"""Card files in, streamed: Scryfall's ``oracle-cards`` bulk file and MTGJSON's
``AtomicCards.json``.

Both are read with ijson's incremental parser (its C backend), one card at a time, so
that a 160 MB file never sits in memory whole:

* Scryfall: a JSON array of card objects (``name``, ``layout``, ``mana_cost``,
  ``type_line``, ``oracle_text``, ``power``, ``toughness``, ``loyalty``; a card of several
  faces has them in ``card_faces``), or a ``{"object": "list", "data": [...]}`` page;
* MTGJSON: ``{"meta": …, "data": {name: [face, …]}}``, each face with ``faceName``,
  ``side``, ``manaCost``, ``type``, ``text``, ``power``, ``toughness``, ``loyalty``,
  ``layout``.

Which one a file is comes from its shape, not its name. A card without a name is
skipped and counted; a file that is not JSON, or not one of the two shapes, raises
:class:`~comprules.errors.SourceError` naming the file and, for bad JSON, the line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import SourceError
from .model import Card, Face

SCRYFALL = "scryfall"
MTGJSON = "mtgjson"


@dataclass
class ReadReport:
    """What reading a card file did: its format, the cards read and those skipped."""

    path: str
    format: str = ""
    cards: int = 0
    skipped: int = 0
    notes: list[str] = field(default_factory=list)


class _Lines:
    """A binary file that counts the newlines it has handed out (for an error's line)."""

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.lines = 1

    def read(self, n: int = -1) -> bytes:
        chunk = self.fh.read(n)
        self.lines += chunk.count(b"\n")
        return chunk


def _shape(path: Path) -> str:
    """``scryfall`` or ``mtgjson``, from the first bytes and the type of ``data``."""
    import ijson

    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        if head[:1] == b"[":
            return SCRYFALL
        if head[:1] != b"{":
            raise SourceError(str(path), "not a card file (neither a JSON array of cards nor an object with data)", 1)
        fh.seek(0)
        reader = _Lines(fh)
        try:
            for prefix, event, _value in ijson.parse(reader):
                if prefix == "data" and event == "start_map":
                    return MTGJSON
                if prefix == "data" and event == "start_array":
                    return SCRYFALL
        except ijson.JSONError as exc:
            raise SourceError(str(path), f"not valid JSON ({_reason(exc)})", reader.lines) from None
    raise SourceError(str(path), "a JSON object without a data member: not a Scryfall or MTGJSON card file", 1)


def _reason(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160]


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return str(value)


def scryfall_card(obj: dict) -> Card | None:
    """One Scryfall card object as a :class:`Card`; ``None`` when it has no name or is not a
    card (``"object"`` other than ``"card"``)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"].strip():
        return None
    if obj.get("object", "card") != "card":
        return None
    faces_raw = obj.get("card_faces")
    if isinstance(faces_raw, list) and faces_raw:
        faces = tuple(_scryfall_face(f, obj) for f in faces_raw if isinstance(f, dict))
    else:
        faces = (_scryfall_face(obj, obj),)
    return Card(obj["name"], faces, str(obj.get("layout") or ""))


def _scryfall_face(face: dict, card: dict) -> Face:
    def get(key: str) -> Any:
        return face.get(key, card.get(key) if face is card else None)

    return Face(
        name=str(face.get("name") or card.get("name")),
        mana_cost=str(get("mana_cost") or ""),
        type_line=str(get("type_line") or card.get("type_line") or ""),
        oracle_text=str(get("oracle_text") or ""),
        power=_text(get("power")),
        toughness=_text(get("toughness")),
        loyalty=_text(get("loyalty")),
    )


def mtgjson_card(name: str, faces: list) -> Card | None:
    """One ``data`` member of AtomicCards.json (the name and its list of faces) as a
    :class:`Card`; ``None`` when the name is empty or no face is an object. Faces are
    ordered by ``side`` (``a``, ``b``…); of several versions of one side, the first."""
    if not isinstance(name, str) or not name.strip() or not isinstance(faces, list):
        return None
    by_side: dict[str, dict] = {}
    for f in faces:
        if isinstance(f, dict):
            by_side.setdefault(str(f.get("side") or "a"), f)
    if not by_side:
        return None
    out = []
    for _side, f in sorted(by_side.items()):
        out.append(
            Face(
                name=str(f.get("faceName") or f.get("name") or name),
                mana_cost=str(f.get("manaCost") or ""),
                type_line=str(f.get("type") or ""),
                oracle_text=str(f.get("text") or ""),
                power=_text(f.get("power")),
                toughness=_text(f.get("toughness")),
                loyalty=_text(f.get("loyalty")),
            )
        )
    layout = str(next(iter(sorted(by_side.items())))[1].get("layout") or "")
    return Card(name, tuple(out), layout)


def read_cards(path: str | Path, report: ReadReport | None = None) -> Iterator[Card]:
    """The cards of a Scryfall or MTGJSON file, one at a time (the file is streamed).

    ``report`` (optional) is filled in as the cards are read: the format, how many cards,
    how many entries were skipped (no name, not a card). Raises
    :class:`~comprules.errors.SourceError` (the file and, for bad JSON, about where) for
    a file that cannot be opened, is not JSON or has neither shape.
    """
    import ijson

    path = Path(path)
    rep = report if report is not None else ReadReport(str(path))
    try:
        rep.format = _shape(path)
        fh = open(path, "rb")
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from None
    with fh:
        reader = _Lines(fh)
        try:
            if rep.format == MTGJSON:
                for name, faces in ijson.kvitems(reader, "data", use_float=True):
                    card = mtgjson_card(name, faces)
                    if card is None:
                        rep.skipped += 1
                        continue
                    rep.cards += 1
                    yield card
            else:
                fh.seek(0)
                head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
                fh.seek(0)
                prefix = "item" if head[:1] == b"[" else "data.item"
                for obj in ijson.items(reader, prefix, use_float=True):
                    card = scryfall_card(obj)
                    if card is None:
                        rep.skipped += 1
                        continue
                    rep.cards += 1
                    yield card
        except ijson.JSONError as exc:
            raise SourceError(str(path), f"not valid JSON ({_reason(exc)})", reader.lines) from None
    if rep.skipped:
        rep.notes.append(f"{path}: {rep.skipped} entries without a name or not cards were skipped")
