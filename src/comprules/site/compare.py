"""Translations ⇄ English: each French document beside the English edition of its era,
each complete translated edition (the Chinese CR) beside the English edition of its date.

The English edition is chosen, and the French units paired with English rules, by
:mod:`comprules.align.crosslang` (structure: same numbers, cited rules, the lexicon); a
Chinese edition is paired by date and aligned by number
(:mod:`comprules.align.translation`); a stored alignment
(``data/alignments/{lang}-en/{doc}..{en}.json``) is used when the build wrote one.
Chinese pages live under ``/compare/zh/{date}..{en-date}/``. Pages: ``/compare/{fr}..{en}/index.html`` (the units outside any section,
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
    from ..align import translation

    english = [e for e in editions if e.lang == "en" and not U.is_fragment(e)]
    if not english:
        return []
    by_name = {e.name: e for e in english}
    out = []
    for fr in editions:
        if fr.lang == "en":
            continue
        stored = _stored(fr, data_dir, by_name, given)
        if stored is not None:
            out.append((fr, by_name[stored.new], stored))
            continue
        if translation.is_translation(fr):
            try:
                choice = translation.english_twin(fr, english)
            except ValueError:  # older than every English edition
                continue
        else:
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
    folder = Path(data_dir) / "alignments" / f"{fr.lang}-en"
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

    from ..align import translation

    pairs = _english_units(en, alignment)
    glossary_units = {f"glossary/{g.slug}": g for g in fr.glossary}
    english_entries: dict[str, Any] = {}
    if translation.is_translation(fr):  # a whole glossary: a page of its own, entries paired in order
        english_entries = {f"glossary/{g.slug}": e for g, e in translation.glossary_pairs(fr, en)}
    groups: dict[str, list[tuple[str, Any]]] = {}
    for r in fr.rules:
        groups.setdefault(_section(fr, r, r.id), []).append((r.id, r))
    for gid, g in glossary_units.items():
        groups.setdefault("glossary" if english_entries else "index", []).append((gid, g))
    sections = sorted((s for s in groups if s != "index"), key=sort_key)
    t = labels(fr.lang)
    index_path = U.compare_page(fr.name, en.name)
    pages = ["index", *sections]
    for k, number in enumerate(pages):
        path = U.compare_page(fr.name, en.name, None if number == "index" else number)
        u = U.Urls(path)
        from .diffs import DiffText

        texts = DiffText(site, path, fr, en)  # the site's one text renderer, references linked
        rows = []
        for unit_id, unit in groups.get(number, []):
            en_id = pairs.get(unit_id)
            en_rule = en.get(en_id) if en_id else None
            entry = english_entries.get(unit_id)
            if entry is not None:
                rows.append({"id": unit_id, "label": unit.term, "kind": "glossary", "fr": unit.text,
                             "fr_href": u(f"{U.glossary_page(fr.name)}#{unit.slug}"), "en_id": entry.term,
                             "en": entry.text, "en_href": u(f"{U.glossary_page(en.name)}#{entry.slug}"),
                             "note": False})
                continue
            if isinstance(unit, Rule):
                fr_text = (unit.title + " — " if unit.title and unit.title != unit.text else "") + unit.text
                label = unit.number if unit.kind in ("section", "rule", "subrule") else ""
                fr_href = (rule_href(site, u, fr, unit.id) if english_entries or translation.is_translation(fr)
                           else u(f"{U.edition_index(fr.name)}#{unit.id}"))
                kind = unit.kind
            else:
                fr_text = f"{unit.term} — {unit.text}"
                label = unit.term
                page = U.glossary_page(fr.name) if english_entries else U.edition_index(fr.name)
                fr_href = u(f"{page}#{unit.slug}")
                kind = "glossary"
            en_text = ((en_rule.title + " — ") if en_rule is not None and en_rule.title
                       and en_rule.title != en_rule.text else "") + (en_rule.text if en_rule is not None else "")
            rows.append({
                "id": unit_id, "label": label, "kind": kind, "fr": texts.text(fr, fr_text), "fr_href": fr_href,
                "en_id": en_id if en_rule is not None else None,
                "en": texts.text(en, en_text),
                "en_href": rule_href(site, u, en, en_id) if en_rule is not None else None,
                "note": kind == "note",
            })
        html = site.templates["compare"].render(
            lang=fr.lang, t=t, u=u, goto=None,
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
                     "paired": paired, "units": len(fr.rules) + len(fr.glossary), "lang": fr.lang,
                     "set": site.sets.get(en.effective.isoformat(), "") if en.effective else ""})
    langs = {fr.lang for fr, _, _ in site.compares}
    lang = next(iter(langs)) if len(langs) == 1 else "en"  # one language: its words; several: English
    t = labels(lang)
    html = site.templates["compare_index"].render(lang=lang, t=t, u=u, goto=None, title=t["compare"], rows=rows,
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
        if fr.lang != "fr":  # the other languages have tables of their own (translation_lexicon_rows)
            continue
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


def translation_lexicon_rows(site: "SiteRenderer", u: U.Urls, lang: str) -> list[dict[str, Any]]:
    """English ⇄ ``lang`` terms of the latest complete translated edition of ``lang``:
    keyword headings, section titles, glossary headwords (:mod:`comprules.align.translation`),
    each linked to both rules (or glossary entries)."""
    from ..align import translation
    from .changes import rule_href

    docs = [(d, en, a) for d, en, a in site.compares if d.lang == lang and translation.is_translation(d)]
    if not docs:
        return []
    doc, en, alignment = max(docs, key=lambda x: x[0].effective)
    rows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for p in translation.translation_terms(doc, en, alignment):
        links = rows.setdefault((p.en, p.fr), [])
        if p.fr_id.startswith("glossary/"):
            links.append((doc.name.partition("/")[2], u(f"{U.glossary_page(doc.name)}#{p.fr_id[9:]}")))
            links.append((f"{en.name.partition('/')[2]}", u(f"{U.glossary_page(en.name)}#{p.en_id[9:]}")))
        else:
            zh_href, en_href = rule_href(site, u, doc, p.fr_id), rule_href(site, u, en, p.en_id)
            if zh_href:
                links.append((p.fr_id, zh_href))
            if en_href:
                links.append((f"{p.en_id} ({en.effective.isoformat()})", en_href))
    return [{"en": en_term, "fr": term, "links": links}
            for (en_term, term), links in sorted(rows.items(), key=lambda kv: (kv[0][0].casefold(), kv[0][1]))]


def render_lexicon(site: "SiteRenderer", out: Path) -> None:
    """``/compare/lexicon.html``: English ⇄ French (the table and the pairs found), then
    English ⇄ each complete translation's language (Chinese: 践踏 ⇄ Trample)."""
    from .. import languages
    from .render import labels

    path = U.lexicon_page()
    u = U.Urls(path)
    tables = []
    french = lexicon_rows(site, u) if any(d.lang == "fr" for d, _, _ in site.compares) else []
    if french:
        tables.append({"lang": "fr", "name": languages.get("fr").name, "t": labels("fr"), "rows": french})
    for lang in sorted({d.lang for d, _, _ in site.compares} - {"fr"}):
        rows = translation_lexicon_rows(site, u, lang)
        if rows:
            tables.append({"lang": lang, "name": languages.get(lang).name, "t": labels(lang), "rows": rows})
    page_lang = tables[0]["lang"] if len(tables) == 1 else "en"
    t = labels(page_lang)
    html = site.templates["lexicon"].render(lang=page_lang, t=t, u=u, goto=None, title=t["lexicon"],
                                            tables=tables, all=u(U.compare_index()))
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
        if fr.lang != "fr":  # a complete translation: the English titles of its headings
            for unit_id, en_id in pairs.items():
                title = en.by_id[en_id].title
                if title:
                    words[unit_id] = [title]
            out[fr.name] = words
            continue
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
