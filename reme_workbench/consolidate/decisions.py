"""A person's decisions on uncertain duplicate pairs: `meta/merge_decisions.json`.

The merge phase reports a pair only one judge calls the same in
`audit/<date>/dups_uncertain.md` (docs/spec.md §7.7.3); a person then routes it — merge
anyway, keep both, or hand it to dream as an update. Without a record, the same pair
would be reported again every week. A decision holds while both notes are byte for byte
what they were when it was taken (their sha256): a change to either one may change the
answer, so the pair can be reported again.

    {"version": 1, "computed_at": "...Z",
     "pairs": [{"a", "b", "route", "decided_at", "sha256": {a: .., b: ..}, "proposal"}]}

The file is a trust boundary (a person may edit it): entries with the wrong shape are
dropped when read; a file of another version or broken JSON is ignored with a warning
and replaced by the next decision.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import RemeError
from ..vault.layout import is_digest_note
from ..vault.meta import iso_utc, read_meta, write_meta

__all__ = ["DECISIONS_META", "ROUTES", "INSTANCES_LABEL", "PairDecision", "read_decisions",
           "record_decision", "decision_holds", "file_sha256", "hand_to_dream"]

DECISIONS_META = "merge_decisions"
VERSION = 1
ROUTES = ("merge", "keep_both", "dream_update")
INSTANCES_LABEL = "**Instances:**"  # the list `hand_to_dream` adds the other note to


@dataclass(frozen=True)
class PairDecision:
    a: str
    b: str
    route: str  # one of ROUTES
    decided_at: str
    sha256: dict[str, str]  # path -> sha256 of the note when decided
    proposal: str | None = None  # the proposal the route made, if any

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "route": self.route, "decided_at": self.decided_at,
                "sha256": dict(self.sha256), "proposal": self.proposal}


def file_sha256(root: Path | str, path: str) -> str | None:
    try:
        return hashlib.sha256((Path(root) / path).read_bytes()).hexdigest()
    except OSError:
        return None


def read_decisions(root: Path | str) -> tuple[dict[frozenset[str], PairDecision], str | None]:
    """({pair: its latest decision}, a warning when the file could not be used)."""
    read = read_meta(Path(root), DECISIONS_META, version=VERSION)
    found: dict[frozenset[str], PairDecision] = {}
    for row in (read.data or {}).get("pairs") or []:
        try:
            d = PairDecision(str(row["a"]), str(row["b"]), str(row["route"]), str(row["decided_at"]),
                             {str(k): str(v) for k, v in dict(row["sha256"]).items()},
                             row.get("proposal") if isinstance(row.get("proposal"), str) else None)
        except (KeyError, TypeError, ValueError):
            continue
        if d.route in ROUTES and is_digest_note(d.a) and is_digest_note(d.b):
            found[d.pair] = d
    return found, (read.warning if read.exists else None)


def decision_holds(root: Path | str, decision: PairDecision) -> bool:
    """Both notes are still what they were when the person decided."""
    return all(file_sha256(root, p) == decision.sha256.get(p) for p in (decision.a, decision.b))


def record_decision(root: Path | str, a: str, b: str, route: str, *, now: datetime,
                    proposal: str | None = None) -> PairDecision:
    """Record (or replace) the decision on the pair {a, b}, with both notes' sha256 now."""
    if route not in ROUTES:
        raise RemeError(f"Unknown route {route!r}; use one of {', '.join(ROUTES)}.")
    if not (is_digest_note(a) and is_digest_note(b)) or a == b:
        raise RemeError(f"A decision is on two different digest notes, not {a!r} and {b!r}.")
    shas = {p: file_sha256(root, p) for p in (a, b)}
    missing = [p for p, s in shas.items() if s is None]
    if missing:
        raise RemeError(f"{', '.join(missing)} cannot be read; there is no pair to decide on.")
    decisions, _ = read_decisions(root)
    decision = PairDecision(a, b, route, iso_utc(now), {p: s for p, s in shas.items() if s},
                            proposal)
    decisions[decision.pair] = decision
    write_meta(Path(root), DECISIONS_META,
               {"pairs": [d.to_json() for d in sorted(decisions.values(), key=lambda d: (d.a, d.b))]},
               version=VERSION, now=now)
    return decision


