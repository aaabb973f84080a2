"""References inside rule text: the printed forms, their expansion, their resolution.

Fixture strings are written for these tests in the CR's style; the real corpus is
read in place (``conftest.py``) for the counts at the end.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comprules.model import sort_key
from comprules.references import (
    FAMILIES,
    SUBRULE_LETTERS,
    Dangling,
    Reference,
    expand_range,
    extract,
    extract_many,
    glossary_key,
)


def cites(text: str, lang: str = "en") -> list[tuple[str, tuple[str, ...]]]:
    """(kind, targets) of every reference in ``text``."""
    return [(r.kind, r.targets) for r in extract(text, lang)]


def printed(text: str, lang: str = "en") -> list[str]:
    return [text[r.start : r.end] for r in extract(text, lang)]


# --- single citations -------------------------------------------------------------


def test_rule_104_3a_in_a_see_parenthesis_is_one_subrule_reference():
    text = "That player loses. (See rule 104.3a.)"
    [ref] = extract(text)
    assert ref == Reference(
        text.index("104"),
        text.index("104") + 6,
        "rule",
        ("104.3a",),
        ((text.index("104"), text.index("104") + 6, "104.3a"),),
    )


def test_rule_105_with_a_title_is_a_section_reference_and_keeps_its_title():
    [ref] = extract("Some colors exist. See rule 105, “Colors.”")
    assert (ref.kind, ref.targets, ref.title) == ("section", ("105",), "Colors")


def test_section_8_of_rule_100_1b_is_a_chapter_reference():
    [ref] = extract("A game with many players. See section 8, “Multiplayer Rules.”")
    assert (ref.kind, ref.targets, ref.title) == ("chapter", ("8",), "Multiplayer Rules")


def test_rule_509_title_declare_blockers_step_is_captured_without_its_quotes():
    [ref] = extract("as described in rule 509, “Declare Blockers Step”")
    assert ref.title == "Declare Blockers Step"
    [ref] = extract('see rule 419.8 "Sources of Damage."')  # 2003: no comma, straight quotes
    assert ref.title == "Sources of Damage"


def test_lowercase_quoted_words_after_a_number_are_not_a_title():
    [ref] = extract("see rule 704, “poisoned” players lose")
    assert ref.title is None


def test_rule_702_72_glued_to_its_word_is_still_a_reference():
    assert cites('store a card. See rule702.72, "Hideaway."') == [("rule", ("702.72",))]


# --- ranges ----------------------------------------------------------------------


def test_range_601_2f_to_h_expands_to_three_subrules():
    text = "Pay the costs in rules 601.2f–h."
    [ref] = extract(text)
    s = text.index("601")
    assert ref.targets == ("601.2f", "601.2g", "601.2h")
    assert ref.parts == ((s, s + 6, "601.2f"), (s + 7, s + 8, "601.2h"))
    assert text[ref.start : ref.end] == "601.2f–h"


def test_range_601_2g_h_with_a_hyphen_is_a_range_too():
    assert cites("see rules 601.2g-h") == [("rule", ("601.2g", "601.2h"))]


def test_range_205_3k_to_m_skips_the_letter_l():
    assert cites("rules 205.3k–m apply") == [("rule", ("205.3k", "205.3m"))]


def test_range_903_6_to_903_11_printed_in_full_expands_across_two_digit_rules():
    [(kind, targets)] = cites("See rules 903.6–903.11.")
    assert targets == ("903.6", "903.7", "903.8", "903.9", "903.10", "903.11")


def test_range_301_5a_to_d_with_spaced_hyphen_is_one_range():
    assert printed("Rules 301.5a - d apply to it.") == ["301.5a - d"]


def test_section_range_306_311_of_1999_expands_to_six_sections():
    assert cites("(See rules 306-311.)") == [("section", ("306", "307", "308", "309", "310", "311"))]


def test_question_mark_left_by_a_lost_en_dash_still_makes_a_range_2009_05_01():
    assert cites("rules 306?311 and 409.1f?h") == [
        ("section", ("306", "307", "308", "309", "310", "311")),
        ("rule", ("409.1f", "409.1g", "409.1h")),
    ]


def test_backwards_range_is_not_a_range():
    assert cites("rule 702.9-3 life") == [("rule", ("702.9",))]


# --- lists -----------------------------------------------------------------------


def test_list_of_rules_701_27a_f_712_9_10_and_712_18_gives_three_references():
    text = "It follows rules 701.27a–f, 712.9–10, and 712.18. Those rules apply."
    refs = extract(text)
    assert [text[r.start : r.end] for r in refs] == ["701.27a–f", "712.9–10", "712.18"]
    assert refs[0].targets == tuple(f"701.27{c}" for c in "abcdef")
    assert refs[1].targets == ("712.9", "712.10")
    assert refs[1].parts[1][2] == "712.10"


def test_rules_702_19_and_702_20_are_two_references():
    assert cites("See rules 702.19 and 702.20.") == [("rule", ("702.19",)), ("rule", ("702.20",))]


def test_rule_702_36a_or_702_36b_are_two_references():
    assert cites("either rule 702.36a or 702.36b applies") == [("rule", ("702.36a",)), ("rule", ("702.36b",))]


def test_list_with_titles_dash_blitz_and_warp_keeps_each_title():
    refs = extract("(See rules 702.109, “Dash,” 702.152, “Blitz,” and 702.185, “Warp.”)")
    assert [(r.targets, r.title) for r in refs] == [
        (("702.109",), "Dash"),
        (("702.152",), "Blitz"),
        (("702.185",), "Warp"),
    ]


def test_rules_614_and_615_are_two_sections():
    assert cites("See rules 614 and 615.") == [("section", ("614",)), ("section", ("615",))]


def test_lone_letter_in_rules_608_3a_and_b_names_608_3b():
    assert cites("rules 608.3a and b are followed") == [("rule", ("608.3a",)), ("rule", ("608.3b",))]


def test_a_list_stops_before_a_bare_count_like_100_cards():
    assert cites("see rule 903.5a and 100 cards") == [("rule", ("903.5a",))]


def test_a_list_does_not_swallow_a_following_rule_word():
    assert cites("rules 306-311 and section 500, “Combat”") == [
        ("section", ("306", "307", "308", "309", "310", "311")),
        ("section", ("500",)),
    ]


# --- bare numbers ----------------------------------------------------------------


def test_bare_dotted_number_as_described_in_608_2b_is_a_reference():
    assert cites("still legal, as described in 608.2b.") == [("rule", ("608.2b",))]
    assert cites("the actions listed in 103.2a–e in order") == [
        ("rule", ("103.2a", "103.2b", "103.2c", "103.2d", "103.2e"))
    ]


def test_see_718_prototype_cards_bare_section_with_its_title_is_a_reference():
    [ref] = extract("Only some values change. See 718, “Prototype Cards.”")
    assert (ref.kind, ref.targets, ref.title) == ("section", ("718",), "Prototype Cards")


@pytest.mark.parametrize(
    "text",
    [
        "Each deck must contain at least 60 cards.",
        "Each deck must contain exactly 100 cards.",
        "It costs {3} to cast and makes a 1/1 token.",
        "Each player starts with 20 life.",
        "In 2009 the rules changed.",
        "repeat that sequence 999,999 more times",
        "Write to PO Box 707, Renton, WA 98057-0707.",
        "U.S. Pat. No. RE 37,957.",
        "Call 1-800-324-6496.",
        "Version 1.0 of 3.5 or $1.50",
        "See 100 cards.",
        "8. Multiplayer Rules\n800. General",
    ],
)
def test_counts_years_symbols_and_phone_numbers_are_not_references(text):
    assert extract(text) == []


# --- French ----------------------------------------------------------------------


def test_french_voir_regle_416_effets_is_a_section_with_its_title():
    [ref] = extract('(Voir règle 416, "Effets".)', "fr")
    assert (ref.kind, ref.targets, ref.title) == ("section", ("416",), "Effets")


def test_french_voir_regles_502_is_a_section():
    assert cites('(voir règles 502, "Mots-clés")', "fr") == [("section", ("502",))]


def test_french_paragraphes_409_1b_et_409_1f_h_list_with_a_range():
    assert cites("paragraphes 409.1b et 409.1f-h.", "fr") == [
        ("rule", ("409.1b",)),
        ("rule", ("409.1f", "409.1g", "409.1h")),
    ]


def test_french_second_reference_408_2_without_the_word_regle_is_found():
    refs = extract('Voir règle 411, "Jouer un sort" et 408.2, "Les actions".', "fr")
    assert [(r.targets, r.title) for r in refs] == [(("411",), "Jouer un sort"), (("408.2",), "Les actions")]


def test_french_cf_regles_510_1_c_d_with_a_space_before_the_letters():
    text = "Cf. règles 510.1 c-d."
    [ref] = extract(text, "fr")
    assert ref.targets == ("510.1c", "510.1d")
    assert text[ref.start : ref.end] == "510.1 c-d"
    assert ref.parts[0][2] == "510.1c" and text[ref.parts[1][0] : ref.parts[1][1]] == "d"


def test_french_regle_418_5_et_regle_503_are_two_references():
    assert cites('(Voir règle 418.5, "Effets continus" et règle 503, "Copies".)', "fr") == [
        ("rule", ("418.5",)),
        ("section", ("503",)),
    ]


def test_french_voir_regle_409_1a_in_parentheses():
    assert cites("(voir règle 409.1a)", "fr") == [("rule", ("409.1a",))]


def test_french_voir_la_regle_411_with_an_article_and_no_comma():
    [ref] = extract('Voir la règle 411 "Jouer des capacités" pour le détail.', "fr")
    assert (ref.targets, ref.title) == (("411",), "Jouer des capacités")


# --- glossary cross-links --------------------------------------------------------


def test_glossary_see_cast_links_the_headword():
    text = "An older term. See Cast."
    [ref] = extract(text)
    assert (ref.kind, ref.targets, text[ref.start : ref.end]) == ("glossary", ("Cast",), "Cast")


def test_glossary_see_also_dependency_timestamp_order_gives_two_headwords():
    assert cites("See also Dependency, Timestamp Order.") == [
        ("glossary", ("Dependency",)),
        ("glossary", ("Timestamp Order",)),
    ]


def test_glossary_link_followed_by_a_rule_gives_both():
    assert cites("See Creature Types and rule 205.3m.") == [("glossary", ("Creature Types",)), ("rule", ("205.3m",))]


def test_glossary_quoted_headword_is_unquoted():
    assert cites("See “Enters the Battlefield.”") == [("glossary", ("Enters the Battlefield",))]


def test_section_5_of_appendix_b_older_rules_is_not_chapter_5_1999_11_01():
    assert extract('(See Appendix B, "Older Rules," section 5.)') == []


def test_see_appendix_or_see_rule_is_not_a_glossary_link():
    assert cites('See Appendix B, "Older Rules."') == []
    assert cites("See Rule 0.") == []


def test_glossary_key_ignores_case_quotes_and_informal_qualifier():
    assert glossary_key("Intervening “If” Clause") == glossary_key("intervening 'if' clause.")
    assert glossary_key("Hidden Information (Informal)") == "hidden information"


# --- expand_range ----------------------------------------------------------------


@pytest.mark.parametrize(
    "first, last, expected",
    [
        ("601.2f", "601.2h", ["601.2f", "601.2g", "601.2h"]),
        ("205.3k", "205.3m", ["205.3k", "205.3m"]),
        ("704.5n", "704.5q", ["704.5n", "704.5p", "704.5q"]),
        ("704.5z", "704.5ab", ["704.5z", "704.5aa", "704.5ab"]),
        ("712.9", "712.10", ["712.9", "712.10"]),
        ("903.6", "903.8", ["903.6", "903.7", "903.8"]),
        ("212", "215", ["212", "213", "214", "215"]),
        ("2", "4", ["2", "3", "4"]),
        ("702.36a", "702.37b", ["702.36a", "702.37b"]),
        ("601.2h", "601.2f", ["601.2h", "601.2f"]),
        ("702.9", "702.9", ["702.9"]),
    ],
)
def test_expand_range_follows_the_cr_numbering(first, last, expected):
    assert expand_range(first, last) == expected


def test_expand_range_rejects_what_is_not_a_rule_number():
    with pytest.raises(ValueError):
        expand_range("601.2f", "banana")


_LETTERS = st.text(alphabet=SUBRULE_LETTERS, min_size=1, max_size=2)


@given(_LETTERS, _LETTERS, st.integers(100, 999), st.integers(1, 300))
def test_expand_range_never_yields_l_or_o_and_stays_in_order(a, b, section, rule):
    first, last = f"{section}.{rule}{a}", f"{section}.{rule}{b}"
    out = expand_range(first, last)
    assert out[0] == first and out[-1] == last
    if len(out) > 2 or (len(out) == 2 and a != b):
        assert all(not set(n.split(".")[1].lstrip("0123456789")) & {"l", "o"} for n in out)
    if sort_key(last) >= sort_key(first):
        assert [sort_key(n) for n in out] == sorted(sort_key(n) for n in out)


# --- robustness ------------------------------------------------------------------

_CR_ALPHABET = st.sampled_from(
    [
        "rule ",
        "rules ",
        "section ",
        "See ",
        "see ",
        "also ",
        "règle ",
        "et ",
        "and ",
        "or ",
        "601",
        ".2",
        "f",
        "–",
        "-",
        "?",
        "h",
        ", ",
        "“Title,” ",
        '"',
        "«",
        "»",
        "8",
        " ",
        "\n",
        "100",
        "cards",
        "Cast",
        ".",
        "(",
        ")",
        "712.9",
        "10",
        "a",
        "b",
        "l",
        "o",
        "{3}",
        "1/1",
    ]
)


@settings(max_examples=300)
@given(
    st.one_of(st.text(max_size=200), st.lists(_CR_ALPHABET, max_size=40).map("".join)),
    st.sampled_from(["en", "fr", "de"]),
)
def test_extract_never_raises_and_spans_stay_inside_the_text(text, lang):
    for ref in extract(text, lang):
        assert 0 <= ref.start < ref.end <= len(text)
        assert ref.kind in ("rule", "section", "chapter", "glossary")
        assert ref.targets
        for s, e, number in ref.parts:
            assert ref.start <= s < e <= ref.end
            if ref.kind != "glossary":
                assert re.fullmatch(r"\d|[1-9]\d\d(\.\d+[a-z]{0,2})?", number)


@settings(max_examples=150)
@given(st.lists(st.lists(_CR_ALPHABET, max_size=25).map("".join), max_size=8), st.sampled_from(["en", "fr"]))
def test_extract_many_equals_extract_on_each_text(texts, lang):
    assert extract_many(texts, lang) == [extract(t, lang) for t in texts]


def test_every_family_in_the_chain_has_a_docstring_and_a_name():
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
    assert all(f.parse.__doc__ for f in FAMILIES)


# --- the real corpus -------------------------------------------------------------


def test_raw_line_of_rule_100_1b_cites_chapter_8_multiplayer_rules(en_dir):
    text = (en_dir / "2026-08-07.txt").read_text(encoding="utf-8-sig")
    line = next(ln for ln in text.splitlines() if ln.startswith("100.1b "))
    [ref] = extract(line.split(" ", 1)[1])
    assert (ref.kind, ref.targets, ref.title) == ("chapter", ("8",), "Multiplayer Rules")


@pytest.fixture(scope="module")
def parse(en_dir):
    from comprules.corpus import parse_file

    cache: dict[str, object] = {}

    def get(date: str):
        if date not in cache:
            cache[date] = parse_file(en_dir / f"{date}.txt")
        return cache[date]

    return get


def test_2026_08_07_holds_1987_references_and_the_morph_glossary_cites_rule_702_37(parse):
    from comprules.references import resolve

    edition = parse("2026-08-07")
    resolution = resolve(edition)
    assert resolution.count == 1987  # 1128 in rules and examples, 859 in the glossary
    assert "702.37" in resolution.glossary_refs["morph"]
    assert resolution.refs["100.1b"] == ("8",)
    assert resolution.refs["701.28a"][:3] == ("701.27a", "701.27b", "701.27c")


def test_2026_08_07_has_no_dangling_reference(parse):
    from comprules.references import resolve

    assert resolve(parse("2026-08-07")).dangling == []


def test_2009_07_11_dangling_602_1i_and_405_3c_are_misprints_of_the_cr(parse):
    """Neither 602.1i nor 405.3c exists in that edition: the CR cites them anyway."""
    from comprules.references import resolve

    dangling = resolve(parse("2009-07-11")).dangling
    assert [(d.source, d.target) for d in dangling] == [("401.6", "602.1i"), ("605.3b", "405.3c")]
    assert all(isinstance(d, Dangling) and d.kind == "rule" for d in dangling)


def test_glossary_see_also_links_resolve_to_glossary_entries_in_2026_08_07(parse):
    from comprules.references import resolve

    resolution = resolve(parse("2026-08-07"))
    links = resolution.glossary_links
    assert sum(map(len, links.values())) == 52
    assert all(not d.kind == "glossary" for d in resolution.dangling)


def test_french_seed_fragment_cites_rule_416_effets_and_all_its_targets_lie_outside(seeds_dir):
    """A fragment (a forum post quoting rule 602) cites rules it does not contain:
    they are ``external``, not dangling."""
    from comprules.corpus import parse_file
    from comprules.references import resolve

    edition = parse_file(seeds_dir / "001_efcdb25c5e4b3248.txt")
    found = [ref for r in edition.rules for ref in extract(r.text, "fr")]
    assert ("416", "Effets") in [(ref.targets[0], ref.title) for ref in found]
    resolution = resolve(edition)
    assert (resolution.count, resolution.unresolved, resolution.dangling) == (8, 8, [])
    assert [d.target for d in resolution.external] == [
        "400.1",
        "416",
        "502",
        "405.2",
        "419.6i",
        "502.51",
        "418.5",
        "405.2",
    ]


# --- every form of issue 3, in one table -------------------------------------------


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        ("en", "as described in rule 702.36.", [("702.36",)]),
        ("en", "(See rule 104.3a.)", [("104.3a",)]),
        ("en", "See rule 105, “Colors.”", [("105",)]),
        ("en", "See section 8, “Multiplayer Rules.”", [("8",)]),
        ("en", "rules 601.2f–h", [("601.2f", "601.2g", "601.2h")]),
        ("en", "in 601.2g-h", [("601.2g", "601.2h")]),
        ("en", "rules 205.3k–m", [("205.3k", "205.3m")]),
        (
            "en",
            "rules 701.27a–f, 712.9–10, and 712.18.",
            [tuple(f"701.27{c}" for c in "abcdef"), ("712.9", "712.10"), ("712.18",)],
        ),
        ("en", "rules 903.6–903.11", [tuple(f"903.{i}" for i in range(6, 12))]),
        ("en", "rule 509, “Declare Blockers Step”", [("509",)]),
        ("en", "See Cast.", [("Cast",)]),
        ("fr", 'voir règle 416, "Effets"', [("416",)]),
        ("fr", 'Voir règles 502, "Capacités à mot-clef"', [("502",)]),
        ("fr", "paragraphes 409.1b et 409.1f-h", [("409.1b",), ("409.1f", "409.1g", "409.1h")]),
        ("fr", 'Voir règle 411, "Jouer les capacités de mana" et 408.2, "Les actions".', [("411",), ("408.2",)]),
        ("fr", "Cf. règles 510.1 c-d", [("510.1c", "510.1d")]),
        (
            "fr",
            '(Voir règle 418.5, "Interaction des effets continus" et règle 503, "Copier des objets".)',
            [("418.5",), ("503",)],
        ),
        ("en", "Each deck must contain at least 60 cards.", []),
        ("en", "{3}: Add {C}{C}{C}.", []),
        ("en", "Since 2009, and in 1999.", []),
        ("fr", "Chaque joueur commence avec 20 points de vie en 2006.", []),
    ],
)
def test_every_reference_form_of_issue_3_and_no_false_positive(lang, text, expected):
    assert [r.targets for r in extract(text, lang)] == expected


# --- quoted titles ----------------------------------------------------------------


@pytest.mark.parametrize(
    "quoted, actual, agree",
    [
        ("Declare Blockers Step", "Declare Blockers Step", True),
        ("Lands", "Land", True),
        ("Prevention and Replacement Effects", "Replacement and Prevention Effects", True),
        ("Free-for-All", "Free-for-All Variant", True),
        ("Continuous Effects", "Interaction of Continuous Effects", True),
        ("Intervening ?If? Clause", "Intervening “If” Clause", True),
        ("Day and Night", "Merging with Permanents", False),
        ("Exert", "Goad", False),
        ("Attack Multiple Players Option", "Deploy Creatures Option", False),
    ],
)
def test_titles_agree_by_words_singular_or_plural_in_order_or_as_a_part(quoted, actual, agree):
    from comprules.references import titles_agree

    assert titles_agree(quoted, actual) is agree


def test_rule_509_declare_blockers_step_title_checks_against_section_509_of_2026_08_07(parse):
    from comprules.references import resolve

    edition = parse("2026-08-07")
    assert "rule 509, “Declare Blockers Step,” and rule 702.17, “Reach.”" in edition.get("702.9b").text
    resolution = resolve(edition)
    assert [(t.source, t.target, t.quoted, t.actual) for t in resolution.titles] == [
        ("glossary/endure", "702.62", "Endure", "Suspend")
    ]


def test_title_day_and_night_for_section_727_merging_with_permanents_in_2024_07_30(parse):
    from comprules.references import resolve

    titles = resolve(parse("2024-07-30")).titles
    assert [(t.source, t.target, t.quoted, t.actual) for t in titles] == [
        ("502.2", "727", "Day and Night", "Merging with Permanents"),
        ("702.145b", "727", "Day and Night", "Merging with Permanents"),
        ("glossary/day", "727", "Day and Night", "Merging with Permanents"),
        ("glossary/daybound", "727", "Day and Night", "Merging with Permanents"),
    ]


def test_untitled_target_agrees_when_its_text_holds_the_words_609_7_sources_of_damage(parse):
    from comprules.references import resolve

    edition = parse("2026-08-07")
    assert "rule 609.7, “Sources of Damage.”" in edition.get("120.7").text
    assert edition.get("609.7").title is None
    assert not [t for t in resolve(edition).titles if t.target == "609.7"]


def test_untitled_target_214_4_cited_as_enchantments_is_checked_against_section_214_permanents(parse):
    from comprules.references import resolve

    [t] = resolve(parse("2004-10-01")).titles
    assert (t.source, t.target, t.quoted, t.actual) == ("205.2c", "214.4", "Enchantments", "Permanents")


# --- glossary cross-links ---------------------------------------------------------


def test_glossary_play_see_cast_activate_battlefield_link_three_entries_in_2026_08_07(parse):
    from comprules.references import resolve

    assert resolve(parse("2026-08-07")).glossary_links["glossary/play"] == ("cast", "activate", "battlefield")


# --- resolution over the whole corpus (README, "Reference resolution") --------------

#: Every reference left unresolved in the 74 English editions: (edition, citing unit,
#: missing target). Each is a defect of that edition of the CR, listed by
#: ``comprules check``: the target does not exist there (rule 409 of 1999-04-23 stops
#: at 409.3; 2009-10-01 inserted loyalty rule 112.5 and kept citing "112.5a-j" for
#: 112.6a–j; the Map token cites rule 110.10 for the token list 111.10 …).
KNOWN_UNRESOLVED = [
    ("1999-04-23", "308.2", "409.9"),
    ("1999-11-01", "glossary/counter", "Poison Counters"),
    ("2005-08-01", "421.4", "102.6"),
    ("2005-10-01", "421.4", "102.6"),
    ("2006-02-01", "405.1", "402.9"),
    ("2007-05-01", "418.5k", "419.1f"),
    *[
        ("2007-05-01", f"glossary/{land}cycling", "Landcycling")
        for land in ("forest", "island", "mountain", "plains", "swamp")
    ],
    ("2009-07-11", "401.6", "602.1i"),
    ("2009-07-11", "605.3b", "405.3c"),
    ("2009-09-04", "605.3b", "405.3c"),
    *[("2009-10-01", "112.3a", f"112.5{c}") for c in "abcdefghij"],
    ("2009-10-01", "605.3b", "405.3c"),
    *[(d, "702.123d", "903.11a") for d in ("2016-11-11", "2017-04-28", "2017-09-29")],
    *[
        (d, "glossary/map", "110.10")
        for d in (
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
        )
    ],
]


@pytest.fixture(scope="module")
def resolutions(editions):
    from comprules.references import resolve

    return {name: resolve(e) for name, e in editions.items() if name.startswith("en/")}


def test_every_edition_from_2009_07_11_resolves_at_least_99_5_percent_of_its_references(editions, resolutions):
    from datetime import date

    assert len(resolutions) == 74
    modern = {n: r.share for n, r in resolutions.items() if editions[n].effective >= date(2009, 7, 11)}
    assert len(modern) == 45
    assert min(modern.values()) >= 0.995
    assert min(modern, key=modern.get) == "en/2009-07-11"  # 992 of 994
    assert (resolutions["en/2009-07-11"].resolved, resolutions["en/2009-07-11"].count) == (992, 994)
    assert min(r.share for r in resolutions.values()) > 0.99  # 2007-05-01: 732 of 738


def test_the_unresolved_references_of_all_74_editions_are_exactly_the_known_defects(resolutions):
    found = [(n.removeprefix("en/"), d.source, d.target) for n, r in sorted(resolutions.items()) for d in r.dangling]
    assert found == KNOWN_UNRESOLVED
    assert all(not r.external for r in resolutions.values())
    assert sum(r.unresolved for r in resolutions.values()) == 29  # printed references, a range once


# ---------------------------------------------------------------------------
# Citations: every printed target, with its status (issue 12)


def test_seed_000_402_1_cites_400_1_and_416_effets_as_external_in_printed_order(seeds_dir):
    from comprules.corpus import parse_file
    from comprules.references import Citation, resolve

    resolution = resolve(parse_file(seeds_dir / "000_f51ad62258817a66.txt"))
    assert resolution.refs.get("402.1") is None  # nothing inside the extract
    assert resolution.cites["402.1"] == (
        Citation("400.1", "rule", "external"),
        Citation("416", "section", "external", title="Effets"),
    )


def test_seed_004_502_24b_cites_409_1b_and_the_range_409_1f_h_member_by_member(seeds_dir):
    from comprules.corpus import parse_file
    from comprules.references import resolve

    resolution = resolve(parse_file(seeds_dir / "004_99dc3338bd3ea994.txt"))
    assert [(c.target, c.status) for c in resolution.cites["502.24b"]] == [
        ("409.1b", "external"),
        ("409.1f", "external"),
        ("409.1g", "external"),
        ("409.1h", "external"),
    ]
    assert [(c.target, c.title) for c in resolution.cites["502.26f"]] == [("504", "Sorts et permanents face cachée")]


def test_external_citations_resolve_in_the_english_edition_with_the_french_title_checked(seeds_dir, parse):
    from comprules.align.crosslang import title_translates
    from comprules.corpus import parse_file
    from comprules.references import resolve, resolve_external

    fragment = resolve(parse_file(seeds_dir / "000_f51ad62258817a66.txt"))
    english = parse("2002-10-07")
    assert english.get("416").title == "Effects"
    resolved = resolve_external(fragment, english, title_translates)
    assert [(c.resolved, c.status, c.title_agrees) for c in resolved.cites["402.1"]] == [
        ("en/2002-10-07/400.1", "external", None),
        ("en/2002-10-07/416", "external", True),
    ]
    # a quote the lexicon does not give ("Capacités à mots-clefs" for 502 "Keyword Abilities") does not agree
    assert [(c.target, c.resolved, c.title_agrees) for c in resolved.cites["402.7"]] == [
        ("502", "en/2002-10-07/502", False)
    ]
    assert resolved.external == fragment.external and resolved.count == fragment.count  # check counts as before


def test_a_dangling_citation_of_a_complete_edition_is_kept_with_status_dangling(parse):
    from comprules.references import resolve

    resolution = resolve(parse("2009-07-11"))
    assert [(c.target, c.status, c.resolved) for c in resolution.cites["401.6"]] == [("602.1i", "dangling", None)]
    assert "401.6" not in resolution.refs
    internal = resolution.cites["605.3b"]
    assert [(c.target, c.status) for c in internal] == [("405.3c", "dangling")]
    morph = resolution.cites["glossary/morph"]
    assert [(c.target, c.status, c.resolved, c.title_agrees) for c in morph] == [
        ("702.34", "internal", "en/2009-07-11/702.34", True),
        ("707", "internal", "en/2009-07-11/707", True),
    ]


def test_glossary_citations_resolve_to_glossary_nodes_in_printed_order(parse):
    from comprules.references import resolve

    cites = resolve(parse("2026-08-07")).cites["glossary/play"]
    assert [(c.target, c.kind, c.resolved) for c in cites] == [
        ("116", "section", "en/2026-08-07/116"),
        ("305", "section", "en/2026-08-07/305"),
        ("601", "section", "en/2026-08-07/601"),
        ("Cast", "glossary", "en/2026-08-07/glossary/cast"),
        ("Activate", "glossary", "en/2026-08-07/glossary/activate"),
        ("Battlefield", "glossary", "en/2026-08-07/glossary/battlefield"),
    ]
    assert all(c.title_agrees for c in cites[:3])
