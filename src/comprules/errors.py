"""Domain errors. The library raises these; only the CLI turns them into exit codes."""

from __future__ import annotations


class ComprulesError(Exception):
    """Base class of every error the library raises on purpose."""


class SourceError(ComprulesError):
    """A source file that cannot be read as a CR document.

    ``str()`` is one line naming the file (and the line, when known), e.g.
    ``seeds/bad.txt: line 1: binary content (NUL bytes), not a text document``.
    """

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}: line {line}: " if line else f"{self.path}: "
        super().__init__(where + message)


class UsageError(ComprulesError):
    """A bad request from the user: unknown edition, malformed query, bad option."""


class NotFound(ComprulesError):
    """Nothing matched (a rule number absent from an edition, an empty search)."""


class BuildLocked(ComprulesError):
    """Another build holds the knowledge base's lock."""


class BuildFailed(ComprulesError):
    """A build stopped by the system (a full disk, a file it could not write): one line
    naming the stage and the path, and saying what of the knowledge base was kept."""


class FetchError(ComprulesError):
    """A download that failed: no network, not found, timed out, truncated (one line)."""


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived (``signum``); ``message`` says what was kept, if known.

    A :class:`KeyboardInterrupt`, so that code which stops cleanly on Ctrl-C stops
    the same way on SIGTERM. The CLI prints ``message`` and exits 128 + ``signum``
    (130 for SIGINT, 143 for SIGTERM), as a shell reports a process a signal ended.
    """

    def __init__(self, signum: int, message: str = "interrupted"):
        super().__init__(message)
        self.signum = signum
        self.message = message


#: The most characters of a user's input an error message repeats.
ECHO_LIMIT = 200


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as an error message repeats it: at most ``limit`` characters, cut with "…"
    (a 10,000-character argument is not printed back whole)."""
    return text if len(text) <= limit else text[:limit] + "…"


def said(exc: OSError) -> str:
    """An error of the system as one line says it: ``PATH: reason`` (``build/data: No
    space left on device``), or the reason alone when it names no file."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason
