"""The search index: build, rule-number look-up, ranked bilingual search, atomic rebuild.

Small editions written here (toy wording, not CR text) pin the behaviour; the real
2026-08-07 edition and the French seeds check the user stories on real text.
"""

from __future__ import annotations

import dataclasses
import doctest
import json
import os
import pickle
import subprocess
import sys
import threading
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comprules.errors import UsageError
from comprules.indexer import (
    ALL_EDITIONS,
    analysis,
    build_index,
    documents,
    fields,
    lexicon,
    lookup,
    query,
    search,
    snippets,
)
from comprules.model import Edition, GlossaryEntry, Rule, number_kind, parent_number

# --- toy editions -------------------------------------------------------------------


def rule(
    number: str, text: str = "", title: str | None = None, examples: tuple[str, ...] = (), id: str | None = None
) -> Rule:
    base = (id or number).split("~")[0]
    kind = number_kind(base)
    return Rule(
        id=id or number,
        number=number,
        kind=kind,
        text=text or (title or ""),
        line=1,
        title=title,
        examples=examples,
        parent=parent_number(base),
        section=base[:3] if kind != "chapter" else None,
        chapter=base[0],
    )


def passage(pos: int, text: str, title: str | None = None) -> Rule:
    return Rule(id=f"¶{pos}", number=f"¶{pos}", kind="passage", text=text, line=pos, title=title)


def gloss(term: str, text: str, aliases: tuple[str, ...] = ()) -> GlossaryEntry:
    slug = "-".join(term.lower().replace(",", "").split())
    return GlossaryEntry(term=term, aliases=aliases, obsolete=False, senses=(text,), text=text, line=1, slug=slug)


def edition(name: str, rules, glossary=(), effective: date | None = None, kind: str = "edition") -> Edition:
    lang = name.split("/")[0]
    return Edition(
        name=name,
        lang=lang,
        effective=effective,
        kind=kind,
        source=f"{name}.txt",
        sha256=name,
        title=name,
        rules=tuple(rules),
        glossary=tuple(glossary),
    )


LONG_FILLER = " ".join(["The active player keeps turning cards and counting tokens on the table."] * 8)

EN_OLD_RULES = [
    rule("7", title="Additional Rules"),
    rule("702", title="Keyword Abilities"),
    rule("702.9", title="Flying"),
    rule("702.9a", "Flying is a keyword that lets a creature soar over ground blockers."),
    rule("702.36", title="Morph"),
    rule("702.36a", "Morph lets you cast a card face down for a generic cost."),
]

EN_NEW_RULES = [
    rule("1", title="Game Concepts"),
    rule("104", title="Ending the Game"),
    rule("104.1", "A player who is out of life leaves the game. " + LONG_FILLER + " Then the quokka wins."),
    rule("7", title="Additional Rules"),
    rule("702", title="Keyword Abilities"),
    rule("702.9", title="Flying"),
    rule("702.9a", "Flying is a keyword that lets a creature soar over ground blockers."),
    rule("702.9b", "A creature with reach may block a creature with flying."),
    rule("702.26", title="Phasing"),
    rule("702.26a", "Phasing makes a permanent blink out of existence during its controller's untap step."),
    rule(
        "702.26b",
        "A phased-out permanent is treated as though it does not exist.",
        examples=("A phased-out wall cannot block.",),
    ),
    rule("702.36", title="Exalted"),
    rule("702.36a", "Exalted gives a lone attacker a bonus."),
    rule("702.37", title="Morph"),
    rule("702.37a", "Morph lets you cast a card face down for a generic cost, then turn it face up."),
    rule("702.175", "The first of two rules printed with the same number."),
    rule("702.175", "The second of two rules printed with the same number.", id="702.175~2"),
    rule("8", title="Multiplayer Rules"),
    rule("800", title="General"),
    rule("800.4", "In a multiplayer game, flying works as in a duel (see rule 702.9)."),
]

EN_GLOSSARY = [
    gloss("Flying", "A keyword ability about evasion. See rule 702.9."),
    gloss("Control, Controller", "Who decides what a permanent does.", aliases=("Controller",)),
]

FR_RULES = [
    rule("7", title="Règles additionnelles"),
    rule("702", title="Capacités mot-clé"),
    rule("702.9", title="Vol"),
    rule(
        "702.9a", "Le vol est une capacité d’évasion : une créature volante plane au-dessus des bloqueurs terrestres."
    ),
    rule("702.9b", "Une créature bloquée par une créature avec la portée reste bloquée."),
]

