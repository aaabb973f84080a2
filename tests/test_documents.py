"""French documents as documents (issue 14, part 3): a title and a description for each
seed, from the document itself or its ``editions.toml``, used wherever the site names it.

The seeds are read in place (``../shared/seeds``); a test that needs an ``editions.toml``
copies one seed into a temporary folder beside it.
"""

from __future__ import annotations

import re
import shutil
from datetime import date

import pytest

from comprules.corpus import load_sources
from comprules.corpus.describe import describe
from comprules.site.documents import document_view

STEMS = (
    "000_f51ad62258817a66",
    "001_efcdb25c5e4b3248",
    "002_89b48a7ac2467f84",
    "003_816c607ad111474a",
    "004_99dc3338bd3ea994",
)


@pytest.fixture(scope="module")
def seeds(seed_files) -> dict:
    return {e.name.partition("/")[2][:3]: e for e in load_sources(seed_files).editions}


def test_seed_titles_are_their_own_headings_or_the_rules_they_quote_never_the_file_stem(seeds):
    assert {k: e.title for k, e in seeds.items()} == {
        "000": "Capacité=effet ?",  # the forum thread's subject
        "001": "602. Capacités",  # the section it is
        "002": "Capacités activées, déclenchées, statiques et de mana",  # the thread's subject
        "003": "Les capacités",  # the rulebook page's heading
        "004": "Offrande, Ninjutsu, Folie, Mue",  # no heading: the rules it quotes
    }


def test_seed_descriptions_say_what_each_is_what_it_quotes_and_when(seeds, seed_files, tmp_path):
    """What the corpus stage says of each seed, as the knowledge base's database holds it
    (``editions.document``) and the site shows it."""
    from comprules.build import build
    from comprules.store import DB_NAME, Store

    facts = {k: describe(e.rules, e.glossary, e.lang) for k, e in seeds.items()}
    assert {k: d.kind for k, d in facts.items()} == {
        "000": "forum",
        "001": "rules",
        "002": "forum",
        "003": "rulebook",
        "004": "forum",
    }
    assert [n for n, _ in facts["004"].quotes] == ["502.42", "502.43", "502.24", "502.26"]
    assert facts["004"].dates == (date(2005, 5, 21),)  # "[ Edité par Sacha Le 21 mai 2005 ]"
    assert facts["002"].dates == (date(2006, 8, 18),)  # "Le 18/08/2006, gulain avait écrit ..."
    assert facts["003"].terms[:3] == ("Peur", "Initiative", "Vol")
    build(seed_files, tmp_path / "kb", only=("data",))
    stored = Store(tmp_path / "kb" / "data" / DB_NAME).documents()
    assert sorted(stored) == sorted(e.name for e in seeds.values())
    assert stored[seeds["004"].name] == {
        "kind": "forum",
        "title": "Offrande, Ninjutsu, Folie, Mue",
        "quotes": [[n, t] for n, t in facts["004"].quotes],
        "terms": [],
        "dates": ["2005-05-21"],
    }
    era = ("en/2005-02-01", "en/2005-08-01")
    views = {k: document_view(e, stored[e.name], era=era) for k, e in seeds.items()}
    assert views["000"].summary.startswith("Discussion de forum · sections 402–406 · ")
    assert views["001"].summary.startswith("Extrait des Règles complètes · section 602 · ")
    assert views["004"].summary == (
        "Discussion de forum · 2005-05-21 · règles 502.24, 502.26, 502.42, 502.43"
        " · anglais de l’époque : 2005-02-01 – 2005-08-01"
    )
    assert views["003"].summary.startswith("Extrait du livret de règles · capacités Peur, Initiative, Vol, Célérité, …")


def test_editions_toml_title_and_description_win_over_what_is_derived(seed_files, tmp_path):
    shutil.copy(seed_files[4], tmp_path / seed_files[4].name)
    (tmp_path / "editions.toml").write_text(
        f'["{seed_files[4].name}"]\ntitle = "Offrande et ninjutsu (forum Magic-Ville)"\n'
        'description = "Fil de 2005 sur les capacités qui ne sont pas activées"\n',
        encoding="utf-8",
    )
    edition = load_sources([tmp_path]).editions[0]
    assert edition.title == "Offrande et ninjutsu (forum Magic-Ville)"
    view = document_view(edition)
    assert (view.title, view.summary) == (
        "Offrande et ninjutsu (forum Magic-Ville)",
        "Fil de 2005 sur les capacités qui ne sont pas activées",
    )
    (tmp_path / "editions.toml").write_text(f'["{seed_files[4].name}"]\ndescription = 5\n', encoding="utf-8")
    assert "bad description 5" in str(load_sources([tmp_path]).errors[0])


