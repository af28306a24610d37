"""Archive (docs/spec.md §7.3): the recency score, the soft archive, thaw, and dream's
recall that still sees archived notes."""

from __future__ import annotations

import json
import math
import os
import time
from datetime import timedelta

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import ArchiveSettings
from reme_workbench.consolidate.archive import (
    NoteActivity,
    archive_decision,
    note_activity,
    read_access_log,
    recency_score,
    update_archive,
)
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.recall import recall
from reme_workbench.index.store import VaultIndex
from reme_workbench.vault.meta import log_access, read_meta
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW, snapshot

LOG = "daily/2026-10-05/deploy.md"
DAY = 86400


def note(name: str, body: str, links: tuple[str, ...] = ()) -> str:
    see = "".join(f"\nSee [[digest/wiki/{t}.md]]." for t in links)
    return (f"---\nname: {name}\ndescription: About {name}.\n---\n{body}{see}\n\n"
            f"derived_from:: [[{LOG}]]\n")


AGES = {"digest/wiki/hub.md": 200, "digest/wiki/old.md": 100, "digest/wiki/older.md": 200,
        "digest/wiki/fresh.md": 1, "digest/wiki/ancient.md": 400, LOG: 400}


def age(root, rel: str, days: float, now: float = FIXED_NOW.timestamp()) -> None:
    """Set the file's mtime `days` before `now` (FIXED_NOW unless given)."""
    when = now - days * DAY
    os.utime(root / rel, (when, when))


# -- the formula -----------------------------------------------------------------------------

def test_recency_score_is_the_formula_of_the_spec():
    assert recency_score(0, 0, 0) == 1.0
    assert recency_score(60, 0, 0) == pytest.approx(math.exp(-1))
    assert recency_score(60, 1, 0) == pytest.approx(math.exp(-1) * (1 + math.log(2)))
    assert recency_score(60, 0, 9) == pytest.approx(math.exp(-1) * (1 + math.log(10) / 10))
    assert recency_score(30, 4, 2, tau_days=30, scale=5) == pytest.approx(
        math.exp(-1) * (1 + math.log(5)) * (1 + math.log(3) / 5))
    assert recency_score(-5, 0, 0) == 1.0  # a last update in the future counts as now
    # the un-clipped score of a fresh, used note is above 1 (why the stored one is clipped)
    assert recency_score(0, 3, 4) > 1


def test_the_access_log_folds_into_changes_hits_and_touches(tmp_path):
    now = FIXED_NOW
    events = [
        ("a", "recall", now - timedelta(days=1)),
        ("a", "dream.create", now - timedelta(days=100)),
        ("a", "recall", now - timedelta(days=40)),  # outside the 30-day window
        ("b", "dream.update", now - timedelta(days=2)),
        ("c", "recall", now + timedelta(days=1)),  # a clock ahead: a touch, not a hit
    ]
    got = note_activity(events, now=now, window_days=30)
    assert got["a"] == NoteActivity(now - timedelta(days=100), now - timedelta(days=1), 1)
    assert got["b"] == NoteActivity(now - timedelta(days=2), now - timedelta(days=2), 1)
    assert got["c"] == NoteActivity(None, now + timedelta(days=1), 0)
    assert set(note_activity(events, now=now, window_days=30, paths=["b"])) == {"b"}


def test_unusable_access_log_lines_are_skipped(make_vault):
    root = make_vault({})
    log_access(root, "digest/wiki/a.md", FIXED_NOW, "recall", query="q", rank=1)
    with open(root / "meta/access_log.jsonl", "ab") as fh:
        fh.write(b'{"ts": "2026-11-01T00:00:00Z", "path": "x"\n')  # torn
        fh.write(b'["not", "an", "object"]\n')
        fh.write(b'{"ts": "yesterday", "path": "x", "event": "recall"}\n')
        fh.write(b'{"ts": "2026-11-01T00:00:00Z", "path": 3, "event": "recall"}\n')
        fh.write(b'\xff\xfe\n')
        fh.write(b'{"ts": "2026-11-01T00:00:00", "path": "digest/wiki/b.md", "event": "x"}\n')
    got = list(read_access_log(root))
    assert [(p, e) for p, e, _ in got] == [("digest/wiki/a.md", "recall"), ("digest/wiki/b.md", "x")]
    assert got[1][2].tzinfo is not None  # a naive stamp is taken as UTC
    assert list(read_access_log(make_vault({}, name="empty"))) == []  # no log: nothing


