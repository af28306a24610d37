"""Two decisions on one proposal at once (issue #29): exactly one applies, and its record
is right — `applied`, with the inverse `revert` needs (docs/spec.md §3.7.4).

Real processes, each the CLI's entry point (`reme_workbench.cli:main`): they import
first, then wait for a go file and start within a few random milliseconds of each
other, so the two decisions meet between loading the proposal and saving it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.vault.checks import CheckSpec
from reme_workbench.vault.store import Edit
from reme_workbench.vault.vault import Vault

REPO = Path(__file__).resolve().parents[2]
MAT = "daily/2026-10-05/log.md"
NOTE = "digest/wiki/pool-size.md"
OLD = f"---\nname: pool-size\ndescription: DB pool size.\n---\nPool is 10.\n\nderived_from:: [[{MAT}]]\n"
NEW = OLD.replace("Pool is 10.", "Pool is 40 since the incident.")

# the child: import everything the command needs, say so, wait for the go file, sleep a
# random moment (at most 15 ms), then run the CLI's entry point with its arguments
CHILD = r"""
import os, sys, time
from pathlib import Path
import reme_workbench.cli, reme_workbench.ops, reme_workbench.proposals, reme_workbench.ops.vault_ops
from reme_workbench.cli import main
ready, go, delay = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
ready.write_text("ready")
while not go.exists():
    time.sleep(0.001)
time.sleep(delay)
sys.argv = ["reme-workbench", *sys.argv[4:]]
main()
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PYTHONPATH"] = str(REPO)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def _pending_refine(root: Path) -> str:
    vault = Vault.open(root)
    queue = ProposalQueue(vault)
    data, stamp = vault.store.read(NOTE)
    proposal = queue.new("dream.refine", "refine pool-size with the incident",
                         [Edit(NOTE, NEW.encode(), stamp)],
                         checks=[CheckSpec("only_paths", {"paths": [NOTE]})],
                         story={"material": MAT})
    return queue.submit(proposal, Policy()).id


def _start(tmp: Path, tag: str, root: Path, *args: str) -> tuple[subprocess.Popen, Path]:
    ready = tmp / f"{tag}.ready"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(ready), str(tmp / f"{tag.split('-')[0]}.go"),
         f"{random.uniform(0, 0.015):.4f}", "--vault", str(root), *args, "--json"],
        env=_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, ready


def _race(make_vault, tmp_path, rounds: int, second: str) -> list[tuple[dict, list]]:
    """`rounds` vaults, each with one pending proposal, and per vault an accept and a
    `second` decision (accept or reject) started at once; returns, per round, the stored
    record and the two processes' (exit code, stdout, stderr)."""
    work = tmp_path / f"race-{second}"
    work.mkdir()
    plan = []
    for n in range(rounds):
        root = make_vault({MAT: "log\n", NOTE: OLD}, name=f"vault-{second}{n}")
        pid = _pending_refine(root)
        second_args = ("proposals", "accept", pid) if second == "accept" else (
            "proposals", "reject", pid, "--reason", "no")
        procs = [_start(work, f"r{n}-a", root, "proposals", "accept", pid),
                 _start(work, f"r{n}-b", root, *second_args)]
        plan.append((root, pid, procs))
    out = []
    for n, (root, pid, procs) in enumerate(plan):
        deadline = time.monotonic() + 120
        while not all(ready.exists() for _, ready in procs):
            assert time.monotonic() < deadline, "the children did not start"
            time.sleep(0.01)
        (work / f"r{n}.go").write_text("go")
        answers = []
        for proc, _ in procs:
            stdout, stderr = proc.communicate(timeout=120)
            answers.append((proc.returncode, stdout, stderr))
        record = json.loads((root / "meta" / "proposals" / f"{pid}.json").read_text())
        out.append((root, pid, record, answers))
    return out


def _check_double_accept(results) -> None:
    states = [(record["state"], bool(record["inverse"])) for _, _, record, _ in results]
    assert states == [("applied", True)] * len(results), states  # each record is right
    for root, pid, _record, answers in results:
        for code, stdout, stderr in answers:
            assert code == 0 and "Traceback" not in stderr, (code, stdout, stderr)
        said = [json.loads(stdout) for _, stdout, _ in answers]
        assert [a["state"] for a in said] == ["applied", "applied"], said
        assert sorted(bool(a.get("note")) for a in said) == [False, True], said  # one applied it
        assert "already applied" in next(a["note"] for a in said if a.get("note"))
        assert (root / NOTE).read_text() == NEW
        reverted = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "revert", pid,
                                            "--json"], catch_exceptions=False)
        assert reverted.exit_code == 0, reverted.output
        assert json.loads(reverted.stdout)["state"] == "reverted"
        assert (root / NOTE).read_text() == OLD


def _check_accept_against_reject(results) -> None:
    for root, _pid, record, answers in results:
        (a_code, a_out, a_err), (r_code, r_out, r_err) = answers
        assert "Traceback" not in a_err + r_err
        if record["state"] == "applied":  # the accept went first: the reject was refused
            assert a_code == 0 and json.loads(a_out)["state"] == "applied"
            assert r_code != 0 and "is applied" in r_err and "revert" in r_err, r_err
            assert record["inverse"] and (root / NOTE).read_text() == NEW
        else:  # the reject went first: nothing was written
            assert record["state"] == "rejected" and r_code == 0, record
            assert a_code != 0 and "is rejected" in a_err, a_err
            assert (root / NOTE).read_text() == OLD


def test_two_accepts_at_once_apply_once_and_the_record_can_be_reverted(make_vault, tmp_path):
    _check_double_accept(_race(make_vault, tmp_path, 3, "accept"))


def test_an_accept_and_a_reject_at_once_leave_one_decision(make_vault, tmp_path):
    _check_accept_against_reject(_race(make_vault, tmp_path, 2, "reject"))


@pytest.mark.slow  # ~1 min on two busy cores: twelve rounds of each
def test_decisions_racing_many_rounds(make_vault, tmp_path):
    _check_double_accept(_race(make_vault, tmp_path, 12, "accept"))
    _check_accept_against_reject(_race(make_vault, tmp_path, 12, "reject"))
