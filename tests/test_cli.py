"""The command line contract of DESIGN.md, on a knowledge base built from real sources (issue 2)."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from comprules.cli import main


@pytest.fixture(scope="module")
def kb(tmp_path_factory, en_dir, seeds_dir):
    """A knowledge base of 2009-07-11 (the renumbering), 2026-08-07 and the five seeds."""
    root = tmp_path_factory.mktemp("kb")
    src = root / "src"
    src.mkdir()
    for name in ("2009-07-11.txt", "2026-08-07.txt"):
        shutil.copy(en_dir / name, src / name)
    result = CliRunner().invoke(main, ["build", str(src), str(seeds_dir), "--kb", str(root / "kb"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return root / "kb"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_build_reports_editions_and_writes_data_index_site(kb):
    assert (kb / "data" / "en" / "2026-08-07.json").is_file()
    assert (kb / "data" / "fr" / "003_816c607ad111474a.json").is_file()
    assert (kb / "data" / "graph.graphml").is_file()
    assert (kb / "index").is_dir()
    assert (kb / "site" / "en" / "2026-08-07" / "702.html").is_file()
    names = [e["name"] for e in json.loads((kb / "data" / "editions.json").read_text())["editions"]]
    assert names == ["en/2009-07-11", "en/2026-08-07"] + sorted(n for n in names if n.startswith("fr/"))
    assert len(names) == 7


def test_search_phasing_lists_702_26b_in_top_five_with_a_highlighted_snippet(kb):
    result = run("search", "phasing", "--edition", "en/2026-08-07", "--kb", kb, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    top = [h["number"] for h in data["hits"][:5]]
    assert "702.26b" in top
    hit = data["hits"][top.index("702.26b")]
    assert hit["edition"] == "en/2026-08-07"
    start, end = hit["highlights"][0]
    assert hit["snippet"][start:end].lower().startswith("phas")


def test_search_phasing_prints_the_rule_number_in_the_terminal(kb):
    result = run("search", "phasing", "--edition", "en/2026-08-07", "--kb", kb)
    assert result.exit_code == 0
    assert "702.26b" in result.output


def test_search_creature_volante_in_french_finds_seed_003_on_flying(kb):
    result = run("search", "créature volante", "--lang", "fr", "--kb", kb, "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)["hits"]
    assert hits[0]["edition"] == "fr/003_816c607ad111474a"
    assert hits[0]["title"] == "Vol"


def test_show_704_5aa_prints_it_with_parent_704_5(kb):
    result = run("show", "704.5aa", "--edition", "en/2026-08-07", "--kb", kb)
    assert result.exit_code == 0, result.output
    assert "704.5aa" in result.output and "parent: 704.5" in result.output
    data = json.loads(run("show", "704.5aa", "--edition", "en/2026-08-07", "--kb", kb, "--json").output)
    assert data["rule"]["parent"] == "704.5"
    assert data["refs"] == ["702.179"]


def test_show_lists_subrules_and_cited_by(kb):
    data = json.loads(run("show", "R70237", "--edition", "2026-08-07", "--kb", kb, "--json").output)
    assert data["rule"]["title"] == "Morph"
    assert [s["number"] for s in data["subrules"]][:3] == ["702.37a", "702.37b", "702.37c"]
    assert {"Morph", "Megamorph", "Face Down"} <= set(data["cited_by_glossary"])
    sub = json.loads(run("show", "702.37e", "--edition", "2026-08-07", "--kb", kb, "--json").output)
    assert sub["cited_by"] == ["701.40c", "701.58c"]
    text = run("show", "702.37e", "--edition", "2026-08-07", "--kb", kb).output
    assert "cited by: 701.40c, 701.58c" in text


def test_unknown_rule_exits_1_and_unknown_edition_exits_2(kb):
    missing = run("show", "999.99", "--edition", "en/2026-08-07", "--kb", kb)
    assert missing.exit_code == 1 and "no rule 999.99" in missing.output
    bad = run("show", "100.1", "--edition", "en/1900-01-01", "--kb", kb)
    assert bad.exit_code == 2 and "no edition" in bad.output


def test_export_prints_the_design_export_shape(kb):
    result = run("export", "en/latest", "--kb", kb)
    data = json.loads(result.output)
    assert data["edition"]["effective"] == "2026-08-07" and data["edition"]["lang"] == "en"
    rule = next(r for r in data["rules"] if r["number"] == "702.37a")
    assert rule["parent"] == "702.37" and rule["section"] == "702" and rule["chapter"] == "7"
    assert set(rule) >= {"number", "parent", "section", "chapter", "title", "text", "examples", "refs"}
    assert set(data["glossary"][0]) >= {"term", "aliases", "obsolete", "senses", "refs"}


def test_build_with_no_readable_source_exits_2_with_one_line(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    result = run("build", tmp_path / "empty.txt", "--kb", tmp_path / "kb")
    assert result.exit_code == 2
    assert "empty.txt: " in result.output and "empty file" in result.output
    assert result.output.count("comprules:") == 1


def test_build_with_one_bad_file_builds_the_rest_and_exits_2(tmp_path, en_dir):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(en_dir / "2026-08-07.txt", src / "2026-08-07.txt")
    (src / "binary.txt").write_bytes(b"\x00\x01\x02" * 100)
    result = run("build", src, "--kb", tmp_path / "kb", "--only", "data")
    assert result.exit_code == 2
    assert "binary.txt: line 1: binary content" in result.output
    assert "built 1 edition (" in result.output
    assert (tmp_path / "kb" / "data" / "en" / "2026-08-07.json").is_file()


def test_bad_paths_and_ports_are_one_line_errors_not_tracebacks(kb, tmp_path):
    folder = run("export", "en/2026-08-07", "--kb", kb, "-o", tmp_path)
    assert folder.exit_code == 2 and "is a folder" in folder.output
    (tmp_path / "a-file").write_text("x")
    not_a_kb = run("build", tmp_path / "a-file", "--kb", tmp_path / "a-file", "--only", "data")
    assert not_a_kb.exit_code == 2 and "Traceback" not in not_a_kb.output
    port = run("serve", "--kb", kb, "--port", "99999")
    assert port.exit_code == 2 and "99999" in port.output


def test_show_accepts_lowercase_citation_and_rule_prefix(kb):
    for spelling in ("r70237a", "rule 702.37a"):
        data = json.loads(run("show", spelling, "--edition", "en/2026-08-07", "--kb", kb, "--json").output)
        assert data["rule"]["number"] == "702.37a"


def test_search_takes_a_source_file_as_edition_and_indexes_it_on_the_fly(en_dir, tmp_path):
    result = run("search", "phasing", "--edition", en_dir / "2009-07-11.txt", "--kb", tmp_path / "none", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)["hits"]
    assert {h["edition"] for h in hits} == {"en/2009-07-11"}
    assert any(h["number"].startswith("702.") for h in hits[:5])
