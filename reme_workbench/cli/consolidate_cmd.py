"""`consolidate`: run the consolidate phases that are due (communities, abstract, merge, split,
archive, cooldowns, health)."""

from __future__ import annotations

import click

from .app import Ctx, cli
from .generate import Call, OperationCommand

# files listed per phase in text output: a readable report on a vault of thousands
_WROTE_SHOWN = 3


@cli.command(cls=OperationCommand, operations=("consolidate",))
@click.option(
    "--only",
    help="Run only these phases, comma-separated: communities, abstract, merge, split, archive, "
    "cooldowns, health.",
)
@click.option(
    "--brain", "brain_spec",
    help="offline (default) or litellm:<model> for abstract, merge and split; default from "
    "reme.toml [llm] brain.",
)
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False),
              help="Answer the brain from this cassette; no model is called.")
def consolidate(obj: Ctx, call: Call, only, brain_spec, replay_file):
    """Keep the digest healthy: run what is due, record what changed.

    Phases, in order: communities (Leiden over the digest link graph, weekly:
    meta/communities.json and community_changes.json); abstract (a hub proposal for each
    community that passes the gates) and merge (three votes on each candidate pair: merge
    proposals, and uncertain pairs in audit/<date>/dups_uncertain.md), with the
    communities; split (every digest note over [split] token_threshold — queued by dream
    or a merge, or found by a cheap look over the digest — each judged once, every run); archive
    (recency of every note, daily: meta/recency.json and archived.json; recall then
    leaves archived notes out); cooldowns (records those of applied proposals, prunes
    expired entries of meta/cooldowns.json and lists the active ones, every run); health
    (D1 broken links — short links Obsidian resolves rewritten to vault paths, links to
    nothing proposed for unlinking, as `health --fix` does — and D10 provenance, every
    run). Abstract, merge and split only propose: review with `reme-workbench proposals`.
    A phase that is not due is skipped and the output says until when; --force runs it
    anyway. When each phase last ran is kept in meta/consolidate_state.json; a run in
    which a scheduled phase ran or a file changed is recorded in
    audit/<date>/consolidate_actions.md. Runs on one vault queue. Schedule it with cron or
    a systemd timer (see docs/consolidate.md, "Scheduling"). When the vault has a .obsidian/
    folder and the communities were computed, the graph view's colour groups and the
    community canvas are brought up to date too (`reme-workbench bridge --communities --canvas`).
    """
    from ..ops import consolidate_phases

    phases = consolidate_phases(only)  # a typo in --only stops here, before anything runs
    vault = obj.open()
    ws = obj.workspace(vault, brain_spec=brain_spec, replay=replay_file)
    request = call.request(only=list(phases) if only else None)
    dry_run = request.dry_run
    obj.warn_problems(vault)
    with obj.progress() as bar:
        # a line per phase
        answer = call.run(ws, request, progress=bar.milestones)
    if call.emit(answer):
        return
    data = answer.model_dump(mode="json")
    verb = "would run" if dry_run else "ran"
    for p in data["phases"]:
        if p["ran"]:
            took = f"{p['seconds']:.1f} s"
            if p.get("embedding_seconds", 0) >= 0.05:  # a person sees what the model cost apart
                took += f", of which embedding {p['embedding_seconds']:.1f} CPU-s"
            click.echo(f"{p['phase']:<12} {verb} ({p['reason']}; {took}): {p['summary']}")
            changed = p["changed"]
            for path in changed[:_WROTE_SHOWN] if len(changed) > _WROTE_SHOWN + 1 else changed:
                click.echo(f"{'':<12}   wrote {path}")
            if len(changed) > _WROTE_SHOWN + 1:  # a D1 fix on a whole vault writes thousands
                click.echo(f"{'':<12}   … and {len(changed) - _WROTE_SHOWN} more files "
                           "(--json and the audit entry list them all)")
        else:
            click.echo(f"{p['phase']:<12} skipped: {p['reason']}")
    bridge = data["bridge"]
    if bridge is not None:
        canvas = bridge["canvas"]
        shown = f"; canvas: {', '.join(canvas['written']) or 'up to date'}" if canvas else ""
        click.echo(f"{'bridge':<12} .obsidian/graph.json: {bridge['graph']['message']}{shown}")
    if dry_run:
        click.echo("Dry run: nothing was written.")
    elif data["audit"]:
        click.echo(f"Recorded in {data['audit']}")
    else:
        click.echo("Nothing changed; no audit entry written.")
