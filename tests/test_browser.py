"""The site in a real browser: Debian's chromium, headless, driven by Playwright,
against ``comprules serve`` on the knowledge base of the whole corpus (``full_kb``).

One user story, step by step (issue 6): open the home page, go to rule 702.37a with
the box, follow a reference, come back through "cited by", switch edition and stay
on Morph (702.34a in 2009-07-11), open the 2009-05-01 → 2009-07-11 diff and see
502.26a → 702.34a, search "mue" and reach seed 004's 502.26, search "trample" in
French (the search page itself: ``test_search_site.py``). Each step saves a screenshot
in ``artifacts/screenshots/`` (gitignored).

Skipped with the reason when chromium or Playwright is missing, except under CI
(``CI=true``), where ``.ci/run`` installs chromium and a skip would hide a failure.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SEED_004 = "fr/004_99dc3338bd3ea994"
SEED_003 = "fr/003_816c607ad111474a"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; no browser download needed)"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser test cannot run under CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def served(full_kb):
    """``comprules serve --kb KB --port 0`` in a subprocess; yields its base URL."""
    with serving(full_kb[0]) as url:
        yield url


@contextlib.contextmanager
def serving(kb: Path):
    """``comprules serve --kb kb --port 0`` in a subprocess, for the time of the block; its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "comprules.cli", "serve", "--kb", str(kb), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, f"comprules serve said: {line!r}"
        yield m.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    pg = context.new_page()
    pg.external = lambda: [u for u in requests if not u.startswith(("http://127.0.0.1", "file:", "data:"))]
    yield pg
    context.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_reader_goes_to_702_37a_follows_a_reference_and_comes_back_by_cited_by(page, served):
    page.goto(served + "index.html")
    assert page.locator("h1").inner_text() == "Magic: The Gathering Comprehensive Rules"
    assert page.locator("table.editions").first.inner_text().count("Magic 2010") == 1
    shot(page, "01-home")

    page.fill("form.goto input", "702.37a")
    page.press("form.goto input", "Enter")
    page.wait_for_url(re.compile(r"/en/latest/702(-\d)?\.html#702\.37a$"))
    rule = page.locator("[id='702.37a']")
    assert "Morph" in rule.inner_text()
    shot(page, "02-goto-702.37a")

    rule.locator("a", has_text=re.compile(r"^708$")).click()  # "(See rule 708, …)"
    page.wait_for_url(re.compile(r"/en/latest/708\.html$"))
    assert page.locator("h1").inner_text().startswith("708.")
    shot(page, "03-reference-708")

    cited = page.locator("h1 + p.cb")  # the section's "Cited by:" list
    assert "Cited by:" in cited.inner_text()
    cited.locator("a", has_text="702.37a").click()
    page.wait_for_url(re.compile(r"/702(-\d)?\.html#702\.37a$"))
    assert page.locator("[id='702.37a']").is_visible()
    shot(page, "04-cited-by-back-to-702.37a")
    assert page.external() == []


def test_edition_switcher_keeps_morph_702_37a_as_702_34a_in_2009_07_11(page, served):
    page.goto(served + "en/2026-08-07/702.html#702.37a")
    page.wait_for_function("location.hash === '#702.37a' && document.getElementById('702.37a') !== null")
    switch = page.locator("form.switch")
    assert switch.is_visible()
    switch.locator("select").select_option("2009-07-11")
    switch.locator("button").click()
    page.wait_for_url(re.compile(r"/en/2009-07-11/702(-\d)?\.html#702\.34a$"))
    rule = page.locator("[id='702.34a']")
    assert rule.get_attribute("data-l") == "702.37a"
    assert rule.inner_text().startswith("702.34a Morph is a static ability")
    shot(page, "05-switch-to-2009-07-11-702.34a")


