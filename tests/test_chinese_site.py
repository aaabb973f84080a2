"""Chinese editions through the whole pipeline (issue 15, parts 3 and 5): build, ``show``
with the English twin, ``diff`` between Chinese editions, and the site in Chinese
(interface strings of the language table, ``lang="zh-Hans"``, CJK fonts, the notice
that it is a community translation, side-by-side pages and the zh ⇄ en lexicon)."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from comprules.cli import main


@pytest.fixture(scope="module")
def kb(full_kb):
    """The knowledge base of the whole corpus (English, Chinese and the five French
    seeds), built once for every test that reads it."""
    return full_kb[0]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def read(path):
    return path.read_text(encoding="utf-8")


def test_show_702_19_in_chinese_gives_trample_its_subrules_english_twin_and_cited_by(kb):
    result = run("show", "702.19", "--edition", "zh/2026-04-17", "--kb", kb)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "702.19 践踏" in out
    assert all(f"702.19{x} " in out for x in "abcdefg")
    assert "      例如：一个2/2且具有可以阻挡" in out  # the example mark of the table, no space
    assert "English: en/2026-04-17 702.19 Trample" in out
    assert "glossary: 践踏, 践踏鹏洛客" in out
    assert "not an official Wizards of the Coast translation" in out
    data = json.loads(run("show", "702.19b", "--edition", "zh/2026-04-17", "--kb", kb, "--json").output)
    assert data["cited_by"] == ["702.19c"]
    assert data["twin"]["edition"] == "en/2026-04-17" and data["twin"]["text"].startswith(
        "The controller of an attacking"
    )


def test_diff_between_chinese_editions_moves_the_same_rules_as_the_english_diff(kb):
    zh = json.loads(run("diff", "zh/2026-02-27", "zh/2026-04-17", "--kb", kb, "--json").output)
    en = json.loads(run("diff", "en/2026-02-27", "en/2026-04-17", "--kb", kb, "--json").output)
    moved = lambda d: {(r["old"], r["new"]) for r in d["rules"] if r["kind"] in ("renumbered", "added", "removed")}  # noqa: E731
    assert moved(zh) == moved(en)
    assert len(moved(en)) == 123
    assert ("722", "723") in {(s["old"], s["new"]) for s in zh["sections"]}


def test_the_build_pairs_each_chinese_edition_with_its_english_twin(kb):
    index = json.loads(read(kb / "data" / "alignments" / "index.json"))
    rows = {r["old"]: r for r in index["crosslang"] if r["old"].startswith("zh/")}
    pairs = {k: (v["new"], v["same_date"], v["only_translation"]) for k, v in rows.items()}
    assert len(pairs) == 18 and all(new.startswith("en/") for new, _, _ in pairs.values())
    assert pairs["zh/2026-02-27"] == ("en/2026-02-27", True, [])
    assert pairs["zh/2026-04-17"] == ("en/2026-04-17", True, [])
    # a translation of an edition the corpus lacks pairs with the English one before it
    assert pairs["zh/2022-06-10"][:2] == ("en/2022-04-29", False)
    lexicon = json.loads(read(kb / "data" / "alignments" / "lexicon.json"))
    assert lexicon["translations"]["zh"]["Trample"] == ["践踏"]
    # what the site reads instead of aligning (issue 21): each translation's glossary entries
    # paired with the English ones, and the term pairs of the latest Chinese edition
    pairs_of = {tuple(p) for p in rows["zh/2026-04-17"]["glossary"]}
    assert {("践踏", "trample"), ("死触", "deathtouch")} <= pairs_of and len(pairs_of) == 729
    # a trial: 过量伤害 was paired with Exhaust (its neighbour in order) and 竭绝 with none
    assert {("过量伤害", "excess-damage"), ("竭绝", "exhaust")} <= pairs_of
    latest = lexicon["latest"]["zh"]
    assert {t["fr_edition"] for t in latest} == {"zh/2026-04-17"}
    assert {"fr": "践踏", "en": "Trample", "fr_id": "702.19", "en_id": "702.19"}.items() <= next(
        t for t in latest if t["en"] == "Trample"
    ).items()
    assert ["Morph", ["Mue"]] in lexicon["table"]
    assert lexicon["translations"]["zh"]["Deathtouch"] == ["死触"]
    assert "践踏" not in lexicon["lexicon"].get("Trample", [])


def test_chinese_pages_speak_chinese_with_a_cjk_font_and_say_it_is_a_community_translation(kb):
    page = read(kb / "site" / "zh" / "2026-04-17" / "702.html")
    assert page.startswith('<!doctype html>\n<html lang="zh-Hans">')
    # the font stack once, in the stylesheet the page links to (not in each page's head)
    css = re.search(r'href="\.\./\.\./(static/site\.[0-9a-f]{10}\.css)"', page)
    assert css and ":lang(zh){font-family:" not in page
    assert ':lang(zh){font-family:"PingFang SC"' in read(kb / "site" / css[1]) and "Noto Sans CJK SC" in read(
        kb / "site" / css[1]
    )
    assert "并非威世智" in page and "not an official Wizards of the Coast translation" in page
    assert "前往规则" in page and "被引用于：" in page and "历史" in page
    assert "<title>702. 关键字异能 — zh 2026-04-17</title>" in page
    assert re.search(r'id="702\.19"', page)
    # the section's heading links to the same section beside its English twin
    assert '<a class="hl" href="../../compare/zh/2026-04-17..2026-04-17/702.html">英文原文</a></h1>' in page
    # references and glossary terms are linked inside Chinese text
    # 702.19a: "（参见规则510，“战斗伤害步骤”。）", the glossary term 战斗伤害步骤 linked too
    assert '（参见规则<a href="510.html">510</a>' in page
    home = read(kb / "site" / "index.html")
    assert '<section class="lang" lang="zh-Hans" id="zh">' in home and "<h2>简体中文</h2>" in home
    assert "英文原文" in home  # each Chinese edition links to its side-by-side pages


def test_side_by_side_pages_put_each_chinese_rule_beside_its_english_twin(kb):
    page = read(kb / "site" / "compare" / "zh" / "2026-04-17..2026-04-17" / "702.html")
    row = re.search(r'<tr id="702\.19">.*?</tr>', page, re.S).group()
    assert "践踏" in row and "Trample" in row and '<td lang="en">' in row
    assert "并非威世智" in page
    glossary = "".join(
        read(p) for p in (kb / "site" / "compare" / "zh" / "2026-04-17..2026-04-17").glob("glossary*.html")
    )
    assert re.search(r"死触.*?Deathtouch", glossary, re.S)
    index = read(kb / "site" / "compare" / "index.html")
    assert 'href="zh/2026-04-17..2026-04-17/index.html"' in index


def test_the_lexicon_page_has_french_and_chinese_tables(kb):
    page = "".join(read(p) for p in sorted((kb / "site" / "compare").glob("lexicon*.html")))  # one page per language
    assert '<section lang="fr">' in page and '<section lang="zh-Hans">' in page
    assert re.search(r'<td lang="en"><a href="[^"]*">Trample</a></td><td><a href="[^"]*">践踏</a></td>', page)
    assert re.search(r'<td lang="en"><a href="[^"]*">Morph</a></td><td><a href="[^"]*">Mue</a></td>', page)


def test_chinese_diff_and_history_pages_use_chinese_kind_names(kb):
    page = read(kb / "site" / "diff" / "zh" / "2026-02-27..2026-04-17" / "index.html")
    assert 'lang="zh-Hans"' in page and "移动" in page and "新增" in page
    history = read(kb / "site" / "history" / "zh" / "702.19.html")
    assert 'lang="zh-Hans"' in history and "践踏" in history


def test_every_language_has_every_label_and_the_chinese_change_pages_speak_chinese(full_kb):
    # a trial: diff/zh/compare.html said "Compare two editions", "From", "to", bulletins "% of
    # the words kept", history pages "Last changed": 25 labels were in the English table only
    import tomllib
    from importlib import resources

    table = tomllib.loads(resources.files("comprules").joinpath("data/languages.toml").read_text(encoding="utf-8"))
    english = set(table["en"]["labels"])
    assert {lang: sorted(english - set(t["labels"])) for lang, t in table.items()} == {lang: [] for lang in table}
    site = full_kb[0] / "site"
    compare = read(site / "diff" / "zh" / "compare.html")
    assert "比较两个版本" in compare and "Compare two editions" not in compare
    history = read(site / "history" / "zh" / "723.1.html")
    assert "最后修改" in history and "Last changed" not in history


def test_the_side_by_side_pages_show_the_english_rules_a_translation_lacks(full_kb):
    # a trial: what a translation lacks, what a translator needs to see, was on no page
    from comprules.kb import KnowledgeBase

    kb = KnowledgeBase(full_kb[0])
    for zh, en in (("zh/2022-06-10", "en/2022-04-29"), ("zh/2026-04-17", "en/2026-04-17")):
        lacking = {r.new for r in kb.store.alignment(zh, en).rules if r.old is None}
        folder = full_kb[0] / "site" / "compare" / "zh" / f"{zh[3:]}..{en[3:]}"
        text = "".join(read(p) for p in sorted(folder.glob("*.html")))
        shown = re.findall(r'<tr id="en-([^"]+)"><td><span class="muted">此译本中没有</span>', text)
        assert {s for s in shown if not s.startswith("glossary/")} == lacking, zh
        assert len(lacking) == (16 if zh == "zh/2022-06-10" else 0)
    page = read(full_kb[0] / "site/compare/zh/2022-06-10..2022-04-29/705.html")
    assert '<tr id="en-705.2"><td><span class="muted">此译本中没有</span>' in page
    # a glossary page's heading in the page's language (a trial: "glossary-2")
    assert "<h1>词汇表 (2) — " in read(full_kb[0] / "site/compare/zh/2022-06-10..2022-04-29/glossary-2.html")
