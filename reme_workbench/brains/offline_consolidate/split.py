"""The offline consolidate brain's split plan (docs/spec.md §7.8, §7.9.4): deterministic
rules, no model.

Two ways to cut an overloaded note, tried in this order:

**Phases of a long procedure.** A note most of whose body (`LIST_SHARE`, half its
tokens) is one numbered list of at least `MIN_STEPS` (6) steps — what dream writes for a
long runbook: `## When`, `## Steps`, `## Watch out` — is cut inside the list: its steps
into 2–6 consecutive *phases* of about `PHASE_TOKENS` (600) estimated tokens each, cut
where neighbouring steps are least alike (a dynamic programme over the cut points:
the sum of `sim` across the cuts plus a penalty for phases far from the average size;
each phase at least 2 steps). Overloaded when the phases are dispersed: their mean
`sim` two by two (each pair as alike as the mean of their steps' pairs) is under
`[split] dispersed_under` + `PHASE_MARGIN` (0.16 + 0.09: the cut phases were measured
with). Each child is one phase: its steps verbatim, with their own
numbers (a list starting at 5 reads 5, 6, 7 in Obsidian), a link back `Part of
[[parent|name]].` and the parent's provenance; name `<parent>, steps 5–8` (a slug parent name as words); description
`Steps 5–8 of <parent>: <each step's title>` (a step's bold lead, else its first words).
The parent keeps everything but the list, and in the list's place a bullet per phase:
`[[child|name]] — <step titles>`.

**Sections.** Otherwise the note's own top-level sections (the shallowest heading level,
or the level under it when one heading holds the whole body — the `# Title` an imported
note or a folder note opens with, its topics the `##` under it: `sections_outline`;
headings in code or callouts are not sections). Sections are compared on their *topic
words* (`topic_text`: stopwords left out), above the chance level of the reference
sentences read the same way (`section_similarities`): on whole sentences the writer's
own words made three unrelated sections of one person's note 0.27 alike. Adjacent
sections join one part while their `sim` is at least `join_sim` (0.5) (or one is under
`min_section_tokens`, 40). Dispersion = the mean `sim` of the parts two by two (each
pair of parts as alike as the mean of their sections' pairs, sections of 40 tokens or
more); *shared* = the same mean of the share of topic words two sections have in common
(`shared_words`). Overloaded when at least 2 sections have 40 tokens, there are 2 parts
or more, and dispersion is under `[split] dispersed_under` (0.16) or shared is under
`DISJOINT_SHARE` of it (3 %): an embedder reads the categories of a folder note, one
list form, as alike though they name nothing in common. Measured on real and written
notes (docs/experiments.md "Sections of real notes"): notes of unrelated sections
0.00–0.09 alike under MiniLM and e5, one-topic notes and READMEs 0.23 and up. At most 6
children (the most alike neighbours join first). The parent keeps its intro (else its
description), gets a bullet per child `[[digest/<bucket>/<slug>.md|name]] —
description`, its closing Related list and its provenance; each child is its
section(s) verbatim (the first heading dropped when it holds no link: it is the name),
a link back `Part of [[parent|name]].` and the parent's provenance. Child name: the
heading, with the parent's name in front when the heading is generic or shares no word
with it ("Nightly backups" of "Build box" → "Build box nightly backups"); path =
`note_path(bucket, slugify(name))`; names never repeat.

A part over 20,000 characters is not split (a person must). What it cannot do: cut a
note without headings or steps, or move a stray paragraph to the topic it belongs to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from ...config import SplitSettings
from ...llm.consolidate import NoteView
from ...llm.schema import MAX_BODY, MAX_SPLIT_CHILDREN
from ...textrules import GENERIC_HEADING, content_words, reader_text, word_spans
from ...vault.links import parse_links
from ...vault.slug import note_path
from ...vault.tokens import estimate_tokens
from . import text as tx

__all__ = ["SplitPlanner", "JOIN_SIM", "MIN_SECTION_TOKENS", "MIN_STEPS", "LIST_SHARE",
           "PHASE_TOKENS", "DISJOINT_SHARE", "sections_outline", "shared_words", "topic_text"]

JOIN_SIM = 0.5  # adjacent sections this alike make one child
MIN_SECTION_TOKENS = 40  # a section smaller than this never stands alone
MIN_STEPS = 6  # a numbered list this long may be cut into phases
LIST_SHARE = 0.5  # ... when it holds this share of the body's tokens
PHASE_TOKENS = 600  # the size a phase aims at
# sections sharing less of their topic words than this share of `[split] dispersed_under`
# (0.16 → 3 %) are about different things however alike their form reads — one setting
# moves both cuts (docs/experiments.md, "Sections of real notes")
DISJOINT_SHARE = 0.2
# phases are still compared on whole sentences, against the cut they had when it was
# set (0.25 = the default 0.16 + this); they were not measured again with the sections
PHASE_MARGIN = 0.09
_NUMBERED = re.compile(r"^(\s*)\d{1,9}[.)][ \t]")
_BOLD_LEAD = re.compile(r"^\s*\d{1,9}[.)]\s+\*\*([^*\n]{2,80}?)[.:]?\*\*")

_TEXT = {
    "en": {
        "part_of": "Part of [[{link}]].",
        "parts": "**Parts:**",
        "steps": "{parent}, steps {first}–{last}",
        "steps_desc": "Steps {first}–{last} of {parent}: {titles}.",
    },
    "zh": {
        "part_of": "属于 [[{link}]]。",
        "parts": "**组成部分：**",
        "steps": "{parent}：第 {first}–{last} 步",
        "steps_desc": "{parent}的第 {first}–{last} 步：{titles}。",
    },
}

Similarities = Callable[[Sequence[str], str], tuple[np.ndarray, np.ndarray]]


class SplitPlanner:
    """Plans the split of one note: `plan(note, bucket, lang)` -> the SplitPlan data.

    `similarities(texts, lang)` -> (cosines, sims above chance) of every pair of texts
    (the offline brain's, on its embedder); `settings` the `[split]` section (its
    `dispersed_under` is the cut)."""

    def __init__(self, similarities: Similarities, settings: SplitSettings, *,
                 join_sim: float = JOIN_SIM, min_section_tokens: int = MIN_SECTION_TOKENS) -> None:
        self.similarities = similarities
        self.dispersed_under = settings.dispersed_under
        self.disjoint_under = settings.dispersed_under * DISJOINT_SHARE
        self.phases_under = settings.dispersed_under + PHASE_MARGIN
        self.join_sim = join_sim
        self.min_section_tokens = min_section_tokens
        self._chance_by_lang: dict[str, float] = {}

    def plan(self, note: NoteView, bucket: str, lang: str) -> dict:
        phased = self._by_phases(note, bucket, lang)
        return phased if phased is not None else self._by_sections(note, bucket, lang)

    # -- phases of a long step list ----------------------------------------------------------

    def _by_phases(self, note: NoteView, bucket: str, lang: str) -> dict | None:
        """The plan cutting the note's long numbered list into phases, or None when the
        note has no such list (then its sections decide)."""
        blocks = tx.blocks(note.body)
        span = _longest_list(blocks)
        if span is None:
            return None
        start, end = span
        steps = _steps(blocks[start:end])
        list_tokens = sum(estimate_tokens(tx.render_blocks(s)) for s in steps)
        if len(steps) < MIN_STEPS or list_tokens < LIST_SHARE * estimate_tokens(note.body):
            return None
        zh = lang == "zh"
        texts = [reader_text(tx.render_blocks(s)) for s in steps]
        _, sim = self.similarities(texts, lang)
        sizes = [estimate_tokens(tx.render_blocks(s)) for s in steps]
        k = min(MAX_SPLIT_CHILDREN, len(steps) // 2, max(2, math.ceil(list_tokens / PHASE_TOKENS)))
        phases = _phases(sim, sizes, k)
        dispersion = _dispersion(phases, list(range(len(steps))), sim)
        shown = "; ".join(f"{p[0] + 1}–{p[-1] + 1}" for p in phases)
        if dispersion >= self.phases_under:
            return {"overloaded": False, "children": [], "reason": tx.clip(
                f"{len(steps)} 个步骤分为 {len(phases)} 段（{shown}），各段平均相似度 {dispersion:.2f}"
                f"（低于 {self.phases_under:.2f} 才拆）：是同一件事" if zh else
                f"its {len(steps)} steps in {len(phases)} phases ({shown}) are {dispersion:.2f} alike "
                f"on average (split under {self.phases_under:.2f}): one task", 600)}
        parent_name = _readable(tx.one_line(note.name))
        provenance = tx.render_blocks(tx.outline(note.body).provenance)
        back = _TEXT[lang]["part_of"].format(link=tx.alias_link(note.path, note.name)[2:-2])
        taken = {tx.slug_or(note.name, ""), tx.path_stem(note.path)}
        children = []
        for phase in phases:
            first, last = phase[0] + 1, phase[-1] + 1
            name = _TEXT[lang]["steps"].format(parent=parent_name, first=first, last=last)
            slug = tx.slug_or(name, f"part-{first}")
            if slug in taken:
                return None  # a note named like its own phases: let the sections decide
            taken.add(slug)
            titles = ("、" if zh else "; ").join(_step_title(steps[i]) for i in phase)
            text = "\n".join(tx.render_blocks(steps[i]) for i in phase)
            body = "\n\n".join(p for p in (back, text, provenance) if p.strip())
            if len(body) > MAX_BODY:
                return None
            children.append({
                "name": name, "path": note_path(bucket, slug), "body": body,
                "description": tx.clip(_TEXT[lang]["steps_desc"].format(
                    parent=parent_name, first=first, last=last, titles=titles), 300),
            })
        bullets = "\n".join(
            f"- {tx.alias_link(c['path'], c['name'])} — {tx.one_line(c['description'])}" for c in children)
        parent = "\n\n".join(p for p in (
            tx.render_blocks(blocks[:start]), bullets, tx.render_blocks(blocks[end:])) if p.strip())
        names = ("、" if zh else "; ").join(c["name"] for c in children)
        reason = (
            f"{len(steps)} 个步骤（{list_tokens} 词元）分为 {len(phases)} 段（{shown}），各段平均相似度只有 "
            f"{dispersion:.2f}（低于 {self.phases_under:.2f}）：拆成 {len(children)} 篇：{names}" if zh else
            f"its {len(steps)} steps ({list_tokens} tokens) in {len(phases)} phases ({shown}) are only "
            f"{dispersion:.2f} alike on average (under {self.phases_under:.2f}): into "
            f"{len(children)} notes: {names}")
        return {"overloaded": True, "reason": tx.clip(reason, 600), "parent_body": parent,
                "children": [{k: c[k] for k in ("name", "description", "body")} for c in children]}

    # -- sections ----------------------------------------------------------------------------

    def _by_sections(self, note: NoteView, bucket: str, lang: str) -> dict:
        """The split along the note's own top-level sections (see the module doc)."""
        outline = sections_outline(note.body)
        sections = list(outline.sections)
        sizes = [estimate_tokens(s.text) for s in sections]
        big = [i for i, size in enumerate(sizes) if size >= self.min_section_tokens]
        zh = lang == "zh"

        def keep(reason: str) -> dict:
            return {"overloaded": False, "reason": tx.clip(reason, 600), "children": []}

        if len(big) < 2:
            return keep(
                f"只有 {len(big)} 个至少 {self.min_section_tokens} 词元的章节（共 {len(sections)} 个）：不按章节拆分"
                if zh else
                f"{len(big)} of its {len(sections)} sections have at least {self.min_section_tokens} "
                "tokens: nothing to split along"
            )
        sim = self.section_similarities([s.text for s in sections], lang)
        topics = self._group(sections, sizes, sim)  # adjacent alike sections: one topic
        if len(topics) < 2:
            return keep(
                f"{len(sections)} 个章节相邻的彼此相似（至少 {self.join_sim:.2f}），合为一个主题：不拆分"
                if zh else
                f"its {len(sections)} sections join into one part (neighbours at least "
                f"{self.join_sim:.2f} alike): one topic"
            )
        dispersion = _dispersion(topics, big, sim)
        shared = _dispersion(topics, big, shared_words([s.text for s in sections]))
        parts = (
            "" if len(topics) == len(sections) else
            (f"（相邻相似的合并后为 {len(topics)} 部分）" if zh else f" ({len(topics)} parts once alike neighbours join)")
        )
        words = (f"，共有词 {shared:.0%}" if zh else f", share {shared:.0%} of their topic words")
        if dispersion >= self.dispersed_under and shared >= self.disjoint_under:
            return keep(
                f"{len(sections)} 个章节{parts}彼此相似度平均 {dispersion:.2f}{words}（相似度低于 "
                f"{self.dispersed_under:.2f} 或共有词低于 {self.disjoint_under:.0%} 才拆）：是同一主题"
                if zh else
                f"its {len(sections)} sections{parts} are {dispersion:.2f} alike on average{words} "
                f"(split under {self.dispersed_under:.2f}, or under {self.disjoint_under:.0%} shared): one topic"
            )
        groups = _cap(topics, sim)
        children = self._children(note, bucket, lang, [[sections[i] for i in g] for g in groups])
        if children is None:
            return keep(
                f"有一个部分超过 {MAX_BODY:,} 个字符：请手动拆分" if zh else
                f"one part is over {MAX_BODY:,} characters, more than a note may hold: split it by hand"
            )
        parent = _parent_body(note, outline, children, bucket, lang)
        names = ("、" if zh else "; ").join(c["name"] for c in children)
        reason = (
            f"{len(sections)} 个章节{parts}彼此相似度平均只有 {dispersion:.2f}{words}（相似度低于 "
            f"{self.dispersed_under:.2f} 或共有词低于 {self.disjoint_under:.0%} 即拆）：拆成 {len(children)} 篇：{names}"
            if zh else
            f"its {len(sections)} sections{parts} are only {dispersion:.2f} alike on average{words} "
            f"(split under {self.dispersed_under:.2f}, or under {self.disjoint_under:.0%} shared): into "
            f"{len(children)} notes: {names}"
        )
        return {
            "overloaded": True,
            "reason": tx.clip(reason, 600),
            "parent_body": parent,
            "children": [{k: c[k] for k in ("name", "description", "body")} for c in children],
        }

    def section_similarities(self, texts: Sequence[str], lang: str) -> np.ndarray:
        """`sim` of every pair of sections, read on their content words (`topic_text`)
        above the chance level of unrelated note sentences read the same way: the
        writer's own function words ("we", "every", "then") make any two sections of
        one person's note alike, and measured on whole sentences three unrelated
        sections scored 0.27 (docs/experiments.md, "Sections of real notes")."""
        cos, _ = self.similarities([topic_text(t) for t in texts], lang)
        base = self._chance(lang)
        return np.clip((cos - base) / (1.0 - base), 0.0, 1.0)

    def _chance(self, lang: str) -> float:
        if lang not in self._chance_by_lang:
            from ...consolidate.reference import REFERENCE

            reference = REFERENCE.get(lang, REFERENCE["en"])
            cos, _ = self.similarities([topic_text(t) for t in reference], lang)
            off = cos[~np.eye(len(reference), dtype=bool)]
            self._chance_by_lang[lang] = min(float(off.mean()), 0.99)
        return self._chance_by_lang[lang]

    def _group(self, sections: list[tx.Section], sizes: list[int], sim: np.ndarray) -> list[list[int]]:
        """Adjacent sections joined while alike (or too small to stand alone)."""
        groups: list[list[int]] = [[0]]
        for i in range(1, len(sections)):
            small = sizes[i] < self.min_section_tokens or sum(sizes[k] for k in groups[-1]) < self.min_section_tokens
            if small or sim[groups[-1][-1], i] >= self.join_sim:
                groups[-1].append(i)
            else:
                groups.append([i])
        return groups

    def _children(self, note: NoteView, bucket: str, lang: str, groups: list[list[tx.Section]]) -> list[dict] | None:
        parent_link = tx.alias_link(note.path, note.name)
        provenance = tx.render_blocks(tx.outline(note.body).provenance)
        back = _TEXT[lang]["part_of"].format(link=parent_link[2:-2])
        taken = {tx.slug_or(note.name, ""), tx.path_stem(note.path)}
        out = []
        for group in groups:
            base_name = name = _child_name(note.name, group, note.body, lang)
            slug = tx.slug_or(name, "part")
            n = 2
            while slug in taken:  # two children never share a name (as dream, §5.3.3)
                name = f"{base_name} ({n})"
                slug = tx.slug_or(name, "part")
                n += 1
            taken.add(slug)
            first = group[0]
            heading_has_link = bool(parse_links(first.blocks[0].text))
            parts = [first.text if (heading_has_link or len(group) > 1) else first.content_text]
            parts += [s.text for s in group[1:]]
            text = "\n\n".join(p for p in parts if p.strip())
            body = "\n\n".join(p for p in (text, back, provenance) if p.strip())
            if len(body) > MAX_BODY:
                return None
            description = tx.first_sentence("\n\n".join(parts)) or name
            out.append({
                "name": name,
                "description": tx.clip(description, 300),
                "body": body,
                "path": note_path(bucket, slug),
            })
        return out



