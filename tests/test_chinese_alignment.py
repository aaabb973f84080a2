"""The Chinese editions beside English (issue 15, part 3): each paired with the English
edition of its date or the nearest earlier one, aligned by number, a zh ⇄ en lexicon
from headings, sections and glossaries, and diffs between Chinese editions that agree
with the English diffs of the same dates."""

from __future__ import annotations

import pytest

from comprules.align import translation as T
from comprules.align.alignment import align
from comprules.align.crosslang import aligned_terms, lexicon

#: Chinese edition → (English edition paired, rules only in the Chinese, only in the English).
PAIRS = {
    "2022-06-10": ("2022-04-29", 60, 43),
    "2023-10-13": ("2023-09-01", 14, 0),
    "2023-11-17": ("2023-11-17", 0, 0),
    "2024-02-02": ("2024-02-02", 0, 0),
    "2024-03-08": ("2024-02-02", 37, 33),
    "2024-04-12": ("2024-02-02", 58, 33),
    "2024-06-07": ("2024-02-02", 63, 33),
    "2024-07-30": ("2024-07-30", 0, 0),
    "2024-11-08": ("2024-11-08", 0, 0),
    "2025-02-07": ("2025-02-07", 0, 0),
    "2025-04-04": ("2025-02-07", 84, 59),
    "2025-06-06": ("2025-06-06", 0, 0),
    "2025-07-25": ("2025-06-06", 80, 60),
    "2025-09-19": ("2025-09-19", 0, 0),
    "2025-11-14": ("2025-11-14", 0, 0),
    "2026-01-16": ("2026-01-16", 0, 0),
    "2026-02-27": ("2026-02-27", 0, 0),
    "2026-04-17": ("2026-04-17", 0, 0),
}


@pytest.fixture(scope="module")
def english(editions):
    return [e for e in editions.values() if e.lang == "en" and e.kind == "edition"]


def test_each_chinese_edition_is_paired_with_the_english_of_its_date_or_the_nearest_earlier(zh_editions, english):
    for stem, (en_stem, only_zh, only_en) in PAIRS.items():
        choice = T.english_twin(zh_editions[f"zh/{stem}"], english)
        assert choice.english == f"en/{en_stem}", stem
        assert choice.same_date == (stem == en_stem)
        assert (len(choice.only_translation), len(choice.only_english)) == (only_zh, only_en), stem
    # 2023-10-13 translates the rules of the Lost Caverns preview: 701.53 and 701.54 are new
    c = T.english_twin(zh_editions["zh/2023-10-13"], english)
    assert c.only_translation[:2] == ("701.53", "701.53a")
    assert sum(1 for stem, (en, _, _) in PAIRS.items() if en == stem) == 11


def test_2026_04_17_aligns_rule_by_rule_with_its_english_twin(zh_editions, editions):
    zh, en = zh_editions["zh/2026-04-17"], editions["en/2026-04-17"]
    a = T.align_translation(zh, en)
    assert a.counts() == {"kept": 3138}
    kept = [r for r in a.rules if r.kind == "kept"]
    assert all(r.old == r.new for r in kept)
    # what a translation keeps (cited rules, numbers, symbols) agrees for 98.9 % of the rules
    assert sum(r.similarity >= 0.99 for r in kept) == 3105
    assert [s.kind for s in a.sections].count("kept") == 147
    assert next(s for s in a.sections if s.old == "510").new_title == "Combat Damage Step"


def test_an_edition_without_a_twin_lists_what_differs_by_number(zh_editions, editions):
    a = T.align_translation(zh_editions["zh/2025-07-25"], editions["en/2025-06-06"])
    counts = a.counts()
    assert (counts["removed"], counts["added"]) == (80, 60)
    assert "702.184" in {r.old for r in a.rules if r.kind == "removed"}  # a keyword of 2025-07-25


def test_the_lexicon_pairs_every_keyword_heading_and_the_glossary(zh_editions, editions):
    zh, en = zh_editions["zh/2026-04-17"], editions["en/2026-04-17"]
    terms = aligned_terms(zh, en)
    lex = T.lexicon_of("zh", terms)
    assert lex["Trample"] == ["践踏"] and lex["Deathtouch"] == ["死触"] and lex["Flying"] == ["飞行"]
    assert lex["Combat Damage Step"] == ["战斗伤害步骤"]
    headings = [r for r in en.rules if r.kind == "rule" and r.section in ("701", "702") and r.title]
    assert all(zh.get(r.id).title in lex[r.title] for r in headings)
    assert len(headings) == 258  # 67 keyword actions, 191 keyword abilities
    # French stays apart: the French lexicon never takes a Chinese name
    assert "践踏" not in lexicon(terms)["Trample"]


