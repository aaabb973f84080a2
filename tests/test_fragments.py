"""Fragment documents: French forum posts and a rulebook extract, as users paste them (issue 3).

The five seeds are read in place (``editions`` fixture of ``conftest.py``); the
forum-noise and PDF-artefact cases that the seeds do not hold are short fixtures
written for these tests.
"""

from __future__ import annotations

import pytest

from comprules.corpus import parse_text
from comprules.corpus.fragment import is_chatter, is_heading, noise_kind, repair_line
from comprules.references import resolve

SEED = {
    "000": "fr/000_f51ad62258817a66",
    "001": "fr/001_efcdb25c5e4b3248",
    "002": "fr/002_89b48a7ac2467f84",
    "003": "fr/003_816c607ad111474a",
    "004": "fr/004_99dc3338bd3ea994",
}


@pytest.fixture(scope="module")
def seeds(editions):
    return {k: editions[v] for k, v in SEED.items()}


def kinds(edition) -> list[tuple[str, str]]:
    return [(r.id, r.kind) for r in edition.rules]


# --- forum noise --------------------------------------------------------------------


def test_seed_002_quote_headers_of_gulain_and_the_chatter_after_406_6_are_notes(seeds):
    edition = seeds["002"]
    notes = [(r.id, r.line, r.text) for r in edition.rules if r.kind == "note"]
    assert [n[:2] for n in notes] == [("¶1", 1), ("406¶1", 19), ("406¶2", 21), ("406¶3", 23), ("406¶4", 25)]
    assert notes[1][2] == notes[3][2] == "Le 18/08/2006, gulain avait écrit ..."
    assert notes[4][2] == "J'me fais vieux moi...."
    assert [r.id for r in edition.numbered()] == [f"406.{i}" for i in range(1, 7)]


def test_seed_002_quotes_rule_406_1_twice_one_rule_and_a_repeated_quote_notice(seeds):
    edition = seeds["002"]
    assert [r.id for r in edition.rules].count("406.1") == 1
    [w] = [w for w in edition.warnings if w.kind == "repeated-quote"]
    assert (w.number, w.line) == ("406.1", 27)


def test_seed_004_signature_and_edit_stamp_of_sacha_are_two_notes_after_502_26f(seeds):
    edition = seeds["004"]
    tail = [(r.id, r.kind, r.text) for r in edition.rules][-3:]
    assert tail == [
        ("502.26f", "subrule", tail[0][2]),
        ("502¶4", "note", "Valable pour tous : lisez ceci"),
        ("502¶5", "note", "[ Edité par Sacha Le 21 mai 2005 ]"),
    ]


def test_seed_004_chatter_between_the_quoted_keywords_is_notes_not_rule_text(seeds):
    edition = seeds["004"]
    assert [(r.id, r.line) for r in edition.rules if r.kind == "note"] == [
        ("¶1", 1),
        ("502¶1", 6),
        ("502¶2", 12),
        ("502¶3", 17),
        ("502¶4", 27),
        ("502¶5", 28),
    ]
    assert edition.get("502¶1").text == (
        "L'offrande n'est pas une capacité activée, ça règle la question.\nPour le ninjutsu :"
    )
    assert edition.get("502.42c").text.endswith("dans le coût total.")
    assert all("ninja est révélé" not in r.text for r in edition.numbered())


def test_seed_003_author_line_of_mr_manchot_is_a_note(seeds):
    edition = seeds["003"]
    assert [(r.id, r.kind, r.line, r.text) for r in edition.rules][-1] == ("¶4", "note", 49, "Auteur : Mr Manchot")


def test_seed_000_question_and_answers_before_section_402_are_notes(seeds):
    edition = seeds["000"]
    assert kinds(edition)[:7] == [(f"¶{i}", "note") for i in range(1, 7)] + [("402", "section")]
    assert edition.get("¶2").text.startswith("Salut, je voudrais savoir")


def test_notes_stay_in_the_document_and_resolve_no_reference(seeds):
    for edition in seeds.values():
        for rule in edition.rules:
            if rule.kind == "note":
                assert rule.parent == rule.section and "¶" in rule.id


# --- section headers in every shape -------------------------------------------------


def test_section_headers_402_capacites_406_colon_502_42_offrande_and_406_1_subheading(seeds):
    assert (seeds["000"].get("402").kind, seeds["000"].get("402").title) == ("section", "Capacités")
    assert (seeds["002"].get("406").kind, seeds["002"].get("406").title) == ("section", "Capacité de mana")
    assert (seeds["004"].get("502.42").kind, seeds["004"].get("502.42").title) == ("rule", "Offrande")
    assert (seeds["000"].get("406.1").kind, seeds["000"].get("406.1").title) == ("rule", "Capacités de mana")
    assert [r.number for r in seeds["000"].children["406.1"]] == [f"406.1{c}" for c in "abcde"]


