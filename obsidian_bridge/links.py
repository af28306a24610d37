"""`normalize`: a person's short links in `digest/` rewritten to full vault paths.

Everything reme-workbench writes is already a vault-path wikilink (`[[digest/wiki/x.md]]`).
Notes a person writes in Obsidian use short forms — `[[Note]]`, `[[folder/Note]]`,
`[[Note#Heading]]`. Each is resolved the way Obsidian resolves it from the note it sits
in (`reme_workbench.vault.resolve`: the exact path, then relative to the note's folder,
then the one file whose path ends with it, case-insensitively), and when that names
exactly one file its target becomes that file's full path:

* only the target changes: the anchor, the embed mark, the predicate and the alias stay;
* a link with no alias gets the text the reader saw as its alias (`[[Note]]` →
  `[[digest/wiki/Note.md|Note]]`, `[[Note#Heading]]` → `[[digest/wiki/Note.md#Heading|Note >
  Heading]]`), so the note reads the same in Obsidian;
* an ambiguous link (several files end with it) or an unresolved one — a missing embed,
  an odd one such as `![[*.jpg|L]]` — is left as it is and reported; no guess is made,
  and the rest of the vault is normalised.

Only `digest/` notes are written (sources are immutable), in one changeset through the
store: stamps, the journal, and checks that only those notes change, no source is
written, and every link that resolved still resolves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reme_workbench.vault.checks import CheckSpec, build_checks
from reme_workbench.vault.layout import is_digest_note
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.note import decode_note_bytes
from reme_workbench.vault.resolve import LinkResolver, normalize_short_links
from reme_workbench.vault.store import Changeset, Edit
from reme_workbench.vault.vault import Vault

__all__ = ["LinkChange", "NormalizeReport", "plan_normalize", "normalize_links"]


@dataclass(frozen=True)
class LinkChange:
    path: str  # the note the link is in
    line: int
    before: str  # the link as written
    after: str | None  # its full-path form; None when left as it is
    candidates: tuple[str, ...] = ()  # for an ambiguous link: the files it could mean


@dataclass(frozen=True)
class NormalizeReport:
    rewritten: tuple[LinkChange, ...] = ()
    ambiguous: tuple[LinkChange, ...] = ()
    unresolved: tuple[LinkChange, ...] = ()
    files: tuple[str, ...] = ()  # notes changed (or that would be, on a dry run)
    new_texts: dict[str, str] = field(default_factory=dict, repr=False)
    applied: bool = False

    def to_json(self) -> dict:
        def rows(changes):
            return [{"path": c.path, "line": c.line, "before": c.before, "after": c.after,
                     **({"candidates": list(c.candidates)} if c.candidates else {})} for c in changes]
        return {"files": list(self.files), "rewritten": rows(self.rewritten),
                "ambiguous": rows(self.ambiguous), "unresolved": rows(self.unresolved),
                "applied": self.applied}


def _rewrite(text: str, path: str, resolver: LinkResolver
             ) -> tuple[str, list[LinkChange], list[LinkChange], list[LinkChange]]:
    """(the text with its short links rewritten, rewritten, ambiguous, unresolved)."""
    new, changes, left = normalize_short_links(text, path, resolver)
    done = [LinkChange(path, c.line, c.raw, c.replacement) for c in changes]
    ambiguous = [LinkChange(path, lk.line, lk.raw, None, found.candidates)
                 for lk, found in left if found.how == "ambiguous"]
    # nothing, or a file whose name cannot be a link target: left as written, reported
    unresolved = [LinkChange(path, lk.line, lk.raw, None) for lk, found in left
                  if found.how != "ambiguous"]
    return new, done, ambiguous, unresolved


def plan_normalize(vault: Vault) -> NormalizeReport:
    """What `normalize_links` would do, computed from the vault as it is (writes nothing)."""
    vault.refresh()
    records = vault.scan.records
    resolver = LinkResolver(records)
    rewritten, ambiguous, unresolved, texts = [], [], [], {}
    for path in sorted(p for p, r in records.items() if is_digest_note(p) and r.readable):
        current = vault.store.read(path)
        if current is None:
            continue
        text = decode_note_bytes(current[0], path, max_bytes=vault.max_note_bytes)
        new, done, amb, unres = _rewrite(text, path, resolver)
        rewritten += done
        ambiguous += amb
        unresolved += unres
        if new != text:
            texts[path] = new
    return NormalizeReport(tuple(rewritten), tuple(ambiguous), tuple(unresolved),
                           tuple(sorted(texts)), texts)


def normalize_links(vault: Vault, *, dry_run: bool = False) -> NormalizeReport:
    """Rewrite the short links of `digest/` notes to full vault paths, in one changeset
    (see the module doc); `dry_run` plans and reports, and writes nothing."""
    report = plan_normalize(vault)
    if dry_run or not report.new_texts:
        return report

    def plan() -> Changeset:
        fresh = plan_normalize(vault)  # again from the files as they are, if one changed
        ops = []
        specs = [CheckSpec("only_paths", {"paths": sorted(fresh.new_texts)}),
                 CheckSpec("no_sources_written", {})]
        for path, new in sorted(fresh.new_texts.items()):
            current = vault.store.read(path)
            ops.append(Edit(path, new.encode("utf-8"), current[1]))
            # the links it did not touch are the person's, as they were — embeds too, and
            # a missing or odd one (`![[*.jpg|L]]`) stays; every link it rewrote must resolve
            old = decode_note_bytes(current[0], path, max_bytes=vault.max_note_bytes)
            kept = {lk.key for lk in parse_links(old) if lk.target}
            keep = [[t, p] for t, p in sorted(kept, key=lambda k: (k[0], k[1] or ""))]
            specs.append(CheckSpec("links_resolve", {"path": path, "keep": keep}))
        return Changeset(ops=tuple(ops), checks=tuple(build_checks(specs)),
                         description="bridge: normalize short links in digest/")

    vault.apply_planned(plan)
    return NormalizeReport(report.rewritten, report.ambiguous, report.unresolved, report.files,
                           report.new_texts, applied=True)
