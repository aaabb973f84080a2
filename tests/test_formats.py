"""The 2025-02-07 edition as published in PDF and DOCX gives the rules of its TXT (issue 7).

The three files of ``../shared/corpus`` (``en/2025-02-07.txt``, ``formats/2025-02-07.pdf``
and ``formats/2025-02-07.docx``) are parsed once per session: the PDF takes ~11 s.
"""

from __future__ import annotations

import pytest

from comprules.corpus import parse_file
from comprules.corpus.formats import pdf_text, read_document
from comprules.errors import SourceError


def _normal(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="session")
def txt_edition(corpus_dir):
    return parse_file(corpus_dir / "en" / "2025-02-07.txt")


@pytest.fixture(scope="session")
def pdf_edition(corpus_dir):
    return parse_file(corpus_dir / "formats" / "2025-02-07.pdf")


@pytest.fixture(scope="session")
def docx_edition(corpus_dir):
    return parse_file(corpus_dir / "formats" / "2025-02-07.docx")


def _differing(reference, other) -> list[str]:
    mine = {r.id: r for r in other.numbered()}
    out = []
    for rule in reference.numbered():
        twin = mine[rule.id]
        same_text = _normal(rule.text) == _normal(twin.text)
        same_examples = [_normal(e) for e in rule.examples] == [_normal(e) for e in twin.examples]
        if not (same_text and same_examples):
            out.append(rule.id)
    return out


@pytest.mark.parametrize("fmt", ["pdf", "docx"])
def test_pdf_and_docx_of_2025_02_07_give_the_txt_rule_numbers(fmt, txt_edition, request):
    edition = request.getfixturevalue(f"{fmt}_edition")
    assert edition.name == "en/2025-02-07"
    assert edition.kind == "edition"
    assert [r.id for r in edition.numbered()] == [r.id for r in txt_edition.numbered()]
    assert len(edition.numbered()) == 3022
    assert [r.id for r in edition.sections()] == [r.id for r in txt_edition.sections()]
    assert [g.term for g in edition.glossary] == [g.term for g in txt_edition.glossary]
    assert len(edition.glossary) == 703


@pytest.mark.parametrize("fmt", ["pdf", "docx"])
def test_pdf_and_docx_rule_texts_and_examples_are_identical_to_the_txt(fmt, txt_edition, request):
    edition = request.getfixturevalue(f"{fmt}_edition")
    assert _differing(txt_edition, edition) == []  # measured: 3022 of 3022 identical (100 %)


def test_pdf_glossary_definitions_match_the_txt(pdf_edition, txt_edition):
    differing = [
        g.term for g, t in zip(pdf_edition.glossary, txt_edition.glossary) if _normal(g.text) != _normal(t.text)
    ]
    assert differing == []  # measured: 703 of 703 identical


def test_chapter_heading_at_the_top_of_a_pdf_page_is_a_heading_not_rule_text(pdf_edition):
    # "2. Parts of a Card" opens a page right after 123.9's last line, with no blank line.
    assert pdf_edition.get("123.9").text.endswith("that other spells and abilities can identify.")
    assert pdf_edition.get("2").title == "Parts of a Card"
    assert pdf_edition.get("8").title == "Multiplayer Rules"


def test_pdf_line_cut_after_a_dash_joins_without_a_space(pdf_edition):
    assert "601.2f–h" in pdf_edition.get("702.74a").text
    assert "occurs—unless" in pdf_edition.get("603.7b").text
    assert "[-N]" in pdf_edition.get("107.7").text


def test_pdf_text_repairs_page_breaks_and_dashes_without_touching_spaced_dashes():
    pages = ["100.1. Some rule that is cut at a dash—\nand goes on.\nCreature —\nGoblin.\n7", "2. Parts\n200. General"]
    assert pdf_text(pages).split("\n") == [
        "100.1. Some rule that is cut at a dash—and goes on.",
        "Creature —",
        "Goblin.",
        "",
        "2. Parts",
        "200. General",
    ]


@pytest.mark.parametrize(
    "name,data,message",
    [
        ("broken.pdf", b"%PDF-1.7\n1 0 obj garbage", "unreadable PDF"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "unreadable DOCX"),
        ("empty.pdf", b"", "empty file"),
    ],
)
def test_damaged_pdf_or_docx_is_one_source_error_naming_the_file(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SourceError) as info:
        read_document(path)
    assert str(info.value).startswith(str(path)) and message in str(info.value)
    assert "\n" not in str(info.value)
