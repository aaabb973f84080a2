"""Builds that can't lose data, hostile text and hostile names (issue 7).

The editions used here are small fixtures written by these tests (``fixture_text``):
a header with an effective date, two sections, rules with subrules, examples,
references and a glossary, some of it HTML or script. Kill tests run ``comprules
build`` in a subprocess that pauses at a chosen point (``DRIVER`` wraps one library
function to write a marker file and sleep), then SIGKILL or SIGINT it there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from comprules.build import build, recover
from comprules.cli import main
from comprules.corpus import load_sources
from comprules.corpus.load import is_safe_name, safe_stem

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'


def fixture_text(date: str, word: str) -> str:
    """A small edition of our own, effective ``date``, whose rules all say ``word``."""
    month, day, year = date[5:7], date[8:10], date[:4]
    months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    return f"""Fixture Rules

These rules are effective as of {months[int(month) - 1]} {int(day)}, {year}.

Contents

1. Fixture Concepts
Glossary

1. Fixture Concepts

100. General {SCRIPT}

100.1. The {word} rule holds {SCRIPT} as plain text. See rule 100.2.

100.1a A {word} subrule with {IMG} inside, citing rule 101.1.
Example: An {word} example with <b>bold</b> &amp; <iframe src="javascript:alert(3)"></iframe>.

100.2. Another {word} rule, after rules 100.1a–b.

101. Second {word} Section

101.1. The last {word} rule: </textarea><svg onload=alert(4)>.

Glossary

Fixture {word} <script>alert(5)</script>
A {word} glossary sense with {SCRIPT}. See rule 100.1.

Credits

