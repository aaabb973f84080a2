"""Nothing of the user's is touched, signals and output errors end in one line, input is bounded (issue 12).

Each case is one of the issue's reports, on small knowledge bases built from real
editions (``2026-08-07``) or from the fixture edition of ``test_robustness``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from comprules.build import MARKER, build
from comprules.cli import main
from comprules.errors import UsageError

CLI = [sys.executable, "-m", "comprules.cli"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory, en_dir):
    """data/ and index/ of 2026-08-07 alone (no site: fast)."""
    kb = tmp_path_factory.mktemp("small") / "kb"
    build([en_dir / "2026-08-07.txt"], kb, only=("data", "index"))
    return kb


# ---------------------------------------------------------------------------
# 2. Never touch what comprules did not write


def test_build_on_a_folder_that_is_not_a_knowledge_base_is_refused_and_nothing_moves(tmp_path, en_dir):
    kb = tmp_path / "mine"
    (kb / "data").mkdir(parents=True)
    (kb / "data" / "important.txt").write_text("keep me")
    (kb / "index").mkdir()
    (kb / "index" / "notes.md").write_text("mine too")
    (kb / "site").mkdir()
    before = sorted(str(p.relative_to(kb)) for p in kb.rglob("*"))
    result = subprocess.run(
        [*CLI, "build", str(en_dir / "2026-08-07.txt"), "--kb", str(kb), "--only", "data"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and str(kb) in result.stderr
    assert "not a comprules knowledge base" in result.stderr
    assert sorted(str(p.relative_to(kb)) for p in kb.rglob("*")) == before
    assert (kb / "data" / "important.txt").read_text() == "keep me"


def test_the_first_build_writes_the_marker_and_the_next_build_accepts_the_folder(tmp_path, en_dir):
    kb = tmp_path / "kb"
    build([en_dir / "1999-04-23.txt"], kb, only=("data",))
    assert (kb / MARKER).is_file()
    build([en_dir / "1999-11-01.txt"], kb, only=("data",))
    assert sorted(p.name for p in (kb / "data" / "en").iterdir()) == ["1999-11-01.json"]


def test_an_empty_folder_is_accepted_and_a_file_as_kb_is_refused(tmp_path, en_dir):
    empty = tmp_path / "empty"
    empty.mkdir()
    build([en_dir / "1999-04-23.txt"], empty, only=("data",))
    assert (empty / "data" / "en" / "1999-04-23.json").is_file()
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(UsageError, match="is a file"):
        build([en_dir / "1999-04-23.txt"], afile, only=("data",))
    assert afile.read_text() == "x"


def test_export_to_a_symlink_is_refused_and_its_target_untouched(small_kb, tmp_path):
    target = tmp_path / "target.json"
    target.write_text("precious")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", link)
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert result.output.count("\n") == 1
    assert link.is_symlink() and target.read_text() == "precious"


def test_export_to_a_fifo_is_refused_without_blocking(small_kb, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", fifo)
    assert result.exit_code == 2 and "FIFO" in result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_export_to_a_device_is_refused_and_the_device_stays(small_kb, tmp_path):
    # A device node of the test's own (the same as /dev/full): a failing run must not
    # replace the machine's /dev/full, as the unfixed export did when run as root.
    device = tmp_path / "full"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", device)
    assert result.exit_code == 2 and "device" in result.output
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_export_into_a_missing_folder_is_refused_and_creates_nothing(small_kb, tmp_path):
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", tmp_path / "no" / "such" / "x.json")
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not (tmp_path / "no").exists()


def test_export_to_a_regular_file_replaces_it_atomically_and_keeps_its_mode(small_kb, tmp_path):
    out = tmp_path / "x.json"
    out.write_text("old")
    out.chmod(0o600)
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", out)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["edition"]["effective"] == "2026-08-07"
    assert out.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


# ---------------------------------------------------------------------------
# 3. Output errors: one line, exit 2; a closed pipe is quiet


@pytest.mark.parametrize(
    "args", [["export", "en/latest"], ["search", "trample"], ["show", "702.19"], ["show", "702.19", "--json"]]
)
def test_output_to_a_full_disk_is_one_line_and_exit_2(small_kb, args):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*CLI, *args, "--kb", str(small_kb)], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr == "comprules: cannot write the output: No space left on device\n"


def test_a_closed_pipe_exits_quietly(small_kb):
    proc = subprocess.Popen(
        [*CLI, "export", "en/latest", "--kb", str(small_kb)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader is gone before the first write, as with `| head -c 0` or `| true`
    _, err = proc.communicate(timeout=120)
    assert err == b""
    assert proc.returncode == 0  # the command's own code (docs/guide.md, "Exit codes"); tests/test_cli_fixes.py


def test_an_oserror_of_the_library_is_one_line_and_exit_2(small_kb, tmp_path, monkeypatch):
    import comprules.export as export

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(export, "write_output", full)
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", tmp_path / "x.json")
    assert result.exit_code == 2
    assert result.output == "comprules: No space left on device\n"


# ---------------------------------------------------------------------------
# 4. Bounds and the shape of a CR text


def _edition_with_a_long_line(path: Path, length: int) -> None:
    path.write_text(
        "Magic Rules\n\nThese rules are effective as of June 1, 2030.\n\n100. General\n\n"
        f"100.1. A rule {'x' * length}.\n\nGlossary\n\nTerm\nA term.\n",
        encoding="utf-8",
    )


def test_a_line_longer_than_the_limit_is_refused_naming_file_and_line_before_parsing(tmp_path):
    source = tmp_path / "long.txt"
    _edition_with_a_long_line(source, 20_000_000)
    # The command, saying its own peak memory as it exits (VmHWM: of this program, not of the
    # forked test process it started from, which getrusage would report).
    peak = (
        "import atexit, sys; from comprules.cli import main; atexit.register(lambda: sys.stderr.write("
        "next(l for l in open('/proc/self/status') if l.startswith('VmHWM')))); "
        "main(sys.argv[1:], prog_name='comprules')"
    )
    result = subprocess.run(
        [sys.executable, "-c", peak, "build", str(source), "--kb", str(tmp_path / "kb"), "--only", "data"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
    assert (
        f"{source}: line 7: line of 20,000,015 characters, longer than the limit of 1,000,000 "
        "(--max-line-length): not parsed"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    # refused before the memory is spent: the 20 MB text, decoded once, and the interpreter
    (hwm,) = [int(line.split()[1]) for line in result.stderr.splitlines() if line.startswith("VmHWM")]
    assert hwm < 400_000  # KiB


def test_the_line_limit_is_an_option(tmp_path):
    source = tmp_path / "long.txt"
    _edition_with_a_long_line(source, 1_500_000)
    refused = run("build", source, "--kb", tmp_path / "kb", "--only", "data")
    assert refused.exit_code == 2 and "line 7: line of 1,500,015 characters" in refused.output
    built = run("build", source, "--kb", tmp_path / "kb", "--only", "data", "--max-line-length", "2M")
    assert built.exit_code == 0, built.output
    assert (tmp_path / "kb" / "data" / "en" / "2030-06-01.json").is_file()


def test_a_source_larger_than_the_limit_is_refused_without_being_read(tmp_path, en_dir):
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(60_000_000)  # sparse: refused on its size alone
    result = run("check", big)
    assert result.exit_code == 2
    assert (
        f"{big}: 60,000,000 bytes, larger than the limit of 50,000,000 (--max-source-size): not parsed" in result.output
    )
    small = run(
        "build", en_dir / "2026-08-07.txt", "--kb", tmp_path / "kb", "--only", "data", "--max-source-size", "100K"
    )
    assert small.exit_code == 2 and "larger than the limit of 100,000" in small.output


@pytest.mark.parametrize("command", ["export", "check"])
def test_a_text_with_no_cr_shape_is_refused(command, tmp_path):
    result = run(command, "/etc/passwd")
    assert result.exit_code == 2
    assert (
        "/etc/passwd: line 1: not a Comprehensive Rules text: no rule number, and no heading or glossary term "
        "of the lexicon"
    ) in result.output
    assert "en/passwd" not in result.output


def test_rulebook_headings_without_numbers_and_chinese_rules_keep_their_cr_shape(seeds_dir, corpus_dir):
    from comprules.corpus import parse_file

    rulebook = parse_file(seeds_dir / "003_816c607ad111474a.txt")  # "Peur", "Vol": no rule number at all
    assert not [r for r in rulebook.rules if r.kind in ("section", "rule", "subrule")]
    assert {"Peur", "Vol"} <= {g.term for g in rulebook.glossary}
    chinese = parse_file(corpus_dir / "zh" / "2026-04-17.txt")  # 此规则于2026年4月17日起生效: same digits
    assert chinese.get("702.37a") is not None and len(chinese.numbered()) > 3000


def test_a_folder_holding_only_folders_says_so_and_names_them(tmp_path, corpus_dir):
    result = run("build", corpus_dir, "--kb", tmp_path / "kb")
    assert result.exit_code == 2
    assert result.output.count("comprules:") == 1
    assert (
        f"comprules: no edition could be built from the sources given: {corpus_dir}: no .txt, .pdf or .docx "
        "file in this folder, 1 other file and the folders: en, formats, metadata, raw, zh"
    ) in result.output
    only = tmp_path / "only"
    (only / "a").mkdir(parents=True)
    (only / "b").mkdir()
    assert "only folders: a, b" in run("build", only, "--kb", tmp_path / "kb2").output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert f"{empty}: empty folder, no source file in it" in run("build", empty, "--kb", tmp_path / "kb3").output


# ---------------------------------------------------------------------------
# 5. No-op and incremental rebuilds


@pytest.fixture()
def three_editions(tmp_path, en_dir, seeds_dir):
    """Copies of 1999-04-23, 1999-11-01, 2001-09-24 and seed 002, in a folder of the test's own."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("1999-04-23.txt", "1999-11-01.txt", "2001-09-24.txt"):
        shutil.copy(en_dir / name, src / name)
    shutil.copy(seeds_dir / "002_89b48a7ac2467f84.txt", src / "002_89b48a7ac2467f84.txt")
    return src


