"""``comprules check``: the lint of editions and fragments (issue 3), on the real corpus.

Fixture editions below are written for these tests in the CR's layout.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from comprules.check import check_edition, check_sources, format_text, numbering_findings
from comprules.cli import main
from comprules.corpus import parse_text

CLEAN = """Magic: The Gathering Comprehensive Rules

These rules are effective as of May 1, 2030.

1. Game Concepts

100. General

100.1. These rules apply to any game. See rule 100.2.

100.2. A game needs two players. See section 8, “Multiplayer Rules.”

100.2a Two-letter subrules skip l and o; see rules 100.2a–b.

100.2b Another subrule.

8. Multiplayer Rules

800. General

800.1. Multiplayer games follow rule 100.1.

Glossary

Game
A contest. See rule 100.1. See also Player.

Player
One of the people in a game. See rule 100.2.

Credits
"""

BROKEN = CLEAN.replace(
    "100.2b Another subrule.",
    "100.2b Another subrule.\n\n100.2e A gap.\n\n100.2d Out of order.",
).replace(
    "800.1. Multiplayer games follow rule 100.1.",
    "800.1. Multiplayer games follow rule 100.9 and rule 100, “Turn Structure.”",
)


def kinds_of(report) -> list[str]:
    return [f.kind for f in report.problems]


def test_clean_fixture_edition_has_no_problem_and_every_reference_resolves():
    report = check_edition(parse_text(CLEAN, "clean.txt"))
    assert report.edition == "en/2030-05-01" and report.clean
    assert (report.references, report.resolved, report.share) == (7, 7, 1.0)


def test_broken_fixture_reports_dangling_title_letter_gap_and_order():
    report = check_edition(parse_text(BROKEN, "broken.txt"))
    assert [(f.kind, f.rule, f.target) for f in report.problems] == [
        ("letter-gap", "100.2e", None),
        ("order", "100.2d", None),
        ("dangling", "800.1", "100.9"),
        ("title", "800.1", "100"),
    ]
    assert report.problems[0].message == "100.2b is followed by 100.2e: 100.2c, 100.2d missing"
    assert report.problems[1].message == "100.2d comes after 100.2e"
    assert report.problems[3].message == "800.1 cites 100 as “Turn Structure”, but 100 is titled “General”"


def test_letter_gap_214_8i_to_214_8k_in_2001_09_24_and_432_2b_first_in_2006_10_01(editions):
    [gap] = numbering_findings(editions["en/2001-09-24"])
    assert (gap.kind, gap.rule, gap.message) == ("letter-gap", "214.8k", "214.8i is followed by 214.8k: 214.8j missing")
    [first] = numbering_findings(editions["en/2006-10-01"])
    assert (first.rule, first.message) == ("432.2b", "432.2b is the first subrule of 432.2: 432.2a missing")


def test_704_5k_followed_by_704_5m_is_no_gap_2026_08_07_numbering_is_clean(editions):
    edition = editions["en/2026-08-07"]
    assert "704.5k" in edition.by_id and "704.5m" in edition.by_id and "704.5l" not in edition.by_id
    assert numbering_findings(edition) == []


def test_2026_08_07_reports_only_the_endure_glossary_entry_citing_702_62_suspend(editions):
    report = check_edition(editions["en/2026-08-07"])
    assert [(f.kind, f.line, f.rule, f.target) for f in report.problems] == [
        ("title", 7775, "glossary/endure", "702.62")
    ]
    assert (report.references, report.resolved) == (1987, 1987)


def test_2009_10_01_range_112_5a_j_is_one_dangling_problem_naming_ten_subrules(editions):
    report = check_edition(editions["en/2009-10-01"])
    dangling = [f for f in report.problems if f.kind == "dangling"]
    assert [(f.rule, f.line) for f in dangling] == [("112.3a", 544), ("605.3b", 1853)]
    assert dangling[0].target == ", ".join(f"112.5{c}" for c in "abcdefghij")
    assert [(f.kind, f.rule) for f in report.problems if f.kind != "dangling"] == [("duplicate-number", "702.30d")]


def test_duplicate_numbers_501_2_and_501_3_of_2006_05_01_are_problems(editions):
    report = check_edition(editions["en/2006-05-01"])
    assert [f.rule for f in report.problems if f.kind == "duplicate-number"] == ["501.2", "501.3"]


def test_whole_corpus_problems_per_kind_and_the_clean_editions(editions):
    reports = [check_edition(e) for n, e in sorted(editions.items()) if n.startswith("en/")]
    count = Counter(f.kind for r in reports for f in r.problems)
    assert dict(count) == {
        "dangling": 29,
        "title": 30,
        "letter-gap": 10,
        "duplicate-number": 6,
        "malformed-number": 10,
        "repeated-number": 1,
    }
    clean = [r.edition.removeprefix("en/") for r in reports if r.clean]
    assert clean == [
        "2003-10-01",
        "2003-12-01",
        "2004-02-01",
        "2007-10-01",
        "2008-02-01",
        "2008-05-01",
        "2008-07-15",
        "2009-02-01",
        "2009-05-01",
        "2011-02-04",
        "2011-09-30",
        "2012-02-01",
        "2012-07-01",
        "2012-10-01",
        "2013-02-01",
        "2013-05-01",
        "2013-07-13",
        "2014-02-01",
        "2014-09-25",
        "2015-07-17",
        "2016-04-08",
        "2016-08-26",
        "2018-07-13",
        "2019-01-25",
        "2019-07-12",
        "2020-06-01",
        "2021-02-15",
        "2021-07-23",
        "2022-04-29",
        "2022-10-07",
        "2022-11-18",
        "2023-09-01",
    ]
    assert not any(r.notices for r in reports)


def test_seeds_cite_external_rules_as_notices_and_only_lost_symbols_are_problems(editions):
    reports = {n[3:6]: check_edition(e) for n, e in editions.items() if n.startswith("fr/")}
    assert {k: [(f.kind, f.line) for f in r.problems] for k, r in reports.items()} == {
        "000": [("lost-symbol", 69)],
        "001": [("lost-symbol", 39)],
        "002": [("lost-symbol", 17)],
        "003": [],
        "004": [],
    }
    assert Counter(f.kind for f in reports["004"].notices) == {"external": 10}
    assert Counter(f.kind for f in reports["002"].notices) == {"external": 2, "repeated-quote": 1}
    assert Counter(f.kind for f in reports["003"].notices) == {"repaired-artefact": 2}
    assert reports["004"].notices[3].message == "502.24b cites 409.1f, 409.1g, 409.1h, outside this document"


def test_seed_004_quotes_502_42_43_24_26_out_of_order_and_that_is_not_a_problem(editions):
    edition = editions["fr/004_99dc3338bd3ea994"]
    assert [r.number for r in edition.rules if r.kind == "rule"] == ["502.42", "502.43", "502.24", "502.26"]
    assert check_edition(edition).clean


def test_format_text_heads_each_edition_then_one_line_per_problem(editions):
    from comprules.check import CheckReport

    text = format_text(
        CheckReport([check_edition(editions["en/2009-07-11"]), check_edition(editions["fr/004_99dc3338bd3ea994"])])
    )
    lines = text.splitlines()
    assert lines[0] == "en/2009-07-11: 5 problems; 992 of 994 references resolve (99.80 %)"
    assert any(ln.startswith("  line 1208") and "401.6 cites 602.1i" in ln for ln in lines)
    assert "fr/004_99dc3338bd3ea994: clean; 10 references, 10 of them to rules outside this document" in lines
    assert lines[-1] == "2 documents checked, 5 problems"


# --- the command line ---------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, ["check", *map(str, args)])


def test_cli_check_clean_file_exits_0(tmp_path):
    (tmp_path / "clean.txt").write_text(CLEAN, encoding="utf-8")
    result = run(tmp_path / "clean.txt")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "en/2030-05-01: clean; 7 of 7 references resolve (100.00 %)"


def test_cli_check_2026_08_07_json_exits_1_with_the_title_problem(en_dir):
    result = run(en_dir / "2026-08-07.txt", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["problems"] == 1 and data["errors"] == []
    [ed] = data["editions"]
    assert ed["edition"] == "en/2026-08-07" and ed["kind"] == "edition"
    assert ed["references"] == {"printed": 1987, "resolved": 1987, "share": 1.0}
    assert ed["problems"] == [
        {
            "kind": "title",
            "line": 7775,
            "rule": "glossary/endure",
            "target": "702.62",
            "message": "glossary/endure cites 702.62 as “Endure”, but 702.62 is titled “Suspend”",
        }
    ]


def test_cli_check_seeds_folder_exits_1_for_the_lost_symbols(seeds_dir):
    result = run(seeds_dir)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == "5 documents checked, 3 problems"


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_cli_check_unreadable_source_exits_2_with_one_error_line(tmp_path, make):
    path = tmp_path / "bad.txt"
    if make == "empty":
        path.write_bytes(b"")
    result = run(path)
    assert result.exit_code == 2
    assert [ln for ln in result.output.splitlines() if ln.startswith("error:")] == [
        ln for ln in result.output.splitlines() if "bad.txt" in ln
    ]


def test_check_sources_needs_a_path_and_keeps_going_past_an_unreadable_file(tmp_path, en_dir):
    from comprules.errors import UsageError

    with pytest.raises(UsageError):
        check_sources([])
    report = check_sources([tmp_path / "nope.txt", en_dir / "2001-09-24.txt"])
    assert [e.edition for e in report.editions] == ["en/2001-09-24"]
    assert report.problems == 1 and report.as_json()["errors"] == [f"{tmp_path / 'nope.txt'}: no such file or folder"]


def test_cli_check_without_sources_checks_the_knowledge_base_of_comprules_kb(full_kb, tmp_path, monkeypatch):
    # a trial: `COMPRULES_KB=… comprules check` said "give at least one source file or folder"
    monkeypatch.chdir(tmp_path)  # no ./build here
    result = CliRunner().invoke(main, ["check", "--json"], env={"COMPRULES_KB": str(full_kb[0])})
    assert result.exit_code == 1, result.output
    [ed] = json.loads(result.output)["editions"]
    assert ed["edition"] == "en/2026-08-07" and [p["rule"] for p in ed["problems"]] == ["glossary/endure"]
    none = CliRunner().invoke(main, ["check"], env={"COMPRULES_KB": str(tmp_path / "nothing")})
    assert none.exit_code == 2 and f"no SOURCES given and no knowledge base at {tmp_path / 'nothing'}" in none.output


def test_a_chinese_title_quoted_for_an_untitled_rule_agrees_by_its_characters(zh_dir):
    # a trial: zh/2026-04-17's 120.7 "参见规则609.7，“伤害的来源”" was reported against the title
    # of section 609 ("效应"): the quote names the untitled 609.7 by words of its text, as the
    # English "See rule 609.7" does; what is left are the translation's own slips
    [ed] = check_sources([zh_dir / "2026-04-17.txt"]).editions
    titles = {(p.rule, p.target) for p in ed.problems if p.kind == "title"}
    assert ("120.7", "609.7") not in titles and ("117.6", "805") in titles
    assert len(ed.problems) == 17
