"""The side table: per whoosh document number, what filters, look-ups and collapsing need.

whoosh stores each distinct text once; the table says, per document number, its
language, kind, number, section, which editions hold it (``members``, edition ids into
``editions``; empty for a document deleted by an incremental build), its lineage (the
group of documents that are versions of one rule, for ``--all-editions``), and maps
headwords and numbers to documents. Written as one pickle (``table.pkl``) per index
generation, read once per open index.
"""

from __future__ import annotations

import pickle
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..model import parent_number
from .documents import GLOSSARY
from .languages import LANGUAGES, field_lang
from .text import heading_key

TABLE_FILE = "table.pkl"


@dataclass
class DocTable:
    """Columns indexed by whoosh document number."""

    #: Edition names; an edition's id is its position.
    editions: list[str] = field(default_factory=list)
    lang: list[str] = field(default_factory=list)
    kind: list[str] = field(default_factory=list)
    section: list[str] = field(default_factory=list)
    number: list[str] = field(default_factory=list)
    rid: list[str] = field(default_factory=list)
    #: Headword and aliases of a glossary entry, title of a rule (for exact headword matches).
    names: list[tuple[str, ...]] = field(default_factory=list)
    examples: list[bool] = field(default_factory=list)
    #: The rules a glossary definition cites ("See rule 702.26").
    cites: list[tuple[str, ...]] = field(default_factory=list)
    #: Edition ids holding the document (empty: deleted).
    members: list[tuple[int, ...]] = field(default_factory=list)
    lineage: list[int] = field(default_factory=list)
    #: A rule that is only its heading (702.21 "Ward": no text, no examples).
    heading: list[bool] = field(default_factory=list)
    #: The keyword and the word before its placeholder that a keyword's rule prints
    #: (:data:`KEYWORD_SECTIONS`: "protection from" of 702.16a's “Protection from
    #: [quality]”), folded.
    forms: list[tuple[str, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.kind)

    def append(self, doc: dict, members: tuple[int, ...]) -> int:
        """Add one document (a dict from :func:`.documents.units_of`); its number."""
        self.lang.append(doc["lang"])
        self.kind.append(doc["kind"])
        self.section.append(doc["section"])
        self.number.append(doc["number"])
        self.rid.append(doc["rid"])
        self.names.append(tuple(doc["names"]))
        self.examples.append(bool(doc["examples"]))
        self.cites.append(tuple(doc["cites"]))
        self.members.append(members)
        self.heading.append(doc["kind"] in HEADING_KINDS and not doc["text"])
        self.forms.append(keyword_forms(doc["text"]) if doc["rid"][:4] in KEYWORD_SECTIONS else ())
        self.lineage.append(len(self.lineage))
        return len(self.kind) - 1

    def live(self, docnum: int) -> bool:
        return bool(self.members[docnum])

    def live_count(self) -> int:
        return sum(1 for m in self.members if m)

    def save(self, directory: Path) -> None:
        """Write the columns, and the headword look-ups (stemming 7,500 headwords at each
        ``comprules search`` would cost 40 ms)."""
        for name in ("heads", "stemmed_heads", "by_number", "children", "lineage_editions"):
            self.__dict__.pop(name, None)  # built again from the final columns
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_") and k in _COLUMNS}
        state["_looked_up"] = {"heads": self.heads, "stemmed_heads": self.stemmed_heads}
        with open(directory / TABLE_FILE, "wb") as out:
            pickle.dump(state, out, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, directory: Path) -> "DocTable":
        with open(directory / TABLE_FILE, "rb") as f:
            state = pickle.load(f)
        looked_up = state.pop("_looked_up", {})
        table = cls(**state)
        table.__dict__.update(looked_up)
        return table

    # --- look-ups (built on first use) -------------------------------------------------

    @cached_property
    def by_number(self) -> dict[str, list[int]]:
        """Printed number and unit id → live documents (``702.175`` finds both copies)."""
        out: dict[str, list[int]] = defaultdict(list)
        for d, (number, rid) in enumerate(zip(self.number, self.rid)):
            if self.members[d] and self.kind[d] != GLOSSARY:
                out[number].append(d)
                if rid != number:
                    out[rid].append(d)
        return dict(out)

    @cached_property
    def children(self) -> dict[str, list[int]]:
        """Number → the live documents one level below it (``702`` → ``702.1``…)."""
        out: dict[str, list[int]] = defaultdict(list)
        for d, number in enumerate(self.number):
            if self.members[d] and self.kind[d] != GLOSSARY and "¶" not in number:
                parent = parent_number(number)
                if parent is not None:
                    out[parent].append(d)
        return dict(out)

    @cached_property
    def heads(self) -> dict[str, list[int]]:
        """Headword key (:func:`.analysis.heading_key`) → live glossary entries and titled units."""
        out: dict[str, list[int]] = defaultdict(list)
        for d, names in enumerate(self.names):
            if names and self.members[d]:
                for key in dict.fromkeys(heading_key(n) for n in names):  # in the names' order, not a set's
                    if key:
                        out[key].append(d)
        return dict(out)

    @cached_property
    def stemmed_heads(self) -> dict[tuple[str, ...], list[int]]:
        """Headwords by their stemmed words in the document's language ("state-based action")."""
        out: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for key, docs in self.heads.items():
            for d in docs:
                stems = stem_key(key, self.lang[d])
                if stems:
                    out[stems].append(d)
        return dict(out)

    @cached_property
    def keyword_forms(self) -> dict[str, frozenset[str]]:
        """Language → the keywords printed with a word before their placeholder
        (:attr:`forms`): ``{"en": {"protection from", "hexproof from", …}}``."""
        out: dict[str, set[str]] = defaultdict(set)
        for d, forms in enumerate(self.forms):
            if forms and self.members[d]:
                out[self.lang[d]].update(forms)
        return {k: frozenset(v) for k, v in out.items()}

    @cached_property
    def lineage_editions(self) -> dict[int, frozenset[int]]:
        """Lineage → the editions holding a version of it."""
        out: dict[int, set[int]] = defaultdict(set)
        for d, members in enumerate(self.members):
            if members:
                out[self.lineage[d]].update(members)
        return {k: frozenset(v) for k, v in out.items()}


_COLUMNS = (
    "editions",
    "lang",
    "kind",
    "section",
    "number",
    "rid",
    "names",
    "examples",
    "cites",
    "members",
    "lineage",
    "heading",
    "forms",
)
#: Where keywords have their titled rules: keyword actions and abilities, and the keyword
#: abilities of the editions before 2009 (502: 502.7 Protection in 2005-08-01).
#: ``search.js`` ``keywordHeads`` tests the same numbers.
KEYWORD_SECTIONS = ("701.", "702.", "502.")
#: The kinds of unit that may be a heading only (:attr:`DocTable.heading`).
HEADING_KINDS = frozenset({"rule", "subrule"})


#: A keyword printed in quotes with a word before its placeholder: “Protection from
#: [quality]”, “Affinity for [text]”, “Splice onto [subtype] [cost]”, “Partner with [name]”.
_KEYWORD_FORM = re.compile(r"[“\"]([^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*){0,2}) (from|for|onto|with) \[")
#: The same in Chinese, where the keyword comes last, after the placeholder and the word
#: before it, if any: “反[特性]保护” (702.16a), “[文字]共鸣” (702.41a).
_HAN_KEYWORD_FORM = re.compile(r"[“\"]([\u3400-\u9fff]{0,2})\[[^\]\n]*\]([\u3400-\u9fff]{1,4})[”\"]")
#: How a Chinese form is stored: the word before the placeholder, this, the keyword.
HAN_PLACEHOLDER = "[]"


def keyword_forms(text: str) -> tuple[str, ...]:
    """The keyword forms a rule's text prints (:data:`_KEYWORD_FORM`), folded:
    ``("protection from",)``; a Chinese one as its two sides of the placeholder
    (:data:`_HAN_KEYWORD_FORM`): ``("反[]保护",)``."""
    if "[" not in text:
        return ()
    forms = [heading_key(f"{m[1]} {m[2]}") for m in _KEYWORD_FORM.finditer(text)]
    forms += [f"{m[1]}{HAN_PLACEHOLDER}{m[2]}" for m in _HAN_KEYWORD_FORM.finditer(text)]
    return tuple(dict.fromkeys(forms))


def stem_key(text: str, lang: str) -> tuple[str, ...]:
    """The stemmed words of ``text`` in ``lang``, stop words left out."""
    language = LANGUAGES[field_lang(lang)]
    return tuple(t for t in (language.term(w) for w in text.split()) if t)
