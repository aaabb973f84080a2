"""Pages about change: each release's bulletin, its section pages, and each rule's history.

A release (two consecutive editions, ``/diff/{lang}/{old}..{new}/``) has a *bulletin*
(``index.html``) in the order of Wizards' update bulletins, what a judge reads first
first: new rules, edited rules (in place, then moved and edited), rewritten, split and
merged, typography, removed rules, the sections renamed or moved, the glossary
entries added, changed and removed, then a compact table of the pure moves (old →
new, words unchanged but for the numbers they cite). Every rule number links into its
edition, every reference in the texts too. One page per changed section follows the
same rows, the two texts side by side, the pure moves as a table at its end. Rows
carry the alignment's facets (:attr:`comprules.align.alignment.RuleChange.facet`).

A history page (``/history/{lang}/{number}.html``) exists for every rule of the
latest edition of a language: the editions where the rule first appeared and where it
changed (:meth:`comprules.align.lineage.Lineage.steps`), each step with its facets and
its change shown in place, and when the rule last changed.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import languages
from ..align.alignment import RuleChange, glossary_changes
from ..model import Edition, Rule, sort_key
from . import urls as U
from .diffs import DiffText
from .labels import plain

if TYPE_CHECKING:
    from .render import SiteRenderer

#: Characters of text per diff page before it is cut into parts, counting :data:`CHANGE_COST`
#: for each word change (its marks: ``<del class="p">,</del>``).
DIFF_BUDGET = 100_000
CHANGE_COST = 30
#: What one part of a bulletin holds, in bytes of rule text (UTF-8) plus :data:`ROW_COST` per
#: change and :data:`MOVE_COST` per move: a release with more (1,383 typography changes in
#: 2019-07-12, 1,019 moves in 2009-07-11) goes on in ``index-2.html``, ``index-3.html`` …
#: so that no page of the site but the one-page CRs passes 150 KB (issue 14).
BULLETIN_BUDGET = 80_000
ROW_COST = 250
MOVE_COST = 110
ORDER = ("renumbered", "edited", "added", "removed", "split", "merged", "kept")
#: The bulletin's groups, in order: (label key, group name).
GROUPS = (
    ("new_rules", "added"),
    ("edited_rules", "edited"),
    ("moved_edited", "moved + edited"),
    ("rewritten_rules", "rewritten"),
    ("split_merged", "split"),
    ("typography_rules", "typography"),
    ("removed_rules", "removed"),
)


def group_of(facet: str) -> str | None:
    """The bulletin group of a row's facet; ``moves`` for a pure move, ``None`` unchanged."""
    if facet in ("added", "removed", "edited", "moved + edited"):
        return facet
    if facet == "moved":
        return "moves"
    if facet.startswith(("split", "merged")):
        return "split"
    if "rewritten" in facet:
        return "rewritten"
    if "typography" in facet:
        return "typography"
    return None


def facet_label(facet: str, kinds: dict[str, str]) -> str:
    """``moved + edited`` in the page's language (the kinds of the language table)."""
    return " + ".join(kinds.get(part, part) for part in facet.split(" + "))


def content(rule: Rule | None, lang: str) -> str:
    """A rule's words as compared: its text, then each example."""
    if rule is None:
        return ""
    if not rule.examples:
        return rule.text
    mark = languages.get(lang).example_mark
    return rule.text + "".join(f"\n{mark} {ex}" for ex in rule.examples)


def section_of(rule_id: str) -> str:
    """``702.34a`` → ``702``; ``602¶3`` → ``602``; ``702`` → ``702``; ``¶2`` → ``other``."""
    head = rule_id.split("~", 1)[0]
    for sep in (".", "¶"):
        if sep in head:
            head = head.split(sep, 1)[0]
    return head if head.isdigit() else "other"


def _labels(site: "SiteRenderer", lang: str) -> dict[str, str]:
    from .labels import KIND_LABELS

    return KIND_LABELS.get(lang, KIND_LABELS["en"])