def test_no_seed_page_names_a_document_by_its_file_stem(seed_files, tmp_path):
    """The seeds' site as a build makes it: their descriptions from the database."""
    from comprules.build import build

    build(seed_files, tmp_path / "kb", only=("data", "site"))
    out = tmp_path / "kb" / "site"
    home = (out / "index.html").read_text(encoding="utf-8")
    assert '<a href="fr/004_99dc3338bd3ea994/index.html">Offrande, Ninjutsu, Folie, Mue</a>' in home
    for path in out.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        shown = re.sub(
            r"<[^>]+>",
            "",
            " ".join(" ".join(m) for m in re.findall(r"<title>(.*?)</title>|<h1[^>]*>(.*?)</h1>", html, re.S)),
        )
        assert not any(stem in shown for stem in STEMS), (path, shown)
        nav = re.search(r'<nav class="crumbs">.*?</nav>', html, re.S)
        assert nav is None or not any(stem in re.sub(r"<[^>]+>", "", nav.group(0)) for stem in STEMS), path
    page = (out / "fr/003_816c607ad111474a/index.html").read_text(encoding="utf-8")
    assert "<title>Les capacités — Règles complètes de Magic : L'Assemblée</title>" in page.replace("&#39;", "'")
    assert '<meta name="description" content="Extrait du livret de règles · capacités Peur' in page


@pytest.mark.slow
def test_no_page_of_the_whole_site_titles_a_seed_by_its_file_stem(full_kb):
    site = full_kb[0] / "site"
    titled = re.compile(r"<title>(.*?)</title>|<h1[^>]*>(.*?)</h1>|<nav class=\"crumbs\">(.*?)</nav>", re.S)
    seen = 0
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        for groups in titled.findall(html):
            text = re.sub(r"<[^>]+>", "", " ".join(groups))  # what a reader sees, not the links' addresses
            assert not any(stem in text for stem in STEMS), (path.relative_to(site), text[:200])
        seen += 1
    assert seen > 20_000  # 23,878 pages with the 74 English, 18 Chinese editions and the 5 seeds
    home = (site / "index.html").read_text(encoding="utf-8")
    for title in ("Capacité=effet ?", "602. Capacités", "Les capacités", "Offrande, Ninjutsu, Folie, Mue"):
        assert f">{title}</a>" in home


def test_the_site_reads_a_documents_english_edition_and_era_from_the_database_not_the_exports(
    en_dir, seeds_dir, tmp_path, monkeypatch
):
    """The site takes the English edition of a French document, their alignment and the
    document's era from the knowledge base's database: with the JSON exports of
    data/alignments/ removed, nothing is aligned again and the answers are those the
    exports printed (issue 21: the site is a view of the database). The alignments of
    consecutive editions are still read from the exports (site/lineage.py says why)."""
    import json

    from comprules.align.history import alignment_path
    from comprules.build import build
    from comprules.site import lineage
    from comprules.site.compare import compare_pairs
    from comprules.site.documents import eras

    kb = tmp_path / "kb"
    seed = seeds_dir / "000_f51ad62258817a66.txt"
    report = build([en_dir / "2002-10-07.txt", en_dir / "2003-03-15.txt", seed], kb, only=("data",))
    data = kb / "data"
    exported = json.loads(alignment_path(data, "fr/000_f51ad62258817a66", "en/2002-10-07").read_text(encoding="utf-8"))
    index = json.loads((data / "alignments" / "index.json").read_text(encoding="utf-8"))
    (era_row,) = [r for r in index["crosslang"] if r["old"] == "fr/000_f51ad62258817a66"]
    shutil.rmtree(data / "alignments")

    def refuse(*args, **kwargs):
        raise AssertionError("aligned again")

    monkeypatch.setattr("comprules.align.crosslang.align_languages", refuse)
    monkeypatch.setattr("comprules.align.crosslang.choose_english", refuse)
    store = lineage.open_store(data)
    editions = report.editions
    ((fr, en, alignment),) = compare_pairs(editions, store=store)
    assert (fr.name, en.name, alignment.to_json()) == ("fr/000_f51ad62258817a66", era_row["new"], exported)
    assert era_row["new"] == "en/2002-10-07"
    assert eras(store) == {"fr/000_f51ad62258817a66": tuple(era_row["era"])}
    assert lineage.open_store(tmp_path) is None  # no database there: the site aligns itself


