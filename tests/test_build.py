"""The whole pipeline on the whole corpus: what ``make site`` builds (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comprules.build import build, kb_lock
from comprules.errors import BuildLocked
from comprules.indexer import search


@pytest.mark.slow
def test_all_74_english_18_chinese_editions_and_5_seeds_build_with_no_error(full_kb):
    kb, report = full_kb
    assert report.errors == []
    # the CR's own misprints, a rule number printed twice, said by the build (issue 23, 8)
    said = [
        (n.split(": line")[0].rsplit("/", 1)[1], n.split("rule ")[1].split(" appears")[0])
        for n in report.notices
        if " appears " in n
    ]
    assert said == [
        ("2004-06-01.txt", "502.35b"),
        ("2005-08-01.txt", "605.2c"),
        ("2006-05-01.txt", "501.2"),
        ("2006-05-01.txt", "501.3"),
        ("2009-09-04.txt", "702.30d"),
        ("2009-10-01.txt", "702.30d"),
        ("2022-06-10.txt", "701.42a"),
    ]
    # sources that lost characters, put back from the editions around them (issue 22, 4);
    # 2022-10-07's example of 606.5 prints "[?4]" where 2022-04-29 prints "[−4]"; no
    # edition is left lossy (none is said to be)
    restored = [n.split(" (its source")[0] for n in report.notices if " restored from " in n]
    assert restored == [
        "en/2008-05-01: 4,721 characters restored from en/2008-02-01 and en/2008-07-15",
        "en/2009-05-01: 121 characters restored from en/2009-02-01",
        "en/2009-07-11: 1 character restored from en/2009-09-04",  # 702.28a: "Kingdoms? set", "(TM)"
        "en/2022-10-07: 1 character restored from en/2022-04-29",
    ]
    assert len(report.notices) == len(said) + len(restored)
    names = [e.name for e in report.editions]
    assert len(names) == 97
    assert sum(n.startswith("en/") for n in names) == 74 and sum(n.startswith("fr/") for n in names) == 5
    assert sum(n.startswith("zh/") for n in names) == 18
    manifest = json.loads((kb / "data" / "editions.json").read_text())["editions"]
    assert [m["name"] for m in manifest] == names
    for m in manifest:
        assert (kb / "data" / m["path"]).is_file()
    assert (kb / "data" / "graph.graphml").stat().st_size > 1_000_000
    assert set(report.timings) == {"parse", "references", "data", "index", "site"}


@pytest.mark.slow
def test_full_index_answers_for_the_latest_edition_by_default(full_kb):
    kb, _ = full_kb
    result = search(kb / "index", "phasing")
    assert "702.26b" in [h.number for h in result.hits[:5]]
    assert all(h.edition == "en/2026-08-07" or h.edition.startswith("fr/") for h in result.hits)


@pytest.mark.slow
def test_full_site_has_home_with_every_edition(full_kb):
    kb, _ = full_kb
    home = (kb / "site" / "index.html").read_text(encoding="utf-8")
    assert home.count('href="en/') >= 74 and home.count('href="zh/') >= 18
    assert "2026-08-07" in home and "1999-04-23" in home and "003_816c607ad111474a" in home


@pytest.mark.slow
def test_full_build_holds_17_chinese_diffs_and_the_chinese_history(full_kb):
    kb, _ = full_kb
    index = json.loads((kb / "data" / "alignments" / "index.json").read_text())
    zh = [p for p in index["pairs"] if p["old"].startswith("zh/")]
    assert len(zh) == 17 and zh[-1]["new"] == "zh/2026-04-17"
    assert sum(1 for r in index["crosslang"] if r["old"].startswith("zh/")) == 18
    assert (kb / "site" / "history" / "zh" / "702.19.html").is_file()
    assert (kb / "site" / "diff" / "zh" / "2026-02-27..2026-04-17" / "index.html").is_file()
    assert (kb / "site" / "compare" / "zh" / "2022-06-10..2022-04-29" / "index.html").is_file()


def test_a_diff_of_two_languages_not_paired_is_refused_naming_the_pairs(full_kb):
    # a trial: en/2026-08-07 → zh/2026-04-17 took 5.8 s to say "3135 added, 3159 removed"
    # (the API's 5 s limit cut it off with a 503)
    from click.testing import CliRunner

    from comprules.cli import main

    kb, _ = full_kb
    result = CliRunner().invoke(main, ["diff", "en/2026-08-07", "zh/2026-04-17", "--kb", str(kb)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "comprules: en/2026-08-07 and zh/2026-04-17 are in two languages: a diff compares editions of one "
        "language, or a translation with the English edition it was paired with (the build paired "
        "zh/2026-04-17 with en/2026-04-17)"
    )
    paired = CliRunner().invoke(main, ["diff", "zh/2026-04-17", "en/2026-04-17", "--kb", str(kb)])
    assert paired.exit_code == 0 and paired.output.startswith(
        "zh/2026-04-17 → en/2026-04-17: 3138 paired with their translation (words are not compared across languages)"
    )
    seed = CliRunner().invoke(main, ["diff", "fr/004_99dc3338bd3ea994", "en/2005-02-01", "--kb", str(kb), "--json"])
    assert seed.exit_code == 0 and json.loads(seed.stdout)["new"] == "en/2005-02-01"


def _not_found(kb, edition: str, number: str) -> str:
    """What ``kb.show`` says for a rule ``edition`` does not hold (it must raise NotFound)."""
    from comprules.errors import NotFound

    with pytest.raises(NotFound) as info:
        kb.show(edition, number)
    return str(info.value)


def test_morph_asked_in_1999_did_not_exist_yet_and_was_first_printed_as_502_26a(full_kb):
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    assert _not_found(kb, "en/1999-04-23", "702.37a") == (
        "no rule 702.37a in en/1999-04-23: 702.37a of en/2026-08-07 did not exist yet "
        "(first printed in en/2002-10-07, as 502.26a)"
    )
    assert _not_found(kb, "en/2026-08-07", "502.26a") == (
        "no rule 502.26a in en/2026-08-07: 502.26a of en/2009-05-01 is 702.37a there"
    )
    # a second trial: a merged rule was "removed", and the undated French documents a timeline
    assert _not_found(kb, "en/2026-08-07", "203.1c") == (
        "no rule 203.1c in en/2026-08-07: 203.1c of en/2009-05-01 became 202.1b in en/2009-07-11, which is 202.1b there"
    )
    assert _not_found(kb, "en/2026-08-07", "217.1a") == (
        "no rule 217.1a in en/2026-08-07: 217.1a of en/2009-05-01 is 400.3 there (split into 400.3, 400.4 in en/2009-07-11)"
    )
    assert _not_found(kb, "fr/000_f51ad62258817a66", "502.42") == "no rule 502.42 in fr/000_f51ad62258817a66"


def test_a_rule_asked_in_a_language_comes_from_its_newest_edition_holding_it(full_kb):
    # a trial: /api/v1/rules/502.26a?lang=fr said "no rule 502.26a in fr/000_…" (the first
    # French document) while fr/004 holds it
    from starlette.testclient import TestClient

    from comprules.server import create_app

    with TestClient(create_app(full_kb[0])) as client:
        french = client.get("/api/v1/rules/502.26a", params={"lang": "fr"}).json()
        assert french["edition"] == "fr/004_99dc3338bd3ea994" and french["rule"]["id"] == "502.26a"
        named = client.get("/api/v1/rules/502.26a", params={"edition": "fr/000_f51ad62258817a66"})
        assert named.status_code == 404  # a document named keeps its own rules, answered or kept apart
        chinese = client.get("/api/v1/rules/702.19b", params={"lang": "zh"}).json()
        assert chinese["edition"] == "zh/2026-04-17"
        # a language of dated editions answers from its latest, as without lang (a second trial:
        # 502.26a?lang=en was 2009-05-01's Morph while 502.26a was a 404)
        english = client.get("/api/v1/rules/502.26a", params={"lang": "en"})
        assert english.status_code == 404 and "is 702.37a there" in english.json()["detail"]
        # 406.1 is in two French documents: /api/v1 gave the first (a contents line, "Capacités
        # de mana"), /ar/cr the newest (its text); both read kb.rule_edition now
        rule = client.get("/api/v1/rules/406.1", params={"lang": "fr"}).json()
        ar = client.get("/ar/cr/406.1", params={"lang": "fr"}).json()
        assert rule["edition"] == "fr/002_89b48a7ac2467f84" and rule["rule"]["text"] == ar["ruleText"]
        assert ar["ruleText"].startswith("Une capacité de mana est soit")


def test_an_old_number_asked_in_chinese_says_where_it_went_as_english_does(full_kb):
    # a trial: "show 502.26a -e zh" said only "no rule 502.26a in zh/2026-04-17" where the
    # English edition says "502.26a of en/2009-05-01 is 702.37a there" (the Chinese
    # editions, 2022 on, never printed the old numbers; they share their twin's)
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    assert _not_found(kb, "zh", "502.26a") == (
        "no rule 502.26a in zh/2026-04-17 (as in en/2026-04-17: 502.26a of en/2009-05-01 is 702.37a there)"
    )
    assert kb.show("zh", "702.37a").rule.id == "702.37a"  # the number it points to is there
    assert _not_found(kb, "zh", "999.1") == "no rule 999.1 in zh/2026-04-17"


def test_a_sets_name_is_the_edition_of_its_release_not_a_later_update(full_kb):
    # a trial: "Mirrodin" was ambiguous (2003-10-01, MRD, and its December update, whose
    # set name is shown as "Mirrodin" too)
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    assert kb.resolve_name("Mirrodin") == kb.resolve_name("MRD") == "en/2003-10-01"
    assert kb.resolve_name("2003-12-01") == "en/2003-12-01"
    assert kb.info("en/2003-12-01").set == "Mirrodin" and kb.info("en/2003-12-01").code in ("", None)
    # the update by the edition table's whole name (a trial: "no edition 'Mirrodin (Dec. update)'")
    assert kb.resolve_name("Mirrodin (Dec. update)") == kb.resolve_name("mirrodin (dec. update)") == "en/2003-12-01"
    assert kb.resolve_name("Alara Reborn (last old-numbering CR)") == kb.resolve_name("Alara Reborn")
    from click.testing import CliRunner

    from comprules.cli import main

    listed = CliRunner().invoke(main, ["editions", "--kb", str(full_kb[0])]).output.splitlines()
    december = next(line for line in listed if line.startswith("en/2003-12-01 "))
    assert december.endswith("rules  Mirrodin (Dec. update)")  # the name that reaches it, listed
    assert next(line for line in listed if line.startswith("en/2003-10-01 ")).endswith("rules  Mirrodin")


def test_an_unknown_edition_names_the_nearest_first_and_a_day_is_read_without_its_zeros(full_kb):
    # a trial: "Bloomburro" listed Rise of the Eldrazi and The Brothers' War before Bloomburrow
    # (the three nearest in date order), and 2009-7-11 was no edition
    from comprules.errors import UsageError
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    for typed, first in (
        ("Bloomburro", "en/2024-07-30 (Bloomburrow, BLB)"),
        ("Foundation", "en/2024-11-08 (Foundations, FDN)"),
    ):
        with pytest.raises(UsageError) as info:
            kb.resolve_name(typed)
        assert f"(nearest: {first}; " in str(info.value), str(info.value)
    assert kb.resolve_name("2009-7-11") == "en/2009-07-11"
    assert kb.resolve_name("zh/2026-4-17") == "zh/2026-04-17"
    assert kb.resolve_name("2024-9-1") == kb.resolve_name("2024-09-01") == "en/2024-07-30"
    # a day written otherwise (a trial: each suggested en/2019-07-12 or was refused)
    for typed in ("30/07/2024", "30.07.2024", "07/30/2024", "July 30, 2024", "30 July 2024", "30 juillet 2024"):
        assert kb.resolve_name(typed) == "en/2024-07-30", typed
    assert kb.resolve_name("2024/07/30") == kb.resolve_name("20240730") == "en/2024-07-30"
    assert kb.resolve_name("zh/2026/4/17") == "zh/2026-04-17"
    with pytest.raises(UsageError):  # 7 June or 6 July: not guessed
        kb.resolve_name("07/06/2024")


def test_show_reads_the_symbol_font_of_2003_as_the_site_does_and_raw_prints_it(full_kb):
    # a trial: `show 502.26a -e 2003-07-01` printed "{o0} by paying {o3}", the site "{0}", "{3}"
    from click.testing import CliRunner

    from comprules.cli import main

    args = ["show", "502.26a", "--edition", "2003-07-01", "--kb", str(full_kb[0])]
    shown = " ".join(CliRunner().invoke(main, args).output.split())
    assert "a mana cost of {0} by paying {3} rather than its mana cost" in shown and "{o" not in shown
    raw = " ".join(CliRunner().invoke(main, [*args, "--raw"]).output.split())
    assert "a mana cost of {o0} by paying {o3} rather than its mana cost" in raw


def test_a_long_query_that_matches_nothing_is_not_printed_back_whole(full_kb):
    from click.testing import CliRunner

    from comprules.cli import main

    result = CliRunner().invoke(main, ["search", "zq" * 400, "--kb", str(full_kb[0])])
    assert result.exit_code == 1  # no hit
    assert result.output.strip() == "no match for " + "zq" * 100 + "…"


def test_a_set_name_typed_without_the_or_its_punctuation_names_its_edition(full_kb):
    # a trial: "Hobbit" and "Marvels Spider-Man" were no edition (nearest: BRB, MRD)
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    assert kb.resolve_name("Hobbit") == kb.resolve_name("the hobbit") == "en/2026-08-07"
    assert kb.resolve_name("Marvels Spider-Man") == kb.resolve_name("marvel's spiderman") == "en/2025-09-19"
    assert kb.resolve_name("Marvels Spider-Man", lang="zh") == "zh/2025-09-19"
    assert kb.resolve_name("Ætherdrift") == kb.resolve_name("Aetherdrift") == "en/2025-02-07"


def test_a_second_build_on_the_same_kb_fails_clearly_while_one_holds_the_lock(tmp_path, en_dir):
    kb = tmp_path / "kb"
    with kb_lock(kb):
        with pytest.raises(BuildLocked) as info:
            build([en_dir / "2026-08-07.txt"], kb)
    assert "another build is running" in str(info.value)
    assert "pid" in str(info.value)


def test_a_failing_build_keeps_the_previous_knowledge_base(tmp_path, en_dir, monkeypatch):
    kb = tmp_path / "kb"
    build([en_dir / "2025-02-07.txt"], kb, only=("data",))
    before = (kb / "data" / "editions.json").read_text()

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("comprules.build.write_data", boom)
    with pytest.raises(RuntimeError):
        build([en_dir / "2026-08-07.txt"], kb, only=("data",))
    assert (kb / "data" / "editions.json").read_text() == before
    assert not list(kb.glob(".build-*"))


@pytest.mark.slow
def test_show_402_1_of_seed_000_lists_its_external_citations_in_en_2002_10_07(full_kb):
    from click.testing import CliRunner

    from comprules.cli import main

    kb, _ = full_kb
    shown = CliRunner().invoke(
        main, ["show", "402.1", "--edition", "fr/000_f51ad62258817a66", "--kb", str(kb), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["refs"] == []
    assert data["cites"] == [
        {
            "target": "400.1",
            "kind": "rule",
            "status": "external",
            "resolved": "en/2002-10-07/400.1",
            "title": None,
            "title_agrees": None,
        },
        {
            "target": "416",
            "kind": "section",
            "status": "external",
            "resolved": "en/2002-10-07/416",
            "title": "Effets",
            "title_agrees": True,
        },
    ]
    text = CliRunner().invoke(main, ["show", "402.1", "--edition", "fr/000_f51ad62258817a66", "--kb", str(kb)])
    assert "refers to: 400.1, 416 Effects — en/2002-10-07" in text.stdout


@pytest.mark.slow
def test_the_export_and_the_stored_graph_hold_every_citation_of_the_seeds_and_the_dangling_ones(full_kb):
    from comprules.graph import read_graph

    kb, _ = full_kb
    seed = json.loads((kb / "data" / "fr" / "004_99dc3338bd3ea994.json").read_text(encoding="utf-8"))
    rules = {r["number"]: r for r in seed["rules"]}
    assert [(c["target"], c["resolved"]) for c in rules["502.26f"]["cites"]] == [("504", "en/2005-02-01/504")]
    assert [c["resolved"] for c in rules["502.24b"]["cites"]] == [f"en/2005-02-01/409.1{x}" for x in "bfgh"]
    assert rules["502.24b"]["refs"] == []
    edition = json.loads((kb / "data" / "en" / "2009-07-11.json").read_text(encoding="utf-8"))
    (r401_6,) = [r for r in edition["rules"] if r["number"] == "401.6"]
    assert [(c["target"], c["status"], c["resolved"]) for c in r401_6["cites"]] == [("602.1i", "dangling", None)]
    graph = read_graph(kb / "data")
    assert graph.edges["fr/000_f51ad62258817a66/402.1", "en/2002-10-07/416", "cites"]["status"] == "external"
    assert graph.edges["fr/004_99dc3338bd3ea994/502.26f", "en/2005-02-01/504", "cites"]["status"] == "external"
    graphml = (kb / "data" / "graph.graphml").read_text(encoding="utf-8")
    assert 'source="fr/000_f51ad62258817a66/402.1" target="en/2002-10-07/416"' in graphml


def test_the_cards_of_an_old_edition_call_on_its_rules_through_the_lineage(full_kb):
    # card_wordings.toml numbers "instead" 614.1a (2026-08-07): in 2009-05-01 it is 419.1a
    # ("Effects that use the word "instead" are replacement effects"), not 419.1d
    # ("prevent"), which the 2009 renumbering once sent to 613.1a
    from comprules.cards import store
    from comprules.cards.lookup import CardIndex

    kb, _ = full_kb
    if not (kb / "data" / "cards.sqlite").is_file():
        pytest.skip("the knowledge base was built without a card file")
    index = CardIndex.open(kb / "data" / "cards.sqlite")
    thief = index.find("Notion Thief").card
    spans = {(r.rule, r.span) for r in store.card_rules(index.db, thief, "en/2009-05-01")}
    assert ("419.1a", "instead") in spans and ("419.1d", "instead") not in spans
    assert ("502.57", "Flash") in spans
    assert ("614.1a", "instead") in {(r.rule, r.span) for r in store.card_rules(index.db, thief, "en/2026-08-07")}


def test_the_code_hash_is_the_same_for_the_same_code_in_another_folder(tmp_path):
    """A clone in another folder keeps the builds its code made (a trial: the hash read
    the files' absolute paths, so a second clone or a moved checkout made every stage
    again); a changed file changes it."""
    import shutil
    from importlib import resources

    from comprules.codehash import code_hash, tree_hash

    package = Path(str(resources.files("comprules")))
    copies = [tmp_path / "one" / "comprules", tmp_path / "two" / "deeper" / "comprules"]
    for copy in copies:
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert tree_hash(copies[0]) == tree_hash(copies[1]) == code_hash()
    (copies[1] / "model.py").write_text((copies[1] / "model.py").read_text() + "\n# changed\n")
    assert tree_hash(copies[1]) != tree_hash(copies[0])