def _inodes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def test_a_rebuild_with_nothing_changed_keeps_every_output_without_parsing(three_editions, tmp_path, monkeypatch):
    kb = tmp_path / "kb"
    first = build([three_editions], kb)
    assert first.kept == [] and len(first.editions) == 4
    before = {part: _inodes(kb / part) for part in ("data", "site")}
    index = os.readlink(kb / "index")

    def no_parsing(*args, **kwargs):
        raise AssertionError("nothing should be parsed")

    monkeypatch.setattr("comprules.corpus.load.parse_file", no_parsing)
    again = build([three_editions], kb)
    assert again.kept == ["data", "index", "site"] and again.editions == [] and again.written == []
    assert again.names == [e.name for e in first.editions] and again.rules == first.rules
    assert {part: _inodes(kb / part) for part in ("data", "site")} == before  # not a file rewritten
    assert os.readlink(kb / "index") == index
    result = run("build", three_editions, "--kb", kb)
    assert result.exit_code == 0
    assert f"nothing changed, kept 4 editions ({first.rules} rules) into {kb}" in result.output


def test_one_changed_edition_rewrites_only_what_depends_on_it(three_editions, tmp_path):
    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    before = _inodes(kb / "data")
    changed = three_editions / "1999-11-01.txt"
    changed.write_text(
        changed.read_text(encoding="utf-8").replace(
            "assume a game between two players", "assume a game between two or more players"
        ),
        encoding="utf-8",
    )
    said: list[str] = []
    report = build([three_editions], kb, only=("data",), progress=said.append)
    fragment = "fr/002_89b48a7ac2467f84"
    # the references of only the editions whose rows are written anew are resolved; the
    # others' counts come from the last build's database, equal to a build from scratch
    assert any(line.startswith("resolved references of 2 editions (") for line in said), said
    scratch = build([three_editions], tmp_path / "scratch", only=("data",))
    assert report.dangling == scratch.dangling and sum(report.dangling.values()) > 0
    assert sorted(report.written) == sorted(
        [
            "en/1999-11-01.json",
            "graph/en/1999-11-01.json",
            f"{fragment}.json",
            f"graph/{fragment}.json",  # its citations resolve in an English edition it picks
            "graph.graphml",
        ]
    )
    after = _inodes(kb / "data")
    same = {k for k in after if before.get(k) == after[k]}
    assert {
        "en/1999-04-23.json",
        "en/2001-09-24.json",
        "graph/en/1999-04-23.json",
        "alignments/en/1999-04-23..1999-11-01.json",
    } - same == {"alignments/en/1999-04-23..1999-11-01.json"}
    assert "alignments/en/1999-11-01..2001-09-24.json" not in same
    data = json.loads((kb / "data" / "en" / "1999-11-01.json").read_text(encoding="utf-8"))
    assert "two or more players" in next(r["text"] for r in data["rules"] if r["number"] == "100.1")
    # the GraphML: the parts of the two editions written anew, the others' copied; as from scratch
    graphml = (kb / "data" / "graph.graphml").read_bytes()
    assert graphml == (tmp_path / "scratch" / "data" / "graph.graphml").read_bytes()
    # the alignments: those of two unchanged editions linked from the last build, the others written
    exports = {p.relative_to(kb / "data") for p in (kb / "data" / "alignments").rglob("*.json")}
    assert exports == {
        p.relative_to(tmp_path / "scratch" / "data")
        for p in (tmp_path / "scratch" / "data" / "alignments").rglob("*.json")
    }
    for rel in exports:
        assert (kb / "data" / rel).read_bytes() == (tmp_path / "scratch" / "data" / rel).read_bytes(), rel
    record = ".graph.graphml.parts.json"
    assert (kb / "data" / record).read_bytes() == (tmp_path / "scratch" / "data" / record).read_bytes()


