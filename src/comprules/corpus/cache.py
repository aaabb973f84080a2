"""The parsed editions of the last build, kept so that a rebuild parses only what changed.

A build that finds one source changed among 79 would otherwise parse all 79 again (2.6 s
of an 18 s rebuild on two cores). :class:`ParseCache` keeps what :func:`.load.load_items`
made of each source (an :class:`~comprules.model.Edition`, or the
:class:`~comprules.errors.SourceError` it was refused with) in one file a source, named
by a key the caller computes from everything the result depends on: the source's bytes
(their SHA-256), its path and ``editions.toml`` entry, the limits and comprules' own code.
A key that changes is a file that is not found; nothing in a file is trusted to say what
it was made from.

The files are :mod:`pickle` data: read only from the knowledge base's own ``.parsed/``
folder, which the build writes and nobody else (loading a pickle runs what it names:
do not take a knowledge base's ``.parsed/`` from someone you do not trust, as you would not
take their ``__pycache__``). Any of them may be deleted at any time: the next build parses
that source again. A file that cannot be read or unpickled is a miss; one that cannot be
written (a full disk) is skipped: the build goes on without it.
"""

from __future__ import annotations

import gc
import os
import pickle
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import SourceError
from ..model import Edition

__all__ = ["ParseCache"]

SUFFIX = ".pickle"
#: The smallest source whose parse is kept, in bytes (:meth:`ParseCache.worth`).
MIN_BYTES = 64 * 1024
#: The names this module writes (a kept file, a temporary one): the only ones it deletes.
_OURS = re.compile(r"[0-9a-f]+\.pickle|\.[0-9a-f]+\.[^/]*\.tmp")


class ParseCache:
    """The folder ``directory`` of parsed sources, by key (hex digits, given by the caller)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.hits = 0

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

    def get(self, key: str) -> Edition | SourceError | None:
        """What the source of ``key`` parsed to, or ``None`` when it is not kept (or its
        file cannot be read)."""
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        enabled = gc.isenabled()
        gc.disable()  # an edition is ~700 k objects, none of them in a cycle: 2× faster so
        try:
            value = pickle.loads(data)
        except Exception:  # a truncated or foreign file is a miss: the source is parsed again
            return None
        finally:
            if enabled:
                gc.enable()
        if not isinstance(value, (Edition, SourceError)):
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: Edition | SourceError) -> bool:
        """Keep ``value`` under ``key`` (a temporary file, then a rename); ``False`` when
        it could not be written."""
        path = self._path(key)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=self.directory)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except (OSError, pickle.PicklingError, RecursionError):
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return False
        return True

    def keep_only(self, keys: Iterable[str]) -> None:
        """Delete every file of the folder this class wrote but those of ``keys`` (what
        the last build used): the folder holds one build's sources, not every version
        ever parsed. A file of another name is left as it is."""
        wanted = {f"{k}{SUFFIX}" for k in keys}
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            if name not in wanted and _OURS.fullmatch(name):
                try:
                    os.unlink(self.directory / name)
                except OSError:
                    pass
