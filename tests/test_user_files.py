"""No file of the user's lost in any corner (issue 23, cases 1, 2, 3 and 5).

A knowledge base never deletes a file it did not write: an unmarked folder is adopted
only when every file of its ``data/``, ``site/`` and ``index/`` is a build's; inside a
marked one, a rebuild moves the user's files of ``data/`` and ``site/`` into the new
ones; ``export`` never writes over its own source; a build killed with SIGKILL leaves
no worker behind holding the lock. Real editions of ``../shared/corpus/en``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from comprules.build import MARKER, build
from comprules.errors import UsageError

CLI = [sys.executable, "-m", "comprules.cli"]


def run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=600)


def test_an_unmarked_folder_whose_site_or_index_holds_a_users_file_is_refused_untouched(tmp_path, en_dir):
    k0 = tmp_path / "k0"
    build([en_dir / "1999-04-23.txt"], k0, only=("data",))
    u = tmp_path / "u"
    u.mkdir()
    shutil.copytree(k0 / "data", u / "data")
    (u / "site").mkdir()
    (u / "index").mkdir()
    (u / "site" / "mypage.html").write_text("x\n")
    (u / "index" / "notes.txt").write_text("y\n")
    before = sorted(str(p.relative_to(u)) for p in u.rglob("*"))
    with pytest.raises(UsageError, match=r"is not a comprules knowledge base .* holds site/ "):
        build([en_dir / "1999-04-23.txt", en_dir / "1999-11-01.txt"], u)
    assert sorted(str(p.relative_to(u)) for p in u.rglob("*")) == before
    assert (u / "site" / "mypage.html").read_text() == "x\n" and (u / "index" / "notes.txt").read_text() == "y\n"
    shutil.rmtree(u / "site")
    with pytest.raises(UsageError, match=r"holds index/ \(not a link to an index generation\)"):
        build([en_dir / "1999-04-23.txt"], u)
    assert (u / "index" / "notes.txt").read_text() == "y\n" and not (u / MARKER).exists()


def test_a_folder_holding_only_a_users_stamps_file_is_not_taken_for_a_knowledge_base(tmp_path, en_dir):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / ".stamps.json").write_text('{"my": "settings"}\n')
    with pytest.raises(UsageError, match=r"holds \.stamps\.json, which comprules did not write"):
        build([en_dir / "1999-04-23.txt"], mine, only=("data",))
    assert [p.name for p in mine.iterdir()] == [".stamps.json"]
    assert (mine / ".stamps.json").read_text() == '{"my": "settings"}\n'


def test_a_rebuild_moves_the_users_files_of_data_and_site_into_the_new_ones(tmp_path, en_dir):
    kb = tmp_path / "kb"
    build([en_dir / "1999-04-23.txt"], kb, only=("data", "site"))
    (kb / "data" / "mine.csv").write_text("a,b\n")
    (kb / "site" / "custom.css").write_text("body { color: teal }\n")
    (kb / "site" / "notes").mkdir()
    (kb / "site" / "notes" / "todo.md").write_text("- read 702\n")
    report = build([en_dir / "1999-04-23.txt", en_dir / "1999-11-01.txt"], kb, only=("data", "site"))
    assert report.names == ["en/1999-04-23", "en/1999-11-01"]
    assert sorted(report.kept_files) == ["data/mine.csv", "site/custom.css", "site/notes/todo.md"]
    assert (kb / "data" / "mine.csv").read_text() == "a,b\n"
    assert (kb / "site" / "custom.css").read_text() == "body { color: teal }\n"
    assert (kb / "site" / "notes" / "todo.md").read_text() == "- read 702\n"
    assert (kb / "site" / "en" / "1999-11-01").is_dir()  # the new site, with them
    # a file of the user's where the build writes one of that name goes beside it
    (kb / "site" / "feed.xml").unlink()
    (kb / "site" / "feed.xml").write_text("my feed\n")  # not the build's file any more: a user's
    written = (kb / "site" / ".written").read_text().splitlines()
    (kb / "site" / ".written").write_text("".join(f + "\n" for f in written if f != "feed.xml"))
    report = build([en_dir / "1999-04-23.txt"], kb, only=("data", "site"))
    assert "site/feed.xml.yours" in report.kept_files
    assert (kb / "site" / "feed.xml.yours").read_text() == "my feed\n"
    assert (kb / "site" / "feed.xml").read_text().startswith("<?xml")
    assert (kb / "data" / "mine.csv").read_text() == "a,b\n" and (kb / "site" / "custom.css").is_file()


def test_the_files_sqlite_keeps_beside_the_database_stay_with_the_database_it_replaces(tmp_path, en_dir):
    """A trial: `sqlite3` or Datasette reading data/comprules.sqlite (in WAL mode) during a
    build leaves its -wal and -shm; the rebuild moved them beside the new database as the
    user's files ("kept 2 files of yours"), where SQLite would replay a stale log on it."""
    import sqlite3

    kb = tmp_path / "kb"
    build([en_dir / "1999-04-23.txt"], kb, only=("data",))
    reader = sqlite3.connect(kb / "data" / "comprules.sqlite")  # as a user's reader: WAL, not immutable
    try:
        assert reader.execute("SELECT count(*) FROM editions").fetchone() == (1,)
        assert (kb / "data" / "comprules.sqlite-wal").exists() and (kb / "data" / "comprules.sqlite-shm").exists()
        (kb / "data" / "mine.csv").write_text("a,b\n")
        report = build([en_dir / "1999-04-23.txt", en_dir / "1999-11-01.txt"], kb, only=("data",))
        assert report.kept_files == ["data/mine.csv"]
        assert not any(p.name.startswith("comprules.sqlite-") for p in (kb / "data").iterdir())
    finally:
        reader.close()
    fresh = sqlite3.connect(f"file:{kb / 'data' / 'comprules.sqlite'}?mode=ro", uri=True)
    try:
        assert fresh.execute("SELECT count(*) FROM editions").fetchone() == (2,)
    finally:
        fresh.close()


