"""Lint and types (issue 16): ``ruff check`` on the whole tree, ``mypy`` with the
configuration of ``pyproject.toml`` (strict on ``model``, ``corpus``, ``references``),
and ``ruff format --check`` on the whole tree.

The tools come with ``pip install -e '.[test]'``; a missing tool fails here rather than
skipping, so that a change that breaks the lint is seen before it lands (``.ci/run``
runs the same commands before the tests).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: run .venv/bin/pip install -e '.[test]'")
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_check_passes_on_the_whole_tree() -> None:
    result = _run(_tool("ruff"), "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_catches_an_unused_import_and_a_mutable_default(tmp_path: Path) -> None:
    """The rule set is not empty: pyflakes and bugbear are on."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(x=[]):\n    return x\n")
    result = _run(_tool("ruff"), "check", "--no-cache", "--output-format", "concise", str(bad))
    assert result.returncode == 1
    assert "F401" in result.stdout and "B006" in result.stdout


def test_mypy_passes() -> None:
    result = _run(_tool("mypy"), "--no-error-summary")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_strict_on_model_corpus_references() -> None:
    """The three modules of the issue have strict's flags, and none of them is left unchecked."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    strict = next(o for o in config["overrides"] if "comprules.model" in o["module"])
    assert {"comprules.corpus.*", "comprules.references"} <= set(strict["module"])
    assert strict["disallow_untyped_defs"] and strict["disallow_any_generics"] and strict["warn_return_any"]
    unchecked = {m for o in config["overrides"] if o.get("ignore_errors") for m in o["module"]}
    assert not unchecked & set(strict["module"])


def test_the_whole_tree_is_formatted() -> None:
    result = _run(_tool("ruff"), "format", "--check", "--no-cache", ".")
    assert result.returncode == 0, "run .venv/bin/ruff format .:\n" + result.stdout + result.stderr


def test_no_script_of_the_site_declares_a_name_twice_at_its_top() -> None:
    """A ``var`` of a script's outer function (two spaces in; sw.js has none) declared
    again replaces the first for every function of the script: a second ``HAN_RUN`` (a keyword form's
    characters, not global) made the tokenizer's ``exec`` loop for ever and crashed the
    search page on every Chinese query."""
    import re

    twice = {}
    for script in sorted((ROOT / "src/comprules/site/static").glob("*.js")):
        text = script.read_text(encoding="utf-8")
        at = "" if re.search(r"^\(function", text, re.M) is None else "  "  # sw.js: no outer function
        names: list[str] = []
        for line in text.splitlines():
            m = re.match(at + r"(?:var|let|const|function) (.*)", line)
            if m:
                head = m.group(1)
                if line.startswith(at + "function "):
                    names.append(head.split("(")[0].strip())
                else:  # "A = 1, B = /x/g, C;": the names before each "=" at the top of the list
                    names += re.findall(
                        r"(?:^|,\s*)([A-Za-z_$][\w$]*)\s*(?==|,|;)", re.sub(r"/.*?/[a-z]*|\"[^\"]*\"", "", head)
                    )
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            twice[script.name] = repeated
    assert twice == {}
