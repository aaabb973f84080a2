"""The parsed editions of the last build, kept so that a rebuild parses only what changed.

A build that finds one source changed among 79 would otherwise parse all 79 again (2.6 s
of an 18 s rebuild on two cores). :class:`ParseCache` keeps the
:class:`~comprules.model.Edition` :func:`.load.load_items` made of each source (a source
refused is not kept: its error is said again) in one file a source, named by a key the
caller computes from everything the result depends on: the source's bytes (their
SHA-256), its path and ``editions.toml`` entry, the limits and comprules' own code.
A key that changes is a file that is not found. Each file starts with a line of its own
(:data:`MAGIC`) and the BLAKE2b digest of its key and its pickle: a file damaged, cut, or
copied under another key (another source's, another version's) is a miss, parsed again;
the edition read back must also name the source and the SHA-256 its key was made from.

The files are :mod:`pickle` data: read only from the knowledge base's own ``.parsed/``
folder, which the build writes and nobody else (loading a pickle runs what it names:
do not take a knowledge base's ``.parsed/`` from someone you do not trust, as you would not
take their ``__pycache__``). Any of them may be deleted at any time: the next build parses
that source again. A file that cannot be read or unpickled is a miss; one that cannot be
written (a full disk) is skipped: the build goes on without it. A ``.parsed`` that is a
symbolic link, or not a folder, is not used; an entry that is not a regular file (a named
pipe) is a miss, not waited on, and so is one over :data:`MAX_BYTES`. Only files sealed
so are ever deleted.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from tempfile import mkstemp

from ..model import Edition

__all__ = ["ParseCache"]

SUFFIX = ".pickle"
#: The smallest source whose parse is kept, in bytes (:meth:`ParseCache.worth`).
MIN_BYTES = 64 * 1024
#: The first bytes of every file this module writes (then a 32-byte digest, then the pickle).
MAGIC = b"comprules parsed source 1\n"
_DIGEST = 32
#: The names this module writes (a kept file, a temporary one).
_OURS = re.compile(r"[0-9a-f]+\.pickle|\.[0-9a-f]+\.[^/]*\.tmp")
#: The largest file read back, in bytes: an edition's pickle is about its source's size
#: (1 MB for 2026-08-07); a larger file is a miss, not read into memory.
MAX_BYTES = 128 * 1024 * 1024


def _seal(key: str, payload: bytes | memoryview) -> bytes:
    h = hashlib.blake2b(digest_size=_DIGEST)
    h.update(key.encode() + b"\0")
    h.update(payload)
    return h.digest()


def _sealed(key: str, data: bytes) -> memoryview | None:
    """The pickle of a file's bytes ``data`` when they are sealed with ``key``, else ``None``."""
    head = len(MAGIC) + _DIGEST
    if not data.startswith(MAGIC) or len(data) <= head:
        return None
    payload = memoryview(data)[head:]
    return payload if data[len(MAGIC) : head] == _seal(key, payload) else None


class ParseCache:
    """The folder ``directory`` of parsed sources, by key (hex digits, given by the caller)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        #: A link in place of the folder is not followed: nothing read, written or deleted there.
        self.usable = not self.directory.is_symlink() and (self.directory.is_dir() or not self.directory.exists())

    @staticmethod
    def worth(path: Path) -> bool:
        """Whether keeping the parse of the source ``path`` saves time: a file of
        :data:`MIN_BYTES` or more (a CR edition is 300 KB to 1 MB; a note of a few lines
        parses in less time than a kept file takes to open, and 1,000 of them would be
        1,000 more files)."""
        try:
            return path.stat().st_size >= MIN_BYTES
        except OSError:
            return False

    def _path(self, key: str) -> Path:
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"a parse cache key is hex digits, not {key!r}")
        return self.directory / f"{key}{SUFFIX}"

    @staticmethod
    def _read(path: Path) -> bytes | None:
        """The bytes of a regular file at ``path`` (not a link, a pipe or a device) of at
        most :data:`MAX_BYTES`, else ``None``."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                return None
            with os.fdopen(fd, "rb", closefd=False) as fh:
                return fh.read()
        except OSError:
            return None
        finally:
            os.close(fd)

    def get(self, key: str, source: str | None = None, sha256: str | None = None) -> Edition | None:
        """The edition the source of ``key`` parsed to, or ``None`` when it is not kept,
        cannot be read, is not sealed with that key (damaged, or another key's), or, with
        ``source`` and ``sha256``, names another source file or other bytes."""
        if not self.usable:
            return None
        data = self._read(self._path(key))
        payload = _sealed(key, data) if data is not None else None
        if payload is None:
            return None
        enabled = gc.isenabled()
        gc.disable()  # an edition is ~700 k objects, none of them in a cycle: 2× faster so
        try:
            value = pickle.loads(payload)
        except Exception:  # sealed but not readable by this Python: a miss, parsed again
            return None
        finally:
            if enabled:
                gc.enable()
        if not isinstance(value, Edition):
            return None
        if (source is not None and value.source != source) or (sha256 is not None and value.sha256 != sha256):
            return None
        return value

    def put(self, key: str, value: Edition) -> bool:
        """Keep ``value`` under ``key`` (a temporary file, then a rename); ``False`` when
        it could not be written."""
        if not self.usable:
            return False
        path = self._path(key)
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, RecursionError):
            return False
        if len(payload) + len(MAGIC) + _DIGEST > MAX_BYTES:
            return False  # it would not be read back
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = mkstemp(prefix=f".{key}.", suffix=".tmp", dir=self.directory)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + _seal(key, payload))
                fh.write(payload)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return False
        return True

    def keep_only(self, keys: Iterable[str]) -> None:
        """Delete every file of the folder this class wrote but those of ``keys`` (what
        the last build used): the folder holds one build's sources, not every version
        ever parsed. A file is this class's when its name is one it gives and it is
        sealed with the key that name holds; any other file is left as it is (a
        temporary file cut short by a stopped build too: it cannot be told from a
        user's)."""
        if not self.usable:
            return
        wanted = {f"{k}{SUFFIX}" for k in keys}
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            if name in wanted or not _OURS.fullmatch(name):
                continue
            path = self.directory / name
            key = name.removesuffix(SUFFIX) if name.endswith(SUFFIX) else name[1:].partition(".")[0]
            data = self._read(path)
            if data is not None and _sealed(key, data) is not None:
                try:
                    os.unlink(path)
                except OSError:
                    pass
