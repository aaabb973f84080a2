"""Terminal output of the read commands (rich): search hits and one rule."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from .errors import echo


class _Console(Console):
    """rich's console, but a closed pipe (``| head``) does not end the process with exit 1:
    stdout goes to /dev/null and the command goes on to its own exit code, as
    ``comprules.cli._out`` does (docs/guide.md, "Exit codes")."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)


def _console() -> Console:
    return _Console(highlight=False, soft_wrap=True)


def print_hits(result) -> None:
    """Search hits, best first, with the matched words highlighted in colour.

    With every edition in scope, each hit says in how many other editions a version
    of the rule is; a hit in another language than the query's, found through the
    lexicon, says ``translation``; a relaxed search (no unit had every word) and a
    spelling suggestion are said in a dim line.
    """
    console = _console()
    for card in getattr(result, "cards", ()):  # the cards the query names (issue 25), first
        line = Text("card  ", style="dim").append(card["name"], style="bold green")
        if card.get("type_line"):
            line.append(f"  {card['type_line']}", style="dim")
        console.print(line)
        rules = ", ".join(f"{r['number']} {_shortened(r['label'], 40)}" for r in card["rules"][:8])
        if rules:
            console.print(Text("    calls on: ", style="dim").append(rules))
    if not result.hits:
        console.print(f"no match for {escape(echo(result.query))!s}")  # a long query not printed back whole
    elif getattr(result, "relaxed", False):
        console.print(Text("no unit has every word; units with some of them:", style="dim"))
    for hit in result.hits:
        head = Text(f"{hit.edition}  ", style="dim")
        head.append(hit.number, style="bold cyan")
        if hit.title:
            head.append(f"  {hit.title}", style="bold")
        head.append(f"  ({hit.kind}, {hit.score:.2f})", style="dim")
        if getattr(hit, "translation", False):  # another language than the query's, through the lexicon
            head.append("  translation", style="italic magenta")
        moved = getattr(hit, "renumbered", None)
        if moved:  # the number typed is this rule's in other editions (issue 22)
            head.append(f"  {moved.label()}", style="magenta")
        also = getattr(hit, "also_in", 0)
        if getattr(result, "collapsed", False) and also:
            head.append(f"  also in {also} edition{'s' if also > 1 else ''}", style="magenta")
        console.print(head)
        body = Text(hit.plain_snippet or hit.snippet)
        for start, end in hit.highlights:
            body.stylize("bold yellow", start, end)
        console.print(Text("    ").append(body))
    if result.suggestion:
        console.print(Text("did you mean: ", style="dim").append(result.suggestion, style="bold"))


def print_rule(view) -> None:
    """One rule: number, title, text, examples, subrules, references and cited-by."""
    from . import languages
    from .model import read_symbol_font

    console = _console()
    lang = languages.get(getattr(view, "lang", "en"))

    def read(text: str) -> str:  # the 2003–04 symbol font as the site shows it ({o3} → {3}), but --raw
        return text if getattr(view, "raw", False) else read_symbol_font(text)

    def one(rule, indent: str = "", mark: str = lang.example_mark) -> None:
        line = Text(indent).append(rule.number, style="bold cyan")
        if rule.title and rule.title != rule.text:
            line.append(f" {read(rule.title)}", style="bold")
        line.append(f" {read(rule.text)}")
        console.print(line)
        for ex in rule.examples:
            console.print(
                Text(f"{indent}    {mark}{' ' if lang.spaced else ''}", style="italic dim").append(
                    read(ex), style="italic"
                )
            )

    console.print(Text(view.edition, style="dim"))
    if lang.community:
        console.print(Text(lang.notice_en, style="dim italic"))
    if view.rule.parent:
        console.print(Text(f"parent: {view.rule.parent}", style="dim"))
    one(view.rule)
    for child in view.children:
        one(child, "  ")
    restored = view.restored_words() if hasattr(view, "restored_words") else None
    if restored:  # a lossy source repaired from its neighbours (issue 22)
        single = sum(r["chars"] for r in view.restored) == 1
        where = ", ".join(dict.fromkeys(r["unit"] for r in view.restored))
        if view.raw:
            how = f"in {where}; shown as the source prints {'it' if single else 'them'}"
        else:
            how = f'in {where}; the source prints "?" for {"it" if single else "them"}: --raw shows it'
        console.print(Text(f"{restored} ({how})", style="dim"))
    refers = format_citations(view.cites, view.titles, view.edition)
    if refers:
        console.print(Text("refers to: ", style="dim").append(refers))
    if view.cited_by:
        console.print(Text("cited by: ", style="dim").append(", ".join(view.cited_by)))
    if view.cited_by_glossary:
        console.print(Text("glossary: ", style="dim").append(", ".join(view.cited_by_glossary)))
    twin = getattr(view, "twin", None)
    if twin is not None:
        head = Text("English: ", style="dim").append(f"{view.twin_edition} ", style="dim")
        head.append(twin.number, style="bold cyan")
        if twin.title:
            head.append(f" {twin.title}", style="bold")
        if twin.text != twin.title:
            head.append(f" {twin.text}")
        console.print(head)
    elif getattr(view, "twin_edition", None):  # a translation's rule that its English edition lacks
        console.print(Text(f"English: no counterpart in {view.twin_edition}", style="dim"))


def format_citations(cites: list[dict], titles: dict[str, str], edition: str) -> str:
    """A rule's citations on one line, grouped by where they resolve, in printed order:
    ``400.1, 416 Effects — en/2002-10-07``; ``702.37b, 708 Face-Down Spells and
    Permanents``; ``602.1i — missing from this edition``."""
    groups: dict[str, list[str]] = {}
    for c in cites:
        resolved = c.get("resolved")
        label = c["target"] + (f" {titles[resolved]}" if resolved in titles else "")
        if resolved:
            where = resolved.rsplit("/glossary/", 1)[0] if c["kind"] == "glossary" else resolved.rpartition("/")[0]
            key = "" if where == edition else where
        else:
            key = "missing from this edition" if c["status"] == "dangling" else "outside this document"
        names = groups.setdefault(key, [])
        if label not in names:
            names.append(label)
    return "; ".join(", ".join(names) + (f" — {key}" if key else "") for key, names in groups.items())


def _shortened(text: str, width: int) -> str:
    """``text`` cut at a word's end to fit ``width`` characters, "…" where it was cut
    (``textwrap.shorten``, which also folds the spacing)."""
    import textwrap

    return textwrap.shorten(text.rstrip("…").rstrip(), width=width, placeholder="…")