Nobody.
"""


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """``a/2030-06-01.txt`` (word "alpha"), ``b/2030-09-01.txt`` ("omega")."""
    root = tmp_path_factory.mktemp("sources")
    for folder, date, word in (("a", "2030-06-01", "alpha"), ("b", "2030-09-01", "omega")):
        (root / folder).mkdir()
        (root / folder / f"{date}.txt").write_text(fixture_text(date, word), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def old_kb(sources, tmp_path_factory) -> Path:
    """The knowledge base of edition a alone: what a killed build must leave as it was."""
    kb = tmp_path_factory.mktemp("old") / "kb"
    build([sources / "a"], kb)
    return kb


def editions_files(data: Path) -> list[str]:
    """The files of ``data/`` but the alignments (``data/alignments/``, written by another stage)."""
    return [k for k in tree(data) if not k.startswith("alignments/")]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (symlinks followed, temporary dot-folders left out) and its bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            out[str(rel)] = path.read_bytes()
    return out


# ---------------------------------------------------------------------------
# Hostile text is shown as text


@pytest.fixture(scope="module")
def hostile_kb(sources, tmp_path_factory) -> Path:
    kb = tmp_path_factory.mktemp("hostile") / "kb"
    build([sources / "a"], kb)
    return kb


def test_script_in_rule_text_is_parsed_as_text(sources):
    (edition,) = load_sources([sources / "a"]).editions
    assert edition.name == "en/2030-06-01"
    assert SCRIPT in edition.get("100.1").text
    assert IMG in edition.get("100.1a").text
    assert edition.get("100").title == f"General {SCRIPT}"
    assert edition.glossary[0].term == "Fixture alpha <script>alert(5)</script>"


def test_script_and_tags_in_rule_text_are_escaped_on_every_page(hostile_kb):
    pages = {k: v.decode("utf-8") for k, v in tree(hostile_kb / "site").items() if k.endswith(".html")}
    assert len(pages) >= 5
    for name, html in pages.items():
        for tag in ("<script>alert", "<img src=x", "<iframe", "<svg onload", "<b>bold", "</textarea>"):
            assert tag not in html, f"{name}: {tag!r} not escaped"
        # the only scripts are the site's own
        assert set(re.findall(r"<script[^>]*>", html)) <= {
            f'<script src="{src}" defer>' for src in re.findall(r'<script src="([^"]+)" defer>', html)
        }
    section = pages["en/2030-06-01/100.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "&lt;img src=x onerror=alert(2)&gt;" in section
    assert "&lt;iframe src=" in section and "&amp;amp;" in section  # "&amp;" printed in the rule stays text
    assert "&lt;svg onload=alert(4)&gt;" in pages["en/2030-06-01/101.html"]
    assert "&lt;script&gt;alert(5)&lt;/script&gt;" in pages["en/2030-06-01/glossary.html"]


def test_search_json_returns_the_script_text_as_plain_text(hostile_kb):
    result = CliRunner().invoke(main, ["search", "alpha rule", "--kb", str(hostile_kb), "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)["hits"]
    assert "100.1" in [h["number"] for h in hits]
    snippet = next(h["snippet"] for h in hits if h["number"] == "100.1")
    assert SCRIPT in snippet  # data, not HTML: the consumer escapes it, as the site does


def test_show_prints_the_script_text_unchanged(hostile_kb):
    result = CliRunner().invoke(main, ["show", "100.1a", "--kb", str(hostile_kb), "--json"])
    assert result.exit_code == 0, result.output
    assert IMG in json.loads(result.stdout)["rule"]["text"]


# ---------------------------------------------------------------------------
# Names from sources cannot escape the knowledge base


@pytest.mark.parametrize(
    "name,safe",
    [
        ("en/2026-08-07", True),
        ("fr/000_f51ad62258817a66", True),
        ("fr/été", True),
        ("../x", False),
        ("/etc/passwd", False),
        ("en/..", False),
        ("en/.", False),
        ("en/a/b", False),
        ("../../en/x", False),
        ("en/", False),
        ("EN/x", False),
        ("en/a b", False),
        ("en/x\x00", False),
    ],
)
def test_edition_names_are_two_safe_path_parts(name, safe):
    assert is_safe_name(name) is safe


def test_unsafe_file_stems_are_made_safe():
    assert [safe_stem(s) for s in ("..", "my notes (v2)", ".hidden", "~draft", "a/b")] == [
        "document",
        "my-notes-v2",
        "hidden",
        "draft",
        "a-b",
    ]


@pytest.mark.parametrize(
    "entry,message",
    [
        ('lang = "../../evil"', "bad lang '../../evil'"),
        ('lang = "/tmp/evil"', "bad lang '/tmp/evil'"),
        ('kind = "../x"', "bad kind '../x'"),
        ("date = 2030-01-01T10:00:00", "bad date"),
        ("title = 5", "bad title 5"),
    ],
)
def test_editions_toml_values_that_could_escape_the_kb_are_refused(tmp_path, entry, message):
    src = tmp_path / "src"
    src.mkdir()
    (src / "notes.txt").write_text("100.1. A quoted rule.\n", encoding="utf-8")
    (src / "other.txt").write_text("100.2. Another quoted rule.\n", encoding="utf-8")
    (src / "editions.toml").write_text(f'["notes.txt"]\n{entry}\n', encoding="utf-8")
    result = load_sources([src])
    assert [e.name for e in result.editions] == ["en/other"]
    (error,) = result.errors
    assert str(error).startswith(f"{src / 'notes.txt'}: line 1: editions.toml: {message}")


def test_build_from_hostile_names_writes_nothing_outside_the_kb(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    dotdot = src / "...txt"  # its stem is ".."
    dotdot.write_text("100.1. A quoted rule.\n", encoding="utf-8")
    spaced = src / "my notes.txt"
    spaced.write_text("100.2. A quoted rule.\n", encoding="utf-8")
    (src / "editions.toml").write_text('["my notes.txt"]\nlang = "fr"\n', encoding="utf-8")
    kb = tmp_path / "out" / "kb"
    report = build([dotdot, spaced], kb, only=("data", "site"))
    assert sorted(e.name for e in report.editions) == ["en/document", "fr/my-notes"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["kb"]
    assert editions_files(kb / "data") == [
        "comprules.sqlite",
        "editions.json",
        "en/document.json",
        "fr/my-notes.json",
        "graph/en/document.json",
        "graph/fr/my-notes.json",
        "graph.graphml",
    ]
    assert (kb / "site" / "en" / "document").is_dir() and (kb / "site" / "index.html").is_file()


# ---------------------------------------------------------------------------
# Builds that can't lose data

DRIVER = r"""
import os, sys, time
from pathlib import Path

point, marker = os.environ["KILL_POINT"], Path(os.environ["KILL_MARKER"])

def pause():
    marker.write_text(str(os.getpid()))
    time.sleep(300)

def after(module, name, nth=1):
    original = getattr(module, name)
    calls = []
    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(1)
        if len(calls) == nth:
            pause()
        return result
    setattr(module, name, wrapper)

import comprules.build, comprules.corpus.load, comprules.export, comprules.indexer.build, comprules.site.render
if point == "parse":   # one source parsed, the other not yet
    after(comprules.corpus.load, "parse_file")
