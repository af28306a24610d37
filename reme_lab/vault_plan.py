"""The plan of a generated vault: its spec, the planned notes, and how they are drawn.

The planning half of `reme_lab.generator` (its module doc describes the
vault): `VaultSpec`, the planned values (`Content`, `GeneratedNote`, `DuplicatePair`,
`NearMissPair`, `DailyLog`, `GeneratedVault`), a content rendered to name, description and
body, fresh notes, near misses and paraphrased twins, and `plan_vault`, which lays out
communities, planted pairs, links, daily logs, hub and overloaded notes, and every note's
time. Nothing here writes a file: `generator.write_vault` does.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, replace
from datetime import date, timedelta
from pathlib import Path

from reme_workbench.errors import RemeError
from reme_workbench.vault.slug import slugify

from .note_kinds import (
    _KIND,
    _LABELS,
    KINDS,
    Fact,
    Kind,
    Topic,
    _codenames,
    _draw,
    _phrase,
    _pool,
    _topic,
    slots_of,
)

PREDICATES = ("is_a", "part_of", "see_also", "depends_on", "related_to")
STRENGTHS = ("light", "medium", "heavy")
_STRENGTH_WEIGHTS = (0.4, 0.4, 0.2)


@dataclass(frozen=True)
class VaultSpec:
    notes: int = 1000  # digest files, twins included
    duplicates: int = 50  # planted duplicate pairs (each twin is one of `notes`)
    near_misses: int = 50  # planted pairs of distinct notes of one topic and kind
    min_community: int = 8
    max_community: int = 30
    mixing: float = 0.05  # share of links that leave the community
    links_per_note: int = 4  # mean outbound links to other digest notes
    typed_share: float = 0.25  # links written as `pred:: [[…]]`
    chinese_share: float = 0.1  # communities written in Chinese
    mixed_language: float = 0.15  # share of twins with a statement or two in the other language
    days: int = 28
    start: date = date(2026, 10, 1)
    seed: int = 7
    stale: int = 0  # notes old and never used (the archive's truth)
    stale_days: int = 150  # a stale note is at least this many days old
    hubs: int = 0  # communities that already have a hub note
    overloaded: int = 0  # notes over the split threshold, on several topics
    forming: int = 0  # communities still forming: part of their notes written this week
    now: date | None = None  # the day the vault is written as of; None: start + days + 1
    across: int = 0  # of the duplicate pairs, twins placed in another community
    templated: int = 0  # plugin pages built from one template (`template_notes`)
    templated_duplicates: int = 0  # plugins listed twice, on two category pages
    templated_near_misses: int = 0  # forks: same name and description, other repository

    @property
    def today(self) -> date:
        return self.now or self.start + timedelta(days=self.days + 1)

    def check(self) -> None:
        for name, f in self.__dataclass_fields__.items():
            value, default = getattr(self, name), f.default
            if value is None:
                continue
            default = date(2026, 1, 1) if default is None else default  # `now`: a date too
            wanted = float if isinstance(default, float) else type(default)
            if isinstance(value, bool) or not isinstance(value, (int, float) if wanted is float else wanted):
                raise RemeError(f"{name} must be {'a number' if wanted is float else wanted.__name__}"
                                f" (like {default}), not {value!r}.")
        counts = ("notes", "duplicates", "near_misses", "stale", "hubs", "overloaded", "forming",
                  "across", "templated", "templated_duplicates", "templated_near_misses")
        if any(getattr(self, name) < 0 for name in counts):
            raise RemeError(f"{', '.join(counts)} must be 0 or more.")
        if not 2 <= self.min_community <= self.max_community:
            raise RemeError(
                "Community sizes need 2 <= min_community <= max_community "
                f"(got {self.min_community}, {self.max_community})."
            )
        for name in ("mixing", "typed_share", "chinese_share", "mixed_language"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise RemeError(f"{name} is a share between 0 and 1, not {getattr(self, name)}.")
        if self.links_per_note < 0 or self.days < 1:
            raise RemeError("links_per_note must be 0 or more and days at least 1.")
        if self.across > self.duplicates:
            raise RemeError(f"across ({self.across}) counts duplicate pairs placed in another "
                            f"community: at most duplicates ({self.duplicates}).")
        if self.templated and self.notes - self.template_files < 2 * self.min_community:
            raise RemeError(f"{self.templated} templated notes come with "
                            f"{self.template_files - self.templated} category and developer "
                            f"pages; {self.notes} notes leave too few for the other notes "
                            "(notes counts every file): ask for more notes or fewer templated.")

    @property
    def template_files(self) -> int:
        """The files the template-built notes take of `notes` (their lists included)."""
        if not self.templated:
            return 0
        from .template_notes import pages_for

        return pages_for(self.templated)

    def to_json(self) -> dict:
        doc = asdict(self)
        doc["start"] = self.start.isoformat()
        doc["now"] = self.today.isoformat()
        return doc

# --- planned notes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Content:
    """What a note says, before it is written: kind, values and how it is phrased."""

    kind: str
    values: tuple[tuple[str, str], ...]
    facts: tuple[str, ...]  # keys of the statements present, in the kind's order
    variants: tuple[tuple[str, int], ...]  # fact key -> English phrasing index
    name_variant: int
    description_variant: int
    language: str
    other_language: tuple[str, ...] = ()  # fact keys written in the other language
    synonyms: float = 0.0  # share of swappable words swapped
    shuffle: int | None = None  # a seed to reorder the bullets; None keeps the order


@dataclass(frozen=True)
class GeneratedNote:
    path: str
    community: int
    kind: str
    subject: tuple[str, ...]
    language: str
    facts: tuple[str, ...]  # canonical statements: "kind.fact key=values"
    name: str
    description: str
    body: str  # the statements, without links and provenance
    links: tuple[tuple[str, str | None], ...] = ()
    source: str = ""
    text: str = ""  # the whole file when it is not rendered from the above (a template page)


@dataclass(frozen=True)
class DuplicatePair:
    a: str  # the original
    b: str  # its twin
    kind: str
    strength: str  # light / medium / heavy
    mixed_language: bool
    dropped: tuple[str, ...]  # fact keys the twin lacks
    added: tuple[str, ...]  # fact keys only the twin has
    across: bool = False  # the twin was placed in another community (linked from its notes)


@dataclass(frozen=True)
class NearMissPair:
    a: str
    b: str
    kind: str


@dataclass(frozen=True)
class DailyLog:
    path: str
    community: int
    day: date


@dataclass(frozen=True)
class GeneratedVault:
    root: Path
    spec: VaultSpec
    notes: tuple[GeneratedNote, ...]
    duplicates: tuple[DuplicatePair, ...]
    near_misses: tuple[NearMissPair, ...]
    topics: tuple[Topic, ...] = ()
    logs: tuple[DailyLog, ...] = ()
    truth_path: Path | None = None
    ages: tuple[tuple[str, float], ...] = ()  # note path -> days before `now` it was written
    recalled: tuple[tuple[str, float], ...] = ()  # note path -> days before `now` it was recalled
    stale: tuple[str, ...] = ()
    hubs: tuple[tuple[int, str], ...] = ()  # community -> its hub note
    overloaded: tuple[str, ...] = ()
    forming: tuple[tuple[int, tuple[str, ...]], ...] = ()  # community -> its notes new this week
    files: tuple[tuple[str, str], ...] = ()  # other files written as they are (import logs)
    categories: tuple[tuple[int, str], ...] = ()  # template communities -> category title

    def planted(self) -> dict[str, int]:
        """note path -> planted community number."""
        return {n.path: n.community for n in self.notes}


def _canonical(kind: Kind, content: Content) -> tuple[str, ...]:
    values = dict(content.values)
    out = []
    for fact in kind.facts:
        if fact.key in content.facts:
            names = sorted(slots_of(fact.text) | slots_of(fact.code or ""))
            out.append(f"{kind.key}.{fact.key}=" + ",".join(values[n] for n in names))
    return tuple(out)


def _render_content(content: Content, rng: random.Random) -> tuple[str, str, str]:
    """(name, description, body) of `content`."""
    kind = _KIND[content.kind]
    values = dict(content.values)
    lang = content.language
    variants = dict(content.variants)
    name = _phrase(kind.names, lang, content.name_variant, values, 0.0, rng)
    description = _phrase(kind.descriptions, lang, content.description_variant, values, 0.0, rng)
    other = "en" if lang == "zh" else "zh"
    said: dict[str, list[tuple[Fact, str]]] = {}
    for fact in kind.facts:
        if fact.key in content.facts:
            fact_lang = other if fact.key in content.other_language else lang
            text = _phrase(fact.text, fact_lang, variants.get(fact.key, 0), values,
                           content.synonyms, rng)
            said.setdefault(fact.role, []).append((fact, text))
    labels = _LABELS[lang]
    colon = "：" if lang == "zh" else ":"
    lines: list[str] = []

    def bullets(role: str) -> list[str]:
        items = [f"- {text}" for _, text in said.get(role, [])]
        if content.shuffle is not None:
            random.Random(content.shuffle).shuffle(items)
        return items

    if kind.bucket == "procedure":
        lines += [f"## {labels['when']}", "", *(t for _, t in said.get("when", [])), "",
                  f"## {labels['steps']}", ""]
        for i, (fact, text) in enumerate(said.get("step", []), 1):
            lines.append(f"{i}. {text}")
            if fact.code:
                language = "sql" if fact.code.startswith("ALTER") else "bash"
                lines += [f"   ```{language}", f"   {fact.code.format_map(values)}", "   ```"]
        if said.get("watch"):
            lines += ["", f"## {labels['watch']}", "", *bullets("watch")]
    elif kind.bucket == "personal":
        lines += [t for _, t in said.get("rule", [])]
        lines += ["", *(f"**{labels['why']}{colon}** {t}" for _, t in said.get("why", []))]
        lines += ["", *(f"**{labels['how']}{colon}** {t}" for _, t in said.get("how", []))]
        if said.get("note"):
            lines += ["", *bullets("note")]
    else:
        lines += [t for _, t in said.get("head", [])]
        if said.get("bullet"):
            lines += ["", *bullets("bullet")]
    return name, description, "\n".join(lines) + "\n"


def _all_statements(kind: Kind, values: dict[str, str]) -> frozenset[str]:
    """Every statement the kind could make with `values` (canonical form)."""
    return frozenset(f"{kind.key}.{f.key}=" + ",".join(
        values[n] for n in sorted(slots_of(f.text) | slots_of(f.code or ""))) for f in kind.facts)


def _distinct(kind: Kind, values: dict[str, str], said: dict) -> bool:
    """A new subject that shares at most one statement with each note of its kind so far:
    two notes saying the same things under two subjects would be ambiguous truth."""
    subject = (kind.key, *(values[s] for s in kind.subject))
    if subject in said.setdefault("subjects", set()):
        return False
    mine = _all_statements(kind, values)
    if any(len(mine & other) > 1 for other in said.setdefault(kind.key, [])):
        return False
    said["subjects"].add(subject)
    said[kind.key].append(mine)
    return True


def _fresh(kind: Kind, topic: Topic, rng: random.Random, said: dict) -> Content | None:
    for _ in range(30):
        values = _draw(rng, topic)
        if _distinct(kind, values, said):
            names = _pool(kind.names, topic.language)
            descriptions = _pool(kind.descriptions, topic.language)
            return Content(
                kind=kind.key, values=tuple(sorted(values.items())),
                facts=tuple(f.key for f in kind.facts if not f.optional or rng.random() < 0.6),
                variants=tuple((f.key, rng.randrange(2)) for f in kind.facts),
                name_variant=rng.randrange(len(names)),
                description_variant=rng.randrange(len(descriptions)),
                language=topic.language,
            )
    return None


def _near_miss(original: Content, topic: Topic, rng: random.Random, said: dict) -> Content | None:
    """Another note of the same kind, phrasing and statements, every value different."""
    kind = _KIND[original.kind]
    for _ in range(30):
        values = _draw(rng, topic, avoid=dict(original.values))
        if _distinct(kind, values, said):
            return Content(**{**asdict(original), "values": tuple(sorted(values.items())),
                              "shuffle": None})
    return None


def _twin(original: Content, strength: str, mixed: bool, rng: random.Random) -> Content:
    """The same facts, paraphrased (see the module doc of `generator`)."""
    kind = _KIND[original.kind]
    names = _pool(kind.names, original.language)
    descriptions = _pool(kind.descriptions, original.language)
    flip = {"light": 0.2, "medium": 0.6, "heavy": 1.0}[strength]
    facts = list(original.facts)
    if strength != "light":
        optional = [f.key for f in kind.facts if f.optional]
        present = [k for k in optional if k in facts]
        absent = [k for k in optional if k not in facts]
        if present and (strength == "heavy" or rng.random() < 0.5):
            facts.remove(rng.choice(present))
        if absent and (strength == "heavy" or rng.random() < 0.5):
            facts.append(rng.choice(absent))
    facts = [f.key for f in kind.facts if f.key in facts]  # the kind's order
    variants = tuple((k, 1 - v if rng.random() < flip else v) for k, v in original.variants)
    other = tuple(rng.sample(facts[1:], min(len(facts) - 1, rng.randint(1, 2)))) if mixed else ()
    return Content(
        kind=original.kind, values=original.values, facts=tuple(facts), variants=variants,
        name_variant=rng.choice([i for i in range(len(names)) if i != original.name_variant]),
        description_variant=(original.description_variant + 1) % len(descriptions),
        language=original.language, other_language=other,
        synonyms={"light": 0.3, "medium": 0.5, "heavy": 0.8}[strength],
        shuffle=rng.randrange(1 << 30),
    )


def _community_sizes(spec: VaultSpec, rng: random.Random) -> list[int]:
    sizes: list[int] = []
    left = spec.notes
    while left > 0:
        size = min(rng.randint(spec.min_community, spec.max_community), left)
        sizes.append(size)
        left -= size
    if len(sizes) > 1 and sizes[-1] < spec.min_community:  # a short tail joins its neighbour
        tail = sizes.pop()  # (not `sizes[-2] += sizes.pop()`: that adds to the wrong one)
        sizes[-1] += tail
    return sizes


HUB_MIN_COMMUNITY = 5
OVERLOADED_SECTIONS, OVERLOADED_PER_SECTION = 4, 6


def _special_slots(spec: VaultSpec, sizes: list[int], rng: random.Random) -> dict[int, list[str]]:
    """Which communities get a hub note and which an overloaded note (each takes one of
    the community's notes)."""
    out: dict[int, list[str]] = {}
    for what, count, least in (("hub", spec.hubs, HUB_MIN_COMMUNITY),
                               ("overloaded", spec.overloaded, HUB_MIN_COMMUNITY + 1)):
        fits = [c for c, n in enumerate(sizes) if n - len(out.get(c, ())) >= least]
        if count > len(fits):
            raise RemeError(f"{count} {what} notes need as many communities of {least} notes or "
                            f"more, and there are {len(fits)}; ask for fewer, or more notes.")
        for c in rng.sample(fits, count):
            out.setdefault(c, []).append(what)
    return out


def _overloaded_sections(topics: list[Topic], rng: random.Random, saids: list[dict]
                         ) -> list[tuple[str, list[Content]]] | None:
    """Four sections of six fresh contents, each section one kind about another topic (the
    note's own community's first, then three others'): a note about several things at
    once. Each content is fresh in its topic's community, so it says nothing a note there says."""
    sections = []
    kinds = rng.sample([k.key for k in KINDS], len(KINDS))
    for topic in topics:
        for key in list(kinds):
            found = []
            for _ in range(40):
                if len(found) == OVERLOADED_PER_SECTION:
                    break
                content = _fresh(_KIND[key], topic, rng, saids[topic.community])
                if content is not None:
                    found.append(content)
            if len(found) == OVERLOADED_PER_SECTION:
                sections.append((key, found))
                kinds.remove(key)
                break
        if len(sections) == OVERLOADED_SECTIONS:
            return sections
    return None


def plan_vault(spec: VaultSpec) -> GeneratedVault:
    """The notes, pairs and logs `spec` describes, as values (root not yet set)."""
    spec.check()
    if not spec.templated:
        return _place_across(spec, _plan_notes(spec))
    plan = _place_across(spec, _plan_notes(replace(spec, notes=spec.notes - spec.template_files)))
    return _with_templated(replace(plan, spec=spec), spec)


def _plan_notes(spec: VaultSpec) -> GeneratedVault:
    rng = random.Random(spec.seed)
    sizes = _community_sizes(spec, rng)
    codes = _codenames(rng, len(sizes))
    topics = tuple(_topic(c, codes[c], rng, spec.chinese_share) for c in range(len(sizes)))
    # Pair slots: a community of s notes holds up to s // 2 planted pairs.
    slots = [c for c, s in enumerate(sizes) for _ in range(s // 2)]
    if spec.duplicates + spec.near_misses > len(slots):
        raise RemeError(
            f"{spec.duplicates} duplicate and {spec.near_misses} near-miss pairs need "
            f"{2 * (spec.duplicates + spec.near_misses)} notes in pairs, but {spec.notes} notes "
            f"in {len(sizes)} communities hold at most {len(slots)} pairs; ask for fewer pairs."
        )
    rng.shuffle(slots)
    specials = _special_slots(spec, sizes, rng)  # community -> ["hub", "overloaded", ...]
    pairs_in = [[0, 0] for _ in sizes]  # per community: duplicate pairs, near-miss pairs
    for k, c in enumerate(slots[: spec.duplicates + spec.near_misses]):
        pairs_in[c][0 if k < spec.duplicates else 1] += 1
    # Paraphrase strengths and mixed-language twins by quota, so that every vault of a
    # spec has the same shares (40 % light, 40 % medium, 20 % heavy), drawn independently.
    quota = [round(spec.duplicates * sum(_STRENGTH_WEIGHTS[: k + 1])) for k in range(3)]
    strengths = [STRENGTHS[next(k for k in range(3) if i < quota[k])] for i in range(spec.duplicates)]
    mixed_twins = [i < round(spec.duplicates * spec.mixed_language) for i in range(spec.duplicates)]
    rng.shuffle(strengths)
    rng.shuffle(mixed_twins)
    paraphrases = list(zip(strengths, mixed_twins, strict=True))
    contents: list[tuple[int, Content]] = []
    pairs: list[tuple[str, int, int, dict]] = []  # (type, index of a, index of b, extra)
    overloaded: list[tuple[int, list[tuple[str, list[Content]]]]] = []
    saids: list[dict] = []
    for c, topic in enumerate(topics):
        said: dict = {}  # the community's subjects, and every kind's statements
        saids.append(said)
        dups, misses = pairs_in[c]
        units = ["duplicate"] * dups + ["near_miss"] * misses
        units += ["plain"] * (sizes[c] - 2 * len(units) - len(specials.get(c, ())))
        rng.shuffle(units)
        for unit in units:
            for _ in range(200):
                content = _fresh(KINDS[rng.randrange(len(KINDS))], topic, rng, said)
                partner: Content | None = None
                extra: dict = {}
                if content is not None and unit == "near_miss":
                    partner = _near_miss(content, topic, rng, said)
                    if partner is None:  # this kind has no other subject left here
                        continue
                if content is not None:
                    break
            else:
                raise RemeError(f"Community {c} ran out of distinct subjects; use a smaller "
                                "max_community.")
            if unit == "duplicate":
                strength, mixed = paraphrases.pop()
                partner = _twin(content, strength, mixed, rng)
                extra = {"strength": strength, "mixed_language": mixed,
                         "dropped": tuple(f for f in content.facts if f not in partner.facts),
                         "added": tuple(f for f in partner.facts if f not in content.facts)}
            contents.append((c, content))
            if partner is not None:
                contents.append((c, partner))
                pairs.append((unit, len(contents) - 2, len(contents) - 1, extra))
    for c in sorted(c for c, what in specials.items() if "overloaded" in what):
        # three other topics in the same language (a note is written in one language)
        others = [t for t in topics if t.community != c and t.language == topics[c].language]
        if len(others) < OVERLOADED_SECTIONS - 1:
            raise RemeError(f"An overloaded note covers {OVERLOADED_SECTIONS} communities' topics, "
                            f"but only {len(others) + 1} are written in its language; ask for "
                            "more notes or fewer overloaded ones.")
        sections = _overloaded_sections([topics[c], *rng.sample(others, OVERLOADED_SECTIONS - 1)],
                                        rng, saids)
        if sections is None:
            raise RemeError(f"Community {c} has too few subjects left for an overloaded "
                            "note; ask for fewer overloaded notes or larger communities.")
        overloaded.append((c, sections))
    return _finish(spec, rng, topics, contents, pairs, specials, overloaded)


def _finish(spec: VaultSpec, rng: random.Random, topics: tuple[Topic, ...],
            contents: list[tuple[int, Content]], pairs: list[tuple[str, int, int, dict]],
            specials: dict[int, list[str]] | None = None,
            overloaded: list[tuple[int, list[tuple[str, list[Content]]]]] | None = None,
            ) -> GeneratedVault:
    """Paths, links and daily logs for the planned contents."""
    taken: set[str] = set()
    drafts = []  # (community, content, path, description, body)
    for c, content in contents:
        name, description, body = _render_content(content, rng)
        bucket = _KIND[content.kind].bucket
        slug = base = slugify(name)
        for k in range(2, 1000):  # as a create does (docs/spec.md §1.3.3); rare here
            if f"{bucket}/{slug}" not in taken:
                break
            slug = f"{base}-{k}"
        taken.add(f"{bucket}/{slug}")
        drafts.append((c, content, f"digest/{bucket}/{slug}.md", description, body))
    members: list[list[int]] = [[] for _ in topics]
    for i, (c, *_rest) in enumerate(drafts):
        members[c].append(i)
    twin_of = {b: a for kind, a, b, _ in pairs if kind == "duplicate"}
    n = len(drafts)
    low = max(1, spec.links_per_note // 2) if spec.links_per_note else 0
    high = spec.links_per_note + spec.links_per_note // 2
    targets: list[list[int]] = []
    for i, (c, *_rest) in enumerate(drafts):
        own = members[c]
        chosen: list[int] = []
        if i in twin_of:  # a twin keeps about half of its original's links
            chosen = [j for j in targets[twin_of[i]] if j != i and rng.random() < 0.5]
        want = rng.randint(low, high) if high else 0
        for _ in range(want * 3):
            if len(chosen) >= want:
                break
            if rng.random() < spec.mixing and len(own) < n:
                j = rng.randrange(n)
                if drafts[j][0] == c:
                    continue
            elif len(own) > 1:
                j = rng.choice(own)
            else:
                break
            if j != i and j not in chosen:
                chosen.append(j)
        targets.append(chosen)
    logs: list[DailyLog] = []
    logs_of: list[list[int]] = []
    for c, topic in enumerate(topics):
        count = max(2 if len(members[c]) > 1 else 1, math.ceil(len(members[c]) / 5))
        mine = []
        for k in range(count):
            day = spec.start + timedelta(days=rng.randrange(spec.days))
            mine.append(len(logs))
            logs.append(DailyLog(
                f"daily/{day.isoformat()}/{topic.code}-{topic.domain}-session-{k + 1}.md", c, day))
        logs_of.append(mine)
    sources: list[int] = []
    for i, (c, *_rest) in enumerate(drafts):
        options = logs_of[c]
        if i in twin_of:  # learned again, from another day's work
            options = [k for k in options if k != sources[twin_of[i]]] or options
        sources.append(rng.choice(options))
    notes = []
    for i, (c, content, path, description, body) in enumerate(drafts):
        kind = _KIND[content.kind]
        values = dict(content.values)
        links = tuple(
            (drafts[j][2], rng.choice(PREDICATES) if rng.random() < spec.typed_share else None)
            for j in targets[i]
        )
        notes.append(GeneratedNote(
            path=path, community=c, kind=kind.key,
            subject=tuple(values[s] for s in kind.subject), language=content.language,
            facts=_canonical(kind, content), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=description, body=body, links=links, source=logs[sources[i]].path,
        ))
    hubs, heavy = _special_notes(spec, rng, topics, notes, taken, specials or {}, overloaded or [],
                                 logs, logs_of)
    duplicates = tuple(
        DuplicatePair(notes[a].path, notes[b].path, notes[a].kind, extra["strength"],
                      extra["mixed_language"], extra["dropped"], extra["added"])
        for kind, a, b, extra in pairs if kind == "duplicate"
    )
    near = tuple(NearMissPair(notes[a].path, notes[b].path, notes[a].kind)
                 for kind, a, b, _ in pairs if kind == "near_miss")
    ages, recalled, stale = _times(spec, rng, notes, pairs, hubs, heavy)
    ages, recalled, forming = _forming(spec, notes, ages, recalled, stale, hubs, heavy)
    return GeneratedVault(Path(), spec, tuple(notes), duplicates, near, topics, tuple(logs),
                          ages=ages, recalled=recalled, stale=stale,
                          hubs=tuple(sorted(hubs.items())), overloaded=tuple(heavy),
                          forming=forming)


def _special_notes(spec: VaultSpec, rng: random.Random, topics: tuple[Topic, ...],
                   notes: list[GeneratedNote], taken: set[str], specials: dict[int, list[str]],
                   overloaded: list[tuple[int, list[tuple[str, list[Content]]]]],
                   logs: list[DailyLog], logs_of: list[list[int]]) -> tuple[dict[int, str], list[str]]:
    """Append the overloaded notes, then the hub notes (which link them too), to `notes`."""

    def free(bucket: str, name: str) -> str:
        slug = base = slugify(name)
        for k in range(2, 1000):
            if f"{bucket}/{slug}" not in taken:
                break
            slug = f"{base}-{k}"
        taken.add(f"{bucket}/{slug}")
        return f"digest/{bucket}/{slug}.md"

    heavy: list[str] = []
    for c, sections in overloaded:
        topic = topics[c]
        parts = []
        for key, items in sections:
            parts += [f"## {_KIND[key].key.replace('_', ' ').capitalize()}", ""]
            for content in items:
                name, _description, body = _render_content(content, rng)
                # A content's own headings sit one level under its name.
                demoted = "\n".join("##" + line if line.startswith("## ") else line
                                     for line in body.rstrip().splitlines())
                parts += [f"### {name}", "", demoted, ""]
        members = [n.path for n in notes if n.community == c]
        path = free("wiki", f"{topic.code} {topic.domain} handbook")
        notes.append(GeneratedNote(
            path=path, community=c, kind="overloaded", subject=(topic.code,), language=topic.language,
            facts=(), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=f"Everything about {topic.code} {topic.domain} in one place.",
            body="\n".join(parts).rstrip() + "\n",
            links=tuple((p, None) for p in rng.sample(members, min(3, len(members)))),
            source=logs[rng.choice(logs_of[c])].path))
        heavy.append(path)
    hubs: dict[int, str] = {}
    for c in sorted(c for c, what in specials.items() if "hub" in what):
        topic = topics[c]
        members = sorted(n.path for n in notes if n.community == c)
        path = free("wiki", f"{topic.code} {topic.domain} overview")
        notes.append(GeneratedNote(
            path=path, community=c, kind="hub", subject=(topic.code,), language=topic.language,
            facts=(), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=f"Where to start with the {topic.code} {topic.domain} notes.",
            body=f"The {topic.code} {topic.domain} notes, one link each.\n",
            links=tuple((p, None) for p in members),
            source=logs[rng.choice(logs_of[c])].path))
        hubs[c] = path
    return hubs, heavy


def _times(spec: VaultSpec, rng: random.Random, notes: list[GeneratedNote], pairs: list,
           hubs: dict[int, str], heavy: list[str]
           ) -> tuple[tuple[tuple[str, float], ...], tuple[tuple[str, float], ...], tuple[str, ...]]:
    """Each note's age, the recent recalls, and the stale notes (plain notes only: never
    a note of a planted pair, a hub or an overloaded note)."""
    in_pairs = {notes[i].path for _, a, b, _ in pairs for i in (a, b)}
    special = set(hubs.values()) | set(heavy)
    plain = [n.path for n in notes if n.path not in in_pairs and n.path not in special]
    if spec.stale > len(plain):
        raise RemeError(f"{spec.stale} stale notes need as many plain notes (not in a planted "
                        f"pair, not a hub or overloaded note); there are {len(plain)}.")
    stale = set(rng.sample(plain, spec.stale))
    ages, recalled = [], []
    for n in notes:
        if n.path in stale:
            ages.append((n.path, round(spec.stale_days + rng.uniform(0, 100), 3)))
            continue
        ages.append((n.path, round(rng.uniform(0, spec.days), 3)))
        if rng.random() < 0.5:
            recalled.append((n.path, round(rng.uniform(0, 14), 3)))
    return tuple(ages), tuple(recalled), tuple(sorted(stale))


def _forming(spec: VaultSpec, notes: list[GeneratedNote], ages, recalled, stale,
             hubs: dict[int, str], heavy: list[str]):
    """Communities still forming: in the k-th of `spec.forming` (k = 1…), a share
    k / forming of the notes was written in the last week, so a week ago they did not
    exist (the stability gate's truth). Drawn from a generator of their own, so a vault
    with `forming` differs from one without only in these notes' times."""
    if not spec.forming:
        return ages, recalled, ()
    rng = random.Random(f"{spec.seed}-forming")
    heavy_paths = set(heavy)
    special = set(hubs) | {n.community for n in notes if n.path in heavy_paths}
    eligible = sorted({n.community for n in notes} - special)
    if spec.forming > len(eligible):
        raise RemeError(f"{spec.forming} forming communities need as many communities without a "
                        f"hub or an overloaded note; there are {len(eligible)}.")
    chosen = sorted(rng.sample(eligible, spec.forming))
    stale = set(stale)
    forming, new_age = [], {}
    for k, c in enumerate(chosen, start=1):
        members = sorted(n.path for n in notes if n.community == c and n.path not in stale)
        new = sorted(rng.sample(members, max(1, round(len(members) * k / spec.forming))))
        forming.append((c, tuple(new)))
        new_age.update((path, round(rng.uniform(0, 6.5), 3)) for path in new)
    ages = tuple((path, new_age.get(path, age)) for path, age in ages)
    # a new note was recalled, if at all, after it was written
    recalled = tuple((path, round(ago * new_age[path] / 14, 3) if path in new_age else ago)
                     for path, ago in recalled)
    return ages, recalled, tuple(forming)


def _place_across(spec: VaultSpec, plan: GeneratedVault) -> GeneratedVault:
    """Move `spec.across` twins to another community of their language: each links three
    or four of its notes instead of its own, and two of them link it; the links its old
    community had to it go. What a duplicate filed in another corner looks like."""
    if not spec.across:
        return plan
    rng = random.Random(f"{spec.seed}-across")
    notes = {n.path: n for n in plan.notes}
    special = set(plan.stale) | set(plan.overloaded) | {p for _, p in plan.hubs}
    members: dict[int, list[str]] = {}
    for n in plan.notes:
        if n.path not in special and n.kind not in ("hub", "overloaded"):
            members.setdefault(n.community, []).append(n.path)
    language = {t.community: t.language for t in plan.topics}
    moved: set[int] = set(rng.sample(range(len(plan.duplicates)), spec.across))
    pairs = []
    for k, pair in enumerate(plan.duplicates):
        if k not in moved:
            pairs.append(pair)
            continue
        twin = notes[pair.b]
        home = twin.community
        options = [c for c in members if c != home and language[c] == language[home]
                   and len(members[c]) >= 4]
        if not options:
            raise RemeError("A twin placed in another community needs another community of "
                            "its language with 4 notes or more; ask for more notes.")
        there = rng.choice(options)
        targets = rng.sample([p for p in members[there] if p != pair.a], 4 - rng.randrange(2))
        for path, n in list(notes.items()):  # its old community stops linking it
            if n.community == home and any(t == twin.path for t, _ in n.links):
                notes[path] = replace(n, links=tuple(lk for lk in n.links if lk[0] != twin.path))
        for path in rng.sample(targets, 2):
            n = notes[path]
            notes[path] = replace(n, links=(*n.links, (twin.path, None)))
        notes[twin.path] = replace(twin, community=there,
                                   links=tuple((t, None) for t in targets))
        members[home].remove(twin.path)
        members[there].append(twin.path)
        pairs.append(replace(pair, across=True))
    return replace(plan, notes=tuple(notes[n.path] for n in plan.notes), duplicates=tuple(pairs))


def _with_templated(plan: GeneratedVault, spec: VaultSpec) -> GeneratedVault:
    """`plan` with the template-built notes of `spec` added (`template_notes`)."""
    from .template_notes import plan_templated

    taken = {n.path.removeprefix("digest/").removesuffix(".md") for n in plan.notes}
    made = plan_templated(spec.templated, spec.templated_duplicates, spec.templated_near_misses,
                          seed=spec.seed, first_community=len(plan.topics), start=spec.start,
                          taken=taken)
    community = dict(made.communities)
    by_path = {p.path: p for p in made.plugins}
    notes = []
    for path, text in made.pages:
        plugin = by_path.get(path)
        kind = "plugin" if plugin else ("category" if "/plugins-for-" in path else "list")
        subject = (plugin.id,) if plugin else (path.rsplit("/", 1)[1].removesuffix(".md"),)
        facts = (f"plugin.id={plugin.id}", f"plugin.repository={plugin.repository}",
                 f"plugin.owner={plugin.owner}") if plugin else ()
        source = next(line for line in reversed(text.splitlines()) if "derived_from::" in line)
        notes.append(GeneratedNote(
            path=path, community=community[path], kind=kind, subject=subject, language="en",
            facts=facts, name=path.rsplit("/", 1)[1].removesuffix(".md"), description="",
            body="", source=source.split("[[", 1)[1].split("]]", 1)[0], text=text))
    rng = random.Random(f"{spec.seed}-templated-times")
    ages = tuple((n.path, round(rng.uniform(0, spec.days), 3)) for n in notes)
    duplicates = tuple(DuplicatePair(a, b, "plugin", "reworded" if reworded else "exact", False,
                                     (), (), across) for a, b, reworded, across in made.duplicates)
    near = tuple(NearMissPair(a, b, "plugin") for a, b in made.near_misses)
    return replace(plan, notes=(*plan.notes, *notes), duplicates=(*plan.duplicates, *duplicates),
                   near_misses=(*plan.near_misses, *near), ages=(*plan.ages, *ages),
                   files=(*plan.files, *made.logs), categories=made.categories)