def test_glossary_entries_pair_in_order_by_the_rules_they_cite(zh_editions, editions):
    zh, en = zh_editions["zh/2026-04-17"], editions["en/2026-04-17"]
    pairs = T.glossary_pairs(zh, en)
    assert (len(pairs), len(zh.glossary)) == (729, 730)  # but 持续神器 (Continuous Artifact), citing nothing
    by_en = {e.term: g.term for g, e in pairs}
    assert by_en["Abandon"] == "撤废" and by_en["Control"] == "操控" and by_en["Y"] == "Y"
    # outside check: a glossary pair naming a keyword must name the rule's heading on both
    # sides; all 252 do (in order, Exhaust was paired with 过量伤害, "Excess Damage", its
    # neighbour, and 竭绝 with none: a trial found it on the side-by-side glossary)
    heads = {
        r.title: zh.get(r.id).title for r in en.rules if r.kind == "rule" and r.title and r.section in ("701", "702")
    }
    checked = [(g.term, e.term) for g, e in pairs if e.term in heads]
    wrong = [(z, e) for z, e in checked if heads[e] != z and not z.startswith(heads[e]) and heads[e] not in z]
    assert (len(checked), wrong) == (252, [])
    assert by_en["Excess Damage"] == "过量伤害" and by_en["Exhaust"] == "竭绝"


#: Rules whose Chinese words changed from 2026-02-27 to 2026-04-17 while the English did
#: not: the translators' revisions (107.3: "的数" added; 118.7a: "个" → "点"; 710.1:
#: "替代用" → "副"…).
REVISED_2026_04_17 = {
    "107.3",
    "107.3a",
    "107.3b",
    "107.3f",
    "107.3g",
    "107.3h",
    "107.3m",
    "107.3n",
    "118.7a",
    "118.7b",
    "118.7c",
    "118.7d",
    "122.1i",
    "201.4c",
    "508.4",
    "601.3a",
    "601.3e",
    "701.15a",
    "701.15b",
    "701.37c",
    "701.38a",
    "701.40b",
    "701.58b",
    "702.168e",
    "702.37f",
    "702.90c",
    "710.1",
    "710.2",
    "710.5",
    "715.2c",
    "716.2d",
    "720.2c",
}


def _changed(a):
    return {(c.old, c.new) for c in a.rules if c.kind != "kept"}


def test_diff_zh_2026_02_27_to_2026_04_17_agrees_with_the_english_diff(zh_editions, editions):
    zh = align(zh_editions["zh/2026-02-27"], zh_editions["zh/2026-04-17"])
    en = align(editions["en/2026-02-27"], editions["en/2026-04-17"])
    assert zh.counts()["added"] == en.counts()["added"] == 18
    assert {(c.old, c.new) for c in zh.rules if c.kind == "renumbered"} >= {
        (c.old, c.new) for c in en.rules if c.kind == "renumbered" and not c.edited
    }
    # every rule the English changed changed in Chinese too (no translation lag) …
    assert _changed(en) <= _changed(zh)
    # … and the Chinese changed 32 more, each a translators' revision
    assert {old for old, _ in _changed(zh) - _changed(en)} == REVISED_2026_04_17


#: Translation lags: rules the English changed between two twin dates while the Chinese
#: kept its words (the next translation caught up, or has not yet).
LAGS = {
    ("2024-07-30", "2024-11-08"): {"502.2", "702.145b", "702.160a"},
    ("2025-02-07", "2025-06-06"): {"702.171a", "715.2b", "801.17"},
    ("2025-06-06", "2025-09-19"): {"113.6n", "701.44d", "702.172b"},
    ("2025-09-19", "2025-11-14"): {"407.4", "905.2c"},
    ("2025-11-14", "2026-01-16"): {"115.7e"},
}


@pytest.mark.slow
def test_every_diff_between_twin_dates_agrees_with_english_but_for_listed_lags(zh_editions, editions):
    twins = [s for s, (en, _, _) in PAIRS.items() if s == en]
    for old, new in zip(twins, twins[1:]):
        zh = align(zh_editions[f"zh/{old}"], zh_editions[f"zh/{new}"])
        en = align(editions[f"en/{old}"], editions[f"en/{new}"])
        assert {o for o, _ in _changed(en) - _changed(zh)} == LAGS.get((old, new), set()), (old, new)


