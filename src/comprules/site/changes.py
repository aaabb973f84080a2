"""Pages about change: the diff of two consecutive editions, and each rule's history.

A diff (``/diff/{lang}/{old}..{new}/``) has a summary page (counts by kind, the
sections renamed, renumbered, added or removed, and the sections whose rules
changed) and one page per changed section, listing every rule that is not ``kept``:
moves as "502.26a → 702.34a", and the two texts side by side with the deleted and
inserted words marked (:mod:`.diffs`). Rules are grouped under the section they are
in *in the new edition* (under their old one when removed).

A history page (``/history/{lang}/{number}.html``) exists for every rule of the
latest edition of a language: the editions where the rule first appeared and where
it changed (:meth:`.lineage.Lineage.steps`), each change shown in place.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import escape

from .. import languages
from ..model import Edition, Rule, sort_key
from . import urls as U
from .diffs import inline, marked


def plain(text: str) -> str:
    from .render import plain as _plain

    return _plain(text)

if TYPE_CHECKING:
    from .render import SiteRenderer

#: Characters of text per diff page before it is cut into parts.
DIFF_BUDGET = 100_000
ORDER = ("renumbered", "edited", "added", "removed", "split", "merged", "kept")


def content(rule: Rule | None, lang: str) -> str:
    """A rule's words as compared: its text, then each example."""
    if rule is None:
        return ""
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
    return languages.get(lang).kinds


def render_diff(site: "SiteRenderer", out: Path, old: Edition, new: Edition) -> None:
    """The summary page and section pages of the diff ``old`` → ``new``."""
    from .render import edition_label, labels

    alignment = site.alignments.get((old.name, new.name))
    rows = list(alignment.rules) if alignment is not None else _same_number_rows(old, new)
    sections = list(getattr(alignment, "sections", ()) or ())
    counts = Counter(r.kind for r in rows)
    groups: dict[str, list[Any]] = {}
    for r in rows:
        if r.kind == "kept":
            continue
        groups.setdefault(section_of(r.new if r.new is not None else r.old), []).append(r)
    t = labels(new.lang)
    kinds = _labels(site, new.lang)
    index_path = U.diff_page(old.name, new.name)
    titles = {s.number: plain(s.title or s.text) for s in new.sections()}
    old_titles = {s.number: plain(s.title or s.text) for s in old.sections()}
    pages = []
    ordered = sorted(groups, key=sort_key)
    for k, number in enumerate(ordered):
        parts = _cut(groups[number], old, new)
        for p, part in enumerate(parts):
            name = number if p == 0 else f"{number}-{p + 1}"
            path = U.diff_page(old.name, new.name, name)
            u = U.Urls(path)
            views = [_row_view(site, r, old, new, u, kinds) for r in part]
            html = site.templates["diff"].render(
                lang=new.lang, t=t, u=u, goto=None, kinds=kinds,
                title=f"{number} — {edition_label(old)} → {edition_label(new)}",
                old=_ed(old, site), new=_ed(new, site), index=u(index_path),
                number=number, section_title=titles.get(number) or old_titles.get(number, ""),
                part=(p + 1, len(parts)) if len(parts) > 1 else None,
                parts=[u(U.diff_page(old.name, new.name, number if i == 0 else f"{number}-{i + 1}"))
                       for i in range(len(parts))],
                rows=views,
                prev=u(U.diff_page(old.name, new.name, ordered[k - 1])) if k else None,
                next=u(U.diff_page(old.name, new.name, ordered[k + 1])) if k + 1 < len(ordered) else None,
            )
            site.write(out, path, html)
        pages.append({"number": number, "title": titles.get(number) or old_titles.get(number, ""),
                      "href": U.relative(index_path, U.diff_page(old.name, new.name, number)),
                      "counts": Counter(r.kind for r in groups[number])})
    u = U.Urls(index_path)
    moved = [s for s in sections if s.kind != "kept" and s.kind != "edited"]
    section_rows = []
    for s in moved:
        section_rows.append({
            "old": s.old, "new": s.new, "kind": s.kind,
            "old_title": plain(s.old_title or ""), "new_title": plain(s.new_title or ""),
            "old_href": _section_href(site, u, old, s.old),
            "new_href": _section_href(site, u, new, s.new),
        })
    renamed = [{"old": s.old, "new": s.new, "old_title": plain(s.old_title or ""),
                "new_title": plain(s.new_title or "")}
               for s in sections if s.old and s.new and s.old == s.new
               and plain(s.old_title or "") != plain(s.new_title or "")]
    prev_pair = site.lineage.previous.get(old.name)
    next_pair = next((n for n, p in site.lineage.previous.items() if p == new.name), None)
    html = site.templates["diff_index"].render(
        lang=new.lang, t=t, u=u, goto=None, kinds=kinds,
        title=f"{t['changes']} — {edition_label(old)} → {edition_label(new)}",
        old=_ed(old, site), new=_ed(new, site),
        counts=[(k, counts[k]) for k in ORDER if counts.get(k)],
        sections=section_rows, renamed=renamed, pages=pages, all_diffs=u(U.diff_index()),
        prev=u(U.diff_page(prev_pair, old.name)) if prev_pair else None,
        next=u(U.diff_page(new.name, next_pair)) if next_pair else None,
    )
    site.write(out, index_path, html)


