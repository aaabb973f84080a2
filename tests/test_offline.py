"""A judge's phone at a table with no network (issue 24): the served site installs and works
offline, one edition downloads as a zip that opens from disk, new editions are announced.

On a knowledge base of real editions, built here: English 2009-05-01, 2009-07-11 (Morph
renumbered 502.26a → 702.34a) and 2026-06-19, Chinese 2026-04-17; then rebuilt with
2026-08-07 added, while ``comprules serve`` runs. In Debian's chromium (Playwright): the
service worker keeps the latest edition of each language, so that with the network off
(``context.set_offline(True)``) 702.html, all.html#R702123a, the glossary, search "trample"
and go-to "502.26a" answer; after the rebuild a reload shows "Rules of 2026-08-07 now
available — reload", the new edition opens offline and the old cache is gone; a download
that fails keeps the old cache. Chrome's own installability check (what Lighthouse's
"installable manifest" audit reads) has nothing to say. The zip of 2026-08-07 (≤ 10 MB) is
the same bytes as ``comprules export en/2026-08-07 --site``, every link in it resolves inside
it, and unpacked, it works from disk. ``feed.xml`` parses with feedparser.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from comprules.indexer.export import edition_script_file, edition_search, search_script, site_data

ROOT = Path(__file__).resolve().parent.parent
FIRST = ["en/2009-05-01.txt", "en/2009-07-11.txt", "en/2026-06-19.txt", "zh/2026-04-17.txt"]
NEXT = "en/2026-08-07.txt"
TEN_MB = 10 * 1024 * 1024

pytestmark = [pytest.mark.slow]


def _build(kb: Path, corpus: Path, sources: list[str]) -> None:
    from comprules.build import build

    build([corpus / s for s in sources], kb)


@pytest.fixture(scope="module")
def kb(tmp_path_factory, corpus_dir) -> Path:
    root = tmp_path_factory.mktemp("offline") / "kb"
    _build(root, corpus_dir, FIRST)
    return root


def _rebuild(kb: Path, corpus: Path) -> None:
    """The same sources and one more edition (a no-op once done)."""
    _build(kb, corpus, [*FIRST, NEXT])


@pytest.fixture(scope="module")
def rebuilt(kb, corpus_dir) -> Path:
    _rebuild(kb, corpus_dir)
    return kb


def _default_font(page) -> str:
    """The browser's own font family, for a page without the site's style sheet."""
    return page.evaluate(
        "(() => { const f = document.createElement('iframe'); document.body.appendChild(f);"
        " const v = getComputedStyle(f.contentDocument.body).fontFamily; f.remove(); return v; })()"
    )


def _build_info(site: Path) -> dict:
    text = (site / "sw.js").read_text(encoding="utf-8")
    m = re.match(r"self\.CR_BUILD=(\{.*?\});\n", text)
    assert m, text[:200]
    return json.loads(m.group(1))


# -- the browser ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(kb):
    """``comprules serve --kb KB --port 0``; its base URL."""
    from test_browser import serving

    with serving(kb) as url:
        yield url


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """chromium with a profile of its own (not incognito: Chrome installs no app from an
    incognito window), one page."""
    from test_browser import CHROMIUM, FLAGS, _missing

    reason = _missing()
    if reason:
        import os

        if os.environ.get("CI") == "true":
            pytest.fail(f"browser test cannot run under CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1000, "height": 800}
        )
        page = context.pages[0] if context.pages else context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        yield context, page
        context.close()


WAIT_WORKER = """async () => {
  const reg = await navigator.serviceWorker.ready;
  while (!navigator.serviceWorker.controller) await new Promise(r => setTimeout(r, 50));
  return reg.active.scriptURL;
}"""

#: Ask the browser to look for a new worker now; its fate ("activated" or "redundant").
UPDATE = """async () => {
  const reg = await navigator.serviceWorker.getRegistration();
  const fate = new Promise(resolve => reg.addEventListener("updatefound", () => {
    const w = reg.installing;
    w.addEventListener("statechange", () => {
      if (w.state === "activated" || w.state === "redundant") resolve(w.state);
    });
  }));
  await reg.update().catch(() => null);
  return await fate;
}"""


def _caches(page) -> list[str]:
    return sorted(page.evaluate("caches.keys()"))


def _kept(page) -> list[str]:
    """The caches of the offline set (not those of the pages visited)."""
    return [name for name in _caches(page) if "-seen-" not in name]


def _open(page, url: str) -> int:
    response = page.goto(url)
    assert response is not None
    return response.status


def _offline_reading(page, base: str, latest: str) -> None:
    """The five things the issue opens with the network off, in edition ``latest``."""
    assert _open(page, f"{base}en/{latest}/702.html") == 200
    assert page.locator("h1").inner_text().startswith("702.")
    assert page.locator("[id='702.19']").count() == 1

    assert _open(page, f"{base}en/{latest}/all.html#R702123a") == 200
    target = page.locator("[id='R702123a']")
    assert target.count() == 1 and "702.123a" in target.inner_text()

    assert _open(page, f"{base}en/{latest}/glossary.html") == 200
    assert page.locator("[id='trample']").count() == 1

    _open(page, f"{base}search.html?q=trample")
    page.wait_for_selector("#results li", timeout=20_000)
    assert page.locator("#status").get_attribute("data-source") == "local"  # the API is off the network
    top = [li.get_attribute("data-number") for li in page.locator("#results li").all()[:3]]
    assert "702.19" in top, top

    _open(page, f"{base}en/{latest}/index.html")
    page.fill("form.goto input", "502.26a")
    page.press("form.goto input", "Enter")
    page.wait_for_url(re.compile(rf"/en/{latest}/702(-\d)?\.html#702\.37a$"))
    page.wait_for_function("document.getElementById('cr-status').textContent.length > 0")
    assert page.locator("#cr-status").inner_text().startswith("Renumbered: 502.26a")
    assert "Morph" in page.locator("[id='702.37a']").inner_text()


def test_served_site_installs_works_offline_and_takes_a_new_build_whole(app, served, kb, corpus_dir):
    context, page = app
    site = kb / "site"
    first = _build_info(site)
    assert first["editions"] == {"en": "2026-06-19", "zh": "2026-04-17"}
    page.goto(served + "index.html")
    assert page.evaluate(WAIT_WORKER) == served + "sw.js"
    assert _kept(page) == [f"comprules-{first['hash']}"]

    # Lighthouse's installability: Chrome's own check, the manifest's fields, the icons' sizes
    cdp = context.new_cdp_session(page)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == []
    assert manifest["url"] == served + "manifest.webmanifest"
    assert page.evaluate("window.isSecureContext")  # http on localhost counts as secure
    data = json.loads((site / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert data["name"] and data["short_name"] and data["display"] == "standalone"
    assert data["start_url"] == "en/latest/index.html" and data["theme_color"] == "#1f3a5f"
    sizes = {}
    for icon in data["icons"]:
        body = page.request.get(served + icon["src"]).body()
        assert body[:8] == b"\x89PNG\r\n\x1a\n" and icon["type"] == "image/png"
        sizes[icon["sizes"]] = struct.unpack(">II", body[16:24])
    assert sizes == {"192x192": (192, 192), "512x512": (512, 512)}

    page.goto(served + "en/2009-07-11/702.html")  # an older edition, visited once
    context.set_offline(True)
    _offline_reading(page, served, "2026-06-19")
    assert _open(page, served + "en/latest/702.html") == 200  # the latest copy, kept once
    assert "2026-06-19" in page.title()
    assert _open(page, served + "zh/2026-04-17/index.html") == 200  # each language's latest
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert _open(page, served + "en/2009-07-11/702.html") == 200  # visited: kept
    assert page.locator("[id='702.34a']").count() == 1
    assert _open(page, served + "en/2009-05-01/100.html") == 503  # never visited, not kept
    assert page.locator("h1").inner_text() == "Offline"
    # in the site's style and the page's language, with the way back (a phone trial: a bare page, in English)
    assert page.locator("link[rel=stylesheet]").count() == 1
    assert page.evaluate("getComputedStyle(document.body).fontFamily") != _default_font(page)
    page.locator("a", has_text="Latest rules").click()
    page.wait_for_url(re.compile(r"/en/latest/index\.html$"))
    assert "2026-06-19" in page.title()
    assert _open(page, served + "zh/2020-01-01/100.html") == 503
    assert page.locator("h1").inner_text() == "离线" and page.locator("html").get_attribute("lang") == "zh-Hans"
    assert _open(page, served + "en/2009-05-01/100.html") == 503  # the page reloaded once online

    # a new build: taken whole in the background, swapped in, announced, the old cache gone
    _rebuild(kb, corpus_dir)
    second = _build_info(site)
    assert second["hash"] != first["hash"] and second["editions"]["en"] == "2026-08-07"
    context.set_offline(False)
    page.reload()
    notice = page.locator("#cr-update")
    notice.wait_for(timeout=60_000)
    assert notice.inner_text() == "Rules of 2026-08-07 now available — reload"
    assert not any(first["hash"] in name for name in _caches(page))  # the old cache and its visited pages
    assert _kept(page) == [f"comprules-{second['hash']}"]
    context.set_offline(True)
    _offline_reading(page, served, "2026-08-07")
    assert _open(page, served + "en/latest/702.html") == 200
    assert "2026-08-07" in page.title()
    context.set_offline(False)
    assert page.errors == []


def test_a_download_that_fails_keeps_the_old_cache(app, served, rebuilt):
    """A new sw.js whose files do not match it (one changed after the build hashed it, as a
    file of another build would be): the new worker is dropped, the old cache and pages stay."""
    from comprules.site.offline import write_offline

    context, page = app
    site = rebuilt / "site"
    page.goto(served + "index.html")
    page.evaluate(WAIT_WORKER)
    kept = _kept(page)
    info = _build_info(site)
    assert kept == [f"comprules-{info['hash']}"]
    page_path, other = site / "en/2026-08-07/100.html", site / "en/2026-08-07/101.html"
    saved = {p: p.read_bytes() for p in (page_path, other, site / "sw.js")}
    try:
        page_path.write_bytes(saved[page_path].replace(b"</body>", b"<p id=changed>changed</p></body>"))
        write_offline(site, {"en": "en/2026-08-07", "zh": "zh/2026-04-17"})
        assert _build_info(site)["hash"] != info["hash"]
        other.write_bytes(saved[other] + b"<!-- not of this build -->\n")
        assert page.evaluate(UPDATE) == "redundant"
        assert _kept(page) == kept
        assert page.locator("#cr-update").count() == 0
        context.set_offline(True)
        assert _open(page, served + "en/2026-08-07/100.html") == 200
        assert page.locator("#changed").count() == 0  # the old build's page, whole
    finally:
        context.set_offline(False)
        for path, data in saved.items():
            path.write_bytes(data)


def test_from_disk_no_worker_is_registered(app, rebuilt):
    _context, page = app
    page.goto((rebuilt / "site/en/2026-08-07/702.html").as_uri())
    assert page.locator("h1").inner_text().startswith("702.")
    assert (
        page.evaluate("(() => { try { return navigator.serviceWorker.controller; } catch (e) { return null; } })()")
        is None
    )
    assert page.locator('link[rel="manifest"]').count() == 1  # the same page, only not registered
    assert page.evaluate("location.protocol") == "file:"
    assert page.locator("#cr-update").count() == 0


# -- what the build writes -------------------------------------------------------------


def test_icons_are_pngs_of_192_and_512_pixels_drawn_in_the_site_colours(rebuilt):
    for size in (192, 512):
        data = (rebuilt / f"site/static/icon-{size}.png").read_bytes()
        assert struct.unpack(">II", data[16:24]) == (size, size)
        assert data[24:26] == b"\x08\x06"  # 8-bit RGBA
        length = struct.unpack(">I", data[33:37])[0]
        assert data[37:41] == b"IDAT"
        rows = zlib.decompress(data[41 : 41 + length])
        assert _pixel(rows, size, 0, 0)[3] == 0  # outside the rounded corner: transparent
        assert _pixel(rows, size, size // 2, size // 8) == (0x1F, 0x3A, 0x5F, 255)  # the blue square
        assert _pixel(rows, size, size * 10 // 32, size * 10 // 32) == (0xF4, 0xF1, 0xE8, 255)  # the paper


def _pixel(rows: bytes, size: int, x: int, y: int) -> tuple[int, ...]:
    """RGBA of a pixel of an unfiltered PNG's rows (a filter byte, then 4 bytes a pixel)."""
    at = y * (size * 4 + 1) + 1 + x * 4
    return tuple(rows[at : at + 4])


