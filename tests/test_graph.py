"""The knowledge-base graph: containment, citations, backlinks, GraphML output."""

from __future__ import annotations

from datetime import date

import networkx as nx
import pytest

from comprules.graph import cited_by, edition_graph, kb_graph, node_id, write_graphml
from comprules.model import Edition, GlossaryEntry, Rule
from comprules.references import resolve


def _rule(number: str, kind: str, text: str, parent: str | None, title: str | None = None, line: int = 1) -> Rule:
    section = number[:3] if kind != "chapter" else None
    return Rule(
        id=number,
        number=number,
        kind=kind,
        text=text,
        line=line,
        title=title,
        parent=parent,
        section=section,
        chapter=number[0],
    )


def _edition(name: str = "en/2030-01-01") -> Edition:
    rules = (
        _rule("7", "chapter", "Additional Rules", None, "Additional Rules"),
        _rule("702", "section", "Keyword Abilities", "7", "Keyword Abilities"),
        _rule("702.9", "rule", "Flying cares about morph (see rule 702.37).", "702"),
        _rule("702.10", "rule", "Haste, then rule 702.37a and rule 702.99.", "702"),
        _rule("702.37", "rule", "Morph", "702", "Morph"),
        _rule("702.37a", "subrule", "Morph turns cards face down. See rule 708.", "702.37"),
        _rule("708", "section", "Face-Down Spells", "7", "Face-Down Spells"),
        _rule("708.1", "rule", "A rule about faces, as described in 702.37a.", "708"),
    )
    glossary = (
        GlossaryEntry("Megamorph", (), False, ("See Morph.",), "See Morph.", 90, "megamorph"),
        GlossaryEntry("Morph", (), False, ("See rule 702.37.",), "See rule 702.37.", 91, "morph"),
    )
    return Edition(
        name=name,
        lang="en",
        effective=date(2030, 1, 1),
        kind="edition",
        source="fixture",
        sha256="0" * 64,
        title="fixture",
        rules=rules,
        glossary=glossary,
    )


def _edges(graph: nx.MultiDiGraph, kind: str) -> set[tuple[str, str]]:
    return {(u.split("/", 2)[2], v.split("/", 2)[2]) for u, v, k in graph.edges(keys=True) if k == kind}


def test_contains_edges_run_chapter_7_to_section_702_to_rule_702_37_to_subrule_702_37a():
    contains = _edges(edition_graph(_edition()), "contains")
    assert {("7", "702"), ("702", "702.37"), ("702.37", "702.37a"), ("7", "708")} <= contains
    assert len(contains) == 7


def test_nodes_carry_kind_number_title_and_edition():
    graph = edition_graph(_edition())
    attrs = graph.nodes[node_id("en/2030-01-01", "702.37")]
    assert attrs["kind"] == "rule" and attrs["number"] == "702.37"
    assert attrs["title"] == "Morph" and attrs["edition"] == "en/2030-01-01"
    assert "title" not in graph.nodes["en/2030-01-01/702.37a"]


def test_cites_edge_runs_from_702_37a_to_section_708_and_from_a_bare_702_37a():
    cites = _edges(edition_graph(_edition()), "cites")
    assert ("702.37a", "708") in cites
    assert ("708.1", "702.37a") in cites


def test_dangling_citation_of_702_99_adds_no_node_and_no_edge():
    graph = edition_graph(_edition())
    assert "en/2030-01-01/702.99" not in graph
    assert resolve(_edition()).dangling[0][:2] == ("702.10", "702.99")


def test_cited_by_702_37_lists_702_9_before_702_10_and_glossary_last():
    graph = edition_graph(_edition())
    assert cited_by(graph, "en/2030-01-01/702.37") == ["en/2030-01-01/702.9", "en/2030-01-01/glossary/morph"]
    assert cited_by(graph, "en/2030-01-01/702.37a") == ["en/2030-01-01/702.10", "en/2030-01-01/708.1"]
    assert cited_by(graph, "en/2030-01-01/nowhere") == []


