"""The knowledge-base database's tables, in the CR's own words (docs/database.md).

One SQLite file, ``data/comprules.sqlite``. Every table is keyed by the edition's
name (``en/2026-08-07``) and the rule's id as the edition prints it (``702.37a``,
``702.175~2``, ``602¶3``), so that a query reads like the question:

.. code-block:: sql

    SELECT number, text FROM rules WHERE edition = 'en/2026-08-07' AND parent = '702.19';

``format`` in ``meta`` is :data:`FORMAT`; a reader refuses another (a knowledge base
built by another version of comprules is rebuilt, not misread).
"""

from __future__ import annotations

import sqlite3
import zlib

#: The version of the tables below; bumped whenever a table or a column changes.
FORMAT = 4

#: The file's name inside ``data/``.
DB_NAME = "comprules.sqlite"

TABLES = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per edition or document (a fragment is a document without an effective date).
CREATE TABLE editions (
    name        TEXT PRIMARY KEY,      -- en/2026-08-07, fr/000_f51ad62258817a66
    lang        TEXT NOT NULL,
    kind        TEXT NOT NULL,         -- edition | fragment
    effective   TEXT,                  -- the effective date, ISO; NULL for a fragment
    title       TEXT NOT NULL,
    description TEXT NOT NULL,         -- what editions.toml says it is ('' when nothing)
    source      TEXT NOT NULL,         -- the source file's name
    sources     TEXT NOT NULL,         -- JSON list of the source files' names
    sha256      TEXT NOT NULL,
    rules       INTEGER NOT NULL,      -- rules and subrules
    glossary    INTEGER NOT NULL,      -- glossary entries
    dangling    INTEGER NOT NULL,      -- citations of a rule the edition does not hold
    printed_references  INTEGER NOT NULL,  -- references printed (a range or list member counts once)
    resolved_references INTEGER NOT NULL,  -- those whose every target the document holds
    set_name    TEXT,                  -- Bloomburrow (data/editions.toml)
    set_code    TEXT,                  -- BLB
    file_date   TEXT,                  -- the date in the official file's name
    document    TEXT,                  -- a fragment's facts, JSON: kind, title, quotes, terms, dates
    input_key   TEXT NOT NULL          -- what the rows of this edition were made from
);

-- Every numbered unit in document order: chapters, sections, rules, subrules,
-- and a fragment's passages and notes.
CREATE TABLE rules (
    edition TEXT NOT NULL,
    id      TEXT NOT NULL,             -- 702.37a; 702.175~2 for a repeated number; 602¶3
    seq     INTEGER NOT NULL,          -- position in the edition
    number  TEXT NOT NULL,             -- as printed
    kind    TEXT NOT NULL,             -- chapter | section | rule | subrule | passage | note
    title   TEXT,
    text    TEXT NOT NULL,
    parent  TEXT,
    section TEXT,
    chapter TEXT,
    line    INTEGER NOT NULL,          -- 1-based line of the decoded source
    PRIMARY KEY (edition, id)
);
CREATE INDEX rules_in_order ON rules (edition, seq);
CREATE INDEX rules_by_parent ON rules (edition, parent);

CREATE TABLE examples (
    edition TEXT NOT NULL,
    rule    TEXT NOT NULL,
    seq     INTEGER NOT NULL,          -- 1 for the first example of the rule
    text    TEXT NOT NULL,
    PRIMARY KEY (edition, rule, seq)
);

CREATE TABLE glossary_entries (
    edition  TEXT NOT NULL,
    slug     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    term     TEXT NOT NULL,            -- the headword as printed
    aliases  TEXT NOT NULL,            -- JSON list
    obsolete INTEGER NOT NULL,
    senses   TEXT NOT NULL,            -- JSON list of the numbered senses
    text     TEXT NOT NULL,
    line     INTEGER NOT NULL,
    note     TEXT,
    PRIMARY KEY (edition, slug)
);

-- Every printed target of every reference, in printed order (a range gives one row per
-- member). source: the citing rule's id, or glossary/{slug}.
CREATE TABLE citations (
    edition      TEXT NOT NULL,
    source       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    target       TEXT NOT NULL,        -- 416, 409.1g, or a glossary headword
    kind         TEXT NOT NULL,        -- rule | section | chapter | range | list | glossary | ...
    status       TEXT NOT NULL,        -- internal | dangling | external
    resolved     TEXT,                 -- en/2002-10-07/416, en/2026-08-07/glossary/morph; NULL: nowhere
    title        TEXT,                 -- the quoted title printed with it
    title_agrees INTEGER,              -- NULL when nothing to check
    PRIMARY KEY (edition, source, seq)
);
CREATE INDEX citations_by_target ON citations (resolved, edition);

