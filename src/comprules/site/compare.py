"""French ⇄ English: each French document beside the English edition of its era.

The English edition is chosen, and the French units paired with English rules, by
:mod:`comprules.align.crosslang` (structure: same numbers, cited rules, the lexicon); a
stored alignment (``data/alignments/fr-en/{fr}..{en}.json``) is used when the build
wrote one. Pages: ``/compare/{fr}..{en}/index.html`` (the units outside any section,
the rulebook's glossary, and the list of sections), one page per section
(``/compare/{fr}..{en}/502.html``) with each French unit beside its English rule,
``/compare/index.html`` and ``/compare/lexicon.html`` (English ⇄ French terms: the
checked-in table and the heading pairs the alignments found, with links).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import Edition, Rule, sort_key
from . import urls as U
from .lineage import alignment_file

if TYPE_CHECKING:
    from .render import SiteRenderer


def compare_pairs(editions: list[Edition], *, data_dir: Path | None = None, given: dict | None = None
                  ) -> list[tuple[Edition, Edition, Any]]:
    """``(french document, English edition, alignment)`` for every French document."""
    try:
        from ..align import crosslang
        from ..align.alignment import Alignment
    except ImportError:  # pragma: no cover - the alignment stage is not installed
        return []
    english = [e for e in editions if e.lang == "en" and not U.is_fragment(e)]
    if not english:
        return []
    by_name = {e.name: e for e in english}
    out = []
    for fr in editions:
        if fr.lang != "fr":
            continue
        stored = _stored(fr, data_dir, by_name, given)
        if stored is not None:
            out.append((fr, by_name[stored.new], stored))
            continue
        choice = crosslang.choose_english(fr, english)
        en = by_name[choice.english]
        out.append((fr, en, crosslang.align_languages(fr, en)))
    return out


def _stored(fr: Edition, data_dir: Path | None, english: dict[str, Edition], given: dict | None):
    if given:
        for (old, new), a in given.items():
            if old == fr.name and new in english:
                return a
    if data_dir is None:
        return None
    folder = Path(data_dir) / "alignments" / "fr-en"
    if not folder.is_dir():
        return None
    from ..align.alignment import Alignment

    stem = fr.name.partition("/")[2]
    for path in sorted(folder.glob(f"{stem}..*.json")):
        en = "en/" + path.stem.partition("..")[2]
        if en in english and path == alignment_file(data_dir, fr.name, en):
            with open(path, encoding="utf-8") as fh:
                return Alignment.from_json(json.load(fh))
    return None


def _section(fr: Edition, rule: Rule | None, unit_id: str) -> str:
    if rule is not None and rule.kind == "section":
        return rule.number
    if rule is not None and rule.section:
        return rule.section
    return "index"


def _english_units(en: Edition, fr_alignment: Any) -> dict[str, str]:
    """French unit id → English rule id (best row)."""
    best: dict[str, Any] = {}
    for row in fr_alignment.rules:
        if row.old is None or row.new is None:
            continue
        if row.old not in best or row.similarity > best[row.old].similarity:
            best[row.old] = row
    out = {k: r.new for k, r in best.items() if r.new in en.by_id}
    for s in getattr(fr_alignment, "sections", ()):
        if s.old and s.new and s.new in en.by_id:
            out.setdefault(s.old, s.new)
    return out


def render_compare(site: "SiteRenderer", out: Path, fr: Edition, en: Edition, alignment: Any) -> None:
    """The pages of one French document beside its English edition."""
    from .changes import rule_href
    from .render import edition_label, labels

    pairs = _english_units(en, alignment)
    glossary_units = {f"glossary/{g.slug}": g for g in fr.glossary}
    groups: dict[str, list[tuple[str, Any]]] = {}
    for r in fr.rules:
        groups.setdefault(_section(fr, r, r.id), []).append((r.id, r))
    for gid, g in glossary_units.items():
        groups.setdefault("index", []).append((gid, g))
    sections = sorted((s for s in groups if s != "index"), key=sort_key)
    t = labels("fr")
    index_path = U.compare_page(fr.name, en.name)
    pages = ["index", *sections]
    for k, number in enumerate(pages):
        path = U.compare_page(fr.name, en.name, None if number == "index" else number)
        u = U.Urls(path)
        rows = []
        for unit_id, unit in groups.get(number, []):
            en_id = pairs.get(unit_id)
            en_rule = en.get(en_id) if en_id else None
            if isinstance(unit, Rule):
                fr_text = (unit.title + " — " if unit.title and unit.title != unit.text else "") + unit.text
                label = unit.number if unit.kind in ("section", "rule", "subrule") else ""
                fr_href = u(f"{U.edition_index(fr.name)}#{unit.id}")
                kind = unit.kind
            else:
                fr_text = f"{unit.term} — {unit.text}"
                label = unit.term
                fr_href = u(f"{U.edition_index(fr.name)}#{unit.slug}")
                kind = "glossary"
            rows.append({
                "id": unit_id, "label": label, "kind": kind, "fr": fr_text, "fr_href": fr_href,
                "en_id": en_id if en_rule is not None else None,
                "en": ((en_rule.title + " — ") if en_rule is not None and en_rule.title
                       and en_rule.title != en_rule.text else "") + (en_rule.text if en_rule is not None else ""),
                "en_href": rule_href(site, u, en, en_id) if en_rule is not None else None,
                "note": kind == "note",
            })
        html = site.templates["compare"].render(
            lang="fr", t=t, u=u, goto=None,
            title=f"{edition_label(fr)} ⇄ {edition_label(en)}" + ("" if number == "index" else f" — {number}"),
            fr=_doc(fr, u), en=_doc(en, u), index=u(index_path), number=number, rows=rows,
            sections=[(s, u(U.compare_page(fr.name, en.name, s))) for s in sections] if number == "index" else [],
            prev=u(U.compare_page(fr.name, en.name, None if pages[k - 1] == "index" else pages[k - 1])) if k else None,
            next=u(U.compare_page(fr.name, en.name, pages[k + 1])) if k + 1 < len(pages) else None,
            all=u(U.compare_index()),
        )
        site.write(out, path, html)


def _doc(e: Edition, u: U.Urls) -> dict[str, str]:
    from .render import edition_label

    return {"name": e.name, "label": edition_label(e), "title": e.title or e.name, "href": u.edition(e.name)}


def render_compare_index(site: "SiteRenderer", out: Path) -> None:
    from .render import labels

    path = U.compare_index()
    u = U.Urls(path)
    rows = []
    for fr, en, alignment in site.compares:
        paired = len(_english_units(en, alignment))
        rows.append({"fr": _doc(fr, u), "en": _doc(en, u), "href": u(U.compare_page(fr.name, en.name)),
                     "paired": paired, "units": len(fr.rules) + len(fr.glossary),
                     "set": site.sets.get(en.effective.isoformat(), "") if en.effective else ""})
    t = labels("fr")
    html = site.templates["compare_index"].render(lang="fr", t=t, u=u, goto=None, title=t["compare"], rows=rows,
                                                  lexicon=u(U.lexicon_page()))
    site.write(out, path, html)


def lexicon_rows(site: "SiteRenderer", u: U.Urls) -> list[dict[str, Any]]:
    """English ⇄ French terms: the checked-in table, and the heading pairs found."""
    from .changes import rule_href

    found: dict[tuple[str, str], list[tuple[str, str]]] = {}
    try:
        from ..align import crosslang
    except ImportError:  # pragma: no cover
        return []
    for fr, en, alignment in site.compares:
        for pair in crosslang.aligned_terms(fr, en, alignment):
            links = found.setdefault((pair.en, pair.fr), [])
            fr_anchor = pair.fr_id.partition("/")[2] if pair.fr_id.startswith("glossary/") else pair.fr_id
            href = u(f"{U.edition_index(fr.name)}#{fr_anchor}")
            links.append((fr.name.partition("/")[2][:3], href))
            en_href = rule_href(site, u, en, pair.en_id)
            if en_href:
                links.append((f"{pair.en_id} ({en.effective.isoformat()})", en_href))
    table = crosslang.lexicon()
    rows = []
    keys = {(en.casefold(), fr.casefold()) for en, frs in table.items() for fr in frs}
    for en, frs in sorted(table.items(), key=lambda kv: kv[0].casefold()):
        for fr in frs:
            rows.append({"en": en, "fr": fr, "links": found.get((en, fr), []), "found": (en, fr) in found})
    for (en, fr), links in sorted(found.items()):
        if (en.casefold(), fr.casefold()) not in keys:
            rows.append({"en": en, "fr": fr, "links": links, "found": True})
    rows.sort(key=lambda r: r["en"].casefold())
    return rows


def render_lexicon(site: "SiteRenderer", out: Path) -> None:
    from .render import labels

    path = U.lexicon_page()
    u = U.Urls(path)
    t = labels("fr")
    html = site.templates["lexicon"].render(lang="fr", t=t, u=u, goto=None, title=t["lexicon"],
                                            rows=lexicon_rows(site, u), all=u(U.compare_index()))
    site.write(out, path, html)


def english_words(site: "SiteRenderer") -> dict[str, dict[str, list[str]]]:
    """French document → unit id → the English words that name it (its aligned
    English heading, and the English names of the lexicon terms it prints): indexed
    with the French text, so that "trample" finds "Piétinement"."""
    try:
        from ..align import crosslang
    except ImportError:  # pragma: no cover
        return {}
    import re

    fr_to_en = crosslang.lexicon_fr()
    patterns = [(re.compile(r"(?<!\w)" + re.escape(fr) + r"(?!\w)", re.IGNORECASE), ens)
                for fr, ens in fr_to_en.items() if len(fr) >= 3]
    out: dict[str, dict[str, list[str]]] = {}
    for fr, en, alignment in site.compares:
        pairs = _english_units(en, alignment)
        words: dict[str, list[str]] = {}
        units = [(r.id, (r.title or "") + " " + r.text) for r in fr.rules]
        units += [(f"glossary/{g.slug}", g.term + " " + g.text) for g in fr.glossary]
        for unit_id, text in units:
            found: list[str] = []
            en_rule = en.get(pairs[unit_id]) if unit_id in pairs else None
            if en_rule is not None and en_rule.title:
                found.append(en_rule.title)
            for pattern, ens in patterns:
                if pattern.search(text):
                    found.extend(e for e in ens if e not in found)
            if found:
                words[unit_id] = found
        out[fr.name] = words
    return out
