"""Shared helpers of the benchmark scripts: where the corpus is, a timer."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    return Path(os.environ.get("COMPRULES_CORPUS", ROOT / "../shared/corpus")).resolve()


def seeds_dir() -> Path:
    return Path(os.environ.get("COMPRULES_SEEDS", ROOT / "../shared/seeds")).resolve()


def en_files() -> list[Path]:
    files = sorted((corpus_dir() / "en").glob("*.txt"))
    if not files:
        raise SystemExit(f"no editions in {corpus_dir() / 'en'} (set COMPRULES_CORPUS)")
    return files


def command_env() -> dict[str, str]:
    """The environment for timing ``comprules`` as a new process, as an installed one runs:
    its modules compiled once and the bytecode kept (pip compiles a wheel's modules when
    it installs them). Without this, a shell that sets ``PYTHONDONTWRITEBYTECODE=1`` (as
    this project's sandbox does) has every run compile comprules' modules again: about
    120 ms of a command's 200 ms on the 2-core machine."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@contextmanager
def timed(results: dict, name: str):
    start = time.perf_counter()
    yield
    results[name] = time.perf_counter() - start