-- Every printed reference where it stands in its text, for the links of the site: one row
-- per reference, its members' spans in parts (601.2f–h gives two). paragraph: 0 the text
-- of the rule or glossary entry, k its k-th example.
CREATE TABLE reference_spans (
    edition   TEXT NOT NULL,
    source    TEXT NOT NULL,
    paragraph INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    start     INTEGER NOT NULL,        -- in characters of the paragraph
    "end"     INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    title     TEXT,
    targets   TEXT NOT NULL,           -- JSON list: every number the reference names
    parts     TEXT NOT NULL,           -- JSON list of [start, end, number], one per printed member
    PRIMARY KEY (edition, source, paragraph, seq)
);

-- What a lossy source printed where characters were put back from the editions around
-- it (a "?" for ’ “ ” —: en/2008-05-01; comprules/corpus/restore.py): rules and
-- glossary_entries hold the restored text, this table the printed one.
CREATE TABLE restorations (
    edition TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    unit    TEXT NOT NULL,             -- the rule id, or glossary:{slug}
    part    TEXT NOT NULL,             -- text | title | example N | term
    raw     TEXT NOT NULL,             -- as the source printed it
    chars   INTEGER NOT NULL,          -- characters put back
    sources TEXT NOT NULL,             -- JSON list of the editions they came from
    PRIMARY KEY (edition, seq)
);

CREATE TABLE warnings (
    edition TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    message TEXT NOT NULL,
    line    INTEGER,
    number  TEXT,
    PRIMARY KEY (edition, seq)
);