def test_archive_decision_keeps_touched_notes_out():
    scores = {"a": 0.1, "b": 0.5, "c": 0.149999, "d": 0.15}
    assert archive_decision(scores, 0.15) == ("a", "c")
    assert archive_decision(scores, 0.15, touched=["a"]) == ("c",)


# -- the batch on a vault --------------------------------------------------------------------

@pytest.fixture
def aged(make_vault):
    """Five digest notes of known ages; `hub` has three inbound links."""
    files = {LOG: "---\nname: deploy\ndescription: A log.\n---\nDeployed.\n"}
    files["digest/wiki/hub.md"] = note("hub", "The hub.")
    for name in ("old", "older", "fresh"):
        files[f"digest/wiki/{name}.md"] = note(name, f"The {name} one.", ("hub",))
    files["digest/wiki/ancient.md"] = note("ancient", "Very old.")
    root = make_vault(files)
    for rel, days in AGES.items():
        age(root, rel, days)
        if rel.startswith("digest/"):  # dreamt that long ago (else adopted by the first batch)
            log_access(root, rel, FIXED_NOW - timedelta(days=days), "dream.create")
    return root


def batch(root, now=FIXED_NOW, dry_run=False, **kw):
    """One batch; five notes, so with no cap by default (a share of five takes none)."""
    vault = Vault.open(root, clock=lambda: now)
    kw.setdefault("max_share_per_run", 1.0)
    return update_archive(vault, ArchiveSettings(**kw), now=now, dry_run=dry_run)


def test_every_digest_note_is_scored_and_the_cold_ones_archived(aged):
    report = batch(aged)
    expect = {
        "digest/wiki/hub.md": math.exp(-200 / 60) * (1 + math.log(4) / 10),
        "digest/wiki/old.md": math.exp(-100 / 60),
        "digest/wiki/older.md": math.exp(-200 / 60),
        # a day old: its dream.create is a hit of the window, so over 1, stored as 1
        "digest/wiki/fresh.md": 1.0,
        "digest/wiki/ancient.md": math.exp(-400 / 60),
    }
    assert report.scores == pytest.approx(expect, abs=1e-5)
    assert report.archived == ("digest/wiki/ancient.md", "digest/wiki/hub.md",
                               "digest/wiki/older.md")
    assert report.newly_archived == report.archived and report.thawed == ()
    recency = read_meta(aged, "recency", version=1).data
    assert recency["scores"] == pytest.approx(expect, abs=1e-5)
    assert recency["clipped"] == [0, 1] and recency["tau_update_days"] == 60.0
    assert (recency["centrality_scale"], recency["hit_window_days"]) == (10.0, 30)
    archived = read_meta(aged, "archived", version=1).data
    assert archived["archived"] == list(report.archived) and archived["threshold"] == 0.15
    assert archived["computed_at"] == "2026-11-02T09:30:00Z"
    assert not [p for p in (aged / "meta").iterdir() if p.name.endswith(".tmp")]


def test_a_change_event_is_an_update_and_hits_raise_the_score(aged):
    log_access(aged, "digest/wiki/older.md", FIXED_NOW - timedelta(days=50), "dream.update")
    for i in range(3):
        log_access(aged, "digest/wiki/ancient.md", FIXED_NOW - timedelta(days=i), "recall",
                   query="q", rank=1)
    report = batch(aged)
    # older: its last update is the event, 50 days ago (outside the 30-day hit window),
    # not the 200-day-old mtime
    assert report.scores["digest/wiki/older.md"] == pytest.approx(math.exp(-50 / 60), abs=1e-5)
    # ancient: recall hits are not updates — still 400 days, but 3 hits
    assert report.scores["digest/wiki/ancient.md"] == pytest.approx(
        math.exp(-400 / 60) * (1 + math.log(4)), abs=1e-5)
    assert "digest/wiki/older.md" not in report.archived


def test_scores_are_clipped_to_one(aged):
    for i in range(5):
        log_access(aged, "digest/wiki/fresh.md", FIXED_NOW, "recall", query="q", rank=i)
    report = batch(aged)
    assert report.scores["digest/wiki/fresh.md"] == 1.0
    assert max(read_meta(aged, "recency", version=1).data["scores"].values()) == 1.0


