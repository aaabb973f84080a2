"""Every URL of the static site, built in one place (datasette's ``url_builder.py``).

Paths are *site paths*: relative to the site root, ``/``-separated, no leading slash
(``en/2026-08-07/702.html``). Pages never print a site path: they print a link
*relative to themselves* (``702.html#702.37a``, ``../../index.html``) through
:class:`Urls`, so the site works opened from disk (``file://``) and from any
sub-folder of a web server. Anchors follow ``DESIGN.md``: the printed rule id
(``702.37a``), the citation alias (``R70237a``), the glossary slug.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from importlib import resources

from ..model import Edition, Rule, glossary_key

HOME = "index.html"
STATIC = "static"
LATEST = "latest"


@functools.cache
def static_files() -> dict[str, bytes]:
    """The site's static files as ``static/`` holds them: name → bytes. ``site.css`` ends
    with a font stack for each language of the language table that has one, wherever its
    text appears (``:lang(zh)`` also matches ``lang="zh-Hans"``): once in the stylesheet,
    not in each page's head (3 MB of the site's 15,000 pages)."""
    from .. import languages

    out = {}
    for item in resources.files("comprules.site").joinpath("static").iterdir():
        if item.is_file() and not item.name.startswith("."):
            out[item.name] = item.read_bytes()
    fonts = "".join(f":lang({x.code}){{font-family:{x.fonts}}}\n" for x in languages.all_languages() if x.fonts)
    if fonts and "site.css" in out:
        out["site.css"] += ("\n/* the language table's font stacks (languages.toml) */\n" + fonts).encode("utf-8")
    return out


@functools.cache
def static_names() -> dict[str, str]:
    """The site's static files (``site.css``, ``site.js`` …) → the content-hashed names
    pages link to (``site.1f3a9c0e2b.css``: the first 10 hex digits of the file's SHA-256,
    as :func:`static_files` writes it), so that a server may let browsers keep them a year
    (``Cache-Control: immutable``) and a new build's pages name new files. Both names are
    written into ``static/``."""
    out = {}
    for name, data in static_files().items():
        stem, dot, ext = name.rpartition(".")
        digest = hashlib.sha256(data).hexdigest()[:10]
        out[name] = f"{stem}.{digest}.{ext}" if dot else f"{name}.{digest}"
    return out


def edition_dir(name: str) -> str:
    """``en/2026-08-07`` → ``en/2026-08-07`` (an edition's folder is its name)."""
    return name


def latest_dir(lang: str) -> str:
    """``en`` → ``en/latest``, the alias folder of a language's latest edition."""
    return f"{lang}/{LATEST}"


def edition_index(name: str) -> str:
    """The table of contents of an edition, or the single page of a fragment."""
    return f"{edition_dir(name)}/index.html"


def section_page(name: str, section: str, part: int = 1) -> str:
    """``702`` → ``en/2026-08-07/702.html``; a long section's later parts ``702-2.html``."""
    suffix = "" if part == 1 else f"-{part}"
    return f"{edition_dir(name)}/{section}{suffix}.html"


def glossary_page(name: str, part: int = 1) -> str:
    """``glossary.html``; a long glossary's later parts ``glossary-2.html`` (by letter)."""
    return f"{edition_dir(name)}/glossary{'' if part == 1 else f'-{part}'}.html"


def all_page(name: str) -> str:
    """``en/2026-08-07/all.html``: the whole edition on one page (Ctrl+F, printing)."""
    return f"{edition_dir(name)}/all.html"


def redirect_page() -> str:
    """The page that takes a Yawgatog or mtg.wtf link (or just its ``#fragment``)."""
    return "go.html"


def data_file(name: str) -> str:
    """``/data/{lang}/{date}.json``, the edition's export (when a data dir is given)."""
    return f"data/{name}.json"


def _date(name: str) -> str:
    """``en/2026-08-07`` → ``2026-08-07`` (the part of an edition name after the language)."""
    return name.partition("/")[2] or name


def diff_index() -> str:
    """Every diff of consecutive editions, by language."""
    return "diff/index.html"


def diff_dir(old: str, new: str) -> str:
    """``en/2009-05-01``, ``en/2009-07-11`` → ``diff/en/2009-05-01..2009-07-11``."""
    return f"diff/{old.partition('/')[0]}/{_date(old)}..{_date(new)}"


def diff_page(old: str, new: str, section: str | None = None) -> str:
    """The summary of a diff (``index.html``), or one section's changes (``702.html``)."""
    return f"{diff_dir(old, new)}/{section or 'index'}.html"


def compare_editions_page(lang: str) -> str:
    """The page comparing any two editions of a language, in the browser (DESIGN.md: the
    diff of two editions, any two)."""
    return f"diff/{lang}/compare.html"


def edition_texts_script(name: str) -> str:
    """The texts of an edition's rules, for the comparison in the browser."""
    return f"diff/data/{name}.js"


def history_page(lang: str, key: str) -> str:
    """``/history/{lang}/{number in the latest edition}.html``."""
    return f"history/{lang}/{key}.html"


def history_index(lang: str) -> str:
    return f"history/{lang}/index.html"


def compare_dir(fr: str, en: str) -> str:
    """``fr/004_99dc…``, ``en/2005-10-01`` → ``compare/004_99dc…..2005-10-01`` (French, the
    permalinks of DESIGN.md); another language gets a folder of its own:
    ``zh/2026-04-17``, ``en/2026-04-17`` → ``compare/zh/2026-04-17..2026-04-17``."""
    lang = fr.partition("/")[0]
    head = "compare" if lang == "fr" else f"compare/{lang}"
    return f"{head}/{_date(fr)}..{_date(en)}"


def compare_page(fr: str, en: str, section: str | None = None) -> str:
    return f"{compare_dir(fr, en)}/{section or 'index'}.html"


def compare_index() -> str:
    return "compare/index.html"


def lexicon_page() -> str:
    return "compare/lexicon.html"


def search_page() -> str:
    return "search.html"


def data_page() -> str:
    """The list of every published data file (per-edition JSON, the graph)."""
    return "data.html"


def manifest_file() -> str:
    """The web app manifest of the served site (``comprules.site.offline``)."""
    return "manifest.webmanifest"


def service_worker() -> str:
    """The service worker, at the site's root so that its scope is the whole site."""
    return "sw.js"


def icon_file(size: int) -> str:
    """``192`` → ``static/icon-192.png``, the web app's icon drawn by the build."""
    return f"{STATIC}/icon-{size}.png"


def feed_file(lang: str | None = None) -> str:
    """The Atom feed of new editions: ``feed.xml`` (every language), ``en/feed.xml``."""
    return f"{lang}/feed.xml" if lang else "feed.xml"


def download_file(name: str) -> str:
    """``en/2026-08-07`` → ``download/en/2026-08-07.zip``, the edition as one zip."""
    return f"download/{name}.zip"


def editions_script() -> str:
    """The list of editions, read by the edition switcher."""
    return "lineage/editions.js"


def lineage_script(name: str) -> str:
    """Where each rule of an edition is, by lineage key (the edition switcher)."""
    return f"lineage/{name}.js"


def permalink(path: str) -> str:
    """The dated link of an edition page, the same from its ``latest/`` copy.

    ``en/2026-08-07/702.html`` → ``../2026-08-07/702.html``.
    """
    folder, _, base = path.rpartition("/")
    return f"../{folder.rpartition('/')[2]}/{base}"


def alias_anchor(number: str) -> str:
    """The citation-style alias anchor: ``702.37a`` → ``R70237a``, ``702`` → ``R702``."""
    return "R" + number.replace(".", "")


_ALIAS = re.compile(r"^R(\d)(\d\d)?(\d+)?([a-z]{0,2})$")


def mtgwtf_anchor(number: str) -> str:
    """mtg.wtf's anchor of a rule (``taw/magic-search-engine``, ``bin/format_comp_rules``):
    ``702.123a`` → ``section-702-123a``, ``100.`` → ``section-100``, ``7`` → ``section-7``."""
    return "section-" + re.sub(r"[^a-z0-9]", "-", number.lower().removesuffix("."))


_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_YAWGATOG_DROP = str.maketrans("", "", "\"',.")


def yawgatog_anchors(headword: str) -> list[str]:
    """Yawgatog's glossary anchors of a headword (as bra1n/judgebot ``modules/cr.ts``
    builds them): lower case; ``" ' , .`` dropped; any other character not
    ``[a-z0-9-]`` an underscore; ``_obsolete_`` removed; runs of underscores collapsed,
    ends trimmed. The CR prints curly quotes, which that function turns into ``_``;
    whether Yawgatog drops them is not known, so both forms are given (first the one
    with curly quotes read as straight ones, then the other, when it differs).

    >>> yawgatog_anchors("City’s Blessing")
    ['citys_blessing', 'city_s_blessing']
    >>> yawgatog_anchors("Active Player, Nonactive Player Order"), yawgatog_anchors("Mana Burn (Obsolete)")
    (['active_player_nonactive_player_order'], ['mana_burn'])
    """
    out: list[str] = []
    for text in (headword.translate(_CURLY), headword):
        s = re.sub(r"[^a-z0-9-]", "_", text.lower().translate(_YAWGATOG_DROP)).replace("_obsolete_", "_")
        s = re.sub(r"__+", "_", s).strip("_")
        if s and s not in out:
            out.append(s)
    return out


def number_from_alias(alias: str) -> str | None:
    """``R70237a`` → ``702.37a``; anything else → ``None``."""
    m = _ALIAS.match(alias)
    if not m:
        return None
    chapter, section, rule, letters = m.groups()
    if not section:
        return chapter if not (rule or letters) else None
    if not rule:
        return chapter + section if not letters else None
    return f"{chapter}{section}.{rule}{letters}"


def slugify(text: str) -> str:
    """A glossary anchor from a headword, as the parser makes ``GlossaryEntry.slug``.

    ``Base Toughness`` → ``base-toughness``; letters stay as they are (``dégâts``).
    """
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-")


def relative(from_page: str, to: str) -> str:
    """The link from one site page to a site path (optionally with ``#anchor``).

    >>> relative("en/2026-08-07/702.html", "en/2026-08-07/702.html#702.37a")
    '#702.37a'
    >>> relative("en/2026-08-07/702.html", "en/2026-08-07/601.html#601.2")
    '601.html#601.2'
    >>> relative("en/2026-08-07/index.html", "index.html")
    '../../index.html'
    """
    path, hash_, anchor = to.partition("#")
    if path == from_page and hash_:
        return "#" + anchor
    here, _, _ = from_page.rpartition("/")
    there, _, base = path.rpartition("/")
    if here == there:
        rel = base
    else:
        rel = _relpath(path, here)
    return rel + hash_ + anchor


def _relpath(path: str, here: str) -> str:
    """``posixpath.relpath(path, here or ".")`` for the site's own paths (relative, no
    ``.`` or ``..`` part), without its two calls to ``os.getcwd``; any other path goes
    to ``posixpath.relpath``."""
    to, start = path.split("/"), here.split("/") if here else []
    if path.startswith("/") or here.startswith("/") or {".", "..", ""} & {*to, *start}:
        return posixpath.relpath(path, here or ".")
    common = 0
    for a, b in zip(to, start):
        if a != b:
            break
        common += 1
    return "/".join([".."] * (len(start) - common) + to[common:]) or "."


@dataclass(frozen=True)
class Layout:
    """Where every unit of one edition lives: the page of each rule id.

    Chapters live on the edition's table of contents (anchor = chapter number), a
    section and its rules on the section's page (or one of its parts when the section
    is split to keep pages small), every unit of a fragment on its single page.
    """

    edition: str
    lang: str
    fragment: bool
    pages: dict[str, str]
    sections: dict[str, list[str]] = field(default_factory=dict)
    glossary: dict[str, str] = field(default_factory=dict)
    single: str | None = None
    glossary_parts: tuple[tuple[str, ...], ...] = ()

    def on_one_page(self, page: str) -> "Layout":
        """The same edition with every unit on ``page`` (its ``all.html``)."""
        return Layout(
            self.edition, self.lang, self.fragment, self.pages, self.sections, self.glossary, page, self.glossary_parts
        )

    @property
    def glossary_pages(self) -> dict[str, str]:
        """Glossary slug → the page (part) it is on."""
        try:
            return self.__dict__["_glossary_pages"]
        except KeyError:
            pages = {
                slug: glossary_page(self.edition, i + 1) for i, part in enumerate(self.glossary_parts) for slug in part
            }
            object.__setattr__(self, "_glossary_pages", pages)
            return pages

    def rule(self, rule_id: str) -> str | None:
        """Site path with anchor of a rule id, or ``None`` when the edition lacks it."""
        page = self.pages.get(rule_id)
        if page is not None and self.single:
            page = self.single
        return None if page is None else f"{page}#{rule_id}"

    def section(self, number: str) -> str | None:
        """Site path of a section's (first) page; a fragment's page with anchor."""
        if self.fragment or self.single:
            return self.rule(number)
        parts = self.sections.get(number)
        return parts[0] if parts else None

    def chapter(self, number: str) -> str | None:
        return self.rule(number)

    def glossary_term(self, term: str) -> str | None:
        """Site path of a glossary entry from its headword, alias or slug."""
        slug = next((self.glossary[k] for k in _glossary_variants(glossary_key(term)) if k in self.glossary), None)
        if slug is None:
            return None
        page = self.single or (
            edition_index(self.edition)
            if self.fragment
            else self.glossary_pages.get(slug) or glossary_page(self.edition)
        )
        return f"{page}#{slug}"

    def target(self, kind: str, number: str) -> str | None:
        """Site path of a reference target of any kind, or ``None`` (dangling)."""
        if kind == "glossary":
            return self.glossary_term(number)
        if kind == "section":
            return self.section(number)
        if kind == "chapter":
            return self.chapter(number)
        return self.rule(number)


def is_fragment(edition: Edition) -> bool:
    """A document without an effective date or marked as a fragment: one page."""
    return edition.kind == "fragment" or edition.effective is None


def split_parts(rules: list[Rule], budget: int, extra: dict[str, int] | None = None) -> list[list[Rule]]:
    """Cut a section's rules into the fewest pages of at most ~``budget`` characters.

    Cuts fall only before a rule (``NNN.N``), never between a rule and its subrules,
    and the parts are balanced (a 150,000-character section with a 100,000 budget
    makes two pages of ~75,000, not 100,000 + 50,000). ``extra`` adds weight per rule
    id (the "cited by" lists).
    """
    runs: list[list[Rule]] = []
    for rule in rules:
        if rule.kind == "rule" or not runs:
            runs.append([])
        runs[-1].append(rule)
    extra = extra or {}
    weights = [sum(_weight(r) + extra.get(r.id, 0) for r in run) for run in runs]
    total = sum(weights)
    count = max(1, -(-total // budget))
    parts: list[list[Rule]] = [[] for _ in range(count)]
    done = 0
    for run, weight in zip(runs, weights):
        middle = done + weight / 2
        parts[min(count - 1, int(middle * count // total))].extend(run)
        done += weight
    return [part for part in parts if part] or [[]]


def _weight(rule: Rule) -> int:
    """Characters a unit puts on a page, markup included (roughly)."""
    return len(rule.text) + sum(len(e) + 40 for e in rule.examples) + 90


def layout(
    edition: Edition, budget: int, extra: dict[str, int] | None = None
) -> tuple[Layout, dict[str, list[list[Rule]]]]:
    """Place every unit of an edition on a page; return the layout and section parts."""
    name = edition.name
    pages: dict[str, str] = {}
    glossary = _glossary_keys(edition)
    if is_fragment(edition):
        page = edition_index(name)
        pages = {r.id: page for r in edition.rules}
        return Layout(name, edition.lang, True, pages, {}, glossary), {}
    index = edition_index(name)
    by_section: dict[str, list[Rule]] = {}
    for rule in edition.rules:
        if rule.kind == "section":
            by_section.setdefault(rule.number, [])
        elif rule.kind != "chapter" and rule.section is not None:
            by_section.setdefault(rule.section, []).append(rule)
    parts_of: dict[str, list[list[Rule]]] = {}
    sections: dict[str, list[str]] = {}
    for section, rules in by_section.items():
        parts = split_parts(rules, budget, extra)
        parts_of[section] = parts
        sections[section] = [section_page(name, section, i + 1) for i in range(len(parts))]
        pages[section] = sections[section][0]
        for i, part in enumerate(parts):
            for rule in part:
                pages[rule.id] = sections[section][i]
    for rule in edition.rules:
        pages.setdefault(rule.id, index)  # chapters, and units outside any section
    glossary_parts = tuple(tuple(g.slug for g in part) for part in split_glossary(edition.glossary, budget * 4 // 3))
    return Layout(name, edition.lang, False, pages, sections, glossary, None, glossary_parts), parts_of


#: Markup a glossary entry adds beyond its text (anchors, headword link, "used in" links).
GLOSSARY_MARKUP = 330


def letter(term: str) -> str:
    """The A–Z heading of a glossary headword: its first Latin letter, upper case, or
    ``#`` (a digit or sign: "+1/+1 Counter"); ``""`` for a headword in another script."""
    for ch in term:
        if ch.isalnum():
            base = ch.upper()
            if "A" <= base <= "Z":
                return base
            if ch.isdigit():
                return "#"
            import unicodedata

            folded = unicodedata.normalize("NFKD", base)[:1]
            return folded if "A" <= folded <= "Z" else ""
    return "#"


def split_glossary(entries, budget: int) -> list[list]:
    """Cut a glossary into the fewest balanced parts of at most ~``budget`` characters,
    between two letters (never inside one, unless its headwords have no Latin letter).

    >>> from comprules.model import GlossaryEntry as G
    >>> gs = [G(t, (), False, ("x" * 60,), "x" * 60, 1, t.lower()) for t in ("Ab", "Ac", "Ba", "Ca")]
    >>> [[g.term for g in part] for part in split_glossary(gs, 800)]
    [['Ab', 'Ac'], ['Ba', 'Ca']]
    """
    runs: list[list] = []
    last = None
    for entry in entries:
        key = letter(entry.term)
        if not runs or key != last or not key:
            runs.append([])
        runs[-1].append(entry)
        last = key
    weights = [sum(len(e.text) + len(e.term) + GLOSSARY_MARKUP for e in run) for run in runs]
    total = sum(weights)
    if not total:
        return [list(entries)] if entries else []
    count = max(1, -(-total // budget))
    parts: list[list] = [[] for _ in range(count)]
    done = 0
    for run, weight in zip(runs, weights):
        parts[min(count - 1, int((done + weight / 2) * count // total))].extend(run)
        done += weight
    return [part for part in parts if part]


def _glossary_keys(edition: Edition) -> dict[str, str]:
    """Glossary lookup keys (``model.glossary_key``) → entry slug.

    Keys are the headword, its aliases, the comma-separated parts of a headword
    (``Active Player, Nonactive Player Order``) and the slug itself.
    """
    keys: dict[str, str] = {}
    for entry in edition.glossary:
        names = [entry.term, *entry.aliases, *(p for p in entry.term.split(", ") if p)]
        for name in names:
            keys.setdefault(glossary_key(name), entry.slug)
        keys.setdefault(entry.slug, entry.slug)
    return keys


def _glossary_variants(key: str) -> list[str]:
    """A printed headword's key, then its singular or plural ("Sources of Damage")."""
    if key.endswith("ies"):
        return [key, key[:-3] + "y"]
    if key.endswith("es"):
        return [key, key[:-1], key[:-2]]
    if key.endswith("s"):
        return [key, key[:-1]]
    return [key, key + "s"]


class Urls:
    """Links as printed on one page: every method returns a relative link.

    ``layout`` is the layout of the page's own edition (for references); pages that
    belong to no edition (the home page) pass ``None``.
    """

    def __init__(self, page: str, layout: Layout | None = None):
        self.page = page
        self.layout = layout
        self._cache: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        """The relative link from this page to a site path (``#anchor`` allowed)."""
        try:
            return self._cache[path]
        except KeyError:
            link = self._cache[path] = relative(self.page, path)
            return link

    def home(self) -> str:
        return self(HOME)

    def static(self, name: str) -> str:
        """A static file by its content-hashed name (:func:`static_names`)."""
        return self(f"{STATIC}/{static_names().get(name, name)}")

    def edition(self, name: str) -> str:
        return self(edition_index(name))

    def latest(self, lang: str) -> str:
        return self(f"{latest_dir(lang)}/index.html")

    def glossary(self, name: str) -> str:
        return self(glossary_page(name))

    def data(self, name: str) -> str:
        return self(data_file(name))

    def target(self, kind: str, number: str) -> str | None:
        """Link to a reference target of this page's edition, or ``None`` (dangling)."""
        path = self.layout.target(kind, number) if self.layout else None
        return None if path is None else self(path)

    def rule(self, rule_id: str) -> str | None:
        path = self.layout.rule(rule_id) if self.layout else None
        return None if path is None else self(path)

    def section(self, number: str) -> str | None:
        path = self.layout.section(number) if self.layout else None
        return None if path is None else self(path)
