"""The static site: pages, anchors, links that resolve on disk, escaping, atomic swap.

Small hand-written editions (own text, not the CR's) test each behaviour with a tiny
fake extractor that follows ``comprules.references.Reference``'s contract; the real
corpus tests render real editions with the real parser and extractor.
:func:`broken_links` is a reusable crawler: every internal ``href``/``src`` of a site
folder must name an existing file and, with ``#anchor``, an element with that id.
"""

from __future__ import annotations

import json
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
from comprules.site import SiteRenderer, render_site
from comprules.site import urls as U
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


def broken_links(site: Path, pages: list[Path] | None = None) -> list[str]:
    """Every internal link of the site's pages that does not resolve on disk.

    A link resolves when, taken relative to its page (as ``file://`` does), it names
    an existing file (not a folder: there is no ``index.html`` fallback on disk) and
    its ``#anchor``, if any, is the id of an element of that file. External links
    (with a scheme or ``//``) are reported as broken too: the site makes no requests.
    """
    site = site.resolve()
    cache: dict[Path, _PageParser] = {}

    def page(path: Path) -> _PageParser:
        if path not in cache:
            cache[path] = parse_page(path)
        return cache[path]

    problems = []
    for source in pages if pages is not None else sorted(site.rglob("*.html")):
        source = source.resolve()
        for link in page(source).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                problems.append(f"{source.relative_to(site)}: {link} (external)")
                continue
            target = (source.parent / unquote(parts.path)).resolve() if parts.path else source
            if not target.is_file():
                problems.append(f"{source.relative_to(site)}: {link} (no such file)")
            elif not target.is_relative_to(site):
                problems.append(f"{source.relative_to(site)}: {link} (outside the site)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in page(target).ids:
                    problems.append(f"{source.relative_to(site)}: {link} (no such anchor)")
    return problems


# -- hand-built editions ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FakeReference:
    """Same fields as ``comprules.references.Reference``."""

    start: int
    end: int
    kind: str
    targets: tuple[str, ...]
    parts: tuple[tuple[int, int, str], ...]
    title: str | None = None


_FAKE = re.compile(
    r"rules? (?:(?P<range>(?P<base>\d{3}\.\d+)(?P<a>[a-z])–(?P<b>[a-z]))"
    r"|(?P<num>\d{3}(?:\.\d+[a-z]{0,2})?))"
    r"|section (?P<chapter>\d)\b"
    r"|See (?P<term>[A-Z][a-z]+(?: [A-Z][a-z]+)*)\."
)


def fake_extract(text: str, lang: str = "en") -> list[FakeReference]:
    """Ranges ``101.2a–c``, ``rule 101.2a``, ``rule 100``, ``section 1``, ``See Mana Pool.``"""
    out = []
    for m in _FAKE.finditer(text):
        if m["range"]:
            base, a, b = m["base"], m["a"], m["b"]
            targets = tuple(base + chr(c) for c in range(ord(a), ord(b) + 1))
            parts = ((m.start("base"), m.end("a"), base + a), (m.start("b"), m.end("b"), base + b))
            out.append(FakeReference(m.start(), m.end(), "rule", targets, parts))
        elif m["num"]:
            n = m["num"]
            kind = "rule" if "." in n else "section"
            out.append(FakeReference(m.start("num"), m.end("num"), kind, (n,),
                                     ((m.start("num"), m.end("num"), n),)))
        elif m["chapter"]:
            c = m["chapter"]
            out.append(FakeReference(m.start("chapter"), m.end("chapter"), "chapter", (c,),
                                     ((m.start("chapter"), m.end("chapter"), c),)))
        else:
            t = m["term"]
            out.append(FakeReference(m.start("term"), m.end("term"), "glossary", (t,),
                                     ((m.start("term"), m.end("term"), t),)))
    return out


def make_rule(number: str, text: str = "", *, title: str | None = None,
              examples: tuple[str, ...] = (), rule_id: str | None = None) -> Rule:
    kind = number_kind(number)
    section = number[:3] if kind != "chapter" else None
    return Rule(id=rule_id or number, number=number, kind=kind, text=text or (title or ""),
                line=1, title=title, examples=examples, parent=parent_number(number),
                section=section, chapter=number[0])


def entry(term: str, text: str, *, aliases: tuple[str, ...] = (), obsolete: bool = False,
          slug: str | None = None) -> GlossaryEntry:
    return GlossaryEntry(term=term, aliases=aliases, obsolete=obsolete, senses=(text,),
                         text=text, line=1, slug=slug or U.slugify(term))


def make_edition(name: str, rules: list[Rule], glossary: tuple[GlossaryEntry, ...] = (),
                 *, kind: str = "edition") -> Edition:
    lang, _, key = name.partition("/")
    effective = date.fromisoformat(key) if kind == "edition" else None
    return Edition(name=name, lang=lang, effective=effective, kind=kind, source=f"{key}.txt",
                   sha256="0" * 64, title=f"Test rules {key}", rules=tuple(rules),
                   glossary=glossary)


def small_edition(name: str = "en/2030-01-01") -> Edition:
    return make_edition(name, [
        make_rule("1", title="Basics"),
        make_rule("100", title="General"),
        make_rule("100.1", "A game has two sides. See rule 101.2a, and rules 101.2a–c."),
        make_rule("100.1a", "Hostile text <script>alert(1)</script> & friends stay text."),
        make_rule("100.2", "1. not a list\n# not a heading\n    not code, and _Tabletop_ is italic "
                           "while 1+* stays a star."),
        make_rule("101", title="Turns"),
        make_rule("101.1", title="Untapping"),
        make_rule("101.1a", "Untapping happens first. See section 2.",
                  examples=("A player untaps. See rule 100.1.",)),
        make_rule("101.2", "Steps follow each other."),
        make_rule("101.2a", "The first step. See Mana Pool."),
        make_rule("101.2b", "The second step, see rule 999.9 which does not exist."),
        make_rule("101.2c", "The third step, see rule 100."),
        make_rule("2", title="More"),
        make_rule("200", title="Other Things"),
        make_rule("200.1", "Other things follow rule 100.1a."),
        make_rule("200.1", "A duplicated number is kept.", rule_id="200.1~2"),
    ], (
        entry("Control, Controller", "Who decides. See rule 100.1.", aliases=("Controller",),
              slug="control-controller"),
        entry("Mana Pool", "Where mana waits. See Control."),
        entry("Old Term", "No longer used.", obsolete=True),
    ))


def fragment() -> Edition:
    return make_edition("fr/000_abcdef", [
        Rule(id="¶1", number="¶1", kind="passage", text="Une question de forum.", line=1),
        make_rule("402", title="Capacités"),
        Rule(id="402¶1", number="402¶1", kind="passage", text="Voir règle 402.1.", line=3,
             parent="402", section="402", chapter="4"),
        make_rule("402.1", "Une règle citée, voir rule 402.1 et rule 999.1."),
    ], kind="fragment")


@pytest.fixture
def small_site(tmp_path) -> Path:
    out = tmp_path / "site"
    editions = [small_edition(), small_edition("en/2020-05-05"), fragment()]
    render_site(editions, out, extract=fake_extract)
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


def test_home_lists_editions_by_language_latest_first_with_fragments_under_their_language(small_site):
    html = read(small_site / "index.html")
    assert html.index("en/2030-01-01/index.html") < html.index("en/2020-05-05/index.html")
    assert '<section class="lang" lang="fr" id="fr">' in html
    assert html.index('id="fr"') < html.index("fr/000_abcdef/index.html")
    assert 'href="en/latest/index.html"' in html


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
    assert html.index("Une question de forum") < html.index("Capacités") < html.index(
        "Une règle citée")
    assert {"¶1", "402", "402¶1", "402.1"} <= parse_page(page).ids
    assert 'href="#402.1"' in html  # a reference inside a fragment stays on its page
    assert "Aller à la règle" in html


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
    assert ('rules <a href="101.html#101.2a">101.2a</a>–<a href="101.html#101.2c">c</a>'
            in html)


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
    env = {"extract": fake_extract, "lang": "en", "known": {"101.2a"},
           "urls": U.Urls("en/2030-01-01/100.html", layout)}
    html = render_text(md, "_see rule 101.2a_ now", env)
    assert html == '<em>see rule <a href="101.html#101.2a">101.2a</a></em> now'


def test_plugin_is_a_core_rule_splitting_text_tokens_into_link_tokens():
    md = make_markdown()
    layout, _ = U.layout(small_edition(), 100_000)
    env = {"extract": fake_extract, "lang": "en", "known": {"101.2a", "101.2c"},
           "urls": U.Urls("en/2030-01-01/100.html", layout)}
    tokens = md.parseInline("rules 101.2a–c apply", env)[0].children
    assert [t.type for t in tokens] == ["text", "link_open", "text", "link_close", "text",
                                        "link_open", "text", "link_close", "text"]
    assert [t.content for t in tokens if t.type == "text"] == ["rules ", "101.2a", "–", "c",
                                                               " apply"]


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
        "en/latest/702.html#702.37a", "en/latest/702.html#702.37a",
        "en/latest/702.html#702.37a", "en/latest/702.html", "en/latest/index.html#7", None,
    ]


