"""`bridge`: what Obsidian reads natively — graph colour groups, canvases, vault-path links."""

from __future__ import annotations

from pathlib import Path

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
@click.option("--preview", "preview", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.html",
              help="Then write FILE.html: what Obsidian's graph view shows (notes, links, notes "
                   "not yet written, graph.json's colours), one file, nothing loaded. Outside "
                   "the vault or in its workbench/; replaces only an earlier preview.")
@click.option("--labels", type=click.IntRange(0, 1000), default=24, show_default=True,
              help="With --preview: how many of the most-linked notes are named.")
@output_options
@click.pass_obj
def bridge(obj: Ctx, communities, canvas, per_community, normalize, dry_run, preview, labels,
           as_json):
    """Write what Obsidian reads natively: colour groups per bucket (and per community)
    merged into .obsidian/graph.json, keeping your settings and groups; JSON Canvas maps
    of the communities in meta/canvas/; short links in digest/ rewritten to vault paths.
    Note frontmatter is never changed. `demo` and `consolidate` run it when the vault
    has a .obsidian/ folder. With --preview, an HTML picture of Obsidian's graph view.
    """
    from ..ops import (
        BridgeRequest,
        GraphPreviewRequest,
        build_request,
        check_graph_preview,
        graph_preview,
    )
    from ..ops import bridge as run_bridge

    if preview is not None and dry_run:
        raise click.UsageError("--dry-run writes nothing and --preview writes a file: run "
                               "the preview without --dry-run.")
    vault = obj.open()
    request = build_request(BridgeRequest, communities=communities, canvas=canvas,
                            per_community=per_community, normalize=normalize, dry_run=dry_run)
    ws = obj.workspace(vault)
    shown = (build_request(GraphPreviewRequest, out=str(preview), labels=labels)
             if preview is not None else None)
    if shown is not None:  # a refused file name stops the command before anything is written
        check_graph_preview(ws, shown)
    data = run_bridge(ws, request).model_dump(mode="json")
    if shown is not None:
        data["preview"] = graph_preview(ws, shown).model_dump(mode="json")
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
    if data.get("preview"):
        p = data["preview"]
        unwritten = f", {p['unresolved']} not yet written" if not p["settings"]["hideUnresolved"] else ""
        click.echo(f"preview: {p['path']}: {p['notes']} notes, {p['edges']} lines{unwritten}; "
                   f"{p['excluded_notes']} notes under Excluded files left out")
        for group in p["groups"]:
            if group["drawn"]:
                click.echo(f"  {group['color']}  {group['notes']:>4}  {group['label']}")
            else:
                click.echo(f"  not drawn: {group['query']} ({group['why_not']})")
        for line in p["notices"]:
            obj.warn(line, "note")