def shared_words(texts: Sequence[str]) -> np.ndarray:
    """The share of topic words (`content_words`: stemmed, no stopwords, links as their
    text) every pair of `texts` has in common: |A ∩ B| / min(|A|, |B|), 1 on the diagonal.
    What an embedder cannot see in a list: two categories of a folder note written in the
    same form read alike to it, yet name no thing in common."""
    words = [content_words(t) for t in texts]
    n = len(words)
    out = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            low = min(len(words[i]), len(words[j]))
            out[i, j] = out[j, i] = len(words[i] & words[j]) / low if low else 0.0
    return out


def topic_text(text: str) -> str:
    """What a section is about, for comparing sections: its words as a reader sees them
    (links as their text) less stopwords, in order; the text itself when it has none."""
    words = [w for w, content in word_spans(reader_text(text)) if content]
    return " ".join(words) if words else reader_text(text)


def sections_outline(body: str) -> tx.Outline:
    """The body's outline at the level its topics are: the top heading level, or the
    next one down when a single top heading holds them all — the `# Title` most imported
    notes open with, their topics in `##` sections under it (a folder note, a course
    note). The title and what precedes the first `##` stay the parent's intro."""
    outline = tx.outline(body)
    if len(outline.sections) != 1:
        return outline
    (only,) = outline.sections
    inner = tx.outline(tx.render_blocks(only.blocks[1:]))
    if len(inner.sections) < 2:
        return outline
    return tx.Outline(outline.intro + (only.blocks[0],) + inner.intro, inner.sections,
                      inner.tail + outline.tail, outline.provenance)


