"""The static site: pages, anchors, links that resolve on disk, escaping, atomic swap.

Small hand-written editions (own text, not the CR's) test each behaviour with a tiny
fake extractor that follows ``comprules.references.Reference``'s contract; the real
corpus tests render real editions with the real parser and extractor.
:func:`broken_links` is a reusable crawler: every internal ``href``/``src`` of a site
folder must name an existing file and, with ``#anchor``, an element with that id.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from comprules.model import Edition, GlossaryEntry, Rule, number_kind, parent_number
from comprules.references import Reference
from comprules.site import SiteRenderer, render_site
from comprules.site import urls as U
from comprules.site.changes import read_texts_script
from comprules.site.markdown import make_markdown, render_text

STATIC_JS = Path(__file__).resolve().parent.parent / "src/comprules/site/static/site.js"


# -- a reusable crawler ---------------------------------------------------------


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.lang: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "html":
            self.lang = a.get("lang")
        for name in ("href", "src"):
            if a.get(name) is not None and tag in ("a", "link", "script", "img"):
                self.links.append(a[name])


def parse_page(path: Path) -> _PageParser:
    """The ids, links and ``<html lang>`` of one HTML file."""
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


_ID = re.compile(r'\sid="([^"]*)"')
#: Links and sources, but not the URLs the CR prints (``rel="external"``: not a request) nor
#: the zips the server makes when asked (``data-served``: from disk site.js shows the command).
_LINK = re.compile(r'<(?:a|link|script|img)\b(?![^>]*\s(?:rel="external"|data-served=))[^>]*?\s(?:href|src)="([^"]*)"')


@dataclass
class _FastPage:
    ids: set[str]
    links: list[str]


def _fast_page(path: Path) -> _FastPage:
    """The ids and links of a page this site wrote (regular markup: regular expressions
    read it ten times faster than ``HTMLParser``; attribute values unescaped)."""
    from html import unescape

    text = path.read_text(encoding="utf-8")
    return _FastPage({unescape(i) for i in _ID.findall(text)}, [unescape(h) for h in _LINK.findall(text)])


def broken_links(site: Path, pages: list[Path] | None = None) -> list[str]:
    """Every internal link of the site's pages that does not resolve on disk.

    A link resolves when, taken relative to its page (as ``file://`` does), it names
    an existing file (not a folder: there is no ``index.html`` fallback on disk) and
    its ``#anchor``, if any, is the id of an element of that file. External links
    (with a scheme or ``//``) are reported as broken too: the site makes no requests.
    """
    site = site.resolve()
    root = str(site)
    cache: dict[str, _FastPage] = {}
    is_file: dict[str, bool] = {}

    def page(path: str) -> _FastPage:
        if path not in cache:
            cache[path] = _fast_page(Path(path))
        return cache[path]

    problems = []
    for source in pages if pages is not None else sorted(site.rglob("*.html")):
        source_path = str(source.resolve())
        here = os.path.dirname(source_path)
        name = os.path.relpath(source_path, root)
        for link in page(source_path).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                problems.append(f"{name}: {link} (external)")
                continue
            target = os.path.normpath(os.path.join(here, unquote(parts.path))) if parts.path else source_path
            if target not in is_file:
                is_file[target] = os.path.isfile(target)
            if not is_file[target]:
                problems.append(f"{name}: {link} (no such file)")
            elif not target.startswith(root + os.sep):
                problems.append(f"{name}: {link} (outside the site)")
            elif parts.fragment and target.endswith(".html"):
                if unquote(parts.fragment) not in page(target).ids:
                    problems.append(f"{name}: {link} (no such anchor)")
    return problems


# -- hand-built editions ----------------------------------------------------------


_FAKE = re.compile(
    r"rules? (?:(?P<range>(?P<base>\d{3}\.\d+)(?P<a>[a-z])–(?P<b>[a-z]))"
    r"|(?P<num>\d{3}(?:\.\d+[a-z]{0,2})?))"
    r"|section (?P<chapter>\d)\b"
    r"|See (?P<term>[A-Z][a-z]+(?: [A-Z][a-z]+)*)\."
)


def fake_extract(text: str, lang: str = "en") -> list[Reference]:
    """Ranges ``101.2a–c``, ``rule 101.2a``, ``rule 100``, ``section 1``, ``See Mana Pool.``"""
    out = []
    for m in _FAKE.finditer(text):
        if m["range"]:
            base, a, b = m["base"], m["a"], m["b"]
            targets = tuple(base + chr(c) for c in range(ord(a), ord(b) + 1))
            parts = ((m.start("base"), m.end("a"), base + a), (m.start("b"), m.end("b"), base + b))
            out.append(Reference(m.start(), m.end(), "rule", targets, parts))
        elif m["num"]:
            n = m["num"]
            kind = "rule" if "." in n else "section"
            out.append(Reference(m.start("num"), m.end("num"), kind, (n,), ((m.start("num"), m.end("num"), n),)))
        elif m["chapter"]:
            c = m["chapter"]
            out.append(
                Reference(
                    m.start("chapter"), m.end("chapter"), "chapter", (c,), ((m.start("chapter"), m.end("chapter"), c),)
                )
            )
        else:
            t = m["term"]
            out.append(
                Reference(m.start("term"), m.end("term"), "glossary", (t,), ((m.start("term"), m.end("term"), t),))
            )
    return out


def make_rule(
    number: str, text: str = "", *, title: str | None = None, examples: tuple[str, ...] = (), rule_id: str | None = None
) -> Rule:
    kind = number_kind(number)
    section = number[:3] if kind != "chapter" else None
    return Rule(
        id=rule_id or number,
        number=number,
        kind=kind,
        text=text or (title or ""),
        line=1,
        title=title,
        examples=examples,
        parent=parent_number(number),
        section=section,
        chapter=number[0],
    )


def entry(
    term: str, text: str, *, aliases: tuple[str, ...] = (), obsolete: bool = False, slug: str | None = None
) -> GlossaryEntry:
    return GlossaryEntry(
        term=term, aliases=aliases, obsolete=obsolete, senses=(text,), text=text, line=1, slug=slug or U.slugify(term)
    )


def make_edition(
    name: str, rules: list[Rule], glossary: tuple[GlossaryEntry, ...] = (), *, kind: str = "edition"
) -> Edition:
    lang, _, key = name.partition("/")
    effective = date.fromisoformat(key) if kind == "edition" else None
    return Edition(
        name=name,
        lang=lang,
        effective=effective,
        kind=kind,
        source=f"{key}.txt",
        sha256="0" * 64,
        title=f"Test rules {key}",
        rules=tuple(rules),
        glossary=glossary,
    )


def small_edition(name: str = "en/2030-01-01") -> Edition:
    return make_edition(
        name,
        [
            make_rule("1", title="Basics"),
            make_rule("100", title="General"),
            make_rule("100.1", "A game has two sides. See rule 101.2a, and rules 101.2a–c."),
            make_rule("100.1a", "Hostile text <script>alert(1)</script> & friends stay text."),
            make_rule(
                "100.2",
                "1. not a list\n# not a heading\n    not code, and _Tabletop_ is italic while 1+* stays a star.",
            ),
            make_rule("101", title="Turns"),
            make_rule("101.1", title="Untapping"),
            make_rule(
                "101.1a", "Untapping happens first. See section 2.", examples=("A player untaps. See rule 100.1.",)
            ),
            make_rule("101.2", "Steps follow each other."),
            make_rule("101.2a", "The first step. See Mana Pool."),
            make_rule("101.2b", "The second step, see rule 999.9 which does not exist."),
            make_rule("101.2c", "The third step, see rule 100."),
            make_rule("2", title="More"),
            make_rule("200", title="Other Things"),
            make_rule("200.1", "Other things follow rule 100.1a."),
            make_rule("200.1", "A duplicated number is kept.", rule_id="200.1~2"),
        ],
        (
            entry(
                "Control, Controller",
                "Who decides. See rule 100.1.",
                aliases=("Controller",),
                slug="control-controller",
            ),
            entry("Mana Pool", "Where mana waits. See Control."),
            entry("Old Term", "No longer used.", obsolete=True),
        ),
    )


def fragment() -> Edition:
    return make_edition(
        "fr/000_abcdef",
        [
            Rule(id="¶1", number="¶1", kind="passage", text="Une question de forum.", line=1),
            make_rule("402", title="Capacités"),
            Rule(
                id="402¶1",
                number="402¶1",
                kind="passage",
                text="Voir règle 402.1.",
                line=3,
                parent="402",
                section="402",
                chapter="4",
            ),
            make_rule("402.1", "Une règle citée, voir rule 402.1 et rule 999.1."),
        ],
        kind="fragment",
    )


@pytest.fixture
def small_site(tmp_path) -> Path:
    out = tmp_path / "site"
    editions = [small_edition(), small_edition("en/2020-05-05"), fragment()]
    render_site(editions, out, extract=fake_extract, search=False, jobs=1)
    return out


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# -- pages and anchors -------------------------------------------------------------


def test_section_page_has_an_element_per_rule_with_the_rule_number_as_id(small_site):
    ids = parse_page(small_site / "en/2030-01-01/101.html").ids
    assert {"101", "101.1", "101.1a", "101.2", "101.2a", "101.2b", "101.2c"} <= ids


def test_each_rule_also_has_the_citation_style_alias_anchor_R70237a(small_site):
    ids = parse_page(small_site / "en/2030-01-01/101.html").ids
    assert {"R101", "R1011", "R1011a", "R1012c"} <= ids


def test_duplicate_numbers_keep_both_rules_with_their_own_ids(small_site):
    html = read(small_site / "en/2030-01-01/200.html")
    assert 'id="200.1"' in html and 'id="200.1~2"' in html
    assert "A duplicated number is kept." in html


def test_examples_are_styled_apart_from_rule_text(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert re.search(r'<p class="ex"><span class="exl">Example:</span> A player untaps', html)


def test_edition_index_lists_chapters_and_sections_with_titles(small_site):
    page = small_site / "en/2030-01-01/index.html"
    html = read(page)
    assert {"1", "2"} <= parse_page(page).ids
    assert '<a href="101.html">101. Turns</a>' in html
    assert '<a href="glossary.html">Glossary</a>' in html


def test_previous_and_next_links_walk_the_sections_in_order(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert '<a rel="prev" href="100.html">' in html
    assert '<a rel="next" href="200.html">' in html


def test_home_lists_documents_first_then_editions_by_language_latest_first(small_site):
    html = read(small_site / "index.html")
    assert html.index("en/2030-01-01/index.html") < html.index("en/2020-05-05/index.html")
    docs = html.index('<section class="docs" lang="fr" id="fr-documents"')
    assert (
        docs
        < html.index('<a href="fr/000_abcdef/index.html">Test rules 000_abcdef</a>')
        < html.index('<section class="lang" lang="en" id="en">')
    )
    # what the document is, in its language (the sections it quotes come from a knowledge base's
    # database: tests/test_documents.py; this site is rendered from editions alone)
    assert "Extrait des Règles complètes<" in html or "Extrait des Règles complètes\n" in html
    assert 'href="en/latest/index.html"' in html


def test_data_files_are_off_the_main_menu_on_a_data_page(tmp_path):
    data = tmp_path / "data"
    (data / "en").mkdir(parents=True)
    (data / "en/2030-01-01.json").write_text("{}", encoding="utf-8")
    (data / "graph.graphml").write_text("<graphml/>", encoding="utf-8")
    out = tmp_path / "site"
    render_site([small_edition(), fragment()], out, extract=fake_extract, data_dir=data, search=False, jobs=1)
    home = read(out / "index.html")
    menu = re.search(r'<nav class="links".*?</nav>', home).group(0)
    assert 'href="data.html">Data</a>' in menu and "graphml" not in home
    page = read(out / "data.html")
    assert '<a href="data/graph.graphml">graph.graphml</a>' in page
    assert '<a href="data/en/2030-01-01.json">2030-01-01.json</a>' in page
    assert broken_links(out) == []


def test_html_lang_attribute_follows_the_edition_language(small_site):
    assert parse_page(small_site / "en/2030-01-01/100.html").lang == "en"
    assert parse_page(small_site / "fr/000_abcdef/index.html").lang == "fr"


def test_glossary_has_an_anchor_per_entry_aliases_and_obsolete_marked(small_site):
    page = small_site / "en/2030-01-01/glossary.html"
    ids = parse_page(page).ids
    assert {"control-controller", "controller", "mana-pool", "old-term"} <= ids
    html = read(page)
    assert '<dt id="old-term" class="obsolete">' in html and "Obsolete" in html


def test_fragment_has_one_page_showing_its_passages_and_rules_in_order(small_site):
    page = small_site / "fr/000_abcdef/index.html"
    html = read(page)
    assert html.index("Une question de forum") < html.index("Capacités") < html.index("Une règle citée")
    assert {"¶1", "402", "402¶1", "402.1"} <= parse_page(page).ids
    assert 'href="#402.1"' in html  # a reference inside a fragment stays on its page
    assert "Aller à une règle" in html  # the go-to box speaks French on a French document


def test_latest_alias_is_a_working_copy_of_the_latest_edition(small_site):
    latest = small_site / "en/latest"
    assert read(latest / "101.html") == read(small_site / "en/2030-01-01/101.html")
    assert not (small_site / "fr/latest").exists()  # fragments only: no latest
    assert broken_links(small_site, sorted(latest.glob("*.html"))) == []


def test_every_internal_link_resolves_to_an_existing_file_and_anchor(small_site):
    assert broken_links(small_site) == []


def test_static_files_are_copied_and_no_page_requests_anything_external(small_site):
    assert (small_site / "static/site.css").is_file()
    assert (small_site / "static/site.js").is_file()
    css = read(small_site / "static/site.css")
    assert "prefers-color-scheme: dark" in css and "@media print" in css
    assert "http" not in css and "@import" not in css and "url(" not in css


# -- references as links -------------------------------------------------------------


def test_reference_to_a_subrule_on_another_page_links_to_its_section_page_anchor(small_site):
    html = read(small_site / "en/2030-01-01/100.html")
    assert 'See rule <a href="101.html#101.2a">101.2a</a>' in html


def test_range_101_2a_to_c_links_each_printed_member(small_site):
    html = read(small_site / "en/2030-01-01/100.html")
    assert 'rules <a href="101.html#101.2a">101.2a</a>–<a href="101.html#101.2c">c</a>' in html


def test_section_reference_links_to_the_section_page(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert 'see rule <a href="100.html">100</a>' in html


def test_chapter_reference_links_to_the_chapter_anchor_of_the_edition_index(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert 'See section <a href="index.html#2">2</a>' in html


def test_glossary_reference_links_to_the_glossary_entry(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert 'See <a href="glossary.html#mana-pool">Mana Pool</a>' in html
    glossary = read(small_site / "en/2030-01-01/glossary.html")
    assert 'See <a href="#control-controller">Control</a>' in glossary


def test_reference_in_an_example_is_a_link_too(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert 'A player untaps. See rule <a href="100.html#100.1">100.1</a>' in html


def test_unknown_target_is_not_linked_but_marked_dangling(small_site):
    html = read(small_site / "en/2030-01-01/101.html")
    assert '<span class="dangling">999.9</span>' in html
    assert 'href="999.html' not in html


def test_rule_text_script_tag_is_shown_escaped(small_site):
    html = read(small_site / "en/2030-01-01/100.html")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; friends" in html
    assert "<script>alert" not in html


def test_markdown_block_syntax_in_rule_text_is_left_as_text(small_site):
    html = read(small_site / "en/2030-01-01/100.html")
    assert "<ol" not in html and "<h1>1" not in html and "<pre" not in html and "<code" not in html
    assert "1. not a list\n# not a heading\n    not code" in html


def test_underscore_italics_render_as_emphasis_but_a_lone_star_does_not(small_site):
    html = read(small_site / "en/2030-01-01/100.html")
    assert "<em>Tabletop</em>" in html
    assert "1+* stays a star" in html


def test_reference_inside_emphasis_is_linked():
    md = make_markdown()
    layout, _ = U.layout(small_edition(), 100_000)
    env = {"extract": fake_extract, "lang": "en", "known": {"101.2a"}, "urls": U.Urls("en/2030-01-01/100.html", layout)}
    html = render_text(md, "_see rule 101.2a_ now", env)
    assert html == '<em>see rule <a href="101.html#101.2a">101.2a</a></em> now'


def test_a_text_of_megabytes_keeps_its_references_and_escapes_but_no_url_is_looked_for():
    # tests/test_fuzz.py: a 10 MB source on one line spent 13 s in linkify-it's search
    from comprules.site.markdown import LINKIFY_LONGEST

    md = make_markdown()
    layout, _ = U.layout(small_edition(), 100_000)
    env = {"extract": fake_extract, "lang": "en", "known": {"101.2a"}, "urls": U.Urls("en/2030-01-01/100.html", layout)}
    short = "See Magic.Wizards.com and rule 101.2a <b>."
    assert '<a href="http://Magic.Wizards.com" class="url"' in render_text(md, short, env)
    long = short + " x" * (LINKIFY_LONGEST // 2)
    html = render_text(md, long, env)
    assert ".Wizards.com and rule" in html and "http://" not in html
    assert '<a href="101.html#101.2a">101.2a</a> &lt;b&gt;.' in html
    assert render_text(md, short, env) == render_text(make_markdown(), short, env)  # md itself unchanged


def test_plugin_is_a_core_rule_splitting_text_tokens_into_link_tokens():
    md = make_markdown()
    layout, _ = U.layout(small_edition(), 100_000)
    env = {
        "extract": fake_extract,
        "lang": "en",
        "known": {"101.2a", "101.2c"},
        "urls": U.Urls("en/2030-01-01/100.html", layout),
    }
    tokens = md.parseInline("rules 101.2a–c apply", env)[0].children
    assert [t.type for t in tokens] == [
        "text",
        "link_open",
        "text",
        "link_close",
        "text",
        "link_open",
        "text",
        "link_close",
        "text",
    ]
    assert [t.content for t in tokens if t.type == "text"] == ["rules ", "101.2a", "–", "c", " apply"]


# -- urls -----------------------------------------------------------------------------


def test_urls_are_relative_to_the_page_so_the_site_works_from_disk():
    assert U.relative("en/2026-08-07/702.html", "en/2026-08-07/702.html#702.37a") == "#702.37a"
    assert U.relative("en/2026-08-07/702.html", "en/2026-08-07/601.html#601.2") == "601.html#601.2"
    assert U.relative("en/2026-08-07/index.html", "index.html") == "../../index.html"
    assert U.relative("index.html", "en/latest/index.html") == "en/latest/index.html"
    assert U.relative("en/latest/702.html", "static/site.css") == "../../static/site.css"


def test_alias_anchor_R70237a_round_trips_to_the_rule_number():
    assert U.alias_anchor("702.37a") == "R70237a"
    assert U.alias_anchor("704.5aa") == "R7045aa"
    assert U.number_from_alias("R70237a") == "702.37a"
    assert U.number_from_alias("R702") == "702"
    assert U.number_from_alias("702.37a") is None


# -- go to rule (site.js, run with node when present) -----------------------------------


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_go_to_rule_box_understands_702_37a_and_R70237a():
    script = (
        f"const m = require({json.dumps(str(STATIC_JS))});"
        "const out = ['702.37a', 'R70237a', 'rule 702.37a', '702', '7', 'nonsense']"
        ".map(q => { const r = m.parse(q); return r && m.href('en/latest/', false, r); });"
        "console.log(JSON.stringify(out));"
    )
    result = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [
        "en/latest/702.html#702.37a",
        "en/latest/702.html#702.37a",
        "en/latest/702.html#702.37a",
        "en/latest/702.html",
        "en/latest/index.html#7",
        None,
    ]


def test_go_to_rule_box_is_on_every_page_with_the_edition_it_looks_in(small_site):
    assert re.search(
        r'class="find goto" role="search" data-edition="en/2030-01-01" data-base="en/latest/" data-root=""',
        read(small_site / "index.html"),
    )
    assert 'data-edition="en/2030-01-01" data-base="" data-root="../../"' in read(
        small_site / "en/2030-01-01/index.html"
    )
    assert 'data-edition="en/2020-05-05" data-base="" data-root="../../"' in read(small_site / "en/2020-05-05/101.html")
    for path in ("diff/index.html", "fr/000_abcdef/index.html"):
        assert '<form class="find goto" role="search"' in read(small_site / path), path


# -- long sections, graph, data, atomic swap -------------------------------------------


def long_edition() -> Edition:
    rules = [make_rule("7", title="Extra"), make_rule("702", title="Long Section")]
    for n in range(1, 41):
        rules.append(make_rule(f"702.{n}", title=f"Keyword {n}"))
        rules.append(make_rule(f"702.{n}a", "Words of a long rule. " * 60))
    rules.append(make_rule("703", title="Next"))
    rules.append(make_rule("703.1", "See rule 702.40a and rule 702.1a."))
    return make_edition("en/2031-01-01", rules)


def test_long_section_is_split_into_parts_and_links_point_to_the_right_part(tmp_path):
    out = tmp_path / "site"
    SiteRenderer([long_edition()], extract=fake_extract, page_budget=20_000).render(out)
    folder = out / "en/2031-01-01"
    count = len(list(folder.glob("702*.html")))
    parts = ["702.html"] + [f"702-{k}.html" for k in range(2, count + 1)]
    assert count > 1 and all((folder / p).is_file() for p in parts)
    assert all(p.stat().st_size < 30_000 for p in folder.glob("702*.html"))
    html = read(folder / "703.html")
    last = parts[-1]
    assert f'<a href="{last}#702.40a">702.40a</a>' in html
    assert '<a href="702.html#702.1a">702.1a</a>' in html
    body = re.search(r'<body data-section="702" data-parts="([\d ]+)">', read(folder / "702.html"))
    assert body and body.group(1).split()[0] == "1"
    assert broken_links(out) == []


def test_section_without_a_heading_unit_still_gets_its_page(tmp_path):
    edition = make_edition(
        "en/2032-01-01",
        [
            make_rule("1", title="One"),
            make_rule("100.1", "A rule whose section heading was lost. See rule 101.1."),
            make_rule("101", title="Kept"),
            make_rule("101.1", "Back to rule 100.1."),
        ],
    )
    out = tmp_path / "site"
    render_site([edition], out, extract=fake_extract, search=False)
    assert "100.1" in parse_page(out / "en/2032-01-01/100.html").ids
    assert '<a href="100.html">100. </a>' in read(out / "en/2032-01-01/index.html")
    assert broken_links(out) == []


def test_cited_by_list_under_each_cited_rule_links_back_to_the_citing_rules(tmp_path):
    nx = pytest.importorskip("networkx")
    graph = nx.MultiDiGraph()  # the shape of comprules.graph.kb_graph
    graph.add_edge("en/2030-01-01/200.1", "en/2030-01-01/100.1a", kind="cites")
    graph.add_edge("en/2030-01-01/100.1", "en/2030-01-01/100.1a", kind="cites")
    graph.add_edge("en/2030-01-01/glossary/mana-pool", "en/2030-01-01/100.1a", kind="cites")
    graph.add_edge("en/2030-01-01/100", "en/2030-01-01/100.1a", kind="contains")
    graph.add_edge("en/2020-05-05/100.1a", "en/2030-01-01/100.1a", kind="cites")
    graph.add_edge("en/2030-01-01/101.1a", "en/2030-01-01/100", kind="cites")
    out = tmp_path / "site"
    render_site([small_edition()], out, graph=graph, extract=fake_extract, search=False)
    html = read(out / "en/2030-01-01/100.html")
    assert (
        '<span class="cb">Cited by: <a href="#100.1">100.1</a>, '  # inside 100.1a's own paragraph
        '<a href="200.html#200.1">200.1</a>, '
        '<a href="glossary.html#mana-pool">Mana Pool</a></span></p>'
    ) in html
    assert 'Cited by: <a href="101.html#101.1a">101.1a</a>' in html  # under the section heading
    assert html.count('class="cb"') == 2
    assert broken_links(out) == []


def test_data_exports_are_published_under_data_and_linked_from_the_edition(tmp_path):
    data = tmp_path / "data"
    (data / "en").mkdir(parents=True)
    (data / "en/2030-01-01.json").write_text("{}", encoding="utf-8")
    (data / "graph.graphml").write_text("<graphml/>", encoding="utf-8")
    out = tmp_path / "site"
    render_site([small_edition()], out, data_dir=data, extract=fake_extract, search=False)
    assert (out / "data/en/2030-01-01.json").read_text() == "{}"
    assert 'href="../../data/en/2030-01-01.json"' in read(out / "en/2030-01-01/index.html")
    assert 'href="data/graph.graphml"' in read(out / "data.html")
    assert broken_links(out) == []


def test_render_replaces_an_existing_site_without_leftovers(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "stale.html").write_text("old", encoding="utf-8")
    render_site([small_edition()], out, extract=fake_extract, search=False)
    assert not (out / "stale.html").exists()
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_failed_render_leaves_the_previous_site_in_place(tmp_path):
    out = tmp_path / "site"
    render_site([small_edition()], out, extract=fake_extract, search=False)
    before = read(out / "en/2030-01-01/100.html")

    def broken(text: str, lang: str):
        raise RuntimeError("extractor crashed")

    with pytest.raises(RuntimeError, match="extractor crashed"):
        render_site([small_edition()], out, extract=broken, search=False)
    assert read(out / "en/2030-01-01/100.html") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# -- the real corpus ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_site(en_dir, tmp_path_factory) -> Path:
    from comprules.corpus import parse_file
    from comprules.graph import kb_graph

    edition = parse_file(en_dir / "2026-08-07.txt")
    out = tmp_path_factory.mktemp("real") / "site"
    render_site([edition], out, graph=kb_graph([edition]), search=False)
    return out


def test_real_702_pages_have_an_element_with_id_702_37a(real_site):
    pages = sorted((real_site / "en/2026-08-07").glob("702*.html"))
    ids = set().union(*(parse_page(p).ids for p in pages))
    assert {"702", "702.37a", "R70237a"} <= ids
    assert "702" in parse_page(real_site / "en/2026-08-07/702.html").ids


def test_real_702_html_holds_702_37a_even_when_the_section_is_split_into_parts(real_site):
    """Issue 2: ``702.html#702.37a`` lands on an element with that id, which points to
    the part that prints the rule (the page script follows it; without it, a link)."""
    html = read(real_site / "en/2026-08-07/702.html")
    pointer = re.search(r'<i id="702\.37a" data-go="(?P<href>[^"]+)"></i>', html)
    if pointer is None:  # the section fits on one page: the rule itself is there
        assert '<p id="702.37a"' in html
    else:
        page, _, anchor = pointer["href"].partition("#")
        assert anchor == "702.37a"
        assert '<p id="702.37a"' in read(real_site / "en/2026-08-07" / page)


def test_real_reference_to_rule_702_37_links_to_its_anchor_on_the_702_page(real_site):
    folder = real_site / "en/2026-08-07"
    pattern = re.compile(r'rule <a href="(?P<href>(?:702(?:-\d)?\.html)?#702\.37)">702\.37</a>')
    found = [
        (page, m["href"])
        for page in sorted(folder.glob("*.html"))
        if page.name != "all.html"
        for m in pattern.finditer(read(page))
    ]
    assert found, "no page cites rule 702.37"
    for page, href in found:
        target = (page.parent / href.partition("#")[0]).resolve() if not href.startswith("#") else page
        assert target.name.startswith("702") and target.parent == folder.resolve()
        assert "702.37" in parse_page(target).ids


def test_real_cited_by_list_of_section_708_links_back_to_morph_702_37a(real_site):
    html = read(real_site / "en/2026-08-07/708.html")
    cited = re.search(r'</h1>\n<p class="cb">(.*?)</p>', html)
    assert cited and re.search(r'<a href="702(-\d)?\.html#702\.37a">702\.37a</a>', cited.group(1))


def test_real_edition_links_all_resolve_on_disk(real_site):
    assert broken_links(real_site) == []


def test_real_section_pages_are_at_most_150_kb(real_site):
    sizes = {p.name: p.stat().st_size for p in (real_site / "en/2026-08-07").glob("[0-9]*.html")}
    assert max(sizes.values()) <= 150 * 1024, max(sizes.items(), key=lambda kv: kv[1])


def test_real_seeds_render_as_fragment_pages_with_working_links(seed_files, tmp_path):
    from comprules.corpus import parse_file

    editions = [parse_file(f) for f in seed_files]
    out = tmp_path / "site"
    render_site(editions, out, search=False)
    for e in editions:
        assert (out / e.name / "index.html").is_file()
    assert broken_links(out) == []


@pytest.mark.slow
def test_whole_corpus_renders_with_every_link_resolving_and_section_pages_under_150_kb(full_kb):
    out = full_kb[0] / "site"
    sections = [p for p in out.glob("*/*/*.html") if p.name[:3].isdigit()]
    assert len(sections) > 8000
    largest = max(sections, key=lambda p: p.stat().st_size)
    assert largest.stat().st_size <= 150 * 1024, largest
    dated = [p for p in sorted(out.rglob("*.html")) if "latest" not in p.parts]
    assert broken_links(out, dated) == []


# -- glossary terms in rule text --------------------------------------------------------


def test_glossary_terms_link_longest_first_with_plurals_once_per_rule(tmp_path):
    edition = make_edition(
        "en/2033-01-01",
        [
            make_rule("1", title="One"),
            make_rule("100", title="Things"),
            make_rule("100.1", "Two mana pools hold mana; the mana pool empties, and mana pools again."),
            make_rule("100.2", "Abilities are not an Ability Word."),
        ],
        (
            entry("Mana", "Coloured resource."),
            entry("Mana Pool", "Where mana waits."),
            entry("Ability", "Text on an object."),
            entry("Ability Word", "An italic word."),
            entry("Old Term", "No longer used.", obsolete=True),
        ),
    )
    out = tmp_path / "site"
    render_site([edition], out, extract=fake_extract, search=False)
    html = read(out / "en/2033-01-01/100.html")
    assert (
        'Two <a class="g" href="glossary.html#mana-pool">mana pools</a> hold '
        '<a class="g" href="glossary.html#mana">mana</a>; the mana pool empties'
    ) in html
    assert (
        '<a class="g" href="glossary.html#ability">Abilities</a> are not an '
        '<a class="g" href="glossary.html#ability-word">Ability Word</a>'
    ) in html
    assert broken_links(out) == []


def test_term_matcher_leaves_out_obsolete_and_frequent_terms_and_matches_whole_words():
    from comprules.site.terms import TermMatcher

    rules = [make_rule("100.1", f"A player plays card {k}.") for k in range(60)]
    edition = make_edition(
        "en/2034-01-01",
        rules,
        (
            entry("Player", "Someone."),
            entry("Card", "A card."),
            entry("Old Term", "Gone.", obsolete=True),
        ),
    )
    matcher = TermMatcher.for_edition(edition)
    assert list(matcher.find("A player plays an old term.")) == []  # frequent, obsolete
    full = TermMatcher.of(edition.glossary)
    assert [(s, e) for s, e, _ in full.find("Players' cards; cardboard")] == [(0, 7), (9, 14)]


def test_one_term_scan_finds_what_each_editions_own_pattern_finds(editions, zh_editions):
    """The site finds the glossary terms of all editions of a language with one pattern
    (terms.TermScan); for each edition, on the texts of its rules and examples, and of a
    neighbouring edition (where the scan meets forms the edition lacks), the matches are
    those of the edition's own pattern."""
    from comprules.site.terms import TermMatcher, TermScan

    chosen = [e for e in [*editions.values(), *zh_editions.values()] if e.glossary and e.effective]
    matchers = {e.name: TermMatcher.of(e.glossary, e.lang) for e in chosen}
    scans = TermScan.of(matchers.values())
    assert sorted(scans) == [False, True] and len(scans[True].forms) > len(matchers["en/2026-08-07"].slugs) + 100
    compared = skipped = fell_back = 0
    by_lang: dict[str, list] = {}
    for e in chosen:
        by_lang.setdefault(e.lang, []).append(e)
    for lang, group in by_lang.items():
        for k in range(0, len(group), 9 if lang == "en" else 4):  # 9 English and 5 Chinese editions
            e, other = group[k], group[k - 1]
            own = TermMatcher.for_edition(e, full=matchers[e.name])
            shared = TermMatcher(own.slugs, own.spaced, scans[own.spaced], own.skip)
            assert shared.scan is not None and own.scan is None
            texts = {t for r in (*e.rules, *other.rules) for t in (r.text, *r.examples) if t}
            for text in texts:
                mine = list(own.find(text))
                assert list(shared.find(text)) == mine, (e.name, text[:60])
                compared += 1
                lacked = {f for _s, _e, f in scans[own.spaced].find(text) if f not in own.slugs}
                skipped += bool(lacked) and all(re.fullmatch(r"\w+", f) for f in lacked) and own.spaced
                fell_back += own.spaced and bool(lacked) and not all(re.fullmatch(r"\w+", f) for f in lacked)
    assert compared > 40_000 and skipped > 3000 and fell_back > 1000  # each path exercised


def test_fast_path_renders_exactly_what_markdown_it_renders_for_a_whole_real_edition(editions):
    """Texts without markdown syntax skip the inline parser; the HTML must not change."""
    from comprules.references import extract
    from comprules.site.markdown import prepare
    from comprules.site.terms import TermMatcher

    edition = editions["en/2026-08-07"]
    md = make_markdown()
    layout, _ = U.layout(edition, 90_000)
    env = {
        "extract": extract,
        "lang": "en",
        "known": frozenset(edition.by_id),
        "edition": edition.name,
        "urls": U.Urls("en/2026-08-07/702.html", layout),
        "stats": {},
        "terms": TermMatcher.for_edition(edition),
        "glossary": "glossary.html",
    }
    texts = [r.text for r in edition.rules] + [ex for r in edition.rules for ex in r.examples]
    fast = [t for t in texts if not re.search(r"[_*\\\r\0]", t)]
    assert len(fast) > 3000
    for text in fast:
        assert render_text(md, text, env) == md.renderInline(prepare(text), env), text[:60]


def test_texts_kept_from_one_edition_to_the_next_are_the_html_rendering_them_again_gives(editions):
    """The site renders a text once for the editions that link it alike (markdown.TextMemo):
    on three whole editions in turn (two consecutive, one far), then the second again as
    if it lacked section 702 (its references dangling), every rule's text and examples
    give the same HTML, the same terms marked as seen and the same link counts with the
    memo as without it, terms skipped in some rules."""
    from comprules.references import extract
    from comprules.site.markdown import TextMemo
    from comprules.site.terms import TermMatcher

    md, memo = make_markdown(), TextMemo()
    compared = 0
    for name, lacks in (("en/2025-06-06", ""), ("en/2025-09-19", ""), ("en/2009-07-11", ""), ("en/2025-09-19", "702")):
        edition = editions[name]
        layout, _ = U.layout(edition, 90_000)
        matcher = TermMatcher.for_edition(edition)
        base = {
            "extract": extract,
            "lang": "en",
            "known": frozenset(i for i in edition.by_id if not lacks or not i.startswith(lacks)),
            "edition": name,
            "urls": U.Urls(f"{name}/702.html", layout),
            "terms": matcher,
            "glossary": "glossary.html",
            "glossary_href": lambda slug: f"glossary-{slug[:1]}.html#{slug}",
        }
        for k, r in enumerate(edition.rules):
            skip = frozenset(matcher.slugs_in(r.text)[:1]) if k % 3 == 0 else frozenset()
            results = []
            for kept in (None, memo):
                env = dict(base, stats={"links": 0, "dangling": 0}, terms_seen=set(), terms_skip=skip)
                if kept is not None:
                    env["memo"] = kept
                html = [render_text(md, t, env) for t in (r.text, *r.examples) if t]
                results.append((html, env["terms_seen"], env["stats"]))
            assert results[0] == results[1], r.id
            compared += 1
    assert compared > 8000 and memo.hits > 5000  # the second edition mostly from the memo
    assert sum(1 for r in editions["en/2009-07-11"].rules if "glossary-" in render_text(md, r.text, dict(base))) > 300


def test_the_link_filter_lets_through_every_text_where_linkify_finds_a_link(editions, zh_editions):
    """render_text gives linkify-it's (slow) test only the texts markdown.MAYBE_LINK passes:
    on every distinct text of the corpus (rules, titles, examples, glossary entries of
    the English and Chinese editions and the seeds), each text it finds a link in passes."""
    from comprules.site.markdown import MAYBE_LINK

    md = make_markdown()
    texts: set[str] = set()
    for edition in [*editions.values(), *zh_editions.values()]:
        for r in edition.rules:
            texts.update(t for t in (r.text, r.title, *r.examples) if t)
        for g in edition.glossary:
            texts.update(t for t in (g.term, g.text) if t)
    linked = [t for t in texts if md.linkify.test(t)]
    assert len(texts) > 25_000 and len(linked) == 173  # "www.wizards.com/…", "MagicTheGathering.com"…
    assert [t for t in linked if not MAYBE_LINK.search(t)] == []
    assert sum(1 for t in texts if MAYBE_LINK.search(t)) < 2 * len(linked)  # the filter keeps out the rest


# -- word-level diffs ---------------------------------------------------------------------


def test_diff_text_marks_play_deleted_and_cast_inserted_and_escapes():
    from types import SimpleNamespace

    from comprules.references import extract
    from comprules.site.diffs import DiffText
    from comprules.site.markdown import make_markdown

    layout = SimpleNamespace(target=lambda kind, number: None)
    site = SimpleNamespace(
        md=make_markdown(), extract=extract, layout=lambda e: (layout, {}), known=lambda e: frozenset(e.by_id)
    )
    old, new = (SimpleNamespace(name=f"en/{d}", lang="en", by_id={}) for d in ("2020-01-01", "2021-01-01"))
    texts = DiffText(site, "diff/en/2020-01-01..2021-01-01/index.html", old, new)
    a, b = texts.side_by_side("You may play this card <b>now</b>.", "You may cast this card <b>now</b>.")
    assert str(a) == "You may <del>play</del> this card &lt;b&gt;now&lt;/b&gt;."
    assert str(b) == "You may <ins>cast</ins> this card &lt;b&gt;now&lt;/b&gt;."
    assert (
        str(texts.inline("you may play it now", "you may cast it"))
        == "you may <del>play</del> <ins>cast</ins> it <del>now</del>"
    )
    # quotes and dashes are folded when words are compared, shown when the change is typography
    assert str(texts.inline("It is a “card” -- now.", 'It is a "card" — now.')) == "It is a &quot;card&quot; — now."
    assert (
        str(texts.inline('Choose "face-down"', "Choose “face down”", typography=True))
        == 'Choose <del class="p">&quot;</del><ins class="p">“</ins>face<del class="p">-</del> down'
        '<del class="p">&quot;</del><ins class="p">”</ins> '
        '<span class="named">straight quote → opening quote; straight quote → closing quote</span>'
    )


def test_one_renderer_shows_italics_urls_and_the_symbol_font():
    from comprules.site.markdown import make_markdown, render_text

    md = make_markdown()
    assert render_text(md, "These _Magic_ rules cost {o3}{oU}.", {}) == "These <em>Magic</em> rules cost {3}{U}."
    html = render_text(
        md, "See <http://www.wizards.com/Magic/TCG/Events.aspx>. Or www.wizards.com/customerservice.", {}
    )
    assert '<a href="http://www.wizards.com/Magic/TCG/Events.aspx" class="url" rel="external">' in html
    assert '<a href="http://www.wizards.com/customerservice" class="url" rel="external">' in html
    assert "&lt;http" not in html
    # the change marks nest inside links and emphasis, and do not keep the symbol font from being read
    assert render_text(md, "_Magic_ costs {o3}", {}, [(14, 18, "ins")]) == "<em>Magic</em> costs <ins>{3}</ins>"
    assert (
        render_text(md, "a cost of {o0}", {}, [(10, 11, "ins"), (13, 14, "ins")])
        == "a cost of <ins>{</ins>0<ins>}</ins>"
    )


# -- the whole corpus: diffs, history, switcher, FR ⇄ EN, search, home -------------------


@pytest.fixture(scope="module")
def site(full_kb) -> Path:
    return full_kb[0] / "site"


@pytest.mark.slow
def test_home_lists_editions_with_set_names_diffs_and_data(site):
    html = read(site / "index.html")
    row = re.search(r"<tr><td><a href=\"en/2009-07-11/index.html\">.*?</tr>", html).group(0)
    assert "Magic 2010 (first renumbered CR)" in row
    assert 'href="diff/en/2009-05-01..2009-07-11/index.html"' in row
    assert 'href="data/en/2009-07-11.json"' in read(site / "data.html")  # the data files have a page of their own
    assert 'href="search.html"' in html and 'href="diff/index.html"' in html
    assert 'href="compare/lexicon.html"' in html


@pytest.mark.slow
def test_diff_index_has_every_pair_and_the_2009_renumbering_moves_502_to_702(site):
    assert len(list((site / "diff/en").glob("*/index.html"))) == 73
    folder = site / "diff/en/2009-05-01..2009-07-11"
    first = read(folder / "index.html")
    # the bulletin of the 2009 renumbering is cut into parts (index.html, index-2.html …), each
    # linked from the others; the counts, sections and "by section" list are on the first
    parts = [folder / "index.html", *sorted(folder.glob("index-*.html"), key=lambda p: int(p.stem[6:]))]
    assert len(parts) >= 3 and all(p.stat().st_size <= 150 * 1024 for p in parts)
    assert all(f'href="{p.name}"' in first for p in parts[1:]) and '<ul class="counts">' in first
    assert '<ul class="counts">' not in read(parts[1]) and 'rel="next" href="index-2.html"' in first
    index = "".join(read(p) for p in parts)
    assert re.search(
        r'<a href="../../../en/2009-05-01/502.html">502</a> Keyword Abilities</td><td>→</td>'
        r'<td><a href="../../../en/2009-07-11/702.html">702</a> Keyword Abilities',
        index,
    )
    assert re.search(r'<span class="k k-moved-edited">moved \+ edited</span> \d{3,}', index)
    assert re.search(r'<h2 id="moves">Moves \(renumbered, words unchanged\) <span class="muted">\(\d{3,}\)', index)
    pages = sorted((site / "diff/en/2009-05-01..2009-07-11").glob("702*.html"))
    text = "".join(read(p) for p in pages)
    m = re.search(r'<h2 class="move"><a href="[^"]*#502.26a">502.26a</a> → <a href="[^"]*#702.34a">702.34a</a>', text)
    assert m, "502.26a → 702.34a not shown"
    after = text[m.end() : m.end() + 3000]
    assert "<del>play</del>" in after and "<ins>cast</ins>" in after


@pytest.mark.slow
def test_history_of_702_37a_walks_back_to_502_26a_in_2002_10_07(site):
    html = read(site / "history/en/702.37a.html")
    steps = re.findall(r'<li class="k-(\w+)"><h2><a href="[^"]+">([\d.a-z]+)</a> · <time datetime="([\d-]+)">', html)
    assert steps[0] == ("first", "502.26a", "1999-04-23") or steps[0][1:] == ("502.26a", "2002-10-07")
    numbers = [n for _, n, _ in steps]
    assert numbers.index("502.26a") < numbers.index("702.34a") < numbers.index("702.36a") < numbers.index("702.37a")
    assert ("renumbered", "702.34a", "2009-07-11") in steps
    assert len(list((site / "history/en").glob("*.html"))) > 3000
    assert max(p.stat().st_size for p in (site / "history/en").glob("*.html")) < 150 * 1024


@pytest.mark.slow
def test_no_page_of_the_site_but_the_one_page_crs_passes_150_kb(site):
    """Issue 14: every page ≤ 150 KB except all.html; the bulletins of big releases
    (1,383 typography changes in 2019-07-12, 1,019 moves in 2009-07-11) go on in parts."""
    big = sorted((p.stat().st_size, str(p.relative_to(site))) for p in site.rglob("*.html") if p.name != "all.html")[
        -3:
    ]
    assert big[-1][0] <= 150 * 1024, big
    assert len(list((site / "diff/en/2018-07-13..2019-01-25").glob("index-*.html"))) >= 5


@pytest.mark.slow
def test_switcher_tables_send_morph_702_37a_to_702_34a_in_2009_07_11(site):
    page = read(site / "en/2009-07-11/702.html") + "".join(read(p) for p in (site / "en/2009-07-11").glob("702-*.html"))
    assert '<p id="702.34a" class="sr" data-l="702.37a">' in page
    table = read(site / "lineage/en/2009-07-11.js")
    data = json.loads(table[table.index("=", table.index("]")) + 1 :].rstrip(";\n"))
    assert data["m"]["702.37a"] == "702.34a"
    editions = read(site / "lineage/editions.js")
    assert '["2009-07-11","Magic 2010 (first renumbered CR)"]' in editions
    assert 'class="switch" hidden data-edition="en/2026-08-07"' in read(site / "en/2026-08-07/702.html")


@pytest.mark.slow
def test_french_documents_side_by_side_with_their_english_edition_and_the_lexicon(site):
    folders = sorted(p.name for p in (site / "compare").iterdir() if p.is_dir() and p.name != "zh")
    assert len(folders) == 5
    seed4 = next(f for f in folders if f.startswith("004_"))
    html = read(site / "compare" / seed4 / "502.html")
    row = re.search(r'<tr id="502.26">(.*?)</tr>', html).group(1)
    assert "Mue" in row and "Morph" in row and '<td lang="en">' in row
    lexicon = read(site / "compare/lexicon.html")
    assert re.search(
        r'<td lang="en"><a href="[^"]*#morph">Morph</a></td>'
        r'<td><a href="[^"]*004_99dc3338bd3ea994/index.html#502.26">Mue</a></td>',
        lexicon,
    )


@pytest.mark.slow
def test_seed_forum_noise_is_greyed_as_notes(site):
    html = read(site / "fr/000_f51ad62258817a66/index.html")
    assert re.search(r'<p id="¶2" class="no">Salut', html)
    assert re.search(r'<p id="402.1" class="r">', html)


@pytest.mark.slow
def test_seed_citation_of_a_rule_it_does_not_quote_links_to_the_english_edition_it_translates(site):
    html = read(site / "fr/004_99dc3338bd3ea994/index.html")
    assert re.search(r'Voir règle <a href="../../en/2005-02-01/504.html" hreflang="en" class="xl">504</a>', html)


@pytest.mark.slow
def test_search_data_is_the_index_s_own_and_under_3_mb_per_language(site, full_kb):
    """search/{lang}.js (issue 10): the default scope of each language, exported from the
    index; the search page loads it with <script>, and no Pagefind bundle is left."""
    import json

    from comprules.indexer.export import site_data

    assert not (site / "pagefind").exists()
    sizes = {p.stem: p.stat().st_size for p in (site / "search").glob("*.js")}
    # segment.js: the vocabulary Chinese queries are cut with (comprules.segment)
    assert set(sizes) == {"en", "fr", "zh", "segment"} and all(size <= 3_000_000 for size in sizes.values()), sizes
    raw = (site / "search" / "en.js").read_text(encoding="utf-8")
    data = json.loads(raw[raw.index("=", raw.index("CR_SEARCH[")) + 1 :].rstrip().rstrip(";"))
    assert data == json.loads(json.dumps(site_data(full_kb[0] / "index", "en"), ensure_ascii=False))
    assert {d[7] for d in data["docs"]} == {"en/2026-08-07"} and len(data["docs"]) > 3900
    search = read(site / "search.html")
    assert (
        '<script src="search/en.js" defer></script>' in search
        and '<script src="search/fr.js" defer></script>' in search
    )
    assert f'src="static/{U.static_names()["search.js"]}"' in search and "comprules serve" in search
    # the search box in the header of every page, with the search page's address from there
    assert '<form class="find goto" role="search" action="../../search.html" method="get"' in read(
        site / "en" / "2026-08-07" / "702.html"
    )
    assert '<form class="find goto" role="search" action="search.html" method="get"' in read(site / "index.html")


@pytest.mark.slow
def test_whole_site_has_every_kind_of_page_and_its_fingerprint(full_kb):
    site = full_kb[0] / "site"
    for path in (
        "index.html",
        "search.html",
        "diff/index.html",
        "compare/index.html",
        "compare/lexicon.html",
        "history/en/702.37a.html",
        "lineage/editions.js",
        "data/graph.graphml",
        "en/latest/702.html",
    ):
        assert (site / path).is_file(), path
    from comprules.site import cache

    assert cache.stored(site) and (cache.stored_stats(site) or {}).get("pages", 0) > 10_000


def test_rebuild_with_nothing_changed_keeps_the_site_and_a_change_renders_again(tmp_path):
    out = tmp_path / "site"
    first = render_site([small_edition()], out, extract=fake_extract, search=False)
    before = (out / "en/2030-01-01/100.html").stat().st_mtime_ns
    again = render_site([small_edition()], out, extract=fake_extract, search=False)
    assert not first.skipped and again.skipped and again.pages == first.pages
    assert (out / "en/2030-01-01/100.html").stat().st_mtime_ns == before
    changed = small_edition()
    changed = make_edition(changed.name, [*changed.rules, make_rule("200.2", "A new rule.")], changed.glossary)
    third = render_site([changed], out, extract=fake_extract, search=False)
    assert not third.skipped and "200.2" in parse_page(out / "en/2030-01-01/200.html").ids


def test_a_new_folder_reuses_the_previous_site_when_nothing_changed(tmp_path):
    old = tmp_path / "old"
    render_site([small_edition()], old, extract=fake_extract, search=False)
    stats = render_site([small_edition()], tmp_path / "new", extract=fake_extract, search=False, reuse=old)
    assert stats.skipped
    assert read(tmp_path / "new/en/2030-01-01/100.html") == read(old / "en/2030-01-01/100.html")


def test_small_site_has_diff_history_and_switcher_pages(small_site):
    assert (small_site / "diff/en/2020-05-05..2030-01-01/index.html").is_file()
    assert (small_site / "history/en/101.2a.html").is_file()
    html = read(small_site / "en/2030-01-01/101.html")
    assert '<a class="hl" href="../../history/en/101.2a.html"' in html
    assert 'class="switch" hidden data-edition="en/2030-01-01" data-root="../../"' in html
    assert (small_site / "lineage/en/2020-05-05.js").is_file()


def test_crawler_reports_missing_files_missing_anchors_and_external_links(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/index.html").write_text(
        '<p id="x">x</p><a href="b.html">b</a><a href="index.html#y">y</a><a href="#x">x</a>'
        '<a href="https://example.org/">e</a><a href="../a/index.html#x">ok</a>',
        encoding="utf-8",
    )
    assert broken_links(tmp_path) == [
        "a/index.html: b.html (no such file)",
        "a/index.html: index.html#y (no such anchor)",
        "a/index.html: https://example.org/ (external)",
    ]


# -- bulletins, facets, history, any two editions (issue 13) -------------------------------


def _bulletin_heads(html: str) -> list[tuple[str, int]]:
    main = html[html.index("<main") :]
    return [(h, int(n)) for h, n in re.findall(r'<h2 id="([\w-]+)">[^<]+ <span class="muted">\((\d+)\)</span>', main)]


@pytest.mark.slow
def test_bulletin_2026_08_07_lists_9_added_5_edited_5_moved_and_edited_then_12_moves(site):
    html = read(site / "diff/en/2026-06-19..2026-08-07/index.html")
    assert _bulletin_heads(html) == [
        ("added", 9),
        ("edited", 5),
        ("moved-edited", 5),
        ("glossary-added", 4),
        ("moves", 12),
    ]
    # every number links into its edition: old → new for a move, both for an edit in place
    assert re.search(
        r'<a href="../../../en/2026-06-19/310.html#310.8a">310.8a</a> → '
        r'<a href="../../../en/2026-08-07/310.html#310.9a">310.9a</a> '
        r'<span class="k k-moved-edited">moved \+ edited</span>',
        html,
    )
    assert re.search(
        r'<a href="../../../en/2026-06-19/722.html#722.3a">722.3a</a> <a class="also" '
        r'href="../../../en/2026-08-07/722.html#722.3a"',
        html,
    )
    moves = html[html.index('<h2 id="moves">') :]
    assert moves.count("<tr ") == 12
    assert (
        '<td><a href="../../../en/2026-06-19/704.html#704.5z">704.5z</a></td><td>→</td><td><a href='
        '"../../../en/2026-08-07/704.html#704.5aa">704.5aa</a></td>' in moves
    )
    # references in the texts are links too, into the new edition
    edited = html[html.index('<h2 id="edited">') : html.index('<h2 id="moved-edited">')]
    assert '<a href="../../../en/2026-08-07/704.html">704</a>' in edited
    assert '<del class="p">,</del><ins class="p">.</ins>' in edited  # 722.3a's comma became a period
    assert '<span class="named">comma → full stop</span>' in edited  # seen and named (issue 22)


@pytest.mark.slow
@pytest.mark.parametrize(
    "pair, group, number, mark",
    [
        ("2022-04-29..2022-10-07", "typography", "702.124g", '<ins class="p">“</ins>'),
        ("2026-04-17..2026-06-19", "typography", "708.2b", '<del class="p">-</del>'),
        ("2023-04-14..2023-09-01", "typography", "111.10i", '<del class="p">“</del>'),
        ("2022-04-29..2022-10-07", "rewritten", "100.7", "<ins>"),
    ],
)
def test_bulletins_show_typography_and_rewrites_as_changes(site, pair, group, number, mark):
    folder = site / f"diff/en/{pair}"
    # the group on each part of the bulletin that has it (index.html, index-2.html …)
    groups = []
    for html in map(read, sorted(folder.glob("index*.html"))):
        if f'<h2 id="{group}">' in html:
            start = html.index(f'<h2 id="{group}">')
            end = html.find("<h2 ", start + 10)
            groups.append(html[start : end if end > 0 else len(html)])
    row = re.search(
        rf'<section class="change k-edited" id="{re.escape(number)}&gt;{re.escape(number)}".*?</section>',
        "".join(groups),
        re.S,
    )
    assert row, f"{number} not under {group}"
    assert mark in row.group(0)


@pytest.mark.slow
def test_history_of_702_37a_says_when_it_last_changed_and_shows_facets(site):
    html = read(site / "history/en/702.37a.html")
    later = sorted(p.name for p in (site / "en").iterdir() if p.name[:4].isdigit() and p.name > "2021-07-23")
    m = re.search(
        r'Last changed <time datetime="2021-07-23">2021-07-23</time> \(moved\); unchanged since: '
        r'(\d+) editions, ([\d.]+) years\. Words last changed <time datetime="2019-07-12">2019-07-12</time> '
        r"\(typography\)",
        html,
    )
    assert m and int(m.group(1)) == len(later) and 4.9 < float(m.group(2)) < 5.1
    assert '<span class="k k-moved-edited">moved + edited</span> <span class="move"><a href=' in html
    # 2008-05-01's "?" for every quote were two typography steps (in and out) until they
    # were put back from its neighbours (issue 22, 4)
    assert html.count('<span class="k k-typography">typography</span>') == 6


def test_a_chapter_cited_by_a_rule_and_the_glossary_says_so_on_the_contents_page(site):
    # 100.1b cites chapter 8 ("see section 8"): `comprules show 8` said so, no page did
    html = read(site / "en/2026-08-07/index.html")
    at = html.index('<h2 id="8">8. Multiplayer Rules</h2>')
    assert html[at:].split("\n")[1] == (
        '<p class="cb">Cited by: <a href="100.html#100.1b">100.1b</a>, '
        '<a href="glossary-2.html#multiplayer-game">Multiplayer Game</a></p>'
    )


def test_a_rule_changed_in_the_edition_before_the_latest_is_unchanged_since_1_edition(site):
    # 205.3m was edited in 2026-06-19: "unchanged since: 1 editions" once
    html = read(site / "history/en/205.3m.html")
    assert 'Last changed <time datetime="2026-06-19">2026-06-19</time> (edited); unchanged since: 1 edition, ' in html


@pytest.mark.slow
def test_old_edition_pages_say_where_the_rule_is_now(site):
    page = "".join(read(p) for p in sorted((site / "en/2009-07-11").glob("702*.html")))
    m = re.search(
        r'<p id="702\.34a".*?<p class="now">now <a href="([^"]+)">702\.37a</a> \(2026-08-07\)</p>', page, re.S
    )
    assert m and "2026-08-07/702" in m.group(1)
    page = "".join(read(p) for p in sorted((site / "en/2009-05-01").glob("502*.html")))
    # 502.49 Substance was dropped by 2009-07-11
    m = re.search(r'<p id="502\.49a".*?<p class="now">removed in <a href="([^"]+)">2009-07-11</a></p>', page, re.S)
    # on the part of the bulletin that lists it, which has that anchor
    assert m and re.search(r"diff/en/2009-05-01\.\.2009-07-11/index(-\d+)?\.html#502\.49a&gt;$", m.group(1))
    part = site / "diff/en/2009-05-01..2009-07-11" / m.group(1).rpartition("/")[2].partition("#")[0]
    assert 'id="502.49a&gt;"' in read(part)
    assert 'class="now"' not in read(site / "en/2026-08-07/702.html")


@pytest.mark.slow
def test_text_is_rendered_as_printed_everywhere_symbol_font_italics_and_urls(site):
    pages = [
        *sorted((site / "en/2003-07-01").glob("*.html")),
        *sorted((site / "diff/en/2003-03-15..2003-07-01").glob("*.html")),
        *sorted((site / "diff/en/2004-10-01..2005-02-01").glob("*.html")),
    ]
    texts = "".join(read(p) for p in pages)
    assert "{o" not in texts and "{3}" in texts and "{T}" in texts
    history = "".join(read(p) for p in sorted((site / "history/en").glob("107.*.html")))
    assert "{o" not in history
    # underscores of 2008–2014 as emphasis; the URLs the CR prints as links, not "&lt;http…&gt;"
    intro = read(site / "en/2009-07-11/100.html")
    assert "<em>Magic</em>" in intro and "_Magic_" not in intro
    urls = read(site / "en/2012-10-01/108.html") + "".join(  # the glossary in its parts by letter
        read(p) for p in sorted((site / "en/2012-10-01").glob("glossary*.html"))
    )
    assert "&lt;http" not in urls
    assert urls.count('<a href="http://gatherer.wizards.com" class="url" rel="external">') == 2


@pytest.mark.slow
def test_compare_page_and_the_texts_of_every_edition_are_written(site):
    assert (site / "diff/en/compare.html").is_file()
    scripts = sorted((site / "diff/data/en").glob("*.js"))
    assert len(scripts) == 74
    script = read(site / "diff/data/en/2009-07-11.js")
    assert script.startswith('(window.CR_TEXTS=window.CR_TEXTS||{})["en/2009-07-11"]="')
    name, data = read_texts_script(script)  # deflated JSON in base64: a third of its size
    assert name == "en/2009-07-11" and data["name"] == name and data["p"]["old"] == "en/2009-05-01"
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert len(script) < 0.4 * len(raw)
    bands = next(row for row in data["r"] if row[0] == "702.19b")  # 702.19 was Banding then
    assert "Bands with other" in bands[1] and "a special form of banding" in bands[1]
    html = read(site / "diff/index.html")
    assert '<form class="compare" action="en/compare.html" method="get">' in html


def test_compiled_templates_are_kept_between_sites_and_a_cache_fault_is_a_miss(tmp_path, editions, monkeypatch):
    """The second site of 2026-08-07 reads its 22 templates compiled by the first (jinja2's
    bytecode cache in ``$TMPDIR``), without compiling one, and is byte for byte the first;
    a cache that cannot be written (a full disk) or holds garbage only costs the compiling."""
    import errno
    import tempfile

    import jinja2

    from comprules.site.render import template_cache

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cache = template_cache()
    assert cache is not None and Path(cache.directory).parent == tmp_path / "tmp"
    assert Path(cache.directory).stat().st_mode & 0o777 == 0o700
    edition = [editions["en/2026-08-07"]]

    def tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    render_site(edition, tmp_path / "first", search=False, jobs=1)
    kept = sorted(Path(cache.directory).iterdir())
    assert len(kept) == 22  # the templates a site without search uses
    compiled = jinja2.Environment.compile

    def refuse(*args, **kwargs):
        raise AssertionError("a template was compiled again")

    monkeypatch.setattr(jinja2.Environment, "compile", refuse)
    render_site(edition, tmp_path / "second", search=False, jobs=1)
    assert tree(tmp_path / "second") == tree(tmp_path / "first")
    monkeypatch.setattr(jinja2.Environment, "compile", compiled)

    for path in kept:
        path.write_bytes(b"not bytecode")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full)
    render_site(edition, tmp_path / "third", search=False, jobs=1)
    assert tree(tmp_path / "third") == tree(tmp_path / "first")


def test_a_site_of_editions_without_a_database_aligns_nothing_across_languages(editions, tmp_path):
    """Issue 21: the site computes nothing of the alignment stage. Rendered from seed 000
    and its English edition alone (no knowledge base: no database), it has the document's
    own pages but no side-by-side pages and no aligned terms, which only the database
    holds; the whole corpus's site has them (test_whole_site_has_every_kind_of_page…)."""
    seed = editions["fr/000_f51ad62258817a66"]
    render_site([editions["en/2002-10-07"], seed], tmp_path / "site", search=False, jobs=1)
    site = tmp_path / "site"
    assert (site / "fr/000_f51ad62258817a66/index.html").is_file()
    assert [p for p in (site / "compare").rglob("*.html") if p.parent != site / "compare"] == []
    lexicon = read(site / "compare/lexicon.html") if (site / "compare/lexicon.html").is_file() else ""
    assert "Capacités de mana" not in lexicon


@pytest.mark.slow
def test_the_worker_keeps_the_french_documents_go_to_words_and_those_of_their_english_eras(site):
    """A trial on a phone: offline, "Mue" typed on fr/004 opened the search page, its go-to
    scripts (its own and its English era's, 2005-02-01) were not among the kept files."""
    import json

    worker = read(site / "sw.js")
    kept = {path for path, _ in json.loads(worker[len("self.CR_BUILD=") : worker.index(";\n")])["files"]}
    documents = sorted(p.name for p in (site / "fr").iterdir() if p.is_dir() and p.name[0].isdigit())
    assert len(documents) == 5 and all(f"goto/fr/{d}.js" in kept for d in documents)
    assert "goto/en/2005-02-01.js" in kept and "fr/004_99dc3338bd3ea994/index.html" in kept
    assert not any(p.startswith("goto/en/2009-") for p in kept)  # no era of a document
