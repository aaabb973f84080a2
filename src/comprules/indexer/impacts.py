"""Precomputed BM25F impacts: plain keyword queries without whoosh's matchers.

Whoosh scores a query by walking its matcher tree in Python, about 7 µs per matching
document: 10 ms and more for "mana abilities". For plain keyword queries (the usual
ones) the build also writes, for every (field, term), the list of documents and
their BM25 score for that term alone (the term's *impact*), computed exactly as
whoosh's ``BM25F`` does (``idf · tf·(K1+1) / (tf + K1·(1−B+B·len/avglen))``). A query
then adds up ``boost × impact`` per document with dictionaries, reading each posting
list from a memory-mapped file.

Document numbers are whoosh's. Each list holds the documents of the default scope
(the latest edition of each language and the undated documents) first, then the
others, each part by document number: a query in the default scope reads only the
first part.

The raw postings (term frequencies and field lengths, :class:`RawPostings`) are kept
in the index too, so an incremental build recomputes every impact (the collection's
statistics change) without analyzing any unchanged text again.

Files: ``impacts.bin`` holds every list's document numbers (int32), then every
list's impacts (float32), in native byte order; ``impacts.idx`` (pickle) maps
``field → term → (start, current, count)`` and holds the totals; ``postings.pkl``
the raw postings.
"""

from __future__ import annotations

import math
import mmap
from bisect import bisect_left
import pickle
import sys
from array import array
from pathlib import Path

BIN_FILE = "impacts.bin"
IDX_FILE = "impacts.idx"
RAW_FILE = "postings.pkl"

#: whoosh's ``BM25F`` defaults.
K1 = 1.2
B = 0.75


class RawPostings:
    """Per field: term → (document numbers, term frequencies), and each document's length."""

    def __init__(self, fields: list[str]):
        self.fields = list(fields)
        self.terms: dict[str, dict[str, tuple[array, array]]] = {f: {} for f in self.fields}
        self.lengths: dict[str, array] = {f: array("i") for f in self.fields}
        self.docs = 0

    def add(self, docnum: int, terms: dict[str, list[str]]) -> None:
        """Record the analyzed terms (stop words removed) of each field of a new document;
        document numbers must grow."""
        for length in self.lengths.values():
            length.extend([0] * (docnum + 1 - len(length)))
        self.docs = docnum + 1
        for name, words in terms.items():
            if not words:
                continue
            counts: dict[str, int] = {}
            for word in words:
                counts[word] = counts.get(word, 0) + 1
            lists = self.terms[name]
            for term, tf in counts.items():
                entry = lists.get(term)
                if entry is None:
                    entry = lists[term] = (array("i"), array("i"))
                entry[0].append(docnum)
                entry[1].append(tf)
            self.lengths[name][docnum] = len(words)

    def grow(self, docs: int) -> None:
        """Make room for documents up to ``docs`` (numbers taken by whoosh without text)."""
        for length in self.lengths.values():
            length.extend([0] * (docs - len(length)))
        self.docs = max(self.docs, docs)

    def compact(self, live) -> None:
        """Forget the postings of documents that are no longer ``live``."""
        for lists in self.terms.values():
            for term in list(lists):
                docs, tfs = lists[term]
                if all(live[d] for d in docs):
                    continue
                keep = [i for i, d in enumerate(docs) if live[d]]
                if not keep:
                    del lists[term]
                else:
                    lists[term] = (array("i", (docs[i] for i in keep)), array("i", (tfs[i] for i in keep)))
        for length in self.lengths.values():
            for d in range(len(length)):
                if not live[d]:
                    length[d] = 0

    def save(self, directory: Path) -> None:
        with open(directory / RAW_FILE, "wb") as out:
            pickle.dump({"fields": self.fields, "terms": self.terms, "lengths": self.lengths, "docs": self.docs},
                        out, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, directory: Path) -> "RawPostings":
        with open(directory / RAW_FILE, "rb") as f:
            data = pickle.load(f)
        raw = cls(data["fields"])
        raw.terms, raw.lengths, raw.docs = data["terms"], data["lengths"], data["docs"]
        return raw


