"""Measure ranking quality on a relevance set (``tests/relevance.toml``).

Each case gives a query, its search options and the expected results, best first
(``702.26b``, a glossary slug such as ``phasing``, or ``fr:502.26`` for a French
unit). Reported over the set: the mean reciprocal rank (MRR) of each case's first
expected result within the top 10, the share of cases with that result in the top 5,
and the share of all expected results found in the top 5.
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
        cases.append(Case(item["query"], tuple(item["expect"]), item.get("first", False), tuple(item.get("top5", ())),
                          options, item.get("why", "")))
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
