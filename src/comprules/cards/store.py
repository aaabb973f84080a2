"""The card tables, behind functions that take a :class:`sqlite3.Connection` (create,
write, read), so that they can live in any database: ``data/cards.sqlite`` now, the
knowledge base's ``data/comprules.sqlite`` when it holds them.

Tables (every name starts with ``card``)::

    cards(id, name, folded, layout, faces, rule_word)   one row per card; faces as JSON
    card_names(folded, card)                            every name a card answers to
    card_calls(card, face, place, start, end, concept)  the spans and what they call on
    card_concepts(concept, kind, label, weight)         every concept called on
    card_concept_rules(edition, concept, rule)          its rules in each edition
    card_rule_labels(edition, rule, label)              those rules' titles or first words
    card_meta(key, value)                               the source file, its format, counts

A reader opens the database read-only (:func:`connect`); :data:`FORMAT` (``version`` in ``card_meta``)
is checked, and a database of another format is refused with one line.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import UsageError
from .model import Call, Card, CardRule, Face

#: The version of the tables; bumped when one changes.
FORMAT = 2
#: Where the build's data stage writes the tables until the knowledge-base database holds them.
DB_NAME = "cards.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS card_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    folded    TEXT NOT NULL,
    layout    TEXT NOT NULL,
    faces     TEXT NOT NULL,          -- JSON: [{name, mana_cost, type_line, oracle_text, power, toughness, loyalty}]
    rule_word INTEGER NOT NULL,       -- 1: the name is also a word of the rules ("Clone"); 2: one the rules capitalise ("Flash", "Mountain")
    in_rules  INTEGER NOT NULL DEFAULT 0  -- 1: the latest English edition prints the name (an example: "Wall of Omens")
);
CREATE TABLE IF NOT EXISTS card_names (
    folded TEXT NOT NULL,             -- a name folded (lower case, plain apostrophes): full name or a face's
    card   INTEGER NOT NULL,
    PRIMARY KEY (folded, card)
);
CREATE TABLE IF NOT EXISTS card_calls (
    card    INTEGER NOT NULL,
    face    INTEGER NOT NULL,
    place   TEXT NOT NULL,            -- text | type
    start   INTEGER NOT NULL,
    end     INTEGER NOT NULL,
    concept TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS card_calls_by_card ON card_calls (card);
CREATE TABLE IF NOT EXISTS card_concepts (
    concept TEXT PRIMARY KEY,
    kind    TEXT NOT NULL,
    label   TEXT NOT NULL,
    weight  REAL NOT NULL,
    cards   INTEGER NOT NULL DEFAULT 0   -- how many cards call on it
);
CREATE TABLE IF NOT EXISTS card_concept_rules (
    edition TEXT NOT NULL,
    concept TEXT NOT NULL,
    rule    TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (edition, concept, rule)
);
CREATE TABLE IF NOT EXISTS card_rule_labels (
    edition TEXT NOT NULL,
    rule    TEXT NOT NULL,
    label   TEXT NOT NULL,
    PRIMARY KEY (edition, rule)
);
"""


def create(db: sqlite3.Connection) -> None:
    """Create the card tables (those missing) in ``db``."""
    db.executescript(SCHEMA)
    db.execute("INSERT OR REPLACE INTO card_meta VALUES ('version', ?)", (str(FORMAT),))


def _face_json(f: Face) -> dict:
    return {
        "name": f.name,
        "mana_cost": f.mana_cost,
        "type_line": f.type_line,
        "oracle_text": f.oracle_text,
        "power": f.power,
        "toughness": f.toughness,
        "loyalty": f.loyalty,
    }


def write_cards(db: sqlite3.Connection, rows: Iterable[tuple[Card, list[Call], int]], *, first: int = 1) -> int:
    """Write ``(card, its calls, how much its name is a rules word: 0, 1, 2)`` rows, with ids
    ``first``, ``first + 1``, … in the order given; how many were written."""
    from .concepts import fold

    n = first - 1
    card_rows, name_rows, call_rows = [], [], []
    for n, (card, calls, rule_word) in enumerate(rows, first):
        card_rows.append(
            (
                n,
                card.name,
                fold(card.name),
                card.layout,
                json.dumps([_face_json(f) for f in card.faces], ensure_ascii=False),
                int(rule_word),
            )
        )
        for folded in name_keys(card):
            name_rows.append((folded, n))
        call_rows += [(n, c.face, c.where, c.start, c.end, c.concept) for c in calls]
    db.executemany(
        "INSERT INTO cards (id, name, folded, layout, faces, rule_word) VALUES (?, ?, ?, ?, ?, ?)", card_rows
    )
    db.executemany("INSERT OR IGNORE INTO card_names VALUES (?, ?)", name_rows)
    db.executemany("INSERT INTO card_calls VALUES (?, ?, ?, ?, ?, ?)", call_rows)
    return n - first + 1


def write_concepts(db: sqlite3.Connection, concepts: Iterable[tuple[str, str, str, float]]) -> None:
    """``(concept, kind, label, weight)`` rows, with the number of cards calling on each."""
    db.executemany("INSERT OR REPLACE INTO card_concepts (concept, kind, label, weight) VALUES (?, ?, ?, ?)", concepts)
    counts = db.execute("SELECT concept, COUNT(DISTINCT card) FROM card_calls GROUP BY concept").fetchall()
    db.executemany("UPDATE card_concepts SET cards = ? WHERE concept = ?", [(n, c) for c, n in counts])


