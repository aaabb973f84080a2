"""Translations ⇄ English: each French document beside the English edition of its era,
each complete translated edition (the Chinese CR) beside the English edition of its date.

The English edition is chosen, and the French units paired with English rules, by
:mod:`comprules.align.crosslang` (structure: same numbers, cited rules, the lexicon); a
Chinese edition is paired by date and aligned by number, its glossary entries with the
English ones (:mod:`comprules.align.translation`). The site computes none of it: it
reads the alignments, the term pairs and the glossary pairs from the knowledge base's
database (:class:`CompareFacts`); a site rendered without one has no compare pages.
Chinese pages live under ``/compare/zh/{date}..{en-date}/``. Pages: ``/compare/{fr}..{en}/index.html`` (the units outside any section,
the rulebook's glossary, and the list of sections), one page per section
(``/compare/{fr}..{en}/502.html``) with each French unit beside its English rule,
``/compare/index.html`` and ``/compare/lexicon.html`` (English ⇄ French terms: the
checked-in table and the heading pairs the alignments found, with links).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..model import Edition, Rule, TermPair, is_translation, sort_key
from . import urls as U

if TYPE_CHECKING:
    from ..store import Store
    from .render import SiteRenderer


def compare_pairs(
    editions: list[Edition], *, store: Store | None = None, given: dict | None = None
) -> list[tuple[Edition, Edition, Any]]:
    """``(document, English edition, alignment)`` for every non-English document that the
    knowledge base's database (``store``) aligned with an English edition among
    ``editions``, or that ``given`` alignments (``(old, new)`` → alignment) pair."""
    english = [e for e in editions if e.lang == "en" and not U.is_fragment(e)]
    if not english:
        return []
    by_name = {e.name: e for e in english}
    out = []
    for fr in editions:
        if fr.lang == "en":
            continue
        stored = _stored(fr, store, by_name, given)
        if stored is not None:
            out.append((fr, by_name[stored.new], stored))
    return out


@dataclass
class CompareFacts:
    """What the compare and lexicon pages show of the alignment stage's work, read from
    the database: the checked-in lexicon (English term → French names, in its order),
    the term pairs found in the French documents and in the latest translated edition of
    each language, and each translation's glossary entries paired with its
    English twin's (document → ``[(its slug, English slug)]``)."""

    table: list[tuple[str, list[str]]] = field(default_factory=list)
    terms: list[TermPair] = field(default_factory=list)
    glossary: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def read(cls, store: Store | None) -> "CompareFacts":
        """The facts of ``store`` (empty without a database)."""
        if store is None:
            return cls()
        table = [(en, list(frs)) for en, frs in store.lexicon("table") or []]
        found = [*(store.lexicon("aligned") or []), *(t for ts in (store.lexicon("latest") or {}).values() for t in ts)]
        terms = [TermPair.from_json(t) for t in found]
        glossary = {}
        for old, _new, details in store.translations():
            if details.get("glossary"):
                glossary[old] = [(a, b) for a, b in details["glossary"]]
        return cls(table, terms, glossary)

    def terms_of(self, doc: str) -> list[TermPair]:
        """The term pairs found in document ``doc``, in the order found."""
        return [t for t in self.terms if t.fr_edition == doc]


def _stored(fr: Edition, store: Store | None, english: dict[str, Edition], given: dict | None):
    """The alignment of a document with its English edition: given, else stored in the
    knowledge base's database (the first of ``english`` it was aligned with)."""
    if given:
        for (old, new), a in given.items():
            if old == fr.name and new in english:
                return a
    if store is None:
        return None
    for en in store.aligned_into(fr.name, "en"):
        if en in english:
            return store.alignment(fr.name, en)
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


def _shown(page: str, t: dict[str, str]) -> str:
    """A side-by-side page's name as its heading says it: ``702``, ``702-2``; ``glossary-2``
    in the page's language (``词汇表 (2)``, a trial: Chinese pages said "glossary-2")."""
    head, _sep, part = page.partition("-")
    if head != "glossary":
        return page
    return t["glossary"] + (f" ({part})" if part else "")


#: The id prefix of a row of an English unit that a translation lacks.
UNTRANSLATED = "en-"


