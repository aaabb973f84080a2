"""What the header's go-to box knows, as scripts the pages load from disk when needed.

The box (``static/goto.js``) takes a rule number in any usual form, a keyword or
glossary term, "layer 7", an old number, or a Yawgatog / mtg.wtf link. Numbers of the
page's own edition are read from its lineage table (``lineage/{lang}/{date}.js``, the
edition switcher's, which lists every id of the edition); the rest comes from two
kinds of script written here, each loaded only when a query needs it:

* ``goto/{lang}/{date}.js`` — the edition's *words*: each keyword or rule title
  ("morph" → ``702.37``), section title, glossary headword (→ the first rule its
  definition cites, else the entry), and labels such as "layer 7" (→ ``613.1g``,
  whose text opens "Layer 7:"), folded to lower case;
* ``goto/{lang}/n{digit}.js`` — every number printed in any edition of the language,
  by its first digit: the runs of editions that printed it, each with the number's
  *lineage key* (:class:`~comprules.site.lineage.Lineage`), so that "502.26a" on
  2026-08-07 finds Morph's key ``702.37a`` and lands on 702.37a, and "702.999" is
  known to exist nowhere.

Formats (JSON inside ``window.CR_GOTO = window.CR_GOTO || {}`` assignments)::

    goto/en/2026-08-07.js   CR_GOTO["en/2026-08-07"] = {"w": {"morph": "702.37", …}}
    goto/en/n5.js           CR_GOTO["en:5"] = {"d": ["1999-04-23", …], "n": {"502.26a": [["702.37a", 3, 29]]}}

where ``3, 29`` index ``d`` (the language's editions, oldest first): the first and
last edition of the run. A key equal to the number is written ``""``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from ..model import Edition, fold_name

#: A subrule that opens with a label and a number, "Layer 7:", "Layer 7a:".
_LABEL = re.compile(r"^([^\W\d_][^\W\d_]+) (\d+[a-z]?):")


def fold(text: str) -> str:
    """How the box compares words: lower case, accents, quotes and periods dropped, spaces
    collapsed (a trial: "pietinement" was searched for, "Piétinement" went to its entry).
    ``goto.js`` ``fold`` is the same.

    >>> fold("  “Morph.” "), fold("Active Player, Nonactive Player Order"), fold("Piétinement")
    ('morph', 'active player, nonactive player order', 'pietinement')
    """
    plain = _ACCENTS.sub("", unicodedata.normalize("NFD", fold_name(text)))
    return " ".join(re.sub(r"[\"'.]", "", unicodedata.normalize("NFC", plain)).split())


#: The combining accents of Latin letters (U+0300–U+036F), dropped from a word decomposed.
_ACCENTS = re.compile("[\u0300-\u036f]")


def words(edition: Edition, extract: Any = None, glossary_pages: dict[str, str] | None = None) -> dict[str, str]:
    """Folded word → rule id, or a glossary entry as ``{page}#{slug}`` (its part of the
    glossary: ``glossary_pages``, slug → site path), in ``edition``.

    Order of precedence: rule and keyword titles (``702.37. Morph``), labels of
    subrules ("layer 7" → ``613.1g``), section titles, then glossary headwords, each
    sending to the first rule its definition cites ("Morph … See rule 702.37") or to
    the entry itself. Plural forms of titles are added ("layers" is not: only
    headwords and titles). ``extract`` is the reference extractor
    (``comprules.references.extract``) used on glossary definitions.
    """
    out: dict[str, str] = {}

    def add(word: str, target: str) -> None:
        key = fold(word)
        if key and len(key) > 1 and not key.replace(".", "").isdigit():
            out.setdefault(key, target)

    for r in edition.rules:
        if r.kind == "rule" and r.title:
            add(r.title, r.id)
    for r in edition.rules:
        if r.kind == "subrule":
            m = _LABEL.match(r.text)
            if m:
                add(f"{m.group(1)} {m.group(2)}", r.id)
    for r in edition.rules:
        if r.kind == "section" and r.title:
            add(r.title, r.id)
    pages = glossary_pages or {}
    for g in edition.glossary:
        target = f"{(pages.get(g.slug) or 'glossary.html').rpartition('/')[2]}#{g.slug}"
        if extract is not None and g.text:
            for ref in extract(g.text, edition.lang):
                if ref.kind != "glossary" and ref.targets and ref.targets[0] in edition.by_id:
                    target = ref.targets[0]
                    break
        for name in (g.term, *g.aliases, *(p.strip() for p in g.term.split(",") if len(g.term.split(",")) > 1)):
            add(name, target)
    for key, target in list(out.items()):  # "morphs", "abilities"
        plural = key[:-1] + "ies" if key.endswith("y") and key[-2:-1] not in "aeiou" else key + "s"
        out.setdefault(plural, target)
    return out


def number_runs(chain: Sequence[Edition], keys: dict[str, dict[str, str]]) -> dict[str, list[list]]:
    """Every number printed in a chain of editions (oldest first) → its runs
    ``[key, first, last]``: consecutive editions that printed it with the same lineage
    key (``keys[edition][rule id]``), indices into ``chain``; a key equal to the
    number is ``""``. Duplicated numbers (``702.175~2``) count as their first copy."""
    runs: dict[str, list[list]] = {}
    for i, edition in enumerate(chain):
        ed_keys = keys.get(edition.name, {})
        for r in edition.rules:
            if "~" in r.id or "¶" in r.id or r.kind == "chapter":
                continue
            key = ed_keys.get(r.id, r.id)
            key = "" if key == r.number else key
            mine = runs.setdefault(r.number, [])
            if mine and mine[-1][0] == key and mine[-1][2] == i - 1:
                mine[-1][2] = i
            else:
                mine.append([key, i, i])
    return runs


def scripts(chain: Sequence[Edition], keys: dict[str, dict[str, str]]) -> dict[str, str]:
    """The ``goto/{lang}/n{digit}.js`` scripts of a language's chain: path → text."""
    lang = chain[0].lang
    dates = [e.effective.isoformat() if e.effective else e.name for e in chain]
    by_digit: dict[str, dict[str, list]] = {}
    for number, runs in number_runs(chain, keys).items():
        by_digit.setdefault(number[0], {})[number] = runs
    out = {}
    for digit, numbers in sorted(by_digit.items()):
        data = {"d": dates, "n": dict(sorted(numbers.items()))}
        out[f"goto/{lang}/n{digit}.js"] = _assign(f"{lang}:{digit}", data)
    return out


def word_script(
    edition: Edition,
    extract: Any = None,
    glossary_pages: dict[str, str] | None = None,
    found: dict[str, str] | None = None,
) -> tuple[str, str]:
    """``(path, text)`` of an edition's ``goto/{lang}/{date}.js``; ``found``: its
    :func:`words`, when already made."""
    table = found if found is not None else words(edition, extract, glossary_pages)
    return f"goto/{edition.name}.js", _assign(edition.name, {"w": table})


def _assign(name: str, data: dict) -> str:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return f"(window.CR_GOTO=window.CR_GOTO||{{}})[{json.dumps(name)}]={body};\n"


def chains_of(editions: Iterable[Edition]) -> list[list[Edition]]:
    """The dated editions of each language, oldest first (what ``n{digit}.js`` covers)."""
    by: dict[str, list[Edition]] = {}
    for e in editions:
        if e.kind != "fragment" and e.effective is not None:
            by.setdefault(e.lang, []).append(e)
    return [sorted(eds, key=lambda e: e.effective or date.min) for _, eds in sorted(by.items())]
