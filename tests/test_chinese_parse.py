"""Parsing the 18 Simplified Chinese editions like English ones (issue 15, part 1).

The counts asserted per edition are the numbered rule lines of SOURCES.md (which the
independent count below reproduces), the examples ("例如：") and the glossary
headwords; where an English edition of the same date exists, the Chinese one has
exactly its rule numbers, examples and glossary entries.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from comprules import languages
from comprules.corpus import parse_text

# effective date: (numbered rule lines, sections, examples, glossary entries)
COUNTS = {
    "2022-06-10": (2668, 138, 266, 627),  # SOURCES.md: 2,658, not counting ten "100.6b牌手…" lines
    "2023-10-13": (2888, 142, 276, 664),
    "2023-11-17": (2899, 142, 276, 668),
    "2024-02-02": (2937, 143, 276, 673),
    "2024-03-08": (2941, 144, 276, 675),
    "2024-04-12": (2962, 144, 277, 681),
    "2024-06-07": (2967, 144, 278, 683),
    "2024-07-30": (2993, 144, 279, 690),
    "2024-11-08": (3007, 144, 272, 698),
    "2025-02-07": (3022, 144, 274, 703),
    "2025-04-04": (3047, 145, 275, 708),
    "2025-06-06": (3059, 145, 275, 711),
    "2025-07-25": (3079, 146, 276, 715),
    "2025-09-19": (3093, 146, 275, 721),
    "2025-11-14": (3109, 146, 276, 725),
    "2026-01-16": (3114, 146, 276, 725),
    "2026-02-27": (3120, 146, 276, 726),
    "2026-04-17": (3138, 147, 277, 730),
}
#: The eleven dates with an English edition in corpus/en/ (SOURCES.md).
TWINS = [
    "2023-11-17",
    "2024-02-02",
    "2024-07-30",
    "2024-11-08",
    "2025-02-07",
    "2025-06-06",
    "2025-09-19",
    "2025-11-14",
    "2026-01-16",
    "2026-02-27",
    "2026-04-17",
]

#: A rule line: the number, then a space or, glued (2022-06-10 "100.6b牌手…"), a Han character.
_NUMBERED = re.compile(r"^\d{3}\.\d+[a-z]{0,2}(?:\.\s|\s|\.?[\u4e00-\u9fff“（])")
_EXAMPLE = re.compile(r"^例如[：:，]")


def independent_counts(path: Path) -> tuple[int, int]:
    """(rule and subrule lines, example lines) counted straight from the text, without
    the parser: the lines between "100.1." and the glossary heading "词汇表"."""
    lines = path.read_text("utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("100.1. "))
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "词汇表")
    body = lines[start:end]
    return sum(1 for x in body if _NUMBERED.match(x)), sum(1 for x in body if _EXAMPLE.match(x))


def test_language_and_effective_date_come_from_the_text_not_the_folder(zh_files):
    text = zh_files[-1].read_text("utf-8")
    edition = parse_text(text, "/tmp/unnamed.txt")  # no folder, no file date
    assert edition.lang == "zh" and edition.effective == date(2026, 4, 17)
    assert edition.name == "zh/2026-04-17" and edition.kind == "edition"


@pytest.mark.parametrize("stem", sorted(COUNTS))
def test_each_chinese_edition_parses_with_its_counts(zh_editions, zh_dir, stem):
    edition = zh_editions[f"zh/{stem}"]
    rules, sections, examples, glossary = COUNTS[stem]
    assert edition.lang == "zh" and edition.kind == "edition"
    assert edition.effective == date.fromisoformat(stem)
    assert (len(edition.numbered()), independent_counts(zh_dir / f"{stem}.txt")[0]) == (rules, rules)
    assert len(edition.sections()) == sections
    assert sum(len(r.examples) for r in edition.rules) == examples == independent_counts(zh_dir / f"{stem}.txt")[1]
    assert len(edition.glossary) == glossary
    assert [r.number for r in edition.rules if r.kind == "chapter"] == [str(i) for i in range(1, 10)]


@pytest.mark.parametrize("stem", TWINS)
def test_a_chinese_edition_has_the_rule_numbers_examples_and_glossary_size_of_its_english_twin(
    zh_editions, editions, stem
):
    zh, en = zh_editions[f"zh/{stem}"], editions[f"en/{stem}"]
    assert [r.id for r in zh.numbered()] == [r.id for r in en.numbered()]
    assert [len(r.examples) for r in zh.numbered()] == [len(r.examples) for r in en.numbered()]
    assert len(zh.glossary) == len(en.glossary)


def test_702_19_is_the_keyword_heading_trample_with_its_subrules(zh_editions):
    edition = zh_editions["zh/2026-04-17"]
    rule = edition.get("702.19")
    assert (rule.title, rule.text) == ("践踏", "践踏")
    assert [r.id for r in edition.children["702.19"]] == [f"702.19{x}" for x in "abcdefg"]
    assert edition.get("702.2").title == "死触"
    assert edition.get("100").title == "总则" and edition.get("7").title == "附加规则"
    headings = [r for r in edition.rules if r.kind == "rule" and r.section == "702" and r.title]
    assert len(headings) == 191  # as in en/2026-04-17, 702.186 "∞（无限）" included


def test_examples_attach_to_the_rule_above_including_the_one_printed_with_a_comma(zh_editions):
    edition = zh_editions["zh/2026-04-17"]
    assert len(edition.get("613.6").examples) == len(edition.get("613.6").examples) > 0
    # 111.11 prints "例如，勇行者蒂莎…" right under the rule, with a comma (the English has "Example:")
    assert edition.get("111.11").examples[0].startswith("勇行者蒂莎具有异能")
    assert "例如" not in edition.get("111.11").text


def test_glossary_headwords_obsolete_marks_aliases_and_translator_notes(zh_editions):
    edition = zh_editions["zh/2026-04-17"]
    by_term = {g.term: g for g in edition.glossary}
    trample = by_term["践踏"].text  # one sentence, then the reference (not quoted whole: no CR text committed)
    assert (
        trample.startswith("一个关键字异能，") and trample.endswith("。参见规则702.19，“践踏”。") and len(trample) == 37
    )
    assert by_term["操控"].aliases == ("操控者",)
    assert by_term["埋葬"].obsolete and not by_term["践踏"].obsolete
    assert sum(g.obsolete for g in edition.glossary) == 33
    note = by_term["反击/指示物"].note
    assert note.startswith("译注：在英文中") and note.endswith("相同的。") and len(note) == 16
    ability = by_term["异能"]
    assert len(ability.senses) == 2 and ability.senses[0].startswith("一个物件上解释")
    # the glossary ends where the credits ("版权信息") begin
    assert edition.glossary[-1].term == "改变区域触发"


def test_the_2022_list_of_provisional_names_is_not_a_glossary_entry(zh_editions):
    edition = zh_editions["zh/2022-06-10"]
    assert edition.glossary[-1].term == "改变区域触发"
    assert not any("Abandon" in g.term for g in edition.glossary)
    # the duplicated 701.42a of this file is kept twice, with a warning; ten rules glued to their number
    kinds = [w.kind for w in edition.warnings]
    assert kinds.count("duplicate-number") == 1 and kinds.count("malformed-number") == 10 and len(kinds) == 11
    assert edition.get("100.6b").text.startswith("牌手可以使用")


def test_language_table_has_three_rows_each_with_the_forms_the_stages_read():
    assert languages.codes() == ("en", "fr", "zh")
    for lang in languages.all_languages():
        assert lang.example and lang.glossary and lang.effective and lang.labels["site"]
        assert set(lang.kinds) >= {"kept", "edited", "renumbered", "added", "removed"}
    zh = languages.get("zh")
    assert zh.html == "zh-Hans" and zh.community and "Wizards" in zh.notice_en
    assert languages.get("xx") is languages.get("en")
    assert languages.detect("These rules are effective as of August 7, 2026.") == "en"


def test_a_chinese_headword_typed_with_one_character_of_the_same_sound_is_found_fuzzily(zh_editions):
    # 践蹋 for 践踏 (Trample) scored 50 with rapidfuzz, under the cut-off of 60: a 404
    from comprules.academy import glossary_entry
    from comprules.errors import NotFound

    edition = zh_editions["zh/2026-04-17"]
    assert glossary_entry(edition, "践蹋", fuzzy=True, unofficial=False)["term"] == "践踏"
    assert glossary_entry(edition, "警戎", fuzzy=True, unofficial=False)["term"] == "警戒"
    with pytest.raises(NotFound):  # 死触 and 死去 are one character away: neither is taken
        glossary_entry(edition, "死融", fuzzy=True, unofficial=False)
    with pytest.raises(NotFound):
        glossary_entry(edition, "践蹋", fuzzy=False, unofficial=False)
    with pytest.raises(NotFound):  # two characters away from every headword: no typo of one
        glossary_entry(edition, "汽车", fuzzy=True, unofficial=False)
