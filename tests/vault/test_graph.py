"""LinkGraph: digest notes as nodes, edges keyed by predicate, provenance apart, updates."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from reme_workbench.vault.graph import LinkGraph
from reme_workbench.vault.scan import ScanDelta, VaultScan

ALPHA = """---
name: alpha
description: The alpha note.
---
Plain [[digest/wiki/beta.md]] twice [[digest/wiki/beta.md|again]].
is_a:: [[digest/wiki/beta.md]]
Inline [part_of:: [[digest/procedure/gamma.md]]] and an embed ![[digest/wiki/beta.md]].
See ![[resource/2026-10-01/diagram.png]] and [[digest/wiki/missing.md]].
derived_from:: [[daily/2026-10-05/log.md]] [[resource/2026-10-01/paper.md]]
"""
BETA = """---
name: beta
description: The beta note.
---
Back to [[digest/wiki/alpha.md]].
derived_from:: [[daily/2026-10-05/gone.md]]
"""
GAMMA = "Gamma links nowhere in the digest. derived_from:: [[daily/2026-10-05/log.md]]\n"
DELTA = "Alone, with a link out of the vault [[../../etc/passwd]].\n"


def write(root: Path, rel: str, content: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    old = path.stat().st_mtime_ns if existed else 0
    path.write_text(content, encoding="utf-8")
    if existed:  # make sure a stat walk sees the change even on a coarse clock
        os.utime(path, ns=(old, old + 10_000_000))


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/wiki/alpha.md": ALPHA,
            "digest/wiki/beta.md": BETA,
            "digest/procedure/gamma.md": GAMMA,
            "digest/personal/delta.md": DELTA,
            "daily/2026-10-05/log.md": "log [[digest/wiki/alpha.md]]\n",
            "resource/2026-10-01/paper.md": "paper\n",
            "resource/2026-10-01/diagram.png": "png",
            "digest/wiki/notes.txt": "not a note [[digest/wiki/alpha.md]]",
        }
    )


def build(root: Path) -> tuple[VaultScan, LinkGraph]:
    scan = VaultScan(root, cache=False)
    scan.refresh()
    return scan, LinkGraph.from_scan(scan)


def edges(graph: LinkGraph) -> set[tuple[str, str, str, str | None]]:
    return {(u, v, k, d["predicate"]) for u, v, k, d in graph.graph.edges(keys=True, data=True)}


def test_nodes_are_digest_notes_with_bucket_name_and_description(vault):
    _, graph = build(vault)
    assert set(graph.graph.nodes) == {
        "digest/wiki/alpha.md",
        "digest/wiki/beta.md",
        "digest/procedure/gamma.md",
        "digest/personal/delta.md",
    }
    assert graph.graph.nodes["digest/wiki/alpha.md"] == {
        "bucket": "wiki", "name": "alpha", "description": "The alpha note.",
    }
    assert graph.graph.nodes["digest/procedure/gamma.md"]["name"] is None


def test_one_edge_per_target_and_predicate_and_embeds_are_not_edges(vault):
    _, graph = build(vault)
    assert edges(graph) == {
        ("digest/wiki/alpha.md", "digest/wiki/beta.md", "", None),
        ("digest/wiki/alpha.md", "digest/wiki/beta.md", "is_a", "is_a"),
        ("digest/wiki/alpha.md", "digest/procedure/gamma.md", "part_of", "part_of"),
        ("digest/wiki/beta.md", "digest/wiki/alpha.md", "", None),
    }
    assert graph.outbound("digest/wiki/alpha.md") == {
        ("digest/wiki/beta.md", None),
        ("digest/wiki/beta.md", "is_a"),
        ("digest/procedure/gamma.md", "part_of"),
    }
    assert graph.inbound("digest/wiki/beta.md") == {
        ("digest/wiki/alpha.md", None),
        ("digest/wiki/alpha.md", "is_a"),
    }
    assert graph.outbound("digest/wiki/nowhere.md") == set()


def test_provenance_is_kept_apart_from_edges(vault):
    _, graph = build(vault)
    prov = {k: [lk.target for lk in v] for k, v in graph.provenance.items()}
    assert prov == {
        "digest/wiki/alpha.md": ["daily/2026-10-05/log.md", "resource/2026-10-01/paper.md"],
        "digest/wiki/beta.md": ["daily/2026-10-05/gone.md"],
        "digest/procedure/gamma.md": ["daily/2026-10-05/log.md"],
    }  # the embedded diagram is a resource reference, not provenance
    assert all(not v.startswith(("daily/", "resource/")) for _, v in graph.graph.edges())


def test_dangling_lists_missing_targets_in_any_layer(vault):
    _, graph = build(vault)
    found = [(src, lk.target, lk.line) for src, lk in graph.dangling()]
    assert found == [
        ("digest/personal/delta.md", "../../etc/passwd", 1),
        ("digest/wiki/alpha.md", "digest/wiki/missing.md", 8),
        ("digest/wiki/beta.md", "daily/2026-10-05/gone.md", 6),
    ]


def test_stats(vault):
    _, graph = build(vault)
    stats = graph.stats(top=2)
    assert stats["nodes"] == 4 and stats["edges"] == 4
    assert stats["buckets"] == {
        "procedure": {"nodes": 1, "edges_out": 0},
        "personal": {"nodes": 1, "edges_out": 0},
        "wiki": {"nodes": 2, "edges_out": 4},
    }
    assert stats["dangling_links"][1] == {
        "source": "digest/wiki/alpha.md", "target": "digest/wiki/missing.md", "line": 8, "column": 46,
    }
    assert len(stats["dangling_links"]) == 3
    assert stats["isolated_nodes"] == ["digest/personal/delta.md"]
    assert stats["top_inbound"] == [
        {"path": "digest/wiki/beta.md", "inbound": 2},
        {"path": "digest/procedure/gamma.md", "inbound": 1},
    ]
    assert stats["provenance_links"] == 4


# --- incremental updates -------------------------------------------------------------


def test_editing_a_note_replaces_only_its_outbound_edges(vault):
    scan, graph = build(vault)
    write(vault, "digest/wiki/alpha.md", "---\nname: alpha2\n---\nOnly [[digest/personal/delta.md]]\n")
    delta = scan.refresh()
    assert delta.changed == ("digest/wiki/alpha.md",)
    graph.update(scan, delta)
    assert edges(graph) == {
        ("digest/wiki/alpha.md", "digest/personal/delta.md", "", None),
        ("digest/wiki/beta.md", "digest/wiki/alpha.md", "", None),  # inbound kept
    }
    assert graph.graph.nodes["digest/wiki/alpha.md"]["name"] == "alpha2"
    assert "digest/wiki/alpha.md" not in graph.provenance


def test_deleting_a_note_removes_its_node_and_edges(vault):
    scan, graph = build(vault)
    (vault / "digest/wiki/beta.md").unlink()
    delta = scan.refresh()
    graph.update(scan, delta)
    assert "digest/wiki/beta.md" not in graph.graph
    assert edges(graph) == {("digest/wiki/alpha.md", "digest/procedure/gamma.md", "part_of", "part_of")}
    assert "digest/wiki/beta.md" not in graph.provenance
    assert ("digest/wiki/alpha.md", "digest/wiki/beta.md") in {
        (src, lk.target) for src, lk in graph.dangling()
    }


def test_creating_a_missing_note_turns_dangling_links_into_edges(vault):
    scan, graph = build(vault)
    write(vault, "digest/wiki/missing.md", "Now here [[digest/wiki/alpha.md]].\n")
    graph.update(scan, scan.refresh(["digest/wiki/missing.md"]))
    assert ("digest/wiki/alpha.md", "digest/wiki/missing.md", "", None) in edges(graph)
    assert ("digest/wiki/missing.md", "digest/wiki/alpha.md", "", None) in edges(graph)


def test_update_touches_nothing_when_the_delta_is_empty(vault):
    scan, graph = build(vault)
    before = edges(graph)
    graph.update(scan, ScanDelta((), ()))
    assert edges(graph) == before


def test_incremental_updates_match_a_rebuild(make_vault):
    """Random edits, creates and deletes: the updated graph equals one built from scratch."""
    rng = random.Random(4)
    names = [f"digest/{b}/n{i}.md" for b in ("wiki", "procedure", "personal") for i in range(6)]
    preds = [None, "is_a", "part_of"]

    def body() -> str:
        lines = []
        for _ in range(rng.randint(0, 5)):
            target = rng.choice(names)
            if rng.random() < 0.3:  # a short form, resolved as Obsidian does
                target = target.rsplit("/", 1)[1].removesuffix(".md")
            pred = rng.choice(preds)
            embed = "!" if rng.random() < 0.1 else ""
            lines.append(f"{pred}:: [[{target}]]" if pred else f"see {embed}[[{target}]]")
        if rng.random() < 0.5:
            lines.append("derived_from:: [[daily/d/log.md]]")
        return "\n".join(lines) + "\n"

    root = make_vault({n: body() for n in rng.sample(names, 10)})
    scan, graph = build(root)
    for _ in range(40):
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(names)
            if (root / name).exists() and rng.random() < 0.3:
                (root / name).unlink()
            else:
                write(root, name, body())
        graph.update(scan, scan.refresh())
        fresh = LinkGraph.from_scan(scan)
        assert edges(graph) == edges(fresh)
        assert dict(graph.graph.nodes(data=True)) == dict(fresh.graph.nodes(data=True))
        assert dict(graph.provenance) == dict(fresh.provenance)


# -- short links, as Obsidian reads them (docs/spec.md §2.4) ----------------------------------

def test_short_and_relative_links_draw_the_edges_obsidian_draws(make_vault):
    root = make_vault({
        "digest/wiki/Breadcrumbs.md": "[[Kanban|the board]] and [[../procedure/setup]]\n",
        "digest/wiki/Kanban.md": "Back to [[breadcrumbs]]; [[Nowhere]] is not there.\n",
        "digest/procedure/setup.md": "is_a:: [[Kanban]]\n",
        "digest/personal/a/Twin.md": "x\n", "digest/personal/b/Twin.md": "y\n",
        "digest/personal/me.md": "[[Twin]] could be either: no edge.\n",
    })
    _, graph = build(root)
    assert edges(graph) == {
        ("digest/wiki/Breadcrumbs.md", "digest/wiki/Kanban.md", "", None),
        ("digest/wiki/Breadcrumbs.md", "digest/procedure/setup.md", "", None),
        ("digest/wiki/Kanban.md", "digest/wiki/Breadcrumbs.md", "", None),
        ("digest/procedure/setup.md", "digest/wiki/Kanban.md", "is_a", "is_a"),
    }
    assert [(src, lk.target) for src, lk in graph.dangling()] == [("digest/wiki/Kanban.md", "Nowhere")]


def test_a_file_that_appears_or_goes_resolves_short_links_again(make_vault):
    root = make_vault({
        "digest/wiki/hub.md": "[[Nowhere]] and [[Twin]]\n",
        "digest/personal/a/Twin.md": "x\n",
    })
    scan, graph = build(root)
    assert edges(graph) == {("digest/wiki/hub.md", "digest/personal/a/Twin.md", "", None)}
    write(root, "digest/procedure/Nowhere.md", "now here\n")
    write(root, "digest/personal/b/Twin.md", "y\n")  # [[Twin]] becomes ambiguous
    graph.update(scan, scan.refresh())
    assert edges(graph) == {("digest/wiki/hub.md", "digest/procedure/Nowhere.md", "", None)}
    assert edges(graph) == edges(LinkGraph.from_scan(scan))
    (root / "digest/personal/b/Twin.md").unlink()
    graph.update(scan, scan.refresh())
    assert edges(graph) == edges(LinkGraph.from_scan(scan)) == {
        ("digest/wiki/hub.md", "digest/procedure/Nowhere.md", "", None),
        ("digest/wiki/hub.md", "digest/personal/a/Twin.md", "", None)}