def test_diff_2009_05_01_to_2009_07_11_shows_502_26a_moved_to_702_34a(page, served):
    page.goto(served + "index.html")
    row = page.locator("table.editions tr", has_text="2009-07-11")
    row.locator("a", has_text="Changes").click()
    page.wait_for_url(re.compile(r"/diff/en/2009-05-01\.\.2009-07-11/index\.html$"))
    assert "502" in page.locator("table.sections").inner_text()
    shot(page, "06-diff-index")
    page.locator("ul.toc a", has_text=re.compile(r"^702\. ")).click()
    page.wait_for_url(re.compile(r"/702\.html$"))
    parts = [a.get_attribute("href") for a in page.locator("p.meta a").all()]
    moves = page.locator("section.change", has=page.locator("h2.move", has_text="502.26a "))
    for href in parts[1:]:  # a long section's changes are cut into parts
        if moves.count():
            break
        page.locator("p.meta a", has_text=re.compile(rf"^{parts.index(href) + 1}$")).click()
        page.wait_for_url(re.compile(re.escape(href) + "$"))
    move = moves.first
    move.scroll_into_view_if_needed()
    assert re.match(r"502\.26a → 702\.34a\b", move.locator("h2.move").inner_text())
    assert move.locator("del", has_text="play").count() >= 1
    assert move.locator("ins", has_text="cast").count() >= 1
    shot(page, "07-diff-502.26a-to-702.34a")


def test_search_mue_reaches_seed_004_rule_502_26(page, served):
    page.goto(served + "search.html")
    page.fill("#q", "mue")
    page.press("#q", "Enter")
    hit = page.locator("#results a", has_text=re.compile(r"^502\.26 · Mue$"))
    hit.wait_for(timeout=15_000)
    shot(page, "08-search-mue")
    hit.click()
    page.wait_for_url(re.compile(f"/{SEED_004}/index\\.html#502\\.26$"))
    assert page.locator("[id='502.26']").inner_text().startswith("502.26")
    shot(page, "09-seed-004-502.26")
    assert page.external() == []


def test_search_trample_in_french_finds_pietinement(page, served):
    page.goto(served + "search.html")
    page.select_option("#lang", "fr")
    page.fill("#q", "trample")
    page.press("#q", "Enter")
    hit = page.locator("#results a", has_text="Piétinement")
    hit.wait_for(timeout=15_000)
    assert page.locator("#results li").count() >= 1
    assert all((a.get_attribute("href") or "").startswith("fr/") for a in page.locator("#results li > a").all())
    shot(page, "10-search-trample-fr")
    hit.click()
    page.wait_for_url(re.compile(f"/{SEED_003}/index\\.html#"))
    shot(page, "11-seed-003-pietinement")


def test_go_to_box_works_from_disk(page, full_kb):
    page.goto((full_kb[0] / "site" / "index.html").as_uri())
    page.fill("form.goto input", "R70237a")
    page.press("form.goto input", "Enter")
    page.wait_for_url(re.compile(r"/en/latest/702(-\d)?\.html#702\.37a$"))
    assert page.locator("[id='702.37a']").is_visible()


@pytest.mark.parametrize(
    ("edition", "typed", "lands", "note"),
    [
        # a number printed with two meanings: the one it has today, as `comprules show` takes it
        (
            "en/2002-10-07",
            "702.19b",
            "502.9b",
            "Renumbered later: 702.19b (2013-07-13 – 2026-08-07) was 502.9b in this edition (2002-10-07).",
        ),
        ("en/2008-05-01", "702.37a", "502.26a", "702.37a (2021-07-23 – 2026-08-07) was 502.26a"),
        ("en/2026-08-07", "502.26a", "702.37a", "Renumbered: 502.26a (2002-10-07 – 2009-05-01) is now 702.37a."),
        # printed before this edition with another meaning: that one, as `comprules show` says
        ("en/2025-09-19", "722.2a", "723.2a", "is now 723.2a"),
        # a number only the English editions printed, typed on a Chinese page (a phone trial: "does not exist")
        ("zh/2026-04-17", "502.26a", "702.37a", "英文版的 502.26a（2002-10-07 – 2009-05-01）现为 702.37a。"),
    ],
)
def test_go_to_box_on_an_old_edition_takes_a_number_as_printed_today(page, full_kb, edition, typed, lands, note):
    # a trial: on 2002-10-07, 702.19b landed on 502.11a ("bands with other", 702.19b of 2009–2011)
    page.goto((full_kb[0] / "site" / edition / "index.html").as_uri())
    page.fill("form.goto input", typed)
    page.press("form.goto input", "Enter")
    page.wait_for_url(re.compile(rf"/{edition}/\d{{3}}(-\d)?\.html#{re.escape(lands)}$"))
    assert page.locator(f"[id='{lands}']").is_visible()
    page.wait_for_function("document.getElementById('cr-status').textContent.length > 0")
    assert note in page.locator("#cr-status").inner_text()