def test_a_rebuild_parses_only_the_changed_source_and_takes_the_others_as_parsed_before(
    three_editions, tmp_path, monkeypatch
):
    from comprules.corpus import load as load_module
    from comprules.corpus.load import load_sources

    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    kept = sorted((kb / ".parsed").iterdir())  # the three editions; the seed (3 KB) parses faster than it loads
    assert len(kept) == 3 and all(p.suffix == ".pickle" for p in kept)
    changed = three_editions / "2001-09-24.txt"
    changed.write_text(changed.read_text(encoding="utf-8").replace("two players", "two or more players", 1), "utf-8")
    (kb / ".parsed" / "notes.txt").write_text("mine", encoding="utf-8")  # not a name the cache writes
    parsed: list[str] = []
    real = load_module.parse_file

    def counted(path, *args, **kwargs):
        parsed.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(load_module, "parse_file", counted)
    report = build([three_editions], kb, only=("data",))
    assert sorted(parsed) == ["002_89b48a7ac2467f84.txt", "2001-09-24.txt"]
    # what the others were taken as is what parsing them gives
    monkeypatch.setattr(load_module, "parse_file", real)
    fresh = {e.name: e for e in load_sources([three_editions]).editions}
    assert {e.name: e for e in report.editions} == fresh
    assert "two or more players" in next(r.text for r in fresh["en/2001-09-24"].rules if r.number == "100.1")
    # the old parse of the changed file is gone, a file of the user's stays
    assert len(list((kb / ".parsed").glob("*.pickle"))) == 3
    assert (kb / ".parsed" / "notes.txt").read_text(encoding="utf-8") == "mine"
    # a kept file that cannot be read back is parsed again, and written anew
    for p in (kb / ".parsed").glob("*.pickle"):
        p.write_bytes(b"not a pickle")
    changed.write_text(changed.read_text(encoding="utf-8").replace("two or more players", "two players", 1), "utf-8")
    monkeypatch.setattr(load_module, "parse_file", counted)
    parsed.clear()
    again = build([three_editions], kb, only=("data",))
    assert sorted(parsed) == ["002_89b48a7ac2467f84.txt", "1999-04-23.txt", "1999-11-01.txt", "2001-09-24.txt"]
    assert len(again.editions) == 4
    from comprules.corpus.cache import MAGIC

    # the three rewritten; the old key's damaged file is no longer known to be the build's: left
    contents = sorted(p.read_bytes()[: len(MAGIC)] for p in (kb / ".parsed").glob("*.pickle"))
    assert contents == sorted([b"not a pickle", MAGIC, MAGIC, MAGIC])
    # a disk too full to keep them: the build goes on, and leaves no half-written file
    shutil.rmtree(kb / ".parsed")
    real_mkstemp = tempfile.mkstemp

    def full(*args, **kwargs):  # the file is made; writing into it fails as on a full disk
        fd, name = real_mkstemp(*args, **kwargs)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr("comprules.corpus.cache.mkstemp", full)
    changed.write_text(changed.read_text(encoding="utf-8").replace("two players", "two or more players", 1), "utf-8")
    assert len(build([three_editions], kb, only=("data",)).editions) == 4
    assert list((kb / ".parsed").iterdir()) == []


