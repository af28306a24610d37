"""`bridge`: what Obsidian reads natively — graph colour groups, canvases, vault-path links."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Ctx, cli
from .generate import Call, OperationCommand


@cli.command(cls=OperationCommand, operations=("bridge", "graph_preview"))
@click.option("--preview", "preview", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.html",
              help="Then write FILE.html: what Obsidian's graph view shows (notes, links, notes "
                   "not yet written, graph.json's colours), one file, nothing loaded. Outside "
                   "the vault or in its workbench/; replaces only an earlier preview.")
def bridge(obj: Ctx, call: Call, preview):
    """Write what Obsidian reads natively: colour groups per bucket (and per community)
    merged into .obsidian/graph.json, keeping your settings and groups; JSON Canvas maps
    of the communities in meta/canvas/; short links in digest/ rewritten to vault paths.
    Note frontmatter is never changed. `demo` and `consolidate` run it when the vault
    has a .obsidian/ folder. With --preview, an HTML picture of Obsidian's graph view.
    """
    from ..ops import check_graph_preview

    dry_run = call.fields["dry_run"]
    if preview is not None and dry_run:
        raise click.UsageError("--dry-run writes nothing and --preview writes a file: run "
                               "the preview without --dry-run.")
    vault = obj.open()
    request = call.request()
    ws = obj.workspace(vault)
    shown = call.request("graph_preview", out=str(preview)) if preview is not None else None
    if shown is not None:  # a refused file name stops the command before anything is written
        check_graph_preview(ws, shown)
    answer = call.run(ws, request)
    if shown is not None:  # the bridge's answer, with the picture drawn after it
        answer = answer.model_copy(update={"preview": call.run(ws, shown, name="graph_preview")})
    if call.emit(answer):
        return
    data = answer.model_dump(mode="json")
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