def _section_href(site: "SiteRenderer", u: U.Urls, edition: Edition, number: str | None) -> str | None:
    path = site.layout(edition)[0].section(number) if number else None
    return u(path) if path else None


def _ed(e: Edition, site: "SiteRenderer") -> dict[str, str]:
    from .render import edition_label

    date = e.effective.isoformat() if e.effective else ""
    return {"name": e.name, "label": edition_label(e), "date": date, "set": site.sets.get(date, "")}


def _cut(rows: list[Any], old: Edition, new: Edition) -> list[list[Any]]:
    """Rows cut into pages of about :data:`DIFF_BUDGET` characters."""
    parts: list[list[Any]] = [[]]
    size = 0
    for r in rows:
        weight = 200 + len(content(old.get(r.old) if r.old else None, old.lang)) \
            + len(content(new.get(r.new) if r.new else None, new.lang))
        if parts[-1] and size + weight > DIFF_BUDGET:
            parts.append([])
            size = 0
        parts[-1].append(r)
        size += weight
    return parts


def _row_view(site: "SiteRenderer", r: Any, old: Edition, new: Edition, u: U.Urls, kinds: dict[str, str]
              ) -> dict[str, Any]:
    o = old.get(r.old) if r.old else None
    n = new.get(r.new) if r.new else None
    old_text, new_text = content(o, old.lang), content(n, new.lang)
    changed = bool(getattr(r, "changes", ())) or (r.kind in ("split", "merged") and old_text != new_text)
    if o is not None and n is not None and changed:
        old_html, new_html = marked(old_text, new_text)
    else:
        old_html, new_html = escape(old_text), escape(new_text)
    return {
        "kind": r.kind, "label": kinds.get(r.kind, r.kind),
        "old": r.old, "new": r.new,
        "old_href": rule_href(site, u, old, r.old), "new_href": rule_href(site, u, new, r.new),
        "moved": r.old is not None and r.new is not None and r.old != r.new,
        "changed": changed, "similarity": round(100 * getattr(r, "similarity", 1.0)),
        "old_html": old_html, "new_html": new_html,
        "anchor": f"{r.old or ''}>{r.new or ''}",
    }


def rule_href(site: "SiteRenderer", u: U.Urls, edition: Edition, rule_id: str | None) -> str | None:
    """A link to a unit of any edition, on the page (or part) where it lives."""
    path = site.place(edition.name, rule_id)
    return u(path) if path else None


