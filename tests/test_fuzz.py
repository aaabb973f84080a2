"""Fuzzing decode → parse → references on generated and mutated inputs (issue 7).

Every input goes through :func:`check`: bytes are decoded (or refused with a
:class:`~comprules.errors.SourceError` naming the file and a line), the text is parsed
(which never raises: what it cannot place becomes a warning), every rule, example and
glossary text has its references extracted and resolved, every rule and example text
is rendered as the site renders it (no tag but the site's own may come out), and the
edition is exported to JSON. Anything else escaping is a crash.

Inputs are mutations of real editions (slices cut mid-rule, re-encoded in another
encoding or in two, random bytes spliced in, NUL bytes, line endings swapped) and
generated CR-like text (rule numbers, headings, examples, deep ranges such as
``1.1a–zz`` and ``100.1a–100.999zz``). A 10 MB single line has its own tests.

By default (CI) each test runs 500 examples, derandomized: 3,820 inputs in all, ~20 s.
``HYPOTHESIS_PROFILE=fuzz`` runs 3,000 a test with random seeds and the slow 10 MB
cases: 21,323 inputs, ~190 s. ``COMPRULES_FUZZ_COUNT=1`` prints the count
of inputs checked at the end of the module.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from comprules import export, references
from comprules.corpus.decode import decode_bytes
from comprules.corpus.parse import parse_text
from comprules.errors import SourceError
from comprules.site.markdown import make_markdown, render_text

MD = make_markdown()
#: The only tags rule text may become on the site: reference links, dangling marks, emphasis.
TAGS = re.compile(r"<(?!/?(?:a|span|em|strong)[ >])")

#: ``HYPOTHESIS_PROFILE=fuzz``: the long run. These settings apply to this module's tests only.
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
FUZZ = settings(
    max_examples=3000 if LONG else 500,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Inputs checked in this session, by test (printed by the last test of the module).
CHECKED: dict[str, int] = {}
PATH = "fuzz/input.txt"
CORPUS = Path(os.environ.get("COMPRULES_CORPUS", Path(__file__).resolve().parent.parent / "../shared/corpus"))
#: Editions whose bytes are mutated: every encoding and line ending the CR was published in.
SAMPLES = (
    "raw/2004-02-01.txt",
    "raw/2006-07-15.txt",
    "raw/2013-05-01.txt",
    "raw/2016-08-26.txt",
    "raw/2017-04-28.txt",
    "en/1999-04-23.txt",
    "en/2003-10-01.txt",
    "en/2006-02-01.txt",
    "en/2022-04-29.txt",
    "en/2026-08-07.txt",
)


def check(data: bytes, test: str) -> None:
    """Decode, parse, extract and resolve references, export: only SourceError may escape."""
    CHECKED[test] = CHECKED.get(test, 0) + 1
    try:
        decoded = decode_bytes(data, PATH)
    except SourceError as exc:
        assert exc.path == PATH and isinstance(exc.line, int) and exc.line >= 1, str(exc)
        assert str(exc).startswith(f"{PATH}: line {exc.line}: ") and "\n" not in str(exc)
        return
    check_text(decoded.text)


def check_text(text: str, **meta) -> None:
    edition = parse_text(text, PATH, **meta)
    env = {"extract": references.extract, "lang": edition.lang, "known": set(edition.by_id), "stats": {}}
    for rule in edition.rules:
        for t in (rule.text, *rule.examples):
            for ref in references.extract(t, edition.lang):
                assert 0 <= ref.start <= ref.end <= len(t)
            html = render_text(MD, t, dict(env))  # as the site shows it: every "<" of the text escaped
            assert not TAGS.search(html), html
    resolution = references.resolve(edition)
    json.loads(export.dumps(export.edition_to_dict(edition, resolution)))


@lru_cache(maxsize=None)
def sample(name: str) -> bytes:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"{path} not found (real data is required, see README)")
    return path.read_bytes()


@lru_cache(maxsize=None)
def sample_text(name: str) -> str:
    return decode_bytes(sample(name), name).text


# ---------------------------------------------------------------------------
# Strategies

samples = st.sampled_from(SAMPLES)
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "cp1252", "mac_roman", "cp437", "latin-1")


@st.composite
def slices(draw, size: int = 6000) -> bytes:
    """A window of a real edition's bytes, cut anywhere (mid-rule, mid-character)."""
    data = sample(draw(samples))
    start = draw(st.integers(0, len(data) - 1))
    if draw(st.booleans()):
        start = 0  # keep the header: the document is taken for a complete edition
    return data[start : start + draw(st.integers(1, size))]


@st.composite
def text_slices(draw, size: int = 6000) -> str:
    text = sample_text(draw(samples))
    start = draw(st.sampled_from([0, draw(st.integers(0, len(text) - 1))]))
    return text[start : start + draw(st.integers(1, size))]


