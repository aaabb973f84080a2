"""The parts of issue 24 on small inputs of our own (the whole, on real editions in
chromium: ``tests/test_offline.py``): the feed of hand-made releases read back by
feedparser, the zip's link rewriting on a hand-written page, the icons, the manifest, the
offline set of a hand-made site folder, the zip's determinism."""

from __future__ import annotations

import io
import json
import zipfile
from types import SimpleNamespace

import pytest

from comprules.site import bundle, feed, offline


def _releases() -> list[feed.Release]:
    return [
        feed.Release("en/2009-05-01", "2009-05-01", "Conflux"),
        feed.Release(
            "en/2009-07-11",
            "2009-07-11",
            "Magic 2010",
            "en/2009-05-01",
            {"added": 1, "removed": 2, "moved": 1019, "edited": 30},
            "diff/en/2009-05-01..2009-07-11/index.html",
        ),
        feed.Release("zh/2026-04-17", "2026-04-17", "Secrets of Strixhaven"),
    ]


def test_feed_of_releases_reads_back_newest_first_with_counts_and_bulletins():
    feedparser = pytest.importorskip("feedparser")
    text = feed.feed_xml("feed.xml", _releases())
    parsed = feedparser.parse(
        text, response_headers={"content-location": "http://127.0.0.1:8000/", "content-type": "application/atom+xml"}
    )
    assert not parsed.bozo and parsed.version == "atom10"
    assert [e.published[:10] for e in parsed.entries] == ["2026-04-17", "2009-07-11", "2009-05-01"]
    m2010 = parsed.entries[1]
    assert m2010.title == "English Comprehensive Rules of 2009-07-11 (Magic 2010)"
    assert m2010.summary == "1 rule added, 2 removed, 1019 moved, 30 edited since 2009-05-01."
    assert m2010.link == "http://127.0.0.1:8000/diff/en/2009-05-01..2009-07-11/index.html"
    assert parsed.entries[2].link == "http://127.0.0.1:8000/en/2009-05-01/index.html"  # no bulletin: its contents
    assert m2010.id == feed.entry_id("en/2009-07-11") and m2010.id.startswith("urn:uuid:")
    assert feed.feed_xml("feed.xml", _releases()) == text  # no clock in it
    english = feedparser.parse(feed.feed_xml("en/feed.xml", _releases(), "en"))
    assert [e.published[:10] for e in english.entries] == ["2009-07-11", "2009-05-01"]
    assert english.entries[0].link == "../diff/en/2009-05-01..2009-07-11/index.html"


def test_release_counts_count_a_rule_moved_and_edited_in_both():
    from comprules.align.alignment import RuleChange

    rows = [
        RuleChange(None, "702.190", "added"),
        RuleChange("702.5", None, "removed"),
        RuleChange("502.26a", "702.34a", "renumbered", 0.9, (), "edited"),
        RuleChange("502.26b", "702.34b", "renumbered"),
        RuleChange("100.1", "100.1", "edited", 0.8, (), "rewritten"),
        RuleChange("100.2", "100.2", "kept", 1.0, (), "typography"),
        RuleChange("100.3", "100.3", "kept"),
    ]
    assert feed.release_counts(rows) == {"added": 1, "removed": 1, "moved": 2, "edited": 2}


PAGE = """<!doctype html>
<html><head>
<link rel="stylesheet" href="../../static/site.0123456789.css">
<link rel="manifest" href="../../manifest.webmanifest">
<link rel="alternate" type="application/atom+xml" title="x" href="../../feed.xml">
<script src="../../static/site.0123456789.js" defer></script>
<script src="../../lineage/editions.js" defer></script>
</head><body>
<form class="find goto" action="../../search.html" data-edition="en/2026-08-07" data-base="" data-root="../../" data-latest="../../en/latest/">
<a href="../../index.html">home</a> <a href="702.html#702.19b">702.19b</a> <a class="hl" href="../../history/en/702.19b.html">History</a>
<a href="../2009-07-11/702.html">2009</a> <a href="#702.19">here</a> <a href="https://magic.wizards.com/rules">out</a>
</body></html>
"""


