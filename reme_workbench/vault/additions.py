"""Does a change only add? Every line of the old text kept, byte for byte, in order.

What is applied without a person must not rewrite what anyone wrote (docs/spec.md
§3.7.3): a new file is an addition; an edit is one when each line of the old bytes is a
line of the new bytes, in the same order, with lines in between or after it allowed.
Lines are split at `\\n` only, so a `\\r` and trailing spaces are part of a line and a
changed one counts; a last line without its newline is kept when the new text has it
followed by one (appending after it needs that newline). Pure.
"""

from __future__ import annotations

from difflib import SequenceMatcher

__all__ = ["only_adds", "lines_not_kept"]


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":  # the newline ending the last line starts no line
        lines.pop()
    return lines


def only_adds(old: bytes | None, new: bytes | None) -> bool:
    """True when `new` keeps every line of `old` byte for byte, in order (None: no file)."""
    return lines_not_kept(old, new) == 0


def lines_not_kept(old: bytes | None, new: bytes | None) -> int:
    """How many lines of `old` are not in `new` in order: 0 when the change only adds;
    every line of `old` when `new` is None (the file is deleted)."""
    before = _lines(old or b"")
    if new is None or not before:
        return len(before)
    after = _lines(new)
    at = 0
    for line in before:  # greedy: the earliest match leaves the most room for the rest
        while at < len(after) and after[at] != line:
            at += 1
        if at == len(after):
            break
        at += 1
    else:
        return 0
    # not a pure addition: count what a longest common run of lines leaves out, for the
    # message ("rewrites 2 lines"); at least one, since the greedy pass found a gap
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    return max(len(before) - kept, 1)