def _untranslated(fr: Edition, en: Edition, pairs: dict[str, str], entries: dict[str, Any]) -> dict[str, list]:
    """Translation unit id → the English rules (or glossary entries) the translation
    lacks that follow, in the English order, the English unit it is paired with (the
    rules before any paired one go after the translation's first rule)."""
    out: dict[str, list] = {}
    back = {e: f for f, e in pairs.items()}
    at = next((r.id for r in fr.rules if r.kind in ("rule", "subrule")), None)
    for r in en.rules:
        if r.kind not in ("rule", "subrule"):
            continue
        if r.id in back:
            at = back[r.id]
        elif at is not None:
            out.setdefault(at, []).append(r)
    if not entries:  # no glossary paired: none shown beside
        return out
    back_g = {e.slug: f for f, e in entries.items()}
    at = f"glossary/{fr.glossary[0].slug}" if fr.glossary else None
    for g in en.glossary:
        if g.slug in back_g:
            at = back_g[g.slug]
        elif at is not None:
            out.setdefault(at, []).append(g)
    return out


def _fallback(site: "SiteRenderer", en: Edition, u: U.Urls):
    """The link of a French citation of a rule the document does not quote: the rule
    in the English edition beside it (``class="xl"``, see :mod:`.markdown`)."""
    layout = site.layout(en)[0]

    def fallback(kind: str, number: str) -> str | None:
        path = layout.target(kind, number) if kind != "glossary" else None
        return u(path) if path else None

    return fallback


#: Rows per page of a translation's lexicon (Chinese: ~830 terms, two pages).
LEXICON_ROWS = 450
#: Characters of text (both columns) per side-by-side page before it is cut into parts
#: (702 of a complete translation beside its English: 4 parts, each under 150 KB).
COMPARE_BUDGET = 55_000


def _weight(unit: Any, english: Any) -> int:
    """Characters one row puts on a page: both texts and some markup."""
    return len(unit.text or "") + len(getattr(english, "text", "") or "") + 250