def test_a_touch_since_the_last_batch_thaws_a_note(aged):
    first = batch(aged, now=FIXED_NOW - timedelta(days=1))
    assert "digest/wiki/ancient.md" in first.archived
    # a recall that asked for archived notes touched it after that batch
    log_access(aged, "digest/wiki/ancient.md", FIXED_NOW - timedelta(hours=2), "recall",
               query="q", rank=1)
    second = batch(aged)
    # still far under the threshold, but touched: out of the archive for now
    assert second.scores["digest/wiki/ancient.md"] < 0.15
    assert "digest/wiki/ancient.md" not in second.archived
    assert second.thawed == ("digest/wiki/ancient.md",)
    assert second.kept_by_touch == ("digest/wiki/ancient.md",)
    assert second.newly_archived == () and second.previous_computed_at == "2026-11-01T09:30:00Z"
    # untouched since, it goes back at the batch after
    third = batch(aged, now=FIXED_NOW + timedelta(days=1))
    assert "digest/wiki/ancient.md" in third.archived
    assert third.newly_archived == ("digest/wiki/ancient.md",)


def test_the_settings_change_the_score_and_the_threshold(aged):
    report = batch(aged, tau_update_days=600, threshold=0.6)
    assert report.scores["digest/wiki/ancient.md"] == pytest.approx(math.exp(-400 / 600), abs=1e-5)
    assert report.archived == ("digest/wiki/ancient.md",)  # 0.51; older 0.72 is not
    assert batch(aged, centrality_scale=1.0).scores["digest/wiki/hub.md"] == pytest.approx(
        math.exp(-200 / 60) * (1 + math.log(4)), abs=1e-5)


def test_a_dry_run_writes_nothing(aged):
    before = snapshot(aged)
    report = batch(aged, dry_run=True)
    assert report.archived and report.paths == ()
    assert snapshot(aged) == before


def test_deleted_notes_leave_the_archive_without_counting_as_thawed(aged):
    batch(aged, now=FIXED_NOW - timedelta(days=1))
    (aged / "digest/wiki/ancient.md").unlink()
    report = batch(aged)
    assert "digest/wiki/ancient.md" not in report.scores and report.thawed == ()


# -- through recall and the CLI -------------------------------------------------------------

def test_recall_leaves_archived_notes_out_until_asked(aged):
    batch(aged)
    with VaultIndex(aged, HashingEmbedder()) as index:
        index.refresh()
        found = {h.path for h in recall(index, "very old ancient", log_access=False)}
        assert "digest/wiki/ancient.md" not in found
        found = {h.path for h in recall(index, "very old ancient", log_access=False,
                                        include_archived=True)}
        assert "digest/wiki/ancient.md" in found


def test_consolidate_archive_through_the_cli(aged):
    (aged / "reme.toml").write_text('[recall]\nembedder = "hashing"\n\n[archive]\n'
                                    'max_share_per_run = 1.0\n', encoding="utf-8")
    for rel, days in AGES.items():  # the CLI runs on the real clock
        age(aged, rel, days, now=time.time())
    run = CliRunner().invoke(cli, ["--vault", str(aged), "consolidate", "--only", "archive",
                                   "--text"], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    assert "archive      ran (never ran" in run.output
    assert "5 notes scored, 3 archived (3 new, 0 thawed)" in run.output
    assert "wrote meta/recency.json" in run.output and "wrote meta/archived.json" in run.output
    again = CliRunner().invoke(cli, ["--vault", str(aged), "consolidate", "--only", "archive",
                                     "--json"], catch_exceptions=False)
    data = json.loads(again.stdout)
    assert data["ran"] == [] and data["phases"][0]["reason"].startswith("not due until")
    recalled = CliRunner().invoke(cli, ["--vault", str(aged), "recall", "very old ancient",
                                        "--json"], catch_exceptions=False)
    assert "digest/wiki/ancient.md" not in recalled.stdout
    kept = CliRunner().invoke(cli, ["--vault", str(aged), "recall", "very old ancient",
                                    "--include-archived", "--json"], catch_exceptions=False)
    assert "digest/wiki/ancient.md" in kept.stdout
