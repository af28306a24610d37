"""Dream stopped partway through a material file and run again gives the vault of a run
never stopped: no note written twice, none lost (docs/spec.md §4.1.8).

Ctrl-C lands anywhere; what a run leaves on disk changes only at a write, so the test
raises KeyboardInterrupt right after the n-th note the run puts in place, in the command
itself (CliRunner through `reme_workbench.cli:cli`), as tests/integration/test_interrupt.py
does for the demo. Both runs see one fixed clock, so the notes compare byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.dream.pipeline import Dreamer
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.vault.vault import Vault, init_vault
from tests.conftest import FIXED_NOW

# the first days of the sample: several files of several units each
KEEP = ("daily/2026-10-05/", "daily/2026-10-06/", "daily/2026-10-07/")


def _sample(root: Path) -> Path:
    init_vault(root, sample=True)
    for path in sorted(p for layer in ("daily", "resource") for p in (root / layer).rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(KEEP):
            path.unlink()
    return root


def _fixed_clock(patch) -> None:
    opened = Vault.open.__func__

    def open_at_fixed_time(cls, root, **kwargs):
        return opened(cls, root, **{**kwargs, "clock": lambda: FIXED_NOW})

    patch.setattr(Vault, "open", classmethod(open_at_fixed_time))


def _dream(root: Path):
    return CliRunner().invoke(cli, ["--vault", str(root), "dream", "--embedder", "hashing",
                                    "--json"])


def _notes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "digest").rglob("*.md")}


def _proposals(root: Path) -> list[tuple]:
    """Each proposal: what it did, where, in which state, and whether it can be undone."""
    rows = [json.loads(p.read_text(encoding="utf-8")) for p in (root / "meta/proposals").glob("*.json")]
    return sorted((r["action"], r["state"], [op["path"] for op in r["ops"]], bool(r["inverse"]))
                  for r in rows)


def _touches(root: Path) -> list[str]:
    """The access log's lines (the clock is fixed: equal runs log equal lines)."""
    return sorted((root / "meta/access_log.jsonl").read_text(encoding="utf-8").splitlines())


def _stop_after_note(patch, root: Path, nth: int) -> list[str]:
    """KeyboardInterrupt right after the `nth` note put in place (`Vault.apply`)."""
    seen: list[str] = []
    apply = Vault.apply

    def applying(self, changeset):
        result = apply(self, changeset)
        if self.root == root:
            seen.extend(rel for rel in result.written if rel.startswith("digest/"))
            if len(seen) >= nth:
                raise KeyboardInterrupt
        return result

    patch.setattr(Vault, "apply", applying)
    return seen


@pytest.fixture(scope="module")
def never_stopped(tmp_path_factory) -> dict[str, bytes]:
    from tests.conftest import _isolate

    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, tmp_path_factory)
        _fixed_clock(patch)
        root = _sample(tmp_path_factory.mktemp("never-stopped") / "v")
        result = _dream(root)
        assert result.exit_code == 0, result.output
        vault = {"notes": _notes(root), "proposals": _proposals(root), "touches": _touches(root)}
    assert len(vault["notes"]) >= 15  # enough notes that a stop lands inside a file
    return vault


@pytest.mark.parametrize("nth", range(1, 16))
def test_dream_stopped_after_a_note_and_run_again_writes_the_vault_of_a_run_never_stopped(
        tmp_path, monkeypatch, never_stopped, nth):
    _fixed_clock(monkeypatch)
    root = _sample(tmp_path / "v")
    with pytest.MonkeyPatch.context() as patch:
        seen = _stop_after_note(patch, root, nth)
        stopped = _dream(root)
    assert stopped.exit_code == 130, stopped.output
    assert len(seen) == nth
    again = _dream(root)
    assert again.exit_code == 0, again.output
    got, want = _notes(root), never_stopped["notes"]
    where = f"stopped after {seen[-1]}"
    assert sorted(set(got) - set(want)) == [], where  # nothing written twice
    assert sorted(set(want) - set(got)) == [], where  # nothing lost
    assert [p for p in got if got[p] != want[p]] == [], where  # each as written
    # each note's proposal recorded once, applied and undoable: the one whose note was
    # put in place just before the stop too
    assert _proposals(root) == never_stopped["proposals"], where
    assert _touches(root) == never_stopped["touches"], where  # each note's use logged once
    # and a third run finds everything dreamt
    third = json.loads(_dream(root).stdout)
    assert third["materials"] == [] and third["outcomes"] == []


# -- the resume record, with a scripted brain -------------------------------------------
LOG = "daily/2026-10-05/deploy.md"


def _units():
    return [{"name": "Prefer uv", "bucket": "personal", "summary": "Use uv."},
            {"name": "Canary for ten minutes", "bucket": "procedure",
             "summary": "Run the canary for ten minutes."}]


def _create(name: str) -> dict:
    return {"action": "CREATE", "name": name, "description": f"{name}.",
            "body": f"{name}.\n\nderived_from:: [[{LOG}]]\n"}


class _StoppedAtSecondUnit(ScriptedBrain):
    """A brain the run is stopped in (Ctrl-C) while it plans the second unit (Phase 2
    takes the units bucket by bucket: the procedure first)."""

    def integrate(self, request):
        if request.unit.name == "Prefer uv":
            raise KeyboardInterrupt
        return super().integrate(request)


