"""Render editions into static HTML pages (jinja2, autoescaped, templates compiled once).

:class:`SiteRenderer` writes every page of a site into a folder; ``render_site`` (in
``__init__``) renders into a temporary folder beside the target and swaps it in.
Pages and their links follow ``DESIGN.md``'s URL scheme, built by :mod:`.urls`.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from ..model import Edition, Rule, sort_key
from . import urls as U
from .markdown import Extract, make_markdown, render_text


#: Characters of rule text per page before a long section is cut into parts; keeps
#: every section page under 150 KB (702, Keyword Abilities, is ~150 KB of text alone).
PAGE_BUDGET = 100_000

LANG_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch", "es": "Español",
              "it": "Italiano", "pt": "Português", "ja": "日本語"}

LABELS = {
    "en": {
        "site": "Magic: The Gathering Comprehensive Rules", "home": "Comprehensive Rules",
        "goto": "Go to rule", "go": "Go", "contents": "Contents", "glossary": "Glossary",
        "effective": "Effective", "latest": "Latest edition", "rules": "rules",
        "fragments": "Other documents", "fragment": "Document", "cited_by": "Cited by:",
        "obsolete": "Obsolete", "part": "part", "example": "Example:",
        "permalink": "Permalink",
    },
    "fr": {
        "site": "Règles complètes de Magic : L'Assemblée", "home": "Règles complètes",
        "goto": "Aller à la règle", "go": "Aller", "contents": "Sommaire",
        "glossary": "Glossaire", "effective": "En vigueur au", "latest": "Dernière édition",
        "rules": "règles", "fragments": "Autres documents", "fragment": "Document",
        "cited_by": "Citée par :", "obsolete": "Obsolète", "part": "partie",
        "example": "Exemple :", "permalink": "Lien permanent",
    },
}

_UNDERSCORES = re.compile(r"(?<!\w)_([^\s_](?:[^_]*?[^\s_])?)_(?!\w)")

_CLASSES = {"chapter": "ch", "section": "se", "rule": "r", "subrule": "sr",
            "passage": "pa", "note": "no"}


def labels(lang: str) -> dict[str, str]:
    """The interface's words in a language (English when not translated)."""
    return LABELS.get(lang, LABELS["en"])


@dataclass(frozen=True)
class SiteStats:
    """What a render wrote."""

    editions: int
    pages: int
    bytes: int
    largest_page: str
    largest_page_bytes: int
    largest_section_page: str
    largest_section_page_bytes: int
    links: int
    dangling: int
    seconds: float


@dataclass
class _Tally:
    pages: int = 0
    bytes: int = 0
    largest: tuple[int, str] = (0, "")
    largest_section: tuple[int, str] = (0, "")
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, path: str, size: int, section: bool) -> None:
        self.pages += 1
        self.bytes += size
        self.largest = max(self.largest, (size, path))
        if section:
            self.largest_section = max(self.largest_section, (size, path))


def default_extract() -> Extract:
    """The reference extractor of the pipeline, ``comprules.references.extract``."""
    from ..references import extract

    return extract


def cited_by_index(graph: Any) -> dict[str, dict[str, list[str]]]:
    """Citations of a knowledge-base graph: edition → cited rule id → citing rule ids.

    The graph is a networkx ``DiGraph`` whose nodes are rule ids across the knowledge
    base, ``{lang}/{date}/{id}`` (``en/2026-08-07/702.37a``), with an edge from the
    citing rule to the cited one; edges with a ``kind`` other than ``cites`` (such as
    alignments between editions) are ignored, as are citations across editions.
    """
    index: dict[str, dict[str, list[str]]] = {}
    if graph is None:
        return index
    for source, target, data in graph.edges(data=True):
        if data.get("kind", "cites") not in ("cites", "cite", "ref", "refs", "reference"):
            continue
        src_ed, _, src_id = _node_id(source)
        dst_ed, _, dst_id = _node_id(target)
        if src_ed and src_ed == dst_ed and src_id != dst_id:
            index.setdefault(dst_ed, {}).setdefault(dst_id, []).append(src_id)
    for per_edition in index.values():
        for citing in per_edition.values():
            citing[:] = sorted(set(citing), key=sort_key)
    return index


