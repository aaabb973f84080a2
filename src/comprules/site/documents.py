"""Documents as documents: the title and one-line description of each fragment.

A fragment's title comes from the document (what the corpus stage described and the
knowledge base's database holds: :meth:`comprules.store.Store.documents`), or its
``editions.toml``; its description says what it is (forum thread, rulebook extract,
Comprehensive Rules extract), the rules it quotes, the dates its forum posts print,
and its era: the English editions its text agrees with best, as the build's
French ⇄ English alignment found them (stored in the knowledge base's database), else
the English edition the site pairs it with. Words come from the language table (``doc_*``
labels of ``comprules/data/languages.toml``), in the document's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from .. import languages
from ..model import Edition, sort_key

if TYPE_CHECKING:
    from ..store import Store

#: Rules or terms named in a one-line description before "…".
SHOWN = 4


@dataclass(frozen=True)
class DocumentView:
    """What the site prints about one fragment: ``title``, ``kind`` (label),
    ``quotes`` (the sections, else rules, it prints, as ``(number, title)``),
    ``dates`` (ISO), ``era`` (first and last English edition names, or ``None``),
    ``summary`` (one plain line: kind · dates · quotes · era)."""

    name: str
    title: str
    kind: str
    quotes: tuple[tuple[str, str], ...]
    terms: tuple[str, ...]
    dates: tuple[str, ...]
    era: tuple[str, str] | None
    summary: str

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def eras(store: Store | None) -> dict[str, tuple[str, str]]:
    """Document name → (first, last) English edition of its era, as the build's
    alignment across languages found it (:meth:`comprules.store.Store.translations`);
    empty without a knowledge-base database."""
    out: dict[str, tuple[str, str]] = {}
    for old, new, details in store.translations() if store is not None else ():
        era = details.get("era") or [new, new]
        if all(isinstance(e, str) for e in era) and len(era) == 2:
            out[old] = (era[0], era[1])
    return out


def document_view(
    edition: Edition, facts: Mapping[str, Any] | None = None, era: tuple[str, str] | None = None
) -> DocumentView:
    """The :class:`DocumentView` of a fragment: ``facts`` what the knowledge base stored
    of it (:meth:`comprules.store.Store.documents`; without them, a site rendered from
    editions alone, only its title and "Comprehensive Rules extract"), ``era`` its
    English editions."""
    facts = facts or {}
    stem = edition.name.partition("/")[2]
    title = edition.title if edition.title and edition.title != stem else facts.get("title") or stem
    kind = facts.get("kind", "rules")
    terms = tuple(facts.get("terms", ()))
    t = languages.get(edition.lang).labels
    quoted = [(n, ti) for n, ti in facts.get("quotes", ())]
    sections = [(n, ti) for n, ti in quoted if "." not in n]
    quotes = tuple(sections or quoted)
    dates = tuple(sorted(facts.get("dates", ()), key=date.fromisoformat))
    if edition.description:
        summary = edition.description
    else:
        summary = " · ".join(
            p
            for p in (
                t.get(f"doc_{kind}", kind),
                (", ".join(dates[:2]) + (" …" if len(dates) > 2 else "")) if dates else "",
                _quoted(quotes, terms, bool(sections), t),
                f"{t.get('doc_era', 'era')} {_era(era)}" if era else "",
            )
            if p
        )
    return DocumentView(edition.name, title, t.get(f"doc_{kind}", kind), quotes, terms, dates, era, summary)


def _quoted(quotes: tuple[tuple[str, str], ...], terms: tuple[str, ...], sections: bool, t: dict) -> str:
    if terms and not quotes:
        shown = ", ".join(terms[:SHOWN]) + (", …" if len(terms) > SHOWN else "")
        return f"{t.get('doc_terms', 'terms')} {shown}"
    if not quotes:
        return ""
    numbers = sorted({n for n, _ in quotes}, key=sort_key)
    kind = "section" if sections else "rule"
    word = t.get(f"doc_quotes_{kind}" if len(numbers) == 1 else f"doc_quotes_{kind}s", "")
    return f"{word} {_ranges(numbers, sections)}".strip()


def _ranges(numbers: list[str], sections: bool) -> str:
    """``402 403 404 405 406`` → ``402–406``; rules listed (the first :data:`SHOWN`)."""
    if not sections:
        return ", ".join(numbers[:SHOWN]) + (", …" if len(numbers) > SHOWN else "")
    runs: list[list[int]] = []
    for n in (int(x) for x in numbers if x.isdigit()):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _era(era: tuple[str, str]) -> str:
    first, last = (e.partition("/")[2] or e for e in era)
    return first if first == last else f"{first} – {last}"
