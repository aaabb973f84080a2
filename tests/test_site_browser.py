"""The site as people use it (issue 14, part 5), in Debian's chromium driven by Playwright,
opened from disk (``file://``, as ``make site`` leaves it) on the site of the whole corpus
(``full_kb``): the header's go-to box keyboard only, the one-page edition's anchors and the
redirect of other sites' links, the home page on a 390 × 844 phone, and an axe-core check
(``axe-playwright-python``, which bundles axe-core) of every kind of page at 1400 and 390 px.
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_browser import SHOTS, browser  # noqa: F401 - the chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def site(full_kb) -> Path:
    return full_kb[0] / "site"


@pytest.fixture
def page(browser):  # noqa: F811
    context = browser.new_context(viewport=DESKTOP)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    pg.external = lambda: [u for u in requests if not u.startswith(("file:", "data:"))]
    yield pg
    context.close()


def _fragment(site: Path) -> str:
    return next(p.name for p in (site / "compare").iterdir() if p.name.startswith("004_"))


#: One page of every kind: (name, path).
def page_kinds(site: Path) -> list[tuple[str, str]]:
    compare = _fragment(site)
    return [
        ("home", "index.html"),
        ("contents", "en/2026-08-07/index.html"),
        ("section", "en/2026-08-07/702.html"),
        ("glossary", "en/2026-08-07/glossary.html"),
        ("all", "en/2026-08-07/all.html"),
        ("diff", "diff/en/2009-05-01..2009-07-11/index.html"),
        ("diff-section", "diff/en/2009-05-01..2009-07-11/702.html"),
        ("history", "history/en/702.37a.html"),
        ("compare", f"compare/{compare}/502.html"),
        ("compare-index", "compare/index.html"),
        ("lexicon", "compare/lexicon.html"),
        ("document", "fr/004_99dc3338bd3ea994/index.html"),
        ("search", "search.html"),
        ("data", "data.html"),
        ("go", "go.html"),
    ]


def _ask(page, query: str) -> None:
    """Keyboard only: "/" to the box, the query, Enter."""
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.closest('form.find') !== null")
    page.keyboard.type(query)
    page.keyboard.press("Enter")


def _landed(page, rule_id: str) -> dict:
    """The rule's element once the page shows it (a split section's first part has sent
    the reader on), with where it is against the sticky header."""
    page.wait_for_function(
        "id => { const e = document.getElementById(id); return e !== null &&"
        " decodeURIComponent(location.hash.slice(1)) === id && !e.hasAttribute('data-go'); }",
        arg=rule_id,
    )
    page.wait_for_timeout(150)
    return page.evaluate(
        """id => { const e = document.getElementById(id), r = e.getBoundingClientRect(),
        h = document.querySelector('header.top').getBoundingClientRect();
        return {text: e.textContent, top: r.top, header: h.bottom, visible: r.top >= h.bottom - 1 && r.top < innerHeight}; }""",
        rule_id,
    )


@pytest.mark.parametrize(
    "kind",
    [
        "home",
        "contents",
        "section",
        "glossary",
        "all",
        "diff",
        "history",
        "compare",
        "lexicon",
        "document",
        "data",
        "go",
    ],
)
def test_slash_then_morph_and_enter_lands_on_702_37_from_every_kind_of_page(page, site, kind):
    path = dict(page_kinds(site))[kind]
    page.goto((site / path).as_uri())
    _ask(page, "morph")
    if kind == "document":  # a French document of 2005: Morph is 502.26 in the English edition of its era
        page.wait_for_url(re.compile(r"/en/\d{4}-\d\d-\d\d/502(-\d)?\.html#502\.26$"))
        assert "Morph" in _landed(page, "502.26")["text"]
        return
    page.wait_for_url(re.compile(r"/en/(2026-08-07|latest)/(702(-\d)?|all)\.html#702\.37$"))
    landed = _landed(page, "702.37")
    assert "Morph" in landed["text"] and landed["visible"], landed
    assert page.errors == [] and page.external() == []


def test_morph_on_an_old_edition_lands_on_its_own_number_702_34(page, site):
    page.goto((site / "en/2009-07-11/100.html").as_uri())
    _ask(page, "morph")
    page.wait_for_url(re.compile(r"/en/2009-07-11/702(-\d)?\.html#702\.34$"))
    assert "Morph" in _landed(page, "702.34")["text"]


def test_old_number_502_26a_says_it_is_now_702_37a_and_goes_there(page, site):
    page.goto((site / "en/2026-08-07/100.html").as_uri())
    _ask(page, "502.26a")
    page.wait_for_url(re.compile(r"/en/2026-08-07/702(-\d)?\.html#702\.37a$"))
    landed = _landed(page, "702.37a")
    assert landed["text"].startswith("702.37a Morph is a static ability") and landed["visible"]
    status = page.locator("#cr-status")
    status.wait_for()
    assert re.fullmatch(r"Renumbered: 502\.26a \(2002-10-07 – 2009-05-01\) is now 702\.37a\.", status.inner_text())
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "20-goto-502.26a-now-702.37a.png"))


def test_a_later_number_on_an_old_edition_says_what_it_was_then_not_what_it_is_now(page, site):
    # issue 22, 6: on 2009-05-01 the go-to said "702.19b … is now 502.11a", "now" pointing back in
    # time. 702.19b is taken as printed today (Trample's, 502.9b in 2009-05-01), as `comprules
    # show` takes it (a later trial: the number's first meaning, 2009–2011's "Bands with other",
    # sent judges to an unrelated rule)
    page.goto((site / "en/2009-05-01/100.html").as_uri())
    _ask(page, "702.19b")
    page.wait_for_url(re.compile(r"/en/2009-05-01/502(-\d)?\.html#502\.9b$"))
    status = page.locator("#cr-status")
    status.wait_for()
    assert re.fullmatch(
        r"Renumbered later: 702\.19b \(2013-07-13 – \d{4}-\d\d-\d\d\) was 502\.9b in this edition \(2009-05-01\)\.",
        status.inner_text(),
    ), status.inner_text()


@pytest.mark.parametrize(
    ("start", "rule", "target", "lands", "note"),
    [
        (
            "en/2026-08-07/702.html",
            "702.37a",
            "1999-04-23",
            r"/en/1999-04-23/index\.html$",
            "702.37a of 2026-08-07 did not exist yet in 1999-04-23: first printed 2002-10-07 as 502.26a.",
        ),
        (
            "en/2026-08-07/702.html",
            "702.37a",
            "2008-05-01",
            r"/en/2008-05-01/502(-\d)?\.html#502\.26a$",
            "702.37a of 2026-08-07 is 502.26a in this edition (2008-05-01).",
        ),
        (
            "en/2009-05-01/511.html",
            "511.2",
            "2026-08-07",
            r"/en/2026-08-07/index\.html$",
            "511.2 of 2009-05-01 was no longer printed in 2026-08-07: last printed 2022-04-29 as 705.2.",
        ),
    ],
)
def test_the_edition_switch_says_where_it_took_the_reader_and_why(page, site, start, rule, target, lands, note):
    # issue 22, 6: switching 702.37a to 1999-04-23 landed on that edition's contents without a word
    page.goto((site / start).as_uri() + "#" + rule)
    form = page.locator("form.switch")
    form.locator("select").select_option(target)
    form.locator("button").first.click()
    page.wait_for_url(re.compile(lands))
    status = page.locator("#cr-status")
    status.wait_for()
    page.wait_for_function("document.getElementById('cr-status').textContent.trim() !== ''")
    assert status.inner_text().strip() == note
    assert page.errors == []


def test_typography_only_steps_of_a_history_hide_with_one_switch_kept_in_the_address(page, site):
    # issue 22, 5: 702.37a's history listed about nine typography-only steps, no way to hide them
    history = site / "history" / "en" / "702.37a.html"
    page.goto(history.as_uri())
    typography = page.locator("ol.lineage > li:has(> h2 > span.k-typography)")
    assert typography.count() >= 5
    assert typography.first.is_visible()
    page.locator('input[data-hide="typography"]').check()
    assert all(not li.is_visible() for li in typography.all())
    assert "typography=hidden" in page.url
    page.reload()
    assert page.locator('input[data-hide="typography"]').is_checked()
    assert all(not li.is_visible() for li in typography.all())
    assert page.locator("ol.lineage > li:not(:has(> h2 > span.k-typography))").first.is_visible()


def test_702_999_says_it_does_not_exist_and_stays(page, site):
    start = (site / "en/2026-08-07/702.html").as_uri()
    page.goto(start)
    _ask(page, "702.999")
    status = page.locator("#cr-status")
    status.wait_for()
    assert status.inner_text() == "702.999 does not exist: no edition prints it (1999-04-23 – 2026-08-07)."
    assert page.url == start
    assert page.evaluate("document.activeElement.name") == "q"


def test_a_rule_of_a_later_edition_says_where_it_is(page, site):
    page.goto((site / "en/2009-07-11/100.html").as_uri())
    _ask(page, "702.123a")  # two rules have had that number since 2016; neither is in 2009-07-11
    status = page.locator("#cr-status")
    status.wait_for()
    assert status.inner_text().startswith("702.123a is not in this edition (2009-07-11). Printed: ")
    links = [(a.inner_text(), a.get_attribute("href")) for a in status.locator("a").all()]
    assert re.fullmatch(r"20\d\d-\d\d-\d\d – 2026-08-07 → 702\.123a \(2026-08-07\)", links[0][0]), links
    assert links[0][1].endswith("en/2026-08-07/702.html#702.123a")
    assert links[1][0].startswith("2016-11-11 – 2021-02-15 → 702.124a") and links[1][1].endswith("#702.124a")


@pytest.mark.parametrize(
    "query,rule",
    [
        ("layer 7", "613.1g"),
        ("Layer 7a", "613.4a"),
        ("R70237a", "702.37a"),
        ("rule 702.37a", "702.37a"),
        ("702.37 a", "702.37a"),
        ("702.37(a)", "702.37a"),
        ("trample", "702.19"),
        ("active player", "102.1"),
        # a keyword as a card prints it (a trial: the box opened the results; search had it first)
        ("ward 2", "702.21"),
        ("Ward—Pay 3 life", "702.21"),
        ("protection from red", "702.16"),
        ("equip {1}", "702.6"),
    ],
)
def test_box_takes_labels_number_forms_and_terms(page, site, query, rule):
    page.goto((site / "en/2026-08-07/100.html").as_uri())
    _ask(page, query)
    assert _landed(page, rule)["visible"]


def test_other_words_open_the_search_results(page, site):
    page.goto((site / "en/2026-08-07/100.html").as_uri())
    _ask(page, "trample deathtouch")
    page.wait_for_url(re.compile(r"/search\.html\?q=trample(%20|\+)deathtouch$"))
    page.locator("#results li").first.wait_for(timeout=15_000)
    page.goto((site / "en/2026-08-07/100.html").as_uri())
    _ask(page, "damage from a source")  # "from", but Damage is no keyword
    page.wait_for_url(re.compile(r"/search\.html\?q=damage(%20|\+)from(%20|\+)a(%20|\+)source$"))


def test_box_takes_a_chinese_keyword_as_a_card_prints_it(page, site):
    page.goto((site / "zh/2026-04-17/100.html").as_uri())
    _ask(page, "反蓝保护")  # 702.16a: “反[特性]保护”
    assert _landed(page, "702.16")["visible"]
    page.goto((site / "zh/2026-04-17/100.html").as_uri())
    _ask(page, "我的生物受到保护")  # a sentence ending in 保护 is no keyword form (a second trial)
    page.wait_for_url(re.compile(r"/search\.html\?q="))


def test_header_stays_on_a_long_page_at_1400_and_390_px(browser, site):  # noqa: F811
    for viewport in (DESKTOP, PHONE):
        context = browser.new_context(viewport=viewport)
        pg = context.new_page()
        pg.goto((site / "en/2026-08-07/702.html").as_uri())
        pg.mouse.wheel(0, 15000)
        pg.wait_for_timeout(300)
        header = pg.evaluate(
            "(() => { const r = document.querySelector('header.top').getBoundingClientRect();"
            " return [r.top, r.height]; })()"
        )
        assert pg.evaluate("scrollY") > 5000 and header[0] == 0 and header[1] < (60 if viewport is DESKTOP else 100), (
            header
        )
        assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        context.close()


def test_keyboard_reaches_home_switcher_and_box_in_order(page, site):
    page.goto((site / "en/2009-07-11/702.html").as_uri())
    seen = []
    for _ in range(6):
        page.keyboard.press("Tab")
        seen.append(
            page.evaluate(
                "document.activeElement.tagName + '.' + (document.activeElement.name || "
                "document.activeElement.className || document.activeElement.textContent)"
            )
        )
    assert seen[0] == "A.skip"
    assert seen.index("SELECT.edition") < seen.index("INPUT.q")
    assert "A.Comprehensive Rules" in seen[:3]


def test_one_page_edition_lands_on_702_123a_by_yawgatog_and_mtgwtf_anchors(page, site):
    for anchor in ("R702123a", "section-702-123a", "702.123a"):
        page.goto((site / "en/2026-08-07/all.html").as_uri() + "#" + anchor)
        page.wait_for_timeout(200)
        box = page.evaluate("""(() => { const p = document.getElementById('702.123a'), r = p.getBoundingClientRect(),
            h = document.querySelector('header.top').getBoundingClientRect().bottom;
            return {top: r.top, header: h, text: p.textContent.slice(0, 40),
                    marked: getComputedStyle(p).backgroundColor}; })()""")
        assert box["text"].startswith("702.123a Fabricate") and box["header"] - 1 <= box["top"] < 400, (anchor, box)
        assert box["marked"] != "rgba(0, 0, 0, 0)", anchor  # the whole rule is highlighted
    page.screenshot(path=str(SHOTS / "21-all-html-R702123a.png"))


@pytest.mark.parametrize(
    "link,rule",
    [
        ("index.html#R70237a", "702.37a"),
        ("index.html#section-702-37a", "702.37a"),
        ("go.html?u=https%3A%2F%2Fyawgatog.com%2Fresources%2Fmagic-rules%2F%23R702123a", "702.123a"),
        ("go.html?u=https%3A%2F%2Fmtg.wtf%2Fhelp%2Frules%23section-702-123a", "702.123a"),
        ("index.html#active_player_nonactive_player_order", "active-player-nonactive-player-order"),
    ],
)
def test_root_redirect_takes_yawgatog_and_mtgwtf_links(page, site, link, rule):
    page.goto((site / link.split("?")[0].split("#")[0]).as_uri() + link[len(link.split("?")[0].split("#")[0]) :])
    page.wait_for_url(re.compile(r"/en/latest/"))
    page.wait_for_function(f"document.getElementById({rule!r}) !== null")
    page.wait_for_timeout(200)
    top = page.evaluate(f"document.getElementById({rule!r}).getBoundingClientRect().top")
    assert 0 <= top < 400


def test_a_link_to_an_old_or_missing_number_says_where_its_rule_is_or_that_there_is_none(page, site):
    # a trial: #R50226a (Morph, 2002-2009) landed on 502 Untap Step without a word, #R999999
    # on a page that does not exist, ?u=garbage on the one-page CR
    page.goto((site / "index.html").as_uri() + "#R50226a")
    page.wait_for_url(re.compile(r"/en/latest/702(-\d)?\.html#702\.37a$"))
    page.wait_for_function("document.getElementById('cr-status').textContent.includes('702.37a')")
    assert page.inner_text("#cr-status").startswith("Renumbered: 502.26a (2002-10-07 – 2009-05-01) is now 702.37a.")
    for given, said in [
        ("https%3A%2F%2Fyawgatog.com%2Fresources%2Fmagic-rules%2F%23R999999", "999.999 does not exist"),
        ("https%3A%2F%2Fyawgatog.com%2Fresources%2Fmagic-rules%2F%23R702999", "702.999 does not exist"),
        ("garbage", "Not a Yawgatog or mtg.wtf rule link: garbage"),
    ]:
        page.goto((site / "go.html").as_uri() + "?u=" + given)
        page.wait_for_function("document.getElementById('go-status').textContent !== ''")
        assert page.inner_text("#go-status").startswith(said), given
        assert page.url.split("?")[0].endswith("/go.html")


def test_go_page_takes_a_pasted_link(page, site):
    page.goto((site / "go.html").as_uri())
    page.fill("form.link input", "https://yawgatog.com/resources/magic-rules/#R70237a")
    page.press("form.link input", "Enter")
    page.wait_for_url(re.compile(r"/en/latest/702(-\d)?\.html#702\.37a$"))


def test_home_french_documents_are_visible_without_scrolling_on_a_390_by_844_phone(browser, site):  # noqa: F811
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    pg = context.new_page()
    pg.goto((site / "index.html").as_uri())
    block = pg.locator("section.docs[lang='fr']")
    box = block.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    assert block.locator("li").count() == 5
    assert block.locator("li a").first.inner_text() == "Capacité=effet ?"
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / "22-home-phone-390x844.png"))
    context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1400px", "390px"])
def test_axe_finds_no_serious_or_critical_violation_on_any_kind_of_page(browser, site, viewport):  # noqa: F811
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    context = browser.new_context(viewport=viewport)
    pg = context.new_page()
    found = {}
    kinds = page_kinds(site)
    if viewport is PHONE:
        # the one-page CR of the oldest edition (347 rules, axe 2 s) at 390 px, that of the
        # latest (3,162 rules, axe 13 s) at 1400 px: the page kind at both widths, two
        # editions' texts in it
        kinds = [(k, "en/1999-04-23/all.html" if k == "all" else p) for k, p in kinds]
    for kind, path in kinds:
        pg.goto((site / path).as_uri())
        violations = axe.run(pg).response["violations"]
        bad = [
            (v["id"], v["impact"], v["nodes"][0]["target"])
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
        if bad:
            found[kind] = bad
    context.close()
    assert found == {}


#: Issue 22, 7 (phone fit): the links and controls a finger uses on the page, each with its box
#: (document coordinates) cut by the ancestors that clip it (the header's crumbs cut their width);
#: a control inside its own label is measured as that label, which takes its taps. Hidden ones
#: (visually hidden text, a skip link moved off the page) are not targets. Returns the page's
#: width and the targets that fail WCAG 2.2's 2.5.8: smaller than 24 × 24 px, and not saved by
#: its spacing exception (a circle of 24 px diameter centred on the target's box intersects
#: another target, or the same circle of another undersized target).
SMALL_TARGETS = """() => {
  const style = new Map(), css = e => style.get(e) || style.set(e, getComputedStyle(e)).get(e);
  const box = el => {
    const r = el.getBoundingClientRect();
    let x0 = r.left, y0 = r.top, x1 = r.right, y1 = r.bottom;
    for (let e = el.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      const s = css(e);
      if (s.position === 'absolute' && s.clip !== 'auto') return null;
      const c = (s.overflowX !== 'visible' || s.overflowY !== 'visible') && e.getBoundingClientRect();
      if (s.overflowX !== 'visible') { x0 = Math.max(x0, c.left); x1 = Math.min(x1, c.right); }
      if (s.overflowY !== 'visible') { y0 = Math.max(y0, c.top); y1 = Math.min(y1, c.bottom); }
    }
    if (x1 + scrollX <= 0 || y1 + scrollY <= 0 || x1 - x0 < 0.5 || y1 - y0 < 0.5) return null;
    return {x: x0 + scrollX, y: y0 + scrollY, w: x1 - x0, h: y1 - y0};
  };
  const targets = [];
  for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary, label')) {
    const label = el.tagName === 'LABEL' ? null : el.closest('label');
    if (el.tagName === 'LABEL' ? !el.control : label && label.control === el) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const b = box(el);
    if (b) targets.push(Object.assign(b, {el}));
  }
  const small = t => t.w < 24 || t.h < 24;
  const one = (a, b) => a.contains(b) || b.contains(a) || a.control === b || b.control === a;
  const near = (t, o) => {
    const cx = t.x + t.w / 2, cy = t.y + t.h / 2;
    const dx = cx - Math.max(o.x, Math.min(cx, o.x + o.w)), dy = cy - Math.max(o.y, Math.min(cy, o.y + o.h));
    return Math.hypot(dx, dy) < 12 || (small(o) && Math.hypot(cx - o.x - o.w / 2, cy - o.y - o.h / 2) < 24);
  };
  const bad = targets.filter(t => small(t) && targets.some(o => o !== t && !one(t.el, o.el) && near(t, o)));
  return {width: document.documentElement.scrollWidth, targets: targets.length, small: bad.map(t => [
    t.el.tagName.toLowerCase() + (t.el.className ? '.' + t.el.className : ''),
    (t.el.textContent || t.el.value || t.el.name || '').trim().slice(0, 40),
    Math.round(t.w * 10) / 10 + ' × ' + Math.round(t.h * 10) / 10])};
}"""


#: Every kind of page, and the kinds the phone showed too wide or with small targets (issue 22, 7):
#: the diffs' index, a French document's index beside English, the comparison of any two
#: editions, a Chinese section, the search page with hits and with its note on the server.
def phone_pages(site: Path) -> list[tuple[str, str]]:
    return [
        *page_kinds(site),
        ("diff-index", "diff/index.html"),
        ("compare-contents", f"compare/{_fragment(site)}/index.html"),
        ("compare-editions", "diff/en/compare.html"),
        # its rows drawn by compare.js (a trial: 18 reference links of 23 × 25 px)
        ("compare-editions-rows", "diff/en/compare.html?old=2020-06-01&new=2026-08-07"),
        ("chinese-section", "zh/latest/702.html"),
        ("search-hits", "search.html?q=trample+deathtouch"),
        ("search-every-edition", "search.html?q=morph&edition=*"),
    ]


def test_every_kind_of_page_fits_a_390_px_phone_with_targets_of_24_px(browser, site):  # noqa: F811
    # issue 22, 7: diff/index.html's table was 616 px wide, compare/*/index.html 5 px too wide;
    # "History" was a 43 × 14 px target, a reference link in rule text 24 × 17 px
    context = browser.new_context(viewport=PHONE)
    pg = context.new_page()
    wide, small = {}, {}
    for kind, path in phone_pages(site):
        file, _, query = path.partition("?")
        pg.goto((site / file).as_uri() + (f"?{query}" if query else ""))
        if query and file.endswith("compare.html"):
            pg.wait_for_function("document.getElementById('diff-out').hasAttribute('data-rows')", timeout=30_000)
        elif query:
            pg.locator("#results li").first.wait_for(timeout=15_000)
        pg.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        pg.wait_for_timeout(100)  # the details' toggle events: their links measured as shown
        found = pg.evaluate(SMALL_TARGETS)
        assert found["targets"] > 3, (kind, found)
        if found["width"] > PHONE["width"]:
            wide[f"{kind} ({path})"] = found["width"]
        if found["small"]:
            small[f"{kind} ({path})"] = found["small"][:10] + [f"{len(found['small'])} in all"]
    context.close()
    assert wide == {}, f"pages wider than {PHONE['width']} px: {wide}"
    assert small == {}, "targets under 24 × 24 px (tag.class, text, size) by page:\n" + "\n".join(
        f"{page}: {items}" for page, items in small.items()
    )


def test_the_edition_switcher_shows_the_date_alone_on_a_phone_and_every_label_whole(browser, site):  # noqa: F811
    # a phone trial: the 166 px menu showed "2026-08-07 — The H"
    shown = "() => [...document.querySelectorAll('form.switch option')].map(o => [o.value, o.selected, o.textContent])"
    for viewport in (PHONE, DESKTOP):
        context = browser.new_context(viewport=viewport)
        pg = context.new_page()
        pg.goto((site / "en/2026-08-07/702.html").as_uri())
        options = pg.evaluate(shown)
        chosen = [text for value, selected, text in options if selected]
        others = [text for value, selected, text in options if not selected]
        assert len(options) == 74 and all(" — " in text for text in others), viewport
        if viewport is PHONE:
            assert chosen == ["2026-08-07"]
            pg.select_option("form.switch select", "2009-07-11")
            after = {value: text for value, _selected, text in pg.evaluate(shown)}
            assert after["2009-07-11"] == "2009-07-11" and after["2026-08-07"].startswith("2026-08-07 — ")
        else:
            assert len(chosen) == 1 and chosen[0].startswith("2026-08-07 — ")
        context.close()


def test_a_bulletin_s_pager_breaks_no_date_on_a_390_px_phone(browser, site):  # noqa: F811
    # a phone trial: "Changes 2026-06-19 → 2026-08-" then "07" on the next line
    context = browser.new_context(viewport=PHONE)
    pg = context.new_page()
    pg.goto((site / "diff/en/2026-06-19..2026-08-07/702.html").as_uri())
    lines = pg.evaluate(
        "() => [...document.querySelectorAll('.pager .nw')].map(d => [d.textContent, d.getClientRects().length])"
    )
    context.close()
    assert lines == [["2026-06-19", 1], ["2026-08-07", 1]]


def test_search_page_labels_sit_beside_their_controls_on_a_390_px_phone(browser, site):  # noqa: F811
    # issue 22, 7: at 390 px every label ended one line and its control started the next
    context = browser.new_context(viewport=PHONE)
    pg = context.new_page()
    pg.goto((site / "search.html").as_uri())
    pairs = pg.evaluate("""() => [...document.querySelectorAll('form#search label')].map(label => {
        const range = document.createRange(), text = [...label.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
        range.selectNodeContents(text);
        const words = range.getBoundingClientRect(), control = label.control.getBoundingClientRect();
        return {label: text.textContent.trim(), top: words.top, bottom: words.bottom, control: [control.top, control.bottom],
                right: Math.max(words.right, control.right)};
    })""")
    context.close()
    assert [p["label"] for p in pairs] == ["Words", "Language", "Edition", "Kind"]
    for p in pairs:  # the words' middle between the control's top and bottom: one line
        assert p["control"][0] <= (p["top"] + p["bottom"]) / 2 <= p["control"][1], p
        assert p["right"] <= PHONE["width"], p


def test_search_page_from_disk_names_the_command_that_serves_its_knowledge_base(page, site):
    # issue 22, 7: the note said `comprules serve --kb build` whatever the setup; hits showed "6.14"
    page.goto(site.joinpath("search.html").as_uri() + "?q=morph&edition=*")
    page.locator("#results li").first.wait_for(timeout=15_000)
    note = page.locator("#offline")
    assert note.is_visible()
    assert page.locator("#serve").inner_text() == f"comprules serve --kb {site.parent}"
    hits = page.locator("#results li[data-number]")
    assert hits.count() > 5 and page.locator("#results .score").count() == 0
    assert all(re.fullmatch(r"\d+\.\d\d", li.get_attribute("data-score") or "") for li in hits.all())
    assert not any(re.search(r"\s\d+\.\d\d\s*$", li.inner_text().split("\n")[0]) for li in hits.all())