def test_the_worker_keeps_the_latest_edition_of_each_language_and_its_data(rebuilt):
    site = rebuilt / "site"
    info = _build_info(site)
    files = {path for path, _ in info["files"]}
    for folder in ("en/2026-08-07", "zh/2026-04-17"):
        pages = {p.relative_to(site).as_posix() for p in (site / folder).glob("*.html")}
        assert pages and pages <= files
    assert {"search/en.js", "search/zh.js", "search/segment.js", "search.html", "index.html"} <= files
    assert {"lineage/en/2026-08-07.js", "goto/en/2026-08-07.js", "goto/en/n5.js", "static/icon-512.png"} <= files
    assert not any(p.startswith(("en/2026-06-19/", "en/latest/", "diff/", "history/", "download/")) for p in files)
    assert info["aliases"] == {"en/latest/": "en/2026-08-07/", "zh/latest/": "zh/2026-04-17/"}
    import hashlib

    for path, digest in info["files"]:
        assert hashlib.sha256((site / path).read_bytes()).hexdigest().startswith(digest), path
    assert info["bytes"] < 40 * 1024 * 1024
    assert b'self.addEventListener("fetch"' in (site / "sw.js").read_bytes()
    page = (site / "en/2026-08-07/702.html").read_text(encoding="utf-8")
    assert '<link rel="manifest" href="../../manifest.webmanifest">' in page
    assert '<script src="../../static/app.' in page