@pytest.mark.parametrize(
    ("document", "typed", "lands"),
    [
        ("004_99dc3338bd3ea994", "Mue", "index.html#502.26"),
        ("004_99dc3338bd3ea994", "offrande", "index.html#502.42"),
        ("003_816c607ad111474a", "Vol", "index.html#vol"),
        ("003_816c607ad111474a", "pietinement", "index.html#piétinement"),
        ("003_816c607ad111474a", "PIÉTINEMENT", "index.html#piétinement"),
    ],
)
def test_go_to_box_on_a_french_document_knows_its_own_words(page, full_kb, document, typed, lands):
    # a trial: "Mue", "Offrande" and "Vol" opened the search page; the box knew only the
    # English edition's words; another: "pietinement" without its accent opened it too, and
    # the box spoke English there ("Search every rule for “Vol”")
    page.goto((full_kb[0] / "site" / "fr" / document / "index.html").as_uri())
    page.fill("form.goto input", typed)
    page.press("form.goto input", "Enter")
    page.wait_for_url(lambda url: urllib.parse.unquote(url).endswith(f"/fr/{document}/{lands}"))
    assert page.locator(f"[id='{lands.partition('#')[2]}']").count() == 1
    page.wait_for_function("document.getElementById('cr-status').textContent.length > 0")
    assert page.locator("#cr-status").inner_text().startswith(f"Chercher « {typed} »")


def test_phone_dark_and_print_layouts_render(browser, served):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme="dark", device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    page.goto(served + "en/2026-08-07/702.html#702.37a")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, "no horizontal scrolling on a phone"
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(23, 24, 26)"
    shot(page, "13-phone-dark-702")
    page.emulate_media(media="print")
    assert page.locator("header.top").is_hidden()
    context.close()


def test_keyboard_reaches_the_go_to_box_and_the_switcher(page, served):
    page.goto(served + "en/2009-07-11/702.html")
    page.keyboard.press("Tab")  # skip link first
    assert page.evaluate("document.activeElement.className") == "skip"
    seen = set()
    for _ in range(8):
        page.keyboard.press("Tab")
        seen.add(page.evaluate("document.activeElement.tagName + '.' + (document.activeElement.name || '')"))
    assert "INPUT.q" in seen and "SELECT.edition" in seen


#: Pairs compared from disk against ``comprules diff --json`` (issue 21, one diff engine):
#: consecutive pairs either way (the stored alignment: 2009-05-01 → 2009-07-11 is the
#: case where the page once disagreed with the bulletin), pairs far apart (the lineage
#: join), across the 2009 renumbering and the lossy 2008-05-01, and Chinese pairs.
COMPARED = [
    ("en", "2009-05-01", "2009-07-11"),
    ("en", "2009-07-11", "2009-05-01"),
    ("en", "2008-02-01", "2008-05-01"),
    ("en", "2026-06-19", "2026-08-07"),
    ("en", "1999-04-23", "1999-11-01"),
    ("en", "2012-07-01", "2012-10-01"),
    ("en", "2024-11-08", "2024-07-30"),
    ("en", "2020-06-01", "2026-08-07"),
    ("en", "2026-08-07", "1999-04-23"),
    ("en", "2002-10-07", "2009-07-11"),
    ("en", "2008-05-01", "2009-05-01"),
    ("en", "2003-07-01", "2021-02-15"),
    ("en", "2009-02-01", "2009-10-01"),
    ("en", "2016-04-08", "2019-07-12"),
    ("en", "2025-11-14", "2026-08-07"),
    ("en", "2006-02-01", "2007-10-01"),
    ("en", "2013-07-13", "2013-02-01"),
    ("zh", "2022-06-10", "2023-10-13"),
    ("zh", "2025-11-14", "2026-04-17"),
    ("zh", "2026-04-17", "2024-02-02"),
    ("zh", "2024-03-08", "2024-04-12"),
    # a trial: 100.7 "rewritten" from disk, "edited" by the command (English's rewrite of
    # 2022-10-07 under the same lineage key was taken for the Chinese chain's)
    ("zh", "2022-06-10", "2026-04-17"),
    # a trial: an edition against itself showed "split 9" (406.3 twice: its two lineage keys),
    # and a join before a later split "split" rows (2008-02-01 → 2008-10-01: 63)
    ("en", "2020-06-01", "2020-06-01"),
    ("en", "2008-02-01", "2008-10-01"),
]


