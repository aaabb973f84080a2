"""What the long commands show while they work: one small module for build and fetch.

* :class:`Progress` — what a download reports (bytes); silent;
* :class:`RichProgress` — the same as a rich bar on stderr (``comprules fetch`` on a
  terminal): name, bar, bytes, speed, time left;
* :func:`lines` — the build's stage lines on stderr ("parsed 74 editions (3.1 s)"), one a
  stage, nothing when quiet (``build --json``).
"""

from __future__ import annotations

from collections.abc import Callable

import click

__all__ = ["Progress", "RichProgress", "lines"]


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
    return lambda message: click.echo(message, err=True)
