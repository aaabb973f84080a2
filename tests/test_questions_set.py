"""The real-question relevance set (``questions.toml``, issue 10) is well formed.

Fast, no index: the file's shape, and every expected number checked against the
real en/2026-08-07 edition (the numbering the set is written in).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from comprules.corpus import parse_file

QUESTIONS = tomllib.loads(Path(__file__).with_name("questions.toml").read_text("utf-8"))["question"]

TOPICS = {
    "combat",
    "stack-priority",
    "mana-abilities",
    "state-based-actions",
    "layers",
    "replacement-prevention",
    "costs",
    "copies",
    "face-down",
    "tokens",
    "commander-multiplayer",
    "casting-timing",
    "keyword-abilities",
    "cards",
}
FIELDS = {"id", "topic", "question", "keywords", "answer", "source", "why"}

#: Issue 10's floor for the set: size, questions per topic, questions that name cards.
MIN_QUESTIONS = 80
MIN_PER_TOPIC = 5
MIN_CARDS = 10


@pytest.fixture(scope="module")
def edition(en_dir):
    return parse_file(en_dir / "2026-08-07.txt")


def test_size_and_spread():
    assert len(QUESTIONS) >= MIN_QUESTIONS
    counts = Counter(q["topic"] for q in QUESTIONS)
    assert set(counts) <= TOPICS, set(counts) - TOPICS
    thin = {t: counts[t] for t in TOPICS if counts[t] < MIN_PER_TOPIC}
    assert not thin, thin
    assert counts["cards"] >= MIN_CARDS


def test_fields():
    for q in QUESTIONS:
        assert set(q) == FIELDS, (q.get("id"), set(q) ^ FIELDS)
        assert all(isinstance(q[f], str) and q[f].strip() for f in FIELDS - {"answer"}), q["id"]
        assert q["id"].startswith(q["topic"] + "-"), q["id"]
        assert q["answer"] and all(isinstance(n, str) for n in q["answer"]), q["id"]
        assert len(set(q["answer"])) == len(q["answer"]), q["id"]


def test_ids_and_questions_unique():
    ids = Counter(q["id"] for q in QUESTIONS)
    assert not [i for i, n in ids.items() if n > 1]
    texts = Counter(" ".join(q["question"].lower().split()) for q in QUESTIONS)
    assert not [t for t, n in texts.items() if n > 1]


def test_keywords_two_to_six_words():
    bad = {q["id"]: q["keywords"] for q in QUESTIONS if not 2 <= len(q["keywords"].split()) <= 6}
    assert not bad, bad


def test_sources_are_https_urls():
    bad = [q["id"] for q in QUESTIONS if not q["source"].startswith("https://") or " " in q["source"]]
    assert not bad, bad


def test_every_answer_number_exists_in_2026_08_07(edition):
    missing = {}
    for q in QUESTIONS:
        for number in q["answer"]:
            rule = edition.get(number)
            if rule is None or rule.kind not in {"rule", "subrule", "section"}:
                missing.setdefault(q["id"], []).append(number)
    assert not missing, missing