def render_diff(site: "SiteRenderer", out: Path, old: Edition, new: Edition) -> None:
    """The bulletin and the section pages of the release ``old`` → ``new``."""
    from .labels import edition_label, labels

    alignment = site.alignments.get((old.name, new.name))
    rows = list(alignment.rules) if alignment is not None else _same_number_rows(old, new)
    sections = list(getattr(alignment, "sections", ()) or ())
    mapping = alignment.mapping if alignment is not None else {}
    t = labels(new.lang)
    kinds = _labels(site, new.lang)
    index_path = U.diff_page(old.name, new.name)
    titles = {s.number: plain(s.title or s.text) for s in new.sections()}
    old_titles = {s.number: plain(s.title or s.text) for s in old.sections()}
    groups: dict[str, list[RuleChange]] = {}
    for r in rows:
        if r.facet != "unchanged":
            groups.setdefault(section_of(r.new if r.new is not None else r.old), []).append(r)
    pages: list[dict[str, Any]] = []
    ordered = sorted(groups, key=sort_key)
    for k, number in enumerate(ordered):
        changed = [r for r in groups[number] if r.facet != "moved"]
        moves = [r for r in groups[number] if r.facet == "moved"]
        parts = _cut(changed, old, new) if changed else [[]]
        for p, part in enumerate(parts):
            name = number if p == 0 else f"{number}-{p + 1}"
            path = U.diff_page(old.name, new.name, name)
            u = U.Urls(path)
            texts = DiffText(site, path, old, new, mapping)
            views = [_row_view(site, r, old, new, u, kinds, texts) for r in part]
            html = site.templates["diff"].render(
                lang=new.lang,
                t=t,
                u=u,
                goto=None,
                kinds=kinds,
                title=f"{number} — {edition_label(old)} → {edition_label(new)}",
                old=_ed(old, site),
                new=_ed(new, site),
                index=u(index_path),
                number=number,
                section_title=titles.get(number) or old_titles.get(number, ""),
                part=(p + 1, len(parts)) if len(parts) > 1 else None,
                parts=[
                    u(U.diff_page(old.name, new.name, number if i == 0 else f"{number}-{i + 1}"))
                    for i in range(len(parts))
                ],
                rows=views,
                moves=[_move_view(site, r, old, new, u) for r in moves] if p == len(parts) - 1 else [],
                prev={"href": u(U.diff_page(old.name, new.name, ordered[k - 1])), "label": ordered[k - 1]}
                if k
                else None,
                next={"href": u(U.diff_page(old.name, new.name, ordered[k + 1])), "label": ordered[k + 1]}
                if k + 1 < len(ordered)
                else None,
            )
            site.write(out, path, html)
        pages.append(
            {
                "number": number,
                "title": titles.get(number) or old_titles.get(number, ""),
                "href": U.relative(index_path, U.diff_page(old.name, new.name, number)),
                "counts": Counter(facet_label(r.facet, kinds) for r in groups[number]),
            }
        )
    u = U.Urls(index_path)
    moved = [s for s in sections if s.kind not in ("kept", "edited")]
    section_rows = []
    for s in moved:
        section_rows.append(
            {
                "old": s.old,
                "new": s.new,
                "kind": s.kind,
                "old_title": plain(s.old_title or ""),
                "new_title": plain(s.new_title or ""),
                "old_href": _section_href(site, u, old, s.old),
                "new_href": _section_href(site, u, new, s.new),
            }
        )
    renamed = [
        {
            "old": s.old,
            "new": s.new,
            "old_title": plain(s.old_title or ""),
            "new_title": plain(s.new_title or ""),
            "old_href": _section_href(site, u, old, s.old),
            "new_href": _section_href(site, u, new, s.new),
        }
        for s in sections
        if s.old and s.new and s.old == s.new and plain(s.old_title or "") != plain(s.new_title or "")
    ]
    # every part lies in the release's folder: links made for index.html hold on each part
    glossary = _glossary_views(site, u, DiffText(site, index_path, old, new, mapping), old, new, mapping)
    prev_pair = site.lineage.previous.get(old.name)
    next_pair = next((n for n, p in site.lineage.previous.items() if p == new.name), None)
    counts = Counter(r.facet for r in rows if r.facet != "unchanged")
    chunks, used = _bulletin_parts(old, new, rows)
    # the glossary's changes after the rules' (the rules' parts stay where bulletin_href says)
    glossaries: list[dict[str, list[dict[str, Any]]]] = [{} for _ in chunks]
    for k, g in enumerate(_glossary_parts(glossary, used)):
        if k == 0:
            glossaries[-1] = g
        else:
            chunks.append([])
            glossaries.append(g)
    paths = [bulletin_page(old.name, new.name, k + 1) for k in range(len(chunks))]
    for k, chunk in enumerate(chunks):
        path = paths[k]
        u = U.Urls(path)
        texts = DiffText(site, path, old, new, mapping)
        bulletin: dict[str, list[dict[str, Any]]] = {}
        moves = []
        for group, r in chunk:
            if group == "moves":
                moves.append(_move_view(site, r, old, new, u))
            else:
                bulletin.setdefault(group, []).append(_row_view(site, r, old, new, u, kinds, texts, inline=True))
        first = k == 0
        html = site.templates["diff_index"].render(
            lang=new.lang,
            t=t,
            u=u,
            goto=None,
            kinds=kinds,
            title=f"{t['changes']} — {edition_label(old)} → {edition_label(new)}"
            + (f" ({t['part']} {k + 1}/{len(chunks)})" if len(chunks) > 1 else ""),
            old=_ed(old, site),
            new=_ed(new, site),
            counts=[(f, facet_label(f, kinds), counts[f]) for f in _facet_order(counts)] if first else [],
            groups=[(key, t[label], bulletin[key]) for label, key in GROUPS if bulletin.get(key)],
            moves=moves,
            glossary=glossaries[k],
            sections=section_rows if first else [],
            renamed=renamed if first else [],
            pages=pages if first else [],
            part=(k + 1, len(chunks)) if len(chunks) > 1 else None,
            parts=[u(p) for p in paths] if len(chunks) > 1 else [],
            all_diffs=u(U.diff_index()),
            compare=_compare_form(site, u, old, new) if first else None,
            prev={"href": u(U.diff_page(prev_pair, old.name)), "label": f"{_date(prev_pair)} → {_date(old.name)}"}
            if prev_pair
            else None,
            next={"href": u(U.diff_page(new.name, next_pair)), "label": f"{_date(new.name)} → {_date(next_pair)}"}
            if next_pair
            else None,
        )
        site.write(out, path, html)