def test_glossary_see_morph_links_megamorph_to_the_morph_entry():
    graph = edition_graph(_edition())
    assert cited_by(graph, "en/2030-01-01/glossary/morph") == ["en/2030-01-01/glossary/megamorph"]
    assert graph.nodes["en/2030-01-01/glossary/morph"]["title"] == "Morph"


def test_kb_graph_is_the_union_of_editions_kept_apart_by_name():
    one, two = _edition("en/2030-01-01"), _edition("en/2031-01-01")
    graph = kb_graph([one, two])
    single = edition_graph(one)
    assert graph.number_of_nodes() == 2 * single.number_of_nodes()
    assert graph.number_of_edges() == 2 * single.number_of_edges()
    assert cited_by(graph, "en/2031-01-01/702.37") == ["en/2031-01-01/702.9", "en/2031-01-01/glossary/morph"]


def test_write_graphml_round_trips_and_replaces_the_file(tmp_path):
    graph = edition_graph(_edition())
    path = tmp_path / "data" / "graph.graphml"
    write_graphml(graph, path)
    write_graphml(graph, path)  # a second build replaces it
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.number_of_nodes() == graph.number_of_nodes()
    assert back.number_of_edges() == graph.number_of_edges()
    assert back.nodes["en/2030-01-01/702.37"]["title"] == "Morph"
    assert [p.name for p in path.parent.iterdir()] == ["graph.graphml"]
    assert path.stat().st_mode & 0o777 == 0o644


def test_write_graphml_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "graph.graphml"
    path.write_text("old")

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(nx, "write_graphml", boom)
    with pytest.raises(RuntimeError):
        write_graphml(edition_graph(_edition()), path)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["graph.graphml"]


def test_real_2026_08_07_graph_links_rule_100_1b_to_chapter_8(en_dir):
    from comprules.corpus import parse_file

    edition = parse_file(en_dir / "2026-08-07.txt")
    graph = edition_graph(edition)
    assert graph.number_of_nodes() == len(edition.rules) + len(edition.glossary)
    assert "en/2026-08-07/100.1b" in cited_by(graph, "en/2026-08-07/8")
    assert graph.has_edge("en/2026-08-07/702", "en/2026-08-07/702.37", key="contains")


# --- issue 3: defines edges, fragments, backlinks of every rule --------------------


def test_glossary_morph_defines_rule_702_37_and_see_morph_is_no_definition():
    graph = edition_graph(_edition())
    defines = _edges(graph, "defines")
    assert defines == {("glossary/morph", "702.37")}
    assert graph.has_edge("en/2030-01-01/glossary/morph", "en/2030-01-01/702.37", key="cites")
    from comprules.graph import defined_by

    assert defined_by(graph, "en/2030-01-01/702.37") == ["en/2030-01-01/glossary/morph"]
    assert defined_by(graph, "en/2030-01-01/nowhere") == []


def test_real_2026_08_07_every_glossary_reference_to_a_rule_is_a_defines_edge(editions):
    edition = editions["en/2026-08-07"]
    resolution = resolve(edition)
    graph = edition_graph(edition, resolution)
    defines = [(u, v) for u, v, k in graph.edges(keys=True) if k == "defines"]
    assert len(defines) == sum(map(len, resolution.glossary_refs.values())) == 814
    assert ("en/2026-08-07/glossary/morph", "en/2026-08-07/702.37") in defines
    assert all("/glossary/" in u and "/glossary/" not in v for u, v in defines)


def test_graph_cited_by_equals_the_cited_by_that_show_prints_for_every_rule_of_2026_08_07(editions):
    from comprules.kb import show_rule

    edition = editions["en/2026-08-07"]
    resolution = resolve(edition)
    graph = edition_graph(edition, resolution)
    backlinks = resolution.cited_by()
    for rule in edition.rules:
        from_graph = [n.split("/", 2)[2] for n in cited_by(graph, f"en/2026-08-07/{rule.id}") if "/glossary/" not in n]
        assert from_graph == [s for s in backlinks.get(rule.id, []) if s != rule.id], rule.id
    view = show_rule(edition, "702.37e")
    assert view.cited_by == ["701.40c", "701.58c"]


