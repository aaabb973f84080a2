"""Reading the site (issue 14): the one-page CR per edition with the anchors clients link
to, the redirect page for Yawgatog and mtg.wtf links, and reading comfort on the real
2026-08-07 edition (rendered once for the module)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from comprules.site import render_site
from comprules.site import urls as U

from test_site import broken_links, parse_page, read


@pytest.fixture(scope="module")
def edition(en_dir):
    from comprules.corpus import parse_file

    return parse_file(en_dir / "2026-08-07.txt")


@pytest.fixture(scope="module")
def real_site(edition, seed_files, tmp_path_factory) -> Path:
    from comprules.corpus import parse_file
    from comprules.graph import kb_graph

    seeds = [parse_file(f) for f in seed_files]
    out = tmp_path_factory.mktemp("reading") / "site"
    render_site([edition, *seeds], out, graph=kb_graph([edition]), search=False)
    return out


# -- one page per edition ---------------------------------------------------------------


def test_all_html_holds_every_unit_of_the_edition_with_our_yawgatog_and_mtgwtf_anchors(real_site, edition):
    page = real_site / "en/2026-08-07/all.html"
    ids = parse_page(page).ids
    assert {r.id for r in edition.rules} <= ids
    assert {"702.123a", "R702123a", "section-702-123a", "R702", "section-702", "R7", "section-7",
            "R1001", "section-100-1", "section-glossary", "section-contents", "section-introduction"} <= ids
    html = read(page)
    assert re.search(r'<p id="702.123a" class="sr"><a id="R702123a" class="n" href="#702.123a">702.123a</a>'
                     r'<span id="section-702-123a"></span> Fabricate is a triggered ability', html)
    # every reference stays on the page: 702.123a's "rule 122" → #122
    assert 'href="#702.37"' in html and 'href="702' not in html


def test_all_html_glossary_answers_yawgatog_anchors_both_with_and_without_curly_quotes(real_site):
    ids = parse_page(real_site / "en/2026-08-07/all.html").ids
    assert {"active_player_nonactive_player_order", "alternating_teams_variant", "free-for-all",
            "citys_blessing", "city_s_blessing", "mana_burn", "partner_partner_text_partner_with_name",
            "active-player-nonactive-player-order"} <= ids


def test_all_html_links_resolve_and_the_contents_link_to_it(real_site):
    assert broken_links(real_site, [real_site / "en/2026-08-07/all.html", real_site / "en/2026-08-07/index.html",
                                    real_site / "go.html", real_site / "index.html"]) == []
    assert '<a href="all.html">The whole edition on one page</a>' in read(real_site / "en/2026-08-07/index.html")
    assert (real_site / "en/latest/all.html").is_file()


def test_yawgatog_glossary_anchor_function_follows_judgebot():
    assert U.yawgatog_anchors("Alternating Teams Variant") == ["alternating_teams_variant"]
    assert U.yawgatog_anchors("Free-for-All") == ["free-for-all"]
    assert U.yawgatog_anchors("City's Blessing") == ["citys_blessing"]
    assert U.yawgatog_anchors('partner, "partner with [name]"') == ["partner_partner_with_name"]
    assert U.yawgatog_anchors("mana burn (obsolete)") == ["mana_burn"]
    assert [U.mtgwtf_anchor(n) for n in ("1.", "100.", "100.1.", "100.1a", "702.123a")] == [
        "section-1", "section-100", "section-100-1", "section-100-1a", "section-702-123a"]


def test_redirect_page_and_home_take_other_sites_links(real_site):
    go = read(real_site / "go.html")
    assert 'data-latest="en/latest/"' in go and "goto.js" in go
    assert 'data-latest="en/latest/"' in read(real_site / "index.html")
