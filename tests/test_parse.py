"""Parsing rules, examples and glossary of every real edition and the French seeds (issue 2)."""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from pathlib import Path

import pytest

from comprules.corpus import parse_file, parse_text
from comprules.model import sort_key

# "100.1. Text", "100.1a Text", "305.3.After" (1999, no space), "702. 37a Storm" (2009-07-11).
NUMBERED = re.compile(r"^\s*(\d{3}\.\d+[a-z]{0,2}(\.?(\s|$)|\.[A-Z])|\d{3}\. \d+[a-z]{1,2}\s)")


def independent_rule_line_count(path: Path) -> int:
    """Count rule and subrule lines straight from the text, without the parser.

    Only the part between the first "100.1" line and the glossary heading is read. A
    numbered line counts when it starts a paragraph: after a blank line, or after a
    line ending a sentence (never after "See rule" cut by a hard wrap, as 2003-10-01
    prints "See rule\\n103.4. If …").
    """
    lines = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = next(i for i, line in enumerate(lines) if re.match(r"^\s*100\.1\.?\s", line))
    end = next(i for i in range(start, len(lines)) if lines[i].strip() in ("Glossary", "Glossaire"))
    count, previous = 0, ""
    for line in lines[start:end]:
        if NUMBERED.match(line):
            tail = previous.rstrip()
            if not tail or tail[-1] in '.:!?)"”' and not tail.endswith("rule"):
                count += 1
        previous = line
    return count


@lru_cache(maxsize=None)
def parsed(path: str):
    return parse_file(path)


def test_all_74_editions_parse_with_their_header_date(en_files):
    for path in en_files:
        edition = parsed(str(path))
        assert edition.kind == "edition", path.name
        assert edition.name == f"en/{path.stem}"
        assert edition.effective == date.fromisoformat(path.stem)
        assert edition.lang == "en"


@pytest.mark.parametrize("stem", [f"{y}" for y in range(74)])
def test_rule_lines_parsed_equal_an_independent_count(en_files, stem):
    path = en_files[int(stem)]
    edition = parsed(str(path))
    assert len(edition.numbered()) == independent_rule_line_count(path), path.name


@pytest.mark.parametrize(
    "name,rules,sections,glossary",
    [
        ("1999-04-23", 347, 63, 175),  # hard-wrapped, indented subrules, "-----" dividers, "305.3.After"
        ("2003-10-01", 686, 69, 299),  # hard-wrapped with "See rule\n103.4." continuations
        ("2009-07-11", 1472, 104, 408),  # the Magic 2010 renumbering; "702. 37a" misprint
        ("2026-08-07", 3162, 147, 739),
    ],
)
def test_counts_of_landmark_editions(en_dir, name, rules, sections, glossary):
    edition = parsed(str(en_dir / f"{name}.txt"))
    assert len(edition.numbered()) == rules
    assert len(edition.sections()) == sections
    assert len(edition.glossary) == glossary


