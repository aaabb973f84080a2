"""The docs are kept true by tests (issue 16; datasette's ``tests/test_docs.py`` is the model).

* ``docs/cli.md`` is generated from every command's ``--help`` (``python tests/test_docs.py``
  writes it; ``make docs`` runs that first), and must equal what the help says now.
* Every command has a section in ``docs/guide.md`` naming each of its options, and every
  option a section names exists.
* Every command line shown in ``README.md`` and ``docs/*.md`` is parsed by the command line's
  own parser (unknown option, missing argument, bad value: the test fails), and the read
  commands among them are run as written on the full knowledge base.
* Every key of every ``--json`` output is in ``docs/json.md``, and every key it documents is
  in the output.
* Every read command takes ``--json`` and ``--kb``, or says in its help why not.
* ``make docs`` (MkDocs) builds without a warning and the pages load nothing from the network.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from comprules.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
CLI_MD = DOCS / "cli.md"
WIDTH = 100

#: Commands that read a knowledge base or a source and print a result: they take --json and --kb.
READ_COMMANDS = ["search", "show", "editions", "diff", "history", "export", "check", "card"]
#: Options every command has, documented once in the guide's introduction.
COMMON_OPTIONS = {"--help", "-h"}


# ---------------------------------------------------------------------------
# The CLI reference, from --help


def _root_context() -> click.Context:
    return main.make_context("comprules", [], resilient_parsing=True, terminal_width=WIDTH, max_content_width=WIDTH)


def command_help(name: str | None = None) -> str:
    """``comprules [NAME] --help`` as printed at a width of 100 columns."""
    root = _root_context()
    if name is None:
        return main.get_help(root)
    cmd = main.commands[name]
    return cmd.get_help(click.Context(cmd, info_name=name, parent=root))


def cli_reference() -> str:
    """The text of ``docs/cli.md``: the group's help, then each command's, in order."""
    parts = [
        "# CLI reference",
        "",
        "Generated from `comprules --help` and each command's `--help` (`make docs` writes it;",
        "`tests/test_docs.py` fails when it is out of date). Examples and details: [the user guide](guide.md).",
        "",
        "## comprules",
        "",
        "```",
        command_help().rstrip(),
        "```",
    ]
    for name in sorted(main.commands):
        parts += ["", f"## comprules {name}", "", "```", command_help(name).rstrip(), "```"]
    return "\n".join(parts) + "\n"


def test_cli_reference_is_the_help_of_every_command() -> None:
    assert CLI_MD.read_text(encoding="utf-8") == cli_reference(), "run: .venv/bin/python tests/test_docs.py"


def test_the_cli_reference_holds_every_command_and_option() -> None:
    text = CLI_MD.read_text(encoding="utf-8")
    for name, cmd in main.commands.items():
        assert f"## comprules {name}\n" in text
        for param in cmd.params:
            for opt in param.opts if isinstance(param, click.Option) else ():
                assert opt in text, (name, opt)


# ---------------------------------------------------------------------------
# The user guide: one section per command, naming its options


def _guide_sections() -> dict[str, str]:
    """``docs/guide.md``'s ``## `comprules NAME` `` sections: name → text."""
    text = (DOCS / "guide.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"^## `comprules (\w+)`\n(.*?)(?=^## |\Z)", text, re.M | re.S):
        out[m.group(1)] = m.group(2)
    return out


def _options(name: str) -> set[str]:
    return {opt for p in main.commands[name].params if isinstance(p, click.Option) for opt in p.opts}


def test_every_command_has_a_section_in_the_guide() -> None:
    assert sorted(_guide_sections()) == sorted(main.commands)


@pytest.mark.parametrize("name", sorted(main.commands))
def test_the_guide_documents_every_option_of(name: str) -> None:
    section = _guide_sections()[name]
    missing = sorted(o for o in _options(name) - COMMON_OPTIONS if not re.search(rf"`[^`]*{re.escape(o)}\b", section))
    assert missing == []


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_option_the_guide_names_exists(name: str) -> None:
    section = _guide_sections()[name]
    named = set()
    for code in re.findall(r"`([^`]+)`", section):
        if code.startswith(f"comprules {name}") or code.startswith("-"):
            named.update(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", code))
    assert sorted(named - _options(name) - COMMON_OPTIONS) == []


@pytest.mark.parametrize("name", sorted(main.commands))
def test_the_guide_gives_the_exit_codes_of(name: str) -> None:
    section = _guide_sections()[name]
    assert re.search(r"Exit codes?:", section), name


@pytest.mark.parametrize("name", READ_COMMANDS)
def test_every_read_command_takes_json_and_kb(name: str) -> None:
    assert {"--json", "--kb"} <= _options(name)


@pytest.mark.parametrize("name", sorted(set(main.commands) - set(READ_COMMANDS)))
def test_the_other_commands_take_json_and_kb_or_say_why_not(name: str) -> None:
    options, help_text = _options(name), command_help(name)
    for option in ("--json", "--kb"):
        assert option in options or f"No {option}:" in help_text, (name, option)


def test_a_usage_error_is_one_line_on_stderr_and_exit_2() -> None:
    for args, words in [
        (["show"], "show: Missing argument 'NUMBER'"),
        (["search", "x", "--lang", "de"], "search: Invalid value for '--lang'"),
        (["nope"], "No such command 'nope'"),
        (["diff", "a", "b", "--frobnicate"], "diff: No such option '--frobnicate'"),
        # a command without --json prints paths for the shell: no JSON error on stdout
        (["fetch", "--latest", "--json"], "fetch: No such option '--json'"),
        # an error click gives without the command's context (a trial: no "show:", no hint)
        (["show", "702.19", "--json=1"], "show: Option '--json' does not take a value"),
    ]:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, args
        assert result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"comprules: {words}"), line
        assert line.endswith("--help)")


# ---------------------------------------------------------------------------
# Every command line in README.md and docs/


def _doc_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


_SYNOPSIS = re.compile(r"\s\[|…|\.\.\.|\$\(")


def documented_command_lines() -> list[tuple[str, int, list[str], bool]]:
    """(file, line, argv after ``comprules``, whole) of every command line of README.md and
    docs/. Whole: a line of a ```sh block, or a ``$ comprules …`` line of any block (the
    prompt and a ``.venv/bin/`` prefix taken off, a comment after ``#`` dropped, the line
    cut at a pipe or a redirection). Not whole: an inline `` `comprules …` `` span of the
    prose, which may name a command and some options only (`` `comprules search --json` ``).
    Synopses (``[--kb DIR]``, ``SOURCE...``) and ``$(…)`` are the reference's, left out."""
    out = []
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        block = None
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("```"):
                block = None if block is not None else line.strip().removeprefix("```")
                continue
            candidates: list[tuple[str, bool]] = []
            stripped = line.strip()
            if block in ("sh", "console", "bash") or (block is not None and stripped.startswith("$ comprules")):
                candidates.append((stripped.removeprefix("$ "), True))
            elif block is None:
                candidates += [(c, False) for c in re.findall(r"`((?:\.venv/bin/)?comprules [^`]+)`", line)]
            for cmd, whole in candidates:
                if _SYNOPSIS.search(cmd):
                    continue
                try:
                    words = shlex.split(cmd, comments=True)
                except ValueError:
                    continue
                if words and words[0].removeprefix(".venv/bin/") == "comprules" and len(words) > 1:
                    end = next((k for k, w in enumerate(words) if w in ("|", ">", "&&", ";")), len(words))
                    out.append((path.name, number, words[1:end], whole))
    return out


def test_the_docs_show_every_command() -> None:
    shown = {argv[0] for _, _, argv, whole in documented_command_lines() if whole}
    assert shown == set(main.commands)


def test_the_docs_show_many_command_lines() -> None:
    lines = documented_command_lines()
    assert sum(whole for *_, whole in lines) > 40 and sum(not whole for *_, whole in lines) > 20


@pytest.mark.parametrize(
    "where,argv,whole",
    [(f"{f}:{n}", a, w) for f, n, a, w in documented_command_lines()],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_documented_command_line_parses(where: str, argv: list[str], whole: bool) -> None:
    """The parser of the command line itself reads a whole line: options, arguments, values.
    An inline span names a command and options that exist."""
    if argv[0] in ("--help", "-h", "--version") or argv[0].isupper():  # the group's options; COMMAND
        return
    assert argv[0] in main.commands, f"{where}: no such command {argv[0]!r}"
    if not whole:
        named = {w.split("=")[0] for w in argv[1:] if re.fullmatch(r"--?[a-z][\w-]*(=.*)?", w)}
        assert sorted(named - _options(argv[0]) - COMMON_OPTIONS) == [], where
        return
    cmd = main.commands[argv[0]]
    try:
        cmd.make_context(argv[0], list(argv[1:]), parent=_root_context())
    except click.UsageError as exc:
        pytest.fail(f"{where}: comprules {shlex.join(argv)}: {exc.format_message()}")


#: Documented lines not run by test_documented_commands_run, only parsed: ``serve`` runs until
#: stopped (tests/test_server.py runs it), ``fetch`` downloads (tests/test_fetch.py runs it
#: against a local mirror), and a ``build`` of folders takes minutes (the ``full_kb`` fixture
#: is that build).
NOT_RUN = {"serve", "fetch"}


def _sources_are_files(argv: list[str]) -> bool:
    """A ``build`` line whose SOURCES (as the command's parser reads them) are all files."""
    sources = main.commands["build"].make_context("build", list(argv[1:]), parent=_root_context()).params["sources"]
    return bool(sources) and all((ROOT / a).is_file() for a in sources)


@pytest.mark.slow
def test_documented_commands_run(full_kb, tmp_path) -> None:
    """Every read command shown in the docs, run as written (``--kb`` pointed at the full
    knowledge base, ``-o`` into a temporary folder), and every ``build`` of source files
    (into a temporary knowledge base): exit 0, or 1 for ``check`` (it reports the defects of
    the CR), and something printed."""
    kb, _ = full_kb
    failures = []
    ran = 0
    for where, line, argv, whole in documented_command_lines():
        if not whole or argv[0] in NOT_RUN or (argv[0] == "build" and not _sources_are_files(argv)):
            continue
        args = list(argv)
        target = str(tmp_path / f"kb{ran}") if argv[0] == "build" else str(kb)
        if "--kb" in args:
            args[args.index("--kb") + 1] = target
        else:
            args += ["--kb", target]
        if "-o" in args:
            args[args.index("-o") + 1] = str(tmp_path / "out.json")
        result = subprocess.run(
            [sys.executable, "-m", "comprules.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        ran += 1
        allowed = {0, 1} if argv[0] == "check" else {0}
        if result.returncode not in allowed or not (result.stdout or "-o" in args):
            failures.append(
                f"{where}:{line}: comprules {shlex.join(argv)} → {result.returncode} {result.stderr[-300:]}"
            )
    assert ran > 40
    assert failures == []


# ---------------------------------------------------------------------------
# JSON keys


def _json_sections() -> dict[str, str]:
    text = (DOCS / "json.md").read_text(encoding="utf-8")
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r"^## .*?`comprules (\w+)[^`]*`.*?\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    }


def documented_keys(section: str) -> set[str]:
    """The keys of the shapes a section prints: every ``"key"`` of a backticked ``{…}`` or
    ``[{…}]`` span followed by ``,`` ``:`` ``}`` or ``]``, and every ``"key":`` of a ```json block."""
    shapes = re.findall(r"`(\[?\{[^`]*)`", section)
    blocks = re.findall(r"```json\n(.*?)```", section, re.S)
    return {k for span in shapes for k in re.findall(r'"(\w+)"\s*(?=[,:}\]])', span)} | {
        k for block in blocks for k in re.findall(r'"(\w+)"\s*:', block)
    }


def keys_of(data: object, skip: frozenset[str] = frozenset()) -> set[str]:
    """Every key of every object in ``data``, at any depth, but not inside the values of ``skip``
    (objects whose keys are data: stage names, rule numbers)."""
    found: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            found.add(k)
            if k not in skip:
                found |= keys_of(v, skip)
    elif isinstance(data, list):
        for item in data:
            found |= keys_of(item, skip)
    return found


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory, en_dir, seeds_dir, zh_dir):
    """2009-05-01 and 2009-07-11 (the renumbering), 2026-04-17 and its Chinese translation,
    seed 000 (French): data and index, no site."""
    src = tmp_path_factory.mktemp("docs-src")
    for path in (en_dir / "2009-05-01.txt", en_dir / "2009-07-11.txt", en_dir / "2026-04-17.txt"):
        shutil.copy(path, src / path.name)
    zh = tmp_path_factory.mktemp("docs-zh")
    shutil.copy(zh_dir / "2026-04-17.txt", zh / "2026-04-17.txt")
    seed = sorted(seeds_dir.glob("000_*.txt"))[0]
    kb = tmp_path_factory.mktemp("docs-kb") / "kb"
    result = CliRunner().invoke(main, ["build", str(src), str(zh), str(seed), "--kb", str(kb), "--only", "data,index"])
    assert result.exit_code == 0, result.output
    return kb


def _json_of(kb: Path, *args: str) -> object:
    result = CliRunner().invoke(main, [*args, "--kb", str(kb), "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


#: One run per --json command, on the small knowledge base: (args, keys whose values are keyed by data).
JSON_RUNS = {
    "search": [(["search", "morph", "--all-editions"], ()), (["search", "deathtuch"], ()), (["search", "502.26a"], ())],
    "show": [
        (["show", "702.37a", "--edition", "en/2026-04-17"], ()),
        (["show", "702.19b", "--edition", "zh/2026-04-17"], ()),
    ],
    "editions": [(["editions"], ())],
    "diff": [(["diff", "2009-05-01", "2009-07-11", "--section", "502"], ())],
    "history": [(["history", "702.34a", "--edition", "en/2009-07-11"], ())],
    "check": [(["check", "--edition", "en/2009-07-11"], ())],
    "export": [(["export", "en/2009-07-11"], ()), (["export", "en/2009-05-01"], ())],
}


@pytest.mark.parametrize("name", sorted(JSON_RUNS))
def test_every_json_key_is_documented_and_every_documented_key_exists(name, small_kb, seeds_dir) -> None:
    section = _json_sections()[name]
    documented = documented_keys(section)
    assert documented, f"json.md has no shape for comprules {name}"
    found: set[str] = set()
    for args, skip in JSON_RUNS[name]:
        found |= keys_of(_json_of(small_kb, *args), frozenset(skip))
    undocumented, absent = sorted(found - documented), sorted(documented - found)
    assert undocumented == [], f"keys of comprules {name} --json missing from docs/json.md: {undocumented}"
    assert absent == [], f"keys docs/json.md gives comprules {name} that it does not print: {absent}"


def test_build_json_keys_are_documented(small_kb, en_dir) -> None:
    result = CliRunner().invoke(
        main, ["build", str(en_dir / "2009-07-11.txt"), "--kb", str(small_kb.parent / "b"), "--only", "data", "--json"]
    )
    assert result.exit_code == 0, result.output
    found = keys_of(json.loads(result.stdout), frozenset({"timings"}))
    documented = documented_keys(_json_sections()["build"])
    assert found == documented


# ---------------------------------------------------------------------------
# README and MkDocs


def test_readme_is_a_front_page_of_at_most_120_lines() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    for words in ("make site", "make test", "docs/guide.md", "docs/design.md", "docs/measurements.md"):
        assert words in text


def test_every_doc_page_is_in_the_mkdocs_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(re.findall(r"(\w+\.md)", config)) == pages


@pytest.mark.skipif(
    shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists(),
    reason="mkdocs comes with pip install -e '.[test]'",
)
def test_mkdocs_builds_the_docs_strict_and_offline(tmp_path) -> None:
    """``mkdocs build --strict`` passes (no broken link, no page left out), and no page loads a
    script, style sheet, font or image from the network (links to other sites are fine)."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    out = tmp_path / "site"
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    pages = sorted(out.rglob("*.html"))
    assert {p.relative_to(out).as_posix() for p in pages} >= {
        "index.html",
        "guide/index.html",
        "cli/index.html",
        "json/index.html",
        "design/index.html",
    }
    loaded = re.compile(r"<(?:script|img|iframe|source)\b[^>]*\bsrc=\"(https?:)?//|<link\b[^>]*\bhref=\"(https?:)?//")
    remote = [p.name for p in pages if loaded.search(p.read_text(encoding="utf-8"))]
    css = [
        p.name
        for p in out.rglob("*.css")
        if re.search(r"(@import|url\()\s*['\"]?(https?:)?//", p.read_text(encoding="utf-8"))
    ]
    assert remote == [] and css == []
    guide = (out / "guide" / "index.html").read_text(encoding="utf-8")
    assert "comprules search" in guide


if __name__ == "__main__":  # `make docs`: write docs/cli.md from --help
    CLI_MD.write_text(cli_reference(), encoding="utf-8")
    print(f"wrote {CLI_MD.relative_to(ROOT)}")