def write_edition(
    db: sqlite3.Connection, edition: str, rules: Mapping[str, Iterable[str]], labels: Mapping[str, str]
) -> None:
    """One edition's concept → rules, and the labels of those rules."""
    db.executemany(
        "INSERT OR IGNORE INTO card_concept_rules VALUES (?, ?, ?, ?)",
        [(edition, c, r, i) for c, ids in rules.items() for i, r in enumerate(ids)],
    )
    db.executemany(
        "INSERT OR REPLACE INTO card_rule_labels VALUES (?, ?, ?)", [(edition, r, t) for r, t in labels.items()]
    )


def write_meta(db: sqlite3.Connection, meta: Mapping[str, object]) -> None:
    db.executemany("INSERT OR REPLACE INTO card_meta VALUES (?, ?)", [(k, str(v)) for k, v in meta.items()])


def name_keys(card: Card) -> set[str]:
    """The folded names a card answers to: its full name and each face's, each also without
    punctuation ("urborg tomb of yawgmoth")."""
    from .concepts import fold

    names = {fold(card.name), *(fold(f.name) for f in card.faces if f.name)}
    return names | {loose(n) for n in names}


def loose(folded: str) -> str:
    """A folded name without punctuation: ``urborg, tomb of yawgmoth`` → ``urborg tomb of
    yawgmoth``; ``lim-dûl's vault`` → ``lim dûl's vault``."""
    return " ".join(re.sub(r"[^\w' ]+", " ", folded).split())


# --- reading -------------------------------------------------------------------------------


def connect(path: Path) -> sqlite3.Connection:
    """The card database at ``path``, read-only. Raises :class:`UsageError` (one line) when
    it is missing, unreadable or of another format."""
    if not Path(path).is_file():
        raise UsageError(f"no card data in {Path(path).parent} (build with: comprules build SOURCE... --cards FILE)")
    try:
        db = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, check_same_thread=False)
        row = db.execute("SELECT value FROM card_meta WHERE key = 'version'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"{path}: unreadable card data ({exc})") from None
    if row is None or row[0] != str(FORMAT):
        db.close()
        raise UsageError(f"{path}: card data of another version of comprules; rebuild the knowledge base")
    return db


def meta(db: sqlite3.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM card_meta"))


def card(db: sqlite3.Connection, card_id: int) -> Card:
    """The card of id ``card_id``."""
    name, layout, faces = db.execute("SELECT name, layout, faces FROM cards WHERE id = ?", (card_id,)).fetchone()
    return Card(name, tuple(Face(**f) for f in json.loads(faces)), layout)


def by_folded(db: sqlite3.Connection, folded: str) -> list[int]:
    """The ids of the cards answering to a folded name (full name or a face's)."""
    return [r[0] for r in db.execute("SELECT card FROM card_names WHERE folded = ? ORDER BY card", (folded,))]


def all_names(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """Every (folded name, card id)."""
    return list(db.execute("SELECT folded, card FROM card_names"))


def mark_in_rules(db: sqlite3.Connection, ids: Iterable[int]) -> None:
    """Mark the cards (ids) whose names the rules print."""
    db.executemany("UPDATE cards SET in_rules = 1 WHERE id = ?", [(i,) for i in ids])


def in_rules(db: sqlite3.Connection) -> set[int]:
    """The ids of the cards whose names the rules print."""
    return {r[0] for r in db.execute("SELECT id FROM cards WHERE in_rules = 1")}


def rule_words(db: sqlite3.Connection) -> dict[int, int]:
    """card id → 1 (its name is a word of the rules) or 2 (a word the rules capitalise)."""
    return dict(db.execute("SELECT id, rule_word FROM cards WHERE rule_word > 0"))


def calls(db: sqlite3.Connection, card_id: int) -> list[Call]:
    return [
        Call(face, place, start, end, concept)
        for face, place, start, end, concept in db.execute(
            "SELECT face, place, start, end, concept FROM card_calls WHERE card = ? ORDER BY face, place DESC, start",
            (card_id,),
        )
    ]


def card_rules(db: sqlite3.Connection, card_id: int, edition: str) -> list[CardRule]:
    """The rules of ``edition`` that ``card_id``'s spans call on, in span order."""
    c = card(db, card_id)
    out = []
    rows = db.execute(
        """SELECT k.face, k.place, k.start, k.end, k.concept, r.rule, COALESCE(l.label, '')
           FROM card_calls k JOIN card_concept_rules r ON r.concept = k.concept AND r.edition = ?
           LEFT JOIN card_rule_labels l ON l.edition = r.edition AND l.rule = r.rule
           WHERE k.card = ? ORDER BY k.face, k.place DESC, k.start, r.seq""",
        (edition, card_id),
    )
    for face, place, start, end, concept, rule, label in rows:
        f = c.faces[face]
        source = f.oracle_text if place == "text" else f.type_line
        out.append(CardRule(rule, concept, label, face, place, start, end, source[start:end]))
    return out


def concepts(db: sqlite3.Connection) -> dict[str, tuple[str, str, float]]:
    """concept → (kind, label, weight)."""
    return {c: (k, label, w) for c, k, label, w in db.execute("SELECT concept, kind, label, weight FROM card_concepts")}


def concept_cards(db: sqlite3.Connection) -> tuple[dict[str, int], int]:
    """concept → how many cards call on it, and how many cards there are."""
    total = db.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    return dict(db.execute("SELECT concept, cards FROM card_concepts")), total


def editions(db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT DISTINCT edition FROM card_concept_rules ORDER BY edition")]