-- What `comprules check` reports of each edition: problems (dangling references, wrong
-- quoted titles, duplicates, gaps) and notices (a fragment's citations outside it…).
CREATE TABLE findings (
    edition  TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    severity TEXT NOT NULL,            -- problem | notice
    kind     TEXT NOT NULL,
    line     INTEGER,
    rule     TEXT,                     -- the rule id or glossary/{slug} concerned
    message  TEXT NOT NULL,
    target   TEXT,
    PRIMARY KEY (edition, seq)
);

-- Which rule of one edition is which rule of another: consecutive editions of a language,
-- fragments, and a translation or a French document with the English edition of its era.
CREATE TABLE alignments (
    id      INTEGER PRIMARY KEY,
    old     TEXT NOT NULL,
    new     TEXT NOT NULL,
    kind    TEXT NOT NULL,             -- editions | fragments | translation
    counts  TEXT NOT NULL,             -- JSON: rows per kind
    facets  TEXT NOT NULL,             -- JSON: rows per facet (moved + edited: 5), unchanged left out
    details TEXT NOT NULL,             -- JSON: score, era, same_date… of a translation; {} else
    UNIQUE (old, new)
);

CREATE TABLE rule_changes (
    alignment  INTEGER NOT NULL REFERENCES alignments (id),
    seq        INTEGER NOT NULL,
    old        TEXT,                   -- NULL: added
    new        TEXT,                   -- NULL: removed
    kind       TEXT NOT NULL,          -- kept | edited | renumbered | added | removed | split | merged
    similarity REAL NOT NULL,
    words      TEXT,                   -- edited | rewritten | typography | references | NULL
    changes    TEXT,                   -- JSON list of word changes; NULL: none
    PRIMARY KEY (alignment, seq)
);
CREATE INDEX rule_changes_by_old ON rule_changes (alignment, old);
CREATE INDEX rule_changes_by_new ON rule_changes (alignment, new);

CREATE TABLE section_changes (
    alignment INTEGER NOT NULL REFERENCES alignments (id),
    seq       INTEGER NOT NULL,
    old       TEXT,
    new       TEXT,
    kind      TEXT NOT NULL,
    old_title TEXT,
    new_title TEXT,
    PRIMARY KEY (alignment, seq)
);

-- The editions a lineage walks through, in order: per language the complete editions by
-- date, and the fragments.
CREATE TABLE chains (
    chain    TEXT NOT NULL,            -- en, zh, fr/fragments
    position INTEGER NOT NULL,
    edition  TEXT NOT NULL,
    PRIMARY KEY (chain, position)
);
CREATE INDEX chains_by_edition ON chains (edition);

-- Every rule of every edition under its lineage key (its id in the chain's latest edition,
-- or id@date of the last edition that printed it). A rule split on the way stands under
-- the keys of each of its parts; own is 1 for the rule's own key. The step columns tell
-- what brought the rule there from the edition before (NULL: first appearance).
CREATE TABLE lineages (
    edition    TEXT NOT NULL,
    key        TEXT NOT NULL,
    rule       TEXT NOT NULL,
    chain      TEXT NOT NULL,
    seq        INTEGER NOT NULL,       -- the order of the keys in the edition
    own        INTEGER NOT NULL,
    previous   TEXT,                   -- the rule's id in the edition before
    kind       TEXT,                   -- the step's kind (kept, edited, renumbered, split…)
    similarity REAL,
    words      TEXT,
    changes    TEXT,                   -- JSON list of word changes
    PRIMARY KEY (edition, key)
);
CREATE INDEX lineages_by_key ON lineages (chain, key);
CREATE INDEX lineages_by_rule ON lineages (edition, rule);
-- the rules rewritten in place, by edition (a diff of two far editions asks which)
CREATE INDEX lineages_rewritten ON lineages (chain, edition) WHERE words = 'rewritten' AND own = 1;

-- What `comprules show --json` answers for each rule and subrule (the server's
-- /api/v1/rules/{n}), made by the build from the tables above (kb.write_rule_views) so
-- that a rule never asked before is one look-up: the JSON, raw DEFLATE with the
-- dictionary VIEW_DICTIONARY (store.schema: pack_view, unpack_view).
CREATE TABLE rule_views (
    edition TEXT NOT NULL,
    id      TEXT NOT NULL,
    body    BLOB NOT NULL,
    PRIMARY KEY (edition, id)
) WITHOUT ROWID;

-- What an edition's rule views were made from: its own input key, its English twin's
-- and those of the editions its references lead into (a view is made again when one changes).
CREATE TABLE rule_view_keys (
    edition TEXT PRIMARY KEY,
    key     TEXT NOT NULL
);

-- Term pairs and lexicon rows the alignments found (FR ⇄ EN, ZH ⇄ EN), as JSON documents.
CREATE TABLE lexicon (
    name  TEXT PRIMARY KEY,            -- lexicon | aligned | translations
    value TEXT NOT NULL
);
"""


#: The preset dictionary of the rule views' DEFLATE streams: the JSON's own keys and
#: constant values, which a view of a few hundred bytes cannot back-reference in itself
#: (805 bytes of JSON on average: 385 compressed alone, 269 with it). Changing it
#: changes :data:`FORMAT`.
VIEW_DICTIONARY = (
    b'{"edition":"en/","rule":{"number":"","id":"","kind":"subrule","title":null,"text":"",'
    b'"examples":[],"parent":""},"subrules":[{"number":"","id":"","kind":"subrule","title":null,'
    b'"text":"","examples":[],"parent":""}],"refs":[],"cites":[{"target":"","kind":"rule",'
    b'"status":"internal","resolved":"en/","title":null,"title_agrees":null}],"cited_by":[],'
    b'"cited_by_glossary":[],"twin":null,"restored":[],"raw":false}'
)


def pack_view(body: bytes) -> bytes:
    """``body`` (a rule view's JSON) as the ``rule_views`` table stores it: raw DEFLATE
    (level 6, an 8 KB window: 18 µs for a view of 800 bytes, where the default 32 KB
    window's larger state costs 60) with :data:`VIEW_DICTIONARY`."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -13, 8, zlib.Z_DEFAULT_STRATEGY, VIEW_DICTIONARY)
    return packer.compress(body) + packer.flush()


def unpack_view(packed: bytes) -> bytes:
    """The JSON of a stored rule view (:func:`pack_view`), 3–4 µs."""
    one = zlib.decompressobj(-13, VIEW_DICTIONARY)
    return one.decompress(packed) + one.flush()


def create(conn: sqlite3.Connection) -> None:
    """Create every table of :data:`TABLES` in an empty database."""
    conn.executescript(TABLES)
    conn.execute("INSERT INTO meta (key, value) VALUES ('format', ?)", (str(FORMAT),))
