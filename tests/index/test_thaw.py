"""Thaw at once (docs/spec.md §7.3.6, issue #24.4): an archived note that is used after the
archive batch — opened with `note`, updated by dream, thawed by hand — is found by recall
straight away, not at the next daily batch; and the next batch keeps it out."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import ArchiveSettings
from reme_workbench.consolidate.archive import update_archive
from reme_workbench.vault.archive_state import ArchiveBatch, touched_after
from reme_workbench.vault.meta import log_access, read_meta
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

LOG = "daily/2026-10-05/deploy.md"
COLD = "digest/wiki/zeppelin-mooring.md"
WARM = "digest/wiki/canary.md"
DAY = 86400


def _note(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: About {name}.\n---\n{body}\n\nderived_from:: [[{LOG}]]\n"


def _vault(make_vault, now: float):
    root = make_vault({
        LOG: "---\nname: deploy\ndescription: A log.\n---\nDeployed.\n",
        COLD: _note("zeppelin-mooring", "The zeppelin mooring mast stands at gate nine."),
        WARM: _note("canary", "A canary sends part of the traffic to the new version."),
    })
    # two notes: the cap of one batch (a share of the live notes) would take none of them
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n\n[archive]\n'
                                    'max_share_per_run = 1.0\n', encoding="utf-8")
    for rel, days in ((COLD, 400), (WARM, 1), (LOG, 400)):
        os.utime(root / rel, (now - days * DAY, now - days * DAY))
        if rel.startswith("digest/"):  # dreamt that long ago (else adopted by the first batch)
            log_access(root, rel, datetime.fromtimestamp(now - days * DAY, UTC), "dream.create")
    return root


def _cli(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _recalled(root, query="zeppelin mooring mast") -> list[str]:
    return [h["path"] for h in json.loads(_cli(root, "recall", query, "--json").stdout)["hits"]]


def test_a_note_opened_with_note_is_recalled_at_once_and_kept_out_at_the_next_batch(make_vault):
    root = _vault(make_vault, time.time())
    _cli(root, "consolidate", "--only", "archive")
    assert json.loads((root / "meta/archived.json").read_text())["archived"] == [COLD]
    assert COLD not in _recalled(root)  # archived: recall leaves it out

    opened = json.loads(_cli(root, "note", COLD, "--json").stdout)
    assert opened["archived"] is True  # it was, when opened
    # no batch ran: the opening alone brings it back
    assert COLD in _recalled(root)
    assert json.loads(_cli(root, "note", COLD, "--json").stdout)["archived"] is False
    assert json.loads((root / "meta/archived.json").read_text())["archived"] == [COLD]

    again = json.loads(_cli(root, "consolidate", "--only", "archive", "--force", "--json").stdout)
    archive = next(p for p in again["phases"] if p["phase"] == "archive")
    # opening it was use (docs/spec.md §7.3.2): its recency starts again, it is not cold
    assert archive["details"]["kept_by_touch"] == [] and archive["details"]["archived"] == []
    assert json.loads((root / "meta/recency.json").read_text())["scores"][COLD] > 0.9
    assert json.loads((root / "meta/archived.json").read_text())["archived"] == []


def test_a_note_dream_updates_is_recalled_at_once(make_vault):
    from reme_workbench.ops import DreamRequest, RecallRequest, Workspace, dream, recall

    root = _vault(make_vault, time.time())
    later = "daily/2026-10-06/mooring.md"
    (root / later).parent.mkdir(parents=True)
    (root / later).write_text(
        "---\nname: mooring\ndescription: d\n---\n## Notes\n\nWe decided to moor the zeppelin "
        "at gate nine because the mooring mast there is the tallest.\n", encoding="utf-8")
    ws = Workspace(root)
    _cli(root, "consolidate", "--only", "archive")
    assert COLD not in [h.path for h in recall(ws, RecallRequest(query="zeppelin mooring mast")).hits]
    report = dream(ws, DreamRequest(files=[later]))
    touched = {o["target_path"] for o in report.outcomes if o["state"] == "applied"}
    assert COLD in touched  # the offline brain corroborated the archived note, not a duplicate
    assert COLD in [h.path for h in recall(ws, RecallRequest(query="zeppelin mooring mast")).hits]


def test_a_touch_counts_by_its_place_in_the_log_not_its_clock(make_vault):
    """A line appended after the batch read the log is a touch since the batch, even when
    its writer's clock is behind the batch's; recall and the next batch agree on it."""
    root = _vault(make_vault, FIXED_NOW.timestamp())
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    first = update_archive(vault, ArchiveSettings(max_share_per_run=1.0), now=FIXED_NOW)
    doc = read_meta(root, "archived", version=1).data
    log_size = (root / "meta/access_log.jsonl").stat().st_size  # the notes' dream.create lines
    assert first.archived == (COLD,) and doc["access_log_bytes"] == log_size
    batch = ArchiveBatch.from_doc(doc)
    assert batch.archived_now(root) == {COLD}
    log_access(root, COLD, FIXED_NOW - timedelta(hours=3), "recall", query="q", rank=1)  # slow clock
    assert batch.archived_now(root) == frozenset() and batch.thawed(root) == {COLD}
    second = update_archive(vault, ArchiveSettings(max_share_per_run=1.0),
                            now=FIXED_NOW + timedelta(minutes=1))
    assert second.kept_by_touch == (COLD,) and second.archived == ()
    # a batch file without the offset (an older build) falls back to the clock
    assert touched_after(root, offset=None, since=FIXED_NOW - timedelta(hours=4)) == {COLD}
    assert touched_after(root, offset=None, since=FIXED_NOW) == frozenset()
    # a log shorter than the offset (replaced) falls back to the clock as well
    assert touched_after(root, offset=10**9, since=FIXED_NOW - timedelta(hours=4)) == {COLD}
