"""Where a dream stopped inside a material file: `meta/dream_resume.json` (docs/spec.md §4.1.8).

A file is marked dreamt (`meta/dreamt.json`) only when all its units are done, so a run
stopped inside it — Ctrl-C, a crash — leaves it un-dreamt, with some of its notes already
written. Run again, it would dream those units a second time against their own notes,
and a create would land beside its first copy (`<slug>-2`). This record keeps, per file
and content hash:

* the units Phase 1 found in each piece (and what it set aside), so the re-run integrates
  the very same units without asking the brain again — a model need not answer alike;
* for each unit, before it writes anything, the proposal it is about to submit and the
  bytes that proposal puts at its note. The unit is done when that proposal is recorded
  in the queue (applied, waiting or rejected), or when the note holds those bytes: a run
  stopped between the note's write and its proposal's record wrote the note all the same.

A unit written but not yet recorded here cannot exist: the record is written first. A
unit recorded but never written is dreamt again. The entry of a file goes once the file
is marked dreamt; an entry of another content hash (the file was edited) is ignored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from ..errors import RemeError
from ..llm.schema import MemoryUnit
from ..proposals import ProposalQueue
from ..proposals.model import FORMAT_VERSION as PROPOSAL_VERSION
from ..proposals.model import Proposal
from ..vault.layout import is_digest_note
from ..vault.meta import log_access, read_meta, write_meta
from ..vault.store import Create, Delete, Edit, Stamp
from ..vault.vault import Vault

__all__ = ["ResumeRecord", "FileResume", "piece_key", "unit_key"]

RESUME_META = "dream_resume"
RESUME_VERSION = 1


def piece_key(text: str) -> str:
    """A piece of material, by its text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def unit_key(piece: str, place: int, unit: MemoryUnit) -> str:
    """The unit at `place` in its piece's units (kept, so the same on a re-run), by what
    it says as well: two equal units of one piece are two units."""
    said = json.dumps([piece, place, unit.model_dump()], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(said.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Extracted:
    """What Phase 1 gave for one piece, as the stopped run got it."""

    units: tuple[MemoryUnit, ...]
    set_aside: tuple[tuple[str, str], ...]  # (part, reason)


class ResumeRecord:
    """meta/dream_resume.json: files: {path: {sha256, pieces: {piece: {units, set_aside}},
    units: {unit: {proposal, path, content}}}}. An unreadable record is a warning and
    counts as empty: the files it held are dreamt from their start, as before it."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        read = read_meta(vault.root, RESUME_META, version=RESUME_VERSION)
        self.warning = read.warning if read.exists else None
        files = (read.data or {}).get("files", {})
        self.files: dict[str, dict] = dict(files) if isinstance(files, dict) else {}

    def for_file(self, path: str, sha256: str) -> FileResume:
        entry = self.files.get(path)
        if (not isinstance(entry, dict) or entry.get("sha256") != sha256
                or not isinstance(entry.get("pieces"), dict)
                or not isinstance(entry.get("units"), dict)):  # new, edited since, or mangled
            entry = {"sha256": sha256, "pieces": {}, "units": {}}
        return FileResume(self, path, entry)

    def forget(self, path: str) -> None:
        """The file is marked dreamt: nothing of it is left to resume."""
        if self.files.pop(path, None) is not None:
            self._write()

    def _put(self, path: str, entry: dict) -> None:
        self.files[path] = entry
        self._write()

    def _write(self) -> None:
        write_meta(self.vault.root, RESUME_META, {"files": self.files},
                   version=RESUME_VERSION, now=self.vault.clock())


class FileResume:
    """The resume entry of one material file at one content hash."""

    def __init__(self, record: ResumeRecord, path: str, entry: dict) -> None:
        self.record = record
        self.path = path
        self.entry = entry

    def extracted(self, piece: str) -> Extracted | None:
        """The units a stopped run's Phase 1 found in `piece`; None when it got none
        (or the record of them does not read back as units: the piece is extracted again)."""
        from pydantic import ValidationError

        got = self.entry.get("pieces", {}).get(piece)
        if not isinstance(got, dict):
            return None
        try:
            units = tuple(MemoryUnit.model_validate(u) for u in got.get("units", []))
            set_aside = tuple((str(p), str(r)) for p, r in got.get("set_aside", []))
        except (ValidationError, TypeError, ValueError):
            return None
        return Extracted(units, set_aside)

    def keep_extracted(self, piece: str, found: Extracted) -> None:
        self.entry.setdefault("pieces", {})[piece] = {
            "units": [u.model_dump() for u in found.units],
            "set_aside": [list(s) for s in found.set_aside],
        }
        self.record._put(self.path, self.entry)

    def about_to_write(self, unit: str, proposal: Proposal, note: str | None,
                       content: bytes | None) -> None:
        """Before `unit`'s proposal is submitted or saved: what will show it was done. A
        pending one (about to be submitted: it may apply) is kept whole, so that a run
        stopped between its note's write and its record can still record it."""
        self.entry.setdefault("units", {})[unit] = {
            "proposal": proposal.id, "path": note,
            "content": None if content is None else hashlib.sha256(content).hexdigest(),
            "submitted": ({**proposal.to_json(), "version": PROPOSAL_VERSION,
                           "computed_at": proposal.created_at}  # as the queue's file has them
                          if proposal.state == "pending" else None)}
        self.record._put(self.path, self.entry)

    def done(self, unit: str) -> str | None:
        """The note `unit` wrote or planned when a stopped run did it, else None. Done:
        its proposal is in the queue in any state but stale (a stale create is planned
        again, §3.2.5), or its note holds the bytes it was to write."""
        entry = self.entry.get("units", {}).get(unit)
        if not isinstance(entry, dict):
            return None
        vault = self.record.vault
        note, proposal = entry.get("path"), entry.get("proposal")
        state = _proposal_state(vault, proposal) if isinstance(proposal, str) else None
        if state is not None and state != "stale":
            return note or ""
        if isinstance(note, str) and entry.get("content"):
            try:
                current = vault.store.read(note)
            except RemeError:  # not a path in the vault (the record was edited): not done
                return None
            if current is not None and hashlib.sha256(current[0]).hexdigest() == entry["content"]:
                if state is None:  # applied, and the stop came before its record
                    _record_applied(vault, entry.get("submitted"), current[1])
                return note
        return None


def _record_applied(vault: Vault, submitted, stamp: Stamp) -> None:
    """Record the proposal whose change landed as the queue would have: applied, with the
    inverse of its one op (a create is undone by a delete, an edit by the bytes before),
    stamped with the note as it is, and its touch in the access log (§7.3.6). Not kept
    whole (the record predates this) or unreadable: the note stays, unrecorded."""
    from ..errors import NoteError

    if not isinstance(submitted, dict):
        return
    try:
        proposal = Proposal.from_json(submitted, source="meta/dream_resume.json")
    except (RemeError, NoteError, ValueError, TypeError, KeyError):
        return
    if len(proposal.ops) != 1 or not isinstance(proposal.ops[0], Create | Edit):
        return
    op = proposal.ops[0]
    old = proposal.before.get(op.path)
    if isinstance(op, Edit) and old is None:
        return
    inverse = (Delete(op.path, stamp),) if isinstance(op, Create) else (Edit(op.path, old, stamp),)
    now = vault.clock()
    ProposalQueue(vault).save(proposal.with_state("applied", now=now.isoformat(),
                                                  inverse=inverse))
    if is_digest_note(op.path):
        log_access(vault.root, op.path, now, proposal.action)


def _proposal_state(vault: Vault, proposal: str) -> str | None:
    """The recorded state of a proposal, None when it is not recorded (or unreadable)."""
    try:
        read = read_meta(vault.root, f"proposals/{proposal}", version=PROPOSAL_VERSION)
    except RemeError:  # not a proposal id (the record was edited): not recorded
        return None
    state = (read.data or {}).get("state")
    return state if isinstance(state, str) else None
