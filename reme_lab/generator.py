"""The generator of digest vaults with a planted truth: benchmarks and experiments.

One generator for every benchmark and experiment of consolidate:
`generate_vault(root, VaultSpec(notes=10_000, duplicates=500, near_misses=500, stale=300,
hubs=20, overloaded=10))` writes a vault of digest notes that look like the ones dream
writes — frontmatter `name` (= the slug) and `description`, a body of statements (a
runbook's When / Steps / Watch out, a rule with Why / How to apply, a definition with
bullets), a `**Related:**` list and typed links into the note's community, and
`derived_from:: [[daily/…]]` into a daily log that exists — and saves what was planted
beside the vault (`<root>.planted.json`, outside it so no scan sees it):

* **communities** — topical: each has a codename (`kovel`), a domain (`payments`) and
  its own services, stores, queues and people, so names never repeat across
  communities. Links stay inside the community but for `mixing` of them, so Leiden
  finds the communities; sizes are drawn from `[min_community, max_community]`.
* **notes** — each of one of 13 kinds (deploy, rotate a credential, restore, migrate,
  drain a queue; a tool preference, a merge freeze, a review style, an alert rule; a
  service overview, a decision, an incident, limits), filled with the community's
  entities and drawn values (ports, timeouts, tags …). A note's *facts* are its
  statements with their values (`deploy.canary` with service, env, tag, pct); no two
  notes of a community have the same kind and subject (kind.subject names the values
  that say what a note is about: one runbook per service or store, not one per env, so
  that no two distinct notes are one procedure with another parameter), and two notes of
  one kind share at most one statement.
* **duplicate pairs** (`duplicates`) — a *twin* of a note in the same community: the
  same kind, subject and values (so the same facts), paraphrased: another name and so
  another slug, another description wording, statements in the other phrasing and with
  synonyms swapped, bullets reordered, and (medium and heavy strength) an optional
  statement dropped or added (40 % of the twins light, 40 % medium, 20 % heavy); in a
  share `mixed_language` of them one or two statements are in the other language
  (Chinese in an English community, English in a Chinese one).
  The twin derives from another daily log, and keeps about half of the original's links.
  `notes` counts twins: the vault has `notes` files and `notes - duplicates` concepts.
* **twins placed across** (`across`) — that many of the duplicate pairs have their twin
  in another community of its language: it links three or four of that community's
  notes, two of them link it, and its own community no longer does (a duplicate filed
  in another corner; the truth marks the pair `across`).
* **template-built notes** (`templated`, `templated_duplicates`,
  `templated_near_misses`) — a community wiki's plugin pages, one template with other
  values, with their category, developer and mobile pages (`template_notes`): plugins
  listed twice on two category pages (duplicates of kind `plugin`, across) and forks
  (near misses: same name and description, another repository).
* **near misses** (`near_misses`) — two distinct notes of one community, of one kind,
  in the same phrasing and with the same optional statements, but with every value
  drawn again and different (another service, env, person, tool, number …): the same
  topic words, no fact in common. What a merge must not propose.
* **time** — the vault is written as of `now` (default: the day after the `days`
  window): every note's file time is `now` minus an age drawn from `[0, days]` days, and
  half of them were recalled in the last two weeks (`meta/access_log.jsonl`). **Stale
  notes** (`stale`) are older — `stale_days` plus up to 100 days — and never used since
  dream wrote them (their `dream.create` is in the log): what the archive should take.
* **hub notes** (`hubs`) — in as many communities (of 5 notes or more), one wiki note
  "<code> <domain> overview" that links every other member with a line each: the
  community has its hub, so abstract must not propose another.
* **forming communities** (`forming`) — in the k-th of them a share k / `forming` of
  the notes was written in the last week (they did not exist a week ago; the truth
  lists them): the communities the stability gate should keep from a hub until they
  settle.
* **overloaded notes** (`overloaded`) — a note of four sections, each the statements of
  six notes of one kind about another community's topic (its own, then three others in
  its language; so the sections are about different things), over 2,000 estimated
  tokens: what split should cut. (A handbook of one service family, four kinds about one
  topic, is one topic to the offline brain: its sections are 0.34–0.49 alike.)

`notes` counts every file: twins, hubs, overloaded notes and template-built pages with
their lists included. A truth of version 2 (before `across` and template-built notes)
reads as one that planted none.
`plan_vault(spec)` makes the notes as values (`GeneratedNote`), `write_vault`
writes them, their logs, the access log and the truth; the same spec gives the same
bytes. `normalized_mutual_info` scores a found partition against the planted one.

This module writes the vault and its truth; what notes say (kinds, phrasings, topics'
values) is in `note_kinds`, and the plan (`VaultSpec`, the planned values, `plan_vault`)
in `vault_plan`. Their names are re-exported here: import them from this module.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import asdict, replace
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from reme_workbench.errors import RemeError
from reme_workbench.vault.meta import iso_utc

# The text tables and the planning live in two modules of their own; every name is
# re-exported here, so `reme_lab.generator` stays the one entry point.
from .note_kinds import _LABELS, KINDS, Topic
from .note_kinds import SYNONYMS as SYNONYMS
from .note_kinds import Fact as Fact
from .note_kinds import Kind as Kind
from .note_kinds import _codenames as _codenames
from .note_kinds import phrasings as phrasings
from .note_kinds import slots_of as slots_of
from .vault_plan import HUB_MIN_COMMUNITY as HUB_MIN_COMMUNITY
from .vault_plan import OVERLOADED_PER_SECTION as OVERLOADED_PER_SECTION
from .vault_plan import OVERLOADED_SECTIONS as OVERLOADED_SECTIONS
from .vault_plan import (
    PREDICATES,
    DailyLog,
    DuplicatePair,
    GeneratedNote,
    GeneratedVault,
    NearMissPair,
    VaultSpec,
    plan_vault,
)
from .vault_plan import STRENGTHS as STRENGTHS
from .vault_plan import Content as Content

__all__ = [
    "PREDICATES",
    "truth_path_for",
    "normalized_mutual_info",
    "VaultSpec",
    "GeneratedNote",
    "DuplicatePair",
    "NearMissPair",
    "GeneratedVault",
    "KINDS",
    "plan_vault",
    "write_vault",
    "generate_vault",
    "read_truth",
]

TRUTH_VERSION = 3  # 3: template-built notes, twins placed across communities
READABLE_VERSIONS = (2, 3)  # a version 2 truth reads the same: it planted none of those


def render_note(note: GeneratedNote, language: str = "en") -> str:
    """The Markdown file of `note`: frontmatter, statements, related links, provenance
    (a template-built page is its own `text`)."""
    if note.text:
        return note.text
    label = _LABELS[language]["related"]
    plain, typed = [], []
    for k, (target, predicate) in enumerate(note.links):
        if predicate:
            typed.append(f"{predicate}:: [[{target}]]")
        elif k % 4 == 3:  # now and then with an alias, as people write them
            plain.append(f"- [[{target}|{target.rsplit('/', 1)[1].removesuffix('.md')}]]")
        else:
            plain.append(f"- [[{target}]]")
    related = ("\n**" + label + ("：" if language == "zh" else ":") + "**\n"
               + "\n".join(plain) + "\n") if plain else ""
    tail = "".join(f"{line}\n" for line in typed)
    return (
        f"---\nname: {note.name}\ndescription: {json.dumps(note.description, ensure_ascii=False)}"
        f"\n---\n{note.body}{related}\n{tail}derived_from:: [[{note.source}]]\n"
    )


def _render_log(log: DailyLog, topic: Topic, notes: list[GeneratedNote]) -> str:
    name = log.path.rsplit("/", 1)[1].removesuffix(".md")
    did = "".join(f"- {n.description}\n" for n in notes) or "- Nothing worth keeping.\n"
    return (
        f"---\nname: {name}\ndescription: \"Work on {topic.code} {topic.domain}.\"\n"
        f"date: {log.day.isoformat()}\n---\n\n## Task\n\nWork on the {topic.code} "
        f"{topic.domain} services ({', '.join(topic.services)}).\n\n## What I did\n\n{did}"
    )


def write_vault(root: Path, plan: GeneratedVault, *, truth_path: Path | None = None
                     ) -> GeneratedVault:
    """Write the planned notes and their daily logs under `root`, and the truth as JSON."""
    root = Path(root)
    for layer in ("resource", "daily", "meta", "audit", "digest/procedure", "digest/personal",
                  "digest/wiki"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    by_log: dict[str, list[GeneratedNote]] = {}
    for note in plan.notes:
        by_log.setdefault(note.source, []).append(note)
    for log in plan.logs:
        path = root / log.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_render_log(log, plan.topics[log.community], by_log.get(log.path, [])),
                        encoding="utf-8")
    for path, text in plan.files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    for note in plan.notes:
        (root / note.path).write_text(render_note(note, note.language), encoding="utf-8")
    now = datetime.combine(plan.spec.today, time(12, 0), tzinfo=UTC)
    for path, age in plan.ages:  # the file time says when the note was last written
        stamp = (now - timedelta(days=age)).timestamp()
        os.utime(root / path, (stamp, stamp))
    for daily in plan.logs:  # a daily log was last written at the end of its day
        stamp = datetime.combine(daily.day, time(23, 0), tzinfo=UTC).timestamp()
        os.utime(root / daily.path, (stamp, stamp))
    for path, _ in plan.files:  # the import logs: the first day
        stamp = datetime.combine(plan.spec.start, time(23, 0), tzinfo=UTC).timestamp()
        os.utime(root / path, (stamp, stamp))
    log = root / "meta" / "access_log.jsonl"
    # a stale note was dreamt that long ago and never used since: its creation is in the
    # log, so the archive does not take it for a note copied in by hand (whose recency
    # starts when a batch first sees it, docs/spec.md §7.3.2); the young notes' creations
    # are left out, so the recalls stay the only activity the experiment plants
    written = dict(plan.ages)
    lines = [(written[path], {"path": path, "event": "dream.create"}) for path in plan.stale]
    lines += [(ago, {"path": path, "event": "recall", "query": "generated", "rank": 1})
              for path, ago in plan.recalled]
    with log.open("w", encoding="utf-8") as fh:
        for ago, line in sorted(lines, key=lambda r: -r[0]):
            fh.write(json.dumps({"ts": iso_utc(now - timedelta(days=ago)), **line}) + "\n")
    truth = Path(truth_path) if truth_path is not None else truth_path_for(root)
    sizes = Counter(n.community for n in plan.notes)
    doc = {
        "version": TRUTH_VERSION,
        "generator": __name__,
        "vault": root.name,
        "spec": plan.spec.to_json(),
        "planted": {
            "communities": {
                "notes": {n.path: n.community for n in sorted(plan.notes, key=lambda n: n.path)},
                "sizes": [sizes[c] for c in range(len(plan.topics) + len(plan.categories))],
                "topics": [{"community": t.community, "code": t.code, "domain": t.domain,
                            "language": t.language} for t in plan.topics]
                + [{"community": c, "code": "plugins", "domain": title, "language": "en"}
                   for c, title in plan.categories],
            },
            "duplicates": [asdict(p) for p in plan.duplicates],
            "near_misses": [asdict(p) for p in plan.near_misses],
            "now": now.isoformat(),
            "stale": list(plan.stale),
            "hubs": {str(c): p for c, p in plan.hubs},
            "overloaded": list(plan.overloaded),
            "forming": {str(c): list(paths) for c, paths in plan.forming},
            "notes": {n.path: {"kind": n.kind, "subject": list(n.subject),
                               "language": n.language, "facts": list(n.facts)}
                      for n in sorted(plan.notes, key=lambda n: n.path)},
        },
    }
    tmp = truth.with_name(f".{truth.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, truth)
    return replace(plan, root=root, truth_path=truth)


def generate_vault(root: Path, spec: VaultSpec | None = None, *,
                        truth_path: Path | None = None) -> GeneratedVault:
    """Plan and write a vault with planted duplicate pairs (see the module doc)."""
    return write_vault(root, plan_vault(spec or VaultSpec()), truth_path=truth_path)


def read_truth(path: Path) -> dict:
    """The truth a `write_vault` saved; refuses another generator or version."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if (not isinstance(doc, dict) or doc.get("version") not in READABLE_VERSIONS
            or doc.get("generator") != __name__):
        raise RemeError(
            f"{path} is not a version {TRUTH_VERSION} duplicate-pairs truth file; generate the "
            "vault again with reme_lab.generator.generate_vault."
        )
    for pair in doc.get("planted", {}).get("duplicates", []):
        pair.setdefault("across", False)  # version 2 placed every twin beside its original
    return doc


def truth_path_for(root: Path) -> Path:
    """Where the planted truth of the vault at `root` is kept: beside it, not inside."""
    root = Path(root)
    return root.parent / f"{root.name}.planted.json"


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
