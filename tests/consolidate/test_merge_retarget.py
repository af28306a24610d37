"""A merge's retarget touches only link spans (docs/spec.md §7.7.5, issue #29.4): every
file linking the loser keeps each line and list item a person wrote — a repeated
`- [[winner]]` stays — and only the links that meant the loser change, whatever form
they are written in. A check in the changeset (`retargets_only_links`) holds a held
merge to that again when a person accepts it.

Heading and block links into the loser open the loser's text in the winner
(issue #29.9): `[[loser#Steps]]` becomes `[[winner#From loser#Steps]]` when the winner
has a "Steps" of its own (Obsidian resolves nested heading paths,
`[[note#Heading 1#Heading 2]]`), `[[loser#^block]]` becomes `[[winner#^block]]` with
the block id carried into the merged body (renamed when the winner has that id)."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import ACTION, MergeContext, plan_merges
from reme_workbench.llm.consolidate import MergeRequest
from reme_workbench.llm.schema import MergedNote, PairVote
from reme_workbench.proposals.model import Proposal
from reme_workbench.proposals.queue import Policy, ProposalQueue
from reme_workbench.vault.store import Edit
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW
from tests.consolidate_fakes import OneTaskBrain

WINNER = "digest/procedure/deploy-payments-api.md"  # a source links it: it wins (§7.7.3)
LOSER = "digest/procedure/payments-api-deploy.md"
D1 = "daily/2026-10-05/deploy.md"
D2 = "daily/2026-10-12/payments.md"
USER = "digest/wiki/rollouts.md"
AUTO = Policy(frozenset({ACTION}))
YES = PairVote(is_same=True, confidence=0.95, reason="One runbook.")

WINNER_BODY = (
    "## Steps\n\n"
    "1. Run the database migrations.\n"
    "2. Start the canary.\n\n"
    "Watch the dashboard. ^watch\n\n"
    f"derived_from:: [[{D1}]]\n"
)
LOSER_BODY = (
    "## Steps\n\n"
    "1. Freeze the payments queue.\n"
    "2. Drain the workers.\n\n"
    "## Rollback\n\n"
    "Roll back with the previous tag. ^rollback\n\n"
    "Page the on-call engineer when the error rate doubles. ^watch\n\n"
    f"derived_from:: [[{D2}]]\n"
)


def note(name: str, body: str, description: str = "Deploying the payments API.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def files(**extra: str) -> dict[str, str]:
    return {
        WINNER: note("deploy-payments-api", WINNER_BODY),
        LOSER: note("payments-api-deploy", LOSER_BODY),
        D1: f"deploy log, see [[{WINNER}]]\n",
        D2: "payments log\n",
        **extra,
    }


class Brain(OneTaskBrain):
    """Three agreeing votes; the merge answers `write(request)`."""

    def __init__(self, write):
        self.write = write
        self.merges: list[MergeRequest] = []

    def vote(self, request):
        from reme_workbench.llm.base import BrainReply, Usage

        return BrainReply(YES, YES.model_dump_json(), Usage(1, 1), self.model)

    def merge(self, request):
        from reme_workbench.llm.base import BrainReply, Usage

        self.merges.append(request)
        body = self.write(request)
        return BrainReply(MergedNote(description=request.winner.description, body=body),
                          json.dumps({"body": body[:100]}), Usage(1, 1), self.model)


def from_section(request: MergeRequest) -> str:
    """What the offline brain writes: the winner's body, then the loser's under
    `## From <loser>`, its headings one level down, each provenance line once."""
    head = request.winner.body.replace(f"derived_from:: [[{D1}]]\n", "").rstrip()
    loser = request.loser.body.replace(f"derived_from:: [[{D2}]]\n", "").rstrip()
    loser = re.sub(r"(?m)^## ", "### ", loser)
    return (f"{head}\n\n## From {request.loser.name}\n\n{loser}\n\n"
            f"derived_from:: [[{D1}]]\nderived_from:: [[{D2}]]\n")


def without_block_ids(request: MergeRequest) -> str:
    """A model that carries the loser's text but not its block ids."""
    return re.sub(r" \^[A-Za-z0-9-]+$", "", from_section(request), flags=re.M).replace(
        "Watch the dashboard.", "Watch the dashboard. ^watch")  # the winner's own id stays


def open_vault(root) -> Vault:
    return Vault.open(root, clock=lambda: FIXED_NOW)