def _date(name: str) -> str:
    return name.partition("/")[2]


def bulletin_page(old: str, new: str, part: int) -> str:
    """Part ``part`` (1, 2 …) of a release's bulletin: ``index.html``, ``index-2.html`` …"""
    return U.diff_page(old, new, None if part == 1 else f"index-{part}")


def bulletin_items(rows: list[RuleChange]) -> list[tuple[str, RuleChange]]:
    """The bulletin's entries in its order: (group, row) for each group of :data:`GROUPS`,
    then ``("moves", row)`` for each pure move."""
    by_group: dict[str, list[RuleChange]] = {}
    for r in rows:
        group = group_of(r.facet)
        if group is not None:
            by_group.setdefault(group, []).append(r)
    items = [(key, r) for _label, key in GROUPS for r in by_group.get(key, [])]
    return items + [("moves", r) for r in by_group.get("moves", [])]


def anchor_of(r: RuleChange) -> str:
    """The id of a change's block or move's row on a diff page: ``502.26a>702.34a``."""
    return f"{r.old or ''}>{r.new or ''}"


def bulletin_parts(old: Edition, new: Edition, rows: list[RuleChange]) -> list[list[tuple[str, RuleChange]]]:
    """The bulletin's entries (:func:`bulletin_items`) cut into parts of at most
    :data:`BULLETIN_BUDGET` (a part holds one entry at least). A pure function of the two
    editions and the alignment, so that a page linking to an entry (a history page's
    "removed in") finds its part without the bulletin being rendered first."""
    return _bulletin_parts(old, new, rows)[0]