FRAGMENT_RULES = [
    passage(1, "Notes de table"),
    passage(2, "Célérité\nUne créature avec la célérité peut attaquer dès son arrivée.", title="Célérité"),
    passage(3, "Piétinement\nLes blessures en trop d’une créature qui piétine vont au joueur.", title="Piétinement"),
]


def toy_editions() -> list[Edition]:
    return [
        edition("en/2020-01-01", EN_OLD_RULES, EN_GLOSSARY, date(2020, 1, 1)),
        edition("en/2021-01-01", EN_NEW_RULES, EN_GLOSSARY, date(2021, 1, 1)),
        edition("fr/2020-06-01", FR_RULES, (), date(2020, 6, 1)),
        edition("fr/notes_abc", FRAGMENT_RULES, (), None, kind="fragment"),
    ]


@pytest.fixture(scope="module")
def toy_index(tmp_path_factory) -> Path:
    index_dir = tmp_path_factory.mktemp("kb") / "index"
    stats = build_index(toy_editions(), index_dir)
    assert stats.editions == 4
    return index_dir


def numbers(result) -> list[str]:
    return [hit.number for hit in result.hits]


# --- exact rule numbers -------------------------------------------------------------


@pytest.mark.parametrize("text", ["702.37a", "702.37A", "R70237a", "702.37a."])
def test_rule_number_query_702_37a_finds_that_subrule_first(toy_index, text):
    result = search(toy_index, text)
    assert result.hits[0].number == "702.37a"
    assert result.hits[0].edition == "en/2021-01-01"


def test_rule_number_query_702_9_lists_the_rule_in_each_language_then_its_subrules_then_rules_citing_it(toy_index):
    hits = search(toy_index, "702.9").hits
    assert [(h.lang, h.number) for h in hits[:6]] == [
        ("en", "702.9"),
        ("fr", "702.9"),
        ("en", "702.9a"),
        ("fr", "702.9a"),
        ("en", "702.9b"),
        ("fr", "702.9b"),
    ]
    assert {h.number for h in hits[6:8]} == {"800.4", "flying"}
    assert numbers(search(toy_index, "702.9", lang="en"))[:3] == ["702.9", "702.9a", "702.9b"]


def test_section_number_702_lists_the_section_then_its_rules_in_order(toy_index):
    assert numbers(search(toy_index, "702", lang="en"))[:6] == ["702", "702.9", "702.26", "702.36", "702.37", "702.175"]


def test_chapter_number_7_lists_the_chapter_then_its_sections(toy_index):
    assert numbers(search(toy_index, "7", lang="en"))[:2] == ["7", "702"]


def test_section_number_702_finds_the_section_heading_first(toy_index):
    assert search(toy_index, "702").hits[0].kind == "section"


def test_lookup_accepts_the_r70237a_citation_style(toy_index):
    hits = lookup(toy_index, "R70237a")
    assert [(h.edition, h.number) for h in hits] == [("en/2021-01-01", "702.37a")]


def test_lookup_of_duplicated_702_175_returns_both_copies_with_their_ids(toy_index):
    hits = lookup(toy_index, "702.175")
    assert sorted(h.id for h in hits) == ["702.175", "702.175~2"]
    assert [h.id for h in lookup(toy_index, "702.175~2")] == ["702.175~2"]


def test_lookup_in_an_old_edition_finds_morph_under_its_old_number_702_36a(toy_index):
    (hit,) = lookup(toy_index, "702.36a", edition="en/2020-01-01")
    assert hit.text.startswith("Morph lets you cast")
    (new,) = lookup(toy_index, "702.36a")
    assert new.text.startswith("Exalted")


def test_lookup_of_a_fragment_passage_by_its_positional_id(toy_index):
    (hit,) = lookup(toy_index, "¶2", edition="notes_abc")
    assert (hit.kind, hit.title) == ("passage", "Célérité")


def test_lookup_of_something_that_is_not_a_rule_number_is_a_usage_error(toy_index):
    with pytest.raises(UsageError, match="not a rule number"):
        lookup(toy_index, "flying")


# --- ranking ------------------------------------------------------------------------


def test_keyword_heading_702_9_flying_and_its_glossary_entry_rank_first(toy_index):
    result = search(toy_index, "flying", edition="en/2021-01-01")
    assert set(numbers(result)[:2]) == {"flying", "702.9"}
    assert numbers(result).index("702.9a") < numbers(result).index("800.4")


