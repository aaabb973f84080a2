"""Precomputed BM25F impacts: what a query adds up, per (language, term) and document.

comprules' own scoring (no whoosh matcher is used). For every language and term the
build writes the list of documents holding it with the term's BM25F *impact* in each,
an integer (``round(SCALE × score)``), so that a query's score is a sum of integers
and the site's JavaScript ranker, reading the same numbers, adds up exactly the same:

    tf'  = Σ_field  W_field · tf_field / (1 − B + B · len_field / avglen_field)
    idf  = ln(1 + (N − df + 0.5) / (df + 0.5))          (N, df: documents of the language)
    impact = round(SCALE · idf · tf' / (K1 + tf'))

with the fields and weights of :data:`FIELD_WEIGHTS` (Robertson & Zaragoza's BM25F:
the term frequencies of the fields are weighed, then saturated once). A second list
per term, ``examples`` only (``--kind example``), saturates the examples field alone.
Each term also has its idf (``round(100 · idf)``), the weight of the word in a query's
coordination (:mod:`.rank`).

Document numbers are whoosh's. Each list holds the documents of the default scope
(the latest edition of each language and the undated documents) first, then the
others, each part by document number: a query in the default scope reads only the
first part.

The raw postings (term frequencies and field lengths, :class:`RawPostings`) are kept
in the index too, so an incremental build recomputes every impact (the collection's
statistics change) without analyzing any unchanged text again.

Files: ``impacts.bin`` holds every list's document numbers (int32), then every
list's impacts (int32), in native byte order; ``impacts.idx`` (pickle) maps
``"{lang}:{all|examples}" → term → (start, current, count, idf)``; ``postings.pkl``
the raw postings.
"""

from __future__ import annotations

import math
import mmap
import pickle
import sys
from array import array
from bisect import bisect_left
from pathlib import Path

import numpy as np

from .languages import LANGS

BIN_FILE = "impacts.bin"
IDX_FILE = "impacts.idx"
RAW_FILE = "postings.pkl"

K1 = 1.2
B = 0.75
#: Impacts are integers: ``SCALE`` × the BM25F score.
SCALE = 1000
#: Weight of each field's term frequency (a rule's own heading counts most; its
#: ancestors' titles and its examples less than its text).
FIELD_WEIGHTS = {"title": 3.0, "body": 1.0, "examples": 0.4, "context": 0.8, "gloss": 0.5}
#: The lists of each term: BM25F over every field, the examples alone, and the exact
#: (unstemmed) tokens of the unit's heading and its ancestors' titles.
ALL, EXAMPLES, NAMES = "all", "examples", "names"


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
            pickle.dump(
                {"fields": self.fields, "terms": self.terms, "lengths": self.lengths, "docs": self.docs},
                out,
                protocol=pickle.HIGHEST_PROTOCOL,
            )

    @classmethod
    def load(cls, directory: Path) -> "RawPostings":
        with open(directory / RAW_FILE, "rb") as f:
            data = pickle.load(f)
        raw = cls(data["fields"])
        raw.terms, raw.lengths, raw.docs = data["terms"], data["lengths"], data["docs"]
        return raw


def _norms(raw: "RawPostings", name: str, live) -> np.ndarray:
    lengths = np.asarray(raw.lengths[name], dtype=np.float64)
    alive = np.asarray(live[: len(lengths)], dtype=bool) & (lengths > 0)
    n = max(1, int(alive.sum()))
    avg = float(lengths[alive].sum()) / n or 1.0  # over the documents that have the field
    return (1 - B) + B * lengths / avg


def combined(raw: "RawPostings", lang: str, live, weights: dict[str, float] | None = None):
    """Per term of ``lang``: (documents, BM25F impacts, examples-only documents and
    impacts, idf × 100), live documents only."""
    weights = weights or FIELD_WEIGHTS
    docs_of_lang = None
    norms = {f: _norms(raw, f"{f}_{lang}", live) for f in weights}
    alive = np.asarray(live, dtype=bool)
    terms: dict[str, list] = {}
    for f in weights:
        for term, (docs, tfs) in raw.terms[f"{f}_{lang}"].items():
            terms.setdefault(term, []).append((f, docs, tfs))
    # N: live documents with any text in this language
    has_text = np.zeros(raw.docs, dtype=bool)
    for f in weights:
        lengths = np.asarray(raw.lengths[f"{f}_{lang}"], dtype=np.int64)
        has_text[: len(lengths)] |= lengths > 0
    docs_of_lang = int((has_text & alive[: raw.docs]).sum()) or 1
    out = {}
    for term, parts in terms.items():
        all_docs = np.concatenate([np.frombuffer(d, dtype=np.int32) for _, d, _ in parts])
        all_tfs = np.concatenate([np.frombuffer(t, dtype=np.int32).astype(np.float64) for _, _, t in parts])
        weighted = np.concatenate(
            [
                weights[f] * np.frombuffer(t, dtype=np.int32) / norms[f][np.frombuffer(d, dtype=np.int32)]
                for f, d, t in parts
            ]
        )
        keep = alive[all_docs]
        all_docs, weighted, all_tfs = all_docs[keep], weighted[keep], all_tfs[keep]
        if not len(all_docs):
            continue
        order = np.argsort(all_docs, kind="stable")
        all_docs, weighted = all_docs[order], weighted[order]
        uniq, starts = np.unique(all_docs, return_index=True)
        tfw = np.add.reduceat(weighted, starts)
        df = len(uniq)
        idf = math.log(1 + (docs_of_lang - df + 0.5) / (df + 0.5))
        impacts = np.rint(SCALE * idf * tfw / (K1 + tfw)).astype(np.int64)
        impacts = np.maximum(impacts, 1)
        ex_docs = ex_imp = None
        for f, d, t in parts:
            if f == "examples":
                d = np.frombuffer(d, dtype=np.int32)
                t = np.frombuffer(t, dtype=np.int32).astype(np.float64)
                k = alive[d]
                d, t = d[k], t[k] / norms[f][d[k]]
                if len(d):
                    ex_docs, ex_imp = d, np.maximum(np.rint(SCALE * idf * t / (K1 + t)).astype(np.int64), 1)
        out[term] = (uniq, impacts, ex_docs, ex_imp, int(round(100 * idf)))
    return out