def _bulletin_parts(
    old: Edition, new: Edition, rows: list[RuleChange]
) -> tuple[list[list[tuple[str, RuleChange]]], int]:
    """:func:`bulletin_parts` and what its last part has used of the budget."""
    parts: list[list[tuple[str, RuleChange]]] = [[]]
    used = 0
    for group, r in bulletin_items(rows):
        if group == "moves":
            cost = MOVE_COST
        else:
            o = old.get(r.old) if r.old else None
            n = new.get(r.new) if r.new else None
            # bytes, as the page weighs them (a Han character is three)
            cost = ROW_COST + max(len(content(o, old.lang).encode()), len(content(n, new.lang).encode()))
        if parts[-1] and used + cost > BULLETIN_BUDGET:
            parts.append([])
            used = 0
        parts[-1].append((group, r))
        used += cost
    return parts, used


def _glossary_parts(glossary: dict[str, list[dict[str, Any]]], used: int) -> list[dict[str, list[dict[str, Any]]]]:
    """The glossary's changes (``added``, ``changed``, ``removed``) cut as the bulletin's
    entries, the first part filling what the last part of the rules left."""
    parts: list[dict[str, list[dict[str, Any]]]] = [{}]
    for kind in ("added", "changed", "removed"):
        for g in glossary.get(kind, []):
            cost = ROW_COST + len(str(g.get("html", "")).encode())
            if parts[-1] and used + cost > BULLETIN_BUDGET:
                parts.append({})
                used = 0
            parts[-1].setdefault(kind, []).append(g)
            used += cost
    return parts


def bulletin_href(site: "SiteRenderer", u: U.Urls, old: str, new: str, anchor: str) -> str:
    """The link to an entry of the bulletin ``old`` → ``new``, on the part that holds it
    (its first part when no entry has that anchor)."""
    return u(bulletin_entry(site, old, new, anchor)) + "#" + anchor


def bulletin_entry(site: "SiteRenderer", old: str, new: str, anchor: str) -> str:
    """The site path of the bulletin part ``old`` → ``new`` that holds the entry
    ``anchor`` (:func:`bulletin_href` without the page it is linked from)."""
    cache = site.__dict__.setdefault("_bulletin_parts", {})
    part_of = cache.get((old, new))
    if part_of is None:
        alignment = site.alignments.get((old, new))
        part_of = {}
        if alignment is not None:
            parts = bulletin_parts(site.by_name[old], site.by_name[new], list(alignment.rules))
            part_of = {anchor_of(r): k + 1 for k, part in enumerate(parts) for _g, r in part}
        cache[(old, new)] = part_of
    return bulletin_page(old, new, part_of.get(anchor, 1))


def _facet_order(counts: Counter) -> list[str]:
    """Facets in the bulletin's order (its groups), the pure moves last."""
    rank = {key: k for k, (_label, key) in enumerate(GROUPS)}
    return sorted(counts, key=lambda f: (rank.get(group_of(f) or "", len(rank) + 1), f))


def _compare_form(site: "SiteRenderer", u: U.Urls, old: Edition, new: Edition) -> dict[str, Any] | None:
    """The "compare two editions" form: the editions of the pair's chain (newest first)."""
    from .lineage import chains

    chain = next((c for c in chains(site.editions) if new in c), None)
    if chain is None or U.is_fragment(new):
        return None
    return {
        "action": u(U.compare_editions_page(new.lang)),
        "lang": new.lang,
        "editions": [
            (e.name, _date(e.name), site.sets.get(_date(e.name), ""), site.set_codes.get(_date(e.name), ""))
            for e in reversed(chain)
        ],
        "old": old.name,
        "new": new.name,
    }