def _parsed(kb: Path) -> dict[str, Path]:
    """The kept parse of each source of ``kb`` (by the edition's file name), read back."""
    import pickle

    from comprules.corpus.cache import MAGIC

    out = {}
    for path in (kb / ".parsed").glob("*.pickle"):
        edition = pickle.loads(path.read_bytes()[len(MAGIC) + 32 :])
        out[Path(edition.source).name] = path
    return out


def test_a_kept_parse_that_is_not_the_source_s_is_never_used(three_editions, tmp_path):
    from comprules.corpus.load import load_sources

    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    kept = _parsed(kb)
    assert sorted(kept) == ["1999-04-23.txt", "1999-11-01.txt", "2001-09-24.txt"]
    # another edition's file under this one's key (copied by hand, or a mix-up): a miss
    shutil.copy(kept["1999-04-23.txt"], kb / ".parsed" / "saved.bin")
    shutil.copy(kept["1999-11-01.txt"], kept["1999-04-23.txt"])
    # a byte changed inside a kept file that still reads as a pickle: a miss
    damaged = bytearray(kept["2001-09-24.txt"].read_bytes())
    at = damaged.index(b"assume a game between two players")
    damaged[at : at + 6] = b"ASSUME"
    kept["2001-09-24.txt"].write_bytes(bytes(damaged))
    _edit(three_editions / "1999-11-01.txt", "assume a game between two players", "assume a game between 2 players")
    report = build([three_editions], kb, only=("data",))
    by_name = {e.name: e for e in report.editions}
    assert sorted(by_name) == ["en/1999-04-23", "en/1999-11-01", "en/2001-09-24", "fr/002_89b48a7ac2467f84"]
    assert by_name == {e.name: e for e in load_sources([three_editions]).editions}  # each its own source's
    assert "between 2 players" in next(r.text for r in by_name["en/1999-11-01"].rules if r.number == "100.1")
    assert "ASSUME" not in next(r.text for r in by_name["en/2001-09-24"].rules if r.number == "100.1")
    assert not any("two sources" in n or "removed" in n for n in report.notices)
    # the files the build keeps are its own again; a file of the user's named like one is not deleted
    assert sorted(_parsed(kb)) == ["1999-04-23.txt", "1999-11-01.txt", "2001-09-24.txt"]
    assert (kb / ".parsed" / "saved.bin").is_file()
    from comprules.corpus.cache import MAGIC

    mine = {
        "deadbeef.pickle": b"my own notes",
        ".cafe.notes.tmp": b"mine too",
        "beef.pickle": MAGIC + b"my notes, headed as the build's",
        "abcdef.pickle": _parsed(kb)["1999-04-23.txt"].read_bytes(),  # a copy of a kept file, under another name
    }
    for name, data in mine.items():
        (kb / ".parsed" / name).write_bytes(data)
    _edit(three_editions / "1999-11-01.txt", "between 2 players", "between two players")
    build([three_editions], kb, only=("data",))
    assert {name: (kb / ".parsed" / name).read_bytes() for name in mine} == mine


