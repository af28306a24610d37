"""Commands over the vault core: init, status, links, graph, health, rename."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Ctx, cli, emit_json, invoked_as, output_options, vault_relative, wants_json


@cli.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--sample", is_flag=True, help="Also copy the bundled sample daily/ and resource/ material."
)
@output_options
@click.pass_obj
def init(obj: Ctx, path: Path | None, sample: bool, as_json):
    """Create a vault at PATH (or add the missing layers to an existing folder).

    Creates resource/, daily/, digest/{procedure,personal,wiki}/, meta/, audit/, the
    review notebooks in workbench/ and a .gitignore entry for the .reme/ cache. Existing
    files are never overwritten.
    Without PATH, the vault that --vault names (default: the current folder).
    """
    from ..ops import InitRequest, build_request, init_vault

    path = obj.vault_path if path is None else path
    created = init_vault(build_request(InitRequest, path=str(path), sample=sample)).created
    if wants_json(as_json):
        emit_json({"vault": str(path), "created": created})
        return
    click.echo(f"Vault ready at {path} ({len(created)} new files and folders).")
    if sample:
        click.echo("Sample material copied into daily/ and resource/.")
    click.echo(f"Next: {invoked_as()} --vault {path} status")


@cli.command()
@output_options
@click.pass_obj
def status(obj: Ctx, as_json):
    """Summarise the vault: files per layer, digest notes per bucket, unreadable files."""
    from ..ops import status as describe

    vault = obj.open()
    data = describe(obj.workspace(vault))
    if wants_json(as_json):
        emit_json(data.model_dump(mode="json"))
        return
    click.echo(f"Vault {data.vault}")
    for layer, count in data.files.items():
        click.echo(f"  {layer + '/':<10} {count:>6} files")
    click.echo("  digest notes: " + ", ".join(f"{b} {n}" for b, n in data.digest_notes.items()))
    obj.warn_problems(vault)


@cli.command()
@click.option("--set-aside", "set_aside", is_flag=True,
              help="Give up on the interrupted change: leave every note as it is now and keep "
                   "the change's files under audit/.")
@output_options
@click.pass_obj
def recover(obj: Ctx, set_aside: bool, as_json):
    """Settle a change that was interrupted half written (a crash, a full disk, a folder
    made read-only): finish it, or undo it when someone edited its files since.

    Every command tries this when it opens the vault; run it by hand when one says a change
    could be neither finished nor undone, once the cause is fixed. With --set-aside, the
    notes stay exactly as they are and the change's files go to
    audit/<date>/set_aside-<id>.md, so nothing is lost either way.
    """
    from ..ops import RecoverRequest, build_request
    from ..ops import recover as settle

    # the operation opens the vault itself and reports what opening it settled
    data = settle(obj.workspace(), build_request(RecoverRequest, set_aside=set_aside))
    if wants_json(as_json):
        emit_json(data.model_dump(mode="json"))
        return
    for message in data.messages:
        click.echo(message)
    if not data.messages:
        click.echo("Nothing was interrupted: every change is whole.")



@cli.command()
@click.argument("file")
@output_options
@click.pass_obj
def links(obj: Ctx, file: str, as_json):
    """List the wikilinks of FILE (vault-relative, or a path inside the vault).

    JSON: a list of {target, alias, predicate, embed, anchor, line, column}.
    """
    from ..ops import LinksRequest, build_request
    from ..ops import links as links_of

    vault = obj.open()
    request = build_request(LinksRequest, path=vault_relative(vault.root, file))
    found = links_of(obj.workspace(vault), request)
    if wants_json(as_json):
        emit_json([link.model_dump(mode="json") for link in found])
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


@cli.command()
@click.argument("path")
@output_options
@click.pass_obj
def note(obj: Ctx, path: str, as_json):
    """Show a digest note in its surroundings: name, description, the notes it links to
    and that link to it (with predicates), the material it came from, its community and
    that community's hub, its recency score and whether it is archived.

    PATH is vault-relative (digest/wiki/<name>.md) or a path to the file. Reads only;
    the same answer as POST /note of `serve` and the note_context tool of `mcp`.
    """
    from ..ops import NoteRequest, build_request, note_context

    vault = obj.open()
    request = build_request(NoteRequest, path=vault_relative(vault.root, path))
    context = note_context(obj.workspace(vault), request)
    if wants_json(as_json):
        emit_json(context.model_dump(mode="json"))
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


@cli.command()
@click.option("--top", default=10, show_default=True, help="How many top-inbound notes to list.")
@output_options
@click.pass_obj
def graph(obj: Ctx, top: int, as_json):
    """Describe the digest link graph: nodes and edges per bucket, dangling links,
    isolated notes and the most linked-to notes."""
    from ..ops import GraphRequest, build_request
    from ..ops import graph as describe

    vault = obj.open()
    stats = describe(obj.workspace(vault), build_request(GraphRequest, top=top)).model_dump(mode="json")
    obj.warn_problems(vault)
    if wants_json(as_json):
        emit_json(stats)
        return
    click.echo(f"{stats['nodes']} notes, {stats['edges']} links between them")
    for bucket, row in stats["buckets"].items():
        click.echo(f"  {bucket:<10} {row['nodes']:>5} notes  {row['edges_out']:>6} outbound links")
    click.echo(f"dangling links: {len(stats['dangling_links'])}")
    click.echo(f"isolated notes: {len(stats['isolated_nodes'])}")
    for row in stats["top_inbound"]:
        click.echo(f"  {row['inbound']:>4} <- {row['path']}")


_SHOWN = 20  # rows of each health list in text output; --json and the report hold all


@cli.command()
@click.option(
    "--fix",
    is_flag=True,
    help="Propose fixes for D1 in digest/: short links Obsidian resolves written as vault "
    "paths (a health.normalize proposal; nothing is lost) and links that resolve to nothing "
    "replaced by their text (a health.unlink proposal). Both wait for you: they rewrite "
    "your lines.",
)
@click.option("--no-report", is_flag=True, help="Write nothing: neither audit/<date>/health_links.md nor the record of the links that resolve now (meta/resolved_links.json, which tells a link that breaks later from one never written).")
@click.option(
    "--check",
    "check_flag",
    is_flag=True,
    help="Exit with status 1 when a D1 or D10 problem is found (after --fix), as linters do.",
)
@output_options
@click.pass_obj
def health(obj: Ctx, fix: bool, no_report: bool, check_flag: bool, as_json):
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
    from ..ops import HealthRequest
    from ..ops import health as check

    vault = obj.open()
    data = check(obj.workspace(vault), HealthRequest(fix=fix, report=not no_report))
    for line in data.notices:
        obj.warn(f"{line} (--no-report skips it)")
    obj.warn_problems(vault)
    failed = check_flag and not data.ok
    if wants_json(as_json):
        emit_json(data.model_dump(mode="json"))
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


@cli.command()
@click.argument("old")
@click.argument("new")
@click.option("--dry-run", is_flag=True, help="Show what would change and write nothing.")
@click.option(
    "--move-source",
    is_flag=True,
    help="Allow OLD to be a daily log, moved within daily/ (its provenance links follow).",
)
@output_options
@click.pass_obj
def rename(obj: Ctx, old: str, new: str, dry_run: bool, move_source: bool, as_json):
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
    from ..ops import RenameRequest, build_request
    from ..ops import rename as move

    vault = obj.open()
    plan = move(obj.workspace(vault), build_request(RenameRequest, old=old, new=new,
                                                     dry_run=dry_run, move_source=move_source))
    if wants_json(as_json):
        emit_json(plan.model_dump(mode="json"))
        return
    verb = "Would move" if dry_run else "Moved"
    click.echo(f"{verb} {plan.old} -> {plan.new}")
    for path, count in sorted(plan.links_rewritten.items()):
        click.echo(f"  {count} link(s) in {path}")
    for path, count in sorted(plan.left_alone.items()):
        click.echo(f"  left alone: {count} link(s) in {path} (resource/ is immutable)")
    if plan.meta:
        click.echo(f"  its community, recency and queue entries follow it ({', '.join(plan.meta)})")
    if plan.obsidian:
        click.echo(f"  Obsidian's views updated: {', '.join(plan.obsidian)}")

