"""``comprules fetch``: download published editions of the CR into a local cache.

The editions known to exist are listed in ``comprules/data/editions.toml`` (facts:
effective dates, sets, official and archived URLs). A fetch tries an edition's URLs
in order (official first, then Wayback Machine copies) and stores the first good one
as ``{cache}/en/{date}.txt`` with its SHA-256 recorded in ``{cache}/SHA256SUMS``:

* the cache is ``$XDG_CACHE_HOME/comprules`` (``~/.cache/comprules``) or ``-d DIR``;
* a file already in the cache whose checksum matches its record is not fetched again;
* a download goes to ``….txt.part`` first and is resumed with an HTTP ``Range``
  request after a broken connection (a server that ignores ``Range`` restarts it);
* every socket operation has a time-out (``timeout``, 30 s by default): a server
  that hangs gives an error, never a hung command;
* a mirror (``--mirror URL`` or ``$COMPRULES_MIRROR``) laid out like the cache
  (``{mirror}/en/{date}.txt``, e.g. a cache folder served over HTTP) replaces the
  official URLs; tests serve ``../shared/corpus`` this way on 127.0.0.1.

Without network the error is one line that says so and how to build from a local folder.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .errors import FetchError, SourceError, UsageError
from .progress import Progress

MIRROR_ENV = "COMPRULES_MIRROR"
CHECKSUMS = "SHA256SUMS"
DEFAULT_TIMEOUT = 30.0
CHUNK = 64 * 1024
USER_AGENT = "comprules-fetch/0.1"
OFFLINE_HINT = "download the CR text yourself and build from its folder: comprules build DIR (or make site CORPUS=DIR)"


@dataclass(frozen=True, slots=True)
class KnownEdition:
    """One row of the edition table."""

    date: str
    set: str
    urls: tuple[str, ...]
    archived: tuple[str, ...] = ()
    file_date: str | None = None
    lang: str = "en"
    code: str | None = None

    @property
    def name(self) -> str:
        return f"{self.lang}/{self.date}"

    @property
    def relpath(self) -> str:
        """Where the edition lives in a cache or a mirror: ``en/2026-08-07.txt``."""
        return f"{self.lang}/{self.date}.txt"


@dataclass(frozen=True, slots=True)
class Fetched:
    """One edition in the cache after a fetch."""

    edition: KnownEdition
    path: Path
    sha256: str
    size: int
    url: str | None  # None: already in the cache
    resumed_from: int = 0


@lru_cache(maxsize=1)
def edition_table() -> tuple[KnownEdition, ...]:
    """Every known edition, oldest first (``comprules/data/editions.toml``)."""
    raw = resources.files("comprules").joinpath("data/editions.toml").read_bytes()
    rows = tomllib.loads(raw.decode("utf-8"))["edition"]
    table = [
        KnownEdition(
            date=r["date"],
            set=r.get("set", ""),
            urls=tuple(r.get("urls", ())),
            archived=tuple(r.get("archived", ())),
            file_date=r.get("file_date"),
            code=r.get("code"),
        )
        for r in rows
    ]
    return tuple(sorted(table, key=lambda e: e.date))


def select(
    dates: Sequence[str] = (),
    *,
    latest: bool = False,
    all_editions: bool = False,
    table: tuple[KnownEdition, ...] | None = None,
) -> list[KnownEdition]:
    """The editions asked for; :class:`UsageError` for a date the table does not know, or
    for ``all_editions`` beside ``latest`` or dates (each was ignored)."""
    table = table if table is not None else edition_table()
    if all_editions and (latest or dates):
        raise UsageError("--all fetches every edition: give no DATE or --latest with it")
    if all_editions:
        return [e for e in table if e.urls or e.archived]
    chosen = []
    by_date = {e.date: e for e in table}
    by_date.update({e.file_date: e for e in table if e.file_date and e.file_date not in by_date})
    for d in dates:
        d = d.removeprefix("en/")
        if d not in by_date:
            near = ", ".join(e.date for e in table[-3:])
            raise UsageError(f"no known edition dated {d!r} (latest known: {near}); see comprules fetch --help")
        chosen.append(by_date[d])
    if latest or not chosen:
        chosen.append(table[-1])
    return list(dict.fromkeys(chosen))


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/comprules``, or ``~/.cache/comprules``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "comprules"


def candidate_urls(edition: KnownEdition, mirror: str | None = None) -> list[str]:
    """The URLs to try for ``edition``: the mirror's alone, or the official then the archived ones."""
    if mirror:
        return [mirror.rstrip("/") + "/" + urllib.parse.quote(edition.relpath)]
    return [*edition.urls, *edition.archived]


def read_checksums(folder: Path) -> dict[str, str]:
    """``{relpath: sha256}`` from ``folder/SHA256SUMS`` (``sha256sum`` format)."""
    path = Path(folder) / CHECKSUMS
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        if len(digest) == 64 and name:
            out[name] = digest
    return out


