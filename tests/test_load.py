"""Loading source folders: bad files reported one line each, duplicates merged (issue 2)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from comprules.corpus import load_sources


def test_bad_files_give_one_error_each_and_the_rest_builds(tmp_path, en_dir, corpus_dir):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(en_dir / "2026-08-07.txt", src / "2026-08-07.txt")
    (src / "empty.txt").write_bytes(b"")
    (src / "binary.txt").write_bytes(bytes(range(256)) * 40)
    shutil.copy(corpus_dir / "formats" / "2025-02-07.pdf", src / "renamed-pdf.txt")
    result = load_sources([src])
    assert [e.name for e in result.editions] == ["en/2026-08-07"]
    errors = sorted(str(e) for e in result.errors)
    assert len(errors) == 3
    assert all("\n" not in e for e in errors)
    assert errors[0].startswith(f"{src}/binary.txt: ") and "binary" in errors[0]
    assert errors[1].startswith(f"{src}/empty.txt: ") and "empty file" in errors[1]
    assert errors[2].startswith(f"{src}/renamed-pdf.txt: line 1: a PDF document")


def test_two_sources_of_one_edition_build_it_once_with_a_warning_naming_both(corpus_dir):
    result = load_sources([corpus_dir / "raw" / "2017-04-28.txt", corpus_dir / "en" / "2017-04-28.txt"])
    assert [e.name for e in result.editions] == ["en/2017-04-28"]
    (note,) = result.notices
    assert "raw/2017-04-28.txt" in note and "en/2017-04-28.txt" in note
    edition = result.editions[0]
    assert [w.kind for w in edition.warnings][-1] == "duplicate-source"
    assert len(edition.sources) == 2


def test_one_file_given_twice_is_read_once_without_a_warning(en_dir, tmp_path):
    source = en_dir / "2017-04-28.txt"
    result = load_sources([source, Path(f"{en_dir}/../en/2017-04-28.txt"), source])
    assert [e.name for e in result.editions] == ["en/2017-04-28"] and result.notices == []
    assert result.editions[0].source == str(source) and len(result.editions[0].sources) == 1
    # a folder holding a hard link to a file given: the same file, read once
    mine = tmp_path / "2017-04-28.txt"
    shutil.copy(source, mine)
    folder = tmp_path / "src"
    folder.mkdir()
    os.link(mine, folder / "linked.txt")
    linked = load_sources([mine, folder])
    assert [e.name for e in linked.editions] == ["en/2017-04-28"] and linked.notices == []
    # a copy is another source of the same edition: said, as before
    shutil.copy(source, folder / "copied.txt")
    assert len(load_sources([mine, folder]).notices) == 1


def test_docx_gives_the_same_rules_as_the_txt_of_2025_02_07(corpus_dir):
    result = load_sources([corpus_dir / "en" / "2025-02-07.txt", corpus_dir / "formats" / "2025-02-07.docx"])
    assert [e.name for e in result.editions] == ["en/2025-02-07"]
    assert "2025-02-07.docx" in result.notices[0]


def test_missing_path_is_an_error_not_a_crash(tmp_path):
    result = load_sources([tmp_path / "nope"])
    assert result.editions == [] and "no such file" in str(result.errors[0])


def test_seeds_folder_loads_five_french_fragments(seeds_dir):
    result = load_sources([seeds_dir])
    assert [e.name.split("_")[0] for e in result.editions] == [f"fr/00{i}" for i in range(5)]
    assert all(e.kind == "fragment" and e.lang == "fr" for e in result.editions)
    assert result.errors == []
