"""Search in Chinese (issue 15, part 4): words cut by :mod:`comprules.segment` in the
index and in queries, the Chinese keyword headings finding their rules, cross-language
queries through the zh ⇄ en lexicon, "did you mean" and highlighting on Chinese text,
and the site's JavaScript ranker cutting and ranking Chinese exactly as Python does."""

from __future__ import annotations

import json

import pytest
from test_browser import browser  # noqa: F401  (fixture)

from comprules import export, segment
from comprules.indexer import search
from comprules.indexer import text as T


@pytest.fixture(scope="module")
def kb(full_kb):
    """The knowledge base of the whole corpus: the 18 Chinese editions beside the English
    ones and the seeds, built once for every test that reads it."""
    return full_kb[0]


def rules(result):
    return [(h.edition, h.number) for h in result.hits if h.kind != "glossary"]


@pytest.fixture(scope="module")
def vocabulary(kb):
    """The vocabulary the build made from the kb's Chinese editions (in its index)."""
    return segment.load(kb / "index" / segment.FILE)


def test_the_build_cuts_with_the_vocabulary_of_its_chinese_editions(kb, vocabulary, zh_editions):
    assert vocabulary == segment.vocabulary_of(list(zh_editions.values()))
    site = (kb / "site" / "search" / "segment.js").read_text(encoding="utf-8")
    assert (
        site.startswith("window.CR_SEGMENT=")
        and json.loads(site[len("window.CR_SEGMENT=") : -2]) == vocabulary.to_json()
    )


def test_an_edition_and_results_in_two_languages_is_said_not_answered_empty(kb):
    """``edition=zh/latest&lang=en`` found nothing and said nothing; now one line (a 400
    from the server), while a date with a language is that language's edition."""
    from comprules import kb as kb_module
    from comprules.errors import UsageError

    base = kb_module.KnowledgeBase(kb)
    for edition, lang in (("zh/latest", "en"), ("en/latest", "zh"), ("en/2026-08-07", "fr"), ("ZH", "en")):
        # the edition as typed ("zh", not the "zh/latest" it is read as: a trial)
        with pytest.raises(UsageError, match=f"^edition '{edition}' is not in language '{lang}'$"):
            kb_module.search(base, "trample", edition=edition, lang=lang)
    hits = kb_module.search(base, "践踏", edition="2026-04-17", lang="zh").hits
    assert hits[0].edition == "zh/2026-04-17" and (hits[0].kind, hits[0].number) == ("glossary", "践踏")
    assert rules(kb_module.search(base, "trample", edition="en/2026-08-07", lang="en"))[0] == (
        "en/2026-08-07",
        "702.19",
    )


def test_fr_latest_searches_the_french_documents_and_names_the_newest_of_them(kb):
    """French has only undated documents (the seeds): ``--edition fr/latest`` was refused
    in search; it now searches them as ``--lang fr`` does, and a whole document asked
    that way is the newest one."""
    from comprules import kb as kb_module
    from comprules.errors import UsageError

    base = kb_module.KnowledgeBase(kb)
    found = kb_module.search(base, "madness", edition="fr/latest")
    assert [(h.edition, h.number, h.title) for h in found.hits[:1]] == [("fr/004_99dc3338bd3ea994", "502.24", "Folie")]
    assert found.hits == kb_module.search(base, "madness", lang="fr").hits
    # a whole document asked as fr/latest (/ar/cr, export, check) is the newest one (a trial:
    # "no dated edition", and lang=fr gave the first document, fr/000)
    assert base.resolve_name("fr/latest") == base.resolve_name(None, lang="fr") == "fr/004_99dc3338bd3ea994"
    with pytest.raises(UsageError, match=r"edition 'fr/latest' is not in language 'en'"):
        base.resolve_name("fr/latest", lang="en")


def test_tokens_cut_chinese_into_words_and_keep_numbers_glued_to_it(vocabulary):
    with segment.using(vocabulary):
        _cut_as_the_index_does()
    with segment.using(segment.EMPTY):  # a knowledge base without Chinese: a character a word
        assert T.tokens("死触") == ["死", "触"]


