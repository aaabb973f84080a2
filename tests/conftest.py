"""Shared fixtures: the real corpus and seeds, read in place from ../shared.

``COMPRULES_CORPUS`` (default ``../shared/corpus``) and ``COMPRULES_SEEDS`` (default
``../shared/seeds``) point at the data; with ``COMPRULES_REQUIRE_CORPUS=1`` (CI) a
missing folder fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _data_dir(var: str, default: str) -> Path:
    path = Path(os.environ.get(var, ROOT / default)).resolve()
    if not path.is_dir():
        msg = f"{var}={path} not found (real data is required, see README)"
        if os.environ.get("COMPRULES_REQUIRE_CORPUS") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """``../shared/corpus``: en/, raw/, formats/, metadata/."""
    return _data_dir("COMPRULES_CORPUS", "../shared/corpus")


@pytest.fixture(scope="session")
def en_dir(corpus_dir) -> Path:
    return corpus_dir / "en"


@pytest.fixture(scope="session")
def zh_dir(corpus_dir) -> Path:
    """``../shared/corpus/zh``: the 18 Simplified Chinese editions (a community translation)."""
    path = corpus_dir / "zh"
    if not path.is_dir():
        if os.environ.get("COMPRULES_REQUIRE_CORPUS") == "1":
            pytest.fail(f"{path} not found (real data is required, see README)")
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="session")
def zh_files(zh_dir) -> list[Path]:
    files = sorted(zh_dir.glob("*.txt"))
    assert len(files) == 18, f"expected the 18 Chinese editions, found {len(files)}"
    return files


@pytest.fixture(scope="session")
def zh_editions(zh_files) -> dict:
    """Every Chinese edition, parsed once per test session: name → Edition."""
    from comprules.corpus import load_sources

    result = load_sources(zh_files)
    assert result.errors == []
    return {e.name: e for e in result.editions}


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    return _data_dir("COMPRULES_SEEDS", "../shared/seeds")


@pytest.fixture(scope="session")
def en_files(en_dir) -> list[Path]:
    files = sorted(en_dir.glob("*.txt"))
    assert len(files) == 74, f"expected the 74 English editions, found {len(files)}"
    return files


@pytest.fixture(scope="session")
def seed_files(seeds_dir) -> list[Path]:
    files = sorted(seeds_dir.glob("*.txt"))
    assert len(files) == 5
    return files


@pytest.fixture(scope="session")
def editions(en_files, seed_files) -> dict:
    """Every English edition and seed, parsed once per test session: name → Edition."""
    from comprules.corpus import load_sources

    result = load_sources([*en_files, *seed_files])
    assert result.errors == []
    return {e.name: e for e in result.editions}


@pytest.fixture(scope="session")
def full_kb(tmp_path_factory, en_dir, zh_dir, seeds_dir):
    """The knowledge base of all 74 English editions, the 18 Chinese ones and the 5
    seeds, built once.

    Exactly what ``make site CORPUS="../shared/corpus/en ../shared/corpus/zh
    ../shared/seeds"`` builds: ``data/``, ``index/`` and ``site/``, with the cards of
    ``$COMPRULES_CARDS`` (default ``../shared/cards/oracle-cards.json``) when that file is
    there (``data/cards.sqlite``). Returns ``(kb_dir, report)``: the
    :class:`~comprules.build.BuildReport`, or under pytest-xdist (``make test`` runs a
    worker per core) its summary (``errors``, ``notices``, ``timings``, ``editions`` with their
    ``name``): the first worker to ask builds it, the others wait for it and read it.

    ``COMPRULES_TEST_KB=DIR`` (outside CI) uses a knowledge base already built from
    those sources instead, with no report: for iterating on the tests that only read it.
    """
    from comprules.build import build

    reuse = os.environ.get("COMPRULES_TEST_KB")
    if reuse and os.environ.get("CI") != "true":  # a developer's KB of the same sources, reused
        return Path(reuse).resolve(), None
    cards = Path(os.environ.get("COMPRULES_CARDS", ROOT / "../shared/cards/oracle-cards.json"))
    sources, card_file = [en_dir, zh_dir, seeds_dir], cards if cards.is_file() else None
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        kb = tmp_path_factory.mktemp("full") / "kb"
        return kb, build(sources, kb, cards=card_file)
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / "full"  # the workers' common temporary folder
    shared.mkdir(exist_ok=True)
    summary = shared / "report.json"
    with FileLock(str(shared / ".lock")):
        if not summary.is_file():
            report = build(sources, shared / "kb", cards=card_file)
            kept = {"errors": [str(e) for e in report.errors], "notices": report.notices, "timings": report.timings}
            kept["editions"] = [e.name for e in report.editions]
            summary.write_text(json.dumps(kept), encoding="utf-8")
    kept = json.loads(summary.read_text(encoding="utf-8"))
    kept["editions"] = [SimpleNamespace(name=n) for n in kept["editions"]]
    return shared / "kb", SimpleNamespace(**kept)
