"""Health checks D1 and D10 (docs/spec.md §7.5), their Obsidian report, and the D1 fix.

* D1 — a link in a digest note (embeds included) to a path that does not exist.
* D10 — provenance: a `derived_from::` link into daily/ or resource/ that does not
  resolve (broken), or a digest note with no such link at all (missing).

D1 is fixed in place through a changeset (each broken link becomes its alias or target
text); D10 breaks an invariant and is only reported: a person decides.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import NoteError, UnsafePathError
from .layout import is_digest_note, normalize_rel, resolve_inside
from .links import (
    Link,
    format_link,
    is_provenance,
    parse_links,
    replace_link,
)
from .note import MAX_NOTE_BYTES, decode_note_bytes
from .scan import VaultScan
from .store import AuditEntry, Changeset, CheckContext, Edit, NamedCheck, Store

__all__ = [
    "BrokenLink",
    "HealthReport",
    "check_health",
    "render_health_markdown",
    "plan_link_fixes",
]

# `![[img.png|300]]` / `|300x200`: Obsidian's embed size, not text worth keeping.
_EMBED_SIZE_RE = re.compile(r"\d+(x\d+)?")


@dataclass(frozen=True)
class BrokenLink:
    source: str
    target: str
    line: int
    column: int
    raw: str
    predicate: str | None
    reason: str  # "no such file", "points outside the vault", ...


@dataclass(frozen=True)
class HealthReport:
    broken_links: tuple[BrokenLink, ...]  # D1 in digest/ and daily/ (provenance links are D10)
    broken_provenance: tuple[BrokenLink, ...]  # D10: derived_from:: into sources, unresolved
    missing_provenance: tuple[str, ...]  # D10: digest notes with no derived_from:: source link

    def to_json(self) -> dict:
        return {
            "broken_links": [asdict(b) for b in self.broken_links],
            "broken_provenance": [asdict(b) for b in self.broken_provenance],
            "missing_provenance": list(self.missing_provenance),
        }

    @property
    def ok(self) -> bool:
        return not (self.broken_links or self.broken_provenance or self.missing_provenance)


class _Reasons:
    """Why a target does not resolve, with a hint when a file of that name exists."""

    def __init__(self, scan: VaultScan) -> None:
        self.scan = scan
        self._by_name: dict[str, list[str]] | None = None

    def __call__(self, target: str) -> str:
        try:
            rel = normalize_rel(target)
        except UnsafePathError:
            parts = target.split("/")
            if target.startswith("/") or ".." in parts or (len(target) > 1 and target[1] == ":"):
                return "points outside the vault"
            return "not a valid vault path"
        try:
            full = resolve_inside(self.scan.root, rel)
        except UnsafePathError:
            return "goes through a symlink, which reme-workbench does not follow"
        try:
            if not stat.S_ISREG(os.lstat(full).st_mode):
                return "is a folder, not a file"
        except OSError:
            pass
        guess = self._guess(rel)
        if guess:
            return f"no such file (links are vault paths; did you mean {guess}?)"
        return "no such file"

    def _guess(self, rel: str) -> str | None:
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for path in self.scan.records:
                self._by_name[posixpath.basename(path)].append(path)
        base = posixpath.basename(rel)
        found = self._by_name.get(base) or self._by_name.get(base + ".md") or []
        return found[0] if len(found) == 1 else None


def _checked_source(path: str) -> bool:
    # D1 covers the agent's daily logs too (their links feed dream); D10 is digest-only.
    return is_digest_note(path) or (path.startswith("daily/") and path.endswith(".md"))


def check_health(scan: VaultScan, paths: Iterable[str] | None = None) -> HealthReport:
    """Run D1 over digest notes and daily logs and D10 over digest notes, or only over
    `paths` (inline after a write)."""
    records = scan.records
    if paths is None:
        sources = sorted(p for p in records if _checked_source(p))
    else:
        sources = sorted({p for p in paths if p in records and _checked_source(p)})
    reason = _Reasons(scan)
    broken: list[BrokenLink] = []
    broken_prov: list[BrokenLink] = []
    missing: list[str] = []
    for source in sources:
        has_provenance = False
        for link in records[source].links:
            if not link.target:  # `[[#heading]]` points into the note itself
                continue
            provenance = is_provenance(link)
            has_provenance = has_provenance or provenance
            if scan.exists(link.target):
                continue
            found = BrokenLink(
                source, link.target, link.line, link.column, link.raw, link.predicate,
                reason(link.target),
            )
            (broken_prov if provenance else broken).append(found)
        record = records[source]
        # an unreadable file is reported as a problem, not as a note without provenance
        if not has_provenance and is_digest_note(source) and record.readable:
            missing.append(source)
    return HealthReport(tuple(broken), tuple(broken_prov), tuple(missing))


# --- the report --------------------------------------------------------------------------


def _code(text: str) -> str:
    """`text` as an inline code span, however many backticks it holds."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _note_link(path: str) -> str:
    try:
        return format_link(path)
    except ValueError:  # a name holding [ ] | # cannot be a wikilink target
        return _code(path)


def _broken_lines(items: Iterable[BrokenLink]) -> list[str]:
    return [
        f"- {_note_link(b.source)} {b.line}:{b.column} — {_code(b.raw)}: {b.reason}"
        for b in items
    ]