def test_any_two_editions_compared_from_disk_give_the_rows_of_comprules_diff(page, full_kb):
    """Issues 13 and 21: diff/{lang}/compare.html opened from disk (file://) loads the
    two editions' texts by <script> and shows, for each of 24 pairs, the rows and the
    counts that ``comprules diff --json`` gives: a consecutive pair's stored alignment
    (either way), other pairs joined by lineage key. (The page's time, ≤ 1 s, is
    measured by ``benchmarks/align.py --browser KB``, not here.)"""
    import json

    from click.testing import CliRunner

    from comprules.align.history import diff
    from comprules.cli import main
    from comprules.kb import KnowledgeBase

    kb_dir = full_kb[0]
    kb = KnowledgeBase(kb_dir)
    chains = kb.store.chains()
    sources = set()
    for lang, old, new in COMPARED:
        url = (kb_dir / f"site/diff/{lang}/compare.html").resolve().as_uri() + f"?old={old}&new={new}"
        page.goto(url)
        page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
        out = page.locator("#diff-out")
        assert out.get_attribute("data-error") is None, out.inner_text()
        names = chains[lang]
        consecutive = abs(names.index(f"{lang}/{old}") - names.index(f"{lang}/{new}")) == 1
        source = out.get_attribute("data-source")
        assert source == ("stored" if consecutive else "browser"), (lang, old, new)
        sources.add(source)
        rows = page.evaluate("window.CR_COMPARED.rules.map(r => [r.old, r.new, r.kind, r.words, r.moved])")
        library = diff(kb, f"{lang}/{old}", f"{lang}/{new}")
        expected = sorted(((r.old, r.new, r.kind, r.words, r.moved) for r in library.rules), key=str)
        assert sorted(map(tuple, rows), key=str) == expected, (lang, old, new)
        assert json.loads(out.get_attribute("data-counts")) == library.facet_counts(), (lang, old, new)
        assert out.locator("table.moves tr").count() == sum(1 for r in library.rules if r.facet == "moved")
        if (old, new) == ("2009-05-01", "2009-07-11"):
            # the case of issue 21: the bulletin's counts (the page once found 527 "moved +
            # edited" and no merge), 419.1 and 419.2 merged into 613.1 as the bulletin says
            assert library.facet_counts()["merged + edited"] == 15
            assert library.facet_counts()["moved + edited"] == 513  # 516 before 419.1a etc. were splits
            assert ["419.1", "613.1", "merged", "edited", True] in rows
            assert ["419.2", "613.1", "merged", "edited", True] in rows
            shot(page, "21-compare-2009-05-01-2009-07-11")
    assert sources == {"stored", "browser"}
    # the command itself, once: its JSON is the library's
    got = CliRunner().invoke(main, ["diff", "en/2009-05-01", "en/2009-07-11", "--kb", str(kb_dir), "--json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.output)["rules"] == diff(kb, "en/2009-05-01", "en/2009-07-11").to_json()["rules"]
    assert page.external() == []


def test_the_compare_page_takes_an_edition_by_its_set_and_names_one_it_does_not_hold(page, full_kb):
    # a trial: ?old=bogus said "cannot load ../data/en/bogus.js", and ?old=Bloomburrow the same
    compare = (full_kb[0] / "site/diff/en/compare.html").resolve().as_uri()
    page.goto(compare + "?old=bloomburrow&new=2026-08-07")
    page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
    out = page.locator("#diff-out")
    assert out.get_attribute("data-error") is None, out.inner_text()
    assert page.evaluate("[window.CR_COMPARED.old, window.CR_COMPARED.new]") == ["en/2024-07-30", "en/2026-08-07"]
    assert page.locator("form.compare [name=old]").input_value() == "2024-07-30"
    # on a phone its links are widened to 24 px as on the pages written whole (a trial: "116"
    # and "711" of 2020-06-01 → 2026-08-07 were 23.4 px wide)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(compare + "?old=2020-06-01&new=2026-08-07")
    page.wait_for_selector("#diff-out[data-ms]", timeout=30000)
    narrow = "[...document.querySelectorAll('#diff-out a[href]')].filter(a => a.getBoundingClientRect().width < 24)"
    assert page.evaluate(f"{narrow}.length") == 0 and page.locator("#diff-out a.s").count() >= 18
    page.goto(compare + "?old=bogus&new=2026-08-07")
    page.wait_for_selector("#diff-out[data-error]", timeout=30000)
    said = page.locator("#diff-out").inner_text()
    assert said == "No edition “bogus” among these: choose two in the menus above (by date, or by set).", said
    # one edition twice: a trial saw a heading and nothing under it (the CLI: "3162 unchanged")
    page.goto(compare + "?old=2026-08-07&new=2026-08-07")
    page.wait_for_selector("#diff-out[data-ms]", timeout=30000)
    said = page.locator("#diff-out .no-change").inner_text()
    assert said == "No rule changed: the 3162 rules are the same in both.", said
    # the names the CLI and the API give (a trial: 'No edition “en/2026-08-07”')
    page.goto(compare + "?old=en/2026-06-19&new=en/2026-08-07")
    page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
    assert page.evaluate("[window.CR_COMPARED.old, window.CR_COMPARED.new]") == ["en/2026-06-19", "en/2026-08-07"]
    # opened bare, it says what to do (a trial: nothing under the menus)
    page.goto(compare)
    page.wait_for_function("document.getElementById('diff-out').textContent.length > 0", timeout=30000)
    assert page.locator("#diff-out").inner_text() == "Choose two editions in the menus above."
    # and the set codes they take (a trial: 'No edition “BLB”')
    page.goto(compare + "?old=BLB&new=fdn")
    page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
    assert page.evaluate("[window.CR_COMPARED.old, window.CR_COMPARED.new]") == ["en/2024-07-30", "en/2024-11-08"]
    page.goto(compare + "?old=fdn&new=en/latest")  # as `comprules diff FDN en/latest`
    page.wait_for_selector("#diff-out[data-ms], #diff-out[data-error]", timeout=30000)
    assert page.evaluate("[window.CR_COMPARED.old, window.CR_COMPARED.new]") == ["en/2024-11-08", "en/2026-08-07"]


@pytest.mark.parametrize(
    "doc, english, pages",
    [
        (SEED_004, "en/2005-02-01", None),
        (SEED_003, "en/2007-05-01", None),
        ("fr/001_efcdb25c5e4b3248", "en/2008-07-15", None),
        ("zh/2026-04-17", "en/2026-04-17", ["index", "100", "702", "702-2", "702-3", "702-4"]),
    ],
)
def test_a_translation_beside_its_english_from_disk_shows_the_pairs_of_comprules_diff(
    page, full_kb, doc, english, pages
):
    """Issue 21, one diff engine: the pages of a French seed (or a Chinese edition) beside
    its English edition, opened from disk, pair each unit with the English rule that
    ``comprules diff DOC ENGLISH --json`` pairs it with (its best row), and every unit
    that the alignment pairs is shown paired."""
    from comprules.align.history import diff
    from comprules.kb import KnowledgeBase

    kb_dir = full_kb[0]
    folder = kb_dir / "site/compare" / (doc.replace("fr/", "") if doc.startswith("fr/") else doc)
    folder = folder.with_name(f"{folder.name}..{english.split('/')[1]}")
    names = pages or sorted(p.stem for p in folder.glob("*.html"))
    shown: dict[str, str | None] = {}
    for name in names:
        page.goto((folder / f"{name}.html").resolve().as_uri())
        rows = page.evaluate(
            "Array.from(document.querySelectorAll('table.compare tbody tr')).map(tr =>"
            " [tr.id, (tr.cells[1].querySelector('a.n') || {}).textContent || null])"
        )
        # a whole translation's glossary is paired entry by entry, by order (not a row of the alignment)
        shown.update({unit: en for unit, en in rows if not (doc.startswith("zh/") and unit.startswith("glossary/"))})
    alignment = diff(KnowledgeBase(kb_dir), doc, english).to_json()
    best: dict[str, dict] = {}
    for r in alignment["rules"]:
        if r["old"] is not None and r["new"] is not None:
            if r["old"] not in best or r["similarity"] > best[r["old"]]["similarity"]:
                best[r["old"]] = r
    for sec in alignment["sections"]:  # a section heading beside the section it became
        if sec["old"] is not None and sec["new"] is not None:
            best.setdefault(sec["old"], sec)
    assert shown, folder
    paired = {unit: en for unit, en in shown.items() if en is not None}
    assert paired == {unit: best[unit]["new"] for unit in shown if unit in best}
    if pages is None:  # every page: every paired unit is on one
        assert set(paired) == set(best)
    if doc == SEED_004:
        assert paired["502.42"] == "502.42"  # Offrande beside Offering
        assert len(paired) == 18