# --- unnumbered rule text -------------------------------------------------------------


def test_seed_001_section_602_paragraphs_are_passages_602_1_to_602_18_with_examples(seeds):
    edition = seeds["001"]
    passages = [r for r in edition.rules if r.kind == "passage"]
    assert [p.id for p in passages] == [f"602¶{i}" for i in range(1, 19)]
    assert [p.id for p in passages if p.examples] == ["602¶3", "602¶15", "602¶16", "602¶18"]
    assert not [r for r in edition.rules if r.kind == "note"]
    assert edition.get("602¶9").text.startswith("Une capacité de définition de caractéristique")


# --- rulebook extract -----------------------------------------------------------------


def test_seed_003_keyword_headings_peur_to_double_initiative_are_nine_glossary_entries(seeds):
    edition = seeds["003"]
    entries = {g.term: g for g in edition.glossary}
    assert len(entries) == 9 and edition.glossary[0].line == 7 and edition.glossary[-1].line == 43
    assert entries["Protection contre"].text.count("\n•") == 4
    assert entries["Initiative"].text.count("\n") == 2
    assert entries["Vol"].senses == (entries["Vol"].text,)


def test_seed_003_pdf_artefacts_ot_and_page_number_20_are_repaired_in_celerite(seeds):
    edition = seeds["003"]
    celerite = next(g for g in edition.glossary if g.term == "Célérité")
    assert "ses capacités activées dont le coût d’activation comporte {T}." in celerite.text
    assert " 20 " not in celerite.text and "oT" not in celerite.text
    assert [(w.kind, w.line) for w in edition.warnings] == [("repaired-artefact", 19)] * 2


def test_lost_mana_symbols_are_flagged_in_seeds_000_001_and_002(seeds):
    lost = {k: [w.line for w in e.warnings if w.kind == "lost-symbol"] for k, e in seeds.items()}
    assert lost == {"000": [69], "001": [39], "002": [17], "003": [], "004": []}


# --- references of the seeds ------------------------------------------------------------


def test_every_reference_of_the_seeds_is_external_with_its_title(seeds):
    res = {k: resolve(e) for k, e in seeds.items()}
    assert {k: (r.count, len(r.external), r.dangling) for k, r in res.items()} == {
        "000": (5, 5, []),
        "001": (8, 8, []),
        "002": (2, 2, []),
        "003": (0, 0, []),
        "004": (10, 12, []),
    }
    assert [(d.source, d.target) for d in res["002"].external] == [("406.4", "411"), ("406.4", "408.2")]
    assert [d.target for d in res["004"].external if d.source == "502.24b"] == ["409.1b", "409.1f", "409.1g", "409.1h"]


# --- own fixtures: the shapes the seeds do not hold --------------------------------------


@pytest.mark.parametrize(
    "line, kind",
    [
        ("Le 18/08/2006, gulain avait écrit ...", "quote-header"),
        ("Le 02/03/2007 à 14:05, Bob a écrit :", "quote-header"),
        ("Sacha a écrit :", "quote-header"),
        ("On May 3, 2009, Mark wrote:", "quote-header"),
        ("Citation :", "quote-header"),
        ("[ Edité par Sacha Le 21 mai 2005 ]", "edit-stamp"),
        ("Last edited by Mark on 03 May 2009", "edit-stamp"),
        ("Auteur : Mr Manchot", "author"),
        ("402.1. Une capacité est un texte.", None),
        ("Vol", None),
        ("Une créature avec le vol ne peut être bloquée que par des créatures avec le vol.", None),
    ],
)
def test_forum_noise_lines_are_recognised_and_rule_text_is_not(line, kind):
    assert noise_kind(line) == kind


def test_keyword_headings_and_chatter_are_told_apart():
    assert is_heading("Protection contre") and is_heading("Double initiative")
    assert not is_heading("pour l'offrande :") and not is_heading("Les exceptions sont les suivantes :")
    assert is_chatter("oui c pareil. enfin je croi...") and is_chatter("Capacité=effet ?")
    assert not is_chatter("Une capacité est un texte sur un objet.")