def _cut_as_the_index_does():
    assert T.tokens("如规则702.19b所述，具有践踏的生物") == [
        "如",
        "规则",
        "702.19b",
        "所述",
        "具有",
        "践踏",
        "的",
        "生物",
    ]
    assert T.tokens("死触") == ["死触"] and T.tokens("践踏鹏洛客") == ["践踏", "鹏洛客"]
    text = "参见规则510，“战斗伤害步骤”。"
    assert [text[s:e] for s, e, _ in T.token_spans(text)] == ["参见", "规则", "510", "战斗", "伤害", "步骤"]


def test_trample_in_chinese_finds_702_19_first(kb):
    result = search(kb / "index", "践踏")
    assert result.lang == "zh"
    # a headword: its glossary definition first (as "trample" in English), then the rule it cites
    assert (result.hits[0].kind, result.hits[0].number) == ("glossary", "践踏")
    assert rules(result)[0] == ("zh/2026-04-17", "702.19")
    assert result.hits[1].number == "702.19"


def test_two_chinese_keywords_find_the_rules_where_they_meet_as_in_english(kb):
    # a trial: "死触 践踏" found 122.1b (a list of counters) first; "trample deathtouch" 702.2c
    # and 702.19b. The keywords' effects in Chinese: the English table's words through the
    # glossary pairs (excess damage → 过量伤害), checked in the Chinese rules
    chinese = [h.number for h in search(kb / "index", "死触 践踏", limit=3).hits]
    english = [h.number for h in search(kb / "index", "trample deathtouch", limit=3).hits]
    assert chinese == english and {"702.2c", "702.19b"} <= set(chinese)


def test_every_chinese_keyword_heading_of_702_finds_its_rule_first(kb):
    edition = export.read_edition(export.edition_path(kb / "data", "zh/2026-04-17"))
    headings = [r for r in edition.rules if r.kind == "rule" and r.section == "702" and r.title]
    assert len(headings) == 191
    missed = []
    for rule in headings:
        result = search(kb / "index", rule.title, lang="zh")
        found = rules(result)
        if not found or found[0] != ("zh/2026-04-17", rule.number):
            missed.append((rule.number, rule.title, found[:2]))
        # nothing but the keyword's own glossary entry comes before the rule
        before = [h for h in result.hits[: result.hits.index(next(h for h in result.hits if h.kind != "glossary"))]]
        assert all(h.kind == "glossary" for h in before) and len(before) <= 1, rule.number
    assert missed == []


def test_cross_language_both_ways_through_the_lexicon(kb):
    to_zh = search(kb / "index", "trample", lang="zh")
    assert rules(to_zh)[0] == ("zh/2026-04-17", "702.19") and to_zh.hits[0].translation
    to_en = search(kb / "index", "践踏", lang="en")
    assert rules(to_en)[0] == ("en/2026-08-07", "702.19") and to_en.hits[0].lang == "en"  # the latest English
    deathtouch = search(kb / "index", "deathtouch", lang="zh")
    assert rules(deathtouch)[0] == ("zh/2026-04-17", "702.2")
    assert rules(search(kb / "index", "死触", lang="en"))[0] == ("en/2026-08-07", "702.2")


def test_did_you_mean_corrects_a_mistyped_chinese_word(kb):
    result = search(kb / "index", "践蹋")  # 蹋 for 踏: cut into two characters the index never saw
    assert result.hits == [] and result.suggestion == "践踏"
    assert search(kb / "index", "践踏").suggestion is None
    # a trial: one unknown character became the most frequent one ("迅捷" → "在 捷",
    # "罚" → "在"): every other character is one edit away, no correction to speak of
    assert search(kb / "index", "迅捷").suggestion is None and search(kb / "index", "罚").suggestion is None


