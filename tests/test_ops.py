"""retarget_links / rename_note on real vaults, including hypothesis properties."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reme_workbench.errors import ChangesetRejectedError, StaleChangesetError
from reme_workbench.vault.store import Changeset, Edit
from reme_workbench.vault.vault import Vault, init_vault, rename_note, retarget_links

from .conftest import snapshot, write_files

OLD = "digest/wiki/old.md"
NEW = "digest/wiki/new.md"

# Pieces a note body is made of: prose, links in every form, code that hides links.
_piece = st.sampled_from(
    [
        "Plain prose. ",
        "\n",
        "\r\n",
        f"[[{OLD}]] ",
        f"[[ {OLD} ]] ",
        f"[[{OLD}|alias text]] ",
        f"[[{OLD}#Section|A]] ",
        f"![[{OLD}]] ",
        f"\nrel:: [[{OLD}]] [[digest/wiki/other.md]]\n",
        f"[is_a:: [[{OLD}]]] ",
        f"`[[{OLD}]]` ",
        f"\n```\n[[{OLD}]]\n```\n",
        f"\\[[{OLD}]] ",
        "[[digest/wiki/old]] ",  # extension-less: a different target, left alone
        "[[digest/wiki/other.md]] ",
        "中文 [[digest/wiki/other.md|别名]] ",
        "[[unclosed ",
    ]
)
bodies = st.lists(_piece, max_size=12).map("".join)


def _vault_with(bodies_by_path: dict[str, str]) -> tuple[tempfile.TemporaryDirectory, Path]:
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name) / "v"
    init_vault(root)
    files = {OLD: "---\nname: old\ndescription: x\n---\nold body\n", **bodies_by_path}
    write_files(root, files)
    return tmp, root


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=bodies, b=bodies)
def test_retarget_twice_is_once_and_back_restores_bytes(a, b):
    tmp, root = _vault_with({"digest/wiki/a.md": a, "digest/personal/b.md": "---\nname: b\n---\n" + b})
    with tmp:
        original = snapshot(root)
        first = retarget_links(Vault.open(root), OLD, NEW)
        after_once = snapshot(root)
        second = retarget_links(Vault.open(root), OLD, NEW)
        assert second.total == 0
        assert {p: c for p, (c, _) in snapshot(root).items() if not p.startswith("audit/")} == {
            p: c for p, (c, _) in after_once.items() if not p.startswith("audit/")
        }
        back = retarget_links(Vault.open(root), NEW, OLD)
        assert back.total == first.total
        restored = snapshot(root)
        assert {p: c for p, (c, _) in restored.items()} == {p: c for p, (c, _) in original.items()}


def test_retarget_only_touches_digest_by_default(make_vault):
    root = make_vault(
        {
            OLD: "---\nname: old\n---\n",
            "digest/wiki/a.md": f"[[{OLD}]]\n",
            "daily/2026-10-05/log.md": f"[[{OLD}]]\n",
        }
    )
    plan = retarget_links(Vault.open(root), OLD, NEW)
    assert plan.counts == {"digest/wiki/a.md": 1}
    assert plan.left_alone == {"daily/2026-10-05/log.md": 1}
    assert (root / "daily/2026-10-05/log.md").read_text() == f"[[{OLD}]]\n"


def _edit_b_before_each_apply(root, monkeypatch, times: int) -> list[int]:
    """Someone edits b.md between planning and applying, the first `times` applies."""
    from reme_workbench.vault import store as store_module

    real_apply = store_module.Store.apply
    calls = []

    def sabotage(self, changeset):
        calls.append(1)
        if len(calls) <= times:
            (root / "digest/wiki/b.md").write_text(f"changed meanwhile {len(calls)} [[{OLD}]]\n")
        return real_apply(self, changeset)

    monkeypatch.setattr(store_module.Store, "apply", sabotage)
    return calls


RENAME_FILES = {
    OLD: "---\nname: old\ndescription: d\n---\nself [[digest/wiki/old.md]]\n",
    "digest/wiki/a.md": f"x [[{OLD}|A]]\n",
    "digest/wiki/b.md": f"y [[{OLD}]]\n",
}


def test_rename_is_one_atomic_changeset(make_vault, monkeypatch):
    """With no re-plan left, a file edited meanwhile stops the whole rename."""
    root = make_vault(RENAME_FILES)
    before = snapshot(root)
    vault = Vault.open(root, max_replans=1)
    _edit_b_before_each_apply(root, monkeypatch, times=1)
    with pytest.raises(StaleChangesetError) as info:
        rename_note(vault, OLD, NEW)
    assert info.value.paths == ["digest/wiki/b.md"] and "keep changing" in str(info.value)
    after = snapshot(root)
    assert after["digest/wiki/b.md"][0] == f"changed meanwhile 1 [[{OLD}]]\n".encode()
    assert {k: v for k, v in after.items() if k != "digest/wiki/b.md"} == {
        k: v for k, v in before.items() if k != "digest/wiki/b.md"
    }


def test_rename_replans_when_a_file_changed_meanwhile(make_vault, monkeypatch):
    """The plan is redone from the files as they are, up to max_replans plans."""
    root = make_vault(RENAME_FILES)
    vault = Vault.open(root, max_replans=3)
    calls = _edit_b_before_each_apply(root, monkeypatch, times=2)
    plan = rename_note(vault, OLD, NEW)
    assert len(calls) == 3
    # the person's edit is kept, and its link retargeted in the third plan
    assert (root / "digest/wiki/b.md").read_text() == f"changed meanwhile 2 [[{NEW}]]\n"
    assert plan.counts["digest/wiki/b.md"] == 1 and not (root / OLD).exists()


def test_rename_updates_self_links_and_name(make_vault):
    root = make_vault({OLD: "---\nname: old\ndescription: d\nextra: kept\n---\nself [[digest/wiki/old.md]]\n"})
    rename_note(Vault.open(root), OLD, NEW)
    text = (root / NEW).read_text()
    assert text == "---\nname: new\ndescription: d\nextra: kept\n---\nself [[digest/wiki/new.md]]\n"


def test_retarget_check_rejects_an_edit_that_drops_other_links(make_vault):
    root = make_vault({OLD: "x\n", "digest/wiki/a.md": f"[[{OLD}]] [[digest/wiki/keep.md]]\n"})
    vault = Vault.open(root)
    plan = retarget_links(vault, OLD, NEW, dry_run=True)
    (edit,) = plan.changeset.ops
    assert isinstance(edit, Edit)
    # a tampered plan that also drops keep.md must be refused by the mechanical check
    tampered = Changeset(
        ops=(Edit(edit.path, f"[[{NEW}]]\n".encode(), edit.expected),),
        checks=plan.changeset.checks,
    )
    with pytest.raises(ChangesetRejectedError) as info:
        vault.apply(tampered)
    assert "other links changed" in str(info.value.failures)
    assert (root / "digest/wiki/a.md").read_text() == f"[[{OLD}]] [[digest/wiki/keep.md]]\n"