def test_a_parse_cache_folder_that_is_a_link_or_holds_a_pipe_is_not_followed_or_waited_on(three_editions, tmp_path):
    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    key = sorted(_parsed(kb).items())[0][1].name
    # a named pipe in place of a kept file: a miss, parsed again, not a build that waits forever
    (kb / ".parsed" / key).unlink()
    os.mkfifo(kb / ".parsed" / key)
    _edit(three_editions / "2001-09-24.txt", "assume a game between two players", "assume a game between 2 players")
    assert len(build([three_editions], kb, only=("data",)).editions) == 4
    # a file of 200 MB (sparse) in place of a kept one: a miss, not read into memory
    big = sorted(_parsed(kb).items())[0][1]
    os.truncate(big, 200 * 1024 * 1024)
    _edit(three_editions / "2001-09-24.txt", "assume a game between 2 players", "assume a game between 3 players")
    report = build([three_editions], kb, only=("data",))
    assert len(report.editions) == 4 and big.stat().st_size < 10_000_000  # parsed again, kept anew
    _edit(three_editions / "2001-09-24.txt", "assume a game between 3 players", "assume a game between 2 players")
    # .parsed a link to a folder elsewhere: nothing read, written or deleted there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "aa.pickle").write_bytes(b"not the build's")
    shutil.rmtree(kb / ".parsed")
    (kb / ".parsed").symlink_to(elsewhere, target_is_directory=True)
    _edit(three_editions / "2001-09-24.txt", "assume a game between 2 players", "assume a game between two players")
    assert len(build([three_editions], kb, only=("data",)).editions) == 4
    assert sorted(p.name for p in elsewhere.iterdir()) == ["aa.pickle"]


