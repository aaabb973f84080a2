"""Alignment of two editions (issue 4), on the real corpus and seeds.

Every asserted number was read in the two source files concerned (see the comments).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from comprules.align import evaluate as align_eval
from comprules.align.alignment import RULE_KINDS, align, tokens, word_changes

SEED_402 = "fr/000_f51ad62258817a66"  # forum post quoting 402.1–402.10 in French
SEED_602 = "fr/001_efcdb25c5e4b3248"  # section 602 "Capacités" as unnumbered paragraphs


@pytest.fixture(scope="module")
def renumbering(editions):
    """2009-05-01 → 2009-07-11, the big renumbering."""
    return align(editions["en/2009-05-01"], editions["en/2009-07-11"])


@pytest.fixture(scope="module")
def storied(editions):
    """2026-06-19 → 2026-08-07: Recruit, Storied, hone counters, non-Siege battles."""
    return align(editions["en/2026-06-19"], editions["en/2026-08-07"])


def targets(alignment, old):
    return [(c.new, c.kind) for c in alignment.forward[old]]


# --- 2009-07-11: keywords 502.x → 702.y, by text ---------------------------------


def test_502_26_morph_moves_to_702_34_by_text_in_2009(renumbering):
    # 2009-07-11 prints "702.34. Morph" (702.36 is Provoke); the DESIGN example's
    # 702.34a → 702.36a → 702.37a lineage starts there.
    assert targets(renumbering, "502.26") == [("702.34", "renumbered")]
    for letter in "abcd":
        assert renumbering.forward[f"502.26{letter}"][0].new == f"702.34{letter}"
    # 502.26e (turning a permanent face down) moved to the face-down rules
    assert renumbering.forward["502.26e"][0].new == "707.2a"
    # 502.26f "See rule 504" became 702.34e "See rule 707"
    assert renumbering.forward["502.26f"][0].new == "702.34e"


def test_morph_rules_text_edited_play_becomes_cast(renumbering):
    change = renumbering.forward["502.26a"][0]
    assert change.kind == "renumbered" and change.edited
    assert ("play", "cast") in {(w.old, w.new) for w in change.changes}
    assert 0.7 < change.similarity < 1


def test_502_2_first_strike_moves_to_702_7(renumbering):
    assert targets(renumbering, "502.2") == [("702.7", "renumbered")]
    assert renumbering.forward["502.2a"][0].new == "702.7a"


def test_every_keyword_heading_of_2009_follows_its_title(editions, renumbering):
    pairs = align_eval.heading_pairs(editions["en/2009-05-01"], editions["en/2009-07-11"])
    assert len(pairs) == 88  # 80 keyword abilities (502 → 702) and 8 keyword actions (501 → 701)
    assert sum(o.startswith("502.") for o in pairs) == 80
    assert ("502.42", "702.45") in pairs.items()  # Offering
    assert ("502.43", "702.46") in pairs.items()  # Ninjutsu
    assert align_eval.score(renumbering, pairs).recall == 1.0


def test_sections_402_406_502_504_are_renumbered_in_2009(renumbering):
    rows = {(s.old, s.new): s.kind for s in renumbering.sections}
    assert rows[("402", "112")] == "renumbered"  # "Abilities"
    assert rows[("502", "702")] == "renumbered"  # "Keyword Abilities"
    assert rows[("504", "707")] == "renumbered"  # "Face-Down Spells and Permanents"
    # 406 "Mana Abilities" went to 605 "Mana Abilities", its last two rules to 106 "Mana"
    assert rows[("406", "605")] == "split" and rows[("406", "106")] == "split"
    assert renumbering.forward["406.6"][0].new == "106.5"


def test_2009_renumbering_truth_set_precision_and_recall(editions, renumbering):
    old, new = editions["en/2009-05-01"], editions["en/2009-07-11"]
    truth = align_eval.truth(old, new)
    for kind, floor in (("heading", 1.0), ("letter", 0.99), ("glossary", 0.9), ("section", 0.97)):
        s = align_eval.score(renumbering, truth[kind], sections=kind == "section")
        assert s.precision >= floor and s.recall >= floor, (kind, s.precision, s.recall, s.misses[:5])


def test_every_rule_of_both_editions_is_on_its_side_once(editions, renumbering):
    old, new = editions["en/2009-05-01"], editions["en/2009-07-11"]
    units = lambda ed: {r.id for r in ed.rules if r.kind not in ("chapter", "section")}  # noqa: E731
    assert set(renumbering.forward) == units(old)
    assert set(renumbering.backward) == units(new)
    assert {c.kind for c in renumbering.rules} <= set(RULE_KINDS)
    for c in renumbering.rules:
        if c.kind in ("added", "removed"):
            assert (c.old is None) != (c.new is None)


def test_section_8_reference_follows_chapter_renumbering_without_an_edit(renumbering):
    # 100.1b "See section 6, “Multiplayer Rules.”" → "See section 8, …"
    change = renumbering.forward["100.1b"][0]
    assert (change.new, change.kind, change.changes) == ("100.1b", "kept", ())


# --- 2026-08-07: the new set, nothing spurious ---------------------------------


def test_2026_08_07_adds_exactly_the_rules_of_the_new_set(storied):
    # read in `diff 2026-06-19.txt 2026-08-07.txt`: hone counters, non-Siege battles,
    # Recruit, Storied, and a state-based action for non-Siege battles
    assert [c.new for c in storied.rules if c.kind == "added"] == [
        "122.1j",
        "310.8",
        "701.70",
        "701.70a",
        "702.195",
        "702.195a",
        "702.195b",
        "702.195c",
        "704.5w",
    ]
    assert [c for c in storied.rules if c.kind in ("removed", "split", "merged")] == []


def test_2026_08_07_edits_and_renumberings_are_the_real_ones(storied):
    assert [c.old for c in storied.rules if c.kind == "edited"] == ["310.7", "506.4", "605.1a", "704.5v", "722.3a"]
    moved = {c.old: c.new for c in storied.rules if c.kind == "renumbered"}
    assert moved["310.8"] == "310.9" and moved["310.11b"] == "310.12b"
    assert moved["704.5z"] == "704.5aa"
    assert len(moved) == 17
    assert sorted(c.old for c in storied.rules if c.kind == "renumbered" and c.edited) == [
        "310.10",
        "310.11",
        "310.8a",
        "704.5w",
        "704.5x",
    ]
    assert [s.new for s in storied.sections if s.kind != "kept"] == [
        "122",
        "310",
        "506",
        "605",
        "701",
        "702",
        "704",
        "722",
    ]


def test_722_3a_comma_to_period_is_a_word_level_edit(storied):
    change = storied.forward["722.3a"][0]
    assert [(w.op, w.old, w.new) for w in change.changes] == [("replace", ",", ".")]


def test_2026_08_07_facets_9_added_5_edited_5_moved_and_edited_12_moved(storied):
    assert storied.facet_counts() == {"added": 9, "edited": 5, "moved + edited": 5, "moved": 12}
    # the 12 pure moves: same words, only the numbers they cite followed the renumbering
    pure = [c for c in storied.rules if c.facet == "moved"]
    assert {c.words for c in pure} <= {None, "references"}
    assert ("310.11b", "310.12b") in {(c.old, c.new) for c in pure}


def test_310_8a_to_310_9a_is_moved_and_edited(storied):
    # "becomes its protector" → "only … can be its protector": a real rules change
    change = storied.forward["310.8a"][0]
    assert (change.new, change.moved, change.words, change.facet) == ("310.9a", True, "edited", "moved + edited")


def test_deathtouch_502_63a_to_702_2a_is_moved_and_edited_in_2009(renumbering):
    # deathtouch went from a triggered to a static ability: not "moved 37 %"
    change = renumbering.forward["502.63a"][0]
    assert (change.new, change.facet) == ("702.2a", "moved + edited")
    assert ("replace", "triggered", "static") in {(w.op, w.old, w.new) for w in change.changes}


def test_replacement_and_prevention_of_419_1_go_to_613_and_614_by_their_words_in_2009(renumbering):
    # 2009-05-01 419.1a ("instead" … "skip") became 613.1a ("instead") and 613.1b ("skip");
    # 419.1d ("prevent") became 614.1a, past the next rule kept in order (419.1e → 613.1e):
    # it once took 613.1a, the only free place before it, and 614.1a was "added"
    assert targets(renumbering, "419.1d") == [("614.1a", "renumbered")]
    assert sorted(targets(renumbering, "419.1a")) == [("613.1a", "split"), ("613.1b", "split")]
    assert renumbering.backward["613.1a"][0].old == "419.1a"


@pytest.mark.parametrize(
    "old, new, before, after",
    [
        # 102.7 "A player can concede the game at any time" is 102.3a of 2005-08-01 (102.5 is
        # "If a player loses the game, he or she leaves the game")
        ("2005-02-01", "2005-08-01", "102.7", [("102.3a", "renumbered")]),
        # 201.3 (naming a card) gave its split, flip and double-faced cards to 201.3a–c
        (
            "2016-04-08",
            "2016-08-26",
            "201.3",
            [("201.3", "split"), ("201.3a", "split"), ("201.3b", "split"), ("201.3c", "split")],
        ),
    ],
)
def test_a_rule_goes_to_the_new_rule_of_its_words(editions, old, new, before, after):
    a = align(editions[f"en/{old}"], editions[f"en/{new}"])
    assert sorted(targets(a, before)) == after


@pytest.mark.parametrize(
    "old, new, number, marks",
    [
        # 702.124g gained quotes (2022-10-07); 111.10i lost them (2023-09-01)
        ("2022-04-29", "2022-10-07", "702.124g", [("insert", "", "“"), ("insert", "", "”")]),
        ("2023-04-14", "2023-09-01", "111.10i", [("delete", "“", ""), ("delete", "”", "")]),
        # 708.2b: "face-down" became two words (2026-06-19)
        ("2026-04-17", "2026-06-19", "708.2b", [("delete", "-", "")]),
    ],
)
def test_punctuation_only_edits_are_typography_changes(editions, old, new, number, marks):
    a = align(editions[f"en/{old}"], editions[f"en/{new}"])
    change = a.forward[number][0]
    assert (change.new, change.kind, change.words, change.facet) == (number, "edited", "typography", "typography")
    assert not change.edited
    assert set(marks) <= {(w.op, w.old, w.new) for w in change.changes}


def test_100_7_rewritten_in_place_is_an_edit_not_removed_and_added(editions):
    # 2022-10-07: silver-bordered cards → "cards intended for casual play"; few words in common
    a = align(editions["en/2022-04-29"], editions["en/2022-10-07"])
    change = a.forward["100.7"][0]
    assert (change.new, change.kind, change.words, change.facet) == ("100.7", "edited", "rewritten", "rewritten")
    assert change.similarity < 0.5
    assert [c for c in a.rules if c.kind in ("added", "removed") and "100.7" in (c.old, c.new)] == []


@pytest.mark.parametrize(
    "old, new, before, after",
    [
        ("2013-05-01", "2013-07-13", "206.3", "206.3"),  # expansion symbols: "Previously, …"
        ("2019-01-25", "2019-07-12", "800.5", "800.5"),  # the multiplayer mulligan
        ("2019-07-12", "2020-06-01", "100.5", "100.5"),  # deck size
        ("2025-06-06", "2025-09-19", "903.12c", "903.12c"),
        ("2021-07-23", "2022-04-29", "201.5", "201.6"),  # name line of promotional cards, moved too
    ],
)
def test_heavy_rewrites_keep_their_lineage(editions, old, new, before, after):
    a = align(editions[f"en/{old}"], editions[f"en/{new}"])
    change = a.forward[before][0]
    assert (change.new, change.words) == (after, "rewritten")


def test_a_keyword_replaced_under_the_same_number_is_removed_and_added(editions):
    # 2004-10-01: 502.14 Snow-Covered gave way to 502.14 Vigilance
    a = align(editions["en/2004-06-01"], editions["en/2004-10-01"])
    assert [c.kind for c in a.forward["502.14"]] == ["removed"]


def test_renumbered_reference_is_not_an_edit(storied):
    # 310.8a → 310.9a cites "rule 310.11" → "rule 310.12" (renumbered) and also changed words
    change = storied.forward["310.8a"][0]
    assert change.new == "310.9a"
    printed = " ".join(w.old + " " + w.new for w in change.changes)
    assert "310.1" not in printed
    assert ("replace", "becomes", "can be") in {(w.op, w.old, w.new) for w in change.changes}


# --- French fragments: numbered rules → unnumbered paragraphs ------------------


def test_seed_402_1_becomes_the_first_paragraph_of_602(editions):
    a = align(editions[SEED_402], editions[SEED_602])
    assert a.forward["402.1"][0].new == "602¶1"
    assert ("402", "602", "renumbered") in {(s.old, s.new, s.kind) for s in a.sections}


def test_seed_402_4_is_not_an_ability_becomes_is_an_ability(editions):
    a = align(editions[SEED_402], editions[SEED_602])
    change = a.forward["402.4"][0]
    assert change.new == "602¶4" and change.edited
    deleted = [w.old for w in change.changes if w.op == "delete"]
    assert deleted[:2] == ["n’", "pas"]


# --- normalisation and JSON ------------------------------------------------------


def test_underscores_trademark_quotes_and_dashes_are_not_edits():
    assert word_changes("The _Magic_ Golden Rules", "The Magic Golden Rules") == (1.0, ())
    assert word_changes("Magic: The Gathering(TM) rules", "Magic: The Gathering™ rules") == (1.0, ())
    # "Choose one --" (2003) / "Choose one —" (2014) / "Choose one ?" (2009-05-01's code page)
    assert word_changes('Enchant "creature" -- it\'s', "Enchant “creature” — it’s") == (1.0, ())
    assert word_changes("Choose one —", "Choose two —")[1][0].old == "one"


def test_case_changes_are_edits_but_do_not_prevent_matching():
    sim, changes = word_changes("See Rule 702.34.", "See rule 702.34.")
    assert [(c.old, c.new) for c in changes] == [("Rule", "rule")]


def test_tokens_keep_rule_numbers_whole_and_split_french_elisions():
    assert tokens("voir règle 702.34a") == ["voir", "règle", "§702.34a"]
    assert tokens("n’est pas", "fr") == ["n'", "est", "pas"]


def test_diff_json_has_the_design_shape(storied):
    data = json.loads(json.dumps(storied.to_json()))
    assert set(data) == {"old", "new", "sections", "rules"}
    assert (data["old"], data["new"]) == ("en/2026-06-19", "en/2026-08-07")
    assert {"old", "new", "kind"} <= set(data["sections"][0])
    row = next(r for r in data["rules"] if r["old"] == "722.3a")
    assert {"old", "new", "kind", "similarity", "changes", "moved", "words"} <= set(row)
    assert (row["kind"], row["moved"], row["words"], row["edited"]) == ("edited", False, "edited", True)
    at = row["changes"][0]["at"]
    assert row["changes"] == [{"op": "replace", "old": ",", "new": ".", "at": at, "new_at": at}]


def test_reverse_diff_of_702_in_2009_is_the_mirror_image(editions, renumbering):
    # once "1 split, 7 merged" one way and "6 split, 2 merged" the other
    back = align(editions["en/2009-07-11"], editions["en/2009-05-01"])
    fwd, rev = renumbering.in_section("702").counts(), back.in_section("702").counts()
    assert (fwd["split"], fwd["merged"]) == (1, 7)
    assert (rev["split"], rev["merged"]) == (7, 1)
    assert fwd["added"] == rev["removed"] == 22


@pytest.mark.slow
def test_diff_a_b_and_b_a_are_mirror_images_on_all_consecutive_pairs(editions):
    names = sorted(n for n in editions if n.startswith("en/"))
    assert len(names) == 74
    swap = {"added": "removed", "removed": "added", "split": "merged", "merged": "split"}
    for a_name, b_name in zip(names, names[1:]):
        a, b = editions[a_name], editions[b_name]
        forward, backward = align(a, b), align(b, a)
        assert (backward.old, backward.new) == (b_name, a_name)
        mirrored = Counter(
            (
                c.new,
                c.old,
                swap.get(c.kind, c.kind),
                c.words,
                round(c.similarity, 6),
                tuple((w.op, w.old, w.new) for w in c.changes),
            )
            for c in forward.rules
        )
        seen = Counter(
            (
                c.old,
                c.new,
                c.kind,
                c.words,
                round(c.similarity, 6),
                tuple(({"insert": "delete", "delete": "insert"}.get(w.op, w.op), w.new, w.old) for w in c.changes),
            )
            for c in backward.rules
        )
        assert seen == mirrored, a_name
        assert {(s.new, s.old, swap.get(s.kind, s.kind)) for s in forward.sections} == {
            (s.old, s.new, s.kind) for s in backward.sections
        }
        # rows come in the order of the (new) older edition
        order = {r.id: k for k, r in enumerate(a.rules)}
        placed = [order[c.new] for c in backward.rules if c.new is not None]
        assert placed == sorted(placed), a_name


def test_in_section_702_keeps_the_keywords_that_came_from_502(renumbering):
    part = renumbering.in_section("702")
    assert ("502.26", "702.34") in {(c.old, c.new) for c in part.rules}
    assert {s.new for s in part.sections} == {"702"}


@pytest.mark.slow
def test_all_consecutive_pairs_truth_set(editions):
    names = sorted(n for n in editions if n.startswith("en/"))
    total = {k: align_eval.Score() for k in align_eval.TRUTH_KINDS}
    for a, b in zip(names, names[1:]):
        alignment = align(editions[a], editions[b])
        for kind, pairs in align_eval.truth(editions[a], editions[b]).items():
            total[kind].add(align_eval.score(alignment, pairs, sections=kind == "section"))
    for kind, s in total.items():
        assert s.precision >= 0.995 and s.recall >= 0.995, (kind, s.precision, s.recall)


# --- French ⇄ English ------------------------------------------------------------


@pytest.fixture(scope="module")
def english(editions):
    return [e for n, e in editions.items() if n.startswith("en/")]


def test_each_french_seed_finds_the_english_edition_of_its_era(editions, english):
    from comprules.align.crosslang import choose_english

    chosen = {n: choose_english(editions[n], english) for n in editions if n.startswith("fr/")}
    # 000 quotes 406 "Sous-types de capacités": 406 was "Ability Subtypes" until 2003-03-15
    assert chosen[SEED_402].english == "en/2002-10-07"
    assert chosen[SEED_402].era == ("en/2002-10-07", "en/2003-03-15")
    # 004 quotes 502.42 Offrande and 502.43 Ninjutsu: Offering arrived in 2005-02-01
    assert chosen["fr/004_99dc3338bd3ea994"].english == "en/2005-02-01"
    # 002 quotes 406 "Capacité de mana" (406 "Mana Abilities", 2003-07-01 to 2009-05-01)
    assert chosen["fr/002_89b48a7ac2467f84"].english == "en/2005-02-01"
    # 001 gives the abilities section as paragraphs; 003 has "Régénération" (501.5 Regenerate from 2007-05-01)
    assert chosen[SEED_602].english == "en/2008-07-15"
    assert chosen["fr/003_816c607ad111474a"].english == "en/2007-05-01"


def test_a_seed_without_the_english_edition_of_its_era_gets_none(editions, english):
    """Beside the 2026 editions only, the extracts that quote numbered rules of before the
    2009 renumbering (000, 002, 004: agreement 0.12, 0.27, 0.0, under ERA_MIN) get no
    English twin; the rulebook's keyword headings (003) still agree with 2026 in full, and
    000 beside 2009-05-01 (the same numbering, 0.40) is still paired."""
    from comprules.align.crosslang import ERA_MIN, choose_english

    modern = [e for e in english if e.name in ("en/2026-06-19", "en/2026-08-07")]
    assert len(modern) == 2
    for name in (SEED_402, "fr/004_99dc3338bd3ea994", "fr/002_89b48a7ac2467f84"):
        with pytest.raises(ValueError, match="no English edition of its era"):
            choose_english(editions[name], modern)
    assert choose_english(editions["fr/003_816c607ad111474a"], modern).english == "en/2026-06-19"
    m2009 = [e for e in english if e.name == "en/2009-05-01"]
    assert choose_english(editions[SEED_402], m2009).english == "en/2009-05-01"
    assert min(choose_english(editions[n], english).score for n in editions if n.startswith("fr/")) > ERA_MIN + 0.15


def test_seed_602_paragraphs_align_in_order_with_english_402(editions):
    from comprules.align.crosslang import align_languages

    a = align_languages(editions[SEED_602], editions["en/2008-07-15"])
    pairs = {c.old: c.new for c in a.rules if c.new}
    assert pairs["602¶1"] == "402.1" and pairs["602¶4"] == "402.4" and pairs["602¶18"] == "402.10"
    assert len(pairs) == 18
    assert [(s.old, s.new, s.kind) for s in a.sections] == [("602", "402", "renumbered")]


def test_forum_chatter_of_seed_002_aligns_with_nothing(editions):
    from comprules.align.crosslang import align_languages

    a = align_languages(editions["fr/002_89b48a7ac2467f84"], editions["en/2005-02-01"])
    assert {c.old for c in a.rules if c.new} == {f"406.{k}" for k in range(1, 7)}


# --- Wizards' own change lists (tests/bulletins.toml) ----------------------------------


def _bulletins():
    import tomllib
    from pathlib import Path

    with open(Path(__file__).with_name("bulletins.toml"), "rb") as fh:
        return tomllib.load(fh)["pair"]


@pytest.mark.parametrize("pair", _bulletins(), ids=lambda p: f"{p['old']}..{p['new']}")
def test_every_change_a_bulletin_lists_is_a_change_of_the_diff(editions, pair):
    a = align(editions[f"en/{pair['old']}"], editions[f"en/{pair['new']}"])
    changed = {n for c in a.rules if c.facet not in ("unchanged", "moved") for n in (c.old, c.new) if n}
    assert [n for n in pair["listed"] if n not in changed] == [], pair["source"]
    kept = {c.old for c in a.rules if c.facet == "unchanged"}
    assert [n for n in pair["absent"] if n not in kept] == [], pair["source"]


def test_printed_tokens_read_at_once_equal_those_read_match_by_match(editions, zh_editions):
    """A typography change compares every printed mark: the tokens are found at once
    (``findall``) and their spans from one to the next, unless the text prints a
    trademark "(TM)" or may print the symbol font of 2003–04 ("{o3}"), read match by
    match. On the units of editions of every era (the symbol font of 2003-07-01 and
    2004-02-01, the "?" quotes of 2008-05-01, the seeds, a Chinese edition), both ways
    give the same tokens and spans."""
    from comprules import references
    from comprules.align.alignment import (
        ALIGNED_KINDS,
        _content,
        _parts,
        _printed_spans,
        _printed_tokens_read,
        _printed_words,
    )

    names = ["en/2003-07-01", "en/2004-02-01", "en/2008-05-01", "en/2013-07-13", "en/2026-08-07"]
    chosen = [editions[n] for n in names] + [e for n, e in editions.items() if n.startswith("fr/")]
    chosen.append(zh_editions[sorted(zh_editions)[-1]])
    at_once = read = 0
    for edition in chosen:
        contents = [_content(r, edition.lang) for r in edition.rules if r.kind in ALIGNED_KINDS]
        for text, refs in zip(contents, references.extract_many(contents, edition.lang)):
            parts = _parts(refs)
            words = _printed_words(text, parts)
            if words is None:
                read += 1
                assert "(TM)" in text or "{" in text
                continue
            at_once += 1
            assert (words, _printed_spans(text, words, parts)) == _printed_tokens_read(text, parts), text
    assert at_once > 10_000 and 40 < read < 200, (at_once, read)  # 10,741 and 57 on 2026-12-04


@pytest.mark.parametrize(
    "old, new, in_place, compared",
    [
        ("2014-02-01", "2014-09-25", 603, 0),  # the curly quotes and dashes of 2014-09-25
        ("2008-02-01", "2008-05-01", 141, 475),  # 2008-05-01 prints "?" for ’ “ ” —
    ],
)
def test_typography_read_in_place_equals_the_printed_words_compared(
    editions, monkeypatch, old, new, in_place, compared
):
    """A rule whose words are the same once quotes and dashes are folded has its
    changed marks read in place (:func:`_marks_changed`, two-thirds of the cost of
    comparing every printed word). On each such rule of two real pairs, it gives the changes that
    comparing the printed words gives, or hands over when a mark changed kind (an
    apostrophe printed "?", which cuts "can?t" into three words)."""
    from comprules.align import alignment

    seen = Counter()
    real = alignment._rule_change

    def checked(m, i, j, mapping, kind=None):
        o, n = m.o, m.n
        texts = (o.contents[i], o.parts[i], n.contents[j], n.parts[j])
        if texts[0] != texts[2] and alignment._same_words(
            o.contents[i], o.parts[i], o.qmarks, n.contents[j], n.parts[j], n.qmarks, mapping
        ):
            marks = alignment._marks_changed(*texts)
            seen["in place" if marks else "compared"] += 1
            if marks:
                assert alignment._printed_change(*texts, mapping) == ("typography", marks), texts[0]
        return real(m, i, j, mapping, kind)

    monkeypatch.setattr(alignment, "_rule_change", checked)
    align(editions[f"en/{old}"], editions[f"en/{new}"])
    assert (seen["in place"], seen["compared"]) == (in_place, compared)


def test_marks_read_in_place_on_small_texts():
    from comprules.align.alignment import WordChange, _marks_changed, _printed_change

    old, new = 'Its owner can\'t say "yes" - or no.', "Its owner can’t say “yes” — or no."
    marks = (
        WordChange("replace", "can'", "can’", 2, 2),
        WordChange("replace", '"', "“", 5, 5),
        WordChange("replace", '" -', "” —", 7, 7),
    )
    assert _marks_changed(old, [], new, []) == marks
    assert _printed_change(old, [], new, [], None) == ("typography", marks)
    # an apostrophe printed "?" cuts the word otherwise: the words are compared instead
    assert _marks_changed("Its owner can?t say", [], "Its owner can’t say", []) == ()
    # a cited number that only followed its rule is not a mark
    assert _marks_changed("See rule 502.26.", [(9, 15, "502.26")], "See rule 702.37.", [(9, 15, "702.37")]) == ()
