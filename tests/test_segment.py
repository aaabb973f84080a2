"""Chinese word segmentation (issue 15, part 4): jieba's method over a vocabulary made
by the index stage from the knowledge base's Chinese editions and stored with the
index, so that the site's search can cut a query the same way."""

from __future__ import annotations

import json

import pytest

from comprules.segment import EMPTY, MAX_TERM, Segmenter, _jieba, cr_terms, han_runs, split_han, vocabulary_of


@pytest.fixture(scope="module")
def texts(zh_editions):
    e = zh_editions["zh/2026-04-17"]
    return [r.text for r in e.rules] + [x for r in e.rules for x in r.examples] + [g.text for g in e.glossary]


def test_on_every_han_run_of_2026_04_17_the_vocabulary_cuts_as_jieba_does(texts):
    seg = Segmenter.from_texts(texts)
    runs = [t[s:e] for t in texts for s, e in han_runs(t)]
    tok = _jieba()
    assert len(runs) == 24869
    assert sum(seg.words(r) != tok.lcut(r, HMM=False) for r in runs) == 0
    assert len(seg.scores) == 6084


def test_cr_terms_stay_whole_and_give_their_parts_for_the_index(texts, zh_editions):
    e = zh_editions["zh/2026-04-17"]
    terms = [r.title for r in e.rules if r.title] + [g.term for g in e.glossary]
    seg = Segmenter.from_texts(texts, terms)
    assert _jieba().lcut("死触", HMM=False) == ["死", "触"]  # jieba alone cuts deathtouch in two
    assert seg.words("死触") == ["死触"] and seg.words("先攻") == ["先攻"]
    assert seg.words("首先攻击") == ["首先", "攻击"]  # first strike's 先攻 does not swallow 首先
    assert seg.terms("践踏鹏洛客") == ["践踏鹏洛客", "践踏", "鹏洛客"]
    assert seg.terms("战斗伤害步骤") == ["战斗伤害步骤", "战斗", "伤害", "步骤"]


def test_the_vocabulary_round_trips_through_json_and_cuts_alike(texts):
    seg = Segmenter.from_texts(texts[:200])
    back = Segmenter.from_json(json.loads(json.dumps(seg.to_json(), ensure_ascii=False)))
    assert back.scores == seg.scores and back.unknown == seg.unknown
    assert all(back.words(t) == seg.words(t) for t in texts[:200])
    assert all(isinstance(v, int) for v in seg.to_json()["words"].values())  # exact sums in JavaScript too


def test_split_han_separates_numbers_glued_to_chinese():
    token = "规则702.19b所述"
    assert [(token[s:e], han) for s, e, han in split_han(token)] == [("规则", True), ("702.19b", False), ("所述", True)]


def test_the_vocabulary_of_the_18_editions_is_jiebas_words_and_short_cr_terms(zh_editions):
    """What a build of the 18 editions makes (nothing of it is committed): jieba's
    dictionary words found in the editions, and the CR's terms jieba would cut apart,
    none longer than MAX_TERM Han characters (no clause of the translation)."""
    made = vocabulary_of(list(zh_editions.values()))
    assert len(made.scores) == 6442
    freq = _jieba().FREQ
    added = {w for w in made.scores if not freq.get(w)}
    assert len(added) == 241 and max(map(len, added)) <= MAX_TERM
    # the CR's own words kept whole (jieba cuts them into characters), compounds left cut
    assert {"死触", "先攻", "鹏洛客"} <= added and "战斗伤害步骤" not in made.scores
    assert max(map(len, made.scores)) < 14
    assert len(cr_terms([zh_editions["zh/2026-04-17"]])) == 753
    assert vocabulary_of([]) is EMPTY and EMPTY.words("践踏") == ["践", "踏"]


def test_a_heading_that_is_a_sentence_is_no_term(zh_editions):
    """Some Chinese rules carry their whole text as a parsed title (500.6): only the
    keyword headings (701.N, 702.N) and glossary headwords are terms, and of those
    only the Han runs of at most MAX_TERM characters are kept whole."""
    e = zh_editions["zh/2026-04-17"]
    long_title = e.get("500.6").title
    assert long_title and len(long_title) > 40
    terms = cr_terms([e])
    assert long_title not in terms and "践踏" in terms and "死触" in terms
    seg = Segmenter.from_texts([long_title], terms=[long_title])
    # jieba's words of it and its short runs ("时机和优先权", a section title it quotes), no clause
    assert max(map(len, seg.scores)) <= MAX_TERM and "时机和优先权" in seg.scores


# --- the vocabulary of a build: made by the index stage, stored with the index ------

ZH_RULES = [  # toy wording of ours, in Chinese (no CR text)
    ("702", "", "关键字异能"),
    ("702.2", "", "死触"),
    ("702.2a", "一个有死触的生物会消灭它伤害的生物。", None),
    ("702.19", "", "践踏"),
    ("702.19a", "有践踏的进攻生物可以把多余的伤害给牌手。", None),
]


def zh_edition(name: str, extra=()):
    from test_indexer import edition, rule

    return edition(name, [rule(n, t, title) for n, t, title in [*ZH_RULES, *extra]])


def test_the_index_stores_the_vocabulary_of_its_chinese_editions_and_cuts_queries_with_it(tmp_path):
    from test_indexer import EN_GLOSSARY, EN_NEW_RULES, EN_OLD_RULES, edition

    from comprules import segment
    from comprules.indexer import build_index, search
    from comprules.indexer import text as T

    en_old = edition("en/2020-01-01", EN_OLD_RULES, EN_GLOSSARY)
    en_new = edition("en/2021-01-01", EN_NEW_RULES, EN_GLOSSARY)
    zh = zh_edition("zh/2021-01-01")
    index = tmp_path / "index"
    assert build_index([en_old, zh], index).mode == "full"
    stored = segment.load(index / segment.FILE)
    assert stored == vocabulary_of([zh]) and "死触" in stored.scores
    with segment.using(EMPTY):
        hits = search(index, "死触").hits
        assert segment.active() is not EMPTY  # the index's own vocabulary, activated by search
        assert T.tokens("死触") == ["死触"]
    assert [(h.lang, h.number) for h in hits][:1] == [("zh", "702.2")]
    # a new English edition: the same vocabulary, an incremental build
    assert build_index([en_old, en_new, zh], index).mode == "incremental"
    assert segment.load(index / segment.FILE) == stored
    # a Chinese edition that changes the vocabulary: every text is cut again
    zh2 = zh_edition("zh/2022-01-01", [("702.7", "", "先攻"), ("702.7a", "有先攻的生物先造成伤害。", None)])
    assert build_index([en_old, en_new, zh, zh2], index).mode == "full"
    assert "先攻" in segment.load(index / segment.FILE).scores and "先攻" not in stored.scores
    assert [h.number for h in search(index, "先攻").hits][:1] == ["702.7"]


def test_a_knowledge_base_without_chinese_takes_chinese_queries(tmp_path):
    from test_indexer import EN_GLOSSARY, EN_NEW_RULES, edition

    from comprules import segment
    from comprules.indexer import build_index, search
    from comprules.indexer import text as T

    index = tmp_path / "index"
    build_index([edition("en/2021-01-01", EN_NEW_RULES, EN_GLOSSARY)], index)
    assert json.loads((index / segment.FILE).read_text(encoding="utf-8"))["words"] == {}
    with segment.using(Segmenter({"践踏": -1}, -9)):
        result = search(index, "践踏")
        assert T.tokens("践踏") == ["践", "踏"]  # the index's (empty) vocabulary is active
    assert result.hits == [] and result.suggestion is None