def _split_pages(groups: dict[str, list], weight) -> dict[str, list]:
    """Each page's rows cut into balanced parts of at most ~:data:`COMPARE_BUDGET`
    (``702``, ``702-2``…; the whole glossary of a translation ``glossary``, ``glossary-2``…)."""
    out: dict[str, list] = {}
    for name, rows in groups.items():
        weights = [weight(unit_id, unit) for unit_id, unit in rows]
        total = sum(weights)
        count = max(1, -(-total // COMPARE_BUDGET)) if name != "index" else 1
        parts: list[list] = [[] for _ in range(count)]
        done = 0
        for row, w in zip(rows, weights):
            parts[min(count - 1, int((done + w / 2) * count // max(total, 1)))].append(row)
            done += w
        for i, part in enumerate(p for p in parts if p):
            out[name if i == 0 else f"{name}-{i + 1}"] = part
    return out


def render_compare(site: "SiteRenderer", out: Path, fr: Edition, en: Edition, alignment: Any) -> None:
    """The pages of one French document beside its English edition, full width, both
    texts with their references linked."""
    from .changes import rule_href
    from .labels import edition_label, labels

    pairs = _english_units(en, alignment)
    glossary_units = {f"glossary/{g.slug}": g for g in fr.glossary}
    english_entries: dict[str, Any] = {}
    if is_translation(fr):  # a whole glossary: a page of its own, entries paired in order
        theirs = {g.slug: g for g in en.glossary}
        english_entries = {
            f"glossary/{a}": theirs[b] for a, b in site.compare_facts.glossary.get(fr.name, ()) if b in theirs
        }
    # a complete translation: the English rules and entries it lacks too, each after the
    # unit its English predecessor is paired with (a trial: what the translation lacks,
    # what a translator needs to see, was on no page)
    lacking = _untranslated(fr, en, pairs, english_entries) if is_translation(fr) else {}
    groups: dict[str, list[tuple[str, Any]]] = {}
    for r in fr.rules:
        group = groups.setdefault(_section(fr, r, r.id), [])
        group.append((r.id, r))
        group.extend((UNTRANSLATED + e.id, e) for e in lacking.get(r.id, ()))
    for gid, g in glossary_units.items():
        group = groups.setdefault("glossary" if english_entries else "index", [])
        group.append((gid, g))
        group.extend((UNTRANSLATED + "glossary/" + e.slug, e) for e in lacking.get(gid, ()))
    groups = _split_pages(
        groups, lambda unit_id, unit: _weight(unit, english_entries.get(unit_id) or en.get(pairs.get(unit_id) or ""))
    )
    sections = sorted((s for s in groups if s != "index" and not s.startswith("glossary")), key=sort_key)
    sections += [s for s in groups if s.startswith("glossary")]
    t = labels(fr.lang)
    index_path = U.compare_page(fr.name, en.name)
    fr_glossary, en_glossary = site.layout(fr)[0].glossary_pages, site.layout(en)[0].glossary_pages
    pages = ["index", *sections]
    for k, number in enumerate(pages):
        path = U.compare_page(fr.name, en.name, None if number == "index" else number)
        u = U.Urls(path)
        from .diffs import DiffText

        texts = DiffText(site, path, fr, en)  # the site's one text renderer, references linked
        texts.env(fr)["fallback"] = _fallback(site, en, u)
        rows = []
        for unit_id, unit in groups.get(number, []):
            if unit_id.startswith(UNTRANSLATED):  # an English unit the translation lacks
                if isinstance(unit, Rule):
                    label, href = unit.id, rule_href(site, u, en, unit.id)
                    text = (unit.title + " — " if unit.title and unit.title != unit.text else "") + unit.text
                else:
                    label = unit.term
                    href = u(f"{en_glossary.get(unit.slug) or U.glossary_page(en.name)}#{unit.slug}")
                    text = unit.text
                rows.append(
                    {
                        "id": unit_id,
                        "label": "",
                        "kind": "untranslated",
                        "fr": Markup('<span class="muted">{}</span>').format(t["untranslated"]),
                        "fr_href": None,
                        "en_id": label,
                        "en": texts.text(en, text),
                        "en_href": href,
                        "note": False,
                    }
                )
                continue
            en_id = pairs.get(unit_id)
            en_rule = en.get(en_id) if en_id else None
            entry = english_entries.get(unit_id)
            if entry is not None:
                rows.append(
                    {
                        "id": unit_id,
                        "label": unit.term,
                        "kind": "glossary",
                        "fr": texts.text(fr, unit.text),
                        "fr_href": u(f"{fr_glossary.get(unit.slug) or U.glossary_page(fr.name)}#{unit.slug}"),
                        "en_id": entry.term,
                        "en": texts.text(en, entry.text),
                        "en_href": u(f"{en_glossary.get(entry.slug) or U.glossary_page(en.name)}#{entry.slug}"),
                        "note": False,
                    }
                )
                continue
            if isinstance(unit, Rule):
                fr_text = (unit.title + " — " if unit.title and unit.title != unit.text else "") + unit.text
                label = unit.number if unit.kind in ("section", "rule", "subrule") else ""
                fr_href = (
                    rule_href(site, u, fr, unit.id)
                    if english_entries or is_translation(fr)
                    else u(f"{U.edition_index(fr.name)}#{unit.id}")
                )
                kind = unit.kind
            else:
                fr_text = f"{unit.term} — {unit.text}"
                label = unit.term
                page = U.glossary_page(fr.name) if english_entries else U.edition_index(fr.name)
                fr_href = u(f"{page}#{unit.slug}")
                kind = "glossary"
            en_text = (
                (en_rule.title + " — ")
                if en_rule is not None and en_rule.title and en_rule.title != en_rule.text
                else ""
            ) + (en_rule.text if en_rule is not None else "")
            rows.append(
                {
                    "id": unit_id,
                    "label": label,
                    "kind": kind,
                    "fr": texts.text(fr, fr_text),
                    "fr_href": fr_href,
                    "en_id": en_id if en_rule is not None else None,
                    "en": texts.text(en, en_text),
                    "en_href": rule_href(site, u, en, en_id) if en_rule is not None else None,
                    "note": kind == "note",
                }
            )
        html = site.templates["compare"].render(
            lang=fr.lang,
            t=t,
            u=u,
            goto=None,
            title=f"{edition_label(fr)} ⇄ {edition_label(en)}"
            + ("" if number == "index" else f" — {_shown(number, t)}"),
            heading=_shown(number, t),
            fr=_doc(fr, u),
            en=_doc(en, u),
            index=u(index_path),
            number=number,
            rows=rows,
            sections=[(s, u(U.compare_page(fr.name, en.name, s))) for s in sections] if number == "index" else [],
            prev=u(U.compare_page(fr.name, en.name, None if pages[k - 1] == "index" else pages[k - 1])) if k else None,
            next=u(U.compare_page(fr.name, en.name, pages[k + 1])) if k + 1 < len(pages) else None,
            all=u(U.compare_index()),
        )
        site.write(out, path, html)


def _doc(e: Edition, u: U.Urls) -> dict[str, str]:
    from .labels import edition_label

    return {"name": e.name, "label": edition_label(e), "title": e.title or e.name, "href": u.edition(e.name)}


def render_compare_index(site: "SiteRenderer", out: Path) -> None:
    from .labels import labels

    path = U.compare_index()
    u = U.Urls(path)
    rows = []
    for fr, en, alignment in site.compares:
        paired = len(_english_units(en, alignment))
        rows.append(
            {
                "fr": _doc(fr, u),
                "en": _doc(en, u),
                "href": u(U.compare_page(fr.name, en.name)),
                "paired": paired,
                "units": len(fr.rules) + len(fr.glossary),
                "lang": fr.lang,
                "set": site.sets.get(en.effective.isoformat(), "") if en.effective else "",
            }
        )
    langs = {fr.lang for fr, _, _ in site.compares}
    lang = next(iter(langs)) if len(langs) == 1 else "en"  # one language: its words; several: English
    t = labels(lang)
    html = site.templates["compare_index"].render(
        lang=lang, t=t, u=u, goto=None, title=t["compare"], rows=rows, lexicon=u(U.lexicon_page())
    )
    site.write(out, path, html)


def lexicon_rows(site: "SiteRenderer", u: U.Urls) -> list[dict[str, Any]]:
    """English ⇄ French terms: the checked-in table and the heading pairs the alignments
    found, one row per term (singular and plural merged), each side linked: the English
    term to its glossary entry or rule in the latest English edition, the French one to
    the document that prints it; ``links``: the other places the pair was found."""
    from .changes import rule_href
    from .labels import edition_label

    found: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for fr, en, _alignment in site.compares:
        if fr.lang != "fr":  # the other languages have tables of their own (translation_lexicon_rows)
            continue
        for pair in site.compare_facts.terms_of(fr.name):
            links = found.setdefault((pair.en, pair.fr), [])
            fr_anchor = pair.fr_id.partition("/")[2] if pair.fr_id.startswith("glossary/") else pair.fr_id
            links.append((edition_label(fr), u(f"{U.edition_index(fr.name)}#{fr_anchor}"), "fr"))
            en_href = rule_href(site, u, en, pair.en_id)
            if en_href:
                links.append((f"{pair.en_id} ({en.effective.isoformat()})", en_href, "en"))
    pairs = [(en, fr) for en, frs in site.compare_facts.table for fr in frs]
    pairs += [key for key in found if key not in set(pairs)]
    # every French document, paired with an English edition or not (one beside no English
    # edition of its era still prints its terms)
    french = [d for d in site.editions if d.lang == "fr"]
    find_en, find_fr = _english_finder(site, u), _document_finder(site, u, french)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for en, fr in pairs:
        key = (_singular(en), _singular(fr))
        row = rows.get(key)
        links = found.get((en, fr), [])
        if row is None:
            rows[key] = row = {"en": en, "fr": fr, "en_href": None, "fr_href": None, "links": []}
        elif len(en) < len(row["en"]):  # the singular names the row
            row["en"], row["fr"] = en, fr
        row["links"].extend(link for link in links if link not in row["links"])
    for row in rows.values():
        row["en_href"] = find_en(row["en"])
        doc_links = [link for link in row["links"] if link[2] == "fr"]
        row["fr_href"] = doc_links[0][1] if doc_links else find_fr(row["fr"])
        row["links"] = [
            (label, href) for label, href, _ in row["links"] if href not in (row["en_href"], row["fr_href"])
        ]
    return sorted(rows.values(), key=lambda r: (r["en"].casefold(), r["fr"].casefold()))


def _singular(term: str) -> str:
    """A lexicon row's key: folded, each word singular ("Delayed Triggered Abilities" and
    "Delayed Triggered Ability" are one row; "Capacités" and "Capacité" too)."""
    words = []
    for w in term.casefold().split():
        if len(w) > 3 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith(("s", "x")) and not w.endswith("ss"):
            w = w[:-1]
        words.append(w)
    return " ".join(words)


def _english_finder(site: "SiteRenderer", u: U.Urls):
    """English term → the link to its glossary entry, else to the rule or section of
    that title, in the latest English edition (``None`` when neither exists)."""
    latest = site.latest.get("en")
    if latest is None:
        return lambda term: None
    layout = site.layout(latest)[0]
    titled: dict[str, str] = {}
    for r in latest.rules:
        if r.title and r.kind in ("section", "rule"):
            titled.setdefault(_singular(r.title), r.id)

    def find(term: str) -> str | None:
        path = layout.glossary_term(term)
        if path is None and _singular(term) in titled:
            path = layout.rule(titled[_singular(term)])
        return u(path) if path else None

    return find


def _document_finder(site: "SiteRenderer", u: U.Urls, documents: list[Edition]):
    """French term → the first unit of a French document titled so (a section or rule
    heading, a rulebook heading), else the first unit whose text prints it, or ``None``."""
    import re

    titled: dict[str, str] = {}
    texts: list[tuple[str, str]] = []
    for doc in documents:
        page = U.edition_index(doc.name)
        for r in doc.rules:
            if r.title:
                titled.setdefault(_singular(r.title), f"{page}#{r.id}")
            if r.kind != "note":
                texts.append((r.text, f"{page}#{r.id}"))
        for g in doc.glossary:
            titled.setdefault(_singular(g.term), f"{page}#{g.slug}")
            texts.append((g.text, f"{page}#{g.slug}"))

    def find(term: str) -> str | None:
        if _singular(term) in titled:
            return u(titled[_singular(term)])
        pattern = re.compile(r"(?<!\w)" + re.escape(term) + r"(?!\w)", re.IGNORECASE)
        return next((u(path) for text, path in texts if pattern.search(text)), None)

    return find


def translation_lexicon_rows(site: "SiteRenderer", u: U.Urls, lang: str) -> list[dict[str, Any]]:
    """English ⇄ ``lang`` terms of the latest complete translated edition of ``lang``:
    keyword headings, section titles, glossary headwords (:mod:`comprules.align.translation`),
    each linked to both rules (or glossary entries)."""
    from .changes import rule_href

    docs = [(d, en, a) for d, en, a in site.compares if d.lang == lang and is_translation(d)]
    if not docs:
        return []
    doc, en, _alignment = max(docs, key=lambda x: x[0].effective)
    rows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for p in site.compare_facts.terms_of(doc.name):
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
    out = []
    for (en_term, term), links in sorted(rows.items(), key=lambda kv: (kv[0][0].casefold(), kv[0][1])):
        # the first link is the translated unit, the second the English one: on the terms themselves
        out.append(
            {
                "en": en_term,
                "fr": term,
                "fr_href": links[0][1] if links else None,
                "en_href": links[1][1] if len(links) > 1 else None,
                "links": links[2:],
            }
        )
    return out


def render_lexicon(site: "SiteRenderer", out: Path) -> None:
    """``/compare/lexicon.html``: English ⇄ French (the table and the pairs found), then
    English ⇄ each complete translation's language (Chinese: 践踏 ⇄ Trample)."""
    from .. import languages
    from .labels import labels

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
    # the French table on lexicon.html; each other language's on pages of its own (lexicon-zh.html,
    # lexicon-zh-2.html…, LEXICON_ROWS rows each), linked from it: every page under 150 KB
    pages: list[tuple[str, str, list[dict]]] = []
    for table in tables:
        if table["lang"] == "fr":
            continue
        count = max(1, -(-len(table["rows"]) // LEXICON_ROWS))
        for i in range(count):
            name = f"compare/lexicon-{table['lang']}{'' if i == 0 else f'-{i + 1}'}.html"
            label = f"{table['t']['lexicon']}: English ⇄ {table['name']}" + (f" ({i + 1}/{count})" if count > 1 else "")
            pages.append((name, label, [{**table, "rows": table["rows"][i * LEXICON_ROWS : (i + 1) * LEXICON_ROWS]}]))
    links = [(label, U.relative(path, name)) for name, label, _ in pages]
    french = [table for table in tables if table["lang"] == "fr"]
    page_lang = "fr" if french and not pages else "en"
    t = labels(page_lang)
    html = site.templates["lexicon"].render(
        lang=page_lang, t=t, u=u, goto=None, title=t["lexicon"], tables=french, others=links, all=u(U.compare_index())
    )
    site.write(out, path, html)
    for name, label, chunk in pages:
        t = labels(chunk[0]["lang"])
        html = site.templates["lexicon"].render(
            lang=chunk[0]["lang"],
            t=t,
            u=U.Urls(name),
            goto=None,
            title=label,
            tables=chunk,
            others=links,
            all=U.relative(name, U.compare_index()),
        )
        site.write(out, name, html)
