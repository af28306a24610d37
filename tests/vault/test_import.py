"""`reme-workbench import`: a person's Obsidian vault adopted into digest/ (docs/spec.md §3.6.5)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.links import parse_links
from tests.conftest import snapshot, write_files

OLD = 1_640_995_200  # 2022-01-01: the file times a vault brought from elsewhere keeps

KANBAN = """---
aliases:
- Kanban
publish: true
---
# Kanban

See [[Breadcrumbs#Setup]] and [[breadcrumbs|the crumbs]].
![[shot.png]] ![[gone.png]]

| plugin | note |
|---|---|
| [[Breadcrumbs]] | paths |
"""


def persons_vault(root: Path) -> Path:
    write_files(root, {
        "Plugins/kanban.md": KANBAN,
        "Breadcrumbs.md": "# Breadcrumbs\n\nBack to [[kanban]]. And [[Nowhere]]; [[Note]] is either.\n",
        "A/Note.md": "Note in A, see [[B/Note]].\n",
        "B/Note.md": "Note in B, and [[Note]] is this one.\n",
        "What #1 | is.md": "A name Obsidian allows but a link target may not hold.\n",
        "Bad.md": "---\nbad: [unclosed\n---\nx\n",
        "attachments/shot.png": b"\x89PNG\r\n\x1a\n",
        ".obsidian/app.json": "{}",
        ".trash/old.md": "deleted\n",
    })
    for path in root.rglob("*"):
        os.utime(path, (OLD, OLD))
    return root


def today() -> str:  # the CLI runs on the real clock
    return datetime.now(UTC).date().isoformat()


def run(vault: Path, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == code, result.output
    return result


def test_import_brings_notes_links_frontmatter_and_keeps_the_originals(make_vault, tmp_path):
    vault = make_vault({})
    source = persons_vault(tmp_path / "my vault")
    data = json.loads(run(vault, "import", str(source), "--json").stdout)
    paths = {n["source"]: n["path"] for n in data["notes"]}
    assert paths == {  # the person's folders kept under the bucket (docs/spec.md §1.2.3)
        "A/Note.md": "digest/wiki/A/Note.md", "B/Note.md": "digest/wiki/B/Note.md",
        "Breadcrumbs.md": "digest/wiki/Breadcrumbs.md",
        "Plugins/kanban.md": "digest/wiki/Plugins/kanban.md",
        "What #1 | is.md": "digest/wiki/what-1-is.md",
    }
    assert {n["source"] for n in data["notes"] if n["renamed"]} == {"What #1 | is.md"}
    kanban = (vault / "digest/wiki/Plugins/kanban.md").read_text(encoding="utf-8")
    # frontmatter kept, `name` added; links are vault paths with what the reader saw
    assert kanban.startswith("---\nname: kanban\naliases:\n- Kanban\npublish: true\n---\n# Kanban\n")
    assert "See [[digest/wiki/Breadcrumbs.md#Setup|Breadcrumbs > Setup]] and " \
           "[[digest/wiki/Breadcrumbs.md|the crumbs]]." in kanban
    assert f"![[resource/{today()}/my vault/attachments/shot.png]] ![[gone.png]]" in kanban
    assert "| [[digest/wiki/Breadcrumbs.md\\|Breadcrumbs]] | paths |" in kanban
    assert kanban.endswith(f"\nderived_from:: [[resource/{today()}/my vault/Plugins/kanban.md]]\n")
    assert "see [[digest/wiki/B/Note.md|B/Note]]" in (vault / "digest/wiki/A/Note.md").read_text()
    # the originals, byte for byte, as provenance; hidden folders are not brought
    for rel in ("Plugins/kanban.md", "Bad.md", "attachments/shot.png"):
        assert (vault / f"resource/{today()}/my vault" / rel).read_bytes() == (source / rel).read_bytes()
    assert not list((vault / "resource").rglob("app.json")) and not list(vault.rglob("old.md"))
    # the vault's own Obsidian settings: the originals' folder under Excluded files
    assert json.loads((vault / ".obsidian/app.json").read_text()) == {
        "userIgnoreFilters": [f"resource/{today()}/my vault/"]}
    # what could not be brought is said
    assert [s["path"] for s in data["skipped"]] == ["Bad.md"]
    left = {(u["source"], u["raw"]) for u in data["unresolved"]}
    assert left == {("Plugins/kanban.md", "![[gone.png]]"), ("Breadcrumbs.md", "[[Nowhere]]"),
                    ("Breadcrumbs.md", "[[Note]]")}
    audit = (vault / f"audit/{today()}/import.md").read_text(encoding="utf-8")
    assert "Not brought (1)" in audit and "`[[Note]]` (several files of the imported vault" in audit
    # every link of every original is still a link in its note
    for src, dst in paths.items():
        before = [lk.raw for lk in parse_links((source / src).read_text())]
        after = [lk for lk in parse_links((vault / dst).read_text()) if lk.predicate != "derived_from"]
        assert len(after) == len(before), dst
    health = json.loads(run(vault, "health", "--json").stdout)
    # they never resolved: not yet written (docs/spec.md §7.5.1), not broken
    assert health["broken_links"] == []
    assert {b["raw"] for b in health["unwritten_links"]} == {"![[gone.png]]", "[[Nowhere]]"}


def test_imported_notes_start_their_recency_at_the_import(make_vault, tmp_path):
    vault = make_vault({})
    run(vault, "import", str(persons_vault(tmp_path / "old")), "--json")
    for path in (vault / "digest").rglob("*.md"):  # as if a sync tool put the old times back
        os.utime(path, (OLD, OLD))
    data = json.loads(run(vault, "consolidate", "--only", "archive", "--force", "--json").stdout)
    details = data["phases"][0]["details"]
    assert details["scored"] == 5 and details["archived"] == []


def test_a_dry_run_writes_nothing_and_bad_sources_are_refused(make_vault, tmp_path):
    vault = make_vault({})
    source = persons_vault(tmp_path / "src")
    before = snapshot(vault)
    out = run(vault, "import", str(source), "--dry-run", "--text").output
    assert "Would import 5 note(s)" in out and "Dry run: nothing was written." in out
    assert snapshot(vault) == before
    missing = run(vault, "import", str(tmp_path / "nope"), code=1)
    assert "is not a folder" in missing.output and missing.output.count("\n") == 1
    inside = run(vault, "import", str(vault / "digest"), code=1)
    assert "inside the vault" in inside.output
    (tmp_path / "empty").mkdir()
    assert "no Markdown notes" in run(vault, "import", str(tmp_path / "empty"), code=1).output
    assert snapshot(vault) == before


def test_importing_twice_never_overwrites(make_vault, tmp_path):
    vault = make_vault({"digest/wiki/kanban.md": "mine\n\nderived_from:: [[daily/d/x.md]]\n"})
    source = persons_vault(tmp_path / "src")
    first = json.loads(run(vault, "import", str(source), "--json").stdout)
    second = json.loads(run(vault, "import", str(source), "--json").stdout)
    assert (vault / "digest/wiki/kanban.md").read_text() == "mine\n\nderived_from:: [[daily/d/x.md]]\n"
    assert {n["path"] for n in first["notes"]} & {n["path"] for n in second["notes"]} == set()
    assert first["folder"] == f"resource/{today()}/src"
    assert second["folder"] == f"resource/{today()}/src-2"


def test_two_notes_whose_names_differ_only_by_case_are_both_kept(make_vault, tmp_path):
    """`MaaS.md` beside `MAAS.md` (two files on Linux): the second became neither a note nor
    a kept original, and its text was nowhere in the vault. Both are kept now, the second
    under a suffix, and the audit says so."""
    vault = make_vault({})
    source = write_files(tmp_path / "cased", {
        "MaaS.md": "Metal as a service: the provisioning tool.\n",
        "MAAS.md": "MAAS, our data centre's install of it, runs on rack 4.\n",
    })
    result = run(vault, "import", str(source), "--json")
    notes = json.loads(result.output)["notes"]
    assert len(notes) == 2
    texts = {(vault / n["path"]).read_text() for n in notes}
    assert any("rack 4" in t for t in texts) and any("provisioning tool" in t for t in texts)
    originals = sorted(p.name for p in (vault / f"resource/{today()}/cased").iterdir())
    assert originals == ["MAAS-2.md", "MaaS.md"] or originals == ["MAAS.md", "MaaS-2.md"]
    kept = [(vault / f"resource/{today()}/cased/{name}").read_bytes() for name in originals]
    assert sorted(kept) == sorted(p.read_bytes() for p in source.iterdir())
    audit = (vault / f"audit/{today()}/import.md").read_text()
    assert "Originals kept under another name (1)" in audit and "only by case" in audit