@st.composite
def reencoded(draw) -> bytes:
    """Text of one edition in another encoding, or in two glued together."""
    first = draw(text_slices()).encode(draw(st.sampled_from(ENCODINGS)), errors="replace")
    if draw(st.booleans()):
        return first
    return first + draw(text_slices(2000)).encode(draw(st.sampled_from(ENCODINGS)), errors="replace")


@st.composite
def spliced(draw) -> bytes:
    """A slice with random bytes, NUL bytes or other line endings spliced in."""
    data = bytearray(draw(slices()))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        what = draw(
            st.one_of(
                st.binary(min_size=1, max_size=40),
                st.sampled_from(
                    [
                        b"\x00",
                        b"\x00\x00",
                        b"\r",
                        b"\r\n",
                        b"\n\n",
                        b"\xff\xfe",
                        b"\xfe\xff",
                        b"\xef\xbb\xbf",
                        b"\xe2\x80",
                        b"%PDF",
                        b"\t",
                        b"\x0c",
                        b"\xa0",
                    ]
                ),
            )
        )
        if draw(st.booleans()) and data:  # overwrite instead of insert
            data[at : at + len(what)] = what
        else:
            data[at:at] = what
    return bytes(data)


LETTERS = st.sampled_from(["a", "b", "h", "k", "l", "m", "o", "z", "aa", "ab", "az", "zz", "zzz", "lo"])
NUMBER = st.one_of(
    st.integers(100, 999).map(str),
    st.builds("{}.{}{}".format, st.integers(100, 999), st.integers(0, 99999), st.one_of(st.just(""), LETTERS)),
)
DASH = st.sampled_from(["-", "–", "—", " - ", "–", "?", " – "])
WORDS = st.lists(
    st.sampled_from(
        [
            "the",
            "creature",
            "Example:",
            "See",
            "rule",
            "règle",
            "“Colors.”",
            "Glossary",
            "—",
            "<script>",
            "&amp;",
            "\u00a0",
            "\t",
            "  ",
            "l'",
            "’s",
            "Morph",
            "Obsolete",
            "(",
            ")",
            "1.",
            "7",
            "ⅷ",
            "\ufffd",
            "\u202e",
            "_Magic_",
            "*",
        ]
    ),
    max_size=12,
).map(" ".join)
PROSE = st.one_of(WORDS, WORDS, WORDS, st.text(max_size=20))


@st.composite
def citations(draw) -> str:
    """A citation, often a deep or absurd range: "rules 1.1a–zz", "100.1a–100.999zz"."""
    word = draw(
        st.sampled_from(
            [
                "rule ",
                "rules ",
                "section ",
                "sections ",
                "règle ",
                "règles ",
                "See ",
                "Voir ",
                "",
                "(See rule ",
                "Cf. règles ",
            ]
        )
    )
    first = draw(NUMBER)
    tail = draw(
        st.one_of(
            st.just(""),
            st.builds(lambda d, e: d + e, DASH, NUMBER),
            st.builds(lambda d, e: d + e, DASH, LETTERS),
            st.builds(lambda d, e: d + str(e), DASH, st.integers(0, 999999)),
            st.just("–zz"),
            st.just(" a-zz"),
            st.just(".1a–zz"),
            st.just(", “Title.”"),
            st.just(", and 101.2"),
        )
    )
    return word + first + tail + draw(st.sampled_from(["", ".", ",", ")", " and ", ", “Colors.”", "\n"]))


