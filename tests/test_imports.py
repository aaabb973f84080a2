"""The layout shows the pipeline (issue 16, STYLE.md): no import cycle between the
modules of ``src/comprules``, and no stage imports a later one, in the order of the
table "Stages, in pipeline order" of ``docs/design.md``.

The import graph is read from the source with :mod:`ast` (every ``import`` and
``from … import``, at module level or inside a function: a lazy import is a
dependency too), and its cycles are found with networkx. An import under ``if
TYPE_CHECKING:`` is left out: it only names a type for an annotation and never runs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "comprules"

#: The stages from first to last, as docs/design.md lists them; each stage may import the
#: stages before it and itself, never one after it. A stage is a subpackage or a module
#: directly under comprules/.
STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("model", ("errors", "model", "languages", "export", "codehash", "locking", "children", "progress")),
    ("corpus", ("corpus", "fetch")),
    ("references", ("references",)),
    ("check", ("check",)),
    ("align", ("align",)),
    ("graph", ("graph",)),
    ("cards", ("cards",)),
    ("store", ("store",)),
    ("indexer", ("indexer", "segment")),
    ("site", ("site",)),
    ("kb", ("kb", "render_text", "academy")),
    ("build", ("build",)),
    ("interfaces", ("server", "cli")),
]


def _modules(package: Path) -> dict[str, tuple[Path, list[str]]]:
    """Dotted name → (file, the package its relative imports start from)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            base = parts
        else:
            base = parts[:-1]
        out[".".join(parts)] = (path, base)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(package: Path = PACKAGE) -> nx.DiGraph:
    """The modules of ``package`` and an edge A → B for every import of B in A.

    ``from . import x`` imports the submodule ``x`` when there is one, else the package
    (its ``__init__``); ``from .m import name`` imports ``m``.
    """
    modules = _modules(package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, (path, base) in modules.items():
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    start = base[: len(base) - node.level + 1]
                    module = ".".join([*start, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target, line=node.lineno)
    return graph


def stage_of(module: str) -> str | None:
    """The stage of ``comprules.site.render`` (``site``), of ``comprules.kb`` (``kb``)."""
    top = module.split(".")[1] if "." in module else ""
    return next((stage for stage, members in STAGES if top in members), None)


def test_the_graph_holds_the_imports_the_code_makes() -> None:
    """The reader sees module-level and lazy imports, relative and absolute, and skips
    TYPE_CHECKING ones: the edges below are in the code as of 2026-12."""
    graph = import_graph()
    assert len(graph) > 60
    assert graph.has_edge("comprules.cli", "comprules.kb")  # lazy, inside _kb()
    assert graph.has_edge("comprules.corpus.load", "comprules.corpus.parse")  # from .parse import parse_text
    assert graph.has_edge("comprules.references", "comprules.model")
    assert graph.has_edge("comprules.site.render", "comprules.site.markdown")
    assert not graph.has_edge("comprules.site.diffs", "comprules.site.render")  # TYPE_CHECKING only


def test_the_graph_finds_a_cycle_and_a_type_checking_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from .. import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    graph = import_graph(pkg)
    assert sorted(map(sorted, nx.simple_cycles(graph))) == [["pkg.a", "pkg.sub.b"]]
    assert not graph.has_edge("pkg.c", "pkg.a")


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph()
    cycles = sorted(" → ".join([*c, c[0]]) for c in nx.simple_cycles(graph))
    assert cycles == []


def test_every_module_belongs_to_a_stage() -> None:
    """A new top-level module or subpackage is given its place in the pipeline
    (STAGES here and the table in docs/design.md)."""
    loose = [m for m in import_graph() if m != "comprules" and stage_of(m) is None]
    assert loose == []


def test_no_stage_imports_a_later_one() -> None:
    order = {stage: k for k, (stage, _) in enumerate(STAGES)}
    graph = import_graph()
    later = []
    for a, b, data in graph.edges(data=True):
        sa, sb = stage_of(a), stage_of(b)
        if sa and sb and order[sb] > order[sa]:
            later.append(f"{a} (stage {sa}) imports {b} (stage {sb}), line {data['line']}")
    assert sorted(later) == []


def test_docs_design_lists_the_stages_in_this_order() -> None:
    """docs/design.md's table "Stages, in pipeline order" is the order tested here:
    one row per stage, its modules in the second column."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## Stages, in pipeline order", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"\| *\d+ *\|", line)]
    documented = []
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        documented.append((cells[1].strip("`* "), tuple(re.findall(r"`([\w/.]+?)(?:/|\.py)?`", cells[2]))))
    assert documented == STAGES


@pytest.mark.parametrize("stage", [s for s, _ in STAGES])
def test_each_stage_names_modules_that_exist(stage: str) -> None:
    members = dict(STAGES)[stage]
    for member in members:
        assert (PACKAGE / member).is_dir() or (PACKAGE / f"{member}.py").is_file(), member


#: Issue 21: the site is a view of the knowledge base's database and imports nothing of the
#: stages that make it. What it still imports of them, each a debt to pay back: this set only
#: shrinks (2026-12-04: corpus.describe paid back, the database holds a document's facts;
#: 2026-12-05: indexer.export and segment, the index stage writes the site's search data;
#: 2026-12-06: align.crosslang and translation, the database holds the term pairs and a
#: translation's glossary pairs; align.alignment, changes and history from site/lineage.py,
#: the alignments of consecutive editions read from the database, none computed).
SITE_REACHES_BACK = {
    ("comprules.site.changes", "comprules.align.alignment"),
    ("comprules.site.diffs", "comprules.align.alignment"),
    ("comprules.site.lineage", "comprules.align.lineage"),
    ("comprules.site.render", "comprules.references"),
}


def test_the_site_reaches_back_into_the_stages_before_the_database_only_where_it_still_did() -> None:
    """No new import of corpus/, references, align/ or indexer/ from site/; one paid back
    is taken off :data:`SITE_REACHES_BACK` (the test fails until it is)."""
    graph = import_graph()
    before = {"corpus", "references", "align", "indexer"}
    found = {(a, b) for a, b in graph.edges if a.startswith("comprules.site") and stage_of(b) in before}
    assert found == SITE_REACHES_BACK
    assert not any(stage_of(b) == "corpus" for _, b in found)
