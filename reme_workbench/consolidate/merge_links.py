"""What merge reads and writes of links (docs/spec.md §7.7): the notes of a pair as planned
against, who links to whom (short links resolved as Obsidian does), the merged body made
free of self-links with the loser's block ids carried, and the files linking the loser
with only those links' spans rewritten (a repeated `- [[winner]]` item a retarget
leaves stays: it is the person's list, and a person may remove it).

Used by `merge.py` only; split out to keep one concept per module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..llm.consolidate import NoteView
from ..llm.schema import MergedNote
from ..vault.layout import is_digest_note
from ..vault.links import Link, outbound_keys, parse_links
from ..vault.note import Note, decode_note_bytes, parse
from ..vault.resolve import LinkResolver, repair_links
from ..vault.store import Edit, Stamp
from ..vault.vault import Vault
from .merge_anchors import carry_block_ids

__all__ = ["NoteRead", "read_note_at", "LinkIndex", "without_self_links", "merged_body",
           "key_list", "MergeRetargets", "Retargeted", "retarget_links"]


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteRead:
    """A note as planned against: its bytes, stamp and parsed text."""

    path: str
    data: bytes
    stamp: Stamp
    note: Note

    @property
    def view(self) -> NoteView:
        name = self.note.name or self.path.rsplit("/", 1)[-1][: -len(".md")]
        return NoteView(self.path, name, self.note.description or "", self.note.body)

    @property
    def keys(self) -> set[tuple[str, str | None]]:
        return outbound_keys(self.note.body)


def read_note_at(vault: Vault, path: str) -> NoteRead | None:
    current = vault.store.read(path)
    if current is None:
        return None
    text = decode_note_bytes(current[0], path, max_bytes=vault.max_note_bytes)
    return NoteRead(path, current[0], current[1], parse(text, path))


class LinkIndex:
    """Who links to what, short links resolved the way Obsidian does (§2.4): target path
    -> {linking file: the targets as written there}. Embeds count: a source embedding
    the loser would break as surely as one linking it."""

    def __init__(self, vault: Vault) -> None:
        self.resolver = LinkResolver(vault.scan.records)
        self.links: dict[str, dict[str, set[str]]] = {}
        self._targets: dict[str, set[str]] = {}  # linking file -> the paths it links
        for rec in vault.scan.records.values():
            self._add(rec)

    def _add(self, rec) -> None:
        if not rec.is_markdown:
            return
        for link in rec.links:
            target = link.target
            if not target:
                continue
            found = target if target in self.resolver else self.resolver.resolve(
                target, rec.path).path
            if found is not None and found != rec.path:
                self.links.setdefault(found, {}).setdefault(rec.path, set()).add(target)
                self._targets.setdefault(rec.path, set()).add(found)

    def update(self, vault: Vault, paths: Iterable[str]) -> None:
        """Index `paths` again from the (refreshed) scan: what an applied merge wrote."""
        records = vault.scan.records
        for path in paths:
            for target in self._targets.pop(path, ()):
                self.links.get(target, {}).pop(path, None)
            if path in records:
                self.resolver.add(path)
                self._add(records[path])
            else:
                # Deleted: its linkers were retargeted. The resolver keeps knowing it, which
                # is conservative: a short link it made ambiguous stays unresolved.
                self.links.pop(path, None)

    def linking(self, path: str) -> dict[str, set[str]]:
        return self.links.get(path, {})

    def digest_inbound(self, path: str) -> int:
        return sum(1 for src in self.linking(path) if is_digest_note(src))

    def source_inbound(self, path: str) -> tuple[str, ...]:
        """The files linking to `path` that a merge may not rewrite: daily/ and resource/
        (sources, §3.6), and any file of digest/ outside the buckets."""
        return tuple(sorted(s for s in self.linking(path) if not is_digest_note(s)))

    def resolves_to(self, target: str, source: str) -> str | None:
        return target if target in self.resolver else self.resolver.resolve(target, source).path


# -- the merged body -------------------------------------------------------------------------

# What may stand on a line beside links that are going: a list marker, a predicate, commas.
_ONLY_LINKS_LINE = re.compile(
    r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:[A-Za-z][A-Za-z0-9_]*::)?[ \t,;]*"
)


def without_self_links(body: str, pair: tuple[str, str], names: Mapping[str, str],
                        index: LinkIndex, source: str) -> tuple[str, int]:
    """Replace every link to the winner or the loser by its words (the alias, else the
    note's name; an embed by nothing); a line that held only such links, a list marker
    or a predicate goes. Returns (body, links removed)."""
    by_line: dict[int, list] = {}
    for lk in parse_links(body):
        if lk.target and index.resolves_to(lk.target, source) in pair:
            by_line.setdefault(lk.line, []).append(lk)
    if not by_line:
        return body, 0
    out, start = [], 0
    for number, line in enumerate(body.split("\n"), start=1):
        links = by_line.get(number)
        if links:
            pieces, rest, last = [], [], start
            for lk in links:
                pieces.append(body[last:lk.start])
                rest.append(body[last:lk.start])
                target = index.resolves_to(lk.target, source) or ""
                pieces.append("" if lk.embed else (lk.alias or names.get(target, lk.target)))
                last = lk.end
            pieces.append(body[last:start + len(line)])
            rest.append(body[last:start + len(line)])
            start += len(line) + 1
            if _ONLY_LINKS_LINE.fullmatch("".join(rest)):
                continue  # the line said nothing but the link
            out.append("".join(pieces))
        else:
            out.append(line)
            start += len(line) + 1
    return "\n".join(out), sum(len(v) for v in by_line.values())


def merged_body(reply: MergedNote, winner: NoteRead, loser: NoteRead, index: LinkIndex,
                 keep: frozenset) -> tuple[str, list[dict], int, dict[str, str | None]]:
    """(body, link repairs, self-links removed, {loser block id: its id in the body})."""
    body = reply.body if reply.body.endswith("\n") else reply.body + "\n"
    # the loser's text is a person's: its links keep their anchors as they move
    body, repairs = repair_links(body, winner.path, index.resolver, keep=keep,
                                 keep_anchors=True)
    names = {winner.path: winner.view.name, loser.path: loser.view.name}
    body, self_links = without_self_links(body, (winner.path, loser.path), names, index,
                                           winner.path)
    body, blocks = carry_block_ids(body, winner.note.body, loser.note.body)
    return body, [r.to_json() for r in repairs], self_links, blocks


def key_list(keys: Iterable[tuple[str, str | None]]) -> list[list]:
    """Edge keys as sorted JSON pairs (an untyped link's predicate None sorts first)."""
    return [[t, p] for t, p in sorted(keys, key=lambda k: (k[0], k[1] or ""))]


# -- the files that link the loser ----------------------------------------------------------


@dataclass(frozen=True)
class _Linking:
    """One digest file linking the loser, as read: what each form of the loser written
    there becomes, and the anchors its links to the loser carry."""

    path: str
    data: bytes
    stamp: Stamp
    text: str
    into: Mapping[str, str]
    anchors: frozenset[str]


@dataclass(frozen=True)
class Retargeted:
    """The retarget edits, what each file held, its forms, keys and anchor rewrites (for
    `retargeted_links` and `retargets_only_links`) and its count of links moved."""

    edits: tuple[Edit, ...]
    before: Mapping[str, bytes]
    files: Mapping[str, dict]
    counts: Mapping[str, int]


@dataclass(frozen=True)
class MergeRetargets:
    """Every digest file linking the loser. Read before the brain is asked (a file that
    cannot be read skips the pair); the edits are made once the merged body says where
    the loser's headings and blocks went (`build`)."""

    linking: tuple[_Linking, ...]

    @classmethod
    def read(cls, vault: Vault, index: LinkIndex, winner: str, loser: str) -> MergeRetargets:
        """From the files as they are now; RemeError when a linking file cannot be read."""
        found: list[_Linking] = []
        for path, forms in sorted(index.linking(loser).items()):
            if path in (winner, loser) or not is_digest_note(path):
                continue  # sources are never written: the winner rule keeps them off the loser
            current = vault.store.read(path)
            if current is None:
                continue
            text = decode_note_bytes(current[0], path, max_bytes=vault.max_note_bytes)
            into = {form: link_replacement(form, path, winner, loser, index)
                    for form in forms | {loser}}
            anchors = frozenset(lk.anchor for lk in parse_links(text)
                                if lk.target in into and lk.anchor)
            found.append(_Linking(path, current[0], current[1], text, into, anchors))
        return cls(tuple(found))

    @property
    def anchors(self) -> frozenset[str]:
        """Every anchor written on a link to the loser (`#Steps`, `#^id`)."""
        return frozenset(a for f in self.linking for a in f.anchors)

    def build(self, anchors: Mapping[str, str | None]) -> Retargeted:
        """The edits: each link to the loser pointed at the winner, its anchor rewritten
        by `anchors` ({anchor: new anchor, None for the note itself}); nothing else."""
        edits: list[Edit] = []
        before: dict[str, bytes] = {}
        files: dict[str, dict] = {}
        counts: dict[str, int] = {}
        for f in self.linking:
            new_text, count = retarget_links(f.text, f.into, anchors)
            if not count:
                continue
            mapped = {(f.into.get(t, t), p) for t, p in outbound_keys(f.text)}
            files[f.path] = {"forms": sorted(f.into), "keys": key_list(mapped),
                             "anchors": {a: anchors[a] for a in sorted(f.anchors) if a in anchors}}
            counts[f.path] = count
            before[f.path] = f.data
            edits.append(Edit(f.path, new_text.encode("utf-8"), f.stamp))
        return Retargeted(tuple(edits), before, files, counts)


def _head_end(text: str, link: Link) -> int:
    """Where a link's target and anchor end: before its alias pipe (a table cell's `\\|`
    included) or its `]]`, trailing spaces left as written."""
    inner_start, inner_end = link.start + (3 if link.embed else 2), link.end - 2
    bar = text.find("|", inner_start, inner_end)
    end = inner_end if bar < 0 else (bar - 1 if text[bar - 1] == "\\" else bar)
    while end > link.target_end and text[end - 1] in " \t":
        end -= 1
    return end


def retarget_links(text: str, into: Mapping[str, str], anchors: Mapping[str, str | None]
                   ) -> tuple[str, int]:
    """`text` with each link whose target is a key of `into` pointed at its value — only
    the target span changes (alias, embed mark, predicate, spacing stay), and the anchor
    too when `anchors` rewrites it (None: the link names the note). Returns (text, links
    rewritten)."""
    parts: list[str] = []
    last = count = 0
    for link in parse_links(text):
        new = into.get(link.target)
        if new is None:
            continue
        end, head = link.target_end, new
        if link.anchor is not None and link.anchor in anchors:
            end = _head_end(text, link)
            head = new + (f"#{anchors[link.anchor]}" if anchors[link.anchor] else "")
        parts += [text[last:link.target_start], head]
        last = end
        count += 1
    return "".join(parts) + text[last:], count


def link_replacement(form: str, source: str, winner: str, loser: str, index: LinkIndex) -> str:
    """What a link to the loser written as `form` in `source` points at now: the winner's
    full path for a full path; for a short link, the winner's short name when it resolves
    to the winner there (the sentence reads as the person wrote it)."""
    if form == loser:
        return winner
    short = winner.rsplit("/", 1)[-1][: -len(".md")]
    return short if index.resolver.resolve(short, source).path == winner else winner
