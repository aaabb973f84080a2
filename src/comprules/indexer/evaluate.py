"""Measure ranking quality on the two relevance sets.

``tests/relevance.toml`` (:func:`evaluate`): each case gives a query, its search
options and the expected results, best first (``702.26b``, a glossary slug such as
``phasing``, or ``fr:502.26`` for a French unit). Reported: the mean reciprocal rank
(MRR) of each case's first expected result within the top 10, the share of cases with
that result in the top 5, and the share of all expected results found in the top 5.

``tests/questions.toml`` (:func:`evaluate_questions`): real rules questions, each in
two forms (the full question, and keywords) with the rule numbers an expert answer
cites. **MRR@10**: the mean over questions of 1 / the rank of the first hit among the
top 10 that *answers* (:func:`answers`: the hit is one of the answer's numbers or a
unit inside one of them, such as a subrule of a cited rule; a parent of a cited rule,
a glossary entry or a unit of another language does not count), 0 when none does.
The questions are searched in en/2026-08-07, the edition their numbers are in.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .searching import ALL_EDITIONS, Hit, search

#: Hits looked at per query.
DEPTH = 10


@dataclass(frozen=True)
class Case:
    """One query of the relevance set."""

    query: str
    expect: tuple[str, ...]
    first: bool = False
    top5: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    why: str = ""

    @property
    def label(self) -> str:
        opts = " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in self.options.items())
        return f"{self.query} {opts}".strip()


@dataclass
class Outcome:
    """The hits of one case and where its expected results ranked (1-based; 0: absent)."""

    case: Case
    found: list[str]
    ranks: dict[str, int]

    @property
    def rank(self) -> int:
        return self.ranks[self.case.expect[0]]


@dataclass
class Report:
    outcomes: list[Outcome]

    @property
    def mrr(self) -> float:
        return sum(1 / o.rank for o in self.outcomes if o.rank) / len(self.outcomes)

    @property
    def top5(self) -> float:
        return sum(1 for o in self.outcomes if 0 < o.rank <= 5) / len(self.outcomes)

    @property
    def recall5(self) -> float:
        ranks = [r for o in self.outcomes for r in o.ranks.values()]
        return sum(1 for r in ranks if 0 < r <= 5) / len(ranks)

    def misses(self) -> list[Outcome]:
        """The cases whose first expected result is not first."""
        return [o for o in self.outcomes if o.rank != 1]


def load_cases(path: Path) -> list[Case]:
    """The cases of a relevance file."""
    with open(path, "rb") as f:
        raw = tomllib.load(f)["case"]
    cases = []
    for item in raw:
        options = {k: item[k] for k in ("edition", "lang", "section", "kind", "all_editions") if k in item}
        cases.append(
            Case(
                item["query"],
                tuple(item["expect"]),
                item.get("first", False),
                tuple(item.get("top5", ())),
                options,
                item.get("why", ""),
            )
        )
    return cases


def run_case(index_dir: Path, case: Case) -> list[Hit]:
    """The top hits of one case."""
    options = dict(case.options)
    if options.pop("all_editions", False):
        options["edition"] = ALL_EDITIONS
    return search(index_dir, case.query, limit=DEPTH, **options).hits


def result_key(hit: Hit) -> str:
    """How a relevance file names a hit: ``702.26b``, ``phasing``, ``fr:502.26``."""
    return hit.number if hit.lang == "en" else f"{hit.lang}:{hit.number}"


def evaluate(index_dir: Path, cases: list[Case]) -> Report:
    """Run every case and rank its expected results."""
    outcomes = []
    for case in cases:
        found = [result_key(h) for h in run_case(index_dir, case)]
        ranks = {e: (found.index(e) + 1 if e in found else 0) for e in case.expect}
        outcomes.append(Outcome(case, found, ranks))
    return Report(outcomes)


# --- the real-question set (tests/questions.toml) ---------------------------------------

#: The two forms of each question.
FORMS = ("question", "keywords")


@dataclass(frozen=True)
class Question:
    """One real rules question: as typed in full, as keywords, and the rule numbers an
    expert answer cites (in en/2026-08-07)."""

    id: str
    topic: str
    question: str
    keywords: str
    answer: tuple[str, ...]
    source: str = ""
    why: str = ""

    def text(self, form: str) -> str:
        return self.question if form == "question" else self.keywords


def load_questions(path: Path) -> list[Question]:
    """The questions of a question file, in file order."""
    with open(path, "rb") as f:
        raw = tomllib.load(f).get("question", [])
    return [
        Question(
            q["id"], q["topic"], q["question"], q["keywords"], tuple(q["answer"]), q.get("source", ""), q.get("why", "")
        )
        for q in raw
    ]


def answers(number: str, answer: str) -> bool:
    """Whether a hit numbered ``number`` answers with ``answer``: the same number, or a unit
    inside it (a subrule of a cited rule, a rule of a cited section). A cited rule's
    parent does not count, nor does a glossary entry or a unit of another language.

    >>> answers("613.1d", "613.1"), answers("613.10", "613.1"), answers("702.19", "702.19b"), answers("702.9a", "702")
    (True, False, False, True)
    """
    if number == answer:
        return True
    if not number.startswith(answer) or len(number) == len(answer):
        return False
    following = number[len(answer)]
    return following == "." or (following.isalpha() and "." in answer)


def first_answer(found: list[str], answer: tuple[str, ...], depth: int = DEPTH) -> int:
    """The rank (1-based) of the first of ``found`` (result keys) that answers, or 0."""
    for i, key in enumerate(found[:depth]):
        if any(answers(key, a) for a in answer):
            return i + 1
    return 0


@dataclass
class QuestionReport:
    """Per question and form, the rank of the first answering hit (0: none in the top 10)."""

    questions: list[Question]
    ranks: dict[tuple[str, str], int]
    found: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def mrr(self, form: str, subset: list[Question] | None = None) -> float:
        qs = self.questions if subset is None else subset
        return sum(1 / r for q in qs if (r := self.ranks[(q.id, form)])) / max(1, len(qs))

    def hits_at(self, form: str, k: int, subset: list[Question] | None = None) -> float:
        qs = self.questions if subset is None else subset
        return sum(1 for q in qs if 0 < self.ranks[(q.id, form)] <= k) / max(1, len(qs))

    def topics(self) -> dict[str, list[Question]]:
        out: dict[str, list[Question]] = {}
        for q in self.questions:
            out.setdefault(q.topic, []).append(q)
        return dict(sorted(out.items()))

    def halves(self) -> tuple[list[Question], list[Question]]:
        """The questions at odd positions of the file (1st, 3rd…: the half ranking was
        tuned on) and at even positions (held out)."""
        return self.questions[0::2], self.questions[1::2]


def evaluate_questions(run, questions: list[Question]) -> QuestionReport:
    """Rank the answers of every question in both forms; ``run(text) -> list[str]`` gives
    the result keys of a query, best first."""
    ranks, found = {}, {}
    for q in questions:
        for form in FORMS:
            keys = run(q.text(form))
            ranks[(q.id, form)] = first_answer(keys, q.answer)
            found[(q.id, form)] = keys[:DEPTH]
    return QuestionReport(questions, ranks, found)


#: The edition the questions' answers are numbered in.
QUESTIONS_EDITION = "en/2026-08-07"


def run_question(index_dir: Path, text: str) -> list[str]:
    """The result keys of one question in en/2026-08-07 (top 10)."""
    return [result_key(h) for h in search(index_dir, text, edition=QUESTIONS_EDITION, limit=DEPTH).hits]
