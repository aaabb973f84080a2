"""Reading the site (issue 14): the one-page CR per edition with the anchors clients link
to, the redirect page for Yawgatog and mtg.wtf links, and reading comfort on the real
2026-08-07 edition (rendered once for the module)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_site import broken_links, parse_page, read

from comprules.site import render_site
from comprules.site import urls as U


@pytest.fixture(scope="module")
def edition(en_dir):
    from comprules.corpus import parse_file

    return parse_file(en_dir / "2026-08-07.txt")


@pytest.fixture(scope="module")
def real_site(edition, seed_files, tmp_path_factory) -> Path:
    from comprules.build import build
    from comprules.corpus import parse_file
    from comprules.graph import kb_graph

    seeds = [parse_file(f) for f in seed_files]
    era = parse_file(edition.source.replace("2026-08-07", "2005-02-01"))  # seed 004's English
    root = tmp_path_factory.mktemp("reading")
    # the database of these editions: the documents' alignments and terms, which the site
    # reads (it aligns nothing itself)
    build([edition.source, era.source, *seed_files], root / "kb", only=("data",))
    out = root / "site"
    render_site([edition, era, *seeds], out, graph=kb_graph([edition]), search=False, data_dir=root / "kb" / "data")
    return out


# -- one page per edition ---------------------------------------------------------------


def test_all_html_holds_every_unit_of_the_edition_with_our_yawgatog_and_mtgwtf_anchors(real_site, edition):
    page = real_site / "en/2026-08-07/all.html"
    ids = parse_page(page).ids
    assert {r.id for r in edition.rules} <= ids
    assert {
        "702.123a",
        "R702123a",
        "section-702-123a",
        "R702",
        "section-702",
        "R7",
        "section-7",
        "R1001",
        "section-100-1",
        "section-glossary",
        "section-contents",
        "section-introduction",
    } <= ids
    html = read(page)
    assert re.search(
        r'<p id="702.123a" class="sr"><a id="R702123a" class="n" href="#702.123a">702.123a</a>'
        r'<span id="section-702-123a"></span> Fabricate is a triggered ability',
        html,
    )
    # every reference stays on the page: 702.123a's "rule 122" → #122
    assert 'href="#702.37"' in html and 'href="702' not in html


def test_all_html_glossary_answers_yawgatog_anchors_both_with_and_without_curly_quotes(real_site):
    ids = parse_page(real_site / "en/2026-08-07/all.html").ids
    assert {
        "active_player_nonactive_player_order",
        "alternating_teams_variant",
        "free-for-all",
        "citys_blessing",
        "city_s_blessing",
        "mana_burn",
        "partner_partner_text_partner_with_name",
        "active-player-nonactive-player-order",
    } <= ids


def test_all_html_links_resolve_and_the_contents_link_to_it(real_site):
    assert (
        broken_links(
            real_site,
            [
                real_site / "en/2026-08-07/all.html",
                real_site / "en/2026-08-07/index.html",
                real_site / "go.html",
                real_site / "index.html",
            ],
        )
        == []
    )
    assert '<a href="all.html">The whole edition on one page</a>' in read(real_site / "en/2026-08-07/index.html")
    assert (real_site / "en/latest/all.html").is_file()


def test_yawgatog_glossary_anchor_function_follows_judgebot():
    assert U.yawgatog_anchors("Alternating Teams Variant") == ["alternating_teams_variant"]
    assert U.yawgatog_anchors("Free-for-All") == ["free-for-all"]
    assert U.yawgatog_anchors("City's Blessing") == ["citys_blessing"]
    assert U.yawgatog_anchors('partner, "partner with [name]"') == ["partner_partner_with_name"]
    assert U.yawgatog_anchors("mana burn (obsolete)") == ["mana_burn"]
    assert [U.mtgwtf_anchor(n) for n in ("1.", "100.", "100.1.", "100.1a", "702.123a")] == [
        "section-1",
        "section-100",
        "section-100-1",
        "section-100-1a",
        "section-702-123a",
    ]


def test_redirect_page_and_home_take_other_sites_links(real_site):
    go = read(real_site / "go.html")
    from comprules.site.urls import static_names

    assert 'data-latest="en/latest/"' in go and f'static/{static_names()["goto.js"]}"' in go
    assert 'data-latest="en/latest/"' in read(real_site / "index.html")


# -- reading comfort (part 4) -------------------------------------------------------------


def _rule_html(site: Path, rule_id: str) -> str:
    """The HTML of one rule's own element (its ``<p>``) on its section page."""
    for page in sorted((site / "en/2026-08-07").glob(f"{rule_id[:3]}*.html")):
        m = re.search(rf'<p id="{re.escape(rule_id)}" .*?</p>', read(page), re.S)
        if m:
            return m.group(0)
    raise AssertionError(f"{rule_id} not found")


def test_cited_by_sits_inside_its_own_rule_before_the_examples(real_site):
    html = _rule_html(real_site, "702.19b")
    assert re.search(r'<span class="cb">Cited by: <a href="#702\.19c">702\.19c</a></span></p>$', html)
    page = read(real_site / "en/2026-08-07/702.html")
    after = page[page.index('<p id="702.19b"') :]
    assert after.index('<span class="cb">') < after.index('<p class="ex">') < after.index('<p id="702.19c"')