def test_subrules_of_a_keyword_rule_are_found_through_its_title(toy_index):
    # 702.26b never says "phasing": its rule's title does
    assert "702.26b" in numbers(search(toy_index, "phasing"))[:4]


def test_glossary_entry_is_found_by_its_alias(toy_index):
    hit = search(toy_index, "controller").hits[0]
    assert (hit.kind, hit.number, hit.title) == ("glossary", "control-controller", "Control, Controller")


def test_examples_are_searchable_with_the_rule_they_illustrate(toy_index):
    assert numbers(search(toy_index, "wall"))[0] == "702.26b"


def test_units_with_every_word_come_first_then_when_few_those_with_some(toy_index):
    result = search(toy_index, "reach flying", lang="en")
    assert numbers(result)[0] == "702.9b" and not result.relaxed
    assert set(numbers(result)[1:]) == {"flying", "702.9", "702.9a", "800.4"}
    relaxed = search(toy_index, "reach zebra", lang="en")
    assert relaxed.relaxed and numbers(relaxed) == ["702.9b"]


def test_phrase_query_needs_the_words_next_to_each_other(toy_index):
    assert numbers(search(toy_index, '"face down"', edition="en/2021-01-01")) == ["702.37a"]
    assert search(toy_index, '"down face"').hits == []


def test_not_operator_removes_units_with_the_word(toy_index):
    result = search(toy_index, "creature NOT reach", lang="en")
    assert "702.9a" in numbers(result) and "702.9b" not in numbers(result)


def test_prefix_star_matches_every_word_it_starts(toy_index):
    assert {"702.26", "702.26a", "702.26b"} <= set(numbers(search(toy_index, "phas*")))


def test_fuzzy_tilde_matches_a_misspelled_word(toy_index):
    assert numbers(search(toy_index, "exalte~1"))[:2] == ["702.36", "702.36a"]


def test_question_words_and_marks_weigh_little(toy_index):
    # "what" and "is" are a filler and a stop word: the phasing units come first all the same
    assert numbers(search(toy_index, "what is phasing?"))[:3] == numbers(search(toy_index, "phasing"))[:3]


def test_impacts_follow_the_bm25f_formula(toy_index):
    """702.36a "Exalted gives a lone attacker a bonus." holds "exalted" once in its body and
    once in its context (702.36 Exalted): the impact is SCALE · idf · tf' / (K1 + tf')."""
    import math
    import os

    from comprules.indexer.impacts import FIELD_WEIGHTS, K1, SCALE, B, Impacts, RawPostings

    real = Path(os.path.realpath(toy_index))
    raw, impacts = RawPostings.load(real), Impacts(real)
    hit = search(toy_index, "702.36a").hits[0]
    from comprules.indexer.table import DocTable

    table = DocTable.load(real)
    (d,) = [d for d, n in enumerate(table.number) if n == "702.36a" and table.members[d] == (1,)]
    tf_weighted = 0.0
    for name in ("body", "context"):
        lengths = [n for n in raw.lengths[f"{name}_en"] if n]
        norm = (1 - B) + B * raw.lengths[f"{name}_en"][d] / (sum(lengths) / len(lengths))
        tf_weighted += FIELD_WEIGHTS[name] * 1 / norm
    docs, imps = impacts.postings("en:all", "exalt")
    df = len(docs)
    n = sum(1 for k in range(raw.docs) if any(raw.lengths[f"{f}_en"][k] for f in FIELD_WEIGHTS))
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    assert hit.number == "702.36a"
    assert int(imps[list(docs).index(d)]) == round(SCALE * idf * tf_weighted / (K1 + tf_weighted))
    impacts.close()


# --- languages and accents ----------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["créature bloquée", "creature bloquee", "CRÉATURE BLOQUÉE", "cre\u0301ature bloque\u0301e"]
)
def test_accents_fold_to_the_same_french_terms(toy_index, text):
    assert numbers(search(toy_index, text, lang="fr")) == numbers(search(toy_index, "créature bloquée", lang="fr"))
    assert numbers(search(toy_index, text, lang="fr"))[0] == "702.9b"


def test_french_search_finds_a_feminine_adjective_from_its_noun(toy_index):
    # "volante" and "vol" share the stem "vol"
    assert numbers(search(toy_index, "vol", lang="fr"))[:2] == ["702.9", "702.9a"]


def test_fragment_passages_are_searched_by_default(toy_index):
    hit = search(toy_index, "celerite").hits[0]
    assert (hit.edition, hit.number, hit.title) == ("fr/notes_abc", "¶2", "Célérité")