@st.composite
def cr_like(draw) -> str:
    """Generated CR-shaped text: header, chapters, sections, rules, examples, citations, glossary."""
    lines = []
    if draw(st.booleans()):
        lines += [
            "Magic: The Gathering Comprehensive Rules",
            "",
            draw(
                st.sampled_from(
                    [
                        "These rules are effective as of February 30, 2025.",
                        "These rules are effective as of June 1, 2025.",
                        "Ces règles entrent en vigueur au 1er mai 2006.",
                        "COMPREHENSIVE RULES 13/45/99",
                        "",
                    ]
                )
            ),
            "",
        ]
    for _ in range(draw(st.integers(1, 16))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(
                f"{draw(st.integers(0, 9))}. {draw(st.sampled_from(['Game Concepts', 'Règles', 'x' * 200, '']))}"
            )
        elif kind == 1:
            lines.append(f"{draw(NUMBER).split('.')[0]}. {draw(PROSE)}")
        elif kind in (2, 3, 4):
            lines.append(
                f"{draw(NUMBER)}{draw(st.sampled_from(['. ', ' ', '.', '', '.. ']))}{draw(PROSE)} {draw(citations())}"
            )
        elif kind == 5:
            lines.append(
                draw(st.sampled_from(["Example: ", "EXAMPLE:", "Exemple : ", "Examples:"])) + draw(citations())
            )
        elif kind == 6:
            lines.append(draw(st.sampled_from(["Glossary", "Glossaire", "Credits", "Index", "---", "====", "¶"])))
        elif kind == 7:
            lines.append(draw(PROSE))
        elif kind == 8:
            lines.append("")
        else:
            lines.append(draw(citations()) * draw(st.integers(1, 20)))
    sep = draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"]))
    return sep.join(lines)


# ---------------------------------------------------------------------------
# Tests


@FUZZ
@given(slices())
@example(b"")
@example(b"   \n\t ")
@example(b"\xff\xfe")  # a UTF-16 BOM and nothing
@example(b"\xfe\xff\x00")  # odd length after the BOM
@example(b"\xff\xfe\x00\xd8\n\x00")  # a lone surrogate
@example(b"\xef\xbb\xbf\xff")  # UTF-8 BOM, invalid UTF-8
@example(b"100.1. A rule\x00 with a NUL")
def test_fuzz_slices_of_real_editions_cut_anywhere(data):
    check(data, "slices")


@FUZZ
@given(reencoded())
def test_fuzz_real_text_in_swapped_encodings(data):
    check(data, "reencoded")


@FUZZ
@given(spliced())
def test_fuzz_random_bytes_nul_bytes_and_line_endings_spliced_into_real_editions(data):
    check(data, "spliced")


@FUZZ
@given(cr_like())
@example("100.1a See rules 1.1a–zz and 100.1a–100.999zz, 100.1–100.99999999, 704.5a–704.5zzz.")
@example("1. Game\n\n100. General\n\n100.1. See rules 100.1–9999999999999999999.1 and section 1–9.")
@example("Glossary\n\nA\nB\n")
@example("These rules are effective as of June 1, 2025.\n\nGlossary\n\n100.1. x")
def test_fuzz_generated_cr_like_text_with_deep_ranges(text):
    CHECKED["generated"] = CHECKED.get("generated", 0) + 1
    check_text(text)
    CHECKED["generated-as-edition"] = CHECKED.get("generated-as-edition", 0) + 1
    check_text(text, kind="edition", lang="fr")  # what an editions.toml may say of any file
    check(text.encode("utf-8"), "generated-bytes")


@FUZZ
@given(st.binary(max_size=3000))
def test_fuzz_random_bytes(data):
    check(data, "random")


META_VALUES = st.one_of(
    st.text(max_size=12),
    st.integers(),
    st.booleans(),
    st.dates(),
    st.datetimes(),
    st.none(),
    st.sampled_from(["../../evil", "/tmp/x", "en", "fr", "edition", "fragment", "2030-02-30"]),
)


@settings(FUZZ, max_examples=300)
@given(
    st.dictionaries(st.sampled_from(["lang", "kind", "date", "title"]), META_VALUES),
    st.sampled_from(SAMPLES),
    st.sampled_from(["..", "my notes", "x", "~draft", "été", "a" * 200]),
)
def test_fuzz_editions_toml_values_and_file_stems_through_parse_file(meta, name, stem):
    import tempfile

    from comprules.corpus.load import is_safe_name, parse_file

    CHECKED["metadata"] = CHECKED.get("metadata", 0) + 1
    data = sample(name)[:4000]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{stem}.txt"
        path.write_bytes(data)
        try:
            edition = parse_file(path, meta)
        except SourceError as exc:
            assert exc.path == str(path) and "\n" not in str(exc)
            return
        assert is_safe_name(edition.name), edition.name


FUZZ_ONLY = pytest.mark.skipif(not LONG, reason="slow: HYPOTHESIS_PROFILE=fuzz")


@FUZZ_ONLY
def test_ten_megabyte_single_line_without_references_parses():
    check(("x" * 10_000_000).encode(), "10MB")
    check(("These rules are effective as of June 1, 2025.\n\n100.1. " + "word " * 2_000_000).encode(), "10MB")


@FUZZ_ONLY
def test_ten_megabyte_single_line_dense_with_citations_parses():
    # 714,285 references in one line: extraction is linear (~33 µs a reference), no crash.
    line = ("100.1a See rules 601.2f–h and 702.37a–zz; " * 240_000)[:10_000_000]
    check(("These rules are effective as of June 1, 2025.\n\n1. Game\n\n100. General\n\n" + line).encode(), "10MB")


def test_ten_megabyte_real_edition_on_one_line_parses():
    text = sample_text("en/2026-08-07.txt").replace("\n", " ")
    check((text * 11)[:10_000_000].encode("utf-8"), "10MB")


def test_zz_fuzz_count_is_reported(capsys):
    """Runs last in this module (name order): prints how many inputs were checked."""
    if os.environ.get("COMPRULES_FUZZ_COUNT") == "1":
        with capsys.disabled():
            total = sum(CHECKED.values())
            print(f"\nfuzz: {total} inputs checked, 0 crashes: {dict(sorted(CHECKED.items()))}")
    assert all(n > 0 for n in CHECKED.values())
