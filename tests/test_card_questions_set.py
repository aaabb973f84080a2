"""The held-out card question set (``card_questions.toml``, issue 25) is well formed.

Fast, no index: at least 30 questions, each with the fields of ``questions.toml``, a
public https source, and answer numbers that exist in en/2026-08-07 (the numbering the
set is written in); none is a question of the tuned set.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from comprules.corpus import parse_file

HERE = Path(__file__).parent
HELD = tomllib.loads((HERE / "card_questions.toml").read_text("utf-8"))["question"]
TUNED = tomllib.loads((HERE / "questions.toml").read_text("utf-8"))["question"]
FIELDS = {"id", "topic", "question", "keywords", "answer", "source", "why"}


@pytest.fixture(scope="module")
def edition(en_dir):
    return parse_file(en_dir / "2026-08-07.txt")


def test_at_least_30_questions_with_every_field_and_a_public_source():
    assert len(HELD) >= 30
    assert len({q["id"] for q in HELD}) == len(HELD)
    for q in HELD:
        assert set(q) == FIELDS, q.get("id")
        assert q["source"].startswith(("https://", "http://")), q["id"]
        assert q["answer"] and all(isinstance(n, str) for n in q["answer"]), q["id"]


def test_no_held_question_is_one_of_the_tuned_set():
    tuned = {q["question"] for q in TUNED}
    assert [q["id"] for q in HELD if q["question"] in tuned] == []


def test_every_answer_is_a_rule_of_en_2026_08_07(edition):
    missing = [(q["id"], n) for q in HELD for n in q["answer"] if edition.get(n) is None]
    assert missing == []