def test_lang_option_keeps_one_language(toy_index):
    assert {h.lang for h in search(toy_index, "flying OR vol", lang="fr").hits} == {"fr"}
    assert {h.lang for h in search(toy_index, "flying OR vol", lang="en").hits} == {"en"}


# --- editions and filters -----------------------------------------------------------


def test_default_scope_is_the_latest_edition_of_each_language_and_fragments(toy_index):
    assert {h.edition for h in search(toy_index, "creature", limit=50, lang="en").hits} == {"en/2021-01-01"}
    assert {h.edition for h in search(toy_index, "creature", limit=50, lang="fr").hits} == {
        "fr/2020-06-01",
        "fr/notes_abc",
    }


def test_a_word_no_text_holds_matches_nothing_and_gets_a_suggestion(toy_index):
    # the query side looks tokens up in the index's own token table (the site's ranker
    # does the same): "créatures" is in no French text of the toy corpus
    result = search(toy_index, "créatures", lang="fr")
    assert result.hits == [] and result.suggestion == "creature"


def test_query_language_is_detected_and_other_languages_come_through_the_lexicon(toy_index):
    english = search(toy_index, "flying")
    langs = [h.lang for h in english.hits]
    assert english.lang == "en" and langs == sorted(langs)  # English first, then the French Vol
    assert [h.number for h in english.hits if h.translation] == ["702.9", "702.9a", "702.9b"]
    assert all(h.lang == "fr" for h in english.hits if h.translation)
    assert [h.score for h in english.hits] == sorted((h.score for h in english.hits), reverse=True)
    french = search(toy_index, "volante")
    assert french.lang == "fr" and french.hits[0].lang == "fr" and not french.hits[0].translation


def test_unchanged_rule_lists_every_edition_holding_its_text(toy_index):
    (hit,) = [h for h in search(toy_index, "soar").hits]
    assert hit.edition == "en/2021-01-01"
    assert hit.editions == ("en/2020-01-01", "en/2021-01-01")


def test_all_editions_scope_shows_each_distinct_text_once(toy_index):
    hits = search(toy_index, "morph", edition=ALL_EDITIONS, limit=20).hits
    texts = [(h.edition, h.number) for h in hits if h.number.endswith("a")]
    assert sorted(texts) == [("en/2020-01-01", "702.36a"), ("en/2021-01-01", "702.37a")]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("en/2020-01-01", "en/2020-01-01"),
        ("2020-01-01", "en/2020-01-01"),
        ("en/latest", "en/2021-01-01"),
        ("notes_abc", "fr/notes_abc"),
        ("fr/latest", "fr/2020-06-01"),
    ],
)
def test_edition_names_resolve_by_full_name_bare_date_latest_and_stem(toy_index, name, expected):
    assert {h.edition for h in search(toy_index, "creature OR notes", edition=name, limit=50).hits} == {expected}


@pytest.mark.parametrize("name", ["en/1999-01-01", "latest", "de/latest"])
def test_unknown_or_ambiguous_edition_is_a_usage_error(toy_index, name):
    with pytest.raises(UsageError):
        search(toy_index, "flying", edition=name)


def test_section_and_chapter_options_filter_by_number(toy_index):
    assert numbers(search(toy_index, "flying", section="800")) == ["800.4"]
    assert set(numbers(search(toy_index, "game", section="1"))) <= {"1", "104", "104.1"}


# --- snippets -----------------------------------------------------------------------


def test_snippet_marks_the_words_and_offsets_point_at_them(toy_index):
    hit = search(toy_index, "phased-out permanent").hits[0]
    assert hit.number == "702.26b"
    assert hit.snippet.startswith("A **phased**-**out** **permanent** is treated")
    assert [hit.plain_snippet[s:e] for s, e in hit.highlights][:3] == ["phased", "out", "permanent"]
    assert hit.marked("<", ">").startswith("A <phased>-<out> <permanent>")


def test_long_text_snippet_is_a_window_around_the_match(toy_index):
    hit = search(toy_index, "quokka").hits[0]
    assert hit.number == "104.1"
    assert hit.plain_snippet.startswith("…") and len(hit.plain_snippet) <= snippets.SNIPPET_CHARS + 2
    assert [hit.plain_snippet[s:e] for s, e in hit.highlights] == ["quokka"]


