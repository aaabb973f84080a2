"""Precomputed BM25F impacts: plain keyword queries without whoosh's matchers.

Whoosh scores a query by walking its matcher tree in Python, about 7 µs per matching
document: 10 ms and more for "mana abilities". For plain keyword queries (the usual
ones) the build also writes, for every (field, term), the list of documents and
their BM25 score for that term alone (the term's *impact*), computed exactly as
whoosh's ``BM25F`` does (``idf · tf·(K1+1) / (tf + K1·(1−B+B·len/avglen))``). A query
then adds up ``boost × impact`` per document with dictionaries, reading each posting
list from a memory-mapped file.

Document numbers are whoosh's (the build adds documents in order, to one segment),
and the documents of the default scope (the latest edition of each language and
the undated documents) come first, so that scope is a prefix of every list.

Files: ``impacts.bin`` holds every list's document numbers (int32), then every
list's impacts (float32), in native byte order; ``impacts.idx`` (pickle) maps
``field → term → (start, count)`` and holds the totals.
"""

from __future__ import annotations

import math
import mmap
import pickle
import sys
from array import array
from bisect import bisect_left
from pathlib import Path

BIN_FILE = "impacts.bin"
IDX_FILE = "impacts.idx"

#: whoosh's ``BM25F`` defaults.
K1 = 1.2
B = 0.75


class ImpactWriter:
    """Collects the terms of each document's fields, then writes the impact lists."""

    def __init__(self, fields: list[str]):
        self.fields = fields
        self.postings: dict[str, dict[str, list[tuple[int, int]]]] = {f: {} for f in fields}
        self.lengths: dict[str, int] = dict.fromkeys(fields, 0)
        self.doc_lengths: dict[str, dict[int, int]] = {f: {} for f in fields}
        self.docs = 0

    def add(self, docnum: int, terms: dict[str, list[str]]) -> None:
        """Record the analyzed terms (stop words removed) of each field of one document."""
        self.docs = max(self.docs, docnum + 1)
        for name, words in terms.items():
            if not words:
                continue
            counts: dict[str, int] = {}
            for word in words:
                counts[word] = counts.get(word, 0) + 1
            lists = self.postings[name]
            for term, tf in counts.items():
                lists.setdefault(term, []).append((docnum, tf))
            self.lengths[name] += len(words)
            self.doc_lengths[name][docnum] = len(words)

    def write(self, directory: Path, current: int) -> None:
        """Write ``impacts.bin`` and ``impacts.idx``; ``current`` documents form the default scope."""
        docs, scores, index = array("i"), array("f"), {}
        for name in self.fields:
            avg = (self.lengths[name] / self.docs) if self.docs else 1.0
            lengths = self.doc_lengths[name]
            terms = index[name] = {}
            for term, plist in self.postings[name].items():
                idf = math.log(self.docs / (len(plist) + 1)) + 1.0
                terms[term] = (len(docs), len(plist))
                docs.extend(d for d, _ in plist)
                scores.extend(
                    idf * (tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * lengths[d] / avg)) for d, tf in plist
                )
        with open(directory / BIN_FILE, "wb") as out:
            docs.tofile(out)
            scores.tofile(out)
        meta = {"byteorder": sys.byteorder, "docs": self.docs, "current": current, "postings": len(docs)}
        with open(directory / IDX_FILE, "wb") as out:
            pickle.dump({"meta": meta, "terms": index}, out, protocol=pickle.HIGHEST_PROTOCOL)


class Impacts:
    """The impact lists of one index, memory-mapped."""

    def __init__(self, directory: Path):
        with open(directory / IDX_FILE, "rb") as f:
            data = pickle.load(f)
        self.meta = data["meta"]
        self.terms: dict[str, dict[str, tuple[int, int]]] = data["terms"]
        self._file = open(directory / BIN_FILE, "rb")
        size = self.meta["postings"] * 8
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._swap = self.meta["byteorder"] != sys.byteorder

    @property
    def current(self) -> int:
        """The number of documents of the default scope (document numbers ``0 … current-1``)."""
        return self.meta["current"]

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            self._map.close()
        self._file.close()

    def postings(self, field: str, term: str, bound: int | None = None) -> tuple[array, array]:
        """The document numbers and impacts of one term, cut to documents below ``bound``."""
        entry = self.terms.get(field, {}).get(term)
        if entry is None:
            return array("i"), array("f")
        start, count = entry
        docs = array("i")
        docs.frombytes(self._map[start * 4 : (start + count) * 4])
        if self._swap:
            docs.byteswap()
        if bound is not None and (not docs or docs[-1] >= bound):
            count = bisect_left(docs, bound)
            del docs[count:]
        base = self.meta["postings"] * 4
        scores = array("f")
        scores.frombytes(self._map[base + start * 4 : base + (start + count) * 4])
        if self._swap:
            scores.byteswap()
        return docs, scores