@pytest.fixture
def small(make_vault, clock):
    root = make_vault({LOG: "Use uv. Run the canary for ten minutes.\n"})
    return Vault.open(root, clock=clock)


def _run(vault, brain):
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as index:
        return Dreamer(vault, brain, index).run()


def test_a_rerun_integrates_the_units_the_stopped_run_extracted_and_only_those_not_done(small):
    stopping = _StoppedAtSecondUnit().enqueue_extract(_units()).enqueue_integrate(
        _create("Canary for ten minutes"))
    with pytest.raises(KeyboardInterrupt):
        _run(small, stopping)
    assert (small.root / "digest/procedure/canary-for-ten-minutes.md").is_file()
    # the re-run's brain would extract otherwise (a model need not answer alike) and has
    # one answer, for the unit not done: asked to extract or to plan the canary again,
    # it has none and the unit fails
    rerun = ScriptedBrain().enqueue_extract([{"name": "Something else", "bucket": "wiki",
                                              "summary": "Another reading."}])
    rerun.enqueue_integrate(_create("Prefer uv"))
    report = _run(small, rerun)
    assert [(o.unit, o.state) for o in report.outcomes] == [("Prefer uv", "applied")]
    assert rerun.pending["extract"] == 1  # Phase 1 was not asked again
    assert any("1 unit(s) done by a run that stopped" in n for n in report.notices)
    notes = sorted(p.relative_to(small.root).as_posix() for p in small.root.rglob("digest/*/*.md"))
    assert notes == ["digest/personal/prefer-uv.md", "digest/procedure/canary-for-ten-minutes.md"]
    # the file is dreamt now: its resume entry is gone, and a third run does nothing
    assert json.loads((small.root / "meta/dream_resume.json").read_text())["files"] == {}
    assert _run(small, ScriptedBrain()).outcomes == ()


def test_a_unit_recorded_but_never_written_is_dreamt_again(small):
    # stopped between the resume record and the note's write: the record names a
    # proposal that is not in the queue and bytes the note does not hold
    stopping = _StoppedAtSecondUnit().enqueue_extract(_units()).enqueue_integrate(
        _create("Canary for ten minutes"))
    with pytest.raises(KeyboardInterrupt):
        _run(small, stopping)
    for proposal in (small.root / "meta/proposals").glob("*.json"):
        proposal.unlink()
    (small.root / "digest/procedure/canary-for-ten-minutes.md").unlink()
    rerun = (ScriptedBrain().enqueue_integrate(_create("Canary for ten minutes"))
             .enqueue_integrate(_create("Prefer uv")))
    report = _run(small, rerun)
    assert [(o.unit, o.state) for o in report.outcomes] == [
        ("Canary for ten minutes", "applied"), ("Prefer uv", "applied")]


def test_an_edited_file_is_dreamt_from_its_start(small):
    stopping = _StoppedAtSecondUnit().enqueue_extract(_units()).enqueue_integrate(
        _create("Canary for ten minutes"))
    with pytest.raises(KeyboardInterrupt):
        _run(small, stopping)
    (small.root / LOG).write_text("Use pnpm for Node projects.\n")
    rerun = (ScriptedBrain().enqueue_extract([{"name": "Use pnpm", "bucket": "personal",
                                               "summary": "Use pnpm for Node projects."}])
             .enqueue_integrate(_create("Use pnpm")))
    report = _run(small, rerun)
    assert [(o.unit, o.state) for o in report.outcomes] == [("Use pnpm", "applied")]
    assert not any(rerun.pending.values())


def test_an_unreadable_resume_record_is_a_warning_and_counts_as_empty(small):
    (small.root / "meta/dream_resume.json").write_text("{not json")
    report = _run(small, ScriptedBrain().enqueue_extract([]))
    assert any("dream_resume.json" in n for n in report.notices)
    assert json.loads((small.root / "meta/dreamt.json").read_text())["files"][LOG]


def test_a_resume_record_edited_out_of_shape_is_not_trusted(small):
    stopping = _StoppedAtSecondUnit().enqueue_extract(_units()).enqueue_integrate(
        _create("Canary for ten minutes"))
    with pytest.raises(KeyboardInterrupt):
        _run(small, stopping)
    record = small.root / "meta/dream_resume.json"
    data = json.loads(record.read_text())
    (entry,) = data["files"].values()
    for unit in entry["units"].values():  # a note outside the vault, a proposal id that is no id
        unit.update(path="../../outside.md", proposal="../x")
    record.write_text(json.dumps(data))
    rerun = (ScriptedBrain().enqueue_integrate(_create("Canary for ten minutes"))
             .enqueue_integrate(_create("Prefer uv")))
    report = _run(small, rerun)  # the units as extracted are kept; each is planned again
    assert [(o.unit, o.state) for o in report.outcomes][1:] == [("Prefer uv", "applied")]
    entry["units"] = ["not", "a", "mapping"]
    record.write_text(json.dumps(data))
    (small.root / LOG).write_text("Use uv. Run the canary for ten minutes. Always.\n")
    again = ScriptedBrain().enqueue_extract([])
    assert _run(small, again).outcomes == ()  # dreamt from its start, no traceback
