"""`demo` (the main job: the sample's four weeks) and `workbench` (notebooks + JupyterLab)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .app import Ctx, cli, emit_json, invoked_as, output_options, wants_json


@cli.command()
@click.argument("path", required=False, type=click.Path(path_type=Path), default="reme-demo")
@click.option("--embedder", help="minilm (the demo's default: about 30 s on 2 idle cores, "
              "measured by benchmarks/bench_demo.py), e5 (multilingual: about 75 s), auto (e5 "
              "when installed), hashing (tests only) or litellm:<model>. The demo vault's index "
              "keeps it.")
@output_options
@click.pass_obj
def demo(obj: Ctx, path: Path, embedder, as_json):
    """Build the demo vault at PATH (default ./reme-demo): the bundled sample's four weeks
    replayed in order — each week's material dreamt with the offline brain, then
    consolidated as the weekly schedule would at the week's end — and the review
    notebooks placed in PATH/workbench/. No key and no network are needed. Prints what
    there is to review and where to look next. PATH must be new or an empty folder, or a
    demo stopped by Ctrl-C: it goes on from the weeks that demo finished.
    """
    from ..ops import build_demo

    with obj.progress() as bar:
        report = build_demo(path, embedder=embedder, progress=bar.steps)
    if wants_json(as_json):
        emit_json(report.to_json())
        return
    click.echo(f"Demo vault at {path} ({report.embedder} embedder, {report.seconds:.0f} s).")
    if report.extra.get("kept"):  # written in the demo while it was stopped: not lost, moved
        click.echo("Kept aside, not lost (files the stopped week had not written, yours among them): "
                   + ", ".join(report.extra["kept"]))
    for w in report.weeks:
        click.echo(f"  week {w.first:%m-%d}–{w.last:%m-%d}: {w.materials} files dreamt, "
                   f"{w.created} notes created, {w.updated} updated")
    for label, counts in (("created", report.created), ("updated", report.updated),
                          ("in the digest now", report.notes)):
        click.echo(f"Notes {label}: " + ", ".join(f"{b} {n}" for b, n in counts.items()))
    click.echo(f"Communities: {report.communities}")
    waiting = ", ".join(f"{k} {v}" for k, v in report.waiting.items()) or "none"
    click.echo(f"Proposals waiting for you: {waiting}")
    me = invoked_as()  # as typed: after the README's set-up that is .venv/bin/reme-workbench
    click.echo("Next:")
    click.echo(f"  {me} workbench {path}     review them in JupyterLab "
               f"({len(report.notebooks)} notebooks in {path}/workbench/)")
    # the pending ones: a bare list opens with the many applied at once by dream
    click.echo(f"  {me} --vault {path} proposals list --state pending")
    click.echo(f"  open {path} as a vault in Obsidian (graph colours per bucket and community; "
               f"the communities map: meta/canvas/communities.canvas)")


@cli.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--refresh", is_flag=True,
              help="Replace notebooks you edited with the package's (your copy is saved beside them).")
@click.option("--no-browser", is_flag=True, help="Start JupyterLab without opening a browser.")
@click.option("--port", type=int, default=0, show_default="a free port",
              help="The port JupyterLab listens on (127.0.0.1 only).")
@click.option("--place-only", is_flag=True, help="Update the notebooks and stop; do not start JupyterLab.")
@click.pass_obj
def workbench(obj: Ctx, path: Path | None, refresh, no_browser, port, place_only):
    """Update the review notebooks in PATH/workbench/ from the package's masters (a copy
    you edited is kept unless --refresh) and start JupyterLab on 127.0.0.1 at the vault.
    PATH defaults to --vault (or the current folder). One Ctrl-C stops it.
    """
    from ..errors import RemeError
    from ..ops import place_notebooks

    root = obj.vault_path if path is None else path
    obj.vault_path = root
    vault = obj.open()  # refuses a folder that is not a vault, with the fix
    for line in place_notebooks(obj.workspace(vault), refresh=refresh) or ["notebooks up to date"]:
        click.echo(f"workbench/: {line}")
    if place_only:
        return
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        raise RemeError("JupyterLab is not installed: `pip install 'reme-workbench[workbench]'`, "
                        "then run this again.") from None
    cmd = [sys.executable, "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", f"--ServerApp.root_dir={Path(root).resolve()}",
           "--LabApp.default_url=/lab/tree/workbench/01_dream_review.ipynb",
           # one Ctrl-C stops it, as the help says: else Jupyter asks "Shut down this
           # Jupyter server (y/[n])?" on a terminal and carries on after 5 s of no answer
           "--ServerApp.answer_yes=True"]
    if no_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # a container's root: Jupyter refuses it otherwise
        cmd.append("--ServerApp.allow_root=True")
        click.echo("Running as root: JupyterLab is started with allow_root (it listens on "
                   "127.0.0.1 only).", err=True)
    click.echo("Starting JupyterLab on 127.0.0.1 (Ctrl-C stops it): " + " ".join(cmd[2:]))
    sys.stdout.flush()
    # JupyterLab takes this process's place: Ctrl-C, a signal or a service manager stop it
    # directly, and no server is left running behind an exited command
    os.execv(sys.executable, cmd)
