"""A person saving in Obsidian while `proposals accept` applies a merge (issue #29.1).

Real processes: the CLI accepts a held merge (the winner edited, the loser deleted, a note
linking the loser retargeted) while a second process — the person — starts typing at a
random moment of the accept and appends a burst of lines to the winner, one every
millisecond or two: before the accept reads the files, while it writes them, or after.
Afterwards:

* every line the person typed is in the winner (none overwritten, none left in a copy);
* the proposal is `applied` — the winner holds the merged text, the loser is gone, the
  linker points at the winner — or `stale` — the loser and the linker as they were, the
  winner its old text plus the person's lines; never `applied` with part of it skipped;
* no journal or temp file is left, and nothing was "set aside" in `.reme/`.

Before the store re-checked each file at the moment of its replace, a save between the
stamp check and the write left a half merge reported as `applied` (4 of 25 timings).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reme_workbench.proposals import ProposalQueue
from reme_workbench.vault.store import Delete, Edit
from reme_workbench.vault.vault import Vault

REPO = Path(__file__).resolve().parents[2]
WINNER, LOSER, LINKER = ("digest/procedure/deploy.md", "digest/procedure/deploy-2.md",
                         "digest/wiki/runbook.md")
OLD = {
    WINNER: "---\nname: deploy\ndescription: How to deploy.\n---\nRun `make deploy`.\n\n"
            "derived_from:: [[daily/2026-10-05/log.md]]\n",
    LOSER: "---\nname: deploy-2\ndescription: Deploying.\n---\nNever deploy on a Friday.\n\n"
           "derived_from:: [[daily/2026-10-06/log.md]]\n",
    LINKER: "---\nname: runbook\ndescription: The runbook.\n---\nSee [[digest/procedure/deploy-2.md]].\n",
    "daily/2026-10-05/log.md": "deployed\n",
    "daily/2026-10-06/log.md": "deployed again\n",
}
MERGED = ("---\nname: deploy\ndescription: How to deploy.\n---\nRun `make deploy`.\n\n"
          "## From deploy-2\n\nNever deploy on a Friday.\n\n"
          "derived_from:: [[daily/2026-10-05/log.md]]\nderived_from:: [[daily/2026-10-06/log.md]]\n")
RETARGETED = "---\nname: runbook\ndescription: The runbook.\n---\nSee [[digest/procedure/deploy.md]].\n"

# The person starts typing at a random moment of the accept ("random"), or the moment the
# accept's journal appears — the change staged, the files not yet replaced ("journal") —
# and types a burst of lines, one every millisecond or less.
PERSON = r"""
import glob, os, random, sys, time
path, stop, seed, when = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
journal = os.path.join(os.path.dirname(path), "..", "..", ".reme", "journal", "*")
if when == "random":
    time.sleep(rng.uniform(0.2, 2.5))
else:
    deadline = time.monotonic() + 60
    while not glob.glob(journal) and time.monotonic() < deadline and not os.path.exists(stop):
        pass
n = 0
end = time.monotonic() + rng.uniform(0.02, 0.2)
while time.monotonic() < end and not os.path.exists(stop):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, f"typed {n}\n".encode())
    os.close(fd)
    n += 1
    time.sleep(rng.uniform(0, 0.001))
print(n)
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PYTHONPATH"] = str(REPO)
    return env


def _vault_with_held_merge(root: Path) -> str:
    for rel, text in OLD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for layer in ("meta", "audit", "resource", "digest/personal"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    vault = Vault.open(root, clock=lambda: datetime(2026, 12, 7, 9, tzinfo=UTC))
    store = vault.store
    queue = ProposalQueue(vault)
    proposal = queue.new("consolidate.merge", "merge deploy-2 into deploy", [
        Edit(WINNER, MERGED, store.read(WINNER)[1]),
        Delete(LOSER, store.read(LOSER)[1]),
        Edit(LINKER, RETARGETED, store.read(LINKER)[1]),
    ])
    queue.save(proposal)
    return proposal.id


def _one_round(root: Path, seed: int, when: str) -> str:
    pid = _vault_with_held_merge(root)
    stop = root.parent / "stop"
    person = subprocess.Popen([sys.executable, "-c", PERSON, str(root / WINNER), str(stop),
                               str(seed), when], stdout=subprocess.PIPE, text=True)
    try:
        accept = subprocess.run(
            [sys.executable, "-m", "reme_workbench", "--vault", str(root), "proposals",
             "accept", pid, "--json"],
            env=_env(), cwd=REPO, capture_output=True, text=True, timeout=180)
    finally:
        stop.touch()
        typed = int(person.communicate(timeout=30)[0])
    assert "Traceback" not in accept.stderr, accept.stderr
    state = json.loads(accept.stdout)["state"]
    record = json.loads((root / f"meta/proposals/{pid}.json").read_text())
    winner = (root / WINNER).read_text()
    lines = [ln for ln in winner.splitlines() if ln.startswith("typed ")]
    assert lines == [f"typed {n}" for n in range(typed)], "the person's lines were lost"
    text = winner[: winner.index("typed ")] if lines else winner
    assert state == record["state"], (state, record["state"])
    if state == "applied":
        assert text == MERGED
        assert not (root / LOSER).exists()
        assert (root / LINKER).read_text() == RETARGETED
        assert record.get("inverse"), "an applied proposal records how to revert it"
    else:
        assert state == "stale", accept.stdout
        assert text == OLD[WINNER]
        assert (root / LOSER).read_text() == OLD[LOSER]
        assert (root / LINKER).read_text() == OLD[LINKER]
        assert WINNER in record["error"]
    journal = root / ".reme/journal"  # absent when the accept went stale before staging
    assert not journal.exists() or not os.listdir(journal)
    assert not list(root.rglob("*.reme-tmp")) and not (root / ".reme/recovered").exists()
    return state


def _rounds(tmp_path: Path, n: int) -> list[str]:
    rng = random.Random(29)
    return [_one_round(tmp_path / f"r{i}" / "vault", rng.randrange(1 << 30),
                       "journal" if i % 2 else "random") for i in range(n)]


def test_a_person_saving_while_accept_runs_loses_nothing_and_gets_no_half_merge(tmp_path):
    states = _rounds(tmp_path, 4)
    assert set(states) <= {"applied", "stale"}


@pytest.mark.slow
def test_many_rounds_of_a_person_saving_while_accept_runs(tmp_path):
    states = _rounds(tmp_path, 25)
    assert {"applied", "stale"} <= set(states), states  # both sides of the write were hit
