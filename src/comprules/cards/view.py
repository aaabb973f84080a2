"""A card as ``comprules card`` and ``/api/v1/cards/{name}`` show it: its text with each
span that calls on rules, and those rules.

JSON shape (docs/json.md, "card")::

    {"edition": "en/2026-08-07", "asked": "notion thieves", "match": "plural",
     "card": {"name", "layout", "faces": [{"name", "mana_cost", "type_line", "oracle_text",
              "power", "toughness", "loyalty"}]},
     "spans": [{"face", "place", "start", "end", "text", "concept", "kind", "label", "rules"}],
     "rules": [{"number", "label", "concepts", "spans"}]}

``spans`` in text order (``place`` ``type`` before ``text``), each with the rule ids of
the edition its concept calls on; ``rules`` once each, in the order their first span
comes, with the texts of every span that calls on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from . import store
from .lookup import CardIndex, Match, open_index


def card_db(data: Path) -> Path:
    """Where a knowledge base's card tables are (``data/cards.sqlite``)."""
    return Path(data) / store.DB_NAME


def index_of(data: Path) -> CardIndex:
    """The card index of a knowledge base's data folder; :class:`UsageError` (one line)
    when it was built without cards."""
    path = card_db(data)
    if not path.is_file():
        raise UsageError(
            f"no card data in {Path(data).parent} (build it with: comprules build SOURCE... --cards FILE;"
            " comprules fetch --cards downloads one)"
        )
    return open_index(path)


def _held(have: list[str], edition: str) -> str:
    """What editions the card data holds, as an error about ``edition`` says it: those of
    its language, else the languages it has (a trial: a French document was told of the
    last three Chinese editions)."""
    lang = edition.partition("/")[0]
    same = [e for e in have if e.partition("/")[0] == lang]
    if same:
        return f"it has {same[0]}" + (f" to {same[-1]}, {len(same)} editions" if len(same) > 1 else "")
    langs = sorted({e.partition("/")[0] for e in have})
    return f"it has {len(have)} editions, in {', '.join(langs)} only" if have else "it has none"


def card_json(index: CardIndex, match: Match, edition: str) -> dict:
    """The JSON shape above for a card found, in ``edition``. Raises :class:`UsageError`
    when the card tables hold no rules of that edition."""
    db = index.db
    if edition not in store.editions(db):
        raise UsageError(f"the card data has no rules of {edition} ({_held(store.editions(db), edition)})")
    card = store.card(db, match.card)
    concepts = store.concepts(db)
    rules = store.card_rules(db, match.card, edition)
    by_span: dict[tuple, list[str]] = {}
    for r in rules:
        by_span.setdefault((r.face, r.where, r.start, r.end, r.concept), []).append(r.rule)
    spans = []
    for call in store.calls(db, match.card):
        face = card.faces[call.face]
        source = face.oracle_text if call.where == "text" else face.type_line
        kind, label, _w = concepts.get(call.concept, (call.concept.split(":")[0], call.concept, 0.0))
        spans.append(
            {
                "face": call.face,
                "place": call.where,
                "start": call.start,
                "end": call.end,
                "text": source[call.start : call.end],
                "concept": call.concept,
                "kind": kind,
                "label": label,
                "rules": by_span.get((call.face, call.where, call.start, call.end, call.concept), []),
            }
        )
    listed: dict[str, dict] = {}
    for r in rules:
        row = listed.setdefault(r.rule, {"number": r.rule, "label": r.label, "concepts": [], "spans": []})
        if r.concept not in row["concepts"]:
            row["concepts"].append(r.concept)
        if r.span not in row["spans"]:
            row["spans"].append(r.span)
    return {
        "edition": edition,
        "asked": match.asked,
        "match": match.how,
        "card": {
            "name": card.name,
            "layout": card.layout,
            "faces": [store._face_json(f) for f in card.faces],
        },
        "spans": spans,
        "rules": list(listed.values()),
    }


def marked(text: str, spans: Iterable[dict], marks: dict[str, int]) -> str:
    """``text`` with each span bracketed and numbered by its first rule (``[Flash]¹``);
    overlapping spans keep the first."""
    out, last = [], 0
    for s in sorted(spans, key=lambda s: (s["start"], -s["end"])):
        if s["start"] < last or not s["rules"]:
            continue
        n = marks.setdefault(s["rules"][0], len(marks) + 1)
        out.append(text[last : s["start"]])
        out.append(f"[{text[s['start'] : s['end']]}]{n}")
        last = s["end"]
    out.append(text[last:])
    return "".join(out)


def card_text(view: dict, *, glossary: bool = False) -> str:
    """The terminal's text of a card view: each face with its spans marked, then the rules
    listed with the spans that call on them (glossary terms only with ``glossary``)."""
    shown = [s for s in view["spans"] if glossary or s["kind"] != "glossary"]
    marks: dict[str, int] = {}
    lines = []
    for i, face in enumerate(view["card"]["faces"]):
        here = [s for s in shown if s["face"] == i]
        head = face["name"] + (f"  {face['mana_cost']}" if face["mana_cost"] else "")
        lines.append(head)
        lines.append(marked(face["type_line"], [s for s in here if s["place"] == "type"], marks))
        for para in marked(face["oracle_text"], [s for s in here if s["place"] == "text"], marks).split("\n"):
            lines.append("  " + para)
        pt = "/".join(x for x in (face.get("power"), face.get("toughness")) if x is not None)
        if pt:
            lines.append("  " + pt)
        if face.get("loyalty"):
            lines.append(f"  loyalty {face['loyalty']}")
        lines.append("")
    lines.append(f"Rules ({view['edition']}):")
    wanted = {r for s in shown for r in s["rules"]}
    for r in view["rules"]:
        if r["number"] not in wanted:
            continue
        n = marks.get(r["number"])
        tag = f"{n:>3} " if n else "    "
        spans = ", ".join(f"“{t}”" for t in r["spans"][:3])
        lines.append(f"{tag}{r['number']:<9} {r['label'][:60]}  ← {spans}")
    return "\n".join(lines)
