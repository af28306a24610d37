"""Health checks D1 and D10 (docs/spec.md §7.5), their Obsidian report, and the D1 fix.

Every link is first resolved the way Obsidian resolves it (`vault.resolve`): a short or
relative link that names one file is not broken, only not yet in vault-path form.

* D1 — a link in a digest note or daily log (embeds included) that resolves to nothing
  *because a change made it so*: it resolved at the last recorded run
  (`vault/resolved_links.py`). A link that never resolved is the person's — a note they
  mean to write — and is listed as *not yet written*, never fixed.
* D10 — provenance: a `derived_from::` link into daily/ or resource/ that does not
  resolve (broken), or a digest note with no such link at all (missing).
* Short links (resolve to one file) and ambiguous ones (to several) are reported apart.

The fix has two parts. Short links in digest notes are rewritten to the full path they
resolve to (`plan_link_normalization`: nothing is lost, the note reads the same), applied
at once. A D1 link loses its brackets only through `plan_link_fixes`, whose changesets
(one per note) the caller turns into proposals a person can see and revert; its text
keeps the words the reader saw and the name the link meant. D10 is only reported.
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
from .checks import CheckSpec, build_checks
from .layout import SOURCE_LAYERS, is_digest_note, normalize_rel, resolve_inside
from .links import (
    Link,
    format_link,
    is_provenance,
    parse_links,
    replace_link,
)
from .note import MAX_NOTE_BYTES, decode_note_bytes
from .resolve import LinkResolver, ShortLinkChange, normalize_short_links
from .resolved_links import ResolvedBefore
from .scan import VaultScan
from .store import AuditEntry, Changeset, CheckContext, Edit, NamedCheck, Store

__all__ = [
    "BrokenLink",
    "ResolvedLink",
    "HealthReport",
    "check_health",
    "render_health_markdown",
    "plan_link_fixes",
    "plan_link_normalization",
    "UnlinkPlan",
    "link_signature",
    "unlink_audit_lines",
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
class ResolvedLink:
    """A link that is not a vault path but that Obsidian resolves: to one file (`resolved`)
    or, ambiguously, to several (`candidates`)."""

    source: str
    target: str
    line: int
    column: int
    raw: str
    predicate: str | None
    resolved: str | None
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class HealthReport:
    broken_links: tuple[BrokenLink, ...]  # D1 in digest/ and daily/ (provenance links are D10)
    broken_provenance: tuple[BrokenLink, ...]  # D10: derived_from:: into sources, unresolved
    missing_provenance: tuple[str, ...]  # D10: digest notes with no derived_from:: source link
    short_links: tuple[ResolvedLink, ...] = ()  # resolve to one file: normalisable, not broken
    ambiguous_links: tuple[ResolvedLink, ...] = ()  # resolve to several: left for a person
    # resolve to nothing and never did: notes the person means to write, not a fault
    unwritten_links: tuple[BrokenLink, ...] = ()

    def to_json(self) -> dict:
        return {
            "broken_links": [asdict(b) for b in self.broken_links],
            "broken_provenance": [asdict(b) for b in self.broken_provenance],
            "missing_provenance": list(self.missing_provenance),
            "short_links": [asdict(b) for b in self.short_links],
            "ambiguous_links": [asdict(b) for b in self.ambiguous_links],
            "unwritten_links": [asdict(b) for b in self.unwritten_links],
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


def check_health(
    scan: VaultScan, paths: Iterable[str] | None = None, *, resolver: LinkResolver | None = None,
    resolved_before: ResolvedBefore | None = None,
) -> HealthReport:
    """Run D1 over digest notes and daily logs and D10 over digest notes, or only over
    `paths` (inline after a write). A link that is not an existing vault path is resolved
    by Obsidian's rules first (docs/spec.md §2.4): one file → a short link, several →
    ambiguous, none → broken when `resolved_before` says it resolved at the last recorded
    run (or was broken then), else not yet written (docs/spec.md §7.5.1). Without
    `resolved_before` every link that resolves to nothing is broken: text an agent just
    wrote resolves every link it writes. `resolver` defaults to one over every scanned
    file (with the notes' aliases)."""
    records = scan.records
    if paths is None:
        sources = sorted(p for p in records if _checked_source(p))
    else:
        sources = sorted({p for p in paths if p in records and _checked_source(p)})
    resolver = resolver if resolver is not None else LinkResolver(records)
    reason = _Reasons(scan)
    broken: list[BrokenLink] = []
    broken_prov: list[BrokenLink] = []
    missing: list[str] = []
    short: list[ResolvedLink] = []
    ambiguous: list[ResolvedLink] = []
    unwritten: list[BrokenLink] = []
    for source in sources:
        has_provenance = False
        for link in records[source].links:
            if not link.target:  # `[[#heading]]` points into the note itself
                continue
            provenance = is_provenance(link)
            if scan.exists(link.target):
                has_provenance = has_provenance or provenance
                continue
            found = resolver.resolve(link.target, source)
            where = (source, link.target, link.line, link.column, link.raw, link.predicate)
            if found.path is not None:
                short.append(ResolvedLink(*where, found.path))
                has_provenance = has_provenance or (
                    link.predicate == "derived_from" and found.path.split("/", 1)[0] in SOURCE_LAYERS
                )
                continue
            if found.how == "ambiguous":
                ambiguous.append(ResolvedLink(*where, None, found.candidates))
                continue
            has_provenance = has_provenance or provenance
            if provenance:
                broken_prov.append(BrokenLink(*where, reason(link.target)))
            elif resolved_before is None or resolved_before.resolved(source, link.target):
                broken.append(BrokenLink(*where, reason(link.target)))
            else:
                unwritten.append(BrokenLink(*where, reason(link.target)))
        record = records[source]
        # an unreadable file is reported as a problem, not as a note without provenance
        if not has_provenance and is_digest_note(source) and record.readable:
            missing.append(source)
    return HealthReport(tuple(broken), tuple(broken_prov), tuple(missing), tuple(short),
                        tuple(ambiguous), tuple(unwritten))


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


def _unwritten_section(items: tuple[BrokenLink, ...]) -> list[str]:
    """One line per link as written, with how often and where: `[[Linux]]` ×14."""
    where: dict[str, list[str]] = defaultdict(list)
    for b in items:
        where[b.raw].append(b.source)
    lines = []
    for raw in sorted(where, key=lambda r: (-len(where[r]), r.lower())):
        notes = list(dict.fromkeys(where[raw]))
        times = f" ×{len(where[raw])}" if len(where[raw]) > 1 else ""
        lines.append(f"- {_code(raw)}{times} — in " + ", ".join(_note_link(n) for n in notes[:5])
                     + (f" and {len(notes) - 5} more" if len(notes) > 5 else ""))
    return [
        f"## Not yet written ({len(items)})",
        "",
        "Links to notes (or files) that do not exist and never did since the last health "
        "run: in Obsidian a link to a note you mean to write. They are yours: nothing is "
        "proposed for them, and writing the note (or giving a note that name in its "
        "`aliases:`) makes them resolve.",
        "",
        *(lines or ["None."]),
        "",
    ]


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
    amb, short = report.ambiguous_links, report.short_links
    per_note = Counter(s.source for s in short)
    out += [
        f"## D1 broken links ({len(d1)})",
        "",
        "Links that named a file at the last health run and resolve to no file now, by "
        "Obsidian's rules (the file was deleted or renamed since). `reme-workbench health "
        "--fix` (and consolidate) proposes, note by note, replacing each in digest/ with its "
        "text — the words the reader saw and the name the link meant, `index funds (Index "
        "fund)`: each proposal waits for you (`reme-workbench proposals list`).",
        "",
        *(_broken_lines(d1) or ["None."]),
        "",
        *_unwritten_section(report.unwritten_links),
        f"## Ambiguous links ({len(amb)})",
        "",
        "Short links that several files match: Obsidian picks one, reme-workbench does not "
        "guess. Write the folder too (`[[folder/Note]]`) to say which.",
        "",
        *([f"- {_note_link(a.source)} {a.line}:{a.column} — {_code(a.raw)}: "
           + ", ".join(_note_link(c) for c in a.candidates) for a in amb] or ["None."]),
        "",
        f"## Short links ({len(short)})",
        "",
        "Links that are not vault paths but resolve to one file, as Obsidian reads them: not "
        "broken. `health --fix` (and consolidate) rewrites those in digest/ to the full path, "
        "keeping what the note shows.",
        "",
        *([f"- {_note_link(src)}: {n}" for src, n in sorted(per_note.items())] or ["None."]),
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


# --- the fix: short links normalised, broken ones unlinked by proposal ----------------


def _meant(link: Link) -> str:
    """The name a link meant: its file's name without folders or `.md`, and its anchor."""
    name = posixpath.basename(link.target.rstrip("/")) or link.target
    name = name[:-3] if name.lower().endswith(".md") else name
    return name + (f"#{link.anchor}" if link.anchor else "")


def _plain_text(link: Link) -> str:
    """What a broken link becomes: its alias with the name it meant, `index funds (Index
    fund)` — just the alias when it says that name — else its target as written."""
    if link.alias and not (link.embed and _EMBED_SIZE_RE.fullmatch(link.alias)):
        meant = _meant(link)
        if " ".join(link.alias.split()).casefold() == " ".join(meant.split()).casefold():
            return link.alias
        return f"{link.alias} ({meant})"
    return link.target + (f"#{link.anchor}" if link.anchor else "")


def link_signature(link: Link) -> list:
    """A link as the stored check `removes_only_broken_links` names it (JSON-able)."""
    return [link.target, link.predicate, link.embed, link.alias, link.anchor]


def _signature(link: Link) -> tuple:
    return tuple(link_signature(link))


def _check_only_short_links_normalized(changed: dict[str, list[ShortLinkChange]]) -> NamedCheck:
    """In every edited note the links are the same, in order, except the normalised ones,
    which now name the file they resolved to with predicate, embed mark and anchor kept."""

    def run(ctx: CheckContext) -> list[str]:
        failures = []
        for path, changes in changed.items():
            before, after = ctx.before.get(path), ctx.after.get(path)
            if before is None or after is None:
                failures.append(f"{path} would be created or deleted; normalising only edits")
                continue
            was = parse_links(before.decode("utf-8"))
            now = parse_links(after.decode("utf-8"))
            if len(was) != len(now):
                failures.append(f"{path}: {len(was)} link(s) before, {len(now)} after")
                continue
            moved = {(c.line, c.column, c.raw): c.path for c in changes}
            for old, new in zip(was, now, strict=True):
                target = moved.get((old.line, old.column, old.raw))
                same = (old.predicate, old.embed, old.anchor) == (new.predicate, new.embed, new.anchor)
                if target is None and _signature(old) != _signature(new):
                    failures.append(f"{path}: {old.raw} changed but was not to be normalised")
                elif target is not None and not (same and new.target == target
                                                 and (old.alias is None or new.alias == old.alias)):
                    failures.append(f"{path}: {old.raw} became {new.raw}, not a link to {target}")
        return failures

    return NamedCheck("only_short_links_normalized", run)


def plan_link_normalization(
    store: Store, report: HealthReport, resolver: LinkResolver, *, max_bytes: int = MAX_NOTE_BYTES
) -> Changeset | None:
    """One changeset rewriting every short link of `report` in digest/ to the full vault
    path it resolves to (docs/spec.md §7.5.3): alias, anchor, embed mark and predicate
    kept, a link with no alias given what Obsidian showed, so each note reads as before.

    Each note is re-read now (its stamp guards the edit); a link is rewritten only while
    it is still at the reported place and still resolves to the same file. Daily logs
    are material: their short links are only reported. None when nothing is left."""
    by_source: dict[str, set[tuple[int, int, str]]] = defaultdict(set)
    expected: dict[tuple[str, int, int, str], str | None] = {}
    for s in report.short_links:
        if is_digest_note(s.source):
            by_source[s.source].add((s.line, s.column, s.raw))
            expected[(s.source, s.line, s.column, s.raw)] = s.resolved
    ops: list[Edit] = []
    changed: dict[str, list[ShortLinkChange]] = {}
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
        new_text, changes, _ = normalize_short_links(
            text, source, resolver, only=frozenset(by_source[source]))
        changes = [c for c in changes if expected.get((source, c.line, c.column, c.raw)) == c.path]
        if not changes:
            continue
        if len(changes) != len(by_source[source]):  # some moved meanwhile: only the rest
            new_text, changes, _ = normalize_short_links(
                text, source, resolver,
                only=frozenset((c.line, c.column, c.raw) for c in changes))
        ops.append(Edit(source, new_text.encode("utf-8"), stamp))
        changed[source] = changes
        lines += [f"- {_note_link(source)} {c.line}:{c.column} — {_code(c.raw)} → {_code(c.replacement)}"
                  for c in changes]
    if not ops:
        return None
    count = sum(len(v) for v in changed.values())
    summary = f"normalised {count} short link(s) in {len(ops)} note(s) to vault paths"
    audit = AuditEntry(
        kind="consolidate_actions",
        markdown=(f"## Links: {summary} (docs/spec.md §7.5.3)\n\nEach still names the file "
                  "Obsidian resolved it to; the alias keeps what the note showed.\n\n"
                  + "\n".join(lines) + "\n"),
    )
    return Changeset(ops=tuple(ops), checks=(_check_only_short_links_normalized(changed),),
                     description=summary, audit=audit)


@dataclass(frozen=True)
class UnlinkPlan:
    """What `plan_link_fixes` would do: edits that turn each broken link into its text,
    the stored checks that prove nothing else changes, and one line per link."""

    ops: tuple[Edit, ...]
    checks: tuple[CheckSpec, ...]
    links: tuple[dict, ...]  # {source, line, column, raw, text, reason}

    def changeset(self) -> Changeset:
        return Changeset(ops=self.ops, checks=build_checks(self.checks),
                         description=f"D1: {len(self.links)} broken link(s) replaced by their text")

    def per_note(self) -> tuple[UnlinkPlan, ...]:
        """One plan per note (a person decides on each note's links, never on all at once)."""
        return tuple(
            UnlinkPlan((op,), (check,), tuple(r for r in self.links if r["source"] == op.path))
            for op, check in zip(self.ops, self.checks, strict=True))


def plan_link_fixes(
    store: Store, report: HealthReport, *, max_bytes: int = MAX_NOTE_BYTES,
    skip: frozenset[tuple[str, str]] = frozenset(),
) -> UnlinkPlan | None:
    """Edits replacing every D1 broken link in digest/ by its alias or target text.

    A person's link is removed only through a proposal (docs/spec.md §7.5.3), so this
    returns the plan, not an applied change: the caller makes it a proposal. Each note is
    re-read now (its stamp guards the edit); a link is replaced only if it is still at the
    reported line:column with the same text and its target is still missing, and the
    stored check `removes_only_broken_links` proves at apply time that only those links
    changed and that their targets still resolve to nothing. Links whose `(source, raw)`
    is in `skip` (a person rejected unlinking them) are left. Broken provenance (D10) is
    never touched. None when nothing is left to fix.
    """
    by_source: dict[str, dict[tuple[int, int, str], BrokenLink]] = defaultdict(dict)
    for b in report.broken_links:
        if not is_digest_note(b.source) or (b.source, b.raw) in skip:
            continue  # daily/ is source material: reported, never rewritten by a fix
        by_source[b.source][(b.line, b.column, b.raw)] = b
    ops: list[Edit] = []
    checks: list[CheckSpec] = []
    rows: list[dict] = []
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
        checks.append(CheckSpec("removes_only_broken_links", {
            "path": source, "removed": [link_signature(lk) for lk in links]}))
        rows += [{"source": source, "line": lk.line, "column": lk.column, "raw": lk.raw,
                  "text": _plain_text(lk), "reason": wanted[(lk.line, lk.column, lk.raw)].reason}
                 for lk in links]
    if not ops:
        return None
    return UnlinkPlan(tuple(ops), tuple(checks), tuple(rows))


def _still_missing(root: Path, target: str) -> bool:
    try:
        return not stat.S_ISREG(os.lstat(resolve_inside(root, target)).st_mode)
    except UnsafePathError:
        return True
    except OSError:
        return True


def unlink_audit_lines(rows: Iterable[dict]) -> list[str]:
    """The audit's line per unlinked link: where, before → after, and why."""
    return [f"- {_note_link(r['source'])} {r['line']}:{r['column']} — {_code(r['raw'])} → "
            f"{_code(r['text'])} ({r['reason']})" for r in rows]
