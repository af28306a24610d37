"""A person's edits given with `accept` are never dropped (docs/spec.md §3.2.5, issue #29).

A held dream create whose slug was taken meanwhile is planned again when accepted. The
person's text goes into the new plan when it creates the note in their text's place
(under the next free slug, its `name` following), checked by the new plan's checks when
they accept it; when the new plan corroborates the note that took the slug instead, the
answer says their edits were not carried and where they are kept.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.ops import AcceptRequest, Workspace, accept_proposal

A = "daily/2026-10-05/mooring.md"
B = "daily/2026-10-06/mooring.md"
TEXT = ("---\nname: mooring\ndescription: d\n---\n## Notes\n\nWe decided to moor the zeppelin "
        "at gate nine because the mooring mast there is the tallest.\n")
SLUG = "digest/wiki/decided-to-moor-the-zeppelin.md"
NEXT = "digest/wiki/decided-to-moor-the-zeppelin-2.md"
# a person's note that took the slug, about something else entirely
KNITTING = ("---\nname: decided-to-moor-the-zeppelin\ndescription: Grandmother's knitting "
            "patterns.\n---\nCable stitch, then purl two rows; wool from the market.\n\n"
            f"derived_from:: [[{B}]]\n")


def _vault(make_vault):
    root = make_vault({A: TEXT, B: TEXT})
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    return root


def _json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _held_create(root) -> str:
    (held,) = _json(root, "dream", "--review", A)["outcomes"]
    assert (held["target_path"], held["state"]) == (SLUG, "pending")
    return held["proposal_id"]


def _my_version(root, pid, tmp_path):
    """The person's edit of the held create: its text with a line of their own."""
    shown = (root / "meta" / "proposals" / f"{pid}.json").read_text(encoding="utf-8")
    text = json.loads(shown)["ops"][0]["content"] + "\nMy own line: gate nine has the tallest mast.\n"
    edit = tmp_path / "mine.md"
    edit.write_text(text, encoding="utf-8")
    return text, edit


def test_edits_are_carried_into_the_create_planned_under_the_next_slug(make_vault, tmp_path):
    root = _vault(make_vault)
    pid = _held_create(root)
    mine, edit = _my_version(root, pid, tmp_path)
    (root / SLUG).write_text(KNITTING, encoding="utf-8")  # a person took the slug meanwhile

    answer = _json(root, "proposals", "accept", pid, "--edit", f"{SLUG}={edit}")
    assert answer["state"] == "rejected" and "superseded" in answer["error"]
    (again,) = answer["replanned_as"]
    assert f"carried into {again}" in answer["note"] and NEXT in answer["note"]
    new = _json(root, "proposals", "show", again)
    assert (new["action"], new["files"], new["state"]) == ("dream.create", [NEXT], "pending")
    assert new["story"]["edits_carried_from"] == {"proposal": pid, "path": SLUG}
    assert (root / SLUG).read_text(encoding="utf-8") == KNITTING  # nothing written yet
    assert not (root / NEXT).exists()

    assert _json(root, "proposals", "accept", again)["state"] == "applied"
    written = (root / NEXT).read_text(encoding="utf-8")
    # the person's text, their own line included, with its name following the new slug
    assert written == mine.replace("name: decided-to-moor-the-zeppelin\n",
                                   "name: decided-to-moor-the-zeppelin-2\n")
    assert "My own line: gate nine has the tallest mast." in written
    assert (root / SLUG).read_text(encoding="utf-8") == KNITTING


def test_edits_that_cannot_become_the_new_plan_are_kept_and_the_answer_says_where(
        make_vault, tmp_path):
    root = _vault(make_vault)
    pid = _held_create(root)
    mine, edit = _my_version(root, pid, tmp_path)
    (won,) = _json(root, "dream", B)["outcomes"]  # another dream takes the slug first
    assert (won["target_path"], won["state"]) == (SLUG, "applied")
    winner = (root / SLUG).read_text(encoding="utf-8")

    text = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "accept", pid, "--edit",
                                    f"{SLUG}={edit}", "--text"], catch_exceptions=False)
    assert text.exit_code == 0, text.output
    assert f"your edits to {SLUG} were not carried" in text.output.lower()
    assert f"they are kept in {pid}" in text.output
    kept = _json(root, "proposals", "show", pid)
    assert kept["state"] == "rejected" and "My own line" in kept["diff"]  # still there to copy
    assert "were not carried" in kept["error"]
    (again,) = [p for p in _json(root, "proposals", "list", "--state", "pending")]
    assert again["action"] == "dream.corroborate" and again["files"] == [SLUG]
    assert (root / SLUG).read_text(encoding="utf-8") == winner
    assert mine not in (root / SLUG).read_text(encoding="utf-8")


def test_the_ops_function_carries_the_edits_too(make_vault):
    root = _vault(make_vault)
    pid = _held_create(root)
    planned = json.loads((root / "meta" / "proposals" / f"{pid}.json").read_text())["ops"][0]
    mine = planned["content"].replace("We decided", "I checked: we decided")
    (root / SLUG).write_text(KNITTING, encoding="utf-8")
    done = accept_proposal(Workspace(root), AcceptRequest(id=pid, edited={SLUG: mine}))
    (again,) = done.replanned_as
    stored = json.loads((root / "meta" / "proposals" / f"{again}.json").read_text())
    assert stored["ops"][0]["path"] == NEXT
    assert "I checked: we decided" in stored["ops"][0]["content"], stored["ops"][0]["content"]
    assert stored["story"]["edited_by_person"] == [NEXT]
    assert done.state == "rejected" and f"carried into {again}" in done.note


def test_an_edit_applies_the_persons_text_and_bad_edit_options_are_refused(make_vault, tmp_path):
    root = _vault(make_vault)
    pid = _held_create(root)
    mine, edit = _my_version(root, pid, tmp_path)
    for bad, said in ((f"{SLUG}", "is not PATH=FILE"),
                      (f"{SLUG}={tmp_path / 'nothing.md'}", "cannot read"),
                      (f"digest/wiki/other.md={edit}", "outside the proposal")):
        refused = CliRunner().invoke(
            cli, ["--vault", str(root), "proposals", "accept", pid, "--edit", bad])
        assert refused.exit_code != 0 and said in refused.output, refused.output
        assert "Traceback" not in refused.output and not (root / SLUG).exists()
    done = _json(root, "proposals", "accept", pid, "--edit", f"{SLUG}={edit}")
    assert done["state"] == "applied"
    assert (root / SLUG).read_text(encoding="utf-8") == mine


def test_the_workbench_decision_says_where_the_edits_went(make_vault):
    from reme_workbench.ops.review_ops import decide

    root = _vault(make_vault)
    pid = _held_create(root)
    planned = json.loads((root / "meta" / "proposals" / f"{pid}.json").read_text())["ops"][0]
    _json(root, "dream", B)  # another dream takes the slug: the re-plan corroborates it
    decision = decide(root, pid, "accept", edited={SLUG: planned["content"] + "Mine.\n"})
    (again,) = decision.new_ids
    assert decision.ok and decision.state == "rejected" and again in decision.message
    assert "were not carried" in decision.note and f"kept in {pid}" in decision.message
