"""The link-form corpus through a merge (issue #29.10): the note every form links to
(tests/vault/link_forms.py) is merged into another, and every link that resolved to it —
short, any case, without `.md`, relative, with heading, alias, embed, block reference,
line and inline predicates, in a table — resolves to the winner, keeping its alias, embed
mark and predicate; a heading or block link opens the loser's text in the winner; the
decoys, the comments and every byte outside the rewritten links stay as written.

The rename tests run the same corpus (tests/vault/test_rename_link_forms.py). Sources
are never rewritten, so a merge may not take a note a daily log links as its loser
(docs/spec.md §7.7.3): the corpus's log here names the note only inside a comment.
"""

from __future__ import annotations

from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import MergeCandidate
from reme_workbench.consolidate.merge import ACTION, MergeContext, plan_merges
from reme_workbench.proposals.queue import Policy
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW
from tests.consolidate.test_merge_retarget import Brain, open_section
from tests.vault.link_forms import LOG, PROV, TARGET, corpus_files, link_table

KEEPER = "digest/wiki/keeper.md"
KEEPER_TEXT = ("---\nname: keeper\ndescription: The note every form links to.\n---\n"
               "# Keeper\n\nThe keeper's own text.\n\n" + PROV)
# three notes link the keeper, so it wins (§7.7.3: more inbound links)
FANS = {f"digest/wiki/fan-{i}.md": f"---\nname: fan-{i}\ndescription: A fan.\n---\n"
        f"Read [[keeper]].\n\n{PROV}" for i in range(3)}


def corpus_for_a_merge() -> dict[str, str | bytes]:
    files = {**corpus_files(), KEEPER: KEEPER_TEXT, **FANS}
    files[LOG] = "## 10:00 worked on it\n\n%% later: [[alpha-note]] %%\n"  # sources: no link
    files["resource/2026-10-01/page.md"] = "A page.\n"
    return files


def outside_links(text: str, links) -> list[str]:
    """The text between the links: what a merge's retarget must leave as it was."""
    spans = [(at.link.start, at.link.end) for at in links]
    edges = [0, *[x for span in spans for x in span], len(text)]
    return [text[edges[i]:edges[i + 1]] for i in range(0, len(edges), 2)]


def merged_body(request) -> str:
    """The winner's body, then the loser's under `## From <loser>`, its headings one level
    down, its block ids carried: what the offline brain writes."""
    own = request.winner.body.replace(PROV, "").rstrip()
    loser = request.loser.body.replace(PROV, "").rstrip().replace("# Heading One",
                                                                   "### Heading One")
    return f"{own}\n\n## From {request.loser.name}\n\n{loser}\n\n{PROV}"


def test_every_form_of_link_to_the_merged_note_follows_it_into_the_winner(make_vault):
    root = make_vault(corpus_for_a_merge())
    before = link_table(root)
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    cand = MergeCandidate(*sorted((KEEPER, TARGET)), "c_00", 0.9, 0.8, None)
    (done,) = plan_merges(vault, Brain(merged_body), [cand], MergeSettings(), MergeContext(
        now=FIXED_NOW, parallel_votes=False, audit=False,
        policy=Policy(frozenset({ACTION})))).proposals
    assert done.state == "applied", done.error
    assert not (root / TARGET).exists()
    after = link_table(root)
    merged = (root / KEEPER).read_text()
    followed = 0
    for path, (old_text, old_links) in before.items():
        if path in (TARGET, KEEPER):
            continue
        text, links = after[path]
        assert len(links) == len(old_links), path
        for was, now in zip(old_links, links, strict=True):
            a, b = was.link, now.link
            assert (a.alias, a.embed, a.predicate, a.predicate_kind) == \
                (b.alias, b.embed, b.predicate, b.predicate_kind), f"{path}: {a.raw} -> {b.raw}"
            if was.resolves_to != TARGET:
                assert b.raw == a.raw, f"{path}: a link not to the loser changed: {a.raw}"
                continue
            followed += 1
            assert now.resolves_to == KEEPER, f"{path}: {a.raw} -> {b.raw}"
            if a.anchor:  # it opens the loser's text in the winner
                shown = open_section(merged, b.anchor)
                assert shown and ("Alpha." in shown or "A block." in shown or
                                  "Heading One" in shown), f"{a.raw} -> {b.raw}: {shown!r}"
        assert outside_links(text, links) == outside_links(old_text, old_links), \
            f"{path}: bytes outside the links changed"
    assert followed >= 25, followed  # the corpus's forms, from two notes
    assert "%% later: [[alpha-note]] %%" in (root / LOG).read_text()  # a comment stays
