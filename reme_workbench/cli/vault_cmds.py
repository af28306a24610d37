"""Commands over the vault core: init, status, links, graph, health, rename."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Ctx, cli, invoked_as, vault_relative
from .generate import Call, OperationCommand


@cli.command(cls=OperationCommand, operations=("init",))
def init(obj: Ctx, call: Call):
    """Create a vault at PATH (or add the missing layers to an existing folder).

    Creates resource/, daily/, digest/{procedure,personal,wiki}/, meta/, audit/, the
    review notebooks in workbench/ and a .gitignore entry for the .reme/ cache. Existing
    files are never overwritten.
    Without PATH, the vault that --vault names (default: the current folder).
    """
    path = Path(call.fields["path"] or obj.vault_path)
    done = call.run(None, call.request(path=str(path)))
    if call.emit(done):
        return
    click.echo(f"Vault ready at {path} ({len(done.created)} new files and folders).")
    if call.fields["sample"]:
        click.echo("Sample material copied into daily/ and resource/.")
    click.echo(f"Next: {invoked_as()} --vault {path} status")


@cli.command(cls=OperationCommand, operations=("status",))
def status(obj: Ctx, call: Call):
    """Summarise the vault: files per layer, digest notes per bucket, unreadable files."""
    vault = obj.open()
    data = call.run(obj.workspace(vault))
    if call.emit(data):
        return
    click.echo(f"Vault {data.vault}")
    for layer, count in data.files.items():
        click.echo(f"  {layer + '/':<10} {count:>6} files")
    click.echo("  digest notes: " + ", ".join(f"{b} {n}" for b, n in data.digest_notes.items()))
    obj.warn_problems(vault)


@cli.command(cls=OperationCommand, operations=("recover",))
def recover(obj: Ctx, call: Call):
    """Settle a change that was interrupted half written (a crash, a full disk, a folder
    made read-only): finish it, or undo it when someone edited its files since.

    Every command tries this when it opens the vault; run it by hand when one says a change
    could be neither finished nor undone, once the cause is fixed. With --set-aside, the
    notes stay exactly as they are and the change's files go to
    audit/<date>/set_aside-<id>.md, so nothing is lost either way.
    """
    # the operation opens the vault itself and reports what opening it settled
    data = call.run(obj.workspace())
    if call.emit(data):
        return
    for message in data.messages:
        click.echo(message)
    if not data.messages:
        click.echo("Nothing was interrupted: every change is whole.")



@cli.command(cls=OperationCommand, operations=("links",))
def links(obj: Ctx, call: Call):
    """List the wikilinks of PATH (vault-relative, or a path inside the vault).

    JSON: a list of {target, alias, predicate, embed, anchor, line, column}.
    """
    vault = obj.open()
    request = call.request(path=vault_relative(vault.root, call.fields["path"]))
    found = call.run(obj.workspace(vault), request)
    if call.emit(found):
        return
    for link in found:
        extra = "".join(
            [
                f" ({link.predicate}::)" if link.predicate else "",
                f" #{link.anchor}" if link.anchor else "",
                f" |{link.alias}" if link.alias else "",
                " [embed]" if link.embed else "",
            ]
        )
        click.echo(f"{link.line}:{link.column}\t{link.target}{extra}")


@cli.command(cls=OperationCommand, operations=("note_context",))
def note(obj: Ctx, call: Call):
    """Show a digest note in its surroundings: name, description, the notes it links to
    and that link to it (with predicates), the material it came from, its community and
    that community's hub, its recency score and whether it is archived.

    PATH is vault-relative (digest/wiki/<name>.md) or a path to the file. Reads only;
    the same answer as POST /note of `serve` and the note_context tool of `mcp`.
    """
    vault = obj.open()
    request = call.request(path=vault_relative(vault.root, call.fields["path"]))
    context = call.run(obj.workspace(vault), request)
    if call.emit(context):
        return
    click.echo(f"{context.path}")
    click.echo(f"  name:        {context.name or '-'}")
    click.echo(f"  description: {context.description or '-'}")
    if context.community is None:
        click.echo("  community:   - (run `reme-workbench consolidate` to compute them)")
    else:
        hub = f", hub {context.hub}" if context.hub else ", no hub note"
        click.echo(f"  community:   {context.community} ({context.community_size} notes{hub})")
    recency = "-" if context.recency is None else f"{context.recency:.2f}"
    click.echo(f"  recency:     {recency}{'  (archived)' if context.archived else ''}")
    for title, rows in (("links to", context.outbound), ("linked from", context.inbound),
                        ("came from", context.provenance)):
        click.echo(f"  {title} ({len(rows)}):")
        for row in rows:
            click.echo(f"    {row.path}" + (f"  ({row.predicate}::)" if row.predicate else ""))


@cli.command(cls=OperationCommand, operations=("graph",))
def graph(obj: Ctx, call: Call):
    """Describe the digest link graph: nodes and edges per bucket, dangling links,
    isolated notes and the most linked-to notes."""
    vault = obj.open()
    answer = call.run(obj.workspace(vault))
    obj.warn_problems(vault)
    if call.emit(answer):
        return
    stats = answer.model_dump(mode="json")
    click.echo(f"{stats['nodes']} notes, {stats['edges']} links between them")
    for bucket, row in stats["buckets"].items():
        click.echo(f"  {bucket:<10} {row['nodes']:>5} notes  {row['edges_out']:>6} outbound links")
    click.echo(f"dangling links: {len(stats['dangling_links'])}")
    click.echo(f"isolated notes: {len(stats['isolated_nodes'])}")
    for row in stats["top_inbound"]:
        click.echo(f"  {row['inbound']:>4} <- {row['path']}")


_SHOWN = 20  # rows of each health list in text output; --json and the report hold all


@cli.command(cls=OperationCommand, operations=("health",))
@click.option(
    "--check",
    "check_flag",
    is_flag=True,
    help="Exit with status 1 when a D1 or D10 problem is found (after --fix), as linters do.",
)
def health(obj: Ctx, call: Call, check_flag: bool):
    """Check links: D1 broken links, D10 broken or missing provenance.

    Every link is resolved the way Obsidian resolves it first: a short or relative link
    that names one file is not broken (it is listed as a short link), one that names
    several is ambiguous and left for you, and one that names nothing and never did is
    a note you have not written yet (listed, never touched). D1 is a link that resolved
    at the last run and no longer does; it covers digest notes and daily logs; D10
    covers digest notes. Writes audit/<date>/health_links.md with links to the offenders.
    --fix writes no note: it makes a proposal that writes the short links in digest/ as
    vault paths and, per note, one that turns each D1 link into its text (review
    them with `proposals show`, then accept or reject); a fix rewrites lines you wrote,
    so it waits for you even when [proposals] auto_apply names it. daily/ is source
    material and is only reported; D10 is only reported, since a broken provenance chain
    needs a person. The exit status is 0 whatever is found, unless --check is given.
    """
    vault = obj.open()
    data = call.run(obj.workspace(vault))
    fix = call.fields["fix"]
    for line in data.notices:
        obj.warn(f"{line} (--no-report skips it)")
    obj.warn_problems(vault)
    failed = check_flag and not data.ok
    if call.emit(data):
        click.get_current_context().exit(1 if failed else 0)

    def listed(title: str, rows: list[str]) -> None:
        click.echo(f"{title} {len(rows)}")
        for row in rows[:_SHOWN]:
            click.echo(f"  {row}")
        if len(rows) > _SHOWN:
            click.echo(f"  … and {len(rows) - _SHOWN} more (--json lists them all"
                       + (f"; so does {data.report})" if data.report else ")"))

    def where(b) -> str:
        return f"{b.source}:{b.line}:{b.column}  {b.raw}"

    listed("D1 broken links:       ", [f"{where(b)}  ({b.reason})" for b in data.broken_links])
    listed("D10 broken provenance: ", [f"{where(b)}  ({b.reason})" for b in data.broken_provenance])
    listed("D10 missing provenance:", list(data.missing_provenance))
    listed("Ambiguous links:       ", [f"{where(b)}  (could be {', '.join(b.candidates)})"
                                        for b in data.ambiguous_links])
    if data.unwritten_links:
        notes = len({u.source for u in data.unwritten_links})
        click.echo(f"Not yet written:        {len(data.unwritten_links)} link(s) to notes not yet "
                   f"written, in {notes} file(s): yours, nothing is proposed (--json lists them)")
    if data.short_links:
        notes = len({s.source for s in data.short_links})
        click.echo(f"Short links:            {len(data.short_links)} in {notes} file(s) resolve "
                   "as Obsidian reads them" + ("" if fix else "; --fix proposes writing "
                                                               "those in digest/ as vault paths"))
    if data.normalize:
        n = data.normalize
        if n.state == "applied":
            click.echo(f"Rewrote {n.links} short link(s) to vault paths ({n.proposal}; "
                       f"`reme-workbench proposals revert {n.proposal}` undoes it).")
        else:
            said = {"pending": "waits for you", "already pending": "already waits for you"}
            click.echo(f"{n.links} short link(s) in {n.notes} note(s): proposal {n.proposal}, "
                       f"writing them as vault paths, {said.get(n.state, n.state)} — "
                       f"`reme-workbench proposals show {n.proposal}`, then accept or reject it.")
    if data.unlink:
        u = data.unlink
        if u.state == "applied":
            click.echo(f"Replaced {data.fixed} broken link(s) by their text ({u.proposal}; "
                       f"`reme-workbench proposals revert {u.proposal}` undoes it).")
        else:
            ids = ", ".join(u.proposals or [u.proposal])
            click.echo(f"{u.links} broken link(s) in {u.notes} note(s): proposal(s) {ids} "
                       f"(one per note) {'already wait' if u.state == 'already pending' else u.state}"
                       " — `reme-workbench proposals show <id>`, then accept or reject each.")
    if fix and data.left_in_daily:
        click.echo(f"Left {data.left_in_daily} broken link(s) in daily/ as they are: source "
                   "material is not rewritten.")
    if data.report:
        click.echo(f"Report: {data.report}")
    if failed:
        click.get_current_context().exit(1)


@cli.command(cls=OperationCommand, operations=("rename",))
def rename(obj: Ctx, call: Call):
    """Move note OLD to NEW (vault-relative paths) and retarget every inbound link.

    Every link in digest/ and daily/ that Obsidian resolves to OLD — a short name in any
    case, a path with or without .md, a relative path, with heading, alias, embed mark,
    block reference or predicate — is rewritten to NEW, keeping its form where that form
    still names NEW and its alias, anchor, embed mark and predicate; the moved note's
    own relative links keep pointing where they pointed. resource/ is immutable and left
    alone. A link that could mean OLD or another note, or that NEW would make name
    another file, stops the rename before anything is written, named by file and line.
    The move, the rewrites and the audit line land together as one atomic changeset.

    Sources are immutable: rename moves digest notes within digest/. It is the one
    command that writes daily/ — the links in daily logs to a renamed note — and, with
    --move-source, moves a daily log within daily/, retargeting the provenance
    (derived_from::) links of the notes made from it. resource/ files never move, and
    nothing moves between daily/ and digest/.
    """
    plan = call.run(obj.workspace(obj.open()))
    if call.emit(plan):
        return
    verb = "Would move" if plan.dry_run else "Moved"
    click.echo(f"{verb} {plan.old} -> {plan.new}")
    for path, count in sorted(plan.links_rewritten.items()):
        click.echo(f"  {count} link(s) in {path}")
    for path, count in sorted(plan.left_alone.items()):
        click.echo(f"  left alone: {count} link(s) in {path} (resource/ is immutable)")
    if plan.meta:
        click.echo(f"  its community, recency and queue entries follow it ({', '.join(plan.meta)})")
    if plan.obsidian:
        click.echo(f"  Obsidian's views updated: {', '.join(plan.obsidian)}")

