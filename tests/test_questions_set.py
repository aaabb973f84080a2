"""The real-question relevance sets are well formed: ``questions.toml`` (issue 10) and the
held-out ``questions_held.toml`` (issue 22: only reported, never tuned on).

Fast, no index: each file's shape, and every expected number checked against the
real en/2026-08-07 edition (the numbering the sets are written in).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from comprules.corpus import parse_file


def _load(name: str) -> list[dict]:
    return tomllib.loads(Path(__file__).with_name(name).read_text("utf-8"))["question"]


QUESTIONS = _load("questions.toml")
HELD = _load("questions_held.toml")
SETS = pytest.mark.parametrize("questions", [QUESTIONS, HELD], ids=["tuned", "held"])

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
#: Issue 22's floor for the held-out set.
MIN_HELD = 40


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


@SETS
def test_fields(questions):
    for q in questions:
        assert set(q) == FIELDS, (q.get("id"), set(q) ^ FIELDS)
        assert all(isinstance(q[f], str) and q[f].strip() for f in FIELDS - {"answer"}), q["id"]
        assert q["id"].startswith(q["topic"] + "-"), q["id"]
        assert q["answer"] and all(isinstance(n, str) for n in q["answer"]), q["id"]
        assert len(set(q["answer"])) == len(q["answer"]), q["id"]


@SETS
def test_ids_and_questions_unique(questions):
    ids = Counter(q["id"] for q in questions)
    assert not [i for i, n in ids.items() if n > 1]
    texts = Counter(" ".join(q["question"].lower().split()) for q in questions)
    assert not [t for t, n in texts.items() if n > 1]


@SETS
def test_keywords_two_to_six_words(questions):
    bad = {q["id"]: q["keywords"] for q in questions if not 2 <= len(q["keywords"].split()) <= 6}
    assert not bad, bad


@SETS
def test_sources_are_https_urls(questions):
    bad = [q["id"] for q in questions if not q["source"].startswith("https://") or " " in q["source"]]
    assert not bad, bad


@SETS
def test_every_answer_number_exists_in_2026_08_07(edition, questions):
    missing = {}
    for q in questions:
        for number in q["answer"]:
            rule = edition.get(number)
            if rule is None or rule.kind not in {"rule", "subrule", "section"}:
                missing.setdefault(q["id"], []).append(number)
    assert not missing, missing


def _address(url: str) -> str:
    """A source address without scheme, "www." or a trailing slash (how two spellings match)."""
    return url.split("://", 1)[-1].removeprefix("www.").rstrip("/").lower()


def test_held_set_size_and_its_own_sources():
    """Issue 22: at least 40 questions, none from an address the tuned set uses, and every
    topic of the tuned set's list."""
    assert len(HELD) >= MIN_HELD
    assert {q["topic"] for q in HELD} == TOPICS
    tuned = {_address(q["source"]) for q in QUESTIONS}
    shared = [q["id"] for q in HELD if _address(q["source"]) in tuned]
    assert not shared, shared
    tuned_questions = {" ".join(q["question"].lower().split()) for q in QUESTIONS}
    assert not [q["id"] for q in HELD if " ".join(q["question"].lower().split()) in tuned_questions]
