"""The split phase looks at every digest note, not only the queue (docs/spec.md §7.8.4–§7.8.5).

Driven as a user drives it: `reme-workbench consolidate --only split --force` through the
CLI entry point, the offline brain on the hashing embedder (`reme.toml`), and the
proposals read back from `meta/proposals/`. The notes here were written by hand or by
accepting a proposal: nothing queued them.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.split_queue import read_split_queue

LOG = "daily/2026-10-05/notes.md"
THRESHOLD = 300
MIXED = "digest/wiki/house-and-hobbies.md"  # hand-written, on several topics
ONE_TOPIC = "digest/wiki/sourdough.md"  # hand-written, long, one topic without sections

# topics with no word in common, so the hashing embedder finds the sections unlike
GARDEN = ("Tomatoes need six hours of sun, deep watering twice a week and a stake once "
          "the first trusses set. Mulch keeps the soil damp; pinch the side shoots. ")
KITCHEN = ("The cast iron pan is seasoned with linseed oil, heated until it smokes, then "
           "wiped. Never soak it; dry it on the hob after washing. ")
SAILING = ("Reef the mainsail before the wind passes fifteen knots; ease the sheet, tension "
           "the halyard, tie the reef points under the boom. ")
DATABASES = ("Postgres vacuum reclaims dead tuples; autovacuum thresholds scale with table "
             "rows, and a long transaction holds back the xmin horizon. ")
BREAD = ("The sourdough starter is fed flour and water at a one to one ratio, the dough "
         "rests overnight, is folded four times and baked in a covered pot. ")


def mixed_note() -> str:
    """Three sections; the third is long and itself two unrelated sub-sections, so the
    child it becomes is over the threshold and dispersed too."""
    return (
        "---\nname: house and hobbies\ndescription: Garden, kitchen and weekend notes.\n---\n"
        f"## Garden\n\n{GARDEN * 2}\n\n"
        f"## Kitchen\n\n{KITCHEN * 2}\n\n"
        f"## Weekends\n\n### Sailing\n\n{SAILING * 8}\n\n### Databases\n\n{DATABASES * 8}\n\n"
        f"derived_from:: [[{LOG}]]\n"
    )


def one_topic_note() -> str:
    return (f"---\nname: sourdough\ndescription: How the sourdough is made.\n---\n{BREAD * 12}\n\n"
            f"derived_from:: [[{LOG}]]\n")


def make(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for layer in ("resource", "daily/2026-10-05", "digest/wiki", "digest/procedure",
                  "digest/personal", "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    (root / "reme.toml").write_text(
        f'[recall]\nembedder = "hashing"\n\n[split]\ntoken_threshold = {THRESHOLD}\n',
        encoding="utf-8")
    (root / LOG).write_text("# Notes\n\nWrote down the house notes.\n", encoding="utf-8")
    (root / MIXED).write_text(mixed_note(), encoding="utf-8")
    (root / ONE_TOPIC).write_text(one_topic_note(), encoding="utf-8")
    return root


def cli_json(root: Path, *args: str):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def split_phase(root: Path) -> dict:
    report = cli_json(root, "consolidate", "--only", "split", "--force")
    (phase,) = [p for p in report["phases"] if p["phase"] == "split"]
    return phase


def split_proposals(root: Path) -> dict[str, dict]:
    """parent path -> the stored split proposal."""
    out = {}
    for f in sorted((root / "meta/proposals").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data["action"] == "consolidate.split" and data["state"] == "pending":
            out[data["story"]["plan"]["parent"]["path"]] = data
    return out


def audit_lines(root: Path, needle: str) -> list[str]:
    return [line for f in sorted((root / "audit").glob("*/consolidate_actions.md"))
            for line in f.read_text(encoding="utf-8").splitlines() if needle in line]


def test_a_note_nobody_queued_is_split_and_one_topic_is_judged_once(tmp_path):
    root = make(tmp_path)
    assert read_split_queue(root).entries == ()  # written by hand: nothing queued them

    phase = split_phase(root)
    states = {o["path"]: (o["state"], o["by"]) for o in phase["details"]["outcomes"]}
    assert states == {MIXED: ("pending", "consolidate.scan"),
                      ONE_TOPIC: ("not-overloaded", "consolidate.scan")}
    assert list(split_proposals(root)) == [MIXED]
    # the judgement is remembered by the bytes it read, and audited in one summary line
    (judged,) = read_split_queue(root).not_overloaded
    assert judged.path == ONE_TOPIC and judged.tokens > THRESHOLD
    assert "meta/split_queue.json" in phase["changed"]
    (line,) = audit_lines(root, "split not needed")
    assert line.strip().startswith("- split not needed for 1 note(s) over 300 tokens")
    assert f"[[{ONE_TOPIC}]]" in line

    # the next run asks nothing: one note waits for review, the other is unchanged
    again = split_phase(root)
    assert again["details"]["outcomes"] == [] and again["changed"] == []
    assert len(audit_lines(root, "split not needed")) == 1

    # a person edits the one-topic note: it is judged again
    with (root / ONE_TOPIC).open("a", encoding="utf-8") as f:
        f.write("\nThe oven is at 250 degrees for the first twenty minutes.\n")
    third = split_phase(root)
    assert [(o["path"], o["state"]) for o in third["details"]["outcomes"]] == [
        (ONE_TOPIC, "not-overloaded")]


def test_a_note_written_by_accepting_a_proposal_is_split_at_the_next_run(tmp_path):
    root = make(tmp_path)
    (root / ONE_TOPIC).unlink()
    split_phase(root)
    proposal = split_proposals(root)[MIXED]
    children = [c["path"] for c in proposal["story"]["plan"]["children"]]
    long_child = max(children, key=lambda p: next(
        c["tokens"] for c in proposal["story"]["plan"]["children"] if c["path"] == p))
    assert len(children) == 3

    accepted = cli_json(root, "proposals", "accept", proposal["id"])
    assert accepted["state"] == "applied"
    assert (root / long_child).exists()
    # accepting queues nothing: only the look over the digest can find the long child
    assert long_child not in read_split_queue(root).paths

    phase = split_phase(root)
    assert [(o["path"], o["state"], o["by"]) for o in phase["details"]["outcomes"]] == [
        (long_child, "pending", "consolidate.scan")]
    child_split = split_proposals(root)[long_child]
    names = sorted(c["name"].lower() for c in child_split["story"]["plan"]["children"])
    assert len(names) == 2 and names[0].endswith("databases") and names[1].endswith("sailing")


def test_the_token_cache_never_hides_a_note_when_the_threshold_drops(tmp_path):
    root = make(tmp_path)
    (root / MIXED).unlink()
    short = "digest/wiki/tomatoes.md"
    (root / short).write_text(f"---\nname: tomatoes\ndescription: Tomatoes.\n---\n{GARDEN * 4}\n\n"
                              f"derived_from:: [[{LOG}]]\n", encoding="utf-8")
    first = split_phase(root)
    assert [o["path"] for o in first["details"]["outcomes"]] == [ONE_TOPIC]
    assert (root / ".reme/split_content_tokens.json").exists()
    # a lower threshold: the short note's cached count was only a bound under the old one
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n\n[split]\n'
                                    'token_threshold = 100\n', encoding="utf-8")
    second = split_phase(root)
    assert [(o["path"], o["state"]) for o in second["details"]["outcomes"]] == [
        (short, "not-overloaded")]  # the sourdough note's judgement stands: not asked again
    # a damaged cache is only a cache
    (root / ".reme/split_content_tokens.json").write_text("{not json", encoding="utf-8")
    (root / short).write_text((root / short).read_text(encoding="utf-8") + "\nMore.\n",
                              encoding="utf-8")
    third = split_phase(root)
    assert [(o["path"], o["state"]) for o in third["details"]["outcomes"]] == [
        (short, "not-overloaded")]