def _node_id(node: Any) -> tuple[str, str, str]:
    """``en/2026-08-07/702.37a`` → (edition, "/", rule id); a glossary node
    ``en/2026-08-07/glossary/morph`` → (edition, "/", ``glossary/morph``)."""
    if isinstance(node, tuple) and len(node) == 2:
        return str(node[0]), "/", str(node[1])
    text = str(node)
    head, sep, tail = text.rpartition("/")
    if head.endswith("/glossary"):
        return head.removesuffix("/glossary"), sep, "glossary/" + tail
    if text.count("/") < 2:
        return "", "", text
    return head, sep, tail


class SiteRenderer:
    """Render a set of editions into a folder; templates and markdown built once."""

    def __init__(
        self,
        editions: Sequence[Edition],
        *,
        graph: Any = None,
        data_dir: Path | None = None,
        extract: Extract | None = None,
        page_budget: int = PAGE_BUDGET,
    ):
        self.editions = list(editions)
        self.cited = cited_by_index(graph)
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.extract = extract if extract is not None else default_extract()
        self.page_budget = page_budget
        self.md = make_markdown()
        self.jinja = jinja2.Environment(
            loader=jinja2.PackageLoader("comprules.site", "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
            keep_trailing_newline=True,
        )
        self.templates = {
            name: self.jinja.get_template(f"{name}.html")
            for name in ("home", "edition", "section", "glossary", "fragment")
        }
        self.latest = latest_editions(self.editions)
        self.tally = _Tally()
        self.stats: dict[str, int] = {"links": 0, "dangling": 0}

    # -- whole site -----------------------------------------------------------

    def render(self, out: Path) -> SiteStats:
        """Write the whole site into ``out`` (an empty or new folder)."""
        started = time.perf_counter()
        out.mkdir(parents=True, exist_ok=True)
        self.copy_static(out)
        data = self.copy_data(out)
        for edition in self.editions:
            self.render_edition(edition, out, data_href=data.get(edition.name))
        for lang, edition in self.latest.items():
            self.copy_latest(out, edition, lang)
        self.render_home(out, graph_href=data.get("graph"))
        return SiteStats(
            editions=len(self.editions),
            pages=self.tally.pages,
            bytes=self.tally.bytes,
            largest_page=self.tally.largest[1],
            largest_page_bytes=self.tally.largest[0],
            largest_section_page=self.tally.largest_section[1],
            largest_section_page_bytes=self.tally.largest_section[0],
            links=self.stats["links"],
            dangling=self.stats["dangling"],
            seconds=time.perf_counter() - started,
        )

    def write(self, out: Path, path: str, html: str, *, section: bool = False) -> None:
        data = html.encode("utf-8")
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.tally.add(path, len(data), section)

    def copy_static(self, out: Path) -> None:
        dest = out / U.STATIC
        dest.mkdir(parents=True, exist_ok=True)
        for item in resources.files("comprules.site").joinpath("static").iterdir():
            if item.is_file() and not item.name.startswith("."):
                data = item.read_bytes()
                (dest / item.name).write_bytes(data)
                self.tally.bytes += len(data)

    def copy_data(self, out: Path) -> dict[str, str]:
        """Copy the data exports of the rendered editions (hard links when possible)."""
        found: dict[str, str] = {}
        if self.data_dir is None or not self.data_dir.is_dir():
            return found
        wanted = {e.name: U.data_file(e.name) for e in self.editions}
        wanted["graph"] = "data/graph.graphml"
        for key, path in wanted.items():
            source = self.data_dir / path.removeprefix("data/")
            if source.is_file():
                _link_or_copy(source, out / path)
                self.tally.bytes += source.stat().st_size
                found[key] = path
        return found

    def copy_latest(self, out: Path, edition: Edition, lang: str) -> None:
        """``{lang}/latest/`` as a copy of the latest edition's folder.

        Every link inside an edition folder is relative to that folder, and the pages
        sit at the same depth, so the copy works unchanged (hard links when possible).
        """
        source = out / U.edition_dir(edition.name)
        dest = out / U.latest_dir(lang)
        shutil.copytree(source, dest, copy_function=_link_or_copy)
        for path in dest.rglob("*.html"):
            self.tally.add(path.relative_to(out).as_posix(), path.stat().st_size, False)

    # -- pages ----------------------------------------------------------------

    def render_home(self, out: Path, graph_href: str | None = None) -> None:
        u = U.Urls(U.HOME)
        groups = []
        for lang in sorted({e.lang for e in self.editions}, key=_lang_order):
            mine = [e for e in self.editions if e.lang == lang]
            dated = sorted((e for e in mine if not U.is_fragment(e)),
                           key=lambda e: e.effective, reverse=True)
            fragments = sorted((e for e in mine if U.is_fragment(e)), key=lambda e: e.name)
            latest = self.latest.get(lang)
            groups.append({
                "lang": lang,
                "name": LANG_NAMES.get(lang, lang),
                "t": labels(lang),
                "latest": {"label": latest.effective.isoformat()} if latest else None,
                "editions": [
                    {"href": u.edition(e.name), "date": e.effective.isoformat(),
                     "count": len(e.numbered())}
                    for e in dated
                ],
                "fragments": [
                    {"href": u.edition(e.name), "title": e.title or e.name,
                     "stem": e.name.partition("/")[2]}
                    for e in fragments
                ],
            })
        goto_lang = "en" if "en" in self.latest else next(iter(self.latest), None)
        goto = {"base": u(U.latest_dir(goto_lang)) + "/", "fragment": False} if goto_lang else None
        html = self.templates["home"].render(
            lang="en", title=labels("en")["site"], t=labels("en"), u=u, goto=goto,
            languages=groups, graph_href=u(graph_href) if graph_href else None,
        )
        self.write(out, U.HOME, html)

    def render_edition(self, edition: Edition, out: Path, *, data_href: str | None = None) -> None:
        """Every page of one edition (or the single page of a fragment)."""
        cited = self.cited.get(edition.name, {})
        extra = {rule_id: 12 + 30 * len(citing) for rule_id, citing in cited.items()}
        layout, parts_of = U.layout(edition, self.page_budget, extra)
        page = _EditionPages(self, edition, layout, out)
        if layout.fragment:
            page.fragment(data_href)
            return
        page.toc(data_href, parts_of)
        page.glossary()
        page.sections(parts_of)


class _EditionPages:
    """The pages of one edition: shared context, one method per page kind."""

    def __init__(self, site: SiteRenderer, edition: Edition, layout: U.Layout, out: Path):
        self.site = site
        self.edition = edition
        self.layout = layout
        self.out = out
        self.t = labels(edition.lang)
        self.known = frozenset(edition.by_id)
        self.cited = site.cited.get(edition.name, {})
        self.terms = {} if layout.fragment else {g.slug: g.term for g in edition.glossary}
        latest = site.latest.get(edition.lang)
        self.ed = {
            "name": edition.name,
            "title": edition.title or site_title(edition),
            "label": edition_label(edition),
            "date": edition.effective.isoformat() if edition.effective else "",
            "source": Path(edition.source).name if edition.source else "",
            "is_latest": latest is not None and latest.name == edition.name,
        }

    def context(self, path: str, title: str, **extra: Any) -> dict[str, Any]:
        u = U.Urls(path, self.layout)
        # Valid from the dated folder and from its {lang}/latest/ copy alike.
        permalink = None if self.layout.fragment else U.permalink(path)
        return {"lang": self.edition.lang, "title": title, "t": self.t, "u": u, "ed": self.ed,
                "goto": {"base": "", "fragment": self.layout.fragment},
                "permalink": permalink, **extra}

    def env(self, u: U.Urls) -> dict[str, Any]:
        return {"extract": self.site.extract, "lang": self.edition.lang, "known": self.known,
                "edition": self.edition.name, "urls": u, "stats": self.site.stats}

    def text(self, text: str, env: dict[str, Any]) -> Markup:
        return Markup(render_text(self.site.md, text, env)) if text else Markup("")

    def inline(self, text: str) -> Markup:
        """A title or headword: emphasis only, no reference links."""
        return Markup(render_text(self.site.md, text, {})) if text else Markup("")

    def rule_views(self, rules: Iterable[Rule], u: U.Urls) -> list[dict[str, Any]]:
        env = self.env(u)
        return [self.rule_view(r, u, env) for r in rules]

    def rule_view(self, r: Rule, u: U.Urls, env: dict[str, Any]) -> dict[str, Any]:
        text = r.text or ""
        heading = r.title
        if heading and text.startswith(heading):
            text = text[len(heading):].lstrip()
        numbered = r.kind in ("chapter", "section", "rule", "subrule")
        if r.kind == "subrule":
            label = r.number
        elif numbered:
            label = r.number + "."
        elif r.kind == "passage" and "¶" in r.id:
            label = "¶" + r.id.partition("¶")[2]
        else:
            label = ""
        return {
            "id": r.id,
            "alias": U.alias_anchor(r.id) if numbered and "~" not in r.id else "",
            "label": label,
            "cls": _CLASSES.get(r.kind, r.kind),
            "heading": self.inline(heading) if heading else None,
            "html": self.text(text, env),
            "examples": [self.text(ex, env) for ex in r.examples],
            "cited_by": self.cited_by(r.id, u),
        }

    def cited_by(self, rule_id: str, u: U.Urls) -> list[tuple[str, str]]:
        """(label, link) of each rule or glossary entry citing a rule (from the graph)."""
        cited = []
        for citing in self.cited.get(rule_id, ()):
            if citing.startswith("glossary/"):
                slug = citing.partition("/")[2]
                term = self.terms.get(slug)
                if term:
                    cited.append((plain(term), u(f"{U.glossary_page(self.edition.name)}#{slug}")))
            elif href := u.rule(citing):
                cited.append((citing, href))
        return cited

    def toc(self, data_href: str | None, parts_of: dict[str, list[list[Rule]]]) -> None:
        """The table of contents: chapters, their sections, units outside any section."""
        path = U.edition_index(self.edition.name)
        ctx = self.context(path, self.ed["title"])
        u = ctx["u"]
        chapters: dict[str, dict[str, Any]] = {}
        for r in self.edition.rules:
            if r.kind == "chapter":
                chapters.setdefault(r.number, {"id": r.id, "number": r.number,
                                               "title": self.inline(r.title or r.text),
                                               "sections": []})
        heads = self.heads()
        for number in parts_of:
            head = heads.get(number)
            ch = (head.chapter if head else None) or number[:1]
            chapter = chapters.setdefault(ch, {"id": ch, "number": ch, "title": "",
                                               "sections": []})
            title = (head.title or head.text) if head else ""
            chapter["sections"].append({"number": number, "title": self.inline(title),
                                        "href": u.section(number)})
        others = [r for r in self.edition.rules
                  if r.kind != "chapter" and self.layout.pages.get(r.id) == path]
        self.ed["data_href"] = u(data_href) if data_href else None
        html = self.site.templates["edition"].render(
            **ctx, chapters=list(chapters.values()), rules=self.rule_views(others, u),
        )
        self.site.write(self.out, path, html)

    def glossary(self) -> None:
        path = U.glossary_page(self.edition.name)
        ctx = self.context(path, f"{self.t['glossary']} — {self.ed['label']}")
        html = self.site.templates["glossary"].render(**ctx, entries=self.entries(ctx["u"]))
        self.site.write(self.out, path, html)

    def entries(self, u: U.Urls) -> list[dict[str, Any]]:
        env = self.env(u)
        views = []
        seen: set[str] = {e.slug for e in self.edition.glossary}
        for entry in self.edition.glossary:
            anchors = []
            for alias in (entry.term, *entry.aliases):
                slug = U.slugify(alias)
                if slug and slug not in seen:
                    seen.add(slug)
                    anchors.append(slug)
            senses = entry.senses or ((entry.text,) if entry.text else ())
            views.append({
                "slug": entry.slug, "term": self.inline(entry.term),
                "aliases": [self.inline(a) for a in entry.aliases],
                "obsolete": entry.obsolete, "anchors": anchors,
                "senses": [(i + 1 if len(senses) > 1 else None, self.text(s, env))
                           for i, s in enumerate(senses)],
            })
        return views

    def heads(self) -> dict[str, Rule]:
        """Section number → its section unit (the first, if the number is duplicated)."""
        heads: dict[str, Rule] = {}
        for s in self.edition.sections():
            heads.setdefault(s.number, s)
        return heads

    def sections(self, parts_of: dict[str, list[list[Rule]]]) -> None:
        """Every section page (and part), in document order, with prev/next links.

        Sections come from the layout, so that a section whose heading the parser
        missed still gets the page its rules' links point to.
        """
        name = self.edition.name
        heads = self.heads()
        pages = [(number, i + 1, part) for number, parts in parts_of.items()
                 for i, part in enumerate(parts)]
        for k, (number, part_no, rules) in enumerate(pages):
            head = heads.get(number)
            head_title = (head.title or head.text) if head else ""
            count = len(parts_of[number])
            path = U.section_page(name, number, part_no)
            part_label = f"({self.t['part']} {part_no}/{count})" if count > 1 else ""
            ctx = self.context(path, f"{number}. {plain(head_title)} — {self.ed['label']}")
            u = ctx["u"]
            anchor = number if part_no == 1 else f"{number}-{part_no}"
            sec = {
                "id": anchor,
                "alias": U.alias_anchor(number) if part_no == 1 else "",
                "number": number,
                "title": self.inline(head_title),
                "self_href": "#" + anchor,
                "cited_by": self.cited_by(head.id, u) if head and part_no == 1 else [],
                "part_label": part_label,
                "parts": " ".join(str(_rule_integer(p[0].number) if p else 0)
                                  for p in parts_of[number]) if count > 1 else "",
            }
            html = self.site.templates["section"].render(
                **ctx, sec=sec, rules=self.rule_views(rules, u),
                prev=self._neighbour(pages, k - 1, u), next=self._neighbour(pages, k + 1, u),
            )
            self.site.write(self.out, path, html, section=True)

    def _neighbour(self, pages: list, k: int, u: U.Urls) -> dict[str, str] | None:
        if not 0 <= k < len(pages):
            return None
        number, part_no, _ = pages[k]
        label = number if part_no == 1 else f"{number} ({part_no})"
        return {"href": u(U.section_page(self.edition.name, number, part_no)), "label": label}

    def fragment(self, data_href: str | None) -> None:
        """The single page of a document without a date: every unit in order."""
        path = U.edition_index(self.edition.name)
        ctx = self.context(path, f"{self.ed['title']} — {self.ed['label']}")
        u = ctx["u"]
        self.ed["data_href"] = u(data_href) if data_href else None
        html = self.site.templates["fragment"].render(
            **ctx, rules=self.rule_views(self.edition.rules, u), entries=self.entries(u),
        )
        self.site.write(self.out, path, html)


def latest_editions(editions: Iterable[Edition]) -> dict[str, Edition]:
    """The latest dated (non-fragment) edition of each language."""
    latest: dict[str, Edition] = {}
    for e in editions:
        if U.is_fragment(e):
            continue
        if e.lang not in latest or e.effective > latest[e.lang].effective:
            latest[e.lang] = e
    return latest


def edition_label(edition: Edition) -> str:
    """``en 2026-08-07`` for an edition, ``fr 003_816c…`` for a fragment."""
    lang, _, key = edition.name.partition("/")
    return f"{lang} {key}" if key else edition.name


def plain(text: str) -> str:
    """Text for ``<title>``: underscore italics unmarked (``_Magic_`` → ``Magic``)."""
    return _UNDERSCORES.sub(r"\1", text) if "_" in text else text


def site_title(edition: Edition) -> str:
    return labels(edition.lang)["site"]


def _rule_integer(number: str) -> int:
    """``702.37a`` → 37 (the rule part, which decides a split section's page)."""
    _, _, rest = number.partition(".")
    digits = ""
    for ch in rest:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def _lang_order(lang: str) -> tuple[int, str]:
    return (0 if lang == "en" else 1 if lang == "fr" else 2, lang)


def _link_or_copy(source: str | Path, dest: str | Path) -> None:
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)