def test_export_never_writes_over_its_own_source_and_dash_is_standard_output(tmp_path, en_dir):
    source = tmp_path / "2003-07-01.txt"
    shutil.copy(en_dir / "2003-07-01.txt", source)
    before = source.read_bytes()
    result = run("export", source, "-o", source)
    assert result.returncode == 2
    assert result.stderr == (
        f"comprules: -o {source}: is the source file being exported; give another file (nothing was written)\n"
    )
    assert source.read_bytes() == before
    os.chdir(tmp_path)
    result = run("export", source, "-o", "-")
    assert result.returncode == 0 and result.stdout.startswith("{") and not (tmp_path / "-").exists()


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_a_build_killed_with_sigkill_leaves_no_parsing_worker_holding_the_lock(tmp_path, en_dir):
    kb = tmp_path / "kb"
    proc = subprocess.Popen([*CLI, "build", str(en_dir), "--kb", str(kb), "-j", "2"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2, "the build started no parsing workers"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert [w for w in workers if _alive(w)] == []
    again = run("build", en_dir / "1999-04-23.txt", "--kb", kb, "--only", "data")
    assert "another build is running" not in again.stderr and again.returncode == 0, again.stderr


def test_two_first_builds_at_once_never_fail_on_the_folder_one_of_them_made(tmp_path, en_dir):
    # issue 23, 6: one first-build race in three ended "kb: File exists"
    for attempt in range(4):
        kb = tmp_path / f"race{attempt}" / "kb"
        procs = [
            subprocess.Popen(
                [*CLI, "build", str(en_dir / "1999-04-23.txt"), "--kb", str(kb), "--only", "data"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
        for code, err in results:
            assert "File exists" not in err and "Traceback" not in err, err
            assert code == 0 or (code == 2 and "another build is running on" in err), err
        assert any(code == 0 for code, _ in results)
        assert run("editions", "--kb", kb).stdout.startswith("en/1999-04-23 ")


def test_a_kb_that_is_a_link_to_nothing_is_one_line(tmp_path, en_dir):
    link = tmp_path / "kb_link"
    os.symlink(tmp_path / "nowhere", link)
    result = run("build", en_dir / "1999-04-23.txt", "--kb", link, "--only", "data")
    assert result.returncode == 2
    assert (
        result.stderr == f"comprules: --kb {link}: is a symbolic link to {tmp_path / 'nowhere'}, which does not exist\n"
    )


def test_a_users_folder_where_the_build_writes_a_page_goes_beside_it_and_nothing_is_lost(tmp_path, en_dir):
    # a newcomer's case: a folder named like a page the next build writes
    kb = tmp_path / "kb"
    build([en_dir / "2009-07-11.txt"], kb, only=("data", "site"))
    (kb / "site" / "custom.css").write_text("mine\n")
    folder = kb / "site" / "en" / "2009-05-01" / "100.html"
    folder.mkdir(parents=True)
    (folder / "note.txt").write_text("note\n")
    report = build([en_dir / "2009-05-01.txt", en_dir / "2009-07-11.txt"], kb, only=("data", "site"))
    assert sorted(report.kept_files) == ["site/custom.css", "site/en/2009-05-01/100.html.yours/note.txt"]
    assert (kb / "site" / "custom.css").read_text() == "mine\n"
    assert (kb / "site" / "en" / "2009-05-01" / "100.html.yours" / "note.txt").read_text() == "note\n"
    assert (kb / "site" / "en" / "2009-05-01" / "100.html").is_file()  # the build's page


def test_export_never_writes_into_the_knowledge_base_it_reads(tmp_path, en_dir):
    kb = tmp_path / "kb"
    build([en_dir / "1999-04-23.txt"], kb, only=("data",))
    before = (kb / "data" / "editions.json").read_bytes()
    result = run("export", "en/1999-04-23", "--kb", kb, "-o", kb / "data" / "editions.json")
    assert result.returncode == 2
    assert "is inside the knowledge base's data/, which export reads" in result.stderr
    assert (kb / "data" / "editions.json").read_bytes() == before
    assert run("export", "en/1999-04-23", "--kb", kb, "-o", tmp_path / "out.json").returncode == 0
    empty = run("show", "100.1", "--kb", "")
    assert empty.returncode == 2 and empty.stderr.startswith("comprules: --kb: empty")