def hand_to_dream(vault, a: str, b: str, into: str, *, report: str,
                  votes: list[dict]) -> str:
    """The "hand to dream as an update" route of the uncertain pair {a, b} (docs/spec.md
    §7.7.3): a `dream.refine` proposal of `into` (one of the pair) that lists the other
    note as an instance of it, under `**Instances:**` (both notes stay; every old link of
    `into` stays, as E-1 demands), waiting for the person, with the stored checks
    `keeps_outbound` (E-1), `only_paths`, `no_sources_written` and `links_resolve` (every
    link of the note, old ones included, must name an existing file by its vault path);
    the decision is recorded with it. `report` is the uncertain report the pair came from,
    `votes` its judges' votes, for the story. Returns the proposal's id."""
    from ..proposals import ProposalQueue
    from ..vault.checks import CheckSpec
    from ..vault.links import format_link, outbound_keys, parse_links
    from ..vault.note import decode_note_bytes, parse, render
    from ..vault.store import Edit

    if into not in (a, b):
        raise RemeError(f"{into} is not one of the pair ({a}, {b}).")
    other = b if into == a else a
    current = vault.store.read(into)
    if current is None:
        raise RemeError(f"{into} is gone; there is nothing to update.")
    text = decode_note_bytes(current[0], into, max_bytes=vault.max_note_bytes)
    note = parse(text, into)
    if any(lk.target == other for lk in parse_links(note.body)):
        raise RemeError(f"{into} already links {other}; open both notes and edit them by hand.")
    other_note = vault.scan.records.get(other)
    name = other_note.name if other_note and other_note.name else Path(other).stem
    description = (other_note.description or "").strip() if other_note else ""
    bullet = f"- {format_link(other, alias=name)}" + (f" — {description}" if description else "")
    body = note.body.rstrip("\n")
    if INSTANCES_LABEL in body:  # add to the list this route made before
        head, _, tail = body.partition(INSTANCES_LABEL)
        block, sep, rest = tail.partition("\n\n")
        body = f"{head}{INSTANCES_LABEL}{block}\n{bullet}{sep}{rest}"
    else:
        body, prov = _before_provenance(body)
        body = f"{body}\n\n{INSTANCES_LABEL}\n\n{bullet}" + (f"\n\n{prov}" if prov else "")
    new_text = render(note.with_body(body + "\n"))
    keys = [[t, p] for t, p in sorted(outbound_keys(text), key=lambda k: (k[0], k[1] or ""))]
    checks = [CheckSpec("keeps_outbound", {"path": into, "keys": keys}),
              CheckSpec("only_paths", {"paths": [into]}),
              CheckSpec("no_sources_written", {}),
              CheckSpec("links_resolve", {"path": into, "keep": []})]
    queue = ProposalQueue(vault)
    proposal = queue.new(
        "dream.refine", f"update {into}: {other} is an instance of it (from the uncertain report)",
        [Edit(into, new_text.encode("utf-8"), current[1])], checks=checks,
        story={"route": "uncertain duplicate handed to dream as an update", "report": report,
               "pair": [a, b], "instance": other, "votes": list(votes),
               "checks_passed": [c.name for c in checks]},
        before={into: current[0]})
    queue.save(proposal)
    record_decision(vault.root, a, b, "dream_update", now=vault.clock(), proposal=proposal.id)
    return proposal.id


def _before_provenance(body: str) -> tuple[str, str]:
    """(the body without its closing `derived_from::` lines, those lines)."""
    lines = body.split("\n")
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("derived_from::")):
        end -= 1
    return "\n".join(lines[:end]).rstrip(), "\n".join(ln for ln in lines[end:] if ln.strip())