def test_contents_and_introduction_are_not_rules(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    chapters = [r for r in edition.rules if r.kind == "chapter"]
    assert [c.number for c in chapters] == [str(i) for i in range(1, 10)]
    assert edition.rules[0].number == "1" and edition.rules[0].line == 182
    assert edition.get("100").title == "General"


def test_two_letter_subrule_704_5aa_has_parent_704_5_and_sorts_after_704_5z(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    rule = edition.get("704.5aa")
    assert rule.parent == "704.5" and rule.kind == "subrule"
    kids = [r.number for r in edition.children["704.5"]]
    assert kids == sorted(kids, key=sort_key)
    assert kids.index("704.5z") < kids.index("704.5aa")
    assert "704.5l" not in kids and "704.5m" in kids


def test_keyword_heading_702_37_is_titled_morph(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    assert edition.get("702.37").title == "Morph"
    assert edition.get("702.37a").text.startswith("Morph is a static ability")


def test_613_6_keeps_all_four_examples(en_dir):
    rule = parsed(str(en_dir / "2026-08-07.txt")).get("613.6")
    assert len(rule.examples) == 4
    assert all(not ex.startswith("Example") for ex in rule.examples)


def test_hard_wrapped_2003_10_01_rejoins_see_rule_407_instead_of_starting_a_rule(en_dir):
    edition = parsed(str(en_dir / "2003-10-01.txt"))
    assert edition.get("103.2").text.endswith('See rule 407, "Adding and Removing Abilities."')
    assert edition.get("103.4").examples[0].startswith('A card states "Each player sacrifices a creature."')
    assert "\n" not in edition.get("103.4").text


def test_1999_indented_subrules_and_uppercase_examples(en_dir):
    edition = parsed(str(en_dir / "1999-04-23.txt"))
    assert edition.get("406.1").title == "Mana Abilities"
    assert edition.get("406.2b").examples[0].startswith("Part of an effect reads")
    assert edition.get("406.2b").text.endswith("may make the trigger event impossible.")


def test_rule_printed_without_trailing_dot_102_8_of_2001(en_dir):
    rule = parsed(str(en_dir / "2001-09-24.txt")).get("102.8")
    assert rule.text.startswith("If a player has ten or more poison counters")


def test_duplicate_numbers_are_kept_both_with_a_warning(en_dir):
    edition = parsed(str(en_dir / "2006-05-01.txt"))
    assert edition.get("501.2").text == "Evasion abilities are cumulative."
    assert edition.get("501.2~2").text.startswith("Status is not a characteristic")
    dups = [w for w in edition.warnings if w.kind == "duplicate-number"]
    assert [w.number for w in dups] == ["501.2", "501.3"]


def test_glossary_aliases_obsolete_senses_and_last_entry(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    gloss = {g.term: g for g in edition.glossary}
    assert edition.glossary[0].term == "Abandon"
    assert edition.glossary[-1].term == "Zone-Change Triggers"
    assert gloss["Control"].aliases == ("Controller",)
    assert gloss["You"].aliases == ("Your",)
    assert gloss["Active Player, Nonactive Player Order"].aliases == ()
    assert gloss["Bury"].obsolete and not gloss["Abandon"].obsolete
    assert len(gloss["Ability"].senses) == 2
    assert gloss["Ability"].senses[0] == "Text on an object that explains what that object does or can do."


def test_1999_glossary_joins_indented_wrapped_definitions(en_dir):
    entry = parsed(str(en_dir / "1999-04-23.txt")).glossary[0]
    assert entry.term == "Ability"
    assert "An instruction in a permanent's text is an ability." in entry.text


# --- French seeds ------------------------------------------------------------------


def seed(seeds_dir, prefix):
    return parsed(str(next(seeds_dir.glob(f"{prefix}_*.txt"))))


def test_seed_000_numbered_rules_402_to_406(seeds_dir):
    edition = seed(seeds_dir, "000")
    assert edition.lang == "fr" and edition.kind == "fragment" and edition.effective is None
    assert edition.name == "fr/000_f51ad62258817a66"
    numbers = {r.number for r in edition.numbered()}
    expected = {f"402.{i}" for i in range(1, 11)} | {"403.1", "403.2", "403.3", "404.1", "404.2", "404.3", "405.1"}
    expected |= {"406.1", "406.2"} | {f"406.1{c}" for c in "abcde"} | {f"406.2{c}" for c in "abcde"}
    assert numbers == expected
    assert edition.get("402").title == "Capacités"
    assert edition.get("406.1").title == "Capacités de mana"
    assert edition.get("402.8").examples[0].startswith("une capacité dont l'un des coûts")


def test_seed_000_forum_chatter_is_kept_as_notes_not_rules(seeds_dir):
    edition = seed(seeds_dir, "000")
    notes = [r for r in edition.rules if r.kind == "note"]
    assert [n.id for n in notes] == ["¶1", "¶2", "¶3", "¶4", "¶5", "¶6", "406¶1"]
    assert notes[0].text == "Capacité=effet ?" and notes[-1].text == "Sinon : Les règles en français"
    assert not any("Salut" in r.text for r in edition.numbered())
    assert not [r for r in edition.rules if r.kind == "passage"]


def test_seed_001_unnumbered_section_602_becomes_positional_passages(seeds_dir):
    edition = seed(seeds_dir, "001")
    assert edition.get("602").title == "Capacités"
    first = edition.get("602¶1")
    assert first.text.startswith("Une capacité est un texte sur un objet")
    assert edition.get("602¶3").examples == ('"Cette créature ne peut pas bloquer" est une capacité.',)


def test_seed_002_section_with_colon_and_repeated_quote_kept_once(seeds_dir):
    edition = seed(seeds_dir, "002")
    assert edition.get("406").title == "Capacité de mana"
    assert [r.id for r in edition.numbered()] == [f"406.{i}" for i in range(1, 7)]
    assert [(w.kind, w.line) for w in edition.warnings] == [("lost-symbol", 17), ("repeated-quote", 27)]


def test_seed_003_rulebook_headings_become_glossary_entries(seeds_dir):
    edition = seed(seeds_dir, "003")
    assert [g.term for g in edition.glossary] == [
        "Peur",
        "Initiative",
        "Vol",
        "Célérité",
        "Traversée de terrain",
        "Protection contre",
        "Régénération",
        "Piétinement",
        "Double initiative",
    ]
    vol = edition.glossary[2]
    assert (vol.slug, vol.line) == ("vol", 15) and vol.text.startswith("Une créature volante")
    assert not edition.numbered() and not [r for r in edition.rules if r.kind == "passage"]


def test_seed_004_keyword_headings_without_trailing_dot(seeds_dir):
    edition = seed(seeds_dir, "004")
    assert edition.get("502.42").title == "Offrande"
    assert edition.get("502.26").title == "Mue"
    assert [r.number for r in edition.children["502.26"]] == [f"502.26{c}" for c in "abcdef"]
    assert not any("ninja est révélé" in r.text for r in edition.numbered())


# --- own fixtures -------------------------------------------------------------------

FRENCH_EDITION = """Règles complètes

Ces règles entrent en vigueur au 1er mai 2006.

1. Concepts du jeu

100. Généralités

100.1. Une règle de test.

100.1a Une sous-règle de test.
Exemple : un exemple de test.

Glossaire

Capacité
Un texte de test. Voir règle 100.1.

Crédits
"""


def test_french_edition_header_date_and_glossary():
    edition = parse_text(FRENCH_EDITION, "fr-test.txt")
    assert edition.name == "fr/2006-05-01" and edition.kind == "edition"
    assert edition.get("100.1a").examples == ("un exemple de test.",)
    assert [g.term for g in edition.glossary] == ["Capacité"]


def test_example_after_a_no_break_space_line_still_attaches():
    text = (
        "Intro\n\nThese rules are effective as of May 1, 2020.\n\n1. Game\n\n100. General\n\n"
        "100.1. A rule.\n\u00a0\nExample: the example.\n\nGlossary\n\nTerm\nDefinition.\n"
    )
    edition = parse_text(text, "nbsp.txt")
    assert edition.get("100.1").examples == ("the example.",)


def test_misprinted_numbers_305_3_after_and_702_space_37a_are_read_with_a_warning(en_dir):
    assert parsed(str(en_dir / "1999-04-23.txt")).get("305.3").text.startswith("After triggered abilities")
    edition = parsed(str(en_dir / "2009-07-11.txt"))
    assert edition.get("702.37a").text.startswith("Storm is a triggered ability")
    assert edition.get("702.37").title == "Storm"
    assert [w.number for w in edition.warnings if w.kind == "malformed-number"] == ["702.37a", "702.37b"]


# --- issue 3: hard cases -------------------------------------------------------------


def test_602_2a_printed_twice_in_2005_08_01_is_read_once_with_a_warning(en_dir):
    edition = parsed(str(en_dir / "2005-08-01.txt"))
    assert edition.get("602.2a").text.startswith("Any rule, object, or effect that refers to")
    assert [(w.kind, w.number, w.line) for w in edition.warnings if w.kind == "repeated-number"] == [
        ("repeated-number", "602.2a", 2013)
    ]


def test_keyword_headings_ending_in_a_bang_for_mirrodin_and_start_your_engines_are_titles(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    assert edition.get("702.163").title == "For Mirrodin!"
    assert edition.get("702.179").title == "Start Your Engines!"
    assert edition.get("702.186").title == "∞ (Infinity)"


def test_sentences_ending_in_a_colon_like_704_5_are_not_titles(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    assert edition.get("704.5").title is None
    assert edition.get("704.5").text == "The state-based actions are as follows:"


def test_704_5_lists_its_subrules_past_the_skipped_letters_l_and_o(en_dir):
    edition = parsed(str(en_dir / "2026-08-07.txt"))
    letters = [r.number[len("704.5") :] for r in edition.children["704.5"]]
    assert letters == list("abcdefghijkmnpqrstuvwxyz") + ["aa"]


def test_underscore_italics_of_2008_to_2014_are_kept_as_printed_and_plain_text_strips_them(en_dir):
    from comprules.model import plain_text

    rule = parsed(str(en_dir / "2010-07-16.txt")).get("100.6").text
    assert "__Magic: The Gathering__ Tournament Rules" in rule
    assert "the Magic: The Gathering Tournament Rules" in plain_text(rule) and "_" not in plain_text(rule)
    odyssey = parsed(str(en_dir / "2009-07-11.txt")).get("107.8").text
    assert "_Odyssey_TM block" in odyssey and "OdysseyTM block" in plain_text(odyssey)
    oracle = parsed(str(en_dir / "2008-07-15.txt")).get("200.2").text
    assert "Oracle_(TM) card reference" in oracle and "Oracle(TM) card reference" in plain_text(oracle)
    wolf = next(r.text for r in parsed(str(en_dir / "2026-08-07.txt")).rules if "________" in r.text)
    assert plain_text(wolf) == wolf  # "Wolf in ________ Clothing": a blank to fill, not emphasis


def test_trademarks_and_quotes_are_kept_as_printed(en_dir):
    assert "DCI(tm) Magic" in parsed(str(en_dir / "1999-11-01.txt")).get("100.3").text
    assert "DCI™ Floor Rules" in parsed(str(en_dir / "2004-02-01.txt")).get("100.5").text
    assert "Unfinity™" in parsed(str(en_dir / "2026-08-07.txt")).get("100.7").text
    assert 'See section 6, "Multiplayer Rules."' in parsed(str(en_dir / "2008-07-15.txt")).get("100.1b").text
    assert "See section 8, “Multiplayer Rules.”" in parsed(str(en_dir / "2026-08-07.txt")).get("100.1b").text
