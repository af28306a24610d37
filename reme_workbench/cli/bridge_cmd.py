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
    from obsidian_bridge import run_bridge

    vault = obj.open()
    if not dry_run:
        obj.require_writable(vault, "bridge")
    report = run_bridge(vault, communities=communities, canvas=canvas,
                        per_community=per_community, normalize=normalize, dry_run=dry_run)
    if wants_json(as_json):
        emit_json(report.to_json())
        return
    for line in report.notices:
        obj.warn(line, "note")
    if report.graph:
        click.echo(f"{report.graph.path}: {report.graph.message}")
    if report.canvas:
        written = ", ".join(report.canvas.written) or "up to date"
        click.echo(f"canvas: {report.canvas.communities} communities, {report.canvas.notes} notes, "
                   f"{report.canvas.links} links; {written}")
    if report.normalize:
        n = report.normalize
        click.echo(f"links: {len(n.rewritten)} rewritten in {len(n.files)} note(s)"
                   + (" (dry run)" if dry_run else ""))
        for c in n.ambiguous:
            click.echo(f"  ambiguous, left as written: {c.path}:{c.line} {c.before} "
                       f"(could be {', '.join(c.candidates)})")
        for c in n.unresolved:
            click.echo(f"  names no file, left as written: {c.path}:{c.line} {c.before}")
