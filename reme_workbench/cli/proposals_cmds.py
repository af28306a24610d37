"""`proposals`: review what the pipelines proposed."""

from __future__ import annotations

import json

import click

from .app import Ctx, cli, emit_json, output_options, wants_json

_FIELD_SHOWN = 300  # characters of a story field in text output; --json holds it whole


@cli.group()
def proposals():
    """Review proposed changes: list, show (with a diff), accept, reject, revert.

    Pipelines apply confident proposals at once and hold the rest in
    meta/proposals/ for a person. Accepting re-runs the proposal's checks against the
    files as they are now; revert undoes an applied proposal while its files are
    unchanged since.
    """


@proposals.command("list")
@click.option(
    "--state", help="Only proposals in this state (pending, applied, rejected, stale, reverted)."
)
@output_options
@click.pass_obj
def proposals_list(obj: Ctx, state: str | None, as_json):
    """List proposals, oldest first."""
    from ..ops import ProposalsRequest, build_request, list_proposals

    ws = obj.workspace(obj.open())
    rows = [p.model_dump() for p in list_proposals(ws, build_request(ProposalsRequest, state=state))]
    if wants_json(as_json):
        emit_json(rows)
        return
    if not rows:
        click.echo("No proposals.")
    for row in rows:
        click.echo(f"{row['id']}  {row['state']:<8} {row['action']:<18} {row['summary']}")


@proposals.command("show")
@click.argument("proposal_id")
@output_options
@click.pass_obj
def proposals_show(obj: Ctx, proposal_id: str, as_json):
    """Show one proposal: its story and a unified diff per file."""
    from ..ops import show_proposal

    proposal = show_proposal(obj.workspace(obj.open()), proposal_id)
    diff = proposal.diff
    if wants_json(as_json):
        emit_json(proposal.model_dump())
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


def _decided(obj: Ctx, proposal, as_json) -> None:
    if wants_json(as_json):
        emit_json(proposal.model_dump())
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


@proposals.command("accept")
@click.argument("proposal_id")
@click.option("--edit", "edits", multiple=True, metavar="PATH=FILE",
              help="Your version of one file the proposal writes: the vault path, '=', and "
                   "a file holding the text (UTF-8). Repeatable. The proposal's checks run "
                   "on your text before anything is written.")
@output_options
@click.pass_obj
def proposals_accept(obj: Ctx, proposal_id: str, edits: tuple[str, ...], as_json):
    """Apply a pending proposal (its checks run again first).

    With --edit, your text replaces what the proposal would write to that file. A
    proposal another accept applied first is answered as applied, and nothing is written
    again.
    """
    from ..ops import AcceptRequest, accept_proposal, build_request

    vault = obj.open()
    edited = _read_edits(edits) or None
    request = build_request(AcceptRequest, id=proposal_id, edited=edited)
    _decided(obj, accept_proposal(obj.workspace(vault), request), as_json)


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


@proposals.command("reject")
@click.argument("proposal_id")
@click.option("--reason", default="", help="Why, kept in the proposal.")
@output_options
@click.pass_obj
def proposals_reject(obj: Ctx, proposal_id: str, reason: str, as_json):
    """Reject a pending proposal; nothing is written to the notes."""
    from ..ops import RejectRequest, build_request, reject_proposal

    vault = obj.open()
    request = build_request(RejectRequest, id=proposal_id, reason=reason)
    _decided(obj, reject_proposal(obj.workspace(vault), request), as_json)


@proposals.command("revert")
@click.argument("proposal_id")
@output_options
@click.pass_obj
def proposals_revert(obj: Ctx, proposal_id: str, as_json):
    """Undo an applied proposal while its files are unchanged since."""
    from ..ops import ProposalRef, build_request, revert_proposal

    vault = obj.open()
    obj.require_writable(vault, "proposals revert")
    _decided(obj, revert_proposal(obj.workspace(vault), build_request(ProposalRef, id=proposal_id)),
             as_json)

