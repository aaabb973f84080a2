"""Score a whoosh query tree with the precomputed impacts.

A document's score is the sum, over the query's terms it contains, of ``boost ×
impact`` (whoosh's BM25F): ``And`` keeps the documents every part matches, ``Or``
any part, ``Not`` / ``AndNot`` remove documents, ``AndMaybe`` adds the optional
part's score. A ``Phrase`` asks whoosh which documents have the words in order (it
needs positions), then scores those documents by the phrase's words. ``prefix*``,
wildcards and ``fuzzy~1`` are expanded into the index's terms (at most :data:`MAX_EXPANSION` per
field; a fuzzy word keeps its first letter), then scored as an ``Or`` of them.

The scorer also records which (field, term) pairs it used outside negated parts:
those are the words a snippet highlights.
"""

from __future__ import annotations

import heapq
from itertools import islice

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from whoosh.query import And, AndMaybe, AndNot, FuzzyTerm, MultiTerm, Not, NullQuery, Or, Phrase, Prefix, Query, Term

from ..errors import UsageError
from .impacts import Impacts

Scores = dict[int, float]

#: Most index terms a ``prefix*`` or ``fuzzy~`` word stands for, per field.
MAX_EXPANSION = 200


def top_documents(
    q: Query, impacts: Impacts, searcher, *, limit: int, allowed=None, current_only: bool = False
) -> tuple[list[tuple[float, int]], set[tuple[str, str]]]:
    """The best ``limit`` (score, docnum) for ``q``, best first (ties: lower docnum first),
    and the (field, term) pairs that matched outside negated parts. ``allowed`` (a set)
    keeps only those documents; ``current_only`` reads only the default scope's part of
    each posting list."""
    scorer = _Scorer(impacts, searcher, current_only)
    scores = scorer.scores(q)
    if allowed is not None:
        scores = {d: s for d, s in scores.items() if d in allowed}
    best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
    return [(s, d) for d, s in best], scorer.used


class _Scorer:
    def __init__(self, impacts: Impacts, searcher, current_only: bool):
        self.impacts = impacts
        self.searcher = searcher
        self.current_only = current_only
        self.used: set[tuple[str, str]] = set()
        self.negated = 0

    def scores(self, q: Query) -> Scores:
        if isinstance(q, Term):
            return self.term(q.fieldname, q.text, q.boost)
        if isinstance(q, Phrase):
            return self.phrase(q)
        if isinstance(q, MultiTerm):
            terms = islice(self.expand(q), MAX_EXPANSION)
            return self.union([self.term(q.fieldname, text, q.boost) for text in terms])
        if isinstance(q, Or):
            return self.union([self.scores(s) for s in q.subqueries])
        if isinstance(q, And):
            positive = [s for s in q.subqueries if not isinstance(s, Not)]
            negative = [s.query for s in q.subqueries if isinstance(s, Not)]
            return self.without(self.intersection([self.scores(s) for s in positive]), negative)
        if isinstance(q, AndNot):
            return self.without(self.scores(q.a), [q.b])
        if isinstance(q, AndMaybe):
            required, optional = self.scores(q.a), self.scores(q.b)
            return {d: s + optional.get(d, 0.0) for d, s in required.items()}
        if q is NullQuery:
            return {}
        if isinstance(q, Not):
            raise UsageError("NOT only excludes from the words before it, as in: flying NOT reach")
        raise UsageError(f"unsupported query part: {type(q).__name__}")

    def expand(self, q: MultiTerm):
        """The index terms a ``prefix*``, ``fuzzy~N`` or wildcard word stands for.

        Prefixes and fuzzy words are expanded over the impact lists' terms (live
        documents only): a fuzzy word keeps its first letter (rarely the typo) and is
        compared with rapidfuzz's Levenshtein distance; wildcards go through whoosh.
        """
        if isinstance(q, Prefix):
            return self.impacts.with_prefix(q.fieldname, q.text)
        if isinstance(q, FuzzyTerm):
            head = q.text[: max(1, q.prefixlength)]
            candidates = [
                t for t in self.impacts.with_prefix(q.fieldname, head) if abs(len(t) - len(q.text)) <= q.maxdist
            ]
            return [
                t
                for t, _, _ in process.extract(
                    q.text, candidates, scorer=Levenshtein.distance, score_cutoff=q.maxdist, limit=None
                )
            ]
        return (
            text.decode("utf-8") if isinstance(text, bytes) else text
            for _, text in q.expanded_terms(self.searcher.reader())
        )

    def term(self, field: str, text, boost: float) -> Scores:
        term = text.decode("utf-8") if isinstance(text, bytes) else text
        docs, impacts = self.impacts.postings(field, term, self.current_only)
        if docs and not self.negated:
            self.used.add((field, term))
        return {d: s * boost for d, s in zip(docs, impacts)}

    def phrase(self, q: Phrase) -> Scores:
        candidates = self.intersection([self.term(q.fieldname, w, q.boost) for w in q.words])
        if not candidates:
            return {}
        # whoosh checks the positions, visiting only the documents that have every word
        matcher = q.matcher(self.searcher, self.searcher.boolean_context())
        found: Scores = {}
        for docnum in sorted(candidates):
            if not matcher.is_active():
                break
            if matcher.id() < docnum:
                matcher.skip_to(docnum)
                if not matcher.is_active():
                    break
            if matcher.id() == docnum:
                found[docnum] = candidates[docnum]
        return found

    def without(self, scores: Scores, negated: list[Query]) -> Scores:
        self.negated += 1
        for q in negated:
            drop = self.scores(q)
            scores = {d: s for d, s in scores.items() if d not in drop}
        self.negated -= 1
        return scores

    @staticmethod
    def union(parts: list[Scores]) -> Scores:
        parts = [p for p in parts if p]
        if not parts:
            return {}
        parts.sort(key=len, reverse=True)
        total = dict(parts[0])
        get = total.get
        for part in parts[1:]:
            for d, s in part.items():
                total[d] = get(d, 0.0) + s
        return total

    @staticmethod
    def intersection(parts: list[Scores]) -> Scores:
        if not parts:
            return {}
        parts = sorted(parts, key=len)
        total = parts[0]
        for part in parts[1:]:
            total = {d: s + part[d] for d, s in total.items() if d in part}
        return total