def test_hit_json_has_plain_snippet_and_highlight_offsets(toy_index):
    data = search(toy_index, "morph").as_json()
    assert set(data) == {"query", "cards", "hits", "suggestion", "lang"}
    assert data["cards"] == []  # an index alone knows no card (issue 25: the knowledge base's cards.sqlite)
    assert set(data["hits"][0]) == {
        "edition",
        "number",
        "title",
        "kind",
        "score",
        "snippet",
        "highlights",
        "also_in",
        "id",
        "lang",
        "translation",
        "section_title",
        "renumbered",
    }
    assert "**" not in data["hits"][0]["snippet"]


# --- suggestions --------------------------------------------------------------------


def test_misspelled_word_gets_a_suggestion(toy_index):
    result = search(toy_index, "phasng")
    assert result.hits == [] and result.suggestion == "phasing"


def test_known_words_and_stop_words_get_no_suggestion(toy_index):
    assert search(toy_index, "the flying creature").suggestion is None


# --- errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '"flying',
        "AND",
        "flying AND",
        "OR flying",
        "flying AND OR reach",
        "(flying",
        "flying)",
        "",
        "   ",
        "x" * 10240,
        "NOT flying",
        "*",
        "f*",
    ],
    ids=[
        "unbalanced-quote",
        "lone-AND",
        "trailing-AND",
        "leading-OR",
        "two-operators",
        "open-paren",
        "close-paren",
        "empty",
        "blank",
        "10KB",
        "only-NOT",
        "lone-star",
        "one-letter-prefix",
    ],
)
def test_malformed_query_is_a_one_line_usage_error(toy_index, text):
    with pytest.raises(UsageError) as info:
        search(toy_index, text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(list('ab é7.~*?"()[]{}:^+-!\\/|&') + [" AND ", " OR ", " NOT ", "702.9", "fly"]), max_size=12
    ).map("".join)
)
def test_any_typed_query_gives_hits_or_a_usage_error_never_a_traceback(toy_index, text):
    try:
        result = search(toy_index, text)
    except UsageError as error:
        assert "\n" not in str(error)
    else:
        assert all(h.plain_snippet[s:e] for h in result.hits for s, e in h.highlights)


@pytest.mark.parametrize("options", [{"lang": "de"}, {"section": "70"}, {"limit": 0}])
def test_bad_option_is_a_usage_error(toy_index, options):
    with pytest.raises(UsageError):
        search(toy_index, "flying", **options)


def test_missing_index_is_a_one_line_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no search index"):
        search(tmp_path / "nowhere", "flying")
    with pytest.raises(UsageError, match="no search index"):
        lookup(tmp_path / "nowhere", "702.9")


def test_stop_words_only_query_finds_nothing(toy_index):
    assert search(toy_index, "the of and").hits == []


# --- building -----------------------------------------------------------------------


def test_build_counts_units_and_distinct_documents(tmp_path):
    stats = build_index(toy_editions(), tmp_path / "index")
    units = sum(len([r for r in e.rules if r.text or r.title]) + len(e.glossary) for e in toy_editions())
    assert stats.units == units
    # the old edition's units are all in the new one, but 702.36 and 702.36a (now Exalted)
    assert stats.documents == units - (len(EN_OLD_RULES) - 2) - len(EN_GLOSSARY)


def test_the_same_document_given_twice_is_indexed_once(tmp_path):
    eds = toy_editions()
    assert build_index(eds + eds[:1], tmp_path / "index").editions == 4


def test_another_keywords_effects_table_is_another_index(tmp_path, monkeypatch):
    """The tables expansions.json is made of are inputs of the index: an edited
    data/keyword_effects.toml is not left out of an index whose editions did not change."""
    from comprules.indexer import build as index_build

    index_dir = tmp_path / "index"
    build_index(toy_editions()[:2], index_dir)
    assert build_index(toy_editions()[:2], index_dir).mode == "unchanged"
    table = tmp_path / "keyword_effects.toml"
    table.write_text('[[keyword]]\nsay = ["celerite"]\nrules = ["haste"]\nrule = "702.10b"\n', encoding="utf-8")
    monkeypatch.setattr(index_build, "KEYWORD_EFFECTS", table)
    assert build_index(toy_editions()[:2], index_dir).mode != "unchanged"