def _write_checksums(folder: Path, sums: dict[str, str]) -> None:
    from .export import write_atomic

    write_atomic(Path(folder) / CHECKSUMS, "".join(f"{sums[k]}  {k}\n" for k in sorted(sums)))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_editions(
    editions: list[KnownEdition],
    dest: Path | None = None,
    *,
    mirror: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    force: bool = False,
) -> tuple[list[Fetched], list[FetchError]]:
    """Fetch ``editions`` into ``dest`` (default :func:`cache_dir`); the failures are returned, not raised.

    A :class:`FetchError` for "no network" is raised at once: the other editions would fail the same way.
    """
    dest = Path(dest) if dest is not None else cache_dir()
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_ENV) or None
    progress = progress or Progress()
    done: list[Fetched] = []
    failed: list[FetchError] = []
    for edition in editions:
        try:
            done.append(fetch_one(edition, dest, mirror=mirror, timeout=timeout, progress=progress, force=force))
        except _Offline as exc:
            raise FetchError(str(exc)) from None
        except FetchError as exc:
            failed.append(exc)
    return done, failed


def fetch_one(
    edition: KnownEdition,
    dest: Path,
    *,
    mirror: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    force: bool = False,
) -> Fetched:
    """Fetch one edition into ``dest`` unless the cache already holds it with the recorded checksum."""
    progress = progress or Progress()
    target = Path(dest) / edition.relpath
    sums = read_checksums(dest)
    if target.is_file() and not force:
        digest = _sha256(target)
        if sums.get(edition.relpath) in (None, digest):
            if edition.relpath not in sums:
                _write_checksums(dest, {**sums, edition.relpath: digest})
            return Fetched(edition, target, digest, target.stat().st_size, None)
    urls = candidate_urls(edition, mirror)
    if not urls:
        raise FetchError(f"{edition.name}: no known download URL for this edition; {OFFLINE_HINT}")
    url, resumed = download_first(urls, target, name=edition.name, timeout=timeout, progress=progress)
    digest = _sha256(target)
    _write_checksums(dest, {**read_checksums(dest), edition.relpath: digest})
    return Fetched(edition, target, digest, target.stat().st_size, url, resumed)


class _Offline(FetchError):
    """No route to any host: the network is missing, not the file."""


def download_first(
    urls: list[str],
    target: Path,
    *,
    name: str,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    check=None,
) -> tuple[str, int]:
    """Download the first of ``urls`` that works into ``target``; ``(url, bytes resumed)``.

    A 404/410 or an unreachable host moves on to the next URL; a broken or timed-out
    transfer stops (the ``.part`` file is kept, for the next run to resume).
    """
    progress = progress or Progress()
    missing: list[str] = []
    dead: dict[str, str] = {}  # host → why it could not be reached (refused, no DNS, timed out)
    for url in urls:
        host = _host(url)
        if host in dead:
            continue  # the other URLs of a host that hangs or is unreachable would do the same
        try:
            return url, download(url, target, name=name, timeout=timeout, progress=progress, check=check)
        except _Missing as exc:
            missing.append(str(exc))
        except _Unreachable as exc:
            dead[host] = exc.reason
    if not missing:
        hosts = ", ".join(dead)
        raise _Offline(f"no network or server down: cannot reach {hosts} ({next(iter(dead.values()))}); {OFFLINE_HINT}")
    raise FetchError(f"{name}: not found at any of {len(urls)} URL(s) (last: {missing[-1]})")


class _Missing(FetchError):
    """The server answered that the file is not there (404, 410, …): try the next URL."""


