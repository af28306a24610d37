"""`reme-workbench import`: adopt a person's Obsidian vault into digest/."""

from __future__ import annotations

import click

from .app import Ctx, cli, invoked_as
from .generate import Call, OperationCommand

_SHOWN = 10  # rows of each list in text output; --json and the audit entry hold all


@cli.command("import", cls=OperationCommand, operations=("import_notes",))
def import_cmd(obj: Ctx, call: Call):
    """Adopt the Obsidian vault at SOURCE: its notes become digest notes.

    Every note goes to digest/<bucket>/ in its own folders and under its own name where
    the vault's path rules allow (else a slug; a taken name gets -2), with its
    frontmatter kept and a derived_from:: link to its original, which is kept byte for
    byte — with the attachments — in resource/<today>/<vault name>/. That folder is
    added to Obsidian's Excluded files (.obsidian/app.json, your other settings kept),
    so Obsidian's search and graph show each note once. Drawings (.excalidraw.md),
    templates and canvases stay files there, not notes. Links are resolved the way
    Obsidian resolves them and written as vault paths (alias, heading and embed mark
    kept); one that matches nothing or several files is left as written and listed.
    Hidden folders (.obsidian, .trash, .git) are not imported. One changeset: all of it
    lands, or nothing. The notes' recency starts now, not at their old file times. What
    could not be brought is printed and recorded in audit/<date>/import.md.
    """
    vault = obj.open()
    request = call.request()
    data = call.run(obj.workspace(vault), request)
    if call.emit(data):
        return
    bucket, dry_run = request.bucket, request.dry_run
    verb = "Would import" if dry_run else "Imported"
    click.echo(f"{verb} {len(data.notes)} note(s) into digest/{bucket}/ and "
               f"{len(data.attachments)} attachment(s); {data.links_rewritten} link(s) "
               "written as vault paths.")
    click.echo(f"Originals {'would be' if dry_run else 'are'} kept in {data.folder}/.")
    if data.excluded_in_obsidian:
        click.echo(f"Obsidian: {', '.join(data.excluded_in_obsidian)} {'would be' if dry_run else 'is'} "
                   "under Excluded files (.obsidian/app.json), so search and the graph show "
                   "each note once.")
    for notice in data.notices:
        click.echo(f"Obsidian: {notice}")

    def listed(title: str, rows: list[str]) -> None:
        if not rows:
            return
        click.echo(f"{title} ({len(rows)}):")
        for row in rows[:_SHOWN]:
            click.echo(f"  {row}")
        if len(rows) > _SHOWN:
            click.echo(f"  … and {len(rows) - _SHOWN} more (--json lists them all)")

    listed("Renamed", [f"{n.source} -> {n.path}" for n in data.notes if n.renamed])
    listed("Kept as files, not notes", [f"{k['path']}: {k['why']}" for k in data.kept_as_files])
    listed("Not brought", [f"{s['path']}: {s['why']}" for s in data.skipped])
    listed("Links left as written", [f"{u['source']}:{u['line']}  {u['raw']}  ({u['why']})"
                                     for u in data.unresolved])
    if dry_run:
        click.echo("Dry run: nothing was written.")
    else:
        me = invoked_as()
        click.echo(f"Next: `{me} consolidate` finds its communities; `{me} index` makes it "
                   "searchable.")
