"""A newcomer's reports on the command line (package clifix, issues 12 and 16), each
on a knowledge base built from real editions (2009-07-11, 2026-08-07) and the seeds.

Each test failed before its fix: data/ of a folder that only looked like an old
knowledge base was deleted; a closed pipe gave 1, 0 or 2 by command and timing;
``--help > /dev/full`` was a traceback; edition messages named the wrong language or
were cut by the server; rule numbers the site's go-to box takes were refused.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from comprules.build import MARKER, build
from comprules.cli import main
from comprules.errors import UsageError
from comprules.kb import KnowledgeBase, normalize_number

CLI = [sys.executable, "-m", "comprules.cli"]


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def kb(tmp_path_factory, en_dir, seeds_dir):
    """data/ and index/ of en/2009-07-11, en/2026-08-07 and the five French seeds."""
    root = tmp_path_factory.mktemp("clifix") / "kb"
    build([en_dir / "2009-07-11.txt", en_dir / "2026-08-07.txt", seeds_dir], root, only=("data", "index"))
    return root


# ---------------------------------------------------------------------------
# 1. A folder is taken for an old knowledge base only when it is one


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "manifest,named",
    [('{"editions": []}\n', "data/mystuff.csv"), ("not json at all\n", "data/mystuff.csv")],
    ids=["empty-manifest", "not-json"],
)
def test_a_data_folder_with_a_users_file_is_refused_and_untouched(tmp_path, en_dir, manifest, named):
    mine = tmp_path / "mine4"
    (mine / "data").mkdir(parents=True)
    (mine / "data" / "editions.json").write_text(manifest)
    (mine / "data" / "mystuff.csv").write_text("mine\n")
    before = _tree(mine)
    result = subprocess.run(
        [*CLI, "build", str(en_dir / "2009-07-11.txt"), "--kb", str(mine), "--only", "data"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"comprules: {mine} is not a comprules knowledge base (no {MARKER} file) and holds {named}, "
        "which comprules did not write: nothing in it was changed; give --kb an empty or new folder\n"
    )
    assert _tree(mine) == before and not (mine / MARKER).exists()


def test_a_manifest_alone_that_comprules_did_not_write_is_refused(tmp_path, en_dir):
    mine = tmp_path / "mine"
    (mine / "data").mkdir(parents=True)
    (mine / "data" / "editions.json").write_text('{"editions": []}\n')
    with pytest.raises(UsageError, match=r"holds data/editions.json \(not a comprules manifest\)"):
        build([en_dir / "2009-07-11.txt"], mine, only=("data",))
    assert _tree(mine) == {"data/editions.json": '{"editions": []}\n'}


def test_an_old_knowledge_base_is_marked_but_one_with_a_file_more_is_refused(kb, tmp_path, en_dir):
    old = tmp_path / "old"
    shutil.copytree(kb, old, symlinks=True)
    (old / MARKER).unlink()  # as built before the marker existed
    other = tmp_path / "other"
    shutil.copytree(old, other, symlinks=True)
    (other / "data" / "alignments" / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match=r"holds data/alignments/notes.txt, which comprules did not write"):
        build([en_dir / "2009-07-11.txt"], other, only=("data",))
    assert (other / "data" / "alignments" / "notes.txt").read_text() == "mine"
    assert (other / "data" / "en" / "2026-08-07.json").is_file()

    result = run("build", en_dir / "2009-07-11.txt", "--kb", old, "--only", "data")
    assert result.exit_code == 0, result.output
    assert "marked an existing knowledge base" in result.output
    assert f"built 1 edition (1472 rules) into {old}" in result.output  # not "1 editions"
    assert (old / MARKER).is_file()


# ---------------------------------------------------------------------------
# 2, 3. A closed pipe ends quietly with the command's own exit code; a full disk is one line

PIPED = [
    (["show", "702.19"], 0),
    (["show", "702.19", "--json"], 0),
    (["search", "morph"], 0),
    (["search", "zzqxv"], 1),  # nothing found stays nothing found
    (["export", "en/2026-08-07"], 0),
    (["diff", "en/2009-07-11", "en/2026-08-07", "-s", "702"], 0),
    (["editions"], 0),
    (["--version"], 0),
    (["--help"], 0),
    (["show", "--help"], 0),
]


def _argv(args, kb):
    return [*CLI, *args] if args[-1] == "--help" or args == ["--version"] else [*CLI, *args, "--kb", str(kb)]


@pytest.mark.parametrize("args,code", PIPED, ids=[" ".join(a) for a, _ in PIPED])
def test_a_closed_pipe_exits_with_the_commands_own_code_whether_closed_early_or_late(kb, args, code):
    early = subprocess.Popen(_argv(args, kb), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    early.stdout.close()  # `| true`: the reader is gone before the first write
    _, err = early.communicate(timeout=120)
    assert (early.returncode, err) == (code, b"")

    late = subprocess.Popen(_argv(args, kb), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    late.stdout.read(1)  # `| head -c 1`: the reader takes the start, then goes
    time.sleep(0.3)
    late.stdout.close()
    _, err = late.communicate(timeout=120)
    assert (late.returncode, err) == (code, b"")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["editions", "--help"]])
def test_help_and_version_to_a_full_disk_are_one_line_and_exit_2(args):
    with open("/dev/full", "w") as full:
        result = subprocess.run([*CLI, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (2, "comprules: cannot write the output: No space left on device\n")


# ---------------------------------------------------------------------------
# 4. Edition messages name the language asked and stay whole when served


def test_a_date_in_another_language_says_there_is_none_in_it_and_which_english_one_was_in_force(kb):
    result = run("show", "702.19a", "--edition", "fr/2002-10-07", "--kb", kb)
    assert result.exit_code == 2
    assert result.output == (
        f"comprules: no edition in fr (Français) in {kb} was in force on 2002-10-07: the edition in force "
        "that day is the English en/2002-10-07 (Onslaught, ONS), which is not built either "
        "(nearest in fr: none; `comprules editions` lists all 7)\n"
    )
    result = run("show", "100.1", "--edition", "fr/2010-01-01", "--kb", kb)
    assert "the edition in force that day is the English en/2009-10-01" in result.output


def test_the_in_force_message_is_a_whole_sentence_without_the_folder(kb):
    with pytest.raises(UsageError) as caught:
        KnowledgeBase(kb).resolve_name("2020-01-01")
    served = str(caught.value).replace(f" in {kb}", "")  # what the server says (server/api.py, said)
    assert served.startswith("the edition in force on 2020-01-01 is en/2019-10-04, which is not built (nearest: ")
    assert "en/2009-07-11" in served and "en/2026-08-07" in served


# ---------------------------------------------------------------------------
# 5. Odd inputs


@pytest.mark.parametrize("args", [["show", ""], ["history", ""], ["show", "702.19", "--edition", ""]])
def test_an_empty_number_or_edition_is_a_usage_error(kb, args):
    result = run(*args, "--kb", kb)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and ("no rule number given" in result.output or "empty" in result.output)


@pytest.mark.parametrize(
    "typed,number",
    [
        ("702.19B", "702.19b"),
        ("704.5AA", "704.5aa"),
        ("702.37 a", "702.37a"),
        ("§702.37a", "702.37a"),
        ("R70237A", "702.37a"),
        ("CR 702.37a.", "702.37a"),
        ("section-702-37a", "702.37a"),
        ("702.37 (a)", "702.37a"),  # a trial: "no rule 702.37 (a in …"
        ("(702.37a)", "702.37a"),  # as search and the go-to box take it (a trial: refused by show)
        ("702。37a", "702.37a"),  # a Chinese keyboard's full stop
        ("See rule 702.37a.", "702.37a"),  # a citation pasted as the CR prints it
        ("See rule 702.37a, “Morph.”", "702.37a"),  # with its title
    ],
)
def test_show_takes_the_number_forms_of_the_sites_go_to_box(kb, typed, number):
    assert normalize_number(typed) == number
    result = run("show", typed, "--edition", "en/2026-08-07", "--kb", kb, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rule"]["number"] == number


# ---------------------------------------------------------------------------
# 6. A source path needs no knowledge base


def test_show_on_a_source_file_without_a_knowledge_base(en_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./build here
    monkeypatch.delenv("COMPRULES_KB", raising=False)
    result = run("show", "702.19b", "--edition", en_dir / "2009-07-11.txt", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["edition"] == "en/2009-07-11" and data["rule"]["parent"] == "702.19"
    assert data["rule"]["text"].startswith('"Bands with other" is a special form of banding.')


# ---------------------------------------------------------------------------
# 7. A hit found through the lexicon is marked as a translation in the terminal too


def test_a_translated_hit_says_translation_in_the_terminal_and_the_result_lang_is_the_querys(kb):
    data = json.loads(run("search", "trample", "--lang", "fr", "--kb", kb, "--json").output)
    assert data["lang"] == "en"  # "trample" is an English word; --lang fr keeps French hits
    assert [(h["title"], h["lang"], h["translation"]) for h in data["hits"]][:1] == [("Piétinement", "fr", True)]
    text = run("search", "trample", "--lang", "fr", "--kb", kb).output
    first = text.splitlines()[0]
    assert "Piétinement" in first and first.endswith("translation")


# ---------------------------------------------------------------------------
# 8. Messages name the user's paths


def test_export_to_a_folder_that_takes_no_file_names_the_path_given(kb):
    result = run("export", "en/2026-08-07", "--kb", kb, "-o", "/proc/version")
    assert result.exit_code == 2
    assert result.output == "comprules: /proc/version: cannot write there (No such file or directory)\n"


def test_a_bad_database_is_named_by_the_users_path_even_through_a_pinned_folder(tmp_path):
    mine = tmp_path / "mine"
    (mine / "data").mkdir(parents=True)
    (mine / "data" / "comprules.sqlite").write_text("not a database, a user's notes\n" * 100)
    fd = os.open(mine / "data", os.O_RDONLY)
    try:  # as the server opens one generation of data/
        with pytest.raises(UsageError) as caught:
            KnowledgeBase(mine, data=Path(f"/proc/self/fd/{fd}"))
    finally:
        os.close(fd)
    assert str(caught.value).startswith(f"{mine}/data/comprules.sqlite: not a knowledge-base database")
    assert "/proc/self/fd" not in str(caught.value)


# ---------------------------------------------------------------------------
# 9. Small ones


def test_export_to_an_empty_name_is_a_usage_error(kb):
    result = run("export", "en/2026-08-07", "--kb", kb, "-o", "")
    assert result.exit_code == 2 and result.output.startswith("comprules: export: Invalid value for '-o'")


def test_a_language_without_an_edition_and_a_day_after_the_latest(kb):
    result = run("show", "100.1", "--edition", "en/", "--kb", kb)
    assert (result.exit_code, result.output) == (
        2,
        "comprules: edition 'en/' names a language only: give en/latest or en/DATE\n",
    )
    result = run("show", "100.1", "--edition", "2099-01-01", "--kb", kb, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["edition"] == "en/2026-08-07"
    assert result.stderr == (
        "comprules: note: 2099-01-01 is after the latest edition known, en/2026-08-07 (effective 2026-08-07): "
        "it is the edition in force then only if no later one has been published\n"
    )
    assert run("show", "100.1", "--edition", "2024-09-01", "--kb", kb).exit_code == 2  # 2024-07-30, not built


@pytest.mark.parametrize("query", ["what is the", "the of and", "how does it", "quoi est le"])
def test_a_query_of_common_words_only_finds_nothing(kb, query):
    result = run("search", query, "--kb", kb, "--json")
    assert result.exit_code == 1
    assert json.loads(result.output)["hits"] == []
    assert json.loads(run("search", "what is trample", "--kb", kb, "--json").output)["hits"][0]["title"] == "Trample"


def test_an_interrupted_first_build_says_nothing_was_written_and_the_next_removes_its_index(tmp_path, en_dir):
    from test_robustness import start_build, wait_for

    kb = tmp_path / "kb"
    proc = start_build(kb, [en_dir / "1999-04-23.txt"], "site", tmp_path / "paused")
    wait_for(tmp_path / "paused", proc, limit=120)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.splitlines()[-1] == (
        "comprules: interrupted: no knowledge base was written (the finished data/ is kept for the next build)"
    )
    assert len(list(kb.glob(".index.gen-*"))) == 1  # finished, never swapped in
    result = run("build", en_dir / "1999-04-23.txt", "--kb", kb, "--only", "data,index")
    assert result.exit_code == 0, result.output
    assert "an index an interrupted build did not swap in" in result.output
    assert "data/ taken from the interrupted build" in result.output
    assert [p.name for p in kb.glob(".index.gen-*")] == [os.readlink(kb / "index")]


# ---------------------------------------------------------------------------
# Issue 23, 11-12: --json is always JSON; messages are one true line


def _json_run(*args):
    comprules = Path(sys.executable).parent / "comprules"  # the command as users type it
    result = subprocess.run([str(comprules), *map(str, args)], capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["show", "999.9"], 1, "no rule 999.9 in en/2026-08-07"),
        (["history", "999.9z"], 1, "no rule 999.9z in en/2026-08-07"),
        (
            ["diff", "2009-07-11", "2026-08-07", "-s", "999"],
            1,
            "nothing in section 999 of en/2009-07-11 or en/2026-08-07",
        ),
        (["show", "rule"], 2, "'rule' is not a rule number (a number such as 702.19b)"),
        (["show", "702.19", "--edition", "1999-04-23"], 2, "the edition in force on 1999-04-23 is en/1999-04-23"),
        (["check", "--edition", "xx"], 2, "no edition 'xx'"),
        (
            ["diff", "2009-07-11", "2026-08-07", "-s", ""],
            2,
            "bad section '' (a section such as 702, or a chapter such as 7)",
        ),
        (["show", "--bogus"], 2, "show: No such option '--bogus' (see comprules show --help)"),
    ],
    ids=[
        "show-none",
        "history-none",
        "diff-none",
        "show-rule",
        "unbuilt-edition",
        "check-unknown",
        "diff-empty-section",
        "bad-option",
    ],
)
def test_with_json_every_error_is_json_on_stdout_and_one_line_on_stderr(kb, args, code, message):
    status, out, err = _json_run(*args, "--json", "--kb", kb)
    assert status == code
    body = json.loads(out)
    assert list(body) == ["error"] and body["error"]["code"] == code
    assert body["error"]["message"].startswith(message), body
    assert err.count("\n") == 1 and err.startswith("comprules: " + message.split(" (")[0][:30])


def test_a_build_with_json_and_no_buildable_source_says_so_in_json_and_leaves_no_folder(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_bytes(b"\x00\x01binary\x00")
    kb = tmp_path / "newkb"
    status, out, err = _json_run("build", bad, "--kb", kb, "--json")
    assert status == 2
    assert json.loads(out)["error"]["message"].startswith("no edition could be built from the sources given")
    assert not kb.exists()  # the folder this build made goes again


def test_a_rule_number_in_full_width_digits_is_the_rule(kb):
    assert normalize_number("７０２．１９") == "702.19"
    result = run("show", "７０２．１９", "--kb", kb, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["rule"]["id"] == "702.19"


def test_only_given_twice_builds_both_stages(tmp_path, en_dir):
    # a trial: "--only data --only index" built the index alone (the last --only won) and
    # said "built 1 edition"; every reader then answered "no knowledge base"
    kb = tmp_path / "kb"
    result = run("build", en_dir / "2026-08-07.txt", "--kb", kb, "--only", "data", "--only", "index")
    assert result.exit_code == 0, result.output
    assert (kb / "data" / "comprules.sqlite").is_file() and (kb / "index").is_dir() and not (kb / "site").exists()
    shown = json.loads(run("search", "trample", "--kb", kb, "--json").stdout)
    assert [h["number"] for h in shown["hits"][:2]] == ["trample", "702.19"]  # the glossary entry, the rule


def test_a_section_in_full_width_digits_is_the_section_and_other_scripts_digits_are_refused(kb):
    # a trial: --section ７０２ passed ("７０２".isdigit()) and then matched no document: no hits
    wide = json.loads(run("search", "flying", "--section", "７０２", "--kb", kb, "--json").stdout)
    ascii = json.loads(run("search", "flying", "--section", "702", "--kb", kb, "--json").stdout)
    assert [h["number"] for h in wide["hits"]][:1] == ["702.9"] and wide["hits"] == ascii["hits"]
    assert all(h["number"].split(".")[0] == "702" for h in wide["hits"])
    status, _out, err = _json_run("search", "flying", "--section", "٧٠٢", "--kb", kb)
    assert status == 2 and "bad section '٧٠٢'" in err


def test_an_error_repeats_at_most_200_characters_of_an_argument(kb):
    status, out, err = _json_run("show", "9" * 10_000, "--kb", kb)  # (no rule number: a usage error)
    assert status == 2 and len(err) < 300 and "9" * 201 not in err and "…" in err
    status, out, err = _json_run("show", "9" * 10_000 + ".1", "--kb", kb)
    assert status == 2 and len(err) < 300 and "9" * 201 not in err and "…" in err


def test_history_of_a_source_file_says_what_a_history_needs(kb, en_dir):
    status, out, err = _json_run("history", "702.19", "--edition", en_dir / "2009-07-11.txt", "--kb", kb)
    assert status == 2
    assert err == (
        f"comprules: --edition {en_dir / '2009-07-11.txt'}: is a source file; a history is read from the stored "
        "alignments of a knowledge base: build it (comprules build FILE... --kb DIR) and name its edition\n"
    )


def test_empty_output_folders_are_not_taken_for_a_users_files(tmp_path, en_dir):
    kb = tmp_path / "kb"
    for name in ("data", "site", "index"):
        (kb / name).mkdir(parents=True)
    report = build([en_dir / "1999-04-23.txt"], kb, only=("data",))
    assert report.names == ["en/1999-04-23"] and (kb / MARKER).is_file()


def test_an_edition_name_too_long_for_a_path_is_an_unknown_edition_in_json(kb):
    status, out, err = _json_run("show", "702.19", "-e", "Z" * 300, "--json", "--kb", kb)
    assert status == 2
    assert json.loads(out)["error"]["message"].startswith("no edition 'ZZZ")
    assert len(err) < 600 and "File name too long" not in err


def test_a_json_error_on_a_full_stdout_is_one_line_and_no_traceback(kb):
    comprules = Path(sys.executable).parent / "comprules"
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [str(comprules), "show", "999.99", "--json", "--kb", str(kb)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert result.returncode == 1
    assert result.stderr == "comprules: no rule 999.99 in en/2026-08-07\n"


# ---------------------------------------------------------------------------
# A newcomer's trial of 2026-12-07


def test_a_build_whose_reader_goes_after_the_first_line_still_builds_and_gives_its_code(tmp_path, en_dir):
    # `comprules build … 2>&1 | head -1`: the build stopped at its second line, exit 1,
    # with only .comprules-kb, .lock and .parsed in a new folder
    kb = tmp_path / "kb"
    argv = [*CLI, "build", str(en_dir / "2026-08-07.txt"), "--kb", str(kb), "--only", "data"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    first = proc.stdout.readline()
    proc.stdout.close()  # head -1 goes
    assert proc.wait(timeout=300) == 0 and first.startswith(b"parsed 1 edition")
    assert (kb / "data" / "comprules.sqlite").is_file() and (kb / "data" / "editions.json").is_file()


@pytest.mark.parametrize("args", [["editions"], ["--version"], ["show", "702.19b"]])
def test_a_command_started_with_stdout_closed_ends_with_its_code_and_no_traceback(kb, args):
    # `comprules editions >&-`: AttributeError: 'NoneType' object has no attribute 'flush'
    result = subprocess.run(
        _argv(args, kb), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120, preexec_fn=lambda: os.close(1)
    )
    assert (result.returncode, result.stderr) == (0, b"")


def test_an_edition_against_itself_is_every_rule_unchanged(kb):
    # a lineage join of an edition with itself gave "212.4j → 212.4j split" twice in 2008-02-01
    result = run("diff", "2009-07-11", "2009-07-11", "--kb", kb, "--json")
    rows = json.loads(result.stdout)["rules"]
    assert result.exit_code == 0 and len(rows) == 1472  # 2009-07-11 numbers 1,472 rules and subrules
    assert {r["kind"] for r in rows} == {"kept"} and all(r["old"] == r["new"] for r in rows)
    assert len({r["old"] for r in rows}) == len(rows)


def test_a_damaged_index_is_one_line_and_the_next_build_makes_it_whole_again(tmp_path, en_dir):
    # a truncated impacts.bin was a ValueError traceback, and the same build again said
    # "nothing changed" and kept it
    kb = tmp_path / "kb"
    source = en_dir / "2026-08-07.txt"
    assert run("build", source, "--kb", kb, "--only", "data,index").exit_code == 0
    impacts = kb / "index" / "impacts.bin"
    with open(impacts, "r+b") as fh:
        fh.truncate(100)
    result = subprocess.run([*CLI, "search", "trample", "--kb", str(kb)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "damaged: impacts.bin has 100 bytes" in result.stderr and len(result.stderr.splitlines()) == 1
    again = run("build", source, "--kb", kb, "--only", "data,index")
    assert again.exit_code == 0 and "nothing changed" not in again.output
    hits = run("search", "trample", "--kb", kb, "--json")
    found = [h["number"] for h in json.loads(hits.stdout)["hits"][:3]]
    assert hits.exit_code == 0 and "702.19" in found, found


def test_a_mistyped_source_removes_no_edition_of_the_last_build(tmp_path, en_dir):
    # `build 2026-06-19.txt 2026-08-07.txtt`: en/2026-08-07 was removed from the knowledge base
    src = tmp_path / "src"
    src.mkdir()
    for name in ("2026-06-19.txt", "2026-08-07.txt"):
        shutil.copy(en_dir / name, src / name)
    kb = tmp_path / "kb"
    assert run("build", src / "2026-06-19.txt", src / "2026-08-07.txt", "--kb", kb, "--only", "data").exit_code == 0
    before = (kb / "data" / "editions.json").read_bytes()
    result = run("build", src / "2026-06-19.txt", src / "2026-08-07.txtt", "--kb", kb, "--only", "data")
    assert result.exit_code == 2 and "2026-08-07.txtt" in result.output
    assert "en/2026-08-07 of the previous build is not among the sources read, and nothing was written" in result.output
    assert (kb / "data" / "editions.json").read_bytes() == before
    assert (kb / "data" / "en" / "2026-08-07.json").is_file()
    left_out = run("build", src / "2026-06-19.txt", "--kb", kb, "--only", "data")  # on purpose: removed, and said
    assert (
        left_out.exit_code == 0
        and "are removed" not in left_out.output
        and "is removed: en/2026-08-07" in left_out.output
    )


def test_an_empty_host_or_knowledge_base_variable_is_not_taken_for_an_address_or_the_current_folder(
    tmp_path, monkeypatch
):
    from comprules.kb import default_kb

    result = run("serve", "--host", "", "--kb", tmp_path, "-p", "0")
    assert result.exit_code == 2 and "--host: give an address" in result.output
    monkeypatch.setenv("COMPRULES_KB", "")
    assert default_kb() == Path("build")


def test_a_translation_paired_with_an_english_edition_of_other_numbers_is_said(tmp_path, en_dir, zh_dir):
    # zh/2026-04-17 with en/2009-07-11 and en/2026-06-19: paired with the nearest earlier,
    # 2009-07-11, its 702.19 践踏 (trample) stood beside 702.19 Banding without a word
    kb = tmp_path / "kb"
    sources = [en_dir / "2009-07-11.txt", en_dir / "2026-06-19.txt", zh_dir / "2026-04-17.txt"]
    result = run("build", *sources, "--kb", kb, "--only", "data")
    assert result.exit_code == 0
    assert (
        "warning: zh/2026-04-17: no English edition of its date among these sources: paired by number with "
        "en/2009-07-11, which holds 36% of its rule numbers (give the English edition of 2026-04-17 to pair it "
        "with its own)"
    ) in result.output
    full = run(
        "build", en_dir / "2026-04-17.txt", zh_dir / "2026-04-17.txt", "--kb", tmp_path / "kb2", "--only", "data"
    )
    assert full.exit_code == 0 and "no English edition of its date" not in full.output
    # zh/2026-02-27 has no English edition of its date either, but zh/2026-04-17 numbers it
    routed = run(
        "build",
        en_dir / "2009-07-11.txt",
        en_dir / "2026-04-17.txt",
        zh_dir / "2026-02-27.txt",
        zh_dir / "2026-04-17.txt",
        "--kb",
        tmp_path / "kb3",
        "--only",
        "data",
    )
    assert routed.exit_code == 0 and "no English edition of its date" not in routed.output


def test_the_academy_routes_asked_in_french_answer_from_the_document_holding_the_rule(kb):
    # docs/server.md: lang=fr answers from the newest French document holding what is asked;
    # /api/v1/rules did, /ar/cr/{rule}, /ar/cr/example/{rule} and /ar/cr/trace/{rule} gave 404
    from starlette.testclient import TestClient

    from comprules.server import create_app

    with TestClient(create_app(kb)) as client:
        api = client.get("/api/v1/rules/502.26", params={"lang": "fr"}).json()
        assert api["edition"] == "fr/004_99dc3338bd3ea994"
        for path in ("/ar/cr/502.26", "/ar/cr/example/502.26", "/ar/cr/trace/502.26"):
            got = client.get(path, params={"lang": "fr"})
            assert got.status_code == 200, (path, got.text[:200])
        assert client.get("/ar/cr/502.26", params={"lang": "fr"}).json()["ruleNumber"] == "502.26"
        assert client.get("/ar/cr/999.99", params={"lang": "fr"}).status_code == 404


@pytest.mark.parametrize("typed", ["702.19..b", "702-19b", "702.19b-c", "1234.5", "٧٠٢.١٩", "2024"])
def test_a_malformed_rule_number_is_a_usage_error_not_a_missing_rule(kb, typed):
    """A trial: ``/api/v1/rules/702.19..b`` was 404 "no rule 702.19..b", as if the rule
    had been looked for; it is the request that is wrong (400, exit 2). /ar keeps the
    Academy Ruins contract's 404 "Rule not found"."""
    from starlette.testclient import TestClient

    from comprules.server import create_app

    with pytest.raises(UsageError, match="is not a rule number"):
        normalize_number(typed)
    result = run("show", typed, "--kb", kb)
    assert result.exit_code == 2 and "is not a rule number" in result.output
    with TestClient(create_app(kb)) as client:
        got = client.get(f"/api/v1/rules/{typed}")
        assert got.status_code == 400 and "is not a rule number" in got.json()["detail"]
        assert client.get("/api/v1/rules/999.9").status_code == 404
        assert client.get(f"/ar/cr/{typed}").status_code == 404