@pytest.mark.parametrize(
    "line, fixed, kinds",
    [
        ("comporte oT.", "comporte {T}.", ["repaired-artefact"]),
        ("coûte oWoU de plus", "coûte {W}{U} de plus", ["repaired-artefact"]),
        ("20", "", ["repaired-artefact"]),
        ("ses capacités 20 activées", "ses capacités activées", ["repaired-artefact"]),
        ("les 2 ciblées", "les 2 ciblées", ["suspect-artefact"]),
        ("inflige 3 blessures à la créature", "inflige 3 blessures à la créature", []),
        ("comporteoT.", "comporteoT.", ["suspect-artefact"]),
        ('a pour texte " : Ajoutez un mana."', 'a pour texte " : Ajoutez un mana."', ["lost-symbol"]),
        ('la capacité "{T} : Ajoutez {G}."', 'la capacité "{T} : Ajoutez {G}."', []),
        ("CO2, Otto et oTo", "CO2, Otto et oTo", ["suspect-artefact"]),
    ],
)
def test_pdf_artefacts_are_repaired_when_unambiguous_and_flagged_otherwise(line, fixed, kinds):
    out, found = repair_line(line)
    assert out == fixed
    assert [r.kind for r in found] == kinds


FORUM_POST = """Question sur le vol

Salut, le vol marche comment ?

702. Capacités à mot-clé

Une capacité à mot-clé est une capacité écrite en un mot.
Exemple : Le vol est une capacité à mot-clé.

702.9. Vol
702.9a Le vol est une capacité d'évasion.
merci !
_________________
Ma signature, deux lignes
et la seconde

Bob wrote:
702.9b Une créature volante ne peut être bloquée que par des créatures avec le vol.
"""


def test_own_forum_post_passage_under_702_notes_signature_and_english_quote_header():
    edition = parse_text(FORUM_POST, "post.txt", lang="fr")
    assert edition.kind == "fragment"
    assert kinds(edition) == [
        ("¶1", "note"),
        ("¶2", "note"),
        ("702", "section"),
        ("702¶1", "passage"),
        ("702.9", "rule"),
        ("702.9a", "subrule"),
        ("702¶2", "note"),
        ("702¶3", "note"),
        ("702¶4", "note"),
        ("702.9b", "subrule"),
    ]
    assert edition.get("702¶1").examples == ("Le vol est une capacité à mot-clé.",)
    assert edition.get("702¶3").text == "Ma signature, deux lignes\net la seconde"
    assert edition.get("702¶4").text == "Bob wrote:"
    assert edition.get("702.9a").text == "Le vol est une capacité d'évasion."


def test_the_site_takes_the_fragments_alignments_from_the_database_as_comprules_diff_does(full_kb, editions):
    """Issue 21: the site aligns nothing. Its chain of the French documents goes by name
    (000 → 001 → 002 …), the build stored the pairs in its own order (002 → 001): the site
    reads each pair either way, the other way mirrored, and shows the rows `comprules diff`
    gives."""
    from comprules.align.history import diff
    from comprules.kb import KnowledgeBase
    from comprules.site.lineage import load_alignments
    from comprules.store import DB_NAME, Store

    kb_dir = full_kb[0]
    store = Store(kb_dir / "data" / DB_NAME)
    try:
        seeds = [editions[n] for n in sorted(editions) if n.startswith("fr/")]
        digests: dict = {}
        found = load_alignments(seeds, store=store, digests=digests)
        names = [s.name for s in seeds]
        assert sorted(found) == list(zip(names, names[1:]))  # every consecutive pair, none computed
        assert set(digests) == set(found) and len(set(digests.values())) == 4
        one, two = "fr/001_efcdb25c5e4b3248", "fr/002_89b48a7ac2467f84"
        assert store.alignment(one, two) is None and store.alignment(two, one) is not None
        library = diff(KnowledgeBase(kb_dir), one, two)
        assert found[(one, two)].to_json()["rules"] == library.to_json()["rules"]
    finally:
        store.close()


def test_the_servers_french_folder_leads_to_the_home_pages_list_of_documents(full_kb):
    # a trial: /en/ and /zh/ redirect to their latest edition, /fr/ (undated documents only) was a bare 404
    from starlette.testclient import TestClient

    from comprules.server import create_app

    home = (full_kb[0] / "site" / "index.html").read_text(encoding="utf-8")
    assert 'id="fr-documents"' in home and "fr/004_99dc3338bd3ea994" in home
    with TestClient(create_app(full_kb[0])) as client:
        for path in ("/fr", "/fr/"):
            got = client.get(path, follow_redirects=False)
            assert (got.status_code, got.headers["location"]) == (307, "/#fr-documents"), path
        assert client.get("/zh/", follow_redirects=False).headers["location"] == "/zh/latest/"
        assert client.get("/xx/", follow_redirects=False).status_code == 404
