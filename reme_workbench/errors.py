"""The few exception types reme-workbench raises.

Every message says what went wrong *and* what to do about it; the attributes carry
the data a caller needs (paths, failures) so a program need not parse the text.
"""

from __future__ import annotations

__all__ = [
    "RemeError",
    "NoteError",
    "UnsafePathError",
    "NoteExistsError",
    "StaleChangesetError",
    "ChangesetRejectedError",
    "EmbedderMismatchError",
    "NotFoundError",
    "BusyError",
]


class RemeError(Exception):
    """Base class: anything reme-workbench refuses to do, with the fix in the message."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class NotFoundError(RemeError):
    """What the caller named does not exist: a note, a proposal, a job (HTTP 404)."""


class BusyError(RemeError):
    """Another writer holds the vault, or a job is still running: wait and retry (HTTP 409)."""


class NoteError(RemeError):
    """A file cannot be read as a note: bad YAML, binary, not UTF-8, too large."""


class UnsafePathError(RemeError):
    """A path leaves the vault, follows a symlink out, or is not writable by this caller."""


class NoteExistsError(RemeError):
    """A create would overwrite an existing file; pick another slug."""


class StaleChangesetError(RemeError):
    """A file changed since the changeset was planned; re-plan from the current files."""

    def __init__(self, message: str, *, paths: list[str]) -> None:
        super().__init__(message, path=paths[0] if paths else None)
        self.paths = list(paths)


class ChangesetRejectedError(RemeError):
    """A changeset failed one of its checks; nothing was written."""

    def __init__(self, message: str, *, failures: list[tuple[str, str]]) -> None:
        super().__init__(message)
        # (check name, explanation) pairs, in the order the checks ran
        self.failures = list(failures)


class EmbedderMismatchError(RemeError):
    """The index was built with another embedder than the one this command would use.

    Nothing was re-embedded. `stored` and `requested` are the embedders' names (as the
    index records them), `files` and `chunks` how much of the index a re-embed redoes.
    """

    def __init__(
        self, *, stored: str, requested: str, files: int, chunks: int,
        stored_spec: str | None = None, requested_spec: str | None = None,
        stored_dim: int | None = None, requested_dim: int | None = None,
    ) -> None:
        old, new = stored_spec or stored, requested_spec or requested
        shown_old, shown_new = old, new
        if old == new:  # same model name, another vector size
            shown_old, shown_new = f"{old} (dim {stored_dim})", f"{new} (dim {requested_dim})"
        super().__init__(
            f"The index in .reme/ was built with the {shown_old} embedder, but this command "
            f"would use {shown_new}; run `reme-workbench index --embedder {new}` to re-embed "
            f"{chunks:,} chunks ({files:,} files), or pass `--embedder {old}`."
        )
        self.stored = stored
        self.requested = requested
        self.files = files
        self.chunks = chunks
