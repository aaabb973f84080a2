"""The ``comprules`` command line: parse arguments, call one library function, print.

Exit codes (DESIGN.md): 0 ok, 1 nothing found, 2 bad usage or bad input (one clear
line on stderr). Library errors (:mod:`comprules.errors`) become that one line here
and nowhere else.

Every command runs inside :class:`_Commands` (the group), which gives them all the
same endings: SIGINT and SIGTERM print one line (what was kept, for a build) and exit
130 / 143; an OS error on the output (``ENOSPC`` on ``> /dev/full``, ``--help`` too)
prints one line and exits 2; a closed pipe (``| head``) ends the output without a word
and the command exits with its own code (:func:`_out`).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from . import languages
from .errors import BuildLocked, ComprulesError, Interrupted, NotFound, UsageError, echo, said
from .export import names_a_file

KB_HELP = "knowledge base directory (default ./build or $COMPRULES_KB)"


#: Whether the command line asked for ``--json``: then every error is JSON on stdout too.
_JSON = {"asked": False}


def _json_error(code: int, message: str) -> None:
    """``{"error": {"code", "message"}}`` on stdout when ``--json`` was asked (a reader of
    JSON always gets JSON, docs/json.md "Errors")."""
    if _JSON["asked"]:
        try:
            _out(json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False))
            _flush_stdout()
        except OSError:  # a full stdout (> /dev/full): the line on stderr has said it all
            _silence_stdout()


class Fail(click.ClickException):
    """One line on stderr and exit code 2: bad usage or bad input."""

    exit_code = 2

    def __init__(self, message: str):
        # a 10,000-character argument is not printed back whole: each run of over 200
        # characters without a space is cut (comprules.errors.echo)
        super().__init__(" ".join(echo(word) for word in message.split(" ")))

    def show(self, file: Any = None) -> None:
        click.echo(f"comprules: {self.format_message()}", err=True)
        _json_error(self.exit_code, self.format_message())


class NothingFound(Fail):
    """One line on stderr and exit code 1: nothing found."""

    exit_code = 1


def _usage_line(exc: click.UsageError, path: str | None = None) -> Fail:
    """A usage error of click (unknown option, missing argument, bad value) as one line,
    ``comprules: show: Missing argument 'NUMBER' (comprules show --help)``, instead of
    click's four (Usage / Try / blank / Error). ``path``: the command's, for an error
    click gives without its context (``--json=1``: "Option '--json' does not take a value")."""
    message = " ".join(exc.format_message().split()).removesuffix(".")
    if exc.ctx is not None:
        path = exc.ctx.command_path
    if path is None:
        return Fail(message)
    command = path.partition(" ")[2]
    return Fail(f"{command + ': ' if command else ''}{message} (see {path} --help)")


def _run(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except NotFound as exc:
        raise NothingFound(str(exc)) from None
    except (UsageError, BuildLocked, ComprulesError) as exc:
        raise Fail(str(exc)) from None
    except OSError as exc:  # an output path that is a file, a folder, or not writable
        raise Fail(said(exc)) from None


@contextmanager
def _signals():
    """SIGINT and SIGTERM raise :class:`~comprules.errors.Interrupted` while a command runs
    (the main thread only; the previous handlers are put back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner = os.getpid()

    def handler(signum, _frame):
        if os.getpid() != owner:  # a forked worker (the site's pool, terminated with SIGTERM): die as before
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that the interpreter's last flush of a
    broken or full stdout raises nothing more ("Exception ignored …")."""
    from .progress import silence

    silence(sys.stdout)


def _flush_stdout() -> None:
    """Flush stdout now, so that a full disk shows here (an :class:`OSError` to report)
    and not in the interpreter's last flush; a closed pipe silences it (:func:`_out`)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _out(text: str, nl: bool = True) -> None:
    """Print to stdout. A reader that went away (``| head``, ``| true``) ends the output
    without a word: stdout goes to /dev/null and the command ends with its own exit code
    (0, or 1 for nothing found), the same whether the reader closed before or after the
    output was written (docs/guide.md, "Exit codes")."""
    try:
        click.echo(text, nl=nl)
    except BrokenPipeError:
        _silence_stdout()


def _output_error(exc: OSError) -> click.exceptions.Exit:
    """The one line for an OS error on the output (``ENOSPC`` on ``> /dev/full``), exit 2;
    a closed pipe: no word, exit 0 (:func:`_out`)."""
    _silence_stdout()
    if exc.errno == errno.EPIPE:
        return click.exceptions.Exit(0)
    where = f"{exc.filename}: " if exc.filename else "cannot write the output: "
    click.echo(f"comprules: {where}{exc.strerror or exc}", err=True)
    return click.exceptions.Exit(2)


class _Commands(click.Group):
    """The ``comprules`` group: each command runs with :func:`_signals`, and its
    interruptions, output errors and usage errors end in one line and an exit code."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        own = args[: args.index("--")] if "--" in args else args
        # only a command that takes --json answers its errors in JSON (`fetch --json` prints
        # paths for the shell: its error stays on stderr alone)
        command = self.commands.get(next((a for a in own if not a.startswith("-")), ""))
        takes = command is not None and any("--json" in getattr(p, "opts", ()) for p in command.params)
        _JSON["asked"] = "--json" in own and takes
        try:
            try:
                return super().make_context(info_name, args, parent, **extra)
            finally:
                _flush_stdout()  # --help, --version: printed while the arguments are parsed
        except click.exceptions.NoArgsIsHelpError:
            raise  # plain `comprules`: the help
        except click.UsageError as exc:  # an option of the group itself: `comprules --bogus`
            raise _usage_line(exc) from None
        except OSError as exc:  # `comprules --help > /dev/full`, `--version | true`
            raise _output_error(exc) from None

    def invoke(self, ctx: click.Context):
        try:
            with _signals():
                try:
                    return super().invoke(ctx)
                finally:
                    _flush_stdout()  # before the exit code is given, whatever it is
        except click.exceptions.NoArgsIsHelpError:
            raise  # `comprules build` with nothing: the command's help
        except click.UsageError as exc:  # a command's arguments, or an unknown command
            sub = ctx.invoked_subcommand
            raise _usage_line(exc, f"{ctx.command_path} {sub}" if sub else None) from None
        except KeyboardInterrupt as exc:  # Interrupted too
            signum = getattr(exc, "signum", signal.SIGINT)
            message = getattr(exc, "message", "interrupted")
            click.echo(f"comprules: {message}", err=True)
            try:
                _json_error(128 + signum, message)
            except OSError:
                pass
            raise click.exceptions.Exit(128 + signum) from None
        except OSError as exc:
            raise _output_error(exc) from None


class _Size(click.ParamType):
    """A size: ``50000000``, ``50M``, ``1024K``, ``1G`` (powers of 1000: 50M = 50,000,000)."""

    name = "size"
    _UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().upper().removesuffix("B")
        unit = text[-1:] if text[-1:] in "KMG" else ""
        number = text[: len(text) - len(unit)]
        if not number.isdigit() or int(number) <= 0:
            self.fail(f"{value!r} is not a size (a positive number, optionally with K, M or G)", param, ctx)
        return int(number) * self._UNITS[unit]


SIZE = _Size()


def _edition_value(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An edition option or argument: an empty one is a usage error, not the latest."""
    if value is not None and not value.strip():
        raise click.BadParameter("empty: give an edition such as en/2026-08-07 (`comprules editions` lists them)")
    return value


def _section_value(value: str | None) -> str | None:
    """``--section``: an empty one is refused as search refuses it, not taken for none."""
    if value is not None and not value.strip():
        raise Fail(f"bad section {value!r} (a section such as 702, or a chapter such as 7)")
    return value


def _not_empty(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise click.BadParameter("empty: give a file name (or leave -o out for stdout)")
    return value


def _is_source(spec: str | None) -> bool:
    """Whether an edition names a source file, parsed on the fly (not an export's JSON)."""
    return names_a_file(spec) and not str(spec).endswith(".json")


def _note_after_latest(kb, spec: str | None) -> None:
    """``note:`` on stderr when ``spec`` is a day after every edition known
    (:meth:`~comprules.kb.KnowledgeBase.after_latest`); nothing when it names no edition
    (the command itself then says so)."""
    if kb is None or not spec or _is_source(spec):
        return
    try:
        note = kb.after_latest(spec, kb.resolve_name(spec))
    except ComprulesError:
        return
    if note:
        click.echo(f"comprules: note: {note}", err=True)


def _kb(path: str | None):
    from .kb import KnowledgeBase, default_kb  # not .build: a read command needs no build stage

    if path is not None and not path.strip():
        raise Fail("--kb: empty: give a knowledge base folder (or leave --kb out for ./build or $COMPRULES_KB)")
    return _run(KnowledgeBase, Path(path) if path else default_kb())


def _count(n: int, noun: str) -> str:
    """``1 edition``, ``79 editions``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _emit_json(data) -> None:
    _out(json.dumps(data, ensure_ascii=False, indent=1))


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="comprules")
def main() -> None:
    """Knowledge base, search and offline site for the Magic: The Gathering Comprehensive Rules."""


#: Set by a command whose process may end without freeing its objects one by one
#: (``build``: 0.8 s of a rebuild freeing the 400 MB of editions, alignments and pages it
#: held, after its last line is printed).
_QUICK_EXIT = False


def entry() -> None:
    """The ``comprules`` command: :func:`main`, then, after a command that set
    :data:`_QUICK_EXIT`, the process's end without the interpreter's teardown: the
    exit functions run (``atexit``: temporary folders, child processes), the other
    threads are waited for and the output flushed, as at a normal exit, then
    :func:`os._exit` with the exit code ``main`` gave. A traceback or any other
    ending is left as it is, and so is every ending under a profiler or a tracer
    (``python -m cProfile -m comprules.cli``, coverage: they write their figures at exit)."""
    for name in ("stdout", "stderr"):  # started with the stream closed (`comprules editions >&-`)
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - kept to the end
    try:
        main()
    except SystemExit as exc:
        # under a profiler or a tracer (cProfile, coverage), which write at the normal exit
        if not _QUICK_EXIT or sys.getprofile() is not None or sys.gettrace() is not None:
            raise
        code = exc.code
    else:  # pragma: no cover - click always ends with SystemExit in standalone mode
        return
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: said already, when it mattered
            pass
    os._exit(code)


@main.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path())
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option(
    "--only",
    multiple=True,
    default=["data,index,site"],
    show_default=True,
    help="stages to write: data,index,site (or the option again: --only data --only index)",
)
@click.option(
    "--jobs",
    "-j",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="parallel parsing processes (1 is fastest for text)",
)
@click.option(
    "--max-source-size",
    "max_source",
    type=SIZE,
    default="50M",
    show_default=True,
    help="refuse a source file larger than this (bytes; K, M, G)",
)
@click.option(
    "--max-line-length",
    "max_line",
    type=SIZE,
    default="1M",
    show_default=True,
    help="refuse a source with a line longer than this (characters; K, M)",
)
@click.option(
    "--cards",
    "cards_file",
    type=click.Path(dir_okay=False),
    help="a card file (Scryfall oracle-cards or MTGJSON AtomicCards.json): its cards and the rules they call on",
)
@click.option("--json", "as_json", is_flag=True, help="print the build report as JSON")
def build(sources, kb_dir, only, jobs, max_source, max_line, cards_file, as_json):
    """Build the knowledge base from SOURCES (files or folders of CR text, PDF, DOCX).

    A source that cannot be read gives one error line naming it; the others are built
    and the exit code is 2. What is up to date is kept: a build with nothing changed
    takes about a second.
    """
    from .build import STAGES, default_kb
    from .build import build as run_build
    from .corpus.load import Limits

    stages = tuple(dict.fromkeys(s.strip() for s in ",".join(only).split(",") if s.strip()))
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise Fail(f"--only: unknown stage {unknown[0]!r} (choose from {', '.join(STAGES)})")
    if not stages:  # a trial: --only "" built nothing and said "nothing changed: kept  (0.0 s)"
        raise Fail(f"--only: empty: give one or more of {', '.join(STAGES)} (or leave --only out for all)")
    if kb_dir is not None and not kb_dir.strip():  # as the read commands say (a trial: it built ./build)
        raise Fail("--kb: empty: give a knowledge base folder (or leave --kb out for ./build or $COMPRULES_KB)")
    from .progress import lines

    say = lines(quiet=as_json)
    report = _run(
        run_build,
        list(sources),
        Path(kb_dir) if kb_dir else default_kb(),
        only=stages,
        jobs=jobs,
        progress=say,
        limits=Limits(max_source, max_line),
        cards=cards_file,
    )
    from .progress import to_stderr

    for err in report.errors:
        to_stderr(f"error: {err}")
    for note in report.notices:
        to_stderr(f"warning: {note}")
    if as_json:
        _emit_json(
            {
                "kb": str(report.kb),
                "editions": report.names,
                "errors": [str(e) for e in report.errors],
                "warnings": report.notices,
                "kept": report.kept,
                "reused": report.reused,
                "written": report.written,
                "kept_files": report.kept_files,
                "timings": {k: round(v, 3) for k, v in report.timings.items()},
            }
        )
    else:
        done = "nothing changed, kept" if report.kept and not report.editions else "built"
        _out(
            f"{done} {_count(len(report.names), 'edition')} ({_count(report.rules, 'rule')}) into {report.kb}"
            + (f"; {len(report.errors)} file(s) failed" if report.errors else "")
        )
    global _QUICK_EXIT
    _QUICK_EXIT = True  # everything is said: the heap need not be freed object by object
    if report.errors:
        sys.exit(2)  # bad input: the good sources are built, the exit code still says so


@main.command()
@click.argument("query")
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option("--edition", "-e", callback=_edition_value, help="edition to search (default: latest of each language)")
@click.option(
    "--all-editions",
    "all_editions",
    is_flag=True,
    help='every edition; the versions of a rule make one hit ("also in N editions")',
)
@click.option("--lang", type=click.Choice([*languages.codes(), "any"]), default="any", show_default=True)
@click.option("--section", help="only rules of this section or chapter (702, 7)")
@click.option(
    "--kind",
    type=click.Choice(["rule", "example", "glossary", "note", "any"]),
    default="any",
    show_default=True,
    help="only rules, examples, glossary entries or notes",
)
@click.option("--limit", "-n", default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def search(query, kb_dir, edition, all_editions, lang, section, kind, limit, as_json):
    """Ranked full-text search (rule numbers, words, "phrases", AND/OR/NOT, prefix*, fuzzy~1)."""
    from .kb import search as run_search

    if edition and all_editions:
        raise Fail("--edition and --all-editions exclude each other")
    kb = None if names_a_file(edition) else _kb(kb_dir)
    _note_after_latest(kb, edition)
    result = _run(
        run_search,
        kb,
        query,
        edition=edition,
        all_editions=all_editions,
        lang=lang,
        section=section,
        kind=kind,
        limit=limit,
    )
    if as_json:
        _emit_json(result.as_json())
    else:
        from .render_text import print_hits

        print_hits(result)
    if not result.hits:
        sys.exit(1)


@main.command()
@click.argument("name")
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option("--edition", "-e", callback=_edition_value, help="edition whose rules to list (default: latest English)")
@click.option("--glossary", is_flag=True, help="mark glossary terms too (card, player, draw…)")
@click.option("--json", "as_json", is_flag=True)
def card(name, kb_dir, edition, glossary, as_json):
    """Print a card's text with each span that calls on rules marked, and those rules.

    NAME is the card's name in any case, a plural ("notion thieves"), a face's name, a near
    spelling, or a part of only one card's name ("urborg tomb"). The knowledge base must
    have been built with --cards FILE.
    """
    from .cards.view import card_json, card_text, index_of

    root = Path(kb_dir) if kb_dir else None
    if root is None:
        from .kb import default_kb

        root = default_kb()
    index = _run(index_of, root / "data")
    match = _run(index.find, name)
    if edition:
        name_ed = _run(_kb(str(root)).resolve_name, edition)
    else:
        from .cards import store

        english = [e for e in store.editions(index.db) if e.startswith("en/")]
        if not english:
            raise Fail(f"the card data of {root} holds no English edition's rules; give --edition")
        name_ed = english[-1]
    view = _run(card_json, index, match, name_ed)
    if as_json:
        _emit_json(view)
    else:
        _out(card_text(view, glossary=glossary))


@main.command()
@click.argument("number")
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option("--edition", "-e", callback=_edition_value, help="edition (default: latest English)")
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--raw",
    is_flag=True,
    help='the texts as the source printed them ("?" a lossy file lost, the 2003-04 symbol font {o3})',
)
def show(number, kb_dir, edition, as_json, raw):
    """Print one rule with its subrules, examples, references and "cited by"."""
    from .kb import show_rule

    _run(_a_number, number)

    if _is_source(edition):  # parsed on the fly, no knowledge base needed: citations within it only
        from .corpus import parse_file

        view = _run(show_rule, _run(parse_file, edition), number)
    else:
        kb = _kb(kb_dir)
        if kb.undated(edition, None) is None:  # fr/latest: the French document holding the rule
            _run(kb.resolve_name, edition)
            _note_after_latest(kb, edition)
        view = _run(kb.show, edition, number, raw=raw)
    if as_json:
        _emit_json(view.to_json())
    else:
        from .render_text import print_rule

        print_rule(view)


def _a_number(typed: str) -> None:
    """Raise :class:`UsageError` for what is no rule number; for words, naming the search
    that finds a rule by its words (a trial: `show trample` said only that it was no number)."""
    from .model import normalize_number

    try:
        normalize_number(typed)
    except UsageError as exc:
        words = typed.strip()
        if words and not any(ch.isdigit() for ch in words) and len(words) <= 80:
            import shlex

            raise UsageError(f"{exc}; to find a rule by its words: comprules search {shlex.quote(words)}") from None
        raise


@main.command()
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option("--json", "as_json", is_flag=True)
def editions(kb_dir, as_json):
    """List the editions of the knowledge base: name, effective date, set, set code, rule count.

    Any of these names an edition wherever a command takes one (--edition BLB,
    --edition Bloomburrow, the official file date 2024-08-02, or a day such as
    2024-09-01 for the edition in force then).
    """
    kb = _kb(kb_dir)
    if as_json:
        _emit_json({"editions": [e.to_json() for e in kb.editions]})
        return
    from .kb import update_names

    whole = update_names()  # an update by the whole name that reaches it ("Mirrodin (Dec. update)")
    for e in kb.editions:
        label = (whole.get(e.effective or "", e.set) if e.lang == "en" and not e.code else e.set) or e.title
        _out(f"{e.name:<28} {e.effective or '—':<10}  {(e.code or ''):<4} {e.rules:>5} rules  {label}")


@main.command()
@click.argument("old", callback=_edition_value)
@click.argument("new", callback=_edition_value)
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option(
    "--section",
    "-s",
    callback=lambda ctx, param, value: _section_value(value),
    help="only this section or chapter (702, 7), on either side",
)
@click.option("--json", "as_json", is_flag=True)
def diff(old, new, kb_dir, section, as_json):
    """Compare two editions: where every rule went (renumbered too) and the words that changed."""
    from .align.history import diff as run_diff
    from .align.history import format_diff

    kb = None if names_a_file(old) and names_a_file(new) else _kb(kb_dir)
    for spec in (old, new):
        _note_after_latest(kb, spec)
    alignment = _run(run_diff, kb, old, new, section=section)
    _out(json.dumps(alignment.to_json(), ensure_ascii=False, indent=1) if as_json else format_diff(alignment))


@main.command()
@click.argument("number")
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option(
    "--edition", "-e", callback=_edition_value, help="edition the number belongs to (default: latest English)"
)
@click.option("--json", "as_json", is_flag=True)
def history(number, kb_dir, edition, as_json):
    """One rule's lineage across every edition: each renumbering and each change of words."""
    from .align.history import format_history, kb_history
    from .kb import normalize_number

    number = _run(normalize_number, number)
    if _is_source(edition):
        raise Fail(
            f"--edition {edition}: is a source file; a history is read from the stored alignments of a "
            "knowledge base: build it (comprules build FILE... --kb DIR) and name its edition"
        )
    kb = _kb(kb_dir)
    _note_after_latest(kb, edition)
    steps = _run(kb_history, kb, number, edition)
    now = steps[-1] if steps else None
    if edition is None and now is not None and now.number != number and now.kind != "removed":
        click.echo(f"comprules: note: {number} is {now.number} now: its history", err=True)
    if as_json:
        _emit_json({"lineage": [s.to_json() for s in steps]})
    else:
        _out(format_history(number, steps))


@main.command(name="export")
@click.argument("edition", callback=_edition_value)
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    callback=lambda ctx, param, value: _not_empty(value),
    help="write to FILE instead of stdout",
)
@click.option("--json", "as_json", is_flag=True, help="accepted for symmetry: the output is always JSON")
@click.option(
    "--site",
    "as_site",
    is_flag=True,
    help="write the edition's pages, search data and static files as one zip (the Data page's download; needs -o FILE.zip)",
)
def export_cmd(edition, kb_dir, output, as_json, as_site):
    """Print the per-edition JSON (DESIGN.md export shape), or with --site write the
    edition as a zip that opens from disk.

    EDITION is an edition of the knowledge base or a source file (parsed on the fly;
    not with --site, which reads the built site).
    """
    from . import export, references

    if output == "-":  # the usual name of standard output
        if as_site:
            raise Fail("--site writes a zip: give -o FILE.zip, not -")
        output = None
    if output and not as_site and output.lower().endswith(".zip"):  # JSON in a file named .zip
        raise Fail(f"-o {output}: the export is JSON; --site writes the edition as a zip (nothing was written)")
    if output and names_a_file(edition) and Path(output).exists() and os.path.samefile(edition, output):
        raise Fail(f"-o {output}: is the source file being exported; give another file (nothing was written)")
    if output and not names_a_file(edition):  # from a knowledge base: never into its own files
        from .kb import default_kb

        kb_root = Path(kb_dir) if kb_dir else default_kb()
        target = Path(output).resolve()
        for part in ("data", "index", "site"):
            if (kb_root / part).exists() and target.is_relative_to((kb_root / part).resolve()):
                raise Fail(
                    f"-o {output}: is inside the knowledge base's {part}/, which export reads; give another file"
                )
    if as_site:
        from .indexer.export import edition_search
        from .site.bundle import bundle

        if not output:
            raise Fail("--site writes a zip: give -o FILE.zip")
        if names_a_file(edition):
            raise Fail(
                f"--site takes an edition of the knowledge base (its pages and search), not a source file: {edition}"
            )
        kb = _kb(kb_dir)
        name = _run(kb.resolve_name, edition)
        if kb.info(name).effective is None:  # the French documents: no zip (bundle.site_downloads)
            raise Fail(f"{name} is an undated document: only a dated edition downloads as a zip")
        _note_after_latest(kb, edition)
        search = _run(edition_search, kb.index_dir, name)
        _run(export.write_output, output, _run(bundle, kb.root / "site", kb.index_dir, name, search=search))
        return
    if names_a_file(edition):
        from .corpus import parse_file

        ed = _run(parse_file, edition)
        text = export.dumps(export.edition_to_dict(ed, references.resolve(ed)))
    else:  # from the database (citations resolved across editions by the build)
        from .store.exports import edition_export

        kb = _kb(kb_dir)
        name = _run(kb.resolve_name, edition)
        _note_after_latest(kb, edition)
        text = export.dumps(edition_export(kb.store, name))
    if output:
        _run(export.write_output, output, text)
    else:
        _out(text, nl=False)


@main.command()
@click.argument("dates", nargs=-1)
@click.option("--latest", is_flag=True, help="the newest known edition (the default when no DATE is given)")
@click.option("--all", "all_editions", is_flag=True, help="every known edition that has a download URL")
@click.option("-d", "--dir", "dest", type=click.Path(), help="cache folder (default $XDG_CACHE_HOME/comprules)")
@click.option("--mirror", envvar="COMPRULES_MIRROR", help="base URL laid out like the cache: MIRROR/en/DATE.txt")
@click.option("--timeout", default=30.0, show_default=True, help="seconds to wait on any network operation")
@click.option("--force", is_flag=True, help="download again even if the cache holds the file")
@click.option(
    "--cards", "cards", is_flag=True, help="Scryfall's oracle-cards bulk file instead (for build --cards FILE)"
)
def fetch(dates, latest, all_editions, dest, mirror, timeout, force, cards):
    """Download published English editions into a local cache; print their paths.

    DATE is an effective date (2026-08-07). The paths go to stdout, one a line, so
    that `comprules build $(comprules fetch --latest)` builds the newest edition.
    No --kb: fetch writes to its cache, not to a knowledge base. No --json: what it
    prints is the paths, for the shell.
    """
    from . import fetch as fetching

    if cards:
        if dates or latest or all_editions:
            raise Fail("--cards downloads the card file only: give no DATE, --latest or --all with it")
        _out(str(_run(fetching.fetch_cards, Path(dest) if dest else None, timeout=timeout)))
        return
    editions = _run(fetching.select, list(dates), latest=latest, all_editions=all_editions)
    from .progress import RichProgress

    bar = RichProgress() if sys.stderr.isatty() else None
    try:
        done, failed = _run(
            fetching.fetch_editions,
            editions,
            Path(dest) if dest else None,
            mirror=mirror,
            timeout=timeout,
            progress=bar,
            force=force,
        )
    finally:
        if bar is not None:
            bar.close()
    for item in done:
        how = "in cache" if item.url is None else f"from {item.url}"
        click.echo(f"{item.edition.name}: {item.size:,} bytes {how}, sha256 {item.sha256[:16]}…", err=True)
        _out(str(item.path))
    if failed:  # every failure in the same form, the last one with the exit code
        for err in failed[:-1]:
            click.echo(f"comprules: {err}", err=True)
        raise Fail(str(failed[-1]))


@main.command()
@click.argument("sources", nargs=-1, type=click.Path())
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP + "; with --edition instead of SOURCES")
@click.option(
    "--edition", "-e", callback=_edition_value, help="check this edition of the knowledge base instead of SOURCES"
)
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def check(sources, kb_dir, edition, as_json):
    """Lint SOURCES (or --edition of the knowledge base; with neither, the latest edition of
    the knowledge base of --kb, $COMPRULES_KB or ./build): dangling references, wrong
    quoted titles, duplicates, letter gaps, order.

    Exit code 1 when a problem is reported, 0 when clean, 2 when a source cannot be read.
    """
    from .check import check_kb, check_sources, format_text
    from .kb import default_kb

    if sources and edition:
        raise Fail("give SOURCES or --edition, not both")
    # no SOURCES: the knowledge base of --kb, $COMPRULES_KB or ./build, when there is one
    if not sources and not edition and not kb_dir and not (default_kb() / "data").is_dir():
        raise Fail(f"no SOURCES given and no knowledge base at {default_kb()} to check: give SOURCES, or --kb DIR")
    if edition or not sources:
        report = _run(check_kb, _kb(kb_dir), edition)
    else:
        report = _run(check_sources, list(sources))
    for err in report.errors:
        click.echo(f"error: {err}", err=True)
    if as_json:
        _emit_json(report.as_json())
    else:
        _out(format_text(report))
    if report.errors:
        sys.exit(2)
    if report.problems:
        sys.exit(1)


@main.command()
@click.option("--kb", "kb_dir", type=click.Path(), help=KB_HELP)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="address to listen on (anything but loopback prints a warning)",
)
@click.option(
    "--port",
    "-p",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="port (0: any free port, printed)",
)
@click.option(
    "--workers",
    "-w",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="server processes sharing the port",
)
@click.option("--verbose", "-v", is_flag=True, help="log each request")
def serve(kb_dir, host, port, workers, verbose):
    """Serve the site, the JSON API (/api/v1/) and the Academy Ruins API (/ar/) over HTTP.

    A rebuild of the knowledge base is picked up without a restart. Docs of the API:
    http://HOST:PORT/api/v1/docs (works offline). No --json: serve prints no report;
    its API answers in JSON.
    """
    from .build import default_kb
    from .server import run

    if not host.strip():  # "" would listen on every interface, and print http://:8000/
        raise Fail("--host: give an address to listen on (127.0.0.1; 0.0.0.0 for every interface)")
    _run(
        run,
        Path(kb_dir) if kb_dir else default_kb(),
        host=host,
        port=port,
        workers=workers,
        verbose=verbose,
        say=lambda msg: click.echo(msg, err=True),
    )


if __name__ == "__main__":  # pragma: no cover
    entry()
