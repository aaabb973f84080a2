"""Chinese word segmentation (issue 15, part 4): jieba's method over a vocabulary that
ships with the index, so that the site's search can cut a query the same way."""

from __future__ import annotations

import json

import pytest

from comprules.segment import Segmenter, _jieba, han_runs, split_han


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


def test_the_checked_in_vocabulary_is_the_one_the_18_editions_give(zh_editions):
    """``src/comprules/data/zh_vocabulary.json`` is remade by ``python -m comprules.segment
    ../shared/corpus/zh -o src/comprules/data/zh_vocabulary.json``: it must equal it."""
    from comprules.segment import default, vocabulary_of

    made = vocabulary_of(list(zh_editions.values()))
    assert made.to_json() == default().to_json()
    assert len(made.scores) == 6521
    # the CR's own words kept whole (jieba cuts them into characters), compounds left cut
    assert {"死触", "先攻", "鹏洛客"} <= set(made.scores) and "战斗伤害步骤" not in made.scores
