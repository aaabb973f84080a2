"""comprules' ranking of the documents of one language for a list of clauses.

No whoosh here: the inputs are the integer BM25F impacts (:mod:`.impacts`), the
token → term tables of the index (:mod:`.vocab`) and, for phrases and proximity,
the terms of a document's stored title and text. ``site/static/search.js`` computes
the same numbers with the same operations in the same order (only ``+``, ``×``,
``÷`` and comparisons on doubles, so both give the same bits), and
``tests/test_search_site.py`` checks that it does.

For clauses ``c`` with weights ``w_c`` (1 for a content word, :data:`.languages.FILLER_WEIGHT`
for a filler word, 0 for a stop word: dropped) and coverage weights ``v_c = w_c · idf_c``:

    sum(d)      = Σ_c  w_c · impact_c(d)                     (in clause order)
    coverage(d) = Σ_{c matched by d} v_c  /  Σ_c v_c
    base(d)     = sum(d) · coverage(d) · coverage(d) · KIND_WEIGHT[kind(d)]

(coordination: a document with more of the query's distinct words ranks higher; a
rare word counts more than a common one). A rule that is only a heading weighs
:data:`HEADING_WEIGHT` for a query of two words or more. A *long* query
(:data:`LONG_QUERY` content words or more: a question typed in full) damps its rare
words (:data:`RARE_IDF`) and multiplies the coverage in once; a shorter query of two
words or more multiplies each document by its rule's evidence (:data:`RULE_EVIDENCE`).
An ``alt`` clause (:mod:`.expand`: the players' words "fizzle", and the rules' words for
them) scores the best of the typed clause and :data:`.expand.WEIGHT` × each group of
rules' words, with the largest of their ``v``. A query token the index never saw is
looked up through its inflections (:mod:`.inflect`). Then the :data:`PROXIMITY_POOL` best
documents by ``base`` are re-ranked by proximity: for each pair of consecutive content
words of the query found within :data:`PROXIMITY_WINDOW` positions of each other in
the document's title or text ("Blood Moon", "layer 7"),

    score(d) = base(d) · (1 + PROXIMITY · pairs_near(d) / pairs)

and a document whose title (stop words left out) begins with the query's content
words, all of them, is multiplied by ``1 + TITLE_BOOST``. Ties go to the lower
document number. ``must`` clauses are required, ``not`` clauses
exclude; a ``phrase`` is the sum of its words' impacts where the words are next to
each other; ``prefix`` and ``fuzzy`` add up the impacts of the index terms they stand
for (at most :data:`MAX_EXPANSION`, in order: prefix terms alphabetically, fuzzy terms
by distance then alphabetically) with the largest idf of them as ``idf_c``; a group is
scored as a query of its own, with its ``Σ v`` as ``idf_c``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from rapidfuzz.distance import Levenshtein

from .expand import WEIGHT as EXPANSION_WEIGHT
from .impacts import ALL, EXAMPLES, NAMES, SCALE, Impacts
from .inflect import query_term
from .languages import FILLER_WEIGHT, LANGUAGES
from .query import MUST, NOT, Clause

#: Multiplier of a kind of unit's score (a glossary definition or a section heading is
#: rarely the answer to a question; a rule is). A query of one clause leaves glossary
#: entries at 1.
KIND_WEIGHT = {"glossary": 0.6, "section": 0.5, "chapter": 0.3}
#: How many of the best documents are re-ranked by proximity.
PROXIMITY_POOL = 50
#: How far apart (in terms, stop words left out) two query words count as near.
PROXIMITY_WINDOW = 2
#: Weight of proximity: a document with every consecutive pair near scores (1 + PROXIMITY)×.
PROXIMITY = 0.5
#: Weight of the exact-word list (a query token spelled as in the unit's heading or its
#: ancestors' titles: "phasing" for 702.26b, not "phase").
NAMES_WEIGHT = 0.5
#: Weight of a word capitalized inside a sentence (a card's name, :attr:`.query.Clause.name`).
NAME_WEIGHT = 0.1
#: A word whose idf (× 100) is below :data:`COMMON_IDF` weighs its idf / COMMON_IDF (squared)
#: of a content word: "creature", "card", "player" say little about a question.
COMMON_IDF = 100
#: Coordination: the coverage is multiplied in this many times.
COORD_POWER = 2
#: A query of at least this many content words (not filler, stop words or names) is
#: *long*: a question typed in full rather than keywords.
LONG_QUERY = 8
#: In a long query, a word whose idf (× 100) is above :data:`RARE_IDF` weighs
#: (RARE_IDF / idf)² of a content word: a word the rules seldom use is, in a long
#: question, more often the asker's own wording ("whole", "forever") than a rules term.
RARE_IDF = 300
#: …and the coverage is multiplied in once, not :data:`COORD_POWER` times.
LONG_COORD_POWER = 1
#: Multiplier of a rule that is only a heading (702.21 "Ward", no text of its own) for a
#: query of two words or more: its subrules say what the query asks.
HEADING_WEIGHT = 0.5
#: A query of two words or more that is not long: each document is multiplied by
#: 1 + RULE_EVIDENCE × (its rule's evidence) / (the best rule's evidence), a rule's
#: evidence being the sum of the two best scores among the rule and its subrules
#: ("ward uncounterable spell": the subrules of 702.21 hold each other up). Two, so that
#: the sum is the same whatever order the engines add in.
RULE_EVIDENCE = 0.3
#: A document whose title begins with the query's content words gets (1 + TITLE_BOOST)×.
TITLE_BOOST = 1.0
#: Most index terms a ``prefix*`` or ``fuzzy~`` word stands for.
MAX_EXPANSION = 200


@dataclass
class Ranked:
    """The documents one language's clauses match, best first, and how many."""

    order: list[tuple[float, int]]
    count: int
    used: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Compact:
    """The default scope's documents of one list (sorted), where each is in the index
    (``position``: a document's place among them, -1 for the others), and the ranker's
    per-document arrays taken at them."""

    docs: np.ndarray
    position: np.ndarray
    kind_weight: np.ndarray
    glossary: np.ndarray
    heading: np.ndarray
    rule_groups: np.ndarray