def test_a_document_is_scored_again_only_against_the_english_edition_that_changed(
    three_editions, tmp_path, monkeypatch
):
    """The era of seed 002 is chosen among the three English editions by a score against
    each (none of 1999–2001 is of its era: it is paired with none); the scores are kept
    with the knowledge base (``.stamps.json``), so that a build after one English edition
    changed computes one score, not three, and chooses as a build from scratch does."""
    from comprules.align import crosslang

    computed: list[str] = []
    score = crosslang._era_score
    monkeypatch.setattr(crosslang, "_era_score", lambda fr, en: computed.append(en.edition.name) or score(fr, en))
    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    assert sorted(computed) == ["en/1999-04-23", "en/1999-11-01", "en/2001-09-24"]
    kept = json.loads((kb / ".stamps.json").read_text(encoding="utf-8"))["eras"]["scores"]
    assert len(kept) == 3 and all(0 <= v <= 1 for v in kept.values())
    computed.clear()
    _edit(
        three_editions / "1999-11-01.txt",
        "assume a game between two players",
        "assume a game between two or more players",
    )
    build([three_editions], kb, only=("data",))
    assert computed == ["en/1999-11-01"]
    computed.clear()
    build([three_editions], tmp_path / "scratch", only=("data",))
    assert len(computed) == 3

    def kept_of(root: Path) -> tuple[dict, dict]:
        scores = json.loads((root / ".stamps.json").read_text(encoding="utf-8"))["eras"]["scores"]
        index = json.loads((root / "data" / "alignments" / "index.json").read_text(encoding="utf-8"))
        return scores, index["crosslang"]

    assert kept_of(kb) == kept_of(tmp_path / "scratch")  # the same scores, the same choice
    # a file edited by hand: a score out of [0, 1], or not a number, is scored again
    stamps = json.loads((kb / ".stamps.json").read_text(encoding="utf-8"))
    scores = stamps["eras"]["scores"]
    for name, bad in (("1999-04-23.txt", float("nan")), ("1999-11-01.txt", "0.5")):
        sha = hashlib.sha256((three_editions / name).read_bytes()).hexdigest()
        (key,) = [k for k in scores if k.endswith(" " + sha)]
        scores[key] = bad
    (kb / ".stamps.json").write_text(json.dumps(stamps), encoding="utf-8")
    computed.clear()
    _edit(
        three_editions / "2001-09-24.txt",
        "assume a game between two players",
        "assume a game between two or more players",
    )
    build([three_editions], kb, only=("data",))
    assert sorted(computed) == ["en/1999-04-23", "en/1999-11-01", "en/2001-09-24"]
    scores = kept_of(kb)[0]
    assert len(scores) == 3 and all(isinstance(v, float) and 0 <= v <= 1 for v in scores.values())


def _site_files(site: Path) -> dict[str, bytes]:
    """Every file of a site and its bytes, its own records (dot files) included."""
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# The site without the search index: an index updated in place numbers the changed
# edition's documents after the others, and its search data (search/, the zips) keeps
# that order (docs/measurements.md, "Pages kept by task"); the pages do not depend on it.
SITE_ONLY = ("data", "site")