def _longest_list(blocks: list[tx.Block]) -> tuple[int, int] | None:
    """[start, end) of the numbered list (its items and what is nested in them) holding
    the most tokens, or None when the body has none."""
    best, best_tokens = None, 0
    i = 0
    while i < len(blocks):
        b = blocks[i]
        if b.kind == "item" and _NUMBERED.match(b.lines[0]):
            level, j = b.level, i + 1
            while j < len(blocks) and blocks[j].kind in ("item", "code") and (
                    blocks[j].level > level or blocks[j].kind == "code"
                    or (blocks[j].level == level and _NUMBERED.match(blocks[j].lines[0]))):
                j += 1
            tokens = sum(estimate_tokens(x.text) for x in blocks[i:j])
            if tokens > best_tokens:
                best, best_tokens = (i, j), tokens
            i = j
        else:
            i += 1
    return best


def _steps(blocks: list[tx.Block]) -> list[list[tx.Block]]:
    """The list's top-level steps, each with the blocks nested in it."""
    level = blocks[0].level
    steps: list[list[tx.Block]] = []
    for b in blocks:
        if b.kind == "item" and b.level == level and _NUMBERED.match(b.lines[0]):
            steps.append([b])
        else:
            steps[-1].append(b)
    return steps


def _readable(name: str) -> str:
    """A slug name as words ("new-laptop-dev-setup" -> "New laptop dev setup"): a child's
    name reads as a title, and its slug is the same either way."""
    if " " in name or not re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", name):
        return name
    words = re.sub(r"[-_]+", " ", name)
    return words[:1].upper() + words[1:]