def test_kb_graph_has_chapters_sections_rules_glossary_notes_of_editions_and_fragments(editions):
    from collections import Counter

    names = ["en/1999-04-23", "en/2026-08-07", "fr/002_89b48a7ac2467f84", "fr/003_816c607ad111474a"]
    graph = kb_graph([editions[n] for n in names])
    kinds = Counter((d["edition"], d["kind"]) for _, d in graph.nodes(data=True))
    assert kinds[("en/2026-08-07", "chapter")] == 9 and kinds[("en/2026-08-07", "section")] == 147
    assert kinds[("en/2026-08-07", "glossary")] == 739 and kinds[("en/1999-04-23", "chapter")] > 0
    assert kinds[("fr/002_89b48a7ac2467f84", "note")] == 5
    assert kinds[("fr/003_816c607ad111474a", "glossary")] == 9
    assert graph.nodes["fr/003_816c607ad111474a/glossary/vol"]["title"] == "Vol"
    assert {k for _, _, k in graph.edges(keys=True)} == {"contains", "cites", "defines"}


# ---------------------------------------------------------------------------
# Citations across editions and the stored graph (issue 12)


def _cites(graph: nx.MultiDiGraph, node: str) -> dict[str, str]:
    return {v: d["status"] for _, v, d in graph.out_edges(node, data=True) if d["kind"] == "cites"}


@pytest.mark.slow
def test_french_citations_are_cites_edges_into_the_english_edition_of_their_era(editions):
    from comprules.graph import resolve_all

    resolutions = resolve_all(editions.values())
    graph = kb_graph(editions.values(), resolutions)
    assert _cites(graph, "fr/000_f51ad62258817a66/402.1") == {
        "en/2002-10-07/400.1": "external",
        "en/2002-10-07/416": "external",
    }
    assert graph.nodes["en/2002-10-07/416"]["title"] == "Effects"
    assert _cites(graph, "fr/004_99dc3338bd3ea994/502.26f") == {"en/2005-02-01/504": "external"}
    assert _cites(graph, "fr/004_99dc3338bd3ea994/502.24b") == {f"en/2005-02-01/409.1{x}": "external" for x in "bfgh"}
    (agrees,) = [c.title_agrees for c in resolutions["fr/004_99dc3338bd3ea994"].cites["502.26f"]]
    assert agrees is True  # "Sorts et permanents face cachée" is 504 "Face-Down Spells and Permanents"
    # every one of the 27 citations printed in the seeds lies outside its extract and resolves in English
    french = [(u, v) for u, v, d in graph.edges(data=True) if d["kind"] == "cites" and u.startswith("fr/")]
    printed = [c for name, r in resolutions.items() if name.startswith("fr/") for cs in r.cites.values() for c in cs]
    assert len(printed) == 27 and all(c.status == "external" and c.resolved for c in printed)
    assert len(french) == 27 and all(v.startswith("en/") for _, v in french)
    # internal citations keep their edges; the dangling 602.1i of 2009-07-11 has none, and no node
    assert _cites(graph, "en/2009-07-11/702.34a") and set(_cites(graph, "en/2009-07-11/702.34a").values()) == {
        "internal"
    }
    assert _cites(graph, "en/2009-07-11/401.6") == {} and "en/2009-07-11/602.1i" not in graph


def test_the_stored_graph_reads_back_the_same_nodes_edges_and_attributes(tmp_path):
    from comprules.graph import graph_path, read_graph, write_graph

    one, two = _edition("en/2030-01-01"), _edition("en/2031-01-01")
    graph = kb_graph([one, two])
    written = write_graph(graph, tmp_path, ["en/2030-01-01", "en/2031-01-01"])
    assert written == [graph_path(tmp_path, "en/2030-01-01"), graph_path(tmp_path, "en/2031-01-01")]
    back = read_graph(tmp_path)
    assert sorted(back.nodes(data=True)) == sorted(graph.nodes(data=True))
    assert sorted(back.edges(keys=True, data=True)) == sorted(graph.edges(keys=True, data=True))
    assert read_graph(tmp_path, ["en/2031-01-01"]).number_of_nodes() == edition_graph(two).number_of_nodes()