@pytest.mark.parametrize(
    "changed, kept, rendered",
    [
        # the latest edition: the two before it and their bulletin are kept
        (
            "2001-09-24.txt",
            ["en/1999-04-23/", "en/1999-11-01/", "diff/en/1999-04-23..1999-11-01/"],
            ["en/2001-09-24/100.html", "diff/en/1999-11-01..2001-09-24/index.html", "history/en/100.1.html"],
        ),
        # the middle one: the first edition's pages are kept (where its rules are now is the same)
        (
            "1999-11-01.txt",
            ["en/1999-04-23/"],
            ["en/1999-11-01/100.html", "en/2001-09-24/index.html", "diff/en/1999-04-23..1999-11-01/index.html"],
        ),
    ],
)
def test_a_rebuild_renders_again_only_the_pages_whose_inputs_changed(three_editions, tmp_path, changed, kept, rendered):
    kb, scratch = tmp_path / "kb", tmp_path / "scratch"
    build([three_editions], kb, only=SITE_ONLY)
    before = _inodes(kb / "site")
    record = json.loads((kb / "site" / ".tasks.json").read_text(encoding="utf-8"))
    assert {"edition/en/1999-04-23", "diff/en/1999-04-23/en/1999-11-01", "history/en/0/200"} <= set(record["tasks"])
    assert record["tasks"]["edition/en/1999-04-23"]["files"]["en/1999-04-23/100.html"] > 1000
    _edit(three_editions / changed, "assume a game between two players", "assume a game between two or more players")
    build([three_editions], kb, only=SITE_ONLY)
    build([three_editions], scratch, only=SITE_ONLY)
    ours, theirs = _site_files(kb / "site"), _site_files(scratch / "site")
    assert sorted(ours) == sorted(theirs)
    assert [k for k in ours if ours[k] != theirs[k]] == []  # byte for byte, .tasks.json too
    # the service worker's list of files: the digests the tasks recorded, as reading every file gives them
    from comprules.site.offline import build_info

    worker = ours["sw.js"].decode("utf-8")
    told = json.loads(worker[len("self.CR_BUILD=") : worker.index(";\n")])
    index = json.loads((kb / "data" / "alignments" / "index.json").read_text(encoding="utf-8"))
    eras = [row["new"] for row in index["crosslang"] if row["old"] == "fr/002_89b48a7ac2467f84"]
    assert "goto/fr/002_89b48a7ac2467f84.js" in {path for path, _ in told["files"]}  # its go-to words
    assert told == build_info(kb / "site", {"en": "en/2001-09-24"}, ["fr/002_89b48a7ac2467f84"], eras=eras)
    assert len(told["files"]) > 80
    after = _inodes(kb / "site")
    same = {k for k in after if before.get(k) == after[k]}
    for folder in kept:
        pages = [k for k in after if k.startswith(folder)]
        assert len(pages) > 20 and set(pages) <= same, folder
    assert [k for k in rendered if k in same] == []
    assert "or more</ins> players" in ours["history/en/100.1.html"].decode()  # the step the edit made


def test_the_site_a_build_renders_with_the_alignments_it_stored_is_the_one_read_back_from_the_database(
    three_editions, tmp_path, monkeypatch
):
    from comprules.align.lineage import Lineage
    from comprules.store import Store

    kb = tmp_path / "kb"
    read: list[tuple[str, str]] = []
    real = Store.alignment
    made: list[int] = []
    real_build = Lineage.build.__func__

    def counted(self, old, new, *args, **kwargs):
        read.append((old, new))
        return real(self, old, new, *args, **kwargs)

    def counted_build(cls, editions, alignments):
        made.append(len(editions))
        return real_build(cls, editions, alignments)

    monkeypatch.setattr(Store, "alignment", counted)
    monkeypatch.setattr(Lineage, "build", classmethod(counted_build))
    build([three_editions], kb, only=SITE_ONLY)
    # the data stage hands its alignments to the site: at most a French document's pair
    # with its English edition (its compare page) is read back; and the lineage it made of
    # them, not made again
    assert all(old.startswith("fr/") and new.startswith("en/") for old, new in read), read
    assert len(made) == 1, made  # the data stage's
    handed = _site_files(kb / "site")
    shutil.rmtree(kb / "site")
    read.clear()
    made.clear()
    build([three_editions], kb, only=("site",))  # data/ kept: the site reads every alignment back
    assert {("en/1999-04-23", "en/1999-11-01"), ("en/1999-11-01", "en/2001-09-24")} <= set(read)
    assert len(made) == 1  # the site makes the lineage of them
    again = _site_files(kb / "site")
    assert sorted(again) == sorted(handed) and len(again) > 300
    assert [k for k in again if again[k] != handed[k]] == []  # byte for byte, its fingerprint too