def _glossary_views(site, u: U.Urls, texts: DiffText, old: Edition, new: Edition, mapping) -> dict[str, list]:
    """Glossary entries added, changed (their definitions, changes in place), removed."""
    gold = old.glossary_by_slug
    gnew = new.glossary_by_slug
    out: dict[str, list] = {"added": [], "changed": [], "removed": []}

    def page(e: Edition) -> str:  # a fragment prints its glossary entries on its one page
        return U.edition_index(e.name) if U.is_fragment(e) else U.glossary_page(e.name)

    for c in glossary_changes(old, new, mapping):
        href_old = u(f"{page(old)}#{c.old}") if c.old else None
        href_new = u(f"{page(new)}#{c.new}") if c.new else None
        if c.kind == "added":
            out["added"].append(
                {"term": plain(c.new_term or ""), "href": href_new, "html": texts.text(new, gnew[c.new].text)}
            )
        elif c.kind == "removed":
            out["removed"].append(
                {"term": plain(c.old_term or ""), "href": href_old, "html": texts.text(old, gold[c.old].text)}
            )
        elif c.kind == "edited":
            before, after = gold[c.old].text, gnew[c.new].text
            out["changed"].append(
                {
                    "term": plain(c.new_term or ""),
                    "old_term": plain(c.old_term or ""),
                    "href": href_new,
                    "old_href": href_old,
                    "words": c.words,
                    "html": texts.inline(before, after, c.words == "typography"),
                }
            )
    return out


def _section_href(site: "SiteRenderer", u: U.Urls, edition: Edition, number: str | None) -> str | None:
    path = site.layout(edition)[0].section(number) if number else None
    return u(path) if path else None


def _ed(e: Edition, site: "SiteRenderer") -> dict[str, str]:
    from .labels import edition_label

    date = e.effective.isoformat() if e.effective else ""
    return {"name": e.name, "label": edition_label(e), "date": date, "set": site.sets.get(date, "")}


def _cut(rows: list[Any], old: Edition, new: Edition) -> list[list[Any]]:
    """Rows cut into pages of about :data:`DIFF_BUDGET` characters."""
    parts: list[list[Any]] = [[]]
    size = 0
    for r in rows:
        weight = (
            200
            + len(content(old.get(r.old) if r.old else None, old.lang))
            + len(content(new.get(r.new) if r.new else None, new.lang))
            + CHANGE_COST * len(r.changes)
        )
        if parts[-1] and size + weight > DIFF_BUDGET:
            parts.append([])
            size = 0
        parts[-1].append(r)
        size += weight
    return parts


def _move_view(site: "SiteRenderer", r: RuleChange, old: Edition, new: Edition, u: U.Urls) -> dict[str, Any]:
    return {
        "old": r.old,
        "new": r.new,
        "old_href": rule_href(site, u, old, r.old),
        "new_href": rule_href(site, u, new, r.new),
        "references": r.words == "references",
    }


def _row_view(
    site: "SiteRenderer",
    r: RuleChange,
    old: Edition,
    new: Edition,
    u: U.Urls,
    kinds: dict[str, str],
    texts: DiffText,
    inline: bool = False,
) -> dict[str, Any]:
    o = old.get(r.old) if r.old else None
    n = new.get(r.new) if r.new else None
    old_text, new_text = content(o, old.lang), content(n, new.lang)
    changed = o is not None and n is not None and old_text != new_text
    typography = r.words == "typography"
    if changed and inline:
        old_html, new_html = None, texts.inline(old_text, new_text, typography)
    elif changed:
        old_html, new_html = texts.side_by_side(old_text, new_text, typography)
    else:
        old_html, new_html = texts.text(old, old_text), texts.text(new, new_text)
    return {
        "kind": r.kind,
        "facet": r.facet,
        "label": facet_label(r.facet, kinds),
        "old": r.old,
        "new": r.new,
        "old_href": rule_href(site, u, old, r.old),
        "new_href": rule_href(site, u, new, r.new),
        "moved": r.moved,
        "changed": changed,
        "inline": inline,
        "new_date": _date(new.name),
        "similarity": round(100 * r.similarity) if r.edited and r.similarity < 1 else None,
        "old_html": old_html,
        "new_html": new_html,
        "anchor": f"{r.old or ''}>{r.new or ''}",
    }


