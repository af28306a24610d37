"""Hubs on vaults people keep (issue #31, docs/spec.md §7.2, §7.6, §7.9.5), driven through
the CLI as a person runs it: `import` the Obsidian folder, `consolidate --only
communities --force` a week's worth of times, then `consolidate --only
communities,abstract --force` with the offline brain, and the hub proposals read back from
`meta/proposals/`.

* a vault of four planted communities gets a hub each.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.consolidate.person_vaults import PLANTED, imported, planted_vault


def new_vault(root: Path) -> Path:
    for layer in ("resource", "daily", "digest/wiki", "digest/procedure", "digest/personal",
                  "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    return root


def consolidate(root: Path, only: str) -> dict:
    result = CliRunner().invoke(cli, ["--vault", str(root), "consolidate", "--only", only,
                                      "--force", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {p["phase"]: p for p in json.loads(result.stdout)["phases"]}


def hubs(root: Path) -> list[dict]:
    out = []
    for f in sorted((root / "meta/proposals").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data["action"] == "consolidate.abstract":
            out.append(data)
    return out


def hub_body(proposal: dict) -> tuple[str, str]:
    (op,) = proposal["ops"]
    return op["path"], op["content"]


def meta(root: Path, name: str) -> dict:
    return json.loads((root / "meta" / f"{name}.json").read_text(encoding="utf-8"))


def two_weeks(root: Path) -> dict:
    consolidate(root, "communities")
    return consolidate(root, "communities,abstract")


# -- the planted vault ---------------------------------------------------------------------


def test_four_planted_communities_get_a_hub_each(tmp_path):
    """Each note links the next three of its own 5–6: every member links 60 % or more of
    the others, so each community read as having its hub already and none got one."""
    root = new_vault(tmp_path / "vault")
    imported(root, planted_vault(tmp_path / "planted"))
    phases = two_weeks(root)
    outcomes = phases["abstract"]["details"]["outcomes"]
    assert [o["state"] for o in outcomes] == ["pending"] * 4, phases["abstract"]["details"]["summary"]
    topics = {frozenset(f"digest/wiki/{n}.md" for n in names) for names in PLANTED.values()}
    assert {frozenset(h["story"]["members"]) for h in hubs(root)} == topics
