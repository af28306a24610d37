"""Every writer that edits a note keeps its frontmatter byte for byte except the keys it
means to change (docs/spec.md §1.4.2): rename (the library and the CLI), import, a
merge's winner edit, the short-link normalisation, a dream UPDATE, and a split's parent
edit — on real-vault fixtures (tests/data/frontmatter/) and on generated blocks of YAML
1.1 look-alikes, comments, blank lines and CRLF."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import MergeContext, plan_merges
from reme_workbench.consolidate.split import body_tokens, run_split_queue
from reme_workbench.dream.pipeline import Dreamer
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.proposals import ProposalQueue
from reme_workbench.vault.adopt import import_vault
from reme_workbench.vault.split_queue import enqueue_splits
from reme_workbench.vault.vault import Vault, rename_note
from tests.conftest import FIXED_NOW, write_files
from tests.vault.frontmatter_lines import (
    FIXTURE_NAMES,
    as_crlf_with_bom,
    assert_only_changed,
    blocks,
    fixture_text,
    read_mapping,
    split_note,
    with_key,
    with_name,
)

LAYERS = ("resource", "daily", "digest/procedure", "digest/personal", "digest/wiki", "meta", "audit")
LOG = "daily/2026-10-05/deploy.md"
LOG2 = "daily/2026-10-12/payments.md"
OLD = "digest/wiki/old-name.md"
NEW = "digest/wiki/new-name.md"
LINKER = "digest/wiki/linker.md"
TARGET = "digest/wiki/canary-rollout.md"
A = "digest/procedure/deploy-payments-api.md"
B = "digest/procedure/payments-api-deploy.md"
PARENT = "digest/wiki/payments-platform.md"
ROLLBACK = "digest/wiki/rollback.md"


def plain_note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def new_vault(where: Path, files: dict[str, str]) -> Path:
    for layer in LAYERS:
        (where / layer).mkdir(parents=True, exist_ok=True)
    return write_files(where, files)


def open_vault(root: Path) -> Vault:
    return Vault.open(root, clock=lambda: FIXED_NOW)


def read(root: Path, rel: str) -> str:
    return (root / rel).read_bytes().decode("utf-8")


def with_body(text: str, body: str) -> str:
    """`text`'s frontmatter block over `body` (in the block's line endings)."""
    head, yaml_text, close, _ = split_note(text)
    nl = "\r\n" if head.endswith("\r\n") else "\n"
    return head + yaml_text + close + body.replace("\n", nl)


# --- the writers: each takes a note's text and returns what it wrote, what the block
# --- should read back as, and the keys it means to change ------------------------------------


def rename_by_library(where: Path, text: str):
    root = new_vault(where, {OLD: with_body(text, f"Body.\n\nderived_from:: [[{LOG}]]\n"),
                             LINKER: plain_note("linker", "d", f"See [[{OLD}]].\n"), LOG: "log\n"})
    rename_note(open_vault(root), OLD, NEW)
    assert f"[[{NEW}]]" in read(root, LINKER)
    return read(root, NEW), with_name(read_mapping(text), "new-name"), {"name"}


def rename_by_cli(where: Path, text: str):
    root = new_vault(where, {OLD: with_body(text, "Body.\n"), LOG: "log\n"})
    result = CliRunner().invoke(cli, ["--vault", str(root), "rename", OLD, NEW])
    assert result.exit_code == 0, result.output
    return read(root, NEW), with_name(read_mapping(text), "new-name"), {"name"}


def import_obsidian(where: Path, text: str):
    source = where / "obsidian"
    write_files(source, {"imported-note.md": with_body(text, "See [[other]].\n"),
                         "other.md": "# Other\n"})
    root = new_vault(where / "vault", {})
    import_vault(open_vault(root), source)
    mapping = read_mapping(text)
    if "name" in mapping:
        return read(root, "digest/wiki/imported-note.md"), mapping, set()
    return read(root, "digest/wiki/imported-note.md"), with_name(mapping, "imported-note"), {"name"}


def merge_winner(where: Path, text: str):
    root = new_vault(where, {
        A: with_body(text, f"Run the migrations.\n\nderived_from:: [[{LOG}]]\n"),
        B: plain_note("payments-api-deploy", "Deploying the payments API",
                      f"Watch the dashboard.\n\nderived_from:: [[{LOG2}]]\n"),
        LOG: "log\n", LOG2: "log 2\n"})
    brain = ScriptedBrain()
    for _ in range(3):
        brain.enqueue_vote({"is_same": True, "confidence": 0.9, "reason": "Same deploy."})
    description = "Merged: deploying the payments API"
    brain.enqueue_merge({"description": description, "body": (
        f"Run the migrations.\nWatch the dashboard.\n\nderived_from:: [[{LOG}]]\n"
        f"derived_from:: [[{LOG2}]]\n")})
    vault = open_vault(root)
    run = plan_merges(vault, brain, [MergeCandidate(A, B, "c_00", 0.9, 0.9, None)],
                      MergeSettings(), MergeContext(now=FIXED_NOW, audit=False))
    assert [p.state for p in run.proposals] == ["pending"], run
    proposal = ProposalQueue(vault).load(run.proposals[0].id)
    (edit,) = [op for op in proposal.ops if op.path == A]
    written = edit.content.decode("utf-8")
    return written, with_key(read_mapping(text), "description", description), {"description"}


def normalize_short_links(where: Path, text: str):
    root = new_vault(where, {OLD: with_body(text, "See [[canary-rollout]] first.\n"),
                             TARGET: plain_note("canary-rollout", "Canary", "Canary.\n")})
    vault = open_vault(root)
    assert vault.normalize_links(vault.health()) is not None
    written = read(root, OLD)
    assert f"[[{TARGET}" in split_note(written)[3]
    return written, read_mapping(text), set()


def dream_update(where: Path, text: str):
    body = f"Run the canary.\n\nderived_from:: [[{LOG}]]\n"
    root = new_vault(where, {A: with_body(text, body), LOG: "Deployed.\n",
                             LOG2: "Deployed payments-api again; canary now 15 minutes.\n"})
    description = "How to deploy payments-api with a canary."
    brain = (ScriptedBrain()
             .enqueue_extract([{"name": "deploy-payments-api", "bucket": "procedure",
                                "summary": "Deploy payments-api with a canary."}])
             .enqueue_integrate({"action": "UPDATE", "flavor": "REFINE", "target_path": A,
                                 "description": description,
                                 "body": body + f"derived_from:: [[{LOG2}]]\n"}))
    vault = open_vault(root)
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as index:
        (outcome,) = Dreamer(vault, brain, index).run([LOG2]).outcomes
    # an update that sets the description and the name rewrites frontmatter lines, so it
    # waits for a person (docs/spec.md §3.7.3), who accepts it
    assert (outcome.action, outcome.state) == ("UPDATE", "pending"), outcome
    assert ProposalQueue(vault).accept(outcome.proposal_id).state == "applied"
    expected = with_name(with_key(read_mapping(text), "description", description),
                         "deploy-payments-api")
    return read(root, A), expected, {"description", "name"}


SECTION = ("Deploys run with a canary at five percent of the traffic for ten minutes, then "
           "the whole fleet, while the error rate and the latency are watched. ") * 4
PARENT_BODY = (f"# Payments platform\n\n## Deploys\n\n{SECTION}\nSee [[{TARGET}]].\n\n"
               f"## Incidents\n\n{SECTION}\nFollow [[{ROLLBACK}]].\n\nderived_from:: [[{LOG}]]\n")


def split_parent(where: Path, text: str):
    root = new_vault(where, {
        PARENT: with_body(text, PARENT_BODY), LOG: "log\n",
        TARGET: plain_note("canary-rollout", "Canary", f"Canary.\n\nderived_from:: [[{LOG}]]\n"),
        ROLLBACK: plain_note("rollback", "Roll back", f"Back.\n\nderived_from:: [[{LOG}]]\n")})
    vault = open_vault(root)
    enqueue_splits(root, [(PARENT, body_tokens(read(root, PARENT), PARENT))], by="dream",
                   now=FIXED_NOW)
    brain = ScriptedBrain().enqueue_split({
        "overloaded": True, "reason": "deploys and incidents are two topics",
        "parent_body": f"# Payments platform\n\nSee [[Deploys]] and [[Incidents]].\n\n"
                       f"derived_from:: [[{LOG}]]\n",
        "children": [
            {"name": "Deploys", "description": "How deploys run.",
             "body": f"## Deploys\n\n{SECTION}\nSee [[{TARGET}]].\n"},
            {"name": "Incidents", "description": "What to do when one fails.",
             "body": f"## Incidents\n\n{SECTION}\nFollow [[{ROLLBACK}]].\n"}]})
    (outcome,) = run_split_queue(vault, brain, threshold=50, now=FIXED_NOW).outcomes
    assert outcome.state == "pending", outcome
    (edit,) = [op for op in ProposalQueue(vault).load(outcome.proposal_id).ops if op.path == PARENT]
    written = edit.content.decode("utf-8")
    assert "See [[" in split_note(written)[3]
    return written, read_mapping(text), set()


WRITERS = {
    "rename": rename_by_library,
    "rename-cli": rename_by_cli,
    "import": import_obsidian,
    "merge": merge_winner,
    "normalize-short-links": normalize_short_links,
    "dream-update": dream_update,
    "split-parent": split_parent,
}


def check(text: str, written: str, expected: dict, touched: set) -> None:
    if not touched:  # the writer changes the body only: the block is byte for byte the same
        assert split_note(written)[:3] == split_note(text)[:3]
    assert_only_changed(text, written, touched, expected)


@pytest.mark.parametrize("variant", ["lf", "crlf+bom"])
@pytest.mark.parametrize("fixture", FIXTURE_NAMES)
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_real_vault_frontmatter_through_every_writer(tmp_path, writer, fixture, variant):
    text = fixture_text(fixture, variant)
    written, expected, touched = WRITERS[writer](tmp_path, text)
    check(text, written, expected, touched)


def _generated(tmp_path_factory, writer, block, crlf):
    text = block + "x\n"
    text = as_crlf_with_bom(text) if crlf else text
    written, expected, touched = WRITERS[writer](tmp_path_factory.mktemp(writer), text)
    check(text, written, expected, touched)


@pytest.mark.parametrize("writer", sorted(WRITERS))
@given(block=blocks(), crlf=st.booleans())
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_generated_frontmatter_through_every_writer(tmp_path_factory, writer, block, crlf):
    _generated(tmp_path_factory, writer, block, crlf)


@pytest.mark.slow
@pytest.mark.parametrize("writer", sorted(WRITERS))
@given(block=blocks(), crlf=st.booleans())
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_generated_frontmatter_through_every_writer_many_times(tmp_path_factory, writer, block,
                                                                crlf):
    _generated(tmp_path_factory, writer, block, crlf)


# --- as a user meets it -----------------------------------------------------------------------


def test_cli_rename_keeps_a_hand_written_frontmatter(tmp_path):
    text = (
        "---\n"
        "# written by hand in Obsidian\n"
        "name: old-name\n"
        "time: 12:30\n"
        "zip: 01234\n"
        "version: 1.10\n"
        "flag: yes\n"
        'title: "Quoted: title"\n'
        "tags: [a, b]\n"
        "---\n"
        "Body.\n"
    )
    root = new_vault(tmp_path, {OLD: text})
    result = CliRunner().invoke(cli, ["--vault", str(root), "rename", OLD, NEW])
    assert result.exit_code == 0, result.output
    assert read(root, NEW) == text.replace("name: old-name", "name: new-name")
    assert not (root / OLD).exists()


# --- the one fallback, said where nobody reviews a diff -------------------------------------------


def test_a_rename_that_must_dump_the_block_again_says_so_in_the_audit(tmp_path):
    root = new_vault(tmp_path, {OLD: "---\n{name: old-name, time: 12:30}\n---\nBody.\n"})
    result = CliRunner().invoke(cli, ["--vault", str(root), "rename", OLD, NEW])
    assert result.exit_code == 0, result.output
    assert read_mapping(read(root, NEW)) == {"name": "new-name", "time": 750}
    audit = next((root / "audit").rglob("vault_actions.md")).read_text(encoding="utf-8")
    assert "frontmatter written again whole (the block is one flow mapping" in audit


def test_an_import_that_must_dump_a_block_again_says_so_in_the_audit(tmp_path):
    source = write_files(tmp_path / "obsidian", {"flow.md": "---\n{tags: [a]}\n---\nBody.\n",
                                                 "plain.md": "---\ntags: [a]\n---\nBody.\n"})
    root = new_vault(tmp_path / "vault", {})
    import_vault(open_vault(root), source)
    assert read_mapping(read(root, "digest/wiki/flow.md")) == {"name": "flow", "tags": ["a"]}
    assert read(root, "digest/wiki/plain.md").startswith("---\nname: plain\ntags: [a]\n---\n")
    audit = next((root / "audit").rglob("import.md")).read_text(encoding="utf-8")
    section = audit.split("### Frontmatter written again whole (1)", 1)[1]
    assert "[[digest/wiki/flow.md]]" in section and "flow mapping" in section
    assert "plain.md" not in section