def test_glossary_terms_link_once_per_rule_never_to_the_rule_read_never_inside_quotes(real_site):
    pages = {p.name: read(p) for p in (real_site / "en/2026-08-07").glob("[0-9]*.html")}
    # Trample's entry cites 702.19: no rule of 702.19 links to it, but 122.1b does
    rules_702_19 = re.findall(
        r'<p id="702\.19[a-z]?" .*?</p>', "".join(v for k, v in pages.items() if k.startswith("702")), re.S
    )
    assert len(rules_702_19) >= 7 and not any("#trample" in r for r in rules_702_19)
    assert 'glossary-3.html#trample">trample</a>' in _rule_html(real_site, "122.1b")
    # never inside a quoted title: See rule 702.19, “Trample.”
    for html in pages.values():
        assert not re.search(r'“<a class="g"[^>]*>[^<]*</a>\.”', html)
    # once per rule, its examples included
    page = pages["702.html"]
    blocks = re.split(r'(?=<(?:p|h3) id="702\.\d+[a-z]?")', page)
    for block in blocks[1:]:
        block = block[: block.find("<p id=", 10)] if "<p id=" in block[10:] else block
        slugs = re.findall(r'<a class="g" href="[^"#]*#([^"]+)"', block)
        assert len(slugs) == len(set(slugs)), (block[:60], slugs)


def test_glossary_in_parts_by_letter_with_an_a_to_z_bar_and_used_in_rules(real_site):
    folder = real_site / "en/2026-08-07"
    parts = sorted(folder.glob("glossary*.html"))
    assert [p.name for p in parts] == ["glossary-2.html", "glossary-3.html", "glossary.html"]
    assert max(p.stat().st_size for p in parts) <= 150 * 1024
    first = read(folder / "glossary.html")
    bar = re.search(r'<nav class="az".*?</nav>', first, re.S).group(0)
    assert len(re.findall(r"<a ", bar)) >= 24 and 'href="glossary-3.html#g-T"' in bar
    assert '<i id="trample" data-go="glossary-3.html"></i>' in first  # glossary.html#trample still lands
    for part in parts:  # a letter met again in the glossary's order ("The Ring Tempts You") gets no second heading
        ids = re.findall(r' id="([^"]+)"', read(part))
        assert len(ids) == len(set(ids)), part.name
    trample = re.search(r'<dt id="trample">.*?(?=<dt )', read(folder / "glossary-3.html"), re.S).group(0)
    # the rules whose text or examples say "trample", less 702.19 itself (its "See rule")
    assert re.search(
        r'Used in 5 rules: <a href="111.html#111.4">111.4</a>, <a href="111.html#111.10k">111.10k</a>, '
        r'<a href="122.html#122.1b">122.1b</a>, <a href="702.html#702.1c">702.1c</a> …',
        trample,
    ), trample


def test_every_part_of_702_opens_with_the_index_of_all_its_keyword_abilities(real_site, edition):
    folder = real_site / "en/2026-08-07"
    keywords = [r for r in edition.rules if r.kind == "rule" and r.section == "702"]
    assert len(keywords) > 190
    for page in sorted(folder.glob("702*.html")):
        html = read(page)
        index = re.search(r'<details class="kw">.*?</details>', html, re.S)
        assert index and html.index('<details class="kw">') < html.index('<p id="702.'), page.name
        assert len(re.findall(r"<li", index.group(0))) == len(keywords)
        assert re.search(r'<a href="(702-\d\.html)?#702\.37">702\.37</a> Morph', index.group(0))


def test_compare_pages_are_full_width_with_both_texts_references_linked(real_site):
    pages = [p for p in (real_site / "compare").rglob("*.html") if p.name not in ("index.html", "lexicon.html")]
    html = read(next(p for p in pages if p.parent.name.startswith("004_") and p.name == "502.html"))
    assert '<body class="wide">' in html
    row = re.search(r'<tr id="502\.42b">.*?</tr>', html, re.S).group(0)
    fr, en = row.split('<td lang="en">')
    assert re.search(r'voir règle <a href="[^"]*#409\.1a" hreflang="en" class="xl">409\.1a</a>', fr)
    assert re.search(r'see rule <a href="[^"]*#409\.1a">409\.1a</a>', en)
    index = read(real_site / "compare/index.html")
    assert 'id="paired-note"' in index and 'aria-describedby="paired-note"' in index and " / " in index


def test_lexicon_has_one_row_per_term_each_side_linked(real_site):
    from comprules.site.compare import _singular

    html = read(real_site / "compare/lexicon.html")
    rows = re.findall(r'<tr><td lang="en">(.*?)</td><td>(.*?)</td>', html)
    keys = [(_singular(re.sub("<[^>]+>", "", en)), _singular(re.sub("<[^>]+>", "", fr))) for en, fr in rows]
    assert len(keys) == len(set(keys)) > 100
    morph = next((en, fr) for en, fr in rows if ">Morph<" in en)
    assert "glossary" in morph[0] and "#morph" in morph[0]
    assert re.search(r'<a href="[^"]*004_99dc3338bd3ea994/index.html#502\.26">Mue</a>', morph[1])
    assert "004_99dc" not in re.sub(r'href="[^"]*"', "", html)  # documents named by title
