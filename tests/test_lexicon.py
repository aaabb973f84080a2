"""The bilingual lexicon (issue 4): the checked-in table of official French names
(``comprules/data/lexicon_fr.toml``) and the pairs found by aligning the French seeds
with the English editions of their era."""

from __future__ import annotations

import re

import pytest

from comprules.align.crosslang import (
    TermPair,
    align_languages,
    aligned_terms,
    choose_english,
    lexicon,
    lexicon_entries,
    lexicon_fr,
)


def key(term: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", term.casefold()))


@pytest.fixture(scope="module")
def english(editions):
    return [e for n, e in editions.items() if n.startswith("en/")]


@pytest.fixture(scope="module")
def seed_terms(editions, english):
    """Heading pairs of every French seed aligned with its chosen English edition."""
    by_name = {e.name: e for e in english}
    out = []
    for name, doc in editions.items():
        if name.startswith("fr/"):
            en = by_name[choose_english(doc, english).english]
            out.extend(aligned_terms(doc, en, align_languages(doc, en)))
    return out


def test_lexicon_gives_french_names_and_back():
    assert lexicon()["Morph"] == ["Mue"]
    assert lexicon()["First Strike"] == ["Initiative"]
    assert lexicon_fr()["Double initiative"] == ["Double Strike"]
    assert "Marqueur" in lexicon()["Counter"] and "Contrecarrer" in lexicon()["Counter"]


def test_lexicon_table_holds_keyword_abilities_actions_and_terms():
    categories = {cat for cat, _en, _fr in lexicon_entries()}
    assert categories == {"keywords", "actions", "terms"}
    assert sum(cat == "keywords" for cat, _en, _fr in lexicon_entries()) >= 80


def test_every_english_term_of_the_table_is_used_by_the_english_rules(editions):
    """No invented English term: each names a heading, section or glossary entry."""
    names = set()
    for name, ed in editions.items():
        if not name.startswith("en/"):
            continue
        names.update(key(r.title) for r in ed.rules if r.title)
        for g in ed.glossary:
            names.add(key(g.term))
            names.update(key(part) for part in re.split(r",\s*", g.term))
    missing = [en for _cat, en, _fr in lexicon_entries() if key(en) not in names]
    assert missing == []


def test_every_heading_aligned_from_the_seeds_is_in_the_table(seed_terms):
    """Every French heading the alignment pairs with an English one agrees with the
    table: the table is complete for the seeds and none of its entries contradicts them."""
    table = {(key(fr), key(en)) for _cat, en, frs in lexicon_entries() for fr in frs}
    pairs = {(key(t.fr), key(t.en)) for t in seed_terms if key(t.fr) != key(t.en)}
    assert pairs and pairs <= table, sorted(pairs - table)


def test_aligned_headings_give_mue_offrande_folie_and_capacites_de_mana(seed_terms):
    found = {(t.fr, t.en) for t in seed_terms}
    # found by structure (numbers, references, subrules), not read from the table
    assert {
        ("Mue", "Morph"),
        ("Offrande", "Offering"),
        ("Folie", "Madness"),
        ("Capacités de mana", "Mana Abilities"),
        ("Ninjutsu", "Ninjutsu"),
    } <= found
    mue = next(t for t in seed_terms if t.fr == "Mue")
    assert (mue.fr_id, mue.en_id) == ("502.26", "502.26")


def test_rulebook_headings_of_seed_003_align_through_the_table(seed_terms):
    rulebook = {(t.fr, t.en) for t in seed_terms if t.fr_edition == "fr/003_816c607ad111474a"}
    assert rulebook == {
        ("Peur", "Fear"),
        ("Initiative", "First Strike"),
        ("Vol", "Flying"),
        ("Célérité", "Haste"),
        ("Traversée de terrain", "Landwalk"),
        ("Protection contre", "Protection"),
        ("Régénération", "Regenerate"),
        ("Piétinement", "Trample"),
        ("Double initiative", "Double Strike"),
    }


def test_aligned_pairs_complete_the_lexicon():
    extra = TermPair("Mot-clé nouveau", "Brand New", "fr/x", "1", "en/y", "1", 1.0)
    assert lexicon([extra])["Brand New"] == ["Mot-clé nouveau"]
    assert lexicon_fr([extra])["Mot-clé nouveau"] == ["Brand New"]
    mue = TermPair("mue", "Morph", "fr/x", "502.26", "en/y", "502.26", 1.0)
    assert lexicon([mue])["Morph"] == ["Mue"]  # same name, other case: not added twice