def _same_number_rows(old: Edition, new: Edition) -> list[Any]:
    """Rows by same number, when no alignment is available."""
    from types import SimpleNamespace

    rows = []
    olds = old.by_id
    for r in new.rules:
        if r.kind in ("chapter", "section"):
            continue
        o = olds.get(r.id)
        if o is None:
            rows.append(SimpleNamespace(old=None, new=r.id, kind="added", similarity=0.0, changes=()))
        else:
            same = content(o, old.lang) == content(r, new.lang)
            rows.append(SimpleNamespace(old=r.id, new=r.id, kind="kept" if same else "edited",
                                        similarity=1.0, changes=() if same else ("?",)))
    news = new.by_id
    for r in old.rules:
        if r.kind not in ("chapter", "section") and r.id not in news:
            rows.append(SimpleNamespace(old=r.id, new=None, kind="removed", similarity=0.0, changes=()))
    return rows


def render_diff_index(site: "SiteRenderer", out: Path) -> None:
    """``/diff/index.html``: every diff, newest first, with its counts."""
    from .render import LANG_NAMES, edition_label, labels

    path = U.diff_index()
    u = U.Urls(path)
    langs: dict[str, list[dict[str, Any]]] = {}
    for old, new in reversed(site.pairs):
        a = site.alignments.get((old.name, new.name))
        counts = Counter(r.kind for r in a.rules) if a is not None else Counter()
        langs.setdefault(new.lang, []).append({
            "href": u(U.diff_page(old.name, new.name)), "old": edition_label(old), "new": edition_label(new),
            "set": site.sets.get(new.effective.isoformat(), "") if new.effective else "",
            "counts": counts,
        })
    t = labels("en")
    html = site.templates["diffs"].render(
        lang="en", t=t, u=u, goto=None, title=f"{t['diffs']} — {t['site']}",
        kinds=_labels(site, "en"), order=[k for k in ORDER if k != "kept"],
        langs=[(LANG_NAMES.get(lang, lang), lang, rows) for lang, rows in langs.items()],
    )
    site.write(out, path, html)


def render_history(site: "SiteRenderer", out: Path, lang: str, start: int, end: int) -> None:
    """The history pages of the rules ``start:end`` of a language's latest edition."""
    from .render import edition_label, labels

    latest = site.latest[lang]
    keys = site.history_keys[lang]
    ids = [r.id for r in latest.rules if r.id in keys][start:end]
    t = labels(lang)
    kinds = _labels(site, lang)
    template = site.templates["history"]
    lineage = site.lineage
    for rule_id in ids:
        path = U.history_page(lang, rule_id)
        u = U.Urls(path)
        rule = latest.by_id[rule_id]
        steps = []
        for step in lineage.steps(latest.name, rule_id):
            edition = site.by_name[step.edition]
            now = edition.get(step.number)
            text = content(now, lang)
            html = escape(text)
            if step.previous is not None and step.previous_edition is not None and step.kind != "first":
                before = content(site.by_name[step.previous_edition].get(step.previous), lang)
                if before != text:
                    html = inline(before, text)
            steps.append({
                "edition": edition_label(edition), "date": edition.effective.isoformat() if edition.effective else "",
                "set": site.sets.get(edition.effective.isoformat(), "") if edition.effective else "",
                "number": step.number, "previous": step.previous, "kind": step.kind,
                "label": kinds.get(step.kind, step.kind),
                "href": rule_href(site, u, edition, step.number),
                "previous_href": rule_href(site, u, site.by_name[step.previous_edition], step.previous)
                if step.previous and step.previous_edition else None,
                "html": html, "similarity": round(100 * step.similarity),
            })
        title = rule.title or (latest.by_id.get(rule.parent).title if rule.parent in latest.by_id else None) or ""
        html = template.render(
            lang=lang, t=t, u=u, goto=None, kinds=kinds,
            title=f"{t['history_of']} {rule_id} — {edition_label(latest)}",
            number=rule_id, rule_title=plain(title), href=rule_href(site, u, latest, rule_id), steps=steps,
            latest=edition_label(latest), edition_href=u.edition(latest.name),
        )
        site.write(out, path, html)
