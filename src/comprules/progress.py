"""What the long commands show while they work: one small module for build and fetch.

* :class:`Progress` — what a download reports (bytes); silent;
* :class:`RichProgress` — the same as a rich bar on stderr (``comprules fetch`` on a
  terminal): name, bar, bytes, speed, time left;
* :func:`lines` — the build's stage lines on stderr ("parsed 74 editions (3.1 s)"), one a
  stage, nothing when quiet (``build --json``);
* :func:`to_stderr` — one line on stderr that a reader gone away does not stop.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import click

__all__ = ["Progress", "RichProgress", "lines", "silence", "to_stderr"]


class Progress:
    """What a download reports; this one says nothing (the CLI passes a rich bar)."""

    def start(self, name: str, total: int | None, done: int) -> None:
        """A download of ``total`` bytes (None: unknown) starts, ``done`` already there."""

    def advance(self, n: int) -> None:
        """``n`` more bytes arrived."""

    def finish(self) -> None:
        """The current download ended (well or not)."""


class RichProgress(Progress):
    """A rich progress bar on stderr: name, bar, bytes, speed, time left."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
        from rich.progress import (
            Progress as Bar,
        )

        self.bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.task = None

    def start(self, name, total, done):
        if self.task is None:
            self.bar.start()
        self.task = self.bar.add_task(name, total=total, completed=done)

    def advance(self, n):
        self.bar.advance(self.task, n)

    def finish(self):
        self.bar.refresh()

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()


def lines(quiet: bool = False) -> Callable[[str], None]:
    """The build's reporter: each stage's line on stderr, or nothing when ``quiet``."""
    if quiet:
        return lambda message: None
    return to_stderr


def to_stderr(message: str) -> None:
    """``message`` on stderr. A reader that went away (``comprules build … 2>&1 | head -1``)
    does not stop the work: stderr is pointed at /dev/null and the command goes on to its
    own end and exit code, as a closed stdout does (docs/guide.md, "Exit codes")."""
    try:
        click.echo(message, err=True)
    except BrokenPipeError:
        silence(sys.stderr)


def silence(stream) -> None:
    """Point the file descriptor of ``stream`` (``sys.stdout``, ``sys.stderr``) at
    /dev/null, so that what is written after a reader went away, and the interpreter's
    last flush, raise nothing more ("Exception ignored …"); nothing for a stream that is
    not a real file (tests' CliRunner)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