def render_health_markdown(report: HealthReport, *, date: str) -> str:
    """The `audit/<date>/health_*.md` page: one section per check, a bullet per offender."""
    d1, d10b, d10m = report.broken_links, report.broken_provenance, report.missing_provenance
    out = [f"# Vault health {date}", ""]
    if report.ok:
        out += ["All clear: no broken links, every digest note keeps its provenance.", ""]
    else:
        out += [
            f"{len(d1)} broken link(s) (D1), {len(d10b)} broken provenance link(s) and "
            f"{len(d10m)} note(s) without provenance (D10). The checks are described in docs/spec.md §7.5 of reme-workbench.",
            "",
        ]
    out += [
        f"## D1 broken links ({len(d1)})",
        "",
        "Links in digest notes to files that do not exist. `reme-workbench health --fix` "
        "replaces each with its alias (or its target text) and records it in audit/.",
        "",
        *(_broken_lines(d1) or ["None."]),
        "",
        f"## D10 broken provenance ({len(d10b)})",
        "",
        "`derived_from::` links whose daily/ or resource/ source cannot be reached. The "
        "provenance invariant is broken: a person must restore the source or correct the "
        "link. This is never fixed automatically.",
        "",
        *(_broken_lines(d10b) or ["None."]),
        "",
        f"## D10 missing provenance ({len(d10m)})",
        "",
        "Digest notes with no `derived_from::` link into daily/ or resource/. Add one "
        "naming the material the note came from.",
        "",
        *([f"- {_note_link(p)}" for p in d10m] or ["None."]),
        "",
    ]
    return "\n".join(out)


# --- the D1 fix --------------------------------------------------------------------------


def _plain_text(link: Link) -> str:
    """What a broken link becomes: its alias, else its target as written."""
    if link.alias and not (link.embed and _EMBED_SIZE_RE.fullmatch(link.alias)):
        return link.alias
    return link.target + (f"#{link.anchor}" if link.anchor else "")


def _signature(link: Link) -> tuple:
    return (link.target, link.predicate, link.embed, link.alias, link.anchor)


def _still_missing(root: Path, target: str) -> bool:
    try:
        return not stat.S_ISREG(os.lstat(resolve_inside(root, target)).st_mode)
    except UnsafePathError:
        return True
    except OSError:
        return True


def _check_only_broken_removed(removed: dict[str, list[Link]]) -> NamedCheck:
    """In every edited note, the links after == the links before minus the broken ones."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path, links in removed.items():
            before, after = ctx.before.get(path), ctx.after.get(path)
            if before is None or after is None:
                failures.append(f"{path} would be created or deleted; a D1 fix only edits")
                continue
            was = Counter(_signature(lk) for lk in parse_links(before.decode("utf-8")))
            gone = Counter(_signature(lk) for lk in links)
            now = Counter(_signature(lk) for lk in parse_links(after.decode("utf-8")))
            if gone - was:
                failures.append(f"{path} does not hold every link the fix removes")
            elif now != was - gone:
                lost = sorted(str(k[0]) for k in (was - gone - now))
                added = sorted(str(k[0]) for k in (now - (was - gone)))
                failures.append(
                    f"{path}: links other than the broken ones would change "
                    f"(lost {lost}, gained {added})"
                )
        return failures

    return NamedCheck("d1_fix_only_removes_broken_links", run)


def plan_link_fixes(
    store: Store, report: HealthReport, *, max_bytes: int = MAX_NOTE_BYTES
) -> Changeset | None:
    """One changeset replacing every D1 broken link by its alias or target text.

    Each note is re-read now (its stamp guards the edit); a link is replaced only if it
    is still at the reported line:column with the same text and its target is still
    missing. Broken provenance (D10) is never touched. None when nothing is left to fix.
    """
    by_source: dict[str, dict[tuple[int, int, str], BrokenLink]] = defaultdict(dict)
    for b in report.broken_links:
        if not is_digest_note(b.source):
            continue  # daily/ is source material: reported, never rewritten by a fix
        by_source[b.source][(b.line, b.column, b.raw)] = b
    ops: list[Edit] = []
    removed: dict[str, list[Link]] = {}
    lines: list[str] = []
    for source in sorted(by_source):
        current = store.read(source)
        if current is None:
            continue
        data, stamp = current
        try:
            text = decode_note_bytes(data, source, max_bytes=max_bytes)
        except NoteError:
            continue
        wanted = by_source[source]
        links = [
            lk for lk in parse_links(text)
            if (lk.line, lk.column, lk.raw) in wanted and _still_missing(store.root, lk.target)
        ]
        if not links:
            continue
        new_text = text
        for link in sorted(links, key=lambda lk: lk.start, reverse=True):
            new_text = replace_link(new_text, link, _plain_text(link))
        ops.append(Edit(source, new_text.encode("utf-8"), stamp))
        removed[source] = links
        for link in links:
            why = wanted[(link.line, link.column, link.raw)].reason
            lines.append(
                f"- {_note_link(source)} {link.line}:{link.column} — {_code(link.raw)} → "
                f"{_code(_plain_text(link))} ({why})"
            )
    if not ops:
        return None
    count = sum(len(v) for v in removed.values())
    summary = f"D1: replaced {count} broken link(s) in {len(ops)} note(s) by their text"
    audit = AuditEntry(
        kind="consolidate_actions",
        markdown=f"## {summary} (docs/spec.md §7.5.3)\n\n" + "\n".join(lines) + "\n",
    )
    return Changeset(
        ops=tuple(ops),
        checks=(_check_only_broken_removed(removed),),
        description=summary,
        audit=audit,
    )