def rule_href(site: "SiteRenderer", u: U.Urls, edition: Edition, rule_id: str | None) -> str | None:
    """A link to a unit of any edition, on the page (or part) where it lives."""
    path = site.place(edition.name, rule_id)
    return u(path) if path else None


def _same_number_rows(old: Edition, new: Edition) -> list[RuleChange]:
    """Rows by same number, when no alignment is available."""
    rows = []
    olds = old.by_id
    for r in new.rules:
        if r.kind in ("chapter", "section"):
            continue
        o = olds.get(r.id)
        if o is None:
            rows.append(RuleChange(None, r.id, "added", 0.0))
        else:
            same = content(o, old.lang) == content(r, new.lang)
            rows.append(RuleChange(r.id, r.id, "kept" if same else "edited", 1.0, (), None if same else "edited"))
    news = new.by_id
    for r in old.rules:
        if r.kind not in ("chapter", "section") and r.id not in news:
            rows.append(RuleChange(r.id, None, "removed", 0.0))
    return rows


def render_diff_index(site: "SiteRenderer", out: Path) -> None:
    """``/diff/index.html``: every release, newest first, with its counts by facet, and
    the form comparing any two editions of a language."""
    from .labels import LANG_NAMES, edition_label, labels

    path = U.diff_index()
    u = U.Urls(path)
    kinds = _labels(site, "en")
    langs: dict[str, list[dict[str, Any]]] = {}
    forms: dict[str, Any] = {}
    for old, new in reversed(site.pairs):
        a = site.alignments.get((old.name, new.name))
        rows = a.rules if a is not None else _same_number_rows(old, new)
        counts = Counter(group_of(r.facet) for r in rows)
        langs.setdefault(new.lang, []).append(
            {
                "href": u(U.diff_page(old.name, new.name)),
                "old": edition_label(old),
                "new": edition_label(new),
                "set": site.sets.get(new.effective.isoformat(), "") if new.effective else "",
                "counts": counts,
            }
        )
        if new.lang not in forms:
            forms[new.lang] = _compare_form(site, u, old, new)
    t = labels("en")
    columns = [(key, t[label]) for label, key in GROUPS] + [("moves", kinds.get("moved", "moved"))]
    html = site.templates["diffs"].render(
        lang="en",
        t=t,
        u=u,
        goto=None,
        title=f"{t['diffs']} — {t['site']}",
        kinds=kinds,
        columns=columns,
        langs=[(LANG_NAMES.get(lang, lang), lang, rows, forms.get(lang)) for lang, rows in langs.items()],
    )
    site.write(out, path, html)


def render_history(site: "SiteRenderer", out: Path, lang: str, start: int, end: int) -> None:
    """The history pages of the rules ``start:end`` of a language's latest edition."""
    from .labels import edition_label, labels

    latest = site.latest[lang]
    keys = site.history_keys[lang]
    ids = [r.id for r in latest.rules if r.id in keys][start:end]
    t = labels(lang)
    kinds = _labels(site, lang)
    template = site.templates["history"]
    lineage = site.lineage
    chain = [latest.name]
    while chain[-1] in lineage.previous:
        chain.append(lineage.previous[chain[-1]])
    chain.reverse()
    for rule_id in ids:
        path = U.history_page(lang, rule_id)
        u = U.Urls(path)
        rule = latest.by_id[rule_id]
        steps = []
        for step in lineage.steps(latest.name, rule_id):
            edition = site.by_name[step.edition]
            text = content(edition.get(step.number), lang)
            before_ed = site.by_name.get(step.previous_edition) if step.previous_edition else None
            alignment = site.alignments.get((step.previous_edition, step.edition))
            texts = DiffText(site, path, before_ed or edition, edition, alignment.mapping if alignment else {})
            html = texts.text(edition, text)
            if before_ed is not None and step.previous is not None and step.kind != "first":
                before = content(before_ed.get(step.previous), lang)
                if before != text:
                    html = texts.inline(before, text, step.words == "typography")
            date = edition.effective.isoformat() if edition.effective else ""
            steps.append(
                {
                    "edition": edition_label(edition),
                    "date": date,
                    "set": site.sets.get(date, ""),
                    "number": step.number,
                    "previous": step.previous,
                    "kind": step.kind,
                    "facet": step.facet,
                    "label": facet_label(step.facet, kinds),
                    "href": rule_href(site, u, edition, step.number),
                    "previous_href": rule_href(site, u, before_ed, step.previous)
                    if step.previous and before_ed
                    else None,
                    "html": html,
                    "words": step.words,
                }
            )
        title = rule.title or (latest.by_id.get(rule.parent).title if rule.parent in latest.by_id else None) or ""
        html = template.render(
            lang=lang,
            t=t,
            u=u,
            goto=None,
            kinds=kinds,
            title=f"{t['history_of']} {rule_id} — {edition_label(latest)}",
            number=rule_id,
            rule_title=plain(title),
            href=rule_href(site, u, latest, rule_id),
            steps=steps,
            latest=edition_label(latest),
            edition_href=u.edition(latest.name),
            summary=_history_summary(steps, chain, latest),
        )
        site.write(out, path, html)