class _Unreachable(FetchError):
    """The host could not be reached (DNS, refused, no route) or did not answer in time."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"{url}: {reason}")
        self.reason = reason


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def download(
    url: str,
    target: Path,
    *,
    name: str = "",
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    check=None,
) -> int:
    """Download ``url`` into ``target`` through ``target.part``, resuming a previous part.

    Returns the number of bytes that were already there (0: a fresh download).
    Raises :class:`FetchError` (one line) for a time-out, a broken transfer or content
    that is not CR text (``check(part, url)``, CR text by default, refuses it); the
    internal subclasses tell "not there" and "unreachable".
    """
    progress = progress or Progress()
    target = Path(target)
    part = target.with_name(target.name + ".part")
    origin = target.with_name(target.name + ".part.url")  # a part is resumed from its own URL only
    target.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    if have and (not origin.is_file() or origin.read_text(encoding="utf-8") != url):
        part.unlink()
        have = 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - http(s) URLs of the table
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # our part is complete or bigger than the file: start again
            part.unlink()
            return download(url, target, name=name, timeout=timeout, progress=progress, check=check)
        raise _Missing(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise _classify(url, exc.reason, timeout) from None
    except (TimeoutError, socket.timeout, OSError, http.client.HTTPException) as exc:
        raise _classify(url, exc, timeout) from None
    with response:
        resumed = have if response.status == 206 and _range_start(response) == have else 0
        total = response.headers.get("Content-Length")
        total = int(total) + resumed if total and total.isdigit() else None
        progress.start(name or target.name, total, resumed)
        origin.write_text(url, encoding="utf-8")
        try:
            with open(part, "ab" if resumed else "wb") as fh:
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    fh.write(block)
                    progress.advance(len(block))
        except http.client.IncompleteRead:
            size = f"{total:,}" if total is not None else "?"
            raise FetchError(
                f"{url}: connection closed after {part.stat().st_size:,} of {size} bytes "
                f"(kept {part.name}; run fetch again to resume)"
            ) from None
        except (TimeoutError, socket.timeout) as exc:
            raise FetchError(
                f"{url}: timed out after {timeout:g} s mid-transfer ({exc or 'no data'}; "
                f"kept {part.name}; run fetch again to resume)"
            ) from None
        except OSError as exc:
            raise FetchError(f"{url}: transfer failed ({exc}; kept {part.name}; run fetch again to resume)") from None
        finally:
            progress.finish()
    got = part.stat().st_size
    if total is not None and got < total:
        raise FetchError(
            f"{url}: connection closed after {got:,} of {total:,} bytes (kept {part.name}; run fetch again to resume)"
        )
    origin.unlink(missing_ok=True)
    (check or _check_cr_text)(part, url)
    os.replace(part, target)
    return resumed


def _range_start(response) -> int | None:
    value = response.headers.get("Content-Range", "")  # "bytes 100-999/1000"
    try:
        return int(value.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def _classify(url: str, reason, timeout: float) -> _Unreachable:
    if isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in str(reason):
        return _Unreachable(url, f"timed out after {timeout:g} s waiting for the server")
    return _Unreachable(url, getattr(reason, "strerror", None) or str(reason))


def _check_cr_text(part: Path, url: str) -> None:
    """Refuse what is not CR text (an HTML error page, a binary): the part is removed."""
    from .corpus.decode import decode_bytes
    from .corpus.detect import detect_effective_date

    data = part.read_bytes()
    try:
        text = decode_bytes(data, url).text
    except SourceError as exc:
        part.unlink()
        raise FetchError(f"{url}: not a Comprehensive Rules text ({exc.reason})") from None
    if detect_effective_date(text) is None:
        part.unlink()
        what = "an HTML page" if "<html" in text[:2000].lower() else "no effective date in its first lines"
        raise FetchError(f"{url}: not a Comprehensive Rules text ({what})")


#: Scryfall's bulk-data entry for the oracle cards (one object per Oracle card, JSON).
SCRYFALL_BULK = "https://api.scryfall.com/bulk-data/oracle-cards"


def _check_card_file(part: Path, url: str) -> None:
    """Refuse what is not a JSON card file (an HTML page, an error object)."""
    with open(part, "rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] not in (b"[", b"{"):
        part.unlink()
        raise FetchError(f"{url}: not a JSON card file")


def fetch_cards(
    dest: Path | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    bulk: str = SCRYFALL_BULK,
) -> Path:
    """Download Scryfall's ``oracle-cards`` bulk file into ``dest`` (default the cache's
    ``cards/``) as ``oracle-cards.json``; its path. The bulk-data entry says where the
    current file is. Raises :class:`FetchError` in one line: no network (say so), not
    found, not JSON, timed out."""
    import json

    folder = Path(dest) if dest else cache_dir() / "cards"
    folder.mkdir(parents=True, exist_ok=True)
    entry = folder / "oracle-cards.entry.json"
    try:
        download(bulk, entry, name="oracle-cards bulk entry", timeout=timeout, check=_check_card_file)
    except _Unreachable as exc:
        raise FetchError(
            f"no network or server down: cannot reach {_host(bulk)} ({exc.reason}); download Scryfall's "
            "oracle-cards bulk file yourself and build with --cards FILE"
        ) from None
    except _Missing as exc:
        raise FetchError(str(exc)) from None
    try:
        uri = json.loads(entry.read_text(encoding="utf-8"))["download_uri"]
    except (ValueError, KeyError, TypeError) as exc:
        raise FetchError(f"{bulk}: not a bulk-data entry ({exc})") from None
    target = folder / "oracle-cards.json"
    try:
        download_first(
            [uri], target, name="oracle-cards.json", timeout=timeout, progress=progress, check=_check_card_file
        )
    except _Offline as exc:
        raise FetchError(str(exc).replace(OFFLINE_HINT, "build with --cards FILE of your own")) from None
    return target
