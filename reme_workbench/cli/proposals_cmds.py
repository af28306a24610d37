"""`proposals`: review what the pipelines proposed."""

from __future__ import annotations

import json

import click

from .app import Ctx, cli
from .generate import Call, OperationCommand

_FIELD_SHOWN = 300  # characters of a story field in text output; --json holds it whole


@cli.group()
def proposals():
    """Review proposed changes: list, show (with a diff), accept, reject, revert.

    Pipelines apply confident proposals at once and hold the rest in
    meta/proposals/ for a person. Accepting re-runs the proposal's checks against the
    files as they are now; revert undoes an applied proposal while its files are
    unchanged since.
    """


@proposals.command("list", cls=OperationCommand, operations=("list_proposals",))
def proposals_list(obj: Ctx, call: Call):
    """List proposals, oldest first."""
    found = call.run(obj.workspace(obj.open()))
    if call.emit(found):
        return
    rows = [p.model_dump() for p in found]
    if not rows:
        click.echo("No proposals.")
    for row in rows:
        click.echo(f"{row['id']}  {row['state']:<9} {row['action']:<18} {row['summary']}")


@proposals.command("show", cls=OperationCommand, operations=("show_proposal",))
def proposals_show(obj: Ctx, call: Call):
    """Show one proposal: its story and a unified diff per file."""
    proposal = call.run(obj.workspace(obj.open()))
    diff = proposal.diff
    if call.emit(proposal):
        return
    click.echo(f"{proposal.id}  [{proposal.state}]  {proposal.action}")
    click.echo(proposal.summary)
    if proposal.error:
        click.echo(f"note: {proposal.error}")
    cut = False
    for key, value in proposal.story.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > _FIELD_SHOWN:  # marked, so a cut field is not read as the whole
            text, cut = text[:_FIELD_SHOWN - 1] + "…", True
        click.echo(f"  {key}: {text}")
    if cut:
        click.echo(f"  (a field over {_FIELD_SHOWN} characters is cut at …; "
                   f"`proposals show {proposal.id} --json` shows it whole)")
    click.echo()
    click.echo(diff, nl=False)


def _decided(call: Call, proposal) -> None:
    if call.emit(proposal):
        return
    note = getattr(proposal, "note", None)
    if note and proposal.state == "applied" and not proposal.replanned_as:
        click.echo(note)  # decided already, by another accept: nothing happened now
        return
    click.echo(
        f"{proposal.id} is now {proposal.state}" + (f": {proposal.error}" if proposal.error else "")
    )
    if note and note.lower() not in (proposal.error or "").lower():
        click.echo(note)
    for new in getattr(proposal, "replanned_as", None) or ():
        click.echo(f"{new} waits for you: `reme-workbench proposals show {new}`, then accept or "
                   "reject it.")


@proposals.command("accept", cls=OperationCommand, operations=("accept_proposal",))
@click.option("--edit", "edits", multiple=True, metavar="PATH=FILE",
              help="Your version of one file the proposal writes: the vault path, '=', and "
                   "a file holding the text (UTF-8). Repeatable. The proposal's checks run "
                   "on your text before anything is written.")
def proposals_accept(obj: Ctx, call: Call, edits: tuple[str, ...]):
    """Apply a pending proposal (its checks run again first).

    With --edit, your text replaces what the proposal would write to that file. A
    proposal another accept applied first is answered as applied, and nothing is written
    again.
    """
    vault = obj.open()
    request = call.request(edited=_read_edits(edits) or None)
    _decided(call, call.run(obj.workspace(vault), request))


def _read_edits(edits: tuple[str, ...]) -> dict[str, str]:
    """{vault path: text} from `--edit PATH=FILE` options, each file read as UTF-8."""
    from pathlib import Path

    out: dict[str, str] = {}
    for item in edits:
        path, sep, file = item.partition("=")
        if not sep or not path.strip() or not file.strip():
            raise click.BadParameter(f"{item!r} is not PATH=FILE; give the vault path of a file "
                                     "the proposal writes, '=', and the file holding your text "
                                     "(e.g. digest/wiki/x.md=/tmp/x.md).", param_hint="--edit")
        if path.strip() in out:
            raise click.BadParameter(f"{path.strip()} is edited twice; give one --edit per file.",
                                     param_hint="--edit")
        try:
            out[path.strip()] = Path(file.strip()).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise click.BadParameter(f"cannot read {file.strip()} ({why}); give a UTF-8 text "
                                     "file you can read.", param_hint="--edit") from None
    return out


@proposals.command("reject", cls=OperationCommand, operations=("reject_proposal",))
def proposals_reject(obj: Ctx, call: Call):
    """Reject a pending proposal; nothing is written to the notes."""
    _decided(call, call.run(obj.workspace(obj.open())))


@proposals.command("revert", cls=OperationCommand, operations=("revert_proposal",))
def proposals_revert(obj: Ctx, call: Call):
    """Undo an applied proposal while its files are unchanged since."""
    vault = obj.open()
    obj.require_writable(vault, "proposals revert")
    _decided(call, call.run(obj.workspace(vault)))