def test_rebuild_swaps_atomically_while_the_old_index_stays_readable(tmp_path):
    from whoosh.index import open_dir

    index_dir = tmp_path / "index"
    build_index(toy_editions()[:2], index_dir)
    old_reader = open_dir(str(index_dir)).searcher()
    assert numbers(search(index_dir, "celerite")) == []

    halfway, release = threading.Event(), threading.Event()

    def slow_editions():
        yield from toy_editions()[:3]
        halfway.set()
        release.wait(10)
        yield toy_editions()[3]

    builder = threading.Thread(target=build_index, args=(slow_editions(), index_dir))
    builder.start()
    try:
        assert halfway.wait(10)
        # mid-build: index_dir is still the whole old index
        assert numbers(search(index_dir, "celerite")) == []
        assert numbers(search(index_dir, "702.37a"))[0] == "702.37a"
    finally:
        release.set()
        builder.join(30)
    assert numbers(search(index_dir, "celerite")) == ["¶2"]
    # a reader opened before the swap still reads the old generation
    assert old_reader.doc_count() > 0 and old_reader.stored_fields(0)["unit"]
    old_reader.close()
    assert not list(tmp_path.glob(".index.build-*"))


def test_failed_build_leaves_the_previous_index_in_place(tmp_path):
    index_dir = tmp_path / "index"
    build_index(toy_editions()[:2], index_dir)

    def broken():
        yield toy_editions()[2]
        raise RuntimeError("parser crashed")

    with pytest.raises(RuntimeError):
        build_index(broken(), index_dir)
    assert numbers(search(index_dir, "702.37a"))[0] == "702.37a"
    assert not list(tmp_path.glob(".index.build-*"))


def test_old_generations_are_pruned_keeping_the_previous_one(tmp_path):
    index_dir = tmp_path / "index"
    for _ in range(4):
        build_index(toy_editions()[:1], index_dir, full=True)
    assert len(list(tmp_path.glob(".index.gen-*"))) == 2


@pytest.mark.parametrize("module", [analysis, documents, fields, lexicon, query, snippets])
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0


# --- kinds, every edition, languages ------------------------------------------------


def test_kind_glossary_keeps_only_glossary_entries(toy_index):
    assert [(h.kind, h.number) for h in search(toy_index, "flying", kind="glossary").hits] == [("glossary", "flying")]


def test_kind_example_searches_examples_and_shows_the_example(toy_index):
    (hit,) = search(toy_index, "phased", kind="example").hits
    assert (hit.kind, hit.number) == ("example", "702.26b")
    assert hit.plain_snippet == "A phased-out wall cannot block."


def test_kind_rule_leaves_out_the_glossary(toy_index):
    kinds = {h.kind for h in search(toy_index, "flying", kind="rule", limit=50).hits}
    assert "glossary" not in kinds and kinds


def test_unknown_kind_is_a_usage_error(toy_index):
    with pytest.raises(UsageError, match="unknown kind"):
        search(toy_index, "flying", kind="card")


def test_all_editions_collapses_the_versions_of_morph_into_one_hit_also_in_the_other_edition(toy_index):
    hits = search(toy_index, "morph", edition=ALL_EDITIONS, lang="en").hits
    headings = [h for h in hits if h.title == "Morph"]
    # 702.36 Morph (2020) and 702.37 Morph (2021): one rule, shown as last printed
    assert [(h.edition, h.number, h.also_in) for h in headings] == [("en/2021-01-01", "702.37", 1)]
    assert headings[0].editions == ("en/2020-01-01", "en/2021-01-01")


def test_all_editions_number_query_lists_each_rule_that_had_the_number(toy_index):
    hits = search(toy_index, "702.36", edition=ALL_EDITIONS, lang="en").hits
    assert [(h.number, h.title) for h in hits[:2]] == [("702.36", "Exalted"), ("702.36", "Morph")]


def test_glossary_headword_lists_its_definition_then_the_rule_it_cites(toy_index):
    assert numbers(search(toy_index, "flying", lang="en"))[:2] == ["flying", "702.9"]


def test_lexicon_finds_the_french_vol_from_english_flying(toy_index):
    assert numbers(search(toy_index, "flying", lang="fr"))[:2] == ["702.9", "702.9a"]
    assert {h.lang for h in search(toy_index, "flying", lang="fr").hits} == {"fr"}


def test_lexicon_finds_english_flying_from_french_vol(toy_index):
    assert numbers(search(toy_index, "vol", lang="en"))[:2] == ["flying", "702.9"]


def test_index_without_lexicon_finds_no_translation(tmp_path):
    build_index(toy_editions(), tmp_path / "index", lexicon=[])
    assert search(tmp_path / "index", "flying", lang="fr").hits == []


def test_prefix_and_fuzzy_words_get_no_spelling_suggestion(toy_index):
    assert search(toy_index, "phasx*").suggestion is None
    assert search(toy_index, "zzqx~1").suggestion is None


# --- incremental builds and locking -------------------------------------------------