def test_a_card_asked_of_a_knowledge_base_without_card_data_says_how_to_get_it(kb):
    result = run("search", "card:Clone copy", "--kb", kb)
    assert result.exit_code == 2 and "no card data in" in result.output and "--cards FILE" in result.output
    plain = run("search", "clone copy", "--kb", kb, "--json")  # no card asked: the rule words, as before
    assert plain.exit_code == 0 and json.loads(plain.output)["hits"][0]["number"].startswith("707")


def test_an_undated_document_is_named_by_its_number(kb):
    # docs/server.md says fr/004; a trial: "no edition '004'"
    knowledge = KnowledgeBase(kb)
    assert knowledge.resolve_name("fr/004") == knowledge.resolve_name("004") == "fr/004_99dc3338bd3ea994"
    result = run("show", "502.26", "--edition", "fr/004", "--kb", kb, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["edition"] == "fr/004_99dc3338bd3ea994"


# ---------------------------------------------------------------------------
# A newcomer's trial of 2026-12-07 (evening)


@pytest.mark.parametrize(
    "args,said",
    [
        (["--only", ""], "--only: empty: give one or more of data, index, site"),
        (["--only", " , "], "--only: empty: give one or more of data, index, site"),
        (["--kb", ""], "--kb: empty: give a knowledge base folder"),
        (["--kb", "  "], "--kb: empty: give a knowledge base folder"),
    ],
    ids=["only-empty", "only-commas", "kb-empty", "kb-spaces"],
)
def test_a_build_of_no_stage_or_into_no_folder_is_a_usage_error(tmp_path, en_dir, args, said, monkeypatch):
    # a trial: --only "" said "nothing changed: kept  (0.0 s)", and --kb "" built into ./build
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPRULES_KB", raising=False)
    kb = [] if "--kb" in args else ["--kb", str(tmp_path / "kb")]
    result = run("build", en_dir / "2009-07-11.txt", *kb, *args)
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (tmp_path / "kb").exists() and not (tmp_path / "build").exists()
    with pytest.raises(UsageError, match="stages to build: none"):
        build([en_dir / "2009-07-11.txt"], tmp_path / "kb", only=())


def test_any_language_finds_what_one_language_finds(kb):
    # a trial: "morph --kind note" found the French note with --lang fr, nothing without
    for lang in ([], ["--lang", "fr"]):
        result = run("search", "morph", "--kind", "note", "--json", "--kb", kb, *lang)
        assert result.exit_code == 0, result.output
        hits = json.loads(result.output)["hits"]
        assert [(h["edition"], h["number"]) for h in hits][:1] == [("fr/004_99dc3338bd3ea994", "502¶3")], lang
    english = json.loads(run("search", "trample", "--json", "--kb", kb).output)["hits"]
    assert english[0]["edition"].startswith("en/")  # the query's own language first
    # found by the word as typed, it is no translation (a trial: the note printing "morph"
    # was marked as found through the lexicon); found through it ("offering" → Offrande), it is
    asked = {
        q: json.loads(run("search", q, "--kind", "note", "--json", "--kb", kb).output)["hits"]
        for q in ("morph", "offering")
    }
    assert [(h["number"], h["translation"]) for h in asked["morph"]] == [("502¶3", False)]
    assert [(h["number"], h["translation"]) for h in asked["offering"]] == [("¶1", True), ("502¶1", True)]


def test_a_long_number_is_not_taken_for_a_year():
    with pytest.raises(UsageError) as info:
        normalize_number("7" * 50)
    assert "a year?" not in str(info.value) and "a rule is numbered such as 702.19b" in str(info.value)
    with pytest.raises(UsageError, match=r"a year\? an edition is named by its date"):
        normalize_number("2024")


def test_a_word_change_holding_a_quote_is_shown_between_other_quotes():
    # a trial: diff zh/2026-02-27 zh/2026-04-17 -s 702 printed +“具有“于此传纪”
    from comprules.align.changes import WordChange
    from comprules.align.history import _word_change

    assert _word_change(WordChange("insert", "", "具有“于此传纪", 0)) == "+«具有“于此传纪»"
    assert _word_change(WordChange("delete", "于", "", 0)) == "−“于”"
    assert _word_change(WordChange("replace", "“a”", "«b»", 0)) == "「“a”」 → 「«b»」"


def test_show_of_words_names_the_search_that_finds_a_rule_by_them(kb):
    # a trial: `show trample` said only "'trample' is not a rule number"
    for typed, search in (
        ("trample", "comprules search trample"),
        ("Active player", "comprules search 'Active player'"),
    ):
        result = run("show", typed, "--kb", kb)
        said = f"'{typed}' is not a rule number (a number such as 702.19b); to find a rule by its words: {search}"
        assert result.exit_code == 2 and said in result.output, result.output
    result = run("show", "7" * 12, "--kb", kb)  # a number: no search named
    assert result.exit_code == 2 and "comprules search" not in result.output