def _history_summary(steps: list[dict[str, Any]], chain: list[str], latest: Edition) -> dict[str, Any] | None:
    """When the rule last changed, for how many editions and years it has not, and when
    its words last changed (a move alone keeps them)."""
    if not steps:
        return None
    last = steps[-1]
    later = (
        len(chain) - 1 - chain.index(f"{latest.lang}/{last['date']}") if f"{latest.lang}/{last['date']}" in chain else 0
    )
    years = None
    if last["date"] and latest.effective:
        from datetime import date

        days = (latest.effective - date.fromisoformat(last["date"])).days
        years = round(days / 365.25, 1)
    words = next(
        (
            s
            for s in reversed(steps)
            if s["words"] in ("edited", "rewritten", "typography") or s["kind"] in ("added", "first")
        ),
        None,
    )
    return {"last": last, "editions": later, "years": years, "words": words if words is not last else None}


# ---------------------------------------------------------------------------
# Any two editions, in the browser


def write_edition_texts(site: "SiteRenderer", out: Path, edition: Edition) -> None:
    """``diff/data/{lang}/{date}.js``: what the browser needs to compare this edition
    with any other of its chain (``compare.js``): each aligned unit as ``[id, text]``
    or ``[id, text, lineage keys…]`` (its own key first; none when it is the id), the
    sections as ``[id, title]``, the lineage keys in the knowledge base's order (``o``),
    the lineage keys rewritten in place, with the editions where (``w``), and the
    stored alignment from the previous edition (``p``: :func:`stored_rows`). A script,
    so that it loads from disk, its data compressed (:func:`texts_script`)."""
    if U.is_fragment(edition) or edition.name not in site.lineage.key or not _in_chain(site, edition):
        return
    at = site.lineage.at.get(edition.name, {})
    own = site.lineage.key.get(edition.name, {})
    keys_of: dict[str, list[str]] = {}
    for k, rid in at.items():
        keys_of.setdefault(rid, []).append(k)

    def keys(rid: str) -> list[str]:
        found = sorted(keys_of.get(rid, []), key=lambda k: k != own.get(rid))  # its own key first
        return [] if found == [rid] else found

    units = [
        [r.id, content(r, edition.lang), *keys(r.id)] for r in edition.rules if r.kind in ("rule", "subrule", "passage")
    ]
    sections = [[r.id, r.title or r.text, *keys(r.id)] for r in edition.rules if r.kind == "section"]
    shown = {row[0] for row in units} | {row[0] for row in sections}
    # the chain's rewrites (a few dozen), the same in every edition's script: a lineage key
    # is the chain's own (English's 100.7 rewritten on 2022-10-07 is not the Chinese 100.7's)
    rewritten = {
        k: [_date(n) for n in v if n.partition("/")[0] == edition.lang]
        for k, v in sorted(site.lineage.rewritten().items())
    }
    data = {
        "name": edition.name,
        "date": _date(edition.name),
        "r": units,
        "s": sections,
        "w": {k: v for k, v in rewritten.items() if v},
        # the keys in the knowledge base's order (Store.joined pairs in that order)
        "o": [k for k, rid in at.items() if rid in shown],
    }
    previous = site.lineage.previous.get(edition.name)
    stored = site.alignments.get((previous, edition.name)) if previous else None
    if stored is not None:
        data["p"] = {"old": previous, "rules": stored_rows(stored)}
    site.write_text(out, U.edition_texts_script(edition.name), texts_script(edition.name, data))


