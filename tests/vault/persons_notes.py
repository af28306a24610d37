"""A person's Obsidian vault built the way public ones are (issue #31): short links, an
`aliases:` list, links to notes not yet written (`[[Linux]]`, an aliased
`[[Index fund|index funds]]`), journal pages with prev/next links to days that have no
page, folders, an `.obsidian/` folder, and the old file times a vault brought from
elsewhere keeps. Shared by the unwritten-link and the archive tests."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

from reme_workbench.vault.meta import iso_utc, parse_utc
from tests.conftest import write_files

OLD = 1_640_995_200  # 2022-01-01: the file times a vault brought from elsewhere keeps
DAY = 86400

COFFEE = """---
aliases:
  - Pour Over
  - Filter coffee
tags: [coffee]
---
# Coffee Brewing

## Grind
Medium-fine for a cone. The [[Water]] matters as much; heat it in [[Kettle|my kettle]].
"""

NOTES = {
    "Coffee Brewing.md": COFFEE,
    "Morning routine.md": (
        "# Morning routine\n\nStart with a [[Pour Over]], then read about "
        "[[Index fund|index funds]] and my [[Linux]] notes.\nGrind as in "
        "[[Coffee Brewing#Grind]]; numbers in [[Budget]].\n"),
    "Tech/Linux tools.md": (
        "# Linux tools\n\nEverything about [[Linux]]: [[grep]], [[sed]].\n"
        "Back to [[Morning routine]].\n"),
    "Journal/2024-05-21.md": (
        "<< [[2024-05-20]] | [[2024-05-22]] >>\n\nMade a [[pour over]] today and started "
        "[[Atomic Habits]].\n"),
    "Journal/2024-05-22.md": (
        "<< [[2024-05-21]] | [[2024-05-23]] >>\n\nBudget review: [[Budget|my budget]] and "
        "[[Index fund|index funds]].\n"),
    "Budget.md": "# Budget\n\nMonthly numbers, kept since 2021.\n",
}

# the links of NOTES that name no note of the vault: the person means to write them
UNWRITTEN = sorted([
    "[[Water]]", "[[Kettle|my kettle]]", "[[Index fund|index funds]]", "[[Linux]]",
    "[[Linux]]", "[[grep]]", "[[sed]]", "[[2024-05-20]]", "[[Atomic Habits]]",
    "[[2024-05-23]]", "[[Index fund|index funds]]",
])


def persons_notes(root: Path, extra: dict[str, str] | None = None) -> Path:
    """NOTES (and `extra`) under `root` as Obsidian keeps them, every file dated 2022."""
    write_files(root, {**NOTES, **(extra or {}),
                       ".obsidian/app.json": '{"alwaysUpdateLinks": true}\n'})
    for path in root.rglob("*"):
        os.utime(path, (OLD, OLD))
    return root


def many_notes(root: Path, count: int) -> Path:
    """NOTES and `count` more course notes linking each other by short name, dated 2022."""
    extra = {f"Course/Lecture {i:02d}.md": (
        f"# Lecture {i:02d}\n\nAfter [[Lecture {i - 1:02d}]], before [[Lecture {i + 1:02d}]]; "
        f"see [[Linux]].\n") for i in range(1, count + 1)}
    return persons_notes(root, extra)


def days_pass(vault: Path, days: float) -> None:
    """The vault as it is `days` later: every access-log time and every file time under
    digest/ moved `days` into the past (the CLI runs on the real clock)."""
    log = vault / "meta" / "access_log.jsonl"
    if log.exists():
        lines = []
        for raw in log.read_text(encoding="utf-8").splitlines():
            doc = json.loads(raw)
            doc["ts"] = iso_utc(parse_utc(doc["ts"]) - timedelta(days=days))
            lines.append(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path in (vault / "digest").rglob("*.md"):
        when = path.stat().st_mtime - days * DAY
        os.utime(path, (when, when))
