"""Generated digest vaults with a planted truth, for benchmarks and experiments.

`generate_vault(root, SyntheticSpec(notes=10_000, mixing=0.3, seed=7))` writes a vault
of digest notes grouped into planted communities and saves what was planted beside the
vault (`<root>.planted.json`, outside the vault so no scan sees it):

* **communities** — note counts drawn uniformly from `[min_community, max_community]`;
  notes are dealt to communities in a shuffled order and to buckets at random, so
  neither file names nor buckets give a community away. Each note has between half and
  one and a half times `links_per_note` outbound links; each link leaves the note's
  community with probability `mixing` (the LFR benchmark's mu, approximately: in-links
  are not controlled), otherwise it goes to another member of the same community.
  Links come as Obsidian writes them: plain, aliased and typed (`is_a:: [[…]]`); a
  share of notes link the same target twice (with and without a predicate), and every
  note carries `derived_from::` into one of the generated daily logs.

Generation is two steps, so that it can grow: `plan_vault(spec)` makes the notes as
values (`PlannedNote`), `write_vault` writes them and the truth. A new planted feature
(duplicate pairs, stale notes, hub notes, …) is a new `SyntheticSpec` field that is off
by default, one planning step that adds or changes `PlannedNote`s, and one entry in the
truth file's `planted` object — the `communities` entry is the first of them.

`normalized_mutual_info` scores a found partition against the planted one.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from pathlib import Path

from ..errors import RemeError
from ..vault.layout import BUCKETS

__all__ = [
    "SyntheticSpec",
    "PlannedNote",
    "SyntheticVault",
    "plan_vault",
    "write_vault",
    "generate_vault",
    "truth_path_for",
    "read_truth",
    "normalized_mutual_info",
]

TRUTH_VERSION = 1
PREDICATES = ("is_a", "part_of", "see_also", "depends_on", "related_to")
WORDS = (
    "token rotation cache deploy review latency budget schema migration index retry "
    "backoff queue worker lease signing key secret vault graph community merge split "
    "archive recency provenance daily resource digest note link predicate rollout "
    "canary alert runbook owner quota shard replica snapshot restore audit policy"
).split()


@dataclass(frozen=True)
class SyntheticSpec:
    notes: int = 1000
    min_community: int = 5
    max_community: int = 40
    mixing: float = 0.1  # share of a note's links that leave its community
    links_per_note: int = 6  # mean outbound links to other digest notes
    typed_share: float = 0.3  # links written with a predicate
    repeat_share: float = 0.2  # notes that link one target twice (one edge in the graph)
    words: tuple[int, int] = (120, 220)  # body length, about 1-2 KB as bench_vault.py
    days: int = 28  # daily logs are spread over this many days
    start: date = date(2026, 10, 1)
    seed: int = 7

    def check(self) -> None:
        if self.notes < 0:
            raise RemeError(f"notes must be 0 or more, not {self.notes}.")
        if not 1 <= self.min_community <= self.max_community:
            raise RemeError(
                "Community sizes need 1 <= min_community <= max_community "
                f"(got {self.min_community}, {self.max_community})."
            )
        if not 0.0 <= self.mixing <= 1.0:
            raise RemeError(f"mixing is a share between 0 and 1, not {self.mixing}.")
        if self.links_per_note < 0 or self.days < 1:
            raise RemeError("links_per_note must be 0 or more and days at least 1.")

    def to_json(self) -> dict:
        doc = asdict(self)
        doc["start"] = self.start.isoformat()
        doc["words"] = list(self.words)
        return doc


@dataclass(frozen=True)
class PlannedNote:
    path: str  # digest/<bucket>/note-000123.md
    community: int  # the planted community's number
    links: tuple[tuple[str, str | None], ...]  # (target path, predicate) in writing order
    source: str  # the daily log it is derived from
    description: str
    body: str


@dataclass(frozen=True)
class SyntheticVault:
    root: Path
    spec: SyntheticSpec
    notes: tuple[PlannedNote, ...]
    truth_path: Path

    def planted(self) -> dict[str, int]:
        """note path -> planted community number."""
        return {n.path: n.community for n in self.notes}


def _note_path(i: int, bucket: str) -> str:
    return f"digest/{bucket}/note-{i:06d}.md"


def _community_sizes(spec: SyntheticSpec, rng: random.Random) -> list[int]:
    sizes: list[int] = []
    left = spec.notes
    while left > 0:
        size = min(rng.randint(spec.min_community, spec.max_community), left)
        sizes.append(size)
        left -= size
    if len(sizes) > 1 and sizes[-1] < spec.min_community:  # a short tail joins its neighbour
        tail = sizes.pop()  # (`sizes[-2] += sizes.pop()` would add it one place too far)
        sizes[-1] += tail
    return sizes


def plan_vault(spec: SyntheticSpec) -> tuple[PlannedNote, ...]:
    """The notes of the vault `spec` describes, as values (the same spec, the same notes)."""
    spec.check()
    rng = random.Random(spec.seed)
    n = spec.notes
    order = list(range(n))
    rng.shuffle(order)  # which note goes to which community
    community = [0] * n
    members: list[list[int]] = []
    at = 0
    for c, size in enumerate(_community_sizes(spec, rng)):
        group = order[at : at + size]
        at += size
        members.append(group)
        for i in group:
            community[i] = c
    paths = [_note_path(i, rng.choice(BUCKETS)) for i in range(n)]
    logs = [
        f"daily/{(spec.start + timedelta(days=k % spec.days)).isoformat()}/log-{k:04d}.md"
        for k in range(max(1, n // 25))
    ]
    low = max(1, spec.links_per_note // 2) if spec.links_per_note else 0
    high = spec.links_per_note + spec.links_per_note // 2
    notes = []
    for i in range(n):
        own = members[community[i]]
        can_leave, can_stay = len(own) < n, len(own) > 1
        targets: list[int] = []
        for _ in range(rng.randint(low, high) if high and (can_leave or can_stay) else 0):
            leave = rng.random() < spec.mixing
            if (leave and can_leave) or not can_stay:
                j = rng.randrange(n)
                while community[j] == community[i]:  # a link out of the community
                    j = rng.randrange(n)
            else:
                j = i
                while j == i:
                    j = rng.choice(own)
            targets.append(j)
        links = [
            (paths[j], rng.choice(PREDICATES) if rng.random() < spec.typed_share else None)
            for j in targets
        ]
        if links and rng.random() < spec.repeat_share:
            again, predicate = links[rng.randrange(len(links))]
            links.append((again, None if predicate else rng.choice(PREDICATES)))
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*spec.words)))
        notes.append(PlannedNote(
            path=paths[i],
            community=community[i],
            links=tuple(links),
            source=logs[rng.randrange(len(logs))],
            description=f"Note {i} about {rng.choice(WORDS)} and {rng.choice(WORDS)}.",
            body=words,
        ))
    return tuple(notes)


def _render(note: PlannedNote) -> str:
    name = note.path.rsplit("/", 1)[1].removesuffix(".md")
    plain, typed = [], []
    for k, (target, predicate) in enumerate(note.links):
        if predicate:
            typed.append(f"{predicate}:: [[{target}]]")
        elif k % 3 == 2:
            plain.append(f"[[{target}|{target.rsplit('/', 1)[1].removesuffix('.md')}]]")
        else:
            plain.append(f"[[{target}]]")
    half = len(note.body) // 2
    cut = note.body.find(" ", half)
    cut = half if cut < 0 else cut
    see = f"See {', '.join(plain)}.\n\n" if plain else ""
    return (
        f"---\nname: {name}\ndescription: {note.description}\n---\n# {name}\n\n"
        f"{note.body[:cut].strip()}\n\n{see}{note.body[cut:].strip()}\n\n"
        + "".join(f"{line}\n" for line in typed)
        + f"\nderived_from:: [[{note.source}]]\n"
    )


def truth_path_for(root: Path) -> Path:
    """Where the planted truth of the vault at `root` is kept: beside it, not inside."""
    root = Path(root)
    return root.parent / f"{root.name}.planted.json"


def write_vault(
    root: Path, spec: SyntheticSpec, notes: tuple[PlannedNote, ...], *,
    truth_path: Path | None = None,
) -> SyntheticVault:
    """Write `notes` (and their daily logs) under `root`, and the planted truth as JSON."""
    root = Path(root)
    for layer in ("resource", "daily", "meta", "audit", *(f"digest/{b}" for b in BUCKETS)):
        (root / layer).mkdir(parents=True, exist_ok=True)
    for log in sorted({n.source for n in notes}):
        path = root / log
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {path.stem}\n\nWork done on {path.parent.name}.\n", encoding="utf-8")
    for note in notes:
        (root / note.path).write_text(_render(note), encoding="utf-8")
    truth = Path(truth_path) if truth_path is not None else truth_path_for(root)
    sizes = Counter(n.community for n in notes)
    doc = {
        "version": TRUTH_VERSION,
        "generator": __name__,
        "vault": root.name,
        "spec": spec.to_json(),
        "planted": {
            "communities": {
                "notes": {n.path: n.community for n in sorted(notes, key=lambda n: n.path)},
                "sizes": [sizes[c] for c in sorted(sizes)],
            },
        },
    }
    tmp = truth.with_name(f".{truth.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, truth)
    return SyntheticVault(root, spec, notes, truth)


def generate_vault(
    root: Path, spec: SyntheticSpec | None = None, *, truth_path: Path | None = None
) -> SyntheticVault:
    """Plan and write a vault (see the module doc)."""
    spec = spec or SyntheticSpec()
    return write_vault(root, spec, plan_vault(spec), truth_path=truth_path)


def read_truth(path: Path) -> dict:
    """The planted truth a `write_vault` saved; refuses another version."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or doc.get("version") != TRUTH_VERSION:
        raise RemeError(
            f"{path} is not a version {TRUTH_VERSION} planted-truth file; generate the "
            "vault again with reme_workbench.experiments.synthetic.generate_vault."
        )
    return doc


def normalized_mutual_info(
    truth: Mapping[Hashable, Hashable], found: Mapping[Hashable, Hashable]
) -> float:
    """NMI of two partitions (node -> label) over the nodes both hold, normalised by the
    arithmetic mean of the two entropies (scikit-learn's default): 1.0 for the same
    partition under any labels, about 0 for unrelated ones. Two single-block partitions
    are the same partition (1.0); no common node at all raises."""
    nodes = [node for node in truth if node in found]
    if not nodes:
        raise RemeError("The two partitions share no node; NMI needs the same nodes in both.")
    total = len(nodes)
    a = Counter(truth[v] for v in nodes)
    b = Counter(found[v] for v in nodes)
    joint = Counter((truth[v], found[v]) for v in nodes)

    def entropy(counts: Counter) -> float:
        return -sum(c / total * math.log(c / total) for c in counts.values())

    h_a, h_b = entropy(a), entropy(b)
    if h_a + h_b == 0.0:
        return 1.0
    mutual = sum(
        c / total * math.log(c * total / (a[x] * b[y])) for (x, y), c in joint.items()
    )
    return max(0.0, min(1.0, 2.0 * mutual / (h_a + h_b)))
