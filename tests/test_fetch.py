"""``comprules fetch`` against a local HTTP server serving ../shared/corpus (issue 7).

The server runs in a thread on 127.0.0.1 (an ephemeral port) with the layout of the
cache (``/en/2026-08-07.txt``), answers ``Range`` requests, and can be told to cut a
response short or to serve an HTML page; a second socket listens and never answers
(a server that hangs). No test reaches any other address.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from comprules import fetch
from comprules.cli import main
from comprules.errors import FetchError

ROOT = Path(__file__).resolve().parent.parent


class CorpusServer(ThreadingHTTPServer):
    """Serves a folder; ``truncate`` maps a path to the bytes to send before closing (once)."""

    daemon_threads = True

    def __init__(self, root: Path):
        super().__init__(("127.0.0.1", 0), Handler)
        self.root = root
        self.requests: list[tuple[str, str | None]] = []  # (path, Range header)
        self.truncate: dict[str, int] = {}
        self.ignore_range = False
        self.pages: dict[str, bytes] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: CorpusServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        srv = self.server
        rng = self.headers.get("Range")
        srv.requests.append((self.path, rng))
        if self.path in srv.pages:
            return self._send(200, srv.pages[self.path], {"Content-Type": "text/html"})
        file = (srv.root / self.path.lstrip("/")).resolve()
        if not file.is_relative_to(srv.root) or not file.is_file():
            return self._send(404, b"not found")
        data = file.read_bytes()
        cut = srv.truncate.pop(self.path, None)
        if cut is not None:  # promise the whole file, send a part, close the connection
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:cut])
            self.wfile.flush()
            self.close_connection = True
            return
        if rng and not srv.ignore_range:
            start = int(rng.removeprefix("bytes=").split("-")[0])
            if start >= len(data):
                return self._send(416, b"")
            return self._send(206, data[start:], {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"})
        self._send(200, data)

    def _send(self, code: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server(corpus_dir):
    srv = CorpusServer(corpus_dir.resolve())
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def hanging_url():
    """A socket that accepts connections (backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.fixture
def closed_url():
    """A port nothing listens on: what a machine without network gives (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _edition(date: str) -> fetch.KnownEdition:
    return next(e for e in fetch.edition_table() if e.date == date)


def test_fetch_latest_downloads_2026_08_07_byte_for_byte_and_records_its_checksum(server, tmp_path, en_dir):
    done, failed = fetch.fetch_editions(fetch.select(latest=True), tmp_path, mirror=server.url)
    assert failed == []
    (item,) = done
    assert item.edition.name == "en/2026-08-07"
    assert item.path == tmp_path / "en" / "2026-08-07.txt"
    assert item.path.read_bytes() == (en_dir / "2026-08-07.txt").read_bytes()
    assert item.size == 968_425
    assert (tmp_path / "SHA256SUMS").read_text() == f"{_sha(en_dir / '2026-08-07.txt')}  en/2026-08-07.txt\n"
    assert server.requests == [("/en/2026-08-07.txt", None)]


def test_second_fetch_is_served_from_the_cache_without_a_request(server, tmp_path):
    fetch.fetch_editions([_edition("2025-02-07")], tmp_path, mirror=server.url)
    (again,), _ = fetch.fetch_editions([_edition("2025-02-07")], tmp_path, mirror=server.url)
    assert again.url is None
    assert len(server.requests) == 1


def test_cached_file_that_no_longer_matches_its_checksum_is_fetched_again(server, tmp_path, en_dir):
    fetch.fetch_editions([_edition("2025-02-07")], tmp_path, mirror=server.url)
    cached = tmp_path / "en" / "2025-02-07.txt"
    cached.write_bytes(cached.read_bytes()[:1000])
    (again,), _ = fetch.fetch_editions([_edition("2025-02-07")], tmp_path, mirror=server.url)
    assert again.url is not None
    assert cached.read_bytes() == (en_dir / "2025-02-07.txt").read_bytes()


def test_truncated_download_keeps_its_part_and_the_next_run_resumes_with_a_range_request(server, tmp_path, en_dir):
    size = (en_dir / "2026-08-07.txt").stat().st_size
    server.truncate["/en/2026-08-07.txt"] = 300_000
    with pytest.raises(FetchError, match=r"connection closed after 300,000 of 968,425 bytes"):
        fetch.fetch_one(_edition("2026-08-07"), tmp_path, mirror=server.url)
    part = tmp_path / "en" / "2026-08-07.txt.part"
    assert part.stat().st_size == 300_000
    assert not (tmp_path / "en" / "2026-08-07.txt").exists()
    (item,), failed = fetch.fetch_editions([_edition("2026-08-07")], tmp_path, mirror=server.url)
    assert failed == [] and item.resumed_from == 300_000 and item.size == size
    assert server.requests[-1] == ("/en/2026-08-07.txt", "bytes=300000-")
    assert item.path.read_bytes() == (en_dir / "2026-08-07.txt").read_bytes()
    assert not part.exists()


def test_a_part_from_another_url_is_not_resumed_but_started_again(server, tmp_path, en_dir):
    part = tmp_path / "x.txt.part"
    part.write_bytes(b"half of a file from somewhere else")
    (tmp_path / "x.txt.part.url").write_text(f"{server.url}/elsewhere.txt")
    fetch.download_first([f"{server.url}/en/2024-11-08.txt"], tmp_path / "x.txt", name="x", timeout=5)
    assert server.requests == [("/en/2024-11-08.txt", None)]
    assert (tmp_path / "x.txt").read_bytes() == (en_dir / "2024-11-08.txt").read_bytes()
    assert not (tmp_path / "x.txt.part.url").exists()


def test_server_that_ignores_range_restarts_the_download_from_zero(server, tmp_path, en_dir):
    server.ignore_range = True
    server.truncate["/en/2025-02-07.txt"] = 5_000
    with pytest.raises(FetchError, match="connection closed after 5,000 of"):
        fetch.fetch_one(_edition("2025-02-07"), tmp_path, mirror=server.url)
    (item,), _ = fetch.fetch_editions([_edition("2025-02-07")], tmp_path, mirror=server.url)
    assert item.resumed_from == 0
    assert item.path.read_bytes() == (en_dir / "2025-02-07.txt").read_bytes()


def test_404_is_reported_per_edition_and_the_others_are_still_fetched(server, tmp_path):
    wanted = [_edition("2010-02-01"), _edition("2024-11-08")]  # 2010-02-01 is not in ../shared/corpus
    done, failed = fetch.fetch_editions(wanted, tmp_path, mirror=server.url)
    assert [d.edition.date for d in done] == ["2024-11-08"]
    assert len(failed) == 1
    assert str(failed[0]).startswith("en/2010-02-01: not found") and "HTTP 404" in str(failed[0])


def test_server_that_hangs_times_out_within_the_bound(hanging_url, tmp_path):
    start = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0.3 s"):
        fetch.fetch_editions([_edition("2026-08-07")], tmp_path, mirror=hanging_url, timeout=0.3)
    assert time.monotonic() - start < 3


def test_official_urls_are_tried_in_order_and_a_404_moves_on_to_the_next(server, tmp_path, en_dir):
    urls = [f"{server.url}/nope/2024-11-08.txt", f"{server.url}/en/2024-11-08.txt"]
    url, resumed = fetch.download_first(urls, tmp_path / "x.txt", name="en/2024-11-08", timeout=5)
    assert url == urls[1] and resumed == 0
    assert [p for p, _ in server.requests] == ["/nope/2024-11-08.txt", "/en/2024-11-08.txt"]
    assert (tmp_path / "x.txt").read_bytes() == (en_dir / "2024-11-08.txt").read_bytes()


def test_a_host_that_hangs_is_not_tried_again_for_its_other_urls(hanging_url, server, tmp_path):
    urls = [f"{hanging_url}/a.txt", f"{hanging_url}/b.txt", f"{server.url}/en/2024-11-08.txt"]
    start = time.monotonic()
    url, _ = fetch.download_first(urls, tmp_path / "x.txt", name="en/2024-11-08", timeout=0.3)
    assert url == urls[2] and time.monotonic() - start < 2


def test_an_html_page_served_instead_of_the_rules_is_refused(server, tmp_path):
    server.pages["/en/2026-08-07.txt"] = b"<!DOCTYPE html><html><body>Page moved</body></html>"
    with pytest.raises(FetchError, match=r"not a Comprehensive Rules text \(an HTML page\)"):
        fetch.fetch_one(_edition("2026-08-07"), tmp_path, mirror=server.url)
    assert list((tmp_path / "en").iterdir()) == []


def test_edition_table_knows_every_corpus_edition_with_its_set(en_dir):
    table = {e.date: e for e in fetch.edition_table()}
    corpus = sorted(p.stem for p in en_dir.glob("*.txt"))
    assert set(corpus) <= set(table)
    assert len(table) == 124
    assert table["2025-02-07"].set == "Aetherdrift"
    assert table["2009-07-11"].urls == ("http://wizards.com:80/magic/comprules/MagicCompRules_20090708.txt",)
    assert table["2017-09-29"].file_date == "2017-09-25"
    assert table["2017-09-29"].urls[0] == "https://media.wizards.com/2017/downloads/MagicCompRules%2020170925.txt"
    assert table["2003-10-01"].archived[0].startswith("https://web.archive.org/web/")
    assert fetch.select(latest=True) == [table["2026-08-07"]]
    assert all(u.startswith(("http://", "https://")) for e in table.values() for u in e.urls + e.archived)


def test_all_beside_latest_or_a_date_is_refused_not_ignored():
    # a trial: "fetch --latest --all" downloaded every edition without a word
    from click.testing import CliRunner

    from comprules.cli import main

    assert len(fetch.select(all_editions=True)) > 70
    for args in (["--latest", "--all"], ["2026-08-07", "--all"]):
        result = CliRunner().invoke(main, ["fetch", *args, "--mirror", "http://127.0.0.1:9"])
        assert (
            result.exit_code == 2 and "--all fetches every edition: give no DATE or --latest with it" in result.output
        )


def test_cache_folder_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert fetch.cache_dir() == tmp_path / "comprules"


def test_cli_fetch_prints_the_paths_on_stdout_for_build(server, tmp_path):
    result = CliRunner().invoke(main, ["fetch", "2024-11-08", "--latest", "-d", str(tmp_path), "--mirror", server.url])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        str(tmp_path / "en" / "2024-11-08.txt"),
        str(tmp_path / "en" / "2026-08-07.txt"),
    ]
    assert "en/2026-08-07: 968,425 bytes from http://127.0.0.1:" in result.stderr


def test_cli_fetch_mirror_comes_from_the_environment(server, tmp_path):
    result = CliRunner().invoke(main, ["fetch", "-d", str(tmp_path)], env={"COMPRULES_MIRROR": server.url})
    assert result.exit_code == 0 and result.stdout == f"{tmp_path / 'en' / '2026-08-07.txt'}\n"


def test_cli_fetch_without_network_says_so_in_one_line_with_the_local_folder_way(closed_url, tmp_path):
    result = CliRunner().invoke(main, ["fetch", "--latest", "-d", str(tmp_path), "--mirror", closed_url])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("comprules: no network or server down: cannot reach 127.0.0.1:")
    assert "comprules build DIR" in line and "make site CORPUS=DIR" in line


def test_cli_fetch_of_an_unknown_date_is_bad_usage(tmp_path):
    result = CliRunner().invoke(main, ["fetch", "2031-01-01", "-d", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("comprules: no known edition dated '2031-01-01'")


def test_cli_fetch_all_fetches_what_the_mirror_has_and_fails_clearly_on_the_rest(server, tmp_path, monkeypatch):
    table = tuple(_edition(d) for d in ("2010-02-01", "2024-11-08", "2026-08-07"))
    monkeypatch.setattr(fetch, "edition_table", lambda: table)
    result = CliRunner().invoke(main, ["fetch", "--all", "-d", str(tmp_path), "--mirror", server.url])
    assert result.exit_code == 2
    assert len(result.stdout.splitlines()) == 2
    assert "en/2010-02-01: not found" in result.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_site_without_corpus_fetches_the_latest_edition_and_with_corpus_builds_it():
    fetched = subprocess.run(
        ["make", "-n", "-W", ".venv/bin/.installed", "site", "CORPUS="],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "comprules fetch --latest" in fetched
    given = subprocess.run(
        ["make", "-n", "-W", ".venv/bin/.installed", "site", "CORPUS=../x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "sources='../x'" in given


def test_rich_progress_bar_counts_the_bytes_of_a_download(server, tmp_path):
    from comprules.progress import RichProgress

    bar = RichProgress()
    try:
        fetch.fetch_editions([_edition("2024-11-08")], tmp_path, mirror=server.url, progress=bar)
    finally:
        bar.close()
    (task,) = bar.bar.tasks
    assert task.description == "en/2024-11-08" and task.completed == task.total == 935_862