elif point == "data":  # one edition's JSON written into the temporary folder
    after(comprules.export, "write_atomic")
elif point == "site":  # the site rendered into its temporary folder, not swapped in
    after(comprules.site.render.SiteRenderer, "render")
elif point == "index":  # the index written into its build folder, not swapped in
    after(comprules.indexer.build, "_write")
elif point == "swap":  # data/ swapped in, site/ not yet
    after(comprules.build, "swap_dir")
elif point == "swapped":  # data/ and site/ swapped in: the new knowledge base is in place
    after(comprules.build, "swap_dir", 2)
from comprules.cli import main
main(sys.argv[1:], prog_name="comprules")
"""


def start_build(kb: Path, sources: list[Path], point: str, marker: Path) -> subprocess.Popen:
    env = {**os.environ, "KILL_POINT": point, "KILL_MARKER": str(marker)}
    args = [sys.executable, "-c", DRIVER, "build", *map(str, sources), "--kb", str(kb)]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(marker: Path, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not marker.exists():
        if proc.poll() is not None:
            raise AssertionError(f"build ended before its pause point: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("build never reached its pause point")
        time.sleep(0.02)


def usable(kb: Path, word: str) -> None:
    """``show`` and ``search`` work on ``kb``, and every data JSON parses."""
    for path in (kb / "data").rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "100.1", "--kb", str(kb), "--json"])
    assert shown.exit_code == 0 and word in json.loads(shown.stdout)["rule"]["text"], shown.output
    found = runner.invoke(main, ["search", word, "--kb", str(kb), "--json"])
    assert found.exit_code == 0 and json.loads(found.stdout)["hits"], found.output


KILLS = [
    ("parse", signal.SIGKILL),
    ("data", signal.SIGKILL),
    ("site", signal.SIGKILL),
    ("index", signal.SIGKILL),
    ("data", signal.SIGINT),
    ("index", signal.SIGINT),
]


@pytest.mark.parametrize("point,sig", KILLS, ids=[f"{p}-{s.name}" for p, s in KILLS])
def test_build_killed_during_a_stage_leaves_the_previous_kb_intact_and_usable(point, sig, old_kb, sources, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    before = tree(kb)
    proc = start_build(kb, [sources / "a", sources / "b"], point, tmp_path / "paused")
    wait_for(tmp_path / "paused", proc)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert tree(kb) == before  # data, index and site: every byte as before
    usable(kb, "alpha")
    if sig == signal.SIGINT:  # cleaned up on the way out
        assert not list(kb.glob(".build-*"))
    # the next build recovers and completes
    report = build([sources / "a", sources / "b"], kb, only=("data",))
    assert [e.name for e in report.editions] == ["en/2030-06-01", "en/2030-09-01"]
    assert not list(kb.glob(".build-*"))
    assert sorted(p.name for p in (kb / "data" / "en").iterdir()) == ["2030-06-01.json", "2030-09-01.json"]


def test_build_killed_between_swaps_leaves_complete_outputs(old_kb, sources, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    site_before = tree(kb / "site")
    proc = start_build(kb, [sources / "b"], "swap", tmp_path / "paused")
    wait_for(tmp_path / "paused", proc)
    proc.kill()
    proc.wait(timeout=60)
    # data/ and index/ are the new ones, whole; site/ is the old one, whole
    assert editions_files(kb / "data") == [
        "comprules.sqlite",
        "editions.json",
        "en/2030-09-01.json",
        "graph/en/2030-09-01.json",
        "graph.graphml",
    ]
    assert tree(kb / "site") == site_before
    usable(kb, "omega")


@pytest.mark.parametrize("atomic", [True, False], ids=["renameat2-exchange", "two-renames"])
def test_swap_dir_replaces_a_folder_whole_and_removes_the_old_one(tmp_path, monkeypatch, atomic):
    import comprules.build as b

    if not atomic:
        monkeypatch.setattr(b, "_exchange", lambda new, dest: False)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "n.json").write_text("new")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "o.json").write_text("old")
    b.swap_dir(tmp_path / "new", tmp_path / "data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["n.json"]


def test_recover_puts_back_an_output_renamed_aside_by_a_killed_build(old_kb, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    before = tree(kb / "data")
    os.replace(kb / "data", kb / ".data.old-123")  # killed between the two renames of the fallback
    (kb / ".build-xyz").mkdir()
    assert recover(kb) == [
        "restored data/ from an interrupted build",
        "removed .build-xyz left by an interrupted build",
    ]
    assert tree(kb / "data") == before


def test_second_concurrent_build_says_clearly_that_one_is_running(old_kb, sources, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    first = start_build(kb, [sources / "b"], "data", tmp_path / "paused")
    try:
        wait_for(tmp_path / "paused", first)
        second = subprocess.run(
            [sys.executable, "-m", "comprules.cli", "build", str(sources / "b"), "--kb", str(kb)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 2
        assert second.stderr == (
            f"comprules: another build is running on {kb} (pid {first.pid}); wait for it to finish\n"
        )
    finally:
        first.kill()
        first.wait(timeout=60)
    usable(kb, "alpha")


def test_building_twice_from_the_same_sources_gives_byte_identical_data_and_site(en_dir, seed_files, tmp_path):
    # The whoosh index (index/) is left out: it names its segments at random and records
    # the build time. The site's search data (site/search/, exported from the index) is
    # compared.
    sources = [en_dir / "1999-04-23.txt", en_dir / "1999-11-01.txt", seed_files[2]]
    first, second = tmp_path / "one", tmp_path / "two"
    build(sources, first, only=("data", "index", "site"))
    build(sources, second, only=("data", "index", "site"))
    for part in ("data", "site"):
        a, b = (tree(kb / part) for kb in (first, second))
        assert sorted(a) == sorted(b)
        assert [k for k in a if a[k] != b[k]] == []
    assert len(tree(first / "site")) > 200
    assert sorted(p.name for p in (first / "site" / "search").iterdir()) == ["en.js", "fr.js"]
    for dot in (".fingerprint", ".stats.json"):  # the site's own records, left out by tree()
        assert (first / "site" / dot).read_bytes() == (second / "site" / dot).read_bytes()
    assert editions_files(first / "data") == [
        "comprules.sqlite",
        "editions.json",
        "en/1999-04-23.json",
        "en/1999-11-01.json",
        f"fr/{seed_files[2].stem}.json",
        "graph/en/1999-04-23.json",
        "graph/en/1999-11-01.json",
        f"graph/fr/{seed_files[2].stem}.json",
        "graph.graphml",
    ]


# ---------------------------------------------------------------------------
# SIGINT and SIGTERM: one line saying what was kept, 130 / 143 (issue 12)

SIGNALS = [
    ("data", signal.SIGINT, 130, "interrupted: the previous knowledge base is intact", "alpha"),
    (
        "index",
        signal.SIGTERM,
        143,
        "interrupted: the previous knowledge base is intact (the finished data/ is kept for the next build)",
        "alpha",
    ),
    (
        "swap",
        signal.SIGTERM,
        143,
        "interrupted: data/ and index/ are new, site/ is the previous one "
        "(the finished site/ is kept for the next build)",
        "omega",
    ),
    ("swapped", signal.SIGINT, 130, "interrupted after the new knowledge base was in place", "omega"),
]


@pytest.mark.parametrize("point,sig,code,line,word", SIGNALS, ids=[f"{p}-{s.name}" for p, s, *_ in SIGNALS])
def test_a_signal_ends_the_build_with_one_line_saying_what_was_kept(
    point, sig, code, line, word, old_kb, sources, tmp_path
):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    proc = start_build(kb, [sources / "a", sources / "b"], point, tmp_path / "paused")
    wait_for(tmp_path / "paused", proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert err.splitlines()[-1] == f"comprules: {line}"
    assert "Aborted" not in err and "Traceback" not in err
    assert not list(kb.glob(".build-*"))
    usable(kb, word)  # the latest edition of what is in place: the old a, or the new b


def test_a_rebuild_after_an_interrupt_reuses_the_site_already_rendered(old_kb, sources, tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(old_kb, kb, symlinks=True)
    proc = start_build(kb, [sources / "a", sources / "b"], "swap", tmp_path / "paused")
    wait_for(tmp_path / "paused", proc)  # the new site is rendered, data/ and index/ are swapped in, site/ not
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    report = build([sources / "a", sources / "b"], kb)
    assert report.kept == ["data"] and report.reused == ["site"]  # the site rendered before, not again
    assert (kb / "site" / "en" / "2030-09-01" / "100.html").is_file()
    assert not [p.name for p in kb.iterdir() if p.name.startswith(".site.")]