def test_feed_has_one_entry_per_edition_newest_first_with_the_release_counts(rebuilt):
    feedparser = pytest.importorskip("feedparser")
    from comprules.align.alignment import Alignment
    from comprules.align.history import alignment_path
    from comprules.site.feed import release_counts

    site = rebuilt / "site"
    feed = feedparser.parse(
        (site / "feed.xml").read_bytes(),
        response_headers={"content-location": "http://x/", "content-type": "application/atom+xml"},
    )
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    dates = [e.published[:10] for e in feed.entries]
    assert dates == ["2026-08-07", "2026-06-19", "2026-04-17", "2009-07-11", "2009-05-01"]
    newest = feed.entries[0]
    assert newest.title == "English Comprehensive Rules of 2026-08-07 (The Hobbit)"
    assert newest.link == "http://x/diff/en/2026-06-19..2026-08-07/index.html"
    assert (site / "diff/en/2026-06-19..2026-08-07/index.html").is_file()
    stored = json.loads(alignment_path(rebuilt / "data", "en/2026-06-19", "en/2026-08-07").read_text())
    counts = release_counts(Alignment.from_json(stored).rules)
    assert counts["added"] > 0 and counts["edited"] > 0
    assert newest.summary == (
        f"{counts['added']} rules added, {counts['removed']} removed, {counts['moved']} moved, "
        f"{counts['edited']} edited since 2026-06-19."
    )
    morph = feed.entries[3]  # 2009-07-11: the renumbering of 2009
    assert morph.link == "http://x/diff/en/2009-05-01..2009-07-11/index.html"
    assert int(re.search(r"(\d+) moved", morph.summary).group(1)) > 1000
    assert len({e.id for e in feed.entries}) == 5
    english = feedparser.parse((site / "en/feed.xml").read_bytes())
    chinese = feedparser.parse((site / "zh/feed.xml").read_bytes())
    assert [e.published[:10] for e in english.entries] == [d for d in dates if d != "2026-04-17"]
    assert [e.published[:10] for e in chinese.entries] == ["2026-04-17"]
    for path in ("index.html", "en/2026-08-07/702.html", "zh/2026-04-17/index.html", "diff/index.html"):
        head = (site / path).read_text(encoding="utf-8").split("</head>")[0]
        assert 'type="application/atom+xml"' in head and "feed.xml" in head, path
    assert 'href="../feed.xml"' in (site / "zh/2026-04-17/index.html").read_text(encoding="utf-8").split("</head>")[0]