def test_the_zip_keeps_links_it_holds_drops_the_others_and_points_latest_at_itself():
    members = {
        "index.html",
        "search.html",
        "static/site.0123456789.css",
        "static/site.0123456789.js",
        "lineage/editions.js",
        "en/2026-08-07/index.html",
        "en/2026-08-07/702.html",
    }
    out = bundle._Fixer("en/2026-08-07", members).page("en/2026-08-07/702.html", PAGE)
    assert 'href="../../static/site.0123456789.css"' in out and 'src="../../lineage/editions.js"' in out
    assert "manifest" not in out and "feed.xml" not in out  # head links to files not in the zip: gone
    assert 'action="../../search.html"' in out and 'data-latest=""' in out  # latest: this edition's folder
    assert '<a href="../../index.html">home</a>' in out and '<a href="#702.19b">702.19b</a>' not in out
    assert '<a href="702.html#702.19b">702.19b</a>' in out
    assert '<a class="hl">History</a>' in out and "<a>2009</a>" in out  # not held: plain text
    assert '<a href="#702.19">here</a>' in out and '<a href="https://magic.wizards.com/rules">out</a>' in out


def test_zip_bytes_are_the_same_for_the_same_files_in_any_order():
    files = {"b.html": b"<p>b</p>", "a/x.js": b"var x;", "index.html": b"<p>i</p>"}
    one = bundle.zip_bytes("en/2026-08-07", files, (2026, 8, 7))
    two = bundle.zip_bytes("en/2026-08-07", dict(reversed(list(files.items()))), (2026, 8, 7))
    assert one == two
    archive = zipfile.ZipFile(io.BytesIO(one))
    assert archive.namelist() == [f"comprules-en-2026-08-07/{n}" for n in ("a/x.js", "b.html", "index.html")]
    assert archive.getinfo("comprules-en-2026-08-07/b.html").date_time == (2026, 8, 7, 12, 0, 0)
    assert archive.read("comprules-en-2026-08-07/a/x.js") == b"var x;"


def test_a_zip_made_again_from_its_previous_copy_is_the_zip_made_from_scratch():
    name, day, comment = "en/2026-08-07", (2026, 8, 7), b"comprules 0123"
    pages = {"en/2026-08-07/702.html": b"<p>trample</p>" * 300, "search.html": b"<p>s</p>", "static/x.js": b"var x;"}
    old = bundle.zip_bytes(name, {**pages, "search/en.js": b"window.CR_SEARCH={idf:1.5}"}, day, comment)
    new = bundle.zip_bytes(name, {**pages, "search/en.js": b"window.CR_SEARCH={idf:1.25}"}, day, comment)
    assert old != new and zipfile.ZipFile(io.BytesIO(new)).comment == comment
    assert zipfile.ZipFile(io.BytesIO(new)).namelist()[-1] == "comprules-en-2026-08-07/search/en.js"  # last
    again = bundle.zip_reusing(old, name, {"en": b"window.CR_SEARCH={idf:1.25}"}, day, comment)
    assert again == new
    assert zipfile.ZipFile(io.BytesIO(again)).read("comprules-en-2026-08-07/static/x.js") == b"var x;"
    # pages made of other inputs, another edition's zip, not a zip: made from scratch
    assert bundle.zip_reusing(old, name, {"en": b"x"}, day, b"comprules 4567") is None
    assert bundle.zip_reusing(old, "en/2026-06-19", {"en": b"x"}, day, comment) is None
    assert bundle.zip_reusing(b"PK not a zip", name, {"en": b"x"}, day, comment) is None


def test_the_zips_comment_changes_with_any_byte_of_its_inputs():
    inputs = {"en/2026-08-07/702.html": b"<p>a</p>", "static/x.js": b"var x;"}
    one = bundle.inputs_comment("en/2026-08-07", inputs, ["en"])
    assert one.startswith(b"comprules ") and len(one) == 42
    assert one == bundle.inputs_comment("en/2026-08-07", dict(reversed(list(inputs.items()))), ["en"])
    assert one != bundle.inputs_comment("en/2026-08-07", {**inputs, "static/x.js": b"var y;"}, ["en"])
    assert one != bundle.inputs_comment("en/2026-08-07", {**inputs, "static/y.js": b""}, ["en"])
    assert one != bundle.inputs_comment("en/2026-08-07", inputs, ["en", "segment"])
    assert one != bundle.inputs_comment("en/2026-06-19", inputs, ["en"])