def test_go_to_rule_box_is_on_home_and_edition_pages(small_site):
    assert 'class="goto" role="search" data-base="en/latest/"' in read(small_site / "index.html")
    assert 'class="goto" role="search" data-base=""' in read(
        small_site / "en/2030-01-01/index.html")


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
    edition = make_edition("en/2032-01-01", [
        make_rule("1", title="One"),
        make_rule("100.1", "A rule whose section heading was lost. See rule 101.1."),
        make_rule("101", title="Kept"),
        make_rule("101.1", "Back to rule 100.1."),
    ])
    out = tmp_path / "site"
    render_site([edition], out, extract=fake_extract)
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
    render_site([small_edition()], out, graph=graph, extract=fake_extract)
    html = read(out / "en/2030-01-01/100.html")
    assert ('<p class="cb">Cited by: <a href="#100.1">100.1</a>, '
            '<a href="200.html#200.1">200.1</a>, '
            '<a href="glossary.html#mana-pool">Mana Pool</a></p>') in html
    assert 'Cited by: <a href="101.html#101.1a">101.1a</a>' in html  # under the section heading
    assert html.count('class="cb"') == 2
    assert broken_links(out) == []


def test_data_exports_are_published_under_data_and_linked_from_the_edition(tmp_path):
    data = tmp_path / "data"
    (data / "en").mkdir(parents=True)
    (data / "en/2030-01-01.json").write_text("{}", encoding="utf-8")
    (data / "graph.graphml").write_text("<graphml/>", encoding="utf-8")
    out = tmp_path / "site"
    render_site([small_edition()], out, data_dir=data, extract=fake_extract)
    assert (out / "data/en/2030-01-01.json").read_text() == "{}"
    assert 'href="../../data/en/2030-01-01.json"' in read(out / "en/2030-01-01/index.html")
    assert 'href="data/graph.graphml"' in read(out / "index.html")
    assert broken_links(out) == []


