"""Missing or other-version meta files degrade as docs/spec.md §8.2 lists, file by file:
no community boost, recency factor 1.0, no archived filter, no thaw reference, no loop
defence, every consolidate phase due — and nothing crashes."""

from __future__ import annotations

import json
import os
import warnings
from datetime import timedelta

import pytest

from reme_workbench.brains.factory import offline_consolidate_brain
from reme_workbench.config import ArchiveSettings, CommunitySettings, Settings
from reme_workbench.consolidate.archive import update_archive
from reme_workbench.consolidate.communities import update_communities
from reme_workbench.consolidate.cooldowns import Cooldowns
from reme_workbench.consolidate.run import Consolidator
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.recall import recall
from reme_workbench.index.store import VaultIndex
from reme_workbench.vault.meta import log_access, write_meta
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

K, V, B = "digest/wiki/fleet.md", "digest/procedure/garage.md", "digest/personal/driving.md"
CARS = {
    K: "---\nname: fleet\ndescription: Vehicles we run.\n---\nOur cars are serviced monthly.\n",
    V: "---\nname: garage\ndescription: Where cars park.\n---\nThe car lives in bay 3.\n",
    B: "---\nname: driving\ndescription: How I commute.\n---\nI drive a car to work.\n",
}
# what each signal does when it is there, as version 1
SIGNALS = {
    "communities": {"communities": {K: "c_00", V: "c_00", B: "c_01"}},
    "recency": {"scores": {K: 0.0, V: 0.0, B: 0.0}},
    "archived": {"archived": [K]},
}
STATES = ["missing", "other version", "broken JSON"]


def _put(root, name: str, state: str) -> None:
    path = root / "meta" / f"{name}.json"
    if state == "missing":
        path.unlink(missing_ok=True)
    elif state == "other version":
        path.write_text(json.dumps({"version": 2, **SIGNALS.get(name, {})}), encoding="utf-8")
    else:
        path.write_text("{broken", encoding="utf-8")


@pytest.fixture
def cars(make_vault):
    with VaultIndex(make_vault(CARS, name="cars"), HashingEmbedder()) as index:
        index.refresh()
        yield index


def scores(index) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the one warning is tested below
        return {h.path: h.score for h in recall(index, "car", log_access=False)}


@pytest.mark.parametrize("name", sorted(SIGNALS))
@pytest.mark.parametrize("state", STATES)
def test_recall_ignores_an_unusable_signal(cars, name, state):
    base = scores(cars)
    write_meta(cars.root, name, SIGNALS[name], version=1, now=FIXED_NOW)
    assert scores(cars) != pytest.approx(base) or set(scores(cars)) != set(base)  # it acts
    _put(cars.root, name, state)
    if state == "missing":
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # silently absent
            got = {h.path: h.score for h in recall(cars, "car", log_access=False)}
    else:
        with pytest.warns(RuntimeWarning, match=f"meta/{name}.json"):
            got = {h.path: h.score for h in recall(cars, "car", log_access=False)}
    # no boost, factor 1.0, no filter: exactly the scores without the file
    assert got == pytest.approx(base)


def _aged_vault(make_vault):
    files = {f"digest/wiki/n{i}.md": f"---\nname: n{i}\ndescription: N{i}.\n---\nNote {i}.\n"
             for i in range(3)}
    root = make_vault(files, name="aged")
    when = FIXED_NOW.timestamp() - 400 * 86400
    for rel in files:
        os.utime(root / rel, (when, when))
        # dreamt 400 days ago (a note no event names is adopted by the first batch)
        log_access(root, rel, FIXED_NOW - timedelta(days=400), "dream.create")
    return root


@pytest.mark.parametrize("state", STATES)
def test_archive_without_a_usable_previous_batch_has_no_thaw_reference(make_vault, state):
    root = _aged_vault(make_vault)
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    uncapped = ArchiveSettings(max_share_per_run=1.0)  # three notes: a share would take none
    update_archive(vault, uncapped, now=FIXED_NOW - timedelta(days=1))
    log_access(root, "digest/wiki/n0.md", FIXED_NOW - timedelta(hours=1), "recall", query="q",
               rank=1)
    _put(root, "archived", state)
    report = update_archive(vault, uncapped, now=FIXED_NOW)
    # with the previous batch usable, n0 would thaw; without it every note is scored afresh
    assert "digest/wiki/n0.md" in report.archived and report.previous_computed_at is None
    assert report.thawed == () and report.newly_archived == report.archived


@pytest.mark.parametrize("state", STATES)
def test_communities_without_a_usable_previous_run_have_unknown_stability(make_vault, state):
    root = _aged_vault(make_vault)
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    update_communities(vault, CommunitySettings(), now=FIXED_NOW)
    _put(root, "communities", state)
    report = update_communities(vault, CommunitySettings(), now=FIXED_NOW)
    assert report.previous_computed_at is None
    assert set(report.stability.values()) == {None}


@pytest.mark.parametrize("state", ["other version", "broken JSON"])
def test_cooldowns_without_a_usable_file_are_no_loop_defence(make_vault, state):
    root = make_vault({}, name="cd")
    cd = Cooldowns.load(root)
    cd.start(K, "split", FIXED_NOW)
    cd.save(FIXED_NOW)
    assert Cooldowns.load(root).active(K, "merge", FIXED_NOW) is not None
    _put(root, "cooldowns", state)
    unusable = Cooldowns.load(root)
    assert not unusable.defended and "no loop defence" in unusable.warning
    assert unusable.active(K, "merge", FIXED_NOW) is None


@pytest.mark.parametrize("state", STATES)
def test_without_a_usable_state_every_phase_is_due(make_vault, state):
    root = make_vault({}, name="state")
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    embedder = HashingEmbedder()
    c = Consolidator(vault, Settings(), brain=offline_consolidate_brain(embedder, Settings()),
                     embedder=embedder)
    c.run(force=True)
    assert not c.due("communities", c.last_runs(), FIXED_NOW)[0]
    _put(root, "consolidate_state", state)
    last = c.last_runs()
    assert last == {}
    assert all(c.due(p, last, FIXED_NOW)[0] for p in ("communities", "archive", "health"))
