"""The knowledge-base database (issue 20): what the build stores, and that every reader
answers from it what the in-memory pipeline computes.

A knowledge base of six English editions (2002-10-07, where Morph is 502.26a; the 2009
renumbering; the last three of 2026), two Chinese ones and the five seeds is built once
(data/ only). Each reader's answer from the database is compared with the same answer
computed from the parsed editions: ``show`` for every rule of en/2026-08-07, the export
of every edition, histories, diffs, the GraphML.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from comprules import graph, references
from comprules.align.alignment import align
from comprules.align.history import diff, history, kb_history
from comprules.build import build
from comprules.cli import main
from comprules.errors import NotFound
from comprules.export import edition_to_dict
from comprules.kb import KnowledgeBase, show_rule
from comprules.store import DB_NAME, Store, StoreError
from comprules.store.exports import edition_export
from comprules.store.schema import unpack_view

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = ("2002-10-07", "2009-05-01", "2009-07-11", "2026-04-17", "2026-06-19", "2026-08-07")
CHINESE = ("2026-02-27", "2026-04-17")


def _sources(en_dir: Path, zh_dir: Path, seeds_dir: Path) -> list[Path]:
    return [*(en_dir / f"{d}.txt" for d in ENGLISH), *(zh_dir / f"{d}.txt" for d in CHINESE), seeds_dir]


@pytest.fixture(scope="module")
def small(tmp_path_factory, en_dir, zh_dir, seeds_dir):
    """``(kb, the editions parsed, their resolutions)``."""
    kb = tmp_path_factory.mktemp("store") / "kb"
    sources = _sources(en_dir, zh_dir, seeds_dir)
    report = build(sources, kb, only=("data",))
    assert report.errors == []
    from comprules.align.history import english_eras

    eras = english_eras(report.editions)
    resolutions = graph.resolve_all(report.editions, eras={k: v.english for k, v in eras.items()})
    return kb, {e.name: e for e in report.editions}, resolutions


@pytest.fixture(scope="module")
def kb(small):
    return KnowledgeBase(small[0])


def test_the_database_holds_every_edition_with_its_counts_and_published_facts(small, kb):
    _, editions, _ = small
    rows = {r["name"]: r for r in kb.store.rows}
    assert len(rows) == 6 + 2 + 5
    for name, e in editions.items():
        assert rows[name]["rules"] == len(e.numbered())
        assert rows[name]["glossary"] == len(e.glossary)
        count = kb.store.one("SELECT count(*) FROM rules WHERE edition = ?", (name,))[0]
        assert count == len(e.rules)
    assert rows["en/2026-06-19"]["set_code"] == "MSH"
    assert rows["en/2026-08-07"]["set_name"] == "The Hobbit"
    assert rows["en/2009-07-11"]["set_name"] == "Magic 2010"
    assert rows["fr/000_f51ad62258817a66"]["kind"] == "fragment"


def test_show_answers_every_rule_of_2026_08_07_as_the_parsed_edition_does(small, kb):
    _, editions, resolutions = small
    edition = editions["en/2026-08-07"]
    cites = {k: [c.as_json() for c in v] for k, v in resolutions[edition.name].cites.items()}
    resolution = references.resolve(edition)
    with pytest.MonkeyPatch.context() as mp:  # one resolution for the 3,318 calls (hashing an edition is slow)
        mp.setattr(references, "resolve", lambda e: resolution)
        for rule in edition.rules:
            expected = show_rule(edition, rule.id, cites=cites, lookup=lambda n: editions[n]).to_json()
            assert kb.show(edition.name, rule.id).to_json() == expected, rule.id


def test_show_of_a_chinese_rule_has_its_english_twin_of_the_same_date(kb):
    view = kb.show("zh/2026-04-17", "702.19b").to_json()
    assert view["twin"]["edition"] == "en/2026-04-17"
    assert view["twin"]["number"] == "702.19b"
    assert "trample" in view["twin"]["text"]


def test_show_of_seed_000s_402_1_resolves_its_external_citation_in_en_2002_10_07(kb):
    view = kb.show("fr/000_f51ad62258817a66", "402.1")
    resolved = {c["resolved"] for c in view.cites}
    assert "en/2002-10-07/416" in resolved
    assert view.titles["en/2002-10-07/416"] == "Effects"


def test_the_export_of_every_edition_is_the_one_of_the_parsed_edition(small, kb):
    _, editions, resolutions = small
    for name, e in editions.items():
        assert edition_export(kb.store, name) == edition_to_dict(e, resolutions[name]), name
        on_disk = json.loads((small[0] / "data" / f"{name}.json").read_text(encoding="utf-8"))
        assert on_disk == edition_to_dict(e, resolutions[name]), name


def test_a_whole_edition_from_the_database_equals_the_parsed_one(small, kb):
    _, editions, _ = small
    for name in ("en/2009-07-11", "zh/2026-04-17", "fr/001_efcdb25c5e4b3248"):
        stored, parsed = kb.store.edition(name), editions[name]
        assert stored.rules == parsed.rules
        assert stored.glossary == parsed.glossary
        assert stored.warnings == parsed.warnings
        assert (stored.lang, stored.effective, stored.kind, stored.title) == (
            parsed.lang,
            parsed.effective,
            parsed.kind,
            parsed.title,
        )


def test_history_of_morph_from_the_database_walks_back_to_502_26a(small, kb):
    _, editions, _ = small
    steps = kb_history(kb, "702.37a", "en/2026-08-07")
    assert [(s.edition, s.number, s.kind) for s in steps] == [
        ("en/2002-10-07", "502.26a", "first"),
        ("en/2009-05-01", "502.26a", "edited"),
        ("en/2009-07-11", "702.34a", "renumbered"),
        ("en/2026-04-17", "702.37a", "renumbered"),
    ]
    # a number of other editions, with no edition named: its rule's lineage (a trial: history
    # 502.26a stopped with "is 702.37a there", where search and the go-to box follow it)
    assert [s.to_json() for s in kb_history(kb, "502.26a")] == [s.to_json() for s in steps]
    with pytest.raises(NotFound, match="no rule 502.26a in en/2026-08-07: 502.26a of en/2009-05-01 is 702.37a"):
        kb_history(kb, "502.26a", "en/2026-08-07")
    result = CliRunner().invoke(main, ["history", "502.26a", "--kb", str(kb.root)])
    assert result.exit_code == 0 and "note: 502.26a is 702.37a now: its history" in result.stderr
    from starlette.testclient import TestClient

    from comprules.server import create_app

    with TestClient(create_app(kb.root)) as client:  # the API as the CLI (a trial: a 404 there)
        assert client.get("/api/v1/history/502.26a").json()["lineage"] == [s.to_json() for s in steps]
        assert client.get("/api/v1/history/502.26a", params={"edition": "en/2026-08-07"}).status_code == 404
    chain = [editions[f"en/{d}"] for d in ENGLISH]
    for rule in ("702.37a", "702.19b", "613.1", "704.5aa", "100.1"):
        expected = [s.to_json() for s in history(rule, editions["en/2026-08-07"], chain)]
        assert [s.to_json() for s in kb_history(kb, rule, "en/2026-08-07")] == expected, rule


def test_stored_diffs_are_the_alignments_of_the_parsed_editions(small, kb):
    _, editions, _ = small
    old, new = editions["en/2009-05-01"], editions["en/2009-07-11"]
    stored = diff(kb, old.name, new.name)
    assert stored.to_json() == align(old, new).to_json()
    assert stored.facet_counts() == {
        # 419.1a → 613.1a + 613.1b, 101.6b → 103.6b + 103.6c, 208.2 → 207.2 + 207.2a and
        # 505.6 → 708.6b are splits (the new rules' words are all in the old one's), not
        # "moved + edited" beside an added rule; 419.1d ("prevent") is 614.1a, not 613.1a
        "added": 383,
        "edited": 2,
        "merged + edited": 15,
        "moved": 487,
        # 2009-05-01 prints "?" for the dashes 2009-02-01 prints " -- " (issue 22, 4): put
        # back, six rules whose dash was the only change are typography, not edits
        "moved + edited": 516,
        "moved + rewritten": 3,
        "moved + typography": 13,
        "removed": 127,
        "split + edited": 57,
    }
    backwards = diff(kb, new.name, old.name)
    assert backwards.to_json() == align(old, new).mirror(old, new).to_json()


def test_a_diff_of_two_editions_that_are_not_consecutive_joins_their_lineage(small, kb):
    from comprules.align.history import joined
    from comprules.align.lineage import Lineage

    _, editions, _ = small
    chain = [editions[f"en/{d}"] for d in ENGLISH]
    alignments = {(a.name, b.name): align(a, b) for a, b in zip(chain, chain[1:])}
    lineage = Lineage.build(chain, alignments)
    old, new = editions["en/2002-10-07"], editions["en/2026-08-07"]
    result = diff(kb, old.name, new.name)
    assert result.to_json() == joined(lineage, old, new).to_json()
    morph = next(c for c in result.rules if c.old == "502.26a")
    assert morph.new == "702.37a"


def test_a_join_pairs_two_rules_once_though_a_later_split_gave_the_rule_two_keys(kb):
    # a rule that splits after the later edition holds the keys of both rules it becomes:
    # the join met each such pair twice and called it "split" (2008-02-01 → 2008-10-01: 63
    # false splits; an edition against itself, every rule a later edition splits)
    from itertools import combinations

    for old, new in [*combinations(ENGLISH, 2), *((d, d) for d in ENGLISH)]:
        rows = [(c.old, c.new) for c in diff(kb, f"en/{old}", f"en/{new}").rules]
        assert len(rows) == len(set(rows)), (old, new)
    same = diff(kb, "en/2009-05-01", "en/2009-05-01")
    assert {c.kind for c in same.rules} == {"kept"}
    assert [c.new for c in same.rules if c.old == "419.1a"] == ["419.1a"]


def test_the_stored_reference_spans_are_what_reading_the_words_finds(small, kb):
    """A far diff reads where each rule prints its references from the database
    (``Store.reference_parts``) instead of importing the reference reader and reading
    the words again: the two must give the same spans, over each rule's text and its
    examples, for every unit of every edition of the knowledge base."""
    from comprules.align.alignment import ALIGNED_KINDS, _content, _parts, _Prepared

    _, editions, _ = small
    units = 0
    for name, edition in editions.items():
        stored = _Prepared(edition, kb.store.reference_parts(name))
        for i, rule in enumerate(stored.units):
            assert rule.kind in ALIGNED_KINDS
            read = _parts(references.extract(_content(rule, edition.lang), edition.lang))
            assert stored.parts[i] == read, (name, rule.id)
            units += 1
    assert units == 18_943
    spans = kb.store.reference_parts("en/2026-08-07")
    assert spans.get("702.19c") == [(0, [[241, 248, "702.19b"]])]
    assert spans.get("601.2")[0] == (0, [[217, 223, "601.2a"], [224, 225, "601.2d"]])  # "601.2a–d"
    assert spans.get("113.6k") == [(1, [[253, 259, "702.55"]])]  # in its first example
    assert spans.get("702.19b") is None
    prepared = _Prepared(editions["en/2026-08-07"], spans)
    i = prepared.pos["113.6k"]
    start, end, number = prepared.parts[i][0]  # the example's offset after the text
    assert start > len(prepared.units[i].text)
    assert _content(prepared.units[i], "en")[start:end] == "702.55" == number


def test_the_graphml_written_from_the_database_is_the_graph_of_the_editions(small):
    kb_dir, editions, resolutions = small
    expected = graph.kb_graph(editions.values(), resolutions)
    found = nx.read_graphml(kb_dir / "data" / "graph.graphml", force_multigraph=True)
    assert found.number_of_nodes() == expected.number_of_nodes()
    assert set(found.edges(keys=True)) == set(expected.edges(keys=True))
    for node in ("en/2026-08-07/702.19b", "fr/000_f51ad62258817a66/402.1", "en/2026-08-07/glossary/trample"):
        assert {k: str(v) for k, v in found.nodes[node].items()} == {k: str(v) for k, v in expected.nodes[node].items()}
    assert found["fr/000_f51ad62258817a66/402.1"]["en/2002-10-07/416"]["cites"]["status"] == "external"


@given(st.text(alphabet=st.sampled_from(list("ab 702.19b&<>\"'\n\r\t’—é")), max_size=30))
@settings(max_examples=300, deadline=None)
def test_the_graphml_escapes_are_saxutils_own(text):
    from xml.sax.saxutils import escape, quoteattr

    from comprules.store import exports

    assert exports.escape(text) == escape(text)
    assert exports.quoteattr(text) == quoteattr(text)


def test_a_graphml_written_again_copies_the_parts_of_the_editions_whose_key_is_the_same(small, tmp_path):
    """Issue 21: a rebuild writes only the changed editions' parts of graph.graphml; the
    bytes are those of the file written whole."""
    import json

    from comprules.store import Store
    from comprules.store.exports import graphml_parts_path, write_graphml

    kb_dir = small[0]
    data = kb_dir / "data"
    whole = (data / "graph.graphml").read_bytes()
    record = json.loads(graphml_parts_path(data / "graph.graphml").read_text(encoding="utf-8"))
    assert record["size"] == len(whole)
    keys = {name: key for name, (key, *_span) in record["parts"].items()}
    assert "en/2009-07-11" in keys and all(keys.values())
    start, end, *_ = record["parts"]["en/2009-07-11"][1:]
    assert whole[start:end].startswith(b'<node id="en/2009-07-11/') and whole[start:end].endswith(b"</node>\n")
    store = Store(data / "comprules.sqlite")
    try:
        names = list(record["parts"])
        changed = dict(keys, **{"en/2009-07-11": "another key"})
        copied = write_graphml(store, tmp_path / "g.graphml", names, keys=changed, previous=data / "graph.graphml")
        assert copied == len(names) - 1 and (tmp_path / "g.graphml").read_bytes() == whole
        # a previous file that is not the one its record describes lends nothing
        (tmp_path / "g.graphml").write_bytes(whole[:-1])
        again = write_graphml(store, tmp_path / "h.graphml", names, keys=keys, previous=tmp_path / "g.graphml")
        assert again == 0 and (tmp_path / "h.graphml").read_bytes() == whole
    finally:
        store.close()


def test_check_answers_from_the_database_what_the_parsed_edition_gives(small, kb):
    from comprules.check import check_edition, check_kb

    _, editions, resolutions = small
    for name in ("en/2009-07-11", "fr/000_f51ad62258817a66", "zh/2026-04-17"):
        stored = check_kb(kb, name).editions[0]
        expected = check_edition(editions[name], resolutions[name])
        assert stored == replace(expected, source=Path(expected.source).name), name  # the file's name, as exported
    assert check_kb(kb, "en/2009-07-11").editions[0].resolved == 992  # of 994: 401.6 cites 602.1i…


def test_glossary_of_the_database_lists_the_rules_each_entry_cites(small, kb):
    from comprules.kb import glossary_entry, glossary_json, kb_glossary

    _, editions, _ = small
    assert kb_glossary(kb, "en/2026-08-07") == glossary_json(editions["en/2026-08-07"])
    entry = glossary_entry((kb, "en/2026-08-07"), "trample")["entry"]
    assert entry["term"] == "Trample" and "702.19" in entry["refs"]


def test_cited_by_of_702_19b_in_the_database(kb):
    assert "702.19c" in kb.store.cited_by("en/2026-08-07", "702.19b")
    index = kb.store.cited_by_index("en/2026-08-07")
    assert "702.19c" in index["702.19b"]


def _documented_queries() -> list[tuple[str, str]]:
    """The SQL blocks of docs/database.md with the result the page says they give."""
    text = (ROOT / "docs" / "database.md").read_text(encoding="utf-8")
    return re.findall(r"```sql\n(.*?)```\n\ngives:?\n\n```text\n(.*?)```", text, re.S)


def test_the_example_queries_of_docs_database_md_give_what_the_page_says(small):
    queries = _documented_queries()
    assert len(queries) >= 2
    conn = sqlite3.connect(f"file:{small[0] / 'data' / DB_NAME}?mode=ro&immutable=1", uri=True)
    for sql, printed in queries:
        rows = conn.execute(sql).fetchall()
        expected = [line.split(" | ") for line in printed.strip().splitlines()]
        assert [[str(v) for v in row] for row in rows] == expected, sql


def test_every_table_of_the_schema_is_documented():
    from comprules.store.schema import TABLES

    text = (ROOT / "docs" / "database.md").read_text(encoding="utf-8")
    for table in re.findall(r"CREATE TABLE (\w+)", TABLES):
        assert f"`{table}`" in text, table
    from comprules.cards.store import SCHEMA

    cards = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA)
    assert len(cards) == 7 and all(f"| `{table}` |" in text for table in cards), cards


def test_the_stored_rule_views_are_what_show_answers_for_every_rule_of_every_edition(kb):
    """Issue 20: ``/api/v1/rules/{n}`` answers a rule never asked before from the build's
    ``rule_views`` (one look-up); each is, to the byte, what ``comprules show --json``
    computes from the tables (English, the Chinese translations with their English twin,
    the French documents)."""
    from comprules.export import encoded

    views = dict(((e, i), b) for e, i, b in kb.store.all("SELECT edition, id, body FROM rule_views"))
    units = kb.store.all("SELECT edition, id FROM rules WHERE kind IN ('rule', 'subrule') ORDER BY edition, seq")
    assert len(views) == len(units) == 18_925
    langs = set()
    for name, rule_id in units:
        assert unpack_view(views[(name, rule_id)]) == encoded(kb.show(name, rule_id).to_json()), (name, rule_id)
        langs.add(name[:2])
    assert langs == {"en", "zh", "fr"}
    twin = json.loads(kb.store.rule_view("zh/2026-04-17", "702.19b"))["twin"]
    assert twin["edition"] == "en/2026-04-17" and twin["id"] == "702.19b" and twin["text"].startswith("The controller")
    assert kb.store.rule_view("en/2026-08-07", "702") is None  # a section has none: show computes it


def test_an_editions_rule_views_are_made_again_when_its_twin_or_a_cited_edition_changes(small, tmp_path):
    """The views of a translation hold its English twin's rule, those of a French document
    the titles of the English rules it cites: :func:`~comprules.kb.view_keys` changes
    with their input keys, so an incremental build makes them again."""
    from comprules.kb import view_keys

    kb_dir = tmp_path / "kb"
    shutil.copytree(small[0], kb_dir, symlinks=True)
    before = view_keys(KnowledgeBase(kb_dir))
    cited = KnowledgeBase(kb_dir).store.all(
        "SELECT DISTINCT edition FROM citations WHERE resolved LIKE 'en/2002-10-07/%' AND edition != 'en/2002-10-07'"
    )
    assert [r[0][:3] for r in cited] and {r[0][:3] for r in cited} == {"fr/"}
    conn = sqlite3.connect(kb_dir / "data" / DB_NAME)
    conn.execute("UPDATE editions SET input_key = 'x' WHERE name IN ('en/2026-04-17', 'en/2002-10-07')")
    conn.commit()
    conn.close()
    after = view_keys(KnowledgeBase(kb_dir))
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"en/2026-04-17", "zh/2026-04-17", "en/2002-10-07", *(r[0] for r in cited)}


def test_a_damaged_database_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / DB_NAME
    bad.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match=re.escape(str(bad))):
        Store(bad)


def test_one_edition_changed_rewrites_its_rows_and_keeps_the_others(small, tmp_path, en_dir, zh_dir, seeds_dir):
    """Point 3: an incremental build gives the database a build from scratch gives."""
    kb_dir = tmp_path / "kb"
    shutil.copytree(small[0], kb_dir, symlinks=True)
    sources = _sources(en_dir, zh_dir, seeds_dir)
    changed = tmp_path / "2026-08-07.txt"
    text = (en_dir / "2026-08-07.txt").read_text(encoding="utf-8-sig")
    assert "modifies the rules for assigning an attacking creature’s combat damage" in text
    changed.write_text(text.replace("modifies the rules for assigning", "changes the rules for assigning"), "utf-8")
    sources = [changed if p.name == "2026-08-07.txt" and p.parent == en_dir else p for p in sources]
    before = Store(kb_dir / "data" / DB_NAME)
    old_rows = before.all("SELECT * FROM rules WHERE edition = 'en/2009-07-11' ORDER BY seq")
    before.close()
    build(sources, kb_dir, only=("data",))
    after = Store(kb_dir / "data" / DB_NAME)
    assert after.text("en/2026-08-07", "702.19a").startswith("Trample is a static ability that changes the rules")
    assert [tuple(r) for r in after.all("SELECT * FROM rules WHERE edition = 'en/2009-07-11' ORDER BY seq")] == [
        tuple(r) for r in old_rows
    ]
    fresh_dir = tmp_path / "fresh"
    build(sources, fresh_dir, only=("data",))
    fresh = Store(fresh_dir / "data" / DB_NAME)
    for table in ("editions", "rules", "examples", "glossary_entries", "citations", "reference_spans", "warnings",
                  "chains", "lineages", "lexicon", "rule_views", "rule_view_keys"):  # fmt: skip
        order = ", ".join(str(k + 1) for k in range(len(after.all(f"SELECT * FROM {table} LIMIT 1")[0])))
        assert [tuple(r) for r in after.all(f"SELECT * FROM {table} ORDER BY {order}")] == [
            tuple(r) for r in fresh.all(f"SELECT * FROM {table} ORDER BY {order}")
        ], table
    pairs = "SELECT a.old, a.new, a.kind, a.counts, a.facets, a.details, r.seq, r.old, r.new, r.kind, r.similarity,"
    pairs += " r.words, r.changes FROM alignments a JOIN rule_changes r ON r.alignment = a.id ORDER BY 1, 2, 7"
    assert [tuple(r) for r in after.all(pairs)] == [tuple(r) for r in fresh.all(pairs)]


def test_a_glossary_entry_is_found_in_the_plural_or_by_its_first_words(kb):
    # a trial: /api/v1/glossary/tramples and /summoning sickness were 404s, where search
    # finds "mana abilities" and /ar/cr/glossary/summoning sickness?fuzzy=true the entry
    from comprules.kb import glossary_entry

    def term(typed: str) -> str:
        return glossary_entry((kb, "en/2026-08-07"), typed)["entry"]["term"]

    assert term("tramples") == "Trample" and term("abilities") == "Ability" and term("mana abilities") == "Mana Ability"
    assert term("summoning sickness") == "Summoning Sickness Rule"
    with pytest.raises(NotFound):
        term("zzqx")