def write_impacts(directory: Path, raw: RawPostings, live, current) -> int:
    """Write ``impacts.bin`` and ``impacts.idx`` for the ``live`` documents (a sequence of
    booleans by document number), those in ``current`` first; the number of postings."""
    n = sum(1 for d in range(raw.docs) if live[d]) or 1
    docs_out, scores_out, index = array("i"), array("f"), {}
    for name in raw.fields:
        lengths = raw.lengths[name]
        total = sum(lengths[d] for d in range(len(lengths)) if live[d])
        avg = (total / n) or 1.0
        norm = [K1 * ((1 - B) + B * length / avg) for length in lengths]
        terms = index[name] = {}
        for term, (docs, tfs) in raw.terms[name].items():
            cur_d, cur_s, rest_d, rest_s = [], [], [], []
            df = 0
            for d, tf in zip(docs, tfs):
                if live[d]:
                    df += 1
            if not df:
                continue
            idf = math.log(n / (df + 1)) + 1.0
            k = idf * (K1 + 1)
            for d, tf in zip(docs, tfs):
                if not live[d]:
                    continue
                score = k * tf / (tf + norm[d])
                if current[d]:
                    cur_d.append(d)
                    cur_s.append(score)
                else:
                    rest_d.append(d)
                    rest_s.append(score)
            terms[term] = (len(docs_out), len(cur_d), len(cur_d) + len(rest_d))
            docs_out.extend(cur_d)
            docs_out.extend(rest_d)
            scores_out.extend(cur_s)
            scores_out.extend(rest_s)
    with open(directory / BIN_FILE, "wb") as out:
        docs_out.tofile(out)
        scores_out.tofile(out)
    meta = {"byteorder": sys.byteorder, "docs": n, "postings": len(docs_out)}
    with open(directory / IDX_FILE, "wb") as out:
        pickle.dump({"meta": meta, "terms": index}, out, protocol=pickle.HIGHEST_PROTOCOL)
    return len(docs_out)


class Impacts:
    """The impact lists of one index, memory-mapped."""

    def __init__(self, directory: Path):
        with open(directory / IDX_FILE, "rb") as f:
            data = pickle.load(f)
        self.meta = data["meta"]
        self.terms: dict[str, dict[str, tuple[int, int, int]]] = data["terms"]
        self._file = open(directory / BIN_FILE, "rb")
        size = self.meta["postings"] * 8
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._swap = self.meta["byteorder"] != sys.byteorder

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            self._map.close()
        self._file.close()

    def postings(self, field: str, term: str, current_only: bool = False) -> tuple[array, array]:
        """The document numbers and impacts of one term (of the default scope only, or all)."""
        entry = self.terms.get(field, {}).get(term)
        if entry is None:
            return array("i"), array("f")
        start, current, count = entry
        if current_only:
            count = current
        docs = array("i")
        docs.frombytes(self._map[start * 4 : (start + count) * 4])
        base = self.meta["postings"] * 4
        scores = array("f")
        scores.frombytes(self._map[base + start * 4 : base + (start + count) * 4])
        if self._swap:
            docs.byteswap()
            scores.byteswap()
        return docs, scores

    def has(self, field: str, term: str) -> bool:
        return term in self.terms.get(field, {})

    def sorted_terms(self, field: str) -> list[str]:
        """The terms of ``field``, sorted (for prefix and fuzzy expansion)."""
        cache = self.__dict__.setdefault("_sorted", {})
        if field not in cache:
            cache[field] = sorted(self.terms.get(field, {}))
        return cache[field]

    def with_prefix(self, field: str, prefix: str) -> list[str]:
        """The terms of ``field`` that start with ``prefix``, in order."""
        terms = self.sorted_terms(field)
        start = bisect_left(terms, prefix)
        end = bisect_left(terms, prefix + "\U0010ffff", start)
        return terms[start:end]