def test_highlights_mark_the_query_words_in_chinese_snippets(kb):
    result = search(kb / "index", "分配战斗伤害", lang="zh")
    hit = next(h for h in result.hits if h.number == "510.1c")
    marked = [hit.plain_snippet[s:e] for s, e in hit.highlights]
    assert set(marked) == {"分配", "伤害"} and len(marked) == 14
    assert "**伤害**" in hit.snippet and "**分配**" in hit.snippet


def test_a_sentence_in_chinese_finds_the_rule_that_says_it(kb):
    top = rules(search(kb / "index", "具有践踏的生物如何分配伤害", lang="zh"))[:3]
    assert ("zh/2026-04-17", "702.19b") in top


@pytest.mark.browser
@pytest.mark.slow
def test_the_site_cuts_and_ranks_chinese_as_the_python_engine(browser, kb):  # noqa: F811
    edition = export.read_edition(export.edition_path(kb / "data", "zh/2026-04-17"))
    texts = sorted(
        {t for r in edition.rules for t in (r.text, r.title or "", *r.examples)}
        | {g.text for g in edition.glossary}
        | {g.term for g in edition.glossary}
    )
    context = browser.new_context()
    page = context.new_page()
    page.goto((kb / "site" / "search.html").as_uri())
    page.wait_for_function("window.CRSearch && window.CRSearch.loaded()", timeout=20_000)
    js = page.evaluate("ts => ts.map(t => CRSearch.tokens(t))", texts)
    assert len(texts) > 3500
    with segment.using(segment.load(kb / "index" / segment.FILE)):
        assert [t for t, got in zip(texts, js) if T.tokens(t) != got] == []
    assert js[texts.index("践踏鹏洛客")] == ["践踏", "鹏洛客"]
    headings = [r.title for r in edition.rules if r.kind == "rule" and r.section == "702" and r.title]
    queries = (
        [(q, {}) for q in headings]
        + [(q, {"lang": "en"}) for q in headings[:40]]
        + [
            ("trample", {"lang": "zh"}),
            ("deathtouch", {"lang": "zh"}),
            ("践蹋", {}),
            ("分配战斗伤害", {}),
            ("具有践踏的生物如何分配伤害", {}),
            ("规则702.19b", {}),
            ("死触 践踏", {}),
        ]
    )
    differ = []
    for query, options in queries:
        result = search(kb / "index", query, limit=10, **options)
        expected = [(h.lang, h.number, h.score, h.translation) for h in result.hits]
        got = page.evaluate(
            """([q, o]) => { const r = CRSearch.search(q, Object.assign({limit: 10}, o));
            return {hits: r.hits.map(h => [h.lang, h.number, h.raw, h.translation]), suggestion: r.suggestion,
                    lang: r.lang}; }""",
            [query, options],
        )
        if (
            [tuple(h) for h in got["hits"]] != expected
            or got["suggestion"] != result.suggestion
            or got["lang"] != result.lang
        ):
            differ.append((query, options, expected[:2], got["hits"][:2], result.suggestion, got["suggestion"]))
    # the search page: Chinese hits carry their lang tag and say they are a community translation
    page.goto((kb / "site" / "search.html").as_uri() + "?q=" + "践踏")
    page.wait_for_selector('#results li[data-lang="zh"]', timeout=20_000)
    first = page.locator('li[data-lang="zh"]').first
    assert first.get_attribute("lang") == "zh-Hans"
    assert "community translation, not Wizards" in first.inner_text()
    context.close()
    assert differ == []


def test_the_search_page_offers_every_language_and_loads_the_vocabulary_first(kb):
    html = (kb / "site" / "search.html").read_text(encoding="utf-8")
    assert '<option value="zh">简体中文</option>' in html
    from comprules.site.urls import static_names

    names = ("search/segment.js", "search/en.js", "search/zh.js", f"static/{static_names()['search.js']}")
    scripts = [m for m in names if m in html]
    assert len(scripts) == 4 and [html.index(m) for m in scripts] == sorted(html.index(m) for m in scripts)