def test_a_translation_without_a_twin_of_its_date_pairs_through_its_own_earlier_editions(zh_editions, editions):
    # a trial: zh/2024-03-08 (Rad counters new at 725) beside en/2024-02-02 by number showed
    # its 725.1 as "Shahrazad … subgame" and each rule of 725–730 beside the one before it
    from comprules.align.history import english_eras, translation_routes

    names = ("zh/2024-02-02", "zh/2024-03-08", "zh/2024-04-12")
    docs = [zh_editions[n] for n in names] + [editions["en/2024-02-02"]]
    links = {(a, b): align(zh_editions[a], zh_editions[b]) for a, b in zip(names, names[1:])}
    routes = translation_routes(docs, english_eras(docs), links)
    assert set(routes) == {"zh/2024-03-08", "zh/2024-04-12"}  # zh/2024-02-02 has a twin of its date
    a = T.align_translation(zh_editions["zh/2024-03-08"], editions["en/2024-02-02"], via=routes["zh/2024-03-08"])
    pairs = {r.old: r.new for r in a.rules if r.old}
    assert (pairs["725.1"], pairs["726.1"], pairs["726.1a"], pairs["702.19b"]) == (None, "725.1", "725.1a", "702.19b")
    assert {s.old: s.new for s in a.sections if s.old}["726"] == "725"
    assert a.counts() == {
        "kept": 2883,
        "renumbered": 54,
        "removed": 4,
    }  # every English rule paired (33 by number were not)
    b = T.align_translation(zh_editions["zh/2024-04-12"], editions["en/2024-02-02"], via=routes["zh/2024-04-12"])
    assert {r.old: r.new for r in b.rules if r.old}["727.1"] == "726.1"  # through zh/2024-03-08


def test_the_knowledge_base_shows_a_chinese_rule_beside_the_english_rule_it_translates(full_kb):
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    twin = kb.show("zh/2024-03-08", "726.1").twin
    assert twin is not None and twin.id == "725.1" and "subgame" in twin.text
    rad = kb.show("zh/2024-03-08", "725.1")
    assert rad.twin is None and rad.twin_edition == "en/2024-02-02"
    assert kb.show("zh/2024-06-07", "702.19b").twin.id == "702.19b"
    page = (full_kb[0] / "site/compare/zh/2024-03-08..2024-02-02/726.html").read_text(encoding="utf-8")
    assert "Subgames" in page and "Rad" not in page
    # the command says what a pair across languages is (trials: "3138 unchanged"; Rad counters
    # "removed", Subgames "renumbered")
    from click.testing import CliRunner

    from comprules.cli import main

    out = CliRunner().invoke(main, ["diff", "zh/2024-03-08", "en/2024-02-02", "--kb", str(full_kb[0])]).output
    assert out.splitlines()[0] == (
        "zh/2024-03-08 → en/2024-02-02: 4 no counterpart in English, 54 numbered otherwise, "
        "2883 paired with their translation (words are not compared across languages)"
    )
    assert "  726 子游戏 → 725 Subgames  numbered otherwise" in out.splitlines()


def test_the_first_chinese_edition_pairs_forward_through_its_chain_and_back_through_english(zh_editions, editions):
    # a second trial: zh/2022-06-10 inserts 721 先制 (Initiative) before en/2022-04-29's 721
    # (Restarting the Game): by number, 721–727 each stood beside the English rule before it
    from comprules.align.history import english_eras, translation_routes

    zh = ["zh/2022-06-10", "zh/2023-10-13", "zh/2023-11-17"]
    en = [n for n in sorted(editions) if n.startswith("en/") and "2022-04-29" <= n[3:] <= "2023-11-17"]
    docs = [zh_editions[n] for n in zh] + [editions[n] for n in en]
    by_name = {e.name: e for e in docs}
    links = {(a, b): align(by_name[a], by_name[b]) for chain in (zh, en) for a, b in zip(chain, chain[1:])}
    routes = translation_routes(docs, english_eras(docs), links)
    assert set(routes) == {"zh/2022-06-10", "zh/2023-10-13"}
    route = routes["zh/2022-06-10"]
    assert (route["721"], route["721.1"], route["722"], route["722.1"], route["727.1"]) == (
        None,
        None,
        "721",
        "721.1",
        "726.1",
    )
    a = T.align_translation(zh_editions["zh/2022-06-10"], editions["en/2022-04-29"], via=route)
    assert a.counts() == {"kept": 2549, "renumbered": 86, "removed": 33, "added": 16}