# -- one edition as a zip ------------------------------------------------------------------


def _links(html: str) -> list[str]:
    return re.findall(r'\s(?:href|src|action)="([^"]*)"', html)


def test_the_zip_of_2026_08_07_is_small_whole_and_the_same_as_comprules_export_site(rebuilt, tmp_path):
    site = rebuilt / "site"
    made = (site / "download/en/2026-08-07.zip").read_bytes()
    assert len(made) <= TEN_MB
    out = tmp_path / "en-2026-08-07.zip"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "comprules.cli",
            "export",
            "en/2026-08-07",
            "--site",
            "--kb",
            str(rebuilt),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == made
    archive = zipfile.ZipFile(io.BytesIO(made))
    names = set(archive.namelist())
    top = "comprules-en-2026-08-07/"
    assert all(n.startswith(top) for n in names)
    inside = {n[len(top) :] for n in names}
    pages = {p.relative_to(site).as_posix() for p in (site / "en/2026-08-07").iterdir()}
    assert pages <= inside
    assert {"index.html", "search.html", "search/en.js", "lineage/en/2026-08-07.js", "goto/en/n7.js"} <= inside
    assert not any(n.startswith(("en/2026-06-19/", "zh/", "diff/", "history/", "en/latest/")) for n in inside)
    for name in sorted(n for n in inside if n.endswith(".html")):
        html = archive.read(top + name).decode("utf-8")
        for link in _links(html):
            if not link or link.startswith(("#", "http:", "https:", "mailto:")):
                continue
            path = posixpath.normpath(posixpath.join(posixpath.dirname(name), link.split("#")[0].split("?")[0]))
            assert path in inside or f"{path}/index.html" in inside, f"{name}: {link}"
    search = archive.read(top + "search/en.js").decode("utf-8")
    data = json.loads(search[search.index("=", search.index("CR_SEARCH[")) + 1 : -2])
    assert {d[7] for d in data["docs"]} == {"en/2026-08-07"}
    assert sum(1 for d in data["docs"] if d[0] == "702.19") == 1
    # written by the index stage (issue 21): the export of that edition alone, as comprules search --edition ranks
    assert data == json.loads(
        json.dumps(site_data(rebuilt / "index", "en", edition="en/2026-08-07"), ensure_ascii=False)
    )
    assert search.encode("utf-8") == (rebuilt / "index" / edition_script_file("en/2026-08-07")).read_bytes()
    bad = subprocess.run(
        [sys.executable, "-m", "comprules.cli", "export", "en/2026-08-07", "--site", "--kb", str(rebuilt)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert bad.returncode == 2 and bad.stderr.strip().endswith("--site writes a zip: give -o FILE.zip")


def test_the_data_page_offers_each_edition_as_a_zip(rebuilt):
    site = rebuilt / "site"
    html = (site / "data.html").read_text(encoding="utf-8")
    zips = re.findall(r'href="(download/[^"]+\.zip)"', html)
    assert sorted(zips) == sorted(
        f"download/{n}.zip"
        for n in ("en/2009-05-01", "en/2009-07-11", "en/2026-06-19", "en/2026-08-07", "zh/2026-04-17")
    )
    # the latest edition of each language in the site, the others made when asked
    assert sorted(z for z in zips if (site / z).is_file()) == [
        "download/en/2026-08-07.zip",
        "download/zh/2026-04-17.zip",
    ]
    assert sorted(re.findall(r'data-served="([^"]+)"', html)) == ["en/2009-05-01", "en/2009-07-11", "en/2026-06-19"]
    assert not (site / "download/en/2026-06-19.zip").exists()  # the previous build's latest, no longer kept


def test_the_server_makes_an_older_edition_s_zip_as_comprules_export_does(rebuilt, tmp_path):
    from starlette.testclient import TestClient

    from comprules.server import create_app

    out = tmp_path / "old.zip"
    proc = subprocess.run(
        [sys.executable, "-m", "comprules.cli", "export", "2009-05-01", "--site", "--kb", str(rebuilt), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    with TestClient(create_app(rebuilt)) as client:
        got = client.get("/download/en/2009-05-01.zip")
        assert got.status_code == 200 and got.headers["content-type"] == "application/zip"
        assert got.content == out.read_bytes()
        assert 'filename="comprules-en-2009-05-01.zip"' in got.headers["content-disposition"]
        archive = zipfile.ZipFile(io.BytesIO(got.content))
        assert "comprules-en-2009-05-01/en/2009-05-01/502.html" in archive.namelist()
        # its search page offers that edition alone (a trial: the site's 98, and a note saying
        # search covered the latest edition of each language)
        search = archive.read("comprules-en-2009-05-01/search.html").decode("utf-8")
        offered = re.findall(r'<option value="([^"]+)">', search)
        assert [v for v in offered if "/" in v or v in ("*", "fr", "zh")] == ["en/2009-05-01"]
        assert "This download holds en/2009-05-01 alone" in search
        assert '<option value="">en/2009-05-01, this download</option>' in search
        # its search data computed from the index when asked: the build writes only the
        # latest edition's of each language (issue 21)
        index = rebuilt / "index"
        assert sorted(p.name for p in index.glob("edition-*.js")) == [
            "edition-en-2026-08-07.js",
            "edition-zh-2026-04-17.js",
        ]
        data = archive.read("comprules-en-2009-05-01/search/en.js")
        assert data == search_script(site_data(index, "en", edition="en/2009-05-01"))
        text = data.decode("utf-8")
        docs = json.loads(text[text.index("=", text.index("CR_SEARCH[")) + 1 : -2])["docs"]
        assert {d[7] for d in docs} == {"en/2009-05-01"} and "502.26a" in {d[0] for d in docs}
        head = client.head("/download/en/2009-05-01.zip")
        assert head.status_code == 200 and head.headers["content-length"] == str(len(got.content))
        etag = got.headers["etag"]
        assert client.get("/download/en/2009-05-01.zip", headers={"If-None-Match": etag}).status_code == 304
        assert got.headers["x-content-type-options"] == "nosniff"
        latest = client.get("/download/en/2026-08-07.zip")  # the site's own file, named alike
        assert latest.content == (rebuilt / "site/download/en/2026-08-07.zip").read_bytes()
        assert 'filename="comprules-en-2026-08-07.zip"' in latest.headers["content-disposition"]
        assert client.get("/download/en/2010-01-01.zip").status_code == 404  # no such edition here
        assert client.get("/download/en/2009-05-01.zip/x").status_code == 404


def test_requests_for_one_zip_at_once_make_it_once(rebuilt, monkeypatch):
    # a second trial: three requests at once for en/2009-05-01 took 0.26, 0.48 and 0.70 s,
    # the zip made three times; a cold diff asked by four clients was alike
    import asyncio
    import time

    import httpx

    from comprules.server import create_app, work

    monkeypatch.setenv("COMPRULES_SERVE_PROCESSES", "0")  # the jobs in this process, counted
    made = []
    real = work.JOBS["edition_zip"]

    def counted(kb, site, name):
        made.append(name)
        time.sleep(0.3)  # long enough for the other requests to arrive meanwhile
        return real(kb, site, name)

    monkeypatch.setitem(work.JOBS, "edition_zip", counted)
    app = create_app(rebuilt)

    async def three():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await asyncio.gather(*(client.get("/download/en/2009-05-01.zip") for _ in range(3)))

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:  # a loop of its own: the browser's runs in this thread
        answers = pool.submit(asyncio.run, three()).result()
    assert [a.status_code for a in answers] == [200, 200, 200] and made == ["en/2009-05-01"]
    assert answers[0].content == answers[1].content == answers[2].content


def test_the_data_page_from_disk_gives_the_command_for_a_zip_the_server_makes(app, rebuilt):
    _context, page = app
    page.goto((rebuilt / "site/data.html").as_uri())
    page.wait_for_function("document.querySelectorAll('a[data-served]').length === 0")
    codes = page.locator("ul.data code").all_inner_texts()
    assert f"comprules export en/2009-05-01 --site --kb {rebuilt} -o comprules-en-2009-05-01.zip" in codes, codes
    assert page.locator('a[href="download/en/2026-08-07.zip"]').count() == 1


def test_the_zip_unpacked_works_from_disk(app, rebuilt, tmp_path):
    _context, page = app
    zipfile.ZipFile(rebuilt / "site/download/en/2026-08-07.zip").extractall(tmp_path)
    root = tmp_path / "comprules-en-2026-08-07"
    page.goto((root / "en/2026-08-07/702.html").as_uri())
    assert page.locator("h1").inner_text().startswith("702.")
    assert page.locator("[id='702.19b']").count() == 1
    page.goto((root / "index.html").as_uri())
    page.wait_for_url(re.compile(r"/en/2026-08-07/index\.html$"))
    page.goto((root / "search.html").as_uri() + "?q=trample")
    page.wait_for_selector("#results li", timeout=20_000)
    top = [li.get_attribute("data-number") for li in page.locator("#results li").all()[:3]]
    assert "702.19" in top, top
    page.locator("#results li a").first.click()
    page.wait_for_url(re.compile(r"/comprules-en-2026-08-07/en/2026-08-07/"))
    page.goto((root / "en/2026-08-07/index.html").as_uri())
    page.fill("form.goto input", "702.19b")
    page.press("form.goto input", "Enter")
    page.wait_for_url(re.compile(r"/en/2026-08-07/702(-\d)?\.html#702\.19b$"))
    assert page.locator("[id='702.19b']").is_visible()
    # the Chinese zip: words of another language find nothing there, said (a phone trial)
    zipfile.ZipFile(rebuilt / "site/download/zh/2026-04-17.zip").extractall(tmp_path)
    page.goto((tmp_path / "comprules-zh-2026-04-17" / "search.html").as_uri() + "?q=trample")
    page.wait_for_function("document.getElementById('status').textContent.length > 0", timeout=20_000)
    assert "only the Chinese edition is searched here" in page.locator("#status").inner_text()


def test_the_go_to_box_of_an_older_edition_s_zip_stays_inside_it(app, rebuilt, tmp_path):
    # a trial: in the 2009-05-01 zip, "#R70237a" went to a 702.html that edition has not,
    # and a number printed later listed links to editions the zip lacks
    from comprules.site.bundle import bundle

    _context, page = app
    index = rebuilt / "index"
    data = bundle(rebuilt / "site", index, "en/2009-05-01", search=edition_search(index, "en/2009-05-01"))
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    root = tmp_path / "comprules-en-2009-05-01" / "en" / "2009-05-01"
    for typed in ("#R70237a", "https://yawgatog.com/resources/magic-rules/#R70219b", "702.34a"):
        page.goto((root / "index.html").as_uri())
        page.fill("form.goto input", typed)
        page.press("form.goto input", "Enter")
        page.wait_for_url(re.compile(r"/en/2009-05-01/5\d\d(-\d)?\.html#5\d\d\.\d+[a-z]?$"))
        landed = page.url.rsplit("#", 1)[1]
        assert page.locator(f"[id='{landed}']").count() == 1, (typed, page.url)
        if typed == "#R70237a":  # today's Morph: the rule it was here, said (a trial: 2009-07-11's Storm)
            assert landed == "502.26a", page.url
            status = page.locator("#cr-status")
            status.wait_for(timeout=5_000)
            assert "702.37a of 2026-08-07 is 502.26a in this edition (2009-05-01)" in status.inner_text()
    page.goto((root / "index.html").as_uri())
    page.fill("form.goto input", "702.190a")  # printed only in editions the zip lacks: no links
    page.press("form.goto input", "Enter")
    page.wait_for_function("document.getElementById('cr-status').textContent.length > 0")
    assert "is not in this edition" in page.locator("#cr-status").inner_text()
    assert page.locator("#cr-status a").count() == 0
    # the History links of a zip's pages lead nowhere it holds: not shown (a phone trial: dead controls)
    page.goto((root / "502.html").as_uri() if (root / "502.html").exists() else (root / "index.html").as_uri())
    dead = page.locator("a.hl:not([href])")
    assert dead.count() > 10 and not any(link.is_visible() for link in dead.all()[:20])


def test_on_the_whole_corpus_every_edition_is_in_the_feed_and_has_a_zip(full_kb):
    """The knowledge base of every edition (74 English, 18 Chinese, 5 seeds): 92 entries,
    newest first; a zip for each dated edition (the latest of each language in the site,
    the 90 others made by the server); the latest English one ≤ 10 MB."""
    feedparser = pytest.importorskip("feedparser")
    site = full_kb[0] / "site"
    parsed = feedparser.parse(
        (site / "feed.xml").read_bytes(), response_headers={"content-type": "application/atom+xml"}
    )
    assert not parsed.bozo
    dates = [e.published[:10] for e in parsed.entries]
    assert len(dates) == 92 and dates == sorted(dates, reverse=True) and dates[0] == "2026-08-07"
    assert len(feedparser.parse((site / "en/feed.xml").read_bytes()).entries) == 74
    assert len(feedparser.parse((site / "zh/feed.xml").read_bytes()).entries) == 18
    zips = sorted(p.relative_to(site / "download").as_posix() for p in (site / "download").rglob("*.zip"))
    assert zips == ["en/2026-08-07.zip", "zh/2026-04-17.zip"]  # the others made when asked
    assert len(re.findall(r"data-served=", (site / "data.html").read_text(encoding="utf-8"))) == 90
    assert (site / "download/en/2026-08-07.zip").stat().st_size <= TEN_MB
    info = _build_info(site)
    assert info["editions"] == {"en": "2026-08-07", "zh": "2026-04-17"}
    assert {"fr/004_99dc3338bd3ea994/index.html", "search/fr.js"} <= {p for p, _ in info["files"]}