def merge(vault: Vault, write=from_section, **how):
    cand = MergeCandidate(*sorted((WINNER, LOSER)), "c_00", 0.9, 0.8, None)
    return plan_merges(vault, Brain(write), [cand], MergeSettings(),
                       MergeContext(now=FIXED_NOW, parallel_votes=False, audit=False, **how))


def cli_json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def read(root, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


# -- nothing a person wrote goes -------------------------------------------------------------

ROLLOUTS = note("rollouts", (
    "Rollouts.\n\n"
    "## Before a deploy\n\n"
    f"- [[{WINNER}]]\n\n"
    "## After a deploy\n\n"
    f"- [[{WINNER}]]\n"
    f"- [[{LOSER}]]\n"
    "- [[digest/procedure/payments-api-deploy.md]]\n\n"
    f"derived_from:: [[{D1}]]\n"), "Rollout notes")


def test_a_held_merge_accepted_through_the_cli_keeps_every_list_item(make_vault):
    root = make_vault(files(**{USER: ROLLOUTS}))
    (held,) = merge(open_vault(root)).proposals
    assert held.state == "pending"
    assert cli_json(root, "proposals", "accept", held.id)["state"] == "applied"
    expected = ROLLOUTS.replace(f"[[{LOSER}]]", f"[[{WINNER}]]")
    assert read(root, USER) == expected  # only the link spans changed
    assert read(root, USER).count(f"- [[{WINNER}]]\n") == 4


def test_an_applied_merge_keeps_every_list_item(make_vault):
    root = make_vault(files(**{USER: ROLLOUTS}))
    (done,) = merge(open_vault(root), policy=AUTO).proposals
    assert done.state == "applied", done.error
    assert read(root, USER) == ROLLOUTS.replace(f"[[{LOSER}]]", f"[[{WINNER}]]")
    (check,) = [c for c in done.story["checks"] if c["name"] == "retargets_only_links"]
    assert check["failures"] == []


def test_a_held_retarget_that_drops_a_line_is_refused_on_accept(make_vault):
    """A held merge from before this rule (or edited on disk) whose retarget removes a
    person's line is refused by its stored checks, and nothing is written."""
    root = make_vault(files(**{USER: ROLLOUTS}))
    vault = open_vault(root)
    (held,) = merge(vault).proposals
    queue = ProposalQueue(vault)
    ops = tuple(
        Edit(op.path, op.content.replace(b"## After a deploy\n\n", b"## After a deploy\n"),
             op.expected) if op.path == USER else op
        for op in held.ops)
    queue.save(Proposal(**{**held.__dict__, "ops": ops}))
    answer = cli_json(root, "proposals", "accept", held.id)
    assert answer["state"] == "rejected"
    assert "retargets_only_links" in answer["error"] and USER in answer["error"]
    assert read(root, USER) == ROLLOUTS and (root / LOSER).exists()


# -- every form of link, only its span ------------------------------------------------------

FORMS = note("forms", (
    "Short [[payments-api-deploy]], case [[Payments-API-Deploy]], no extension "
    f"[[{LOSER[:-3]}]], full [[{LOSER}]].\n"
    "Alias [[payments-api-deploy|the old runbook]], embed ![[payments-api-deploy]].\n"
    "Relative [[../procedure/payments-api-deploy.md|rel]].\n"
    "depends_on:: [[payments-api-deploy]]\n"
    "Inline [uses:: [[payments-api-deploy]]] and `[[payments-api-deploy]]` in code.\n"
    "Rollback at [[payments-api-deploy#Rollback|rollback]], page at "
    "[[payments-api-deploy#^rollback]].\n\n"
    "```\n[[payments-api-deploy]]\n```\n\n"
    f"derived_from:: [[{D1}]]\n"), "Every form")


def test_every_form_of_link_to_the_loser_is_retargeted_and_nothing_else_changes(make_vault):
    user = "digest/wiki/forms.md"
    root = make_vault(files(**{user: FORMS}))
    (done,) = merge(open_vault(root), policy=AUTO).proposals
    assert done.state == "applied", done.error
    text = read(root, user)
    assert text == FORMS.replace(
        "[[payments-api-deploy]], case", "[[deploy-payments-api]], case").replace(
        "[[Payments-API-Deploy]]", "[[deploy-payments-api]]").replace(
        f"[[{LOSER[:-3]}]]", "[[deploy-payments-api]]").replace(
        f"[[{LOSER}]]", f"[[{WINNER}]]").replace(
        "[[payments-api-deploy|the old", "[[deploy-payments-api|the old").replace(
        "![[payments-api-deploy]]", "![[deploy-payments-api]]").replace(
        "[[../procedure/payments-api-deploy.md|rel]]", "[[deploy-payments-api|rel]]").replace(
        "depends_on:: [[payments-api-deploy]]", "depends_on:: [[deploy-payments-api]]").replace(
        "[uses:: [[payments-api-deploy]]]", "[uses:: [[deploy-payments-api]]]").replace(
        "[[payments-api-deploy#Rollback|", "[[deploy-payments-api#Rollback|").replace(
        "[[payments-api-deploy#^rollback]]", "[[deploy-payments-api#^rollback]]")
    assert "`[[payments-api-deploy]]`" in text and "```\n[[payments-api-deploy]]\n```" in text


# -- heading and block links land on the loser's text ---------------------------------------

def heading_lines(text: str) -> list[tuple[int, str, int]]:
    """(level, text, line number) of each ATX heading outside code, as Obsidian lists them."""
    out, fence = [], False
    for number, line in enumerate(text.split("\n")):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", line)
        if m:
            out.append((len(m.group(1)), m.group(2), number))
    return out


def open_section(text: str, subpath: str) -> str:
    """What Obsidian shows for `[[note#subpath]]`: each `#` part is the next heading of
    that text after the one before; the section runs to the next heading of its level or
    above. A block id (`^id`) is the line that ends with it."""
    lines = text.split("\n")
    if subpath.startswith("^"):
        (line,) = [ln for ln in lines if ln.endswith(f" {subpath}")]
        return line
    heads, at = heading_lines(text), -1
    for part in subpath.split("#"):
        at = next(i for i in range(at + 1, len(heads)) if heads[i][1] == part)
    level, _, start = heads[at]
    end = next((h[2] for h in heads[at + 1:] if h[0] <= level), len(lines))
    return "\n".join(lines[start:end])


LINKING = note("runbook-links", (
    "Steps at [[payments-api-deploy#Steps|the steps]].\n"
    "Rollback at [[payments-api-deploy#Rollback]].\n"
    "Paging at [[payments-api-deploy#^watch]] and rollback at "
    f"[[{LOSER}#^rollback|the tag]].\n\n"
    f"derived_from:: [[{D1}]]\n"), "Links into the runbook")


def test_heading_and_block_links_into_the_loser_open_its_text_in_the_winner(make_vault):
    user = "digest/wiki/runbook-links.md"
    root = make_vault(files(**{user: LINKING}))
    (done,) = merge(open_vault(root), policy=AUTO).proposals
    assert done.state == "applied", done.error
    text = read(root, user)
    assert "[[deploy-payments-api#From payments-api-deploy#Steps|the steps]]" in text
    assert "[[deploy-payments-api#Rollback]]" in text  # the winner has no Rollback of its own
    merged = read(root, WINNER)
    assert "Freeze the payments queue." in open_section(merged, "From payments-api-deploy#Steps")
    assert "Run the database migrations." not in open_section(
        merged, "From payments-api-deploy#Steps")
    assert "Roll back with the previous tag." in open_section(merged, "Rollback")
    # the winner has a block `^watch` of its own: the loser's is renamed, here and in links
    assert "[[deploy-payments-api#^watch-2]]" in text
    assert open_section(merged, "^watch-2").startswith("Page the on-call engineer")
    assert open_section(merged, "^watch") == "Watch the dashboard. ^watch"
    assert f"[[{WINNER}#^rollback|the tag]]" in text
    assert open_section(merged, "^rollback").startswith("Roll back with the previous tag.")
    assert text == LINKING.replace("[[payments-api-deploy#Steps|", "[[deploy-payments-api#From "
                                   "payments-api-deploy#Steps|").replace(
        "[[payments-api-deploy#Rollback]]", "[[deploy-payments-api#Rollback]]").replace(
        "[[payments-api-deploy#^watch]]", "[[deploy-payments-api#^watch-2]]").replace(
        f"[[{LOSER}#^rollback|", f"[[{WINNER}#^rollback|")


def test_a_block_id_the_brain_left_out_is_carried_into_the_merged_body(make_vault):
    user = "digest/wiki/runbook-links.md"
    root = make_vault(files(**{user: LINKING}))
    (done,) = merge(open_vault(root), write=without_block_ids, policy=AUTO).proposals
    assert done.state == "applied", done.error
    merged, text = read(root, WINNER), read(root, user)
    assert open_section(merged, "^rollback") == "Roll back with the previous tag. ^rollback"
    assert open_section(merged, "^watch-2").startswith("Page the on-call engineer")
    assert "[[deploy-payments-api#^watch-2]]" in text
    assert f"[[{WINNER}#^rollback|the tag]]" in text


def test_a_heading_the_merged_body_does_not_keep_links_the_note_itself(make_vault):
    """A model that folds the loser's steps into the winner's list leaves no heading of
    the loser's: the link opens the merged note, never a section of other text."""
    user = "digest/wiki/runbook-links.md"
    root = make_vault(files(**{user: LINKING}))

    def folded(request):
        return (WINNER_BODY.replace("2. Start the canary.\n",
                                    "2. Start the canary.\n3. Freeze the payments queue.\n"
                                    "4. Drain the workers.\n")
                .replace(f"derived_from:: [[{D1}]]\n", "")
                + "Roll back with the previous tag. ^rollback\n\n"
                "Page the on-call engineer when the error rate doubles.\n\n"
                f"derived_from:: [[{D1}]]\nderived_from:: [[{D2}]]\n")

    (held,) = merge(open_vault(root), write=folded).proposals
    edit = next(op.content.decode() for op in held.ops if op.path == user)
    assert "[[deploy-payments-api#Steps|the steps]]" in edit  # the winner's Steps holds them
    assert "Rollback at [[deploy-payments-api]]." in edit  # no Rollback heading: the note
    story = held.story["anchors"]
    assert {"from": "Rollback", "to": None} in [
        {"from": a["from"], "to": a["to"]} for a in story]


def test_the_review_lists_the_heading_and_block_links_it_rewrites(make_vault):
    from reme_workbench.review.merges import merge_review
    from reme_workbench.review.proposals import story_sections

    user = "digest/wiki/runbook-links.md"
    root = make_vault(files(**{user: LINKING}))
    (held,) = merge(open_vault(root)).proposals
    review = merge_review(held)
    assert {(a["from"], a["to"]) for a in review.anchors} == {
        ("Steps", "From payments-api-deploy#Steps"), ("^watch", "^watch-2")}
    (section,) = [s for s in story_sections(held)
                  if s.title == "Heading and block links to the loser's text"]
    assert ("#Steps", "#From payments-api-deploy#Steps", user) in section.rows


def test_the_offline_brains_merge_keeps_heading_and_block_links_on_the_losers_text(make_vault):
    from reme_workbench.brains.factory import offline_consolidate_brain
    from reme_workbench.config import Settings
    from reme_workbench.index.embeddings import HashingEmbedder

    user = "digest/wiki/runbook-links.md"
    root = make_vault(files(**{user: LINKING}))
    cand = MergeCandidate(*sorted((WINNER, LOSER)), "c_00", 0.9, 0.8, None)
    offline = offline_consolidate_brain(HashingEmbedder(), Settings())
    (held,) = plan_merges(open_vault(root), offline, [cand], MergeSettings(), MergeContext(
        now=FIXED_NOW, parallel_votes=False, audit=False, decided_by_person=True)).proposals
    assert held.story["dropped_statements"] == []
    assert cli_json(root, "proposals", "accept", held.id)["state"] == "applied"
    merged, text = read(root, WINNER), read(root, user)
    for link in re.findall(r"\[\[(?:deploy-payments-api|" + re.escape(WINNER) + r")#([^|\]]+)",
                           text):
        assert open_section(merged, link)  # every anchor opens something in the winner
    assert "Freeze the payments queue." in open_section(merged, "From payments-api-deploy#Steps")
    assert open_section(merged, "^watch-2").startswith("Page the on-call engineer")
    assert open_section(merged, "^rollback").startswith("Roll back with the previous tag.")


def test_a_block_id_on_its_own_line_after_a_table_is_carried_on_its_own_line():
    from reme_workbench.consolidate.merge_anchors import HeadingMap, carry_block_ids

    table = "| step | owner |\n|---|---|\n| freeze | Mei |\n"
    loser = f"Intro. ^intro\n\n{table}\n^steps\n"
    winner = "Intro. ^intro\n"
    merged, blocks = carry_block_ids(f"Intro. ^intro\n\n## From loser\n\nIntro.\n\n{table}",
                                     winner, loser)
    assert merged.endswith(f"{table}^steps\n")
    assert "| freeze | Mei | ^steps" not in merged  # the table stays a table
    assert blocks == {"intro": "intro", "steps": "steps"}  # one "Intro." line: the winner's
    assert HeadingMap(merged, loser, blocks).anchors(["^steps", "^intro", "^gone"]) == {}