def _step_title(step: list[tx.Block]) -> str:
    """A step's bold lead ("**Base tools.**"), else its first words."""
    first = step[0].lines[0]
    m = _BOLD_LEAD.match(first)
    if m:
        return m.group(1).strip()
    text = reader_text(_NUMBERED.sub("", first, count=1))
    sentence = tx.first_sentence(text) or text
    return tx.clip(sentence.rstrip(".:：。"), 60)


def _phases(sim: np.ndarray, sizes: list[int], k: int) -> list[list[int]]:
    """Steps 0..n-1 in `k` consecutive phases of at least 2 steps: the cut points whose
    sum of `sim` across the cuts, plus the phases' squared deviation from the average
    size (in units of that average), is smallest."""
    n = len(sizes)
    k = max(1, min(k, n // 2))
    prefix = np.concatenate([[0], np.cumsum(sizes)])
    mean = prefix[-1] / k

    def cost(a: int, b: int) -> float:  # steps a..b-1 as one phase
        return float(((prefix[b] - prefix[a]) / mean - 1.0) ** 2)

    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(k + 1)]
    back = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0.0
    for parts in range(1, k + 1):
        for end in range(2 * parts, n + 1):
            for start in range(2 * (parts - 1), end - 1):
                if best[parts - 1][start] == inf:
                    continue
                cut = float(sim[start - 1, start]) if start else 0.0
                value = best[parts - 1][start] + cost(start, end) + cut
                if value < best[parts][end]:
                    best[parts][end], back[parts][end] = value, start
    phases, end = [], n
    for parts in range(k, 0, -1):
        start = back[parts][end]
        phases.append(list(range(start, end)))
        end = start
    return phases[::-1]


def _child_name(parent: str, group: list[tx.Section], body: str, lang: str) -> str:
    """The first section's heading; prefixed with the parent's name when it does not
    name the topic alone: a generic heading ("Steps"), or one sharing no word with the
    parent ("Nightly backups" of "Build box" -> "Build box nightly backups"; in Chinese a
    heading naming a product in Latin letters stands alone)."""
    heading = re.sub(r"^\d+(\.\d+)*[.)]?\s+", "", reader_text(group[0].heading)).strip(" :：")
    base = tx.one_line(parent)
    named = lang == "zh" and re.search(r"[A-Z][A-Za-z]+", heading)  # "Home Assistant 备份"
    alone = heading and not GENERIC_HEADING.match(heading) and (
        named or content_words(heading) & content_words(base) or not content_words(base)
    )
    if alone:
        return tx.clip(heading, 120)
    if lang == "zh":
        joint = " " if heading[:1].isascii() else ""
        return tx.clip(f"{base}的{joint}{heading}" if heading else base, 120)
    first, _, rest = heading.partition(" ")
    # "Nightly" is lower-cased inside a name; "Python" (capitalised mid-sentence in the
    # note, so a proper name) and "CI" stay as written
    proper = first.isupper() or re.search(rf"(?<=[a-z,;] ){re.escape(first)}\b", body)
    if first and not proper:
        first = first[:1].lower() + first[1:]
    return tx.clip(f"{base} {first} {rest}".strip(), 120)


def _dispersion(groups: list[list[int]], big: list[int], sim: np.ndarray) -> float:
    """Mean similarity of the note's topics two by two; two topics are as alike as the
    mean of their sections' pairs (sections of substance only, where a topic has any)."""
    subst = [[i for i in g if i in big] or g for g in groups]
    pairs = [
        float(np.mean([sim[i, j] for i in a for j in b]))
        for k, a in enumerate(subst) for b in subst[k + 1 :]
    ]
    return float(np.mean(pairs))


def _cap(groups: list[list[int]], sim: np.ndarray) -> list[list[int]]:
    """At most MAX_SPLIT_CHILDREN groups: the most alike neighbours join first."""
    groups = [list(g) for g in groups]
    while len(groups) > MAX_SPLIT_CHILDREN:
        best = max(range(len(groups) - 1), key=lambda k: sim[groups[k][-1], groups[k + 1][0]])
        groups[best : best + 2] = [groups[best] + groups[best + 1]]
    return groups


def _parent_body(note: NoteView, outline: tx.Outline, children: list[dict], bucket: str, lang: str) -> str:
    words = _TEXT[lang]
    intro = tx.render_blocks(outline.intro)
    lead = intro if intro.strip() else tx.one_line(note.description or note.name)
    bullets = "\n".join(
        f"- {tx.alias_link(c['path'], c['name'])} — {tx.one_line(c['description'])}" for c in children
    )
    parts = [lead, words["parts"], bullets]
    if outline.tail:
        parts.append(tx.render_blocks(outline.tail))
    if outline.provenance:
        parts.append(tx.render_blocks(outline.provenance))
    return "\n\n".join(p for p in parts if p.strip())
