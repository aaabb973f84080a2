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


@contextmanager
def timed(results: dict, name: str):
    start = time.perf_counter()
    yield
    results[name] = time.perf_counter() - start