def changed(ed: Edition, text: str) -> Edition:
    """``ed`` with one more rule (another sha256): what a corrected edition looks like."""
    extra = rule("104.2", text)
    return dataclasses.replace(ed, rules=(*ed.rules, extra), sha256=ed.sha256 + "-changed")


def test_rebuild_with_nothing_changed_does_nothing(tmp_path):
    build_index(toy_editions(), tmp_path / "index")
    stats = build_index(toy_editions(), tmp_path / "index")
    assert (stats.mode, stats.reindexed) == ("unchanged", ())


def test_rebuild_after_one_edition_changed_reindexes_only_that_edition(tmp_path):
    index_dir = tmp_path / "index"
    build_index(toy_editions(), index_dir)
    eds = toy_editions()
    eds[1] = changed(eds[1], "A player with a platypus wins the game.")
    stats = build_index(eds, index_dir)
    assert (stats.mode, stats.reindexed, stats.removed) == ("incremental", ("en/2021-01-01",), ())
    assert numbers(search(index_dir, "platypus")) == ["104.2"]
    # unchanged units keep every edition holding them
    (soar,) = search(index_dir, "soar").hits
    assert soar.editions == ("en/2020-01-01", "en/2021-01-01")


def test_incremental_build_gives_the_same_hits_and_scores_as_a_full_build(tmp_path):
    eds = toy_editions()
    build_index(eds, tmp_path / "a" / "index")
    eds[1] = changed(eds[1], "A player with a platypus wins the game.")
    del eds[0]
    assert build_index(eds, tmp_path / "a" / "index").mode == "incremental"
    build_index(eds, tmp_path / "b" / "index")
    for text, edition in [("creature", None), ("morph", ALL_EDITIONS), ("platypus OR soar", None), ("702.9", None)]:
        a = search(tmp_path / "a" / "index", text, edition=edition, limit=50).hits
        b = search(tmp_path / "b" / "index", text, edition=edition, limit=50).hits
        key = lambda h: (h.edition, h.number, round(h.score, 4), h.editions)  # noqa: E731
        assert sorted(map(key, a)) == sorted(map(key, b)), text


def test_removed_edition_disappears_from_an_incremental_build(tmp_path):
    index_dir = tmp_path / "index"
    build_index(toy_editions(), index_dir)
    stats = build_index(toy_editions()[1:], index_dir)
    assert stats.removed == ("en/2020-01-01",)
    with pytest.raises(UsageError, match="unknown edition"):
        search(index_dir, "morph", edition="en/2020-01-01")
    (soar,) = search(index_dir, "soar").hits
    assert soar.editions == ("en/2021-01-01",)


def test_reader_of_the_old_generation_keeps_reading_through_an_incremental_build(tmp_path):
    from whoosh.index import open_dir

    index_dir = tmp_path / "index"
    build_index(toy_editions(), index_dir)
    old = open_dir(str(index_dir)).searcher()
    count = old.doc_count()
    eds = toy_editions()
    eds[3] = changed(eds[3], "Le platypus gagne.")
    assert build_index(eds, index_dir).mode == "incremental"
    assert old.doc_count() == count and all(old.stored_fields(d)["unit"] for d in range(count))
    old.close()


_BUILDER = """
import pickle, sys, time
from comprules.indexer import build_index
from comprules.errors import BuildLocked
editions = pickle.load(open(sys.argv[1], "rb"))
try:
    stats = build_index(editions, sys.argv[2], wait=float(sys.argv[3]))
except BuildLocked as error:
    print(error, file=sys.stderr)
    sys.exit(2)
print(stats.mode)
"""