def test_render_replaces_an_existing_site_without_leftovers(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "stale.html").write_text("old", encoding="utf-8")
    render_site([small_edition()], out, extract=fake_extract)
    assert not (out / "stale.html").exists()
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_failed_render_leaves_the_previous_site_in_place(tmp_path):
    out = tmp_path / "site"
    render_site([small_edition()], out, extract=fake_extract)
    before = read(out / "en/2030-01-01/100.html")

    def broken(text: str, lang: str):
        raise RuntimeError("extractor crashed")

    with pytest.raises(RuntimeError, match="extractor crashed"):
        render_site([small_edition()], out, extract=broken)
    assert read(out / "en/2030-01-01/100.html") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# -- the real corpus ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_site(en_dir, tmp_path_factory) -> Path:
    from comprules.corpus import parse_file

    from comprules.graph import kb_graph

    edition = parse_file(en_dir / "2026-08-07.txt")
    out = tmp_path_factory.mktemp("real") / "site"
    render_site([edition], out, graph=kb_graph([edition]))
    return out


def test_real_702_page_has_an_element_with_id_702_37a(real_site):
    ids = parse_page(real_site / "en/2026-08-07/702.html").ids
    assert {"702", "702.37a", "R70237a"} <= ids


def test_real_reference_to_rule_702_37_links_to_its_anchor_on_the_702_page(real_site):
    folder = real_site / "en/2026-08-07"
    pattern = re.compile(r'rule <a href="(?P<href>(?:702\.html)?#702\.37)">702\.37</a>')
    found = [(page, m["href"]) for page in sorted(folder.glob("*.html"))
             for m in pattern.finditer(read(page))]
    assert found, "no page cites rule 702.37"
    for page, href in found:
        target = (page.parent / href.partition("#")[0]).resolve() if not href.startswith("#") else page
        assert target == (folder / "702.html").resolve()
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
    render_site(editions, out)
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