class Ranker:
    """Scores clause lists over one open index.

    ``vocab(lang)`` gives a language's token → term table; ``sequence(d)`` the terms of
    document ``d``'s title and text (``None`` between them); ``kinds`` the kind of
    each document (an array of strings).
    """

    def __init__(
        self,
        impacts: Impacts,
        vocab: Callable[[str], dict],
        sequence: Callable[[int], list],
        kinds: list[str],
        ndocs: int,
        title: Callable[[int], list] = lambda d: [],
        headings: list[bool] | None = None,
        numbers: list[str] | None = None,
    ):
        self.impacts = impacts
        self.vocab = vocab
        self.sequence = sequence
        self.title = title
        self.ndocs = ndocs
        self.kind_weight = np.array([KIND_WEIGHT.get(k, 1.0) for k in kinds] or [1.0], dtype=np.float64)
        self.glossary = np.array([k == "glossary" for k in kinds] or [False], dtype=bool)
        self.heading = np.array(headings if headings else [False] * max(1, len(kinds)), dtype=bool)
        self.kinds = list(kinds)
        self.numbers = list(numbers) if numbers is not None else [str(d) for d in range(len(kinds))]
        self._rule_groups: np.ndarray | None = None
        self._compact: dict[str, _Compact] = {}

    def compact(self, key: str, names: str | None) -> "_Compact":
        """The default scope's documents of list ``key`` (and of ``names``): what a query
        there can score (:meth:`.impacts.Impacts.current_docs`, about a seventh of the
        index), with the per-document arrays taken at them, made once a list."""
        found = self._compact.get(key)
        if found is None:
            docs = self.impacts.current_docs(key)
            if names is not None:
                docs = np.union1d(docs, self.impacts.current_docs(names))
            position = np.full(max(self.ndocs, 1), -1, dtype=np.int64)
            position[docs] = np.arange(len(docs))
            found = self._compact[key] = _Compact(
                docs,
                position,
                self.kind_weight[docs],
                self.glossary[docs],
                self.heading[docs],
                self.rule_groups[docs],
            )
        return found

    # --- public ------------------------------------------------------------------------

    def rank(
        self,
        clauses: list[Clause],
        lang: str,
        *,
        allowed: np.ndarray | None,
        current_only: bool,
        examples: bool = False,
        pool: int = 10,
    ) -> Ranked:
        """The best ``pool`` (score, document) of ``lang`` for ``clauses`` (``allowed``: a
        boolean mask of the documents that may be returned), and how many match."""
        ctx = _Context(self, lang, f"{lang}:{EXAMPLES if examples else ALL}", current_only)
        ctx.long = (
            sum(1 for c in clauses if c.kind != "term" or (ctx.weight(c.tokens[0]) == 1.0 and not c.name)) >= LONG_QUERY
        )
        scored = ctx.score(clauses, top=True)
        if scored is None:
            return Ranked([], 0)
        base, ok = scored
        # the per-document arrays, taken at the documents the context scores (the same
        # numbers for each: the order of documents is kept, so ties go the same way)
        part = ctx.part
        kinds, glossary, heading = (
            (self.kind_weight, self.glossary, self.heading)
            if part is None
            else (part.kind_weight, part.glossary, part.heading)
        )
        weight = kinds
        if ctx.content <= 1:  # one word: a definition answers it as well as a rule
            weight = np.where(glossary, 1.0, weight)
        else:  # more: a heading's subrules answer it
            weight = np.where(heading, HEADING_WEIGHT, weight)
        base = base * weight / SCALE
        if allowed is not None:
            ok = ok & (allowed if part is None else allowed[part.docs])
        docs = np.flatnonzero(ok & (base > 0))
        if not len(docs):
            return Ranked([], 0, ctx.used)
        scores = base[docs]
        if ctx.content >= 2 and not ctx.long:
            groups = self.rule_groups if part is None else part.rule_groups
            scores = scores * self._rule_evidence(groups[docs], scores)
        if part is not None:
            docs = part.docs[docs]  # the documents' own numbers, in the same order
        order = np.lexsort((docs, -scores))
        docs, scores = docs[order], scores[order]
        pairs, words = ctx.pairs, ctx.words
        head = min(len(docs), max(PROXIMITY_POOL, pool))
        near_pool = min(len(docs), PROXIMITY_POOL)
        final = []
        for k in range(near_pool):
            d = int(docs[k])
            score = float(scores[k])
            if pairs:
                score = score * (1 + PROXIMITY * self._near(d, pairs) / len(pairs))
            if words and self._titled(d, words):
                score = score * (1 + TITLE_BOOST)
            final.append((score, d))
        final.sort(key=lambda item: (-item[0], item[1]))
        final += [(float(scores[k]), int(docs[k])) for k in range(near_pool, head)]
        return Ranked(final[:pool], int(len(docs)), ctx.used)

    @staticmethod
    def _rule_evidence(group: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Per document (``group``: the id of its rule, :attr:`rule_groups`), 1 +
        RULE_EVIDENCE × (the sum of the two best scores of its rule's documents: the rule
        and its subrules) ÷ (the largest such sum)."""
        order = np.lexsort((-scores, group))  # by rule, best first
        g, s = group[order], scores[order]
        first = np.ones(len(g), dtype=bool)
        first[1:] = g[1:] != g[:-1]
        second = np.zeros(len(g), dtype=bool)
        second[1:] = ~first[1:] & first[:-1]
        total = np.zeros(int(group.max()) + 1, dtype=np.float64)
        total[g[first]] = s[first]
        total[g[second]] = total[g[second]] + s[second]
        return 1 + RULE_EVIDENCE * total[group] / total.max()

    @property
    def rule_groups(self) -> np.ndarray:
        """Per document, the id of its rule (702.21 for 702.21 and 702.21a; a section, a
        glossary entry or a passage is its own)."""
        if self._rule_groups is None:
            ids: dict[str, int] = {}
            self._rule_groups = np.fromiter(
                (ids.setdefault(rule_key(n, k), len(ids)) for n, k in zip(self.numbers, self.kinds)),
                dtype=np.int64,
                count=len(self.kinds),
            )
        return self._rule_groups

    def _titled(self, d: int, words: list[str]) -> bool:
        """Whether the query's content words begin the document's title ("summoning
        sickness" → Summoning Sickness Rule)."""
        title = self.title(d)
        return len(title) >= len(words) and title[: len(words)] == words

    def count(self, clauses: list[Clause], lang: str, *, allowed, current_only: bool) -> int:
        """How many documents of ``lang`` the clauses match."""
        return self.rank(clauses, lang, allowed=allowed, current_only=current_only, pool=1).count

    # --- proximity -----------------------------------------------------------------------

    def _near(self, d: int, pairs: list[tuple[str, str]]) -> int:
        seq = self.sequence(d)
        where: dict[str, list[int]] = {}

        def positions(term: str) -> list[int]:
            found = where.get(term)
            if found is None:  # each place found by a scan in C (list.index), none by a loop here
                found = where[term] = []
                if term in seq:
                    i = seq.index(term)
                    while True:
                        found.append(i)
                        try:
                            i = seq.index(term, i + 1)
                        except ValueError:
                            break
            return found

        found = 0
        for a, b in pairs:
            pa = positions(a)
            if pa:
                pb = positions(b)
                if pb and _close(seq, pa, pb):
                    found += 1
        return found


def _close(seq: list, pa: list[int], pb: list[int]) -> bool:
    for i in pa:
        for j in pb:
            if i != j and abs(i - j) <= PROXIMITY_WINDOW and None not in seq[min(i, j) : max(i, j) + 1]:
                return True
    return False


class _Context:
    """One ranking: the language, the impact list, the terms used, the proximity pairs."""

    def __init__(self, ranker: Ranker, lang: str, key: str, current_only: bool):
        self.r = ranker
        self.lang = lang
        self.key = key
        self.names = f"{lang}:{NAMES}" if key.endswith(ALL) else None
        self.current_only = current_only
        # in the default scope, the arrays hold only the documents its lists can name
        self.part: _Compact | None = ranker.compact(key, self.names) if current_only else None
        self.n = ranker.ndocs if self.part is None else len(self.part.docs)
        self.table = ranker.vocab(lang)
        self.language = LANGUAGES[lang]
        self.used: set[str] = set()
        self.pairs: list[tuple[str, str]] = []
        self.content = 0
        self.words: list[str] = []
        self.long = False

    def weight(self, token: str) -> float:
        if token in self.language.stop:
            return 0.0
        return FILLER_WEIGHT if token in self.language.filler else 1.0

    def term(self, token: str) -> str | None:
        """The index term of a query token (:func:`.inflect.query_term`: from the index's
        table, else through an inflection, "died" → "die"), or ``None``."""
        return query_term(token, self.lang, self.table, self.r.impacts.terms.get(self.key, {}))

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        return self.r.impacts.postings(self.key, term, self.current_only)

    def place(self, docs: np.ndarray) -> np.ndarray:
        """Where documents ``docs`` (a list's) are in this context's arrays."""
        return docs if self.part is None else self.part.position[docs]

    def doc(self, i: int) -> int:
        """The document at place ``i`` of this context's arrays."""
        return i if self.part is None else int(self.part.docs[i])

    def dense(self, term: str) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.float64)
        docs, imps = self.postings(term)
        if len(docs):
            out[self.place(docs)] = imps
            self.used.add(term)
        return out

    # a clause → (scores, coverage weight, weight) or None when it is dropped
    def clause(self, c: Clause):
        if c.kind == "term":
            token = c.tokens[0]
            w = self.weight(token)
            if w == 0.0:
                return None
            if c.name:
                w = w * NAME_WEIGHT
            idf = self.r.impacts.idf(self.key, self.term(token)) if self.term(token) is not None else 0
            if idf < COMMON_IDF:
                w = w * (idf / COMMON_IDF) * (idf / COMMON_IDF)
            if self.long and idf > RARE_IDF:
                w = w * (RARE_IDF / idf) * (RARE_IDF / idf)
            term = self.term(token)
            if term is None:
                return np.zeros(self.n), 0.0, w, None
            scores = self.dense(term)
            if self.names is not None:
                docs, imps = self.r.impacts.postings(self.names, token, self.current_only)
                if len(docs):
                    extra = np.zeros(self.n, dtype=np.float64)
                    extra[self.place(docs)] = imps
                    scores = scores + NAMES_WEIGHT * extra
            return scores, w * self.r.impacts.idf(self.key, term), w, term
        if c.kind == "phrase":
            return self.phrase(c)
        if c.kind in ("prefix", "fuzzy"):
            terms = self.expand(c)
            total = np.zeros(self.n, dtype=np.float64)
            idf = 0
            for term in terms:
                total += self.dense(term)
                idf = max(idf, self.r.impacts.idf(self.key, term))
            return total, float(idf), 1.0, None
        if c.kind == "group":
            scored = self.score(list(c.children), top=False)
            if scored is None:
                return None
            sub, ok, v = scored
            return np.where(ok, sub, 0.0), v, 1.0, None
        if c.kind == "alt":
            return self.alternatives(c)
        raise ValueError(c.kind)

    def alternatives(self, c: Clause):
        """What was typed or, at :data:`.expand.WEIGHT`, the rules' words for it: per
        document the best of the typed clause's weighted score and each weighted group's,
        and the largest of their coverage weights."""
        typed = self.clause(c.children[0])
        term = None
        if typed is None:
            best, v = np.zeros(self.n, dtype=np.float64), 0.0
        else:
            scores, v, w, term = typed
            best = w * scores
        for group in c.children[1:]:
            made = self.clause(group)
            if made is None:
                continue
            scores, gv, w, _ = made
            best = np.maximum(best, EXPANSION_WEIGHT * (w * scores))
            v = max(v, EXPANSION_WEIGHT * gv)
        return best, v, 1.0, term

    def phrase(self, c: Clause):
        words = [t for t in c.tokens if self.weight(t) > 0 or self.language.term(t) is not None]
        terms = [self.term(t) for t in c.tokens if self.language.term(t) is not None]
        if not terms:
            return None
        if any(t is None for t in terms):
            return np.zeros(self.n), 0.0, 1.0, None
        total = np.zeros(self.n, dtype=np.float64)
        every = np.ones(self.n, dtype=bool)
        idf = 0
        for term in terms:
            docs, imps = self.postings(term)
            part = np.zeros(self.n, dtype=np.float64)
            part[self.place(docs)] = imps
            total += part
            every &= part > 0
            idf += self.r.impacts.idf(self.key, term)
        for d in np.flatnonzero(every):
            if not _has_run(self.r.sequence(self.doc(int(d))), terms):
                every[d] = False
        if every.any():
            self.used.update(terms)
        del words
        return np.where(every, total, 0.0), float(idf), 1.0, None

    def expand(self, c: Clause) -> list[str]:
        token = c.tokens[0]
        if c.kind == "prefix":
            return self.r.impacts.with_prefix(self.key, token)[:MAX_EXPANSION]
        head = token[:1]
        candidates = [t for t in self.r.impacts.with_prefix(self.key, head) if abs(len(t) - len(token)) <= c.distance]
        close = [(Levenshtein.distance(token, t), t) for t in candidates]
        return [t for dist, t in sorted(x for x in close if x[0] <= c.distance)][:MAX_EXPANSION]

    def score(self, clauses: list[Clause], top: bool):
        """(base scores, documents allowed) — and at group level, the group's Σ v."""
        n = self.n
        total = np.zeros(n, dtype=np.float64)
        covered = np.zeros(n, dtype=np.float64)
        must = np.ones(n, dtype=bool)
        excluded = np.zeros(n, dtype=bool)
        weight_sum = 0.0
        positive = 0
        seen: dict[str, int] = {}
        content_terms: list[str] = []
        words: list[str] = []
        for c in clauses:
            made = self.clause(c)
            if made is None:
                continue
            scores, v, w, term = made
            if term is not None:
                if term in seen:
                    continue
                seen[term] = 1
            matched = scores > 0
            if c.occur == NOT:
                excluded |= matched
                continue
            positive += 1
            if c.occur == MUST:
                must &= matched
            total += w * scores
            covered += np.where(matched, v, 0.0)
            weight_sum += v
            if term is not None and w >= NAME_WEIGHT and c.occur != NOT:
                content_terms.append(term)
                words.append(c.tokens[0])
        if not positive:
            return None
        if weight_sum > 0:
            cover = covered / weight_sum
            base = total
            for _ in range(LONG_COORD_POWER if self.long else COORD_POWER):
                base = base * cover
        else:
            base = total
        ok = must & ~excluded
        if top:
            self.pairs = [(a, b) for a, b in zip(content_terms, content_terms[1:])]
            self.content = positive
            self.words = words if len(words) == positive else []
            return base, ok
        return base, ok, weight_sum


def _has_run(seq: list, terms: list[str]) -> bool:
    n = len(terms)
    for i in range(len(seq) - n + 1):
        if seq[i : i + n] == terms:
            return True
    return False


def rule_key(number: str, kind: str) -> str:
    """The rule a unit belongs to, for :meth:`Ranker._rule_evidence`: a subrule's rule
    (``702.21a`` → ``702.21``), else the unit itself (``glossary:ward``, a section ``702``,
    a passage ``602¶3``).

    >>> rule_key("702.21a", "subrule"), rule_key("702.21", "rule"), rule_key("702", "section"), rule_key("ward", "glossary")
    ('702.21', '702.21', '702', 'glossary:ward')
    """
    if kind == "glossary":
        return f"glossary:{number}"
    return number.rstrip("abcdefghijklmnopqrstuvwxyz") if "." in number else number
