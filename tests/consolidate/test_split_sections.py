"""Notes whose `##` sections are about different things are split (issue #31; docs/spec.md
§7.8, §7.9.4; the measurements in docs/experiments.md, "Sections of real notes").

The notes are `reme_lab.sectioned_notes`: written as people write them, in one voice,
not from the generator's sentence forms. Driven as a user drives it, through the CLI
(`consolidate --only split --force`) with the offline brain on the hashing embedder, and
the split brain's rule checked on the real embedders (MiniLM, e5) where installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_lab.sectioned_notes import HOMELAB, MISC, ONE_TOPIC, folder_note
from reme_workbench.brains.offline_consolidate.offline import OfflineConsolidateBrain
from reme_workbench.cli import cli
from reme_workbench.config import Settings
from reme_workbench.llm.consolidate import NoteView

LOG = "daily/2026-10-05/notes.md"
HOMELAB_NOTE = "digest/wiki/homelab.md"
FOLDER_NOTE = "digest/wiki/plugins.md"
THRESHOLD = 200


def make(tmp_path: Path, notes: dict[str, str]) -> Path:
    root = tmp_path / "vault"
    for layer in ("resource", "daily/2026-10-05", "digest/wiki", "digest/procedure",
                  "digest/personal", "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    (root / "reme.toml").write_text(
        f'[recall]\nembedder = "hashing"\n\n[split]\ntoken_threshold = {THRESHOLD}\n',
        encoding="utf-8")
    (root / LOG).write_text("# Notes\n\nWrote the notes down.\n", encoding="utf-8")
    for path, body in notes.items():
        (root / path).write_text(f"{body}\nderived_from:: [[{LOG}]]\n", encoding="utf-8")
    return root


def split_phase(root: Path) -> dict:
    result = CliRunner().invoke(cli, ["--vault", str(root), "consolidate", "--only", "split",
                                      "--force", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (phase,) = [p for p in json.loads(result.stdout)["phases"] if p["phase"] == "split"]
    return phase


def children_of(root: Path) -> dict[str, list[str]]:
    """parent path -> the names of the children its pending split proposal makes."""
    out = {}
    for f in sorted((root / "meta/proposals").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data["action"] == "consolidate.split" and data["state"] == "pending":
            plan = data["story"]["plan"]
            out[plan["parent"]["path"]] = [c["name"] for c in plan["children"]]
    return out


def test_three_unrelated_sections_in_one_voice_are_split(tmp_path):
    """The issue's planted note: backups / CSS theming / hiring, scored 0.27 alike on
    whole sentences (the writer's words in common) and kept as 'one topic'."""
    root = make(tmp_path, {HOMELAB_NOTE: f"---\nname: Homelab\n---\n{HOMELAB}"})
    phase = split_phase(root)
    reasons = {o["path"]: o.get("reason", "") for o in phase["details"]["outcomes"]}
    assert children_of(root) == {HOMELAB_NOTE: ["Homelab backups", "Homelab CSS theming",
                                                "Homelab hiring"]}, reasons


def test_a_folder_note_under_one_title_is_split_by_its_categories(tmp_path):
    """A folder note opens with `# Plugins`; its categories are the `##` under it. Read
    at the top level it was one section, 'nothing to split along'."""
    root = make(tmp_path, {FOLDER_NOTE: folder_note()})
    phase = split_phase(root)
    reasons = {o["path"]: o.get("reason", "") for o in phase["details"]["outcomes"]}
    assert children_of(root) == {FOLDER_NOTE: ["Diagrams", "Tables", "Tasks", "Writing",
                                               "Sync and publishing"]}, reasons
    # accepted, the title and the intro stay the parent's, above the list of its parts
    (proposal,) = (root / "meta/proposals").glob("*.json")
    accepted = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "accept",
                                        proposal.stem], catch_exceptions=False)
    assert accepted.exit_code == 0, accepted.output
    parent = (root / FOLDER_NOTE).read_text(encoding="utf-8")
    assert parent.startswith("# Plugins\n\nThis folder holds one page per community plugin")
    assert "[[digest/wiki/diagrams.md|Diagrams]]" in parent and "[[mermaid-render" not in parent
    diagrams = (root / "digest/wiki/diagrams.md").read_text(encoding="utf-8")
    assert "[[mermaid-render|Mermaid Render]]" in diagrams and "[[tasks-" not in diagrams


def _real_brain(name: str) -> OfflineConsolidateBrain:
    from reme_workbench.index.factory import get_embedder

    try:
        embedder = get_embedder(name)
        embedder.embed(["probe"])
    except Exception as exc:  # the model package is an extra
        pytest.skip(f"{name} embedder not installed: {exc}")
    return OfflineConsolidateBrain(embedder, Settings())


@pytest.mark.parametrize("embedder", ["e5", "minilm"])
def test_on_a_real_embedder_mixed_notes_split_and_one_topic_notes_stay_whole(embedder):
    brain = _real_brain(embedder)

    def splits(name: str, body: str) -> bool:
        note = NoteView(path=f"digest/wiki/{name}.md", name=name, description="", body=body)
        return brain.splitter.plan(note, "wiki", "en")["overloaded"]

    assert splits("homelab", HOMELAB) and splits("misc", MISC)
    assert splits("plugins", folder_note())
    kept = {name for name, body in ONE_TOPIC.items() if not splits(name, body)}
    assert kept == set(ONE_TOPIC)
