"""Lossy sources repaired from their neighbours (issue 22, point 4), on the real editions.

en/2008-05-01 was published (or came to us) in one code page: 4,755 "?" stand where
en/2008-02-01 and en/2008-07-15 print apostrophes, quotes and dashes; en/2009-05-01
has "?" for the dashes en/2009-02-01 prints " -- ".
"""

from __future__ import annotations

import doctest
import json
import re

import pytest
from click.testing import CliRunner

from comprules import model
from comprules.build import build
from comprules.cli import main
from comprules.corpus import restore
from comprules.corpus.load import load_sources

LETTER_MARK_LETTER = re.compile(r"[A-Za-z]\?[A-Za-z]")


@pytest.fixture(scope="module")
def around_2008(en_dir):
    names = ["2008-02-01", "2008-05-01", "2008-07-15", "2009-02-01", "2009-05-01", "2009-07-11"]
    result = load_sources([en_dir / f"{n}.txt" for n in names])
    assert result.errors == []
    return {e.name: e for e in restore.restore_editions(result.editions)}, {e.name: e for e in result.editions}


def _texts(edition) -> dict[str, str]:
    out = {}
    for r in edition.rules:
        out[r.id] = " ".join([r.title or "", r.text, *r.examples])
    for g in edition.glossary:
        out[f"glossary:{g.slug}"] = f"{g.term} {g.text}"
    return out


def test_docstring_examples_run():
    assert doctest.testmod(restore).failed == 0
    assert doctest.testmod(model).failed == 0


def test_2008_05_01_prints_cant_where_2008_02_01_does_and_no_lost_mark_is_left(around_2008):
    repaired, printed = around_2008
    lossy = repaired["en/2008-05-01"]
    assert lossy.restored_summary() == (4721, ("en/2008-02-01", "en/2008-07-15"))
    raw = printed["en/2008-05-01"].get("502.27a").text
    assert "can?t" in raw and "can't" in lossy.get("502.27a").text and "?" not in lossy.get("502.27a").text
    assert printed["en/2008-02-01"].get("502.27a").text.count("can't") == lossy.get("502.27a").text.count("can't")
    assert lossy.get("421").title == 'Handling "Infinite" Loops'
    before, after = _texts(repaired["en/2008-02-01"]), _texts(repaired["en/2008-07-15"])
    left = [
        (unit, m)
        for unit, text in _texts(lossy).items()
        for m in LETTER_MARK_LETTER.findall(text)
        if m not in before.get(unit, "") and m not in after.get(unit, "")
    ]
    assert left == []
    assert (
        sum(len(LETTER_MARK_LETTER.findall(t)) for t in _texts(lossy).values()) == 9
    )  # "default.asp?x=": printed by both
    # what the build counts to say a source is lossy: 1,661 printed, the 9 above once repaired
    assert restore.lost_marks(printed["en/2008-05-01"]) == 1661 and restore.lost_marks(lossy) == 9
    assert restore.lost_marks(printed["en/2008-02-01"]) == 9


def test_dashes_of_2009_05_01_come_back_as_its_neighbour_writes_them(around_2008):
    repaired, printed = around_2008
    assert repaired["en/2009-05-01"].restored_summary() == (121, ("en/2009-02-01",))
    text = repaired["en/2009-05-01"].get("200.9c").text
    assert (
        "description -- either a source" in text and "description?either" in printed["en/2009-05-01"].get("200.9c").text
    )


def test_a_question_mark_the_neighbours_print_too_stays(around_2008):
    repaired, printed = around_2008
    for name in ("en/2008-02-01", "en/2008-07-15", "en/2009-07-11"):
        assert repaired[name] is printed[name] and repaired[name].restored == ()
    assert "default.asp?x=" in repaired["en/2008-05-01"].get("100.5").text


def test_the_knowledge_base_keeps_what_was_printed_and_show_says_what_was_restored(tmp_path, en_dir):
    kb = tmp_path / "kb"
    report = build([en_dir / f"{n}.txt" for n in ("2008-02-01", "2008-05-01", "2008-07-15")], kb, only=("data",))
    assert any(
        n.startswith("en/2008-05-01: 4,721 characters restored from en/2008-02-01 and en/2008-07-15")
        for n in report.notices
    )
    export = json.loads((kb / "data" / "en" / "2008-05-01.json").read_text(encoding="utf-8"))
    first = {r["unit"]: r for r in export["restored"]}["100.1b"]
    assert first == {
        "unit": "100.1b",
        "part": "text",
        "raw": first["raw"],
        "chars": 2,
        "sources": ["en/2008-02-01"],
    } and first["raw"].endswith("See section 6, ?Multiplayer Rules.?")
    rule = next(r for r in export["rules"] if r["id"] == "100.1b")
    assert rule["text"].endswith('See section 6, "Multiplayer Rules."')
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "100.1b", "-e", "2008-05-01", "--kb", str(kb)])
    assert shown.exit_code == 0 and '"Multiplayer Rules."' in shown.output
    assert "2 characters restored from en/2008-02-01" in shown.output
    raw = runner.invoke(main, ["show", "100.1b", "-e", "2008-05-01", "--kb", str(kb), "--raw"])
    assert "?Multiplayer Rules.?" in raw.output and "shown as the source prints them" in raw.output
    as_json = json.loads(runner.invoke(main, ["show", "100.1b", "-e", "2008-05-01", "--kb", str(kb), "--json"]).output)
    assert as_json["restored"][0]["chars"] == 2 and as_json["raw"] is False
    plain = runner.invoke(main, ["show", "100.1b", "-e", "2008-02-01", "--kb", str(kb)])
    assert "restored" not in plain.output


@pytest.mark.parametrize(
    "date, count, shown",
    [
        ("2008-05-01", "1,661", "can?t"),
        # 2009-05-01 lost its dashes, not its apostrophes: the line once said "can?t" for every edition
        ("2009-05-01", "79", "cards?even"),
    ],
)
def test_a_lossy_edition_built_alone_is_said_to_be_lossy_with_what_it_lost(tmp_path, en_dir, date, count, shown):
    # nothing to repair it from: the build says so, and what to give it
    report = build([en_dir / f"{date}.txt"], tmp_path / "kb", only=("data",))
    said = [n for n in report.notices if n.startswith(f"en/{date}: its source prints")]
    assert said == [
        f'en/{date}: its source prints "?" between letters {count} times ("{shown}"): a file that lost its quotes '
        "or dashes; build it with the editions before and after it to put them back"
    ]
    assert not any(" restored from " in n for n in report.notices)


def test_a_unit_is_repaired_whole_from_one_edition_or_not_at_all(around_2008):
    repaired, printed = around_2008
    lossy = repaired["en/2008-05-01"]
    untap = next(g for g in lossy.glossary if g.slug == "untap")
    assert "?" not in untap.text
    # 104.6 (the tombstone icon) was 104.5 in 2008-02-01: repaired whole from 2008-07-15,
    # which prints "_Odyssey_(TM)" with its italics marks
    tombstone = lossy.get("104.6").text
    assert "Odyssey(TM) block" in tombstone and "player's graveyard" in tombstone and "?" not in tombstone
    for r in lossy.restored:
        assert len(r.sources) == 1, r
