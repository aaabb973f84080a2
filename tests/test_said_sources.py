"""Sources that cannot be read, or not whole, are said (issue 23, cases 8 and 9).

A CR cut in the middle is built as a fragment with one warning line naming where it
stops, its contents table not read as rules, and the set's code still names the whole
edition; a rule number printed twice is said by ``build``, not only by ``check``; a
symbolic link in a loop or to nothing, a FIFO and a device are each one true line, in a
folder as when named. Copies of real editions of ``../shared/corpus/en``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

COMPRULES = str(Path(sys.executable).parent / "comprules")


def run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([COMPRULES, *map(str, args)], capture_output=True, text=True, timeout=600)


def test_a_cr_cut_in_the_middle_is_said_and_read_without_its_contents_table(tmp_path, en_dir):
    cut = tmp_path / "M10-cut.txt"
    cut.write_bytes((en_dir / "2009-07-11.txt").read_bytes()[:300_000])
    kb = tmp_path / "kb"
    result = run("build", cut, en_dir / "2009-07-11.txt", "--kb", kb, "--only", "data")
    assert result.returncode == 0, result.stderr
    assert (
        f"warning: {cut}: line 2602: ends before its glossary: an incomplete copy of the edition of 2009-07-11, "
        "kept as a fragment (en/M10-cut)\n"
    ) in result.stderr
    check = run("check", "--edition", "en/M10-cut", "--kb", kb)
    assert "duplicate-number" not in check.stdout  # the contents table is no rule "1" twice
    shown = run("show", "1", "--edition", "M10", "--kb", kb)  # the set's code: the whole edition
    assert shown.returncode == 0 and shown.stdout.startswith("en/2009-07-11\n")


def test_a_rule_number_printed_twice_is_said_by_build(tmp_path, en_dir):
    text = (en_dir / "2026-08-07.txt").read_text(encoding="utf-8")
    at = text.index("\n", text.index("\n702.19b ") + 1)
    source = tmp_path / "2026-08-07.txt"
    source.write_text(text[:at] + "\n\n702.19a Trample, printed twice by mistake." + text[at:], encoding="utf-8")
    result = run("build", source, "--kb", tmp_path / "kb", "--only", "data")
    assert result.returncode == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(f"warning: {source}: line ")
    assert warnings[0].endswith(
        "rule 702.19a appears again (line 4095): kept as 702.19a~2 (en/2026-08-07; comprules check lists every problem)"
    )


def test_links_in_a_loop_fifos_and_devices_are_each_one_true_line(tmp_path, en_dir):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "1999-04-23.txt").write_bytes((en_dir / "1999-04-23.txt").read_bytes())
    os.symlink("loop-b.txt", folder / "loop-a.txt")
    os.symlink("loop-a.txt", folder / "loop-b.txt")
    os.symlink(tmp_path / "gone.txt", folder / "dead.txt")
    os.mkfifo(folder / "pipe.txt")
    result = run("build", folder, "--kb", tmp_path / "kb", "--only", "data")
    assert result.returncode == 2  # built, and some sources failed
    errors = sorted(line for line in result.stderr.splitlines() if line.startswith("error:"))
    assert errors == [
        f"error: {folder / 'dead.txt'}: a symbolic link to {tmp_path / 'gone.txt'}, which does not exist",
        f"error: {folder / 'loop-a.txt'}: a symbolic link in a loop (it points, through other links, back to itself)",
        f"error: {folder / 'loop-b.txt'}: a symbolic link in a loop (it points, through other links, back to itself)",
        f"error: {folder / 'pipe.txt'}: a named pipe (FIFO), not a file: sources are read whole, from regular files",
    ]
    assert "built 1 edition" in result.stdout
    named = run("build", "/dev/zero", folder / "pipe.txt", folder / "loop-a.txt", "--kb", tmp_path / "kb2")
    assert named.returncode == 2
    assert named.stderr.strip().splitlines()[-1] == (
        "comprules: no edition could be built from the sources given: /dev/zero: a device, not a file: "
        "sources are read from regular files (and 2 more)"
    )
    assert not (tmp_path / "kb2").exists()


def test_editions_left_out_of_the_sources_are_said_removed(tmp_path, en_dir):
    kb = tmp_path / "kb"
    sources = [en_dir / f"{d}.txt" for d in ("1999-04-23", "1999-11-01", "2001-09-24", "2002-10-07", "2003-03-15")]
    assert run("build", *sources, "--kb", kb, "--only", "data").returncode == 0
    result = run("build", sources[0], "--kb", kb, "--only", "data")
    assert result.returncode == 0
    assert (
        "warning: 4 editions of the previous build are not among these sources and are removed: en/1999-11-01, "
        "en/2001-09-24, en/2002-10-07 and 1 more (give their sources again to keep them)\n"
    ) in result.stderr
    assert run("editions", "--kb", kb).stdout.count("\n") == 1
    # a trial: the same build again said it once more (data/ kept it among the sources' notices)
    again = run("build", sources[0], "--kb", kb, "--only", "data")
    assert again.returncode == 0 and "nothing changed" in again.stdout and "removed" not in again.stderr


def _limited(max_bytes: int):
    """A child process that may write no file past ``max_bytes`` (RLIMIT_FSIZE: writes
    fail with EFBIG, as on a full disk, SIGXFSZ ignored)."""
    import resource
    import signal

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return limit


def test_a_build_the_disk_stops_ends_in_one_line_and_keeps_the_previous_knowledge_base(tmp_path, en_dir):
    # issue 23, 4: a full disk during the data stage was a segmentation fault, exit 139
    kb = tmp_path / "kb"
    assert run("build", en_dir / "2026-08-07.txt", "--kb", kb, "--only", "data").returncode == 0
    sources = [en_dir / f"{d}.txt" for d in ("2026-08-07", "2026-06-19", "2026-04-17", "2026-02-27")]
    for extra in ([], ["--json"]):
        result = subprocess.run(
            [COMPRULES, "build", *map(str, sources), "--kb", str(kb), "--only", "data", *extra],
            capture_output=True,
            text=True,
            timeout=600,
            preexec_fn=_limited(3_000_000),
        )
        assert result.returncode == 2, result.stderr
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("comprules: writing data/: ")
        assert last.endswith("; stopped: the previous knowledge base is intact"), last
        assert "Traceback" not in result.stderr and "Fatal" not in result.stderr
        if extra:
            assert json.loads(result.stdout)["error"]["message"] == last.removeprefix("comprules: ")
    assert run("editions", "--kb", kb).stdout.startswith("en/2026-08-07 ")
    assert run("show", "702.19b", "--kb", kb).returncode == 0
    assert not list(kb.glob(".build-*"))


def test_a_folder_of_many_one_line_notes_makes_no_alignment_between_them(tmp_path, en_dir):
    # issue 23, 7: 1,000 one-line files made 499,500 alignments, 501,505 files, 2.0 GB
    rules = [
        line
        for line in (en_dir / "2026-08-07.txt").read_text(encoding="utf-8").splitlines()
        if line[:3].isdigit() and "." in line[:6] and len(line) > 40
    ]
    folder = tmp_path / "notes"
    folder.mkdir()
    for k in range(60):
        (folder / f"note-{k:03d}.txt").write_text(rules[k] + "\n", encoding="utf-8")
    kb = tmp_path / "kb"
    result = run("build", folder, "--kb", kb)
    assert result.returncode == 0, result.stderr
    assert not (kb / "data" / "alignments" / "en").exists() or not list((kb / "data" / "alignments" / "en").iterdir())
    files = sum(1 for p in kb.rglob("*") if p.is_file())
    assert files < 60 * 6, files  # a handful per note (300 with the index's sizes.json), not a page per pair
    assert not (kb / "site" / "diff" / "en").exists()
    history = run("history", "100.2", "--edition", "en/note-005", "--kb", kb)
    assert history.returncode == 0 and history.stdout.startswith("100.2: 1 step")


def test_a_build_ends_without_freeing_its_objects_and_still_says_everything_with_its_exit_code(tmp_path, en_dir):
    # cli.entry: the `comprules` command skips the interpreter's teardown after a build
    # (0.8 s of a rebuild); its output, its exit code and the exit functions stay
    kb = tmp_path / "kb"
    bad = tmp_path / "empty.txt"
    bad.write_text("", encoding="utf-8")
    probe = tmp_path / "probe.py"  # an exit function registered where the command runs
    probe.write_text(
        "import atexit, sys\n"
        "marker = sys.argv.pop(1)\n"
        "atexit.register(lambda: open(marker, 'w').write('ran'))\n"
        "class Held:  # freed by the interpreter's teardown only\n"
        "    def __del__(self, _open=open):\n"
        "        _open(marker + '.freed', 'w').write('freed')\n"
        "held = Held()\n"
        "from comprules.cli import entry\n"
        "entry()\n",
        encoding="utf-8",
    )
    marker = tmp_path / "atexit.txt"
    sources = [en_dir / "2026-06-19.txt", en_dir / "2026-08-07.txt", bad]
    result = subprocess.run(
        [sys.executable, str(probe), str(marker), "build", *map(str, sources), "--kb", str(kb), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 2, result.stderr  # a source failed: said by the exit code
    report = json.loads(result.stdout)  # the whole JSON, flushed
    assert report["editions"] == ["en/2026-06-19", "en/2026-08-07"] and len(report["errors"]) == 1
    assert marker.read_text(encoding="utf-8") == "ran"
    assert not Path(f"{marker}.freed").exists()  # the teardown was skipped
    again = run("build", *sources[:2], "--kb", kb)
    assert again.returncode == 0
    assert again.stdout.endswith(f"2 editions ({again.stdout.split('(')[1].split(')')[0]}) into {kb}\n")
    assert again.stdout.count("\n") == 1
    assert run("build", "--kb", kb).returncode == 2  # a usage error ends as before
    # under a profiler the ending is the normal one: the profiler writes its figures
    profile = tmp_path / "build.prof"
    profiled = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "comprules.cli", "build", *map(str, sources[:2])]
        + ["--kb", str(kb)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert profiled.returncode == 0 and profiled.stdout.startswith("nothing changed, kept 2 editions"), profiled
    assert profile.stat().st_size > 10_000
