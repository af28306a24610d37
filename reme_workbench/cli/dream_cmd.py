"""`dream`: material into digest notes, through proposals."""

from __future__ import annotations

import click

from .app import EMBEDDER_OPTION, Ctx, cli
from .generate import Call, OperationCommand


@cli.command(cls=OperationCommand, operations=("dream",))
@click.option("--brain", "brain_spec", help='offline (default) or litellm:<model>; default from reme.toml [llm] brain.')
@click.option("--api-base", help="The model server's URL (else $REME_LLM_API_BASE, else reme.toml [llm] api_base).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), help="Record every model exchange to this cassette.")
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False), help="Answer from this cassette; no model is called.")
@EMBEDDER_OPTION
def dream(obj: Ctx, call: Call, brain_spec, api_base, record_file, replay_file, embedder):
    """Turn material into digest notes: Phase 1 extracts units, Phase 2
    recalls related notes and CREATEs or UPDATEs (CORROBORATE / REFINE / CORRECT).

    MATERIAL is files or folders under daily/ or resource/, or dates (2026-10-05);
    with none, everything not yet dreamt at its current content. Every change is a
    proposal: CREATE and CORROBORATE apply at once when they only add lines (one
    that rewrites a line of the note waits), REFINE and CORRECT wait for
    `reme-workbench proposals`. With --review nothing applies: every proposal waits,
    to be read with `proposals list --state pending` / `show ID` and applied with
    `accept ID` (the offline brain only CREATEs and CORROBORATEs, so without --review
    all it proposes lands at once). The offline brain is rule-based (no model, no
    network); --brain litellm:<model> uses a real model.
    """
    from .app import vault_relative

    vault = obj.open()
    ws = obj.workspace(vault, embedder_spec=embedder, brain_spec=brain_spec,
                       brain_api_base=api_base, record=record_file, replay=replay_file)
    request = call.request(files=[vault_relative(vault.root, m) for m in call.fields["files"]])
    obj.warn_problems(vault)  # first: what the index and dream say again about them is left out
    with obj.progress() as bar:

        def progress(done: int, total: int, text: str) -> None:
            # many quick index steps, then few slow dream ones: each file and its units shown
            (bar.message if text.startswith("indexing") else bar.milestones)(done, total, text)

        answer = call.run(ws, request, progress=progress)
    data = answer.model_dump(mode="json")
    obj.warn_problems(vault)  # anything new since
    outcomes = data["outcomes"]
    failed = sum(1 for o in outcomes if o["state"] == "failed")
    # failures go to stderr in every mode: a replay miss or a dead server must be loud
    for message in dict.fromkeys(o["message"] for o in outcomes if o["state"] == "failed"):
        click.echo(f"Error: {message}", err=True)
    if call.emit(answer):
        click.get_current_context().exit(1 if failed else 0)
    for line in data["notices"] + data["skipped"]:
        obj.warn(line, "note")
    if not data["materials"]:
        click.echo("Nothing new to dream.")
        return
    for o in outcomes:
        action, flavor, state = o["action"], o["flavor"], o["state"]
        what = action if flavor is None or action == "FAILED" else f"{action} {flavor}"
        tail = f"  {o['message']}" if o["message"] and state != "applied" else ""
        click.echo(f"{o['material']}: {what:<20} {o['target_path'] or '-'}  [{state}]{tail}")
    t = data["tokens"]
    click.echo(f"{len(data['materials'])} material file(s), {len(outcomes)} unit(s); "
               f"{t['calls']} brain call(s), {t['prompt_tokens']} prompt + {t['completion_tokens']} completion tokens "
               f"({t['cached_tokens']} cached)")
    if data["pending"]:
        click.echo(f"{len(data['pending'])} proposal(s) wait for review: reme-workbench proposals list --state pending")
    for path in data["split_candidates"]:
        click.echo(f"over the split threshold: {path}")
    for line in data["broken_links"]:
        click.echo(f"broken link written: {line}")
    if failed:
        click.echo(f"{failed} unit(s) failed: the brain gave no usable answer (see above).", err=True)
        click.get_current_context().exit(1)
