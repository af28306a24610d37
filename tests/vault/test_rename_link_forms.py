"""`reme-workbench rename` retargets every link Obsidian resolves to the renamed note
(docs/spec.md §1.3.4, §2.4), keeps the moved note's own links pointing where they
pointed, refuses — before writing anything — what it cannot retarget, and refuses a new
name no link could name with one line saying what to change.

Driven through the CLI entry point on the link-form corpus (tests/vault/link_forms.py).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.errors import ChangesetRejectedError
from reme_workbench.vault.ops import plan_rename
from reme_workbench.vault.store import Edit
from reme_workbench.vault.vault import Vault
from tests.conftest import snapshot
from tests.vault.link_forms import (
    FORMS,
    LOG,
    PROV,
    RESOURCE_TEXT,
    TARGET,
    assert_links_follow,
    corpus_files,
    link_table,
)


def rename(root, *args):
    return CliRunner().invoke(cli, ["--vault", str(root), "rename", *args, "--json"])


def renamed_ok(root, old, new):
    result = rename(root, old, new)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def line_of(root, path, start):
    return next(line for line in (root / path).read_text(encoding="utf-8").splitlines()
                if line.startswith(start))


def test_every_form_follows_a_rename_in_its_folder(make_vault):
    root = make_vault(corpus_files())
    before = link_table(root)
    new = "digest/wiki/gamma-note.md"
    data = renamed_ok(root, TARGET, new)
    followed = assert_links_follow(before, root, moved={TARGET: new})
    # every form in the forms note, the next bucket's note, the log and the moved note
    assert followed == 25 + 4 + 6 + 3
    assert data["links_rewritten"] == {"digest/wiki/beta-source.md": 25,
                                       "digest/personal/pers-note.md": 4, LOG: 6, new: 2}
    assert data["left_alone"] == {"resource/2026-10-01/page.md": 2}
    assert (root / "resource/2026-10-01/page.md").read_text(encoding="utf-8") == RESOURCE_TEXT
    forms = (root / "digest/wiki/beta-source.md").read_text(encoding="utf-8")
    # each form kept: short stays short, a path a path, relative relative, .md as written
    for old_form, new_form in [
        ("[[alpha-note]]", "[[gamma-note]]"), ("[[Alpha-Note]]", "[[gamma-note]]"),
        ("[[ALPHA-NOTE.md]]", "[[gamma-note.md]]"),
        ("[[digest/wiki/alpha-note]]", "[[digest/wiki/gamma-note]]"),
        ("[[Digest/Wiki/Alpha-Note.md]]", "[[digest/wiki/gamma-note.md]]"),
        ("[[/digest/wiki/alpha-note.md]]", "[[/digest/wiki/gamma-note.md]]"),
        ("[[wiki/alpha-note]]", "[[wiki/gamma-note]]"), ("[[./alpha-note]]", "[[./gamma-note]]"),
        ("[[../wiki/alpha-note]]", "[[./gamma-note]]"),
        ("[[alpha-note#Heading One|the alpha]]", "[[gamma-note#Heading One|the alpha]]"),
        ("[[ alpha-note | spaced ]]", "[[ gamma-note | spaced ]]"),
        ("![[alpha-note#^blk1|300]]", "![[gamma-note#^blk1|300]]"),
        ("| cell | [[alpha-note\\|in a table]] |", "| cell | [[gamma-note\\|in a table]] |"),
    ]:
        assert new_form in forms.splitlines()[FORMS.index(next(f for f in FORMS if old_form in f)) + 4]
    assert "In code `[[alpha-note]]`, in a comment %% [[alpha-note]] %% and <!-- [[Alpha-Note]] -->." in forms
    assert "Not it: [[alpha-note-2]], [[alpha]], [[sibling]], [[beta-source]]." in forms


def test_the_moved_notes_own_links_point_where_they_pointed_from_another_bucket(make_vault):
    root = make_vault(corpus_files())
    before = link_table(root)
    new = "digest/personal/alpha-moved.md"
    renamed_ok(root, TARGET, new)
    assert assert_links_follow(before, root, moved={TARGET: new}) == 25 + 4 + 6 + 3
    moved = (root / new).read_text(encoding="utf-8")
    assert "name: alpha-moved\n" in moved
    assert ("Next to [[../wiki/sibling]] and [[../wiki/sibling.md#Part|the sibling]], across to "
            "[[./pers-note]] and ![[../../resource/2026-10-01/fig.png]].") in moved
    assert "[[./alpha-moved|me]]" in moved and "[[../wiki/not-yet]]" in moved
    assert "Short [[sibling]], a path [[digest/personal/pers-note.md]]" in moved  # still unique
    pers = line_of(root, "digest/personal/pers-note.md", "From here")
    assert pers == ("From here [[./alpha-moved]], [[./alpha-moved.md#Heading One|a]], "
                    "[[alpha-moved]] and [[personal/alpha-moved|A]].")


def test_a_short_name_the_new_name_makes_ambiguous_is_written_as_the_vault_path(make_vault):
    files = corpus_files()
    files["digest/procedure/gamma-note.md"] = "---\nname: gamma-note\ndescription: Other.\n---\n" + PROV
    root = make_vault(files)
    before = link_table(root)
    new = "digest/wiki/gamma-note.md"
    renamed_ok(root, TARGET, new)
    assert_links_follow(before, root, moved={TARGET: new})
    # in digest/wiki/ the short name is found next to the note; elsewhere it is ambiguous
    forms = (root / "digest/wiki/beta-source.md").read_text(encoding="utf-8")
    assert forms.startswith("---\nname: beta-source\ndescription: Links the alpha note in every form.\n"
                            "---\n[[gamma-note]]\n")
    pers = line_of(root, "digest/personal/pers-note.md", "From here")
    assert "[[digest/wiki/gamma-note.md]] and [[wiki/gamma-note|A]]" in pers
    log = (root / LOG).read_text(encoding="utf-8")
    assert "See [[digest/wiki/gamma-note.md]], [[digest/wiki/gamma-note|the alpha]]" in log
    assert "mentions:: [[digest/wiki/gamma-note.md]]" in log


def test_links_it_cannot_retarget_are_named_and_nothing_is_written(make_vault):
    root = make_vault({
        "digest/wiki/alpha.md": "---\nname: alpha\ndescription: A.\n---\nA.\n" + PROV,
        "digest/personal/alpha.md": "---\nname: alpha\ndescription: Another.\n---\nB.\n" + PROV,
        "digest/personal/gamma.md": "---\nname: gamma\ndescription: G.\n---\nG.\n" + PROV,
        "digest/wiki/linker.md": "---\nname: linker\ndescription: L.\n---\n"
                                 "[[digest/wiki/alpha.md]] and [[alpha]]\n" + PROV,
        LOG: "## 10:00\n\nAbout [[alpha]] (which one?)\nand [[gamma|G]] in the log.\n",
    })
    before = snapshot(root)
    result = rename(root, "digest/wiki/alpha.md", "digest/wiki/gamma.md")
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "would break 2 link(s), so nothing was written" in result.output
    assert (f"{LOG}:3 [[alpha]] could mean digest/personal/alpha.md or digest/wiki/alpha.md"
            in result.output)
    assert (f"{LOG}:4 [[gamma|G]] names digest/personal/gamma.md and would name "
            "digest/personal/gamma.md or digest/wiki/gamma.md after the rename") in result.output
    assert "choose another name" in result.output
    assert snapshot(root) == before


def test_dry_run_counts_what_the_rename_writes(make_vault):
    root = make_vault(corpus_files())
    before = snapshot(root)
    new = "digest/wiki/gamma-note.md"
    result = rename(root, TARGET, new, "--dry-run")
    assert result.exit_code == 0, result.output
    planned = json.loads(result.stdout)
    assert snapshot(root) == before
    assert renamed_ok(root, TARGET, new)["links_rewritten"] == planned["links_rewritten"]


LONG = "x" * 300
WIDE = "é" * 128  # 128 characters, 256 bytes in UTF-8


@pytest.mark.parametrize("new, says", [
    ("digest/wiki/a#b.md", "holds #: Obsidian reads # | [ ] ^"),
    ("digest/wiki/a|b.md", "holds |: Obsidian reads"),
    ("digest/wiki/a[b].md", "holds [ ]: Obsidian reads"),
    ("digest/wiki/a]b.md", "holds ]: Obsidian reads"),
    ("digest/wiki/a^b.md", "holds ^: Obsidian reads"),
    (f"digest/wiki/{LONG}.md", "is 303 bytes long; a file or folder name may have at most 255"),
    (f"digest/wiki/{WIDE}.md", "is 259 bytes long; a file or folder name may have at most 255"),
    (f"digest/wiki/{LONG}/x.md", "is 300 bytes long"),
    ("", "Empty path: give a vault-relative path such as digest/wiki/x.md"),
    ("  ", "Empty path"),
    ("digest/wiki/../../x.md", "paths may not leave the vault"),
    ("../x.md", "paths may not leave the vault"),
    ("/etc/x.md", "is absolute; give it relative to the vault root"),
    ("digest/x.md", "is not inside a bucket; digest notes live in digest/<bucket>/"),
    ("digest/knowledge/x.md", "is not inside a bucket"),
    ("digest/wiki/x", "both paths must end in .md"),
    ("digest/wiki/a\nb.md", "holds a line break; give the new path on one line"),
    ("digest/wiki/x.md ", "both paths must end in .md"),
])
def test_a_new_name_no_link_could_name_is_one_line_saying_what_to_change(make_vault, new, says):
    root = make_vault(corpus_files())
    before = snapshot(root)
    result = CliRunner().invoke(cli, ["--vault", str(root), "rename", TARGET, new])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], result.output
    assert snapshot(root) == before


def test_the_console_script_prints_no_traceback_for_a_bad_name(make_vault):
    root = make_vault(corpus_files())
    for new in ("digest/wiki/a#b.md", f"digest/wiki/{LONG}.md"):
        out = subprocess.run([sys.executable, "-m", "reme_workbench", "--vault", str(root),
                              "rename", TARGET, new], capture_output=True, text=True)
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith("Error: ") and len(out.stderr.strip().splitlines()) == 1
    assert (root / TARGET).read_text(encoding="utf-8") == corpus_files()[TARGET]


@pytest.mark.parametrize("spoil, says", [
    (lambda t: t.replace("[[gamma-note]]", "[[alpha-note-2]]", 1), "would name digest/wiki/alpha-note-2.md"),
    (lambda t: t.replace("[[gamma-note|the alpha]]", "[[gamma-note|an alpha]]", 1), "became"),
    (lambda t: t.replace("Not it:", "Not this:", 1), "text other than link targets would change"),
    (lambda t: t.replace("[[alpha]]", "[[gamma-note]]", 1), "resolved to nothing and changed"),
])
def test_the_check_refuses_a_rename_that_would_change_more_than_it_says(make_vault, spoil, says):
    root = make_vault(corpus_files())
    vault = Vault.open(root, cache=False)
    plan = plan_rename(vault.store, vault.scan.records.values(), TARGET, "digest/wiki/gamma-note.md")
    ops = tuple(Edit(op.path, spoil(op.content.decode()).encode(), op.expected)
                if isinstance(op, Edit) and op.path.endswith("beta-source.md") else op
                for op in plan.changeset.ops)
    before = snapshot(root)
    with pytest.raises(ChangesetRejectedError) as refused:
        vault.apply(dataclasses.replace(plan.changeset, ops=ops))
    assert any(says in why for _, why in refused.value.failures), refused.value.failures
    assert snapshot(root) == before
