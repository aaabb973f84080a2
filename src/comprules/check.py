"""``comprules check``: lint editions and fragments of the Comprehensive Rules.

Per edition (one source document) :func:`check_edition` reports *problems*:

=================== ===============================================================
``dangling``        a reference to a rule, section, chapter or glossary entry the
                    edition does not hold ("(See rule 405.3c.)", 2009-07-11)
``title``           a quoted title that is not the target's ("rule 727, “Day and
                    Night”" when 727 is "Merging with Permanents", 2024-07-30)
``duplicate-number`` a number printed twice for two rules (501.2, 2006-05-01)
``letter-gap``      a missing subrule letter (214.8i → 214.8k, 2001-09-24; the
                    letters l and o are never used, so 704.5k → 704.5m is no gap),
                    or a first subrule that is not "a" (432.2b, 2006-10-01)
``order``           a number lower than the one before it under the same parent
``unparsed-line``   text the parser could not place
…                   and the other parse warnings that point at a misprint
                    (``malformed-number``, ``repeated-number``, ``orphan-example``) or
                    at a damaged fragment (``suspect-artefact``, ``lost-symbol``)
=================== ===============================================================

and *notices*, listed but not failing: in a fragment (a forum post quoting rule 406
and citing 411) a missing target is ``external``, not dangling; a fragment's
numbering is the poster's choice, so gaps and order are not checked there; a rule
quoted twice identically (``repeated-quote``), a repaired PDF artefact
(``repaired-artefact``) and two sources of one edition (``duplicate-source``) are
notices too.

:func:`check_sources` checks files and folders, as ``comprules check SOURCE...``
does: exit code 1 when any problem is reported, 0 when clean, 2 when a source cannot
be read (the CLI decides; this module only reports).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .corpus import load_sources
from .errors import SourceError, UsageError
from .model import Edition, Rule, sort_key
from .references import Resolution, expand_range, resolve

__all__ = [
    "PROBLEM_KINDS",
    "NOTICE_KINDS",
    "Finding",
    "EditionReport",
    "CheckReport",
    "check_edition",
    "numbering_findings",
    "check_sources",
    "check_kb",
    "format_text",
]

#: Parse warnings that are problems of the document (anything unknown is one too).
NOTICE_KINDS = frozenset({"external", "repeated-quote", "repaired-artefact", "duplicate-source"})
PROBLEM_KINDS = (
    "dangling",
    "title",
    "duplicate-number",
    "letter-gap",
    "order",
    "unparsed-line",
    "malformed-number",
    "repeated-number",
    "orphan-example",
    "suspect-artefact",
    "lost-symbol",
)


@dataclass(frozen=True)
class Finding:
    """One thing ``check`` reports: ``kind`` (see the module's table), where (``line``
    in the source, ``rule``: the rule id or ``glossary/{slug}`` concerned), the
    ``target`` of a reference when there is one, and a one-line ``message``."""

    kind: str
    line: int | None
    rule: str | None
    message: str
    target: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "rule": self.rule, "target": self.target, "message": self.message}


@dataclass(frozen=True)
class EditionReport:
    """The findings of one edition or fragment, and its reference counts.

    ``references``: printed references; ``resolved``: those whose every target the
    document holds (:attr:`Resolution.resolved <comprules.references.Resolution.resolved>`).
    """

    edition: str
    kind: str
    source: str
    references: int
    resolved: int
    problems: tuple[Finding, ...]
    notices: tuple[Finding, ...]

    @property
    def share(self) -> float:
        """Share of printed references that resolve (1.0 when none is printed)."""
        return self.resolved / self.references if self.references else 1.0

    @property
    def clean(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "kind": self.kind,
            "source": self.source,
            "references": {"printed": self.references, "resolved": self.resolved, "share": round(self.share, 6)},
            "problems": [f.as_json() for f in self.problems],
            "notices": [f.as_json() for f in self.notices],
        }


@dataclass
class CheckReport:
    """Reports of every edition checked, and the sources that could not be read."""

    editions: list[EditionReport] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)

    @property
    def problems(self) -> int:
        """How many problems in all."""
        return sum(len(e.problems) for e in self.editions)

    def as_json(self) -> dict[str, Any]:
        """``{"editions": [...], "problems": N, "errors": ["file: reason", ...]}``."""
        return {
            "editions": [e.as_json() for e in self.editions],
            "problems": self.problems,
            "errors": [str(e) for e in self.errors],
        }


def numbering_findings(edition: Edition) -> list[Finding]:
    """Letter gaps and order violations among the children of every rule, section and
    chapter, in document order (later copies of a duplicated number are skipped: the
    duplicate itself is reported from the parse warnings).

    ``214.8i`` then ``214.8k`` is a gap (j is missing); ``704.5k`` then ``704.5m`` is
    not (the CR never uses l or o); a first subrule ``432.2b`` is a gap (no 432.2a).
    Positional passages and notes of fragments are not numbers and are skipped.
    """
    out: list[Finding] = []
    for parent, kids in edition.children.items():
        prev: Rule | None = None
        for rule in kids:
            if "~" in rule.id or rule.kind in ("passage", "note"):
                continue
            if prev is not None and sort_key(rule.number) <= sort_key(prev.number):
                out.append(Finding("order", rule.line, rule.id, f"{rule.number} comes after {prev.number}"))
            elif rule.kind == "subrule" and parent is not None:
                first = f"{parent}a"
                if prev is None and rule.number != first:
                    missing = expand_range(first, rule.number)[:-1]
                    out.append(
                        Finding(
                            "letter-gap",
                            rule.line,
                            rule.id,
                            f"{rule.number} is the first subrule of {parent}: {', '.join(missing)} missing",
                        )
                    )
                elif prev is not None and prev.kind == "subrule":
                    missing = expand_range(prev.number, rule.number)[1:-1]
                    if missing:
                        out.append(
                            Finding(
                                "letter-gap",
                                rule.line,
                                rule.id,
                                f"{prev.number} is followed by {rule.number}: {', '.join(missing)} missing",
                            )
                        )
            prev = rule
    out.sort(key=lambda f: (f.line or 0, f.rule or ""))
    return out


def _by_citation(missing) -> list[tuple[str, int, str, list[str]]]:
    """Missing targets grouped by the printed reference naming them: "112.5a-j" names
    ten missing subrules (2009-10-01) and is reported once."""
    out: list[tuple[str, int, str, list[str]]] = []
    for d in missing:
        if out and out[-1][:3] == (d.source, d.line, d.citation):
            if d.target not in out[-1][3]:
                out[-1][3].append(d.target)
        else:
            out.append((d.source, d.line, d.citation, [d.target]))
    return out


def check_edition(edition: Edition, resolution: Resolution | None = None) -> EditionReport:
    """Lint one parsed edition or fragment (``resolution`` is computed if not given)."""
    res = resolution or resolve(edition)
    problems: list[Finding] = []
    notices: list[Finding] = []
    for source, line, citation, targets in _by_citation(res.dangling):
        problems.append(
            Finding(
                "dangling",
                line,
                source,
                f"{source} cites {', '.join(targets)} ({citation!r}): not in this edition",
                ", ".join(targets),
            )
        )
    for source, line, _citation, targets in _by_citation(res.external):
        notices.append(
            Finding(
                "external",
                line,
                source,
                f"{source} cites {', '.join(targets)}, outside this document",
                ", ".join(targets),
            )
        )
    for t in res.titles:
        actual = f"titled “{t.actual}”" if t.actual else "untitled"
        problems.append(
            Finding(
                "title",
                t.line,
                t.source,
                f"{t.source} cites {t.target} as “{t.quoted}”, but {t.target} is {actual}",
                t.target,
            )
        )
    for w in edition.warnings:
        finding = Finding(w.kind, w.line, w.number, w.message)
        (notices if w.kind in NOTICE_KINDS else problems).append(finding)
    if edition.kind != "fragment":
        problems.extend(numbering_findings(edition))
    problems.sort(key=lambda f: (f.line or 0, PROBLEM_KINDS.index(f.kind) if f.kind in PROBLEM_KINDS else 99))
    notices.sort(key=lambda f: f.line or 0)
    return EditionReport(
        edition.name, edition.kind, edition.source, res.count, res.resolved, tuple(problems), tuple(notices)
    )


def check_sources(paths: list[str | os.PathLike], jobs: int = 1) -> CheckReport:
    """Parse and lint every source (files, or folders of ``.txt``/``.pdf``/``.docx``).

    Unreadable sources are collected in :attr:`CheckReport.errors`; raises
    :class:`~comprules.errors.UsageError` when no path is given.
    """
    if not paths:
        raise UsageError("check: give at least one source file or folder")
    loaded = load_sources(list(paths), jobs=jobs)
    return CheckReport([check_edition(e) for e in loaded.editions], list(loaded.errors))


def check_kb(kb, edition: str | None = None) -> CheckReport:
    """Lint one edition of a built knowledge base (:class:`comprules.kb.KnowledgeBase`;
    ``edition`` any name it resolves, default the latest English): what the build found
    and stored (:meth:`comprules.store.Store.check`). Raises
    :class:`~comprules.errors.UsageError` for an unknown edition."""
    return CheckReport([kb.store.check(kb.resolve_name(edition))])


def format_text(report: CheckReport, *, notices: bool = True) -> str:
    """The report as lines of text: one heading per edition, one line per finding.

    ``en/2009-07-11: 2 problems; 992 of 994 references resolve (99.80 %)``, then
    ``  line 1208   dangling          401.6 cites 602.1i ('602.1i'): not in this edition``;
    notices are shown with their kind in parentheses (``(external)``).
    """
    lines: list[str] = []
    for ed in report.editions:
        n = len(ed.problems)
        head = f"{n} problem{'s' if n != 1 else ''}" if n else "clean"
        if ed.kind == "fragment":
            refs = f"{ed.references} references, {ed.references - ed.resolved} of them to rules outside this document"
        else:
            refs = f"{ed.resolved} of {ed.references} references resolve ({ed.share * 100:.2f} %)"
        lines.append(f"{ed.edition}: {head}; {refs}")
        for f in ed.problems:
            lines.append(f"  line {f.line or '?':<6} {f.kind:<17} {f.message}")
        if notices:
            for f in ed.notices:
                lines.append(f"  line {f.line or '?':<6} {'(' + f.kind + ')':<17} {f.message}")
    total = report.problems
    lines.append(
        f"{len(report.editions)} document{'s' if len(report.editions) != 1 else ''} checked, "
        f"{total} problem{'s' if total != 1 else ''}"
    )
    return "\n".join(lines)
