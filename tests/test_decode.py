"""Decoding every published encoding and line ending (issue 2, part 2)."""

from __future__ import annotations

import pytest

from comprules.corpus.decode import decode_bytes, decode_file, normalize_newlines
from comprules.errors import SourceError

RAW = {
    "2004-02-01.txt": "mac_roman",
    "2006-07-15.txt": "cp437",
    "2013-05-01.txt": "utf-16-be",
    "2016-08-26.txt": "utf-16-le",
    "2017-04-28.txt": "cp1252",
}


@pytest.mark.parametrize("name,encoding", sorted(RAW.items()))
def test_raw_edition_decodes_to_exactly_its_utf8_twin(corpus_dir, name, encoding):
    decoded = decode_file(corpus_dir / "raw" / name)
    twin = (corpus_dir / "en" / name).read_bytes().decode("utf-8-sig")
    assert decoded.encoding == encoding
    assert decoded.text == normalize_newlines(twin)


def test_mac_roman_trademark_and_en_dash_of_2004_02_01(corpus_dir):
    text = decode_file(corpus_dir / "raw" / "2004-02-01.txt").text
    assert "Mirrodin™" in text or "™" in text
    assert "–" in text and "Ð" not in text


def test_cp437_card_name_dandan_of_2006_07_15(corpus_dir):
    assert "Dandân" in decode_file(corpus_dir / "raw" / "2006-07-15.txt").text


@pytest.mark.parametrize(
    "name,endings,lines",
    [
        ("2022-04-29.txt", "mixed", 7966),  # CRLF on 12 lines, then lone CR
        ("2006-02-01.txt", "CR", 3512),  # classic Mac
        ("2026-08-07.txt", "LF", 9397),
        ("2025-02-07.txt", "CRLF", 8991),
    ],
)
def test_line_endings_are_normalised_to_lf(en_dir, name, endings, lines):
    decoded = decode_file(en_dir / name)
    assert decoded.line_endings == endings
    assert "\r" not in decoded.text
    assert decoded.text.count("\n") == lines


def test_utf8_bom_is_dropped(en_dir):
    assert not decode_file(en_dir / "2026-08-07.txt").text.startswith("\ufeff")


def test_single_byte_guess_prefers_curly_quotes_over_accented_letters():
    # cp1252 0x92 is ’; read as Mac Roman it would be í ("donít").
    assert decode_bytes(b"Players don\x92t lose.\n").text == "Players don’t lose.\n"
    # Mac Roman 0xD5 is ’; read as cp1252 it would be a capital Õ after a lowercase letter.
    assert decode_bytes(b"Players don\xd5t lose. Rule 601.2f\xd0h\n").text == "Players don’t lose. Rule 601.2f–h\n"


@pytest.mark.parametrize(
    "data,fragment",
    [
        (b"", "empty file"),
        (b"   \n\n", "empty file"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"PK\x03\x04\x14\x00", "ZIP"),
        (b"\x00\x01\x02\x03binary\x00garbage" * 10, "binary"),
        (b"\xff\xfe" + "odd".encode("utf-16-le") + b"\x00", "odd number of bytes"),
    ],
)
def test_bad_input_raises_one_line_error_naming_the_file(data, fragment):
    with pytest.raises(SourceError) as info:
        decode_bytes(data, "sources/bad.txt")
    message = str(info.value)
    assert message.startswith("sources/bad.txt: ")
    assert fragment in message
    assert "\n" not in message


def test_nul_bytes_after_text_name_their_line():
    with pytest.raises(SourceError) as info:
        decode_bytes(b"100.1. A rule.\n100.2. Another.\nbroken\x00here\n", "x.txt")
    assert info.value.line == 3


def test_utf8_edition_with_one_damaged_byte_is_refused_not_read_as_mac_roman(en_dir):
    data = (en_dir / "2026-08-07.txt").read_bytes()[3:]  # without its BOM
    at = data.find(b"702.37a Morph")
    with pytest.raises(SourceError) as info:
        decode_bytes(data[: at - 2] + b"\xff" + data[at - 2 :], "damaged.txt")
    assert info.value.line == 4290
    assert "invalid UTF-8 byte 0xFF" in str(info.value)
