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


def _card_file() -> Path | None:
    """The cards of ``full_kb``: ``$COMPRULES_CARDS`` (default
    ``../shared/cards/oracle-cards.json``), ``None`` when that file is not there."""
    cards = Path(os.environ.get("COMPRULES_CARDS", ROOT / "../shared/cards/oracle-cards.json"))
    return cards if cards.is_file() else None


def _full_sources() -> tuple[list[Path], Path | None] | None:
    """The sources and card file of ``full_kb`` as the fixtures find them, ``None`` when
    a folder is missing (the fixture then skips or fails) or a developer's knowledge base
    is reused (``COMPRULES_TEST_KB``)."""
    if os.environ.get("COMPRULES_TEST_KB") and os.environ.get("CI") != "true":
        return None
    corpus = Path(os.environ.get("COMPRULES_CORPUS", ROOT / "../shared/corpus")).resolve()
    seeds = Path(os.environ.get("COMPRULES_SEEDS", ROOT / "../shared/seeds")).resolve()
    sources = [corpus / "en", corpus / "zh", seeds]
    if not all(p.is_dir() for p in sources):
        return None
    return sources, _card_file()


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """The folder the xdist workers share (their temporary folders' parent), made."""
    shared = factory.getbasetemp().parent / "full"
    shared.mkdir(exist_ok=True)
    return shared


#: The files reading ``full_kb`` that take longest (seconds on two workers, 2026-12-06),
#: handed out first once the knowledge base is built: the last file to finish was
#: tests/test_site_browser.py (67 s), begun when the other worker had 52 s of work left.
LONGEST_FIRST = [
    "tests/test_site_browser.py",  # 67 s
    "tests/test_offline.py",  # 44 s
    "tests/test_search_site.py",  # 39 s
    "tests/test_browser.py",  # 31 s
    "tests/test_site.py",  # 28 s
    "tests/test_docs.py",  # 25 s
    "tests/test_chinese_search.py",  # 13 s
]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist: the test files that do not read ``full_kb`` first (the Makefile
    runs ``--dist loadfile --no-loadscope-reorder``: files go out in this order), then
    those that do, the longest first (:data:`LONGEST_FIRST`), and the
    knowledge base of ``full_kb`` built beside them from the end of the collection
    (``tests/_full_kb.py``), not by a worker that would leave the other waiting."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return

    def file_of(item: pytest.Item) -> str:
        return item.nodeid.partition("::")[0]

    reading = {file_of(item) for item in items if "full_kb" in getattr(item, "fixturenames", ())}

    def place(item: pytest.Item) -> tuple[bool, int]:
        name = file_of(item)
        longest = LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
        return (name in reading, longest if name in reading else 0)

    items.sort(key=place)  # stable: each file's order kept
    found = _full_sources()
    if reading and found is not None:
        import _full_kb

        _full_kb.start(_shared_dir(config._tmp_path_factory), *found)  # type: ignore[attr-defined]


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
    ``name``): built beside the tests from the end of the collection
    (:func:`pytest_collection_modifyitems`), or by the first worker to ask when that
    build failed; the others wait for it and read it.

    ``COMPRULES_TEST_KB=DIR`` (outside CI) uses a knowledge base already built from
    those sources instead, with no report: for iterating on the tests that only read it.
    """
    from comprules.build import build

    reuse = os.environ.get("COMPRULES_TEST_KB")
    if reuse and os.environ.get("CI") != "true":  # a developer's KB of the same sources, reused
        return Path(reuse).resolve(), None
    sources, card_file = [en_dir, zh_dir, seeds_dir], _card_file()
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        kb = tmp_path_factory.mktemp("full") / "kb"
        return kb, build(sources, kb, cards=card_file)
    import _full_kb
    from filelock import FileLock

    shared = _shared_dir(tmp_path_factory)
    summary = shared / "report.json"
    with FileLock(str(shared / ".lock")):
        if not summary.is_file():
            _full_kb.build_shared(shared, sources, card_file)
    kept = json.loads(summary.read_text(encoding="utf-8"))
    kept["editions"] = [SimpleNamespace(name=n) for n in kept["editions"]]
    return shared / "kb", SimpleNamespace(**kept)