#: How an edition's texts script begins, before the edition's name (``compare.js`` reads it).
TEXTS_HEAD = "(window.CR_TEXTS=window.CR_TEXTS||{})"


def texts_script(name: str, data: dict) -> str:
    """The script of ``diff/data/{lang}/{date}.js``: ``data`` as JSON, deflated (zlib,
    level 6) and in base64, a string that ``compare.js`` inflates with the browser's
    ``DecompressionStream`` — 33 % of the JSON's size (issue 21: the 74 English
    editions' texts 40 MB → 13.2 MB of the site)."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = base64.b64encode(zlib.compress(raw, 6)).decode("ascii")
    return f'{TEXTS_HEAD}[{json.dumps(name)}]="{packed}";\n'


def read_texts_script(script: str) -> tuple[str, dict]:
    """(edition name, data) of a script :func:`texts_script` wrote. Raises
    :class:`ValueError` for anything else."""
    found = re.fullmatch(re.escape(TEXTS_HEAD) + r'\[("[^"]*")\]="([A-Za-z0-9+/=]*)";\n', script)
    if found is None:
        raise ValueError("not an edition's texts script")
    return json.loads(found[1]), json.loads(zlib.decompress(base64.b64decode(found[2])))


def stored_rows(alignment: Any) -> list[list]:
    """The rows of a stored alignment as ``compare.js`` reads them for a consecutive
    pair (one diff engine: the page shows the rows ``comprules diff`` gives):
    ``[old, new, kind, words, similarity]`` for every row but a rule kept under its
    number with its words (the page restores those: each unit of the new edition that
    no row names, kept from the same number)."""
    return [
        [c.old, c.new, c.kind, c.words, c.similarity]
        for c in alignment.rules
        if not (c.kind == "kept" and c.old == c.new and c.words is None)
    ]


def _in_chain(site: "SiteRenderer", edition: Edition) -> bool:
    return edition.name in site.lineage.previous or edition.name in site.lineage.previous.values()


def render_compare_editions(site: "SiteRenderer", out: Path) -> None:
    """``diff/{lang}/compare.html``: any two editions of a language compared in the
    browser (``static/compare.js``), from the editions' texts scripts on disk, or, served
    by ``comprules serve``, from ``/api/v1/diff`` when the server answers it; the same
    rows, facets and groups as the bulletins."""
    from .labels import labels
    from .lineage import chains

    for chain in chains(site.editions):
        last = chain[-1]
        if U.is_fragment(last):
            continue
        path = U.compare_editions_page(last.lang)
        u = U.Urls(path)
        t = labels(last.lang)
        kinds = _labels(site, last.lang)
        form = _compare_form(site, u, chain[-2] if len(chain) > 1 else last, last)
        html = site.templates["compare_editions"].render(
            lang=last.lang,
            t=t,
            u=u,
            goto=None,
            title=f"{t['compare_any']} — {t['site']}",
            form=form,
            all_diffs=u(U.diff_index()),
            config={
                "lang": last.lang,
                "data": u(U.edition_texts_script(f"{last.lang}/DATE")),
                "root": u.home()[: -len(U.HOME)],
                "kinds": kinds,
                "labels": {key: t[label] for label, key in GROUPS}
                | {key: t[key] for key in ("moves", "words_kept", "no_edition", "no_change", "choose_two")},
                "groups": [key for _label, key in GROUPS],
                "releases": {
                    f"{_date(a.name)}..{_date(b.name)}": u(U.diff_page(a.name, b.name))
                    for a, b in zip(chain, chain[1:])
                },
            },
        )
        site.write(out, path, html)