def test_a_french_look_up_by_language_finds_the_document_that_holds_it(full_kb):
    """The French documents are undated: none is "the latest". A look-up by language, or
    ``fr/latest``, goes to the newest document holding what is asked (a trial: glossary
    look-ups answered 404 from fr/000, which has no glossary; ``show -e fr/latest`` said
    "no dated edition")."""
    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from comprules.cli import main
    from comprules.server import create_app

    kb = full_kb[0]
    with TestClient(create_app(kb)) as client:
        entry = client.get("/api/v1/glossary/Piétinement", params={"lang": "fr"})
        assert entry.status_code == 200 and entry.json()["edition"] == "fr/003_816c607ad111474a"
        assert entry.json()["entry"]["term"] == "Piétinement"
        whole = client.get("/api/v1/glossary", params={"lang": "fr"}).json()
        assert whole["edition"] == "fr/003_816c607ad111474a" and len(whole["glossary"]) == 9
        assert client.get("/ar/cr/glossary/vol", params={"lang": "fr"}).json()["term"] == "Vol"
        # accents not typed, on /ar as on /api/v1 (a fourth trial: a 404 without fuzzy)
        assert client.get("/ar/cr/glossary/pietinement", params={"lang": "fr"}).json()["term"] == "Piétinement"
        # the whole glossary on /ar, and a history, from the document holding them (a third
        # trial: /ar/cr/glossary?lang=fr was {} from fr/000, a history of fr/latest a 400)
        ar_glossary = client.get("/ar/cr/glossary", params={"lang": "fr"}).json()
        assert len(ar_glossary) == 9 and ar_glossary["vol"]["term"] == "Vol"
        for params in ({"lang": "fr"}, {"edition": "fr/latest"}):
            steps = client.get("/api/v1/history/502.26", params=params).json()["lineage"]
            assert [(s["edition"], s["number"]) for s in steps] == [("fr/004_99dc3338bd3ea994", "502.26")]
        assert client.get("/api/v1/history/999.1", params={"lang": "fr"}).status_code == 404
        # a whole document: the newest (a fourth trial: /ar/cr?edition=fr/latest was a 422,
        # /ar/cr?lang=fr fr/000's contents lines)
        for params in ({"lang": "fr"}, {"edition": "fr/latest"}):
            assert client.get("/ar/cr", params=params).json()["502.26"]["ruleText"] == "Mue"
            assert (
                client.get("/api/v1/check", params=params).json()["editions"][0]["edition"] == "fr/004_99dc3338bd3ea994"
            )
        # accents not typed, a misspelling looked up fuzzily (a second trial)
        assert (
            client.get("/api/v1/glossary/pietinement", params={"lang": "fr"}).json()["entry"]["term"] == "Piétinement"
        )
        fuzzy = {"lang": "fr", "fuzzy": "true"}
        assert client.get("/ar/cr/glossary/Vole", params=fuzzy).json()["term"] == "Vol"
        assert client.get("/ar/cr/glossary/Celerite", params=fuzzy).json()["term"] == "Célérité"
        missing = client.get("/api/v1/glossary/nothing", params={"lang": "fr"})
        assert (
            missing.status_code == 404
            and missing.json()["detail"] == "no glossary entry 'nothing' in any document in fr"
        )
        rule = client.get("/api/v1/rules/502.26", params={"edition": "fr/latest"}).json()
        assert rule["edition"] == "fr/004_99dc3338bd3ea994" and rule["rule"]["title"] == "Mue"
        # a language code in any case, or alone (a second trial: "no edition in language 'FR'")
        assert client.get("/api/v1/rules/502.26", params={"lang": "FR"}).json()["edition"] == "fr/004_99dc3338bd3ea994"
        assert client.get("/api/v1/rules/702.19", params={"edition": "zh"}).json()["edition"] == "zh/2026-04-17"
        assert client.get("/api/v1/rules/702.19", params={"edition": "EN/latest"}).json()["edition"] == "en/2026-08-07"
    for given in ("fr/latest", "fr", "FR"):
        shown = CliRunner().invoke(main, ["show", "502.26", "-e", given, "--kb", str(kb)])
        assert shown.exit_code == 0 and shown.output.splitlines()[0] == "fr/004_99dc3338bd3ea994", given
    traced = CliRunner().invoke(main, ["history", "502.26", "-e", "fr/latest", "--kb", str(kb)])
    assert traced.exit_code == 0 and "fr/004_99dc3338bd3ea994  502.26" in traced.output
    none = CliRunner().invoke(main, ["show", "999.1", "-e", "fr/latest", "--kb", str(kb)])
    assert none.exit_code == 1 and "no rule 999.1 in any document in fr (Français)" in none.output


def test_export_site_says_why_a_french_document_or_a_source_file_has_no_zip(full_kb, en_dir, tmp_path):
    # a trial: "no search data … (build the knowledge base again)" for a French document, and
    # "no edition '…2009-07-11.txt' (nearest: …)" for a source file: neither is what is wrong
    from click.testing import CliRunner

    from comprules.cli import main

    kb = str(full_kb[0])
    doc = CliRunner().invoke(
        main, ["export", "fr/004_99dc3338bd3ea994", "--site", "--kb", kb, "-o", str(tmp_path / "a.zip")]
    )
    assert doc.exit_code == 2 and doc.output.strip().endswith(
        "fr/004_99dc3338bd3ea994 is an undated document: only a dated edition downloads as a zip"
    )
    src = en_dir / "2009-07-11.txt"
    given = CliRunner().invoke(main, ["export", str(src), "--site", "--kb", kb, "-o", str(tmp_path / "b.zip")])
    assert given.exit_code == 2 and "--site takes an edition of the knowledge base" in given.output
    assert not (tmp_path / "a.zip").exists() and not (tmp_path / "b.zip").exists()
    # JSON into a file named .zip (a second trial: written without a word)
    json_zip = CliRunner().invoke(main, ["export", "en/2009-05-01", "--kb", kb, "-o", str(tmp_path / "c.zip")])
    assert json_zip.exit_code == 2 and "the export is JSON; --site writes the edition as a zip" in json_zip.output
    assert not (tmp_path / "c.zip").exists()