def test_the_index_links_the_same_versions_from_the_alignments_handed_over_as_from_their_files(
    three_editions, tmp_path
):
    from comprules.corpus.load import load_sources
    from comprules.indexer import build_index
    from comprules.indexer.lineage import alignment_links
    from comprules.indexer.table import DocTable
    from comprules.store import Store

    kb = tmp_path / "kb"
    build([three_editions], kb, only=("data",))
    folder = kb / "data" / "alignments"
    editions = load_sources([three_editions]).editions
    stats = build_index(editions, tmp_path / "index", alignments=folder)
    table = DocTable.load(Path(os.path.realpath(stats.index_dir)))
    pairs = json.loads((folder / "index.json").read_text(encoding="utf-8"))["pairs"]
    store = Store(kb / "data" / "comprules.sqlite")
    try:
        held = {(p["old"], p["new"]): store.alignment(p["old"], p["new"]) for p in pairs}
    finally:
        store.close()
    assert ("en/1999-04-23", "en/1999-11-01") in held and all(held.values())
    from_files = list(alignment_links(folder, table))
    assert len(from_files) > 800  # rules kept, edited or renumbered that are distinct documents
    assert list(alignment_links(folder, table, held)) == from_files


def test_a_rebuild_writes_the_zip_as_from_scratch_and_mends_its_pages_only_when_its_edition_changed(
    three_editions, tmp_path, monkeypatch
):
    from comprules.site import bundle

    kb = tmp_path / "kb"
    build([three_editions], kb)
    zips = sorted((kb / "site" / "download" / "en").glob("*.zip"))
    assert [z.name for z in zips] == ["2001-09-24.zip"]  # the latest edition's; the server makes the others
    log = tmp_path / "mended.txt"  # the zips are written in forked workers: they say it in a file
    log.touch()
    real = bundle._mended

    def mended(name, *args):
        with log.open("a", encoding="utf-8") as f:
            f.write(name + "\n")
        return real(name, *args)

    monkeypatch.setattr(bundle, "_mended", mended)
    # another edition changed: the latest's search data moves (the index-wide idf), its pages
    # are taken from the previous zip, compressed
    _edit(three_editions / "1999-11-01.txt", "assume a game between two players", "assume a game of two players")
    build([three_editions], kb)
    assert log.read_text(encoding="utf-8").split() == []
    assert zips[0].read_bytes() == bundle.bundle(kb / "site", kb / "index", "en/2001-09-24")  # as from scratch
    _edit(three_editions / "2001-09-24.txt", "assume a game between two players", "assume a game of two players")
    build([three_editions], kb)
    assert log.read_text(encoding="utf-8").split() == ["en/2001-09-24", "en/2001-09-24"]  # ours above, then the build's
    assert zips[0].read_bytes() == bundle.bundle(kb / "site", kb / "index", "en/2001-09-24")
    archive = zipfile.ZipFile(zips[0])
    assert "of two players" in archive.read("comprules-en-2001-09-24/en/2001-09-24/100.html").decode()
    assert archive.comment.startswith(b"comprules ") and archive.testzip() is None


def test_a_kept_page_changed_since_the_record_is_rendered_again(three_editions, tmp_path):
    kb = tmp_path / "kb"
    build([three_editions], kb, only=SITE_ONLY)
    page = kb / "site" / "en" / "1999-04-23" / "100.html"
    original = page.read_bytes()
    page.write_bytes(original.replace(b"</main>", b"<p>a note of mine</p></main>"))
    other = kb / "site" / "en" / "1999-04-23" / "101.html"
    other_inode = other.stat().st_ino
    _edit(three_editions / "2001-09-24.txt", "assume a game between two players", "assume a game of two players")
    build([three_editions], kb, only=SITE_ONLY)
    assert page.read_bytes() == original  # its task rendered again, not linked
    assert other.stat().st_ino != other_inode


def test_a_forked_worker_dies_of_sigterm_as_before_instead_of_raising():
    # The site's page-rendering pool is terminated with SIGTERM to each worker; a worker,
    # forked while a command runs, must not take the command's handler as its own (it printed
    # "Process ForkPoolWorker-1: Traceback … Interrupted" at the end of every full build).
    import time

    from comprules.cli import _signals

    with _signals():
        pid = os.fork()
        if pid == 0:  # the worker
            try:
                time.sleep(30)
            except BaseException:
                os._exit(3)  # raised instead of dying
            os._exit(0)
        time.sleep(0.2)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
