"""`consolidate`: what is due runs, what is not is skipped with the reason, every change is
recorded — through the library and through the CLI, as a user runs it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import Settings
from reme_workbench.consolidate.run import PHASES, Consolidator, consolidate_vault, parse_only
from reme_workbench.errors import RemeError
from reme_workbench.vault.meta import read_meta
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW, snapshot

LOG = "daily/2026-10-05/deploy.md"


def note(name: str, body: str, links: tuple[str, ...] = ()) -> str:
    see = "".join(f"\nSee [[digest/wiki/{t}.md]]." for t in links)
    return (f"---\nname: {name}\ndescription: About {name}.\n---\n{body}{see}\n\n"
            f"derived_from:: [[{LOG}]]\n")


def two_clusters() -> dict[str, str]:
    """Two groups of five notes, linked inside each group, and one broken link."""
    files = {LOG: "---\nname: deploy\ndescription: A log.\n---\nDeployed.\n"}
    for group in ("a", "b"):
        names = [f"{group}{i}" for i in range(5)]
        for i, name in enumerate(names):
            links = tuple(n for n in names if n != name)[: 2 + i % 2]
            files[f"digest/wiki/{name}.md"] = note(name, f"Note {name} of group {group}.", links)
    files["digest/wiki/a0.md"] = files["digest/wiki/a0.md"].replace(
        "Note a0", "Note a0 with a [[digest/wiki/gone.md|gone note]]")
    return files


class Clock:
    def __init__(self, now=FIXED_NOW):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def vault(make_vault):
    clock = Clock()
    root = make_vault({**two_clusters(), "digest/wiki/gone.md": note("gone", "Soon gone.")})
    vault = Vault.open(root, clock=clock)
    vault.record_resolved_links(vault.health())  # `gone note` resolved at a health run,
    (root / "digest/wiki/gone.md").unlink()  # and its note went since: a D1 fault (§7.5.1)
    vault.refresh()
    return vault, clock


def test_the_phases_run_in_order_and_unknown_ones_are_refused():
    assert PHASES == ("communities", "abstract", "merge", "split", "archive", "cooldowns", "health")
    assert parse_only("health,communities") == ("communities", "health")
    with pytest.raises(RemeError, match="Unknown consolidate phase chaos"):
        parse_only("chaos")


def test_health_proposes_unlinking_a_broken_digest_link_and_records_everything(vault):
    v, _ = vault
    before = (v.root / "digest/wiki/a0.md").read_bytes()
    report = consolidate_vault(v, Settings(), only="health")
    (health,) = report.phases
    assert health.ran and health.reason == "runs every time"
    unlink = health.details["unlink"]
    assert unlink["state"] == "pending" and unlink["links"] == 1 and health.details["fixed"] == 0
    assert "D1 1 broken link(s) (1 in digest/: unlink proposal waits for a person (p-" in health.summary
    # a person's link is not removed without them: the note is as it was
    assert (v.root / "digest/wiki/a0.md").read_bytes() == before
    assert f"audit/{FIXED_NOW.date()}/health_links.md" in health.changed
    audit = (v.root / report.audit).read_text()
    assert "**health** (runs every time)" in audit and "unlink proposal waits for a person" in audit
    assert "`[[digest/wiki/gone.md|gone note]]` → `gone note (gone)` (no such file)" in audit
    state = read_meta(v.root, "consolidate_state", version=1).data
    assert state["last_run"] == {"health": FIXED_NOW.isoformat()}
    # with the policy trusting it, it still waits: an unlink rewrites a person's line, and
    # only a change that adds applies without a person (docs/spec.md §3.7.3)
    trusting = Settings.model_validate({"proposals": {"auto_apply": ["health.unlink"]}})
    again = consolidate_vault(v, trusting, only="health").phases[0]
    assert again.details["fixed"] == 0 and again.details["unlink"]["state"] == "already pending"
    assert (v.root / "digest/wiki/a0.md").read_bytes() == before


def test_a_dry_run_writes_nothing(vault):
    v, _ = vault
    before = snapshot(v.root)
    report = consolidate_vault(v, Settings(), only="health", dry_run=True)
    assert report.dry_run and report.audit is None and report.phases[0].details["fixed"] == 0
    assert snapshot(v.root) == before


def test_a_phase_that_is_not_due_is_skipped_with_the_date_it_is_due(vault):
    v, clock = vault
    c = Consolidator(v, Settings())
    last = {"communities": (FIXED_NOW - timedelta(days=2)).isoformat(),
            "archive": (FIXED_NOW - timedelta(hours=30)).isoformat()}
    due, why = c.due("communities", last, FIXED_NOW)
    assert not due and why == "not due until 2026-11-07, ran 2 days ago"
    assert c.due("archive", last, FIXED_NOW) == (True, "last ran 30 h ago")
    assert c.due("health", last, FIXED_NOW) == (True, "runs every time")
    assert c.due("communities", {}, FIXED_NOW) == (True, "never ran")
    weekly = Settings.model_validate({"schedule": {"communities_every_days": 1}})
    assert Consolidator(v, weekly).due("communities", last, FIXED_NOW)[0]


def test_the_cli_says_what_ran_what_was_skipped_and_what_changed(vault):
    v, _ = vault
    text = CliRunner().invoke(cli, ["--vault", str(v.root), "consolidate", "--only", "health",
                                    "--text"])
    assert text.exit_code == 0, text.output
    assert "health       ran (runs every time" in text.output
    assert "Recorded in audit/" in text.output and "consolidate_actions.md" in text.output
    data = json.loads(CliRunner().invoke(cli, ["--vault", str(v.root), "consolidate", "--only",
                                                "health", "--json"]).stdout)
    assert data["ran"] == ["health"] and data["phases"][0]["details"]["fixed"] == 0
    bad = CliRunner().invoke(cli, ["--vault", str(v.root), "consolidate", "--only", "nope"])
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "Unknown consolidate phase" in bad.output


def test_a_full_run_then_a_run_with_nothing_due(vault):
    v, clock = vault
    root = str(v.root)
    first = CliRunner().invoke(cli, ["--vault", root, "consolidate", "--text"],
                               catch_exceptions=False)
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert lines[0].startswith("communities  ran (never ran") and "2 communities" in lines[0]
    assert "wrote meta/communities.json" in first.output
    assert "archive      ran (never ran" in first.output and "wrote meta/archived.json" in first.output
    assert "cooldowns    ran (runs every time" in first.output
    assert "health       ran (runs every time" in first.output
    audit = next(p for p in (v.root / "audit").rglob("consolidate_actions.md"))
    entries = audit.read_text().count("## consolidate ")
    assert entries == 1
    state = read_meta(v.root, "consolidate_state", version=1).data["last_run"]
    assert set(state) == set(PHASES)
    # an hour later: communities and archive are not due, health finds nothing new
    second = CliRunner().invoke(cli, ["--vault", root, "consolidate", "--text"],
                                catch_exceptions=False)
    assert "communities  skipped: not due until" in second.output
    assert "archive      skipped: not due until" in second.output
    assert second.output.rstrip().endswith("Nothing changed; no audit entry written.")
    assert audit.read_text().count("## consolidate ") == entries
    # --force runs them again, and the run is recorded
    forced = CliRunner().invoke(cli, ["--vault", root, "consolidate", "--force", "--only",
                                      "communities", "--json"], catch_exceptions=False)
    data = json.loads(forced.stdout)
    assert data["ran"] == ["communities"] and data["phases"][0]["reason"].startswith("forced, not due until")
    assert data["phases"][0]["details"]["stability"] == {"c_00": 1.0, "c_01": 1.0}
    assert audit.read_text().count("## consolidate ") == entries + 1


def test_runs_on_one_vault_queue_and_the_second_skips_what_the_first_did(vault):
    """Two consolidates at once: the second waits on .reme/consolidate.lock, then reads
    the state the first wrote, so it does not run the weekly phases a second time."""
    import threading

    from reme_workbench.vault.lock import RunLock
    from reme_workbench.vault.meta import write_meta

    v, _ = vault
    first = RunLock(v.root, "consolidate", doing="consolidating this vault")
    first.acquire()
    result = {}
    second = threading.Thread(target=lambda: result.update(
        report=consolidate_vault(v, Settings(), only="communities")))
    second.start()
    second.join(timeout=0.5)
    assert second.is_alive() and not result  # waiting for the first run
    # what the first run leaves behind before it lets go
    write_meta(v.root, "consolidate_state", {"last_run": {"communities": FIXED_NOW.isoformat()}},
               version=1, now=FIXED_NOW)
    first.release()
    second.join(timeout=60)
    (phase,) = result["report"].phases
    assert not phase.ran and phase.reason.startswith("not due until")
    # a dry run does not wait
    first.acquire()
    try:
        assert consolidate_vault(v, Settings(), only="health", dry_run=True).dry_run
    finally:
        first.release()


def test_merge_reads_the_description_vectors_of_the_vaults_index(vault):
    """A vault dream wrote has an index holding every note's description vector: merge
    mining embeds none of them again (the reference sentences of the chance level aside)."""
    from reme_workbench.brains.factory import offline_consolidate_brain
    from reme_workbench.consolidate.reference import REFERENCE
    from reme_workbench.index.embeddings import HashingEmbedder
    from reme_workbench.index.store import VaultIndex

    v, _ = vault
    reference = {t for sentences in REFERENCE.values() for t in sentences}

    class Counting(HashingEmbedder):
        name = "hashing-256"  # the vault's index records this name

        def __init__(self):
            super().__init__()
            self.texts = []

        def embed(self, texts):
            self.texts += [t for t in texts if t not in reference]
            return super().embed(texts)

    with VaultIndex(v.root, HashingEmbedder()) as idx:
        idx.refresh()
    embedder = Counting()
    consolidate_vault(v, Settings(), only="communities,merge", embedder=embedder,
                      brain=offline_consolidate_brain(embedder, Settings()))
    assert not [t for t in embedder.texts if t.startswith(("a0: About", "b1: About"))]
    # without an index the descriptions are embedded (and cached in .reme/)
    (v.root / ".reme" / "index.db").unlink()
    embedder = Counting()
    consolidate_vault(v, Settings(), only="merge", force=True, embedder=embedder,
                      brain=offline_consolidate_brain(embedder, Settings()))
    assert "a0: About a0." in embedder.texts


def test_the_brain_phases_take_their_brain_and_embedder_from_the_caller(vault):
    """consolidate imports no brain and picks no embedder: a phase that needs one and was
    given none is refused, saying where they come from; the phases that need neither run."""
    from reme_workbench.brains.factory import offline_consolidate_brain
    from reme_workbench.index.embeddings import HashingEmbedder

    v, _ = vault
    assert consolidate_vault(v, Settings(), only="communities,archive,cooldowns").ran == (
        "communities", "archive", "cooldowns")
    for phase in ("abstract", "merge", "split"):
        with pytest.raises(RemeError, match="need a brain.*Workspace.get_consolidate_brain"):
            consolidate_vault(v, Settings(), only=phase, force=True, embedder=HashingEmbedder())
    brain = offline_consolidate_brain(HashingEmbedder(), Settings())
    with pytest.raises(RemeError, match="needs an embedder.*Workspace.get_embedder"):
        consolidate_vault(v, Settings(), only="merge", force=True, brain=brain)
    assert consolidate_vault(v, Settings(), only="split", force=True, brain=brain).ran == ("split",)
