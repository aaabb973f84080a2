"""Nothing of the user's is touched, signals and output errors end in one line, input is bounded (issue 12).

Each case is one of the issue's reports, on small knowledge bases built from real
editions (``2026-08-07``) or from the fixture edition of ``test_robustness``.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
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
    result = subprocess.run([*CLI, "build", str(en_dir / "2026-08-07.txt"), "--kb", str(kb), "--only", "data"],
                            capture_output=True, text=True, timeout=120)
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


@pytest.mark.parametrize("args", [["export", "en/latest"], ["search", "trample"], ["show", "702.19"],
                                  ["show", "702.19", "--json"]])
def test_output_to_a_full_disk_is_one_line_and_exit_2(small_kb, args):
    with open("/dev/full", "w") as full:
        result = subprocess.run([*CLI, *args, "--kb", str(small_kb)], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr == "comprules: cannot write the output: No space left on device\n"


def test_a_closed_pipe_exits_quietly(small_kb):
    proc = subprocess.Popen([*CLI, "export", "en/latest", "--kb", str(small_kb)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first write, as with `| head -c 0` or `| true`
    _, err = proc.communicate(timeout=120)
    assert err == b""
    assert proc.returncode == 2


def test_an_oserror_of_the_library_is_one_line_and_exit_2(small_kb, tmp_path, monkeypatch):
    import comprules.export as export

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(export, "write_output", full)
    result = run("export", "en/2026-08-07", "--kb", small_kb, "-o", tmp_path / "x.json")
    assert result.exit_code == 2
    assert result.output == "comprules: No space left on device\n"