def builder(tmp_path: Path, index_dir: Path, wait: float) -> subprocess.Popen:
    data = tmp_path / "editions.pkl"
    if not data.exists():
        data.write_bytes(pickle.dumps(toy_editions()))
    return subprocess.Popen(
        [sys.executable, "-c", _BUILDER, str(data), str(index_dir), str(wait)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_building_the_same_index_one_waits_for_the_other(tmp_path):
    index_dir = tmp_path / "index"
    procs = [builder(tmp_path, index_dir, 120) for _ in range(2)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sorted(out.strip() for out, _ in outs) == ["full", "unchanged"]
    assert all(err == "" for _, err in outs)
    assert numbers(search(index_dir, "702.37a"))[0] == "702.37a"


def test_second_build_that_cannot_wait_fails_with_one_clear_line(tmp_path):
    from comprules.indexer.build import index_lock

    index_dir = tmp_path / "index"
    with index_lock(index_dir):
        proc = builder(tmp_path, index_dir, 0)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert (
        err == f"another build of the search index {index_dir} is running (pid {os.getpid()}); "
        "try again when it has finished\n"
    )
    assert not index_dir.exists()


# --- the real corpus ----------------------------------------------------------------


@pytest.fixture(scope="module")
def real_index(tmp_path_factory, en_dir, seeds_dir) -> Path:
    corpus = pytest.importorskip("comprules.corpus")
    editions = [corpus.parse_file(en_dir / "2026-08-07.txt")]
    editions += [corpus.parse_file(p) for p in sorted(seeds_dir.glob("*.txt"))]
    index_dir = tmp_path_factory.mktemp("real") / "index"
    build_index(editions, index_dir)
    return index_dir


def test_phasing_lists_702_26b_in_top_five_with_a_highlighted_snippet(real_index):
    hits = search(real_index, "phasing", edition="en/2026-08-07").hits
    top = [h.number for h in hits[:5]]
    assert "702.26b" in top and top[:2] == ["phasing", "702.26"]
    hit = hits[top.index("702.26b")]
    assert hit.highlights and "**phase" in hit.snippet


def test_creature_volante_finds_the_flying_passage_of_seed_003(real_index):
    hit = search(real_index, "créature volante", lang="fr").hits[0]
    assert hit.edition == "fr/003_816c607ad111474a" and hit.title == "Vol"
    assert "**volante**" in hit.snippet


def test_creature_bloquee_with_or_without_accents_finds_the_same_french_units(real_index):
    accented = numbers(search(real_index, "créature bloquée", lang="fr"))
    assert accented and accented == numbers(search(real_index, "creature bloquee", lang="fr"))


def test_number_query_702_26b_is_answered_first_and_r70226b_too(real_index):
    assert search(real_index, "702.26b").hits[0].number == "702.26b"
    assert [h.number for h in lookup(real_index, "R70226b")] == ["702.26b"]


@pytest.mark.slow
def test_all_74_editions_and_seeds_index_together(full_kb, tmp_path):
    kb, _ = full_kb
    meta = json.loads((kb / "index" / "comprules-index.json").read_text())
    assert len(meta["editions"]) == 97 and meta["documents"] < meta["units"] / 4  # 74 en, 18 zh, 5 fr
    top = numbers(search(kb / "index", "phasing", edition="en/2026-08-07"))[:5]
    assert "702.26b" in top
    tmp_path = kb  # the searches below read the full knowledge base's index
    # morph first appeared in 2002-10-07 as 502.26
    assert "502.26" in numbers(search(tmp_path / "index", "morph", edition="en/2002-10-07"))[:3]
    assert {h.edition for h in search(tmp_path / "index", "morph", lang="en").hits} == {"en/2026-08-07"}
    # an English query in any language: English hits first (issue 10); in French, Mue of
    # seed 004 through the lexicon, marked as a translation
    assert {h.lang for h in search(tmp_path / "index", "morph").hits} == {"en"}
    mue = search(tmp_path / "index", "morph", lang="fr").hits[0]
    assert (mue.edition, mue.number, mue.translation) == ("fr/004_99dc3338bd3ea994", "502.26", True)


def test_headword_keys_come_in_the_same_order_whatever_the_hash_seed(en_dir):
    """A document named twice ("Control" and its alias "Controller" in 2005-02-01) files
    its headword keys in its names' order, not a set's: the site's search data (``heads``)
    and the order of documents under a stemmed headword are the same in every process.
    Two builds of the same 31 editions gave two search/en.js (2026-12-04) before."""
    script = (
        "import sys, types; from comprules.corpus import parse_file; from comprules.indexer.table import DocTable as Table\n"
        "e = parse_file(sys.argv[1])\n"
        "names = [(g.term, *g.aliases) for g in e.glossary]\n"
        "t = types.SimpleNamespace(names=names, members=[1] * len(names), lang=['en'] * len(names))\n"
        "heads = Table.heads.func(t)\n"
        "print(list(heads)[:400], list(Table.stemmed_heads.func(types.SimpleNamespace(heads=heads, lang=t.lang))))\n"
    )
    seen = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", script, str(en_dir / "2005-02-01.txt")], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        seen.add(run.stdout)
    assert len(seen) == 1
    # seven entries of 2005-02-01 have two keys: "Control" and "Controller", "Life" and "Life Total"…
    assert "'control', 'controller'" in next(iter(seen)) and "'life', 'life total'" in next(iter(seen))
