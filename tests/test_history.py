"""One rule's history (lineage) across editions, and the ``diff``/``history`` commands
on a knowledge base that stored its alignments (issue 4)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from comprules.align import history as history_module
from comprules.align.history import history
from comprules.cli import main
from comprules.errors import NotFound

SEED_402 = "fr/000_f51ad62258817a66"
SEED_602 = "fr/001_efcdb25c5e4b3248"


@pytest.fixture(scope="module")
def morph(editions):
    """The lineage of 702.37a (Morph) of 2026-08-07 through all 74 English editions."""
    return history("702.37a", editions["en/2026-08-07"], list(editions.values()))


def test_morph_702_37a_goes_back_to_502_26a_of_2002_10_07(morph):
    first = morph[0]
    assert (first.edition, first.number, first.kind) == ("en/2002-10-07", "502.26a", "added")
    assert first.text.startswith("Morph is a static ability")


def test_morph_lineage_lists_every_renumbering(morph):
    # 2009-07-11 prints "702.34. Morph"; Fear and Madness moved ahead of it later
    moves = [(s.edition, s.previous, s.number) for s in morph if s.previous and s.previous != s.number]
    assert moves == [
        ("en/2009-07-11", "502.26a", "702.34a"),
        ("en/2011-09-30", "702.34a", "702.35a"),
        ("en/2013-07-13", "702.35a", "702.36a"),
        ("en/2021-07-23", "702.36a", "702.37a"),
    ]


def test_morph_lineage_lists_every_edition_where_its_words_changed(morph):
    edited = [s.edition for s in morph if s.words == "edited"]
    assert edited == [
        "en/2003-07-01",
        "en/2004-10-01",
        "en/2006-10-01",
        "en/2009-07-11",
        "en/2013-07-13",
        "en/2015-07-17",
    ]
    # the quotes and apostrophes went straight ⇄ curly five times, and 2008-05-01 printed them as "?"
    typography = [s.edition for s in morph if s.words == "typography"]
    assert typography == [
        "en/2005-10-01",
        "en/2006-02-01",
        "en/2008-05-01",
        "en/2008-07-15",
        "en/2014-02-01",
        "en/2014-09-25",
        "en/2019-01-25",
        "en/2019-07-12",
    ]
    assert next(s for s in morph if s.edition == "en/2014-02-01").changes[0].new == "it’"
    assert [s.facet for s in morph if s.moved] == ["moved + edited", "moved", "moved + edited", "moved"]
    m10 = next(s for s in morph if s.edition == "en/2009-07-11")
    assert ("play", "cast") in {(w.old, w.new) for w in m10.changes}
    assert morph[-1].number == "702.37a" and morph[-1].edition == "en/2021-07-23"


def test_lineage_walks_forward_from_an_old_edition(editions):
    steps = history("502.26a", editions["en/2009-05-01"], list(editions.values()))
    assert steps[-1].number == "702.37a"
    assert [s.edition for s in steps if s.kind == "renumbered"][0] == "en/2009-07-11"


def test_a_rule_removed_ends_its_lineage(editions):
    # 502.49 Substance (a static ability with no effect) was dropped by 2009-07-11
    steps = history("502.49a", editions["en/2009-05-01"], list(editions.values()))
    assert (steps[-1].edition, steps[-1].kind, steps[-1].text) == ("en/2009-07-11", "removed", None)


def test_french_602_paragraph_4_goes_back_to_402_4_of_seed_000(editions):
    steps = history("602¶4", editions[SEED_602], list(editions.values()))
    assert [(s.edition, s.number, s.kind) for s in steps] == [
        (SEED_402, "402.4", "first"),
        (SEED_602, "602¶4", "renumbered"),
    ]
    assert [w.old for w in steps[1].changes if w.op == "delete"][:2] == ["n’", "pas"]


@pytest.mark.parametrize(
    "number, edition, expected",
    [
        # deathtouch, triggered → static: moved and edited (2009-07-11)
        ("702.2a", "2009-07-11", ("en/2009-07-11", "502.63a", "702.2a", "moved + edited")),
        # "only … can be its protector" (2026-08-07)
        ("310.9a", "2026-08-07", ("en/2026-08-07", "310.8a", "310.9a", "moved + edited")),
        # quotes added (2022-10-07), a hyphen removed (2026-06-19)
        ("702.124g", "2022-10-07", ("en/2022-10-07", "702.124g", "702.124g", "typography")),
        ("708.2b", "2026-06-19", ("en/2026-06-19", "708.2b", "708.2b", "typography")),
        # rewritten in place (2022-10-07): the lineage goes on through it
        ("100.7", "2022-10-07", ("en/2022-10-07", "100.7", "100.7", "rewritten")),
    ],
)
def test_history_follows_through_facet_changes(editions, number, edition, expected):
    steps = history(number, editions[f"en/{edition}"], list(editions.values()))
    found = [(s.edition, s.previous, s.number, s.facet) for s in steps if s.edition == expected[0]]
    assert found == [expected]
    assert steps[0].edition < expected[0]  # the rule goes back further than that change


def test_history_of_an_unknown_rule_is_not_found(editions):
    with pytest.raises(NotFound):
        history("999.9", editions["en/2026-08-07"], list(editions.values()))


# --- knowledge base and command line ------------------------------------------------


@pytest.fixture(scope="module")
def kb(tmp_path_factory, en_dir, seeds_dir):
    """2009-05-01, 2009-07-11, 2011-09-30 and the seeds: alignments stored by the build."""
    root = tmp_path_factory.mktemp("hist")
    sources = [en_dir / f"{d}.txt" for d in ("2009-05-01", "2009-07-11", "2011-09-30")]
    result = CliRunner().invoke(
        main, ["build", *map(str, sources), str(seeds_dir), "--kb", str(root / "kb"), "--only", "data"]
    )
    assert result.exit_code == 0, result.output
    return root / "kb"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_build_stores_consecutive_and_french_alignments(kb):
    folder = kb / "data" / "alignments"
    assert (folder / "en" / "2009-05-01..2009-07-11.json").is_file()
    assert (folder / "en" / "2009-07-11..2011-09-30.json").is_file()
    assert (folder / "fr" / "000_f51ad62258817a66..001_efcdb25c5e4b3248.json").is_file()
    index = json.loads((folder / "index.json").read_text())
    crosslang = {row["old"]: row["new"] for row in index["crosslang"]}
    assert crosslang["fr/004_99dc3338bd3ea994"] == "en/2009-05-01"  # the only pre-2009 edition built
    lexicon = json.loads((folder / "lexicon.json").read_text())
    assert lexicon["lexicon"]["Morph"] == ["Mue"]
    assert {"fr": "Mue", "en": "Morph"}.items() <= next(t for t in lexicon["aligned"] if t["fr"] == "Mue").items()


def no_computing(*_args):  # every pair of this chain is stored
    raise AssertionError("alignment recomputed")


def test_history_command_reads_the_stored_alignments(kb, monkeypatch):
    monkeypatch.setattr(history_module, "align", no_computing)
    result = run("history", "702.35a", "--kb", kb, "--edition", "2011-09-30", "--json")
    assert result.exit_code == 0, result.output
    lineage = json.loads(result.output)["lineage"]
    assert [(s["edition"], s["number"], s["kind"]) for s in lineage] == [
        ("en/2009-05-01", "502.26a", "first"),
        ("en/2009-07-11", "702.34a", "renumbered"),
        ("en/2011-09-30", "702.35a", "renumbered"),
    ]
    assert set(lineage[0]) >= {"edition", "number", "kind", "text"}


def test_history_command_takes_the_citation_style_and_prints_text(kb):
    result = run("history", "R70235a", "--kb", kb, "--edition", "en/2011-09-30")
    assert result.exit_code == 0, result.output
    assert "702.34a  moved + edited (was 502.26a)" in result.output


def test_history_of_a_french_paragraph_on_the_kb(kb):
    result = run("history", "602¶4", "--kb", kb, "--edition", SEED_602, "--json")
    assert result.exit_code == 0, result.output
    assert [s["number"] for s in json.loads(result.output)["lineage"]] == ["402.4", "602¶4"]


def test_diff_command_json_has_the_design_shape(kb):
    result = run("diff", "2009-05-01", "2009-07-11", "--kb", kb, "--section", "702", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"old", "new", "sections", "rules"}
    morph = next(r for r in data["rules"] if r["old"] == "502.26")
    assert (morph["new"], morph["kind"]) == ("702.34", "renumbered")
    assert {"old", "new", "kind", "similarity", "changes"} <= set(morph)


def test_diff_command_prints_sections_and_word_changes(kb):
    result = run("diff", "en/2009-05-01", "en/2009-07-11", "--kb", kb)
    assert result.exit_code == 0, result.output
    assert "402 Abilities → 112 Abilities  renumbered" in result.output
    assert "502.26a → 702.34a  moved + edited (" in result.output
    assert "502.63a → 702.2a  moved + edited (37% of words kept)" in result.output


def test_diff_b_a_on_the_kb_is_the_mirror_of_the_stored_a_b(kb, monkeypatch):
    monkeypatch.setattr(history_module, "align", no_computing)
    fwd = json.loads(run("diff", "2009-05-01", "2009-07-11", "--kb", kb, "--json").output)
    back = json.loads(run("diff", "2009-07-11", "2009-05-01", "--kb", kb, "--json").output)
    assert (back["old"], back["new"]) == ("en/2009-07-11", "en/2009-05-01")
    swap = {"added": "removed", "removed": "added", "split": "merged", "merged": "split"}
    assert sorted(
        (r["new"] or "", r["old"] or "", swap.get(r["kind"], r["kind"]), r["words"]) for r in fwd["rules"]
    ) == sorted((r["old"] or "", r["new"] or "", r["kind"], r["words"]) for r in back["rules"])
    morph = next(r for r in back["rules"] if r["old"] == "702.34a")
    assert (morph["new"], morph["moved"], morph["words"]) == ("502.26a", True, "edited")
    assert ("cast", "play") in {(c["old"], c["new"]) for c in morph["changes"]}


def test_diff_of_editions_two_apart_joins_their_lineage_keys(kb, monkeypatch):
    # 2009-05-01 → 2011-09-30: not stored as a pair; the lineage through 2009-07-11 joins them
    monkeypatch.setattr(history_module, "align", no_computing)
    result = run("diff", "2009-05-01", "2011-09-30", "--kb", kb, "--json")
    assert result.exit_code == 0, result.output
    rows = {r["old"]: r for r in json.loads(result.output)["rules"] if r["old"]}
    assert (rows["502.26a"]["new"], rows["502.26a"]["moved"], rows["502.26a"]["words"]) == ("702.35a", True, "edited")
    assert rows["502.63a"]["new"] == "702.2a"
    assert rows["502.49a"]["kind"] == "removed"  # Substance, dropped in 2009-07-11
    back = json.loads(run("diff", "2011-09-30", "2009-05-01", "--kb", kb, "--json").output)
    fwd = json.loads(result.output)["rules"]
    assert sorted((r["new"] or "", r["old"] or "", r["words"]) for r in back["rules"]) == sorted(
        (r["old"] or "", r["new"] or "", r["words"]) for r in fwd
    )


def test_diff_of_two_source_files_needs_no_knowledge_base(seeds_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("diff", seeds_dir / "000_f51ad62258817a66.txt", seeds_dir / "001_efcdb25c5e4b3248.txt", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["old"]: r["new"] for r in json.loads(result.output)["rules"]}
    assert rows["402.1"] == "602¶1"


def test_exit_codes_unknown_rule_1_unknown_edition_2(kb):
    assert run("history", "999.9", "--kb", kb, "--edition", "2011-09-30").exit_code == 1
    assert run("diff", "1990-01-01", "2009-07-11", "--kb", kb).exit_code == 2
    assert run("diff", "2009-05-01", "2009-07-11", "--kb", kb, "--section", "999").exit_code == 1


def test_a_number_the_edition_does_not_hold_says_where_its_rule_went(kb):
    # a trial: `show 502.26a` and `history 502.26a` only said "no rule 502.26a in …"
    # while search and the go-to box knew it was Morph, renumbered in 2009
    def said(*args):
        result = run(*args, "--kb", kb)
        assert result.exit_code == 1, result.output
        return result.output.strip()

    assert (
        said("show", "502.26a")
        == "comprules: no rule 502.26a in en/2011-09-30: 502.26a of en/2009-05-01 is 702.35a there"
    )
    assert said("history", "502.26a", "--edition", "2009-07-11") == (
        "comprules: no rule 502.26a in en/2009-07-11: 502.26a of en/2009-05-01 is 702.34a there"
    )
    # an older edition: the number as the latest edition prints it, and when it was first printed
    assert said("show", "702.35a", "--edition", "2009-05-01") == (
        "comprules: no rule 702.35a in en/2009-05-01: 702.35a of en/2011-09-30 is 502.26a there"
    )
    assert said("show", "999.9") == "comprules: no rule 999.9 in en/2011-09-30"


def test_the_history_of_a_section_or_a_chapter_is_refused_pointing_to_diff(kb):
    # a second trial: `history 702` said "1 step: 702 added" in the latest edition, and a
    # section of 2009-07-11 "removed" in 2009-09-04 (the lineages follow rules, not sections)
    result = run("history", "702", "--kb", kb)
    assert result.exit_code == 2
    assert result.output.strip() == (
        "comprules: 702 is a section of en/2011-09-30: a history follows a rule or subrule "
        "(the changes of a section: comprules diff OLD NEW --section 702)"
    )
    assert run("history", "7", "--kb", kb).exit_code == 2