def single(raw: "RawPostings", name: str, live) -> dict:
    """Per term of one field: (documents, BM25 impacts, idf × 100), live documents only."""
    norms = _norms(raw, name, live)
    alive = np.asarray(live, dtype=bool)
    lengths = np.asarray(raw.lengths[name], dtype=np.int64)
    n = int(((lengths > 0) & alive[: len(lengths)]).sum()) or 1
    out = {}
    for term, (docs, tfs) in raw.terms[name].items():
        d = np.frombuffer(docs, dtype=np.int32)
        t = np.frombuffer(tfs, dtype=np.int32).astype(np.float64)
        k = alive[d]
        d, t = d[k], t[k]
        if not len(d):
            continue
        idf = math.log(1 + (n - len(d) + 0.5) / (len(d) + 0.5))
        t = t / norms[d]
        out[term] = (d, np.maximum(np.rint(SCALE * idf * t / (K1 + t)).astype(np.int64), 1), int(round(100 * idf)))
    return out


def write_impacts(directory: Path, raw: RawPostings, live, current, weights: dict[str, float] | None = None) -> int:
    """Write ``impacts.bin`` and ``impacts.idx`` for the ``live`` documents (a sequence of
    booleans by document number), those in ``current`` first; the number of postings."""
    current = np.asarray(current, dtype=bool)
    docs_out: list[np.ndarray] = []
    scores_out: list[np.ndarray] = []
    index: dict[str, dict[str, tuple[int, int, int, int]]] = {}
    total = 0

    def put(key: str, term: str, docs: np.ndarray, imps: np.ndarray, idf: int) -> None:
        nonlocal total
        first = current[docs]
        d = np.concatenate([docs[first], docs[~first]]).astype(np.int32)
        s = np.concatenate([imps[first], imps[~first]]).astype(np.int32)
        index.setdefault(key, {})[term] = (total, int(first.sum()), len(d), idf)
        docs_out.append(d)
        scores_out.append(s)
        total += len(d)

    for lang in LANGS:
        for term, (docs, imps, ex_docs, ex_imps, idf) in sorted(combined(raw, lang, live, weights).items()):
            put(f"{lang}:{ALL}", term, docs, imps, idf)
            if ex_docs is not None:
                put(f"{lang}:{EXAMPLES}", term, ex_docs, ex_imps, idf)
        for token, (docs, imps, idf) in sorted(single(raw, f"{NAMES}_{lang}", live).items()):
            put(f"{lang}:{NAMES}", token, docs, imps, idf)
    with open(directory / BIN_FILE, "wb") as out:
        for part in docs_out:
            out.write(part.tobytes())
        for part in scores_out:
            out.write(part.tobytes())
    meta = {"byteorder": sys.byteorder, "docs": int(np.asarray(live, dtype=bool).sum()), "postings": total}
    with open(directory / IDX_FILE, "wb") as out:
        pickle.dump({"meta": meta, "terms": index}, out, protocol=pickle.HIGHEST_PROTOCOL)
    return total


_EMPTY = np.zeros(0, dtype=np.int32)


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
        #: The file's int32s, in the byte order it was written in.
        self._dtype = np.dtype(np.int32).newbyteorder(">" if self.meta["byteorder"] == "big" else "<")

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            try:
                self._map.close()
            except BufferError:  # arrays still point into it: closed when they are gone
                pass
        self._file.close()

    def postings(self, key: str, term: str, current_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The document numbers and impacts (int32 arrays) of one term in list ``key``
        (``"en:all"``…), of the default scope only or all."""
        entry = self.terms.get(key, {}).get(term)
        if entry is None:
            return _EMPTY, _EMPTY
        start, current, count, _ = entry
        if current_only:
            count = current
        dtype = self._dtype
        docs = np.frombuffer(self._map, dtype=dtype, count=count, offset=start * 4)
        base = self.meta["postings"] * 4
        scores = np.frombuffer(self._map, dtype=dtype, count=count, offset=base + start * 4)
        return docs, scores

    def current_docs(self, key: str) -> np.ndarray:
        """The documents of the default scope in list ``key``: every document number of
        the lists' first parts, sorted, once (int64; a few milliseconds a list)."""
        cache = self.__dict__.setdefault("_current_docs", {})
        if key not in cache:
            entries = np.array([(e[0], e[1]) for e in self.terms.get(key, {}).values()], dtype=np.int64)
            found = np.zeros(0, dtype=np.int64)
            if len(entries) and self.meta["postings"]:
                starts, lengths = entries[:, 0], entries[:, 1]
                before = np.cumsum(lengths) - lengths  # where each list's part starts in the gathered run
                at = np.repeat(starts - before, lengths) + np.arange(int(lengths.sum()))
                docs = np.frombuffer(self._map, dtype=self._dtype, count=self.meta["postings"])
                found = np.unique(docs[at]).astype(np.int64)
            cache[key] = found
        return cache[key]

    def idf(self, key: str, term: str) -> int:
        """A term's idf × 100 (0 for a term not in the list)."""
        entry = self.terms.get(key, {}).get(term)
        return entry[3] if entry else 0

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
