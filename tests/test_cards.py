"""Cards meet the rules (issue 25): card files in, the rules each card calls on, ``comprules card``.

Readers on small fixture files of our own in both formats (tests/fixtures/cards: invented
cards, no real card text); the concepts from the real editions; the spans and rules of
real cards from ``$COMPRULES_CARDS`` (default ``../shared/cards/oracle-cards.json``, read
in place); the command on a knowledge base built with ``--cards``.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from comprules.cards import store
from comprules.cards.analyse import Analyser
from comprules.cards.build import build_cards
from comprules.cards.concepts import detectors, edition_concepts, parse_table
from comprules.cards.lookup import CardIndex, names_in
from comprules.cards.model import Card, Face
from comprules.cards.read import MTGJSON, SCRYFALL, ReadReport, read_cards
from comprules.cli import main
from comprules.corpus import parse_file
from comprules.errors import NotFound, SourceError, UsageError

FIXTURES = Path(__file__).with_name("fixtures") / "cards"
ROOT = Path(__file__).resolve().parent.parent
WORDINGS = ROOT / "src" / "comprules" / "data" / "card_wordings.toml"


@pytest.fixture(scope="session")
def card_file() -> Path:
    path = Path(os.environ.get("COMPRULES_CARDS", ROOT / "../shared/cards/oracle-cards.json")).resolve()
    if not path.is_file():
        if os.environ.get("COMPRULES_REQUIRE_CORPUS") == "1":
            pytest.fail(f"{path} not found (real data is required)")
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="module")
def latest(en_dir):
    return parse_file(en_dir / "2026-08-07.txt")


# --- reading the two formats -------------------------------------------------------------


def test_scryfall_file_gives_each_card_and_the_faces_of_a_split_card():
    report = ReadReport("x")
    cards = list(read_cards(FIXTURES / "scryfall-small.json", report))
    assert report.format == SCRYFALL
    assert [c.name for c in cards] == ["Quiet Lantern Thief", "Puddle // Mirror", "Tinfoil Hatband", "Fog Bank Patrol"]
    assert report.skipped == 2  # the set object and the card without a name
    split = cards[1]
    assert [f.name for f in split.faces] == ["Puddle", "Mirror"]
    assert split.faces[1].type_line == "Sorcery" and split.layout == "split"
    assert cards[0].faces[0].power == "1" and cards[0].faces[0].oracle_text.startswith("Flash\n")


def test_mtgjson_atomic_cards_gives_faces_in_side_order_and_skips_an_empty_name():
    report = ReadReport("x")
    cards = list(read_cards(FIXTURES / "mtgjson-small.json", report))
    assert report.format == MTGJSON and report.skipped == 1
    assert [c.name for c in cards] == ["Quiet Lantern Thief", "Puddle // Mirror", "Gloom Lighthouse"]
    assert [f.name for f in cards[1].faces] == ["Puddle", "Mirror"]  # side a first, whatever the file's order
    assert cards[2].faces[0].loyalty == "3"


def test_bad_json_is_one_line_naming_the_file_and_the_line():
    with pytest.raises(SourceError) as err:
        list(read_cards(FIXTURES / "broken.json"))
    assert re.match(r".*broken\.json: line [1-5]: not valid JSON", str(err.value))
    assert "\n" not in str(err.value)


def test_a_json_object_without_data_is_not_a_card_file(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"meta": {}, "cards": []}', encoding="utf-8")
    with pytest.raises(SourceError, match="without a data member"):
        list(read_cards(path))


# --- the table of wordings -------------------------------------------------------------------


def test_every_rule_of_the_wordings_table_is_in_the_edition_it_is_numbered_in(latest):
    raw = tomllib.loads(WORDINGS.read_text(encoding="utf-8"))
    assert raw["numbered_in"] == latest.name
    numbers = {n for row in raw["wording"] for n in row["rules"]}
    assert len(raw["wording"]) >= 40
    assert {n for n in numbers if latest.get(n) is None} == set()


def test_a_bad_pattern_in_the_table_names_its_row():
    with pytest.raises(ValueError, match=r"x\.toml: wording 1 \(oops\)"):
        parse_table('[[wording]]\nid = "oops"\npatterns = ["(unclosed"]\nrules = ["614.1"]\n', "x.toml")


# --- concepts found in each edition's own text -------------------------------------------------


def test_keyword_rules_come_from_the_editions_own_headings(latest, en_dir):
    now = edition_concepts(latest)
    assert now.rules["keyword:flash"] == ("702.8",)
    assert now.rules["keyword:trample"] == ("702.19",)
    assert now.rules["action:destroy"] == ("701.8",)
    old = edition_concepts(parse_file(en_dir / "2002-10-07.txt"))
    assert old.rules["keyword:morph"] == ("502.26",)  # Morph was 502.26 before the 2009 renumbering
    assert old.rules["keyword:flying"] == ("502.4",)


def test_subtypes_with_rules_of_their_own_and_the_basic_land_types(latest):
    rules = edition_concepts(latest).rules
    assert rules["subtype:aura"] == ("205.3h", "303.4")
    assert rules["subtype:saga"] == ("205.3h", "714")
    assert rules["subtype:equipment"][:2] == ("205.3g", "301.5")
    assert rules["subtype:mountain"] == ("205.3i", "305.6")
    assert rules["subtype:zombie"] == ("205.3m",)
    assert rules["supertype:legendary"][:2] == ("205.4d", "704.5j")
    assert rules["type:creature"] == ("302",)


def test_spans_of_a_fixture_card_and_a_card_named_like_a_keyword(latest):
    ec = edition_concepts(latest)
    analyser = Analyser(detectors(ec.labels))
    thief = next(read_cards(FIXTURES / "scryfall-small.json"))
    found = {
        (c.concept, thief.faces[0].oracle_text[c.start : c.end]) for c in analyser.calls(thief) if c.where == "text"
    }
    assert {("keyword:flash", "Flash"), ("wording:instead", "instead"), ("wording:skip", "skips")} <= found
    named = Card(
        "Flash Of Gnomes", (Face("Flash Of Gnomes", type_line="Instant", oracle_text="Flash Of Gnomes shines."),)
    )
    assert [c.concept for c in analyser.calls(named) if c.where == "text"] == []  # its own name is masked


def test_build_cards_from_an_atomic_cards_file_keeps_each_face_s_spans(tmp_path, latest):
    path = tmp_path / "cards.sqlite"
    report = build_cards(FIXTURES / "mtgjson-small.json", [latest], path)
    assert (report.format, report.cards) == (MTGJSON, 3)
    index = CardIndex.open(path)
    split = index.find("Mirror")
    assert split.name == "Puddle // Mirror" and split.how == "face"
    rules = store.card_rules(index.db, split.card, latest.name)
    assert ("707.1", 1, "copy") in {(r.rule, r.face, r.span) for r in rules}  # the second face's text
    assert ("615.1a", 0, "Prevent") in {(r.rule, r.face, r.span) for r in rules}
    land = _rules(index, "Gloom Lighthouse")
    assert "in addition to its other land types" in land["305.7"] and "Island" in land["305.6"]


def test_an_edition_the_wordings_cannot_be_followed_to_gets_none_of_their_rules(tmp_path, en_dir, card_file):
    # card_wordings.toml numbers its rules as in en/2026-08-07: without that edition, 603.1
    # of 2009-05-01 ("whenever") is the Emperor variant and 205.4c ("nonbasic") the legend
    # rule; the edition's own keywords and types stay
    old = parse_file(en_dir / "2009-05-01.txt")
    assert old.get("603.1").text.startswith("The Emperor variant")
    path = tmp_path / "cards.sqlite"
    report = build_cards(card_file, [old], path)
    index = CardIndex.open(path)
    for name in ("Hypnotic Specter", "Blood Moon"):
        rules = store.card_rules(index.db, index.find(name).card, old.name)
        assert [(r.rule, r.concept) for r in rules if r.concept.startswith("wording:")] == []
        assert "205.4c" not in {r.rule for r in rules} and "603.1" not in {r.rule for r in rules}
    rules = store.card_rules(index.db, index.find("Hypnotic Specter").card, old.name)
    # a type's own rule as that edition titled it ("212.3. Creatures"), not the list of types
    assert {(r.rule, r.span) for r in rules} >= {("502.4", "Flying"), ("212.3", "Creature")}
    assert any("numbered as in en/2026-08-07" in note for note in report.notes)


# --- the real card file ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_db(tmp_path_factory, card_file, latest):
    path = tmp_path_factory.mktemp("cards") / "cards.sqlite"
    report = build_cards(card_file, [latest], path)
    assert report.cards == 18092 and report.format == SCRYFALL
    return CardIndex.open(path)


def _rules(index: CardIndex, name: str, edition: str = "en/2026-08-07") -> dict[str, set[str]]:
    match = index.find(name)
    out: dict[str, set[str]] = {}
    for r in store.card_rules(index.db, match.card, edition):
        out.setdefault(r.rule, set()).add(r.span)
    return out


def test_notion_thief_calls_on_flash_and_on_instead(real_db):
    rules = _rules(real_db, "Notion Thief")
    assert rules["702.8"] == {"Flash"}
    assert rules["614.1a"] == {"instead"}
    assert "skips" in rules["614.10"]


def test_blood_moon_calls_on_nonbasic_the_mountain_type_and_setting_a_land_type(real_db):
    rules = _rules(real_db, "Blood Moon")
    assert rules["305.8"] == {"Nonbasic"}
    assert "Mountains" in rules["305.6"]
    assert rules["305.7"] == {"lands are Mountains"}


def test_urborg_calls_on_the_land_type_rules_for_in_addition_to_its_other_land_types(real_db):
    rules = _rules(real_db, "Urborg, Tomb of Yawgmoth")
    assert "in addition to its other land types" in rules["305.7"]
    assert "in addition to its other land types" in rules["305.6"]
    assert "Swamp" in rules["305.6"]


def test_names_asked_in_any_case_as_plurals_possessives_and_misspelt(real_db):
    assert real_db.find("notion thieves").name == "Notion Thief"
    assert real_db.find("notion thieves").how == "plural"
    assert real_db.find("Notion Thief's").name == "Notion Thief"
    assert real_db.find("urborg tomb of yawgmoth").name == "Urborg, Tomb of Yawgmoth"
    assert real_db.find("Notoin Thief").how == "fuzzy"


def test_a_part_of_many_names_counts_the_possessives_and_ends_its_list_only_when_cut(real_db):
    # a trial: "Urza" was "3 names hold it" (the 18 "Urza's …" were not counted) and
    # "Tawnos" listed its names with a "…" after the last one
    with pytest.raises(NotFound) as urza:
        real_db.find("Urza")
    assert ": 21 names hold it (" in str(urza.value) and str(urza.value).endswith("…)")
    with pytest.raises(NotFound) as tawnos:
        real_db.find("Tawnos")
    assert ": 5 names hold it (" in str(tawnos.value)
    with pytest.raises(NotFound) as two:
        real_db.find("abhorrent")
    assert str(two.value).endswith(": 2 names hold it (Abhorrent Overlord; Ashes of the Abhorrent)")


def test_quotes_around_a_name_are_the_users_and_quotes_inside_it_the_cards(real_db):
    # a trial: Kongming, "Sleeping Dragon" typed as printed was a "face" (its last quote
    # was taken off as the user's) where curly quotes were "exact"
    for asked in ['Kongming, "Sleeping Dragon"', "Kongming, “Sleeping Dragon”"]:
        found = real_db.find(asked)
        assert (found.name, found.how) == ('Kongming, "Sleeping Dragon"', "exact"), asked
    for asked in ['"Notion Thief"', "“Notion Thief”", ' "Notion Thief" ']:
        assert (real_db.find(asked).name, real_db.find(asked).how) == ("Notion Thief", "exact"), asked
    for empty in ['"', '""', '  ""  ']:
        with pytest.raises(UsageError, match="no card name given"):
            real_db.find(empty)


def test_a_few_letters_inside_names_are_no_card_and_a_ligature_is_its_letters(real_db):
    # a trial: "x" was taken for Annex, "the" for Acolyte of the Inferno, "Goyf" for
    # Lhurgoyf (WRatio scores a few letters inside a long name about 90); "Æther Vial" was
    # no card (its Oracle name is "Aether Vial")
    # a second trial: a word many names hold was taken for one of them ("Path" was Apathy,
    # "Goblin" Goblin Spy), accents were folded on the asked side only ("Seance" refused)
    for junk in ["x", "zz", "the", "Sol", "Goyf", "Emrakul", "Jace", "bolt", "Path", "Goblin", "Llanowar"]:
        with pytest.raises(NotFound):
            real_db.find(junk)
    with pytest.raises(NotFound, match=r"\(nearest: Fire; Ice\)"):
        real_db.find("Fire // Ice")  # the file has its halves as cards of their own
    assert real_db.find("Æther Vial").name == real_db.find("Æther Vials").name == "Aether Vial"
    assert (real_db.find("Seance").name, real_db.find("Seance").how) == ("Séance", "exact")
    assert real_db.find("lim dul's vault").name == "Lim-Dûl's Vault"
    assert real_db.find("mind sculptor").name == "Jace, the Mind Sculptor"
    assert real_db.find("Urborg Tomb").name == "Urborg, Tomb of Yawgmoth"  # the one name holding both words
    assert real_db.find("Lightnig Bolt").name == "Lightning Bolt"
    assert real_db.find("Platinum Angle").name == "Platinum Angel"


def test_names_in_a_query_only_when_written_as_names(real_db):
    def found(q):
        return [f.name for f in names_in(real_db, q)]

    assert found("My opponent and I each control a Notion Thief and I cast Think Twice.") == [
        "Notion Thief",
        "Think Twice",
    ]
    assert found("two Notion Thieves draw") == ["Notion Thief"]
    assert found("Blood Moon and Urborg, Tomb of Yawgmoth") == ["Blood Moon", "Urborg, Tomb of Yawgmoth"]
    assert found("can I clone a creature") == []  # the rule word, in lower case
    assert found("Clone enters as a copy") == []  # a rules word at a sentence's start
    assert found("Can my Clone copy a Saga?") == ["Clone"]
    assert found("card:clone copies") == ["Clone"]
    assert found("card:“Time Walk” extra turn") == found('card:"Time Walk" extra turn') == ["Time Walk"]
    assert found("notion thieves") == ["Notion Thief"]  # the whole query is a name, typed in lower case
    assert found("blood moon urborg") == []
    assert found("Does the ETB of Thragtusk trigger?") == ["Thragtusk"]
    assert found("Does Blood Moon turn my Urborg into a Mountain?") == ["Blood Moon", "Urborg"]  # the subtype
    assert found("card:Flash and my Protean Hulk") == ["Flash", "Protean Hulk"]  # a card named like a keyword
    # the end or the middle of a longer name the card file lacks is not the card it spells
    # (questions of tests/questions.toml: Titanic Brawl, Prosper, Tome-Bound, The Meathook
    # Massacre, Synchronized Charge are not among its 18,092 cards; Brawl, Bound, Massacre, Charge are)
    assert found("My Adorned Prowler fought a 1/1 with Titanic Brawl.") == []
    assert found("Why didn't Prosper, Tome-Bound give me a Treasure? I cast Chaos Wand.") == ["Chaos Wand"]
    assert found("Does The Meathook Massacre still trigger?") == []
    assert found("I cast Synchronized Charge on two creatures.") == []
    assert found("I cast Massacre, then Brawl.") == ["Massacre", "Brawl"]  # each written alone: the cards
    # ";Morph" and ";Manifest" are cards named like keywords, behind a semicolon: the
    # keyword as a word or as the whole query, the card only when asked as one
    assert found("how does Morph work") == [] and found("; morph") == [] and found("morph 🂡") == []
    assert found("card:;Morph and face-down spells") == [";Morph"]


def test_a_name_asked_with_card_that_is_no_cards_is_said_not_dropped(real_db, card_kb):
    """A trial: ``card:xyzzy trample`` searched "card xyzzy trample" as rule words, the name
    asked for dropped without a word."""
    with pytest.raises(UsageError, match=r"^card:xyzzy: no card 'xyzzy' \(nearest: .*Grizzly Bears"):
        names_in(real_db, "card:xyzzy trample")
    result = run("search", "card:xyzzy trample", "--kb", card_kb)
    assert result.exit_code == 2 and "card:xyzzy: no card 'xyzzy' (nearest:" in result.output
    misspelt = json.loads(run("search", 'card:"notion thef" flash', "--kb", card_kb, "--json").output)
    assert [c["name"] for c in misspelt["cards"]] == ["Notion Thief"]  # a misspelt name asked for is found
    # and a name the rules print is searched as the card is named (a trial: "card:Timewalk"
    # searched "Timewalk" as a word and answered with the draw rules of 121)
    asked = {
        typed: json.loads(run("search", typed, "--kb", card_kb, "--json").output)
        for typed in ('card:"Time Walk"', 'card:"Time Wlak"', "card:Timewalk")
    }
    assert all([c["name"] for c in a["cards"]] == ["Time Walk"] for a in asked.values())
    numbers = {typed: [h["number"] for h in a["hits"]] for typed, a in asked.items()}
    assert numbers['card:"Time Wlak"'] == numbers["card:Timewalk"] == numbers['card:"Time Walk"']
    assert "500.7" in numbers["card:Timewalk"][:3] and not any(n.startswith("121.") for n in numbers["card:Timewalk"])
    assert asked["card:Timewalk"]["query"] == "card:Timewalk"  # the question as asked
    # whatever the kind (a trial: --kind rule searched "card xyzzy" as words, and exit 0)
    for kind in ("rule", "glossary", "example"):
        result = run("search", "card:xyzzy trample", "--kind", kind, "--kb", card_kb)
        assert result.exit_code == 2 and "no card 'xyzzy'" in result.output, kind
    rules = json.loads(run("search", "card:Clone copy", "--kind", "rule", "--kb", card_kb, "--json").output)
    assert [c["name"] for c in rules["cards"]] == ["Clone"] and rules["hits"][0]["number"].startswith("707")


def test_the_rules_a_card_calls_on_are_printed_cut_at_a_word(card_kb):
    # a trial: "614.1c Effects that read “[This permanent] ente" (cut at 40 characters, no mark)
    result = run("search", "card:Clone copy", "--kb", card_kb, "-n", "1")
    line = next(ln for ln in result.output.splitlines() if "calls on:" in ln)
    labels = [part.split(" ", 1)[1] for part in line.split("calls on: ", 1)[1].split(", ") if " " in part]
    assert "614.1c Effects that read “[This permanent]…" in line
    assert all(len(label) <= 40 and (label.endswith("…") or not label.endswith(" ")) for label in labels)


def test_names_the_rules_print_are_marked_and_still_searched_for(real_db, card_kb):
    printed = {store.card(real_db.db, i).name for i in store.in_rules(real_db.db)}
    assert {"Wall of Omens", "Platinum Angel", "Clone"} <= printed and "Notion Thief" not in printed
    data = json.loads(run("search", "Wall of Omens", "--kb", card_kb, "--json").output)
    assert data["cards"][0]["name"] == "Wall of Omens"
    assert any("Wall of Omens" in h["snippet"] for h in data["hits"][:3])  # the example that names it


# --- comprules card on a knowledge base built with --cards --------------------------------------------


@pytest.fixture(scope="module")
def card_kb(tmp_path_factory, en_dir, card_file):
    from comprules.build import build

    kb = tmp_path_factory.mktemp("cardkb") / "kb"
    report = build([en_dir / "2026-08-07.txt"], kb, only=("data", "index"), cards=card_file)
    assert report.errors == [] and (kb / "data" / "cards.sqlite").is_file()
    return kb


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_comprules_card_json_lists_flash_and_instead_with_their_spans(card_kb):
    result = run("card", "Notion Thief", "--kb", card_kb, "--json")
    assert result.exit_code == 0, result.output
    view = json.loads(result.output)
    assert view["card"]["name"] == "Notion Thief" and view["edition"] == "en/2026-08-07"
    rules = {r["number"]: r for r in view["rules"]}
    assert rules["702.8"]["spans"] == ["Flash"] and rules["702.8"]["label"] == "Flash"
    assert rules["614.1a"]["spans"] == ["instead"]
    text = view["card"]["faces"][0]["oracle_text"]
    span = next(s for s in view["spans"] if s["concept"] == "wording:instead")
    assert text[span["start"] : span["end"]] == "instead" and "614.1a" in span["rules"]


def test_comprules_card_text_marks_the_spans_and_lists_the_rules(card_kb):
    result = run("card", "notion thieves", "--kb", card_kb)
    assert result.exit_code == 0, result.output
    assert "[Flash]" in result.output and "[instead]" in result.output
    assert re.search(r"^\s+\d+ 702\.8\s+Flash", result.output, re.M)
    assert "614.1a" in result.output


def test_comprules_card_unknown_name_is_one_line_and_exit_1(card_kb):
    result = run("card", "Zzyzx Qqq", "--kb", card_kb)
    assert result.exit_code == 1
    assert result.output.strip().startswith("comprules: no card 'Zzyzx Qqq' (nearest:")
    assert len(result.output.strip().splitlines()) == 1


def test_comprules_card_of_an_empty_name_is_a_usage_error(card_kb):
    result = run("card", " ", "--kb", card_kb)
    assert result.exit_code == 2
    assert result.output.strip() == "comprules: no card name given"


def test_comprules_card_without_card_data_says_how_to_build_it(tmp_path, en_dir):
    from comprules.build import build

    kb = tmp_path / "kb"
    build([en_dir / "2026-08-07.txt"], kb, only=("data",))
    result = run("card", "Notion Thief", "--kb", kb)
    assert result.exit_code == 2 and "--cards FILE" in result.output


# --- search that knows the cards a question names ------------------------------------------------


def test_search_shows_the_cards_a_question_names_first_and_ranks_by_their_rules(card_kb):
    result = run("search", "Does Blood Moon turn Urborg, Tomb of Yawgmoth into a Mountain?", "--kb", card_kb, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [c["name"] for c in data["cards"]] == ["Blood Moon", "Urborg, Tomb of Yawgmoth"]
    assert "305.7" in [r["number"] for r in data["cards"][0]["rules"]]
    assert "305.7" in [h["number"] for h in data["hits"][:3]]
    plain = json.loads(run("search", "can I clone a creature", "--kb", card_kb, "--json").output)
    assert plain["cards"] == []


def test_a_question_that_is_only_a_card_name_gets_the_rules_it_calls_on(card_kb):
    data = json.loads(run("search", "Notion Thief", "--kb", card_kb, "--json").output)
    assert data["cards"][0]["name"] == "Notion Thief"
    numbers = [h["number"] for h in data["hits"]]
    assert {"702.8", "614.1a"} <= set(numbers[:6])


def test_the_card_routes_of_the_api(card_kb, tmp_path, en_dir):
    from starlette.testclient import TestClient

    from comprules.build import build
    from comprules.server import create_app

    with TestClient(create_app(card_kb)) as client:
        got = client.get("/api/v1/cards/notion thieves")
        assert got.status_code == 200
        view = got.json()
        assert view["card"]["name"] == "Notion Thief" and view["match"] == "plural"
        assert {"702.8", "614.1a"} <= {r["number"] for r in view["rules"]}
        names = client.get("/api/v1/cards", params={"q": "notion thief"}).json()
        assert names["cards"][0] == {
            "name": "Notion Thief",
            "type_line": "Creature — Human Rogue",
            "match": "exact",
            "score": 100.0,
        }
        # a few letters are inside too many names to rank (a trial: ten names scored 90 for "x")
        assert client.get("/api/v1/cards", params={"q": "x"}).json()["cards"] == []
        assert [c["name"] for c in client.get("/api/v1/cards", params={"q": "fog"}).json()["cards"]] == ["Fog"]
        # the names holding the words whole first (a trial: Alabaster Potion among Notion Thief's)
        notion = [c["name"] for c in client.get("/api/v1/cards", params={"q": "notion", "limit": 5}).json()["cards"]]
        assert notion[:3] == ["Notion Rain", "Notion Thief", "Horde of Notions"], notion
        lightning = [c["name"] for c in client.get("/api/v1/cards", params={"q": "lightning"}).json()["cards"]]
        assert "Lightning Bolt" in lightning[:5] and "Blightning" not in lightning[:5], lightning
        missing = client.get("/api/v1/cards/Zzyzx Qqq")
        assert missing.status_code == 404 and missing.json()["detail"].startswith("no card 'Zzyzx Qqq'")
        # a trial: lang=xx was a 200 here, a 400 on every other route
        assert client.get("/api/v1/cards/Notion Thief", params={"lang": "xx"}).status_code == 400
        searched = client.get("/api/v1/search", params={"q": "With Blood Moon out, what is my Urborg?"}).json()
        assert searched["cards"][0]["name"] == "Blood Moon"
    bare = tmp_path / "bare"
    build([en_dir / "2026-08-07.txt"], bare, only=("data",))
    with TestClient(create_app(bare)) as client:
        got = client.get("/api/v1/cards/Notion Thief")
        assert got.status_code == 404 and "--cards FILE" in got.json()["detail"]
        assert got.json()["detail"].startswith("no card data (build it with:")  # no path of the server's


def test_a_split_card_is_asked_by_its_whole_name_through_the_api(tmp_path, en_dir):
    # a trial: /api/v1/cards/Fire // Ice was the router's bare 404 (a "/" in the name)
    from starlette.testclient import TestClient

    from comprules.build import build
    from comprules.server import create_app

    kb = tmp_path / "kb"
    build([en_dir / "2026-08-07.txt"], kb, only=("data",), cards=FIXTURES / "scryfall-small.json")
    with TestClient(create_app(kb)) as client:
        for path in ("/api/v1/cards/Puddle // Mirror", "/api/v1/cards/Puddle%20%2F%2F%20Mirror"):
            got = client.get(path)
            assert got.status_code == 200, (path, got.text[:200])
            assert (got.json()["card"]["name"], got.json()["match"]) == ("Puddle // Mirror", "exact")


def test_every_key_of_comprules_card_json_is_in_docs_json_md(card_kb):
    text = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    section = re.search(r"^## `comprules card --json`.*?\n(.*?)(?=^## |\Z)", text, re.M | re.S).group(1)
    documented = set(re.findall(r'"(\w+)"', section))

    def keys(data):
        if isinstance(data, dict):
            return set(data) | {k for v in data.values() for k in keys(v)}
        if isinstance(data, list):
            return {k for v in data for k in keys(v)}
        return set()

    view = json.loads(run("card", "Urborg, Tomb of Yawgmoth", "--kb", card_kb, "--json").output)
    assert keys(view) == documented


def test_a_bad_card_file_is_one_error_line_and_the_rest_is_built(tmp_path, en_dir):
    kb = tmp_path / "kb"
    args = ["build", en_dir / "2026-08-07.txt", "--kb", kb, "--only", "data", "--cards", FIXTURES / "broken.json"]
    result = run(*args)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and re.match(r"error: .*broken\.json: line \d+: not valid JSON", errors[0])
    assert (kb / "data" / "editions.json").is_file() and not (kb / "data" / "cards.sqlite").exists()
    missing = run("build", en_dir / "2026-08-07.txt", "--kb", tmp_path / "kb2", "--cards", tmp_path / "none.json")
    assert missing.exit_code == 2 and "--cards" in missing.output and "no such file" in missing.output


def test_a_rebuild_with_cards_resolves_the_references_of_the_changed_edition_alone(
    tmp_path, en_dir, card_file, monkeypatch
):
    """The cards read the rules each glossary entry cites from the database the build has
    just written, so that an edition kept from the last build is not resolved again for
    them; the card tables are those of a build from scratch."""
    import shutil
    import sqlite3

    from comprules import graph
    from comprules.build import build

    src = tmp_path / "src"
    src.mkdir()
    for name in ("2026-06-19.txt", "2026-08-07.txt"):
        shutil.copy(en_dir / name, src / name)
    kb = tmp_path / "kb"
    build([src], kb, only=("data",), cards=card_file)
    resolved: list[str] = []
    real = graph.resolve
    monkeypatch.setattr(graph, "resolve", lambda e: resolved.append(e.name) or real(e))
    changed = src / "2026-08-07.txt"
    changed.write_text(changed.read_text(encoding="utf-8").replace(" modifies ", " changes ", 1), encoding="utf-8")
    build([src], kb, only=("data",), cards=card_file)
    assert resolved == ["en/2026-08-07"]
    build([src], tmp_path / "scratch", only=("data",), cards=card_file)

    def rows(root):
        conn = sqlite3.connect(root / "data" / "cards.sqlite")
        try:
            return sorted(conn.iterdump())
        finally:
            conn.close()

    assert rows(kb) == rows(tmp_path / "scratch")


def test_a_name_longer_than_any_card_is_not_looked_for(card_kb):
    # each character cost a look-up: 10,000 characters took 9 s, 100,000 over a minute
    result = run("card", "notion thief " * 8_000, "--kb", card_kb)
    assert result.exit_code == 1 and "at most 200" in result.output and len(result.output) < 300


def test_a_rebuild_with_a_card_file_that_cannot_be_read_keeps_the_card_data_of_the_last(tmp_path, en_dir):
    # a card file that is not JSON dropped data/cards.sqlite: `comprules card` then said "no card data"
    kb = tmp_path / "kb"
    source = en_dir / "2026-08-07.txt"
    assert (
        run("build", source, "--kb", kb, "--only", "data", "--cards", FIXTURES / "scryfall-small.json").exit_code == 0
    )
    result = run("build", source, "--kb", kb, "--only", "data", "--cards", FIXTURES / "broken.json")
    assert result.exit_code == 2 and "cards.sqlite of the last build kept" in result.output
    found = run("card", "Quiet Lantern Thief", "--kb", kb, "--json")
    assert found.exit_code == 0 and json.loads(found.stdout)["card"]["name"] == "Quiet Lantern Thief"


def test_an_edition_the_card_data_lacks_is_told_with_what_it_has_of_that_language():
    # a trial: `card "Blood Moon" -e fr/latest` was told of the last three Chinese editions
    from comprules.cards.view import _held

    have = ["en/2024-07-30", "en/2026-08-07", "zh/2026-02-27", "zh/2026-04-17"]
    assert _held(have, "fr/004_99dc3338bd3ea994") == "it has 4 editions, in en, zh only"
    assert _held(have, "zh/2022-06-10") == "it has zh/2026-02-27 to zh/2026-04-17, 2 editions"
    assert _held(have[:1], "en/1999-04-23") == "it has en/2024-07-30"
    assert _held([], "en/1999-04-23") == "it has none"


def test_a_card_type_is_found_by_its_rules_title_in_the_editions_before_2009(full_kb):
    # a trial: `card "Blood Moon" -e 1999-04-23` listed no rule, `card "Notion Thief" -e
    # 2005-08-01` left "Creature" unmarked, and -e 2008-05-01 linked it to 205.2a (the list of
    # card types) instead of 212.3 "Creatures"
    kb = full_kb[0]
    for card, edition, number, title in (
        ("Notion Thief", "2005-08-01", "212.3", "Creatures"),
        ("Notion Thief", "2008-05-01", "212.3", "Creatures"),
        ("Blood Moon", "1999-04-23", "214.8", "Enchantments"),
        ("Notion Thief", "2026-08-07", "302", "Creatures"),
    ):
        result = run("card", card, "-e", edition, "--kb", kb, "--json")
        assert result.exit_code == 0, result.output
        rules = {r["number"]: r for r in json.loads(result.output)["rules"]}
        assert number in rules and rules[number]["label"] == title, (card, edition, sorted(rules))
        assert "205.2a" not in rules, (card, edition)


def test_a_card_asked_in_a_language_is_read_in_its_latest_edition(full_kb):
    # a trial: /api/v1/cards/Blood Moon?lang=zh answered en/2026-08-07, ?lang=fr a 200 in English
    from starlette.testclient import TestClient

    from comprules.server import create_app

    with TestClient(create_app(full_kb[0])) as client:
        zh = client.get("/api/v1/cards/Blood Moon", params={"lang": "zh"})
        assert zh.status_code == 200 and zh.json()["edition"] == "zh/2026-04-17"
        assert {"305.7"} <= {r["number"] for r in zh.json()["rules"]}
        assert client.get("/api/v1/cards/Blood Moon").json()["edition"] == "en/2026-08-07"
        fr = client.get("/api/v1/cards/Blood Moon", params={"lang": "fr"})
        assert fr.status_code == 400 and fr.json()["detail"].startswith("the card data holds no rules of language 'fr'")