def test_manifest_has_the_installability_fields():
    data = offline.manifest("en/latest/index.html")
    assert data["name"] == "Magic: The Gathering Comprehensive Rules" and len(data["short_name"]) <= 12
    assert data["display"] == "standalone" and data["start_url"] == "en/latest/index.html"
    assert [i["sizes"] for i in data["icons"]] == ["192x192", "512x512"]
    assert all(i["type"] == "image/png" for i in data["icons"])
    assert data["theme_color"] == "#1f3a5f" and data["background_color"] == "#fdfcf9"


def test_the_icons_the_package_keeps_are_the_ones_the_code_draws():
    # the build writes the kept copies (0.3 s less a build); after a change of the drawing,
    # write them again: offline.icon_png(size) into src/comprules/site/icons/icon-{size}.png
    for size in offline.ICON_SIZES:
        kept = offline.icon_file_bytes(size)
        assert kept == offline.icon_png(size), f"icons/icon-{size}.png is not what icon_png({size}) draws"
        assert kept[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(kept[16:20], "big") == size


def test_offline_set_of_a_site_folder_keeps_the_latest_editions_not_the_others(tmp_path):
    files = [
        "index.html",
        "search.html",
        "sw.js",
        "manifest.webmanifest",
        "en/2026-08-07/index.html",
        "en/2026-08-07/702.html",
        "en/2026-06-19/702.html",
        "en/latest/702.html",
        "fr/004_99dc/index.html",
        "lineage/en/2026-08-07.js",
        "lineage/en/2026-06-19.js",
        "goto/en/n5.js",
        "goto/en/2026-08-07.js",
        "search/en.js",
        "static/site.0123456789.css",
        "static/site.css",
        "static/sw.0123456789.js",
        "download/en/2026-08-07.zip",
        "diff/index.html",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    for name in ("goto/fr/004_99dc.js", "goto/en/2005-02-01.js", "goto/en/2005-08-01.js"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    # a French document's go-to words and those of its English era (a trial: offline, "Mue"
    # on fr/004 opened the search page, its go-to scripts were not kept)
    kept = offline.offline_set(tmp_path, {"en": "en/2026-08-07"}, ["fr/004_99dc"], ["en/2005-02-01"])
    assert kept == sorted(
        [
            "en/2026-08-07/702.html",
            "en/2026-08-07/index.html",
            "fr/004_99dc/index.html",
            "goto/fr/004_99dc.js",
            "goto/en/2005-02-01.js",
            "goto/en/2026-08-07.js",
            "goto/en/n5.js",
            "index.html",
            "lineage/en/2026-08-07.js",
            "manifest.webmanifest",
            "search.html",
            "search/en.js",
            "static/site.0123456789.css",
        ]
    )
    info = offline.build_info(tmp_path, {"en": "en/2026-08-07"}, ["fr/004_99dc"])
    (tmp_path / "en/2026-06-19/702.html").write_text("changed")  # not kept, but part of the build
    assert offline.build_info(tmp_path, {"en": "en/2026-08-07"}, ["fr/004_99dc"])["hash"] != info["hash"]
    (tmp_path / "download/en/2026-08-07.zip").write_text("another zip")  # the zips are not
    again = offline.build_info(tmp_path, {"en": "en/2026-08-07"}, ["fr/004_99dc"])
    assert again["hash"] == offline.build_info(tmp_path, {"en": "en/2026-08-07"}, ["fr/004_99dc"])["hash"]
    script = offline.worker_script(again)
    assert script.startswith("self.CR_BUILD=") and json.loads(script.split("\n", 1)[0][14:-1])["hash"] == again["hash"]


def test_app_head_links_the_feed_of_the_site_and_of_the_page_language():
    head = offline.template_globals(
        [
            SimpleNamespace(lang="en", kind="edition", effective="2026-08-07"),
            SimpleNamespace(lang="fr", kind="fragment", effective=None),
        ]
    )
    app = head["app"]
    assert [f["path"] for f in app.feeds("en")] == ["feed.xml", "en/feed.xml"]
    assert [f["path"] for f in app.feeds("fr")] == ["feed.xml"]  # no dated French edition
    assert app.manifest == "manifest.webmanifest"


def test_a_zip_of_an_edition_the_index_has_no_search_data_of_says_so_in_one_line(tmp_path):
    """The index stage writes each dated edition's search data (issue 21): an index
    folder without it is named, with what to do."""
    from comprules.errors import UsageError

    with pytest.raises(UsageError) as caught:
        bundle.search_scripts(tmp_path, "en/2026-08-07")
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path) in message and "no search data of en/2026-08-07" in message
