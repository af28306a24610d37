"""`bridge`: what Obsidian reads natively — graph colour groups, canvases, vault-path links."""

from __future__ import annotations

import click

from .app import Ctx, cli, emit_json, output_options, wants_json


@cli.command()
@click.option("--communities", is_flag=True,
              help="Also a colour group per community (3 notes or more) in the graph view.")
@click.option("--canvas", is_flag=True,
              help="Write meta/canvas/communities.canvas (JSON Canvas) of the communities.")
@click.option("--per-community", is_flag=True, help="With --canvas: also one canvas per community.")
@click.option("--normalize", is_flag=True,
              help="Rewrite short links in digest/ ([[Note]]) to full vault paths when they "
                   "resolve to one file; ambiguous and unresolved ones are reported.")
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@output_options
@click.pass_obj
def bridge(obj: Ctx, communities, canvas, per_community, normalize, dry_run, as_json):
    """Write what Obsidian reads natively: colour groups per bucket (and per community)
    merged into .obsidian/graph.json, keeping your settings and groups; JSON Canvas maps
    of the communities in meta/canvas/; short links in digest/ rewritten to vault paths.
    Note frontmatter is never changed. `demo` and `consolidate` run it when the vault
    has a .obsidian/ folder.
    """
    from ..ops import BridgeRequest, build_request
    from ..ops import bridge as run_bridge

    vault = obj.open()
    request = build_request(BridgeRequest, communities=communities, canvas=canvas,
                            per_community=per_community, normalize=normalize, dry_run=dry_run)
    data = run_bridge(obj.workspace(vault), request).model_dump(mode="json")
    if wants_json(as_json):
        emit_json(data)
        return
    for line in data["notices"]:
        obj.warn(line, "note")
    if data["graph"]:
        click.echo(f"{data['graph']['path']}: {data['graph']['message']}")
    if data["canvas"]:
        c = data["canvas"]
        written = ", ".join(c["written"]) or "up to date"
        click.echo(f"canvas: {c['communities']} communities, {c['notes']} notes, "
                   f"{c['links']} links; {written}")
    if data["normalize"]:
        n = data["normalize"]
        click.echo(f"links: {len(n['rewritten'])} rewritten in {len(n['files'])} note(s)"
                   + (" (dry run)" if dry_run else ""))
        for c in n["ambiguous"]:
            click.echo(f"  ambiguous, left as written: {c['path']}:{c['line']} {c['before']} "
                       f"(could be {', '.join(c['candidates'])})")
        for c in n["unresolved"]:
            click.echo(f"  names no file, left as written: {c['path']}:{c['line']} {c['before']}")
